//! The mesh network sub-engine (`ampsched_sim::noc`) against what can be derived by hand:
//! zero-load latency hop by hop, the uniform-random saturation bound, Table 1's arbitration
//! order at one router, and determinism.

use ampsched_model::{Arbitration, Interconnect, Machine};
use ampsched_sim::noc::{BackgroundRate, Network, Packet, PacketClass};

/// Table 2's 8×8 mesh (every other key at its default), or a k×k one.
fn mesh(k: u16) -> Interconnect {
    let cores = k as usize * k as usize;
    let text = format!("[[core_type]]\nname = \"c\"\ncount = {cores}\nfreq_ghz = 2.0\nmemory_latency_ns = 0\n[interconnect]\nkind = \"mesh\"\nwidth = {k}\n");
    let text = text.replace("memory_latency_ns = 0\n", "");
    Machine::from_toml("mesh.toml", &format!("memory_latency_ns = 80\n{text}")).expect("a valid mesh").interconnect.expect("an interconnect")
}

fn tracked(src: u16, dst: u16, flits: u16, class: PacketClass, tag: u64) -> Packet {
    Packet { src, dst, flits, class, progress: 0, tag }
}

#[test]
fn zero_load_latency_is_hops_plus_one_times_the_hop_delay_plus_serialisation() {
    let spec = mesh(8);
    assert_eq!((spec.router_stages, spec.link_cycles), (2, 1), "Table 2's 2-stage routers and 1-cycle links");
    // Alone in the network, a packet injected at cycle T crosses hops + 1 routers (its source's
    // and destination's included), each costing router_stages + link_cycles = 3 cycles to its
    // head (the last link is the ejection into the network interface), and its tail arrives
    // flits − 1 cycles after its head: corner to corner on 8×8, 14 hops, an 8-flit line:
    // 15 × 3 + 7 = 52 cycles; a 1-flit message to its own node: 1 × 3 + 0 = 3.
    let cases: [(u16, u16, u16, u64); 5] = [(0, 63, 8, 52), (0, 63, 1, 45), (9, 9, 1, 3), (0, 1, 8, 2 * 3 + 7), (27, 36, 1, 3 * 3)];
    for (src, dst, flits, expected) in cases {
        let mut net = Network::new(&spec, 128, 1);
        let start = 1000;
        net.run_until(start);
        net.inject(start, tracked(src, dst, flits, PacketClass::Normal, 7));
        let (t, p) = net.run_until(u64::MAX).expect("delivered");
        assert_eq!(p.tag, 7);
        assert_eq!(t - start, expected, "{src} -> {dst}, {flits} flits");
        assert_eq!(net.zero_load_latency(src, dst, flits), expected);
    }
}
