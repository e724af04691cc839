//! Watching a run. The engine tells an observer when a thread's stay on a core ends, when a
//! thread migrates (and when a migration is undone in the instant it was made), and when a
//! policy decision changed something; it never records anything itself. `TraceRecorder` keeps
//! them, up to a limit, for the Chrome trace and the report's timeline.

use crate::result::{Segment, TraceMark};

pub trait Observer {
    /// A thread's stay on a core ended (it may be empty: start = end).
    fn run_ended(&mut self, segment: Segment);
    fn migrated(&mut self, time_ns: u64, thread: u32, from: u32, to: u32);
    /// The latest migration of `thread`, made at `time_ns`, was undone in the same instant (the
    /// policy moved the thread again before it ran): it did not happen.
    fn migration_undone(&mut self, time_ns: u64, thread: u32);
    /// A policy call changed `changed` decisions.
    fn decided(&mut self, time_ns: u64, changed: u32);
}

/// Keeps up to `limit` segments and `limit` marks, and counts the segments it had to drop.
#[derive(Debug, Clone, Default)]
pub struct TraceRecorder {
    limit: usize,
    pub segments: Vec<Segment>,
    pub marks: Vec<TraceMark>,
    pub segments_dropped: u64,
}

impl TraceRecorder {
    pub fn new(limit: usize) -> TraceRecorder {
        TraceRecorder { limit, ..TraceRecorder::default() }
    }

    fn mark(&mut self, mark: TraceMark) {
        if self.marks.len() < self.limit {
            self.marks.push(mark);
        }
    }
}

impl Observer for TraceRecorder {
    fn run_ended(&mut self, segment: Segment) {
        if self.segments.len() >= self.limit {
            self.segments_dropped += 1;
        } else if segment.end_ns > segment.start_ns {
            self.segments.push(segment);
        }
    }

    fn migrated(&mut self, time_ns: u64, thread: u32, from: u32, to: u32) {
        self.mark(TraceMark::Migration { time_ns, thread, from, to });
    }

    fn migration_undone(&mut self, time_ns: u64, thread: u32) {
        if matches!(self.marks.last(), Some(TraceMark::Migration { time_ns: at, thread: who, .. }) if *at == time_ns && *who == thread) {
            self.marks.pop();
        }
    }

    fn decided(&mut self, time_ns: u64, changed: u32) {
        self.mark(TraceMark::Decision { time_ns, changed });
    }
}
