//! The Utility Factor and CAMP's utility classes (Sáez thesis, ch. 6, §6.1.2 and §6.2.1), for
//! every scheduler built on them: CAMP, SFD and PA rebuilt on the UF (`camp`, `sfd`, `pa-uf`).
//!
//! **UF** (eq. 6.14): the speedup an application of N runnable threads, each of speedup factor
//! SF, gets from NFC fast cores when they are kept busy (BusyFCs, Algorithm 6.1), over running
//! all-slow; an approximation cheap enough for an OS of the exact speedup (eq. 6.13):
//!
//! ```text
//! UF = (SF - 1) / (floor((N - 1) / NFC) + 1)^2 + 1
//! ```
//!
//! The denominator is the square of Algorithm 6.1's number of iterations (fitted by the thesis to
//! eq. 6.13); only the gain SF − 1 is divided, a speedup being at least 1. With N ≤ NFC (a
//! single thread, a serial phase) UF = SF. CAMP puts in each thread's own SF, not the app's
//! average (§6.2.1: no cross-thread communication). The same formula, with eq. 6.13 beside it,
//! is evaluated in Python by the `thesis-uf` reproduction.
//!
//! **Classes** (§6.2.1): LOW below the `lower` threshold, MEDIUM below `upper`, HIGH above;
//! SEQUENTIAL_BOOSTED is above all of them (a HIGH thread running a serial phase). Two pairs of
//! thresholds, chosen by whether a multi-threaded application runs (UFs then span a wider range).

/// Iterations of Algorithm 6.1 for `n` runnable threads on `nfc` fast cores: ⌊(n − 1)/nfc⌋ + 1
/// (n = 0 counts as 1: an app with nothing runnable is placed as if it ran one thread).
pub fn iterations(n: u32, nfc: u32) -> u32 {
    (n.max(1) - 1) / nfc.max(1) + 1
}

/// Eq. 6.14: (sf − 1) / (⌊(n − 1)/nfc⌋ + 1)² + 1.
pub fn utility_factor(sf: f64, n: u32, nfc: u32) -> f64 {
    let it = iterations(n, nfc) as f64;
    (sf - 1.0) / (it * it) + 1.0
}

/// A thread's utility class, in increasing claim on the fast cores (Sáez thesis, §6.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Utility {
    /// Runs on fast cores only when no MEDIUM or HIGH thread wants them.
    #[default]
    Low,
    /// Takes the fast cores HIGH threads leave idle; not fair-shared (migrations cost it).
    Medium,
    /// Runs on fast cores, shared equally by round robin when HIGH threads outnumber them.
    High,
    /// SEQUENTIAL_BOOSTED: a HIGH thread running its application's serial phase, first in line
    /// for a fast core for the length of its boost.
    SequentialBoosted,
}

impl Utility {
    pub fn name(self) -> &'static str {
        match self {
            Utility::Low => "LOW",
            Utility::Medium => "MEDIUM",
            Utility::High => "HIGH",
            Utility::SequentialBoosted => "SEQUENTIAL_BOOSTED",
        }
    }
}

/// One pair of utility thresholds, as UF values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// LOW | MEDIUM.
    pub lower: f64,
    /// MEDIUM | HIGH (MEDIUM is empty when it is not above `lower`).
    pub upper: f64,
}

impl Thresholds {
    /// Thresholds given as fractions of the machine's maximum gain (its highest SF − 1): the
    /// thesis's thresholds are machine-dependent ("utility factors will be larger" where the
    /// cores differ more), and fractions carry one choice across machines.
    pub fn of_gain(lower: f64, upper: f64, highest_sf: f64) -> Thresholds {
        let gain = highest_sf - 1.0;
        Thresholds { lower: 1.0 + lower * gain, upper: 1.0 + upper * gain }
    }

    /// The class of utility factor `uf` (never `SequentialBoosted`: boosting is the scheduler's).
    pub fn class(&self, uf: f64) -> Utility {
        if uf < self.lower {
            Utility::Low
        } else if uf < self.upper {
            Utility::Medium
        } else {
            Utility::High
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uf_is_eq_6_14() {
        // Iterations on 2 fast cores: 1 for 1-2 threads, 2 for 3-4, 3 for 5-6.
        assert_eq!([1, 2, 3, 4, 5, 6].map(|n| iterations(n, 2)), [1, 1, 2, 2, 3, 3]);
        // SF 2, 5 threads, 2 fast cores: 1 + 1/9; 3 threads: 1 + 1/4; a serial phase: SF.
        assert!((utility_factor(2.0, 5, 2) - (1.0 + 1.0 / 9.0)).abs() < 1e-15);
        assert_eq!(utility_factor(2.0, 3, 2), 1.25);
        assert_eq!(utility_factor(1.6, 1, 2), 1.6);
        // 12 threads on one fast core, SF 2: 1 + 1/144 (the HP apps of Table 6.3 on 1FC-12SC).
        assert!((utility_factor(2.0, 12, 1) - (1.0 + 1.0 / 144.0)).abs() < 1e-15);
    }

    #[test]
    fn thresholds_split_low_medium_high() {
        let t = Thresholds::of_gain(0.2, 0.6, 2.0);
        assert!((t.lower - 1.2).abs() < 1e-12 && (t.upper - 1.6).abs() < 1e-12, "{t:?}");
        assert_eq!(
            [1.0, 1.19, 1.21, 1.59, 1.61, 2.0].map(|uf| t.class(uf)),
            [Utility::Low, Utility::Low, Utility::Medium, Utility::Medium, Utility::High, Utility::High]
        );
        assert!(Utility::SequentialBoosted > Utility::High && Utility::High > Utility::Medium && Utility::Medium > Utility::Low);
    }
}
