//! `--runtime-threads`: the globs that tell a managed runtime's helper threads from the
//! application's by name, their defaults against the names HotSpot and OpenJ9 give their threads
//! (as Linux shows them: cut at 15 bytes), their errors, and a thread that renames itself.

use crate::common;

use crate::common::ProcTree;
use ampsched_agent::monitor::Monitor;
use ampsched_agent::runtime_threads::{default_spec, Glob, RuntimeThreads, COMM_BYTES, DEFAULT_RUNTIME_THREADS};
use ampsched_model::{Machine, ThreadKind, Trigger};

/// A thread name as Linux keeps it (`comm`): its first 15 bytes (these names are ASCII).
fn comm(name: &str) -> &str {
    &name[..name.len().min(COMM_BYTES)]
}

#[test]
fn globs_match_whole_names_with_stars_marks_sets_and_escapes() {
    let g = |p: &str| Glob::parse(p).unwrap();
    assert!(g("GC*").matches("GC Thread#0"));
    assert!(g("GC*").matches("GC"));
    assert!(!g("GC*").matches("xGC Thread"), "a pattern matches from the name's start");
    assert!(!g("GC").matches("GC Thread#0"), "and to its end");
    assert!(g("*Thread*").matches("GC Thread#0"));
    assert!(g("G1 Conc#?").matches("G1 Conc#3") && !g("G1 Conc#?").matches("G1 Conc#12"));
    assert!(g("a*b*c").matches("aXbYbc"), "backtracks to the last star");
    assert!(!g("a*b*c").matches("aXbYbd"));
    assert!(g("**x").matches("x") && g("*").matches(""));
    assert!(g("worker[0-9]").matches("worker7") && !g("worker[0-9]").matches("workerx"));
    assert!(g("worker[!0-9]").matches("workerx") && !g("worker[^0-9]").matches("worker7"));
    assert!(g("[]x]").matches("]") && g("[a-]").matches("-"), "a ']' first and a '-' last are members");
    assert!(g("\\*").matches("*") && !g("\\*").matches("x"), "an escaped star is literal");
    assert!(g("é*").matches("é-worker"), "characters, not bytes");
}

#[test]
fn the_defaults_make_every_hotspot_and_openj9_helper_a_runtime_thread_and_no_application_thread() {
    let kinds = RuntimeThreads::default();
    // Full names as the VMs give them (HotSpot's set_name / CompileBroker / java.lang.ref, OpenJ9's
    // thread dumps); Linux shows the first 15 bytes.
    let helpers = [
        "GC Thread#0",
        "GC Thread#11",
        "G1 Main Marker",
        "G1 Conc#0",
        "G1 Refine#0",
        "G1 Service",
        "G1 Young RemSet Sampling",
        "VM Thread",
        "VM Periodic Task Thread",
        "C2 CompilerThread0",
        "C1 CompilerThread12",
        "JVMCI CompilerThread0",
        "JVMCI-native CompilerThread0",
        "Sweeper thread",
        "Reference Handler",
        "Finalizer",
        "Signal Dispatcher",
        "Service Thread",
        "Monitor Deflation Thread",
        "Notification Thread",
        "Attach Listener",
        "Common-Cleaner",
        // OpenJ9
        "GC Slave",
        "GC Worker",
        "Concurrent Mark Helper",
        "JIT Compilation Thread-000",
        "JIT Compilation Thread-001 Suspended",
        "JIT Diagnostic Compilation Thread-007 Suspended",
        "JIT-SamplerThread",
        "IProfiler",
        "Finalizer thread",
        "Attach API wait loop",
    ];
    for name in helpers {
        assert_eq!(kinds.kind_of(comm(name)), ThreadKind::Runtime, "{name:?} shows as {:?}", comm(name));
    }
    // Application threads: the launcher's main thread, Java's default names, pools, the AWT event
    // thread, and native programs' threads.
    let application = [
        "java",
        "main",
        "DestroyJavaVM",
        "Thread-0",
        "pool-1-thread-1",
        "ForkJoinPool-1-worker-1",
        "ForkJoinPool.commonPool-worker-1",
        "AWT-EventQueue-0",
        "Timer-0",
        "holder",
        "waiter",
        "lockholder",
        "forkjoin",
        "GC",
        "VM",
        "Gthread",
    ];
    for name in application {
        assert_eq!(kinds.kind_of(comm(name)), ThreadKind::App, "{name:?}");
    }
    // Every default pattern matches at least one of the names above: none is dead.
    for (pattern, source) in DEFAULT_RUNTIME_THREADS {
        let g = Glob::parse(pattern).unwrap();
        assert!(helpers.iter().any(|n| g.matches(comm(n))), "{pattern} ({source}) matches no helper name");
    }
    assert_eq!(RuntimeThreads::parse(&default_spec()).unwrap(), kinds);
}

#[test]
fn given_patterns_replace_the_defaults() {
    let kinds = RuntimeThreads::parse("GC*, C2 Compiler*,io-\\,x").unwrap();
    assert_eq!(kinds.patterns().collect::<Vec<_>>(), vec!["GC*", "C2 Compiler*", "io-\\,x"], "blanks around a pattern are dropped");
    assert_eq!(kinds.kind_of("GC Thread#0"), ThreadKind::Runtime);
    assert_eq!(kinds.kind_of("C2 CompilerThre"), ThreadKind::Runtime);
    assert_eq!(kinds.kind_of("io-,x"), ThreadKind::Runtime, "an escaped comma is part of a pattern");
    assert_eq!(kinds.kind_of("VM Thread"), ThreadKind::App, "not a default any more");
}

#[test]
fn an_empty_or_malformed_pattern_is_a_one_line_error_naming_the_option() {
    let cases = [
        ("", "is empty"),
        ("   ", "is empty"),
        ("GC*,", "pattern 2 is empty"),
        (",GC*", "pattern 1 is empty"),
        ("GC*, ,C2*", "pattern 2 is empty"),
        ("G1 [Conc", "'[' set without its closing ']'"),
        ("worker[9-0]", "range '9-0' runs backwards"),
        ("GC\\", "lone '\\'"),
        ("C2 CompilerThread*", "can match no thread: Linux cuts thread names at 15 bytes"),
        ("????????????????", "can match no thread"),
    ];
    for (spec, words) in cases {
        let e = RuntimeThreads::parse(spec).expect_err(spec).to_string();
        assert!(e.starts_with("--runtime-threads: ") && e.contains(words) && !e.contains('\n'), "{spec:?}: {e}");
    }
    // Exactly 15 bytes of literal name is fine: Linux shows that much.
    assert!(RuntimeThreads::parse("C2 CompilerThre").is_ok());
}

#[test]
fn a_thread_that_renames_itself_takes_the_kind_of_its_new_name() {
    // A JVM starts a GC thread, which names itself from inside just after it starts: the agent
    // first sees it under its creator's name, "java", and must reclassify it at its next sample.
    let machine = Machine::from_toml("fixture machine", common::ONE_FAST_ONE_SLOW).unwrap();
    let proc = ProcTree::new("rename");
    let (pid, gc, worker) = (5151u32, 5152u32, 5153u32);
    proc.thread_named(pid, pid, "java", 'S', 0, 1_000);
    proc.thread_named(pid, gc, "java", 'R', 1, 1_000);
    proc.thread_named(pid, worker, "GC Thread#1", 'R', 0, 1_000);
    let mut monitor = Monitor::with_proc_root(machine, &proc.path());
    assert!(monitor.add_process(pid));
    let mut events = Vec::new();
    monitor.sample(0, &mut events);
    let kinds: Vec<ThreadKind> = monitor.book.threads.iter().map(|t| t.kind).collect();
    assert_eq!(kinds, vec![ThreadKind::App, ThreadKind::App, ThreadKind::Runtime]);
    // The policy has seen the starts.
    monitor.book.begin_call(Trigger::Quantum, 0);
    monitor.book.end_call();

    // It ran and renamed itself; the other GC thread ran under its own name.
    proc.thread_named(pid, gc, "GC Thread#0", 'R', 1, 2_000);
    proc.thread_named(pid, worker, "GC Thread#1", 'R', 0, 2_000);
    events.clear();
    monitor.sample(40_000_000, &mut events);
    assert_eq!(monitor.book.threads[1].kind, ThreadKind::Runtime, "the kind follows the new name");
    assert_eq!(monitor.extra[1].comm, "GC Thread#0");
    let view = monitor.book.view(&monitor.machine, Trigger::Quantum, 40_000_000);
    assert_eq!(view.changed, &[1], "a change of kind is a change the policy is told of");
    assert_eq!(monitor.book.threads[1].group, monitor.book.threads[0].group, "its group stays its first name's, \"java\"");
}

#[test]
fn the_monitor_uses_the_patterns_it_is_given() {
    let machine = Machine::from_toml("fixture machine", common::ONE_FAST_ONE_SLOW).unwrap();
    let proc = ProcTree::new("patterns");
    let pid = 6161u32;
    proc.thread_named(pid, pid, "lockholder", 'S', 0, 1_000);
    proc.thread_named(pid, 6162, "waiter", 'R', 1, 1_000);
    proc.thread_named(pid, 6163, "GC Thread#0", 'R', 0, 1_000);
    let mut monitor = Monitor::with_proc_root(machine, &proc.path());
    monitor.runtime_threads = RuntimeThreads::parse("wait*").unwrap();
    assert!(monitor.add_process(pid));
    monitor.sample(0, &mut Vec::new());
    let kinds: Vec<ThreadKind> = monitor.book.threads.iter().map(|t| t.kind).collect();
    assert_eq!(kinds, vec![ThreadKind::App, ThreadKind::Runtime, ThreadKind::App]);
}
