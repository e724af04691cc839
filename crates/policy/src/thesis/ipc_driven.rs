//! `ipc-driven`: IPC-Driven, Becchi and Crowley's scheduler (CF'06) as the Sáez thesis
//! implements it (§4.2.3, Algorithm 4.3; evaluated in §4.3.4).
//!
//! A thread's "IPC ratio" is its speed on a fast core over its speed on a slow one, measured by
//! running it on both. Speed is instructions per second of CPU time (IPC × clock): the thesis
//! bounds the ratio by 2.0 on a machine whose clocks differ by 2.0, which raw IPC (higher on the
//! slower clock) would not be; so the ratio is the thread's speedup factor, measured.
//! - A new thread goes to the partition with the fewest runnable threads per core (§2.3) and
//!   warms up there for `warmup_ms` of CPU time.
//! - It is then forced to the other core type for a refresh of `refresh_ms` of CPU time. Its
//!   ratio is its rate at home in the last sample before it left against its rate over the
//!   refresh. It goes back home and enters the pinned state: Algorithm 4.3 swaps it with the
//!   pinned thread on the other side that ranks worst against it, if that breaks the ranking
//!   (`common::RatioRank`).
//! - Every `sample_ms` of CPU time on one core type, its rate is compared with the rate its ratio
//!   was measured at on that type; a change over `ipc_threshold_pct` is a new phase, and the
//!   ratio is measured again by another forced migration, from the side it is on (its home).
//! - Swap inactivity: a thread that was swapped is not pinned (no swap partner, no thread
//!   entering the ranking against it) until it has run `swap_inactivity_ms` of CPU time since; a
//!   thread that moved for any reason (a swap, the end of a refresh, a balancing move) is not
//!   forced to migrate until it has run that long since (one without a ratio yet, until it has
//!   warmed up where it is).
//!
//! What the thesis found on real hardware (§4.3.4) follows from the model, not from this file: a
//! phase change during a refresh gives a ratio from two phases (mcf's 2.2 and 2.5 where the
//! clocks allow at most 2.0), and a forced migration puts an extra thread on a core of the other
//! type while one of its own may idle, so threads wait for a core (wall time over CPU time,
//! Fig. 4.7). Forced migrations are not balanced away: only a thread's start, exit, block or
//! wake lets the partitions' one-way moves (`Partitions::keep_fast_busy`) act.
//!
//! Values the thesis leaves open (and this file's choice, each an option; docs/policies/ipc-driven.md lists them):
//! the sampling period (`sample_ms`), whether periods count CPU or wall time (`clock`, CPU time
//! by default: "a thread must *run* on a new core" for the inactivity period, and so that a
//! loaded machine does not force more migrations; the thesis's HASS refresh is tied to CPU time
//! for that reason; a sample is always CPU time, a rate being per CPU second), which home rate the ratio uses (the sample that showed the phase change, or the last
//! warm-up sample), and that the first sample after a move is not compared (its cold caches
//! would read as a phase change; HASS-D discards post-migration samples the same way, §3.4).
//! On a machine of more than two capacities the fast side is the fastest partition and the
//! slow side every other; a fast thread is refreshed on the next slower partition.

use ampsched_model::{Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, ThreadState, Trigger, Triggers, MAX_CORE_TYPES};

use crate::common::ratio_rank::side;
use crate::common::{F64Key, Level, Partitions, PerThread, RatioRank, FAST};
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "ipc-driven",
    description: "IPC-Driven (Becchi & Crowley): measures each thread's fast/slow speed ratio by forced migrations and keeps the highest ratios on fast cores",
    source: "Sáez thesis, §4.2.3, Algorithm 4.3 (IPC-Driven, after Becchi & Crowley, CF'06)",
    options: &[
        OptionInfo {
            name: "warmup_ms",
            // The thesis's value (§4.2.3); 0.1 ms to 1000 s: from one sample to never.
            kind: OptionKind::Range { default: 200.0, min: 0.1, max: 1e6 },
            doc: "CPU time a new thread runs in its first partition before its first forced migration (Sáez thesis §4.2.3: 200 ms)",
        },
        OptionInfo {
            name: "refresh_ms",
            kind: OptionKind::Range { default: 30.0, min: 0.1, max: 1e6 },
            doc: "CPU time a forced migration lasts, measuring the thread's rate on the other core type (Sáez thesis §4.2.3: 30 ms)",
        },
        OptionInfo {
            name: "ipc_threshold_pct",
            // Above 0 (any float noise would be a phase) to 1000% (no phase ever).
            kind: OptionKind::Range { default: 10.0, min: 0.01, max: 1000.0 },
            doc: "change of a thread's IPC, % of the rate its ratio was measured at, that marks a new phase (Sáez thesis §4.2.3: 10%)",
        },
        OptionInfo {
            name: "swap_inactivity_ms",
            kind: OptionKind::Range { default: 1500.0, min: 0.1, max: 1e6 },
            doc: "CPU time a thread runs after a move before it is forced to migrate again, and after a swap before it can be swapped again (Sáez thesis §4.2.3: 1.5 s)",
        },
        OptionInfo {
            name: "sample_ms",
            // Open in the thesis. 10 ms is Solaris's clock tick, the grain at which its
            // scheduler (and the thesis's implementation) acts; a third of the refresh, so a
            // phase change shows within a refresh's length; at 2.3 GHz it is ~10^7 instructions,
            // past any cold-cache transient but the first after a move (which is not compared).
            kind: OptionKind::Range { default: 10.0, min: 0.1, max: 1e6 },
            doc: "CPU time over which a thread's IPC is sampled for phase detection, and the policy's period (open in the thesis; 10 ms, Solaris's clock tick)",
        },
        OptionInfo {
            name: "clock",
            // Open in the thesis (see the module comment for why CPU time is the default).
            kind: OptionKind::Choice { default: "cpu", choices: &["cpu", "wall"] },
            doc: "what warm-up, refresh and inactivity periods count: the thread's CPU time, or wall time (open in the thesis; cpu: a thread must run there)",
        },
    ],
    needs: Signals::COUNTERS,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(IpcDriven::new(o, m))),
};

#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum Stage {
    /// In its first partition, without a ratio.
    #[default]
    WarmUp,
    /// Forced to the other side to measure its rate there; `home` is where it goes back to.
    Refreshing { home: Level },
    /// Has a ratio.
    Measured,
}

/// Instructions and CPU time, ns: a rate in the making.
#[derive(Debug, Clone, Copy, Default)]
struct Work {
    instructions: f64,
    ns: u64,
}

impl Work {
    fn add(&mut self, other: Work) {
        self.instructions += other.instructions;
        self.ns += other.ns;
    }

    /// Instructions per ns.
    fn rate(&self) -> f64 {
        self.instructions / self.ns as f64
    }
}

/// A moment in a thread's life: its CPU time and the wall time then, ns.
#[derive(Debug, Clone, Copy, Default)]
struct Mark {
    cpu_ns: u64,
    wall_ns: u64,
}

impl Mark {
    fn of(view: &SystemView, t: ThreadId) -> Mark {
        Mark { cpu_ns: view.thread(t).total_time_ns(), wall_ns: view.now_ns }
    }
}

/// What the policy knows of one thread.
#[derive(Debug, Clone, Copy, Default)]
struct Track {
    stage: Stage,
    /// The partition it was last put in or seen in.
    level: Option<Level>,
    /// When it last moved (or started): forced migrations wait for the inactivity period after it.
    landed: Mark,
    /// When it was last swapped, if ever: it is pinned again after the inactivity period.
    swapped: Option<Mark>,
    /// When its refresh began.
    refresh_from: Mark,
    /// The sample being gathered on its current side.
    sample: Work,
    /// The next complete sample is the first after a move: not compared.
    cold: bool,
    /// During a refresh: what it did on the other side so far.
    away: Work,
    /// Its rate at home in the sample that sent it away (instructions per ns).
    home_rate: f64,
    /// Its rates on each side (0 fast, 1 slow) when its ratio was last measured: the references
    /// of phase detection.
    rate: [f64; 2],
    ratio: Option<f64>,
}

/// One thing the policy did, with the thread's CPU time then: what tests and a reader of a run
/// can hold the policy to (`IpcDriven::log`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    pub now_ns: u64,
    pub thread: ThreadId,
    pub cpu_ns: u64,
    pub what: What,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum What {
    /// Forced to the other side for a refresh (after its warm-up, or at a new phase).
    Refresh,
    /// Its refresh ended: the ratio measured, from the rates at home and away (instructions per
    /// ns); it is back home.
    Measured { ratio: f64, fast_rate: f64, slow_rate: f64 },
    /// Swapped by Algorithm 4.3 with `with`.
    Swap { with: ThreadId },
    /// Moved by the partitions' one-way balancing (a thread started, exited, blocked or woke).
    Balance,
}

pub struct IpcDriven {
    parts: Partitions<F64Key>,
    rank: RatioRank,
    track: PerThread<Track>,
    fast_types: [bool; MAX_CORE_TYPES],
    warmup_ns: u64,
    refresh_ns: u64,
    threshold: f64,
    inactivity_ns: u64,
    sample_ns: u64,
    /// Periods count wall time (`clock=wall`), not the thread's CPU time.
    wall_clock: bool,
    log: Vec<Event>,
    /// New phases seen while the thread could not be forced to migrate yet (inactivity).
    deferred: u64,
}

impl IpcDriven {
    pub fn new(o: &Options, m: &Machine) -> Self {
        IpcDriven {
            parts: Partitions::new(m),
            rank: RatioRank::new(),
            track: PerThread::new(),
            fast_types: m.fast_type_mask(),
            warmup_ns: o.ms("warmup_ms"),
            refresh_ns: o.ms("refresh_ms"),
            threshold: o.number("ipc_threshold_pct") / 100.0,
            inactivity_ns: o.ms("swap_inactivity_ms"),
            sample_ns: o.ms("sample_ms"),
            wall_clock: o.choice("clock") == "wall",
            log: Vec::new(),
            deferred: 0,
        }
    }

    /// Every refresh, ratio, swap and balancing move so far, in order.
    pub fn log(&self) -> &[Event] {
        &self.log
    }

    /// New phases seen while the thread had not run the inactivity period since it last moved.
    pub fn deferred(&self) -> u64 {
        self.deferred
    }

    /// Time from `then` to `now` on the policy's clock.
    fn elapsed(&self, now: Mark, then: Mark) -> u64 {
        if self.wall_clock {
            now.wall_ns - then.wall_ns
        } else {
            now.cpu_ns - then.cpu_ns
        }
    }

    fn note(&mut self, view: &SystemView, t: ThreadId, what: What) {
        self.log.push(Event { now_ns: view.now_ns, thread: t, cpu_ns: view.thread(t).total_time_ns(), what });
    }

    /// Thread `t` is now in partition `level`: a new sample starts, cold.
    fn land(&mut self, view: &SystemView, t: ThreadId, level: Option<Level>) {
        let now = Mark::of(view, t);
        let tr = self.track.get_mut(t);
        tr.level = level;
        tr.landed = now;
        tr.sample = Work::default();
        tr.cold = true;
        if let (Stage::Refreshing { home }, Some(l)) = (tr.stage, level) {
            if side(l) == side(home) {
                // Moved back before its refresh ended (by balancing): the refresh is abandoned.
                tr.stage = if tr.ratio.is_some() { Stage::Measured } else { Stage::WarmUp };
            }
        }
    }

    /// What thread `t` did over the last quantum, per side (0 fast, 1 slow).
    fn by_side(&self, view: &SystemView, t: ThreadId) -> [Work; 2] {
        let mut out = [Work::default(); 2];
        for (ty, c) in view.interval_of(t).iter().enumerate() {
            let s = usize::from(!self.fast_types[ty]);
            out[s].add(Work { instructions: c.instructions, ns: c.time_ns });
        }
        out
    }

    /// Whether thread `t` belongs in the pinned sets now: runnable, with a ratio, and not
    /// swapped within the inactivity period.
    fn pinnable(&self, view: &SystemView, t: ThreadId) -> Option<(Level, f64)> {
        let v = view.thread(t);
        let tr = self.track.value(t);
        let rested = tr.swapped.is_none_or(|s| self.elapsed(Mark::of(view, t), s) >= self.inactivity_ns);
        match (v.state.is_runnable(), tr.stage, self.parts.level(t), tr.ratio) {
            (true, Stage::Measured, Some(level), Some(ratio)) if rested => Some((level, ratio)),
            _ => None,
        }
    }

    /// Bring thread `t`'s place in the pinned sets up to date; a thread entering them is ranked
    /// by Algorithm 4.3 (and perhaps swapped).
    fn refile(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement) {
        match self.pinnable(view, t) {
            None => self.rank.pin(t, None),
            Some(at) if self.rank.is_pinned(t) => self.rank.pin(t, Some(at)),
            Some((level, ratio)) => match self.rank.partner(t, level, ratio) {
                Some(p) => self.swap(view, t, p, out),
                None => self.rank.pin(t, Some((level, ratio))),
            },
        }
    }

    fn swap(&mut self, view: &SystemView, t: ThreadId, p: ThreadId, out: &mut Placement) {
        self.parts.swap(view, t, p, out);
        for (a, b) in [(t, p), (p, t)] {
            self.rank.pin(a, None);
            self.land(view, a, self.parts.level(a));
            self.track.get_mut(a).swapped = Some(Mark::of(view, a));
            self.note(view, a, What::Swap { with: b });
        }
    }

    /// Force thread `t`, at home in `home`, to the other side for a refresh.
    fn start_refresh(&mut self, view: &SystemView, t: ThreadId, home: Level, home_rate: f64, out: &mut Placement) {
        let away = if home == FAST { FAST + 1 } else { FAST };
        self.rank.pin(t, None);
        let tr = self.track.get_mut(t);
        tr.stage = Stage::Refreshing { home };
        tr.home_rate = home_rate;
        tr.away = Work::default();
        tr.refresh_from = Mark::of(view, t);
        self.parts.assign(view, t, away, out);
        self.land(view, t, Some(away));
        self.note(view, t, What::Refresh);
    }

    /// Thread `t`'s refresh is over: its ratio, and back home, where it enters the pinned state.
    fn end_refresh(&mut self, view: &SystemView, t: ThreadId, home: Level, out: &mut Placement) {
        let tr = self.track.get_mut(t);
        let away_rate = tr.away.rate();
        let (fast_rate, slow_rate) = if side(home) == 0 { (tr.home_rate, away_rate) } else { (away_rate, tr.home_rate) };
        // A thread that retired nothing on a side (it only spun) gives no evidence either way:
        // ratio 1, as if the core types were alike for it.
        let ratio = if fast_rate > 0.0 && slow_rate > 0.0 { fast_rate / slow_rate } else { 1.0 };
        tr.rate = [fast_rate, slow_rate];
        tr.ratio = Some(ratio);
        tr.stage = Stage::Measured;
        self.parts.set_claim(t, F64Key(ratio));
        self.note(view, t, What::Measured { ratio, fast_rate, slow_rate });
        self.parts.assign(view, t, home, out);
        self.land(view, t, Some(home));
        self.refile(view, t, out);
    }

    /// The periodic work: samples, phase changes, refreshes.
    fn measure(&mut self, view: &SystemView, out: &mut Placement) {
        for &t in view.ran {
            let v = view.thread(t);
            if v.state == ThreadState::Exited {
                continue;
            }
            let Some(level) = self.parts.level(t) else { continue };
            let sides = self.by_side(view, t);
            let now = Mark::of(view, t);
            let (landed, refresh_from) = (self.track.value(t).landed, self.track.value(t).refresh_from);
            let (since_landed, since_refresh) = (self.elapsed(now, landed), self.elapsed(now, refresh_from));
            let tr = self.track.get_mut(t);
            match tr.stage {
                Stage::Refreshing { home } => {
                    tr.away.add(sides[1 - side(home)]);
                    // On CPU time, the refresh is its time on the other side (a migration's
                    // leftover of home time is not part of it).
                    let done = if self.wall_clock { since_refresh } else { tr.away.ns };
                    if done >= self.refresh_ns {
                        self.end_refresh(view, t, home, out);
                    }
                }
                stage @ (Stage::WarmUp | Stage::Measured) => {
                    let s = side(level);
                    tr.sample.add(sides[s]);
                    if tr.sample.ns >= self.sample_ns {
                        let rate = tr.sample.rate();
                        tr.sample = Work::default();
                        if !std::mem::replace(&mut tr.cold, false) {
                            let reference = tr.rate[s];
                            let rested = since_landed >= self.inactivity_ns;
                            match stage {
                                // Warmed up in the partition it is in (its first, unless balancing moved it).
                                Stage::WarmUp if since_landed >= self.warmup_ns => self.start_refresh(view, t, level, rate, out),
                                Stage::Measured if (rate - reference).abs() > self.threshold * reference => {
                                    if rested {
                                        self.start_refresh(view, t, level, rate, out);
                                    } else {
                                        self.deferred += 1;
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
            // Its CPU time grew: it may have run out its inactivity period.
            self.refile(view, t, out);
        }
    }
}

impl Policy for IpcDriven {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.sample_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let Some(changed) = self.parts.begin(view) else { return Ok(()) };
        for &t in changed {
            self.refile(view, t, out);
        }
        match view.trigger {
            Trigger::Start(t) => {
                self.parts.place_new(view, t, out);
                self.land(view, t, self.parts.level(t));
                // Nothing was cached before its start: its first sample counts.
                self.track.get_mut(t).cold = false;
            }
            Trigger::Quantum => self.measure(view, out),
            Trigger::Exit(_) | Trigger::Block(_) | Trigger::Wake(_) => {}
        }
        if view.trigger != Trigger::Quantum {
            let track = &self.track;
            self.parts.keep_fast_busy(view, out, |v| F64Key(track.value(v.id).ratio.unwrap_or(0.0)));
            let moved: Vec<ThreadId> = out.named_threads().filter(|&t| self.parts.level(t) != self.track.value(t).level).collect();
            for t in moved {
                if self.parts.level(t) != self.track.value(t).level {
                    self.land(view, t, self.parts.level(t));
                    self.note(view, t, What::Balance);
                    self.refile(view, t, out);
                }
            }
        }
        Ok(())
    }
}
