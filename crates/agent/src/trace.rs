//! `--trace FILE`: what ran where, sampled, in the simulator's trace format
//! (`ampsched_sim::trace`: a track per core, a slice per thread run, instant markers for the
//! policy's decisions and the threads' migrations), so that a live run and a simulated one open
//! side by side in ui.perfetto.dev.
//!
//! The agent does not see each run of a thread, only what /proc says at each sample: a thread's
//! CPU time so far and the CPU it was last on. So a slice here is a sampled interval's account:
//! a thread that ran for D ns of CPU time between two samples, and was last seen on core C, is a
//! slice of length D on C starting at the earlier sample (a thread that ran on two cores within
//! an interval is drawn on the one it ended on). Times are from the agent's first sample, as the
//! report's are. Threads are named by their command name (comm) and Linux thread id.

use ampsched_model::{InputError, Machine};
use ampsched_sim::result::{Segment, TraceMark};
use ampsched_sim::trace::{chrome_trace_of, write_trace, TraceRun, TraceThread};

use crate::monitor::Monitor;

/// At most this many slices are kept; later ones are counted, not kept. The simulator's cap for
/// its trace files (ampsched-runner's TRACE_SEGMENTS): a file of about a gigabyte, which
/// ui.perfetto.dev still opens. Live, at 100 samples a second, it is an hour of 1 400 busy threads.
pub const TRACE_SEGMENTS: usize = 5_000_000;

#[derive(Default)]
pub struct Tracer {
    /// The previous sample's time, ns from the agent's start.
    last_ns: u64,
    /// Per thread (by the monitor's id): its CPU time and core at the previous sample.
    seen: Vec<(u64, Option<usize>)>,
    segments: Vec<Segment>,
    marks: Vec<TraceMark>,
    /// Slices past `TRACE_SEGMENTS`, left out.
    pub dropped: u64,
}

impl Tracer {
    /// Record the interval that ends at this sample (`now_ns`), at which the policy's decisions
    /// changed `changed` things.
    pub fn sample(&mut self, now_ns: u64, m: &Monitor, changed: u64) {
        let start = self.last_ns;
        for (id, t) in m.book.threads.iter().enumerate() {
            if id >= self.seen.len() {
                self.seen.push((0, t.core));
            }
            let total = t.total_time_ns();
            let (before, core_before) = self.seen[id];
            self.seen[id] = (total, t.core);
            if let (Some(from), Some(to)) = (core_before, t.core) {
                if from != to {
                    self.marks.push(TraceMark::Migration { time_ns: now_ns, thread: id as u32, from: from as u32, to: to as u32 });
                }
            }
            let (Some(core), true) = (t.core, total > before) else { continue };
            if self.segments.len() >= TRACE_SEGMENTS {
                self.dropped += 1;
                continue;
            }
            // CPU time beyond the interval (a first sample's thread, which ran before the agent
            // saw it) is drawn within it: a slice never runs into the next interval.
            let end = (start + (total - before)).min(now_ns);
            self.segments.push(Segment { core: core as u32, thread: id as u32, start_ns: start, end_ns: end });
        }
        if changed > 0 {
            self.marks.push(TraceMark::Decision { time_ns: now_ns, changed: changed.min(u32::MAX as u64) as u32 });
        }
        self.last_ns = now_ns;
    }

    /// The trace as text: the machine the agent saw, the command as the "workload".
    pub fn text(&self, m: &Monitor, policy: &str, command: &str) -> String {
        let threads: Vec<TraceThread> = m.extra.iter().map(|e| TraceThread { id: e.tid, label: e.comm.clone(), group: format!("pid {}", e.pid) }).collect();
        let machine: &Machine = &m.machine;
        chrome_trace_of(&TraceRun { machine, workload: command, policy, threads: &threads, segments: &self.segments, marks: &self.marks })
    }

    pub fn write(&self, path: &str, m: &Monitor, policy: &str, command: &str) -> Result<(), InputError> {
        write_trace(path, &self.text(m, policy, command))
    }
}
