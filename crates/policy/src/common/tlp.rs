//! An application's thread-level parallelism (TLP) as the parallelism-aware schedulers read it:
//! its class from its runnable-thread count, and the boost a serial phase gets on fast cores.
//! Shared by PA, MinTLP and PA-RTX (Sáez thesis, ch. 5) and CAMP (ch. 6).
//!
//! Sáez thesis, §5.1.1, Fig. 5.1 and Table 5.1. The OS sees an app's TLP as its number of
//! runnable threads (user threads map 1:1 onto kernel threads). PA classes each app:
//! - **ST**, single-threaded: a new app, until it first has two runnable threads;
//! - **MP**, mildly parallel: 2 ≤ runnable < `hp_threshold`, which like ST has a high claim on
//!   fast cores (a few threads gain little from many slow cores);
//! - **HP**, highly parallel: runnable ≥ `hp_threshold` (thesis: fast cores + 1, found by an
//!   exhaustive sweep), the lowest claim;
//! - **SP**, a serial phase: an app that was parallel is down to one runnable thread. That thread
//!   is boosted to a fast core, but only for `amp_boost_ticks` (thesis: 100 ticks of 10 ms,
//!   found by the same sweep) counted while it runs on a fast core; then the app is MP again
//!   (it shares fast cores like an ST app) until its next serial phase. The boost keeps one app
//!   from monopolising a fast core with a long serial phase.
//!
//! Transitions the thesis leaves open (Sáez thesis, §5.1.1 describes ST→MP, MP→HP, HP→MP,
//! MP→SP, SP→MP on expiry); our choices, each the reading that keeps the three rules:
//! - HP → SP when the count falls straight from ≥ `hp_threshold` to 1: a fork-join app with
//!   more threads than fast cores would otherwise never have its serial phases seen.
//! - SP → MP or HP as soon as the count rises again (the parallel phase resumed): the class
//!   follows the count, so the boost ends with the serial phase.
//! - An app that was ever parallel never returns to ST: one runnable thread is a serial phase.
//!   Each new serial phase gets a fresh boost (the thesis's "SP → MP after the boost" is per phase).
//! - With no runnable thread the class is kept: nothing of the app is to be placed, and the
//!   next wake-up reads the count again.
//! - The count is the *runnable* count (the text says "thread count" in places, but a serial
//!   phase of a fork-join app is only visible in the runnable count). PA-RTX passes the count
//!   less the threads its runtime reports as spinning.

use ampsched_model::view::{AppId, SystemView, ThreadId, ThreadState, ThreadView};
use ampsched_model::Machine;

use crate::options::{OptionInfo, OptionKind};

/// A Solaris clock tick (100 per second): the unit of the thesis's `amp_boost_ticks`.
pub const TICK_NS: u64 = 10_000_000;

/// `amp_boost_ticks` (Sáez thesis, §5.1.1): how long a serial phase keeps its fast-core boost,
/// in ticks spent on a fast core. 100 ticks = 1 s, the value an exhaustive sweep chose there.
pub const DEFAULT_BOOST_TICKS: u64 = 100;

/// The option that sets `amp_boost_ticks`, one definition for every policy that boosts serial
/// phases (PA, PA-RTX, CAMP, PA on the UF).
pub const BOOST_TICKS_OPTION: OptionInfo = OptionInfo {
    name: "boost_ticks",
    kind: OptionKind::Integer { default: DEFAULT_BOOST_TICKS as i64, min: 1, max: 1_000_000 },
    doc: "amp_boost_ticks: fast-core time a serial phase keeps its boost, in 10 ms ticks (thesis: 100 = 1 s)",
};

/// The thesis's hp_threshold (§5.1.1, chosen there by an exhaustive sweep): an app with at
/// least this many runnable threads is highly parallel. Fast cores + 1: such an app could not
/// run all its threads on fast cores even alone, so it gains little from any one of them. With
/// one fast core it is 2, so MP is empty there: a parallel app is HP at once.
pub fn default_hp_threshold(m: &Machine) -> u32 {
    m.fast_cores().len() as u32 + 1
}

/// An application's TLP class (Sáez thesis, §5.1.1, Fig. 5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum AppClass {
    /// Single-threaded: never had two runnable threads.
    #[default]
    SingleThreaded,
    /// Mildly parallel: 2 ≤ runnable < hp_threshold, or a serial phase whose boost is spent.
    MildlyParallel,
    /// Highly parallel: runnable ≥ hp_threshold.
    HighlyParallel,
    /// A serial phase of a parallel app, boosted to a fast core.
    SerialPhase,
}

impl AppClass {
    /// The thesis's short name: ST, MP, HP, SP.
    pub fn short(self) -> &'static str {
        match self {
            AppClass::SingleThreaded => "ST",
            AppClass::MildlyParallel => "MP",
            AppClass::HighlyParallel => "HP",
            AppClass::SerialPhase => "SP",
        }
    }
}

/// One app's class and serial-phase boost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AppTlp {
    pub class: AppClass,
    /// Fast-core time of the current serial phase so far, ns.
    boost_used_ns: u64,
    /// The current serial phase has used its boost: the app is MP until it goes parallel again.
    boost_spent: bool,
    /// The app has had two runnable threads at some point (so one runnable thread is a serial phase).
    was_parallel: bool,
}

impl AppTlp {
    /// Read the app's runnable count now; returns the class it had if that changed.
    pub fn observe(&mut self, runnable: u32, hp_threshold: u32) -> Option<AppClass> {
        let old = self.class;
        if runnable >= 2 {
            self.was_parallel = true;
            self.boost_spent = false;
            self.boost_used_ns = 0;
            self.class = if runnable >= hp_threshold { AppClass::HighlyParallel } else { AppClass::MildlyParallel };
        } else if runnable == 1 && self.was_parallel {
            self.class = if self.boost_spent { AppClass::MildlyParallel } else { AppClass::SerialPhase };
        }
        (self.class != old).then_some(old)
    }

    /// Charge the app's serial phase with `fast_ns` of fast-core time (only time on a fast core
    /// counts). Returns true when this ends the boost: the app is then MP.
    pub fn charge_boost(&mut self, fast_ns: u64, boost_ns: u64) -> bool {
        if self.class != AppClass::SerialPhase {
            return false;
        }
        self.boost_used_ns += fast_ns;
        if self.boost_used_ns < boost_ns {
            return false;
        }
        self.boost_spent = true;
        self.class = AppClass::MildlyParallel;
        true
    }

    /// Fast-core time the current serial phase has left of its boost, ns (0 outside SP).
    pub fn boost_left_ns(&self, boost_ns: u64) -> u64 {
        if self.class == AppClass::SerialPhase {
            boost_ns.saturating_sub(self.boost_used_ns)
        } else {
            0
        }
    }
}

/// Every app's TLP, indexed by `AppId`, with the thresholds it is read against.
#[derive(Debug, Clone)]
pub struct Tlp {
    apps: Vec<AppTlp>,
    pub hp_threshold: u32,
    /// `amp_boost_ticks` as fast-core time, ns.
    pub boost_ns: u64,
}

impl Tlp {
    /// `hp_threshold` None: the thesis's (fast cores + 1).
    pub fn new(m: &Machine, hp_threshold: Option<u32>, boost_ticks: u64) -> Self {
        Tlp { apps: Vec::new(), hp_threshold: hp_threshold.unwrap_or_else(|| default_hp_threshold(m)), boost_ns: boost_ticks * TICK_NS }
    }

    fn app_mut(&mut self, a: AppId) -> &mut AppTlp {
        let i = a as usize;
        if i >= self.apps.len() {
            self.apps.resize(i + 1, AppTlp::default());
        }
        &mut self.apps[i]
    }

    pub fn app(&self, a: AppId) -> AppTlp {
        self.apps.get(a as usize).copied().unwrap_or_default()
    }

    pub fn class(&self, a: AppId) -> AppClass {
        self.app(a).class
    }

    /// App `a` has `runnable` runnable threads now; returns its old class if that changed.
    pub fn observe(&mut self, a: AppId, runnable: u32) -> Option<AppClass> {
        let hp = self.hp_threshold;
        self.app_mut(a).observe(runnable, hp)
    }

    /// Charge app `a`'s serial phase with fast-core time; true when its boost ends now.
    pub fn charge_boost(&mut self, a: AppId, fast_ns: u64) -> bool {
        let boost = self.boost_ns;
        self.app_mut(a).charge_boost(fast_ns, boost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(counts: &[u32], hp: u32) -> Vec<AppClass> {
        let mut a = AppTlp::default();
        counts
            .iter()
            .map(|&n| {
                a.observe(n, hp);
                a.class
            })
            .collect()
    }

    #[test]
    fn classes_follow_figure_5_1() {
        use AppClass::*;
        // hp_threshold 3 (2 fast cores): a new app is ST; 2 runnable is MP, 3 HP; back to 1 is
        // a serial phase; 0 keeps the class.
        assert_eq!(walk(&[1, 0, 1], 3), [SingleThreaded; 3]);
        assert_eq!(
            walk(&[1, 2, 4, 2, 1, 0, 4, 1], 3),
            [SingleThreaded, MildlyParallel, HighlyParallel, MildlyParallel, SerialPhase, SerialPhase, HighlyParallel, SerialPhase]
        );
    }

    #[test]
    fn boost_counts_fast_time_and_renews_per_serial_phase() {
        let mut a = AppTlp::default();
        a.observe(4, 3);
        a.observe(1, 3);
        assert!(!a.charge_boost(60, 100));
        assert_eq!(a.boost_left_ns(100), 40);
        assert!(a.charge_boost(40, 100));
        assert_eq!(a.class, AppClass::MildlyParallel);
        // Still one runnable thread: the spent phase stays MP; no more charging.
        assert_eq!(a.observe(1, 3), None);
        assert!(!a.charge_boost(1000, 100));
        // The next serial phase is boosted afresh.
        a.observe(4, 3);
        a.observe(1, 3);
        assert_eq!((a.class, a.boost_left_ns(100)), (AppClass::SerialPhase, 100));
    }
}

/// The live threads of each app, so that a policy whose per-thread claim derives from its app's
/// TLP can re-rank all of an app's threads when the app's count or class changes.
#[derive(Debug, Clone, Default)]
pub struct AppThreads {
    threads: Vec<std::collections::BTreeSet<ThreadId>>,
    touched: Vec<AppId>,
    is_touched: Vec<bool>,
}

impl AppThreads {
    /// Thread `v` started, exited or changed state: keep the sets and mark its app touched.
    pub fn note(&mut self, v: &ThreadView) {
        let a = v.app as usize;
        if a >= self.threads.len() {
            self.threads.resize(a + 1, Default::default());
            self.is_touched.resize(a + 1, false);
        }
        if v.state == ThreadState::Exited {
            self.threads[a].remove(&v.id);
        } else {
            self.threads[a].insert(v.id);
        }
        self.touch(v.app);
    }

    /// App `a`'s count or class must be read again.
    pub fn touch(&mut self, a: AppId) {
        if !std::mem::replace(&mut self.is_touched[a as usize], true) {
            self.touched.push(a);
        }
    }

    /// The apps touched since the last call, in the order they were touched.
    pub fn take_touched(&mut self) -> Vec<AppId> {
        let out = std::mem::take(&mut self.touched);
        for &a in &out {
            self.is_touched[a as usize] = false;
        }
        out
    }

    /// App `a`'s threads not seen to exit (a thread whose exit fell in a missed call is
    /// filtered out by the caller's view).
    pub fn of<'v>(&'v self, view: &'v SystemView, a: AppId) -> impl Iterator<Item = ThreadId> + 'v {
        self.threads.get(a as usize).into_iter().flatten().copied().filter(move |&t| view.thread(t).state != ThreadState::Exited)
    }
}
