//! The end of a run: the result, or why it can never finish.

use ampsched_model::limits::number_text;
use ampsched_model::workload::Phase;
use ampsched_model::ThreadState;

use crate::engine::{Engine, SimError};
use crate::local::LocalScheduler;
use crate::result::{AppResult, CoreResult, RunResult};

impl<'a, S: LocalScheduler> Engine<'a, S> {
    /// No thread can make progress (of app `only`, if given: `stuck_app`): say who waits for what.
    pub(crate) fn deadlock(&self, only: Option<usize>) -> SimError {
        let mut waits = Vec::new();
        let mut recorded = false;
        for (i, f) in self.flow.iter().enumerate() {
            if self.book.threads[i].state == ThreadState::Exited || !f.waiting || only.is_some_and(|a| a != f.app as usize) {
                continue;
            }
            let app = &self.w.apps[f.app as usize];
            let run = &self.apps[f.app as usize];
            let sync = app.sync.as_deref().zip(run.sync.as_deref());
            recorded |= sync.is_some();
            let what = match (self.phase_of(i as u32), f.step) {
                (Some(Phase::Join { group, .. }), _) => {
                    let (name, s) = (&app.groups[*group].name, sync.expect("a join's app has its sync state").1);
                    if s.started[*group] {
                        format!("group '{name}' to exit (joins it; {} of its {} threads have)", s.exited[*group], s.exits_to_join[*group])
                    } else {
                        format!("group '{name}' to exit (joins it), which was never spawned")
                    }
                }
                (Some(Phase::SemWait { semaphore, .. }), _) => {
                    let (a, _) = sync.expect("a semaphore's app has its sync state");
                    format!("semaphore '{}' (at 0, no thread left to post it)", a.semaphores[*semaphore].name)
                }
                (Some(Phase::NamedBarrier { barrier, parties, .. }), _) => {
                    let (a, s) = sync.expect("a named barrier's app has its sync state");
                    format!("barrier '{}' ({} of {parties} parties arrived)", a.barriers[*barrier].name, s.barriers[*barrier].arrived())
                }
                (Some(Phase::Critical { lock, .. }), _) => format!("lock '{}'", app.locks[*lock]),
                (Some(Phase::Serial { .. }), _) => "a serial section".to_string(),
                (Some(Phase::Barrier { .. }), _) => "a barrier".to_string(),
                (Some(Phase::Stage(stage)), _) => {
                    let run = &self.apps[f.app as usize];
                    match (stage.input, stage.output) {
                        (_, Some(q)) if run.queues[q].waits_for_room(i as u32) => {
                            format!("room in queue '{}' (full: {} items)", app.queues[q].name, run.queues[q].capacity())
                        }
                        (Some(q), _) => format!("an item from queue '{}' (empty)", app.queues[q].name),
                        _ => "something".to_string(),
                    }
                }
                _ => "something".to_string(),
            };
            let group = &app.groups[f.group as usize];
            waits.push(format!(
                "app '{}' group '{}' thread {} waits for {} (phase {})",
                app.name,
                group.name,
                self.book.threads[i].index_in_group,
                what,
                f.pc % group.phases.len() as u32
            ));
        }
        let shown = waits.len().min(4);
        let more = if waits.len() > shown { format!("; and {} more", waits.len() - shown) } else { String::new() };
        let hint = if recorded {
            "a semaphore posted fewer times than it is waited for, a join of a thread that never exits, a barrier that never fills?"
        } else {
            "a barrier or serial section that some thread never reaches, or queues each of whose threads waits on another?"
        };
        let whose = match only {
            Some(a) => format!("no thread of app '{}' can make progress", self.w.apps[a].name),
            None => "no thread can make progress".to_string(),
        };
        SimError::Deadlock(format!("at t={:.6} s {whose}: {}{} ({hint})", self.now as f64 / 1e9, waits[..shown].join("; "), more))
    }

    /// The next event (at `next`) lies past the simulated-time budget, or the run has used
    /// what was left of the event budget: say which, in which run, and how far it got.
    pub(crate) fn over_budget(&self, next: u64) -> SimError {
        let budget = if next > self.cfg.max_sim_ns {
            format!("{} s of simulated time (--max-sim-s) went by", number_text(self.cfg.max_sim_ns as f64 / 1e9))
        } else if self.cfg.events_before > 0 {
            format!(
                "{} events (--max-events, one budget for every simulation of the command) went by, {} of them in its earlier simulations",
                number_text(self.cfg.max_events as f64),
                number_text(self.cfg.events_before as f64)
            )
        } else {
            format!("{} events (--max-events) went by", number_text(self.cfg.max_events as f64))
        };
        self.stopped(&budget, "raise the budget if the run is meant to be this long")
    }

    /// The next run of app `a` would create `next_run` threads, past the most a run may create
    /// (`SimConfig::max_threads_spawned`): it is not started, and no table has grown past the
    /// bound. Constant-load restarts: a short app beside a long one restarts without end.
    pub(crate) fn too_many_threads(&self, a: usize, next_run: u64) -> SimError {
        let budget = format!(
            "{} threads were created, runs and restarts counted, and the next run of '{}' would create {} more, past the most a run may create ({})",
            self.num_threads(),
            self.w.apps[a].name,
            next_run,
            self.cfg.max_threads_spawned
        );
        self.stopped(&budget, "this bound is fixed: an app that restarts this often under constant load must be made longer")
    }

    /// `run_name` passed its budget (`budget` says which and how), how far it got, and `advice`.
    fn stopped(&self, budget: &str, advice: &str) -> SimError {
        let unfinished: Vec<&str> = self.w.apps.iter().zip(&self.apps).filter(|(_, rt)| !rt.done).map(|(a, _)| a.name.as_str()).collect();
        let shown = unfinished.len().min(4);
        let more = if unfinished.len() > shown { format!(" and {} more", unfinished.len() - shown) } else { String::new() };
        SimError::OverBudget(format!(
            "{} passed its budget: {budget}, stopped at t={:.6} s with {} of {} apps unfinished ('{}'{more}); {advice}",
            self.cfg.run_name,
            self.now as f64 / 1e9,
            unfinished.len(),
            self.w.apps.len(),
            unfinished[..shown].join("', '"),
        ))
    }

    pub(crate) fn finish(mut self) -> RunResult {
        for c in 0..self.cores.len() {
            self.account(c);
            self.stop_running(c);
            self.dvfs.split_busy(c, self.cores[c].busy_ns);
        }
        // Results report what the threads did, not what the policy read.
        for t in 0..self.book.threads.len() {
            self.flush_events(t as u32);
            self.book.threads[t].per_type = self.counters.truth(t);
        }
        let apps = self
            .w
            .apps
            .iter()
            .zip(&self.apps)
            .map(|(a, run)| AppResult {
                name: a.name.clone(),
                threads: a.threads(),
                runs: a.runs,
                turnarounds_ns: run.measured.clone(),
                thread_ids: run.all_threads.clone(),
                queue_peak: run.queue_peaks(),
            })
            .collect();
        let cores = self
            .m
            .cores
            .iter()
            .zip(&self.cores)
            .map(|(c, rt)| CoreResult {
                id: c.id as u32,
                core_type: c.core_type as u32,
                busy_ns: rt.busy_ns,
                busy_ns_by_level: self.dvfs.busy_by_level(c.id).to_vec(),
            })
            .collect();
        let trace = self.trace.take().unwrap_or_default();
        let mut task_runtime = crate::runtime::TaskRuntimeStats::default();
        for run in self.apps.iter().filter_map(|r| r.runtime.as_deref()) {
            task_runtime.add(&run.stats);
        }
        let noc = self.noc_result();
        RunResult {
            noc,
            makespan_ns: self.now,
            events: self.stats.events,
            policy_calls: self.stats.policy_calls,
            decisions: self.stats.decisions,
            migrations: self.stats.migrations,
            idle_while_waiting_ns: self.stats.idle_while_waiting_ns,
            apps,
            threads: self.book.threads,
            cores,
            // The result's fast time is a metric: the truly fast types, not the reported ones.
            fast_types: self.m.true_fast_type_mask(),
            segments: trace.segments,
            segments_dropped: trace.segments_dropped,
            marks: trace.marks,
            sf_error: self.sf_error,
            power_trace: self.power_trace,
            task_runtime,
        }
    }
}
