//! The network's state and its cycle loop (the model and its level of detail: `noc`'s module
//! comment). Each cycle, at every router holding packets: the network interface moves the head
//! of its queue into a free local VC (one flit a cycle into the router), then the router
//! allocates: each input port not busy streaming proposes one of its VCs whose head packet has
//! arrived, whose output port is free and whose next hop has a VC with credits for it (`router`
//! picks among them); each output port grants one of the proposals. A granted packet leaves at
//! once: its head reaches the next router's VC `router_stages + link_cycles` cycles later, its
//! ports stay busy one cycle per flit, and its old VC's credits return when its tail has left.
//! At the destination the packet is delivered when its tail reaches the network interface.
//!
//! Background traffic: each node may generate normal packets itself (`set_background`), as a
//! Poisson process per stream (requests to a uniformly random L2 bank, and to a random memory
//! controller), each request answered by its destination with a reply when the rate asks for one
//! (a miss's request and its line). Everything random comes from the one seeded generator, in a
//! fixed order, so a seed gives the same deliveries.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use ampsched_model::rng::Rng;
use ampsched_model::{Arbitration, Interconnect};

use super::mesh::{Mesh, LOCAL, PORTS};
use super::router::{arbitrate, stamp, Request};
use super::{Packet, PacketClass};

/// The background traffic one node generates (`Network::set_background`): normal packets, as
/// Poisson arrivals.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BackgroundRate {
    /// Requests per cycle to an L2 bank, uniform over all nodes (the node's own included: an
    /// address-interleaved shared L2).
    pub l2_per_cycle: f64,
    /// Requests per cycle to a memory controller, uniform over the machine's controllers.
    pub mc_per_cycle: f64,
    /// A request's length in flits (1: a control message).
    pub request_flits: u16,
    /// The reply the destination sends back on the request's arrival, flits (a line's
    /// `Interconnect::line_flits`); 0: none.
    pub reply_flits: u16,
}

/// Counts for one packet class.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClassStats {
    pub packets_injected: u64,
    pub flits_injected: u64,
    pub packets_delivered: u64,
    pub flits_delivered: u64,
    /// Sum over delivered packets of injection to tail arrival, cycles.
    pub latency_sum: u64,
}

impl ClassStats {
    /// Mean latency of the delivered packets, cycles (0 when none).
    pub fn mean_latency(&self) -> f64 {
        if self.packets_delivered == 0 {
            0.0
        } else {
            self.latency_sum as f64 / self.packets_delivered as f64
        }
    }

    fn add(&mut self, o: &ClassStats) {
        self.packets_injected += o.packets_injected;
        self.flits_injected += o.flits_injected;
        self.packets_delivered += o.packets_delivered;
        self.flits_delivered += o.flits_delivered;
        self.latency_sum += o.latency_sum;
    }
}

/// What the network carried since it was built or its statistics were last reset.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NetworkStats {
    /// Cycles covered.
    pub cycles: u64,
    pub normal: ClassStats,
    pub lock: ClassStats,
    pub wakeup: ClassStats,
    /// Packets and flits each node injected (background and the engine's).
    pub node_packets_injected: Vec<u64>,
    pub node_flits_injected: Vec<u64>,
}

impl NetworkStats {
    pub fn total(&self) -> ClassStats {
        let mut t = self.normal;
        t.add(&self.lock);
        t.add(&self.wakeup);
        t
    }

    fn class_mut(&mut self, class: PacketClass) -> &mut ClassStats {
        match class {
            PacketClass::Normal => &mut self.normal,
            PacketClass::Lock { .. } => &mut self.lock,
            PacketClass::WakeUp => &mut self.wakeup,
        }
    }
}

/// A packet in the network.
#[derive(Debug, Clone)]
struct Flight {
    packet: Packet,
    /// When it was injected (its latency's start).
    born: u64,
    /// The reply its destination sends on arrival (background requests), flits; 0: none.
    reply_flits: u16,
    /// The router it is at (or the source, before it enters).
    at: u16,
    /// When its tail reaches the destination, once its last hop is granted.
    delivery: Option<u64>,
}

/// A packet in a VC: its flight, when its head arrives in the buffer, its output port here.
#[derive(Debug, Clone, Copy)]
struct Queued {
    id: u32,
    arrive: u64,
    out: u8,
}

/// Every VC's queue, as a ring of fixed capacity inline in one array: a VC holds at most its
/// depth in packets (each takes a credit at least), so no queue grows, and a router's look at
/// its VCs reads the array instead of following a pointer per VC.
#[derive(Debug, Clone)]
struct Queues {
    slots: Vec<Queued>,
    /// Per VC: the index of its head in its ring, and its length.
    rings: Vec<(u16, u16)>,
    capacity: usize,
}

impl Queues {
    fn new(vcs: usize, capacity: usize) -> Queues {
        Queues { slots: vec![Queued { id: 0, arrive: 0, out: 0 }; vcs * capacity], rings: vec![(0, 0); vcs], capacity }
    }

    fn front(&self, vc: usize) -> Option<Queued> {
        let (head, len) = self.rings[vc];
        (len > 0).then(|| self.slots[vc * self.capacity + head as usize])
    }

    fn is_empty(&self, vc: usize) -> bool {
        self.rings[vc].1 == 0
    }

    fn push_back(&mut self, vc: usize, q: Queued) {
        let (head, len) = self.rings[vc];
        assert!((len as usize) < self.capacity, "a VC holds at most its depth in packets");
        self.slots[vc * self.capacity + (head as usize + len as usize) % self.capacity] = q;
        self.rings[vc].1 = len + 1;
    }

    fn pop_front(&mut self, vc: usize) -> Option<Queued> {
        let q = self.front(vc)?;
        let (head, len) = self.rings[vc];
        self.rings[vc] = (((head as usize + 1) % self.capacity) as u16, len - 1);
        Some(q)
    }
}

/// A VC's buffer credits, kept apart from its queue so that a router's look at its neighbour's
/// room reads a few contiguous words.
#[derive(Debug, Clone, Copy)]
struct Credits {
    /// Flits of buffer taken by the packets queued or still leaving.
    used: u32,
    /// Credits coming back at `back_at` (u64::MAX: none), when the last packet to leave has
    /// left. One return at most: the next packet leaves by the same input port, busy until then.
    back: u32,
    back_at: u64,
}

const NO_RETURN: Credits = Credits { used: 0, back: 0, back_at: u64::MAX };

/// The per-router arbitration state: when each port is free, and the round-robin pointers.
#[derive(Debug, Clone, Default)]
struct Router {
    in_busy: [u64; PORTS],
    out_busy: [u64; PORTS],
    /// Stage 1: per input port, over its VCs.
    rr_in: [usize; PORTS],
    /// Stage 2: per output port, over the input ports.
    rr_out: [usize; PORTS],
    /// Per output port, over the next router's VCs (which free VC a granted packet takes).
    rr_vc: [usize; PORTS],
    /// Packets in its VCs, in all and per input port; and per input port, the VCs holding any
    /// (bit v: VC v), so that a step looks at those only.
    load: u32,
    port_load: [u32; PORTS],
    occupied: [u16; PORTS],
    /// The network interface: packets waiting to enter, and when its channel is next free.
    ni: VecDeque<u32>,
    ni_busy: u64,
    ni_rr: usize,
}

/// One node's background streams: its rate, and each stream's next arrival (continuous time).
#[derive(Debug, Clone, Copy, Default)]
struct Background {
    rate: BackgroundRate,
    next: [f64; 2],
    /// Bumped by each `set_background`, so that the schedule's stale entries are skipped.
    generation: u32,
}

/// The most packets per cycle a background stream generates: an interface injects at most one
/// flit a cycle, so sixteen packets a cycle is far past saturation already; the cap keeps an
/// infinite rate from generating without end within one cycle.
pub const MAX_BACKGROUND_PER_CYCLE: f64 = 16.0;

const L2_STREAM: u8 = 0;
const MC_STREAM: u8 = 1;

/// The mesh network (`noc`'s module comment).
#[derive(Debug, Clone)]
pub struct Network {
    mesh: Mesh,
    arbitration: Arbitration,
    stages: u64,
    link: u64,
    vcs: usize,
    depth: u32,
    levels: u32,
    progress_levels: u32,
    max_spin: u32,
    memory_controllers: Vec<u16>,
    rng: Rng,
    /// The first cycle not yet simulated.
    now: u64,
    routers: Vec<Router>,
    /// Indexed ((router × PORTS + port) × vcs + vc).
    queues: Queues,
    credits: Vec<Credits>,
    flights: Vec<Flight>,
    free_flights: Vec<u32>,
    /// Per router, the first cycle at which it may have something to do (a head arrives, a port
    /// frees, a lost arbitration is retried, its interface may inject): it is stepped only then,
    /// which gives the same results as stepping it every cycle (a step with nothing able to
    /// move changes nothing), and the network jumps over cycles where no router needs one.
    wake: Vec<u64>,
    /// The least of `wake`.
    next_wake: u64,
    /// (cycle, sequence, flight): deliveries scheduled.
    deliveries: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// (cycle, sequence, flight): injections for a later cycle than `now`.
    future: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// (cycle, node, stream, generation): the background streams' next arrivals.
    schedule: BinaryHeap<Reverse<(u64, u16, u8, u32)>>,
    background: Vec<Background>,
    sequence: u64,
    stats: NetworkStats,
    stats_start: u64,
    /// Scratch for the allocators (kept to avoid allocating each cycle).
    requests: Vec<Request>,
    /// Stage 1's winners, per input port: (VC, output port, priority).
    proposals: [Option<(usize, usize, super::router::Priority)>; PORTS],
}

impl Network {
    /// A network for `spec`; `max_spin` is the spin count whose RTR values OCOR's levels split.
    pub fn new(spec: &Interconnect, max_spin: u32, seed: u64) -> Network {
        let mesh = Mesh::new(spec);
        let n = mesh.nodes();
        let vcs = spec.vcs as usize;
        Network {
            mesh,
            arbitration: spec.arbitration,
            stages: spec.router_stages as u64,
            link: spec.link_cycles as u64,
            vcs,
            depth: spec.vc_buffer_flits,
            levels: spec.priority_levels,
            progress_levels: spec.progress_levels.max(1),
            max_spin,
            memory_controllers: spec.memory_controllers.clone(),
            rng: Rng::new(seed),
            now: 0,
            routers: vec![Router::default(); n],
            queues: Queues::new(n * PORTS * vcs, spec.vc_buffer_flits as usize),
            credits: vec![NO_RETURN; n * PORTS * vcs],
            flights: Vec::new(),
            free_flights: Vec::new(),
            wake: vec![u64::MAX; n],
            next_wake: u64::MAX,
            deliveries: BinaryHeap::new(),
            future: BinaryHeap::new(),
            schedule: BinaryHeap::new(),
            background: vec![Background::default(); n],
            sequence: 0,
            stats: NetworkStats { node_packets_injected: vec![0; n], node_flits_injected: vec![0; n], ..Default::default() },
            stats_start: 0,
            requests: Vec::with_capacity(vcs.max(PORTS)),
            proposals: [None; PORTS],
        }
    }

    /// The first cycle not yet simulated (what `run_until` has reached).
    pub fn now(&self) -> u64 {
        self.now
    }

    pub fn nodes(&self) -> usize {
        self.mesh.nodes()
    }

    /// Zero-load latency of a packet of `flits` from `src` to `dst`, cycles: (hops + 1) ×
    /// (router_stages + link_cycles) + flits − 1 (`noc`'s module comment).
    pub fn zero_load_latency(&self, src: u16, dst: u16, flits: u16) -> u64 {
        (self.mesh.hops(src, dst) as u64 + 1) * (self.stages + self.link) + flits.max(1) as u64 - 1
    }

    /// Hand `packet` to its source's network interface at cycle `now` (the network's own `now`
    /// if earlier: it cannot go back). A tracked packet (tag ≠ 0) is returned by `run_until` on
    /// its delivery.
    pub fn inject(&mut self, now: u64, packet: Packet) {
        self.inject_with_reply(now, packet, 0);
    }

    fn inject_with_reply(&mut self, now: u64, mut packet: Packet, reply_flits: u16) {
        assert!((packet.src as usize) < self.nodes() && (packet.dst as usize) < self.nodes(), "a packet between nodes of the mesh");
        packet.flits = packet.flits.max(1);
        let t = now.max(self.now);
        let c = self.stats.class_mut(packet.class);
        c.packets_injected += 1;
        c.flits_injected += packet.flits as u64;
        self.stats.node_packets_injected[packet.src as usize] += 1;
        self.stats.node_flits_injected[packet.src as usize] += packet.flits as u64;
        let flight = Flight { packet, born: t, reply_flits, at: packet.src, delivery: None };
        let id = match self.free_flights.pop() {
            Some(id) => {
                self.flights[id as usize] = flight;
                id
            }
            None => {
                self.flights.push(flight);
                (self.flights.len() - 1) as u32
            }
        };
        if t == self.now {
            self.hand_to_interface(id);
        } else {
            self.sequence += 1;
            self.future.push(Reverse((t, self.sequence, id)));
        }
    }

    /// Set the background traffic `node` generates from now on (a zero rate stops it).
    pub fn set_background(&mut self, node: u16, mut rate: BackgroundRate) {
        let now = self.now as f64;
        // A rate that is not a positive number is no traffic (NaN included); a huge one is capped.
        let capped = |r: f64| if r > 0.0 { r.min(MAX_BACKGROUND_PER_CYCLE) } else { 0.0 };
        rate.l2_per_cycle = capped(rate.l2_per_cycle);
        rate.mc_per_cycle = capped(rate.mc_per_cycle);
        let b = &mut self.background[node as usize];
        b.rate = rate;
        b.generation += 1;
        let generation = b.generation;
        for (stream, per_cycle) in [(L2_STREAM, rate.l2_per_cycle), (MC_STREAM, rate.mc_per_cycle)] {
            if per_cycle > 0.0 && (stream == L2_STREAM || !self.memory_controllers.is_empty()) {
                let next = now + exponential(&mut self.rng, per_cycle);
                self.background[node as usize].next[stream as usize] = next;
                self.schedule.push(Reverse((next.ceil() as u64, node, stream, generation)));
            }
        }
    }

    /// Simulate up to cycle `limit`, or until the first delivery of a tracked packet at or before
    /// it, which is returned with its cycle (the network then stands at that cycle, and the
    /// caller may inject at it); call again to go on. None: `limit` reached.
    pub fn run_until(&mut self, limit: u64) -> Option<(u64, Packet)> {
        loop {
            while let Some(&Reverse((t, _, id))) = self.deliveries.peek() {
                if t > self.now {
                    break;
                }
                self.deliveries.pop();
                if let Some(p) = self.deliver(t, id) {
                    return Some((t, p));
                }
            }
            if self.now >= limit {
                return None;
            }
            // Nothing moves before the next event: jump to it.
            let next = [self.deliveries.peek().map(|r| r.0 .0), self.future.peek().map(|r| r.0 .0), self.schedule.peek().map(|r| r.0 .0)]
                .into_iter()
                .flatten()
                .fold(limit.min(self.next_wake), u64::min);
            if next > self.now {
                self.now = next;
                continue;
            }
            self.cycle();
            self.now += 1;
        }
    }

    /// The earliest cycle at which a tracked packet now in the network (or injected for later)
    /// can be delivered: its scheduled delivery, or the zero-load time from where it is. None
    /// when no tracked packet is in the network.
    pub fn next_tracked_delivery_bound(&self) -> Option<u64> {
        let mut bound: Option<u64> = None;
        let live: std::collections::BTreeSet<u32> = self.free_flights.iter().copied().collect();
        for (id, f) in self.flights.iter().enumerate() {
            if f.packet.tag == 0 || live.contains(&(id as u32)) {
                continue;
            }
            let t = f.delivery.unwrap_or_else(|| self.now.max(f.born) + self.zero_load_latency(f.at, f.packet.dst, f.packet.flits));
            bound = Some(bound.map_or(t, |b| b.min(t)));
        }
        bound
    }

    /// Packets injected so far, every class (what the engine charges its event budget with:
    /// `nocsim`), without copying the statistics.
    pub fn packets_injected(&self) -> u64 {
        self.stats.normal.packets_injected + self.stats.lock.packets_injected + self.stats.wakeup.packets_injected
    }

    pub fn stats(&self) -> NetworkStats {
        NetworkStats { cycles: self.now - self.stats_start, ..self.stats.clone() }
    }

    /// Start the statistics afresh at the current cycle (after a warm-up).
    pub fn reset_stats(&mut self) {
        let n = self.nodes();
        self.stats = NetworkStats { node_packets_injected: vec![0; n], node_flits_injected: vec![0; n], ..Default::default() };
        self.stats_start = self.now;
    }

    /// Account a delivery; the packet when it is tracked.
    fn deliver(&mut self, t: u64, id: u32) -> Option<Packet> {
        let f = self.flights[id as usize].clone();
        self.free_flights.push(id);
        let c = self.stats.class_mut(f.packet.class);
        c.packets_delivered += 1;
        c.flits_delivered += f.packet.flits as u64;
        c.latency_sum += t - f.born;
        if f.reply_flits > 0 {
            let p = f.packet;
            self.inject(t, Packet { src: p.dst, dst: p.src, flits: f.reply_flits, class: PacketClass::Normal, progress: 0, tag: 0 });
        }
        (f.packet.tag != 0).then_some(f.packet)
    }

    fn vc_index(&self, router: usize, port: usize, vc: usize) -> usize {
        (router * PORTS + port) * self.vcs + vc
    }

    /// Credits a packet of `flits` takes in a VC.
    fn need(&self, flits: u16) -> u32 {
        (flits as u32).min(self.depth)
    }

    /// Free credits of a VC at `now`, after the return due.
    fn free(&mut self, index: usize, now: u64) -> u32 {
        let c = &mut self.credits[index];
        if c.back_at <= now {
            c.used -= c.back;
            c.back = 0;
            c.back_at = u64::MAX;
        }
        self.depth - c.used
    }

    /// The most free credits of a VC of `(router, port)`.
    fn most_free(&mut self, router: usize, port: usize, now: u64) -> u32 {
        (0..self.vcs).map(|v| self.free(self.vc_index(router, port, v), now)).max().unwrap_or(0)
    }

    /// Hand flight `id` to its source's interface, now.
    fn hand_to_interface(&mut self, id: u32) {
        let src = self.flights[id as usize].packet.src as usize;
        self.routers[src].ni.push_back(id);
        self.wake[src] = self.wake[src].min(self.now);
        self.next_wake = self.next_wake.min(self.now);
    }

    /// The first VC at or after `start` of `(router, port)` with `need` free credits.
    fn free_vc(&mut self, router: usize, port: usize, need: u32, start: usize, now: u64) -> Option<usize> {
        let vcs = self.vcs;
        (0..vcs).map(|k| (start + k) % vcs).find(|&v| {
            let i = self.vc_index(router, port, v);
            self.free(i, now) >= need
        })
    }

    /// Put flight `id` in VC `(router, port, vc)`, its head arriving at `arrive`.
    fn enqueue(&mut self, router: usize, port: usize, vc: usize, id: u32, arrive: u64) {
        let f = &mut self.flights[id as usize];
        f.at = router as u16;
        let (dst, flits) = (f.packet.dst, f.packet.flits);
        let out = self.mesh.route(router as u16, dst) as u8;
        let need = self.need(flits);
        let i = self.vc_index(router, port, vc);
        self.credits[i].used += need;
        self.queues.push_back(i, Queued { id, arrive, out });
        let r = &mut self.routers[router];
        r.load += 1;
        r.port_load[port] += 1;
        r.occupied[port] |= 1 << vc;
        self.wake[router] = self.wake[router].min(arrive);
        self.next_wake = self.next_wake.min(arrive);
    }

    /// One cycle: injections due, then every router holding packets, in node order.
    fn cycle(&mut self) {
        let now = self.now;
        while let Some(&Reverse((t, _, id))) = self.future.peek() {
            if t > now {
                break;
            }
            self.future.pop();
            self.hand_to_interface(id);
        }
        while let Some(&Reverse((t, node, stream, generation))) = self.schedule.peek() {
            if t > now {
                break;
            }
            self.schedule.pop();
            self.generate(node, stream, generation);
        }
        // A router's grant may wake one already passed in this loop (`enqueue`): both count.
        self.next_wake = u64::MAX;
        for r in 0..self.routers.len() {
            if self.wake[r] <= now {
                self.wake[r] = self.step_router(r, now);
            }
            self.next_wake = self.next_wake.min(self.wake[r]);
        }
    }

    /// A background stream's arrival at `node`: its request, and the stream's next arrival.
    fn generate(&mut self, node: u16, stream: u8, generation: u32) {
        let b = self.background[node as usize];
        if b.generation != generation {
            return;
        }
        let dst =
            if stream == L2_STREAM { self.rng.below(self.nodes()) as u16 } else { self.memory_controllers[self.rng.below(self.memory_controllers.len())] };
        let rate = b.rate;
        let packet = Packet { src: node, dst, flits: rate.request_flits, class: PacketClass::Normal, progress: 0, tag: 0 };
        self.inject_with_reply(self.now, packet, rate.reply_flits);
        let per_cycle = if stream == L2_STREAM { rate.l2_per_cycle } else { rate.mc_per_cycle };
        let next = b.next[stream as usize] + exponential(&mut self.rng, per_cycle);
        self.background[node as usize].next[stream as usize] = next;
        self.schedule.push(Reverse(((next.ceil() as u64).max(self.now), node, stream, generation)));
    }

    /// Step router `r` at `now`; returns the cycle it next needs a step (`wake`).
    fn step_router(&mut self, r: usize, now: u64) -> u64 {
        let mut wake = self.inject_from_ni(r, now);
        if self.routers[r].load == 0 {
            return wake;
        }
        // Stage 1: each free input port proposes one VC whose head can go now. Downstream room
        // is looked up once per output port: the most free credits of its VCs.
        let mut room = [u32::MAX; PORTS];
        let mut proposed = false;
        for p in 0..PORTS {
            self.proposals[p] = None;
            if self.routers[r].port_load[p] == 0 {
                continue;
            }
            if self.routers[r].in_busy[p] > now {
                wake = wake.min(self.routers[r].in_busy[p]);
                continue;
            }
            self.requests.clear();
            let mut occupied = self.routers[r].occupied[p];
            while occupied != 0 {
                let v = occupied.trailing_zeros() as usize;
                occupied &= occupied - 1;
                let i = self.vc_index(r, p, v);
                let Some(head) = self.queues.front(i) else { continue };
                let out = head.out as usize;
                if head.arrive > now {
                    wake = wake.min(head.arrive);
                    continue;
                }
                if self.routers[r].out_busy[out] > now {
                    wake = wake.min(self.routers[r].out_busy[out]);
                    continue;
                }
                let f = &self.flights[head.id as usize].packet;
                let (class, progress, flits) = (f.class, f.progress, f.flits);
                if out != LOCAL {
                    if room[out] == u32::MAX {
                        let (next, in_port) = self.mesh.neighbour(r as u16, out);
                        room[out] = self.most_free(next as usize, in_port, now);
                    }
                    if room[out] < self.need(flits) {
                        // Credits may come back any cycle.
                        wake = wake.min(now + 1);
                        continue;
                    }
                }
                self.requests.push(Request { slot: v, priority: stamp(class, progress, self.levels, self.max_spin) });
            }
            if self.requests.is_empty() {
                continue;
            }
            let mut rr = self.routers[r].rr_in[p];
            let w = arbitrate(self.arbitration, &self.requests, &mut rr, self.vcs, self.progress_levels, &mut self.rng);
            self.routers[r].rr_in[p] = rr;
            let v = self.requests[w].slot;
            let out = self.queues.front(self.vc_index(r, p, v)).expect("a proposed head").out as usize;
            self.proposals[p] = Some((v, out, self.requests[w].priority));
            proposed = true;
        }
        if !proposed {
            return wake;
        }
        // Stage 2: each output port grants one proposal.
        let mut wanted = [0u8; PORTS];
        for (p, proposal) in self.proposals.iter().enumerate() {
            if let Some((_, out, _)) = proposal {
                wanted[*out] |= 1 << p;
            }
        }
        for o in 0..PORTS {
            if wanted[o] == 0 {
                continue;
            }
            self.requests.clear();
            for p in 0..PORTS {
                if wanted[o] & (1 << p) != 0 {
                    let (_, _, priority) = self.proposals[p].expect("a proposal");
                    self.requests.push(Request { slot: p, priority });
                }
            }
            let mut rr = self.routers[r].rr_out[o];
            let w = arbitrate(self.arbitration, &self.requests, &mut rr, PORTS, self.progress_levels, &mut self.rng);
            self.routers[r].rr_out[o] = rr;
            let p = self.requests[w].slot;
            let (v, _, _) = self.proposals[p].take().expect("the winner proposed");
            self.grant(r, p, v, o, now);
            // Its port is busy while the packet streams out; its other VCs wait as long.
            if self.routers[r].port_load[p] > 0 {
                wake = wake.min(self.routers[r].in_busy[p]);
            }
        }
        // A proposal not granted is retried next cycle.
        if self.proposals.iter().any(Option::is_some) {
            wake = wake.min(now + 1);
        }
        wake
    }

    /// The head of VC `(r, p, v)` leaves by output `o` at `now`.
    fn grant(&mut self, r: usize, p: usize, v: usize, o: usize, now: u64) {
        let i = self.vc_index(r, p, v);
        let head = self.queues.pop_front(i).expect("a granted head");
        let flits = self.flights[head.id as usize].packet.flits;
        let need = self.need(flits);
        let tail_gone = now + flits as u64;
        self.free(i, now);
        debug_assert!(self.credits[i].back_at == u64::MAX, "the last packet's credits are back before the next leaves");
        self.credits[i].back = need;
        self.credits[i].back_at = tail_gone;
        let router = &mut self.routers[r];
        router.in_busy[p] = tail_gone;
        router.out_busy[o] = tail_gone;
        router.load -= 1;
        router.port_load[p] -= 1;
        if self.queues.is_empty(i) {
            router.occupied[p] &= !(1 << v);
        }
        let head_next = now + self.stages + self.link;
        if o == LOCAL {
            let t = head_next + flits as u64 - 1;
            self.flights[head.id as usize].delivery = Some(t);
            self.sequence += 1;
            self.deliveries.push(Reverse((t, self.sequence, head.id)));
        } else {
            let (next, in_port) = self.mesh.neighbour(r as u16, o);
            let start = self.routers[r].rr_vc[o];
            let vc = self.free_vc(next as usize, in_port, need, start, now).expect("stage 1 saw a free VC");
            self.routers[r].rr_vc[o] = (vc + 1) % self.vcs;
            self.enqueue(next as usize, in_port, vc, head.id, head_next);
        }
    }

    /// The network interface of node `r` sends its next packet into a free local VC. Returns
    /// when it next needs a step: when its channel frees, or the next cycle if it waits for
    /// credits or has more to send.
    fn inject_from_ni(&mut self, r: usize, now: u64) -> u64 {
        let Some(&id) = self.routers[r].ni.front() else { return u64::MAX };
        if self.routers[r].ni_busy > now {
            return self.routers[r].ni_busy;
        }
        let flits = self.flights[id as usize].packet.flits;
        let need = self.need(flits);
        let start = self.routers[r].ni_rr;
        if let Some(vc) = self.free_vc(r, LOCAL, need, start, now) {
            let router = &mut self.routers[r];
            router.ni.pop_front();
            router.ni_busy = now + flits as u64;
            router.ni_rr = (vc + 1) % self.vcs;
            self.enqueue(r, LOCAL, vc, id, now);
            if self.routers[r].ni.is_empty() {
                return u64::MAX;
            }
            return self.routers[r].ni_busy;
        }
        now + 1
    }
}

/// An exponential gap of mean 1/rate (inverse transform of a uniform in (0, 1]).
fn exponential(rng: &mut Rng, rate: f64) -> f64 {
    let u = ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
    -u.ln() / rate
}
