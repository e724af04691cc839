//! Global task scheduling (GTS, ARM's big.LITTLE MP, Linaro's "HMP" patches) as Samsung's 3.10
//! kernels for the Exynos 5422 ship it: the OS scheduler of the big.LITTLE paper ("Exploiting
//! Asymmetric Multi-Core Processors with Flexible System Software", §III.C). Source: Linaro/Samsung
//! 3.10 kernel/sched/fair.c (the Samsung reference tree AndreiLux/ref-3.10), the functions named
//! below; ARM's big.LITTLE white paper for the mechanisms' names. docs/policies/biglittle-os.md.
//!
//! The cores form two HMP domains, the faster core type ("big") and the rest ("little"). Each
//! task's load is PELT's `load_avg_ratio` (`pelt`). Within a domain the scheduler is CFS (`Cfs`,
//! run over the same queues with every thread's allowed cores narrowed to its own domain, so that
//! CFS's wake-up choice, idle pull and balancing never cross: the kernel's
//! `DISABLE_CPU_SCHED_DOMAIN_BALANCE`). Across the domains only these rules move a task:
//!
//! - wake-up (`select_task_rq_fair`'s HMP tail): up if `hmp_up_migration` (load ≥ up_threshold,
//!   its up delay expired, a big CPU idle unless `aggressive`), else down if `hmp_down_migration`
//!   (load < down_threshold, its down delay expired) to the least-loaded little CPU, else CFS's
//!   choice inside the previous domain;
//! - fork: CFS's choice over all cores, then the up rule (a new task's load starts full), or with
//!   `fork_migrate_big` the least-loaded big CPU (`hmp_select_faster_cpu`);
//! - forced up-migration from the balance softirq (`hmp_force_up_migration`): for each little
//!   CPU the heaviest of its running task and its first `max_tasks` queued ones, moved up by the
//!   up rule; a running one through the engine (the kernel's cpu-stopper);
//! - offload (`hmp_offload_down`), for each big CPU in the same pass: if no big CPU is idle, the
//!   CPU has ≥ 2 runnable tasks, the lightest of its running and first `max_tasks` queued ones
//!   ran ≤ `starvation`/1024 of its runnable time, and a little CPU is idle: it moves there;
//! - idle pull (`hmp_idle_pull`): a big CPU with nothing to run after CFS's pull in its domain
//!   takes the heaviest little-domain task (running or among each little CPU's first `max_tasks`
//!   queued) whose load exceeds up_threshold.
//!
//! A CPU's load in the kernel (`hmp_domain_min_load`) is its runqueue's own PELT ratio, 0 only
//! when it has been idle for long; here it is its number of runnable tasks, and idle means none
//! (the kernel's own comment: the function "only returns 0 for an idle CPU"). Among equally
//! loaded CPUs the one that saw an HMP migration least recently wins, then the lowest number.
//! Every migration arms the task's delay in its direction and clears the other
//! (`hmp_next_up_delay`, `hmp_next_down_delay`), and stamps the target CPU.

use ampsched_model::{CoreSet, GtsParams, Machine};

use super::cfs::Cfs;
use super::pelt::{self, Pelt};
use super::{LocalScheduler, SchedView};

/// Where a thread is, for its load tracking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Off,
    Queued,
    Running,
}

#[derive(Debug, Clone)]
pub struct Gts {
    cfs: Cfs,
    p: GtsParams,
    /// `pelt::multiplier(load_avg_period_ms)`.
    multiplier: u64,
    slice_ns: u64,
    now: u64,
    /// The faster domain's cores and the slower one's (empty on a one-type machine: no HMP).
    big: CoreSet,
    little: CoreSet,
    /// Per thread: its tracked load, where it is, its last up- and down-migration.
    load: Vec<Pelt>,
    at: Vec<At>,
    last_up: Vec<Option<u64>>,
    last_down: Vec<Option<u64>>,
    /// Per core: its latest HMP migration in (`hmp_last_up_migration` / `_down_`).
    core_last_migration: Vec<Option<u64>>,
    /// Per thread: its allowed cores narrowed to one domain, for the inner CFS (only the entries
    /// of the threads CFS is about to read are current).
    narrowed: Vec<CoreSet>,
    /// Per core: tasks a balance pass has already sent there (they count as its load).
    claimed: Vec<u32>,
}

impl Gts {
    /// GTS over `m`'s cores: the fastest core type is the big domain (`Machine::fast_cores`: as
    /// the OS's reported capacities say, so a mis-sorted machine misleads it as it would Linux).
    pub fn new(m: &Machine, p: GtsParams, slice_ns: u64, seed: u64) -> Gts {
        let big = m.fast_cores();
        let little = CoreSet::first_n(m.num_cores()).difference(&big);
        Gts {
            cfs: Cfs::new(m.cores.iter().map(|c| c.llc as u32).collect(), slice_ns, seed),
            p,
            multiplier: pelt::multiplier(p.load_avg_period_ms),
            slice_ns,
            now: 0,
            big,
            little,
            load: Vec::new(),
            at: Vec::new(),
            last_up: Vec::new(),
            last_down: Vec::new(),
            core_last_migration: vec![None; m.num_cores()],
            narrowed: Vec::new(),
            claimed: vec![0; m.num_cores()],
        }
    }

    /// Thread `t`'s `load_avg_ratio` now.
    pub fn ratio(&mut self, t: u32) -> u32 {
        self.track(t);
        self.load[t as usize].load_avg_ratio()
    }

    /// Thread `t`'s tracked load, as of its last update.
    pub fn pelt(&self, t: u32) -> &Pelt {
        &self.load[t as usize]
    }

    /// Bring `t`'s load up to now, in the state it has been in since its last update.
    fn track(&mut self, t: u32) {
        let at = self.at[t as usize];
        self.load[t as usize].update(self.now, at != At::Off, at == At::Running, self.multiplier);
    }

    fn set_at(&mut self, t: u32, at: At) {
        self.track(t);
        self.at[t as usize] = at;
    }

    fn domain(&self, c: usize) -> &CoreSet {
        if self.big.contains(c) {
            &self.big
        } else {
            &self.little
        }
    }

    /// Runnable threads of core `c`, with those a pass has sent there.
    fn load_of(&self, sys: &SchedView, c: usize) -> u32 {
        self.cfs.queue_len(c) as u32 + sys.is_running(c) as u32 + self.claimed[c]
    }

    /// `hmp_domain_min_load`: the least-loaded core of `cores`, among equals the one migrated to
    /// least recently (never first), then the lowest; with its load.
    fn min_load(&self, sys: &SchedView, cores: &CoreSet) -> Option<(usize, u32)> {
        cores.iter().map(|c| (c, self.load_of(sys, c))).min_by_key(|&(c, load)| (load, self.core_last_migration[c], c))
    }

    fn delay_over(&self, last: Option<u64>, threshold: u32) -> bool {
        last.is_none_or(|l| (self.now.saturating_sub(l) >> pelt::UNIT_SHIFT) >= threshold as u64)
    }

    /// `hmp_up_migration`: the big core thread `t`, on little core `from`, with load `ratio`,
    /// moves to, if it does.
    fn up_target(&self, sys: &SchedView, t: u32, from: usize, ratio: u32) -> Option<usize> {
        if !self.little.contains(from) || ratio < self.p.up_threshold || !self.delay_over(self.last_up[t as usize], self.p.next_up_threshold) {
            return None;
        }
        let (target, load) = self.min_load(sys, &self.big.intersection(sys.allowed(t)))?;
        (self.p.aggressive || load == 0).then_some(target)
    }

    /// `hmp_down_migration` and `hmp_select_slower_cpu`: the little core thread `t`, on big core
    /// `from`, with load `ratio`, moves to, if it does.
    fn down_target(&self, sys: &SchedView, t: u32, from: usize, ratio: u32) -> Option<usize> {
        if !self.big.contains(from) || ratio >= self.p.down_threshold || !self.delay_over(self.last_down[t as usize], self.p.next_down_threshold) {
            return None;
        }
        self.min_load(sys, &self.little.intersection(sys.allowed(t))).map(|(c, _)| c)
    }

    /// `hmp_next_up_delay` / `hmp_next_down_delay`.
    fn migrated(&mut self, t: u32, to: usize, up: bool) {
        let (armed, cleared) = if up { (&mut self.last_up, &mut self.last_down) } else { (&mut self.last_down, &mut self.last_up) };
        armed[t as usize] = Some(self.now);
        cleared[t as usize] = None;
        self.core_last_migration[to] = Some(self.now);
    }

    /// Every queued thread's allowed cores narrowed to the domain of the core it is queued on.
    fn narrow_queued(&mut self, sys: &SchedView) {
        for c in 0..self.claimed.len() {
            let domain = self.domain(c).clone();
            for t in self.cfs.queued(c).collect::<Vec<_>>() {
                self.narrowed[t as usize] = sys.allowed(t).intersection(&domain);
            }
        }
    }

    /// The running thread of `c` and its first `max_tasks` queued ones.
    fn candidates(&self, sys: &SchedView, c: usize) -> Vec<u32> {
        sys.running(c).into_iter().chain(self.cfs.queued(c).take(self.p.max_tasks as usize)).collect()
    }

    /// Move `t` (running or queued on `from`) to `to`: a queued one here, a running one by the
    /// engine (`LocalScheduler::balance`).
    fn push(&mut self, sys: &SchedView, t: u32, from: usize, to: usize, moved: &mut Vec<(u32, usize)>) {
        if sys.running(from) != Some(t) {
            self.cfs.dequeue(t);
            self.cfs.enqueue(t, to);
        }
        self.claimed[to] += 1;
        moved.push((t, to));
    }

    /// `hmp_force_up_migration` over every core: little cores push their heaviest candidate up,
    /// big ones offload their lightest (`hmp_offload_down`).
    fn force_migrations(&mut self, sys: &SchedView, moved: &mut Vec<(u32, usize)>) {
        for c in 0..self.claimed.len() {
            let cands = self.candidates(sys, c);
            if cands.is_empty() {
                continue;
            }
            let ratios: Vec<u32> = cands.iter().map(|&t| self.ratio(t)).collect();
            if self.little.contains(c) {
                // The heaviest; among equals the first (the running one, then queue order).
                let i = (0..cands.len()).max_by_key(|&i| (ratios[i], usize::MAX - i)).expect("not empty");
                let t = cands[i];
                if let Some(to) = self.up_target(sys, t, c, ratios[i]) {
                    self.migrated(t, to, true);
                    self.push(sys, t, c, to, moved);
                }
            } else if let Some(to) = self.offload_target(sys, c, &cands, &ratios) {
                let t = cands[(0..cands.len()).min_by_key(|&i| (ratios[i], i)).expect("not empty")];
                self.migrated(t, to, false);
                self.push(sys, t, c, to, moved);
            }
        }
    }

    /// `hmp_offload_down` for big core `c`: where its lightest candidate goes, if anywhere.
    fn offload_target(&self, sys: &SchedView, c: usize, cands: &[u32], ratios: &[u32]) -> Option<usize> {
        if self.p.aggressive || self.little.is_empty() {
            return None;
        }
        let big_idle = self.min_load(sys, &self.big).is_some_and(|(_, load)| load == 0);
        if big_idle || self.cfs.queue_len(c) + (sys.is_running(c) as usize) < 2 {
            return None;
        }
        let lightest = cands[(0..cands.len()).min_by_key(|&i| (ratios[i], i))?];
        if self.load[lightest as usize].starvation() > self.p.starvation {
            return None;
        }
        let (to, load) = self.min_load(sys, &self.little.intersection(sys.allowed(lightest)))?;
        (load == 0).then_some(to)
    }
}

impl LocalScheduler for Gts {
    fn add_thread(&mut self, t: u32, nice: i32) {
        self.cfs.add_thread(t, nice);
        self.load.push(Pelt::new_task(self.now, self.slice_ns));
        self.at.push(At::Off);
        self.last_up.push(None);
        self.last_down.push(None);
        self.narrowed.push(CoreSet::default());
    }

    fn set_now(&mut self, now_ns: u64) {
        self.now = now_ns;
    }

    /// The HMP rules read the load the task had when it last stopped being runnable, not decayed
    /// over its sleep: in the kernel `try_to_wake_up` calls `select_task_rq_fair` before
    /// `enqueue_entity_load_avg`, the first update since `dequeue_entity_load_avg` (so the sleep
    /// is accounted, as not runnable, only once the task is queued: `enqueue` here).
    fn select_core(&mut self, sys: &SchedView, t: u32) -> usize {
        let ratio = self.load[t as usize].load_avg_ratio();
        let Some(prev) = sys.last_ran(t) else {
            // Fork.
            if self.p.fork_migrate_big {
                if let Some((to, _)) = self.min_load(sys, &self.big.intersection(sys.allowed(t))) {
                    self.migrated(t, to, true);
                    return to;
                }
            }
            let c = self.cfs.select_core(sys, t);
            if let Some(to) = self.up_target(sys, t, c, ratio) {
                self.migrated(t, to, true);
                return to;
            }
            return c;
        };
        if let Some(to) = self.up_target(sys, t, prev, ratio) {
            self.migrated(t, to, true);
            return to;
        }
        if let Some(to) = self.down_target(sys, t, prev, ratio) {
            if to != prev {
                self.migrated(t, to, false);
                return to;
            }
        }
        // Stay in the previous domain (if its affinity leaves it any core there).
        let here = sys.allowed(t).intersection(self.domain(prev));
        self.narrowed[t as usize] = if here.is_empty() { sys.allowed(t).clone() } else { here };
        self.cfs.select_core(&sys.with_allowed(&self.narrowed), t)
    }

    fn enqueue(&mut self, t: u32, c: usize) {
        self.set_at(t, At::Queued);
        self.cfs.enqueue(t, c);
    }

    fn dequeue(&mut self, t: u32) {
        if self.cfs.queued_on(t).is_some() {
            self.set_at(t, At::Off);
        }
        self.cfs.dequeue(t);
    }

    forward_to_cfs!();

    fn prefetch(&self, t: u32) {
        self.cfs.prefetch(t)
    }

    /// Its own queue, else CFS's pull from the busiest queue of its own domain.
    fn pick_next(&mut self, sys: &SchedView, c: usize) -> Option<u32> {
        if self.cfs.queue_len(c) == 0 {
            self.narrow_queued(sys);
        }
        let t = self.cfs.pick_next(&sys.with_allowed(&self.narrowed), c)?;
        self.set_at(t, At::Running);
        Some(t)
    }

    fn put_prev(&mut self, t: u32, c: usize) {
        self.set_at(t, At::Off);
        self.cfs.put_prev(t, c)
    }

    /// CFS's balancing inside each domain, then the forced migrations across them.
    fn balance(&mut self, sys: &SchedView, moved: &mut Vec<(u32, usize)>) {
        for domain in [self.big.clone(), self.little.clone()] {
            self.cfs.balance_within(sys, Some(&domain), moved);
        }
        self.claimed.iter_mut().for_each(|x| *x = 0);
        self.force_migrations(sys, moved);
        self.claimed.iter_mut().for_each(|x| *x = 0);
    }

    /// `hmp_idle_pull`: a big core takes the heaviest little-domain task above up_threshold.
    fn idle_pull(&mut self, sys: &SchedView, c: usize) -> Option<u32> {
        if !self.big.contains(c) {
            return None;
        }
        let mut best: Option<(u32, u32)> = None;
        for l in self.little.clone().iter() {
            for t in self.candidates(sys, l) {
                let r = self.ratio(t);
                if r > self.p.up_threshold && sys.allowed(t).contains(c) && best.is_none_or(|(_, b)| r > b) {
                    best = Some((t, r));
                }
            }
        }
        let (t, _) = best?;
        self.migrated(t, c, true);
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    //! GTS's decisions on a 2 big (cores 0, 1) + 2 little (2, 3) machine written down directly,
    //! each thread's load set by hand (`Pelt` fields), time at 1 s (every delay long over).

    use super::*;

    const NOW: u64 = 1_000_000_000;

    fn machine() -> Machine {
        Machine::from_toml(
            "m.toml",
            "name = \"m\"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = \"big\"\ncount = 2\nfreq_ghz = 2.0\n[[core_type]]\nname = \"little\"\ncount = 2\nfreq_ghz = 1.0\n",
        )
        .unwrap()
    }

    /// `threads` threads, each with load `ratio` (sum/period of a saturated history), none placed.
    fn gts(loads: &[u32]) -> Gts {
        let mut g = Gts::new(&machine(), GtsParams::DEFAULT, 4_000_000, 1);
        for (t, &r) in loads.iter().enumerate() {
            g.add_thread(t as u32, 0);
            // sum·1024/(period + 1) = r with period 46,079: sum = r·45.
            g.load[t] = Pelt { runnable_avg_sum: r as u64 * 45, usage_avg_sum: r as u64 * 45, runnable_avg_period: 46_079, last_update_ns: NOW };
        }
        g.set_now(NOW);
        g
    }

    struct System {
        allowed: Vec<CoreSet>,
        last_ran: Vec<Option<u32>>,
        running: Vec<Option<u32>>,
    }

    impl System {
        fn new(threads: usize) -> System {
            System { allowed: vec![CoreSet::first_n(4); threads], last_ran: vec![None; threads], running: vec![None; 4] }
        }
        fn view(&self) -> SchedView<'_> {
            SchedView::new(&self.allowed, &self.last_ran, &self.running)
        }
    }

    /// Wake-up: a heavy thread (800 ≥ 700) last on a little core goes to an idle big core; the
    /// two big cores idle and never migrated to, the lower one.
    #[test]
    fn a_heavy_thread_wakes_onto_an_idle_big_core() {
        let mut sys = System::new(2);
        sys.last_ran[0] = Some(2);
        sys.running[0] = Some(1);
        let mut g = gts(&[800, 500]);
        assert_eq!(g.select_core(&sys.view(), 0), 1);
        assert_eq!(g.last_up[0], Some(NOW));
        assert_eq!(g.core_last_migration[1], Some(NOW));
    }

    /// No big core idle (both run): the heavy thread stays in its cluster, on CFS's choice there:
    /// its last core 2 busy, the idle little core 3 (never core 0 or 1).
    #[test]
    fn a_heavy_thread_stays_little_while_no_big_core_is_idle() {
        let mut sys = System::new(4);
        sys.last_ran[0] = Some(2);
        sys.running = vec![Some(1), Some(2), Some(3), None];
        let mut g = gts(&[800, 500, 500, 500]);
        assert_eq!(g.select_core(&sys.view(), 0), 3);
        // With `aggressive` it goes up anyway, to the least-loaded big core (each runs one: the
        // lower).
        g.p.aggressive = true;
        assert_eq!(g.select_core(&sys.view(), 0), 0);
    }

    /// A light thread (300 < 512) last on a big core goes to the least-loaded little core (2
    /// runs a thread, 3 is idle: 3); a middling one (600) stays big, on its idle last core.
    #[test]
    fn a_light_thread_wakes_onto_a_little_core_and_a_middling_one_stays() {
        let mut sys = System::new(3);
        sys.last_ran[0] = Some(0);
        sys.last_ran[1] = Some(1);
        sys.running[2] = Some(2);
        let mut g = gts(&[300, 600, 500]);
        assert_eq!(g.select_core(&sys.view(), 0), 3);
        assert_eq!((g.last_down[0], g.last_up[0]), (Some(NOW), None));
        assert_eq!(g.select_core(&sys.view(), 1), 1);
    }

    /// Wake-up reads the load as it was when the thread blocked, not decayed over its sleep
    /// (`select_task_rq_fair` runs before `enqueue_entity_load_avg` accounts the sleep). Thread 0
    /// blocked on big core 0 at 600, thread 1 on little core 2 at 750, both 20 ms ago: decayed
    /// over 20 ms (y^19.07 ≈ 0.66 on the sum, the period growing) they would be ≈ 370 and ≈ 460,
    /// under down_threshold and up_threshold. Thread 0 stays big (its idle last core), thread 1
    /// goes up to big core 1 (core 0 now has thread 0). Once queued, the sleep is accounted.
    #[test]
    fn wake_up_reads_the_load_at_the_block_not_decayed_over_the_sleep() {
        let mut sys = System::new(2);
        sys.last_ran = vec![Some(0), Some(2)];
        let mut g = gts(&[600, 750]);
        let slept = 20_000_000;
        for t in 0..2 {
            g.load[t].last_update_ns = NOW - slept;
            let mut decayed = g.load[t];
            decayed.update(NOW, false, false, g.multiplier);
            assert!(decayed.load_avg_ratio() < [512, 700][t], "{t}: {}", decayed.load_avg_ratio());
        }
        assert_eq!(g.select_core(&sys.view(), 0), 0);
        g.enqueue(0, 0);
        assert_eq!(g.select_core(&sys.view(), 1), 1);
        assert_eq!(g.last_up[1], Some(NOW));
        assert!(g.pelt(0).load_avg_ratio() < 512 && g.pelt(0).last_update_ns == NOW);
    }

    /// The down delay: a light thread that moved down 4096 units (≈ 4.19 ms) ago or less may not
    /// move down again; just after, it may. (It moved up since, or it would not be on big.)
    #[test]
    fn the_down_delay_holds_a_thread_4096_units() {
        let mut sys = System::new(1);
        sys.last_ran[0] = Some(0);
        let mut g = gts(&[300]);
        g.last_down[0] = Some(NOW - (4095 << 10));
        assert_eq!(g.select_core(&sys.view(), 0), 0);
        g.last_down[0] = Some(NOW - (4096 << 10));
        assert_eq!(g.select_core(&sys.view(), 0), 2);
    }

    /// Balance: big core 0 runs one thread and queues four light ones (200: no up, and the big
    /// core 1 is idle, so no offload); CFS inside the big cluster moves queued threads to core 1
    /// only, never to the idle little cores, until no big core has two fewer.
    #[test]
    fn balance_moves_queued_threads_inside_their_cluster_only() {
        let mut sys = System::new(5);
        sys.running[0] = Some(0);
        let mut g = gts(&[200, 200, 200, 200, 200]);
        for t in 1..5 {
            g.enqueue(t, 0);
        }
        let mut moved = Vec::new();
        g.balance(&sys.view(), &mut moved);
        assert!(!moved.is_empty() && moved.iter().all(|&(_, to)| to == 1), "{moved:?}");
        assert_eq!((g.queue_len(0) + 1, g.queue_len(1)), (3, 2));
        assert_eq!(g.queue_len(2) + g.queue_len(3), 0);
    }

    /// Forced up-migration: little core 2 runs a 600 thread (0) and queues a 900 one (1); little
    /// core 3 runs a 950 one (2). Nothing to balance inside the little cluster (2 against 1
    /// runnable). Core 2's heaviest, the queued 900, goes to idle big core 0 through the queues;
    /// core 3's running 950 goes to big core 1 (core 0 is claimed by the first move), a running
    /// move for the engine to make. A second pass finds no idle big core: nothing.
    #[test]
    fn forced_migration_pushes_each_little_cores_heaviest_up() {
        let mut sys = System::new(3);
        sys.running[2] = Some(0);
        sys.running[3] = Some(2);
        let mut g = gts(&[600, 900, 950]);
        g.enqueue(1, 2);
        let mut moved = Vec::new();
        g.balance(&sys.view(), &mut moved);
        assert_eq!(moved, vec![(1, 0), (2, 1)]);
        assert_eq!(g.queued_on(1), Some(0));
        assert_eq!(g.queued_on(2), None);
        // The engine then queues 2 on core 1; both big cores are loaded: no more moves.
        sys.running[3] = None;
        g.put_prev(2, 3);
        g.enqueue(2, 1);
        moved.clear();
        g.balance(&sys.view(), &mut moved);
        assert!(moved.is_empty(), "{moved:?}");
    }

    /// Idle pull: a big core going idle takes the heaviest little-domain task above 700, running
    /// or among the first `max_tasks` queued; none above 700: nothing. A little core never pulls.
    #[test]
    fn a_big_core_going_idle_pulls_the_heaviest_little_task() {
        let mut sys = System::new(3);
        sys.running[2] = Some(0);
        let mut g = gts(&[750, 950, 650]);
        g.enqueue(1, 3);
        g.enqueue(2, 3);
        assert_eq!(g.idle_pull(&sys.view(), 3), None);
        assert_eq!(g.idle_pull(&sys.view(), 1), Some(1));
        let mut g = gts(&[650, 690]);
        let mut sys = System::new(2);
        sys.running = vec![None, None, Some(0), Some(1)];
        assert_eq!(g.idle_pull(&sys.view(), 0), None);
    }
}
