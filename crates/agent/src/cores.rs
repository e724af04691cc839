//! Core types as the user names them (`--cores`, `--emulate`), and the machine file the agent's
//! topology becomes: the same `Machine` the simulator reads, with each core's Linux CPU number.

use std::collections::BTreeSet;
use std::fmt::Write;

use ampsched_model::machine::CAPACITY_SCALE;
use ampsched_model::toml_read::parse_ranges;
use ampsched_model::{InputError, Machine};

const CAPACITY_SCALE_F64: f64 = CAPACITY_SCALE as f64;

use crate::topology::{CoreTypeInfo, Topology, TypeSmt, ASSUMED_SMT_SIBLING_SPEED};

/// One `NAME=CPUS[:SPEED]` item of `--cores` or `--emulate`.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeSpec {
    pub name: String,
    pub cpus: Vec<usize>,
    /// Speed relative to the fastest type (1.0), when given.
    pub speed: Option<f64>,
}

/// Parse "big=0-3,8,small=4-7:0.5": items start at a `NAME=`; a bare range continues the
/// previous item's CPU list (CPU lists contain commas themselves).
pub fn parse_type_specs(option: &str, text: &str) -> Result<Vec<TypeSpec>, InputError> {
    let err = |msg: String| InputError::new(option, text, msg);
    let mut items: Vec<(String, String)> = Vec::new();
    for part in text.split(',').map(str::trim) {
        match part.split_once('=') {
            Some((name, rest)) => items.push((name.trim().to_string(), rest.trim().to_string())),
            None => match items.last_mut() {
                Some((_, rest)) if !rest.contains(':') => {
                    rest.push(',');
                    rest.push_str(part);
                }
                _ => return Err(err(format!("'{part}' is not of the form NAME=CPUS[:SPEED] (e.g. big=0-3,small=4-7:0.5)"))),
            },
        }
    }
    let mut out: Vec<TypeSpec> = Vec::new();
    let mut seen = BTreeSet::new();
    for (name, rest) in items {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(err(format!("core type name '{name}' must be letters, digits, '_' or '-'")));
        }
        if out.iter().any(|t| t.name == name) {
            return Err(err(format!("core type '{name}' named twice")));
        }
        let (cpus, speed) = match rest.split_once(':') {
            Some((c, s)) => {
                let v: f64 = s.trim().parse().map_err(|_| err(format!("speed '{s}' of '{name}' is not a number")))?;
                if !(v > 0.0 && v <= 1.0) {
                    return Err(err(format!("speed {v} of '{name}' must be in (0, 1]: a fraction of the fastest core's speed")));
                }
                (c, Some(v))
            }
            None => (rest.as_str(), None),
        };
        let cpus = parse_ranges(cpus).map_err(|m| err(format!("'{name}': {m}")))?;
        for &c in &cpus {
            if !seen.insert(c) {
                return Err(err(format!("CPU {c} is named twice")));
            }
        }
        out.push(TypeSpec { name, cpus, speed });
    }
    Ok(out)
}

impl Topology {
    /// Replace the detected core types by the user's `--cores`: every online CPU named, fastest
    /// type first. A type without a speed takes the detected performance ratio of its CPUs, which
    /// needs a machine where detection told CPUs apart (or the first type, which is 1.0).
    pub fn with_cores(mut self, text: &str) -> Result<Topology, InputError> {
        let opt = "--cores";
        let specs = &parse_type_specs(opt, text)?;
        self.check_cpus(opt, text, specs)?;
        let online: BTreeSet<usize> = self.cpus.iter().map(|c| c.id).collect();
        let named: BTreeSet<usize> = specs.iter().flat_map(|s| s.cpus.iter().copied()).collect();
        if let Some(c) = online.difference(&named).next() {
            return Err(InputError::new(opt, text, format!("online CPU {c} is in no core type (name every online CPU)")));
        }
        let top = self.cpus.iter().map(|c| c.perf).fold(0.0, f64::max);
        let mut types = Vec::new();
        for (i, s) in specs.iter().enumerate() {
            let speed = match s.speed {
                Some(v) => v,
                None if i == 0 => 1.0,
                None if self.source != "none" => s.cpus.iter().map(|&c| self.cpu(c).perf / top).sum::<f64>() / s.cpus.len() as f64,
                None => {
                    return Err(InputError::new(
                        opt,
                        text,
                        format!("this machine's CPUs all look alike, so give the speed of '{}' (e.g. {}=4-7:0.5)", s.name, s.name),
                    ))
                }
            };
            types.push((s.name.clone(), s.cpus.clone(), speed));
        }
        self.set_types(types, "--cores");
        Ok(self)
    }

    /// The topology `--emulate` makes: the named CPUs become slow types of the given speeds,
    /// the others one fast type "big". Emulation is for symmetric machines: on a machine that is
    /// already asymmetric the two speeds would compound.
    pub fn with_emulation(mut self, text: &str, min_speed: f64) -> Result<Topology, InputError> {
        let opt = "--emulate";
        let specs = &parse_type_specs(opt, text)?;
        self.check_cpus(opt, text, specs)?;
        if let Some(s) = specs.iter().find(|s| s.speed.is_some_and(|v| v < min_speed)) {
            return Err(InputError::new(opt, text, format!("speed of '{}' is below the slowest emulated speed, {min_speed}", s.name)));
        }
        if self.source != "none" {
            return Err(InputError::new(
                opt,
                text,
                format!("this machine is already asymmetric (detected from {}); emulate only on a symmetric one", self.source),
            ));
        }
        let mut types = Vec::new();
        let slow: BTreeSet<usize> = specs.iter().flat_map(|s| s.cpus.iter().copied()).collect();
        let fast: Vec<usize> = self.cpus.iter().map(|c| c.id).filter(|c| !slow.contains(c)).collect();
        if fast.is_empty() {
            return Err(InputError::new(opt, text, "leave at least one CPU at full speed"));
        }
        if specs.iter().any(|s| s.name == "big") {
            return Err(InputError::new(opt, text, "'big' names the CPUs left at full speed; call the slow type otherwise"));
        }
        types.push(("big".to_string(), fast, 1.0));
        for s in specs {
            let Some(speed) = s.speed.filter(|&v| v < 1.0) else {
                return Err(InputError::new(opt, text, format!("give '{}' a speed below 1 (e.g. {}=1:0.5)", s.name, s.name)));
            };
            types.push((s.name.clone(), s.cpus.clone(), speed));
        }
        self.set_types(types, "--emulate");
        Ok(self)
    }

    fn cpu(&self, id: usize) -> &crate::topology::Cpu {
        self.cpus.iter().find(|c| c.id == id).expect("checked online")
    }

    fn check_cpus(&self, opt: &str, text: &str, specs: &[TypeSpec]) -> Result<(), InputError> {
        for s in specs {
            if let Some(c) = s.cpus.iter().find(|&&c| !self.cpus.iter().any(|x| x.id == c)) {
                let online: Vec<usize> = self.cpus.iter().map(|c| c.id).collect();
                return Err(InputError::new(opt, text, format!("CPU {c} of '{}' is not online (online: {online:?})", s.name)));
            }
        }
        Ok(())
    }

    fn set_types(&mut self, mut types: Vec<(String, Vec<usize>, f64)>, source: &'static str) {
        types.sort_by(|a, b| b.2.total_cmp(&a.2));
        let top = types[0].2;
        self.core_types = types
            .into_iter()
            .map(|(name, mut cpus, speed)| {
                cpus.sort();
                let max_freq_khz = cpus.first().and_then(|&c| self.cpu(c).max_freq_khz);
                for &c in &cpus {
                    self.cpus.iter_mut().find(|x| x.id == c).expect("checked online").perf = speed;
                }
                CoreTypeInfo { name, capacity: (speed / top * CAPACITY_SCALE_F64).round().max(1.0) as u32, max_freq_khz, cpus }
            })
            .collect();
        self.source = source;
        self.notes.retain(|n| !n.contains("symmetric"));
    }

    /// The topology as a machine file for the simulator (and the agent's own `Machine`).
    pub fn to_machine_toml(&self, name: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# Detected by `ampsched topology` (core types from {}).", self.source);
        let _ = writeln!(s, "# sysfs gives no memory latency or power: memory_latency_ns is the catalog's usual 100 ns and");
        let _ = writeln!(s, "# power is left at 0 W; edit them before using energy metrics. freq_ghz is the max frequency");
        let _ = writeln!(s, "# where cpufreq gives it (else nominal), and cpi_scale makes the capacities match the detected ones.");
        let _ = writeln!(s, "name = \"{name}\"");
        let _ = writeln!(s, "description = \"{} CPUs, {} core type(s), detected from {}\"", self.cpus.len(), self.core_types.len(), self.source);
        let _ = writeln!(s, "source = \"ampsched topology\"");
        let _ = writeln!(s, "memory_latency_ns = 100.0");
        let top_freq = self.core_types[0].max_freq_khz.map(|k| k as f64 / 1e6).unwrap_or(1.0);
        // Each type's CPUs in core order (SMT siblings consecutive, `Topology::type_smt`).
        let smt: Vec<TypeSmt> = self.core_types.iter().map(|t| self.type_smt(&t.cpus)).collect();
        for (t, smt) in self.core_types.iter().zip(&smt) {
            let freq = t.max_freq_khz.map(|k| k as f64 / 1e6).unwrap_or(top_freq);
            // capacity = 1024 · (freq / cpi_scale) / (top_freq / 1)
            let cpi_scale = (freq / top_freq) / (t.capacity as f64 / CAPACITY_SCALE_F64);
            let _ = writeln!(s, "\n[[core_type]]\nname = \"{}\"\ncount = {}", t.name, t.cpus.len());
            if smt.cpus.windows(2).all(|w| w[0] < w[1]) {
                let _ = writeln!(s, "cpus = \"{}\"", format_ranges(&smt.cpus));
            } else {
                // Siblings apart in Linux's numbering (CPU n and n + N/2): listed pair by pair.
                let _ = writeln!(s, "cpus = {:?}", smt.cpus);
            }
            let _ = writeln!(s, "freq_ghz = {freq:?}\ncpi_scale = {:?}", (cpi_scale * 1e4).round() / 1e4);
            if smt.smt > 1 {
                let _ = writeln!(s, "# SMT from sysfs thread_siblings_list; smt_sibling_speed is ASSUMED (not in sysfs): Intel's");
                let _ = writeln!(s, "# \"up to 30%\" for Hyper-Threading (Marr et al., Intel Technology Journal 6(1), 2002).");
                let _ = writeln!(s, "smt = {}\nsmt_sibling_speed = {ASSUMED_SMT_SIBLING_SPEED:?}", smt.smt);
            }
            if let Some(note) = &smt.note {
                let _ = writeln!(s, "# {note}");
            }
        }
        let core_of = |cpu: usize| -> usize {
            let mut i = 0;
            for t in &smt {
                if let Some(p) = t.cpus.iter().position(|&c| c == cpu) {
                    return i + p;
                }
                i += t.cpus.len();
            }
            unreachable!("every online CPU has a core type")
        };
        for (size, members) in &self.llcs {
            let mut cores: Vec<usize> = members.iter().filter(|&&c| self.cpus.iter().any(|x| x.id == c)).map(|&c| core_of(c)).collect();
            cores.sort();
            if cores.is_empty() {
                continue;
            }
            let _ = writeln!(s, "\n[[llc]]");
            if let Some(kb) = size {
                let _ = writeln!(s, "size_kb = {kb}");
            }
            let _ = writeln!(s, "cores = {cores:?}");
        }
        s
    }

    /// The topology as a `Machine`. It may not be one the simulator takes: more core types than
    /// it supports (CPPC gives favoured cores of one type distinct performance levels), say;
    /// then the error says to name the types with `--cores`.
    pub fn to_machine(&self, name: &str) -> Result<Machine, InputError> {
        Machine::from_toml("<detected topology>", &self.to_machine_toml(name))
            .map_err(|e| InputError::new("topology", "", format!("{e}; name the core types yourself with --cores big=...,small=...")))
    }
}

/// [0,1,2,3,8] → "0-3,8".
pub fn format_ranges(cpus: &[usize]) -> String {
    let mut v = cpus.to_vec();
    v.sort();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j { v[i].to_string() } else { format!("{}-{}", v[i], v[j]) });
        i = j + 1;
    }
    out.join(",")
}
