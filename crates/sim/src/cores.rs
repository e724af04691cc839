//! The cores: running a thread the local scheduler chose (dispatch, with the migration cost of
//! `migrate`), taking it off, crediting it with what it did (`account`), and planning the core's
//! next event. Also where fast-core shares (`local::share`) act: a thread's slice end is its tick,
//! where a swap may move it, and a core with nothing to run takes a thread with a share from the
//! other core type.

use ampsched_model::{ThreadState, Trigger};

use crate::engine::{Engine, Pending};
use crate::events::Event;
use crate::interp::Act;
use crate::local::{LocalScheduler, SchedView};
use crate::observe::Observer;
use crate::prefetch::prefetch;
use crate::result::Segment;

/// `x.round() as u64` for the non-negative durations of the per-event path, without the libm
/// call `f64::round` compiles to. Exact: below 2^52 ns, `x - trunc(x)` is exact, and from there
/// on every f64 is an integer; NaN and negatives give 0 and huge values saturate, as `as` does.
#[inline]
pub(crate) fn round_ns(x: f64) -> u64 {
    let whole = x as u64;
    if x - whole as f64 >= 0.5 {
        whole.saturating_add(1)
    } else {
        whole
    }
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    pub(crate) fn mark_dirty(&mut self, c: u32) {
        let core = &mut self.cores[c as usize];
        if !core.dirty {
            core.dirty = true;
            self.dirty.push(c);
        }
    }

    /// Credit the running thread of core `c` with what it did since it was last accounted.
    pub(crate) fn account(&mut self, c: usize) {
        let Some(t) = self.running[c] else { return };
        let core = &mut self.cores[c];
        let elapsed = self.now - core.seg_start;
        if elapsed == 0 {
            return;
        }
        core.seg_start = self.now;
        core.busy_ns += elapsed;
        let done = self.now >= core.work_end;
        let ty = self.dvfs.machine.cores[c].core_type;
        self.book.mark_ran(t);
        self.counters.mark(t);
        let useful = elapsed - self.pay_debt(t, ty, elapsed);
        let m = &self.dvfs.machine;
        let ctr = &mut self.counters.hot[t as usize][ty];
        let misses_before = ctr.llc_misses;
        ctr.time_ns += elapsed;
        ctr.cycles += elapsed as f64 * m.core_types[ty].freq_ghz;
        // What it did, at the rate its core was planned with (`memory`).
        match &mut self.flow[t as usize].act {
            Act::Compute { remaining } => {
                let rate = &mut self.rates[t as usize];
                let retired = if done { *remaining } else { (useful as f64 / rate.tpi).min(*remaining) };
                *remaining -= retired;
                ctr.instructions += retired;
                ctr.llc_misses += retired * rate.llc_mpki / 1000.0;
                rate.retired_at_rate += retired;
            }
            Act::Spin { budget, in_cycles } => {
                self.book.threads[t as usize].spin_ns += useful;
                if let Some(b) = budget {
                    let spent = if *in_cycles { round_ns(useful as f64 * m.core_types[ty].freq_ghz) } else { useful };
                    *b = b.saturating_sub(spent);
                }
            }
            Act::Off => {}
        }
        if let Some(trace) = &mut self.power_trace {
            let misses = self.counters.hot[t as usize][ty].llc_misses - misses_before;
            trace.add(self.m.core_types[ty].rail, self.now - elapsed, self.now, self.dvfs.above_idle_w(c), misses);
        }
        // A fast-core share is the OS's: fast as its reported capacities say (`fast_type_mask`).
        if let Some(share) = &mut self.shares[t as usize] {
            share.rounds.charge(self.fast_type_mask[ty], elapsed);
        }
        self.sched.charge(t, c, elapsed);
    }

    /// Schedule core `c`'s next event for its running thread.
    pub(crate) fn plan(&mut self, c: usize) {
        self.ensure_rate(c);
        let t = self.running[c].expect("plan needs a running thread");
        let core = &mut self.cores[c];
        let work = match self.flow[t as usize].act {
            // Rounded to the nearest ns (float noise must not add a ns); never 0 while work remains.
            Act::Compute { remaining } if remaining > 0.0 => round_ns(remaining * self.rates[t as usize].tpi).max(1),
            Act::Compute { .. } => 0,
            Act::Spin { budget: Some(b), in_cycles: false } => b,
            // The cycles left at the core's clock now (a frequency change re-plans it), rounded
            // up: the spin has not ended before its last cycle.
            Act::Spin { budget: Some(b), in_cycles: true } => {
                (b as f64 / self.dvfs.machine.core_types[self.dvfs.machine.cores[c].core_type].freq_ghz).ceil() as u64
            }
            Act::Spin { budget: None, .. } => u64::MAX / 4,
            Act::Off => unreachable!("a running thread has something to do"),
        };
        // Saturating: a phase can outlast u64 ns (1e15 instructions at 10 MHz and CPI 1000);
        // its work end then means "not before the slice ends", which bounds the event, and the
        // run's simulated-time budget ends it long before the clock could get there.
        core.work_end = self.now.saturating_add(self.migration[t as usize].debt_ns).saturating_add(work);
        self.events.push(core.work_end.min(core.slice_end), Event::Core { core: c as u32 });
        if self.noc.is_some() {
            self.noc_planned(c, t);
        }
    }

    pub(crate) fn on_core_event(&mut self, c: usize) {
        self.account(c);
        let t = self.running[c].expect("a core event has a running thread");
        if self.now >= self.cores[c].work_end {
            match self.flow[t as usize].act {
                Act::Spin { .. } => {
                    // A spin-then-block wait used up its spin budget: block, still waiting.
                    self.flow[t as usize].act = Act::Off;
                    self.book.threads[t as usize].spinning = false;
                    self.stop_running(c);
                    self.set_state(t, ThreadState::Blocked);
                    self.pending.push_back(Pending { thread: t, trigger: Some(Trigger::Block(t)), enqueue: false });
                }
                _ => {
                    let next = self.advance(t);
                    self.apply_next(t, next, false);
                }
            }
        }
        self.mark_dirty(c as u32);
    }

    /// Remove the running thread from core `c` (it blocked, exited, was preempted or moved).
    pub(crate) fn stop_running(&mut self, c: usize) {
        let Some(t) = self.running[c].take() else { return };
        // Waiting from now if it stays runnable (a thread that blocks waits from its wake-up).
        self.counters.ready(t, self.now);
        self.events.cancel_core(c);
        if let Some(o) = &mut self.trace {
            o.run_ended(Segment { core: c as u32, thread: t, start_ns: self.cores[c].run_start, end_ns: self.now });
        }
        self.sched.put_prev(t, c);
        self.llc_changed(c);
        self.busy_changed(c);
        self.undo_unpaid_move(t);
        if self.noc.is_some() {
            self.noc_stopped(c);
        }
    }

    /// Give core `c` something to run: keep its thread, switch at slice end, or pick/pull one.
    pub(crate) fn reschedule(&mut self, c: usize) {
        if let Some(t) = self.running[c] {
            if self.now >= self.cores[c].slice_end {
                if self.shares[t as usize].is_some() && self.share_tick(t, c) {
                    // Its share's round swapped it with a thread of the other core type.
                } else if self.sched.yields_at_slice_end(c) {
                    self.stop_running(c);
                    self.book.threads[t as usize].state = ThreadState::Ready;
                    self.enqueue_on(t, c);
                } else {
                    self.cores[c].slice_end = self.now + self.sched.slice_ns(t);
                }
            }
        }
        if self.running[c].is_none() {
            let next = match self.sched.pick_next(&SchedView::new(&self.allowed, &self.last_ran, &self.running), c) {
                None => self.share_take(c).or_else(|| self.idle_pull(c)),
                some => some,
            };
            match next {
                Some(t) => {
                    self.dispatch(c, t);
                    if let Some(next) = self.sched.peek_next(c) {
                        self.prefetch_thread(next);
                    }
                }
                None => return,
            }
        }
        self.plan(c);
    }

    /// Fetch what a dispatch of `t` touches (`prefetch`).
    fn prefetch_thread(&self, t: u32) {
        let t = t as usize;
        prefetch(&self.flow[t]);
        prefetch(&self.rates[t]);
        prefetch(&self.migration[t]);
        prefetch(&self.last_ran[t]);
        prefetch(&self.book.threads[t]);
        prefetch(&self.counters.hot[t]);
        self.sched.prefetch(t as u32);
    }

    fn dispatch(&mut self, c: usize, t: u32) {
        self.counters.dispatched(t, self.dvfs.machine.cores[c].core_type, self.now);
        // First the memory side: the refill a migration costs depends on the home node.
        self.dispatched(t, c);
        self.charge_move(t, c);
        let v = &mut self.book.threads[t as usize];
        v.core = Some(c);
        v.state = ThreadState::Running;
        self.running[c] = Some(t);
        let core = &mut self.cores[c];
        core.seg_start = self.now;
        core.run_start = self.now;
        core.slice_end = self.now + self.sched.slice_ns(t);
        self.llc_changed(c);
        self.busy_changed(c);
    }

    /// Queue runnable thread `t` where the local scheduler chooses (on its share's side, if it
    /// has a share, or an idle core of the other side: `local::share`).
    pub(crate) fn place(&mut self, t: u32) {
        let chosen = if self.shares[t as usize].is_some() { self.place_share(t) } else { None };
        let c = match chosen {
            Some(c) => c,
            None => self.sched.select_core(&SchedView::new(&self.allowed, &self.last_ran, &self.running), t),
        };
        self.enqueue_on(t, c);
    }

    pub(crate) fn enqueue_on(&mut self, t: u32, c: usize) {
        self.sched.enqueue(t, c);
        self.queued_at(t, c);
    }

    /// Thread `t` was queued on core `c`: an idle core must look at its queue.
    pub(crate) fn queued_at(&mut self, t: u32, c: usize) {
        self.book.threads[t as usize].core = Some(c);
        if self.running[c].is_none() {
            self.mark_dirty(c as u32);
        }
    }

    /// The local scheduler moves running thread `t` to core `to` (GTS's forced migrations, a
    /// switcher's change of cores): it leaves its core as a preempted thread does and is queued
    /// on `to`; the dispatch there charges the migration.
    pub(crate) fn move_running(&mut self, t: u32, to: usize) {
        let c = self.book.threads[t as usize].core.expect("a running thread has a core");
        self.account(c);
        self.stop_running(c);
        self.book.threads[t as usize].state = ThreadState::Ready;
        self.mark_dirty(c as u32);
        self.enqueue_on(t, to);
    }

    /// Idle core `c` found nothing to pick: the local scheduler may hand it a runnable thread of
    /// another core (`LocalScheduler::idle_pull`), queued here and picked.
    fn idle_pull(&mut self, c: usize) -> Option<u32> {
        let t = self.sched.idle_pull(&SchedView::new(&self.allowed, &self.last_ran, &self.running), c)?;
        if self.book.threads[t as usize].state == ThreadState::Running {
            self.move_running(t, c);
        } else {
            self.sched.dequeue(t);
            self.enqueue_on(t, c);
        }
        self.sched.pick_next(&SchedView::new(&self.allowed, &self.last_ran, &self.running), c)
    }

    pub(crate) fn take_off_cpu(&mut self, t: u32) {
        match self.book.threads[t as usize].state {
            ThreadState::Running => {
                let c = self.book.threads[t as usize].core.unwrap();
                self.stop_running(c);
                self.mark_dirty(c as u32);
            }
            ThreadState::Ready => self.sched.dequeue(t),
            _ => {}
        }
    }

    /// The core `t` runs or is queued on, if it is runnable.
    pub(crate) fn runnable_on(&self, t: u32) -> Option<usize> {
        let v = &self.book.threads[t as usize];
        match v.state {
            ThreadState::Running => v.core,
            ThreadState::Ready => self.sched.queued_on(t),
            _ => None,
        }
    }

    /// Where `t` may run now changed: if it runs or is queued on a core it may no longer use,
    /// it is taken off and queued again where it may run.
    pub(crate) fn evict_if_excluded(&mut self, t: u32) {
        let Some(c) = self.runnable_on(t) else { return };
        if self.allowed[t as usize].contains(c) {
            return;
        }
        if self.book.threads[t as usize].state == ThreadState::Running {
            self.account(c);
        }
        self.take_off_cpu(t);
        self.book.threads[t as usize].state = ThreadState::Ready;
        self.pending.push_back(Pending { thread: t, trigger: None, enqueue: true });
    }
}

#[cfg(test)]
mod tests {
    use super::round_ns;
    use ampsched_model::rng::Rng;

    #[test]
    fn round_ns_is_round_as_u64() {
        let edges = [
            0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            4503599627370495.5,
            4503599627370497.0,
            9007199254740993.0,
            1.8446744073709552e19,
            1e300,
            f64::INFINITY,
            f64::NAN,
            -0.4,
            -0.6,
            -3.0,
        ];
        let mut rng = Rng::new(11);
        let random = (0..200_000).map(|_| f64::from_bits(rng.next_u64() >> 2) % 1e13 + (rng.below(4) as f64) * 0.25);
        for x in edges.into_iter().chain(random) {
            assert_eq!(round_ns(x), x.round() as u64, "{x:e}");
        }
    }
}
