//! `pa`: the Parallelism-Aware scheduler of the Sáez thesis (§5.1.1, Fig. 5.1, Table 5.1).
//!
//! Each app is classed by its runnable-thread count (`common::tlp`): single-threaded (ST),
//! mildly parallel (MP), highly parallel (HP, ≥ fast cores + 1 runnable) or in a serial phase
//! (SP). Three rules: ST and MP threads come before HP threads on fast cores; a serial phase goes
//! to a fast core at once, for at most `boost_ticks` of fast-core time; balance and fair sharing
//! are kept. Threads are ranked as Table 5.1's swap lists rank them, slow-to-fast: SP, then
//! ST/MP expired on the slow side, then ST/MP unexpired; fast-to-slow: HP, then ST/MP expired on
//! the fast side, then ST/MP unexpired. Every quantum the tops of the two lists are swapped
//! while the slow one ranks higher and the fast one is a candidate (HP or expired; any non-SP
//! thread for an SP one): the four swap scenarios of §5.1.1 are the class changes that make
//! such pairs. ST/MP threads share fast cores as HAFS does (§4.2.4): a stint of
//! `expire_fast_ms` of CPU time on a fast core, or `expire_slow_ms` on a slow one, expires the
//! thread. On block, wake, start and exit, one-way moves keep fast cores busy (the best-ranked
//! slow thread goes up), and a thread sharing an overloaded fast partition with a better-ranked
//! one goes down when the §2.3 balance allows (`Partitions::shed_weaker`).
//!
//! `pa-rtx` (thesis §5.1.2) is this policy with the runtime's two hints (`pa_rtx.rs`).

use ampsched_model::view::AppId;
use ampsched_model::{Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, ThreadState, Trigger, Triggers, MAX_CORE_TYPES};

use super::pa_rtx::RuntimeHints;
use crate::common::tlp::BOOST_TICKS_OPTION;
use crate::common::{AppClass, AppThreads, Claim, Partitions, PerThread, Tlp, FAST, PREFER_LOCAL_OPTION};
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

/// PA's options, shared with `pa-rtx`.
pub const OPTIONS: &[OptionInfo] = &[
    OptionInfo {
        name: "quantum_ms",
        // The thesis leaves the swap period open ("swaps are performed periodically"). One
        // Solaris tick: the module's tick handler is where its counters advance, and a serial
        // phase then waits at most one tick for its swap.
        kind: OptionKind::quantum_ms(10.0),
        doc: "swap period: how often expirations and boosts are counted and the swap lists paired \
              (the thesis leaves it open; one 10 ms Solaris tick)",
    },
    BOOST_TICKS_OPTION,
    OptionInfo {
        name: "hp_threshold",
        kind: OptionKind::Integer { default: 0, min: 0, max: 1_000_000 },
        doc: "runnable threads from which an app is highly parallel; 0 = the thesis's fast cores + 1",
    },
    OptionInfo {
        name: "expire_fast_ms",
        // The thesis's "a certain threshold", as HAFS: ten ticks, so a migration (tens to
        // hundreds of µs) costs under 1% of a stint, and ST/MP threads sharing a fast core still
        // take turns several times within one serial-phase boost (1 s).
        kind: OptionKind::Range { default: 100.0, min: 0.001, max: 1e6 },
        doc: "CPU time an ST/MP thread runs on a fast core before it expires and may be swapped out (thesis: open)",
    },
    OptionInfo {
        name: "expire_slow_ms",
        // As long as the fast-side stint: equal turns on both sides.
        kind: OptionKind::Range { default: 100.0, min: 0.001, max: 1e6 },
        doc: "CPU time an ST/MP thread runs on a slow core before it expires and goes first to a fast core (thesis: open)",
    },
    PREFER_LOCAL_OPTION,
];

pub const INFO: PolicyInfo = PolicyInfo {
    name: "pa",
    description: "parallelism-aware: fast cores to single-threaded apps, mildly parallel apps and serial phases before highly parallel apps",
    source: "Sáez thesis, §5.1.1, Fig. 5.1, Table 5.1 (PA)",
    options: OPTIONS,
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(Pa::new(o, m, None))),
};

/// A thread's place in Table 5.1's lists, weakest claim on a fast core first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// PA-RTX: the runtime says it busy-waits (first to leave a fast core).
    Spinning,
    HighlyParallel,
    /// ST/MP, its stint on a fast core over.
    ExpiredOnFast,
    /// ST/MP within its stint (and any thread not ranked yet).
    #[default]
    Unexpired,
    /// ST/MP, its stint on a slow core over.
    ExpiredOnSlow,
    SerialPhase,
}

/// The rank, then the order within it: for expired threads, the oldest expiry moves first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct PaClaim {
    rank: Rank,
    tiebreak: u64,
}

impl Claim for PaClaim {}

/// A thread's stint on its current side (fast or not), as HAFS counts it.
#[derive(Debug, Clone, Copy, Default)]
struct Stint {
    /// The side counted (None: not counted yet).
    on_fast: Option<bool>,
    ns: u64,
    expired_at: Option<u64>,
}

pub struct Pa {
    parts: Partitions<PaClaim>,
    tlp: Tlp,
    apps: AppThreads,
    fast_types: [bool; MAX_CORE_TYPES],
    quantum_ns: u64,
    expire_fast_ns: u64,
    expire_slow_ns: u64,
    stint: PerThread<Stint>,
    /// Each thread's claim as last set (what `Partitions` files it under).
    claims: PerThread<PaClaim>,
    /// PA-RTX's runtime hints: spin notifications and the master thread.
    rtx: Option<RuntimeHints>,
}

impl Pa {
    pub fn new(o: &Options, m: &Machine, rtx: Option<RuntimeHints>) -> Self {
        let hp = o.integer("hp_threshold") as u32;
        Pa {
            parts: Partitions::with_topology(m, o.flag(PREFER_LOCAL_OPTION.name)),
            tlp: Tlp::new(m, (hp > 0).then_some(hp), o.integer(BOOST_TICKS_OPTION.name) as u64),
            apps: AppThreads::default(),
            fast_types: m.fast_type_mask(),
            quantum_ns: o.ms("quantum_ms"),
            expire_fast_ns: o.ms("expire_fast_ms"),
            expire_slow_ns: o.ms("expire_slow_ms"),
            stint: PerThread::new(),
            claims: PerThread::new(),
            rtx,
        }
    }

    /// Start a new stint if thread `t` is now on another side than the one counted.
    fn check_side(&mut self, t: ThreadId) {
        let on_fast = self.parts.level(t).map(|l| l == FAST);
        let s = self.stint.get_mut(t);
        if s.on_fast != on_fast {
            *s = Stint { on_fast, ns: 0, expired_at: None };
        }
    }

    fn claim_of(&self, view: &SystemView, t: ThreadId) -> PaClaim {
        claim_of(&self.tlp, &self.stint, self.rtx.as_ref(), view, t)
    }

    fn reclaim(&mut self, view: &SystemView, t: ThreadId) {
        self.check_side(t);
        let c = self.claim_of(view, t);
        self.claims.set(t, c);
        self.parts.set_claim(t, c);
    }

    /// Whether thread `t` shares fast cores by expiry (ST and MP threads, and PA-RTX's master
    /// of an HP app).
    fn expires(&self, view: &SystemView, t: ThreadId) -> bool {
        match self.tlp.class(view.thread(t).app) {
            AppClass::SingleThreaded | AppClass::MildlyParallel => true,
            AppClass::HighlyParallel => self.rtx.as_ref().is_some_and(|r| r.master_as_mp(view, t)),
            AppClass::SerialPhase => false,
        }
    }

    /// Count the last quantum's CPU time: stints (and their expiry) and serial-phase boosts.
    fn count_quantum(&mut self, view: &SystemView) {
        let mut boost_over = Vec::new();
        for &t in view.ran {
            let v = view.thread(t);
            if v.state == ThreadState::Exited {
                continue;
            }
            self.check_side(t);
            let interval = view.interval_of(t);
            let fast_ns: u64 = interval.iter().zip(self.fast_types).filter(|&(_, f)| f).map(|(c, _)| c.time_ns).sum();
            let total_ns: u64 = interval.iter().map(|c| c.time_ns).sum();
            if self.tlp.charge_boost(v.app, fast_ns) {
                boost_over.push(v.app);
            }
            if self.expires(view, t) {
                let (expire_fast, expire_slow) = (self.expire_fast_ns, self.expire_slow_ns);
                let s = self.stint.get_mut(t);
                let on_fast = s.on_fast == Some(true);
                s.ns += if on_fast { fast_ns } else { total_ns - fast_ns };
                if s.expired_at.is_none() && s.ns >= if on_fast { expire_fast } else { expire_slow } {
                    s.expired_at = Some(view.now_ns);
                }
            }
            self.reclaim(view, t);
        }
        // SP → MP: the app's threads are ranked as MP threads from now on.
        for a in boost_over {
            self.reclaim_app(view, a, AppClass::SerialPhase);
        }
    }

    /// Rank app `a`'s threads again after its class changed from `before` (scenarios 2-4 of
    /// §5.1.1: its threads enter the swap lists).
    fn reclaim_app(&mut self, view: &SystemView, a: AppId, before: AppClass) {
        let threads: Vec<ThreadId> = self.apps.of(view, a).collect();
        for t in threads {
            // Scenario 2 (HP → MP): expiration counters are turned on afresh.
            if before == AppClass::HighlyParallel {
                *self.stint.get_mut(t) = Stint::default();
            }
            self.reclaim(view, t);
        }
    }

    /// Read the touched apps' runnable counts (less PA-RTX's notified spinners); an app whose
    /// class changed has all its threads ranked again.
    fn reclass(&mut self, view: &SystemView) {
        for a in self.apps.take_touched() {
            let spinning = self.rtx.as_ref().map_or(0, |r| r.spinners(a));
            let runnable = view.apps[a as usize].runnable_threads.saturating_sub(spinning);
            if let Some(before) = self.tlp.observe(a, runnable) {
                self.reclaim_app(view, a, before);
            }
        }
    }

    /// Pair the top of the slow-to-fast list with the top of the fast-to-slow list while the
    /// slow thread ranks higher and the fast one is a candidate: HP, spinning or expired on its
    /// side, or any thread but an SP one when the slow thread is SP (Table 5.1; an SP thread on
    /// a fast core never leaves for another SP).
    fn swap_lists(&mut self, view: &SystemView, out: &mut Placement) {
        let wanted = |up: PaClaim, down: PaClaim| down.rank <= Rank::ExpiredOnFast || up.rank == Rank::SerialPhase;
        let (tlp, stint, rtx) = (&self.tlp, &mut self.stint, self.rtx.as_ref());
        let mut moved = Vec::new();
        self.parts.swap_up_while(view, out, wanted, |t, level| {
            // A swapped thread starts a fresh, unexpired stint on its new side.
            stint.set(t, Stint { on_fast: Some(level == FAST), ns: 0, expired_at: None });
            moved.push(t);
            claim_of(tlp, stint, rtx, view, t)
        });
        for t in moved {
            self.claims.set(t, self.parts.claim(t));
        }
    }

    /// One-way moves that keep the balance: an HP thread sharing a fast core with an ST one goes
    /// down (`Partitions::shed_weaker`). The moved threads start a stint on their new side.
    fn shed_weaker(&mut self, view: &SystemView, out: &mut Placement) {
        let before = out.affinity.len();
        if self.parts.shed_weaker(view, out) > 0 {
            let moved: Vec<ThreadId> = out.affinity[before..].iter().map(|&(t, _)| t).collect();
            for t in moved {
                self.reclaim(view, t);
            }
        }
    }
}

/// Thread `t`'s rank in Table 5.1's lists (and PA-RTX's spinning threads below them all).
fn claim_of(tlp: &Tlp, stint: &PerThread<Stint>, rtx: Option<&RuntimeHints>, view: &SystemView, t: ThreadId) -> PaClaim {
    let v = view.thread(t);
    if rtx.is_some_and(|r| r.spinning(t)) {
        return PaClaim { rank: Rank::Spinning, tiebreak: 0 };
    }
    match tlp.class(v.app) {
        AppClass::SerialPhase => PaClaim { rank: Rank::SerialPhase, tiebreak: 0 },
        // PA-RTX's master of an HP app shares fast cores as an MP thread would (`master=mp`), or
        // goes up first and down last of its app's HP threads (`master=app`).
        AppClass::HighlyParallel if !rtx.is_some_and(|r| r.master_as_mp(view, t)) => {
            PaClaim { rank: Rank::HighlyParallel, tiebreak: rtx.is_some_and(|r| r.is_master(view, t)) as u64 }
        }
        _ => {
            let s = stint.value(t);
            match (s.on_fast, s.expired_at) {
                (Some(true), Some(at)) => PaClaim { rank: Rank::ExpiredOnFast, tiebreak: at },
                (Some(false), Some(at)) => PaClaim { rank: Rank::ExpiredOnSlow, tiebreak: u64::MAX - at },
                _ => PaClaim::default(),
            }
        }
    }
}

impl Policy for Pa {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.quantum_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let Some(changed) = self.parts.begin(view) else { return Ok(()) };
        for &t in changed {
            self.apps.note(view.thread(t));
        }
        let flipped = self.rtx.as_mut().map(|r| r.watch(view, changed)).unwrap_or_default();
        for &t in &flipped {
            self.apps.touch(view.thread(t).app);
        }
        if view.trigger == Trigger::Quantum {
            self.count_quantum(view);
        }
        self.reclass(view);
        for &t in changed.iter().chain(&flipped) {
            if view.thread(t).state != ThreadState::Exited {
                self.reclaim(view, t);
            }
        }
        if let Trigger::Start(t) = view.trigger {
            self.parts.place_new(view, t, out);
            self.reclaim(view, t);
        }
        if view.trigger == Trigger::Quantum {
            self.swap_lists(view, out);
        }
        self.shed_weaker(view, out);
        let claims = &self.claims;
        self.parts.keep_fast_busy(view, out, |v| claims.value(v.id));
        Ok(())
    }
}
