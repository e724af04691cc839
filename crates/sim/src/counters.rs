//! The counters a thread's run adds up (`truth`, what results report) and the ones its policy
//! reads (`ViewBook::threads[t].per_type`, and the per-quantum intervals the book derives from
//! them), which carry a seeded measurement noise.
//!
//! Real per-thread counters are not exact: interrupts and context switches add counts, skid
//! moves them across a read, a counter multiplexed with others is scaled from a sample (Weaver
//! and McKee, "Can Hardware Performance Counters Be Trusted?", IISWC 2008; Weaver, Terpstra and
//! Moore, "Non-Determinism and Overcount on Modern Hardware Performance Counter
//! Implementations", ISPASS 2013). So that an estimator meets such error rather than reading the
//! model back, each event's growth between two reads by the policy is multiplied by
//! 1 + σ·z, z approximately standard normal (the Irwin–Hall sum of 4 uniforms, rescaled: mean 0,
//! variance 1, bounded at ±√12 ≈ 3.46), drawn per thread, core type and event at every read.
//! `time_ns` is the OS's CPU time, exact. σ = `SimConfig::counter_noise` (the run setting
//! `counter_noise`, `defaults::COUNTER_NOISE`; 0 = exact). Since σ ≤ `limits::COUNTER_NOISE`'s
//! 0.25, every factor is above 0.13: the counters a policy reads never decrease.
//!
//! Each thread's runnable time per core type (`Counters::runnable_ns`, `Signals::PROGRESS`) is its
//! time there plus its waits in a run queue, each charged, as Linux's schedstat charges it, when
//! the wait ends: to the type of the core the thread is then dispatched on. It is exact (no noise),
//! like `time_ns`. Every wait is behind another thread on the core (`corun_ns` = the waits): the
//! simulated cores are slow by running slowly, as real ones are, not by having time taken from
//! them, so a thread's progress rates say nothing of its efficiency
//! (`policy::common::progress_rate`).
//!
//! The draws come from their own stream of the run's seed (`NOISE_STREAM`), and only at policy
//! calls, so the noise changes nothing the engine does but what the policy reads (and so what
//! it decides).

use ampsched_model::events::{EVENTS, MORE_EVENTS};
use ampsched_model::machine::MAX_CORE_TYPES;
use ampsched_model::rng::Rng;
use ampsched_model::{Counters, PerType, ViewBook};

/// Mixed into the run's seed for the noise's generator, so that its stream is its own.
pub(crate) const NOISE_STREAM: u64 = 0xC0C0_A77E_5EED_0001;

/// The counters the per-event path adds to (`Engine::account`), apart from the other events,
/// which a thread adds at its rate per instruction when its rate changes or its counters are
/// read (`Engine::flush_events`): the per-event path touches 32 bytes per core type, and a run
/// of many threads keeps the cache it had before the other events were counted.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Hot {
    pub time_ns: u64,
    pub instructions: f64,
    pub cycles: f64,
    pub llc_misses: f64,
}

#[derive(Debug)]
pub(crate) struct CounterBook {
    /// Per thread, what it did: exact (with `more`).
    pub hot: Vec<[Hot; MAX_CORE_TYPES]>,
    /// Per thread and core type, `Counters::more`.
    pub more: Vec<[[f64; MORE_EVENTS]; MAX_CORE_TYPES]>,
    /// Threads whose `truth` moved since the policy last read them.
    unsynced: Vec<u32>,
    is_unsynced: Vec<bool>,
    /// σ, the relative standard deviation of a read's growth (0: exact).
    noise: f64,
    rng: Rng,
    /// With noise: per thread, `truth` at the policy's last read.
    read: Vec<PerType>,
    /// Per thread and core type, its run-queue waits that ended there, ns.
    waits: Vec<[u64; MAX_CORE_TYPES]>,
    /// Per thread, since when it waits in a run queue (`NOT_WAITING` when it does not).
    ready_since: Vec<u64>,
}

/// `CounterBook::ready_since` of a thread not waiting for a core.
const NOT_WAITING: u64 = u64::MAX;

impl CounterBook {
    pub fn new(noise: f64, seed: u64) -> CounterBook {
        CounterBook {
            hot: Vec::new(),
            more: Vec::new(),
            unsynced: Vec::new(),
            is_unsynced: Vec::new(),
            noise,
            rng: Rng::new(seed ^ NOISE_STREAM),
            read: Vec::new(),
            waits: Vec::new(),
            ready_since: Vec::new(),
        }
    }

    /// Thread `t` waits for a core from `now` (it became runnable, or was taken off one still
    /// runnable).
    #[inline]
    pub fn ready(&mut self, t: u32, now: u64) {
        self.ready_since[t as usize] = now;
    }

    /// Thread `t` got a core of type `ty` at `now`: its wait, if any, ends there. The view has
    /// it when the thread's counters are next synced, once it has run (`mark`, from the
    /// engine's accounting): marking it here would reorder the noise's draws between threads.
    #[inline]
    pub fn dispatched(&mut self, t: u32, ty: usize, now: u64) {
        let since = std::mem::replace(&mut self.ready_since[t as usize], NOT_WAITING);
        if since < now {
            self.waits[t as usize][ty] += now - since;
        }
    }

    /// Thread `t`'s runnable time on type `ty`, ns.
    fn runnable_ns(&self, t: usize, ty: usize) -> u64 {
        self.hot[t][ty].time_ns + self.waits[t][ty]
    }

    pub fn add_thread(&mut self) {
        self.hot.push(Default::default());
        self.more.push(Default::default());
        self.is_unsynced.push(false);
        self.waits.push([0; MAX_CORE_TYPES]);
        self.ready_since.push(NOT_WAITING);
        if self.noise > 0.0 {
            self.read.push(PerType::default());
        }
    }

    /// Thread `t`'s counters moved.
    #[inline]
    pub fn mark(&mut self, t: u32) {
        if !self.is_unsynced[t as usize] {
            self.is_unsynced[t as usize] = true;
            self.unsynced.push(t);
        }
    }

    /// A standard-normal-like draw: mean 0, variance 1, within ±√12.
    fn standard(&mut self) -> f64 {
        let sum: f64 = (0..4).map(|_| (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)).sum();
        (sum - 2.0) * 3f64.sqrt()
    }

    /// Thread `t`'s exact counters.
    pub fn truth(&self, t: usize) -> PerType {
        std::array::from_fn(|ty| {
            let h = &self.hot[t][ty];
            Counters {
                time_ns: h.time_ns,
                runnable_ns: self.runnable_ns(t, ty),
                corun_ns: self.waits[t][ty],
                instructions: h.instructions,
                cycles: h.cycles,
                llc_misses: h.llc_misses,
                more: self.more[t][ty],
            }
        })
    }

    /// How many threads' counters moved since the policy last read them, and the i-th of them.
    pub fn unsynced(&self) -> usize {
        self.unsynced.len()
    }
    pub fn unsynced_at(&self, i: usize) -> u32 {
        self.unsynced[i]
    }

    /// The policy has read every thread's counters (`sync` on each of `unsynced`).
    pub fn synced_all(&mut self) {
        for &t in &self.unsynced {
            self.is_unsynced[t as usize] = false;
        }
        self.unsynced.clear();
    }

    /// What a policy that reads no counters is shown of thread `t` now: its CPU time and
    /// runnable time per core type, exact (`SimConfig::policy_reads_counters`).
    pub fn sync_time(&self, book: &mut ViewBook, t: u32, types: usize) {
        let (t, view) = (t as usize, &mut book.threads[t as usize].per_type);
        for ty in 0..types {
            view[ty].time_ns = self.hot[t][ty].time_ns;
            view[ty].runnable_ns = self.runnable_ns(t, ty);
            view[ty].corun_ns = self.waits[t][ty];
        }
    }

    /// What the policy reads of thread `t` now, on the machine's first `types` core types (the
    /// others never count).
    pub fn sync(&mut self, book: &mut ViewBook, t: u32, types: usize) {
        let t = t as usize;
        let view = &mut book.threads[t].per_type;
        for ty in 0..types {
            let (hot, more) = (self.hot[t][ty], self.more[t][ty]);
            let now = Counters {
                time_ns: hot.time_ns,
                runnable_ns: self.runnable_ns(t, ty),
                corun_ns: self.waits[t][ty],
                instructions: hot.instructions,
                cycles: hot.cycles,
                llc_misses: hot.llc_misses,
                more,
            };
            if self.noise == 0.0 {
                view[ty] = now;
                continue;
            }
            let before = self.read[t][ty];
            view[ty].time_ns = now.time_ns;
            view[ty].runnable_ns = now.runnable_ns;
            view[ty].corun_ns = now.corun_ns;
            for e in 0..EVENTS.len() {
                let grown = now.event(e) - before.event(e);
                if grown > 0.0 {
                    let factor = 1.0 + self.noise * self.standard();
                    *view[ty].event_mut(e) += grown * factor;
                }
            }
            self.read[t][ty] = now;
        }
    }
}
