//! The last-level cache as a program sees it: a miss curve (misses per thousand instructions as
//! a function of the LLC capacity it gets), the capacity it gets in a shared LLC, and what it
//! leaves behind when it migrates.
//!
//! **Miss curves.** The Sáez thesis's static signatures (§4.2.1, Table 4.1) are exactly this:
//! LLC misses per 4096 instructions for 11 sizes from 16 KB to 16 MB, estimated offline from
//! the program's reuse-distance profile. A curve here is a list of (size, mpki) points,
//! interpolated linearly in log2(size) (the points are powers of two in the thesis), flat
//! beyond both ends. A single `llc_mpki` is a flat curve: the same at every size.
//!
//! **Sharing.** Threads running in one LLC domain compete for it. The capacity each gets
//! follows the *frequency of access* (FOA) model of Chandra, Guo, Kim and Solihin, "Predicting
//! inter-thread cache contention on a chip multi-processor architecture" (HPCA 2005): under LRU
//! replacement a thread holds a share of the cache proportional to how often it accesses it.
//! Chosen over their more precise stack-distance models because it needs only what a curve
//! gives (no per-set access histograms), is closed-form (no fixed point: the access rates are
//! taken from each thread's solo run on the whole cache, as the paper's inputs are), and
//! reproduces the effect the thesis reports (§4.3.4): an aggressive co-runner with many
//! accesses (art, fma3d) takes most of the cache from a cache-sensitive one (twolf). A thread's
//! LLC access rate is its curve's value at the smallest size (every access misses a tiny
//! cache) divided by its solo time per instruction. A domain of one core gives its whole
//! capacity, so private LLCs behave as before.
//!
//! **Migration.** A thread that moves to another LLC domain leaves its cached working set
//! behind and refills it there: the lines of min(footprint, capacity it gets) that it would
//! have hit (the hit fraction its curve gives at that capacity), each a miss paid at its memory
//! latency. The footprint is the phase's `footprint_kb`, by default the smallest size at which
//! its curve reaches its floor. A flat curve earns no hits from any cache, so it refills
//! nothing: a streaming thread loses nothing it would have reused.

use crate::error::Result;
use crate::limits;
use crate::toml_read::Node;

/// Bytes per cache line, the unit of a refill (64 B on every machine in the catalog).
pub const CACHE_LINE_BYTES: f64 = 64.0;

/// LLC misses per thousand instructions as a function of capacity.
#[derive(Debug, Clone, PartialEq)]
pub struct MissCurve {
    /// (size in KB, mpki), sizes strictly increasing, mpki non-increasing. One point with any
    /// size is a flat curve.
    points: Vec<(f64, f64)>,
}

impl MissCurve {
    /// The same miss rate at every size.
    pub fn flat(mpki: f64) -> MissCurve {
        MissCurve { points: vec![(1.0, mpki)] }
    }

    pub fn is_flat(&self) -> bool {
        self.points.len() == 1
    }

    /// Misses per thousand instructions with `capacity_kb` of cache.
    pub fn mpki_at(&self, capacity_kb: f64) -> f64 {
        let p = &self.points;
        let (first, last) = (p[0], p[p.len() - 1]);
        if capacity_kb <= first.0 {
            return first.1;
        }
        if capacity_kb >= last.0 {
            return last.1;
        }
        let i = p.partition_point(|&(s, _)| s <= capacity_kb);
        let ((s0, m0), (s1, m1)) = (p[i - 1], p[i]);
        let x = (capacity_kb.log2() - s0.log2()) / (s1.log2() - s0.log2());
        m0 + (m1 - m0) * x
    }

    /// LLC accesses per thousand instructions, as the miss rate of the smallest cache the
    /// curve gives (the FOA model's access frequency, per instruction).
    pub fn accesses_pki(&self) -> f64 {
        self.points[0].1
    }

    /// The data that still earns hits: the smallest size at which the curve reaches its floor
    /// (0 for a flat curve, which no cache helps).
    pub fn knee_kb(&self) -> f64 {
        if self.is_flat() {
            return 0.0;
        }
        let floor = self.points[self.points.len() - 1].1;
        self.points.iter().find(|&&(_, m)| m <= floor).map_or(0.0, |&(s, _)| s)
    }

    /// The (size KB, mpki) points, sizes increasing (one point: a flat curve).
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// Σ weight × curve, exact at every size: each curve is linear in log2(size) between its
    /// points and flat beyond its ends, so the sum is linear between the union of all points.
    pub fn weighted_sum(curves: &[(f64, &MissCurve)]) -> MissCurve {
        let mut sizes: Vec<f64> = curves.iter().filter(|(_, c)| !c.is_flat()).flat_map(|(_, c)| c.points.iter().map(|p| p.0)).collect();
        sizes.sort_by(f64::total_cmp);
        sizes.dedup();
        if sizes.is_empty() {
            return MissCurve::flat(curves.iter().map(|(w, c)| w * c.points[0].1).sum());
        }
        let points: Vec<(f64, f64)> = sizes.iter().map(|&s| (s, curves.iter().map(|(w, c)| w * c.mpki_at(s)).sum())).collect();
        MissCurve { points }
    }

    /// Read `miss_curve = { size_kb = [...], mpki = [...] }` from `n`.
    pub fn read(n: &mut Node) -> Result<Option<MissCurve>> {
        let Some(mut t) = n.opt_table("miss_curve")? else { return Ok(None) };
        let sizes = t.opt_number_list("size_kb", &limits::SIZE_KB)?.ok_or_else(|| t.err("size_kb", "missing required key"))?;
        let mpki = t.opt_number_list("mpki", &limits::LLC_MPKI)?.ok_or_else(|| t.err("mpki", "missing required key"))?;
        if sizes.len() != mpki.len() {
            return Err(t.err("mpki", format!("has {} values for {} sizes in size_kb", mpki.len(), sizes.len())));
        }
        for i in 1..sizes.len() {
            if sizes[i] <= sizes[i - 1] {
                return Err(t.err(&format!("size_kb[{i}]"), format!("sizes must increase: {} after {}", sizes[i], sizes[i - 1])));
            }
            if mpki[i] > mpki[i - 1] {
                // The stack property of LRU: a bigger cache never misses more.
                return Err(t.err(&format!("mpki[{i}]"), format!("misses must not grow with size: {} after {}", mpki[i], mpki[i - 1])));
            }
        }
        t.finish()?;
        let points: Vec<(f64, f64)> = sizes.into_iter().zip(mpki).collect();
        Ok(Some(if points.len() == 1 { MissCurve::flat(points[0].1) } else { MissCurve { points } }))
    }
}

/// The LLC capacity a thread gets under the FOA model: the domain's `size_kb` in proportion of
/// its access rate `own` to the total `all` of the threads running in the domain (itself
/// included). A thread alone, or in a cache of unknown size, gets all of it.
pub fn foa_capacity_kb(size_kb: f64, own: f64, all: f64) -> f64 {
    if all <= 0.0 || own >= all || !size_kb.is_finite() {
        size_kb
    } else {
        size_kb * own / all
    }
}

/// The refill after a migration to a cold LLC, in cache lines missed: the data it had cached
/// there (min(footprint, capacity)) that it would have hit, the hit fraction at that capacity
/// being 1 - mpki / accesses per thousand instructions. A flat curve hits nothing, so refills
/// nothing; a cache-heavy thread (a steep curve, a large footprint) refills most.
pub fn refill_lines(curve: &MissCurve, footprint_kb: f64, capacity_kb: f64) -> f64 {
    let accesses = curve.accesses_pki();
    if accesses <= 0.0 || footprint_kb <= 0.0 {
        return 0.0;
    }
    let hit_fraction = 1.0 - curve.mpki_at(capacity_kb) / accesses;
    (footprint_kb.min(capacity_kb) * 1024.0 / CACHE_LINE_BYTES * hit_fraction).floor()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn art() -> MissCurve {
        // The Sáez thesis, Table 4.1, 32-way row, in misses per 4096 instructions.
        let per4096 = [427.0, 426.0, 336.0, 86.0, 5.0, 0.0, 0.0];
        let sizes = [256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0];
        MissCurve { points: sizes.iter().zip(per4096).map(|(&s, m)| (s, m * 1000.0 / 4096.0)).collect() }
    }

    #[test]
    fn interpolates_in_log_size_and_is_flat_beyond_the_ends() {
        let c = art();
        assert_eq!(c.mpki_at(16.0), 427.0 * 1000.0 / 4096.0);
        assert_eq!(c.mpki_at(2048.0), 86.0 * 1000.0 / 4096.0);
        // Half way between 2 MB and 4 MB in log2: the mean of the two points.
        let mid = c.mpki_at(2048.0 * 2f64.sqrt());
        assert!((mid - (86.0 + 5.0) / 2.0 * 1000.0 / 4096.0).abs() < 1e-9, "{mid}");
        assert_eq!(c.mpki_at(1e9), 0.0);
        assert_eq!(c.knee_kb(), 8192.0);
        assert_eq!(c.accesses_pki(), 427.0 * 1000.0 / 4096.0);
    }

    #[test]
    fn a_weighted_sum_of_curves_is_exact_between_and_beyond_their_points() {
        let (a, flat) = (art(), MissCurve::flat(10.0));
        let sum = MissCurve::weighted_sum(&[(0.25, &a), (0.75, &flat)]);
        for size in [16.0, 256.0, 700.0, 2048.0 * 2f64.sqrt(), 5000.0, 1e6] {
            let want = 0.25 * a.mpki_at(size) + 7.5;
            assert!((sum.mpki_at(size) - want).abs() < 1e-9, "{size}: {} against {want}", sum.mpki_at(size));
        }
        assert!(MissCurve::weighted_sum(&[(0.5, &flat), (0.5, &MissCurve::flat(2.0))]).is_flat());
    }

    #[test]
    fn flat_curve_ignores_size_and_has_no_knee() {
        let c = MissCurve::flat(7.5);
        assert_eq!(c.mpki_at(1.0), 7.5);
        assert_eq!(c.mpki_at(65536.0), 7.5);
        assert_eq!(c.knee_kb(), 0.0);
    }

    #[test]
    fn foa_divides_by_access_rate() {
        assert_eq!(foa_capacity_kb(2048.0, 3.0, 4.0), 1536.0);
        assert_eq!(foa_capacity_kb(2048.0, 1.0, 4.0), 512.0);
        // Alone, or beside threads that do not touch the cache: all of it.
        assert_eq!(foa_capacity_kb(2048.0, 1.0, 1.0), 2048.0);
        assert_eq!(foa_capacity_kb(2048.0, 0.0, 0.0), 2048.0);
        // art with 8 MB cached, arriving at 2 MB: it would hit 1 - 86/427 of its accesses there,
        // so it refills that fraction of 2 MB of 64-byte lines.
        assert_eq!(refill_lines(&art(), art().knee_kb(), 2048.0), (32768.0f64 * (1.0 - 86.0 / 427.0)).floor());
        // Streaming (flat): nothing it had cached would have hit.
        assert_eq!(refill_lines(&MissCurve::flat(30.0), 65536.0, 2048.0), 0.0);
    }
}
