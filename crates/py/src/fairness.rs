//! `ampsched.fairness`'s engine: Kim & Huh's share-level model
//! (`ampsched_policy::fairness::model`, where it lives once) for one mix and one policy. The
//! names and parameters are checked here, so that a wrong one raises `InputError` with one line
//! naming it; the Python side only builds the DataFrame.

use ampsched_policy::fairness::model::{base_perf, decide, metrics, throughputs, Base, Decision, Mix, SlowOnlyForm};
use pyo3::prelude::*;

use crate::InputError;

/// Where the messages say the error is.
const CALLER: &str = "ampsched.fairness";

fn input_error(key: &str, problem: impl std::fmt::Display) -> PyErr {
    InputError::new_err(format!("{CALLER}: {key}: {problem}"))
}

/// The policies `decision` knows, in the paper's order.
const POLICIES: &str = "max-perf, max-fair, min-fair, uni-fair, sim-fair, combined-fair";

/// The decision the policy name and its parameters give; a parameter the policy does not take is
/// refused (it would be silently ignored otherwise), and one it needs must be given.
fn decision(policy: &str, target: Option<f64>, similarity: Option<f64>, min_target: Option<f64>, uni_target: Option<f64>, safe: bool) -> PyResult<Decision> {
    let given =
        [("target", target.is_some()), ("similarity", similarity.is_some()), ("min_target", min_target.is_some()), ("uni_target", uni_target.is_some())];
    let takes: &[&str] = match policy {
        "max-perf" | "max-fair" => &[],
        "min-fair" | "uni-fair" => &["target"],
        "sim-fair" => &["similarity", "target"],
        "combined-fair" => &["similarity", "min_target", "uni_target"],
        _ => return Err(input_error("policy", format!("unknown policy {policy:?} (known: {POLICIES})"))),
    };
    if let Some((key, _)) = given.iter().find(|(key, set)| *set && !takes.contains(key)) {
        let takes = if takes.is_empty() { "no parameters".to_string() } else { takes.join(", ") };
        return Err(input_error(key, format!("{policy} does not take it (it takes {takes})")));
    }
    let need = |key: &str, value: Option<f64>| value.ok_or_else(|| input_error(key, format!("{policy} needs it")));
    // Sim-fair's similarity and combined-fair's have the paper's starred value (Table 5) as default.
    let similarity = similarity.unwrap_or(DEFAULT_SIMILARITY);
    Ok(match policy {
        "max-perf" => Decision::MaxPerf,
        "max-fair" => Decision::MaxFair,
        "min-fair" => Decision::MinFair { target: need("target", target)? },
        "uni-fair" => Decision::UniFair { target: need("target", target)? },
        "sim-fair" => Decision::SimFair { similarity, keep_min: target },
        _ => Decision::CombinedFair { similarity, min_target: need("min_target", min_target)?, uni_target: need("uni_target", uni_target)?, safe },
    })
}

/// The similarity of sim-fair and combined-fair when none is given: Table 5's value marked for
/// combined-fair, under every base.
pub const DEFAULT_SIMILARITY: f64 = 0.2;

/// Per thread the fast share, base performance and throughput T; then the system throughput,
/// minF, uniformity, and uni-fair's α (None for policies without one).
type Shares = (Vec<f64>, Vec<f64>, Vec<f64>, f64, f64, f64, Option<f64>);

/// `e_true`: the efficiencies the base performances and T are computed with, when the shares are
/// decided on estimates `e` (Kim & Huh §5.5's sensitivity to estimation error); default `e`.
#[pyfunction]
#[pyo3(signature = (e, c, fast_cores, base, policy, form="normalised", target=None, similarity=None, min_target=None, uni_target=None, safe=true, e_true=None))]
#[allow(clippy::too_many_arguments)]
pub fn fairness_shares(
    e: Vec<f64>,
    c: Vec<f64>,
    fast_cores: f64,
    base: &str,
    policy: &str,
    form: &str,
    target: Option<f64>,
    similarity: Option<f64>,
    min_target: Option<f64>,
    uni_target: Option<f64>,
    safe: bool,
    e_true: Option<Vec<f64>>,
) -> PyResult<Shares> {
    let base = Base::parse(base).ok_or_else(|| input_error("base", format!("unknown base {base:?} (known: fair, slow, fast)")))?;
    let form = SlowOnlyForm::parse(form).ok_or_else(|| input_error("form", format!("unknown form {form:?} (known: normalised, printed)")))?;
    if form == SlowOnlyForm::Printed && policy != "max-fair" {
        return Err(input_error("form", format!("'printed' is the paper's max-fair formula; {policy} uses the normalised one")));
    }
    let decision = decision(policy, target, similarity, min_target, uni_target, safe)?;
    decision.check().map_err(|why| InputError::new_err(format!("{CALLER}: {why}")))?;
    let mix = Mix { e: &e, c: &c, fast_cores };
    mix.check().map_err(|why| InputError::new_err(format!("{CALLER}: {why}")))?;
    let (f, alpha) = decide(&mix, base, form, decision);
    let truth = e_true.as_deref().unwrap_or(&e);
    let real = Mix { e: truth, c: &c, fast_cores };
    if truth.len() != e.len() {
        return Err(input_error("e_true", format!("{} values for {} threads (one per value of e)", truth.len(), e.len())));
    }
    real.check().map_err(|why| InputError::new_err(format!("{CALLER}: e_true: {why}")))?;
    let pb = base_perf(&real, base);
    let t = throughputs(&real, &f, &pb);
    let m = metrics(&t);
    Ok((f, pb, t, m.throughput, m.min_fairness, m.uniformity, alpha))
}

/// The system metrics of measured per-app throughputs T_i (a run's, against its base): mean,
/// minimum and uniformity 1 − σ/μ with the population σ, as the model computes them.
#[pyfunction]
pub fn fairness_metrics(t: Vec<f64>) -> PyResult<(f64, f64, f64)> {
    if t.is_empty() || t.iter().any(|x| !x.is_finite()) {
        return Err(input_error("T", "must be one or more finite numbers"));
    }
    let m = metrics(&t);
    Ok((m.throughput, m.min_fairness, m.uniformity))
}
