//! Synthetic traffic on a machine's network alone (no threads): every node offers packets at
//! the same rate to uniformly random destinations, the open-loop measurement BookSim and Garnet's
//! synthetic traffic mode make (offered and accepted throughput, mean latency after a warm-up:
//! Dally & Towles, "Principles and Practices of Interconnection Networks", on performance
//! measurement). What `ampsched.noc_traffic` and the benchmark call; the network is
//! `ampsched_sim::noc`, docs/noc.md.

use ampsched_model::{InputError, Machine};
use ampsched_sim::noc::{BackgroundRate, Network};
use serde_json::{json, Value};

/// Offered load, flits per node per cycle: up to one, what a network interface can inject.
pub const MAX_INJECTION_RATE: f64 = 1.0;
/// Measured cycles: up to 1e8 (about a minute and a half at the saturated 8×8 mesh's cost).
pub const MAX_CYCLES: u64 = 100_000_000;
/// The warm-up before measuring when the caller gives none: a tenth of the measured cycles, at
/// least 1,000 (several zero-load latencies of the largest mesh a study uses), so that the
/// network holds its steady-state population when counting starts.
pub const MIN_WARMUP_CYCLES: u64 = 1_000;
/// The patterns `traffic` knows.
pub const PATTERNS: &[&str] = &["uniform"];

/// One measurement: a row of the latency-throughput curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Traffic {
    /// Flits per node per cycle generated, and delivered, over the measured cycles.
    pub offered: f64,
    pub accepted: f64,
    /// Mean latency of the packets delivered while measuring, cycles (injection to tail arrival,
    /// source queueing included).
    pub mean_latency: f64,
    pub packets: u64,
    /// The uniform-random throughput bound of the mesh's bisection, 4 / max(width, height).
    pub bisection_bound: f64,
    /// Zero-load latency at the mean uniform-random distance, cycles.
    pub zero_load_latency: f64,
}

impl Traffic {
    pub fn to_json(&self) -> Value {
        json!({
            "offered": self.offered,
            "accepted": self.accepted,
            "mean_latency": self.mean_latency,
            "packets": self.packets,
            "bisection_bound": self.bisection_bound,
            "zero_load_latency": self.zero_load_latency,
        })
    }
}

/// What to offer (`traffic`).
#[derive(Debug, Clone)]
pub struct TrafficSpec {
    pub injection_rate: f64,
    pub cycles: u64,
    pub warmup: Option<u64>,
    pub seed: u64,
    pub pattern: String,
    /// Packet length, flits; None: a cache line's.
    pub packet_flits: Option<u16>,
}

/// Run `spec` on `machine`'s network. Err: bad input, one line naming the option.
pub fn traffic(machine: &Machine, spec: &TrafficSpec) -> Result<Traffic, InputError> {
    let bad = |key: &str, why: String| InputError::new("noc_traffic", key, why);
    let Some(ic) = &machine.interconnect else {
        return Err(bad("machine", format!("machine '{}' has no [interconnect]: no network to load", machine.name)));
    };
    if !(spec.injection_rate.is_finite() && spec.injection_rate > 0.0 && spec.injection_rate <= MAX_INJECTION_RATE) {
        return Err(bad(
            "injection_rate",
            format!("must be greater than 0 and at most {MAX_INJECTION_RATE} flits per node per cycle, got {}", spec.injection_rate),
        ));
    }
    if spec.cycles == 0 || spec.cycles > MAX_CYCLES {
        return Err(bad("cycles", format!("must be from 1 to {MAX_CYCLES}, got {}", spec.cycles)));
    }
    if spec.warmup.is_some_and(|w| w > MAX_CYCLES) {
        return Err(bad("warmup", format!("must be from 0 to {MAX_CYCLES}")));
    }
    if !PATTERNS.contains(&spec.pattern.as_str()) {
        return Err(bad("pattern", format!("'{}' is not a known pattern ({})", spec.pattern, PATTERNS.join(", "))));
    }
    let flits = spec.packet_flits.unwrap_or_else(|| ic.line_flits());
    if flits == 0 || flits > 1024 {
        return Err(bad("packet_flits", format!("must be from 1 to 1024, got {flits}")));
    }
    let warmup = spec.warmup.unwrap_or((spec.cycles / 10).max(MIN_WARMUP_CYCLES));
    let mut net = Network::new(ic, 1, spec.seed);
    let rate = BackgroundRate { l2_per_cycle: spec.injection_rate / flits as f64, mc_per_cycle: 0.0, request_flits: flits, reply_flits: 0 };
    for node in 0..net.nodes() as u16 {
        net.set_background(node, rate);
    }
    net.run_until(warmup);
    net.reset_stats();
    net.run_until(warmup + spec.cycles);
    let s = net.stats().total();
    let per_node_cycle = (net.nodes() as f64) * spec.cycles as f64;
    let mean_hops = |k: f64| (k * k - 1.0) / (3.0 * k);
    let hops = mean_hops(ic.width as f64) + mean_hops(ic.height as f64);
    Ok(Traffic {
        offered: s.flits_injected as f64 / per_node_cycle,
        accepted: s.flits_delivered as f64 / per_node_cycle,
        mean_latency: s.mean_latency(),
        packets: s.packets_delivered,
        bisection_bound: 4.0 / ic.width.max(ic.height) as f64,
        zero_load_latency: (hops + 1.0) * (ic.router_stages + ic.link_cycles) as f64 + flits as f64 - 1.0,
    })
}
