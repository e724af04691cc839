//! `primary-domain`: keep threads on a primary set of CPUs until it saturates, then overflow,
//! after sched-ext/scx's scx_bpfland and scx_cosmos `-m/--primary-domain`
//! (scheds/rust/scx_bpfland/src/main.rs: `resolve_energy_domain`, `init_cpufreq_perf`;
//! src/bpf/main.bpf.c: `pick_idle_cpu`, which tries an idle CPU of the primary domain before
//! any other; rust/scx_utils/src/topology.rs: `get_primary_cpus`).
//!
//! - The domain (option `domain`): `performance`, the big CPUs; `powersave`, the little ones;
//!   `turbo`, the CPUs of the highest capacity; `all`; `auto`, which bpfland resolves from the
//!   OS's power profile (powersave → the little CPUs, anything else → all), and which here,
//!   with no power profile to read, is `all`; or a Linux CPU list (`0-3,8`), the CPUs of the
//!   machine file's `cpus` numbering. Big and little are scx_utils's classes
//!   (`common::core_class`); a kind the machine lacks falls back to all CPUs, as
//!   `epp_to_cpumask` does.
//! - A runnable thread runs in the primary domain while it has a CPU free for it; the threads
//!   beyond (the domain is saturated) may run anywhere, and come back as the domain frees up.
//! - With `domain=powersave`, every core type runs at its lowest frequency level, as bpfland
//!   asks cpufreq for the minimum performance level then (`init_cpufreq_perf`); other domains
//!   leave frequencies alone (bpfland asks for the maximum, the machine's default here).
//!
//! What it simplifies: bpfland decides at each wake-up, on CPUs idle at that moment; here
//! "saturated" is counted each quantum (4 ms): the domain has as many runnable threads given it
//! as it has CPUs. Threads already in the domain keep their places; the others take free places
//! in order of id, the rest overflow to every CPU. bpfland's deadlines, slices, SMT preference
//! and `-P` preferred-CPU scan are not modelled, nor `auto`'s reading of the power profile.
//!
//! Live: yes. The domain is applied as affinities from the agent's samples, the powersave
//! frequency through the agent's cpufreq enforcement where the machine allows it.

use ampsched_model::{CoreSet, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, Trigger, Triggers};

use super::{set_if_changed, DECISION_MS};
use crate::common::core_class::CoreClasses;
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "primary-domain",
    description:
        "scx_bpfland/scx_cosmos -m: threads stay on a primary CPU set (performance, powersave, turbo, all or a CPU list) until it saturates, then overflow",
    source: "sched-ext/scx scheds/rust/scx_bpfland/src/main.rs (resolve_energy_domain) and src/bpf/main.bpf.c (pick_idle_cpu)",
    options: &OPTIONS,
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(PrimaryDomain::new(o, m))),
};

const OPTIONS: [OptionInfo; 2] = [
    OptionInfo {
        name: "domain",
        kind: OptionKind::Text("auto"),
        doc: "the primary domain: auto (all: no power profile to read), performance (big CPUs), powersave (little CPUs, lowest frequency), \
              turbo (highest-capacity CPUs), all, or a Linux CPU list such as 0-3,8",
    },
    OptionInfo {
        name: "quantum_ms",
        kind: OptionKind::quantum_ms(DECISION_MS),
        doc: "how often saturation is counted and threads re-placed (bpfland decides at each wake-up)",
    },
];

/// The primary domain that `domain` names on machine `m`, or why it names none.
pub fn resolve(domain: &str, m: &Machine) -> Result<CoreSet, String> {
    let classes = CoreClasses::of(m);
    let or_all = |set: CoreSet| if set.is_empty() { m.all_cores() } else { set };
    Ok(match domain {
        "auto" | "all" => m.all_cores(),
        "performance" => or_all(classes.big),
        "powersave" => or_all(classes.little),
        "turbo" => or_all(classes.turbo),
        list => cpu_list(list, m)?,
    })
}

/// The cores on the Linux CPUs of `list` ("0-3,8").
fn cpu_list(list: &str, m: &Machine) -> Result<CoreSet, String> {
    let bad = || format!("'{list}' is not auto, performance, powersave, turbo, all or a CPU list such as 0-3,8");
    let mut set = CoreSet::EMPTY;
    for part in list.split(',') {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<usize>().map_err(|_| bad())?, b.trim().parse::<usize>().map_err(|_| bad())?),
            None => {
                let c = part.trim().parse::<usize>().map_err(|_| bad())?;
                (c, c)
            }
        };
        if lo > hi {
            return Err(bad());
        }
        for cpu in lo..=hi {
            let core = m.core_of_cpu(cpu).ok_or_else(|| format!("CPU {cpu} of '{list}' is not on machine '{}'", m.name))?;
            set.insert(core);
        }
    }
    Ok(set)
}

pub struct PrimaryDomain {
    primary: CoreSet,
    all: CoreSet,
    quantum_ns: u64,
    /// Core types to set to their lowest level at the first call (`domain=powersave`).
    lowest: Vec<(usize, f64)>,
}

impl PrimaryDomain {
    pub fn new(o: &Options, m: &Machine) -> Self {
        let domain = o.text("domain");
        // `today::check` refused a domain that resolves to nothing before the build.
        let primary = resolve(domain, m).unwrap_or_else(|_| m.all_cores());
        let lowest = if domain == "powersave" {
            m.core_types.iter().enumerate().filter(|(_, ct)| ct.freq_levels_ghz.len() > 1).map(|(ty, ct)| (ty, ct.freq_levels_ghz[0])).collect()
        } else {
            Vec::new()
        };
        PrimaryDomain { primary, all: m.all_cores(), quantum_ns: o.ms("quantum_ms"), lowest }
    }
}

impl Policy for PrimaryDomain {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.quantum_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::START
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        for (ty, ghz) in self.lowest.drain(..) {
            out.set_frequency(ty, ghz);
        }
        if self.primary == self.all {
            return Ok(());
        }
        let mut free = self.primary.len();
        if let Trigger::Start(t) = view.trigger {
            let idle = self.primary.iter().any(|c| view.cores[c].nr_running == 0);
            let target = if idle { self.primary.clone() } else { self.all.clone() };
            set_if_changed(view, t, &target, out);
            return Ok(());
        }
        // Threads in the domain keep their places first, then the others take what is left.
        let runnable = || view.live.iter().copied().filter(|&t| view.thread(t).state.is_runnable());
        for t in runnable().filter(|&t| view.thread(t).allowed == self.primary) {
            if free > 0 {
                free -= 1;
            } else {
                set_if_changed(view, t, &self.all, out);
            }
        }
        for t in runnable().filter(|&t| view.thread(t).allowed != self.primary) {
            if free > 0 {
                free -= 1;
                set_if_changed(view, t, &self.primary, out);
            }
        }
        Ok(())
    }
}
