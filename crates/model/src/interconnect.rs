//! The on-chip network a machine may declare (`[interconnect]`): a 2-D mesh of routers, one per
//! core, with XY routing, virtual-channel routers and memory controllers at given nodes, as
//! "Opportunistic Competition Overhead Reduction for Expediting Critical Section in NoC based
//! CMPs" (Yao & Lu), Table 2, configures gem5's Garnet: 8×8, 2-stage routers, 6 VCs of 4 flits
//! per port, 128-bit flits, 128-byte lines, memory controllers on the middle four nodes of the
//! top and bottom rows. Core `c` sits at node `c`, row-major (node = y × width + x), so the
//! machine's core count must equal width × height. A machine without `[interconnect]` has no
//! network, as every machine before it. The packet-level model that runs it is
//! `ampsched_sim::noc`; docs/noc.md describes both.

use crate::error::Result;
use crate::limits;
use crate::toml_read::Node;

/// How a router chooses among packets that want the same output (switch allocation) or the
/// same downstream virtual channel (VC allocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arbitration {
    /// Garnet 1.0's separable round-robin allocators (gem5
    /// src/mem/ruby/network/garnet/fixed-pipeline/SWallocator_d.cc, VCallocator_d.cc): every
    /// packet alike, the paper's "Original".
    RoundRobin,
    /// Yao & Lu's Table 1 order: slower progress first, lock and wake-up packets before normal
    /// ones, smaller remaining-times-of-retry (RTR) segment first, wake-ups last; ties random.
    Ocor,
}

impl Arbitration {
    /// The spelling of the machine format and of the `MACHINE:arbitration=...` run option.
    pub fn name(self) -> &'static str {
        match self {
            Arbitration::RoundRobin => "round_robin",
            Arbitration::Ocor => "ocor",
        }
    }

    pub fn parse(s: &str) -> Option<Arbitration> {
        match s {
            "round_robin" => Some(Arbitration::RoundRobin),
            "ocor" => Some(Arbitration::Ocor),
            _ => None,
        }
    }
}

/// A mesh network on chip (`[interconnect] kind = "mesh"`). Times are network cycles.
#[derive(Debug, Clone, PartialEq)]
pub struct Interconnect {
    /// Columns (k).
    pub width: u16,
    /// Rows (width when the file does not say).
    pub height: u16,
    /// Router pipeline cycles per hop (Table 2: a 2-stage speculative router).
    pub router_stages: u32,
    /// Link traversal cycles per hop.
    pub link_cycles: u32,
    /// Virtual channels per input port (Table 2: 6).
    pub vcs: u32,
    /// Buffer depth of each virtual channel, flits (Table 2: 4).
    pub vc_buffer_flits: u32,
    /// Bytes one flit carries (Table 2: a 128-bit data path, 16 bytes).
    pub flit_bytes: u32,
    /// A cache line, bytes: a data packet is line_bytes / flit_bytes flits (Table 2: 128 B, so 8
    /// flits); a control message (a request, an invalidation, a lock attempt) is one flit.
    pub line_bytes: u32,
    /// The network's clock, GHz: what converts its cycles to the engine's nanoseconds.
    pub clock_ghz: f64,
    /// Nodes holding a memory controller, row-major ids, ascending, distinct.
    pub memory_controllers: Vec<u16>,
    pub arbitration: Arbitration,
    /// OCOR's RTR priority levels (the spin count split evenly over them; the paper: 8 levels of
    /// 16 retries), plus one more, the lowest, for wake-ups.
    pub priority_levels: u32,
    /// OCOR's progress classes: packets whose thread's progress (critical sections completed)
    /// exceeds the lowest progress among the competing lock packets by 0, 1, … are ordered by
    /// that difference, saturating at `progress_levels − 1` (1: progress ignored). The paper
    /// gives no width for its progress bits; docs/noc.md says why 4.
    pub progress_levels: u32,
}

/// Table 2's values, the defaults of every key but `width`.
pub const DEFAULT_ROUTER_STAGES: u32 = 2;
pub const DEFAULT_LINK_CYCLES: u32 = 1;
pub const DEFAULT_VCS: u32 = 6;
pub const DEFAULT_VC_BUFFER_FLITS: u32 = 4;
pub const DEFAULT_FLIT_BYTES: u32 = 16;
pub const DEFAULT_LINE_BYTES: u32 = 128;
/// Table 2's cores run at 2 GHz; Garnet clocks its network with the cores.
pub const DEFAULT_CLOCK_GHZ: f64 = 2.0;
/// The paper's 8 RTR levels of 16 retries each (§4.2).
pub const DEFAULT_PRIORITY_LEVELS: u32 = 8;
/// Four one-hot progress bits: enough to separate a thread one, two or three critical sections
/// behind the slowest competitor from the rest (docs/noc.md); the paper does not give its width.
pub const DEFAULT_PROGRESS_LEVELS: u32 = 4;

impl Interconnect {
    pub fn nodes(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// (x, y) of a node, row-major.
    pub fn coords(&self, node: u16) -> (u16, u16) {
        (node % self.width, node / self.width)
    }

    /// Flits of a packet carrying a cache line (at least 1).
    pub fn line_flits(&self) -> u16 {
        self.line_bytes.div_ceil(self.flit_bytes).max(1) as u16
    }

    /// Table 2's placement for a mesh of this size: the middle half of the columns (at least
    /// one) of the top and bottom rows — 2, 3, 4, 5 and 58, 59, 60, 61 on 8×8.
    pub fn default_memory_controllers(width: u16, height: u16) -> Vec<u16> {
        let margin = width / 4;
        let cols = margin..(width - margin).max(margin + 1);
        let mut mcs: Vec<u16> = cols.clone().collect();
        if height > 1 {
            mcs.extend(cols.map(|x| (height - 1) * width + x));
        }
        mcs
    }

    /// Read `[interconnect]` (`n`) for a machine of `cores` cores.
    pub fn read(n: &mut Node, cores: usize) -> Result<Interconnect> {
        let kind = n.str("kind")?;
        if kind != "mesh" {
            return Err(n.err("kind", format!("'{kind}' is not a known interconnect (the one kind: \"mesh\")")));
        }
        let width = read_u32(n, "width", &limits::MESH_DIM)?.ok_or_else(|| n.err("width", "missing required key"))? as u16;
        let height = read_u32(n, "height", &limits::MESH_DIM)?.unwrap_or(width as u32) as u16;
        if width as usize * height as usize != cores {
            return Err(n.err(
                "width",
                format!("a {width}×{height} mesh has {} nodes, but the machine has {cores} cores (one core per node)", width as usize * height as usize),
            ));
        }
        let router_stages = read_u32(n, "router_stages", &limits::ROUTER_STAGES)?.unwrap_or(DEFAULT_ROUTER_STAGES);
        let link_cycles = read_u32(n, "link_cycles", &limits::LINK_CYCLES)?.unwrap_or(DEFAULT_LINK_CYCLES);
        let vcs = read_u32(n, "vcs", &limits::NOC_VCS)?.unwrap_or(DEFAULT_VCS);
        let vc_buffer_flits = read_u32(n, "vc_buffer_flits", &limits::VC_BUFFER_FLITS)?.unwrap_or(DEFAULT_VC_BUFFER_FLITS);
        let flit_bytes = read_u32(n, "flit_bytes", &limits::FLIT_BYTES)?.unwrap_or(DEFAULT_FLIT_BYTES);
        let line_bytes = read_u32(n, "line_bytes", &limits::NOC_LINE_BYTES)?.unwrap_or(DEFAULT_LINE_BYTES);
        if line_bytes < flit_bytes {
            return Err(n.err("line_bytes", format!("{line_bytes} is below flit_bytes ({flit_bytes}): a line is at least one flit")));
        }
        let clock_ghz = n.opt_number("clock_ghz", &limits::NOC_CLOCK_GHZ)?.unwrap_or(DEFAULT_CLOCK_GHZ);
        let memory_controllers = match n.opt_index_list("memory_controllers")? {
            None => Interconnect::default_memory_controllers(width, height),
            Some(list) => {
                let nodes = width as usize * height as usize;
                if list.is_empty() {
                    return Err(n.err("memory_controllers", "an empty list: give at least one node id (or leave the key out for Table 2's placement)"));
                }
                if let Some(&bad) = list.iter().find(|&&id| id >= nodes) {
                    return Err(n.err("memory_controllers", format!("node {bad} does not exist (the mesh has nodes 0 to {})", nodes - 1)));
                }
                let mut sorted = list.clone();
                sorted.sort_unstable();
                if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                    return Err(n.err("memory_controllers", format!("node {} is listed twice", w[0])));
                }
                sorted.into_iter().map(|id| id as u16).collect()
            }
        };
        let arbitration = match n.opt_str("arbitration")? {
            None => Arbitration::RoundRobin,
            Some(s) => Arbitration::parse(&s).ok_or_else(|| n.err("arbitration", format!("'{s}' is not \"round_robin\" or \"ocor\"")))?,
        };
        let priority_levels = read_u32(n, "priority_levels", &limits::PRIORITY_LEVELS)?.unwrap_or(DEFAULT_PRIORITY_LEVELS);
        let progress_levels = read_u32(n, "progress_levels", &limits::PROGRESS_LEVELS)?.unwrap_or(DEFAULT_PROGRESS_LEVELS);
        Ok(Interconnect {
            width,
            height,
            router_stages,
            link_cycles,
            vcs,
            vc_buffer_flits,
            flit_bytes,
            line_bytes,
            clock_ghz,
            memory_controllers,
            arbitration,
            priority_levels,
            progress_levels,
        })
    }

    /// Apply a run option `key=value` of a machine configuration (`MACHINE:arbitration=ocor`,
    /// `MACHINE:priority_levels=4`). `Ok(false)`: not an interconnect option. Err: what is
    /// wrong with the value, one line.
    pub fn apply_option(&mut self, key: &str, value: &str) -> std::result::Result<bool, String> {
        match key {
            "arbitration" => {
                self.arbitration = Arbitration::parse(value).ok_or_else(|| format!("arbitration={value}: not round_robin or ocor"))?;
                Ok(true)
            }
            "priority_levels" => {
                self.priority_levels = parse_bounded(key, value, &limits::PRIORITY_LEVELS)?;
                Ok(true)
            }
            "progress_levels" => {
                self.progress_levels = parse_bounded(key, value, &limits::PROGRESS_LEVELS)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// The run options `apply_option` knows, for messages.
pub const OPTION_KEYS: &[&str] = &["arbitration", "priority_levels", "progress_levels"];

fn parse_bounded(key: &str, value: &str, bounds: &limits::Bounds) -> std::result::Result<u32, String> {
    let n: u32 = value.trim().parse().map_err(|_| format!("{key}={value}: not a whole number"))?;
    if !bounds.contains(n as f64) {
        return Err(format!("{key}={value}: must be {}", bounds.describe()));
    }
    Ok(n)
}

/// A whole number within `bounds` (documented in `limits`).
fn read_u32(n: &mut Node, key: &'static str, bounds: &limits::Bounds) -> Result<Option<u32>> {
    match n.opt_int(key)? {
        None => Ok(None),
        Some(i) if i >= 0 && bounds.contains(i as f64) => Ok(Some(i as u32)),
        Some(i) => Err(n.err(key, format!("must be a whole number {}, got {i}", bounds.describe()))),
    }
}
