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
    machine_with(arg, &[])
}

/// A machine with `sets` applied to its TOML before it is read, so that an edited machine passes
/// every check a file does: "TYPE.KEY=VALUE" sets KEY of the core type named TYPE, "KEY=VALUE" a
/// top-level key; VALUE is a TOML value (6, 2.8, "text"). Errors name `--set` and the edit, or,
/// once the machine is read, its file "with --set ...".
///
/// `NAME:TYPE=N:...` (e.g. `exynos5422:big=4:little=1`) is a machine configuration: NAME (a
/// catalog name or a file) with only N cores of TYPE online (`Machine::with_online`), the edits
/// applied first. On a machine with `[interconnect]`, `arbitration=round_robin|ocor`,
/// `priority_levels=N` and `progress_levels=N` among them set its network
/// (`Machine::with_network_options`, docs/noc.md).
pub fn machine_with(arg: &str, sets: &[String]) -> Result<Machine, InputError> {
    match split_config(arg) {
        None => machine_file(arg, sets),
        Some((base, spec)) => {
            let m = machine_file(base, sets)?;
            let (m, rest) = m.with_network_options(spec).map_err(|why| InputError::new("--machine", arg, why))?;
            let name = format!("{}:{spec}", m.name);
            let Some(rest) = rest else { return Ok(Machine { name, ..m }) };
            let online = m.parse_online(&rest).map_err(|why| InputError::new("--machine", arg, why))?;
            Ok(m.with_online(&online, name))
        }
    }
}

/// A machine configuration's name and online counts: "exynos5422:big=4" -> ("exynos5422",
/// "big=4"). None for a plain name or an existing file (whose name may hold a ':').
pub fn split_config(arg: &str) -> Option<(&str, &str)> {
    if Path::new(arg).is_file() {
        return None;
    }
    arg.split_once(':').map(|(base, spec)| (base.trim(), spec.trim()))
}

fn machine_file(arg: &str, sets: &[String]) -> Result<Machine, InputError> {
    let (source, text) = if looks_like_path(arg) {
        (arg.to_string(), read(arg, "machine")?)
    } else {
        match MACHINES.iter().find(|(n, _)| *n == arg) {
            Some((n, text)) => (format!("catalog/machines/{n}.toml"), text.to_string()),
            None => return Err(unknown("machine", arg, MACHINES)),
        }
    };
    if sets.is_empty() {
        return Machine::from_toml(&source, &text);
    }
    // A file that is not TOML is reported as it would be without the edits.
    let Ok(mut table) = text.parse::<toml::Table>() else { return Machine::from_toml(&source, &text) };
    let shared = all_cores(&table).is_some_and(|all| llc_cores(&mut table).is_some_and(|cores| *cores == toml::Value::from(all)));
    for edit in sets {
        set_key(&mut table, edit)?;
    }
    // One LLC over every core ("0-N") stays over every core when a count changes, so that the
    // common edit (`pcore.count=6`) needs no edit of the [[llc]] table besides.
    if let (true, Some(all)) = (shared, all_cores(&table)) {
        if let Some(cores) = llc_cores(&mut table) {
            *cores = toml::Value::from(all);
        }
    }
    Machine::from_toml(&format!("{source} with --set {}", sets.join(" --set ")), &table.to_string())
}

/// "0-N": every core of a machine's table, if its core types' counts are whole numbers.
fn all_cores(table: &toml::Table) -> Option<String> {
    let types = table.get("core_type")?.as_array()?;
    let total: i64 = types.iter().map(|t| t.get("count").and_then(toml::Value::as_integer)).sum::<Option<i64>>()?;
    (total >= 1).then(|| format!("0-{}", total - 1))
}

/// The `cores` of a machine's only [[llc]], if it has one.
fn llc_cores(table: &mut toml::Table) -> Option<&mut toml::Value> {
    match table.get_mut("llc")?.as_array_mut()?.as_mut_slice() {
        [llc] => llc.as_table_mut()?.get_mut("cores"),
        _ => None,
    }
}

/// One `--set` edit of a machine's table.
fn set_key(table: &mut toml::Table, edit: &str) -> Result<(), InputError> {
    let fail = |why: String| InputError::new("--set", edit, why);
    let (path, value) = edit.split_once('=').ok_or_else(|| fail("expected TYPE.KEY=VALUE (e.g. pcore.count=6) or KEY=VALUE".into()))?;
    let value: toml::Value = format!("v = {}", value.trim())
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .ok_or_else(|| fail(format!("'{}' is not a TOML value (a number, true/false or a \"quoted string\")", value.trim())))?;
    let (target, key) = match path.trim().split_once('.') {
        None => (table, path.trim()),
        Some((kind, key)) => {
            let types = table
                .get_mut("core_type")
                .and_then(toml::Value::as_array_mut)
                .map(|a| a.iter_mut().filter_map(toml::Value::as_table_mut).collect::<Vec<_>>())
                .unwrap_or_default();
            let names: Vec<String> = types.iter().map(|t| t.get("name").and_then(toml::Value::as_str).unwrap_or("?").to_string()).collect();
            let found = types.into_iter().find(|t| t.get("name").and_then(toml::Value::as_str) == Some(kind));
            let table = found.ok_or_else(|| fail(format!("no core type '{kind}' in this machine (its core types: {})", names.join(", "))))?;
            (table, key)
        }
    };
    if key.is_empty() || key.contains('.') {
        return Err(fail(format!("'{}' is not TYPE.KEY or KEY", path.trim())));
    }
    if target.get(key).is_some_and(|v| v.is_table() || v.is_array()) {
        return Err(fail(format!("'{key}' is a table, not a value: --set changes one value")));
    }
    target.insert(key.to_string(), value);
    Ok(())
}

/// The file a workload argument names in messages: the path itself, or the catalog's file.
pub fn workload_file(arg: &str) -> String {
    if crate::task_options::is_tasks(arg) || crate::mix::is_mix(arg) {
        arg.trim().to_string()
    } else if looks_like_path(arg) {
        arg.to_string()
    } else {
        format!("catalog/workloads/{arg}.toml")
    }
}

pub fn workload(arg: &str) -> Result<Workload, InputError> {
    if crate::task_options::is_tasks(arg) {
        let (options, inner) = crate::task_options::split(arg)?;
        return crate::task_options::apply(arg, &options, workload(&inner)?);
    }
    let progs = programs()?;
    if crate::mix::is_mix(arg) {
        return crate::mix::workload(arg, &progs);
    }
    if looks_like_path(arg) {
        return Workload::from_toml(arg, &read(arg, "workload")?, &progs);
    }
    match WORKLOADS.iter().find(|(n, _)| *n == arg) {
        Some((_, text)) => Workload::from_toml(&workload_file(arg), text, &progs),
        None => Err(unknown("workload", arg, WORKLOADS)),
    }
}
