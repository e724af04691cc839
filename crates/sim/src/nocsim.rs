//! The engine's side of the on-chip network (`noc`), for a machine with an `[interconnect]`: the
//! lock-step co-simulation, and the background traffic of the running threads' cache misses.
//!
//! Lock step (the contract of issue 29): before the engine handles its next event at T ns, the
//! network runs up to T's cycle (floor(T × clock_ghz)); a tracked packet delivered before it, or a
//! timer of the lock protocol (`qspin`) due before it, is handled first, as an event of its own
//! (`Event::Network`) at its cycle's ns (rounded up, so never after T): it may start, end or wake
//! threads, inject packets and schedule engine events, and then the next occurrence is looked for
//! afresh. Network time is kept in cycles throughout; only the engine's moments are ns.
//!
//! Background traffic (docs/queue-spinlock.md): each node's core's running thread, when it
//! computes, misses its L1D `l1d_misses` per instruction (`events`), each a 1-flit request to an
//! L2 bank chosen uniformly (an address-interleaved shared L2, Table 2) answered by a line, and
//! its LLC misses go to a memory controller and back; at its rate of instructions per ns these
//! are packets per network cycle. A spinning, waiting or idle core sends none (a spinner's lock
//! retries are the tracked packets of `qspin`). The rates are set whenever a core is planned
//! (its thread, phase, clock or co-runners changed) and cleared when it stops running.
//!
//! Budget: every packet injected counts as one of the run's events (`SimConfig::max_events`).
//!
//! A machine without an `[interconnect]` has no `NocSim` (`Engine::noc` is None) and none of this
//! runs: such a run is byte for byte what it was.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use ampsched_model::events::{EVENTS, FIRST_MORE};
use ampsched_model::queue_spinlock::DEFAULT_MAX_SPIN;
use ampsched_model::workload::{Phase, Wait};
use ampsched_model::{Interconnect, Workload};

use crate::engine::Engine;
use crate::events::Event;
use crate::interp::Act;
use crate::local::LocalScheduler;
use crate::noc::{BackgroundRate, Network, NetworkStats, Packet};
use crate::qspin::{Qspin, QspinAppStats, Timer};

/// Where the network's generator draws its randomness from: the run's seed, mixed so that its
/// stream is not the engine's (`SimConfig::seed` also seeds the counters' noise).
const NETWORK_SEED_SALT: u64 = 0x6E6F_635F_7365_6564; // "noc_seed"

/// A request to an L2 bank or a memory controller: a coherence control message, 1 flit (Table 2).
pub(crate) const CONTROL_FLITS: u16 = 1;

/// The network and what the engine keeps about it.
pub(crate) struct NocSim {
    pub net: Network,
    pub ghz: f64,
    /// A cache line's packet length (Table 2: 128 B lines over 16 B flits = 8).
    pub line_flits: u16,
    /// The lock protocol's state (`qspin`).
    pub qspin: Qspin,
    /// (cycle, sequence, timer): the lock protocol's timers.
    timers: BinaryHeap<Reverse<(u64, u64, Timer)>>,
    sequence: u64,
    /// Tracked packets injected and not yet delivered.
    pub outstanding: u64,
    /// The next occurrence found before the engine's next event and not yet handled.
    next: Option<(u64, Occurrence)>,
    /// The background rate last set per node (set again only when it changes).
    background: Vec<BackgroundRate>,
    /// `Counters::more`'s index of L1D misses.
    l1d_index: usize,
    /// Packets injected that the engine's event budget has been charged for.
    charged: u64,
}

#[derive(Debug, Clone, Copy)]
enum Occurrence {
    Delivery(Packet),
    Timer(Timer),
}

/// The network side of a run, in its result (`RunResult::noc`): present only for a machine with
/// an `[interconnect]`.
#[derive(Debug, Clone)]
pub struct NocResult {
    pub stats: NetworkStats,
    /// The network clock, GHz (cycles to ns).
    pub clock_ghz: f64,
    /// Per app (workload order): what its queue spinlocks measured (`qspin`).
    pub apps: Vec<QspinAppStats>,
}

impl NocSim {
    pub fn new(spec: &Interconnect, w: &Workload, seed: u64) -> NocSim {
        let l1d_index = EVENTS.iter().position(|e| e.name == "l1d_misses").expect("an L1D miss counter") - FIRST_MORE;
        NocSim {
            net: Network::new(spec, max_spin(w), seed ^ NETWORK_SEED_SALT),
            ghz: spec.clock_ghz,
            line_flits: spec.line_flits(),
            qspin: Qspin::new(w, spec.nodes() as u32),
            timers: BinaryHeap::new(),
            sequence: 0,
            outstanding: 0,
            next: None,
            background: vec![BackgroundRate::default(); spec.nodes()],
            l1d_index,
            charged: 0,
        }
    }

    /// The network cycle at `ns` (the last one that has begun by then).
    pub fn cycle_at(&self, ns: u64) -> u64 {
        (ns as f64 * self.ghz).floor() as u64
    }

    /// The ns of cycle `c`, rounded up.
    pub fn ns_of(&self, c: u64) -> u64 {
        (c as f64 / self.ghz).ceil() as u64
    }

    /// `ns` of time as network cycles, rounded up (a duration is not over before its last cycle).
    pub fn ns_to_cycles(&self, ns: u64) -> u64 {
        (ns as f64 * self.ghz).ceil() as u64
    }

    /// Inject a tracked packet at cycle `at` (not before the network's own clock).
    pub fn send(&mut self, at: u64, packet: Packet) {
        debug_assert!(packet.tag != 0, "the lock protocol's packets are tracked");
        self.outstanding += 1;
        self.net.inject(at, packet);
    }

    pub fn set_timer(&mut self, at: u64, timer: Timer) {
        self.sequence += 1;
        self.timers.push(Reverse((at, self.sequence, timer)));
    }

    /// Whether the network holds something that will happen without an engine event: a tracked
    /// packet in flight or a timer of the lock protocol (threads waiting on it are not stuck).
    pub fn busy(&self) -> bool {
        self.outstanding > 0 || !self.timers.is_empty() || self.next.is_some()
    }

    /// The first occurrence up to cycle `limit` (None: no engine event bounds it), found by
    /// running the network; None when there is none by then.
    fn find_next(&mut self, limit: Option<u64>) -> Option<(u64, Occurrence)> {
        if self.next.is_none() {
            let timer = self.timers.peek().map(|Reverse((c, _, _))| *c);
            let bound = match (limit, timer) {
                (Some(l), Some(t)) => l.min(t),
                (Some(l), None) => l,
                (None, Some(t)) => t,
                // Nothing bounds the run but a tracked packet's delivery, which surely comes.
                (None, None) if self.outstanding > 0 => u64::MAX,
                (None, None) => return None,
            };
            self.next = match self.net.run_until(bound) {
                Some((c, p)) => Some((c, Occurrence::Delivery(p))),
                None => match self.timers.peek() {
                    Some(Reverse((c, _, _))) if *c <= bound => {
                        let Reverse((c, _, timer)) = self.timers.pop().expect("peeked");
                        Some((c, Occurrence::Timer(timer)))
                    }
                    _ => None,
                },
            };
        }
        self.next
    }

    /// Set node `node`'s background traffic, if it changed.
    fn set_background(&mut self, node: usize, rate: BackgroundRate) {
        if self.background[node] != rate {
            self.background[node] = rate;
            self.net.set_background(node as u16, rate);
        }
    }
}

/// The spin count OCOR's priority levels split: the workload's largest `max_spin` (Alg. 1's
/// MAX_SPIN_COUNT), the paper's 128 where no phase gives one.
fn max_spin(w: &Workload) -> u32 {
    let spins = w.apps.iter().flat_map(|a| &a.groups).flat_map(|g| &g.phases).filter_map(|p| match p {
        Phase::Critical { wait: Wait::QueueSpinlock(q), .. } => Some(q.max_spin),
        _ => None,
    });
    spins.max().unwrap_or(DEFAULT_MAX_SPIN)
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    /// The engine's next event, the network's occurrences in lock step with it (`nocsim`'s
    /// module comment). Without a network, the event list's next event.
    pub(crate) fn next_event(&mut self) -> Option<(u64, Event)> {
        let Some(noc) = self.noc.as_deref_mut() else { return self.events.pop() };
        let limit = self.events.peek_time().map(|t| noc.cycle_at(t));
        let next = noc.find_next(limit);
        // Every packet the network moved counts as an event of the run's budget (`max_events`),
        // background ones included: they are its work, which the engine's events alone would not
        // bound (a long program's misses on a mesh are billions of packets).
        let injected = noc.net.packets_injected();
        self.stats.events += injected - noc.charged;
        noc.charged = injected;
        match next {
            Some((c, _)) => Some((noc.ns_of(c).max(self.now), Event::Network)),
            None => self.events.pop(),
        }
    }

    /// Handle the occurrence `next_event` found (`Event::Network`).
    pub(crate) fn on_network(&mut self) {
        let noc = self.noc.as_deref_mut().expect("a network event needs a network");
        let (cycle, occurrence) = noc.next.take().expect("a network event has its occurrence");
        match occurrence {
            Occurrence::Delivery(p) => {
                noc.outstanding -= 1;
                self.qspin_delivered(cycle, p);
            }
            Occurrence::Timer(timer) => self.qspin_timer(cycle, timer),
        }
    }

    /// Whether the network will move a waiting thread on by itself (`NocSim::busy`).
    pub(crate) fn network_busy(&self) -> bool {
        self.noc.as_deref().is_some_and(NocSim::busy)
    }

    /// Core `c` was planned for its running thread `t`: set its node's background traffic from
    /// what `t` does now, and send the lock attempt `t` owes, if any (`qspin`).
    pub(crate) fn noc_planned(&mut self, c: usize, t: u32) {
        let Some(noc) = self.noc.as_deref_mut() else { return };
        let rate = match self.flow[t as usize].act {
            Act::Compute { .. } if self.rates[t as usize].tpi > 0.0 => {
                let per_cycle = 1.0 / self.rates[t as usize].tpi / noc.ghz;
                BackgroundRate {
                    l2_per_cycle: self.more_per_instruction[t as usize][noc.l1d_index] * per_cycle,
                    mc_per_cycle: self.rates[t as usize].llc_mpki / 1000.0 * per_cycle,
                    request_flits: CONTROL_FLITS,
                    reply_flits: noc.line_flits,
                }
            }
            _ => BackgroundRate::default(),
        };
        noc.set_background(c, rate);
        self.qspin_on_core(t, c);
    }

    /// Core `c` stopped running its thread: its node sends no background traffic.
    pub(crate) fn noc_stopped(&mut self, c: usize) {
        if let Some(noc) = self.noc.as_deref_mut() {
            noc.set_background(c, BackgroundRate::default());
        }
    }

    /// The network side of the result (`RunResult::noc`).
    /// The last threads' releases may still be on their way to the homes when the run ends (a
    /// releaser goes on at once, and exits): they are delivered first, so that every critical
    /// section is counted. Only releases and wake-ups can be left (no thread waits for a
    /// grant, a failure or a timer after it has exited).
    pub(crate) fn noc_result(&mut self) -> Option<NocResult> {
        let end = self.noc.as_deref().map(|noc| noc.cycle_at(self.now))?;
        while let Some(noc) = self.noc.as_deref_mut().filter(|noc| noc.busy()) {
            if noc.find_next(None).is_none() {
                break;
            }
            self.on_network();
        }
        let noc = self.noc.as_deref_mut()?;
        if noc.net.now() < end {
            noc.net.run_until(end);
        }
        Some(NocResult { stats: noc.net.stats(), clock_ghz: noc.ghz, apps: noc.qspin.app_stats() })
    }
}
