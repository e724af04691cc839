//! `camp`: CAMP, the comprehensive asymmetric multicore scheduler of the Sáez thesis (ch. 6,
//! §6.2.1), which caters at once to efficiency (which threads use fast cores best, their speedup
//! factor) and to thread-level parallelism (serial phases, few threads against many).
//!
//! Every thread has a Utility Factor (eq. 6.14, `common::uf`): UF = (SF − 1)/(⌊(N−1)/NFC⌋+1)² + 1,
//! SF its own estimated speedup factor (online, from its LLC miss rate: `common::sf::DynamicSf`,
//! then replaced by the representative SF of its category), N its app's runnable threads, NFC
//! the fast cores. The UF puts the thread in a class, LOW, MEDIUM or HIGH, by a pair of
//! thresholds: one pair while only single-threaded apps run, another once a multi-threaded app
//! runs. Then:
//! - SEQUENTIAL_BOOSTED threads (a HIGH thread alone runnable in its parallel app: a serial
//!   phase) come first for fast cores, for `boost_ticks` (the thesis's `amp_boost_ticks`) of
//!   fast-core time per serial phase (`common::tlp`); a boosted thread whose SF drops is
//!   downgraded to its UF's class at once;
//!   boosted threads are not fair-shared (the first keeps its core until its boost ends or it
//!   blocks);
//! - HIGH threads run on fast cores, shared equally by HAFS's round robin when they outnumber
//!   them (`common::FairShare`);
//! - fast cores left idle go to MEDIUM threads, then LOW ones, not fair-shared (migrations
//!   would cost them their caches);
//! - a new thread warms up as LOW until its SF is first estimated;
//! - an app whose threads could not reach MEDIUM even at the highest SF the machine allows is
//!   skipped: its threads are LOW, and a new SF estimate of theirs changes nothing (no UF is
//!   computed) until its runnable count falls.
//!
//! The §2.3 framework places new threads (lowest scaled load, ties to fast), swaps threads whose
//! classes are out of order, and keeps fast cores busy with one-way moves.
//!
//! The same code runs the two schedulers chapter 6 compares CAMP with (the thesis rebuilt PA on
//! the UF "to share a significant amount of code base"): `sfd` (N always 1: SF classes, no
//! boosting) and `pa-uf` (SF fixed at the machine's highest: TLP classes, every serial phase
//! boosted). `Variant` says which.

use ampsched_model::view::AppId;
use ampsched_model::{Diagnostics, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, ThreadState, Trigger, Triggers, MAX_CORE_TYPES};

use ampsched_model::perf::sf_types;

use crate::common::sf::{categorized_sf, highest_sf, DynamicOptions, DynamicSf, DYNAMIC_OPTIONS, LOWEST_SF};
use crate::common::tlp::{AppClass, AppThreads, Tlp, BOOST_TICKS_OPTION, DEFAULT_BOOST_TICKS};
use crate::common::uf::{utility_factor, Thresholds, Utility};
use crate::common::{Claim, F64Key, FairShare, Partitions, PerThread, FAST, PREFER_LOCAL_OPTION};
use crate::options::{joined, OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

// ---- options, shared with `sfd` and `pa-uf`

/// The thresholds are fractions of the machine's maximum gain (highest SF − 1), so one choice
/// fits machines whose cores differ by 2× (the thesis's AMD) or 1.5× (its Intel); the thesis's
/// thresholds are machine-dependent and not given.
pub const ST_LOWER: OptionInfo = OptionInfo {
    name: "st_lower",
    // Single-threaded mode: UF = SF, so the classes can only be SF ranges; the thesis's own SF
    // category boundaries (1/2 and 4/5 of the gain, §6.3.1) make LOW, MEDIUM and HIGH its low,
    // medium and high SF categories (1.5 and 1.8 on AMD).
    kind: OptionKind::Range { default: 0.5, min: 0.0, max: 1.0 },
    doc: "LOW|MEDIUM utility threshold while only single-threaded apps run, as a fraction of the highest SF's gain (ours: the SF category boundary 1/2)",
};
pub const ST_UPPER: OptionInfo = OptionInfo {
    name: "st_upper",
    kind: OptionKind::Range { default: 0.8, min: 0.0, max: 1.0 },
    doc: "MEDIUM|HIGH utility threshold while only single-threaded apps run, fraction of the highest SF's gain (ours: the SF category boundary 4/5)",
};
pub const MT_LOWER: OptionInfo = OptionInfo {
    name: "mt_lower",
    // Multi-threaded mode: the thesis's single-threaded apps all had UF ≥ 1.23 on AMD (gain 0.23)
    // and it wants even the lowest of them above "most multi-threaded applications" (§6.2.1).
    // 0.2 puts every SF category's single thread (the low label is 0.25) at least MEDIUM, and
    // every app of 3 or more iterations of Algorithm 6.1 (gain ≤ 1/9) in LOW, as the HP apps of
    // Fig. 6.2 (UF ≈ 1) are; 2 iterations are MEDIUM only with a high SF (0.9/4 = 0.225).
    kind: OptionKind::Range { default: 0.2, min: 0.0, max: 1.0 },
    doc: "LOW|MEDIUM utility threshold once a multi-threaded app runs, fraction of the highest SF's gain (ours: 0.2, under every single thread's UF)",
};
pub const MT_UPPER: OptionInfo = OptionInfo {
    name: "mt_upper",
    // Between the low SF category (a memory-bound serial phase: FFTW's, which CAMP keeps MEDIUM
    // and does not boost, §6.3.3) and the medium one (0.65), so that a serial phase or single
    // thread of medium or high SF is HIGH.
    kind: OptionKind::Range { default: 0.6, min: 0.0, max: 1.0 },
    doc: "MEDIUM|HIGH utility threshold once a multi-threaded app runs, fraction of the highest SF's gain (ours: 0.6, above a memory-bound serial phase)",
};
pub const BOOST_TICKS: OptionInfo = BOOST_TICKS_OPTION;
pub const SHARE_THRESHOLD: OptionInfo = OptionInfo {
    name: "share_threshold_ms",
    // rr's: the thesis uses HAFS's mechanism for HIGH threads and gives no threshold for either.
    kind: OptionKind::Range { default: 50.0, min: 0.001, max: 1e6 },
    doc: "HAFS balance-counter threshold for sharing fast cores among HIGH threads, ms (as rr's threshold_ms)",
};
pub const SF_CATEGORIES: OptionInfo = OptionInfo {
    name: "sf_categories",
    kind: OptionKind::Flag(true),
    doc: "replace each SF estimate by the representative SF of its category (low/medium/high, thesis §6.2.1); false: use the raw estimate",
};
pub const SKIP: OptionInfo = OptionInfo {
    name: "skip",
    kind: OptionKind::Flag(true),
    doc: "skip the UF and class updates of an app that could not reach MEDIUM even at the highest SF, until its runnable count falls (thesis §6.2.1's optimisation; its miss rates are still sampled, so no decision changes)",
};

pub const SF_SOURCE: OptionInfo = OptionInfo {
    name: "sf",
    kind: OptionKind::Choice { default: "online", choices: &["online", "offline"] },
    doc: "online: each thread's SF estimated from its counters (CAMP); offline: its program's SF measured before the run, alone on the fastest and the slowest core type (the thesis's oracle comparison, ch. 6: online CAMP \"within 1%\" of it)",
};

/// The four utility thresholds, in every variant.
pub const THRESHOLD_OPTIONS: [OptionInfo; 4] = [ST_LOWER, ST_UPPER, MT_LOWER, MT_UPPER];

pub const OPTIONS: [OptionInfo; 14] =
    joined(&[&DYNAMIC_OPTIONS, &THRESHOLD_OPTIONS, &[BOOST_TICKS, SHARE_THRESHOLD, SF_CATEGORIES, SKIP, SF_SOURCE, PREFER_LOCAL_OPTION]]);

/// What CAMP reads with `options` (`PolicyInfo::needs` plus what an option asks): with
/// `sf=offline`, the offline solo profiles (`Signals::PROFILE`).
pub fn needs(o: &Options) -> Signals {
    if o.choice(SF_SOURCE.name) == "offline" {
        INFO.needs.union(Signals::PROFILE)
    } else {
        INFO.needs
    }
}

pub const INFO: PolicyInfo = PolicyInfo {
    name: "camp",
    description: "CAMP: utility classes from each thread's UF (its estimated SF and its app's runnable threads); serial phases of high utility boosted",
    source: "Sáez thesis, §6.2.1 (CAMP), eq. 6.14 (Utility Factor)",
    options: &OPTIONS,
    needs: Signals::COUNTERS,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(Camp::new(Variant::CAMP, o, m))),
};

// ---- the scheduler

/// Where a variant's SF comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SfSource {
    /// Each thread's own, estimated online from its counters (CAMP, SFD).
    Estimated,
    /// Each thread's program's, measured before the run (`camp:sf=offline`): its instruction
    /// rate alone on a machine of the fastest core type over alone on one of the slowest, from
    /// the profiling runs the runner makes before the run (`Signals::PROFILE`,
    /// `AppView::solo_ips`: the app alone under `oblivious` on machines of one core type each,
    /// what a user measures by running the program pinned to each core type). It is a profile
    /// taken beforehand, per program (and thread group), not the simulator's live state: it
    /// knows no phases (the thesis's oracle used "a-priori measured SFs", its Fig. 6.2 "SF_avg
    /// measured offline by running each app single-threaded on slow, then on fast cores"), nor
    /// co-runners, and it is read once, at a thread's start.
    Offline,
    /// The machine's highest, the same for every thread (PA rebuilt on the UF).
    Highest,
}

/// Which of chapter 6's schedulers the code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    pub name: &'static str,
    pub sf: SfSource,
    /// N is the app's runnable-thread count, and serial phases are boosted (CAMP, PA); else N
    /// is always 1 and nothing is boosted (SFD).
    pub tlp: bool,
}

impl Variant {
    pub const CAMP: Variant = Variant { name: "camp", sf: SfSource::Estimated, tlp: true };
    pub const SFD: Variant = Variant { name: "sfd", sf: SfSource::Estimated, tlp: false };
    pub const PA_UF: Variant = Variant { name: "pa-uf", sf: SfSource::Highest, tlp: true };
}

/// A thread's claim on the fast cores: its class first; within HIGH its balance counter (the
/// thread most behind its fair share first), within MEDIUM and LOW its UF.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank {
    pub class: Utility,
    key: F64Key,
}
impl Claim for Rank {}

/// An app's placement-relevant shape: iterations of Algorithm 6.1 for its runnable count, and
/// whether it is in a boosted serial phase. Its threads' classes change only when this does.
type Shape = (u32, bool);

pub struct Camp {
    variant: Variant,
    parts: Partitions<Rank>,
    estimator: Option<DynamicSf>,
    /// Where its SFs come from (the variant's, or `Offline` for `camp:sf=offline`).
    sf_source: SfSource,
    /// Each thread's offline SF (`SfSource::Offline`), from its start.
    offline: PerThread<Option<f64>>,
    tlp: Tlp,
    share: FairShare,
    /// Quantum: the SF sampling period (the estimator reads one quantum's counters), or for a
    /// variant without estimates, a Solaris tick.
    quantum_ns: u64,
    nfc: u32,
    highest: f64,
    st: Thresholds,
    mt: Thresholds,
    categories: bool,
    skip: bool,
    fast_types: [bool; MAX_CORE_TYPES],
    /// The multi-threaded pair of thresholds is in use.
    mt_mode: bool,
    rank: PerThread<Rank>,
    /// Each app's live threads, and the apps whose runnable count may have changed (or whose
    /// boost ended) since their threads were classified.
    apps: AppThreads,
    /// Per app (indexed by `AppId`): whether it ever had two live threads (a multi-threaded
    /// app, also in its serial phases), its shape as classified.
    multithreaded: PerThread<bool>,
    shape: PerThread<Option<Shape>>,
    /// Runnable threads per class, and the class each is counted under.
    runnable_in_class: [usize; 4],
    counted: PerThread<Option<Utility>>,
    /// Work lists of a call: threads to classify again, threads to put in their class's place.
    dirty: Vec<ThreadId>,
    to_place: Vec<ThreadId>,
    /// Every class change, (time, thread, new class), when asked for (`with_history`): a long
    /// run would otherwise keep a list as long as its events.
    history: Option<Vec<(u64, ThreadId, Utility)>>,
}

impl Camp {
    pub fn new(variant: Variant, o: &Options, m: &Machine) -> Self {
        let parts = Partitions::with_topology(m, o.flag(PREFER_LOCAL_OPTION.name));
        let highest = highest_sf(m);
        let sf_source = if variant == Variant::CAMP && o.choice(SF_SOURCE.name) == "offline" { SfSource::Offline } else { variant.sf };
        let estimator = (sf_source == SfSource::Estimated).then(|| DynamicSf::new(DynamicOptions::from(o)));
        let quantum_ns = match (&estimator, sf_source) {
            (Some(e), _) => e.period_ns(),
            // The same quantum as online CAMP's (its sampling period), so that the two differ
            // only in where the SFs come from.
            (None, SfSource::Offline) => DynamicOptions::from(o).period_ns,
            (None, _) => o.ms("quantum_ms"),
        };
        let boost_ticks = if variant.tlp { o.integer(BOOST_TICKS.name) as u64 } else { DEFAULT_BOOST_TICKS };
        let estimated = sf_source != SfSource::Highest;
        Camp {
            nfc: parts.ncores(FAST) as u32,
            parts,
            estimator,
            sf_source,
            offline: PerThread::new(),
            tlp: Tlp::new(m, None, boost_ticks),
            share: FairShare::new(o.ms(SHARE_THRESHOLD.name) as f64),
            quantum_ns,
            highest,
            st: Thresholds::of_gain(o.number(ST_LOWER.name), o.number(ST_UPPER.name), highest),
            mt: Thresholds::of_gain(o.number(MT_LOWER.name), o.number(MT_UPPER.name), highest),
            categories: estimated && o.flag(SF_CATEGORIES.name),
            skip: estimated && variant.tlp && o.flag(SKIP.name),
            fast_types: m.fast_type_mask(),
            variant,
            mt_mode: false,
            rank: PerThread::new(),
            apps: AppThreads::default(),
            multithreaded: PerThread::new(),
            shape: PerThread::new(),
            runnable_in_class: [0; 4],
            counted: PerThread::new(),
            dirty: Vec::new(),
            to_place: Vec::new(),
            history: None,
        }
    }

    /// Keep every class change, for `history`.
    pub fn with_history(mut self) -> Self {
        self.history = Some(Vec::new());
        self
    }

    /// Every class change so far, (time ns, thread, its new class), if `with_history` asked.
    pub fn history(&self) -> &[(u64, ThreadId, Utility)] {
        self.history.as_deref().unwrap_or_default()
    }

    /// Thread `t`'s class now.
    pub fn class(&self, t: ThreadId) -> Utility {
        self.rank.value(t).class
    }

    /// The order CAMP keeps after every call (§6.2.1's priorities: SEQUENTIAL_BOOSTED, HIGH,
    /// MEDIUM, LOW): a runnable thread of the slow partition whose class beats a runnable thread's
    /// of the fast one, as (slow thread, fast thread), if there is one. For tests; O(threads).
    pub fn class_inversion(&self) -> Option<(ThreadId, ThreadId)> {
        let lowest_fast = self.parts.runnable_in(FAST).min_by_key(|&t| (self.class(t), t))?;
        let highest_slow = (1..self.parts.levels()).flat_map(|l| self.parts.runnable_in(l)).max_by_key(|&t| (self.class(t), t))?;
        (self.class(highest_slow) > self.class(lowest_fast)).then_some((highest_slow, lowest_fast))
    }

    fn thresholds(&self) -> Thresholds {
        if self.mt_mode {
            self.mt
        } else {
            self.st
        }
    }

    /// The N of thread `t`'s UF: its app's runnable threads, or 1 for a variant blind to TLP.
    fn n_of(&self, view: &SystemView, app: AppId) -> u32 {
        if self.variant.tlp {
            view.apps[app as usize].runnable_threads
        } else {
            1
        }
    }

    /// The skip optimisation (§6.2.1): not even the highest SF lifts the app's threads to MEDIUM.
    fn skipped(&self, view: &SystemView, app: AppId) -> bool {
        self.skip && utility_factor(self.highest, self.n_of(view, app), self.nfc) < self.thresholds().lower
    }

    /// The SF thread `t`'s UF uses; None while it warms up (no estimate yet).
    fn sf_of(&self, t: ThreadId) -> Option<f64> {
        let sf = match (&self.estimator, self.sf_source) {
            (Some(e), _) => e.estimated(t),
            (None, SfSource::Offline) => self.offline.value(t),
            (None, _) => return Some(self.highest),
        };
        sf.map(|sf| if self.categories { categorized_sf(sf, self.highest) } else { sf })
    }

    /// Thread `t`'s offline SF: its group's solo rate on the fastest core type over that on the
    /// slowest (`SfSource::Offline`). A group that retired nothing alone gives no evidence: the
    /// lowest SF, as a new thread has online.
    fn offline_sf(view: &SystemView, t: ThreadId) -> Result<f64, PolicyFailure> {
        let v = view.thread(t);
        let Some(ips) = view.apps[v.app as usize].solo_ips.get(v.group as usize).copied().flatten() else {
            return Err(PolicyFailure("camp:sf=offline: no offline solo profile for this thread's program (needs the profiling runs; never live)".into()));
        };
        let (fast, slow) = sf_types(view.machine);
        let sf = ips[fast] / ips[slow];
        Ok(if sf.is_finite() && sf > 0.0 { sf } else { LOWEST_SF })
    }

    /// Thread `t`'s class and claim now.
    fn rank_now(&self, view: &SystemView, t: ThreadId) -> Rank {
        let v = view.thread(t);
        let low = |uf: f64| Rank { class: Utility::Low, key: F64Key(uf) };
        if v.state == ThreadState::Exited || self.skipped(view, v.app) {
            return low(1.0);
        }
        let Some(sf) = self.sf_of(t) else { return low(1.0) };
        let uf = utility_factor(sf, self.n_of(view, v.app), self.nfc);
        let mut class = self.thresholds().class(uf);
        let serial = self.variant.tlp && self.tlp.class(v.app) == AppClass::SerialPhase;
        if class == Utility::High && serial && v.state.is_runnable() {
            class = Utility::SequentialBoosted;
        }
        let key = if class == Utility::High {
            self.share.bc(t)
        } else if class == Utility::SequentialBoosted {
            0.0
        } else {
            uf
        };
        Rank { class, key: F64Key(key) }
    }

    fn set_rank(&mut self, view: &SystemView, t: ThreadId, r: Rank) {
        let old = self.rank.value(t);
        if old == r {
            return;
        }
        self.rank.set(t, r);
        self.parts.set_claim(t, r);
        if old.class != r.class {
            if r.class == Utility::High {
                self.share.reset(t);
            }
            if let Some(h) = &mut self.history {
                h.push((view.now_ns, t, r.class));
            }
            self.to_place.push(t);
        }
    }

    /// Count thread `t` as runnable under its class (or not at all).
    fn recount(&mut self, view: &SystemView, t: ThreadId) {
        let want = view.thread(t).state.is_runnable().then(|| self.rank.value(t).class);
        let had = std::mem::replace(self.counted.get_mut(t), want);
        if let Some(c) = had {
            self.runnable_in_class[c as usize] -= 1;
        }
        if let Some(c) = want {
            self.runnable_in_class[c as usize] += 1;
        }
    }

    /// The threads that changed: their apps' lists, and what to look at again.
    fn note_changes(&mut self, view: &SystemView, changed: &[ThreadId]) {
        for &t in changed {
            let v = view.thread(t);
            self.apps.note(v);
            self.dirty.push(t);
            self.share.touch(t);
            if v.state.is_runnable() {
                self.to_place.push(t);
            }
        }
    }

    /// At a quantum: the SF samples, and the boosts' fast-core time.
    fn sample(&mut self, view: &SystemView) {
        for &t in view.ran {
            let app = view.thread(t).app;
            // Sampling goes on for a skipped app (its cost is negligible, §6.2.1), so its
            // threads' SFs are current when its runnable count falls; what the skip saves is
            // the UF and class updates a new SF would cause.
            let new_sf = self.estimator.as_mut().is_some_and(|e| e.sample(view, t));
            if new_sf && !self.skipped(view, app) {
                self.dirty.push(t);
            }
            if self.class(t) == Utility::SequentialBoosted {
                let fast_ns: u64 = view.interval_of(t).iter().zip(&self.fast_types).filter(|&(_, &f)| f).map(|(c, _)| c.time_ns).sum();
                if self.tlp.charge_boost(app, fast_ns) {
                    self.apps.touch(app);
                }
            }
        }
    }

    /// The pair of thresholds: multi-threaded once an app that ever had two live threads runs.
    fn update_mode(&mut self, view: &SystemView) {
        let mut mt = false;
        for a in view.apps {
            let flag = self.multithreaded.get_mut(a.id);
            *flag |= a.live_threads >= 2;
            mt |= *flag && a.live_threads > 0;
        }
        if mt != self.mt_mode {
            self.mt_mode = mt;
            self.dirty.extend_from_slice(view.live);
        }
    }

    /// Classify again the threads whose class may have changed.
    fn reclassify(&mut self, view: &SystemView) {
        for a in self.apps.take_touched() {
            let runnable = view.apps[a as usize].runnable_threads;
            if self.variant.tlp {
                self.tlp.observe(a, runnable);
            }
            let shape = Some((crate::common::uf::iterations(self.n_of(view, a), self.nfc), self.tlp.class(a) == AppClass::SerialPhase));
            if std::mem::replace(self.shape.get_mut(a), shape) != shape {
                self.dirty.extend(self.apps.of(view, a));
            }
        }
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.sort_unstable();
        dirty.dedup();
        for &t in &dirty {
            let r = self.rank_now(view, t);
            self.set_rank(view, t, r);
            self.recount(view, t);
            let level = (r.class == Utility::High).then(|| self.parts.level(t)).flatten();
            self.share.refile(view, t, level);
        }
        dirty.clear();
        self.dirty = dirty;
    }

    /// HAFS among the HIGH threads: their fair share of fast time is the fast cores boosted
    /// threads leave, over the runnable HIGH threads.
    fn share_high(&mut self, view: &SystemView, out: &mut Placement) {
        let high = self.runnable_in_class[Utility::High as usize];
        let boosted = self.runnable_in_class[Utility::SequentialBoosted as usize];
        let free = (self.nfc as usize).saturating_sub(boosted);
        let alpha = if high == 0 { 0.0 } else { (free as f64 / high as f64).min(1.0) };
        let (parts, rank) = (&self.parts, &self.rank);
        self.share.update(view, alpha, &self.fast_types, |t| (rank.value(t).class == Utility::High).then(|| parts.level(t)).flatten());
        for i in 0..self.share.updated().len() {
            let t = self.share.updated()[i];
            let r = Rank { class: Utility::High, key: F64Key(self.share.bc(t)) };
            self.set_rank(view, t, r);
        }
        self.share.swap_expired(view, &mut self.parts, out);
    }
}

impl Policy for Camp {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.quantum_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let Some(changed) = self.parts.begin(view) else { return Ok(()) };
        self.note_changes(view, changed);
        if let Trigger::Start(t) = view.trigger {
            if self.sf_source == SfSource::Offline {
                self.offline.set(t, Some(Self::offline_sf(view, t)?));
            }
            self.parts.place_new(view, t, out);
            // Placed by load, not class: put it in its class's place below. (A thread that
            // started with it was listed as changed while it had no partition yet.)
            self.to_place.push(t);
        }
        let quantum = view.trigger == Trigger::Quantum;
        if quantum {
            self.sample(view);
        }
        self.update_mode(view);
        self.reclassify(view);
        // Classes out of order across partitions: swap (a thread that changed class, or became
        // runnable, with the partner of the other partition its class beats or loses to).
        let mut to_place = std::mem::take(&mut self.to_place);
        to_place.sort_unstable();
        to_place.dedup();
        for &t in &to_place {
            self.parts.exchange_while(view, t, out, |a, b| a.class > b.class);
        }
        to_place.clear();
        self.to_place = to_place;
        if quantum {
            self.share_high(view, out);
        }
        let rank = &self.rank;
        self.parts.keep_fast_busy(view, out, |v| rank.value(v.id));
        Ok(())
    }
    fn diagnostics(&self) -> Option<&dyn Diagnostics> {
        Some(self)
    }
}

impl Diagnostics for Camp {
    fn sf_estimate(&self, t: ThreadId) -> Option<f64> {
        match (&self.estimator, self.sf_source) {
            (Some(e), _) => Some(e.sf(t)),
            (None, SfSource::Offline) => self.offline.value(t),
            _ => None,
        }
    }
}
