//! Reading a critical phase's queue spinlock (docs/queue-spinlock.md): the keys as written, the
//! documented defaults, and a one-line error naming the file and key for each bad input.

use ampsched_model::queue_spinlock::{self, QueueSpinlock};
use ampsched_model::workload::{Phase, Programs, Wait};
use ampsched_model::Workload;

fn critical(keys: &str) -> String {
    format!("[[app]]\nname = \"a\"\nthreads = 2\n[[app.phase]]\nkind = \"critical\"\nlock = \"l\"\ncs_instructions = 100\ncount = 3\n{keys}\n")
}

fn read(keys: &str) -> Result<Workload, String> {
    Workload::from_toml("w.toml", &critical(keys), &Programs::new()).map_err(|e| e.to_string())
}

fn wait_of(w: &Workload) -> Wait {
    match &w.apps[0].groups[0].phases[0] {
        Phase::Critical { wait, .. } => *wait,
        other => panic!("{other:?}"),
    }
}

#[test]
fn keys_as_written_and_defaults() {
    let w = read("wait = \"queue_spinlock\"\nmax_spin = 64\nrelax_cycles = 20\nsleep_prep_us = 2.5\nwakeup_us = 0\nhome = 5").unwrap();
    assert_eq!(wait_of(&w), Wait::QueueSpinlock(QueueSpinlock { max_spin: 64, relax_cycles: 20, sleep_prep_ns: 2500, wakeup_ns: 0, home: Some(5) }));
    let w = read("wait = \"queue_spinlock\"").unwrap();
    assert_eq!(wait_of(&w), Wait::QueueSpinlock(QueueSpinlock::default()));
    assert!(queue_spinlock::uses_queue_spinlock(&w));
    assert!(!queue_spinlock::uses_queue_spinlock(&read("wait = \"spin\"").unwrap()));
}

#[test]
fn bad_keys_are_one_line_errors_naming_file_and_key() {
    let cases = [
        ("wait = \"queue_spinlock\"\nmax_spin = 0", "max_spin"),
        ("wait = \"queue_spinlock\"\nmax_spin = 2000000", "max_spin"),
        ("wait = \"queue_spinlock\"\nrelax_cycles = -1", "relax_cycles"),
        ("wait = \"queue_spinlock\"\nrelax_cycles = 1.5", "relax_cycles"),
        ("wait = \"queue_spinlock\"\nsleep_prep_us = 1e9", "sleep_prep_us"),
        ("wait = \"queue_spinlock\"\nwakeup_us = \"x\"", "wakeup_us"),
        ("wait = \"queue_spinlock\"\nhome = -1", "home"),
        ("wait = \"queue_spinlock\"\nhome = 70000", "home"),
        ("wait = \"queue_spinlock\"\nspin_limit_us = 3", "spin_limit_us"),
        ("wait = \"spin\"\nmax_spin = 3", "max_spin"),
        ("home = 3", "home"),
    ];
    for (keys, key) in cases {
        let e = read(keys).unwrap_err();
        assert!(e.starts_with("w.toml: ") && e.contains(key) && !e.contains('\n'), "{keys}: {e}");
    }
    // Only a critical phase takes it.
    let barrier = "[[app]]\nname = \"a\"\nthreads = 2\n[[app.phase]]\nkind = \"barrier\"\nwait = \"queue_spinlock\"\n";
    let e = Workload::from_toml("w.toml", barrier, &Programs::new()).unwrap_err().to_string();
    assert!(e.contains("wait") && e.contains("only a critical phase"), "{e}");
}

#[test]
fn the_machine_must_have_a_mesh_with_the_home_on_it() {
    let w = read("wait = \"queue_spinlock\"\nhome = 20").unwrap();
    let (key, why) = queue_spinlock::check(&w, None, "m").unwrap_err();
    assert_eq!(key, "wait");
    assert!(why.contains("app 'a', lock 'l'") && why.contains("machine 'm' has no [interconnect]"), "{why}");
    let (key, why) = queue_spinlock::check(&w, Some(16), "m").unwrap_err();
    assert_eq!(key, "home");
    assert!(why.contains("home node 20") && why.contains("16 nodes"), "{why}");
    assert!(queue_spinlock::check(&w, Some(64), "m").is_ok());
    // A workload without queue spinlocks runs on any machine.
    assert!(queue_spinlock::check(&read("wait = \"block\"").unwrap(), None, "m").is_ok());
}
