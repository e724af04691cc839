//! `wash`: WASH, the scheduler of "Portable Performance on Asymmetric Multicore Processors"
//! (Jibaja et al., CGO 2016), Algorithm 1 with the refinements of its prose (§4–§6). Each app is
//! one managed runtime with its own WASH; every quantum (40 ms) and for each app, with T_A its
//! application threads and C_B / C_S the machine's big / small cores:
//! - |T_A| ≤ |C_B|: the application threads share |T_A| of the big cores; the runtime's helper
//!   threads get the small cores and the big cores the application leaves free;
//! - otherwise the helpers get C_S only, and the app is *scalable* if every application thread
//!   waits on locks less than `lock_thresh` of its time (Lock%), its threads are alike (the
//!   homogeneity test) and none falls behind: its threads get all cores, and while more of them
//!   are ready than there are big cores, those with the least big-core time so far are bound to
//!   C_B for a quantum (the rotation). Else it is *non-scalable*: the *execution set* (the threads of highest
//!   ExecRank, taken until their speed-adjusted instruction rate reaches the big cores' share of
//!   the machine's instruction-retirement capacity) and the *lock set* (the threads that made
//!   others wait longest, LockRank, as many as the big cores' share of cores of the contended
//!   threads) are bound to C_B, the others get all cores.
//!
//! ExecRank: a running total of each thread's retired instructions, those retired on small cores
//! scaled by its predicted speedup (so the total is its progress as if on big cores), times its
//! predicted speedup (§6's "adjusted priority"). A thread starts on its bindVM place (application
//! threads on C_B, helpers on C_S, §6's fallback) and keeps it until it has lived a whole quantum.
//! `pfs` is this code with the application-over-runtime preference and the lock set switched off.
//!
//! `scope` says whose threads one decision counts. The paper runs one WASH per managed runtime (a
//! JVM per app, `scope = runtime`): each counts only its own application threads against C_B, so
//! on a machine running several runtimes, each with fewer application threads than big cores,
//! every runtime gives its threads "the big cores" and they all pile onto the same ones while the
//! small cores idle (four single-threaded apps on 2B2S: one big core busy, three idle). The
//! default, `scope = machine`, makes one machine-wide decision over every managed app's threads,
//! as one WASH per machine would, and binds at most |C_B| threads to C_B (the execution set, lock
//! set and fallen-behind threads together, in that order of precedence: boosted, lock, execution),
//! so that no core idles while an application thread waits for one. With a single managed app the
//! two scopes differ only in that cap.
//!
//! Cost per quantum: the threads that ran or changed, plus, per app whose thread counts crossed
//! |C_B| or whose class changed, its live threads; the falls-behind check reads an app's threads
//! once per window.

use std::collections::BTreeSet;

use ampsched_model::view::AppId;
use ampsched_model::{
    CoreSet, Counters, Diagnostics, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, ThreadKind, ThreadState, Trigger, Triggers,
    MAX_CORE_TYPES,
};

use super::bind_vm_cores;
use crate::common::speedup_model::trained;
use crate::common::{Changes, CoreTypeRatio, PerThread, SpeedupPredictor};
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

/// WASH's scheduling quantum, §6: 40 ms, after prior work that saw no migration overhead on
/// shared-LLC AMPs at 25 ms.
pub const QUANTUM_MS: f64 = 40.0;
/// §4: "a threshold of 0.5 contention level (time spent contended / time executing) beyond which
/// a thread is classified as contended", established empirically from Figure 4.
pub const LOCK_THRESH: f64 = 0.5;
/// §4: a contended thread makes the app non-scalable only if it "is responsible for a threshold of
/// execution time as a function of the total available hardware resources (e.g., 1% with 2 cores,
/// 0.5% with 4 cores, and so on)": the paper's examples are 2% / cores, this constant over the
/// machine's core count. The share is of the CPU time of the app's ranked threads so far.
pub const EXEC_SHARE: f64 = 0.02;
/// §6: a thread is active if it "has not been blocked during the last two scheduling quanta".
pub const ACTIVE_QUANTA: u64 = 2;
/// The falls-behind check of the scalable case (§4 and §6 name it, give no numbers): over a
/// window, a thread that was runnable throughout and retired fewer instructions than this
/// fraction of the mean of such threads of its app has fallen behind. A quarter: on 1B5S eight
/// homogeneous threads under CFS leave two small cores shared, whose threads retire ~0.47 of the
/// mean (the unevenness any oversubscribed AMP shows, which the paper's scalable class tolerates:
/// WASH performs like Oblivious there, §7.6); a thread sharing a small core with three or more
/// others (an OS co-runner, §8.6) retires less than a quarter. 0 turns the check off.
pub const BEHIND_FRACTION: f64 = 0.25;
/// The falls-behind window, in quanta: 5 × 40 ms = 200 ms, fifty 4 ms CFS slices and twenty
/// 10 ms balancer periods, so ordinary time sharing evens out within it, while a starved thread
/// is found within a fifth of a second.
pub const BEHIND_WINDOW_QUANTA: i64 = 5;
/// The homogeneity test (§4: "Scalable benchmarks typically employ homogeneous threads (or sets of
/// threads) that perform about the same amount and type of work. [...] Our dynamic analysis
/// inexpensively observes the progress of threads, scaled by their core assignment, and
/// determines whether they are homogeneous or not"; §6: a scalable workload is "scalable
/// |T_A| > |C_B| and homogenous"). Neither metric nor tolerance is given. Here, at the end of each
/// falls-behind window, over the threads runnable throughout it: the amount of work is each
/// one's progress scaled by its core assignment (big-core-equivalent instructions in the window,
/// small-core ones times its predicted speedup), the type of work its predicted speedup; the
/// threads are alike if each is within this fraction of the mean of both. A half: eight threads
/// on 1B5S under CFS leave two small cores shared, whose threads progress 2/3 of the mean scaled
/// (1.4 against 2.1 big-core instructions per ns: the unevenness of an oversubscribed AMP the
/// scalable class tolerates, as `BEHIND_FRACTION` does), while one of six threads that retires a
/// third of what the others do (three times their CPI) progresses 0.375 of the mean.
pub const HOMOGENEITY_TOL: f64 = 0.5;

pub const OPTIONS: [OptionInfo; 11] = [
    OptionInfo { name: "quantum_ms", kind: OptionKind::quantum_ms(QUANTUM_MS), doc: "how often affinities are recomputed (WASH §6: 40 ms)" },
    OptionInfo {
        name: "lock_thresh",
        kind: OptionKind::Range { default: LOCK_THRESH, min: 0.0, max: 1.0 },
        doc: "Lock% (lock wait / time alive) above which a thread is contended (WASH §4: 0.5)",
    },
    OptionInfo {
        name: "exec_share",
        kind: OptionKind::Range { default: EXEC_SHARE, min: 0.0, max: 1.0 },
        doc: "a contended thread counts (non-scalable app, lock set) only with at least exec_share / cores of its app's \
              CPU time (WASH §4's 1% with 2 cores, 0.5% with 4: 2% / cores)",
    },
    OptionInfo {
        name: "behind_fraction",
        kind: OptionKind::Range { default: BEHIND_FRACTION, min: 0.0, max: 1.0 },
        doc: "in a scalable app, a thread runnable through a window that retires less than this fraction of the mean of \
              such threads has fallen behind: bound to a big core for a window, the app non-scalable from then on (0: no check)",
    },
    OptionInfo {
        name: "behind_window_quanta",
        kind: OptionKind::Integer { default: BEHIND_WINDOW_QUANTA, min: 1, max: 100_000 },
        doc: "the falls-behind window, in quanta (200 ms at 40 ms)",
    },
    OptionInfo {
        name: "rotation",
        kind: OptionKind::Choice { default: "on", choices: &["on", "off"] },
        doc: "in a scalable app with more ready application threads than big cores, bind to C_B each quantum the ones \
              with the smallest share of their lives on big cores (on: WASH §6's equal access to the big cores from the \
              VM's execution log), or leave the big cores to the OS as Algorithm 1's line 12 alone (off)",
    },
    OptionInfo {
        name: "homogeneity",
        kind: OptionKind::Choice { default: "on", choices: &["on", "off"] },
        doc: "the homogeneity test (WASH §4, §6): an app is scalable only while its threads progress alike, scaled by their \
              core assignment, and are predicted alike; threads that are not make it non-scalable for good (off: Lock% and \
              the falls-behind check alone)",
    },
    OptionInfo {
        name: "homogeneity_tol",
        kind: OptionKind::Range { default: HOMOGENEITY_TOL, min: 0.0, max: 10.0 },
        doc: "the homogeneity test's tolerance: each thread runnable through a window within this fraction of the mean of \
              such threads' scaled progress and predicted speedup",
    },
    OptionInfo {
        name: "lock_candidates",
        kind: OptionKind::Choice { default: "holders", choices: &["holders", "contended"] },
        doc: "who may enter the lock set (pfs has none): every thread others waited on (holders), or only contended \
              threads (Algorithm 1 read literally, where a holder that never waits itself is never promoted)",
    },
    OptionInfo {
        name: "model",
        kind: OptionKind::Choice { default: "default", choices: &["default", "second", "negated", "core-type"] },
        doc: "the speedup predictor (WASH §5, §8.4): the trained model on the 4 best events (default), on the next best 4 \
              (second), the default with its weights negated (negated), each the one trained with the app's program left \
              out; or core-type (every thread the cores' peak-rate ratio), which is also what any model falls back on \
              where no counters are read (live without a PMU)",
    },
    OptionInfo {
        name: "scope",
        kind: OptionKind::Choice { default: "machine", choices: &["machine", "runtime"] },
        doc: "whose threads one decision counts against the big cores: every managed app's, with at most as many threads \
              bound to the big cores as there are (machine), or each app's alone, one WASH per managed runtime as the \
              paper runs it (runtime: several runtimes' threads can pile onto the same big cores while small ones idle)",
    },
];

pub const INFO: PolicyInfo = PolicyInfo {
    name: "wash",
    description: "WASH: app threads before runtime helpers on big cores; lock bottlenecks and the most progressing, sensitive threads bound to big cores in non-scalable apps",
    source: "WASH (Jibaja et al., Portable Performance on Asymmetric Multicore Processors, CGO 2016), Algorithm 1, §4-§6",
    options: &OPTIONS,
    needs: Signals::LOCKS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| Box::new(Wash::new(o, m, Switches { app_over_runtime: true, lock_set: true }))),
};

/// What distinguishes WASH from PFS, which the paper built from it (§3, §8.5).
#[derive(Debug, Clone, Copy)]
pub struct Switches {
    /// Application threads before the runtime's helpers (off: every thread ranked as an
    /// application thread).
    pub app_over_runtime: bool,
    /// The lock set: holders of contended locks bound to big cores.
    pub lock_set: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct ThreadInfo {
    /// Seen alive and filed under its app.
    known: bool,
    /// Its app (whose predictor it gets), and the group it is planned in: its app under
    /// `scope = runtime`, `MACHINE_GROUP` under `scope = machine`.
    app: AppId,
    group: AppId,
    /// Ranked as an application thread (every thread under `pfs`).
    ranked: bool,
    /// The current speedup prediction; 0 before the first.
    speedup: f64,
    /// Retired instructions so far, those on slower cores scaled to big-core equivalents.
    big_equiv: f64,
    /// Big-core-equivalent instructions in the last quantum it ran in, and when that ended.
    rate: f64,
    ran_at_ns: u64,
    /// The latest time it was seen off the CPU (blocked, sleeping): for "active".
    last_blocked_ns: Option<u64>,
    /// Raw retired instructions in its app's falls-behind window `window`.
    window: u64,
    window_instructions: f64,
    /// Big-core-equivalent instructions in that window (the homogeneity test's progress).
    window_equiv: f64,
    /// Time run on big cores so far (the rotation's log of access to C_B).
    big_ns: u64,
    /// Bound to a big core after falling behind, until then.
    boosted_until_ns: u64,
}

/// The affinities of one app's plan: ranked threads not in the big set, ranked threads in it,
/// helpers.
#[derive(Debug, Clone, PartialEq)]
struct Masks {
    ranked: CoreSet,
    big_set: CoreSet,
    helper: CoreSet,
}

#[derive(Debug, Default)]
struct AppState {
    ranked: BTreeSet<ThreadId>,
    helpers: BTreeSet<ThreadId>,
    /// Ranked threads whose Lock% is above the threshold (as of when they last ran or changed).
    contended: BTreeSet<ThreadId>,
    /// Ranked threads others have waited on.
    holders: BTreeSet<ThreadId>,
    boosted: BTreeSet<ThreadId>,
    /// CPU time of its ranked threads so far (exited ones included).
    exec_ns: u64,
    /// Once a thread fell behind, the app is non-scalable for good (§4: "from then on").
    non_scalable: bool,
    window: u64,
    window_start_ns: Option<u64>,
    /// The ranked threads bound to C_B by the last plan, and its masks.
    big: BTreeSet<ThreadId>,
    masks: Option<Masks>,
    /// Its threads that ran or changed since its last plan.
    touched: Vec<ThreadId>,
    ran: Vec<ThreadId>,
    dirty: bool,
}

/// The one group of every managed app's threads under `scope = machine`.
const MACHINE_GROUP: AppId = 0;

pub struct Wash {
    switches: Switches,
    /// `scope = machine`: one decision over every managed app's threads (`MACHINE_GROUP`), at most
    /// |C_B| of them bound to C_B.
    machine_scope: bool,
    quantum_ns: u64,
    lock_thresh: f64,
    /// `exec_share` over the machine's cores.
    exec_share: f64,
    behind_fraction: f64,
    behind_window_ns: u64,
    lock_candidates_contended: bool,
    rotation: bool,
    /// The homogeneity test's tolerance; None with `homogeneity = off`.
    homogeneity_tol: Option<f64>,
    /// The `model` option: which predictor each app gets.
    model: &'static str,
    /// Per app (index = `AppId`), its predictor, made when its first thread ran: a trained model
    /// is the one that left the app's program out (WASH §5, leave-one-out).
    predictors: Vec<Option<Box<dyn SpeedupPredictor>>>,
    /// The prediction before any counters: the cores' peak-rate ratio.
    prior_speedup: f64,
    big: CoreSet,
    small: CoreSet,
    all: CoreSet,
    /// B_RI / (B_RI + S_RI): the big cores' share of the machine's peak instruction rate.
    big_rate_share: f64,
    /// B / (B + S): the big cores' share of cores.
    big_core_share: f64,
    /// Per core type, instructions per ns at CPI 1 (an estimate of retired instructions where no
    /// counters are read), and how far the type is from the big cores in peak rate: 0 for big,
    /// 1 for the slowest (the speedup applies in full), between for a middle type.
    peak_rate: [f64; MAX_CORE_TYPES],
    slowness: [f64; MAX_CORE_TYPES],
    threads: PerThread<ThreadInfo>,
    apps: Vec<AppState>,
    dirty: Vec<AppId>,
    changes: Changes,
    /// Whether the views it was called with offered hardware counters (None before its first
    /// call): without them every prediction is the prior, the core types' ratio.
    counters: Option<bool>,
}

impl Wash {
    pub fn new(o: &Options, m: &Machine, switches: Switches) -> Self {
        let model = MODELS.iter().copied().find(|&c| c == o.choice("model")).unwrap_or("core-type");
        let prior_speedup = CoreTypeRatio.predict(m, &Default::default()).unwrap_or(1.0);
        let mut peak_rate = [0.0; MAX_CORE_TYPES];
        for (i, ct) in m.core_types.iter().enumerate() {
            peak_rate[i] = ct.freq_ghz / ct.cpi_scale;
        }
        let top = peak_rate.iter().cloned().fold(0.0, f64::max);
        let bottom = peak_rate[..m.core_types.len()].iter().cloned().fold(f64::INFINITY, f64::min);
        let mut slowness = [0.0; MAX_CORE_TYPES];
        for i in 0..m.core_types.len() {
            if !m.is_fast_type(i) && top > bottom {
                slowness[i] = (top / peak_rate[i] - 1.0) / (top / bottom - 1.0);
            }
        }
        let rate_of = |cores: &CoreSet| cores.iter().map(|c| peak_rate[m.cores[c].core_type]).sum::<f64>();
        let (big, small, all) = (m.fast_cores(), m.slow_cores(), m.all_cores());
        let total_rate = rate_of(&all);
        Wash {
            switches,
            machine_scope: o.choice("scope") == "machine",
            quantum_ns: o.ms("quantum_ms"),
            lock_thresh: o.number("lock_thresh"),
            exec_share: o.number("exec_share") / m.num_cores() as f64,
            behind_fraction: o.number("behind_fraction"),
            behind_window_ns: o.ms("quantum_ms") * o.integer("behind_window_quanta") as u64,
            lock_candidates_contended: o.choice("lock_candidates") == "contended",
            rotation: o.choice("rotation") == "on",
            homogeneity_tol: (o.choice("homogeneity") == "on").then(|| o.number("homogeneity_tol")),
            model,
            predictors: Vec::new(),
            prior_speedup,
            big_rate_share: if total_rate > 0.0 { rate_of(&big) / total_rate } else { 1.0 },
            big_core_share: big.len() as f64 / all.len() as f64,
            big,
            small,
            all,
            peak_rate,
            slowness,
            threads: PerThread::new(),
            apps: Vec::new(),
            dirty: Vec::new(),
            changes: Changes::default(),
            counters: None,
        }
    }

    fn app_mut(&mut self, a: AppId) -> &mut AppState {
        let i = a as usize;
        if i >= self.apps.len() {
            self.apps.resize_with(i + 1, AppState::default);
        }
        &mut self.apps[i]
    }

    /// The live ranked threads of group `g` whose affinity is C_B alone, other than `except`: the
    /// last plan's big set and the young threads that keep their fallback place there (blocked
    /// ones too: they run there when they wake, before the next plan).
    fn on_big(&self, view: &SystemView, g: &AppState, except: ThreadId) -> usize {
        g.ranked.iter().filter(|&&t| t != except && view.thread(t).state != ThreadState::Exited && view.thread(t).allowed == self.big).count()
    }

    /// The group an app's threads are planned in (`scope`).
    fn group(&self, a: AppId) -> AppId {
        if self.machine_scope {
            MACHINE_GROUP
        } else {
            a
        }
    }

    /// The most threads one plan binds to C_B: |C_B| machine-wide (more would wait for a big
    /// core while a small one idles), unbounded per runtime (Algorithm 1 as written).
    fn big_cap(&self) -> usize {
        if self.machine_scope {
            self.big.len()
        } else {
            usize::MAX
        }
    }

    fn touch(&mut self, a: AppId, t: ThreadId) {
        let app = self.app_mut(a);
        app.touched.push(t);
        if !app.dirty {
            app.dirty = true;
            self.dirty.push(a);
        }
    }

    /// A thread that started, exited, blocked, woke or was placed: file it, note when it was
    /// off the CPU, and its Lock%.
    fn refresh(&mut self, view: &SystemView, t: ThreadId) {
        let v = view.thread(t);
        // Another runtime's threads, left to the OS (WASH §8.6's adversary): not this VM's.
        if !view.apps[v.app as usize].policy_managed {
            return;
        }
        let ranked = !self.switches.app_over_runtime || v.kind == ThreadKind::App;
        let prior = self.prior_speedup;
        let group = self.group(v.app);
        let info = self.threads.get_mut(t);
        if v.state == ThreadState::Exited {
            if std::mem::take(&mut info.known) {
                let app = self.app_mut(group);
                for set in [&mut app.ranked, &mut app.helpers, &mut app.contended, &mut app.holders, &mut app.boosted, &mut app.big] {
                    set.remove(&t);
                }
                self.touch(group, t);
            }
            return;
        }
        if !info.known {
            *info = ThreadInfo { known: true, app: v.app, group, ranked, speedup: prior, ..ThreadInfo::default() };
        } else if info.ranked != ranked {
            // Live, a thread's kind follows its name, and a runtime names its helpers just after
            // they start: one first seen under its creator's name changes kind. File it afresh.
            info.ranked = ranked;
            let app = self.app_mut(group);
            for set in [&mut app.ranked, &mut app.helpers, &mut app.contended, &mut app.holders, &mut app.boosted, &mut app.big] {
                set.remove(&t);
            }
        }
        let info = self.threads.get_mut(t);
        if !v.state.is_runnable() {
            info.last_blocked_ns = Some(view.now_ns);
        }
        let app = self.app_mut(group);
        if ranked { &mut app.ranked } else { &mut app.helpers }.insert(t);
        self.update_locks(view, t);
        self.touch(group, t);
    }

    /// Lock% = time waiting for locks / time alive (WASH §4's "time spent contended / time
    /// executing"; alive rather than on a CPU so that it stays within [0, 1] with spin-waits,
    /// which are both), and whether others have waited on the thread.
    fn update_locks(&mut self, view: &SystemView, t: ThreadId) {
        let v = view.thread(t);
        if !self.threads.value(t).ranked {
            return;
        }
        let alive = view.now_ns.saturating_sub(v.started_ns);
        let contended = alive > 0 && v.lock_wait_ns as f64 / alive as f64 > self.lock_thresh;
        let app = self.app_mut(self.threads.value(t).group);
        if contended {
            app.contended.insert(t);
        } else {
            app.contended.remove(&t);
        }
        if v.lock_wait_caused_ns > 0 {
            app.holders.insert(t);
        }
    }

    /// Instructions a thread retired on core type `ty`: counted, or estimated from its time at
    /// the type's peak rate where no counters are read.
    fn retired(&self, view: &SystemView, c: &Counters, ty: usize) -> f64 {
        if view.available.contains(Signals::COUNTERS) {
            c.instructions
        } else {
            c.time_ns as f64 * self.peak_rate[ty]
        }
    }

    /// A thread's last quantum: its speedup prediction, progress, its app's CPU time.
    fn progress(&mut self, view: &SystemView, t: ThreadId) {
        if !self.threads.value(t).known {
            return;
        }
        let interval = view.interval_of(t);
        let m = view.machine;
        let mut speedup = self.threads.value(t).speedup;
        if view.available.contains(Signals::COUNTERS) {
            if let Some(s) = self.predictor(view, self.threads.value(t).app).predict(m, interval) {
                speedup = s;
            }
        }
        let (mut raw, mut equiv, mut time, mut big_time) = (0.0, 0.0, 0, 0);
        for (ty, c) in interval.iter().enumerate().take(m.core_types.len()) {
            let r = self.retired(view, c, ty);
            raw += r;
            equiv += r * (1.0 + (speedup - 1.0) * self.slowness[ty]);
            time += c.time_ns;
            if m.is_fast_type(ty) {
                big_time += c.time_ns;
            }
        }
        let info = self.threads.value(t);
        let app = &mut self.apps[info.group as usize];
        let window = app.window;
        if info.ranked {
            app.exec_ns += time;
            app.ran.push(t);
        }
        let info = self.threads.get_mut(t);
        info.speedup = speedup;
        info.big_equiv += equiv;
        info.rate = equiv;
        info.ran_at_ns = view.now_ns;
        info.big_ns += big_time;
        if info.window != window {
            info.window = window;
            info.window_instructions = 0.0;
            info.window_equiv = 0.0;
        }
        info.window_instructions += raw;
        info.window_equiv += equiv;
        let a = info.group;
        self.update_locks(view, t);
        self.touch(a, t);
    }

    fn active(&self, t: ThreadId, now: u64) -> bool {
        self.threads.value(t).last_blocked_ns.is_none_or(|b| b + ACTIVE_QUANTA * self.quantum_ns <= now)
    }

    /// The contended threads that count (Lock% above the threshold, enough of the app's time).
    fn contended(&self, view: &SystemView, app: &AppState) -> Vec<ThreadId> {
        let least = self.exec_share * app.exec_ns as f64;
        app.contended.iter().copied().filter(|&t| view.thread(t).state != ThreadState::Exited && view.thread(t).total_time_ns() as f64 >= least).collect()
    }

    /// The execution set: active threads of highest adjusted priority, taken until their
    /// big-core-equivalent instruction rate reaches B_RI / (B_RI + S_RI) of all active threads',
    /// or `into` holds `cap` threads.
    fn execution_set(&self, view: &SystemView, app: &AppState, cap: usize, into: &mut BTreeSet<ThreadId>) {
        let now = view.now_ns;
        let mut active: Vec<(f64, ThreadId, f64)> = app
            .ran
            .iter()
            .copied()
            .filter(|&t| self.active(t, now) && !young(view, t))
            .map(|t| {
                let i = self.threads.value(t);
                (i.big_equiv * i.speedup, t, i.rate)
            })
            .collect();
        active.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let total: f64 = active.iter().map(|a| a.2).sum();
        let mut taken = 0.0;
        for (_, t, rate) in active {
            if taken >= self.big_rate_share * total || total <= 0.0 || (into.len() >= cap && !into.contains(&t)) {
                break;
            }
            into.insert(t);
            taken += rate;
        }
    }

    /// The lock set: the threads others waited on longest (LockRank, cumulative waits caused, as
    /// §4's "accrued lock waiting time" suggests), ceil(B / (B + S) × |T_Contd|) of them (rounded
    /// up: on 1B5S a single contended thread would otherwise never promote anyone). Candidates are
    /// by default every thread others waited on: Algorithm 1's LockRank(t, T_Contd) read as t's
    /// rank by the waits it caused, T_Contd sizing the set. Read literally (`lock_candidates =
    /// contended`) only contended threads qualify, and a holder that seldom waits itself, the
    /// bottleneck of §4 ("threads that make other threads wait the longest"), never would.
    /// At most `cap` threads end up in `into`.
    fn lock_set(&self, view: &SystemView, app: &AppState, contended: &[ThreadId], cap: usize, into: &mut BTreeSet<ThreadId>) {
        let size = (self.big_core_share * contended.len() as f64).ceil() as usize;
        let mut candidates: Vec<(u64, ThreadId)> = if self.lock_candidates_contended { contended.to_vec() } else { app.holders.iter().copied().collect() }
            .into_iter()
            .filter(|&t| view.thread(t).state != ThreadState::Exited)
            .map(|t| (view.thread(t).lock_wait_caused_ns, t))
            .filter(|&(caused, _)| caused > 0)
            .collect();
        candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, t) in candidates.into_iter().take(size) {
            if into.len() >= cap && !into.contains(&t) {
                break;
            }
            into.insert(t);
        }
    }

    /// The rotation of a scalable app (WASH §6: the VM's log of each thread's execution serves "to
    /// ensure that application threads have equal access to the big cores when there exist more
    /// ready application threads than big cores"; for scalable workloads "the algorithm gives all
    /// threads equal access to the big cores"). While more of its application threads are ready
    /// than there are big cores, the ready ones with the smallest share of their lives spent on
    /// big cores (ties: the lowest id), |C_B| of them less the threads already bound there
    /// (fallen behind), are bound to C_B until the next quantum; the others keep every core
    /// (Algorithm 1, line 12), so no core idles while a thread waits. With n such threads of equal
    /// age and |C_B| big cores, each is bound to C_B |C_B| quanta in every n.
    fn rotation_set(&self, view: &SystemView, app: &AppState, cap: usize, into: &mut BTreeSet<ThreadId>) {
        let now = view.now_ns;
        let mut ready: Vec<(f64, ThreadId)> = app
            .ranked
            .iter()
            .copied()
            .filter(|&t| view.thread(t).state.is_runnable() && !young(view, t))
            .map(|t| (self.threads.value(t).big_ns as f64 / now.saturating_sub(view.thread(t).started_ns).max(1) as f64, t))
            .collect();
        if ready.len() <= self.big.len() {
            return;
        }
        ready.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let room = cap.saturating_sub(into.len());
        into.extend(ready.into_iter().map(|r| r.1).filter(|t| !into.contains(t)).take(room).collect::<Vec<_>>());
    }

    /// The falls-behind check and the homogeneity test of a scalable app, at the end of each
    /// window: a thread runnable throughout the window that retired less than `behind_fraction` of
    /// the mean of such threads is bound to a big core for a window, and the app is non-scalable
    /// from then on; so it is if such threads are not alike (`HOMOGENEITY_TOL`).
    fn check_progress(&mut self, view: &SystemView, a: AppId) {
        let now = view.now_ns;
        let Some(start) = self.apps[a as usize].window_start_ns else {
            let app = &mut self.apps[a as usize];
            app.window += 1;
            app.window_start_ns = Some(now);
            return;
        };
        if now < start + self.behind_window_ns {
            return;
        }
        let app = &self.apps[a as usize];
        let window = app.window;
        // Per thread runnable throughout: raw and scaled instructions in the window, speedup.
        let mut runners: Vec<(ThreadId, f64, f64, f64)> = Vec::new();
        for &t in &app.ranked {
            let (v, i) = (view.thread(t), self.threads.value(t));
            let throughout = v.started_ns <= start && i.last_blocked_ns.is_none_or(|b| b < start) && v.state.is_runnable();
            if throughout {
                let (raw, equiv) = if i.window == window { (i.window_instructions, i.window_equiv) } else { (0.0, 0.0) };
                runners.push((t, raw, equiv, i.speedup));
            }
        }
        let mean = runners.iter().map(|r| r.1).sum::<f64>() / runners.len().max(1) as f64;
        let behind: Vec<ThreadId> =
            if runners.len() >= 2 { runners.iter().filter(|r| r.1 < self.behind_fraction * mean).map(|r| r.0).collect() } else { Vec::new() };
        for &t in &behind {
            self.threads.get_mut(t).boosted_until_ns = now + self.behind_window_ns;
        }
        let unlike = match self.homogeneity_tol {
            Some(tol) if runners.len() >= 2 => !alike(runners.iter().map(|r| r.2), tol) || !alike(runners.iter().map(|r| r.3), tol),
            _ => false,
        };
        let app = &mut self.apps[a as usize];
        app.non_scalable |= !behind.is_empty() || unlike;
        app.boosted.extend(behind);
        app.window += 1;
        app.window_start_ns = Some(now);
    }

    /// Algorithm 1 for one app: its masks and big set, and the affinities that change.
    fn plan(&mut self, view: &SystemView, a: AppId, out: &mut Placement) {
        let now = view.now_ns;
        let n = self.apps[a as usize].ranked.len();
        let mut big_set = BTreeSet::new();
        let masks = if n <= self.big.len() {
            // The application threads share |T_A| of the big cores; the helpers get the rest.
            let used = CoreSet::from_cores(self.big.iter().take(n));
            self.apps[a as usize].window_start_ns = None;
            Masks { ranked: used.clone(), big_set: used.clone(), helper: self.all.difference(&used) }
        } else {
            let contended = self.contended(view, &self.apps[a as usize]);
            let calm = contended.is_empty() && !self.apps[a as usize].non_scalable;
            if calm && (self.behind_fraction > 0.0 || self.homogeneity_tol.is_some()) {
                self.check_progress(view, a);
            }
            // Machine-wide, threads younger than a quantum that keep their fallback place, C_B,
            // hold big cores too, blocked or not (a blocked one runs there when it wakes): the cap
            // is what they leave.
            let held = if self.machine_scope {
                let app = &self.apps[a as usize];
                app.ranked.iter().filter(|&&t| young(view, t) && view.thread(t).state != ThreadState::Exited && view.thread(t).allowed == self.big).count()
            } else {
                0
            };
            let cap = self.big_cap().saturating_sub(held);
            let threads = &self.threads;
            let app = &mut self.apps[a as usize];
            app.boosted.retain(|&t| threads.value(t).boosted_until_ns > now);
            big_set.extend(app.boosted.iter().copied().take(cap));
            if !calm || app.non_scalable {
                // Windows run only in the scalable class: one starts afresh if it returns.
                app.window_start_ns = None;
                let app = &self.apps[a as usize];
                // The lock set before the execution set: under a cap the bottleneck comes first.
                if self.switches.lock_set && !contended.is_empty() {
                    self.lock_set(view, app, &contended, cap, &mut big_set);
                }
                self.execution_set(view, app, cap, &mut big_set);
            } else if self.rotation {
                self.rotation_set(view, &self.apps[a as usize], cap.min(self.big.len()), &mut big_set);
            }
            Masks { ranked: self.all.clone(), big_set: self.big.clone(), helper: self.small.clone() }
        };
        let app = &mut self.apps[a as usize];
        let old_big = std::mem::replace(&mut app.big, big_set);
        let mut visit: Vec<ThreadId> = std::mem::take(&mut app.touched);
        if app.masks.as_ref() != Some(&masks) {
            visit.extend(app.ranked.iter().chain(app.helpers.iter()).copied());
            app.masks = Some(masks.clone());
        } else {
            visit.extend(old_big.symmetric_difference(&app.big).copied());
        }
        visit.sort_unstable();
        visit.dedup();
        let app = &self.apps[a as usize];
        let mut deferred = Vec::new();
        for t in visit {
            let v = view.thread(t);
            if v.state == ThreadState::Exited {
                continue;
            }
            if young(view, t) {
                // It keeps its start placement for now, and is placed by the first plan after it
                // has lived a quantum, even if it neither runs nor changes until then (one that
                // starts and sleeps would otherwise keep C_B, its fallback, and wake there
                // beside a full big set).
                deferred.push(t);
                continue;
            }
            let cores = if !self.threads.value(t).ranked {
                &masks.helper
            } else if app.big.contains(&t) {
                &masks.big_set
            } else {
                &masks.ranked
            };
            if v.allowed != *cores {
                out.set(t, cores.clone());
            }
        }
        self.apps[a as usize].touched = deferred;
    }
}

/// The values of the `model` option.
const MODELS: [&str; 4] = ["default", "second", "negated", "core-type"];

impl Wash {
    /// App `a`'s predictor: for a trained model, the one trained without the app's catalog
    /// program (an app of no catalog program, or of one the training did not see, gets the
    /// model trained on all programs).
    fn predictor(&mut self, view: &SystemView, a: AppId) -> &dyn SpeedupPredictor {
        let i = a as usize;
        if i >= self.predictors.len() {
            self.predictors.resize_with(i + 1, || None);
        }
        let model = self.model;
        &**self.predictors[i].get_or_insert_with(|| match model {
            "core-type" => Box::new(CoreTypeRatio),
            // Every choice but core-type is in the committed file, which a test parses.
            choice => trained(choice, view.apps[i].program.as_deref()).unwrap_or_else(|_| Box::new(CoreTypeRatio)),
        })
    }
}

/// Whether every value is within `tol` of their mean (the homogeneity test).
fn alike(values: impl Iterator<Item = f64> + Clone, tol: f64) -> bool {
    let n = values.clone().count();
    let mean = values.clone().sum::<f64>() / n.max(1) as f64;
    values.into_iter().all(|x| (x - mean).abs() <= tol * mean)
}

/// A thread that has not lived through a whole quantum yet keeps its start placement (WASH §6:
/// threads shorter than a quantum stay on their fallback cores).
fn young(view: &SystemView, t: ThreadId) -> bool {
    view.thread(t).started_ns > view.interval_start_ns
}

impl Policy for Wash {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.quantum_ns)
    }
    /// Starts for the fallback placement; blocks so that "active" (not blocked in the last two
    /// quanta) sees every block, however short.
    fn triggers(&self) -> Triggers {
        Triggers { start: true, block: true, ..Triggers::NONE }
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        self.counters = Some(view.available.contains(Signals::COUNTERS));
        // On a machine of one kind of core there is nothing to steer.
        if self.small.is_empty() {
            return Ok(());
        }
        if self.changes.missed(view) {
            // Exits may have gone unseen: file the live threads afresh.
            for app in &mut self.apps {
                app.ranked.clear();
                app.helpers.clear();
            }
        }
        for &t in self.changes.since_last(view) {
            self.refresh(view, t);
        }
        match view.trigger {
            Trigger::Start(t) if view.apps[view.thread(t).app as usize].policy_managed => {
                let v = view.thread(t);
                let kind = if self.switches.app_over_runtime { v.kind } else { ThreadKind::App };
                // Machine-wide, an application thread that would make C_B's threads outnumber
                // its cores starts where the plan would put it, on every core, not queued for C_B:
                // one with |C_B| live ranked threads started before it (ids are in start order;
                // threads made at one instant are placed one start at a time, lowest id first),
                // or while |C_B| live threads are bound there already (the last plan's big set, as
                // the rotation fills it, and young threads at their fallback place).
                let crowded = self.machine_scope
                    && kind == ThreadKind::App
                    && self
                        .apps
                        .get(MACHINE_GROUP as usize)
                        .is_some_and(|g| g.ranked.range(..t).count() >= self.big.len() || self.on_big(view, g, t) >= self.big.len());
                let cores = if crowded { self.all.clone() } else { bind_vm_cores(view.machine, kind) };
                if v.allowed != cores {
                    out.set(t, cores);
                }
            }
            Trigger::Quantum => {
                for &t in view.ran {
                    self.progress(view, t);
                }
                for a in std::mem::take(&mut self.dirty) {
                    self.plan(view, a, out);
                    let app = &mut self.apps[a as usize];
                    app.ran.clear();
                    // Young threads the plan left in place make the next quantum plan again.
                    app.dirty = !app.touched.is_empty();
                    if app.dirty {
                        self.dirty.push(a);
                    }
                }
            }
            Trigger::Start(_) | Trigger::Exit(_) | Trigger::Block(_) | Trigger::Wake(_) => {}
        }
        Ok(())
    }
    fn diagnostics(&self) -> Option<&dyn Diagnostics> {
        Some(self)
    }
}

impl Diagnostics for Wash {
    fn sf_estimate(&self, t: ThreadId) -> Option<f64> {
        let s = self.threads.value(t).speedup;
        Some(if s > 0.0 { s } else { self.prior_speedup })
    }
    /// What a report says of the predictions (the live agent's `speedup` line): without counters
    /// every thread is predicted the core types' peak-rate ratio, whatever `model` says.
    fn speedup_source(&self) -> Option<String> {
        Some(match (self.counters, self.model) {
            (None, _) => "none: the policy was never called".to_string(),
            (Some(false), "core-type") => "core type alone: no hardware counters".to_string(),
            (Some(false), m) => format!("core type alone: no hardware counters (model {m} needs them)"),
            (Some(true), "core-type") => "core type alone: model=core-type (hardware counters not used for speedups)".to_string(),
            (Some(true), m) => format!("hardware counters, model {m}"),
        })
    }
}
