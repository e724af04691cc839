//! Chrome / Perfetto trace (the JSON "Trace Event Format", which ui.perfetto.dev opens): a
//! track per core, a slice per thread run, instant markers for policy decisions and migrations.
//! Serialized with serde from the event structs below, streamed (a trace may hold millions of
//! segments).

use serde::ser::{Serialize, Serializer};
use serde::Serialize as DeriveSerialize;

use ampsched_model::{InputError, Machine, Workload};

use crate::result::{RunResult, Segment, TraceMark};

/// The process (track group) of the cores, and of the policy's decisions.
const CORES_PID: u32 = 1;
const POLICY_PID: u32 = 2;

#[derive(DeriveSerialize)]
#[serde(rename_all = "camelCase")]
struct ChromeTrace<'a> {
    display_time_unit: &'static str,
    other_data: OtherData<'a>,
    trace_events: Events<'a>,
}

#[derive(DeriveSerialize)]
struct OtherData<'a> {
    machine: &'a str,
    workload: &'a str,
    policy: &'a str,
}

/// One trace event; the fields a kind of event lacks are left out.
#[derive(DeriveSerialize)]
struct TraceEvent<'a> {
    ph: &'static str,
    /// An instant event's scope: "p" (process) or "t" (thread).
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    tid: Option<u32>,
    /// Microseconds (with nanosecond precision, as the format expects).
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    name: String,
    args: Args<'a>,
}

#[derive(DeriveSerialize)]
#[serde(untagged)]
enum Args<'a> {
    Name { name: String },
    SortIndex { sort_index: u32 },
    Run { thread: u32, group: &'a str },
    Decision { changed: u32 },
    Migration { thread: u32, from: u32, to: u32 },
}

/// A thread as a trace names it: `label` and `id` make its slices' names ("label tID"), `id` and
/// `group` their arguments. The simulator's threads are their ids under their app's name and
/// group; the agent's, their Linux thread ids under their command names (`comm`).
#[derive(Debug, Clone, PartialEq)]
pub struct TraceThread {
    pub id: u32,
    pub label: String,
    pub group: String,
}

/// What a trace shows of a run, live or simulated: the machine's cores (a track each), the
/// threads, the slices of thread runs on cores (`Segment::thread` indexes `threads`) and the
/// policy's marks (a migration's `thread` too).
pub struct TraceRun<'a> {
    pub machine: &'a Machine,
    pub workload: &'a str,
    pub policy: &'a str,
    pub threads: &'a [TraceThread],
    pub segments: &'a [Segment],
    pub marks: &'a [TraceMark],
}

/// Every event of a run, produced as it is written.
struct Events<'a> {
    r: &'a TraceRun<'a>,
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

fn metadata<'a>(pid: u32, tid: Option<u32>, name: &str, args: Args<'a>) -> TraceEvent<'a> {
    TraceEvent { ph: "M", s: None, pid, tid, ts: None, dur: None, name: name.to_string(), args }
}

impl<'a> Events<'a> {
    fn tracks(&self) -> impl Iterator<Item = TraceEvent<'a>> + 'a {
        let m = self.r.machine;
        let cores = m.cores.iter().flat_map(move |c| {
            let t = &m.core_types[c.core_type];
            let tid = Some(c.id as u32);
            [
                metadata(CORES_PID, tid, "thread_name", Args::Name { name: format!("core {} ({}, capacity {})", c.id, t.name, t.capacity) }),
                metadata(CORES_PID, tid, "thread_sort_index", Args::SortIndex { sort_index: c.id as u32 }),
            ]
        });
        std::iter::once(metadata(CORES_PID, None, "process_name", Args::Name { name: format!("cores of {}", m.name) }))
            .chain(cores)
            .chain(std::iter::once(metadata(POLICY_PID, None, "process_name", Args::Name { name: "policy".to_string() })))
    }

    fn run(&self, s: &Segment) -> TraceEvent<'a> {
        let t = &self.r.threads[s.thread as usize];
        TraceEvent {
            ph: "X",
            s: None,
            pid: CORES_PID,
            tid: Some(s.core),
            ts: Some(us(s.start_ns)),
            dur: Some(us(s.end_ns - s.start_ns)),
            name: format!("{} t{}", t.label, t.id),
            args: Args::Run { thread: t.id, group: &t.group },
        }
    }

    fn mark(&self, mark: &TraceMark) -> TraceEvent<'a> {
        match *mark {
            TraceMark::Decision { time_ns, changed } => TraceEvent {
                ph: "i",
                s: Some("p"),
                pid: POLICY_PID,
                tid: Some(0),
                ts: Some(us(time_ns)),
                dur: None,
                name: "decision".to_string(),
                args: Args::Decision { changed },
            },
            TraceMark::Migration { time_ns, thread, from, to } => TraceEvent {
                ph: "i",
                s: Some("t"),
                pid: CORES_PID,
                tid: Some(to),
                ts: Some(us(time_ns)),
                dur: None,
                name: "migration".to_string(),
                args: Args::Migration { thread: self.r.threads[thread as usize].id, from, to },
            },
        }
    }
}

impl Serialize for Events<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let runs = self.r.segments.iter().map(|s| self.run(s));
        let marks = self.r.marks.iter().map(|m| self.mark(m));
        serializer.collect_seq(self.tracks().chain(runs).chain(marks))
    }
}

/// The trace of a simulated run: its threads by id, under their app's name and group.
pub fn chrome_trace(m: &Machine, w: &Workload, r: &RunResult, policy: &str) -> String {
    let threads: Vec<TraceThread> = r
        .threads
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let app = &w.apps[v.app as usize];
            TraceThread { id: i as u32, label: app.name.clone(), group: app.groups[v.group as usize].name.clone() }
        })
        .collect();
    chrome_trace_of(&TraceRun { machine: m, workload: &w.name, policy, threads: &threads, segments: &r.segments, marks: &r.marks })
}

/// The trace of any run, live or simulated, as text.
pub fn chrome_trace_of(run: &TraceRun) -> String {
    let other_data = OtherData { machine: &run.machine.name, workload: run.workload, policy: run.policy };
    let trace = ChromeTrace { display_time_unit: "ms", other_data, trace_events: Events { r: run } };
    let mut text = serde_json::to_string(&trace).expect("a trace is plain data");
    text.push('\n');
    text
}

/// Write a trace file; a failure names the option (`--trace`) and the path. As every file
/// ampsched writes: through a temporary file in the same directory renamed over the target, so
/// the target is replaced, never written through (a symlink's target is not overwritten), and a
/// symlink, FIFO or other non-regular file there is refused rather than replaced.
pub fn write_trace(path: &str, text: &str) -> Result<(), InputError> {
    use std::io::Write;

    let fail = |why: String| InputError::new("--trace", path, why);
    check_trace_path(path)?;
    let target = std::path::Path::new(path);
    let name = target.file_name().ok_or_else(|| fail("not a file name".into()))?;
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    // A name no other writer uses: the pid, and a counter for several traces of one process.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = folder.join(format!(".{}.{}.{n}.tmp", name.to_string_lossy(), std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .and_then(|_| std::fs::rename(&tmp, target));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(format!("cannot write the trace: {e}")));
    }
    Ok(())
}

/// What `write_trace` refuses before writing: an empty path, a symlink, anything but a regular
/// file. The agent checks it before it starts the command too (a live run cannot be made again).
pub fn check_trace_path(path: &str) -> Result<(), InputError> {
    if path.is_empty() {
        return Err(InputError::new("--trace", "", "the path is empty"));
    }
    let fail = |why: &str| Err(InputError::new("--trace", path, why));
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.file_type().is_symlink() {
            return fail("is a symbolic link: give the file it points to, or another name");
        }
        if !meta.file_type().is_file() {
            return fail("not a regular file: give a file name");
        }
    }
    Ok(())
}
