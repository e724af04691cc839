//! The queue spinlock over the mesh (`wait = "queue_spinlock"`, docs/queue-spinlock.md): Alg. 1
//! and Alg. 2 of "Opportunistic Competition Overhead Reduction for Expediting Critical Section in
//! NoC based CMPs" (Yao & Lu), run packet by packet through `noc` (in lock step: `nocsim`).
//!
//! Acquire (Alg. 1): retry i (0-based) is a 1-flit lock request from the thread's core node to the
//! lock's home, stamped with RTR = max_spin − i and the thread's PROG; at the home, after the
//! line's atomic access (`HOME_ACCESS_CYCLES`), a free lock is granted. A grant returns as a line,
//! a failure as a 1-flit control message; after a failure the thread relaxes `relax_cycles` at its
//! core's clock and retries. After `max_spin` failures it prepares to sleep (`sleep_prep_ns`, on
//! its core), then sleeps off its core in the home's futex queue; if the lock is free when its
//! preparation ends, or its holder's release is on the way, the futex wait returns at once (the
//! lock word changed) and it attempts once.
//! Release (Alg. 2): a 1-flit release to the home (the lock is free when it arrives), PROG++, and,
//! if the lock has sleepers (or threads preparing to sleep: the lock word says "contended"), a
//! 1-flit wake-up request (the lowest priority). A wake-up reaching the home wakes the longest
//! sleeper (FIFO, the futex queue's order), which after `wakeup_ns` makes one attempt (RTR =
//! max_spin, the least urgent level) and sleeps again if it fails: glibc's low-level lock does so
//! (`__lll_lock_wait`, nptl/lowlevellock.c: one exchange of the lock word, then futex wait again).
//!
//! Measured (`QspinAppStats`): COH, the hand-off gap, the sum over hand-offs of the time from a
//! release reaching the home while threads wait to the next acquisition there (Eq. 1: COH_i =
//! BT_i − BT_{i−1} − CS_{i−1}); acquisitions won spinning and after a sleep; CS time, from the
//! grant at the home to the release reaching it. The policy's view gets the waits as the FIFO
//! locks (`sync`) give theirs: each waiter's wait, whom it waits for, and what each holder caused.

use std::collections::VecDeque;

use ampsched_model::queue_spinlock::{self, QueueSpinlock};
use ampsched_model::workload::Wait;
use ampsched_model::{ThreadState, Workload};

use crate::engine::Engine;
use crate::interp::{Act, Next, Step};
use crate::local::LocalScheduler;
use crate::noc::{Packet, PacketClass};
use crate::nocsim::CONTROL_FLITS;

/// Cycles the home spends on the lock line's atomic test-and-set before it replies: 6, Table 2's
/// L2 bank latency ("6-cycle latency"; the lock's line lives in its home's L2 bank).
pub const HOME_ACCESS_CYCLES: u64 = 6;

/// What a tracked packet is, in its tag's low bits; above them the thread id + 1 (never 0: an
/// untracked packet's tag), and above that the lock (a release or wake-up may arrive after its
/// sender has gone on to another lock).
const REQUEST: u64 = 1;
const GRANT: u64 = 2;
const FAIL: u64 = 3;
const RELEASE: u64 = 4;
const WAKE_UP: u64 = 5;
const KIND_BITS: u32 = 3;
const THREAD_BITS: u32 = 32;

fn tag(t: u32, lock: usize, kind: u64) -> u64 {
    debug_assert!((lock as u64) < 1 << (64 - KIND_BITS - THREAD_BITS));
    (lock as u64) << (KIND_BITS + THREAD_BITS) | (t as u64 + 1) << KIND_BITS | kind
}

/// (thread, lock, kind) of a tag.
fn untag(tag: u64) -> (u32, usize, u64) {
    let thread = ((tag >> KIND_BITS) & ((1 << THREAD_BITS) - 1)) as u32 - 1;
    (thread, (tag >> (KIND_BITS + THREAD_BITS)) as usize, tag & ((1 << KIND_BITS) - 1))
}

/// A timer of the protocol, in network cycles (`NocSim::set_timer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Timer {
    /// The thread's `cpu_relax()` after a failed retry is over: it retries.
    Retry(u32),
    /// The thread's sleep preparation is over: it sleeps (or attempts, the lock being free).
    SleepPrepared(u32),
    /// The woken thread's wake-up is over: it is runnable, and attempts once on its core.
    Woken(u32),
}

/// Where a thread is in the lock protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Mode {
    /// Not acquiring.
    #[default]
    Idle,
    /// An attempt in flight, or relaxing between two.
    Trying,
    PreparingSleep,
    Sleeping,
    /// Woken at the home, paying its wake-up.
    Waking,
}

#[derive(Debug, Clone, Default)]
struct QThread {
    /// The (app, lock) it acquires or last acquired.
    lock: usize,
    mode: Mode,
    /// Failed retries of this acquisition's spinning phase.
    retry: u32,
    /// This acquisition has left its spinning phase (it prepared to sleep).
    sleep_phase: bool,
    /// An attempt is owed, to be sent when the thread is next on a core (it was not when due).
    owed: bool,
    /// PROG: critical sections it has completed (Alg. 2 line 3).
    progress: u32,
    /// The node its last request left from (where the reply goes).
    node: u16,
    /// The RTR its last attempt carried (the lock register's value, which its release carries).
    last_rtr: u32,
}

/// One lock at its home.
#[derive(Debug, Clone)]
struct QLock {
    app: usize,
    home: u16,
    options: QueueSpinlock,
    holder: Option<u32>,
    /// The cycle the holder's request was granted at the home.
    granted_at: u64,
    /// Threads acquiring it (trying, preparing to sleep, asleep or waking), each with the ns
    /// its wait began (for the policy's lock waits, booked as the FIFO locks book theirs).
    waiters: Vec<(u32, u64)>,
    /// The ns the holder was granted the lock at.
    holder_since_ns: u64,
    preparing: u32,
    sleepers: VecDeque<u32>,
    /// A release reached the home at this cycle with threads waiting: a hand-off gap is open.
    gap_from: Option<u64>,
    /// The holder has sent its release, not yet at the home: the lock word has changed for a
    /// futex wait, which then returns at once (FUTEX_WAIT's check of the word's value).
    release_sent: bool,
}

/// What an app's queue spinlocks measured, over its runs (docs/queue-spinlock.md).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct QspinAppStats {
    /// The app uses queue spinlocks (else every count is 0 and its fields are not reported).
    pub uses: bool,
    pub coh_cycles: u64,
    pub handoffs: u64,
    pub spin_acquisitions: u64,
    pub sleep_acquisitions: u64,
    pub cs_cycles: u64,
}

/// The lock protocol's state (`NocSim::qspin`).
#[derive(Debug, Clone, Default)]
pub struct Qspin {
    threads: Vec<QThread>,
    locks: Vec<QLock>,
    /// Per app, the index in `locks` of its lock 0 (its locks follow).
    first_lock: Vec<usize>,
    apps: Vec<QspinAppStats>,
}

impl Qspin {
    pub fn new(w: &Workload, nodes: u32) -> Qspin {
        let mut q = Qspin { apps: vec![QspinAppStats::default(); w.apps.len()], ..Default::default() };
        for (a, app) in w.apps.iter().enumerate() {
            q.first_lock.push(q.locks.len());
            for l in 0..app.locks.len() {
                let options = queue_spinlock::of_lock(w, a, l).unwrap_or_default();
                let home = options.home.unwrap_or_else(|| queue_spinlock::default_home(a, l, nodes)) as u16;
                q.apps[a].uses |= queue_spinlock::of_lock(w, a, l).is_some();
                q.locks.push(QLock {
                    app: a,
                    home,
                    options,
                    holder: None,
                    granted_at: 0,
                    waiters: Vec::new(),
                    holder_since_ns: 0,
                    preparing: 0,
                    sleepers: VecDeque::new(),
                    gap_from: None,
                    release_sent: false,
                });
            }
        }
        q
    }

    pub fn app_stats(&self) -> Vec<QspinAppStats> {
        self.apps.clone()
    }

    fn thread(&mut self, t: u32) -> &mut QThread {
        if self.threads.len() <= t as usize {
            self.threads.resize(t as usize + 1, QThread::default());
        }
        &mut self.threads[t as usize]
    }
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    fn qspin(&mut self) -> &mut Qspin {
        &mut self.noc.as_deref_mut().expect("a queue spinlock runs on a network").qspin
    }

    /// Thread `t` (on its critical phase's iteration `i`) acquires queue spinlock `lock` of its
    /// app: its first attempt leaves now; it waits, spinning on its core, until granted.
    pub(crate) fn qspin_acquire(&mut self, t: u32, lock: usize, i: u32) -> Next {
        let app = self.flow[t as usize].app as usize;
        let now = self.now;
        let q = self.qspin();
        let l = q.first_lock[app] + lock;
        q.locks[l].waiters.push((t, now));
        self.book.threads[t as usize].waiting_for = q.locks[l].holder;
        let q = self.qspin();
        let th = q.thread(t);
        *th = QThread { lock: l, mode: Mode::Trying, retry: 0, sleep_phase: false, owed: false, ..th.clone() };
        self.flow[t as usize].step = Step::Acquiring(i);
        let next = self.start_wait(t, Wait::Spin);
        self.qspin_attempt(t, None);
        next
    }

    /// Thread `t` sends its next attempt now (at network cycle `at`, else the engine's now) if it
    /// is on a core; else it owes it to its next dispatch (`qspin_on_core`): a thread off its
    /// core does not retry.
    fn qspin_attempt(&mut self, t: u32, at: Option<u64>) {
        let core = match self.book.threads[t as usize].state {
            ThreadState::Running => self.book.threads[t as usize].core,
            _ => None,
        };
        let now = self.now;
        let noc = self.noc.as_deref_mut().expect("a queue spinlock runs on a network");
        let th = noc.qspin.thread(t);
        let Some(c) = core else {
            th.owed = true;
            return;
        };
        th.owed = false;
        th.node = c as u16;
        let (l, retry, sleep_phase, progress) = (th.lock, th.retry, th.sleep_phase, th.progress);
        let max_spin = noc.qspin.locks[l].options.max_spin;
        // Alg. 1 line 5; after a sleep, the least urgent spinning level.
        let rtr = if sleep_phase { max_spin } else { max_spin - retry };
        noc.qspin.threads[t as usize].last_rtr = rtr;
        let lock = &noc.qspin.locks[l];
        let packet = Packet { src: c as u16, dst: lock.home, flits: CONTROL_FLITS, class: PacketClass::Lock { rtr }, progress, tag: tag(t, l, REQUEST) };
        let at = at.unwrap_or_else(|| noc.cycle_at(now));
        noc.send(at, packet);
    }

    /// Thread `t` releases queue spinlock `lock` (Alg. 2): the release leaves for the home, PROG
    /// is incremented, and a wake-up follows if the lock has sleepers. The thread goes on at once.
    pub(crate) fn qspin_release(&mut self, t: u32, lock: usize) {
        let app = self.flow[t as usize].app as usize;
        let c = self.book.threads[t as usize].core.expect("a releasing thread ran its critical section on a core");
        let now = self.now;
        let noc = self.noc.as_deref_mut().expect("a queue spinlock runs on a network");
        let l = noc.qspin.first_lock[app] + lock;
        let th = noc.qspin.thread(t);
        // The release is an atomic store to the lock word (Alg. 2 line 2), before PROG++: the
        // network interface stamps it as it stamped the thread's winning attempt, with the
        // register Alg. 1 line 6 last wrote (its RTR and the old PROG): a request to the lock's
        // line while the lock register is valid (the paper leaves open how the NI recognises
        // lock traffic, §4.2; this is its option of tagging the lock address's requests).
        let stamped = PacketClass::Lock { rtr: th.last_rtr };
        let release = Packet { src: c as u16, dst: 0, flits: CONTROL_FLITS, class: stamped, progress: th.progress, tag: tag(t, l, RELEASE) };
        th.progress += 1;
        let progress = th.progress;
        let lk = &mut noc.qspin.locks[l];
        debug_assert_eq!(lk.holder, Some(t));
        lk.release_sent = true;
        let (home, wake) = (lk.home, !lk.sleepers.is_empty() || lk.preparing > 0);
        let at = noc.cycle_at(now);
        noc.send(at, Packet { dst: home, ..release });
        if wake {
            let wake_up = Packet { src: c as u16, dst: home, flits: CONTROL_FLITS, class: PacketClass::WakeUp, progress, tag: tag(t, l, WAKE_UP) };
            noc.send(at, wake_up);
        }
    }

    /// Thread `t` runs on core `c` now (`noc_planned`): it sends the attempt it owes.
    pub(crate) fn qspin_on_core(&mut self, t: u32, _c: usize) {
        let owed = self.noc.as_deref().and_then(|n| n.qspin.threads.get(t as usize)).is_some_and(|th| th.owed);
        if owed {
            self.qspin_attempt(t, None);
        }
    }

    /// A tracked packet reached its destination at `cycle`.
    pub(crate) fn qspin_delivered(&mut self, cycle: u64, p: Packet) {
        let (t, l, kind) = untag(p.tag);
        let noc = self.noc.as_deref_mut().expect("a queue spinlock runs on a network");
        let (line_flits, now_ns) = (noc.line_flits, noc.ns_of(cycle));
        let q = &mut noc.qspin;
        match kind {
            REQUEST => {
                let lock = &mut q.locks[l];
                let granted = lock.holder.is_none();
                if granted {
                    lock.holder = Some(t);
                    lock.granted_at = cycle;
                    lock.holder_since_ns = now_ns;
                    // The policy's view: how long it waited, and whom the others wait for now.
                    let i = lock.waiters.iter().position(|&(w, _)| w == t).expect("a granted thread was waiting");
                    let (_, since) = lock.waiters.swap_remove(i);
                    let v = &mut self.book.threads[t as usize];
                    v.lock_wait_ns += now_ns.saturating_sub(since);
                    v.waiting_for = None;
                    for &(w, _) in &lock.waiters {
                        self.book.threads[w as usize].waiting_for = Some(t);
                    }
                    let app = &mut q.apps[lock.app];
                    if let Some(from) = lock.gap_from.take() {
                        app.coh_cycles += cycle - from;
                        app.handoffs += 1;
                    }
                    if q.threads[t as usize].sleep_phase {
                        app.sleep_acquisitions += 1;
                    } else {
                        app.spin_acquisitions += 1;
                    }
                }
                // The grant carries the line (the winner's test-and-set leaves it modified in its
                // cache); a failure is the home's 1-flit answer (Fig. 4a's invalidation).
                let (flits, kind) = if granted { (line_flits, GRANT) } else { (CONTROL_FLITS, FAIL) };
                let reply = Packet { src: p.dst, dst: p.src, flits, class: PacketClass::Normal, progress: 0, tag: tag(t, l, kind) };
                noc.send(cycle + HOME_ACCESS_CYCLES, reply);
            }
            GRANT => {
                debug_assert_eq!(q.threads[t as usize].mode, Mode::Trying, "a grant answers an attempt");
                q.threads[t as usize].mode = Mode::Idle;
                self.release(t);
            }
            FAIL => {
                let th = &mut q.threads[t as usize];
                debug_assert_eq!(th.mode, Mode::Trying, "a failure answers an attempt");
                let options = q.locks[l].options;
                if !th.sleep_phase {
                    th.retry += 1;
                }
                if th.sleep_phase || th.retry >= options.max_spin {
                    // Alg. 1 line 12: the spinning phase is over (or the woken thread's one
                    // attempt failed): prepare to sleep, on the core.
                    th.sleep_phase = true;
                    th.mode = Mode::PreparingSleep;
                    q.locks[l].preparing += 1;
                    let at = cycle + noc.ns_to_cycles(options.sleep_prep_ns);
                    noc.set_timer(at, Timer::SleepPrepared(t));
                } else {
                    // cpu_relax() at the core's clock (Alg. 1 line 9).
                    let core = self.book.threads[t as usize].core.unwrap_or(0);
                    let freq = self.dvfs.machine.core_types[self.dvfs.machine.cores[core].core_type].freq_ghz;
                    let relax_ns = (options.relax_cycles as f64 / freq).ceil() as u64;
                    let at = cycle + noc.ns_to_cycles(relax_ns);
                    noc.set_timer(at, Timer::Retry(t));
                }
            }
            RELEASE => {
                let lock = &mut q.locks[l];
                debug_assert_eq!(lock.holder, Some(t));
                lock.holder = None;
                lock.release_sent = false;
                q.apps[lock.app].cs_cycles += cycle - lock.granted_at;
                if !lock.waiters.is_empty() {
                    lock.gap_from = Some(cycle);
                }
                // What the holder made each waiter wait (`ViewBook::add_lock_wait`).
                let mut caused = 0;
                for &(w, since) in &lock.waiters {
                    let waited = now_ns.saturating_sub(since.max(lock.holder_since_ns));
                    caused += waited;
                    self.book.add_lock_wait(w, t, waited);
                }
                self.book.threads[t as usize].lock_wait_caused_ns += caused;
            }
            WAKE_UP => {
                if let Some(s) = q.locks[l].sleepers.pop_front() {
                    q.threads[s as usize].mode = Mode::Waking;
                    let wakeup_ns = q.locks[l].options.wakeup_ns;
                    let at = cycle + noc.ns_to_cycles(wakeup_ns);
                    noc.set_timer(at, Timer::Woken(s));
                }
            }
            _ => unreachable!("tag kind {kind}"),
        }
    }

    /// A timer of the protocol is due at `cycle`.
    pub(crate) fn qspin_timer(&mut self, cycle: u64, timer: Timer) {
        match timer {
            Timer::Retry(t) => {
                debug_assert_eq!(self.qspin().threads[t as usize].mode, Mode::Trying);
                self.qspin_attempt(t, Some(cycle));
            }
            Timer::SleepPrepared(t) => {
                let q = self.qspin();
                let l = q.threads[t as usize].lock;
                debug_assert_eq!(q.threads[t as usize].mode, Mode::PreparingSleep);
                q.locks[l].preparing -= 1;
                if q.locks[l].holder.is_none() || q.locks[l].release_sent {
                    // The futex wait finds the lock word changed (free, or its release on the
                    // way: the holder will send no wake-up for this thread) and returns at once:
                    // one attempt.
                    q.threads[t as usize].mode = Mode::Trying;
                    self.qspin_attempt(t, Some(cycle));
                    return;
                }
                q.threads[t as usize].mode = Mode::Sleeping;
                q.locks[l].sleepers.push_back(t);
                // Off its core, still waiting for the lock.
                if let Some(c) = self.book.threads[t as usize].core.filter(|_| self.book.threads[t as usize].state == ThreadState::Running) {
                    self.account(c);
                }
                self.flow[t as usize].act = Act::Off;
                self.apply_next(t, Next::Block, false);
            }
            Timer::Woken(t) => {
                debug_assert_eq!(self.qspin().threads[t as usize].mode, Mode::Waking);
                self.qspin().threads[t as usize].mode = Mode::Trying;
                // Runnable again, spinning on the lock; its attempt leaves once it is on a core.
                self.flow[t as usize].act = Act::Spin { budget: None, in_cycles: false };
                self.qspin().threads[t as usize].owed = true;
                self.apply_next(t, Next::Spin, false);
            }
        }
    }
}
