//! The agent's recording mode (`ampsched record`): at every sample, each target thread's
//! cumulative CPU time, run-queue wait, CPU time per core type, counters and state as the monitor
//! has just read them; the threads' first sightings and exits; and the preload library's event
//! log, drained. `record` runs the agent so (its guarantees unchanged: the recorder only reads
//! what the monitor read) and returns the raw `Recording` with the agent's report.
//!
//! Times become ns from the recording's start, the agent's (the instant before it launches the
//! command, the report's time 0). A `Join` names its target by pthread_t in the log; the tid is
//! the one of the thread the library saw created with that pthread_t most recently before the
//! join returned (glibc reuses a pthread_t only after its thread was joined or detached and has
//! ended, so that is the one joined). 0 when the library did not see it created.

use std::collections::HashMap;

use ampsched_model::ThreadState;
use serde_json::Value;

use super::events::{self, EventLog, RawEvent};
use super::recording::{RecordedThread, Recording, Sample, SyncEvent, RECORDING_VERSION};
use crate::agent::{AgentConfig, AgentError};
use crate::monitor::Monitor;
use crate::report::Report;

/// The note of a recording without the event log because the agent attached (`--pid`).
pub const NO_EVENTS_PID: &str = "no synchronisation events: the agent attached to running processes (--pid), into which it \
                                 cannot inject its preload library; threads' parents, lock waits, condition variables and \
                                 joins are unknown, only their CPU time and blocking (sampled) are recorded";
/// The note of a launched command recorded with the preload library disabled (`locks: false`).
pub const NO_EVENTS_DISABLED: &str = "no synchronisation events: the preload library was disabled; threads' parents, lock \
                                      waits, condition variables and joins are unknown, only their CPU time and blocking \
                                      (sampled) are recorded";
/// The note of a launched command that never loaded the library.
pub const NO_EVENTS_STATIC: &str = "no synchronisation events: the command never loaded the preload library (a statically \
                                    linked or setuid program, or one that clears LD_PRELOAD); only the threads' CPU time \
                                    and blocking (sampled) are recorded";
/// What the library cannot see, for every recording with events.
pub const UNSEEN: &str = "the preload library sees the pthread calls of dynamically linked programs: synchronisation by \
                          futexes used directly (Rust's std, Go), by spinning in a program's own code, or in statically \
                          linked children of the command, is seen only as the threads' sampled CPU time and blocking";

/// What the recorder gathers while the agent runs.
pub struct Recorder {
    /// The agent's time 0 (CLOCK_MONOTONIC, ns): events are made relative to it.
    start_ns: u64,
    log: Option<EventLog>,
    raw: Vec<RawEvent>,
    /// Per monitor thread id.
    threads: Vec<RecordedThread>,
    /// Per monitor thread id: seen exited (no more samples).
    ended: Vec<bool>,
    wall_ns: u64,
    /// Hardware counters were read at the last sample (a PMU, and counting not stopped).
    counted: bool,
}

impl Recorder {
    pub fn new(log: Option<EventLog>) -> Recorder {
        Recorder { start_ns: 0, log, raw: Vec::new(), threads: Vec::new(), ended: Vec::new(), wall_ns: 0, counted: false }
    }

    /// The event log's file, for the command's environment (AMPSCHED_EVENTS_SHM).
    pub fn log_path(&self) -> Option<&std::path::Path> {
        self.log.as_ref().map(|l| l.path())
    }

    /// The agent's time 0, CLOCK_MONOTONIC.
    pub fn started(&mut self, start_ns: u64) {
        self.start_ns = start_ns;
    }

    /// The sample at `now_ns` (from the start) the monitor has just read.
    pub fn sample(&mut self, now_ns: u64, m: &Monitor) {
        let counted = m.counting.as_ref().is_some_and(|c| c.stopped().is_none());
        self.counted = counted;
        let types = m.machine.core_types.len();
        for (id, (t, e)) in m.book.threads.iter().zip(&m.extra).enumerate() {
            if id >= self.threads.len() {
                self.threads.push(RecordedThread {
                    tid: e.tid,
                    pid: e.pid,
                    comm: e.comm.clone(),
                    parent: None,
                    first_seen_ns: now_ns,
                    exit_ns: None,
                    samples: Vec::new(),
                });
                self.ended.push(false);
            }
            if self.ended[id] {
                continue;
            }
            self.wall_ns = now_ns;
            let r = &mut self.threads[id];
            r.comm.clone_from(&e.comm);
            if t.state == ThreadState::Exited {
                // Last seen alive at its last sample (or, found a zombie at once, when first seen).
                self.ended[id] = true;
                r.exit_ns = Some(r.samples.last().map_or(r.first_seen_ns, |s| s.t_ns));
                continue;
            }
            let per_type = &t.per_type[..types];
            let sum = |f: fn(&ampsched_model::Counters) -> f64| counted.then(|| per_type.iter().map(f).sum::<f64>().round() as u64);
            r.samples.push(Sample {
                t_ns: now_ns,
                cpu_ns: e.run_ns(),
                runq_ns: e.wait_ns,
                cpu_ns_per_type: per_type.iter().map(|c| c.time_ns).collect(),
                instructions: sum(|c| c.instructions),
                cycles: sum(|c| c.cycles),
                llc_misses: sum(|c| c.llc_misses),
                state: if e.state == '\0' { '?' } else { e.state },
            });
        }
        if let Some(l) = self.log.as_mut() {
            l.drain(&mut self.raw);
        }
    }

    /// The agent's last sample is taken: its wall time; the log is drained a last time (the
    /// command has ended: everything it logged is there).
    pub fn end(&mut self, wall_ns: u64) {
        self.wall_ns = wall_ns;
        if let Some(l) = self.log.as_mut() {
            l.drain(&mut self.raw);
        }
    }

    /// The raw recording of the run the agent reported as `report` (None when the agent failed
    /// under the command: `failure` says why).
    pub fn finish(mut self, cfg: &AgentConfig, opts: &RecordOptions, report: Option<&Report>, failure: Option<&AgentError>, lock_dropped: u32) -> Recording {
        if let Some(l) = self.log.as_mut() {
            l.drain(&mut self.raw); // after a failure, what the stopped command logged since the last sample
        }
        let mut notes = Vec::new();
        let events_logged = match &self.log {
            None => {
                notes.push(if cfg.command.is_empty() { NO_EVENTS_PID } else { NO_EVENTS_DISABLED }.to_string());
                false
            }
            Some(l) if l.processes() == 0 => {
                notes.push(NO_EVENTS_STATIC.to_string());
                false
            }
            Some(_) => {
                notes.push(UNSEEN.to_string());
                true
            }
        };
        let events_lost = self.log.as_ref().map_or(0, |l| l.lost());
        let events = self.events();
        let mut incomplete = Vec::new();
        if let Some(e) = failure {
            incomplete.push(format!("the agent failed under the command, which it then stopped: {e}"));
        }
        if let Some(r) = report {
            if r.stopped_by != crate::agent::TARGET_EXITED {
                incomplete.push(format!("the agent was stopped by {} before the command ended", r.stopped_by));
            }
            if r.target.left_running {
                let names: Vec<String> = r.target.processes_left_running.iter().map(|p| format!("{} ({})", p.pid, p.command)).collect();
                incomplete.push(format!(
                    "processes still running when the recording ended: {}",
                    if names.is_empty() { "the command".into() } else { names.join(", ") }
                ));
            }
        }
        if lock_dropped > 0 {
            incomplete.push(format!("{lock_dropped} threads past the lock table's capacity ({}): their lock waits are not recorded", crate::locks::ENTRIES));
        }
        let exit_status = report.and_then(|r| r.target.status.as_ref()).map_or(-1, |s| match (&s.exit_code, &s.signal) {
            (Some(code), _) => *code,
            (None, Some(sig)) => crate::agent::signal_number(sig).map_or(-1, |n| 128 + n),
            _ => -1,
        });
        Recording {
            version: RECORDING_VERSION,
            command: opts.keep_command.then(|| cfg.command.clone()).filter(|c| !c.is_empty()),
            machine_toml: opts.machine_toml.clone(),
            policy: cfg.policy.clone(),
            interval_ns: ampsched_model::defaults::ms_to_ns(cfg.interval_ms),
            wall_ns: self.wall_ns,
            exit_status,
            counters: self.counted,
            events_logged,
            notes,
            events_lost,
            incomplete: (!incomplete.is_empty()).then(|| incomplete.join("; ")),
            work_per_cpu_s: opts.work_per_cpu_s.clone(),
            threads: std::mem::take(&mut self.threads),
            events,
        }
    }

    /// The log's events in the recording's terms, in time order; threads the agent never saw
    /// (created and ended between two samples) added, and parents set, from the Create events.
    fn events(&mut self) -> Vec<SyncEvent> {
        let start_ns = self.start_ns;
        let rel = move |t: u64| t.saturating_sub(start_ns);
        let mut raw = std::mem::take(&mut self.raw);
        raw.sort_by_key(|e| (e.start_ns, e.kind, e.tid));
        // pthread_t -> (child's start, tid), every creation, for joins.
        let mut created: HashMap<u64, Vec<(u64, u32)>> = HashMap::new();
        let mut exits: HashMap<u32, u64> = HashMap::new();
        for e in &raw {
            match e.kind {
                events::CREATE => created.entry(e.object).or_default().push((e.end_ns, e.tid)),
                events::EXIT => {
                    exits.insert(e.tid, rel(e.start_ns));
                }
                _ => {}
            }
        }
        let mut out = Vec::with_capacity(raw.len());
        for e in &raw {
            let (tid, start, end, cpu) = (e.tid, rel(e.start_ns), rel(e.end_ns), e.cpu_ns);
            out.push(match e.kind {
                events::CREATE => {
                    self.created(e.tid, e.other, start, rel(e.end_ns), exits.get(&e.tid).copied());
                    SyncEvent::Create { t_ns: start, parent: e.other, parent_cpu_ns: cpu, child: tid }
                }
                events::EXIT => SyncEvent::Exit { t_ns: start, tid, cpu_ns: cpu },
                events::MUTEX_WAIT => SyncEvent::MutexWait { lock: e.object, tid, holder: e.other, start_ns: start, end_ns: end, cpu_ns: cpu },
                events::MUTEX_RELEASE => SyncEvent::MutexRelease { lock: e.object, tid, t_ns: start, cpu_ns: cpu },
                events::COND_WAIT => SyncEvent::CondWait { cond: e.object, tid, start_ns: start, end_ns: end, cpu_ns: cpu, timed_out: e.flags & 1 != 0 },
                events::COND_SIGNAL => SyncEvent::CondSignal { cond: e.object, tid, t_ns: start, cpu_ns: cpu, broadcast: e.flags & 1 != 0 },
                events::JOIN => {
                    let target = created.get(&e.object).and_then(|v| v.iter().filter(|(s, _)| *s <= e.end_ns).max_by_key(|(s, _)| *s)).map_or(0, |&(_, t)| t);
                    SyncEvent::Join { tid, target, start_ns: start, end_ns: end, cpu_ns: cpu }
                }
                events::BARRIER_WAIT => SyncEvent::BarrierWait { barrier: e.object, tid, start_ns: start, end_ns: end, cpu_ns: cpu, serial: e.flags & 1 != 0 },
                _ => continue, // a kind this agent does not know: the library is its own build, never
            });
        }
        out
    }

    /// Thread `child` was created by `parent` at `t_ns` and started at `started_ns`: its record
    /// gets its parent; one the agent never saw is added (with its creator's pid and name, which
    /// clone(2) gives it, and no samples).
    fn created(&mut self, child: u32, parent: u32, t_ns: u64, started_ns: u64, exit_ns: Option<u64>) {
        // A tid may be reused: the record is the first seen at or after the creation; else the one
        // seen alive across it (first seen before, last seen alive at or after it). A sample's
        // time is taken before its round reads the threads, so a thread created while the round
        // reads is first seen "before" its creation; and a tid names one thread at a time, so a
        // thread read alive after the creation with the child's tid is the child.
        let after = self.threads.iter().enumerate().filter(|(_, r)| r.tid == child && r.first_seen_ns >= t_ns).min_by_key(|(_, r)| r.first_seen_ns);
        let across = || self.threads.iter().position(|r| r.tid == child && r.parent.is_none() && r.first_seen_ns < t_ns && r.exit_ns.is_none_or(|x| x >= t_ns));
        if let Some(i) = after.map(|(i, _)| i).or_else(across) {
            let r = &mut self.threads[i];
            r.parent = Some(parent);
            return;
        }
        let creator = self.threads.iter().filter(|r| r.tid == parent && r.first_seen_ns <= t_ns).max_by_key(|r| r.first_seen_ns);
        let (pid, comm) = creator.map_or((0, String::new()), |c| (c.pid, c.comm.clone()));
        self.threads.push(RecordedThread { tid: child, pid, comm, parent: Some(parent), first_seen_ns: started_ns, exit_ns, samples: Vec::new() });
    }
}

/// What a recording needs beyond the agent's options.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// Keep the command line in the recording (`--keep-command`).
    pub keep_command: bool,
    /// The machine as a machine TOML (`machine_toml`), and each core type's work per CPU-second
    /// (`work_per_cpu_s`): `machine_of` makes both.
    pub machine_toml: String,
    pub work_per_cpu_s: Vec<f64>,
}

/// The machine a recording with these options runs on, as a machine TOML (`machine_text`, the
/// file `--machine` named, or what `topology --save` writes for the same `--cores`/`--emulate`,
/// named `name`), and each core type's work per CPU-second there (`Recording::work_per_cpu_s`).
pub fn machine_of(cfg: &AgentConfig, machine_text: Option<&str>, name: &str) -> Result<RecordOptions, AgentError> {
    let toml = match machine_text {
        Some(t) => t.to_string(),
        None => crate::agent::resolve_topology(&cfg.sysfs_root, cfg.cores.as_deref(), cfg.emulate.as_deref())?.to_machine_toml(name),
    };
    let machine = ampsched_model::Machine::from_toml(name, &toml)?;
    // An emulated slow CPU runs at full speed when it runs (the emulator steals time from it):
    // its CPU-seconds are full-speed work. A real type's are its peak rate's share of the fastest's.
    let top = machine.core_types.iter().map(|t| t.true_capacity).max().unwrap_or(1).max(1) as f64;
    let work_per_cpu_s = machine.core_types.iter().map(|t| if cfg.emulate.is_some() { 1.0 } else { t.true_capacity as f64 / top }).collect();
    Ok(RecordOptions { keep_command: false, machine_toml: toml, work_per_cpu_s })
}

/// A recording run's outcome.
pub struct Recorded {
    pub recording: Recording,
    /// The agent's report (the `--json` one), None when the agent failed under the command.
    pub report: Option<Value>,
    /// Why the agent failed under the command (the recording is then `incomplete`).
    pub failure: Option<AgentError>,
}

/// Run the agent as `run` does, recording (`opts` from `machine_of`, with `keep_command`). An
/// error is one that left nothing to record: bad options, no permission, a command that cannot
/// run, one that ended before the agent saw any of its threads, no threads seen. A run that went
/// wrong after that (a signal to the agent, its policy failed) returns its recording, `incomplete`.
pub fn record(cfg: &AgentConfig, opts: &RecordOptions) -> Result<Recorded, AgentError> {
    let (result, run) = crate::agent::run_recording(cfg);
    let Some(recorder) = run.recorder else {
        return Err(result.err().unwrap_or_else(|| AgentError::Internal("the agent recorded nothing".into())));
    };
    let (report, failure) = match result {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(e)),
    };
    let recording = recorder.finish(cfg, opts, report.as_ref(), failure.as_ref(), run.lock_dropped);
    if let Some(why) = nothing_recorded(cfg, &recording) {
        return Err(failure.unwrap_or(AgentError::Input(why)));
    }
    Ok(Recorded { recording, report: report.map(|r| serde_json::to_value(&r).expect("the report is plain data")), failure })
}

/// Why a recording holds nothing to replay, if it does not: no thread was sampled alive and the
/// library logged nothing (a command that failed at once, processes gone before the first sample).
fn nothing_recorded(cfg: &AgentConfig, r: &Recording) -> Option<ampsched_model::InputError> {
    if r.threads.iter().any(|t| !t.samples.is_empty()) || !r.events.is_empty() {
        return None;
    }
    Some(match cfg.command.first() {
        Some(program) => ampsched_model::InputError::new(
            "--",
            program,
            format!("the command ended (exit status {}) before the agent saw any of its threads run: nothing to record", r.exit_status),
        ),
        None => ampsched_model::InputError::new(
            "--pid",
            cfg.pids.iter().map(u32::to_string).collect::<Vec<_>>().join(","),
            "no threads seen: the processes ended before the agent's first sample, nothing to record",
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> Recording {
        Recording {
            version: RECORDING_VERSION,
            command: None,
            machine_toml: String::new(),
            policy: "oblivious".into(),
            interval_ns: 40_000_000,
            wall_ns: 1_000_000,
            exit_status: 1,
            counters: false,
            events_logged: true,
            notes: Vec::new(),
            events_lost: 0,
            incomplete: None,
            work_per_cpu_s: vec![1.0],
            threads: Vec::new(),
            events: Vec::new(),
        }
    }

    #[test]
    fn a_recording_without_a_thread_sampled_alive_or_an_event_is_one_line_naming_the_command_or_the_pids() {
        // Whether a command that ends at once is sampled alive depends on the race with the
        // agent's first sample: the rule is checked here on recordings made by hand.
        let mut r = empty();
        let launched = AgentConfig { command: vec!["/bin/false".into()], ..AgentConfig::default() };
        let e = nothing_recorded(&launched, &r).expect("nothing recorded").to_string();
        assert_eq!(e, "--: /bin/false: the command ended (exit status 1) before the agent saw any of its threads run: nothing to record");
        let attached = AgentConfig { pids: vec![12, 34], ..AgentConfig::default() };
        let e = nothing_recorded(&attached, &r).expect("nothing recorded").to_string();
        assert_eq!(e, "--pid: 12,34: no threads seen: the processes ended before the agent's first sample, nothing to record");
        // A thread seen only as a zombie has no samples: still nothing.
        r.threads.push(RecordedThread { tid: 5, pid: 5, comm: "false".into(), parent: None, first_seen_ns: 0, exit_ns: Some(0), samples: Vec::new() });
        assert!(nothing_recorded(&launched, &r).is_some());
        // One event is something (a thread the library saw start and end between samples).
        r.events.push(SyncEvent::Exit { t_ns: 10, tid: 5, cpu_ns: 100 });
        assert!(nothing_recorded(&launched, &r).is_none());
    }

    fn raw(kind: u32, tid: u32, start_ns: u64, end_ns: u64, object: u64, other: u32) -> RawEvent {
        RawEvent { kind, tid, start_ns, end_ns, cpu_ns: 7, object, other, flags: 0 }
    }

    #[test]
    fn joins_name_the_thread_last_created_with_their_pthread_t_and_threads_only_the_library_saw_are_added() {
        // Time 0 is 1 000 ns. Main thread 10 (seen by the agent) creates 11 with pthread_t 0xA,
        // joins it; then creates 12, which reuses 0xA (glibc's cached stack), and joins it. 12
        // lived between two samples: only the library saw it.
        let mut rec = Recorder::new(None);
        rec.started(1_000);
        rec.threads.push(RecordedThread { tid: 10, pid: 10, comm: "main".into(), parent: None, first_seen_ns: 0, exit_ns: None, samples: Vec::new() });
        rec.threads.push(RecordedThread { tid: 11, pid: 10, comm: "w".into(), parent: None, first_seen_ns: 500, exit_ns: Some(900), samples: Vec::new() });
        rec.raw = vec![
            raw(events::JOIN, 10, 1_400, 2_000, 0xA, 0),
            raw(events::CREATE, 11, 1_100, 1_300, 0xA, 10),
            raw(events::EXIT, 11, 1_900, 0, 0, 0),
            raw(events::CREATE, 12, 3_000, 3_100, 0xA, 10),
            raw(events::EXIT, 12, 3_500, 0, 0, 0),
            raw(events::JOIN, 10, 3_050, 3_600, 0xA, 0),
            raw(events::JOIN, 10, 4_000, 4_100, 0xB, 0),
        ];
        let events = rec.events();
        let joins: Vec<(u64, u32)> =
            events.iter().filter_map(|e| if let SyncEvent::Join { start_ns, target, .. } = e { Some((*start_ns, *target)) } else { None }).collect();
        // Made relative; in time order; 0xB was never seen created: target 0.
        assert_eq!(joins, [(400, 11), (2_050, 12), (3_000, 0)]);
        assert_eq!(events[0], SyncEvent::Create { t_ns: 100, parent: 10, parent_cpu_ns: 7, child: 11 });
        assert_eq!(rec.threads[1].parent, Some(10), "the seen thread gets its parent");
        // The unseen one: its creator's pid and name, its start and exit, no samples.
        assert_eq!(
            rec.threads[2],
            RecordedThread { tid: 12, pid: 10, comm: "main".into(), parent: Some(10), first_seen_ns: 2_100, exit_ns: Some(2_500), samples: Vec::new() }
        );
    }

    #[test]
    fn a_thread_created_while_a_sample_round_read_the_threads_is_the_one_the_agent_saw() {
        // The round stamped 500 read thread 11 after its creation at 520 (relative): the record
        // first seen at 500 and alive after it is the child, not a thread only the library saw.
        // Thread 12's tid was last seen alive at 300, before its creation at 600: another thread.
        let mut rec = Recorder::new(None);
        rec.started(1_000);
        let seen = |tid: u32, first_seen_ns: u64, exit_ns: Option<u64>| RecordedThread {
            tid,
            pid: 10,
            comm: "w".into(),
            parent: None,
            first_seen_ns,
            exit_ns,
            samples: Vec::new(),
        };
        rec.threads = vec![seen(10, 0, None), seen(11, 500, Some(900)), seen(12, 100, Some(300))];
        rec.raw = vec![raw(events::CREATE, 11, 1_520, 1_530, 0xA, 10), raw(events::CREATE, 12, 1_600, 1_610, 0xB, 10)];
        rec.events();
        assert_eq!(rec.threads.len(), 4, "{:?}", rec.threads);
        assert_eq!((rec.threads[1].parent, rec.threads[2].parent), (Some(10), None));
        assert_eq!((rec.threads[3].tid, rec.threads[3].parent, rec.threads[3].first_seen_ns), (12, Some(10), 610));
    }
}
