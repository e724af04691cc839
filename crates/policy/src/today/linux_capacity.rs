//! `linux-capacity`: Linux mainline's capacity-aware placement on a machine whose CPUs differ in
//! capacity (SD_ASYM_CPUCAPACITY), without Energy Aware Scheduling.
//!
//! Sources: Linux kernel/sched/fair.c, `select_idle_capacity` and `util_fits_cpu` (wake-up),
//! `update_misfit_status`, `check_misfit_status`/`nohz_balancer_kick` and the load balancer's
//! `group_misfit_task`/`migrate_misfit` (misfit migration), `update_sd_pick_busiest` (a misfit is
//! pulled only by a CPU greater by `capacity_greater` whose group has spare capacity,
//! `group_has_capacity` with `imbalance_pct`), `sched_balance_newidle` (idle pull);
//! Documentation/scheduler/sched-capacity.rst §5.
//!
//! The rule, over the machine's capacity levels (all CPUs of one capacity form a level; the
//! engine's CFS time-shares and balances the threads of a level among its CPUs, as the kernel's
//! balancing within a cluster does), with each thread's estimate u = `task_util_est` (PELT
//! util_avg and util_est, `common::utilization`) and its uclamp range:
//! - **wake-up and fork** (`Start`, `Wake`, and at each balance for a thread not yet placed): the
//!   thread's own level if u fits it (`util_fits_cpu` = 1) and it has an idle CPU; else the
//!   biggest fitting level with an idle CPU; else the idle level that fits best (−1 before 0,
//!   then the biggest: `select_idle_capacity`'s `best_cpu`); with no idle CPU anywhere, a thread
//!   stays where it is and a new one goes to the least loaded fitting level (`find_idlest_group`).
//! - **misfit** (every balance interval): a runnable thread that does not fit its level
//!   (`task_fits_cpu` false, uclamp_min included) moves to a level greater by the 5% margin whose
//!   CPUs have spare capacity for it (one idle, or their utilisation with it × 117 < capacity ×
//!   100): the smallest such that fits it, else the biggest such.
//! - **idle pull**: a level with an idle CPU takes a queued thread from a level with more
//!   runnable threads than CPUs: a bigger level the heaviest, a smaller one the lightest that
//!   fits it (else the lightest: it becomes a misfit and goes back up when there is room).
//!
//! The balance interval is `balance_ms`, 4 ms by default: one scheduler tick at CONFIG_HZ=250,
//! at which the kernel sets a running task's misfit status (`update_misfit_status` from
//! `task_tick_fair`) and kicks an idle bigger CPU to pull it (`nohz_balancer_kick` →
//! `check_misfit_status`). A busy bigger CPU balances less often in the kernel (its domain's
//! `balance_interval` × `busy_factor` 16: 128 ms on 8 CPUs); here every balance looks.
//!
//! Simplified: the spare capacity a misfit needs counts the misfit itself (the kernel tests the
//! group as it is, and may pull a misfit onto a busy bigger CPU, then pull a task back down when
//! that one is overloaded; here that back and forth does not start); placement is per capacity level, not per CPU (which CPU of a level the engine's
//! CFS picks: its last, an idle or the least loaded one, not `select_idle_capacity`'s scan from
//! the previous CPU); the wake-up rule applies when the policy is called for the wake (the
//! simulator calls at once; the live agent at its next sample, through affinities; Linux itself
//! already applies it live, and the agent's affinities only narrow it); no thermal pressure, no
//! `sched_asym_prefer`, no NUMA; the utilisation estimate's own simplifications
//! (`common::utilization`). On a machine of one capacity the kernel has no asymmetric domain
//! and neither does this policy: it leaves every thread to the engine's CFS (as `oblivious`).

use ampsched_model::{CoreSet, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, Trigger, Triggers};

use crate::common::utilization::{capacity_greater, util_fits_cpu, Fit};
use crate::common::{PerThread, Utilization};
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

/// `imbalance_pct` of the domains above SMT: a group has spare capacity while its utilisation ×
/// 117 is below its capacity × 100 (Linux kernel/sched/topology.c, `sd_init`: 117, was 125;
/// kernel/sched/fair.c, `group_has_capacity`).
pub const IMBALANCE_PCT: u64 = 117;

/// The default balance interval, ms: one tick at CONFIG_HZ=250 (see the module's comment).
pub const BALANCE_MS: f64 = 4.0;

pub const OPTIONS: [OptionInfo; 1] = [OptionInfo {
    name: "balance_ms",
    kind: OptionKind::quantum_ms(BALANCE_MS),
    doc: "how often misfit threads are moved up and idle levels pull (default: one tick at CONFIG_HZ=250, when the kernel \
          checks misfit status and kicks an idle bigger CPU)",
}];

pub const INFO: PolicyInfo = PolicyInfo {
    name: "linux-capacity",
    description: "Linux's capacity-aware placement: threads on CPUs whose capacity fits their estimated utilisation (uclamp \
                  applied), misfit threads moved to bigger CPUs, idle CPUs pull",
    source: "Linux kernel/sched/fair.c (select_idle_capacity, util_fits_cpu, update_misfit_status, misfit load balance)",
    options: &OPTIONS,
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(LinuxCapacity::new(o, m))),
};

/// Runnable threads and their summed utilisation on one level.
#[derive(Debug, Clone, Copy, Default)]
struct Load {
    runnable: u32,
    util: u64,
}

pub struct LinuxCapacity {
    util: Utilization,
    period_ns: u64,
    /// The capacity levels, ascending: (capacity, its cores).
    levels: Vec<(u32, CoreSet)>,
    /// Each thread's level, once the policy placed it.
    level: PerThread<Option<usize>>,
    /// This call's load per level.
    load: Vec<Load>,
}

impl LinuxCapacity {
    pub fn new(o: &Options, m: &Machine) -> Self {
        let mut levels = m.capacity_levels();
        levels.sort_by_key(|(cap, _)| *cap);
        let load = vec![Load::default(); levels.len()];
        LinuxCapacity { util: Utilization::new(), period_ns: o.ms("balance_ms"), levels, level: PerThread::new(), load }
    }

    /// The shared estimator (for `linux-eas` and tests).
    pub fn utilization(&self) -> &Utilization {
        &self.util
    }

    fn level_of_core(&self, core: usize) -> usize {
        self.levels.iter().position(|(_, cores)| cores.contains(core)).expect("every core has a level")
    }

    /// The level a thread counts on: the one it was given, else its core's.
    fn current(&self, view: &SystemView, t: ThreadId) -> Option<usize> {
        self.level.value(t).or_else(|| view.thread(t).core.map(|c| self.level_of_core(c)))
    }

    fn fit(&self, view: &SystemView, t: ThreadId, l: usize) -> Fit {
        let th = view.thread(t);
        util_fits_cpu(self.util.task_util_est(t), th.uclamp_min, th.uclamp_max, self.levels[l].0)
    }

    fn cpus(&self, l: usize) -> u32 {
        self.levels[l].1.len() as u32
    }

    fn has_idle(&self, l: usize) -> bool {
        self.load[l].runnable < self.cpus(l)
    }

    /// `group_has_capacity` for a thread of utilisation `adding` to join: an idle CPU, or the
    /// level's utilisation with it below capacity by `imbalance_pct`.
    fn has_capacity(&self, l: usize, adding: u64) -> bool {
        self.has_idle(l) || (self.load[l].util + adding) * IMBALANCE_PCT < self.levels[l].0 as u64 * self.cpus(l) as u64 * 100
    }

    fn count_loads(&mut self, view: &SystemView) {
        self.load.iter_mut().for_each(|l| *l = Load::default());
        for th in view.live_threads().filter(|th| th.state.is_runnable()) {
            if let Some(l) = self.current(view, th.id) {
                self.load[l].runnable += 1;
                self.load[l].util += self.util.task_util_est(th.id) as u64;
            }
        }
    }

    fn managed(view: &SystemView, t: ThreadId) -> bool {
        view.apps[view.thread(t).app as usize].policy_managed
    }

    /// Move `t` to level `to` (its load with it), deciding its affinity if that changes it.
    fn move_to(&mut self, view: &SystemView, t: ThreadId, to: usize, out: &mut Placement) {
        let u = self.util.task_util_est(t) as u64;
        if let Some(from) = self.current(view, t) {
            self.load[from].runnable -= 1;
            self.load[from].util -= u;
        }
        self.load[to].runnable += 1;
        self.load[to].util += u;
        if self.level.value(t) != Some(to) || view.thread(t).allowed != self.levels[to].1 {
            out.set(t, self.levels[to].1.clone());
        }
        self.level.set(t, Some(to));
    }

    /// The wake-up (and fork) rule for runnable thread `t`.
    fn wake(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement) {
        let cur = self.current(view, t);
        let assigned = self.level.value(t).is_some();
        // Take t off its level, to see its level's CPUs as the others leave them.
        let u = self.util.task_util_est(t) as u64;
        if let Some(c) = cur {
            self.load[c].runnable -= 1;
            self.load[c].util -= u;
        }
        let n = self.levels.len();
        let fits = |l: usize| self.fit(view, t, l);
        let choice = match cur.filter(|&c| assigned && fits(c).fits() && self.has_idle(c)) {
            Some(c) => c,
            None => (0..n)
                .rev()
                .find(|&l| fits(l).fits() && self.has_idle(l))
                .or_else(|| (0..n).rev().filter(|&l| self.has_idle(l)).max_by_key(|&l| (fit_rank(fits(l)), self.levels[l].0)))
                .unwrap_or_else(|| match cur.filter(|_| assigned) {
                    Some(c) => c,
                    // The least loaded level (runnable per CPU) among those that fit best, the
                    // bigger on a tie.
                    None => (0..n)
                        .rev()
                        .max_by(|&a, &b| {
                            let key = |l: usize| (fit_rank(fits(l)), std::cmp::Reverse(self.load[l].runnable as u64 * 1024 / self.cpus(l) as u64));
                            key(a).cmp(&key(b))
                        })
                        .expect("a machine has a level"),
                }),
        };
        // Put t back where it was counted, and move it.
        if let Some(c) = cur {
            self.load[c].runnable += 1;
            self.load[c].util += u;
        }
        self.move_to(view, t, choice, out);
    }

    /// Misfit migration and idle pull, at each balance.
    fn balance(&mut self, view: &SystemView, out: &mut Placement) {
        let n = self.levels.len();
        for &t in view.live {
            let th = view.thread(t);
            if !th.state.is_runnable() || !Self::managed(view, t) {
                continue;
            }
            let Some(cur) = self.level.value(t) else {
                self.wake(view, t, out);
                continue;
            };
            if self.fit(view, t, cur).fits() {
                continue;
            }
            // A misfit: to a greater level with spare capacity, the smallest that fits, else the biggest.
            let cap = self.levels[cur].0;
            let u = self.util.task_util_est(t) as u64;
            let up: Vec<usize> = (0..n).filter(|&l| capacity_greater(self.levels[l].0, cap) && self.has_capacity(l, u)).collect();
            if let Some(&to) = up.iter().find(|&&l| self.fit(view, t, l).fits()).or(up.last()) {
                self.move_to(view, t, to, out);
            }
        }
        self.idle_pull(view, out);
    }

    /// Levels with an idle CPU take queued threads from overloaded levels.
    fn idle_pull(&mut self, view: &SystemView, out: &mut Placement) {
        let n = self.levels.len();
        for to in (0..n).rev() {
            while self.has_idle(to) {
                let Some(from) = (0..n).filter(|&l| l != to && self.load[l].runnable > self.cpus(l)).max_by_key(|&l| self.load[l].runnable - self.cpus(l))
                else {
                    break;
                };
                let candidates = view.live.iter().copied().filter(|&t| {
                    let th = view.thread(t);
                    th.state.is_runnable() && Self::managed(view, t) && self.level.value(t) == Some(from)
                });
                let pick = if to > from {
                    candidates.max_by_key(|&t| (self.util.task_util_est(t), std::cmp::Reverse(t)))
                } else {
                    // The lightest that fits, else the lightest.
                    candidates.min_by_key(|&t| (!self.fit(view, t, to).fits(), self.util.task_util_est(t), t))
                };
                let Some(t) = pick else { break };
                self.move_to(view, t, to, out);
            }
        }
    }
}

/// `select_idle_capacity`'s order among idle CPUs that do not fit outright: −1 (only uclamp_min
/// unmet) before 0.
fn fit_rank(f: Fit) -> u8 {
    match f {
        Fit::Fits => 2,
        Fit::BelowUclampMin => 1,
        Fit::Misfit => 0,
    }
}

impl Policy for LinuxCapacity {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.period_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers { start: true, wake: true, ..Triggers::NONE }
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        self.util.update(view);
        if self.levels.len() < 2 {
            return Ok(());
        }
        self.count_loads(view);
        match view.trigger {
            Trigger::Start(t) | Trigger::Wake(t) if view.thread(t).state.is_runnable() && Self::managed(view, t) => self.wake(view, t, out),
            Trigger::Quantum => self.balance(view, out),
            _ => {}
        }
        Ok(())
    }
}
