//! The shipped catalog, and resolving a user's `--machine`/`--workload` argument: a catalog
//! name, or a path to a TOML file.

use std::path::Path;

use ampsched_model::workload::{programs_from_toml, Programs};
use ampsched_model::{InputError, Machine, Workload};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/catalog.rs"));
}

pub use embedded::{MACHINES, PROGRAMS, WORKLOADS};

/// Every shipped program profile.
pub fn programs() -> Result<Programs, InputError> {
    let mut p = Programs::new();
    for (name, text) in PROGRAMS {
        programs_from_toml(&format!("catalog/programs/{name}.toml"), text, &mut p)?;
    }
    Ok(p)
}

fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.ends_with(".toml") || Path::new(arg).is_file()
}

fn read(arg: &str, what: &str) -> Result<String, InputError> {
    std::fs::read_to_string(arg).map_err(|e| InputError::new(arg, "", format!("cannot read {what} file: {e}")))
}

fn unknown(kind: &str, arg: &str, names: &[(&str, &str)]) -> InputError {
    let list: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    InputError::new(format!("--{kind}"), arg, format!("no such {kind} in the catalog ({}) and no such file", list.join(", ")))
}

pub fn machine(arg: &str) -> Result<Machine, InputError> {
    if looks_like_path(arg) {
        return Machine::from_toml(arg, &read(arg, "machine")?);
    }
    match MACHINES.iter().find(|(n, _)| *n == arg) {
        Some((n, text)) => Machine::from_toml(&format!("catalog/machines/{n}.toml"), text),
        None => Err(unknown("machine", arg, MACHINES)),
    }
}

pub fn workload(arg: &str) -> Result<Workload, InputError> {
    let progs = programs()?;
    if looks_like_path(arg) {
        return Workload::from_toml(arg, &read(arg, "workload")?, &progs);
    }
    match WORKLOADS.iter().find(|(n, _)| *n == arg) {
        Some((n, text)) => Workload::from_toml(&format!("catalog/workloads/{n}.toml"), text, &progs),
        None => Err(unknown("workload", arg, WORKLOADS)),
    }
}
