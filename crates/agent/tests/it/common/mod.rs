//! What the agent's integration tests share: a /proc tree written from chosen facts.
#![allow(dead_code)] // each test file uses a part

use std::fs;
use std::path::PathBuf;

/// One fast core on CPU 0 and one slow core of half its speed on CPU 1 (the fast type has two
/// DVFS levels, for frequency decisions).
pub const ONE_FAST_ONE_SLOW: &str = r#"
name = "one fast, one slow"
memory_latency_ns = 100.0
[[core_type]]
name = "fast"
count = 1
cpus = [0]
freq_ghz = 2.0
freq_levels_ghz = [1.2, 2.0]
[[core_type]]
name = "slow"
count = 1
cpus = [1]
freq_ghz = 1.0
"#;

/// A /proc tree of one process's threads, as the monitor reads it.
pub struct ProcTree(pub PathBuf);

impl ProcTree {
    pub fn new(name: &str) -> ProcTree {
        let root = std::env::temp_dir().join(format!("ampsched-proc-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        ProcTree(root)
    }
    pub fn path(&self) -> String {
        self.0.display().to_string()
    }
    /// One thread's stat line: fields 3 (state), 4 (ppid), 19 (nice), 22 (starttime), 39 (processor).
    pub fn stat_line(tid: u32, state: char, cpu: usize) -> String {
        let mut fields = vec!["0".to_string(); 40];
        fields[3] = state.to_string();
        fields[4] = "1".into();
        fields[22] = (1000 + tid).to_string();
        fields[39] = cpu.to_string();
        format!("{tid} (forkjoin) {}\n", fields[3..].join(" "))
    }
    pub fn thread(&self, pid: u32, tid: u32, state: char, cpu: usize, run_ns: u64) {
        let dir = self.0.join(format!("{pid}/task/{tid}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("stat"), Self::stat_line(tid, state, cpu)).unwrap();
        fs::write(dir.join("schedstat"), format!("{run_ns} 0 1\n")).unwrap();
        fs::write(dir.join("status"), "voluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t0\n").unwrap();
        if pid == tid {
            fs::write(self.0.join(format!("{pid}/stat")), Self::stat_line(tid, state, cpu)).unwrap();
        }
    }
}

impl ProcTree {
    /// Thread `tid`'s schedstat: `run_ns` on a CPU, `wait_ns` waiting in a run queue.
    pub fn schedstat(&self, pid: u32, tid: u32, run_ns: u64, wait_ns: u64) {
        fs::write(self.0.join(format!("{pid}/task/{tid}/schedstat")), format!("{run_ns} {wait_ns} 1\n")).unwrap();
    }
}

impl Drop for ProcTree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

impl ProcTree {
    /// A thread as `thread` writes it, under the name `comm` (what pthread_setname_np sets).
    pub fn thread_named(&self, pid: u32, tid: u32, comm: &str, state: char, cpu: usize, run_ns: u64) {
        self.thread(pid, tid, state, cpu, run_ns);
        let dir = self.0.join(format!("{pid}/task/{tid}"));
        let line = Self::stat_line(tid, state, cpu).replacen("(forkjoin)", &format!("({comm})"), 1);
        fs::write(dir.join("stat"), &line).unwrap();
        if pid == tid {
            fs::write(self.0.join(format!("{pid}/stat")), line).unwrap();
        }
    }
}

/// A test's prerequisite (root, CPUs 0 and 1, python3, a PMU), probed when the tests were built
/// (crates/agent/build.rs: without it the test is ignored with its reason), checked again when
/// the test runs: gone since, the test fails saying so rather than pass without testing anything.
pub fn prerequisite(holds: bool, what: &str) {
    assert!(holds, "{what}: this machine had it when the tests were built (crates/agent/build.rs), not now; `cargo clean -p ampsched-agent` probes again");
}
