//! A mix of catalog programs named in one line, built in memory: `mix:PROG+PROG+...`, optionally
//! with a window of each program, `mix:skip=1e9:instructions=1e8:PROG+...` (every program's
//! instructions from `skip` to `skip + instructions`, as a simulator's fast-forward then detailed
//! run: Kim & Huh, "Exploring the Design Space of Fair Scheduling Supports for Asymmetric
//! Multicore Systems", IEEE TC 2018, §4.1, "skips 1 billion instructions with fast-forwarding, and
//! runs 100 million instructions").
//!
//! Why: a design-space study runs hundreds of thousands of mixes of a few programs (376,740 for
//! Kim & Huh's §4); a workload file each would be written, read and parsed per run. A mix is a
//! workload argument like a catalog name, accepted wherever one is (`run`, `compare`, `sweep`),
//! and `catalog::workload` builds it from the parsed programs without any file.
//!
//! The mix runs under the constant-load methodology (an app that finishes restarts, unmeasured,
//! until every app has finished once): each app's measured run meets the whole mix throughout,
//! the steady co-run a share model describes. Repeated programs are apps `NAME`, `NAME#2`, ...

use ampsched_model::workload::{Phase, Programs, Signature};
use ampsched_model::{limits, App, Group, InputError, ThreadKind, Workload};

/// What a workload argument starts with to be a mix.
pub const PREFIX: &str = "mix:";
/// Between a mix's programs: not a comma, which separates the names of a command line's list
/// (`--workloads a,b`), so that a mix is one name there.
pub const SEPARATOR: char = '+';

/// A parsed mix argument.
#[derive(Debug, Clone, PartialEq)]
pub struct MixSpec {
    /// Instructions of each program skipped before its window (0: from its start).
    pub skip: f64,
    /// The window's length; None: the program to its end (then `skip` must be 0).
    pub instructions: Option<f64>,
    pub programs: Vec<String>,
}

/// Whether a workload argument is a mix.
pub fn is_mix(arg: &str) -> bool {
    arg.trim_start().starts_with(PREFIX)
}

/// The mix an argument names (`is_mix`); errors name the argument and the part that is wrong.
pub fn parse(arg: &str) -> Result<MixSpec, InputError> {
    let text = arg.trim();
    let fail = |key: &str, why: String| InputError::new(text, key, why);
    let body = text.strip_prefix(PREFIX).ok_or_else(|| fail("", format!("a mix starts with '{PREFIX}'")))?;
    let mut spec = MixSpec { skip: 0.0, instructions: None, programs: Vec::new() };
    let parts: Vec<&str> = body.split(':').map(str::trim).collect();
    let (list, options) = parts.split_last().expect("split gives at least one part");
    for option in options {
        let (key, value) = option.split_once('=').ok_or_else(|| fail(option, "expected skip=N or instructions=N before the program list".into()))?;
        let (key, value) = (key.trim(), value.trim());
        let number: f64 = value.parse().map_err(|_| fail(key, format!("'{value}' is not a number")))?;
        let bounds = match key {
            "skip" => limits::MIX_SKIP,
            "instructions" => limits::INSTRUCTIONS,
            _ => return Err(fail(key, "unknown option (a mix takes skip= and instructions=)".into())),
        };
        if !bounds.contains(number) {
            return Err(fail(key, format!("must be {}, got {}", bounds.describe(), limits::number_text(number))));
        }
        match key {
            "skip" => spec.skip = number,
            _ => spec.instructions = Some(number),
        }
    }
    if spec.skip > 0.0 && spec.instructions.is_none() {
        return Err(fail("skip", "a window needs its length too: give instructions=N".into()));
    }
    spec.programs = list.split(SEPARATOR).map(|p| p.trim().to_string()).collect();
    if spec.programs.iter().any(String::is_empty) || list.is_empty() {
        return Err(fail("programs", "expected catalog program names joined by '+', none empty (mix:NAME+NAME+...)".into()));
    }
    if spec.programs.len() > limits::MAX_MIX_PROGRAMS {
        return Err(fail("programs", format!("{} programs; a mix names at most {}", spec.programs.len(), limits::MAX_MIX_PROGRAMS)));
    }
    Ok(spec)
}

/// The workload of a mix argument, its programs taken from `programs`.
pub fn workload(arg: &str, programs: &Programs) -> Result<Workload, InputError> {
    let spec = parse(arg)?;
    let text = arg.trim();
    let mut apps: Vec<App> = Vec::with_capacity(spec.programs.len());
    for (i, name) in spec.programs.iter().enumerate() {
        let program = programs
            .get(name)
            .ok_or_else(|| InputError::new(text, "programs", format!("no program '{name}' in the catalog (see `ampsched list programs`)")))?;
        let copy = spec.programs[..i].iter().filter(|p| *p == name).count();
        let app_name = if copy == 0 { name.clone() } else { format!("{name}#{}", copy + 1) };
        let (groups, locks, queues) = if !program.groups.is_empty() {
            if spec.instructions.is_some() {
                return Err(InputError::new(
                    text,
                    "instructions",
                    format!("program '{name}' has threads of several roles: a window takes a program of one thread's phases"),
                ));
            }
            (program.groups.clone(), program.locks.clone(), program.queues.clone())
        } else {
            let (phases, repeat) = match spec.instructions {
                None => (program.phases.clone(), program.repeat),
                Some(length) => (window(text, program, spec.skip, length)?, 1),
            };
            let signature = Signature::of_phases(&phases);
            let group = Group {
                name: "main".into(),
                count: 1,
                count_per_core: false,
                shared_work: false,
                kind: ThreadKind::App,
                repeat,
                phases,
                workers: program.workers,
                signature,
                solo_ips: None,
                uclamp: ampsched_model::Uclamp::NONE,
            };
            (vec![group], program.locks.clone(), program.queues.clone())
        };
        apps.push(App {
            name: app_name,
            arrival_ns: 0,
            priority: 0,
            runs: 1,
            groups,
            locks,
            queues,
            program: Some(name.clone()),
            policy_managed: true,
            tasks: program.tasks.clone(),
            sync: None,
        });
    }
    Ok(Workload { name: text.to_string(), description: String::new(), source: String::new(), constant_load: true, baseline: None, apps })
}

/// The compute phases retiring a program's instructions from `skip` to `skip + length` (its phase
/// list taken `repeat` times), each phase cut to the part inside the window.
fn window(text: &str, program: &ampsched_model::workload::Program, skip: f64, length: f64) -> Result<Vec<Phase>, InputError> {
    let (mut at, end): (f64, f64) = (0.0, skip + length);
    let mut out = Vec::new();
    'outer: for _ in 0..program.repeat {
        for phase in &program.phases {
            let Phase::Compute { instructions, profile } = phase else {
                return Err(InputError::new(
                    text,
                    "instructions",
                    format!("program '{}' has phases other than compute: a window takes compute phases only", program.name),
                ));
            };
            let (from, to) = (at.max(skip), (at + instructions).min(end));
            if to > from {
                out.push(Phase::Compute { instructions: to - from, profile: profile.clone() });
            }
            at += instructions;
            if at >= end {
                break 'outer;
            }
        }
    }
    if at < end {
        let why = format!(
            "program '{}' retires {} instructions, fewer than skip + instructions = {}",
            program.name,
            limits::number_text(at),
            limits::number_text(end)
        );
        return Err(InputError::new(text, "instructions", why));
    }
    Ok(out)
}
