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

/// The largest machine or workload file read: 16 MiB, over a hundred times the largest a study
/// could write by hand or generate (a workload of thousands of apps is well under 1 MiB), so
/// that a wrong path (`/dev/zero`, a log) is refused at once instead of filling memory.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

fn read(arg: &str, what: &str) -> Result<String, InputError> {
    use std::io::Read;
    let cannot = |e: std::io::Error| InputError::new(arg, "", format!("cannot read {what} file: {e}"));
    let mut bytes = Vec::new();
    std::fs::File::open(arg).map_err(cannot)?.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(InputError::new(arg, "", format!("{what} file larger than {} MiB: not a {what} file?", MAX_INPUT_BYTES >> 20)));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count();
        InputError::new(arg, format!("line {line}"), format!("not UTF-8 text (byte {at})"))
    })
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

/// The file a workload argument names in messages: the path itself, or the catalog's file.
pub fn workload_file(arg: &str) -> String {
    if looks_like_path(arg) {
        arg.to_string()
    } else {
        format!("catalog/workloads/{arg}.toml")
    }
}

pub fn workload(arg: &str) -> Result<Workload, InputError> {
    let progs = programs()?;
    if looks_like_path(arg) {
        return Workload::from_toml(arg, &read(arg, "workload")?, &progs);
    }
    match WORKLOADS.iter().find(|(n, _)| *n == arg) {
        Some((_, text)) => Workload::from_toml(&workload_file(arg), text, &progs),
        None => Err(unknown("workload", arg, WORKLOADS)),
    }
}
