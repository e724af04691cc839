//! Applying a `Placement` beyond affinities: the arithmetic by hand, cpufreq on a built sysfs
//! tree, and weights, slices and fast-core shares on real threads of a child process.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use ampsched_agent::enforce::share::{next_side, round_samples, Side};
use ampsched_agent::enforce::weight::nice_of_weight;
use ampsched_agent::enforce::Enforcer;
use ampsched_agent::monitor::Monitor;
use ampsched_agent::procfs::{get_affinity, monotonic_ns, set_affinity, CpuMask};
use ampsched_model::{CoreSet, Machine, Placement};

use crate::common;

const MACHINE: &str = common::ONE_FAST_ONE_SLOW;

fn machine() -> Machine {
    Machine::from_toml("machine", MACHINE).unwrap()
}

fn is_root() -> bool {
    // SAFETY: geteuid takes no arguments.
    unsafe { libc::geteuid() == 0 }
}

fn two_cpus() -> bool {
    get_affinity(0).map(|m| m.contains(0) && m.contains(1)).unwrap_or(false)
}

#[test]
fn cpu_masks_reach_past_glibcs_1024_cpus() {
    let wide = CpuMask::from_cpus([4000, 0, 1500]);
    assert_eq!(wide.cpus(), [0, 1500, 4000]);
    assert!(wide.contains(1500) && !wide.contains(1501) && !wide.contains(100_000));
    assert_eq!(wide, CpuMask::from_cpus([0, 1500, 4000]));
    assert_ne!(wide, CpuMask::from_cpus([0, 1500]));
    // The kernel takes a mask wider than its CPU count and ignores CPUs it lacks: this thread's
    // own affinity plus CPU 4000 leaves it where it was.
    let own = get_affinity(0).unwrap();
    assert!(!own.cpus().is_empty());
    set_affinity(0, &CpuMask::from_cpus(own.cpus().into_iter().chain([4000]))).unwrap();
    assert_eq!(get_affinity(0).unwrap(), own);
}

#[test]
fn a_weight_becomes_the_nice_value_of_nearest_cfs_weight() {
    // Linux's sched_prio_to_weight: nice 0 = 1024, -1 = 1277, -3 = 1991, -4 = 2501, 10 = 110, 11 = 87, 19 = 15, -20 = 88761.
    assert_eq!(nice_of_weight(1024), 0);
    assert_eq!(nice_of_weight(1150), 0, "|1024 - 1150| = 126 < |1277 - 1150| = 127");
    assert_eq!(nice_of_weight(1151), -1, "|1277 - 1151| = 126 < 127");
    assert_eq!(nice_of_weight(2048), -3, "|1991 - 2048| = 57 < |2501 - 2048| = 453");
    assert_eq!(nice_of_weight(100), 10, "|110 - 100| = 10 < |87 - 100| = 13");
    assert_eq!(nice_of_weight(1), 19);
    assert_eq!(nice_of_weight(1_000_000), -20);
}

#[test]
fn rounds_are_whole_intervals_of_at_least_30_ms() {
    assert_eq!(round_samples(40_000_000), 1);
    assert_eq!(round_samples(30_000_000), 1);
    assert_eq!(round_samples(20_000_000), 2, "40 ms");
    assert_eq!(round_samples(10_000_000), 3, "30 ms");
    assert_eq!(round_samples(7_000_000), 5, "35 ms");
    assert_eq!(round_samples(1_000_000), 30);
}

#[test]
fn a_thread_always_running_gets_its_share_of_rounds_on_fast_cores() {
    // Share 1/3, 40 ms of CPU time per round: fast, slow, slow, fast, slow, slow, ...
    let (mut fast, mut total) = (0u64, 0u64);
    let mut sides = Vec::new();
    for _ in 0..30 {
        let side = next_side(1.0 / 3.0, fast, total);
        sides.push(side);
        if side == Side::Fast {
            fast += 40;
        }
        total += 40;
    }
    use Side::{Fast as F, Other as O};
    assert_eq!(sides[..6], [F, O, O, F, O, O]);
    assert_eq!(fast * 3, total, "30 rounds: exactly a third");
    // The ends of the range.
    assert_eq!(next_side(0.0, 0, 0), Side::Other);
    assert_eq!(next_side(1.0, 1000, 1000), Side::Fast);
}

#[test]
fn under_emulation_a_share_counts_the_time_a_slow_cpu_was_held() {
    use ampsched_agent::enforce::share::held_ns;
    // 10 ms of CPU time on the fast type and 10 ms on one emulated at speed 0.5, where the
    // stealer took as much again: 30 ms held, 10 of them fast.
    let mut c = ampsched_model::PerType::default();
    c[0].time_ns = 10_000_000;
    c[1].time_ns = 10_000_000;
    assert_eq!(held_ns(&c, &[1.0, 1.0 / 0.5]), 30_000_000);
    // At share 0.4 the thread is behind on fast time (10 <= 0.4 x 30) and goes fast; counted in
    // bare CPU time it would be ahead (10 > 0.4 x 20), and the fast CPU would get less of it.
    assert_eq!(next_side(0.4, 10_000_000, held_ns(&c, &[1.0, 2.0])), Side::Fast);
    assert_eq!(next_side(0.4, 10_000_000, 20_000_000), Side::Other);
}

/// A sysfs tree of two CPUs with cpufreq: CPU 0 under `governor`, CPU 1 absent if `cpu1` is false.
struct Sysfs(PathBuf);

impl Sysfs {
    fn new(name: &str, governor: &str, cpu1: bool) -> Sysfs {
        let root = std::env::temp_dir().join(format!("ampsched-cpufreq-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let cpus = if cpu1 { 2 } else { 1 };
        for c in 0..cpus {
            let dir = root.join(format!("sys/devices/system/cpu/cpu{c}/cpufreq"));
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("scaling_governor"), format!("{governor}\n")).unwrap();
            fs::write(dir.join("scaling_max_freq"), "2000000\n").unwrap();
            fs::write(dir.join("scaling_setspeed"), "<unsupported>\n").unwrap();
        }
        Sysfs(root)
    }
    fn read(&self, cpu: usize, file: &str) -> String {
        fs::read_to_string(self.0.join(format!("sys/devices/system/cpu/cpu{cpu}/cpufreq/{file}"))).unwrap()
    }
}

impl Drop for Sysfs {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A monitor of no process (frequency decisions name core types, not threads).
fn no_threads(m: Machine) -> Monitor {
    Monitor::with_proc_root(m, "/nonexistent")
}

#[test]
fn frequency_caps_scaling_max_freq_or_sets_the_speed_under_userspace_and_is_restored() {
    for (governor, file) in [("schedutil", "scaling_max_freq"), ("userspace", "scaling_setspeed")] {
        let tree = Sysfs::new(governor, governor, true);
        let mut monitor = no_threads(machine());
        let mut e = Enforcer::new(&tree.0, 40_000_000);
        let mut p = Placement::default();
        p.set_frequency(0, 1.2);
        assert_eq!(e.apply(&mut monitor, &p), 1);
        assert_eq!(tree.read(0, file), "1200000\n", "{governor}");
        assert_eq!(tree.read(1, file), if file == "scaling_max_freq" { "2000000\n" } else { "<unsupported>\n" }, "CPU 1 is the other type");
        assert_eq!(e.not_applied.total, 0);
        assert_eq!(e.restore(&monitor).frequencies, 1);
        assert_eq!(tree.read(0, file), if file == "scaling_max_freq" { "2000000\n" } else { "<unsupported>\n" });
    }
}

#[test]
fn a_frequency_without_cpufreq_is_counted_as_not_applied_with_its_reason() {
    let tree = Sysfs::new("missing", "schedutil", false);
    let mut monitor = no_threads(machine());
    let mut e = Enforcer::new(&tree.0, 40_000_000);
    let mut p = Placement::default();
    p.set_frequency(1, 1.0);
    p.set_frequency(1, 1.0); // the last decision per core type is the one applied
    assert_eq!(e.apply(&mut monitor, &p), 0);
    assert_eq!(e.apply(&mut monitor, &p), 0);
    assert_eq!(e.not_applied.total, 2);
    assert_eq!(e.not_applied.entries.len(), 1, "one reason, one entry");
    let entry = &e.not_applied.entries[0];
    assert_eq!((entry.decision, entry.count), ("frequency", 2));
    assert!(entry.reason.contains("CPU 1 has no cpufreq"), "{}", entry.reason);
    assert!(entry.first.contains("'slow'"), "{}", entry.first);
}

/// A child process, killed at the end of the test.
struct Target(Child);

impl Target {
    fn spawn(cmd: &str, args: &[&str]) -> Target {
        Target(Command::new(cmd).args(args).spawn().unwrap())
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
    /// A field of its /proc/PID/sched ("se.slice", "se.load.weight").
    fn sched(&self, key: &str) -> u64 {
        let text = fs::read_to_string(format!("/proc/{}/sched", self.pid())).unwrap();
        let line = text.lines().find(|l| l.split(':').next().unwrap().trim() == key).unwrap_or_else(|| panic!("no {key}"));
        line.split(':').nth(1).unwrap().trim().parse::<f64>().unwrap() as u64
    }
    /// Its nice value, field 19 of /proc/PID/stat.
    fn nice(&self) -> i32 {
        let s = fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        let rest: Vec<&str> = s[s.rfind(')').unwrap() + 1..].split_whitespace().collect();
        rest[19 - 3].parse().unwrap()
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A monitor on the real /proc that has seen `target`'s threads.
fn watching(target: &Target) -> Monitor {
    let mut m = Monitor::new(machine());
    assert!(m.add_process(target.pid()));
    m.sample(0, &mut Vec::new());
    assert_eq!(m.book.threads.len(), 1);
    m
}

#[test]
#[cfg_attr(not(ampsched_test_root), ignore = "needs root: lowering a nice value back needs CAP_SYS_NICE")]
fn weights_renice_a_real_thread_and_restore_puts_its_nice_value_back() {
    common::prerequisite(is_root(), "root");
    let target = Target::spawn("sleep", &["30"]);
    let mut m = watching(&target);
    let mut e = Enforcer::new(Path::new("/"), 40_000_000);
    assert_eq!(target.nice(), 0);
    let mut p = Placement::default();
    p.set_weight(0, Some(2048));
    assert_eq!(e.apply(&mut m, &p), 1);
    assert_eq!(target.nice(), -3);
    // Linux shows a weight scaled by 1024 on 64-bit machines: nice -3 is 1991.
    assert_eq!(target.sched("se.load.weight"), 1991 * 1024);
    assert_eq!(e.apply(&mut m, &p), 0, "already so");
    p.clear();
    p.set_weight(0, Some(100));
    e.apply(&mut m, &p);
    assert_eq!(target.nice(), 10);
    p.clear();
    p.set_weight(0, None);
    e.apply(&mut m, &p);
    assert_eq!(target.nice(), 0, "None: the thread's own nice value");
    p.clear();
    p.set_weight(0, Some(300));
    e.apply(&mut m, &p);
    assert_eq!(target.nice(), 6, "nice 6 = 272, nice 5 = 335: |272 - 300| = 28 < |335 - 300| = 35");
    let restored = e.restore(&m);
    assert_eq!(restored.nice_values, (1, 0));
    assert_eq!(target.nice(), 0);
    assert_eq!(e.not_applied.total, 0);
}

#[test]
#[cfg_attr(not(ampsched_test_root), ignore = "needs root to set another process's scheduling attributes freely")]
fn slices_set_the_eevdf_slice_request_or_say_why_not_and_are_restored() {
    common::prerequisite(is_root(), "root");
    let target = Target::spawn("sleep", &["30"]);
    let mut m = watching(&target);
    let mut e = Enforcer::new(Path::new("/"), 40_000_000);
    let before = target.sched("se.slice");
    let mut p = Placement::default();
    p.set_slice(0, Some(5_000_000));
    let changed = e.apply(&mut m, &p);
    if e.not_applied.total > 0 {
        let why = &e.not_applied.entries[0].reason;
        assert!(why.contains("6.12"), "an older kernel says which it needs: {why}");
        eprintln!("an older kernel: its refusal checked, no slice set ({why})");
        return;
    }
    assert_eq!(changed, 1);
    assert_eq!(target.sched("se.slice"), 5_000_000);
    // Above the kernel's 100 ms: applied as 100 ms, and listed as not applied as asked.
    p.clear();
    p.set_slice(0, Some(250_000_000));
    e.apply(&mut m, &p);
    assert_eq!(target.sched("se.slice"), 100_000_000);
    assert_eq!(e.not_applied.total, 1);
    assert!(e.not_applied.entries[0].reason.contains("clamped to 100 ms"), "{:?}", e.not_applied.entries);
    assert_eq!(e.restore(&m).slices, (1, 0));
    assert_eq!(target.sched("se.slice"), before);
}

#[test]
fn decisions_for_an_exited_thread_are_listed_not_dropped() {
    let mut target = Target::spawn("sleep", &["30"]);
    let mut m = watching(&target);
    target.0.kill().unwrap();
    target.0.wait().unwrap();
    m.sample(10_000_000, &mut Vec::new());
    let mut e = Enforcer::new(Path::new("/"), 40_000_000);
    let mut p = Placement::default();
    p.set_weight(0, Some(2048));
    p.set_fast_share(0, Some(0.5));
    p.set(0, CoreSet::single(0));
    assert_eq!(e.apply(&mut m, &p), 0);
    assert_eq!(e.not_applied.total, 3);
    let kinds: Vec<&str> = e.not_applied.entries.iter().map(|x| x.decision).collect();
    assert_eq!(kinds, ["affinity", "fast_share", "weight"]);
    assert!(e.not_applied.entries.iter().all(|x| x.reason == "the thread has exited"));
}

/// What a share did to a real thread: the fast CPU time and all CPU time the agent charged it
/// since the share was set, the most CPU time it charged in one round, and the thread's fast CPU
/// time as measured apart from the agent (the kernel's affinity and schedstat around each
/// sample), `fast_lo..=fast_hi`: the CPU time it ran while its affinity was between sides (from
/// before a sample's reading to after the round's switch) is in `fast_hi` only.
#[derive(Debug)]
struct ShareRun {
    fast_ns: u64,
    total_ns: u64,
    round_max_ns: u64,
    fast_lo: u64,
    fast_hi: u64,
    switches: u64,
}

/// Run `sh`'s busy loop under share `share` for `samples` samples 10 ms apart.
fn run_under_share(share: f64, samples: u64) -> ShareRun {
    let target = Target::spawn("sh", &["-c", "while :; do :; done"]);
    let run_ns = || -> u64 {
        let s = fs::read_to_string(format!("/proc/{}/schedstat", target.pid())).unwrap();
        s.split_whitespace().next().unwrap().parse().unwrap()
    };
    let on_fast = || get_affinity(target.pid()).unwrap().cpus() == [0];
    // From before the monitor's first reading to the share's first affinity: between sides.
    let start_ns = run_ns();
    let mut m = watching(&target);
    let interval = 10_000_000;
    let mut e = Enforcer::new(Path::new("/"), interval);
    let mut p = Placement::default();
    p.set_fast_share(0, Some(share));
    e.apply(&mut m, &p);
    let charged = |m: &Monitor| (m.book.threads[0].per_type[0].time_ns, m.book.threads[0].total_time_ns());
    let (fast_base, total_base) = charged(&m);
    let (mut fast_lo, mut between) = (0u64, 0u64);
    let (mut last, mut last_fast) = (run_ns(), on_fast());
    between += last - start_ns;
    let per_round = round_samples(interval);
    let (mut round_start, mut round_max_ns) = (total_base, 0u64);
    let start = monotonic_ns();
    for i in 1..=samples {
        std::thread::sleep(std::time::Duration::from_nanos(interval));
        let before = run_ns();
        if last_fast {
            fast_lo += before - last;
        }
        m.sample(monotonic_ns() - start, &mut Vec::new());
        e.after_sample(&mut m);
        let (after, now_fast) = (run_ns(), on_fast());
        // The same side before and after: the thread was there all along (but for the last
        // sample, whose reading the agent's total ends at, somewhere in between).
        if now_fast != last_fast || i == samples {
            between += after - before;
        } else if now_fast {
            fast_lo += after - before;
        }
        (last, last_fast) = (after, now_fast);
        // The agent's round ends where the enforcer's does (its after_sample counts samples).
        if i % per_round == 0 || i == samples {
            let total = charged(&m).1;
            round_max_ns = round_max_ns.max(total - round_start);
            round_start = total;
        }
    }
    let (fast, total) = charged(&m);
    ShareRun { fast_ns: fast - fast_base, total_ns: total - total_base, round_max_ns, fast_lo, fast_hi: fast_lo + between, switches: e.shares.switches }
}

#[test]
#[cfg_attr(not(ampsched_test_cpu01), ignore = "needs CPUs 0 and 1")]
fn a_fast_share_alternates_a_real_threads_affinity_to_give_it_that_share_of_fast_cpu_time() {
    common::prerequisite(two_cpus(), "CPUs 0 and 1");
    // Share 1/4, 150 samples of 10 ms, rounds of 30 ms: 50 rounds (Kim & Huh's split of 30 ms
    // rounds, enforce/share.rs). At each round's end the thread goes fast while its fast CPU
    // time F is at most share x its CPU time T, so D = F - share T stays within
    // [-share c, (1 - share) c], c the most CPU time it had in one round (a fast round starts at
    // D <= 0 and adds (1 - share) of its time; a slow one starts at D > 0 and takes share of
    // it). In the agent's own accounting that holds exactly, whatever the load: other programs
    // only change how much CPU time a round brings, and c is measured in the same run. A share
    // that did not alternate, or alternated by another rule, breaks it.
    let share = 0.25;
    let r = run_under_share(share, 150);
    let d = r.fast_ns as f64 - share * r.total_ns as f64;
    let bound = share.max(1.0 - share) * r.round_max_ns as f64;
    assert!(d.abs() <= bound, "F - share T = {:.1} ms, beyond {:.1} ms: {r:?}", d / 1e6, bound / 1e6);
    // What the agent charged to the fast CPU is what the thread ran there by the kernel's own
    // account, up to the time it ran around the switches (the agent reads a sample before it
    // switches: what the thread ran in between is on either side).
    assert!(r.fast_lo <= r.fast_ns && r.fast_ns <= r.fast_hi, "{r:?}");
    // 50 rounds at 1/4 alternate at least once every four rounds or so, whatever the rounds' CPU
    // time; a share never applied switches nothing.
    assert!(r.switches >= 10, "{r:?}");
    eprintln!("{r:?}; F / T = {:.3}", r.fast_ns as f64 / r.total_ns as f64);
}

#[test]
fn cpus_sharing_a_cpufreq_policy_are_written_once_and_restored_to_the_original() {
    use ampsched_agent::enforce::cpufreq::Frequencies;
    // A cluster: cpu0/cpufreq and cpu1/cpufreq are links to one policy0, as Linux makes them.
    let root = std::env::temp_dir().join(format!("ampsched-cpufreq-shared-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let cpus = root.join("sys/devices/system/cpu");
    let policy = cpus.join("cpufreq/policy0");
    fs::create_dir_all(&policy).unwrap();
    fs::write(policy.join("scaling_governor"), "schedutil\n").unwrap();
    fs::write(policy.join("scaling_max_freq"), "2000000\n").unwrap();
    for c in 0..2 {
        fs::create_dir_all(cpus.join(format!("cpu{c}"))).unwrap();
        std::os::unix::fs::symlink("../cpufreq/policy0", cpus.join(format!("cpu{c}/cpufreq"))).unwrap();
    }
    let m = Machine::from_toml(
        "cluster",
        "memory_latency_ns = 100\n[[core_type]]\nname = \"big\"\ncount = 2\ncpus = [0, 1]\nfreq_ghz = 2.0\nfreq_levels_ghz = [1.2, 2.0]\n",
    )
    .unwrap();
    let mut f = Frequencies::new(&root);
    assert_eq!(f.set(&m, 0, 1.2, None), Ok(1), "one policy, one write");
    assert_eq!(fs::read_to_string(policy.join("scaling_max_freq")).unwrap(), "1200000\n");
    assert_eq!(f.set(&m, 0, 1.2, None), Ok(0), "the same level again writes nothing");
    assert_eq!(f.restore(), 1);
    assert_eq!(fs::read_to_string(policy.join("scaling_max_freq")).unwrap(), "2000000\n", "the original, not the agent's own value");
    let _ = fs::remove_dir_all(&root);
}
