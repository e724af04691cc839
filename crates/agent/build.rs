//! Builds the lock preload library (preload/ampsched_locks.c) with the system C compiler; the
//! agent embeds it and writes it out when it launches a command. Also probes what some of the
//! integration tests need of this machine (`probe_test_prerequisites`).
use std::path::PathBuf;
use std::process::Command;

/// Each prerequisite some integration tests have, as the `--cfg` set where this machine has it.
/// A test without its prerequisite is marked `#[cfg_attr(not(CFG), ignore = "needs ...")]`, so
/// libtest counts it as ignored, with its reason, in the run's summary; libtest cannot skip a
/// test once it runs, and a test that returned early passed without testing anything. Probed when
/// the crate is built, so a test still checks its prerequisite when it runs and fails saying so if
/// it is gone (`cargo clean -p ampsched-agent` probes again, e.g. after a change of user).
const TEST_PREREQUISITES: &[&str] = &["ampsched_test_root", "ampsched_test_cpu01", "ampsched_test_python3", "ampsched_test_pmu", "ampsched_test_static_libc"];

/// How the CPU's PMUs are named in /sys/bus/event_source/devices (prefixes): `cpu` (x86), and
/// `cpu_core`/`cpu_atom` (Intel hybrid), `armv8_pmuv3*`/`armv7_*` (Linux arm_pmuv3.c and
/// arm_v7_pmu.c). A virtual machine without counters lists only software ones.
const HARDWARE_PMUS: &[&str] = &["cpu", "armv8_pmuv3", "armv7_"];

/// Linux's kernel.perf_event_paranoid up to which a user counts its own threads' CPU events
/// (Documentation/admin-guide/perf-security.rst); Debian's 3 forbids it but to root.
const PARANOID_OWN_THREADS: i32 = 2;

fn probe_test_prerequisites() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| status.lines().find_map(|l| l.strip_prefix(name)).unwrap_or("").trim().to_string();
    // Uid: real, effective, saved, filesystem.
    let root = field("Uid:").split_whitespace().nth(1) == Some("0");
    let cpus = parse_cpu_list(&field("Cpus_allowed_list:"));
    let python3 = Command::new("python3").args(["-c", ""]).status().is_ok_and(|s| s.success());
    let listed = std::fs::read_dir("/sys/bus/event_source/devices").into_iter().flatten().flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        HARDWARE_PMUS.iter().any(|p| name.starts_with(p))
    });
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(i32::MAX);
    let pmu = listed && (root || paranoid <= PARANOID_OWN_THREADS);
    // A C library to link a program statically with (`cc -static`): the compiler names a file
    // it finds by its full path, and echoes the bare name of one it does not.
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let static_libc = Command::new(&cc).arg("-print-file-name=libc.a").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim().starts_with('/'));
    let found = [root, cpus.contains(&0) && cpus.contains(&1), python3, pmu, static_libc];
    for (cfg, has) in TEST_PREREQUISITES.iter().zip(found) {
        println!("cargo:rustc-check-cfg=cfg({cfg})");
        if has {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
}

/// A kernel CPU list ("0-3,8,10-11") as CPU numbers.
fn parse_cpu_list(list: &str) -> Vec<usize> {
    let mut cpus = Vec::new();
    for part in list.split(',').filter(|p| !p.is_empty()) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(lo), Ok(hi)) = (lo.parse::<usize>(), hi.parse::<usize>()) {
            cpus.extend(lo..=hi);
        }
    }
    cpus
}

/// The preload library's two builds: the agent's (lock insight), and `ampsched record`'s, the
/// same with the event log (AMPSCHED_RECORD), preloaded only when the agent records so that its
/// other runs pay nothing for the log's wrappers.
const LIBRARIES: &[(&str, &[&str])] = &[("libampsched_locks.so", &[]), ("libampsched_record.so", &["-DAMPSCHED_RECORD"])];

fn main() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    println!("cargo:rerun-if-changed=preload/ampsched_locks.c");
    println!("cargo:rerun-if-changed=preload/ampsched_locks.h");
    println!("cargo:rerun-if-env-changed=CC");
    for (name, defines) in LIBRARIES {
        let status = Command::new(&cc)
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra"])
            .args(*defines)
            .arg("-o")
            .arg(out_dir.join(name))
            .arg("preload/ampsched_locks.c")
            .args(["-ldl", "-lpthread"])
            .status()
            .unwrap_or_else(|e| panic!("building the lock preload library needs a C compiler ({cc}): {e}"));
        assert!(status.success(), "{cc} failed to build preload/ampsched_locks.c {defines:?}");
    }
    probe_test_prerequisites();
}
