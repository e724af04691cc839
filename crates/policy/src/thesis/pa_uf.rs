//! `pa-uf`: the Parallelism-Aware scheduler as the Sáez thesis rebuilt it on the Utility Factor
//! to compare it with CAMP (ch. 6, §6.2.2), not chapter 5's PA.
//!
//! CAMP's code with every thread's SF replaced by a constant, the machine's highest (the
//! theoretical maximum fast/slow instruction-rate ratio: 2.0 on the thesis's AMD machines), so
//! classes follow TLP alone: UF = (SFmax − 1)/(⌊(N−1)/NFC⌋+1)² + 1 with N the app's runnable
//! threads, put in classes by CAMP's thresholds. Every single-threaded app is HIGH (and with
//! others shares the fast cores by HAFS's round robin); every serial phase is
//! SEQUENTIAL_BOOSTED for `amp_boost_ticks` of fast time, and boosted threads are not
//! fair-shared (the first keeps its fast core until its boost ends or it blocks). No counters.

use ampsched_model::Signals;

use crate::common::PREFER_LOCAL_OPTION;
use crate::options::{joined, OptionInfo, OptionKind};
use crate::thesis::camp::{Camp, Variant, BOOST_TICKS, SHARE_THRESHOLD, THRESHOLD_OPTIONS};
use crate::{Build, PolicyInfo};

/// A Solaris tick, the grain amp_boost_ticks counts in, and rr's quantum.
const QUANTUM: OptionInfo = OptionInfo {
    name: "quantum_ms",
    kind: OptionKind::quantum_ms(10.0),
    doc: "how often boosts' fast-core time and HIGH threads' balance counters are brought up to date, ms (ours: a 10 ms tick)",
};

const OPTIONS: [OptionInfo; 8] = joined(&[&[QUANTUM], &THRESHOLD_OPTIONS, &[BOOST_TICKS, SHARE_THRESHOLD, PREFER_LOCAL_OPTION]]);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "pa-uf",
    description: "PA rebuilt on the Utility Factor (ch. 6's PA): classes from TLP alone, the SF fixed at the machine's highest; every serial phase boosted",
    source: "Sáez thesis, §6.2.2 (PA on the UF code base)",
    options: &OPTIONS,
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(Camp::new(Variant::PA_UF, o, m))),
};
