//! Which local scheduler (the OS's layer below the policy, `ampsched_sim::local`) a run uses, and
//! its parameters: a policy says it (`Policy::os_scheduler`, CFS by default), the runner builds
//! the engine with it. The schedulers are those of the big.LITTLE paper's §III ("Exploiting
//! Asymmetric Multi-Core Processors with Flexible System Software"): Linux's GTS (big.LITTLE MP,
//! "HMP"), cluster switching and the in-kernel switcher. docs/policies/biglittle-os.md.

/// The local scheduler of a run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum OsScheduler {
    /// The CFS-like scheduler every run had before (`ampsched_sim::local::Cfs`).
    #[default]
    Cfs,
    /// Global task scheduling, as Linaro's HMP patches in Samsung's 3.10 kernels do it.
    Gts(GtsParams),
    /// Cluster switching: one cluster runs at a time, the whole workload moves with the load.
    ClusterSwitch(SwitchParams),
    /// The in-kernel switcher: each big/little pair is one CPU, running on one of its two cores.
    Iks(SwitchParams),
}

impl OsScheduler {
    /// The name a policy option (`os=`) and the docs use.
    pub fn name(&self) -> &'static str {
        match self {
            OsScheduler::Cfs => "cfs",
            OsScheduler::Gts(_) => "gts",
            OsScheduler::ClusterSwitch(_) => "cluster-switch",
            OsScheduler::Iks(_) => "iks",
        }
    }
}

/// GTS's tunables, named as the kernel names them (Linaro/Samsung 3.10 kernel/sched/fair.c, the
/// Samsung reference tree AndreiLux/ref-3.10; /sys/kernel/hmp/*). Loads are PELT's
/// `load_avg_ratio`, 0..1023 (`ampsched_sim::local::pelt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GtsParams {
    /// `hmp_up_threshold`: a task at least this loaded may move to a faster CPU (700; the code's
    /// comment still calls the older 512 the default).
    pub up_threshold: u32,
    /// `hmp_down_threshold`: a task below this load may move to a slower CPU (512; was 256).
    pub down_threshold: u32,
    /// `hmp_next_up_threshold`: after an up-migration, the task may not move up again for this
    /// many 1024-ns units (4096, ≈ 4.2 ms; checked as `((now - last) >> 10) < threshold`).
    pub next_up_threshold: u32,
    /// `hmp_next_down_threshold`: the same after a down-migration (4096).
    pub next_down_threshold: u32,
    /// `hmp_max_tasks`: how many queued tasks of a CPU, besides the running one, the forced
    /// migration looks through for the heaviest (up) or the lightest (offload) task (5).
    pub max_tasks: u32,
    /// `hmp_offload_down`'s starvation gate: a task is offloaded to an idle slower CPU only if it
    /// ran at most this share (of 1024) of the time it was runnable (768: it waited ≥ 25%).
    pub starvation: u32,
    /// `hmp_aggressive_up_migration`: up-migrate to the least-loaded faster CPU even when none is
    /// idle (and never offload). Off by default.
    pub aggressive: bool,
    /// `/sys/kernel/hmp/load_avg_period_ms`: the PELT half-life in ms (32); time is scaled by
    /// `(32 << 16) / value` before it is tracked (`hmp_variable_scale_convert`).
    pub load_avg_period_ms: u32,
    /// `hmp_fork_migrate_big`: a new task starts on the least-loaded faster CPU and arms its up
    /// delay. Off: Samsung's default (the knob is 0 in the reference tree); a new task is placed
    /// as CFS would, and, its load starting full (PELT's `init_task_runnable_average`), moves up
    /// at once if a faster CPU is idle.
    pub fork_migrate_big: bool,
}

impl GtsParams {
    /// The kernel's defaults (see each field).
    pub const DEFAULT: GtsParams = GtsParams {
        up_threshold: 700,
        down_threshold: 512,
        next_up_threshold: 4096,
        next_down_threshold: 4096,
        max_tasks: 5,
        starvation: 768,
        aggressive: false,
        load_avg_period_ms: 32,
        fork_migrate_big: false,
    };
}

impl Default for GtsParams {
    fn default() -> Self {
        GtsParams::DEFAULT
    }
}

/// The utilisation thresholds of a cpufreq-driven switcher (cluster switching, IKS): at each
/// sample, a load (busy fraction of the sample, 0..1) above `up_util` switches to the big core(s),
/// below `down_util` to the little one(s). docs/policies/biglittle-os.md derives the defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwitchParams {
    pub up_util: f64,
    pub down_util: f64,
}

/// The switchers' virtual frequency table on the Exynos 5422 (big.LITTLE paper §II: A7 200 MHz –
/// 1.4 GHz, A15 200 MHz – 2 GHz): Linux's arm_big_little cpufreq driver shows a little core's
/// frequencies halved (`VIRT_FREQ`), so the merged table runs from 100 MHz to 2 GHz; it switches
/// a CPU up when the governor asks for more than the little cores' top (700 MHz virtual) and down
/// when it asks for less than the big cores' bottom (200 MHz) (`bL_cpufreq_set_target`).
pub const SWITCH_VIRT_MIN_MHZ: f64 = 100.0;
pub const SWITCH_VIRT_MAX_MHZ: f64 = 2000.0;
pub const SWITCH_LITTLE_TOP_MHZ: f64 = 700.0;
pub const SWITCH_BIG_BOTTOM_MHZ: f64 = 200.0;

impl SwitchParams {
    /// The ondemand governor asks for `min + load × (max − min)` (Linux 3.12+
    /// drivers/cpufreq/cpufreq_ondemand.c, `od_check_cpu`; a load above its `up_threshold`, 80%,
    /// asks for the top, which is above 700 MHz either way): the load at which the request
    /// crosses each switching frequency. Up: (700 − 100) / 1900 ≈ 0.316; down: (200 − 100) /
    /// 1900 ≈ 0.053.
    pub const DEFAULT: SwitchParams = SwitchParams {
        up_util: (SWITCH_LITTLE_TOP_MHZ - SWITCH_VIRT_MIN_MHZ) / (SWITCH_VIRT_MAX_MHZ - SWITCH_VIRT_MIN_MHZ),
        down_util: (SWITCH_BIG_BOTTOM_MHZ - SWITCH_VIRT_MIN_MHZ) / (SWITCH_VIRT_MAX_MHZ - SWITCH_VIRT_MIN_MHZ),
    };
}

impl Default for SwitchParams {
    fn default() -> Self {
        SwitchParams::DEFAULT
    }
}
