//! Workers created afresh at every parallel phase (`workers = "per_phase"`, the BLAST/FFTW
//! pattern of the Sáez thesis, §5.2) are new threads to every registered policy: each policy,
//! wrapped in a recorder, is called with views in which each phase's workers carry ids never
//! seen before, and an exited worker never comes back.

use std::collections::{BTreeMap, BTreeSet};

use ampsched_model::{SystemView, ThreadId, Watched};
use ampsched_policy::{build, Build, PolicySpec, POLICIES};
use ampsched_runner::{Experiment, Settings};

use crate::common::ScratchDir;

/// 3 × (a parallel phase of 4 threads, 4e8 instructions each; a serial phase of 4e8 by the
/// master): 1 + 3 × 3 = 10 threads in one run.
const FORK_JOIN: &str = "name = \"pp\"\n[[app]]\nname = \"fj\"\nthreads = 4\nrepeat = 3\nworkers = \"per_phase\"\n\
[[app.phase]]\nkind = \"compute\"\ninstructions = 4e8\n[[app.phase]]\nkind = \"serial\"\ninstructions = 4e8\nwait = \"block\"\n";

/// What a policy's views showed: per thread id, when it was first and last seen live, and
/// whether it was seen live after a view in which it was gone.
#[derive(Default)]
struct Seen {
    seen: BTreeMap<ThreadId, (u64, u64)>,
    came_back: BTreeSet<ThreadId>,
    /// The live threads of the last view.
    last_live: BTreeSet<ThreadId>,
    calls: u64,
}

impl Seen {
    fn record(&mut self, view: &SystemView) {
        self.calls += 1;
        let live: BTreeSet<ThreadId> = view.live_threads().map(|t| t.id).collect();
        for &id in self.seen.keys() {
            if live.contains(&id) && !self.last_live.contains(&id) {
                self.came_back.insert(id);
            }
        }
        for &id in &live {
            self.seen.entry(id).or_insert((view.now_ns, view.now_ns)).1 = view.now_ns;
        }
        self.last_live = live;
    }
}

#[test]
fn per_phase_workers_are_new_threads_to_every_policy() {
    let dir = ScratchDir::new("per-phase");
    let workload = dir.write("pp.toml", FORK_JOIN);
    let mut checked = 0;
    for info in POLICIES {
        if matches!(info.build, Build::Oracle) {
            continue; // best-static simulates fixed assignments; it is no policy to wrap
        }
        let mut ex = Experiment::new("2fc-2sc-amd", &workload, Settings::default()).unwrap();
        let spec = PolicySpec::parse(info.name).unwrap();
        let mut rec = Seen::default();
        let mut watched = Watched::new(build(&spec, &ex.machine).unwrap(), |_, view, _| rec.record(view));
        let result = ex.run_policy(info.name, info.needs, &mut watched).unwrap();
        drop(watched);
        assert_eq!(result["threads"].as_array().unwrap().len(), 10, "{}", info.name);
        if rec.calls == 0 {
            continue; // a policy that asks for no calls (oblivious) sees no thread at all
        }
        // Every call-driven policy is called at each thread's start or on a quantum within
        // each phase (0.2-0.4 s long here), so it sees every worker: ten ids in all.
        assert_eq!(rec.seen.len(), 10, "{}: ids seen {:?}", info.name, rec.seen.keys().collect::<Vec<_>>());
        assert!(rec.came_back.is_empty(), "{}: threads seen again after they were gone: {:?}", info.name, rec.came_back);
        // Each phase's three workers live only within it, after the previous phase's were gone.
        let workers: Vec<(u64, u64)> = rec.seen.iter().filter(|(&id, _)| id != 0).map(|(_, &s)| s).collect();
        for phase in workers.chunks(3).collect::<Vec<_>>().windows(2) {
            let last_end = phase[0].iter().map(|s| s.1).max().unwrap();
            let next_start = phase[1].iter().map(|s| s.0).min().unwrap();
            assert!(last_end < next_start, "{}: a phase's workers overlap the next's", info.name);
        }
        checked += 1;
    }
    // Not called: best-static, oblivious and the OS-scheduler policies (gts, cluster-switch, iks),
    // which decide nothing and leave every thread to the local scheduler.
    assert!(checked >= POLICIES.len() - 2 - ampsched_policy::biglittle::OS_SCHEDULERS.len(), "only {checked} policies were called");
}
