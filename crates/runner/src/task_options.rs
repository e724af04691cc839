//! The task runtime's options for one run, given in the workload argument instead of a file:
//! `tasks:scheduler=cats:main=big:WORKLOAD` runs WORKLOAD (a catalog name, a file, or a `mix:`)
//! with every task app's runtime options overridden (docs/task-runtime.md). Why a name and not
//! a flag: a workload argument goes everywhere a workload does (`run`, `compare`, `sweep`'s
//! lists, the Python API, reproductions), so a sweep over schedulers or main-thread placements
//! is a sweep over workload names, with no new option in each command.
//!
//! Keys: `scheduler` (fifo | cats | steal), `main` (default | big | little),
//! `immediate_successor` (true | false), `create_instructions`, `queue_op_instructions`. The
//! options come first, each `KEY=VALUE`; the first part without `=` starts the workload.

use ampsched_model::workload::{parse_main_placement, parse_task_scheduler};
use ampsched_model::{limits, InputError, Workload};

/// What a workload argument starts with to set task-runtime options.
pub const PREFIX: &str = "tasks:";

pub fn is_tasks(arg: &str) -> bool {
    arg.trim_start().starts_with(PREFIX)
}

/// The options of a `tasks:` argument as (key, value) pairs, and the workload argument they
/// apply to. Errors name the argument and the part that is wrong.
pub fn split(arg: &str) -> Result<(Vec<(String, String)>, String), InputError> {
    let text = arg.trim();
    let fail = |key: &str, why: String| InputError::new(text, key, why);
    let body = text.strip_prefix(PREFIX).ok_or_else(|| fail("", format!("task options start with '{PREFIX}'")))?;
    let parts: Vec<&str> = body.split(':').collect();
    let first =
        parts.iter().position(|p| !p.contains('=')).ok_or_else(|| fail("workload", "no workload after the options (tasks:KEY=VALUE:...:WORKLOAD)".into()))?;
    let options = parts[..first].iter().map(|p| p.split_once('=').map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).expect("has '='")).collect();
    let inner = parts[first..].join(":");
    if inner.trim().is_empty() {
        return Err(fail("workload", "no workload after the options (tasks:KEY=VALUE:...:WORKLOAD)".into()));
    }
    Ok((options, inner))
}

/// Apply a `tasks:` argument's options to `w` (the workload its inner argument names).
pub fn apply(arg: &str, options: &[(String, String)], mut w: Workload) -> Result<Workload, InputError> {
    let text = arg.trim();
    let fail = |key: &str, why: String| InputError::new(text, key, why);
    if options.is_empty() {
        return Err(fail("options", "no options: give KEY=VALUE parts (scheduler, main, immediate_successor, ...) before the workload".into()));
    }
    if !w.apps.iter().any(|a| a.tasks.is_some()) {
        return Err(fail("workload", format!("workload '{}' has no task program (its apps run phases, not tasks)", w.name)));
    }
    for app in w.apps.iter_mut() {
        let Some(tp) = app.tasks.as_mut() else { continue };
        let o = &mut tp.options;
        for (key, value) in options {
            let number = |bounds: &limits::Bounds| -> Result<f64, InputError> {
                let x: f64 = value.parse().map_err(|_| fail(key, format!("'{value}' is not a number")))?;
                if !bounds.contains(x) {
                    return Err(fail(key, format!("must be {}, got {}", bounds.describe(), limits::number_text(x))));
                }
                Ok(x)
            };
            match key.as_str() {
                "scheduler" => o.scheduler = parse_task_scheduler(value).map_err(|why| fail(key, why))?,
                "main" => o.main = parse_main_placement(value).map_err(|why| fail(key, why))?,
                "immediate_successor" => {
                    o.immediate_successor = match value.as_str() {
                        "true" => true,
                        "false" => false,
                        _ => return Err(fail(key, format!("expected true or false, got '{value}'"))),
                    }
                }
                "create_instructions" => o.create_instructions = number(&limits::RUNTIME_OP_INSTRUCTIONS)?,
                "queue_op_instructions" => o.queue_op_instructions = number(&limits::RUNTIME_OP_INSTRUCTIONS)?,
                _ => {
                    return Err(fail(key, "unknown option (known: scheduler, main, immediate_successor, create_instructions, queue_op_instructions)".into()));
                }
            }
        }
        // A scheduler set here replaces the file's; the file's immediate successor is fifo's.
        if o.scheduler != ampsched_model::task_program::TaskScheduler::Fifo && o.immediate_successor {
            if options.iter().any(|(k, _)| k == "immediate_successor") {
                return Err(fail("immediate_successor", format!("is an option of scheduler=fifo, not {}", o.scheduler.name())));
            }
            o.immediate_successor = false;
        }
    }
    w.name = text.to_string();
    Ok(w)
}
