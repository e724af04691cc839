//! Linux's per-entity load tracking (PELT) as the Linaro big.LITTLE MP ("HMP") kernels use it
//! (Linux 3.10 kernel/sched/fair.c, `__update_entity_runnable_avg`, `decay_load`,
//! `__compute_runnable_contrib`, `__update_task_entity_contrib`; Linaro/Samsung 3.10 adds
//! `usage_avg_sum` and `hmp_variable_scale_convert`).
//!
//! Time is counted in units of 1024 ns (`delta >>= 10`) and cut into periods of 1024 units
//! (≈ 1 ms). A task's `runnable_avg_sum` gathers the units it was runnable (running or queued),
//! `usage_avg_sum` those it ran, `runnable_avg_period` all units; at each period boundary all
//! three decay by y, with y^32 = 1/2, so a period 32 ms ago counts half. The GTS reads
//! `load_avg_ratio = runnable_avg_sum × 1024 / (runnable_avg_period + 1)`, 0..1023: the decayed
//! fraction of recent time the task was runnable, whatever its priority.
//!
//! The kernel's fixed-point tables (`runnable_avg_yN_inv`, `runnable_avg_yN_sum`) are computed
//! here from their definition (2^32·y^n, and Σ_{k=1..n} 1024·y^k summed with the kernel's
//! rounding down at each step) rather than copied; the arithmetic on them is the kernel's, integer for integer. What the kernel updates
//! at its ticks and enqueue/dequeue, this module updates whenever the caller says the task's
//! state changes or asks its ratio: the sum is the same for any split of a stretch of one state,
//! up to the sub-unit remainders the kernel drops too (it sets `last_runnable_update = now`).

use std::sync::OnceLock;

/// `LOAD_AVG_PERIOD`: the half-life, in periods.
pub const LOAD_AVG_PERIOD: u64 = 32;
/// `LOAD_AVG_MAX`: the largest sum, reached after `LOAD_AVG_MAX_N` full periods.
pub const LOAD_AVG_MAX: u32 = 47742;
/// `LOAD_AVG_MAX_N`.
pub const LOAD_AVG_MAX_N: u64 = 345;
/// Units of a period, and ns of a unit (`>> 10`).
pub const PERIOD_UNITS: u64 = 1024;
pub const UNIT_SHIFT: u32 = 10;
/// `HMP_VARIABLE_SCALE_SHIFT`: the fixed-point shift of the time scale.
pub const SCALE_SHIFT: u32 = 16;

/// y^n·2^32 for n in 0..32 and Σ_{k=1..n} 1024·y^k for n in 0..=32.
struct Tables {
    yn_inv: [u64; LOAD_AVG_PERIOD as usize],
    yn_sum: [u64; LOAD_AVG_PERIOD as usize + 1],
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let y = 0.5f64.powf(1.0 / LOAD_AVG_PERIOD as f64);
        let mut yn_inv = [0u64; LOAD_AVG_PERIOD as usize];
        for (n, v) in yn_inv.iter_mut().enumerate() {
            // The kernel's first entry is 0xffffffff (a u32), not 2^32.
            *v = ((4294967296.0 * y.powi(n as i32)) as u64).min(u32::MAX as u64);
        }
        // As the kernel's table was made: each entry the previous one decayed plus 1024·y,
        // rounded down (so that sums recombined from it never over-estimate).
        let mut yn_sum = [0u64; LOAD_AVG_PERIOD as usize + 1];
        for n in 1..yn_sum.len() {
            yn_sum[n] = (yn_sum[n - 1] as f64 * y + 1024.0 * y) as u64;
        }
        Tables { yn_inv, yn_sum }
    })
}

/// `decay_load`: `val` × y^n.
pub fn decay_load(val: u64, n: u64) -> u64 {
    if n == 0 {
        return val;
    }
    if n > LOAD_AVG_PERIOD * 63 {
        return 0;
    }
    let (whole, rest) = (n / LOAD_AVG_PERIOD, n % LOAD_AVG_PERIOD);
    let val = val >> whole;
    (val * tables().yn_inv[rest as usize]) >> 32
}

/// `__compute_runnable_contrib`: Σ_{k=1..n} 1024·y^k, what n full periods add.
pub fn runnable_contrib(n: u64) -> u64 {
    let t = tables();
    if n <= LOAD_AVG_PERIOD {
        return t.yn_sum[n as usize];
    }
    if n >= LOAD_AVG_MAX_N {
        return LOAD_AVG_MAX as u64;
    }
    let (mut contrib, mut n) = (0u64, n);
    loop {
        contrib /= 2;
        contrib += t.yn_sum[LOAD_AVG_PERIOD as usize];
        n -= LOAD_AVG_PERIOD;
        if n <= LOAD_AVG_PERIOD {
            break;
        }
    }
    decay_load(contrib, n) + t.yn_sum[n as usize]
}

/// The time scale of `load_avg_period_ms` (`hmp_period_from_sysfs`): `(32 << 16) / value`.
pub fn multiplier(load_avg_period_ms: u32) -> u64 {
    (LOAD_AVG_PERIOD << SCALE_SHIFT) / load_avg_period_ms.max(1) as u64
}

/// One task's tracked load (the kernel's `struct sched_avg`, the fields HMP reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pelt {
    pub runnable_avg_sum: u64,
    pub usage_avg_sum: u64,
    pub runnable_avg_period: u64,
    /// When it was last brought up to date, ns.
    pub last_update_ns: u64,
}

impl Pelt {
    /// A new task at `now_ns` (`init_task_runnable_average`): its history is one slice, runnable
    /// throughout (sum = period = the slice in units), so it starts as heavy as can be and the GTS
    /// treats it as a big task until it shows otherwise. `usage_avg_sum` starts equal too: a new
    /// task is not starving.
    pub fn new_task(now_ns: u64, slice_ns: u64) -> Pelt {
        let units = slice_ns >> UNIT_SHIFT;
        Pelt { runnable_avg_sum: units, usage_avg_sum: units, runnable_avg_period: units, last_update_ns: now_ns }
    }

    /// `__update_entity_runnable_avg`: account the time from the last update to `now_ns`, during
    /// which the task was `runnable` (and `running`), with time scaled by `multiplier`
    /// (`hmp_variable_scale_convert`; 1 << 16 is 1).
    pub fn update(&mut self, now_ns: u64, runnable: bool, running: bool, multiplier: u64) {
        if now_ns <= self.last_update_ns {
            return;
        }
        let delta_ns = now_ns - self.last_update_ns;
        let scaled = ((delta_ns as u128 * multiplier as u128) >> SCALE_SHIFT).min(u64::MAX as u128) as u64;
        let mut delta = scaled >> UNIT_SHIFT;
        if delta == 0 {
            return;
        }
        self.last_update_ns = now_ns;
        let delta_w = self.runnable_avg_period % PERIOD_UNITS;
        if delta + delta_w >= PERIOD_UNITS {
            // Finish the period in progress, decay, then add the full periods and the start of
            // the new one.
            let fill = PERIOD_UNITS - delta_w;
            self.add(fill, runnable, running);
            delta -= fill;
            let periods = delta / PERIOD_UNITS;
            delta %= PERIOD_UNITS;
            self.runnable_avg_sum = decay_load(self.runnable_avg_sum, periods + 1);
            self.runnable_avg_period = decay_load(self.runnable_avg_period, periods + 1);
            self.usage_avg_sum = decay_load(self.usage_avg_sum, periods + 1);
            self.add(runnable_contrib(periods), runnable, running);
        }
        self.add(delta, runnable, running);
    }

    fn add(&mut self, units: u64, runnable: bool, running: bool) {
        if runnable {
            self.runnable_avg_sum += units;
        }
        if running {
            self.usage_avg_sum += units;
        }
        self.runnable_avg_period += units;
    }

    /// `load_avg_ratio`, 0..1023.
    pub fn load_avg_ratio(&self) -> u32 {
        (self.runnable_avg_sum * 1024 / (self.runnable_avg_period + 1)) as u32
    }

    /// `hmp_task_starvation`: the share (of 1024) of its runnable time the task ran.
    pub fn starvation(&self) -> u32 {
        (self.usage_avg_sum * 1024 / (self.runnable_avg_sum + 1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const ONE: u64 = 1 << SCALE_SHIFT;

    /// The tables against the kernel's published entries: `runnable_avg_yN_inv[1]` = 0xfa83b2da,
    /// `runnable_avg_yN_sum[1]` = 1002, `[32]` = 23371; and the series' limit, LOAD_AVG_MAX.
    #[test]
    fn tables_match_the_kernels_entries() {
        let t = tables();
        assert_eq!(t.yn_inv[0], 0xffff_ffff);
        assert!((t.yn_inv[1] as i64 - 0xfa83_b2da_i64).abs() <= 1, "{:#x}", t.yn_inv[1]);
        assert_eq!(t.yn_sum[1], 1002);
        assert_eq!(t.yn_sum[32], 23371);
        assert_eq!(runnable_contrib(LOAD_AVG_MAX_N), LOAD_AVG_MAX as u64);
        // y^32 = 1/2: 32 periods halve a value (then × 0xffffffff >> 32, the kernel's y^0,
        // takes one off).
        assert_eq!(decay_load(1 << 20, 32), (1 << 19) - 1);
    }

    /// A CPU-bound task: sum = period at every update, so the ratio is 1024·p/(p+1), 1023 once p
    /// ≥ 1024 (after its first period); after 1 s the period has saturated. Below LOAD_AVG_MAX:
    /// the kernel takes the position in the current period from `runnable_avg_period % 1024`,
    /// which each decay disturbs, so its periods are not the clock's; the sum settles lower.
    #[test]
    fn a_cpu_bound_task_settles_at_1023() {
        let mut p = Pelt::new_task(0, 4 * MS);
        for k in 1..=1000 {
            p.update(k * MS, true, true, ONE);
            assert_eq!(p.runnable_avg_sum, p.runnable_avg_period);
        }
        assert_eq!(p.load_avg_ratio(), 1023);
        assert!(p.runnable_avg_period > 40_000 && p.runnable_avg_period <= LOAD_AVG_MAX as u64 + 1024, "{}", p.runnable_avg_period);
    }

    /// A task runnable 1 ms, then asleep 1 ms, again and again. In continuous time, with T = 1 ms
    /// = 1e6/1024² = 0.9537 periods and w = y^T = 0.5^(0.9537/32) = 0.97955, the ratio at the end
    /// of a runnable stretch is (1 − w)/(1 − w²) = 1/(1 + w) = 0.50517 (517.3 of 1024) and at
    /// the end of a sleep w/(1 + w) = 0.49483 (506.7): between them throughout. The kernel's
    /// discretisation (decay at period boundaries, integer truncation) moves them by less than a
    /// unit of ratio per period's worth of rounding; we allow 3 either way: [503, 521].
    #[test]
    fn a_50_percent_duty_task_converges_to_512() {
        let mut p = Pelt::new_task(0, 4 * MS);
        let mut seen = Vec::new();
        for k in 0..2000u64 {
            // 0..1 ms of each 2 ms runnable and running, 1..2 ms asleep.
            let runnable = k % 2 == 0;
            p.update((k + 1) * MS, runnable, runnable, ONE);
            if k >= 1000 {
                seen.push(p.load_avg_ratio());
            }
        }
        let (lo, hi) = (*seen.iter().min().unwrap(), *seen.iter().max().unwrap());
        let w = 0.5f64.powf(1e6 / (1024.0 * 1024.0) / 32.0);
        let (low, high) = (1024.0 * w / (1.0 + w), 1024.0 / (1.0 + w));
        assert!((506.0..507.0).contains(&low) && (517.0..518.0).contains(&high), "{low} {high}");
        assert!(lo >= 503 && hi <= 521, "ratio ranged {lo}..{hi}");
        // It really oscillates between the two ends (not stuck at one).
        assert!(hi - lo >= 8, "ratio ranged {lo}..{hi}");
    }

    /// From a long sleep (sum ≈ 0, period saturated) a task that runs continuously reaches 700 when
    /// 1 − y^n ≥ 700/1024, n ≥ 32·log2(1024/324) = 53.13 periods = 55.7 ms: not at 55 ms, by 57.
    #[test]
    fn an_idle_task_turned_cpu_bound_reaches_700_after_about_56_ms() {
        let mut p = Pelt::new_task(0, 4 * MS);
        p.update(2000 * MS, false, false, ONE);
        assert_eq!(p.load_avg_ratio(), 0);
        let mut q = p;
        q.update(2055 * MS, true, true, ONE);
        assert!(q.load_avg_ratio() < 700, "{}", q.load_avg_ratio());
        p.update(2057 * MS, true, true, ONE);
        assert!(p.load_avg_ratio() >= 700, "{}", p.load_avg_ratio());
    }

    /// `load_avg_period_ms` = 64 doubles the half-life: the same 55.7 ms now reaches only
    /// 1 − 2^(−53.13/64) = 0.437 (447); 700 needs twice the time, 111.4 ms.
    #[test]
    fn load_avg_period_ms_rescales_time() {
        let mut p = Pelt::new_task(0, 4 * MS);
        p.update(4000 * MS, false, false, multiplier(64));
        assert_eq!(multiplier(64), ONE / 2);
        let mut q = p;
        q.update(4000 * MS + 5570 * MS / 100, true, true, multiplier(64));
        assert!((440..=452).contains(&q.load_avg_ratio()), "{}", q.load_avg_ratio());
        p.update(4000 * MS + 113 * MS, true, true, multiplier(64));
        assert!(p.load_avg_ratio() >= 700, "{}", p.load_avg_ratio());
    }

    /// Starvation: a task runnable throughout but running half the time has usage/runnable = 1/2
    /// (512), below the offload gate of 768.
    #[test]
    fn a_task_running_half_its_runnable_time_starves_at_512() {
        let mut p = Pelt::new_task(0, 4 * MS);
        for k in 0..1000u64 {
            p.update((k + 1) * MS, true, k % 2 == 0, ONE);
        }
        assert!((500..=524).contains(&p.starvation()), "{}", p.starvation());
    }
}
