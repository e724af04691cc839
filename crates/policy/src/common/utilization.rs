//! Linux's capacity rules and a per-thread utilisation estimate as today's mainline kernel keeps
//! it, from what a policy's view shows (the CPU time each thread got on each core type over each
//! quantum), never from the engine's own state.
//!
//! Sources: Linux kernel/sched/fair.c (`fits_capacity`, `capacity_greater`, `util_fits_cpu`,
//! `util_est_update`, `task_util_est`, `cpu_util`, `post_init_entity_util_avg`),
//! kernel/sched/pelt.c (`___update_load_sum`, `decay_load`: the geometric series with y^32 = 1/2)
//! and kernel/sched/sched.h (`uclamp_rq_util_with`), Documentation/scheduler/sched-capacity.rst
//! (§3: capacity- and frequency-invariant utilisation).
//!
//! - **util_avg**: PELT's decayed average of the time a task ran, each period weighing y = 2^(-1/32)
//!   of the next: a stretch 32 periods old counts half. Running time is made invariant as the
//!   kernel makes it: scaled by the capacity of the CPU it ran on (`arch_scale_cpu_capacity`) and
//!   by its current over its highest frequency (`arch_scale_freq_capacity`), so a task that keeps
//!   a little CPU of capacity 512 busy reads 512, not 1024. Here the running time comes from the
//!   view's `interval` per core type, spread evenly over the quantum: with f the quantum's
//!   invariant running fraction and d = y^(quantum/period), util ← util·d + 1024·f·(1 − d), the
//!   closed form of PELT's sum for a task that runs a steady fraction of each period.
//! - **util_est**: an EWMA of util_avg sampled when the task sleeps (is dequeued): raised at once
//!   to a higher sample, lowered by a quarter of the gap to a lower one (w = 1/4), left alone
//!   when within `UTIL_EST_MARGIN`. `task_util_est` = max(util_avg, util_est): a task that slept
//!   a while is not taken for a light one when it wakes.
//! - **uclamp**: a task's estimate is clamped to [uclamp_min, uclamp_max] before a fit check.
//!
//! Simplified: the kernel updates PELT at every tick, enqueue and dequeue; here at each quantum,
//! with the quantum's running time taken as spread evenly over it (exact for a steady duty
//! cycle, an average over the quantum otherwise). A sleep is seen (and util_est sampled) when the
//! view shows the thread not runnable (in `changed`): a sleep shorter than the time between two
//! calls is missed unless the policy asks for `Block` triggers. The kernel's skip of the EWMA for
//! a task that did not get all the CPU time it wanted (`task_runnable`) is not applied (it needs
//! runnable time, `Signals::PROGRESS`). A CPU's utilisation sums the threads running or queued
//! on it; the kernel also keeps the decaying contributions of tasks blocked there. A new task's
//! util_avg starts at half the highest capacity, what `post_init_entity_util_avg` gives a task
//! forked on an idle CPU of capacity 1024, whatever the CPU it forks on. The current frequency is
//! each type's `start_freq_ghz`, or the level a policy reports having set (`set_frequency`):
//! the view does not carry the frequency, and only a policy changes it in the simulator (live,
//! the kernel's own DVFS is not seen).

use ampsched_model::{Machine, SystemView, ThreadId, MAX_CORE_TYPES};

use super::{Changes, PerThread};

/// Linux's `SCHED_CAPACITY_SCALE`: the capacity of the biggest CPU at its highest frequency,
/// and the scale of every utilisation (include/linux/sched.h).
pub const SCHED_CAPACITY_SCALE: u32 = 1024;

/// `fits_capacity`'s margin: a utilisation fits a capacity when it is below 1024/1280 = 80% of
/// it (Linux kernel/sched/fair.c, `fits_capacity`: `cap * 1280 < max * 1024`).
pub const FIT_MARGIN: u64 = 1280;

/// `capacity_greater`'s margin: a capacity is greater than another when it exceeds it by more
/// than 1078/1024 − 1 ≈ 5% (Linux kernel/sched/fair.c, `capacity_greater`: `cap1 * 1024 > cap2 * 1078`).
pub const CAPACITY_GREATER_MARGIN: u64 = 1078;

/// `UTIL_EST_MARGIN`: util_est ignores a sample within 1% of capacity of its EWMA (Linux
/// kernel/sched/fair.c: `SCHED_CAPACITY_SCALE / 100`).
pub const UTIL_EST_MARGIN: u32 = SCHED_CAPACITY_SCALE / 100;

/// `UTIL_EST_WEIGHT_SHIFT`: util_est's EWMA weighs a new (lower) sample 1/4, w = 2^-2 (Linux
/// kernel/sched/fair.c, `util_est_update`: ewma ← (4·ewma − (ewma − sample)) / 4).
pub const UTIL_EST_WEIGHT_SHIFT: u32 = 2;

/// PELT's period: 1024 units of 1024 ns (the kernel shifts ns by 10 and counts periods of 1024
/// such units: Linux kernel/sched/pelt.c, `update_load_avg`/`accumulate_sum`), ≈ 1.05 ms.
pub const PELT_PERIOD_NS: u64 = 1024 * 1024;

/// `LOAD_AVG_PERIOD`: PELT's half-life in periods, y^32 = 1/2 (Linux kernel/sched/sched-pelt.h).
pub const LOAD_AVG_PERIOD: u64 = 32;

/// PELT's half-life, the kernel's "32 ms" (32 periods of 1024·1024 ns = 33.55 ms).
pub const PELT_HALF_LIFE_NS: u64 = LOAD_AVG_PERIOD * PELT_PERIOD_NS;

/// A new task's util_avg: what `post_init_entity_util_avg` gives a task forked on an idle CPU of
/// the highest capacity, half of its spare capacity (Linux kernel/sched/fair.c).
pub const NEW_TASK_UTIL: u32 = SCHED_CAPACITY_SCALE / 2;

/// Whether utilisation `util` fits capacity `capacity` with the kernel's 20% headroom:
/// util × 1280 < capacity × 1024 (Linux kernel/sched/fair.c, `fits_capacity`).
pub fn fits_capacity(util: u32, capacity: u32) -> bool {
    util as u64 * FIT_MARGIN < capacity as u64 * SCHED_CAPACITY_SCALE as u64
}

/// Whether capacity `a` is greater than `b` by more than ~5%: a × 1024 > b × 1078 (Linux
/// kernel/sched/fair.c, `capacity_greater`), so that CPUs whose capacities differ by noise
/// are not treated as bigger and smaller.
pub fn capacity_greater(a: u32, b: u32) -> bool {
    a as u64 * SCHED_CAPACITY_SCALE as u64 > b as u64 * CAPACITY_GREATER_MARGIN
}

/// A task's utilisation clamped to its uclamp range (Linux kernel/sched/sched.h,
/// `uclamp_rq_util_with` for one task): raised to `uclamp_min`, lowered to `uclamp_max`. A range
/// given backwards (min > max) is read as the kernel reads an effective clamp: max wins.
pub fn clamp_util(util: u32, uclamp_min: u32, uclamp_max: u32) -> u32 {
    util.max(uclamp_min).min(uclamp_max)
}

/// How a task fits a CPU, as Linux's `util_fits_cpu` answers (kernel/sched/fair.c): 1, 0 or −1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// It fits (1).
    Fits,
    /// It fits by its utilisation (or its uclamp_max), but its uclamp_min asks for more than the
    /// CPU's capacity (−1): a CPU to take only when no CPU fits outright.
    BelowUclampMin,
    /// It does not fit (0): on this CPU it is a misfit.
    Misfit,
}

impl Fit {
    /// `task_fits_cpu` is `util_fits_cpu(..) > 0`: only `Fits` keeps a running task from being
    /// a misfit.
    pub fn fits(self) -> bool {
        self == Fit::Fits
    }
}

/// Linux's `util_fits_cpu` (kernel/sched/fair.c), without thermal pressure: `util` (the task's
/// util_est) fits `capacity` with the 20% margin (`fits_capacity`), or because its `uclamp_max`
/// caps it at or below the capacity (unless both are the maximum, 1024: an unclamped task on a
/// biggest CPU must fit by its utilisation); and when it fits yet its `uclamp_min` (at most its
/// uclamp_max) is above both its utilisation and the capacity, the answer is −1 (`BelowUclampMin`).
pub fn util_fits_cpu(util: u32, uclamp_min: u32, uclamp_max: u32, capacity: u32) -> Fit {
    let by_max = !(capacity == SCHED_CAPACITY_SCALE && uclamp_max == SCHED_CAPACITY_SCALE) && uclamp_max <= capacity;
    if !(fits_capacity(util, capacity) || by_max) {
        return Fit::Misfit;
    }
    let uclamp_min = uclamp_min.min(uclamp_max);
    if util < uclamp_min && uclamp_min > capacity {
        Fit::BelowUclampMin
    } else {
        Fit::Fits
    }
}

/// What one thread's estimate holds.
#[derive(Debug, Clone, Copy, Default)]
struct Track {
    /// util_avg as of `at_ns` (0..=1024, kept unrounded between updates).
    util: f64,
    at_ns: u64,
    /// util_est's EWMA (0..=1024).
    util_est: u32,
    /// Whether the estimator has started this thread.
    seen: bool,
    /// Whether it was runnable when last looked at (a change to not runnable is a dequeue).
    runnable: bool,
}

/// Per-thread PELT util_avg and util_est, from the view's per-quantum CPU time per core type.
#[derive(Debug, Clone)]
pub struct Utilization {
    threads: PerThread<Track>,
    changes: Changes,
    /// The end of the last quantum accounted (the view's `now_ns` at that `Quantum` call).
    now_ns: u64,
    /// Each core type's current frequency over its highest (`arch_scale_freq_capacity` / 1024);
    /// None until the first update reads the machine's start frequencies.
    freq_scale: Option<[f64; MAX_CORE_TYPES]>,
}

impl Default for Utilization {
    fn default() -> Self {
        Utilization::new()
    }
}

impl Utilization {
    pub fn new() -> Self {
        Utilization { threads: PerThread::new(), changes: Changes::default(), now_ns: 0, freq_scale: None }
    }

    fn freq_scale_of(&mut self, m: &Machine) -> [f64; MAX_CORE_TYPES] {
        *self.freq_scale.get_or_insert_with(|| {
            let mut s = [1.0; MAX_CORE_TYPES];
            for (ty, ct) in m.core_types.iter().enumerate() {
                s[ty] = ct.start_freq_ghz / ct.freq_ghz;
            }
            s
        })
    }

    /// A policy that sets core type `ty` to `ghz` says so, so that running time there is scaled
    /// by the new frequency from the next quantum on.
    pub fn set_frequency(&mut self, m: &Machine, ty: usize, ghz: f64) {
        let mut s = self.freq_scale_of(m);
        s[ty] = ghz / m.core_types[ty].freq_ghz;
        self.freq_scale = Some(s);
    }

    /// Bring the estimates up to the view: at a `Quantum` call, each thread that ran adds its
    /// invariant running time over the quantum (the others decay lazily, on reading); at any
    /// call, each thread seen going to sleep samples util_est. Call it at every policy call.
    pub fn update(&mut self, view: &SystemView) {
        let freq = self.freq_scale_of(view.machine);
        for &t in self.changes.since_last(view) {
            let th = view.thread(t);
            let tr = self.threads.get_mut(t);
            if !tr.seen {
                *tr = Track { util: NEW_TASK_UTIL as f64, at_ns: th.started_ns, util_est: 0, seen: true, runnable: true };
            }
            let runnable = th.state.is_runnable();
            if tr.runnable && !runnable {
                let dequeued = decayed(tr, self.now_ns.max(tr.at_ns)) as u32;
                tr.util_est = util_est_update(tr.util_est, dequeued);
            }
            tr.runnable = runnable;
        }
        if view.trigger != ampsched_model::Trigger::Quantum || view.now_ns <= self.now_ns {
            return;
        }
        let m = view.machine;
        for &t in view.ran {
            let tr = self.threads.get_mut(t);
            if !tr.seen {
                let th = view.thread(t);
                *tr = Track { util: NEW_TASK_UTIL as f64, at_ns: th.started_ns, util_est: 0, seen: true, runnable: th.state.is_runnable() };
            }
            // Decay to the quantum's start (or the thread's own start), then add the quantum.
            let from = view.interval_start_ns.max(tr.at_ns).min(view.now_ns);
            tr.util = decayed(tr, from);
            let span = view.now_ns - from;
            if span == 0 {
                continue;
            }
            let counters = view.interval_of(t);
            let invariant_ns: f64 =
                (0..m.core_types.len()).map(|ty| counters[ty].time_ns as f64 * m.core_types[ty].capacity as f64 / SCHED_CAPACITY_SCALE as f64 * freq[ty]).sum();
            let fraction = (invariant_ns / span as f64).min(1.0);
            let d = decay(span);
            tr.util = tr.util * d + SCHED_CAPACITY_SCALE as f64 * fraction * (1.0 - d);
            tr.at_ns = view.now_ns;
        }
        self.now_ns = view.now_ns;
    }

    /// Thread `t`'s util_avg as of the last quantum (0..=1024); a thread never seen reads as a
    /// new task.
    pub fn util_avg(&self, t: ThreadId) -> u32 {
        match self.threads.get(t) {
            Some(tr) if tr.seen => decayed(tr, self.now_ns.max(tr.at_ns)) as u32,
            _ => NEW_TASK_UTIL,
        }
    }

    /// Thread `t`'s util_est EWMA (0 until it has slept once).
    pub fn util_est(&self, t: ThreadId) -> u32 {
        self.threads.get(t).map_or(0, |tr| tr.util_est)
    }

    /// `task_util_est`: max(util_avg, util_est).
    pub fn task_util_est(&self, t: ThreadId) -> u32 {
        self.util_avg(t).max(self.util_est(t))
    }

    /// `cpu_util` of one core: of the threads running or queued on it, the larger of their
    /// util_avg sum and their util_est sum, at most the core's capacity. Scans the live threads:
    /// a policy asking for every core calls `cpu_utils` once instead.
    pub fn cpu_util(&self, view: &SystemView, core: usize) -> u32 {
        self.cpu_utils(view)[core]
    }

    /// `cpu_util` of every core (index = core), in one pass over the live threads.
    pub fn cpu_utils(&self, view: &SystemView) -> Vec<u32> {
        let n = view.machine.num_cores();
        let (mut avg, mut est) = (vec![0u32; n], vec![0u32; n]);
        for th in view.live_threads() {
            if let (true, Some(c)) = (th.state.is_runnable(), th.core) {
                avg[c] += self.util_avg(th.id);
                est[c] += self.util_est(th.id);
            }
        }
        (0..n).map(|c| avg[c].max(est[c]).min(view.machine.core_type_of(c).capacity)).collect()
    }
}

/// y^(ns / period): what PELT's decay leaves of a value after `ns`.
fn decay(ns: u64) -> f64 {
    0.5f64.powf(ns as f64 / PELT_HALF_LIFE_NS as f64)
}

/// The track's util_avg decayed (no running) to `to_ns`.
fn decayed(tr: &Track, to_ns: u64) -> f64 {
    (tr.util * decay(to_ns.saturating_sub(tr.at_ns))).min(SCHED_CAPACITY_SCALE as f64)
}

/// `util_est_update` at a dequeue with util_avg `dequeued`: reset upwards, skip within the
/// margin, else move a quarter of the way down.
pub fn util_est_update(ewma: u32, dequeued: u32) -> u32 {
    if dequeued >= ewma {
        return dequeued;
    }
    let diff = ewma - dequeued;
    if diff < UTIL_EST_MARGIN {
        return ewma;
    }
    ((ewma << UTIL_EST_WEIGHT_SHIFT) - diff) >> UTIL_EST_WEIGHT_SHIFT
}

#[cfg(test)]
mod tests {
    use super::*;
    use ampsched_model::{AppView, CoreSet, CoreView, Counters, PerType, ThreadKind, ThreadState, ThreadView, Trigger};

    const MS: u64 = 1_000_000;

    fn big_little() -> Machine {
        Machine::from_toml(
            "m",
            "memory_latency_ns = 100\n[[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\n[[core_type]]\nname = \"little\"\ncount = 1\nfreq_ghz = 1.0\n",
        )
        .unwrap()
    }

    /// One thread, one call: `ran_ns` of CPU time on core type `ty` over [start, now].
    struct Scene {
        m: Machine,
        threads: Vec<ThreadView>,
        interval: Vec<PerType>,
        cores: Vec<CoreView>,
        apps: Vec<AppView>,
        call: u64,
    }

    impl Scene {
        fn new() -> Scene {
            let m = big_little();
            let th = ThreadView::started(0, 0, 0, 0, ThreadKind::App, CoreSet::from_cores([0, 1]), 0);
            let cores = vec![CoreView::default(); 2];
            Scene { m, threads: vec![th], interval: vec![[Counters::default(); MAX_CORE_TYPES]], cores, apps: vec![AppView::new(0, "a".into(), 0)], call: 0 }
        }

        /// A quantum call at `now` after one from `start`, the thread having run `ran_ns` on `ty`
        /// and being in `state` now.
        fn quantum(&mut self, u: &mut Utilization, start: u64, now: u64, ty: usize, ran_ns: u64, state: ThreadState) {
            self.call += 1;
            self.interval[0] = [Counters::default(); MAX_CORE_TYPES];
            self.interval[0][ty].time_ns = ran_ns;
            let was = self.threads[0].state;
            self.threads[0].state = state;
            self.threads[0].core = Some(if ty == 0 { 0 } else { 1 });
            let changed: Vec<ThreadId> = if self.call == 1 || was.is_runnable() != state.is_runnable() { vec![0] } else { vec![] };
            let ran: Vec<ThreadId> = if ran_ns > 0 { vec![0] } else { vec![] };
            let view = SystemView {
                now_ns: now,
                trigger: Trigger::Quantum,
                call: self.call,
                machine: &self.m,
                available: ampsched_model::Signals::NONE,
                seed: 0,
                threads: &self.threads,
                live: &[0],
                changed: &changed,
                interval: &self.interval,
                ran: &ran,
                interval_start_ns: start,
                apps: &self.apps,
                cores: &self.cores,
                lock_edges: &[],
            };
            u.update(&view);
        }
    }

    /// 819 × 1280 = 1,048,320 < 1024 × 1024 = 1,048,576: 80% of 1024 fits the big CPU; 820 ×
    /// 1280 = 1,049,600 does not. On a 512 CPU the limit is 409 (409 × 1280 = 523,520 < 524,288;
    /// 410 × 1280 = 524,800).
    #[test]
    fn fits_capacity_is_80_percent() {
        assert!(fits_capacity(819, 1024));
        assert!(!fits_capacity(820, 1024));
        assert!(fits_capacity(409, 512));
        assert!(!fits_capacity(410, 512));
        // 30% of 1024 = 307: fits both.
        assert!(fits_capacity(307, 512) && fits_capacity(307, 1024));
    }

    /// 1078/1024 = 1.0527: 1024 is greater than 972 (972 × 1078 = 1,047,816 < 1,048,576) and not
    /// than 973 (1,048,894); 1024 vs 512 is plainly greater, equal capacities never are.
    #[test]
    fn capacity_greater_needs_5_percent() {
        assert!(capacity_greater(1024, 972));
        assert!(!capacity_greater(1024, 973));
        assert!(capacity_greater(1024, 512));
        assert!(!capacity_greater(512, 1024));
        assert!(!capacity_greater(1024, 1024));
    }

    #[test]
    fn clamp_util_raises_and_lowers() {
        assert_eq!(clamp_util(100, 700, 1024), 700);
        assert_eq!(clamp_util(900, 0, 300), 300);
        assert_eq!(clamp_util(500, 0, 1024), 500);
    }

    /// uclamp_min 700 lifts a light task (util 100) off the little CPU (700 > 512: −1) and fits
    /// it on the big; uclamp_max 400 lets a heavy task (util 900) fit the little (400 ≤ 512),
    /// and the big too; an unclamped 900 fits neither (900 × 1280 > 1024 × 1024).
    #[test]
    fn util_fits_cpu_follows_uclamp() {
        assert_eq!(util_fits_cpu(100, 700, 1024, 512), Fit::BelowUclampMin);
        assert_eq!(util_fits_cpu(100, 700, 1024, 1024), Fit::Fits);
        assert_eq!(util_fits_cpu(900, 0, 400, 512), Fit::Fits);
        assert_eq!(util_fits_cpu(900, 0, 400, 1024), Fit::Fits);
        assert_eq!(util_fits_cpu(900, 0, 1024, 1024), Fit::Misfit);
        assert_eq!(util_fits_cpu(900, 0, 1024, 512), Fit::Misfit);
        // 80% and 30% of 1024 without clamps: 819 fits only the big, 307 both.
        assert_eq!(util_fits_cpu(819, 0, 1024, 512), Fit::Misfit);
        assert_eq!(util_fits_cpu(819, 0, 1024, 1024), Fit::Fits);
        assert_eq!(util_fits_cpu(307, 0, 1024, 512), Fit::Fits);
    }

    /// util_est: up at once; down by a quarter of the gap (800 → 400: 800 − 100 = 700); a
    /// sample within 10 of the EWMA leaves it (800 vs 791); at 10 it moves: (3200 − 10) / 4 = 797.
    #[test]
    fn util_est_resets_up_and_decays_down_by_a_quarter() {
        assert_eq!(util_est_update(300, 800), 800);
        assert_eq!(util_est_update(800, 400), 700);
        assert_eq!(util_est_update(700, 400), 625);
        assert_eq!(util_est_update(800, 791), 800);
        assert_eq!(util_est_update(800, 790), 797);
    }

    /// From the new-task start of 512, a thread that runs all of n ms on the big CPU (capacity
    /// 1024) reaches 1024 − 512·y^n' with n' = n ms / 1.048576 ms periods and y = 2^(−1/32):
    /// after 32·1.048576 = 33.554 ms exactly 768; after 100 ms, 1024 − 512·2^(−100/33.554) = 1024 − 512·0.12671 = 959.1.
    /// On the little CPU (512) the same running counts half: the target is 512, so util stays
    /// 512 (and a thread asleep 33.554 ms halves).
    #[test]
    fn util_avg_follows_the_pelt_formula() {
        let mut s = Scene::new();
        let mut u = Utilization::new();
        s.quantum(&mut u, 0, PELT_HALF_LIFE_NS, 0, PELT_HALF_LIFE_NS, ThreadState::Running);
        assert_eq!(u.util_avg(0), 768);
        let mut s = Scene::new();
        let mut u = Utilization::new();
        // In 4 ms quanta, as a policy calls it: the same as one 100 ms step.
        for k in 0..25 {
            s.quantum(&mut u, k * 4 * MS, (k + 1) * 4 * MS, 0, 4 * MS, ThreadState::Running);
        }
        let expect = 1024.0 - 512.0 * 0.5f64.powf(100.0 * MS as f64 / PELT_HALF_LIFE_NS as f64);
        assert!((expect - 959.1).abs() < 0.05, "{expect}");
        assert_eq!(u.util_avg(0), expect as u32);
        let mut s = Scene::new();
        let mut u = Utilization::new();
        for k in 0..25 {
            s.quantum(&mut u, k * 4 * MS, (k + 1) * 4 * MS, 1, 4 * MS, ThreadState::Running);
        }
        assert_eq!(u.util_avg(0), 512);
        // Asleep one half-life (it did not run: lazily decayed): 256.
        s.quantum(&mut u, 100 * MS, 100 * MS + PELT_HALF_LIFE_NS, 1, 0, ThreadState::Sleeping);
        assert_eq!(u.util_avg(0), 256);
    }

    /// util_est samples util_avg when the thread goes to sleep, and task_util_est keeps it after.
    #[test]
    fn task_util_est_remembers_the_level_before_a_sleep() {
        let mut s = Scene::new();
        let mut u = Utilization::new();
        for k in 0..50 {
            s.quantum(&mut u, k * 4 * MS, (k + 1) * 4 * MS, 0, 4 * MS, ThreadState::Running);
        }
        let before = u.util_avg(0);
        s.quantum(&mut u, 200 * MS, 204 * MS, 0, 0, ThreadState::Sleeping);
        // Sampled at the last quantum's util_avg (the sleep is seen at this call).
        assert_eq!(u.util_est(0), before);
        s.quantum(&mut u, 204 * MS, 204 * MS + 2 * PELT_HALF_LIFE_NS, 0, 0, ThreadState::Sleeping);
        assert!(u.util_avg(0) < before / 4 + 1, "{}", u.util_avg(0));
        assert_eq!(u.task_util_est(0), before);
    }
}
