//! `gts`: placement left to Linux's global task scheduler (ARM's big.LITTLE MP, Linaro's HMP), the
//! OS scheduler the big.LITTLE paper evaluates ("Exploiting Asymmetric Multi-Core Processors with
//! Flexible System Software", §III.C: "dynamic coarse-grained OS scheduling using the Global Task
//! Scheduler integrated in the Linux kernel"). Every thread may run everywhere; the simulator's
//! GTS local scheduler (`ampsched_sim::local::gts`) places and migrates them by their PELT load.
//! The options are the kernel's tunables, named as Linaro/Samsung 3.10 kernel/sched/fair.c and
//! /sys/kernel/hmp name them; defaults `GtsParams::DEFAULT`. No live form: on a real big.LITTLE
//! kernel the OS is the GTS.

use ampsched_model::{GtsParams, OsScheduler, Signals};

use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

const D: GtsParams = GtsParams::DEFAULT;

pub const OPTIONS: [OptionInfo; 9] = [
    OptionInfo {
        name: "up_threshold",
        kind: OptionKind::Integer { default: D.up_threshold as i64, min: 0, max: 1024 },
        doc: "hmp_up_threshold: least load (0..1023) to move to a big core (700)",
    },
    OptionInfo {
        name: "down_threshold",
        kind: OptionKind::Integer { default: D.down_threshold as i64, min: 0, max: 1024 },
        doc: "hmp_down_threshold: a load below this may move to a little core (512)",
    },
    OptionInfo {
        name: "next_up_threshold",
        kind: OptionKind::Integer { default: D.next_up_threshold as i64, min: 0, max: 1 << 24 },
        doc: "hmp_next_up_threshold: no second up-migration for this many 1024-ns units (4096, about 4.2 ms)",
    },
    OptionInfo {
        name: "next_down_threshold",
        kind: OptionKind::Integer { default: D.next_down_threshold as i64, min: 0, max: 1 << 24 },
        doc: "hmp_next_down_threshold: the same for down-migrations (4096)",
    },
    OptionInfo {
        name: "max_tasks",
        kind: OptionKind::Integer { default: D.max_tasks as i64, min: 0, max: 64 },
        doc: "hmp_max_tasks: queued tasks per CPU the forced migration looks through, besides the running one (5)",
    },
    OptionInfo {
        name: "starvation",
        kind: OptionKind::Integer { default: D.starvation as i64, min: 0, max: 1024 },
        doc: "hmp_offload_down's gate: offload only a task that ran at most this share (of 1024) of its runnable time (768)",
    },
    OptionInfo {
        name: "aggressive",
        kind: OptionKind::Flag(D.aggressive),
        doc: "hmp_aggressive_up_migration: move up to the least-loaded big core even when none is idle, and never offload",
    },
    OptionInfo {
        name: "load_avg_period_ms",
        kind: OptionKind::Integer { default: D.load_avg_period_ms as i64, min: 1, max: 1024 },
        doc: "/sys/kernel/hmp/load_avg_period_ms: PELT's half-life in ms (32)",
    },
    OptionInfo {
        name: "fork_migrate_big",
        kind: OptionKind::Flag(D.fork_migrate_big),
        doc: "hmp_fork_migrate_big: a new thread starts on the least-loaded big core (off: Samsung's default)",
    },
];

pub const INFO: PolicyInfo = PolicyInfo {
    name: "gts",
    description: "Linux's global task scheduler (big.LITTLE MP / HMP) as the OS: PELT loads, up/down thresholds, forced, offload and idle-pull migrations",
    source: "big.LITTLE paper, §III.C; Linaro/Samsung 3.10 kernel/sched/fair.c (HMP)",
    options: &OPTIONS,
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, _| super::os_only(OsScheduler::Gts(params(o)))),
};

pub fn params(o: &Options) -> GtsParams {
    let int = |name| o.integer(name) as u32;
    GtsParams {
        up_threshold: int("up_threshold"),
        down_threshold: int("down_threshold"),
        next_up_threshold: int("next_up_threshold"),
        next_down_threshold: int("next_down_threshold"),
        max_tasks: int("max_tasks"),
        starvation: int("starvation"),
        aggressive: o.flag("aggressive"),
        load_avg_period_ms: int("load_avg_period_ms"),
        fork_migrate_big: o.flag("fork_migrate_big"),
    }
}
