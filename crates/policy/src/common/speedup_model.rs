//! The counter-trained speedup models of WASH ("Portable Performance on Asymmetric Multicore
//! Processors", §5 "Speedup model"; §8.4 for the second-best and the negated model): a linear
//! function of N = 4 events, each read as a rate per cycle over the thread's last quantum.
//!
//! Trained offline (`ampsched-train-speedup-model`, `crates/runner/src/speedup_training.rs`) and
//! committed as `catalog/models/wash-speedup.toml`, embedded here: per choice ("default" = the
//! 4 events PCA elimination keeps; "second" = the next best 4 different events), per side (the
//! counters measured on a big core or on a small one: WASH's frequency-scaled Phenom II predicts
//! both ways, §5), a model trained on all programs and one per program with that program left
//! out (WASH's leave-one-out: "a benchmark is run with the model trained on the other
//! benchmarks"). "negated" is the default model with its weights negated (§8.4): it predicts
//! around the same mean speedup but ranks threads backwards.
//!
//! Rates per cycle, not per instruction: for cores that differ in clock (and `cpi_scale`), the
//! performance model makes a thread's speedup linear in its memory stall cycles per cycle
//! measured on either core (SF = r − s·(r − 1) on a big core, r the peak-rate ratio), so a
//! linear model over per-cycle rates can be exact where per-instruction rates cannot.

use ampsched_model::events::{event_named, CYCLES, EVENTS};
use ampsched_model::limits::{self, Bounds};
use ampsched_model::toml_read::{parse, Node};
use ampsched_model::{Counters, Machine, PerType};

use super::speedup::SpeedupPredictor;

/// The committed model file, as the repository names it.
pub const MODEL_FILE: &str = "catalog/models/wash-speedup.toml";
const MODEL_TEXT: &str = include_str!("../../../../catalog/models/wash-speedup.toml");

/// The events a model reads at once: the Phenom II's four simultaneous counters (WASH §5:
/// "N = 4 on AMD Phenom II"); instructions and cycles come from fixed counters.
pub const MODEL_EVENTS: usize = 4;
/// The lowest speedup a model reports: a linear model extrapolates, and the negated model
/// predicts low where the default predicts high; a speedup at or below 0 would make a
/// thread's normalised progress meaningless, so predictions are held at 0.1 or above.
pub const MIN_PREDICTED_SPEEDUP: f64 = 0.1;
/// Cycles below which an interval predicts nothing: a thread that ran less than 10 µs at 1 GHz
/// in its quantum gives rates that one counter-read error dominates.
pub const MIN_CYCLES: f64 = 1e4;

/// The candidate features: every event but cycles, as a rate per cycle.
pub fn candidate_events() -> Vec<usize> {
    (0..EVENTS.len()).filter(|&e| e != CYCLES).collect()
}

/// `event` per cycle in `c`, or None without cycles.
pub fn rate_per_cycle(c: &Counters, event: usize) -> Option<f64> {
    (c.cycles > 0.0).then(|| c.event(event) / c.cycles)
}

/// Which core type's counters a model reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Big,
    Small,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Big => "big",
            Side::Small => "small",
        }
    }
}

/// speedup = intercept + Σ weight_i × (rate_i − mean_i) / scale_i, rate_i = events[i] per cycle.
/// The intercept is the training threads' mean speedup (the features are centred).
#[derive(Debug, Clone, PartialEq)]
pub struct LinearModel {
    pub events: Vec<usize>,
    pub mean: Vec<f64>,
    pub scale: Vec<f64>,
    pub weight: Vec<f64>,
    pub intercept: f64,
}

impl LinearModel {
    /// The prediction from `c` (counters on one core type), unclamped; None without cycles.
    pub fn eval(&self, c: &Counters) -> Option<f64> {
        let mut y = self.intercept;
        for i in 0..self.events.len() {
            y += self.weight[i] * (rate_per_cycle(c, self.events[i])? - self.mean[i]) / self.scale[i];
        }
        Some(y)
    }

    /// The same from feature rates already computed (training).
    pub fn eval_rates(&self, rates: &[f64]) -> f64 {
        self.intercept + (0..self.events.len()).map(|i| self.weight[i] * (rates[i] - self.mean[i]) / self.scale[i]).sum::<f64>()
    }

    /// The §8.4 "bad" model: every weight negated.
    pub fn negated(&self) -> LinearModel {
        LinearModel { weight: self.weight.iter().map(|w| -w).collect(), ..self.clone() }
    }
}

/// One model of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// "default" or "second".
    pub choice: String,
    pub side: Side,
    /// The program left out of its training (None: trained on all).
    pub left_out: Option<String>,
    /// Training threads.
    pub threads: u32,
    /// Mean |predicted − measured| / measured over the left-out program's threads (None for
    /// the model trained on all).
    pub left_out_error: Option<f64>,
    pub model: LinearModel,
}

/// The model file: its machine and every model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFile {
    /// The catalog machine whose all-big and all-small versions the training ran on.
    pub machine: String,
    pub entries: Vec<Entry>,
}

impl ModelFile {
    /// Read a model file; errors name the file and key.
    pub fn parse(source: &str, text: &str) -> Result<ModelFile, String> {
        let table = parse(source, text).map_err(|e| e.to_string())?;
        let mut root = Node::root(source, &table);
        let machine = root.str("machine").map_err(|e| e.to_string())?;
        let mut entries = Vec::new();
        for mut t in root.tables("model").map_err(|e| e.to_string())? {
            entries.push(read_entry(&mut t)?);
            t.finish().map_err(|e| e.to_string())?;
        }
        root.finish().map_err(|e| e.to_string())?;
        if entries.is_empty() {
            return Err(format!("{source}: model: no [[model]] tables"));
        }
        Ok(ModelFile { machine, entries })
    }

    /// The model for `choice` on `side` with `program` left out, else the one trained on all.
    pub fn find(&self, choice: &str, side: Side, program: Option<&str>) -> Option<&Entry> {
        let of = |left_out: Option<&str>| self.entries.iter().find(|e| e.choice == choice && e.side == side && e.left_out.as_deref() == left_out);
        program.and_then(|p| of(Some(p))).or_else(|| of(None))
    }

    /// The file's text: `header` (comment lines) and every entry, numbers in Rust's shortest
    /// round-trip form, so reading it back gives the same models.
    pub fn to_toml(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str(if line.is_empty() { "#" } else { "# " });
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&format!("machine = \"{}\"\n", self.machine));
        for e in &self.entries {
            out.push_str("\n[[model]]\n");
            out.push_str(&format!("choice = \"{}\"\nside = \"{}\"\n", e.choice, e.side.name()));
            if let Some(p) = &e.left_out {
                out.push_str(&format!("left_out = \"{p}\"\n"));
            }
            out.push_str(&format!("threads = {}\n", e.threads));
            if let Some(err) = e.left_out_error {
                out.push_str(&format!("left_out_error = {err:?}\n"));
            }
            let names: Vec<String> = e.model.events.iter().map(|&i| format!("\"{}\"", EVENTS[i].name)).collect();
            out.push_str(&format!("events = [{}]\n", names.join(", ")));
            let list = |xs: &[f64]| xs.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ");
            out.push_str(&format!("mean = [{}]\nscale = [{}]\nweight = [{}]\n", list(&e.model.mean), list(&e.model.scale), list(&e.model.weight)));
            out.push_str(&format!("intercept = {:?}\n", e.model.intercept));
        }
        out
    }
}

fn read_entry(t: &mut Node) -> Result<Entry, String> {
    let e = |x: ampsched_model::InputError| x.to_string();
    let choice = t.str("choice").map_err(e)?;
    if choice != "default" && choice != "second" {
        return Err(t.err("choice", format!("must be \"default\" or \"second\", got \"{choice}\"")).to_string());
    }
    let side = match t.str("side").map_err(e)?.as_str() {
        "big" => Side::Big,
        "small" => Side::Small,
        other => return Err(t.err("side", format!("must be \"big\" or \"small\", got \"{other}\"")).to_string()),
    };
    let left_out = t.opt_str("left_out").map_err(e)?;
    let threads = t.count("threads", u32::MAX as u64).map_err(e)?;
    let left_out_error = t.opt_number("left_out_error", &limits::MODEL_ERROR).map_err(e)?;
    let events = read_events(t)?;
    let mut list = |key: &'static str, bounds: &Bounds| -> Result<Vec<f64>, String> {
        let xs = t.opt_number_list(key, bounds).map_err(e)?.ok_or_else(|| t.err(key, "missing required key").to_string())?;
        if xs.len() != events.len() {
            return Err(t.err(key, format!("has {} numbers, one per event ({}) expected", xs.len(), events.len())).to_string());
        }
        Ok(xs)
    };
    let (mean, scale, weight) = (list("mean", &limits::MODEL_NUMBER)?, list("scale", &limits::MODEL_SCALE)?, list("weight", &limits::MODEL_NUMBER)?);
    let intercept = t.number("intercept", &limits::MODEL_NUMBER).map_err(e)?;
    Ok(Entry { choice, side, left_out, threads, left_out_error, model: LinearModel { events, mean, scale, weight, intercept } })
}

/// `events`: a non-empty list of event names (`ampsched_model::events::EVENTS`), not cycles.
fn read_events(t: &mut Node) -> Result<Vec<usize>, String> {
    let e = |x: ampsched_model::InputError| x.to_string();
    let text = t.str_list("events").map_err(e)?;
    let mut out = Vec::new();
    for (i, name) in text.iter().enumerate() {
        let event = event_named(name).map_err(|m| t.err(&format!("events[{i}]"), m).to_string())?;
        if event == CYCLES {
            return Err(t.err(&format!("events[{i}]"), "cycles is the rates' denominator, not a feature").to_string());
        }
        if out.contains(&event) {
            return Err(t.err(&format!("events[{i}]"), format!("'{name}' is listed twice")).to_string());
        }
        out.push(event);
    }
    Ok(out)
}

/// The committed models, read once.
fn committed() -> &'static ModelFile {
    static FILE: std::sync::OnceLock<ModelFile> = std::sync::OnceLock::new();
    // The file is embedded at build time and `committed_file_parses` tests it: a bad one never ships.
    FILE.get_or_init(|| ModelFile::parse(MODEL_FILE, MODEL_TEXT).expect("the committed speedup model file parses"))
}

/// The predictor for `choice` ("default", "second" or "negated") and the app's catalog
/// `program`: the model trained with that program left out, or the one trained on all
/// programs for None or a program the training did not see.
pub fn trained(choice: &str, program: Option<&str>) -> Result<Box<dyn SpeedupPredictor>, String> {
    from_file(committed(), choice, program).map(|p| Box::new(p) as Box<dyn SpeedupPredictor>)
}

/// `trained` over any model file.
pub fn from_file(file: &ModelFile, choice: &str, program: Option<&str>) -> Result<TrainedModel, String> {
    let (stored, negate) = match choice {
        "default" => ("default", false),
        "second" => ("second", false),
        "negated" => ("default", true),
        other => return Err(format!("unknown speedup model '{other}' (expected default, second or negated)")),
    };
    let pick = |side: Side| -> Result<(LinearModel, Option<String>), String> {
        let e = file.find(stored, side, program).ok_or_else(|| format!("{MODEL_FILE}: no {stored} model for {} cores", side.name()))?;
        Ok((if negate { e.model.negated() } else { e.model.clone() }, e.left_out.clone()))
    };
    let (big, left_out) = pick(Side::Big)?;
    let (small, _) = pick(Side::Small)?;
    Ok(TrainedModel { name: choice.to_string(), left_out, big, small })
}

/// A trained model behind `SpeedupPredictor`: the big-side model reads counters from a fast
/// core type, the small-side one from any other.
#[derive(Debug, Clone)]
pub struct TrainedModel {
    name: String,
    /// The program its models left out, if any.
    pub left_out: Option<String>,
    pub big: LinearModel,
    pub small: LinearModel,
}

impl SpeedupPredictor for TrainedModel {
    fn name(&self) -> &str {
        &self.name
    }

    /// From the core type on which the thread retired the most instructions in the interval.
    fn predict(&self, m: &Machine, interval: &PerType) -> Option<f64> {
        let ty = (0..m.core_types.len()).max_by(|&a, &b| interval[a].instructions.total_cmp(&interval[b].instructions))?;
        let c = &interval[ty];
        if c.instructions <= 0.0 || c.cycles < MIN_CYCLES {
            return None;
        }
        let model = if m.is_fast_type(ty) { &self.big } else { &self.small };
        model.eval(c).map(|s| s.max(MIN_PREDICTED_SPEEDUP))
    }
}
