//! Per-thread hardware counters: the arithmetic on group readings, and the seam
//! (`CounterSource`) between the real perf_event groups (`perf.rs`) and a test's scripted ones.
//!
//! Each target thread has one group of three events (instructions, cycles, LLC misses), opened
//! when the monitor first sees the thread and closed when it exits. A group is read only at a
//! sample where the thread ran. What it added since the previous read is scaled for
//! multiplexing, then charged by the monitor to the core type its CPU time goes to.

/// The events of a group, in group order (the leader first).
pub const EVENTS: [&str; 3] = ["instructions", "cycles", "llc_misses"];

/// One read(2) of a group: counts since the group was opened, and how long the group was
/// enabled (the thread was on a CPU) and running (the group was on the PMU). The two times
/// differ when the kernel multiplexes more events than the PMU has counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GroupReading {
    pub time_enabled_ns: u64,
    pub time_running_ns: u64,
    /// Raw counts, in `EVENTS` order.
    pub counts: [u64; 3],
}

/// Parse what read(2) gives for a group leader opened with
/// `PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING`
/// (perf_event_open(2), "Reading results"): `{ nr, time_enabled, time_running, value[nr] }`.
/// `None` unless it holds exactly the group's three values.
pub fn parse_group(words: &[u64]) -> Option<GroupReading> {
    let (&nr, rest) = words.split_first()?;
    if nr != EVENTS.len() as u64 || rest.len() != 2 + EVENTS.len() {
        return None;
    }
    Some(GroupReading { time_enabled_ns: rest[0], time_running_ns: rest[1], counts: [rest[2], rest[3], rest[4]] })
}

/// What a thread did between two readings of its group.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CounterDelta {
    pub instructions: f64,
    pub cycles: f64,
    pub llc_misses: f64,
}

/// The counts added from `before` to `after`, scaled by enabled/running time *of this
/// interval*: scaling the two cumulative readings instead would spread one interval's
/// multiplexing over the whole history, and could even make the difference negative.
/// `None` when the group was enabled but never on the PMU in the interval: its counts are then
/// unknown, not zero.
pub fn scaled_delta(before: &GroupReading, after: &GroupReading) -> Option<CounterDelta> {
    let enabled = after.time_enabled_ns.saturating_sub(before.time_enabled_ns);
    let running = after.time_running_ns.saturating_sub(before.time_running_ns);
    if running == 0 {
        return (enabled == 0).then(CounterDelta::default);
    }
    let scale = enabled as f64 / running as f64;
    let added = |i: usize| after.counts[i].saturating_sub(before.counts[i]) as f64 * scale;
    Some(CounterDelta { instructions: added(0), cycles: added(1), llc_misses: added(2) })
}

/// Why a thread's group could not be opened.
#[derive(Debug, Clone, PartialEq)]
pub enum OpenError {
    /// The thread exited before it could be counted: not a failure of the counters.
    Gone,
    /// Anything else (out of file descriptors, not permitted, ...), in words.
    Failed(String),
}

/// Where counter groups come from: perf_event_open on a real PMU (`perf::PerfCounters`), or a
/// test's scripted readings. Threads are named by the monitor's `ThreadId` (and, to open, their
/// Linux tid).
pub trait CounterSource: Send {
    /// Start counting thread `tid` as group `id`.
    fn open(&mut self, id: u32, tid: u32) -> Result<(), OpenError>;
    /// The group's cumulative reading; `None` if it cannot be read (the thread is gone).
    fn read(&mut self, id: u32) -> Option<GroupReading>;
    /// Stop counting `id` and release what its group holds.
    fn close(&mut self, id: u32);
    /// What is counted, in words, for the report.
    fn describe(&self) -> String;
}

/// The monitor's counters: a source, each counted thread's previous reading, and whether
/// counting has stopped (then why). Counting stops for every thread at the first thread that
/// cannot be counted, so that a policy never reads counters of some threads and zeros of others.
pub struct Counting {
    source: Box<dyn CounterSource>,
    last: Vec<Option<GroupReading>>,
    stopped: Option<String>,
    /// Intervals where a thread ran but its group was never on the PMU (nothing charged).
    pub unmeasured_intervals: u64,
    pub threads_counted: u64,
}

impl Counting {
    pub fn new(source: Box<dyn CounterSource>) -> Counting {
        Counting { source, last: Vec::new(), stopped: None, unmeasured_intervals: 0, threads_counted: 0 }
    }

    /// Why counting stopped, if it did.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    pub fn is_counting(&self) -> bool {
        self.stopped.is_none()
    }

    pub fn describe(&self) -> String {
        self.source.describe()
    }

    /// Start counting thread `id` (Linux `tid`, named `comm` in messages).
    pub fn open(&mut self, id: u32, tid: u32, comm: &str) {
        if self.stopped.is_some() {
            return;
        }
        match self.source.open(id, tid) {
            Ok(()) => {
                let i = id as usize;
                if self.last.len() <= i {
                    self.last.resize(i + 1, None);
                }
                // A group opened now counts from zero: that is the reading to diff against.
                self.last[i] = Some(GroupReading::default());
                self.threads_counted += 1;
            }
            Err(OpenError::Gone) => {}
            Err(OpenError::Failed(why)) => self.stop(format!("cannot open counters for thread {tid} ({comm}): {why}")),
        }
    }

    /// What thread `id` did since its previous read; `None` if it is not counted or the
    /// interval could not be measured.
    pub fn read(&mut self, id: u32) -> Option<CounterDelta> {
        let before = (*self.last.get(id as usize)?)?;
        let now = self.source.read(id)?;
        self.last[id as usize] = Some(now);
        let delta = scaled_delta(&before, &now);
        if delta.is_none() {
            self.unmeasured_intervals += 1;
        }
        delta
    }

    /// Thread `id` has exited.
    pub fn close(&mut self, id: u32) {
        if let Some(slot) = self.last.get_mut(id as usize) {
            if slot.take().is_some() {
                self.source.close(id);
            }
        }
    }

    /// Stop counting every thread, for `why`.
    pub fn stop(&mut self, why: String) {
        for (id, slot) in self.last.iter_mut().enumerate() {
            if slot.take().is_some() {
                self.source.close(id as u32);
            }
        }
        self.stopped = Some(why);
    }
}

impl Drop for Counting {
    fn drop(&mut self) {
        for (id, slot) in self.last.iter_mut().enumerate() {
            if slot.take().is_some() {
                self.source.close(id as u32);
            }
        }
    }
}
