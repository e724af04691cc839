//! Shared by the runner's test files: random machines and workloads for property tests, and
//! scratch directories that do not collide between concurrent test runs.
//!
//! Each test file includes this with `mod common;` and uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;

/// Machine TOML: one `[[core_type]]` per `(count, freq_ghz, cpi_scale)`, in order.
pub fn machine_toml(types: &[(u32, f64, f64)]) -> String {
    let mut s = String::from("memory_latency_ns = 80.0\n");
    for (i, (count, ghz, scale)) in types.iter().enumerate() {
        s.push_str(&format!(
            "[[core_type]]\nname = \"t{i}\"\ncount = {count}\nfreq_ghz = {ghz}\ncpi_scale = {scale}\npower_active_w = 2.0\npower_idle_w = 0.5\n"
        ));
    }
    s
}

pub fn wait_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("wait = \"block\"".to_string()),
        Just("wait = \"spin\"".to_string()),
        (10u32..500).prop_map(|us| format!("wait = \"spin_then_block\"\nspin_limit_us = {us}")),
        (1u32..100).prop_map(|k| format!("wait = \"spin_then_block\"\nspin_limit_iterations = {}", k * 10_000)),
    ]
}

pub fn phase_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        (1e6f64..2e8, 0.5f64..2.0, 0.0f64..20.0).prop_map(|(i, c, m)| format!("kind = \"compute\"\ninstructions = {i}\ncpi = {c}\nllc_mpki = {m}")),
        (1e5f64..1e7, wait_strategy()).prop_map(|(i, w)| format!("kind = \"serial\"\ninstructions = {i}\n{w}")),
        wait_strategy().prop_map(|w| format!("kind = \"barrier\"\n{w}")),
        (0u32..2, 1e4f64..5e5, 0.0f64..5e5, 1u32..6, wait_strategy())
            .prop_map(|(l, cs, b, n, w)| format!("kind = \"critical\"\nlock = \"L{l}\"\ncs_instructions = {cs}\nbetween_instructions = {b}\ncount = {n}\n{w}")),
        (1e-4f64..2e-2).prop_map(|s| format!("kind = \"sleep\"\nseconds = {s}")),
    ]
}

pub fn group_strategy() -> impl Strategy<Value = String> {
    (1u32..4, 1u32..3, prop::collection::vec(phase_strategy(), 1..5), prop::bool::ANY, prop::bool::ANY).prop_map(|(n, rep, phases, runtime, per_phase)| {
        let mut s = format!("[[app.group]]\nname = \"g\"\ncount = {n}\nrepeat = {rep}\nkind = \"{}\"\n", if runtime { "runtime" } else { "app" });
        // Per-phase workers need a serial phase (the generated phases are all group-scoped).
        if per_phase && phases.iter().any(|p| p.starts_with("kind = \"serial\"")) {
            s.push_str("workers = \"per_phase\"\n");
        }
        for p in phases {
            s.push_str(&format!("[[app.group.phase]]\n{p}\n"));
        }
        s
    })
}

/// 1 to 3 apps of 1 to 2 groups each, every phase kind, arrivals in the first 50 ms, nice -5..4.
pub fn workload_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec((0.0f64..0.05, 1u32..3, -5i32..5, prop::collection::vec(group_strategy(), 1..3)), 1..4).prop_map(|apps| {
        let mut s = String::new();
        for (i, (arrival, runs, nice, groups)) in apps.into_iter().enumerate() {
            s.push_str(&format!("[[app]]\nname = \"app{i}\"\narrival_s = {arrival}\nruns = {runs}\npriority = {nice}\n"));
            for (j, g) in groups.into_iter().enumerate() {
                // Group names are unique within an app.
                s.push_str(&g.replacen("name = \"g\"", &format!("name = \"g{j}\""), 1));
            }
        }
        s
    })
}

/// A fresh directory under the system's temporary directory, unique to this process and
/// call (tests run in parallel threads, and several checkouts may test at once), removed when
/// dropped.
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    pub fn new(tag: &str) -> ScratchDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ampsched-{tag}-{}-{n}", std::process::id()));
        // A leftover of an earlier process with the same id would hold stale files.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        ScratchDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Write `text` to `name` in the directory; returns the file's path as a string.
    pub fn write(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).expect("write a scratch file");
        p.to_str().expect("a UTF-8 temporary path").to_string()
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
