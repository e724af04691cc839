//! Nice values and CFS load weights, as Linux has them: the simulator's local scheduler weighs
//! threads with this table, and the live agent turns a weight decision into the nice value of
//! nearest weight with it.

/// Linux's sched_prio_to_weight (kernel/sched/core.c): nice -20..=19 to load weight; nice 0 = 1024.
const NICE_TO_WEIGHT: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423,
    335, 272, 215, 172, 137, 110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
];

/// The CFS weight of a nice value (clamped to -20..=19).
pub fn weight_of_nice(nice: i32) -> u32 {
    NICE_TO_WEIGHT[(nice.clamp(-20, 19) + 20) as usize]
}
