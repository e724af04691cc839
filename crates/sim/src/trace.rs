//! Chrome / Perfetto trace (the JSON "Trace Event Format", which ui.perfetto.dev opens): a
//! track per core, a slice per thread run, instant markers for policy decisions and migrations.
//! Serialized with serde from the event structs below, streamed (a trace may hold millions of
//! segments).

use serde::ser::{Serialize, Serializer};
use serde::Serialize as DeriveSerialize;

use ampsched_model::{Machine, Workload};

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

/// Every event of a run, produced as it is written.
struct Events<'a> {
    m: &'a Machine,
    w: &'a Workload,
    r: &'a RunResult,
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

fn metadata<'a>(pid: u32, tid: Option<u32>, name: &str, args: Args<'a>) -> TraceEvent<'a> {
    TraceEvent { ph: "M", s: None, pid, tid, ts: None, dur: None, name: name.to_string(), args }
}

impl<'a> Events<'a> {
    fn tracks(&self) -> impl Iterator<Item = TraceEvent<'a>> + 'a {
        let m = self.m;
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
        let v = &self.r.threads[s.thread as usize];
        let app = &self.w.apps[v.app as usize];
        TraceEvent {
            ph: "X",
            s: None,
            pid: CORES_PID,
            tid: Some(s.core),
            ts: Some(us(s.start_ns)),
            dur: Some(us(s.end_ns - s.start_ns)),
            name: format!("{} t{}", app.name, s.thread),
            args: Args::Run { thread: s.thread, group: &app.groups[v.group as usize].name },
        }
    }

    fn mark(mark: &TraceMark) -> TraceEvent<'a> {
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
                args: Args::Migration { thread, from, to },
            },
        }
    }
}

impl Serialize for Events<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let runs = self.r.segments.iter().map(|s| self.run(s));
        let marks = self.r.marks.iter().map(Events::mark);
        serializer.collect_seq(self.tracks().chain(runs).chain(marks))
    }
}

pub fn chrome_trace(m: &Machine, w: &Workload, r: &RunResult, policy: &str) -> String {
    let trace =
        ChromeTrace { display_time_unit: "ms", other_data: OtherData { machine: &m.name, workload: &w.name, policy }, trace_events: Events { m, w, r } };
    let mut text = serde_json::to_string(&trace).expect("a trace is plain data");
    text.push('\n');
    text
}
