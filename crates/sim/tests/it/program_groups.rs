//! The format features WASH's Java program models need (catalog/programs/dacapo.toml): program
//! profiles with thread groups and locks, `count = "cores"` with shared work, per-phase workers
//! beside app-wide barriers, and apps left to the OS (`os_scheduled`: WASH, "Portable Performance
//! on Asymmetric Multicore Processors", §8.6, the OS-scheduled eclipse adversary).

use ampsched_model::workload::{programs_from_toml, Phase, Programs};
use ampsched_model::{CoreSet, Workload};

use crate::common::{machine, simulate};

const TWO_CORES: &str = "[[core_type]]\nname = \"c\"\ncount = 2\nfreq_ghz = 1.0\n";

fn programs(text: &str) -> Programs {
    let mut p = Programs::new();
    programs_from_toml("p.toml", text, &mut p).unwrap();
    p
}

const JAVA: &str = "[[program]]\nname = \"java\"\n\
    [[program.group]]\nname = \"worker\"\ncount = 3\n\
    [[program.group.phase]]\nkind = \"critical\"\nlock = \"heap\"\ncs_instructions = 1e6\ncount = 4\n\
    [[program.group]]\nname = \"gc\"\ncount = \"cores\"\nkind = \"runtime\"\nwork = \"shared\"\n\
    [[program.group.phase]]\nkind = \"compute\"\ninstructions = 8e6\n\
    [[program.group.phase]]\nkind = \"critical\"\nlock = \"heap\"\ncs_instructions = 1e5\ncount = 6\n";

#[test]
fn a_program_with_groups_gives_an_app_its_groups_and_locks_and_its_name() {
    let w = Workload::from_toml("w.toml", "[[app]]\nname = \"j\"\nprogram = \"java\"\n", &programs(JAVA)).unwrap();
    let app = &w.apps[0];
    assert_eq!(app.program.as_deref(), Some("java"));
    assert!(app.policy_managed);
    assert_eq!(app.groups.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(), ["worker", "gc"]);
    assert_eq!(app.locks, ["heap"]);
    // Until the machine is known a per-core group has one thread doing all its work.
    assert_eq!((app.groups[1].count, app.groups[1].count_per_core), (1, true));
}

#[test]
fn count_cores_takes_the_machines_cores_and_shared_work_is_divided_among_them() {
    let w = Workload::from_toml("w.toml", "[[app]]\nname = \"j\"\nprogram = \"java\"\n", &programs(JAVA)).unwrap().for_machine(4).unwrap();
    let gc = &w.apps[0].groups[1];
    assert_eq!(gc.count, 4);
    // 8e6 instructions over 4 threads; 6 acquisitions over 4 threads round up to 2 each.
    assert!(matches!(gc.phases[0], Phase::Compute { instructions, .. } if instructions == 2e6));
    assert!(matches!(gc.phases[1], Phase::Critical { count: 2, .. }));
    // The per-thread group keeps its work.
    assert!(matches!(w.apps[0].groups[0].phases[0], Phase::Critical { count: 4, .. }));
    // A fixed count with shared work is divided when read.
    let text =
        "[[app]]\nname = \"a\"\n[[app.group]]\nname = \"g\"\ncount = 4\nwork = \"shared\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e6\n";
    let w = Workload::from_toml("w.toml", text, &Programs::new()).unwrap();
    assert!(matches!(w.apps[0].groups[0].phases[0], Phase::Compute { instructions, .. } if instructions == 2.5e5));
}

#[test]
fn per_phase_workers_take_no_part_in_app_wide_barriers() {
    // Main meets the GC thread at an app-wide barrier twice while a job manager's short-lived
    // workers come and go: the barrier waits for the two persistent threads only, so the run
    // ends (it would deadlock if it counted the job group's 2 threads).
    let text = "[[app]]\nname = \"a\"\n\
        [[app.group]]\nname = \"main\"\n\
        [[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e6\n[[app.group.phase]]\nkind = \"barrier\"\nscope = \"app\"\n\
        [[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e6\n[[app.group.phase]]\nkind = \"barrier\"\nscope = \"app\"\n\
        [[app.group]]\nname = \"gc\"\nkind = \"runtime\"\n\
        [[app.group.phase]]\nkind = \"barrier\"\nscope = \"app\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e5\n[[app.group.phase]]\nkind = \"barrier\"\nscope = \"app\"\n\
        [[app.group]]\nname = \"jobs\"\ncount = 2\nworkers = \"per_phase\"\nrepeat = 3\n\
        [[app.group.phase]]\nkind = \"serial\"\ninstructions = 1e4\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e5\n";
    let w = Workload::from_toml("w.toml", text, &Programs::new()).unwrap();
    let m = machine(TWO_CORES);
    let r = simulate(&m, &w, None, |_, _| {});
    // main, gc, the job master and 3 short-lived jobs.
    assert_eq!(r.apps[0].thread_ids.len(), 6);
    // At 1 GHz, CPI 1, main's 2e6 instructions are the critical path: 2 ms. The GC thread
    // waits for main at the first barrier (1 ms), collects 1e5 beside main's second half, and
    // the jobs (6.3e5 instructions) run on the other core meanwhile.
    assert_eq!(r.makespan_ns, 2_000_000);
}

#[test]
fn an_os_scheduled_app_keeps_every_core_whatever_the_policy_places() {
    // Two one-thread apps on two cores; the policy pins every thread it sees to core 0. The
    // managed app stays there; the OS-scheduled one's pin is ignored, so it runs on core 1 and
    // both finish in their solo time (1 ms at 1 GHz) instead of sharing core 0.
    let text = "[[app]]\nname = \"managed\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\n\
                [[app]]\nname = \"adversary\"\nos_scheduled = true\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\n";
    let w = Workload::from_toml("w.toml", text, &Programs::new()).unwrap();
    assert!(!w.apps[1].policy_managed);
    let m = machine(TWO_CORES);
    let mut seen = Vec::new();
    let r = simulate(&m, &w, None, |v, out| {
        seen = v.apps.iter().map(|a| (a.policy_managed, a.program.clone())).collect();
        for t in v.threads.iter() {
            out.set(t.id, CoreSet::single(0));
        }
    });
    assert_eq!(seen, [(true, None), (false, None)]);
    assert_eq!(r.apps[0].turnarounds_ns, [1_000_000]);
    assert_eq!(r.apps[1].turnarounds_ns, [1_000_000]);
    assert_eq!(r.threads[1].allowed, m.all_cores());
    // Managed alike, both share core 0: the second to finish takes twice as long.
    let both = Workload::from_toml("w.toml", &text.replace("os_scheduled = true\n", ""), &Programs::new()).unwrap();
    let r = simulate(&m, &both, None, |v, out| {
        for t in v.threads.iter() {
            out.set(t.id, CoreSet::single(0));
        }
    });
    assert_eq!(r.makespan_ns, 2_000_000);
}
