//! The on-chip network sub-engine: a packet-level model of a mesh of virtual-channel routers
//! (`ampsched_model::Interconnect`, docs/noc.md), which the engine runs in lock step with its own
//! events when a machine declares `[interconnect]`. Times are network cycles.
//!
//! The level of detail, and why. A packet moves as a unit: at each router it waits in a virtual
//! channel (VC) of its input port, competes for its output port (XY routing, `mesh`) in a
//! separable two-stage allocation (one VC per input port, then one input per output port:
//! `router`), and, once granted, holds the input and output ports for one cycle per flit (the
//! crossbar and link carry one flit a cycle) while its head goes on after `router_stages +
//! link_cycles` cycles. It enters a downstream VC only when that VC has buffer credits for it
//! (min(its flits, the VC's depth): a packet longer than the buffer needs the buffer empty, as a
//! wormhole packet would take the VC whole), and those credits come back when its tail has left.
//! That keeps what decides lock hand-offs and saturation — per-output contention, arbitration
//! order, VC and buffer back-pressure, serialisation — at a cost per cycle that grows with the
//! packets in flight, not with routers × ports × VCs, and an idle network costs nothing (the
//! model jumps to its next event). It leaves out: flit-level wormhole interleaving (a packet's
//! body flits cannot be spread over several routers while its head is blocked, nor interleave
//! with another packet's on a link), speculative-allocation failures, the coherence protocol's
//! message classes and virtual networks (any packet may take any VC; sinks always accept, so no
//! protocol deadlock), and the DRAM time between a memory controller's request and its reply.
//!
//! Zero-load latency, from its injection to its tail's arrival at the destination's network
//! interface: (hops + 1) × (router_stages + link_cycles) + flits − 1, the +1 being the
//! destination's own router and its ejection link (tests/it/noc.rs checks it hop by hop).

mod mesh;
mod network;
pub mod router;

pub use mesh::Mesh;
pub use network::{BackgroundRate, ClassStats, Network, NetworkStats, MAX_BACKGROUND_PER_CYCLE};

/// What a packet is to a router (the paper's priority check bit C is `class != Normal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketClass {
    /// Data and coherence traffic: C = 0.
    Normal,
    /// An atomic locking request in the spinning phase, `rtr` retries remaining (Alg. 1 line 5:
    /// RTR = MAX_SPIN_COUNT − i).
    Lock { rtr: u32 },
    /// A futex wake-up request (Alg. 2), the lowest of the priority levels.
    WakeUp,
}

impl PacketClass {
    /// 0 normal, 1 lock, 2 wake-up: the index of its statistics.
    pub fn index(self) -> usize {
        match self {
            PacketClass::Normal => 0,
            PacketClass::Lock { .. } => 1,
            PacketClass::WakeUp => 2,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    pub src: u16,
    pub dst: u16,
    /// Its length (1: a control message; a line: `Interconnect::line_flits`).
    pub flits: u16,
    pub class: PacketClass,
    /// The sending thread's progress (PROG, critical sections it has completed), stamped by the
    /// network interface into lock and wake-up packets; ignored for normal ones.
    pub progress: u32,
    /// The caller's id for the packet; 0: untracked (its delivery is counted, not returned).
    pub tag: u64,
}
