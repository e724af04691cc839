//! A fixed-size set of core numbers (a CPU mask), cheap to copy and compare.

use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct CoreSet([u64; 4]);

impl CoreSet {
    pub const CAPACITY: usize = 256;
    pub const EMPTY: CoreSet = CoreSet([0; 4]);

    pub fn single(core: usize) -> Self {
        let mut s = Self::EMPTY;
        s.insert(core);
        s
    }

    pub fn first_n(n: usize) -> Self {
        let mut s = Self::EMPTY;
        for c in 0..n {
            s.insert(c);
        }
        s
    }

    pub fn from_cores(cores: impl IntoIterator<Item = usize>) -> Self {
        let mut s = Self::EMPTY;
        for c in cores {
            s.insert(c);
        }
        s
    }

    #[inline]
    pub fn insert(&mut self, core: usize) {
        self.0[core >> 6] |= 1 << (core & 63);
    }

    #[inline]
    pub fn remove(&mut self, core: usize) {
        self.0[core >> 6] &= !(1 << (core & 63));
    }

    #[inline]
    pub fn contains(&self, core: usize) -> bool {
        core < Self::CAPACITY && self.0[core >> 6] & (1 << (core & 63)) != 0
    }

    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn union(self, o: CoreSet) -> CoreSet {
        CoreSet([self.0[0] | o.0[0], self.0[1] | o.0[1], self.0[2] | o.0[2], self.0[3] | o.0[3]])
    }

    pub fn intersection(self, o: CoreSet) -> CoreSet {
        CoreSet([self.0[0] & o.0[0], self.0[1] & o.0[1], self.0[2] & o.0[2], self.0[3] & o.0[3]])
    }

    pub fn difference(self, o: CoreSet) -> CoreSet {
        CoreSet([self.0[0] & !o.0[0], self.0[1] & !o.0[1], self.0[2] & !o.0[2], self.0[3] & !o.0[3]])
    }

    pub fn first(&self) -> Option<usize> {
        self.iter().next()
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut b = bits;
            std::iter::from_fn(move || {
                if b == 0 {
                    return None;
                }
                let i = b.trailing_zeros() as usize;
                b &= b - 1;
                Some(w * 64 + i)
            })
        })
    }
}

/// Printed as a Linux CPU list: "0-3,8".
impl fmt::Display for CoreSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cores: Vec<usize> = self.iter().collect();
        let mut parts = Vec::new();
        let mut i = 0;
        while i < cores.len() {
            let mut j = i;
            while j + 1 < cores.len() && cores[j + 1] == cores[j] + 1 {
                j += 1;
            }
            parts.push(if i == j { cores[i].to_string() } else { format!("{}-{}", cores[i], cores[j]) });
            i = j + 1;
        }
        write!(f, "{}", parts.join(","))
    }
}

impl fmt::Debug for CoreSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CoreSet({self})")
    }
}
