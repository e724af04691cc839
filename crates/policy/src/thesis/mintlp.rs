//! `mintlp`: MinTLP of the Sáez thesis (§5.1.1), a simpler parallelism-aware scheduler.
//!
//! The apps with the fewest runnable threads (the lowest thread-level parallelism) get the fast
//! cores: their threads' claim on a fast core is the app's runnable count, the fewer the
//! stronger. A slow thread is swapped with a fast one whenever its app has strictly fewer
//! runnable threads, and a fast core left idle is filled at once; threads that do not fit stay
//! on slow cores (one of a weaker claim sharing a fast core goes down when balance allows). There is no fair sharing among threads of equal claim (the thesis: "simple and
//! not always fair") and no limit on how long a serial phase keeps a fast core. It reacts on every
//! start, exit, block and wake (the thesis: "immediately"), and on its quantum only to catch up.

use std::cmp::Reverse;

use ampsched_model::{Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, ThreadState, Trigger, Triggers};

use crate::common::{AppThreads, Claim, Partitions, PerThread, PREFER_LOCAL_OPTION};
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "mintlp",
    description: "fast cores to the apps with the fewest runnable threads, without fair sharing",
    source: "Sáez thesis, §5.1.1 (MinTLP)",
    options: &[
        OptionInfo {
            name: "quantum_ms",
            // Decisions are made on events; the quantum only bounds how stale a missed one can get.
            kind: OptionKind::quantum_ms(10.0),
            doc: "period of the catch-up call (decisions are made on each start, exit, block and wake)",
        },
        PREFER_LOCAL_OPTION,
    ],
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(MinTlp::new(o, m))),
};

/// The app's runnable count as a claim: fewer is stronger. A thread not ranked yet claims the
/// least (`u32::MAX` threads), so a new thread never displaces a ranked one by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct FewestThreads(Reverse<u32>);

impl Default for FewestThreads {
    fn default() -> Self {
        FewestThreads(Reverse(u32::MAX))
    }
}

impl Claim for FewestThreads {}

pub struct MinTlp {
    parts: Partitions<FewestThreads>,
    apps: AppThreads,
    claims: PerThread<FewestThreads>,
    quantum_ns: u64,
}

impl MinTlp {
    pub fn new(o: &Options, m: &Machine) -> Self {
        MinTlp {
            parts: Partitions::with_topology(m, o.flag(PREFER_LOCAL_OPTION.name)),
            apps: AppThreads::default(),
            claims: PerThread::new(),
            quantum_ns: o.ms("quantum_ms"),
        }
    }

    fn set_claim(&mut self, t: ThreadId, c: FewestThreads) {
        self.claims.set(t, c);
        self.parts.set_claim(t, c);
    }
}

impl Policy for MinTlp {
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
        for a in self.apps.take_touched() {
            let claim = FewestThreads(Reverse(view.apps[a as usize].runnable_threads));
            let threads: Vec<ThreadId> = self.apps.of(view, a).filter(|&t| self.claims.value(t) != claim).collect();
            for t in threads {
                self.set_claim(t, claim);
            }
        }
        if let Trigger::Start(t) = view.trigger {
            self.parts.place_new(view, t, out);
        }
        let claims = &self.claims;
        self.parts.swap_up_while(view, out, |_, _| true, |t, _| claims.value(t));
        self.parts.shed_weaker(view, out);
        self.parts.keep_fast_busy(view, out, |v| claims.value(v.id));
        debug_assert!(view.live_threads().all(|v| v.state == ThreadState::Exited || self.claims.value(v.id) == self.parts.claim(v.id)));
        Ok(())
    }
}
