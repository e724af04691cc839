//! The local scheduler: what the OS does below the policy. It keeps the run queues, chooses the
//! core a waking thread joins, what an idle core runs next, whether a thread whose slice ended
//! yields its core, and balances the queues periodically.
//!
//! The engine carries out what it decides (dispatch, migration cost, accounting, events); the
//! scheduler reads the rest of the system through `SchedView`. The default scheduler is CFS-like
//! (`cfs`); the big.LITTLE paper's OS schedulers replace exactly this layer (`gts` with its load
//! tracking `pelt`; `cluster_switch` and `iks` over `switching`), chosen by the policy
//! (`Policy::os_scheduler`, `crate::simulate`); Kim & Huh's fairness rounds act beside it
//! (`share`). The
//! engine takes the scheduler as a type parameter, so its calls are static (no per-event
//! virtual call).

/// The methods a scheduler that wraps CFS (`self.cfs`) leaves to it unchanged: the queues as
/// CFS keeps them, the slice and weight of each thread. Written once here, expanded inside the
/// wrapper's `impl LocalScheduler` (GTS, the cluster and in-kernel switchers), so that a method
/// added to this list changes every wrapper alike.
macro_rules! forward_to_cfs {
    () => {
        fn queued_on(&self, t: u32) -> Option<usize> {
            self.cfs.queued_on(t)
        }

        fn queue_len(&self, c: usize) -> usize {
            self.cfs.queue_len(c)
        }

        fn peek_next(&self, c: usize) -> Option<u32> {
            self.cfs.peek_next(c)
        }

        fn charge(&mut self, t: u32, c: usize, ns: u64) {
            self.cfs.charge(t, c, ns)
        }

        fn yields_at_slice_end(&self, c: usize) -> bool {
            self.cfs.yields_at_slice_end(c)
        }

        fn slice_ns(&self, t: u32) -> u64 {
            self.cfs.slice_ns(t)
        }

        fn set_slice(&mut self, t: u32, slice_ns: Option<u64>) {
            self.cfs.set_slice(t, slice_ns)
        }

        fn weight(&self, t: u32) -> u32 {
            self.cfs.weight(t)
        }

        fn set_weight(&mut self, t: u32, weight: Option<u32>) {
            self.cfs.set_weight(t, weight)
        }
    };
}

pub mod cfs;
pub mod cluster_switch;
pub mod gts;
pub mod iks;
pub mod pelt;
pub mod runqueue;
pub mod share;
pub mod switching;

use ampsched_model::CoreSet;

pub use cfs::Cfs;
pub use gts::Gts;
pub use switching::Switcher;

/// What a local scheduler may read of the rest of the system: per thread, the cores it may run
/// on now and the core it last ran on; per core, the thread running there. Plain slices, indexed
/// by thread and by core: the engine lends its own arrays (`Engine::allowed`, `last_ran`,
/// `running`), and a test writes its system down as literals.
#[derive(Clone, Copy)]
pub struct SchedView<'a> {
    allowed: &'a [CoreSet],
    last_ran: &'a [Option<u32>],
    running: &'a [Option<u32>],
}

impl<'a> SchedView<'a> {
    /// `allowed` and `last_ran` have one entry per thread, `running` one per core.
    pub fn new(allowed: &'a [CoreSet], last_ran: &'a [Option<u32>], running: &'a [Option<u32>]) -> Self {
        debug_assert_eq!(allowed.len(), last_ran.len(), "one allowed set and one last core per thread");
        SchedView { allowed, last_ran, running }
    }

    /// The cores thread `t` may run on now: its affinity, narrowed to one side by a fast-core share (`share`).
    #[inline]
    pub fn allowed(&self, t: u32) -> &'a CoreSet {
        &self.allowed[t as usize]
    }

    #[inline]
    pub fn last_ran(&self, t: u32) -> Option<usize> {
        self.last_ran[t as usize].map(|c| c as usize)
    }

    #[inline]
    pub fn is_running(&self, c: usize) -> bool {
        self.running[c].is_some()
    }

    /// The thread running on core `c`.
    #[inline]
    pub fn running(&self, c: usize) -> Option<u32> {
        self.running[c]
    }

    pub fn num_cores(&self) -> usize {
        self.running.len()
    }

    /// The same system with other allowed sets (one per thread): a scheduler that wraps another
    /// narrows what the inner one may do (GTS keeps CFS's balancing inside a cluster).
    pub fn with_allowed<'b>(&self, allowed: &'b [CoreSet]) -> SchedView<'b>
    where
        'a: 'b,
    {
        SchedView::new(allowed, self.last_ran, self.running)
    }
}

/// A local scheduler. Threads are numbered by the engine from 0 (`add_thread` in order); a
/// runnable thread that is not running is queued on exactly one core.
pub trait LocalScheduler {
    /// A new thread, with the nice value of its app.
    fn add_thread(&mut self, t: u32, nice: i32);
    /// The core whose queue a thread that becomes runnable joins.
    fn select_core(&mut self, sys: &SchedView, t: u32) -> usize;
    /// Queue runnable thread `t` on core `c`.
    fn enqueue(&mut self, t: u32, c: usize);
    /// Take queued thread `t` out of its queue (it stopped being runnable, or may not stay).
    fn dequeue(&mut self, t: u32);
    /// The core whose queue holds `t`, if it is queued.
    fn queued_on(&self, t: u32) -> Option<usize>;
    /// Threads queued on core `c` (not counting the running one).
    fn queue_len(&self, c: usize) -> usize;
    /// The thread core `c` would run next from its own queue, if it had to choose now: the
    /// engine fetches its state into the cache ahead of its dispatch. A hint; None is always right.
    fn peek_next(&self, _c: usize) -> Option<u32> {
        None
    }
    /// Bring what this scheduler keeps of thread `t` into the cache (see `peek_next`).
    fn prefetch(&self, _t: u32) {}
    /// What idle core `c` runs next: from its own queue, else pulled from another's; the
    /// thread returned is no longer queued.
    fn pick_next(&mut self, sys: &SchedView, c: usize) -> Option<u32>;
    /// The running thread `t` of core `c` ran `ns` more.
    fn charge(&mut self, t: u32, c: usize, ns: u64);
    /// The running thread `t` leaves core `c` (it blocked, exited, yielded or was moved).
    fn put_prev(&mut self, t: u32, c: usize);
    /// At the end of its slice, does the running thread of `c` yield the core?
    fn yields_at_slice_end(&self, c: usize) -> bool;
    /// Thread `t`'s time slice, ns.
    fn slice_ns(&self, t: u32) -> u64;
    /// A policy's slice for `t` (None: the default).
    fn set_slice(&mut self, t: u32, slice_ns: Option<u64>);
    /// Thread `t`'s weight (1024 = nice 0).
    fn weight(&self, t: u32) -> u32;
    /// A policy's weight for `t` (None: the weight of its app's nice value).
    fn set_weight(&mut self, t: u32, weight: Option<u32>);
    /// Periodic load balancing: move queued threads between queues, and tell each move
    /// (thread, new core) in order. A scheduler may also name a running thread to move (GTS's
    /// forced migrations, a switcher's change of cores): the engine takes it off its core, as a
    /// preempted thread (`put_prev`), and queues it on the new core (`enqueue`); a queued thread
    /// it has moved itself.
    fn balance(&mut self, sys: &SchedView, moved: &mut Vec<(u32, usize)>);
    /// The time of the event being handled, told before its handler runs: for schedulers that
    /// keep time-based state of their own (GTS's load tracking, a switcher's utilisation).
    #[inline]
    fn set_now(&mut self, _now_ns: u64) {}
    /// Core `c` is idle with nothing to pick (`pick_next` gave None): a runnable thread of
    /// another core, running or queued, that it takes (GTS's idle pull). The engine takes it off
    /// its core or queue, queues it on `c` and picks again.
    fn idle_pull(&mut self, _sys: &SchedView, _c: usize) -> Option<u32> {
        None
    }
}
