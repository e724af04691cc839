//! Core types and capacities of the running Linux machine, read from sysfs.
//!
//! Sources, most trusted first, for each CPU's performance:
//! 1. `cpuN/cpu_capacity` (arm64/RISC-V, and x86 hybrid parts on recent kernels): Linux's own
//!    capacity, 1024 = fastest;
//! 2. Intel hybrid PMUs: `/sys/devices/cpu_core/cpus` (P-cores) and `/sys/devices/cpu_atom/cpus`
//!    (E-cores) name the core type even where no capacity is exported;
//! 3. ACPI CPPC `cpuN/acpi_cppc/highest_perf`;
//! 4. cpufreq `cpuN/cpufreq/cpuinfo_max_freq`.
//!
//! The first source that tells CPUs apart decides. LLC domains come from the highest-level
//! cache's `shared_cpu_list`. A machine where no source tells CPUs apart is symmetric.
//!
//! SMT: each CPU's `cpuN/topology/thread_siblings_list` names the hardware threads of its
//! physical core (Linux Documentation/admin-guide/cputopology.rst). A core type whose every CPU
//! has exactly one online sibling, of the same type, is a two-way SMT type (`Topology::type_smt`);
//! how fast two busy siblings run is not in sysfs, and is assumed (`ASSUMED_SMT_SIBLING_SPEED`).
//!
//! Everything reads below a root directory, so tests can build a sysfs tree of their own.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ampsched_model::toml_read::parse_ranges;

/// One detected CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Cpu {
    pub id: usize,
    /// Relative performance from the deciding source (larger = faster).
    pub perf: f64,
    pub max_freq_khz: Option<u64>,
    /// Index into `Topology::llcs`.
    pub llc: Option<usize>,
    /// The online hardware threads of its physical core (`thread_siblings_list`), itself
    /// included; itself alone without SMT or where sysfs does not say.
    pub siblings: Vec<usize>,
}

/// Each busy hardware thread's speed beside a busy sibling, relative to alone
/// (`smt_sibling_speed`), for an SMT type the agent detects: sysfs does not give it (it depends
/// on the programs), so it is ASSUMED. 0.65: two threads give 1.3 times one thread's
/// throughput, the "up to 30%" Intel reported for Hyper-Threading (Marr et al., "Hyper-Threading
/// Technology Architecture and Microarchitecture", Intel Technology Journal 6(1), 2002). The
/// written machine file says so; edit it for a measured value.
pub const ASSUMED_SMT_SIBLING_SPEED: f64 = 0.65;

/// How a core type's CPUs are SMT siblings (`Topology::type_smt`).
#[derive(Debug, Clone, PartialEq)]
pub struct TypeSmt {
    /// Hardware threads per physical core: 1 or 2.
    pub smt: usize,
    /// The type's CPUs in the machine's core order: ascending, each SMT core's two threads
    /// consecutive (its lower CPU first), as the machine format takes siblings.
    pub cpus: Vec<usize>,
    /// Why a type with siblings is not modelled as SMT (some offline, of another type, more than two).
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CoreTypeInfo {
    pub name: String,
    pub cpus: Vec<usize>,
    pub capacity: u32,
    pub max_freq_khz: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    pub cpus: Vec<Cpu>,
    /// Fastest first.
    pub core_types: Vec<CoreTypeInfo>,
    /// (size in KB, member CPUs) per last-level-cache domain.
    pub llcs: Vec<(Option<u64>, Vec<usize>)>,
    /// Which source told the core types apart ("cpu_capacity", "intel hybrid pmu", ...), or "none".
    pub source: &'static str,
    pub notes: Vec<String>,
}

fn read_trim(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

fn read_u64(p: &Path) -> Option<u64> {
    read_trim(p)?.parse().ok()
}

fn read_list(p: &Path) -> Option<Vec<usize>> {
    parse_ranges(&read_trim(p)?).ok()
}

/// "32768K" → 32768; "2M" → 2048.
fn parse_size_kb(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(k) = s.strip_suffix('K') {
        k.parse().ok()
    } else if let Some(m) = s.strip_suffix('M') {
        m.parse::<u64>().ok().map(|m| m * 1024)
    } else {
        s.parse::<u64>().ok().map(|b| b / 1024)
    }
}

/// Detect the topology below `root` (normally "/": reads `root/sys/...`).
pub fn detect(root: &Path) -> Result<Topology, String> {
    let cpu_dir = root.join("sys/devices/system/cpu");
    let online = read_list(&cpu_dir.join("online")).ok_or_else(|| format!("{}: cannot read the list of online CPUs", cpu_dir.join("online").display()))?;
    let path = |c: usize, rest: &str| -> PathBuf { cpu_dir.join(format!("cpu{c}/{rest}")) };

    let capacity: BTreeMap<usize, u64> = online.iter().filter_map(|&c| read_u64(&path(c, "cpu_capacity")).map(|v| (c, v))).collect();
    let cppc: BTreeMap<usize, u64> = online.iter().filter_map(|&c| read_u64(&path(c, "acpi_cppc/highest_perf")).map(|v| (c, v))).collect();
    let freq: BTreeMap<usize, u64> = online.iter().filter_map(|&c| read_u64(&path(c, "cpufreq/cpuinfo_max_freq")).map(|v| (c, v))).collect();
    let p_cores = read_list(&root.join("sys/devices/cpu_core/cpus"));
    let e_cores = read_list(&root.join("sys/devices/cpu_atom/cpus"));

    let distinct = |m: &BTreeMap<usize, u64>| m.len() == online.len() && m.values().min() != m.values().max();
    let mut notes = Vec::new();
    let (source, perf): (&'static str, BTreeMap<usize, f64>) = if distinct(&capacity) {
        ("cpu_capacity", capacity.iter().map(|(&c, &v)| (c, v as f64)).collect())
    } else if let (Some(p), Some(e)) = (&p_cores, &e_cores) {
        // The PMU lists name the type; rank within it by CPPC or frequency where present.
        let within = |c: usize| cppc.get(&c).or(freq.get(&c)).copied().unwrap_or(0) as f64;
        let mut m = BTreeMap::new();
        for &c in &online {
            let base = if p.contains(&c) {
                2e9
            } else if e.contains(&c) {
                1e9
            } else {
                0.0
            };
            m.insert(c, base + within(c));
        }
        ("intel hybrid pmu", m)
    } else if distinct(&cppc) {
        ("acpi_cppc highest_perf", cppc.iter().map(|(&c, &v)| (c, v as f64)).collect())
    } else if distinct(&freq) {
        ("cpufreq cpuinfo_max_freq", freq.iter().map(|(&c, &v)| (c, v as f64)).collect())
    } else {
        notes.push("no source tells the CPUs apart: the machine is symmetric (use --cores or --emulate to make it asymmetric)".into());
        ("none", online.iter().map(|&c| (c, 1.0)).collect())
    };

    // LLC domains: the highest cache level each CPU reports.
    let mut llcs: Vec<(Option<u64>, Vec<usize>)> = Vec::new();
    let mut llc_of = BTreeMap::new();
    for &c in &online {
        let mut best: Option<(u64, PathBuf)> = None;
        for i in 0..16 {
            let idx = path(c, &format!("cache/index{i}"));
            let Some(level) = read_u64(&idx.join("level")) else { continue };
            if best.as_ref().is_none_or(|(l, _)| level > *l) {
                best = Some((level, idx));
            }
        }
        if let Some((_, idx)) = best {
            if let Some(members) = read_list(&idx.join("shared_cpu_list")) {
                let size = read_trim(&idx.join("size")).and_then(|s| parse_size_kb(&s));
                let i = match llcs.iter().position(|(_, m)| *m == members) {
                    Some(i) => i,
                    None => {
                        llcs.push((size, members));
                        llcs.len() - 1
                    }
                };
                llc_of.insert(c, i);
            }
        }
    }

    // SMT siblings: the online threads of each CPU's physical core.
    let siblings = |c: usize| -> Vec<usize> {
        let listed = read_list(&path(c, "topology/thread_siblings_list")).unwrap_or_default();
        let mut s: Vec<usize> = listed.into_iter().filter(|s| online.contains(s)).collect();
        if !s.contains(&c) {
            s.push(c);
        }
        s.sort();
        s
    };
    let cpus: Vec<Cpu> = online
        .iter()
        .map(|&c| Cpu { id: c, perf: perf[&c], max_freq_khz: freq.get(&c).copied(), llc: llc_of.get(&c).copied(), siblings: siblings(c) })
        .collect();
    let mut levels: Vec<f64> = cpus.iter().map(|c| c.perf).collect();
    levels.sort_by(|a, b| b.total_cmp(a));
    levels.dedup();
    let top = levels[0];
    let names: Vec<String> = match levels.len() {
        1 => vec!["cpu".into()],
        2 => vec!["big".into(), "little".into()],
        n => (0..n).map(|i| format!("type{i}")).collect(),
    };
    let core_types = levels
        .iter()
        .zip(names)
        .map(|(&lvl, name)| {
            let members: Vec<usize> = cpus.iter().filter(|c| c.perf == lvl).map(|c| c.id).collect();
            let capacity = if source == "intel hybrid pmu" {
                // The PMU lists give no ratio; capacity then comes from frequency where known.
                let f = |c: usize| freq.get(&c).copied().unwrap_or(1) as f64;
                let fmax = online.iter().map(|&c| f(c)).fold(0.0, f64::max);
                ((f(members[0]) / fmax) * 1024.0).round() as u32
            } else {
                ((lvl / top) * 1024.0).round() as u32
            };
            CoreTypeInfo { name, max_freq_khz: freq.get(&members[0]).copied(), cpus: members, capacity }
        })
        .collect();
    let mut topo = Topology { cpus, core_types, llcs, source, notes };
    let smt_notes: Vec<String> = topo.core_types.iter().filter_map(|t| topo.type_smt(&t.cpus).note).collect();
    topo.notes.extend(smt_notes);
    Ok(topo)
}

impl Topology {
    /// How the CPUs `cpus` of one core type are SMT siblings: two-way SMT when every one has
    /// exactly one online sibling and that sibling is of the type too; else none (with a note
    /// when some CPU has siblings: the machine format's SMT pairs a type's consecutive cores, so
    /// a lone thread, a pair across two types or a wider core cannot be written).
    pub fn type_smt(&self, cpus: &[usize]) -> TypeSmt {
        let mut sorted = cpus.to_vec();
        sorted.sort();
        let siblings = |c: usize| self.cpus.iter().find(|x| x.id == c).map_or(&[][..], |x| &x.siblings[..]);
        if sorted.iter().all(|&c| siblings(c).len() <= 1) {
            return TypeSmt { smt: 1, cpus: sorted, note: None };
        }
        let paired = sorted.iter().all(|&c| siblings(c).len() == 2 && siblings(c).iter().all(|s| sorted.contains(s)));
        if !paired {
            let note = format!(
                "CPUs {} have SMT siblings, but not each exactly one online sibling of the same core type: SMT is not modelled for them",
                crate::cores::format_ranges(&sorted)
            );
            return TypeSmt { smt: 1, cpus: sorted, note: Some(note) };
        }
        let mut order = Vec::with_capacity(sorted.len());
        for &c in &sorted {
            if !order.contains(&c) {
                order.extend(siblings(c).iter().copied());
            }
        }
        TypeSmt { smt: 2, cpus: order, note: None }
    }

    /// What `ampsched topology --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        json!({
            "source": self.source,
            "symmetric": self.core_types.len() == 1,
            "core_types": self.core_types.iter().map(|t| json!({
                "name": t.name, "cpus": crate::cores::format_ranges(&t.cpus), "count": t.cpus.len(),
                "capacity": t.capacity, "max_freq_khz": t.max_freq_khz, "smt": self.type_smt(&t.cpus).smt,
            })).collect::<Vec<_>>(),
            "cpus": self.cpus.iter().map(|c| json!({
                "cpu": c.id, "core_type": self.core_types.iter().find(|t| t.cpus.contains(&c.id)).map(|t| t.name.clone()),
                "max_freq_khz": c.max_freq_khz, "llc": c.llc,
            })).collect::<Vec<_>>(),
            "llcs": self.llcs.iter().map(|(size, cpus)| json!({"size_kb": size, "cpus": crate::cores::format_ranges(cpus)})).collect::<Vec<_>>(),
            "notes": self.notes,
        })
    }
}
