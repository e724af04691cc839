//! `sfd`: SF-Driven, the scheduler that caters to efficiency only, against which the Sáez thesis
//! holds CAMP (ch. 6, §6.2.2).
//!
//! CAMP's code with the UF's thread count always 1 (SFD "does not account for the TLP of the
//! application"): UF = SF, each thread's SF estimated online from its LLC miss rate and replaced
//! by its category's representative (`common::sf`), put in utility classes by CAMP's thresholds.
//! HIGH threads share the fast cores equally (HAFS's round robin), idle fast cores go to MEDIUM
//! then LOW threads, new threads warm up as LOW; no serial phase is seen, so nothing is boosted.
//! It is HASS-D (§4.2.2) with classes: HASS-D maps on raw SFs, SFD on classes, which absorb
//! estimates that are not order-accurate (§6.2.2).

use ampsched_model::Signals;

use crate::common::sf::DYNAMIC_OPTIONS;
use crate::common::PREFER_LOCAL_OPTION;
use crate::options::{joined, OptionInfo};
use crate::thesis::camp::{Camp, Variant, SF_CATEGORIES, SHARE_THRESHOLD, THRESHOLD_OPTIONS};
use crate::{Build, PolicyInfo};

const OPTIONS: [OptionInfo; 11] = joined(&[&DYNAMIC_OPTIONS, &THRESHOLD_OPTIONS, &[SHARE_THRESHOLD, SF_CATEGORIES, PREFER_LOCAL_OPTION]]);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "sfd",
    description: "SF-Driven: utility classes from each thread's estimated SF alone (CAMP with N = 1); HIGH threads share the fast cores",
    source: "Sáez thesis, §6.2.2 (SFD)",
    options: &OPTIONS,
    needs: Signals::COUNTERS,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(Camp::new(Variant::SFD, o, m))),
};
