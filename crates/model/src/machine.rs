//! The machine: core types, cores, last-level-cache domains, memory (NUMA) nodes, migration
//! cost, power.
//!
//! Cores are numbered in the order their types are listed. Capacity follows the Linux
//! convention (Documentation/scheduler/sched-capacity.rst): 1024 is the fastest core, and
//! the others are scaled by their peak instruction rate, `freq_ghz / cpi_scale`.
//!
//! Two capacities, two questions. `CoreType::true_capacity` is that peak rate, always: what the
//! hardware does, which the engine's speeds and a run's metrics (slowdown references, "fast"
//! time) follow (`true_fastest_type`, `is_truly_fast_type`). `CoreType::capacity` is what the
//! OS reports (Linux's sysfs `cpu_capacity`): the same number unless the type gives `capacity`,
//! as a firmware table that sorts the cores wrongly or a hybrid chip reporting 1024 everywhere
//! does; policies read it (`fastest_type`, `is_fast_type`, `fast_cores`), so such a machine
//! misleads them as it misleads Linux. Without a `capacity` key the two are equal.
//!
//! SMT (docs/smt.md): a core type's `count` is its hardware threads (logical CPUs, "cores" here
//! as everywhere in the model); with `smt = 2` each consecutive pair of its cores is one physical
//! core (`Core::smt_core`, `Machine::smt_siblings`), and a busy thread runs at
//! `smt_sibling_speed` times its speed alone while its sibling is busy too (`ampsched_sim`'s
//! `smt`).

use crate::coreset::CoreSet;
use crate::error::Result;
use crate::interconnect::Interconnect;
use crate::limits;
use crate::toml_read::{parse, Node};

/// The most cores a machine may have: what a `CoreSet` can hold (why so many, see there).
pub const MAX_CORES: usize = CoreSet::CAPACITY;
/// The most core types a machine may have; per-thread counters are kept per type in a fixed array.
pub const MAX_CORE_TYPES: usize = 4;
/// Linux's SCHED_CAPACITY_SCALE.
pub const CAPACITY_SCALE: u32 = 1024;

#[derive(Debug, Clone, PartialEq)]
pub struct CoreType {
    pub name: String,
    pub count: usize,
    /// The nominal (highest) frequency: what capacity, solo references and the default run use.
    pub freq_ghz: f64,
    /// The frequencies a policy may set this type to (DVFS levels), ascending, `freq_ghz` last.
    /// A type that declares none has the one level `freq_ghz`.
    pub freq_levels_ghz: Vec<f64>,
    /// Active power at each level, W (index = `freq_levels_ghz`); the last is `power_active_w`.
    pub power_levels_w: Vec<f64>,
    /// The level the type runs at when a run starts (one of `freq_levels_ghz`; default
    /// `freq_ghz`). Capacity, and so what a policy believes about the type, stays `freq_ghz`:
    /// a lower start is the Sáez thesis's way of measuring migration overhead (§5.2.4: "all
    /// cores slow while the scheduler believes some are fast").
    pub start_freq_ghz: f64,
    /// Multiplies a thread's CPI on this core type: 1.0 for the reference big core, > 1 for a simpler core.
    pub cpi_scale: f64,
    /// The microarchitecture (`uarch = "cortex-a15"`): a phase's `cpi` table may give its CPI
    /// on it, which then replaces `cpi × cpi_scale` here (`workload::UarchCpi`).
    pub uarch: Option<String>,
    /// How many LLC misses the core keeps outstanding at once (`max_mlp`, default 1: an
    /// in-order core, which stalls on each); a phase's misses overlap min(its `mlp`, this) at a
    /// time (`perf`).
    pub max_mlp: f64,
    pub power_active_w: f64,
    pub power_idle_w: f64,
    /// The type gives a power (`power_active_w`, `power_idle_w`, `power_levels_w`): without one
    /// its powers are 0 by default, not measured, and a run reports no energy
    /// (`Machine::models_energy`).
    pub power_given: bool,
    /// The capacity the OS reports for the type (Linux's sysfs `cpu_capacity`), what policies
    /// read: `true_capacity` unless the file gives `capacity` (`capacity_given`).
    pub capacity: u32,
    /// The file gave `capacity`: the OS reports it whatever the peak rates are (kept as given when
    /// cores go offline, as Linux normalises its capacities once, at boot).
    pub capacity_given: bool,
    /// Linux-style capacity from the peak instruction rate, `freq_ghz / cpi_scale`, 1024 for the
    /// fastest type: the truth, which the engine and a run's metrics follow. A policy reads
    /// `capacity`, never this: it would know what the OS cannot.
    pub true_capacity: u32,
    /// Hardware threads per physical core: 1 (no SMT) or 2 (`limits::MAX_SMT`). `count` counts
    /// hardware threads, a multiple of this; siblings are consecutive cores of the type.
    pub smt: usize,
    /// Each busy hardware thread's speed while its sibling is busy too, relative to running alone
    /// on the core (0.5: SMT gains nothing; 1: it doubles the core's throughput). 1 when `smt` = 1.
    pub smt_sibling_speed: f64,
    /// The power rail the type's cores draw from (index into `Machine::rails`).
    pub rail: usize,
}

/// A power rail, as a board's current sensor measures it (the Odroid-XU3's INA231s: one each
/// for the A15 cluster, the A7 cluster, the GPU and the DRAM). A core rail feeds the core types
/// that name it (`rail = "a15"`): their cores' active and idle power plus `static_w` while any
/// of its cores is online. The memory rail (`memory = true`) draws `static_w` throughout plus
/// `pj_per_byte` for each byte the LLC misses move. A machine without `[[rail]]` has one rail
/// per core type, named after it, with no static power, and no memory rail. docs/power.md.
#[derive(Debug, Clone, PartialEq)]
pub struct Rail {
    pub name: String,
    pub static_w: f64,
    pub memory: bool,
    pub pj_per_byte: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Core {
    pub id: usize,
    pub core_type: usize,
    /// The Linux CPU number this core is on a real machine (the live agent's mapping). Defaults
    /// to `id`; a `[[core_type]]` may list its `cpus`, since Linux does not number CPUs by type
    /// (an Exynos 5422 has its little cores at 0-3, an Intel hybrid its E-cores last).
    pub cpu: usize,
    /// Index of the last-level-cache domain the core belongs to.
    pub llc: usize,
    /// Index of the memory (NUMA) node the core belongs to (0 on a machine without `[[numa]]`).
    pub node: usize,
    /// The machine-wide index of the physical core this hardware thread is on (cores of a type
    /// with `smt` = 1 have one each; `Machine::smt_siblings`).
    pub smt_core: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Llc {
    pub size_kb: Option<f64>,
    pub cores: CoreSet,
}

/// What a migration costs the migrated thread, in time it occupies its new core without
/// progress, besides refilling the LLC when it leaves its domain (which depends on the thread:
/// see `cache`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MigrationCost {
    /// Paid on every migration (context transfer, cold private caches).
    pub fixed_ns: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    pub name: String,
    pub description: String,
    pub source: String,
    /// Latency of an LLC miss served by the thread's own memory node.
    pub memory_latency_ns: f64,
    /// Latency of a miss served by another node (= `memory_latency_ns` without `[[numa]]`).
    pub remote_memory_latency_ns: f64,
    pub numa_nodes: usize,
    pub core_types: Vec<CoreType>,
    pub cores: Vec<Core>,
    pub llcs: Vec<Llc>,
    pub migration: MigrationCost,
    /// The memory controllers' bandwidth (`[memory]`), one controller per memory node; None:
    /// not modelled, a miss costs its latency whatever the demand (docs/memory-bandwidth.md).
    pub memory_bandwidth: Option<MemoryBandwidth>,
    /// The time from a contended lock's release to its waiter running, when the waiter was
    /// blocked in the kernel (a futex wait): the futex wake, the scheduler's wake-up path and an
    /// idle core's exit from its idle state, during which the lock is the waiter's and idle (a
    /// FIFO hand-off). A spinning waiter takes the lock at once. 0 (the default) does not model
    /// it, as before this key. Measured on Linux, a sleeping thread's wake-up to run is a few µs
    /// on an idle PREEMPT_RT kernel to tens of µs on a standard one (rt-tests' cyclictest;
    /// schbench's wake-up latency percentiles, kernel.org schbench).
    pub lock_wake_ns: u64,
    /// The power rails (`Rail`): every core type's `rail` indexes here.
    pub rails: Vec<Rail>,
    /// The file gave `[[rail]]` tables (else `rails` is one per core type): a run's result then
    /// reports each rail's energy and the mean power.
    pub has_rails: bool,
    /// The on-chip network (`[interconnect]`, docs/noc.md); None: no network, as every machine
    /// before it, and a run is what it always was.
    pub interconnect: Option<Interconnect>,
}

/// What a memory controller can serve (`[memory]`): every memory node has one, of this peak
/// bandwidth, and each LLC miss moves one line through the controller of the node that holds
/// the thread's memory. The engine's queueing model of it is in `ampsched_sim`'s `memory`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryBandwidth {
    /// Peak bandwidth of each controller, GB/s (10^9 bytes per second, so bytes per ns).
    pub bandwidth_gbps: f64,
    /// Bytes one miss moves: the LLC's line.
    pub line_bytes: f64,
}

impl MemoryBandwidth {
    /// The time a controller takes to move one line, ns: the service time of its queue.
    pub fn service_ns(&self) -> f64 {
        self.line_bytes / self.bandwidth_gbps
    }
}

/// The bytes a miss moves when `[memory]` does not say: the 64-byte line of x86 cores (AMD
/// since the K7, Intel since the Core microarchitecture) and of the ARM Cortex-A15/A7 (Arm,
/// Cortex-A15 and Cortex-A7 MPCore Technical Reference Manuals, L2 memory system).
pub const DEFAULT_LINE_BYTES: f64 = 64.0;

/// The fixed migration cost when a machine file gives none. A migration in the thesis (Sáez,
/// ch. 5, migration-overhead experiments) costs tens of microseconds of direct work plus the
/// refill of the caches left behind; we charge 20 µs, a parameter of the machine file. The LLC
/// refill comes on top, from the thread's own footprint.
pub const DEFAULT_MIGRATION_FIXED_US: f64 = 20.0;

impl Machine {
    /// Read a machine from TOML text. `source` names the file in error messages.
    pub fn from_toml(source: &str, text: &str) -> Result<Machine> {
        let table = parse(source, text)?;
        let mut root = Node::root(source, &table);
        let name = root.opt_str("name")?.unwrap_or_else(|| default_name(source));
        let description = root.opt_str("description")?.unwrap_or_default();
        let src = root.opt_str("source")?.unwrap_or_default();
        let memory_latency_ns = root.number("memory_latency_ns", &limits::MEMORY_LATENCY_NS)?;
        let remote_latency = root.opt_number("remote_memory_latency_ns", &limits::MEMORY_LATENCY_NS)?;
        let lock_wake_ns = us_to_ns(root.opt_number("lock_wake_us", &limits::LOCK_WAKE_US)?.unwrap_or(0.0));

        let mut core_types = Vec::new();
        let type_nodes = root.tables("core_type")?;
        if type_nodes.is_empty() {
            return Err(root.err("core_type", "a machine needs at least one [[core_type]]"));
        }
        if type_nodes.len() > MAX_CORE_TYPES {
            return Err(root.err("core_type", format!("at most {MAX_CORE_TYPES} core types are supported")));
        }
        let mut type_cpus: Vec<Option<Vec<usize>>> = Vec::new();
        let mut rail_names: Vec<Option<String>> = Vec::new();
        let mut total = 0usize;
        for mut n in type_nodes {
            let cpus = n.opt_index_list("cpus")?;
            rail_names.push(n.opt_str("rail")?);
            let name = n.str("name")?;
            let count = n.count("count", MAX_CORES as u64)? as usize;
            // Checked before any per-core table is built, so a huge count is an error, not an allocation.
            total += count;
            if total > MAX_CORES {
                return Err(n.err("count", format!("brings the machine to {total} cores; at most {MAX_CORES} are supported")));
            }
            let freq_ghz = n.number("freq_ghz", &limits::FREQ_GHZ)?;
            let cpi_scale = n.opt_number("cpi_scale", &limits::CPI_SCALE)?.unwrap_or(1.0);
            let uarch = read_uarch(&mut n)?;
            let max_mlp = n.opt_number("max_mlp", &limits::CORE_MLP)?.unwrap_or(1.0);
            let power_given = ["power_active_w", "power_idle_w", "power_levels_w"].iter().any(|k| n.has(k));
            let power_active_w = n.opt_number("power_active_w", &limits::POWER_W)?.unwrap_or(0.0);
            let power_idle_w = n.opt_number("power_idle_w", &limits::POWER_W)?.unwrap_or(0.0);
            let (freq_levels_ghz, power_levels_w) = read_levels(&mut n, freq_ghz, power_active_w, power_idle_w)?;
            let start_freq_ghz = n.opt_number("start_freq_ghz", &limits::FREQ_GHZ)?.unwrap_or(freq_ghz);
            if !freq_levels_ghz.contains(&start_freq_ghz) {
                return Err(n.err("start_freq_ghz", format!("must be one of the type's levels {freq_levels_ghz:?}")));
            }
            let (smt, smt_sibling_speed) = read_smt(&mut n, count)?;
            let reported = n.opt_count("capacity", limits::MAX_REPORTED_CAPACITY)?;
            let ct = CoreType {
                name,
                count,
                freq_ghz,
                freq_levels_ghz,
                power_levels_w,
                start_freq_ghz,
                cpi_scale,
                uarch,
                max_mlp,
                power_active_w,
                power_idle_w,
                power_given,
                capacity: reported.unwrap_or(0),
                capacity_given: reported.is_some(),
                true_capacity: 0,
                smt,
                smt_sibling_speed,
                rail: 0,
            };
            if core_types.iter().any(|t: &CoreType| t.name == ct.name) {
                return Err(n.err("name", format!("duplicate core type name '{}'", ct.name)));
            }
            if let Some(list) = &cpus {
                if list.len() != ct.count {
                    return Err(n.err("cpus", format!("lists {} CPUs but count = {}", list.len(), ct.count)));
                }
            }
            n.finish()?;
            core_types.push(ct);
            type_cpus.push(cpus);
        }

        let mut cores = Vec::new();
        for (t, ct) in core_types.iter().enumerate() {
            for i in 0..ct.count {
                let id = cores.len();
                let cpu = type_cpus[t].as_ref().map_or(id, |l| l[i]);
                cores.push(Core { id, core_type: t, cpu, llc: usize::MAX, node: 0, smt_core: 0 });
            }
        }
        assign_smt_cores(&core_types, &mut cores);
        let mut seen = std::collections::BTreeSet::new();
        if let Some(dup) = cores.iter().find(|c| !seen.insert(c.cpu)) {
            return Err(root.err("core_type", format!("CPU {} is given to two cores (check the `cpus` lists)", dup.cpu)));
        }

        let mut llcs = Vec::new();
        let mut llc_of = vec![usize::MAX; cores.len()];
        for mut n in root.tables("llc")? {
            let size_kb = n.opt_number("size_kb", &limits::LLC_SIZE_KB)?;
            let set = read_domain(&mut n, &mut llc_of, llcs.len(), "[[llc]] domain")?;
            n.finish()?;
            llcs.push(Llc { size_kb, cores: set });
        }
        // A core listed in no domain has a private last-level cache, its SMT sibling's if that
        // is not listed either (the threads of a physical core share its caches).
        let mut private_of_smt_core = vec![usize::MAX; cores.last().map_or(0, |c| c.smt_core + 1)];
        for (c, core) in cores.iter_mut().enumerate() {
            if llc_of[c] == usize::MAX {
                let private = &mut private_of_smt_core[core.smt_core];
                if *private == usize::MAX {
                    *private = llcs.len();
                    llcs.push(Llc { size_kb: None, cores: CoreSet::EMPTY });
                }
                llc_of[c] = *private;
                llcs[*private].cores.insert(c);
            }
            core.llc = llc_of[c];
        }

        // Memory nodes: every core in exactly one, or none given (uniform memory).
        let numa = root.tables("numa")?;
        let numa_nodes = numa.len().max(1);
        if !numa.is_empty() {
            let mut node_of = vec![usize::MAX; cores.len()];
            for (i, mut n) in numa.into_iter().enumerate() {
                read_domain(&mut n, &mut node_of, i, "[[numa]] node")?;
                n.finish()?;
            }
            if let Some(c) = node_of.iter().position(|&x| x == usize::MAX) {
                return Err(root.err("numa", format!("core {c} is in no [[numa]] node (list every core in one)")));
            }
            for (core, node) in cores.iter_mut().zip(node_of) {
                core.node = node;
            }
        }
        let remote_memory_latency_ns = match (numa_nodes > 1, remote_latency) {
            (true, None) => return Err(root.err("remote_memory_latency_ns", "missing required key (the machine has [[numa]] nodes)")),
            (true, Some(r)) if r < memory_latency_ns => {
                return Err(root.err("remote_memory_latency_ns", format!("{r} is below memory_latency_ns ({memory_latency_ns}): remote memory is not faster")))
            }
            (true, Some(r)) => r,
            (false, Some(_)) => return Err(root.err("remote_memory_latency_ns", "only meaningful with [[numa]] nodes")),
            (false, None) => memory_latency_ns,
        };

        let mut migration = MigrationCost { fixed_ns: us_to_ns(DEFAULT_MIGRATION_FIXED_US) };
        if let Some(mut n) = root.opt_table("migration")? {
            if let Some(us) = n.opt_number("cost_us", &limits::MIGRATION_COST_US)? {
                migration.fixed_ns = us_to_ns(us);
            }
            if n.has("llc_refill_us") {
                return Err(n.err(
                    "llc_refill_us",
                    "no longer a machine key: an LLC refill now costs each thread its own footprint (a phase's footprint_kb or miss_curve)",
                ));
            }
            n.finish()?;
        }
        let memory_bandwidth = read_memory(&mut root)?;
        let has_rails = root.has("rail");
        let rails = read_rails(&mut root, &mut core_types, &rail_names)?;
        let interconnect = match root.opt_table("interconnect")? {
            None => None,
            Some(mut n) => {
                let ic = Interconnect::read(&mut n, cores.len())?;
                n.finish()?;
                Some(ic)
            }
        };
        root.finish()?;

        let mut m = Machine {
            name,
            description,
            source: src,
            memory_latency_ns,
            remote_memory_latency_ns,
            numa_nodes,
            core_types,
            cores,
            llcs,
            migration,
            memory_bandwidth,
            lock_wake_ns,
            rails,
            has_rails,
            interconnect,
        };
        m.derive_capacities();
        m.check_smt_domains(source)?;
        Ok(m)
    }

    /// Each type's `true_capacity` from its peak rate, and its reported `capacity` the same
    /// unless the file gave one.
    fn derive_capacities(&mut self) {
        let peak = |t: &CoreType| t.freq_ghz / t.cpi_scale;
        let max = self.core_types.iter().map(peak).fold(0.0, f64::max);
        for t in &mut self.core_types {
            t.true_capacity = ((peak(t) / max) * CAPACITY_SCALE as f64).round().max(1.0) as u32;
            if !t.capacity_given {
                t.capacity = t.true_capacity;
            }
        }
    }

    /// Siblings share a physical core, so its caches and memory node: a file whose `[[llc]]` or
    /// `[[numa]]` tables part them is refused.
    fn check_smt_domains(&self, source: &str) -> Result<()> {
        for c in &self.cores {
            for s in self.smt_siblings(c.id).iter().filter(|&s| s > c.id) {
                let (key, what) = if self.cores[s].llc != c.llc {
                    ("llc", "[[llc]] domains")
                } else if self.cores[s].node != c.node {
                    ("numa", "[[numa]] nodes")
                } else {
                    continue;
                };
                let msg = format!("cores {} and {s} are SMT siblings (one physical core) but in different {what}", c.id);
                return Err(crate::InputError::new(source, key, msg));
            }
        }
        Ok(())
    }

    /// Whether a run on this machine can report energy: every core type gives a power. A type
    /// without one would count as drawing 0 W, and the run's energy would look measured while
    /// it left that type out; then energy, EDP and energy per instruction are not modelled
    /// (null in a run's JSON, "not modelled" in its tables).
    pub fn models_energy(&self) -> bool {
        self.core_types.iter().all(|t| t.power_given)
    }

    /// An all-fast machine with the same number of cores: the reference for slowdowns. Fast is
    /// the truly fastest type (peak rate), not what the OS reports: a metric measures the hardware.
    pub fn all_fast(&self) -> Machine {
        self.all_of_type(self.true_fastest_type())
    }

    /// The same machine (cores, LLC domains, memory) with every core of type `ty`: where an
    /// offline profiling run measures a program on that type alone.
    pub fn all_of_type(&self, ty: usize) -> Machine {
        let only = &self.core_types[ty];
        let mut m = self.clone();
        m.name = format!("{}-all-{}", self.name, only.name);
        m.core_types = vec![CoreType { count: self.cores.len(), ..only.clone() }];
        for c in &mut m.cores {
            c.core_type = 0;
        }
        // The chip's physical cores stay as they are when the type has SMT (a type without it
        // would have no pair: the chip's other cores keep theirs alone); without, every hardware
        // thread is a core of its own.
        if only.smt == 1 {
            for c in &mut m.cores {
                c.smt_core = c.id;
            }
        }
        m
    }

    /// The machine with only `online[t]` cores of each type `t` online: the lowest-numbered
    /// cores of each type, renumbered in the same order; their Linux CPUs, LLC domains (a domain
    /// left without cores is dropped), memory nodes and the machine's memory kept. A type with no
    /// core online is gone from the machine, as a hotplugged-off cluster (its power rail stays
    /// and draws nothing). True capacities are derived again (1024 is the fastest type online);
    /// a reported capacity the file gave is kept, as Linux normalises its capacities once, at
    /// boot. SMT pairs stay pairs; a thread whose sibling is offline is alone on its core.
    /// `online` gives one count per type, each at most the type's count, not all 0
    /// (`parse_online` checks a user's text).
    pub fn with_online(&self, online: &[usize], name: String) -> Machine {
        assert!(online.len() == self.core_types.len() && online.iter().zip(&self.core_types).all(|(&n, t)| n <= t.count) && online.iter().any(|&n| n > 0));
        let mut type_map = vec![usize::MAX; self.core_types.len()];
        let mut core_types = Vec::new();
        for (t, ct) in self.core_types.iter().enumerate() {
            if online[t] > 0 {
                type_map[t] = core_types.len();
                core_types.push(CoreType { count: online[t], ..ct.clone() });
            }
        }
        let mut seen = vec![0usize; self.core_types.len()];
        let mut llc_map = vec![usize::MAX; self.llcs.len()];
        let (mut cores, mut llcs) = (Vec::new(), Vec::new());
        for c in &self.cores {
            let t = c.core_type;
            if seen[t] == online[t] {
                continue;
            }
            seen[t] += 1;
            if llc_map[c.llc] == usize::MAX {
                llc_map[c.llc] = llcs.len();
                llcs.push(Llc { size_kb: self.llcs[c.llc].size_kb, cores: CoreSet::EMPTY });
            }
            let id = cores.len();
            llcs[llc_map[c.llc]].cores.insert(id);
            cores.push(Core { id, core_type: type_map[t], cpu: c.cpu, llc: llc_map[c.llc], node: c.node, smt_core: 0 });
        }
        let mut m = Machine { name, core_types, cores, llcs, ..self.clone() };
        m.derive_capacities();
        // The lowest-numbered cores of each type stay online, so the pairs are the same pairs.
        assign_smt_cores(&m.core_types, &mut m.cores);
        m
    }

    /// The network options of a machine configuration's text (`arbitration=ocor`,
    /// `priority_levels=4`, `progress_levels=2`: `Interconnect::apply_option`) applied to a copy
    /// of the machine, and the rest of the text (its `TYPE=N` parts, for `parse_online`; None
    /// when every part was a network option). Err: what is wrong, one line; a network option on a machine without
    /// `[interconnect]` is one.
    pub fn with_network_options(&self, spec: &str) -> std::result::Result<(Machine, Option<String>), String> {
        let mut m = self.clone();
        let mut rest: Vec<&str> = Vec::new();
        for part in spec.split(':') {
            let Some((key, value)) = part.split_once('=') else {
                rest.push(part);
                continue;
            };
            let key = key.trim();
            if !crate::interconnect::OPTION_KEYS.contains(&key) {
                rest.push(part);
                continue;
            }
            let Some(ic) = m.interconnect.as_mut() else {
                return Err(format!("{key}={}: the machine has no [interconnect], so no network to set", value.trim()));
            };
            ic.apply_option(key, value.trim())?;
        }
        Ok((m, (!rest.is_empty()).then(|| rest.join(":"))))
    }

    /// The counts per core type of a machine configuration's text `big=4:little=1` (what follows
    /// the machine's name in `exynos5422:big=4:little=1`): each named type has that many cores
    /// online, a type not named keeps all of its cores. Err: what is wrong, one line.
    pub fn parse_online(&self, spec: &str) -> std::result::Result<Vec<usize>, String> {
        let mut online: Vec<Option<usize>> = vec![None; self.core_types.len()];
        let types = || self.core_types.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ");
        for part in spec.split(':') {
            let Some((name, count)) = part.split_once('=') else {
                return Err(format!("'{part}' is not TYPE=COUNT (e.g. big=2:little=2; this machine's core types: {})", types()));
            };
            let (name, count) = (name.trim(), count.trim());
            let t = self
                .core_types
                .iter()
                .position(|t| t.name == name)
                .ok_or_else(|| format!("no core type '{name}' in this machine (its core types: {})", types()))?;
            let n: usize = count.parse().map_err(|_| format!("{name}={count}: the count is not a whole number"))?;
            if n > self.core_types[t].count {
                return Err(format!("{name}={n}: the machine has {} {name} cores", self.core_types[t].count));
            }
            if online[t].replace(n).is_some() {
                return Err(format!("{name} is given twice"));
            }
        }
        let online: Vec<usize> = online.iter().zip(&self.core_types).map(|(n, t)| n.unwrap_or(t.count)).collect();
        if online.iter().all(|&n| n == 0) {
            return Err("no core online: at least one core type needs a count of 1 or more".into());
        }
        Ok(online)
    }

    pub fn num_cores(&self) -> usize {
        self.cores.len()
    }

    pub fn all_cores(&self) -> CoreSet {
        CoreSet::first_n(self.cores.len())
    }

    /// The type with the highest reported capacity (the first listed, on a tie): the type the
    /// OS believes fastest, what policies ask. The engine and metrics ask `true_fastest_type`.
    pub fn fastest_type(&self) -> usize {
        highest(&self.core_types, |t| t.capacity)
    }

    /// The type with the highest peak rate (`true_capacity`; the first listed, on a tie).
    pub fn true_fastest_type(&self) -> usize {
        highest(&self.core_types, |t| t.true_capacity)
    }

    /// The hardware threads of `core`'s physical core, `core` included (itself alone without SMT).
    pub fn smt_siblings(&self, core: usize) -> CoreSet {
        let p = self.cores[core].smt_core;
        CoreSet::from_cores(self.cores.iter().filter(|c| c.smt_core == p).map(|c| c.id))
    }

    /// Whether some physical core has two hardware threads.
    pub fn has_smt(&self) -> bool {
        self.cores.windows(2).any(|w| w[0].smt_core == w[1].smt_core)
    }

    /// The number of physical cores.
    pub fn num_smt_cores(&self) -> usize {
        self.cores.last().map_or(0, |c| c.smt_core + 1)
    }

    pub fn cores_of_type(&self, t: usize) -> CoreSet {
        let mut s = CoreSet::EMPTY;
        for c in self.cores.iter().filter(|c| c.core_type == t) {
            s.insert(c.id);
        }
        s
    }

    /// The one definition of a fast core type as the OS sees it: the highest reported capacity
    /// on the machine (several types may share it, e.g. two clusters of the same big core).
    /// Policies and the OS models (partitions, GTS, cluster switching) ask here.
    pub fn is_fast_type(&self, t: usize) -> bool {
        self.core_types[t].capacity == self.core_types[self.fastest_type()].capacity
    }

    /// The one definition of a fast core type as the hardware is: the highest peak rate. The
    /// engine's fast-time accounting and a run's metrics ask here. Equal to `is_fast_type` on a
    /// machine that gives no `capacity`.
    pub fn is_truly_fast_type(&self, t: usize) -> bool {
        self.core_types[t].true_capacity == self.core_types[self.true_fastest_type()].true_capacity
    }

    /// `is_fast_type` for every type, as a mask indexed by core type.
    pub fn fast_type_mask(&self) -> [bool; MAX_CORE_TYPES] {
        let mut mask = [false; MAX_CORE_TYPES];
        for t in 0..self.core_types.len() {
            mask[t] = self.is_fast_type(t);
        }
        mask
    }

    /// `is_truly_fast_type` for every type, as a mask indexed by core type.
    pub fn true_fast_type_mask(&self) -> [bool; MAX_CORE_TYPES] {
        let mut mask = [false; MAX_CORE_TYPES];
        for t in 0..self.core_types.len() {
            mask[t] = self.is_truly_fast_type(t);
        }
        mask
    }

    /// Cores of the highest capacity ("fast cores", FC), whatever their type, as the OS sees them.
    pub fn fast_cores(&self) -> CoreSet {
        CoreSet::from_cores(self.cores.iter().filter(|c| self.is_fast(c.id)).map(|c| c.id))
    }

    /// Cores of the highest peak rate, as the hardware is (`is_truly_fast_type`).
    pub fn true_fast_cores(&self) -> CoreSet {
        CoreSet::from_cores(self.cores.iter().filter(|c| self.is_truly_fast(c.id)).map(|c| c.id))
    }

    /// The distinct capacities of the machine, highest first, each with its cores: the thesis's
    /// core partitions (Sáez thesis, §2.3), one per kind of core.
    pub fn capacity_levels(&self) -> Vec<(u32, CoreSet)> {
        let mut caps: Vec<u32> = self.core_types.iter().map(|t| t.capacity).collect();
        caps.sort_unstable_by(|a, b| b.cmp(a));
        caps.dedup();
        caps.into_iter()
            .map(|cap| (cap, CoreSet::from_cores(self.cores.iter().filter(|c| self.core_types[c.core_type].capacity == cap).map(|c| c.id))))
            .collect()
    }

    /// All other cores ("slow cores", SC).
    pub fn slow_cores(&self) -> CoreSet {
        self.all_cores().difference(&self.fast_cores())
    }

    /// The LLC capacity a thread alone on a core of type `ty` gets: the size of the first such
    /// core's LLC domain. A domain without `size_kb` counts as unbounded (a miss curve is then
    /// read at its largest size); `check_llc_sizes` refuses that for workloads with curves.
    pub fn llc_size_kb_of_type(&self, ty: usize) -> f64 {
        let c = self.cores.iter().find(|c| c.core_type == ty).map_or(0, |c| c.id);
        self.llc_size_kb(c)
    }

    /// The size of core `c`'s LLC domain, unbounded if the machine does not say.
    pub fn llc_size_kb(&self, c: usize) -> f64 {
        self.llcs[self.cores[c].llc].size_kb.unwrap_or(f64::INFINITY)
    }

    /// A workload whose miss rates depend on the cache needs every LLC's size.
    pub fn check_llc_sizes(&self, file: &str, workload_has_curves: bool) -> Result<()> {
        if !workload_has_curves {
            return Ok(());
        }
        match self.llcs.iter().position(|l| l.size_kb.is_none()) {
            None => Ok(()),
            Some(i) => {
                let c = self.llcs[i].cores.first().unwrap_or(0);
                Err(crate::InputError::new(
                    file,
                    "llc",
                    format!("the LLC of core {c} has no size_kb, and the workload's miss curves need it (add an [[llc]] with size_kb)"),
                ))
            }
        }
    }

    pub fn is_fast(&self, core: usize) -> bool {
        self.is_fast_type(self.cores[core].core_type)
    }

    pub fn is_truly_fast(&self, core: usize) -> bool {
        self.is_truly_fast_type(self.cores[core].core_type)
    }

    pub fn core_type_of(&self, core: usize) -> &CoreType {
        &self.core_types[self.cores[core].core_type]
    }

    /// True when every core has the same capacity.
    pub fn is_symmetric(&self) -> bool {
        self.core_types.iter().all(|t| t.capacity == self.core_types[0].capacity)
    }

    /// The core on Linux CPU `cpu`, if the machine has one there.
    pub fn core_of_cpu(&self, cpu: usize) -> Option<usize> {
        self.cores.iter().find(|c| c.cpu == cpu).map(|c| c.id)
    }
}

/// Number the physical cores (`Core::smt_core`): each type's cores, in order, in groups of its
/// `smt` (a type left with a count that is not a multiple, by `Machine::with_online`, has its
/// last hardware thread alone on its core, as Linux leaves a core whose sibling is offline).
fn assign_smt_cores(types: &[CoreType], cores: &mut [Core]) {
    let mut next = 0;
    let mut in_type = vec![0usize; types.len()];
    let mut last = vec![usize::MAX; types.len()];
    for c in cores {
        let t = c.core_type;
        if in_type[t].is_multiple_of(types[t].smt) {
            last[t] = next;
            next += 1;
        }
        in_type[t] += 1;
        c.smt_core = last[t];
    }
}

/// The index of the first type whose `key` is highest.
fn highest(types: &[CoreType], key: impl Fn(&CoreType) -> u32) -> usize {
    let mut best = 0;
    for (i, t) in types.iter().enumerate() {
        if key(t) > key(&types[best]) {
            best = i;
        }
    }
    best
}

/// A core type's `smt` and `smt_sibling_speed`: two-way SMT needs the speed (no default: it is a
/// property of the core to cite) and an even `count` (hardware threads); without SMT the speed
/// is meaningless and refused.
fn read_smt(n: &mut Node, count: usize) -> Result<(usize, f64)> {
    let smt = n.opt_count("smt", limits::MAX_SMT)?.unwrap_or(1) as usize;
    let speed = n.opt_number("smt_sibling_speed", &limits::SMT_SIBLING_SPEED)?;
    match (smt, speed) {
        (1, Some(_)) => Err(n.err("smt_sibling_speed", "only meaningful with smt = 2 (the type has one hardware thread per core)")),
        (1, None) => Ok((1, 1.0)),
        (_, None) => Err(n.err("smt_sibling_speed", format!("missing required key (smt = {smt}: each busy sibling's speed, relative to alone)"))),
        (_, Some(_)) if !count.is_multiple_of(smt) => {
            Err(n.err("smt", format!("count = {count} is not a multiple of smt = {smt} (count gives hardware threads: {smt} per physical core)")))
        }
        (_, Some(s)) => Ok((smt, s)),
    }
}

/// Without per-level powers, a level's active power follows the cube of its frequency above the
/// idle power: dynamic power goes as f·V², and along a DVFS curve V scales about with f. A
/// machine that knows better lists `power_levels_w`.
pub const DVFS_POWER_EXPONENT: f64 = 3.0;

/// A core type's DVFS levels (`freq_levels_ghz`, optional `power_levels_w`); its nominal
/// frequency must be the highest level.
/// `uarch`: a short identifier (1 to `limits::MAX_UARCH_NAME` characters, not `default`, which a
/// `cpi` table reserves for the types it does not name).
fn read_uarch(n: &mut Node) -> Result<Option<String>> {
    let Some(u) = n.opt_str("uarch")? else { return Ok(None) };
    let max = limits::MAX_UARCH_NAME;
    if u.trim().is_empty() || u.chars().count() > max {
        return Err(n.err("uarch", format!("must be a name of 1 to {max} characters")));
    }
    if u == crate::workload::DEFAULT_UARCH_KEY {
        return Err(n.err("uarch", "'default' is reserved (a cpi table's entry for the core types it does not name)"));
    }
    Ok(Some(u))
}

fn read_levels(n: &mut Node, freq_ghz: f64, active_w: f64, idle_w: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let Some(levels) = n.opt_number_list("freq_levels_ghz", &limits::FREQ_GHZ)? else {
        if n.has("power_levels_w") {
            return Err(n.err("power_levels_w", "give freq_levels_ghz with it"));
        }
        return Ok((vec![freq_ghz], vec![active_w]));
    };
    if levels.windows(2).any(|w| w[0] >= w[1]) {
        return Err(n.err("freq_levels_ghz", "levels must be strictly ascending"));
    }
    if *levels.last().unwrap() != freq_ghz {
        return Err(n.err("freq_levels_ghz", format!("the highest level must be freq_ghz ({freq_ghz})")));
    }
    let powers = match n.opt_number_list("power_levels_w", &limits::POWER_W)? {
        Some(p) if p.len() != levels.len() => return Err(n.err("power_levels_w", format!("gives {} powers for {} levels", p.len(), levels.len()))),
        Some(p) if *p.last().unwrap() != active_w => return Err(n.err("power_levels_w", format!("the last power must be power_active_w ({active_w})"))),
        Some(p) => p,
        None => {
            let mut p: Vec<f64> = levels.iter().map(|f| idle_w + (active_w - idle_w).max(0.0) * (f / freq_ghz).powf(DVFS_POWER_EXPONENT)).collect();
            *p.last_mut().unwrap() = active_w; // exactly, not through the formula's rounding
            p
        }
    };
    Ok((levels, powers))
}

/// The `[[rail]]` tables, and each core type's `rail` (`rail_names`, in type order) as an index
/// into them; without rails, one per core type (`Rail`).
fn read_rails(root: &mut Node, types: &mut [CoreType], rail_names: &[Option<String>]) -> Result<Vec<Rail>> {
    let nodes = root.tables("rail")?;
    if nodes.is_empty() {
        if let Some(t) = rail_names.iter().position(Option::is_some) {
            return Err(root.err(&format!("core_type[{t}].rail"), "names a rail, but the machine has no [[rail]] tables"));
        }
        for (i, t) in types.iter_mut().enumerate() {
            t.rail = i;
        }
        return Ok(types.iter().map(|t| Rail { name: t.name.clone(), static_w: 0.0, memory: false, pj_per_byte: 0.0 }).collect());
    }
    let mut rails: Vec<Rail> = Vec::new();
    for mut n in nodes {
        let name = n.str("name")?;
        if rails.iter().any(|r| r.name == name) {
            return Err(n.err("name", format!("duplicate rail name '{name}'")));
        }
        let static_w = n.opt_number("static_w", &limits::RAIL_STATIC_W)?.unwrap_or(0.0);
        let memory = n.opt_bool("memory")?.unwrap_or(false);
        if memory && rails.iter().any(|r| r.memory) {
            return Err(n.err("memory", "a second memory rail: the machine's DRAM traffic is one rail's"));
        }
        let pj_per_byte = n.opt_number("pj_per_byte", &limits::PJ_PER_BYTE)?;
        if pj_per_byte.is_some() && !memory {
            return Err(n.err("pj_per_byte", "only the memory rail (memory = true) draws energy per byte of DRAM traffic"));
        }
        n.finish()?;
        rails.push(Rail { name, static_w, memory, pj_per_byte: pj_per_byte.unwrap_or(0.0) });
    }
    let names = || rails.iter().filter(|r| !r.memory).map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ");
    for (i, t) in types.iter_mut().enumerate() {
        let key = format!("core_type[{i}].rail");
        let Some(name) = &rail_names[i] else {
            return Err(root.err(&key, format!("missing: the machine has [[rail]] tables, so every core type names the rail it draws from ({})", names())));
        };
        match rails.iter().position(|r| &r.name == name) {
            Some(r) if rails[r].memory => return Err(root.err(&key, format!("'{name}' is the memory rail; a core type draws from a core rail ({})", names()))),
            Some(r) => t.rail = r,
            None => return Err(root.err(&key, format!("no [[rail]] named '{name}' (the core rails: {})", names()))),
        }
    }
    if let Some(r) = rails.iter().enumerate().position(|(r, rail)| !rail.memory && !types.iter().any(|t| t.rail == r)) {
        return Err(root.err(&format!("rail[{r}]"), format!("rail '{}' feeds no core type and is not the memory rail (memory = true)", rails[r].name)));
    }
    Ok(rails)
}

/// The `[memory]` table: the controllers' bandwidth (required there) and the line a miss moves.
fn read_memory(root: &mut Node) -> Result<Option<MemoryBandwidth>> {
    let Some(mut n) = root.opt_table("memory")? else { return Ok(None) };
    let bandwidth_gbps = n.number("bandwidth_gbps", &limits::MEMORY_BANDWIDTH_GBPS)?;
    let line_bytes = n.opt_number("line_bytes", &limits::LINE_BYTES)?.unwrap_or(DEFAULT_LINE_BYTES);
    n.finish()?;
    Ok(Some(MemoryBandwidth { bandwidth_gbps, line_bytes }))
}

/// Read a domain's `cores` into `owner` (core -> domain index), refusing a core that does not
/// exist or already has a domain of this kind.
fn read_domain(n: &mut Node, owner: &mut [usize], index: usize, kind: &str) -> Result<CoreSet> {
    let members = n.opt_index_list("cores")?.ok_or_else(|| n.err("cores", "missing required key"))?;
    let mut set = CoreSet::EMPTY;
    for c in members {
        if c >= owner.len() {
            return Err(n.err("cores", format!("core {c} does not exist (the machine has {} cores)", owner.len())));
        }
        if owner[c] != usize::MAX {
            return Err(n.err("cores", format!("core {c} is already in another {kind}")));
        }
        owner[c] = index;
        set.insert(c);
    }
    Ok(set)
}

fn us_to_ns(us: f64) -> u64 {
    (us * 1000.0).round() as u64
}

/// "catalog/machines/foo.toml" -> "foo".
pub fn default_name(source: &str) -> String {
    let base = source.rsplit('/').next().unwrap_or(source);
    base.strip_suffix(".toml").unwrap_or(base).to_string()
}
