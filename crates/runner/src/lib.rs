//! Runs experiments: resolves machines, workloads and policies; simulates; derives metrics
//! against solo references; compares policies; searches the best-static oracle; and renders
//! results as JSON (the Python front turns them into DataFrames, tables and reports).

pub mod catalog;
pub mod mix;
pub mod noc_traffic;
pub mod speedup_training;
pub mod task_options;

/// The hook `Settings::interrupt` takes, for fronts that do not use the simulator directly.
pub use ampsched_sim::{Interrupt, Progress};

use std::collections::BTreeMap;

use ampsched_model::Signals;
use ampsched_model::{defaults, limits, Baseline, InputError, Machine, Policy, SimpleModel, SoloIps, Workload, MAX_CORE_TYPES};
use ampsched_policy::baseline::best_static::{self, BestStatic};
use ampsched_policy::baseline::bound::{self, Bound};
use ampsched_policy::baseline::oblivious::{self, Oblivious};
/// The static SF estimator's default base CPI (`Experiment::sf_estimation`), for the bindings.
pub use ampsched_policy::common::sf_model::THESIS_BASE_CPI;
use ampsched_policy::{OptionInfo, OptionKind, Options, PolicyInfo, PolicySpec, POLICIES};
use ampsched_sim::{metrics, simulator_signals, AppMetrics, Metrics, RunResult, SimConfig, SimError};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// Anything that stops a run: bad input (exit status 2 in the CLI) or an unfinishable workload.
#[derive(Debug, Clone)]
pub enum Error {
    Input(InputError),
    /// A run that cannot complete, and the workload file it came from.
    Sim {
        workload: String,
        error: SimError,
    },
    /// The caller's progress callback asked to stop (e.g. Ctrl-C in Python).
    Cancelled,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Input(e) => write!(f, "{e}"),
            // The workload is named where it is the cause; a policy's error or Ctrl-C is not its.
            Error::Sim { workload, error: error @ (SimError::Deadlock(_) | SimError::OverBudget(_)) } => write!(f, "{workload}: {error}"),
            Error::Sim { error, .. } => write!(f, "{error}"),
            Error::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl From<InputError> for Error {
    fn from(e: InputError) -> Self {
        Error::Input(e)
    }
}

/// Timeline segments returned to the caller for a report (a trace file keeps many more).
const TIMELINE_SEGMENTS: usize = 20_000;
const TRACE_SEGMENTS: usize = 5_000_000;

/// Settings shared by every run of an experiment.
#[derive(Debug, Clone)]
pub struct Settings {
    pub seed: u64,
    pub slice_ms: f64,
    pub timeline: bool,
    pub trace: Option<String>,
    /// The simulated-time budget of each run, s (`limits::DEFAULT_MAX_SIM_S`).
    pub max_sim_s: f64,
    /// The event budget of the experiment (`limits::DEFAULT_MAX_EVENTS`): every simulation it
    /// makes draws from this one budget (`Experiment::simulate_on`).
    pub max_events: u64,
    /// Given to every simulation of the experiment: stops them all (`SimConfig::interrupt`).
    pub interrupt: Option<Interrupt>,
    /// The measurement noise on the counters policies read (`defaults::COUNTER_NOISE`; 0: exact).
    pub counter_noise: f64,
    /// `--set` edits of the machine, "TYPE.KEY=VALUE" or "KEY=VALUE" (`catalog::machine_with`).
    pub machine_set: Vec<String>,
    /// `compare --trace DIR`: one trace file per policy in DIR (`compare_candidates`).
    pub trace_dir: Option<String>,
    /// Whether `trace_dir`'s files may replace existing ones (`--force`).
    pub replace_traces: bool,
    /// Record each power rail's power by windows of this many seconds (the big.LITTLE paper's
    /// daemon: 0.27 s, `ampsched_sim::power::PAPER_SAMPLE_S`) into the result's `power_trace`;
    /// None: no trace.
    pub power_sample_s: Option<f64>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: defaults::SEED,
            slice_ms: defaults::SLICE_MS,
            timeline: false,
            trace: None,
            max_sim_s: limits::DEFAULT_MAX_SIM_S,
            max_events: limits::DEFAULT_MAX_EVENTS,
            interrupt: None,
            counter_noise: defaults::COUNTER_NOISE,
            machine_set: Vec::new(),
            trace_dir: None,
            replace_traces: false,
            power_sample_s: None,
        }
    }
}

impl Settings {
    /// The ranges of the settings that a run checks before it starts, callable alone so that a
    /// sweep can reject a bad setting before its first run.
    pub fn check(&self) -> Result<(), Error> {
        // The range a policy's slice has (Linux's): shorter would make a run crawl through
        // billions of switches, longer is no time-sharing, and beyond it the slice leaves u64 ns.
        let (min_ms, max_ms) = (defaults::MIN_SLICE_NS as f64 / 1e6, defaults::MAX_SLICE_NS as f64 / 1e6);
        if !(min_ms..=max_ms).contains(&self.slice_ms) {
            let why = format!("must be from {min_ms} to {max_ms} ms (Linux's range for a slice), got {}", self.slice_ms);
            return Err(InputError::new("--slice-ms", "", why).into());
        }
        if !limits::MAX_SIM_S.contains(self.max_sim_s) {
            let why = format!("must be {}, got {}", limits::MAX_SIM_S.describe(), limits::number_text(self.max_sim_s));
            return Err(InputError::new("--max-sim-s", "", why).into());
        }
        if !limits::MAX_EVENTS.contains(self.max_events as f64) {
            let why = format!("must be a whole number {}, got {}", limits::MAX_EVENTS.describe(), self.max_events);
            return Err(InputError::new("--max-events", "", why).into());
        }
        if !limits::COUNTER_NOISE.contains(self.counter_noise) {
            let why = format!(
                "must be {} (the relative standard deviation of a counter read; 0: exact), got {}",
                limits::COUNTER_NOISE.describe(),
                limits::number_text(self.counter_noise)
            );
            return Err(InputError::new("--counter-noise", "", why).into());
        }
        if let Some(s) = self.power_sample_s.filter(|&s| !limits::POWER_SAMPLE_S.contains(s)) {
            let why = format!("must be {}, got {}", limits::POWER_SAMPLE_S.describe(), limits::number_text(s));
            return Err(InputError::new("--power-trace", "", why).into());
        }
        Ok(())
    }
}

/// One machine and workload, with their solo references computed once.
pub struct Experiment {
    pub machine: Machine,
    pub workload: Workload,
    pub settings: Settings,
    /// The workload as errors name it: its path, or its catalog file.
    workload_file: String,
    solo_s: Option<Vec<f64>>,
    /// The workload with every group's offline solo profile, once a policy needed it.
    profiled: Option<Workload>,
    /// Events its simulations have used so far of `settings.max_events`.
    events_used: std::cell::Cell<u64>,
    /// The solo runs made so far (`SoloCache`).
    cache: SoloCache,
}

/// The solo runs an experiment makes (reference runs on the all-fast machine, offline profiling
/// runs on each core type), by app content (`solo_key`): copies of one app are simulated once,
/// and a batch of mixes on one machine with one settings (`run_mixes`) carries it from mix to
/// mix, so that each program's solo runs are made once per batch. A solo run depends only on the
/// machine, the app and the settings, so a result from the cache is the one a fresh run gives.
#[derive(Debug, Clone, Default)]
pub struct SoloCache {
    solo: BTreeMap<String, f64>,
    profiles: BTreeMap<String, Vec<SoloIps>>,
}

impl Experiment {
    pub fn new(machine: &str, workload: &str, settings: Settings) -> Result<Self, Error> {
        settings.check()?;
        if settings.trace.as_deref() == Some("") {
            // Before the run, not after it: a mistyped path should not cost a simulation.
            return Err(InputError::new("--trace", "", "the path is empty").into());
        }
        let (m, w) = (catalog::machine_with(machine, &settings.machine_set)?, catalog::workload(workload)?);
        Experiment::from_parts(machine, m, catalog::workload_file(workload), w, settings, SoloCache::default())
    }

    /// An experiment of a machine and workload already read (`machine_arg` and `workload_file`
    /// name them in errors), with the solo runs of `cache` (`SoloCache`): the checks of `new`.
    pub fn from_parts(machine_arg: &str, m: Machine, workload_file: String, w: Workload, settings: Settings, cache: SoloCache) -> Result<Self, Error> {
        m.check_llc_sizes(machine_arg, w.has_miss_curves())?;
        if settings.power_sample_s.is_some() && !m.models_energy() {
            let why = format!("the machine {machine_arg} does not give every core type a power (power_active_w, power_idle_w), so it has no power to trace");
            return Err(InputError::new("--power-trace", "", why).into());
        }
        // A phase's CPI table must cover every core type (or give a `default`): refused here,
        // naming the table's file and key, before any run.
        ampsched_model::perf::check_uarch_cpi(&m, &w)?;
        // A queue spinlock needs the machine's mesh, its home on it (docs/queue-spinlock.md).
        let nodes = ampsched_model::queue_spinlock::mesh_nodes(&m);
        ampsched_model::queue_spinlock::check(&w, nodes, machine_arg).map_err(|(key, why)| InputError::new(&workload_file, key, why))?;
        // `count = "cores"` groups (a managed runtime's GC threads) get this machine's cores.
        let w = w.for_machine(m.num_cores() as u32).map_err(|why| InputError::new(&workload_file, "count", why))?;
        Ok(Experiment { machine: m, workload: w, settings, workload_file, solo_s: None, profiled: None, events_used: std::cell::Cell::new(0), cache })
    }

    /// The solo runs the experiment has made, for the next one (`SoloCache`).
    pub fn into_cache(self) -> SoloCache {
        self.cache
    }

    fn config(&self, segments: usize, run_name: &str, reads: Signals) -> SimConfig {
        SimConfig {
            slice_ns: (self.settings.slice_ms * 1e6).round().max(1.0) as u64,
            seed: self.settings.seed,
            max_segments: segments,
            // Within MAX_SIM_S (checked in `new`), so the product is far below u64::MAX.
            max_sim_ns: (self.settings.max_sim_s * 1e9).round() as u64,
            max_events: self.settings.max_events,
            events_before: self.events_used.get(),
            run_name: run_name.to_string(),
            interrupt: self.settings.interrupt.clone(),
            counter_noise: self.settings.counter_noise,
            policy_reads_counters: reads.contains(Signals::COUNTERS),
            power_sample_ns: self.settings.power_sample_s.map_or(0, |s| (s * 1e9).round().max(1.0) as u64),
            ..SimConfig::default()
        }
    }

    /// One simulation of the experiment; `run_name` says which, as its errors name it ("the
    /// solo reference run of wupwise_m", "the run of rr").
    ///
    /// The event budget (`Settings::max_events`) is the experiment's, not each simulation's:
    /// every simulation draws from it what the earlier ones left, so that it bounds the wall
    /// time of the whole command (`run`: its solo references, profiling runs and best-static's
    /// candidates too; `compare`: every policy's), whatever the number of simulations the
    /// command makes. One budget, rather than a share each: the number of simulations depends on
    /// the workload (one solo reference per distinct app, 2^k best-static candidates), and a
    /// share would stop a long run that the others left room for.
    /// `reads`: what the policy reads (`reads`, or a Python policy's `needs`): a policy that
    /// does not read counters does not pay for their noisy view (`SimConfig::policy_reads_counters`).
    pub fn simulate_on(&self, m: &Machine, w: &Workload, policy: &mut dyn Policy, reads: Signals, segments: usize, run_name: &str) -> Result<RunResult, Error> {
        // Over the local scheduler the policy asks for (`Policy::os_scheduler`; CFS by default).
        let r = ampsched_sim::simulate(m, w, &SimpleModel, policy, self.config(segments, run_name, reads))
            .map_err(|error| Error::Sim { workload: self.workload_file.clone(), error })?;
        self.events_used.set(self.events_used.get() + r.events);
        Ok(r)
    }

    /// Each app alone on an all-fast machine with as many cores, under `oblivious`.
    pub fn solo_references(&mut self) -> Result<Vec<f64>, Error> {
        if let Some(s) = &self.solo_s {
            return Ok(s.clone());
        }
        let fast = self.machine.all_fast();
        let mut out = Vec::new();
        for i in 0..self.workload.apps.len() {
            let solo = self.workload.solo(i);
            // Copies of one app have the same reference; simulate it once.
            let key = solo_key(&solo);
            let t = match self.cache.solo.get(&key) {
                Some(t) => *t,
                None => {
                    let r = self.simulate_on(
                        &fast,
                        &solo,
                        &mut Oblivious,
                        reads(&oblivious::INFO),
                        0,
                        &format!("the solo reference run of {}", solo.apps[0].name),
                    )?;
                    let t = r.apps[0].turnaround_s();
                    self.cache.solo.insert(key, t);
                    t
                }
            };
            out.push(t);
        }
        self.solo_s = Some(out.clone());
        Ok(out)
    }

    /// What `run` checks before simulating anything: the spec, its options, and that this
    /// machine and workload give what the policy needs. A sweep checks every policy of its grid
    /// this way before its first run, so that a typo does not fail every run of the sweep.
    pub fn check(&self, spec_text: &str) -> Result<(), Error> {
        let spec = PolicySpec::parse(spec_text)?;
        if spec.name == DEFAULT_BASELINE {
            if !spec.options.is_empty() {
                return Err(InputError::new("--baseline", spec_text.trim(), "the default baseline takes no options").into());
            }
            return Ok(());
        }
        ampsched_policy::check(&spec)?;
        // The offline profiles are made for the policy that needs them (`profile_for`): always
        // there by the time it runs.
        self.check_needs(&self.workload, &spec.canonical(), &spec.name, ampsched_policy::needs(&spec)?.without(Signals::PROFILE))
    }

    /// Each app's offline solo profile, as profiling runs before the run would measure it: per
    /// group, its instructions per second of CPU time alone on each core type (the app alone,
    /// under `oblivious`, on this machine with every core of that type: the solo references'
    /// runs, on each type instead of only the fastest). What `Signals::PROFILE` gives a policy.
    pub fn solo_profiles(&mut self) -> Result<Vec<Vec<SoloIps>>, Error> {
        let machines: Vec<Machine> = (0..self.machine.core_types.len()).map(|ty| self.machine.all_of_type(ty)).collect();
        let mut out = Vec::new();
        for i in 0..self.workload.apps.len() {
            let solo = self.workload.solo(i);
            let key = solo_key(&solo);
            if let Some(p) = self.cache.profiles.get(&key) {
                out.push(p.clone());
                continue;
            }
            let mut ips = vec![[0.0; MAX_CORE_TYPES]; solo.apps[0].groups.len()];
            for (ty, m) in machines.iter().enumerate() {
                let name = format!("the profiling run of {} on core type '{}'", solo.apps[0].name, self.machine.core_types[ty].name);
                let r = self.simulate_on(m, &solo, &mut Oblivious, reads(&oblivious::INFO), 0, &name)?;
                for (g, rate) in ips.iter_mut().enumerate() {
                    // The machine has one core type, index 0.
                    let (instructions, ns) = r
                        .threads
                        .iter()
                        .filter(|t| t.group as usize == g)
                        .fold((0.0, 0u64), |(i, n), t| (i + t.per_type[0].instructions, n + t.per_type[0].time_ns));
                    rate[ty] = if ns > 0 { instructions / ns as f64 * 1e9 } else { 0.0 };
                }
            }
            self.cache.profiles.insert(key, ips.clone());
            out.push(ips);
        }
        Ok(out)
    }

    /// HASS-S's static SF estimate against the observed SF, per group of every app (the Sáez
    /// thesis's Fig. 4.1: "estimated vs observed speedup factors"). The estimate is the one
    /// `hass-s:base_cpi=BASE_CPI` uses (`ampsched_policy::common::sf::static_sf`: the group's
    /// signature in the thesis's model, never the engine's); the observed SF is the group's
    /// instruction rate alone on the fastest core type over alone on the slowest, from the
    /// offline profiling runs (`solo_profiles`: the app alone under `oblivious` on machines of
    /// each core type only). Rows: app, group, program, signature CPI (the program's true mean
    /// CPI, which the estimate does not read), signature MPKI at the fastest and slowest
    /// types' LLC sizes, estimated SF, observed SF. Groups without a signature (no instructions)
    /// are left out.
    pub fn sf_estimation(&mut self, base_cpi: f64) -> Result<Value, Error> {
        // The range of hass-s's `base_cpi`, so that every estimate shown is one the policy makes.
        if let OptionKind::Range { min, max, .. } = ampsched_policy::common::sf::BASE_CPI_OPTION.kind {
            if !(min..=max).contains(&base_cpi) {
                return Err(InputError::new("sf_estimation", "base_cpi", format!("{base_cpi} is out of range [{min}, {max}]")).into());
            }
        }
        let profiles = self.solo_profiles()?;
        let m = &self.machine;
        // The observed SF between the truly fastest and slowest types: the measure of the estimates.
        let (fast, slow) = ampsched_model::perf::true_sf_types(m);
        let mut rows = Vec::new();
        for (app, ips) in self.workload.apps.iter().zip(&profiles) {
            for (g, (group, rate)) in app.groups.iter().zip(ips).enumerate() {
                let Some(sig) = &group.signature else { continue };
                let observed = if rate[slow] > 0.0 { rate[fast] / rate[slow] } else { f64::NAN };
                rows.push(json!({
                    "app": app.name, "group": g, "program": app.program,
                    "cpi": sig.cpi,
                    "mpki_fast": sig.misses.mpki_at(m.llc_size_kb_of_type(fast)),
                    "mpki_slow": sig.misses.mpki_at(m.llc_size_kb_of_type(slow)),
                    "estimated_sf": ampsched_policy::common::sf::static_sf(m, sig, base_cpi),
                    "observed_sf": observed,
                }));
            }
        }
        Ok(Value::Array(rows))
    }

    /// Measure the solo profiles if a policy that needs `needs` will read them (once per
    /// experiment): `workload_of` then gives the workload with them.
    fn profile_for(&mut self, needs: Signals) -> Result<(), Error> {
        if needs.contains(Signals::PROFILE) && self.profiled.is_none() {
            let profiles = self.solo_profiles()?;
            let mut w = self.workload.clone();
            for (app, ips) in w.apps.iter_mut().zip(profiles) {
                for (g, rate) in app.groups.iter_mut().zip(ips) {
                    g.solo_ips = Some(rate);
                }
            }
            self.profiled = Some(w);
        }
        Ok(())
    }

    /// The workload a policy that needs `needs` runs: with the solo profiles (`profile_for`) if
    /// it needs them.
    fn workload_of(&self, needs: Signals) -> &Workload {
        match &self.profiled {
            Some(w) if needs.contains(Signals::PROFILE) => w,
            _ => &self.workload,
        }
    }

    /// Run one registered policy, or the default baseline (`DEFAULT_BASELINE`); returns its
    /// JSON result.
    pub fn run(&mut self, spec_text: &str) -> Result<Value, Error> {
        let spec = PolicySpec::parse(spec_text)?;
        if spec.name == DEFAULT_BASELINE {
            if !spec.options.is_empty() {
                return Err(InputError::new("--baseline", spec_text.trim(), "the default baseline takes no options").into());
            }
            return self.default_baseline();
        }
        let solo = self.solo_references()?;
        let segments = self.segments();
        let info = ampsched_policy::info(&spec.name)?;
        let needs = ampsched_policy::needs(&spec)?;
        self.profile_for(needs)?;
        self.check_needs(self.workload_of(needs), &spec.canonical(), &spec.name, needs)?;
        let (result, extra, estimates) = if let ampsched_policy::Build::Oracle = info.build {
            let (result, extra) = self.best_static(&spec, &solo, segments)?;
            (result, extra, Vec::new())
        } else {
            let workload = self.workload_of(needs);
            let mut policy = ampsched_policy::build(&spec, &self.machine)?;
            let result = self.simulate_on(&self.machine, workload, policy.as_mut(), reads(info), segments, &format!("the run of {}", spec.canonical()))?;
            let estimates = policy.diagnostics().map(|d| d.efficiency_estimates()).unwrap_or_default();
            (result, None, estimates)
        };
        let mut v = self.result_json(&spec, &result, &solo, extra)?;
        if !estimates.is_empty() {
            self.add_efficiency_error(&mut v, &result, &estimates)?;
        }
        Ok(v)
    }

    /// The efficiency estimator's error against the pinned runs (Kim & Huh, IEEE TC 2018, §7.5):
    /// per app, the policy's estimate (its threads' estimates averaged over the intervals until
    /// the first app finished a run, `Diagnostics::efficiency_estimates`, then over its threads)
    /// against its true efficiency, the instruction rate alone on the fastest core type over
    /// alone on the slowest from the solo profiling runs (`solo_profiles`; the mean over the
    /// app's estimated threads' groups); error |estimate − true| / true, the paper's form. Beside
    /// it, the mean of each interval's own error (`efficiency_interval_error`): how far one
    /// interval's estimate, the one that drives the next interval's shares, is off (§7.5's Fig.
    /// 13: shorter intervals fluctuate more). Added to each app's row (`efficiency_estimate`,
    /// `efficiency_true`, `efficiency_error`, `efficiency_interval_error`) and, as mean and max
    /// over the apps with an estimate, to the run's (`efficiency_error`, `efficiency_error_max`,
    /// `efficiency_interval_error`).
    fn add_efficiency_error(&mut self, v: &mut Value, result: &RunResult, estimates: &[(u32, Vec<f64>)]) -> Result<(), Error> {
        let profiles = self.solo_profiles()?;
        // The true efficiency is the hardware's (`true_sf_types`), whatever the OS reports.
        let (fast, slow) = ampsched_model::perf::true_sf_types(&self.machine);
        // Per app: sums over its estimated threads of their mean estimate, their true efficiency
        // and their mean per-interval error; and the count.
        let mut per_app = vec![(0.0, 0.0, 0.0, 0u32); self.workload.apps.len()];
        for (t, history) in estimates {
            let Some(th) = result.threads.get(*t as usize) else { continue };
            let rate = profiles[th.app as usize][th.group as usize];
            let truth = rate[fast] / rate[slow];
            if !truth.is_finite() || truth <= 0.0 || history.is_empty() {
                continue;
            }
            let n = history.len() as f64;
            let a = &mut per_app[th.app as usize];
            a.0 += history.iter().sum::<f64>() / n;
            a.1 += truth;
            a.2 += history.iter().map(|e| (e - truth).abs() / truth).sum::<f64>() / n;
            a.3 += 1;
        }
        let (mut errors, mut interval_errors) = (Vec::new(), Vec::new());
        let apps = v["apps"].as_array_mut().expect("a run has its apps");
        for (row, &(est, truth, interval, n)) in apps.iter_mut().zip(&per_app) {
            if n == 0 {
                continue;
            }
            let (est, truth, interval) = (est / n as f64, truth / n as f64, interval / n as f64);
            let error = (est - truth).abs() / truth;
            errors.push(error);
            interval_errors.push(interval);
            let o = row.as_object_mut().expect("an app row is an object");
            o.insert("efficiency_estimate".into(), json!(est));
            o.insert("efficiency_true".into(), json!(truth));
            o.insert("efficiency_error".into(), json!(error));
            o.insert("efficiency_interval_error".into(), json!(interval));
        }
        if !errors.is_empty() {
            let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
            let o = v.as_object_mut().expect("a run result is an object");
            o.insert("efficiency_error".into(), json!(mean(&errors)));
            o.insert("efficiency_error_max".into(), json!(errors.iter().copied().fold(0.0, f64::max)));
            o.insert("efficiency_interval_error".into(), json!(mean(&interval_errors)));
        }
        Ok(())
    }

    /// Run a policy made outside the registry (a Python policy) that needs `needs`; returns its
    /// JSON result, of the same shape as `run`'s, with `label` as its "policy". A policy that
    /// fails (`Policy::decide`'s error) ends the run with its error, as `--policy`'s.
    pub fn run_policy(&mut self, label: &str, needs: Signals, policy: &mut dyn Policy) -> Result<Value, Error> {
        let solo = self.solo_references()?;
        let segments = self.segments();
        self.profile_for(needs)?;
        let workload = self.workload_of(needs);
        self.check_needs(workload, label, label, needs)?;
        let result = match self.simulate_on(&self.machine, workload, policy, needs, segments, &format!("the run of {label}")) {
            Err(Error::Sim { error: SimError::PolicyFailed(why), .. }) => return Err(InputError::new("--policy", label, why.0).into()),
            result => result,
        };
        // A label is not a registered spec: it is carried as a name without options, so that
        // it comes out in the JSON and the trace as given.
        let spec = PolicySpec { name: label.to_string(), options: BTreeMap::new() };
        self.result_json(&spec, &result?, &solo, None)
    }

    /// Why registered policy `spec_text` cannot run on this machine and workload at all, found
    /// before any run of it: the oracle's search limits (`best_static::searchable`), or a signal it
    /// needs that the simulator cannot give with this workload. None if it can run.
    pub fn cannot_run(&mut self, spec_text: &str) -> Result<Option<String>, Error> {
        let spec = PolicySpec::parse(spec_text)?;
        if spec.name == DEFAULT_BASELINE {
            return Ok(None);
        }
        let info = ampsched_policy::info(&spec.name)?;
        if let ampsched_policy::Build::Oracle = info.build {
            if let Err(e) = best_static::searchable(&self.machine, &self.workload) {
                return Ok(Some(e.message));
            }
        }
        let needs = ampsched_policy::needs(&spec)?;
        self.profile_for(needs)?;
        let workload = self.workload_of(needs);
        Ok(needs.check(simulator_signals(workload), &format!("the simulator with workload '{}'", workload.name)).err())
    }

    /// Segments to record: many for a trace file, some for a report's timeline, else none.
    fn segments(&self) -> usize {
        if self.settings.trace.is_some() {
            TRACE_SEGMENTS
        } else if self.settings.timeline {
            TIMELINE_SEGMENTS
        } else {
            0
        }
    }

    /// The check every policy passes before it runs: the simulator gives what it needs.
    fn check_needs(&self, workload: &Workload, key: &str, name: &str, needs: Signals) -> Result<(), Error> {
        needs
            .check(simulator_signals(workload), &format!("the simulator with workload '{}'", workload.name))
            .map_err(|why| InputError::new("--policy", key, format!("{name} cannot run: {why}")).into())
    }

    /// Metrics, the trace file if asked for, and the JSON result of a finished run.
    fn result_json(&self, spec: &PolicySpec, result: &RunResult, solo: &[f64], extra: Option<Value>) -> Result<Value, Error> {
        let met = metrics(&self.machine, result, solo);
        if let Some(path) = &self.settings.trace {
            let text = ampsched_sim::trace::chrome_trace(&self.machine, &self.workload, result, &spec.canonical());
            ampsched_sim::trace::write_trace(path, &text)?;
        }
        let mut v = self.to_json(spec, result, &met);
        if let Some(extra) = extra {
            v.as_object_mut().unwrap().insert("oracle".into(), extra);
        }
        Ok(v)
    }

    /// The Sáez thesis's default metric (§4.3.3) as one result row, "default": the mean of the
    /// `bound` rotations, offsets 0..cores-1 (run r pins the j-th thread to core (j + r) mod
    /// cores for its whole life).
    ///
    /// The thesis averages each benchmark's completion time bound to a fast core and bound to a
    /// slow core ("the expected completion time of a benchmark ... randomly bound to a core at
    /// the start of its execution"). Over the rotations every thread is bound once to every
    /// core, so an app's mean turnaround over them is that expectation with every core equally
    /// likely: the average of its bound-fast and bound-slow times weighted by the core counts
    /// (1:1 on 2FC-2SC, 1:3 on 4FC-12SC, where the thesis says only "average"). It is computed
    /// from bound runs and so does not depend on the seed (a bound thread never meets the
    /// local scheduler's random choice), unlike one seeded `static` or `oblivious` run.
    ///
    /// What the row's fields mean: per app, turnaround = the mean over the rotations (each
    /// rotation's turnaround being the mean of its measured runs), slowdown and fast share
    /// from all rotations together; antt, stp, fairness and uniformity from those per-app
    /// values. makespan_s, idle_while_waiting_s, energy_j (and per core busy_s, energy_j) are means over the
    /// rotations and edp = energy_j × makespan_s; nj_per_instruction and instructions_per_s are
    /// totals over all rotations divided (so the ratio of the means); migrations, events,
    /// policy_calls and decisions are means rounded to whole numbers, instructions the mean.
    /// `threads` lists every rotation's threads, numbered on from one rotation to the next;
    /// a timeline or trace is rotation 0's. `rotations` gives each run's policy, makespan and
    /// per-app turnarounds.
    pub fn default_baseline(&mut self) -> Result<Value, Error> {
        let solo = self.solo_references()?;
        let segments = self.segments();
        let n = self.machine.num_cores();
        let mut runs = Vec::with_capacity(n);
        for r in 0..n {
            let mut p = Bound::new(n, r);
            let name = format!("the run of {DEFAULT_BASELINE} (bound:offset={r}, rotation {} of {n})", r + 1);
            runs.push(self.simulate_on(&self.machine, &self.workload, &mut p, reads(&bound::INFO), if r == 0 { segments } else { 0 }, &name)?);
        }
        let rotations: Vec<Value> = runs
            .iter()
            .enumerate()
            .map(|(r, run)| {
                let t: Vec<f64> = run.apps.iter().map(|a| a.turnaround_s()).collect();
                json!({"policy": format!("bound:offset={r}"), "makespan_s": run.makespan_ns as f64 / 1e9, "turnaround_s": t})
            })
            .collect();
        let mut merged = merge_rotations(runs);
        let mut met = metrics(&self.machine, &merged, &solo);
        let k = n as f64;
        met.makespan_s /= k;
        met.energy_j = met.energy_j.map(|e| e / k);
        met.core_energy_j.iter_mut().flatten().for_each(|e| *e /= k);
        met.rail_energy_j.iter_mut().flatten().for_each(|e| *e /= k);
        met.edp = met.energy_j.map(|e| e * met.makespan_s);
        let mean = |x: u64| (x as f64 / k).round() as u64;
        merged.migrations = mean(merged.migrations);
        merged.idle_while_waiting_ns = mean(merged.idle_while_waiting_ns);
        merged.events = mean(merged.events);
        merged.policy_calls = mean(merged.policy_calls);
        merged.decisions = mean(merged.decisions);
        for c in &mut merged.cores {
            c.busy_ns = mean(c.busy_ns);
        }
        let spec = PolicySpec { name: DEFAULT_BASELINE.to_string(), options: BTreeMap::new() };
        if let Some(path) = &self.settings.trace {
            let text = ampsched_sim::trace::chrome_trace(&self.machine, &self.workload, &merged, "default (bound:offset=0)");
            ampsched_sim::trace::write_trace(path, &text)?;
        }
        let mut v = self.to_json(&spec, &merged, &met);
        let o = v.as_object_mut().unwrap();
        o.insert("instructions".into(), json!(merged.instructions() / k));
        o.insert("rotations".into(), Value::Array(rotations));
        Ok(v)
    }

    /// Simulate the oracle's candidates and keep the one with the lowest geometric mean of
    /// slowdowns (the thesis's figure of merit, §4.3.3: completion times normalised to the
    /// default metric, summarised by their geometric mean; normalising to the solo times instead
    /// divides every candidate's score by the same constant, so the choice is the same).
    fn best_static(&self, spec: &PolicySpec, solo: &[f64], segments: usize) -> Result<(RunResult, Option<Value>), Error> {
        let max_runs = best_static::max_runs(&Options::new(spec, best_static::INFO.options)?);
        let cands = best_static::candidates(&self.machine, &self.workload, &SimpleModel, max_runs)?;
        let mut best: Option<(f64, usize)> = None;
        for (i, a) in cands.iter().enumerate() {
            let mut p = BestStatic::new(&self.machine, a.clone());
            let name = format!("the run of {}'s candidate {} of {}", spec.canonical(), i + 1, cands.len());
            let r = self.simulate_on(&self.machine, &self.workload, &mut p, reads(&best_static::INFO), 0, &name)?;
            let score = geomean_slowdown(&metrics(&self.machine, &r, solo));
            if best.is_none_or(|(b, _)| score < b) {
                best = Some((score, i));
            }
        }
        let (_, i) = best.expect("there is always at least one admissible assignment");
        let mut p = BestStatic::new(&self.machine, cands[i].clone());
        let r = self.simulate_on(&self.machine, &self.workload, &mut p, reads(&best_static::INFO), segments, &format!("the run of {}", spec.canonical()))?;
        let fast: Vec<Value> = cands[i]
            .iter()
            .filter(|(_, level)| **level == ampsched_policy::common::FAST)
            .map(|((a, g, t), _)| {
                let app = &self.workload.apps[*a as usize];
                json!(format!("{}/{}/{}", app.name, app.groups[*g as usize].name, t))
            })
            .collect();
        Ok((r, Some(json!({"candidates": cands.len(), "fast_threads": fast, "geomean_slowdown": best.map(|(s, _)| s)}))))
    }

    fn to_json(&self, spec: &PolicySpec, r: &RunResult, met: &Metrics) -> Value {
        let m = &self.machine;
        let w = &self.workload;
        let threads = r
            .threads
            .iter()
            .map(|t| {
                let app = &w.apps[t.app as usize];
                let total = t.total_time_ns();
                let fast = r.fast_ns(t);
                ThreadRow {
                    id: t.id,
                    app: &app.name,
                    group: &app.groups[t.group as usize].name,
                    kind: t.kind.as_str(),
                    cpu_s: total as f64 / 1e9,
                    fast_s: fast as f64 / 1e9,
                    fast_share: if total > 0 { fast as f64 / total as f64 } else { 0.0 },
                    migrations: t.migrations,
                    lock_wait_s: t.lock_wait_ns as f64 / 1e9,
                    spin_s: t.spin_ns as f64 / 1e9,
                    sf_error: r.sf_error_of(t.id),
                }
            })
            .collect();
        let cores = r
            .cores
            .iter()
            .enumerate()
            .map(|(i, c)| CoreRow {
                id: c.id,
                core_type: &m.core_types[c.core_type as usize].name,
                // A run's metric: fast as the hardware is, not as a reported capacity says.
                fast: m.is_truly_fast(c.id as usize),
                busy_s: c.busy_ns as f64 / 1e9,
                energy_j: met.core_energy_j.as_ref().map(|e| e[i]),
            })
            .collect();
        let timeline = self.settings.timeline.then(|| {
            r.segments
                .iter()
                .take(TIMELINE_SEGMENTS)
                .map(|s| (s.core, s.thread, w.apps[r.threads[s.thread as usize].app as usize].name.as_str(), s.start_ns as f64 / 1e9, s.end_ns as f64 / 1e9))
                .collect()
        });
        let row = RunRow {
            machine: &m.name,
            workload: &w.name,
            policy: spec.canonical(),
            seed: self.settings.seed,
            slice_ms: self.settings.slice_ms,
            makespan_s: met.makespan_s,
            antt: met.antt,
            stp: met.stp,
            min_fairness: met.min_fairness,
            uniformity: met.uniformity,
            unfairness: met.unfairness,
            energy_j: met.energy_j,
            edp: met.edp,
            avg_power_w: m.has_rails.then_some(met.avg_power_w),
            rail_energy_j: m.has_rails.then(|| met.rail_energy_j.as_ref().map(|e| m.rails.iter().zip(e).map(|(r, &j)| (r.name.clone(), json!(j))).collect())),
            nj_per_instruction: met.nj_per_instruction,
            instructions_per_s: met.instructions_per_s,
            migrations: r.migrations,
            idle_while_waiting_s: r.idle_while_waiting_ns as f64 / 1e9,
            events: r.events,
            policy_calls: r.policy_calls,
            decisions: r.decisions,
            instructions: r.instructions(),
            sf_error: r.sf_error_mean(),
            task_runtime: w.apps.iter().any(|a| a.tasks.is_some()).then(|| {
                let s = &r.task_runtime;
                json!({
                    "tasks": s.tasks_run, "tasks_on_fast": s.tasks_on_fast, "critical": s.critical,
                    "critical_on_fast": s.critical_on_fast, "idle_with_ready_s": s.idle_with_ready_ns as f64 / 1e9,
                    "max_handoff_s": s.max_handoff_ns as f64 / 1e9, "main_moves": s.main_moves,
                })
            }),
            apps: &met.apps,
            threads,
            cores,
            timeline_truncated: self.settings.timeline.then_some(r.segments.len() > TIMELINE_SEGMENTS || r.segments_dropped > 0),
            timeline,
            power_trace: r.power_trace.as_ref().map(|trace| power_trace_json(m, r, trace)),
            noc: r.noc.as_ref().map(noc_json),
        };
        serde_json::to_value(row).expect("a run result is plain data")
    }
}

/// A run's power trace as its JSON gives it: `interval_s`, `time_s` (each window's end) and
/// `power_w` {rail: mean power over each window, W} (docs/power.md).
fn power_trace_json(m: &Machine, r: &RunResult, trace: &ampsched_sim::power::PowerTrace) -> Value {
    let (times, power) = trace.samples(m, r.makespan_ns);
    let rails: Map<String, Value> =
        m.rails.iter().enumerate().map(|(i, rail)| (rail.name.clone(), json!(power.iter().map(|p| p[i]).collect::<Vec<f64>>()))).collect();
    json!({"interval_s": trace.interval_ns as f64 / 1e9, "time_s": times, "power_w": rails})
}

/// A run's on-chip network as its JSON gives it (`RunResult::noc`, docs/queue-spinlock.md):
/// packets and flits injected (all, lock, wake-up), network cycles simulated, injection rates per
/// node per cycle (all packets, lock packets, flits; and each node's packets), and the mean
/// latency by class in cycles (null for a class that sent nothing).
fn noc_json(n: &ampsched_sim::NocResult) -> Value {
    let s = &n.stats;
    let total = s.total();
    let nodes = s.node_packets_injected.len().max(1) as f64;
    let per_node_cycle = |x: u64| if s.cycles > 0 { x as f64 / nodes / s.cycles as f64 } else { 0.0 };
    let latency = |c: &ampsched_sim::noc::ClassStats| (c.packets_delivered > 0).then(|| c.mean_latency());
    let node_rates: Vec<f64> = s.node_packets_injected.iter().map(|&p| if s.cycles > 0 { p as f64 / s.cycles as f64 } else { 0.0 }).collect();
    json!({
        "packets": total.packets_injected,
        "lock_packets": s.lock.packets_injected,
        "wakeup_packets": s.wakeup.packets_injected,
        "flits": total.flits_injected,
        "cycles": s.cycles,
        "clock_ghz": n.clock_ghz,
        "injection_rate": per_node_cycle(total.packets_injected),
        "lock_injection_rate": per_node_cycle(s.lock.packets_injected),
        "flit_injection_rate": per_node_cycle(total.flits_injected),
        "latency": latency(&total),
        "latency_normal": latency(&s.normal),
        "latency_lock": latency(&s.lock),
        "latency_wakeup": latency(&s.wakeup),
        "node_injection_rate": node_rates,
    })
}

/// The batch path of a design-space study: registered policy `policy` on each mix of `mixes`
/// (`mix` arguments) on one machine, with one settings. The machine and the program catalog are
/// read once, each mix's workload is built in memory (`mix::workload`), and the solo runs are
/// carried from mix to mix (`SoloCache`), so that a mix costs its own simulation. Each mix's
/// result is what `Experiment::new(machine, mix, settings)` then `run(policy)` gives, value for
/// value (tests/python/test_fairness_study.py compares them); `each` receives them in order.
/// Err only for what fails every mix alike (the machine, the catalog).
pub fn run_mixes(machine: &str, mixes: &[String], policy: &str, settings: &Settings, mut each: impl FnMut(usize, Result<Value, Error>)) -> Result<(), Error> {
    settings.check()?;
    let m = catalog::machine_with(machine, &settings.machine_set)?;
    let programs = catalog::programs()?;
    let mut cache = SoloCache::default();
    for (i, arg) in mixes.iter().enumerate() {
        let result = mix::workload(arg, &programs).map_err(Error::from).and_then(|w| {
            let mut exp = Experiment::from_parts(machine, m.clone(), catalog::workload_file(arg), w, settings.clone(), std::mem::take(&mut cache))?;
            let result = exp.run(policy);
            cache = exp.into_cache();
            result
        });
        if matches!(result, Err(Error::Cancelled)) {
            return Err(Error::Cancelled);
        }
        each(i, result);
    }
    Ok(())
}

/// `Experiment::check` of each policy spec on each mix of `mixes` on one machine, the machine and
/// the catalog read once: what a sweep checks before its first run, for every mix of its grid.
/// Err: the first mix that fails, its message naming it.
pub fn check_mixes(machine: &str, mixes: &[String], policies: &[String]) -> Result<(), Error> {
    let m = catalog::machine(machine)?;
    let programs = catalog::programs()?;
    for arg in mixes {
        let w = mix::workload(arg, &programs)?;
        let exp = Experiment::from_parts(machine, m.clone(), catalog::workload_file(arg), w, Settings::default(), SoloCache::default())?;
        for p in policies {
            exp.check(p)?;
        }
    }
    Ok(())
}

/// What a registered policy reads: what it needs and what it reads where it is there.
pub fn reads(info: &PolicyInfo) -> Signals {
    info.needs.union(info.optional)
}

/// What makes two apps' solo runs the same: copies of one app are simulated once.
fn solo_key(solo: &Workload) -> String {
    format!("{:?}{:?}{}", solo.apps[0].groups, solo.apps[0].locks, solo.apps[0].priority)
}

/// `compare --trace DIR`: a file per policy, DIR/KEY.json, the policy's key with every character
/// a file name should not hold (`/`, `:`, spaces...) made `_`, and `-2`, `-3`... after a name
/// already taken. Checked before any run: DIR must be a directory, and (unless `replace`) none of
/// the files may exist, so that a comparison never replaces earlier traces unasked.
fn trace_paths(dir: &str, keys: &[String], replace: bool) -> Result<Vec<Option<String>>, InputError> {
    let folder = std::path::Path::new(dir);
    if !folder.is_dir() {
        return Err(InputError::new("--trace", dir, "not a directory: compare writes one trace per policy into DIR (create it first)"));
    }
    let mut taken = std::collections::BTreeSet::new();
    let mut paths = Vec::new();
    for key in keys {
        let stem: String = key.chars().map(|c| if c.is_ascii_alphanumeric() || "._=-".contains(c) { c } else { '_' }).collect();
        let name = (1..).map(|n| if n == 1 { format!("{stem}.json") } else { format!("{stem}-{n}.json") }).find(|n| !taken.contains(n)).expect("a free name");
        taken.insert(name.clone());
        let path = folder.join(&name).to_string_lossy().into_owned();
        if !replace && std::fs::symlink_metadata(&path).is_ok() {
            return Err(InputError::new("--trace", path, "exists: give another directory, or --force to replace it"));
        }
        paths.push(Some(path));
    }
    Ok(paths)
}

/// The name of the default-metric baseline (`Experiment::default_baseline`): a row of `compare`
/// and a `--baseline`, not a registered policy.
pub const DEFAULT_BASELINE: &str = "default";

/// Geometric mean over apps of their slowdowns: what `best-static` minimises.
pub fn geomean_slowdown(met: &Metrics) -> f64 {
    let n = met.apps.len().max(1) as f64;
    (met.apps.iter().map(|a| a.slowdown.ln()).sum::<f64>() / n).exp()
}

/// The bound rotations as one result: per app every rotation's measured turnarounds; threads
/// concatenated (ids numbered on); per core and in total, sums (`default_baseline` turns them
/// into means); the segments and marks of rotation 0.
fn merge_rotations(runs: Vec<RunResult>) -> RunResult {
    let mut it = runs.into_iter();
    let mut out = it.next().expect("a machine has at least one core");
    for r in it {
        let base = out.threads.len() as u32;
        out.makespan_ns += r.makespan_ns;
        out.events += r.events;
        out.policy_calls += r.policy_calls;
        out.decisions += r.decisions;
        out.migrations += r.migrations;
        out.idle_while_waiting_ns += r.idle_while_waiting_ns;
        for (a, b) in out.apps.iter_mut().zip(&r.apps) {
            a.turnarounds_ns.extend_from_slice(&b.turnarounds_ns);
            a.thread_ids.extend(b.thread_ids.iter().map(|t| t + base));
            for (x, y) in a.queue_peak.iter_mut().zip(&b.queue_peak) {
                *x = (*x).max(*y);
            }
        }
        out.threads.extend(r.threads.into_iter().map(|mut t| {
            t.id += base;
            t
        }));
        for (c, d) in out.cores.iter_mut().zip(&r.cores) {
            c.busy_ns += d.busy_ns;
            for (x, y) in c.busy_ns_by_level.iter_mut().zip(&d.busy_ns_by_level) {
                *x += y;
            }
        }
        // A power trace over time is one run's; the rotations' mean energy has none. Nor do
        // the network's counts sum to one run's.
        out.power_trace = None;
        out.noc = None;
    }
    out
}

/// A policy to compare: a registered spec, or one made outside the registry (a Python policy)
/// with the label its results carry and what it needs.
pub enum Candidate<'a> {
    Registered(String),
    Ready { label: String, needs: Signals, policy: &'a mut dyn Policy },
}

impl Candidate<'_> {
    /// The "policy" its result will carry: a spec's canonical text, or the label.
    fn key(&self) -> Result<String, Error> {
        match self {
            Candidate::Registered(spec) => Ok(PolicySpec::parse(spec)?.canonical()),
            Candidate::Ready { label, .. } => Ok(label.clone()),
        }
    }

    fn text(&self) -> &str {
        match self {
            Candidate::Registered(spec) => spec,
            Candidate::Ready { label, .. } => label,
        }
    }
}

/// `ampsched run --json`: its keys in this order.
#[derive(Serialize)]
struct RunRow<'a> {
    machine: &'a str,
    workload: &'a str,
    policy: String,
    seed: u64,
    slice_ms: f64,
    makespan_s: f64,
    antt: f64,
    stp: f64,
    min_fairness: f64,
    uniformity: f64,
    unfairness: f64,
    /// These three, and each core's energy, are null where the machine has no power model
    /// (`Machine::models_energy`): not modelled, never a 0 that looks measured.
    energy_j: Option<f64>,
    edp: Option<f64>,
    /// A machine with `[[rail]]` tables (docs/power.md) also gives the mean power and each
    /// rail's energy (null without a power model); other machines' results are as before rails.
    #[serde(skip_serializing_if = "Option::is_none")]
    avg_power_w: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rail_energy_j: Option<Option<Map<String, Value>>>,
    nj_per_instruction: Option<f64>,
    instructions_per_s: f64,
    migrations: u64,
    /// Core-seconds a core sat idle while some thread waited for a core (`RunResult::idle_while_waiting_ns`).
    idle_while_waiting_s: f64,
    events: u64,
    policy_calls: u64,
    decisions: u64,
    instructions: f64,
    /// The policy's SF estimator: mean |estimate − true SF of the thread's current phase| over
    /// every sample of the run (`Diagnostics::sf_estimate`; absent for a policy without estimates).
    #[serde(skip_serializing_if = "Option::is_none")]
    sf_error: Option<f64>,
    /// What the task runtime measured (`RunResult::task_runtime`; docs/task-runtime.md): tasks
    /// run, on fast cores, critical (CATS), idle-with-ready time, longest hand-off, main
    /// continuation moves. Only for a workload with a task program.
    #[serde(skip_serializing_if = "Option::is_none")]
    task_runtime: Option<Value>,
    apps: &'a [AppMetrics],
    threads: Vec<ThreadRow<'a>>,
    cores: Vec<CoreRow<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeline_truncated: Option<bool>,
    /// (core, thread, app, start s, end s)
    #[serde(skip_serializing_if = "Option::is_none")]
    timeline: Option<Vec<(u32, u32, &'a str, f64, f64)>>,
    /// The rails' power over time, if the run asked for it (`Settings::power_sample_s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    power_trace: Option<Value>,
    /// The on-chip network, for a machine with an `[interconnect]` (`noc_json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    noc: Option<Value>,
}

#[derive(Serialize)]
struct ThreadRow<'a> {
    id: u32,
    app: &'a str,
    group: &'a str,
    kind: &'static str,
    cpu_s: f64,
    fast_s: f64,
    fast_share: f64,
    migrations: u32,
    lock_wait_s: f64,
    spin_s: f64,
    /// The thread's mean |SF estimate − true SF| (absent where it was never sampled).
    #[serde(skip_serializing_if = "Option::is_none")]
    sf_error: Option<f64>,
}

#[derive(Serialize)]
struct CoreRow<'a> {
    id: u32,
    #[serde(rename = "type")]
    core_type: &'a str,
    fast: bool,
    busy_s: f64,
    energy_j: Option<f64>,
}

/// Run each policy on one experiment; add each one's geometric-mean speedup of app completion
/// time over the baseline: the one named; else the workload's (`baseline = "default"` in its
/// file: the thesis's default metric, `Experiment::default_baseline`); else the first policy.
/// A baseline not among the policies is run and added as a row. A registered policy other than the
/// baseline that cannot run this workload at all (`Experiment::cannot_run`: the oracle above its
/// thread limit) is left out rather than failing the comparison: every result then carries
/// `left_out`, [{"policy", "why"}]. `progress` is told before each run and at the end; returning
/// false stops the comparison.
pub fn compare(
    exp: &mut Experiment,
    policies: &[String],
    baseline: Option<&str>,
    progress: &mut dyn FnMut(usize, usize, &str) -> bool,
) -> Result<Value, Error> {
    let mut candidates: Vec<Candidate> = policies.iter().map(|p| Candidate::Registered(p.trim().to_string())).collect();
    compare_candidates(exp, &mut candidates, baseline, progress)
}

/// `compare` for a mix of registered specs and ready policies. A baseline names a registered
/// spec or the label of a ready policy among the candidates.
pub fn compare_candidates(
    exp: &mut Experiment,
    candidates: &mut Vec<Candidate>,
    baseline: Option<&str>,
    progress: &mut dyn FnMut(usize, usize, &str) -> bool,
) -> Result<Value, Error> {
    if candidates.is_empty() {
        return Err(InputError::new("--policies", "", "give at least one policy").into());
    }
    let keys: Vec<String> = candidates.iter().map(Candidate::key).collect::<Result<_, _>>()?;
    let base = match baseline {
        Some(b) if keys.iter().any(|k| k == b.trim()) => b.trim().to_string(),
        Some(b) => {
            // Named as the baseline, not as one of the policies.
            let as_baseline = |e: InputError| InputError { source: "--baseline".into(), ..e };
            let spec = PolicySpec::parse(b).map_err(as_baseline)?;
            if spec.name != DEFAULT_BASELINE {
                ampsched_policy::info(&spec.name).map_err(as_baseline)?;
            }
            spec.canonical()
        }
        None => match exp.workload.baseline {
            Some(Baseline::Default) => DEFAULT_BASELINE.to_string(),
            None => keys[0].clone(),
        },
    };
    let mut left_out = Vec::new();
    let mut kept = Vec::with_capacity(candidates.len());
    for (c, key) in std::mem::take(candidates).into_iter().zip(&keys) {
        if let Candidate::Registered(spec) = &c {
            if *key != base {
                if let Some(why) = exp.cannot_run(spec)? {
                    left_out.push(json!({"policy": key, "why": why}));
                    continue;
                }
            }
        }
        kept.push(c);
    }
    *candidates = kept;
    if !keys.contains(&base) {
        candidates.push(Candidate::Registered(base.clone()));
    }
    let total = candidates.len();
    let traces = match &exp.settings.trace_dir {
        Some(dir) => trace_paths(dir, &candidates.iter().map(Candidate::key).collect::<Result<Vec<_>, _>>()?, exp.settings.replace_traces)?,
        None => vec![None; total],
    };
    let mut results = Vec::new();
    for (i, c) in candidates.iter_mut().enumerate() {
        if !progress(i, total, c.text()) {
            return Err(Error::Cancelled);
        }
        exp.settings.trace = traces[i].clone();
        let result = match c {
            Candidate::Registered(spec) => exp.run(spec),
            Candidate::Ready { label, needs, policy } => exp.run_policy(label, *needs, &mut **policy),
        };
        exp.settings.trace = None;
        results.push(result?);
    }
    if !progress(total, total, "done") {
        return Err(Error::Cancelled);
    }
    let base_idx = results.iter().position(|r| r["policy"] == json!(base)).expect("baseline was run");
    let base_t: Vec<f64> = results[base_idx]["apps"].as_array().unwrap().iter().map(|a| a["turnaround_s"].as_f64().unwrap()).collect();
    for r in &mut results {
        let ts: Vec<f64> = r["apps"].as_array().unwrap().iter().map(|a| a["turnaround_s"].as_f64().unwrap()).collect();
        let log_sum: f64 = ts.iter().zip(&base_t).map(|(t, b)| (b / t).ln()).sum();
        let speedup = (log_sum / ts.len() as f64).exp();
        let o = r.as_object_mut().unwrap();
        o.insert("baseline".into(), json!(base));
        o.insert("speedup_vs_baseline".into(), json!(speedup));
        if !left_out.is_empty() {
            o.insert("left_out".into(), Value::Array(left_out.clone()));
        }
    }
    Ok(Value::Array(results))
}

/// The embedded default of `ampsched compare` with no arguments: a thesis machine and mix, all
/// policies but `bound` (one rotation of the default metric, which hh1's own baseline, the
/// default metric, averages and adds as a row), the fairness, big.LITTLE and today's families.
pub fn default_compare() -> Value {
    // Not `bound` (the default metric's rotations), nor the fairness family (Kim & Huh's, run on
    // their machines: `ampsched_policy::fairness::FAMILY`), so that this comparison stays the
    // thesis's and WASH's schedulers on the thesis's machine. Nor today's Linux and sched_ext
    // policies (`ampsched_policy::today::FAMILY`, set beside the seeds' on today's chips by the
    // todays-schedulers reproduction). Nor the big.LITTLE family (the paper's OS schedulers and Static threading, run on the
    // Exynos 5422).
    let fairness = |n: &str| ampsched_policy::fairness::FAMILY.iter().any(|p| p.name == n);
    let biglittle = |n: &str| ampsched_policy::biglittle::FAMILY.iter().any(|p| p.name == n);
    let today = |n: &str| ampsched_policy::today::FAMILY.iter().any(|p| p.name == n);
    let policies: Vec<&str> =
        POLICIES.iter().map(|p| p.name).filter(|&n| n != ampsched_policy::baseline::bound::INFO.name && !fairness(n) && !biglittle(n) && !today(n)).collect();
    json!({"machine": "2fc-2sc-amd", "workload": "hh1", "policies": policies})
}

/// `ampsched list KIND` as JSON.
pub fn list(kind: &str) -> Result<Value, Error> {
    let items: Vec<Value> = match kind {
        "machines" => catalog::MACHINES
            .iter()
            .map(|(n, _)| {
                let m = catalog::machine(n)?;
                let types: Vec<Value> = m
                    .core_types
                    .iter()
                    .map(|t| {
                        let mut v = json!({"name": t.name, "count": t.count, "freq_ghz": t.freq_ghz, "capacity": t.capacity});
                        // A reported capacity that is not the peak rate's: both, so a listing shows the gap.
                        if t.capacity_given {
                            v["true_capacity"] = json!(t.true_capacity);
                        }
                        v
                    })
                    .collect();
                Ok(json!({"name": n, "description": m.description, "source": m.source, "cores": m.num_cores(), "core_types": types}))
            })
            .collect::<Result<_, Error>>()?,
        "workloads" => catalog::WORKLOADS
            .iter()
            .map(|(n, _)| {
                let w = catalog::workload(n)?;
                Ok(json!({"name": n, "description": w.description, "source": w.source, "apps": w.apps.len(), "threads": w.total_threads()}))
            })
            .collect::<Result<_, Error>>()?,
        "programs" => catalog::programs()?
            .values()
            .map(|p| json!({"name": p.name, "description": p.suite, "source": p.source, "phases": p.phases.len() + p.groups.iter().map(|g| g.phases.len()).sum::<usize>()}))
            .collect(),
        "policies" => POLICIES
            .iter()
            .map(|p| {
                let opts: Map<String, Value> = p.options.iter().map(|o| (o.name.to_string(), option_default(o))).collect();
                let docs: Map<String, Value> = p.options.iter().map(|o| (o.name.to_string(), json!(o.doc))).collect();
                let kinds: Map<String, Value> = p.options.iter().map(|o| (o.name.to_string(), json!(o.kind_text()))).collect();
                json!({"name": p.name, "description": p.description, "source": p.source, "options": opts,
                       "option_docs": docs, "option_kinds": kinds, "needs": p.needs.names(),
                       "needs_text": p.needs.describe(), "live": live_of(p)})
            })
            .collect(),
        other => {
            return Err(InputError::new("list", other, "unknown kind (expected machines, workloads, policies or programs)").into())
        }
    };
    Ok(Value::Array(items))
}

/// Where registered policy `p` can run live: nowhere for an OS scheduler of the simulator
/// (`ampsched_policy::biglittle::OS_SCHEDULERS`), else by what it needs (`live_text`).
pub fn live_of(p: &PolicyInfo) -> &'static str {
    if ampsched_policy::biglittle::is_os_scheduler(p) {
        ampsched_policy::biglittle::NO_LIVE
    } else {
        live_text(p.needs)
    }
}

/// Where a policy can run live, by the same check the agent makes: what the agent can measure
/// at best (hardware counters where the machine has them; lock and spin waits when it launches
/// the command, through the preload library).
pub fn live_text(needs: Signals) -> &'static str {
    // The agent always gives the progress rates (schedstat), and the rest where it can.
    let anywhere = Signals::PROGRESS;
    let at_best = Signals::PROGRESS | Signals::COUNTERS | Signals::LOCKS | Signals::SPIN;
    if needs.check(anywhere, "").is_ok() {
        "yes"
    } else if needs.check(at_best, "").is_err() {
        "no (simulator only)"
    } else if needs.contains(Signals::COUNTERS) {
        "with hardware counters"
    } else if needs.contains(Signals::SPIN) {
        "with the preload library (pthread spinlock waits)"
    } else {
        "when it launches the command (lock insight)"
    }
}

fn option_default(o: &OptionInfo) -> Value {
    match o.kind {
        OptionKind::Number(x) | OptionKind::Range { default: x, .. } => number(x),
        OptionKind::Integer { default, .. } => json!(default),
        OptionKind::Flag(b) => json!(b),
        OptionKind::Choice { default, .. } | OptionKind::Text(default) => json!(default),
    }
}

/// A whole number as a JSON integer (so `64`, not `64.0`), anything else as a float.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}
