//! Chrome / Perfetto trace (the JSON "Trace Event Format", which ui.perfetto.dev opens): a
//! track per core, a slice per thread run, instant markers for policy decisions and migrations.

use std::fmt::Write;

use ampsched_model::{Machine, Workload};

use crate::result::{RunResult, TraceMark};

pub fn chrome_trace(m: &Machine, w: &Workload, r: &RunResult, policy: &str) -> String {
    let mut out = String::with_capacity(64 * (r.segments.len() + r.marks.len()) + 1024);
    out.push_str("{\"displayTimeUnit\":\"ms\",\"otherData\":{");
    let _ = write!(out, "\"machine\":{},\"workload\":{},\"policy\":{}", json_str(&m.name), json_str(&w.name), json_str(policy));
    out.push_str("},\"traceEvents\":[\n");
    let _ = write!(out, "{{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{{\"name\":{}}}}}", json_str(&format!("cores of {}", m.name)));
    for c in &m.cores {
        let t = &m.core_types[c.core_type];
        let _ = write!(
            out,
            ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":{}}}}}",
            c.id,
            json_str(&format!("core {} ({}, capacity {})", c.id, t.name, t.capacity))
        );
        let _ = write!(out, ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{}}}}}", c.id, c.id);
    }
    let _ = write!(out, ",\n{{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{{\"name\":\"policy\"}}}}");
    for s in &r.segments {
        let v = &r.threads[s.thread as usize];
        let app = &w.apps[v.app as usize];
        let _ = write!(
            out,
            ",\n{{\"ph\":\"X\",\"pid\":1,\"tid\":{},\"ts\":{},\"dur\":{},\"name\":{},\"args\":{{\"thread\":{},\"group\":{}}}}}",
            s.core,
            us(s.start_ns),
            us(s.end_ns - s.start_ns),
            json_str(&format!("{} t{}", app.name, s.thread)),
            s.thread,
            json_str(&app.groups[v.group as usize].name)
        );
    }
    for mark in &r.marks {
        match *mark {
            TraceMark::Decision { time_ns, changed } => {
                let _ = write!(
                    out,
                    ",\n{{\"ph\":\"i\",\"s\":\"p\",\"pid\":2,\"tid\":0,\"ts\":{},\"name\":\"decision\",\"args\":{{\"changed\":{}}}}}",
                    us(time_ns),
                    changed
                );
            }
            TraceMark::Migration { time_ns, thread, from, to } => {
                let _ = write!(
                    out,
                    ",\n{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{},\"ts\":{},\"name\":\"migration\",\"args\":{{\"thread\":{},\"from\":{},\"to\":{}}}}}",
                    to,
                    us(time_ns),
                    thread,
                    from,
                    to
                );
            }
        }
    }
    out.push_str("\n]}\n");
    out
}

/// Microseconds with nanosecond precision, as the format expects.
fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

pub fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}
