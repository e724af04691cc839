//! Migrations: a dispatch on another core than the thread's last costs it a fixed time, and,
//! if it leaves its LLC domain, the refill of its cached data (`memory::refill_cost`), paid
//! before it makes progress again. A dispatch undone in the instant it was made (the policy
//! moved the thread at once) is no migration.

use ampsched_model::events as pmu;

use crate::engine::Engine;
use crate::local::LocalScheduler;
use crate::observe::Observer;

/// A dispatch's migration, as charged.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Move {
    /// The core it came from (None: its first dispatch, no migration).
    pub from: Option<usize>,
    pub cost_ns: u64,
    pub refill_ns: u64,
    pub refill_misses: f64,
}

/// The migration side's state of a thread (`Engine::migration`); the core it last ran on is
/// apart (`Engine::last_ran`), for the local scheduler.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Migration {
    /// The migration charged at its latest dispatch, until it has run.
    pub unpaid_move: Option<Move>,
    /// Time the thread still owes to its migrations before it makes progress.
    pub debt_ns: u64,
    /// The part of `debt_ns` that refills the LLC, and the misses it makes (counted as paid).
    pub refill_ns: u64,
    pub refill_misses: f64,
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    /// Thread `t` is dispatched on core `c`: charge the migration if it last ran elsewhere (its
    /// first dispatch is recorded as a move from nowhere, free, so that undoing it restores
    /// "never ran").
    #[inline]
    pub(crate) fn charge_move(&mut self, t: u32, c: usize) {
        let m = &self.dvfs.machine;
        let charged = match self.last_ran[t as usize].map(|p| p as usize) {
            None => Some(Move { from: None, cost_ns: 0, refill_ns: 0, refill_misses: 0.0 }),
            Some(prev) if prev != c => {
                // A migration: a fixed cost, and the refill of its cached data if it left its LLC.
                let (refill_ns, refill_misses) = if m.cores[prev].llc != m.cores[c].llc { self.refill_cost(t, c) } else { (0, 0.0) };
                self.book.threads[t as usize].migrations += 1;
                self.stats.migrations += 1;
                if let Some(o) = &mut self.trace {
                    o.migrated(self.now, t, prev as u32, c as u32);
                }
                Some(Move { from: Some(prev), cost_ns: m.migration.fixed_ns + refill_ns, refill_ns, refill_misses })
            }
            Some(_) => None,
        };
        if let Some(mv) = charged {
            let mg = &mut self.migration[t as usize];
            mg.debt_ns += mv.cost_ns;
            mg.refill_ns += mv.refill_ns;
            mg.refill_misses += mv.refill_misses;
            mg.unpaid_move = Some(mv);
        }
        self.last_ran[t as usize] = Some(c as u32);
    }

    /// Thread `t` was taken off its core: if that was in the instant it was dispatched, it never
    /// ran there, so it did not move.
    #[inline]
    pub(crate) fn undo_unpaid_move(&mut self, t: u32) {
        let mg = &mut self.migration[t as usize];
        if let Some(mv) = mg.unpaid_move.take() {
            mg.debt_ns -= mv.cost_ns;
            mg.refill_ns -= mv.refill_ns;
            mg.refill_misses -= mv.refill_misses;
            self.last_ran[t as usize] = mv.from.map(|c| c as u32);
            if mv.from.is_some() {
                self.book.threads[t as usize].migrations -= 1;
                self.stats.migrations -= 1;
            }
            if let Some(o) = &mut self.trace {
                o.migration_undone(self.now, t);
            }
        }
    }

    /// Thread `t` ran `elapsed` ns on a core of type `ty`: what it owes to its migrations is
    /// paid first, the refill's part of it with the misses a counter sees. Returns the ns paid.
    #[inline]
    pub(crate) fn pay_debt(&mut self, t: u32, ty: usize, elapsed: u64) -> u64 {
        let mg = &mut self.migration[t as usize];
        mg.unpaid_move = None;
        let paid = mg.debt_ns.min(elapsed);
        mg.debt_ns -= paid;
        if mg.refill_ns > 0 {
            // The refill is paid first: its misses are the cold start a counter sees.
            let refilled = paid.min(mg.refill_ns);
            let misses = mg.refill_misses * refilled as f64 / mg.refill_ns as f64;
            self.counters.hot[t as usize][ty].llc_misses += misses;
            let more = pmu::of_refill(misses, refilled as f64, self.dvfs.machine.core_types[ty].freq_ghz);
            for (x, add) in self.counters.more[t as usize][ty].iter_mut().zip(more) {
                *x += add;
            }
            mg.refill_misses -= misses;
            mg.refill_ns -= refilled;
        }
        paid
    }
}
