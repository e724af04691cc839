//! Synchronisation objects of one app run: barriers (also used for serial sections) and FIFO
//! locks, with their rules. The interpreter (`interp`) decides what a thread does when one of
//! them makes it wait or lets it go.

use std::collections::VecDeque;

/// A barrier instance. Threads arrive; when the last arrives, all go on. For a serial section
/// the non-leaders are then `held` until the leader has retired the serial work.
#[derive(Debug, Default, Clone)]
pub struct Barrier {
    arrived: u32,
    waiters: Vec<u32>,
    held: Vec<u32>,
}

impl Barrier {
    /// Thread `t` arrives; `needed` arrivals complete the barrier. None: others are still to
    /// come, and `t` waits. Otherwise the threads to let go now: for a plain barrier the earlier
    /// arrivals; for a serial section (`leader` given) none, since all but the leader are held
    /// until it has run the serial part (`release_held`).
    pub fn arrive(&mut self, t: u32, needed: u32, leader: Option<u32>) -> Option<Vec<u32>> {
        self.arrived += 1;
        if self.arrived < needed {
            self.waiters.push(t);
            return None;
        }
        self.arrived = 0;
        let waiters = std::mem::take(&mut self.waiters);
        match leader {
            None => Some(waiters),
            Some(leader) => {
                self.held = waiters.into_iter().filter(|&w| w != leader).collect();
                if t != leader {
                    self.held.push(t);
                }
                Some(Vec::new())
            }
        }
    }

    /// A thread arrives and leaves for good (a per-phase worker at a serial section: it exits
    /// rather than wait). True if it completes the barrier: the leader, the one waiter, goes on.
    pub fn leave(&mut self, needed: u32) -> bool {
        self.arrived += 1;
        if self.arrived < needed {
            return false;
        }
        self.arrived = 0;
        self.waiters.clear();
        true
    }

    /// `n` threads that do not exist (per-phase workers between parallel phases) count as
    /// arrived.
    pub fn absent(&mut self, n: u32) {
        self.arrived += n;
    }

    /// The serial section's leader is done: the threads it held go on.
    pub fn release_held(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.held)
    }
}

/// A FIFO lock: on release it is handed to the longest waiter.
#[derive(Debug, Default, Clone)]
pub struct Lock {
    holder: Option<u32>,
    holder_since: u64,
    /// (thread, time it started waiting)
    queue: VecDeque<(u32, u64)>,
}

/// A lock handed on at its release.
pub struct Handoff {
    pub next: u32,
    /// How long `next` waited for the lock, ns.
    pub waited_ns: u64,
}

impl Lock {
    /// Thread `t` takes the lock if it is free; otherwise it queues and this returns the holder.
    pub fn acquire(&mut self, t: u32, now: u64) -> Result<(), u32> {
        match self.holder {
            None => {
                self.holder = Some(t);
                self.holder_since = now;
                Ok(())
            }
            Some(h) => {
                self.queue.push_back((t, now));
                Err(h)
            }
        }
    }

    /// Holder `t` releases the lock. `waited(w, ns)` is told, for each queued thread, how long
    /// it waited while `t` held the lock; the longest waiter, if any, holds it next.
    pub fn release(&mut self, t: u32, now: u64, mut waited: impl FnMut(u32, u64)) -> Option<Handoff> {
        debug_assert_eq!(self.holder, Some(t));
        for &(w, since) in &self.queue {
            waited(w, now - since.max(self.holder_since));
        }
        match self.queue.pop_front() {
            None => {
                self.holder = None;
                None
            }
            Some((next, since)) => {
                self.holder = Some(next);
                self.holder_since = now;
                Some(Handoff { next, waited_ns: now - since })
            }
        }
    }

    /// Threads queued for the lock, longest waiter first.
    pub fn waiters(&self) -> impl Iterator<Item = u32> + '_ {
        self.queue.iter().map(|&(w, _)| w)
    }
}

/// A counting semaphore (sem_post / sem_wait): its value and its waiters, longest first. A post
/// hands its units to the waiters in the order they began to wait, and only what is left over
/// raises the value, so a thread that comes later never overtakes one already waiting.
#[derive(Debug, Default, Clone)]
pub struct Semaphore {
    value: u64,
    waiters: VecDeque<u32>,
}

impl Semaphore {
    pub fn new(initial: u32) -> Semaphore {
        Semaphore { value: initial as u64, waiters: VecDeque::new() }
    }

    /// Thread `t` takes one: true if it could, false if it now waits (the value is 0).
    pub fn wait(&mut self, t: u32) -> bool {
        if self.value > 0 {
            self.value -= 1;
            return true;
        }
        self.waiters.push_back(t);
        false
    }

    /// Add `count`: the waiters it lets go, each with one unit, longest waiter first; the units
    /// no waiter takes raise the value.
    pub fn post(&mut self, count: u32) -> Vec<u32> {
        let woken = (count as usize).min(self.waiters.len());
        self.value += (count as usize - woken) as u64;
        self.waiters.drain(..woken).collect()
    }

    pub fn value(&self) -> u64 {
        self.value
    }
}

impl Barrier {
    /// Threads that have arrived at the barrier's current round and wait.
    pub fn arrived(&self) -> u32 {
        self.arrived
    }
}

/// The synchronisation state of one run of an app that has spawned groups, joins, semaphores
/// or named barriers (`ampsched_model::app_sync::AppSync`): reset at each of the app's runs.
#[derive(Debug, Clone)]
pub struct RunSync {
    /// Per group: its threads have been started in this run (a group started with the run
    /// from the start; a spawned one once its spawn phase has run).
    pub started: Vec<bool>,
    /// Per group: its threads that have exited in this run, and how many exits make it joined
    /// (`Group::threads_per_run`: per-phase workers exit at every serial phase).
    pub exited: Vec<u64>,
    pub exits_to_join: Vec<u64>,
    /// Per group: the threads waiting to join it, in the order they began to wait.
    pub joiners: Vec<Vec<u32>>,
    pub semaphores: Vec<Semaphore>,
    pub barriers: Vec<Barrier>,
    /// The run's live threads that are not waiting (`Engine::able`, for this app alone): 0 while
    /// some are live is a deadlock of the app, whatever the other apps do.
    pub able: u32,
}

impl RunSync {
    pub fn new(app: &ampsched_model::App, sync: &ampsched_model::app_sync::AppSync) -> RunSync {
        RunSync {
            started: (0..app.groups.len()).map(|g| !sync.is_spawned(g)).collect(),
            exited: vec![0; app.groups.len()],
            exits_to_join: app.groups.iter().map(|g| g.threads_per_run()).collect(),
            joiners: vec![Vec::new(); app.groups.len()],
            semaphores: sync.semaphores.iter().map(|s| Semaphore::new(s.initial)).collect(),
            barriers: vec![Barrier::default(); sync.barriers.len()],
            able: 0,
        }
    }

    /// Every thread of group `g` has exited in this run.
    pub fn joined(&self, g: usize) -> bool {
        self.started[g] && self.exited[g] == self.exits_to_join[g]
    }
}
