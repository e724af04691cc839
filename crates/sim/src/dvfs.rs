//! Core-type frequencies a policy sets (DVFS), and each core's busy time per frequency level
//! for energy.
//!
//! The engine runs on its own copy of the machine whose core types carry their current
//! frequency, so the performance model, cycle counts and capacity-free topology all read one
//! place. Busy time is split by level lazily, when a type changes level and at the end, so the
//! per-event accounting does not pay for it.

use ampsched_model::Machine;

#[derive(Debug, Clone)]
pub struct Dvfs {
    /// The machine at its current frequencies.
    pub machine: Machine,
    /// Per core type: its current level (index into `freq_levels_ghz`).
    level: Vec<usize>,
    /// Per core: busy ns at each level of its type, up to `counted`.
    level_busy: Vec<Vec<u64>>,
    /// Per core: the busy ns already split into `level_busy`.
    counted: Vec<u64>,
    /// Counts frequency changes (wrapping): a time per instruction computed in another epoch
    /// may be stale.
    pub epoch: u32,
}

impl Dvfs {
    /// Every type at its start frequency (`start_freq_ghz`: its nominal, highest level unless
    /// the machine says otherwise).
    pub fn new(m: &Machine) -> Dvfs {
        let mut machine = m.clone();
        for t in &mut machine.core_types {
            t.freq_ghz = t.start_freq_ghz;
        }
        Dvfs {
            machine,
            level: m.core_types.iter().map(|t| t.freq_levels_ghz.iter().position(|&l| l == t.start_freq_ghz).expect("a validated start level")).collect(),
            level_busy: m.cores.iter().map(|c| vec![0; m.core_types[c.core_type].freq_levels_ghz.len()]).collect(),
            counted: vec![0; m.cores.len()],
            epoch: 0,
        }
    }

    /// Credit core `c`'s busy time since the last split to its type's current level.
    pub fn split_busy(&mut self, c: usize, busy_ns: u64) {
        let level = self.level[self.machine.cores[c].core_type];
        self.level_busy[c][level] += busy_ns - self.counted[c];
        self.counted[c] = busy_ns;
    }

    /// Set core type `ty` to `ghz`, one of its levels (the placement was validated); false if
    /// it already runs at it. The caller splits the busy time of its cores first.
    pub fn set(&mut self, ty: usize, ghz: f64) -> bool {
        let t = &mut self.machine.core_types[ty];
        let level = t.freq_levels_ghz.iter().position(|&l| l == ghz).expect("a validated frequency level");
        if level == self.level[ty] {
            return false;
        }
        t.freq_ghz = ghz;
        self.level[ty] = level;
        self.epoch = self.epoch.wrapping_add(1);
        true
    }

    /// What a busy core `c` draws above its idle power now, W: its type's current level's active power less the idle.
    pub fn above_idle_w(&self, c: usize) -> f64 {
        let ty = self.machine.cores[c].core_type;
        let t = &self.machine.core_types[ty];
        t.power_levels_w[self.level[ty]] - t.power_idle_w
    }

    /// Core `c`'s busy ns per level (index = its type's `freq_levels_ghz`), once split.
    pub fn busy_by_level(&self, c: usize) -> &[u64] {
        &self.level_busy[c]
    }
}
