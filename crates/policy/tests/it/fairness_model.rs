//! The share-level model of Kim & Huh (IEEE TC 2018), `ampsched_policy::fairness::model`:
//! shares derived by hand for each base and policy on 2–3 threads (the derivation in each
//! test's comment), the printed against the normalised slow-only formula, the toy check table of
//! our notes on the paper (e = [3.3, 3.2, 2.6, 2.1, 1.8, 1.7], 2 fast + 4 slow, c = 1; values
//! computed with an independent Python reconstruction of the model), and properties over random
//! mixes drawn from fixed seeds.

use ampsched_policy::fairness::model::{
    base_perf, combined_fair, fairness_achievement, max_fair, max_perf, metrics, min_fair, required_fast_share, sim_fair, throughput_achievement, throughputs,
    uni_fair, Base, Metrics, Mix, SlowOnlyForm,
};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

const NORM: SlowOnlyForm = SlowOnlyForm::Normalised;

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tol, "{got:?} vs {want:?}");
    }
}

fn ones(n: usize) -> Vec<f64> {
    vec![1.0; n]
}

fn t_of(mix: &Mix, base: Base, f: &[f64]) -> Vec<f64> {
    throughputs(mix, f, &base_perf(mix, base))
}

#[test]
fn fair_share_base_divides_the_fast_cores_by_total_share_and_clamps_at_c() {
    // f_i = c_i/Σc · F: c = [1, 1, 2], F = 2 → [0.5, 0.5, 1.0]; base perf e f_b + c − f_b
    // with e = [2, 3, 1.5]: [1.5, 2.0, 2.5].
    let (e, c) = ([2.0, 3.0, 1.5], [1.0, 1.0, 2.0]);
    let mix = Mix { e: &e, c: &c, fast_cores: 2.0 };
    close(&max_fair(&mix, Base::FairShare, NORM), &[0.5, 0.5, 1.0], 1e-12);
    close(&base_perf(&mix, Base::FairShare), &[1.5, 2.0, 2.5], 1e-12);
    // Fewer threads' worth of share than fast cores: c = [0.5, 1], F = 2 gives [2/3, 4/3],
    // both above c, so both end at c and the shares sum to Σc = 1.5 < F.
    let (e, c) = ([2.0, 3.0], [0.5, 1.0]);
    let mix = Mix { e: &e, c: &c, fast_cores: 2.0 };
    close(&max_fair(&mix, Base::FairShare, NORM), &[0.5, 1.0], 1e-12);
}

#[test]
fn slow_only_base_gives_shares_inverse_to_the_gain_and_clamps_the_low_gain_thread() {
    // f_i ∝ c_i/(e_i − 1): e = [2, 3, 1.5], c = 1, F = 1: weights [1, 0.5, 2], Σ 3.5 →
    // [2/7, 1/7, 4/7]; every T_i = 1 + (e_i − 1) f_i = 9/7.
    let (e, c) = ([2.0, 3.0, 1.5], ones(3));
    let mix = Mix { e: &e, c: &c, fast_cores: 1.0 };
    let f = max_fair(&mix, Base::SlowOnly, NORM);
    close(&f, &[2.0 / 7.0, 1.0 / 7.0, 4.0 / 7.0], 1e-12);
    close(&t_of(&mix, Base::SlowOnly, &f), &[9.0 / 7.0; 3], 1e-12);
    // Clamped: e = [1.2, 3, 3], F = 2: weights [5, 0.5, 0.5] → thread 0 would get 10/6 > 1;
    // it gets c = 1 and the other two share the remaining 1 equally: [1, 0.5, 0.5], T =
    // [1.2, 2, 2] (thread 0 cannot catch up: the most fair it can be).
    let (e, c) = ([1.2, 3.0, 3.0], ones(3));
    let mix = Mix { e: &e, c: &c, fast_cores: 2.0 };
    let f = max_fair(&mix, Base::SlowOnly, NORM);
    close(&f, &[1.0, 0.5, 0.5], 1e-12);
    close(&t_of(&mix, Base::SlowOnly, &f), &[1.2, 2.0, 2.0], 1e-12);
}

#[test]
fn fast_only_base_solves_its_condition_and_clamps_a_negative_share() {
    // (e_i f_i + 1 − f_i)/e_i equal, f_0 + f_1 = 1, e = [2, 4]: (1 + f_0)/2 = (1 + 3 f_1)/4 →
    // f_0 = 2/5, f_1 = 3/5, both T = 0.7.
    let (e, c) = ([2.0, 4.0], ones(2));
    let mix = Mix { e: &e, c: &c, fast_cores: 1.0 };
    let f = max_fair(&mix, Base::FastOnly, NORM);
    close(&f, &[0.4, 0.6], 1e-12);
    close(&t_of(&mix, Base::FastOnly, &f), &[0.7, 0.7], 1e-12);
    // e = [1.1, 4, 4], F = 1: A = e/(e − 1) = [11, 4/3, 4/3], ΣA = 41/3, Σ 1/(e − 1) = 32/3,
    // K = (1 + 32/3)/(41/3) = 35/41, f_0 = 11 K − 10 = −25/41 < 0 → 0; the two others share F:
    // [0, 0.5, 0.5], T = [1/1.1, 0.625, 0.625].
    let (e, c) = ([1.1, 4.0, 4.0], ones(3));
    let mix = Mix { e: &e, c: &c, fast_cores: 1.0 };
    let f = max_fair(&mix, Base::FastOnly, NORM);
    close(&f, &[0.0, 0.5, 0.5], 1e-12);
    close(&t_of(&mix, Base::FastOnly, &f), &[1.0 / 1.1, 0.625, 0.625], 1e-12);
}

#[test]
fn the_printed_slow_only_formula_equalises_absolute_performance() {
    // e = [2, 3, 1.5], c = [1, 0.5, 0.8], F = 1 (our notes' example).
    // Normalised: weights c/(e − 1) = [1, 0.25, 1.6], Σ 2.85 → f = [1, 0.25, 1.6]/2.85, and
    // every (e f + c − f)/c = 1 + 1/2.85.
    // Printed: 1/(e − 1) = [1, 0.5, 2], Σ 3.5; the corrections Σ_i (c_j − c_i)/(e_i − 1) are
    // [0.65, −1.1, −0.05], so f = [0.35/3.5, 0.5·2.1/3.5, 2·1.05/3.5] = [0.1, 0.3, 0.6], and
    // every absolute e f + c − f = 1.1 while the normalised ones differ.
    let (e, c) = ([2.0, 3.0, 1.5], [1.0, 0.5, 0.8]);
    let mix = Mix { e: &e, c: &c, fast_cores: 1.0 };
    let norm = max_fair(&mix, Base::SlowOnly, SlowOnlyForm::Normalised);
    close(&norm, &[1.0 / 2.85, 0.25 / 2.85, 1.6 / 2.85], 1e-12);
    close(&t_of(&mix, Base::SlowOnly, &norm), &[1.0 + 1.0 / 2.85; 3], 1e-12);
    let printed = max_fair(&mix, Base::SlowOnly, SlowOnlyForm::Printed);
    close(&printed, &[0.1, 0.3, 0.6], 1e-12);
    let absolute: Vec<f64> = (0..3).map(|i| e[i] * printed[i] + c[i] - printed[i]).collect();
    close(&absolute, &[1.1; 3], 1e-12);
    // With equal c the two forms are the same.
    let c = ones(3);
    let mix = Mix { e: &e, c: &c, fast_cores: 1.0 };
    close(&max_fair(&mix, Base::SlowOnly, SlowOnlyForm::Printed), &max_fair(&mix, Base::SlowOnly, NORM), 1e-12);
}

#[test]
fn max_perf_gives_whole_shares_in_descending_efficiency() {
    let (e, c) = ([1.5, 3.0, 2.0, 3.0], [1.0, 1.0, 0.5, 1.0]);
    let mix = Mix { e: &e, c: &c, fast_cores: 2.5 };
    // Order 1, 3 (tie: thread order), 2, 0: 1 + 1 + 0.5.
    close(&max_perf(&mix), &[0.0, 1.0, 0.5, 1.0], 0.0);
}

#[test]
fn min_fair_gives_required_shares_then_the_rest_to_the_most_efficient() {
    // e = [3, 2, 1.5], c = 1, F = 1, fair-share base: f_b = 1/3, perf_base = [5/3, 4/3, 7/6].
    // Target 0.9: required (0.9 perf_base − 1)/(e − 1) = [0.25, 0.2, 0.1]; the remaining 0.45
    // goes to thread 0: [0.7, 0.2, 0.1]; T = [1.44, 0.9, 0.9].
    let (e, c) = ([3.0, 2.0, 1.5], ones(3));
    let mix = Mix { e: &e, c: &c, fast_cores: 1.0 };
    close(&base_perf(&mix, Base::FairShare), &[5.0 / 3.0, 4.0 / 3.0, 7.0 / 6.0], 1e-12);
    assert!((required_fast_share(3.0, 1.0, 5.0 / 3.0, 0.9) - 0.25).abs() < 1e-12);
    let f = min_fair(&mix, Base::FairShare, 0.9);
    close(&f, &[0.7, 0.2, 0.1], 1e-12);
    close(&t_of(&mix, Base::FairShare, &f), &[1.44, 0.9, 0.9], 1e-12);
    // Slow-only base: max-fair's T is 1 + 1/3.5 for all (weights [0.5, 1, 2]); a target of 2
    // is beyond it, so min-fair keeps max-fair's shares [1/7, 2/7, 4/7].
    close(&min_fair(&mix, Base::SlowOnly, 2.0), &[1.0 / 7.0, 2.0 / 7.0, 4.0 / 7.0], 1e-12);
    // e ≤ 1: no share when the slow cores alone reach the target, all of c otherwise.
    assert_eq!(required_fast_share(0.9, 1.0, 1.0, 0.95), 0.0);
    assert_eq!(required_fast_share(1.0, 1.0, 1.2, 0.9), 1.0);
}

#[test]
fn uni_fair_lowers_alpha_by_steps_until_the_target_is_met() {
    // e = [3, 2], c = 1, F = 1, fair base: f_b = 0.5, perf_base = [2, 1.5]. max-perf [1, 0]:
    // T = [1.5, 2/3], U = 1 − 0.41667/1.08333 = 0.61538. Blend f = [0.5 + α/2, 0.5 − α/2]:
    // T = [1 + α/2, 1 − α/3], U(α) = 1 − 5α/(12 + α). Target 0.9: first guess α = 0.1/0.38462
    // = 0.26, U = 0.89396; 0.25: 0.89796; 0.24: 0.90196 ≥ 0.9 → α = 0.24, f = [0.62, 0.38].
    let (e, c) = ([3.0, 2.0], ones(2));
    let mix = Mix { e: &e, c: &c, fast_cores: 1.0 };
    let (perf, fair) = (max_perf(&mix), max_fair(&mix, Base::FairShare, NORM));
    let (f, alpha) = uni_fair(&mix, Base::FairShare, 0.9, &perf, &fair);
    assert!((alpha - 0.24).abs() < 1e-9, "{alpha}");
    close(&f, &[0.62, 0.38], 1e-9);
    // A target max-perf already meets: α = 1, max-perf itself.
    let (f, alpha) = uni_fair(&mix, Base::FairShare, 0.6, &perf, &fair);
    assert_eq!((f, alpha), (perf, 1.0));
}

#[test]
fn sim_fair_averages_the_fast_share_of_similar_threads() {
    // e = [3.0, 2.9, 2.0], c = 1, F = 1, max-perf [1, 0, 0], max-fair [1/3; 3]. Similarity 0.2:
    // thread 0 (1 ≥ 1/3) pools with thread 1 (|2.9 − 3| ≤ 0.2): [0.5, 0.5, 0]. Similarity 1:
    // the group is all three: [1/3; 3].
    let (e, c) = ([3.0, 2.9, 2.0], ones(3));
    let mix = Mix { e: &e, c: &c, fast_cores: 1.0 };
    let (perf, fair) = (max_perf(&mix), max_fair(&mix, Base::FairShare, NORM));
    close(&sim_fair(&mix, 0.2, &perf, &fair, None), &[0.5, 0.5, 0.0], 1e-12);
    close(&sim_fair(&mix, 1.0, &perf, &fair, None), &[1.0 / 3.0; 3], 1e-12);
}

#[test]
fn the_safe_sim_fair_keeps_min_fair_required_shares() {
    // Slow-only base, target 1.4, e = [3, 2.8, 1.9], c = 1, F = 1. Required (1.4 − 1)/(e − 1)
    // = [0.2, 2/9, 4/9]; max-fair (∝ 1/(e − 1)) reaches 1 + 1/2.1667 = 1.46 ≥ 1.4, so min-fair
    // gives [0.2 + 0.1333, 2/9, 4/9] = [1/3, 2/9, 4/9] (thread 0 takes the rest).
    // Similarity 1.2 puts all three in thread 0's group. The paper's averaging gives [1/3; 3]:
    // thread 2 drops to T = 1 + 0.9/3 = 1.3 < 1.4. The safe variant keeps thread 2 at 4/9 and
    // shares the other 5/9 equally: [5/18, 5/18, 4/9] (both above their required 0.2 and 2/9).
    let (e, c) = ([3.0, 2.8, 1.9], ones(3));
    let mix = Mix { e: &e, c: &c, fast_cores: 1.0 };
    let minf = min_fair(&mix, Base::SlowOnly, 1.4);
    close(&minf, &[1.0 / 3.0, 2.0 / 9.0, 4.0 / 9.0], 1e-12);
    let fair = max_fair(&mix, Base::SlowOnly, NORM);
    let plain = sim_fair(&mix, 1.2, &minf, &fair, None);
    close(&plain, &[1.0 / 3.0; 3], 1e-12);
    assert!((metrics(&t_of(&mix, Base::SlowOnly, &plain)).min_fairness - 1.3).abs() < 1e-12);
    let safe = sim_fair(&mix, 1.2, &minf, &fair, Some((Base::SlowOnly, 1.4)));
    close(&safe, &[5.0 / 18.0, 5.0 / 18.0, 4.0 / 9.0], 1e-12);
    assert!(metrics(&t_of(&mix, Base::SlowOnly, &safe)).min_fairness >= 1.4 - 1e-12);
}

#[test]
fn metrics_and_achievements() {
    // T = [1, 2, 3]: mean 2, min 1, population σ = √(2/3), uniformity 1 − 0.40825 = 0.59175.
    let m = metrics(&[1.0, 2.0, 3.0]);
    assert_eq!((m.throughput, m.min_fairness), (2.0, 1.0));
    assert!((m.uniformity - (1.0 - (2.0f64 / 3.0).sqrt() / 2.0)).abs() < 1e-15);
    assert!(metrics(&[]).throughput.is_nan());
    // A target beyond max-fair's value counts as max-fair's value.
    assert_eq!(fairness_achievement(0.9, 0.85, 1.0), 0.9 / 0.85);
    assert_eq!(fairness_achievement(0.6, 0.7, 0.6), 1.0);
    assert!((throughput_achievement(1.06, 1.0, 1.1) - 0.6).abs() < 1e-12);
    assert!(throughput_achievement(1.0, 1.0, 1.0).is_nan());
}

#[test]
fn bases_and_forms_parse_from_their_option_values() {
    for b in Base::ALL {
        assert_eq!(Base::parse(b.name()), Some(b));
    }
    assert_eq!(Base::parse("fair_share"), None);
    assert_eq!(SlowOnlyForm::parse("printed"), Some(SlowOnlyForm::Printed));
    assert_eq!(SlowOnlyForm::default(), SlowOnlyForm::Normalised);
    let (e, c) = ([2.0, -1.0], [1.0]);
    assert_eq!(Mix { e: &e, c: &c, fast_cores: 1.0 }.check().unwrap_err(), "c: 1 values for 2 threads (one per value of e)");
    let c = [1.0, 1.0];
    assert_eq!(Mix { e: &e, c: &c, fast_cores: 1.0 }.check().unwrap_err(), "e[1]: must be a finite number > 0, got -1");
}

/// Our notes' toy mix: 2 fast + 4 slow cores, c = 1.
const TOY_E: [f64; 6] = [3.3, 3.2, 2.6, 2.1, 1.8, 1.7];

fn toy() -> Mix<'static> {
    static C: [f64; 6] = [1.0; 6];
    Mix { e: &TOY_E, c: &C, fast_cores: 2.0 }
}

/// (T, minF, U) rounded as the table prints them.
fn row(mix: &Mix, base: Base, f: &[f64], want: (f64, f64, f64)) {
    let Metrics { throughput, min_fairness, uniformity } = metrics(&t_of(mix, base, f));
    let got = [throughput, min_fairness, uniformity];
    for (g, w) in got.iter().zip([want.0, want.1, want.2]) {
        assert!((g - w).abs() <= 0.0005 + 1e-12, "{got:?} vs {want:?}");
    }
}

#[test]
fn the_toy_check_table() {
    let mix = toy();
    let fb = Base::FairShare;
    let fair = max_fair(&mix, fb, NORM);
    let perf = max_perf(&mix);
    row(&mix, fb, &fair, (1.000, 1.000, 1.000));
    row(&mix, fb, &perf, (1.116, 0.652, 0.529));
    row(&mix, fb, &min_fair(&mix, fb, 0.85), (1.080, 0.850, 0.652));
    row(&mix, fb, &min_fair(&mix, fb, 0.90), (1.054, 0.900, 0.673));
    row(&mix, fb, &min_fair(&mix, fb, 0.95), (1.027, 0.950, 0.832));
    for (target, alpha, want) in [(0.7, 0.61, (1.071, 0.789, 0.702)), (0.8, 0.39, (1.046, 0.863, 0.802)), (0.9, 0.19, (1.022, 0.933, 0.901))] {
        let (f, a) = uni_fair(&mix, fb, target, &perf, &fair);
        assert!((a - alpha).abs() < 0.005, "uni-fair {target}: α {a}");
        row(&mix, fb, &f, want);
    }
    for (uni, want) in [(0.7, (1.078, 0.850, 0.701)), (0.8, (1.051, 0.903, 0.801)), (0.9, (1.025, 0.953, 0.901))] {
        for safe in [false, true] {
            let (f, _) = combined_fair(&mix, fb, 0.2, 0.85, uni, safe);
            row(&mix, fb, &f, want);
        }
    }
    // The other bases: max-fair and max-perf (T, minF).
    for (base, fair_t, perf_t) in [(Base::SlowOnly, (1.392, 1.392), (1.750, 1.000)), (Base::FastOnly, (0.640, 0.640), (0.667, 0.385))] {
        let m = metrics(&t_of(&mix, base, &max_fair(&mix, base, NORM)));
        assert!((m.throughput - fair_t.0).abs() < 0.0005 && (m.min_fairness - fair_t.1).abs() < 0.0005, "{base:?} {m:?}");
        let m = metrics(&t_of(&mix, base, &perf));
        assert!((m.throughput - perf_t.0).abs() < 0.0005 && (m.min_fairness - perf_t.1).abs() < 0.0005, "{base:?} {m:?}");
    }
}

/// A random mix: 2–8 threads, e in [0.8, 4] (some ≤ 1, as noisy estimates can be), c equal
/// to 1 or in [0.3, 1], and 1 to N − 1 fast cores.
fn mix_strategy(equal_c: bool) -> impl Strategy<Value = (Vec<f64>, Vec<f64>, f64)> {
    (2usize..=8).prop_flat_map(move |n| {
        let c = if equal_c { Just(vec![1.0; n]).boxed() } else { prop::collection::vec(0.3f64..=1.0, n).boxed() };
        (prop::collection::vec(0.8f64..=4.0, n), c, 1usize..n).prop_map(|(e, c, f)| (e, c, f as f64))
    })
}

/// A mix of efficiencies in [0.5, 1.6] (many ≤ 1), c = 1, 1 to N − 1 fast cores.
fn near_one_strategy() -> impl Strategy<Value = (Vec<f64>, Vec<f64>, f64)> {
    (2usize..=8).prop_flat_map(|n| (prop::collection::vec(0.5f64..=1.6, n), 1usize..n).prop_map(move |(e, f)| (e, vec![1.0; n], f as f64)))
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: 256, rng_seed: RngSeed::Fixed(27), ..ProptestConfig::default() }
}

fn base_strategy() -> impl Strategy<Value = Base> {
    prop::sample::select(Base::ALL.to_vec())
}

/// Shares lie in [0, c_i] and sum to min(F, Σc).
fn valid(mix: &Mix, f: &[f64]) -> Result<(), TestCaseError> {
    for i in 0..mix.len() {
        prop_assert!(f[i] >= -1e-9 && f[i] <= mix.c[i] + 1e-9, "share {i} out of [0, c]: {f:?}");
    }
    let want = mix.fast_cores.min(mix.c.iter().sum());
    prop_assert!((f.iter().sum::<f64>() - want).abs() < 1e-7, "shares sum to {} not {want}: {f:?}", f.iter().sum::<f64>());
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_policy_gives_valid_shares((e, c, fast) in mix_strategy(false), base in base_strategy(), t in 0.3f64..1.6, u in 0.3f64..0.99, sim in 0.0f64..1.0) {
        let mix = Mix { e: &e, c: &c, fast_cores: fast };
        let fair = max_fair(&mix, base, NORM);
        let perf = max_perf(&mix);
        valid(&mix, &fair)?;
        valid(&mix, &perf)?;
        valid(&mix, &min_fair(&mix, base, t))?;
        valid(&mix, &uni_fair(&mix, base, u, &perf, &fair).0)?;
        valid(&mix, &sim_fair(&mix, sim, &perf, &fair, None))?;
        valid(&mix, &combined_fair(&mix, base, sim, t, u, true).0)?;
    }

    #[test]
    fn max_fair_equalises_every_unclamped_thread((e, c, fast) in mix_strategy(false), base in base_strategy()) {
        // The clamping is exact: threads strictly inside (0, c) share one T, those at 0 are at
        // or above it and those at c at or below it. Threads with e ≤ 1 are left out: their
        // shares come from the floored gain (`MIN_EFFICIENCY_GAIN`), their T from their e; and
        // a thread's share is "inside" only by more than the floor's effect (1e-5).
        let mix = Mix { e: &e, c: &c, fast_cores: fast };
        let f = max_fair(&mix, base, NORM);
        let t = t_of(&mix, base, &f);
        let gaining: Vec<usize> = (0..e.len()).filter(|&i| e[i] > 1.0).collect();
        let inside: Vec<usize> = gaining.iter().copied().filter(|&i| f[i] > 1e-5 && f[i] < c[i] - 1e-5).collect();
        if let Some(&k) = inside.first() {
            for &i in &gaining {
                if inside.contains(&i) {
                    prop_assert!((t[i] - t[k]).abs() < 1e-6, "{t:?} {f:?}");
                } else if f[i] <= 1e-5 {
                    prop_assert!(t[i] >= t[k] - 1e-4, "{t:?} {f:?}");
                } else {
                    prop_assert!(t[i] <= t[k] + 1e-4, "{t:?} {f:?}");
                }
            }
        }
    }

    #[test]
    fn min_fair_meets_its_target_whenever_max_fair_can((e, c, fast) in mix_strategy(false), base in base_strategy(), t in 0.3f64..1.6) {
        let mix = Mix { e: &e, c: &c, fast_cores: fast };
        let reachable = metrics(&t_of(&mix, base, &max_fair(&mix, base, NORM))).min_fairness;
        let got = metrics(&t_of(&mix, base, &min_fair(&mix, base, t))).min_fairness;
        if reachable >= t {
            prop_assert!(got >= t - 1e-9, "minF {got} < target {t} (max-fair reaches {reachable})");
        }
    }

    #[test]
    fn min_fair_meets_its_target_near_e_1((e, c, fast) in near_one_strategy(), base in base_strategy(), t in 0.5f64..1.2) {
        // Threads that lose on fast cores (e < 1) must not be handed the share left over.
        let mix = Mix { e: &e, c: &c, fast_cores: fast };
        let reachable = metrics(&t_of(&mix, base, &max_fair(&mix, base, NORM))).min_fairness;
        let f = min_fair(&mix, base, t);
        valid(&mix, &f)?;
        if reachable >= t {
            let got = metrics(&t_of(&mix, base, &f)).min_fairness;
            prop_assert!(got >= t - 1e-9, "minF {got} < target {t} (max-fair reaches {reachable}): {f:?}");
        }
    }

    #[test]
    fn min_fair_is_at_least_as_fast_as_max_fair((e, c, fast) in mix_strategy(true), base in base_strategy(), t in 0.3f64..1.6) {
        // Its optimality (Algorithm 1's proof) with equal c: max-fair is one allocation meeting
        // the target, so min-fair's throughput is no lower.
        let mix = Mix { e: &e, c: &c, fast_cores: fast };
        let fair = metrics(&t_of(&mix, base, &max_fair(&mix, base, NORM)));
        let minf = metrics(&t_of(&mix, base, &min_fair(&mix, base, t)));
        prop_assert!(minf.throughput >= fair.throughput - 1e-9, "{minf:?} {fair:?}");
    }

    #[test]
    fn uni_fair_meets_its_target_when_max_fair_does((e, c, fast) in mix_strategy(false), base in base_strategy(), u in 0.3f64..0.99) {
        let mix = Mix { e: &e, c: &c, fast_cores: fast };
        let fair = max_fair(&mix, base, NORM);
        let reachable = metrics(&t_of(&mix, base, &fair)).uniformity;
        let (f, alpha) = uni_fair(&mix, base, u, &max_perf(&mix), &fair);
        prop_assert!((0.0..=1.0).contains(&alpha));
        if reachable >= u {
            let got = metrics(&t_of(&mix, base, &f)).uniformity;
            prop_assert!(got >= u - 1e-9, "uniformity {got} < target {u} (α {alpha})");
        }
    }

    #[test]
    fn safe_sim_fair_keeps_min_fairness_near_e_1((e, c, fast) in near_one_strategy(), t in 0.9f64..1.0, sim in 0.0f64..1.0) {
        // Efficiencies around 1 and a large similarity: groups pool share to threads that
        // gain little or lose from it (e < 1), the case where the floor alone would not do.
        let mix = Mix { e: &e, c: &c, fast_cores: fast };
        let base = Base::FairShare;
        let fair = max_fair(&mix, base, NORM);
        let minf = min_fair(&mix, base, t);
        let f = sim_fair(&mix, sim, &minf, &fair, Some((base, t)));
        valid(&mix, &f)?;
        let reachable = metrics(&t_of(&mix, base, &fair)).min_fairness;
        if reachable >= t {
            let got = metrics(&t_of(&mix, base, &f)).min_fairness;
            prop_assert!(got >= t - 1e-9, "minF {got} < target {t}: {f:?}");
        }
    }

    #[test]
    fn safe_combined_fair_keeps_min_fairness((e, c, fast) in mix_strategy(false), base in base_strategy(), t in 0.3f64..1.6, u in 0.3f64..0.99, sim in 0.0f64..1.5) {
        let mix = Mix { e: &e, c: &c, fast_cores: fast };
        let reachable = metrics(&t_of(&mix, base, &max_fair(&mix, base, NORM))).min_fairness;
        let (f, _) = combined_fair(&mix, base, sim, t, u, true);
        if reachable >= t {
            let got = metrics(&t_of(&mix, base, &f)).min_fairness;
            prop_assert!(got >= t - 1e-9, "minF {got} < target {t}");
        }
    }
}
