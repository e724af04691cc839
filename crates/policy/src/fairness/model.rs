//! The share-level model of Kim & Huh, "Exploring the Design Space of Fair Scheduling Supports
//! for Asymmetric Multicore Systems", IEEE Trans. Computers 2018, §2–§5: pure functions over the
//! fast-core efficiencies e_i (IPS on a fast core / IPS on a slow core), the total core shares
//! c_i (cores' worth of CPU, weight-proportional: c_i = w_i / Σw · C) and the number of fast
//! cores F. A thread given a fast share f_i (and the slow share c_i − f_i) runs at
//! e_i f_i + c_i − f_i slow-core units (the paper's linear model, §2); its throughput is that over
//! its base performance (§2.2, §2.4).
//!
//! - `base_perf`: the three base performances (fair share, slow only, fast only; §2.2).
//! - `max_fair`: the shares giving every thread the same slowdown or speedup from its base
//!   (§2.3's closed forms, with the paper's iterative clamping of infeasible shares).
//! - `max_perf`: the F most efficient threads on the fast cores (§3).
//! - `min_fair` (Algorithm 1), `uni_fair` (Algorithm 2), `sim_fair` (Algorithm 3),
//!   `combined_fair` (Algorithm 4): the fairness-throughput trade-offs of §5.
//! - `throughputs`, `metrics`, `fairness_achievement`, `throughput_achievement`: §2.4 and §7.4.
//!
//! The functions take estimates as they come: e ≤ 1 (noise, or a memory-bound program on a
//! big.LITTLE pair) is handled here, by `MIN_EFFICIENCY_GAIN` (below), not by the callers.
//! Inputs must be finite with e_i > 0, c_i > 0 and F ≥ 0 (`Mix::check` says what is wrong).
//!
//! Where the paper is ambiguous (its §9 list in our notes) each choice is stated at the place it
//! is made, with its reason.

/// The smallest gain e − 1 the closed forms divide by. The paper's formulas divide by e_i − 1
/// (§2.3, Algorithm 1) and say nothing of e_i ≤ 1; an estimate can be ≤ 1 through noise, and a
/// memory-bound program can gain nothing from a fast core. Flooring the gain at a tiny positive
/// value keeps every formula defined and gives the limits of the closed forms as e → 1⁺: such a
/// thread absorbs fast share under the slow-only base (fast share changes nothing for it, so it
/// is where share "costs" no unfairness; clamped at c_i), gets none under the fast-only base,
/// and needs either no fast share or all of it to reach a min-fair target. The floor is only
/// used to divide: throughputs are computed with the e given. 1e-6 is far below any meaningful
/// measured gain (the estimator's error is percents, §7.5) and far above the f64 rounding of
/// e − 1 near 1 (2e-16), so shares ∝ 1/(e − 1) stay finite.
pub const MIN_EFFICIENCY_GAIN: f64 = 1e-6;

/// Slack of the share and target comparisons: shares are sums of a few f64 products, so a
/// share that should equal 0, c_i or another share can be off by a few ulps. Far below any
/// share that matters (one share unit is a whole core; 1e-9 of a 30 ms round is 30 fs).
pub const SHARE_EPSILON: f64 = 1e-9;

/// uni-fair's decrement of α when the uniformity target is not yet met (Algorithm 2: "reduce
/// by 1%").
pub const ALPHA_STEP: f64 = 0.01;

/// The three base performances of §2.2, from which a thread's slowdown or speedup is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Every thread gets its c-proportional part of the fast cores, f_b = c_i / Σc · F (Kwon et
    /// al.'s base, §2.2): the fairest base, whose max-fair has minF = 1 by definition.
    FairShare,
    /// The thread always on slow cores: perf_base = c_i.
    SlowOnly,
    /// The thread always on fast cores: perf_base = e_i c_i (Van Craeynest et al.'s base).
    FastOnly,
}

impl Base {
    /// Every base, in the order the paper lists them (Table 5's columns).
    pub const ALL: [Base; 3] = [Base::FairShare, Base::SlowOnly, Base::FastOnly];

    /// From the option value `fair`, `slow` or `fast` (`base=` of the fairness policies).
    pub fn parse(s: &str) -> Option<Base> {
        match s {
            "fair" => Some(Base::FairShare),
            "slow" => Some(Base::SlowOnly),
            "fast" => Some(Base::FastOnly),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Base::FairShare => "fair",
            Base::SlowOnly => "slow",
            Base::FastOnly => "fast",
        }
    }
}

/// Which closed form max-fair uses under the slow-only base (§2.3).
///
/// The paper states the condition (e_i f_i + s_i)/c_i equal for all i, but its printed
/// solution f_j = [1/(e_j−1) / Σ 1/(e_i−1)] · (F − Σ_i (c_j − c_i)/(e_i−1)) equalises the
/// absolute performance e_i f_i + s_i instead. The solution of the stated condition is
/// f_j = [c_j/(e_j−1)] / Σ [c_i/(e_i−1)] · F. The two coincide when all c_i are equal, as in
/// every experiment of the paper (one thread per app, N = C, c_i = 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SlowOnlyForm {
    /// The solution of the paper's stated condition (the default: it is what "fair" means in
    /// §2.1 for unequal weights).
    #[default]
    Normalised,
    /// The paper's printed formula, kept to reproduce it and to show where it differs.
    Printed,
}

impl SlowOnlyForm {
    /// From `normalised` or `printed`.
    pub fn parse(s: &str) -> Option<SlowOnlyForm> {
        match s {
            "normalised" => Some(SlowOnlyForm::Normalised),
            "printed" => Some(SlowOnlyForm::Printed),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SlowOnlyForm::Normalised => "normalised",
            SlowOnlyForm::Printed => "printed",
        }
    }
}

/// A mix: per thread its fast-core efficiency e_i and total core share c_i (same length), and
/// the number of fast cores F (a real number: a policy may count a fast core shared with
/// threads it does not manage as a part).
#[derive(Clone, Copy, Debug)]
pub struct Mix<'a> {
    pub e: &'a [f64],
    pub c: &'a [f64],
    pub fast_cores: f64,
}

impl Mix<'_> {
    pub fn len(&self) -> usize {
        self.e.len()
    }

    pub fn is_empty(&self) -> bool {
        self.e.is_empty()
    }

    /// What makes the model undefined, in one line "key: problem" naming the value: the functions below
    /// assume this passed (they give NaN or meaningless shares otherwise, never panic).
    pub fn check(&self) -> Result<(), String> {
        if self.e.len() != self.c.len() {
            return Err(format!("c: {} values for {} threads (one per value of e)", self.c.len(), self.e.len()));
        }
        if self.e.is_empty() {
            return Err("e: the mix has no threads".into());
        }
        if !(self.fast_cores.is_finite() && self.fast_cores >= 0.0) {
            return Err(format!("fast_cores: must be a finite number ≥ 0, got {}", self.fast_cores));
        }
        for (i, (&e, &c)) in self.e.iter().zip(self.c).enumerate() {
            if !(e.is_finite() && e > 0.0) {
                return Err(format!("e[{i}]: must be a finite number > 0, got {e}"));
            }
            if !(c.is_finite() && c > 0.0) {
                return Err(format!("c[{i}]: must be a finite number > 0, got {c}"));
            }
        }
        Ok(())
    }
}

/// e − 1 floored at `MIN_EFFICIENCY_GAIN`: what the closed forms divide by.
fn gain(e: f64) -> f64 {
    (e - 1.0).max(MIN_EFFICIENCY_GAIN)
}

/// Each thread's base performance in slow-core units (§2.2): fair share e_i f_b + c_i − f_b
/// with f_b its fair-share max-fair share (c_i/Σc · F, clamped at c_i when there are fewer
/// threads' worth of share than fast cores), slow only c_i, fast only e_i c_i.
pub fn base_perf(mix: &Mix, base: Base) -> Vec<f64> {
    match base {
        Base::FairShare => {
            let fb = max_fair(mix, Base::FairShare, SlowOnlyForm::Normalised);
            mix.e.iter().zip(mix.c).zip(&fb).map(|((&e, &c), &f)| e * f + c - f).collect()
        }
        Base::SlowOnly => mix.c.to_vec(),
        Base::FastOnly => mix.e.iter().zip(mix.c).map(|(&e, &c)| e * c).collect(),
    }
}

/// §2.3's closed form for the threads given (their e and c) sharing `fast` fast cores, before
/// clamping.
fn closed_form(base: Base, form: SlowOnlyForm, e: &[f64], c: &[f64], fast: f64) -> Vec<f64> {
    match (base, form) {
        (Base::FairShare, _) => {
            let total: f64 = c.iter().sum();
            c.iter().map(|&ci| ci / total * fast).collect()
        }
        (Base::SlowOnly, SlowOnlyForm::Normalised) => {
            let w: Vec<f64> = e.iter().zip(c).map(|(&ei, &ci)| ci / gain(ei)).collect();
            let total: f64 = w.iter().sum();
            w.iter().map(|wi| wi / total * fast).collect()
        }
        (Base::SlowOnly, SlowOnlyForm::Printed) => {
            let inv_total: f64 = e.iter().map(|&ei| 1.0 / gain(ei)).sum();
            (0..e.len())
                .map(|j| {
                    let correction: f64 = e.iter().zip(c).map(|(&ei, &ci)| (c[j] - ci) / gain(ei)).sum();
                    (1.0 / gain(e[j])) / inv_total * (fast - correction)
                })
                .collect()
        }
        (Base::FastOnly, _) => {
            // The paper's A_j = e_j c_j/(e_j − 1) and f_j = A_j/ΣA · F − A_j/e_j + A_j/ΣA ·
            // Σ A_i/e_i, written as f_j = A_j K − c_j/(e_j − 1) with K = (F + Σ c_i/(e_i − 1))/ΣA
            // (the same algebra: A_j/e_j = c_j/(e_j − 1)); K is every thread's common
            // performance over its fast-only base. e_j is floored with its gain so that A_j
            // and c_j/(e_j − 1) stay consistent.
            let a: Vec<f64> = e.iter().zip(c).map(|(&ei, &ci)| (1.0 + gain(ei)) * ci / gain(ei)).collect();
            let slow_equiv: f64 = e.iter().zip(c).map(|(&ei, &ci)| ci / gain(ei)).sum();
            let k = (fast + slow_equiv) / a.iter().sum::<f64>();
            a.iter().zip(e).zip(c).map(|((&aj, &ej), &cj)| aj * k - cj / gain(ej)).collect()
        }
    }
}

/// Max-fair's fast shares (§2.3): every thread gets the same slowdown or speedup from its base.
/// Infeasible shares are clamped as the paper says: a share below 0 becomes 0 and one above the
/// thread's total share becomes it, those threads are set aside with their shares, and the
/// closed form is solved again over the others with what remains of F, until none is
/// infeasible.
///
/// Choices: the paper clamps at 1 (a whole core); we clamp at c_i, which is 1 in all its
/// experiments and is the bound of a thread that gets c_i cores' worth of CPU. Every
/// out-of-range thread of a round is clamped at once (the paper's wording); for the consistent
/// forms this is exact, because a round's violations are all on one side: the fair-share and
/// normalised slow-only forms are never negative, and the fast-only form exceeds c_i only when
/// the common level K is > 1, where no thread (e ≥ 1) is negative. So each round moves the
/// common level one way, and no thread clamped in one round would be inside its range at the
/// final level. The printed slow-only form can go both ways with unequal c; it is clamped the
/// same way (it is the paper's, kept as printed). When the threads' total share is below F
/// (fewer threads than fast cores) every thread ends at c_i and the shares sum to Σc < F.
pub fn max_fair(mix: &Mix, base: Base, form: SlowOnlyForm) -> Vec<f64> {
    let n = mix.len();
    let mut fixed: Vec<Option<f64>> = vec![None; n];
    let mut free: Vec<usize> = (0..n).collect();
    let mut remaining = mix.fast_cores;
    while !free.is_empty() {
        let e: Vec<f64> = free.iter().map(|&i| mix.e[i]).collect();
        let c: Vec<f64> = free.iter().map(|&i| mix.c[i]).collect();
        let sol = closed_form(base, form, &e, &c, remaining.max(0.0));
        let mut clamped = false;
        for (k, &i) in free.iter().enumerate() {
            if sol[k] < -SHARE_EPSILON {
                fixed[i] = Some(0.0);
                clamped = true;
            } else if sol[k] > c[k] + SHARE_EPSILON {
                fixed[i] = Some(c[k]);
                remaining -= c[k];
                clamped = true;
            }
        }
        if !clamped {
            for (k, &i) in free.iter().enumerate() {
                fixed[i] = Some(sol[k].clamp(0.0, c[k]));
            }
            break;
        }
        free.retain(|&i| fixed[i].is_none());
    }
    fixed.into_iter().map(|f| f.unwrap_or(0.0)).collect()
}

/// Threads in descending order of efficiency; equal efficiencies in thread order, so that the
/// result is deterministic (the paper does not say how ties are broken).
fn by_efficiency(e: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..e.len()).collect();
    order.sort_by(|&a, &b| e[b].total_cmp(&e[a]).then(a.cmp(&b)));
    order
}

/// Gives `remaining` fast share to the threads in descending order of efficiency, each up to
/// its `cap` (max-perf's rule, and min-fair's second loop); returns what is left.
fn fill_by_efficiency(mix: &Mix, f: &mut [f64], mut remaining: f64, cap: &[f64]) -> f64 {
    for i in by_efficiency(mix.e) {
        if remaining <= SHARE_EPSILON {
            break;
        }
        let add = (cap[i] - f[i]).max(0.0).min(remaining);
        f[i] += add;
        remaining -= add;
    }
    remaining
}

/// Max-perf (§3): the F threads with the highest efficiency on the fast cores, each with its
/// whole share c_i, the others on slow cores.
pub fn max_perf(mix: &Mix) -> Vec<f64> {
    let mut f = vec![0.0; mix.len()];
    fill_by_efficiency(mix, &mut f, mix.fast_cores, mix.c);
    f
}

/// Algorithm 1's required_f_share: the smallest fast share with which a thread reaches
/// `target` times its base performance, (target · perf_base − c)/(e − 1), clamped to [0, c].
/// The paper asks for a share "such that … > target"; the smallest share reaching it (≥) is the
/// one that leaves the most for throughput, and is what the closed form gives. With e ≤ 1 the
/// gain floor makes it 0 when the thread reaches the target on slow cores alone and c (the most
/// it can get: the target is then out of its reach) otherwise.
pub fn required_fast_share(e: f64, c: f64, base_perf: f64, target: f64) -> f64 {
    ((target * base_perf - c) / gain(e)).clamp(0.0, c)
}

/// The largest fast share with which a thread still reaches `target` times its base
/// performance: c_i for a thread that gains from fast cores, (c − target · perf_base)/(1 − e)
/// for one that loses (e < 1: a fast share only slows it), clamped to [0, c].
fn allowed_fast_share(e: f64, c: f64, base_perf: f64, target: f64) -> f64 {
    if e >= 1.0 {
        c
    } else {
        ((c - target * base_perf) / (1.0 - e)).clamp(0.0, c)
    }
}

/// Min-fair (Algorithm 1): the most throughput with every thread at least at `target` times its
/// base performance. If even max-fair (normalised form) does not reach the target, max-fair's
/// shares are kept (as the paper does: the target is out of reach); otherwise each thread gets
/// its required share and what remains of F goes to the most efficient threads, each up to c_i
/// (a thread with e < 1 up to the share that keeps it at the target).
///
/// Ties in efficiency are broken in thread order (deterministic); the paper's HML.a result
/// (§7.3) shows that near-ties can flip between intervals under estimation noise: the
/// remedy is sim-fair's grouping (combined-fair), not a change here.
pub fn min_fair(mix: &Mix, base: Base, target: f64) -> Vec<f64> {
    let pb = base_perf(mix, base);
    let fair = max_fair(mix, base, SlowOnlyForm::Normalised);
    if metrics(&throughputs(mix, &fair, &pb)).min_fairness < target - SHARE_EPSILON {
        return fair;
    }
    let mut f: Vec<f64> = (0..mix.len()).map(|i| required_fast_share(mix.e[i], mix.c[i], pb[i], target)).collect();
    let allowed: Vec<f64> = (0..mix.len()).map(|i| allowed_fast_share(mix.e[i], mix.c[i], pb[i], target)).collect();
    let remaining = mix.fast_cores - f.iter().sum::<f64>();
    // The second loop as the paper's, except that a thread with e < 1 takes only as much as
    // keeps it at the target (the paper assumes every e > 1). Max-fair reaching the target means
    // the allowed shares hold F, so the uncapped pass after it (a fast core never idles) only
    // runs on what the target could not place.
    let left = fill_by_efficiency(mix, &mut f, remaining, &allowed);
    fill_by_efficiency(mix, &mut f, left, mix.c);
    f
}

/// The blend α · a + (1 − α) · b of two share vectors.
fn blend(alpha: f64, a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(&x, &y)| alpha * x + (1.0 - alpha) * y).collect()
}

/// Uni-fair (Algorithm 2): the blend α · f_perf + (1 − α) · f_fair of a throughput-oriented
/// allocation (max-perf, or min-fair + sim-fair in combined-fair) and max-fair with the largest
/// α (in the paper's steps) whose uniformity reaches `target`; returns the shares and α.
///
/// The first guess is the paper's α = (1 − target)/(1 − U_perf) (uniformity assumed to fall
/// linearly in α), lowered by `ALPHA_STEP` while the target is not met. Choices: α is clamped to
/// [0, 1]: when f_perf already reaches the target α = 1 (the paper: "the scheduler runs as
/// max-perf"), which also avoids the division by zero at U_perf = 1; the loop stops at α = 0
/// (max-fair) even if max-fair itself misses the target (possible only under the slow-only and
/// fast-only bases, whose max-fair can be clamped). α is a blend of shares for the interval, not
/// a time split between policies (the paper's choice, §5.2). Like the paper, α is never raised
/// above the first guess: conservative when the blend's uniformity falls slower than linearly.
pub fn uni_fair(mix: &Mix, base: Base, target: f64, f_perf: &[f64], f_fair: &[f64]) -> (Vec<f64>, f64) {
    let pb = base_perf(mix, base);
    let uniformity = |f: &[f64]| metrics(&throughputs(mix, f, &pb)).uniformity;
    let u_perf = uniformity(f_perf);
    let mut alpha = if u_perf >= target - SHARE_EPSILON { 1.0 } else { ((1.0 - target) / (1.0 - u_perf)).clamp(0.0, 1.0) };
    let mut f = blend(alpha, f_perf, f_fair);
    while alpha > 0.0 && uniformity(&f) < target - SHARE_EPSILON {
        alpha = (alpha - ALPHA_STEP).max(0.0);
        f = blend(alpha, f_perf, f_fair);
    }
    (f, alpha)
}

/// Sets `f[j]` for the members j of a group to max(floor_j, λ c_j) with λ such that the group's
/// total is unchanged: an equal fraction of each member's total share, except members whose
/// floor is above it. Iterative like max-fair's clamping (one-sided, so exact). The floors must
/// sum to at most the group's total.
fn spread_over_group(group: &[usize], c: &[f64], floor: &[f64], f: &mut [f64]) {
    let mut total: f64 = group.iter().map(|&j| f[j]).sum();
    let mut free: Vec<usize> = group.to_vec();
    loop {
        let level = total / free.iter().map(|&j| c[j]).sum::<f64>();
        let (below, above): (Vec<usize>, Vec<usize>) = free.iter().partition(|&&j| level * c[j] < floor[j] - SHARE_EPSILON);
        if below.is_empty() {
            for &j in &free {
                f[j] = level * c[j];
            }
            return;
        }
        for &j in &below {
            f[j] = floor[j];
            total -= floor[j];
        }
        if above.is_empty() {
            return;
        }
        free = above;
    }
}

/// Sim-fair (Algorithm 3): starting from `f_perf`, each thread that has at least its max-fair
/// share (`f_fair`) pools its fast share with every thread whose efficiency is within
/// `similarity` of its own, and the group shares the pool equally. The group's total is kept, so
/// the shares still sum as `f_perf` does.
///
/// Choices where Algorithm 3 is silent: the difference is absolute (the paper's values 0.2 and
/// 0.5 are efficiency units); a group is the threads within `similarity` of the seed (not
/// transitive chains); seeds are taken in descending order of efficiency (ties in thread order),
/// each judged on the shares as updated so far, so overlapping groups are averaged in turn;
/// "equally" means an equal fraction of each member's total share c_j (with equal c, the
/// paper's case, the plain average; with unequal c the average could exceed a member's c_j).
///
/// `keep_min = Some((base, target))` is the safe variant for combined-fair: the paper asserts
/// that averaging after min-fair keeps minF (§5.4), but an average can take a member below its
/// required share; here no member goes below min(its share before the averaging, its
/// min-fair required share for `target` under `base`), the rest of the pool shared as above.
/// Threads with e ≤ 1 stay out of the groups in the safe variant: a fast share only slows them,
/// so a share pooled to them could take them below the target from above.
pub fn sim_fair(mix: &Mix, similarity: f64, f_perf: &[f64], f_fair: &[f64], keep_min: Option<(Base, f64)>) -> Vec<f64> {
    let required: Vec<f64> = match keep_min {
        Some((base, target)) => {
            let pb = base_perf(mix, base);
            (0..mix.len()).map(|i| required_fast_share(mix.e[i], mix.c[i], pb[i], target)).collect()
        }
        None => vec![0.0; mix.len()],
    };
    let mut f = f_perf.to_vec();
    for i in by_efficiency(mix.e) {
        if f[i] < f_fair[i] - SHARE_EPSILON {
            continue;
        }
        let member = |j: usize| (mix.e[j] - mix.e[i]).abs() <= similarity + SHARE_EPSILON && (keep_min.is_none() || mix.e[j] > 1.0);
        let group: Vec<usize> = (0..mix.len()).filter(|&j| member(j)).collect();
        if group.is_empty() {
            continue;
        }
        let floor: Vec<f64> = (0..mix.len()).map(|j| f[j].min(required[j])).collect();
        spread_over_group(&group, mix.c, &floor, &mut f);
    }
    f
}

/// Combined-fair (Algorithm 4): min-fair for `min_target`, then sim-fair from it (against
/// max-fair), then uni-fair between that and max-fair for `uni_target`; returns the shares and
/// uni-fair's α. `safe` keeps every thread at least at its min-fair required share through the
/// sim-fair step (`sim_fair`'s `keep_min`); the uni-fair blend of two allocations that both
/// reach minF then reaches it too, since each T_i is linear in the shares.
pub fn combined_fair(mix: &Mix, base: Base, similarity: f64, min_target: f64, uni_target: f64, safe: bool) -> (Vec<f64>, f64) {
    let fair = max_fair(mix, base, SlowOnlyForm::Normalised);
    let min = min_fair(mix, base, min_target);
    let sim = sim_fair(mix, similarity, &min, &fair, safe.then_some((base, min_target)));
    uni_fair(mix, base, uni_target, &sim, &fair)
}

/// Each thread's throughput T_i = (e_i f_i + c_i − f_i) / perf_base_i (§2.4 with the linear
/// performance model; the paper's calculate_minFairness and calculate_uniformity use no other).
pub fn throughputs(mix: &Mix, f: &[f64], base_perf: &[f64]) -> Vec<f64> {
    (0..mix.len()).map(|i| (mix.e[i] * f[i] + mix.c[i] - f[i]) / base_perf[i]).collect()
}

/// The system metrics of §2.4.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metrics {
    /// The arithmetic mean of the T_i.
    pub throughput: f64,
    /// minF: the smallest T_i.
    pub min_fairness: f64,
    /// 1 − σ/μ of the T_i, σ the population standard deviation (the paper does not say which;
    /// the population's is the spread of exactly these threads, and gives 1 for equal T_i at
    /// any N).
    pub uniformity: f64,
}

/// The metrics of the T_i; NaN for an empty slice (the mean of nothing is undefined).
pub fn metrics(t: &[f64]) -> Metrics {
    if t.is_empty() {
        return Metrics { throughput: f64::NAN, min_fairness: f64::NAN, uniformity: f64::NAN };
    }
    let n = t.len() as f64;
    let mean = t.iter().sum::<f64>() / n;
    let var = t.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    Metrics { throughput: mean, min_fairness: t.iter().copied().fold(f64::INFINITY, f64::min), uniformity: 1.0 - var.sqrt() / mean }
}

/// Fairness target achievement (§7.4): value / min(target, the value under max-fair), so a
/// target beyond what max-fair reaches counts as max-fair's value.
pub fn fairness_achievement(value: f64, target: f64, max_fair_value: f64) -> f64 {
    value / target.min(max_fair_value)
}

/// Throughput achievement (§7.4): (T − T_max-fair) / (T_max-perf − T_max-fair), the part of
/// max-perf's gain over max-fair that is kept. NaN when max-perf gains nothing over max-fair
/// (|difference| ≤ `SHARE_EPSILON`, e.g. a mix of equal efficiencies): there is no gain to
/// keep, and a reproduction averaging over mixes leaves such mixes out and says so.
pub fn throughput_achievement(t: f64, t_max_fair: f64, t_max_perf: f64) -> f64 {
    let gain = t_max_perf - t_max_fair;
    if gain.abs() <= SHARE_EPSILON {
        return f64::NAN;
    }
    (t - t_max_fair) / gain
}

/// The largest min-fair target accepted (`Decision::check`). No thread's T exceeds its e (the
/// slow-only base's bound), and the paper's efficiencies stay below 3.6 (the emulated AMP's
/// 2.8/0.8 GHz, PARSEC swaptions' 3.58, §7.6); 10 leaves room for other machines while catching
/// a percent typed for a fraction (targets are fractions: 0.85, 1.4).
pub const MAX_MIN_FAIRNESS_TARGET: f64 = 10.0;

/// The largest sim-fair similarity accepted: an absolute efficiency difference; at the paper's
/// largest efficiencies (≈ 3.6, see above) a similarity of 10 already groups every thread.
pub const MAX_SIMILARITY: f64 = 10.0;

/// One of the paper's policies with its parameters, as the what-if analysis and the policies'
/// share daemon name them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    MaxPerf,
    MaxFair,
    MinFair {
        target: f64,
    },
    UniFair {
        target: f64,
    },
    /// Sim-fair from max-perf; `keep_min` a min-fair target whose required shares the groups
    /// keep (the safe variant), None for the paper's averaging.
    SimFair {
        similarity: f64,
        keep_min: Option<f64>,
    },
    CombinedFair {
        similarity: f64,
        min_target: f64,
        uni_target: f64,
        safe: bool,
    },
}

impl Decision {
    /// The registered name of the policy (`max-perf`, `min-fair`, …).
    pub fn name(&self) -> &'static str {
        match self {
            Decision::MaxPerf => "max-perf",
            Decision::MaxFair => "max-fair",
            Decision::MinFair { .. } => "min-fair",
            Decision::UniFair { .. } => "uni-fair",
            Decision::SimFair { .. } => "sim-fair",
            Decision::CombinedFair { .. } => "combined-fair",
        }
    }

    /// The parameters' ranges, in one line "key: problem" naming the one that is wrong: a min-fair target in
    /// (0, `MAX_MIN_FAIRNESS_TARGET`], a uniformity target in (0, 1] (uniformity is at most 1),
    /// a similarity in [0, `MAX_SIMILARITY`].
    pub fn check(&self) -> Result<(), String> {
        let min_target = |name: &str, t: f64| {
            if t.is_finite() && t > 0.0 && t <= MAX_MIN_FAIRNESS_TARGET {
                Ok(())
            } else {
                Err(format!("{name}: must be a fraction > 0 and ≤ {MAX_MIN_FAIRNESS_TARGET} (0.85 for 85%), got {t}"))
            }
        };
        let uni_target = |name: &str, t: f64| {
            if t.is_finite() && t > 0.0 && t <= 1.0 {
                Ok(())
            } else {
                Err(format!("{name}: must be a uniformity > 0 and ≤ 1 (0.8 for 80%), got {t}"))
            }
        };
        let similarity = |s: f64| {
            if s.is_finite() && (0.0..=MAX_SIMILARITY).contains(&s) {
                Ok(())
            } else {
                Err(format!("similarity: must be an efficiency difference from 0 to {MAX_SIMILARITY}, got {s}"))
            }
        };
        match *self {
            Decision::MaxPerf | Decision::MaxFair => Ok(()),
            Decision::MinFair { target } => min_target("target", target),
            Decision::UniFair { target } => uni_target("target", target),
            Decision::SimFair { similarity: s, keep_min } => {
                similarity(s)?;
                keep_min.map_or(Ok(()), |t| min_target("target", t))
            }
            Decision::CombinedFair { similarity: s, min_target: m, uni_target: u, .. } => {
                similarity(s)?;
                min_target("min_target", m)?;
                uni_target("uni_target", u)
            }
        }
    }
}

/// The fast shares the decision gives the mix under `base`, and uni-fair's α where there is
/// one (uni-fair, combined-fair). uni-fair and sim-fair start from max-perf and blend or group
/// against max-fair, as Algorithms 2 and 3 are stated; `form` is max-fair's slow-only form
/// (the other policies use the normalised one: with equal c, the paper's case, the same).
pub fn decide(mix: &Mix, base: Base, form: SlowOnlyForm, decision: Decision) -> (Vec<f64>, Option<f64>) {
    let fair = || max_fair(mix, base, SlowOnlyForm::Normalised);
    match decision {
        Decision::MaxPerf => (max_perf(mix), None),
        Decision::MaxFair => (max_fair(mix, base, form), None),
        Decision::MinFair { target } => (min_fair(mix, base, target), None),
        Decision::UniFair { target } => {
            let (f, alpha) = uni_fair(mix, base, target, &max_perf(mix), &fair());
            (f, Some(alpha))
        }
        Decision::SimFair { similarity, keep_min } => (sim_fair(mix, similarity, &max_perf(mix), &fair(), keep_min.map(|t| (base, t))), None),
        Decision::CombinedFair { similarity, min_target, uni_target, safe } => {
            let (f, alpha) = combined_fair(mix, base, similarity, min_target, uni_target, safe);
            (f, Some(alpha))
        }
    }
}
