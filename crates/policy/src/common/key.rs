//! A real number as an ordered key (`f64::total_cmp`), so that the ordered sets policies keep
//! (`Filing`, `Partitions`) and a comparison of the numbers themselves never disagree: rr's
//! balance counters, IPC-Driven's ratios.

use std::cmp::Ordering;

use super::partition::Claim;

#[derive(Debug, Clone, Copy, Default)]
pub struct F64Key(pub f64);

impl Ord for F64Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}
impl PartialOrd for F64Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for F64Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for F64Key {}

/// A number as a claim on a faster partition: the higher, the stronger.
impl Claim for F64Key {}
