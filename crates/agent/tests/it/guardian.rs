//! The guardian on its own: a child process plays the agent (this test binary run again, with
//! `ROLE` set), records changes in the ledger, makes them, and dies by SIGKILL or dismisses its
//! guardian. The test looks only at processes it starts itself.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ampsched_agent::guardian;
use ampsched_agent::procfs::{get_affinity, set_affinity, CpuMask};

use crate::common;

/// Set in the child that plays the agent: "kill" or "dismiss", how it ends.
const ROLE: &str = "AMPSCHED_TEST_GUARDIAN_ROLE";
/// The pids the child works on: the one it moves, the one it "launched".
const MOVED: &str = "AMPSCHED_TEST_GUARDIAN_MOVED";
const LAUNCHED: &str = "AMPSCHED_TEST_GUARDIAN_LAUNCHED";
const LOCK_DIR: &str = "AMPSCHED_TEST_GUARDIAN_LOCK_DIR";
/// The nice value the child gives the moved process (raising it needs no privilege).
const NICER: i32 = 7;
/// Generous, for a loaded machine: the guardian acts within milliseconds.
const PATIENCE: Duration = Duration::from_secs(20);
/// The moved process: it starts a thread when it gets SIGUSR1 (from its main thread, whose
/// affinity the new thread inherits).
const MOVED_SCRIPT: &str = "import signal, sys, threading, time
signal.signal(signal.SIGUSR1, lambda *_: threading.Thread(target=time.sleep, args=(60,)).start())
print('ready', flush=True)
time.sleep(60)";

fn task_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |d| d.count())
}

fn thread_affinities(pid: u32) -> Vec<CpuMask> {
    let tids = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok());
    tids.filter_map(|tid: u32| get_affinity(tid).ok()).collect()
}

fn nice_of(pid: u32) -> i32 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest: Vec<&str> = s[s.rfind(')').unwrap() + 1..].split_whitespace().collect();
    rest[19 - 3].parse().unwrap()
}

fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !matches!(s[s.rfind(')').unwrap() + 1..].split_whitespace().next(), Some("Z") | Some("X")))
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let end = Instant::now() + PATIENCE;
    while !ok() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The agent's part: record, change, then end as `ROLE` says. Never returns.
fn play_the_agent(how: &str) -> ! {
    let var = |name| std::env::var(name).unwrap();
    let (moved, launched): (u32, u32) = (var(MOVED).parse().unwrap(), var(LAUNCHED).parse().unwrap());
    let (mut g, mut ledger) = guardian::start().unwrap();
    let original = get_affinity(moved).unwrap();
    let pinned = CpuMask::from_cpus([0]);
    ledger.process(moved, Some(&original));
    let slot = ledger.thread(moved, moved, &original, false).unwrap();
    ledger.imposed(moved, &pinned);
    ledger.affinity_changing(slot);
    ledger.nice_changing(slot, nice_of(moved));
    ledger.lock_dir(std::path::Path::new(&var(LOCK_DIR)));
    ledger.launched(launched);
    set_affinity(moved, &pinned).unwrap();
    // SAFETY: setpriority takes integers.
    assert_eq!(unsafe { libc::setpriority(libc::PRIO_PROCESS, moved, NICER) }, 0);
    // A thread the agent never sees: started from the pinned main thread after the last sample.
    // SAFETY: a signal to the moved process, which it handles.
    unsafe { libc::kill(moved as libc::pid_t, libc::SIGUSR1) };
    let end = Instant::now() + PATIENCE;
    while task_count(moved) < 2 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(1));
    }
    // Without the second thread the test would check nothing of it: say so here, not later as a count.
    assert_eq!(task_count(moved), 2, "the target started no second thread within {PATIENCE:?} of SIGUSR1");
    assert!(thread_affinities(moved).iter().all(|m| *m == pinned), "both threads pinned");
    println!("changed");
    if how == "dismiss" {
        g.dismiss();
        std::process::exit(0);
    }
    // SAFETY: the agent dies as SIGKILL kills it: no destructor, no handler.
    unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
    unreachable!("SIGKILL cannot be caught");
}

struct Run {
    moved: Child,
    launched: Child,
    lock_dir: std::path::PathBuf,
    original: CpuMask,
    nice: i32,
}

impl Drop for Run {
    fn drop(&mut self) {
        for c in [&mut self.moved, &mut self.launched] {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.lock_dir);
    }
}

/// Start the targets and the child that plays the agent, ending as `how`; return once it is gone.
fn run(how: &str, test: &str) -> Run {
    common::prerequisite(get_affinity(0).unwrap().contains(1) && get_affinity(0).unwrap().contains(0), "CPUs 0 and 1");
    let spawned = Command::new("python3").args(["-c", MOVED_SCRIPT]).stdout(Stdio::piped()).spawn();
    common::prerequisite(spawned.is_ok(), "python3");
    let mut moved = spawned.unwrap();
    let mut ready = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(moved.stdout.take().unwrap()), &mut ready).unwrap();
    assert_eq!(ready, "ready\n");
    let launched = Command::new("sleep").arg("60").spawn().unwrap();
    let lock_dir = std::env::temp_dir().join(format!("ampsched-agent-guardian-test-{}-{how}", std::process::id()));
    std::fs::create_dir_all(&lock_dir).unwrap();
    for f in ampsched_agent::locks::FILES {
        std::fs::write(lock_dir.join(f), "x").unwrap();
    }
    let run = Run { original: get_affinity(moved.id()).unwrap(), nice: nice_of(moved.id()), moved, launched, lock_dir };
    // The test's name as libtest knows it: its module path in this binary, without the crate.
    let test = format!("{}::{test}", module_path!().split_once("::").unwrap().1);
    let agent = Command::new(std::env::current_exe().unwrap())
        .args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, how)
        .env(MOVED, run.moved.id().to_string())
        .env(LAUNCHED, run.launched.id().to_string())
        .env(LOCK_DIR, &run.lock_dir)
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&agent.stdout).contains("changed"), "{agent:?}");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(agent.status.signal(), if how == "kill" { Some(libc::SIGKILL) } else { None }, "{agent:?}");
    run
}

#[test]
#[cfg_attr(
    not(all(ampsched_test_cpu01, ampsched_test_python3)),
    ignore = "needs CPUs 0 and 1 (pins a process to CPU 0 away from CPU 1) and python3 (a target that starts a thread on demand)"
)]
fn when_the_agent_is_killed_its_guardian_restores_removes_the_lock_table_and_stops_the_command() {
    if let Ok(how) = std::env::var(ROLE) {
        play_the_agent(&how);
    }
    let mut r = run("kill", "when_the_agent_is_killed_its_guardian_restores_removes_the_lock_table_and_stops_the_command");
    wait_for("the original affinity, the thread the agent never saw too", || thread_affinities(r.moved.id()).iter().all(|m| *m == r.original));
    assert_eq!(task_count(r.moved.id()), 2);
    // SAFETY: geteuid takes no arguments.
    if unsafe { libc::geteuid() } == 0 {
        wait_for("the original nice value", || nice_of(r.moved.id()) == r.nice);
        // lowering it needs CAP_SYS_NICE
    }
    wait_for("the lock table's removal", || !r.lock_dir.exists());
    wait_for("the launched command to get SIGTERM", || r.launched.try_wait().unwrap().is_some());
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(r.launched.wait().unwrap().signal(), Some(libc::SIGTERM));
    assert!(running(r.moved.id()), "a process the agent did not launch is left running");
}

#[test]
#[cfg_attr(
    not(all(ampsched_test_cpu01, ampsched_test_python3)),
    ignore = "needs CPUs 0 and 1 (pins a process to CPU 0 away from CPU 1) and python3 (a target that starts a thread on demand)"
)]
fn a_dismissed_guardian_exits_without_acting() {
    if let Ok(how) = std::env::var(ROLE) {
        play_the_agent(&how);
    }
    let mut r = run("dismiss", "a_dismissed_guardian_exits_without_acting");
    // The agent reaped its guardian before exiting; give a stray one time to act all the same.
    std::thread::sleep(Duration::from_millis(300));
    assert!(thread_affinities(r.moved.id()).iter().all(|m| *m == CpuMask::from_cpus([0])));
    assert_eq!(nice_of(r.moved.id()), NICER);
    assert!(r.lock_dir.exists());
    assert!(r.launched.try_wait().unwrap().is_none(), "the command is left alone");
}
