//! A set of core numbers (a CPU mask): inline for the first 256 cores, spilled to the heap above.
//!
//! Sets are made, copied and compared on the engine's hot paths (a thread's `allowed`, every
//! affinity decision, the local scheduler's choice of core), and almost every machine has at most
//! 256 cores. So the first `INLINE_CORES` live in a fixed array, which needs no allocation and
//! costs what the old fixed 256-bit mask did; only a set holding a core above them allocates a
//! spill-over of words, sized to its highest core, so a 1,024-core machine pays for 1,024 bits,
//! not for `CAPACITY`.

use std::fmt;
use std::hash::{Hash, Hasher};

const WORD_BITS: usize = u64::BITS as usize;
/// Cores kept inline: 256, the old fixed width, which covers desktops, phones and servers of up to
/// 256 cores (or hardware threads), so none of them ever allocates. Wider would make every set
/// larger to spare an allocation only to the 384-512-thread servers above it.
const INLINE_WORDS: usize = 4;
const INLINE_CORES: usize = INLINE_WORDS * WORD_BITS;

#[derive(Clone, Default)]
pub struct CoreSet {
    inline: [u64; INLINE_WORDS],
    /// Words `INLINE_WORDS..` (cores from `INLINE_CORES` up), `None` while the set holds none of
    /// them. It may end in zero words (a `remove` does not reallocate): equality and hashing
    /// treat those as absent, so a set's representation never shows.
    spill: Option<Box<[u64]>>,
}

impl CoreSet {
    /// The most cores a set (and so a machine) may hold: 8,192, Linux's own ceiling (NR_CPUS with
    /// CONFIG_MAXSMP on x86-64; arm64 allows 4,096). A simulated machine larger than any kernel
    /// can run is out of the model's scope, and Linux CPU numbers, which the live agent maps
    /// cores to, are below it. It bounds what a bad machine file can make us allocate, not the
    /// cost of small sets, which never reach the spill-over.
    pub const CAPACITY: usize = 8192;
    pub const EMPTY: CoreSet = CoreSet { inline: [0; INLINE_WORDS], spill: None };

    pub fn single(core: usize) -> Self {
        let mut s = Self::EMPTY;
        s.insert(core);
        s
    }

    /// Cores `0..n`.
    pub fn first_n(n: usize) -> Self {
        Self::check_capacity(n.saturating_sub(1)); // its highest core
        let mut s = Self::EMPTY;
        // Highest word first, so a spill-over is allocated once, at its full size.
        for i in (0..n.div_ceil(WORD_BITS)).rev() {
            let bits = (n - i * WORD_BITS).min(WORD_BITS);
            *s.word_mut(i) = if bits == WORD_BITS { u64::MAX } else { (1 << bits) - 1 };
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

    /// Inserting a core at or above `CAPACITY` is a bug in the caller: machines are checked
    /// against it when they are read, and cores a policy names against the machine.
    #[inline]
    pub fn insert(&mut self, core: usize) {
        if core < INLINE_CORES {
            self.inline[core / WORD_BITS] |= 1 << (core % WORD_BITS);
        } else {
            Self::check_capacity(core);
            *self.word_mut(core / WORD_BITS) |= 1 << (core % WORD_BITS);
        }
    }

    #[inline]
    pub fn remove(&mut self, core: usize) {
        if core < INLINE_CORES {
            self.inline[core / WORD_BITS] &= !(1 << (core % WORD_BITS));
        } else if let Some(w) = self.spill.as_deref_mut().and_then(|s| s.get_mut(core / WORD_BITS - INLINE_WORDS)) {
            *w &= !(1 << (core % WORD_BITS));
        }
    }

    #[inline]
    pub fn contains(&self, core: usize) -> bool {
        if core < INLINE_CORES {
            self.inline[core / WORD_BITS] & (1 << (core % WORD_BITS)) != 0
        } else {
            self.spill_words().get(core / WORD_BITS - INLINE_WORDS).is_some_and(|w| w & (1 << (core % WORD_BITS)) != 0)
        }
    }

    pub fn is_empty(&self) -> bool {
        self.inline == [0; INLINE_WORDS] && self.spill_words().iter().all(|&w| w == 0)
    }

    pub fn len(&self) -> usize {
        self.inline.iter().chain(self.spill_words()).map(|w| w.count_ones() as usize).sum()
    }

    pub fn union(&self, o: &CoreSet) -> CoreSet {
        self.combine(o, |a, b| a | b)
    }

    pub fn intersection(&self, o: &CoreSet) -> CoreSet {
        self.combine(o, |a, b| a & b)
    }

    pub fn difference(&self, o: &CoreSet) -> CoreSet {
        self.combine(o, |a, b| a & !b)
    }

    /// Every core of `self` is in `o`.
    pub fn is_subset(&self, o: &CoreSet) -> bool {
        let (a, b) = (self.spill_words(), o.spill_words());
        (0..INLINE_WORDS).all(|i| self.inline[i] & !o.inline[i] == 0) && a.iter().enumerate().all(|(i, &w)| w & !b.get(i).copied().unwrap_or(0) == 0)
    }

    pub fn first(&self) -> Option<usize> {
        self.iter().next()
    }

    /// The cores in ascending order.
    pub fn iter(&self) -> Iter<'_> {
        Iter { set: self, word: 0, bits: self.inline[0] }
    }

    /// Word by word, each operand read as zero past its end. The inline words alone on the common
    /// path (neither operand spilled); a spill-over of the result is trimmed of trailing zero
    /// words and dropped when none are left, so later operations stay on that path.
    #[inline]
    fn combine(&self, o: &CoreSet, op: impl Fn(u64, u64) -> u64) -> CoreSet {
        let inline = std::array::from_fn(|i| op(self.inline[i], o.inline[i]));
        let (a, b) = (self.spill_words(), o.spill_words());
        if a.is_empty() && b.is_empty() {
            return CoreSet { inline, spill: None };
        }
        let mut words: Vec<u64> = (0..a.len().max(b.len())).map(|i| op(a.get(i).copied().unwrap_or(0), b.get(i).copied().unwrap_or(0))).collect();
        words.truncate(trimmed(&words).len());
        CoreSet { inline, spill: (!words.is_empty()).then(|| words.into_boxed_slice()) }
    }

    fn spill_words(&self) -> &[u64] {
        self.spill.as_deref().unwrap_or(&[])
    }

    #[inline]
    fn word(&self, i: usize) -> u64 {
        if i < INLINE_WORDS {
            self.inline[i]
        } else {
            self.spill_words()[i - INLINE_WORDS]
        }
    }

    fn words(&self) -> usize {
        INLINE_WORDS + self.spill_words().len()
    }

    /// Word `i`, growing the spill-over to reach it.
    fn word_mut(&mut self, i: usize) -> &mut u64 {
        if i < INLINE_WORDS {
            return &mut self.inline[i];
        }
        let need = i - INLINE_WORDS + 1;
        let spill = self.spill.get_or_insert_with(Default::default);
        if spill.len() < need {
            let mut grown = vec![0; need];
            grown[..spill.len()].copy_from_slice(spill);
            *spill = grown.into_boxed_slice();
        }
        &mut spill[i - INLINE_WORDS]
    }

    fn check_capacity(core: usize) {
        assert!(core < Self::CAPACITY, "core {core} is beyond CoreSet::CAPACITY ({})", Self::CAPACITY);
    }
}

/// `words` without its trailing zero words.
fn trimmed(words: &[u64]) -> &[u64] {
    &words[..words.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1)]
}

pub struct Iter<'a> {
    set: &'a CoreSet,
    word: usize,
    /// The bits of word `word` not yet returned.
    bits: u64,
}

impl Iterator for Iter<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            self.word += 1;
            if self.word >= self.set.words() {
                return None;
            }
            self.bits = self.set.word(self.word);
        }
        let i = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.word * WORD_BITS + i)
    }
}

impl PartialEq for CoreSet {
    #[inline]
    fn eq(&self, o: &CoreSet) -> bool {
        self.inline == o.inline && trimmed(self.spill_words()) == trimmed(o.spill_words())
    }
}

impl Eq for CoreSet {}

impl Hash for CoreSet {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.inline.hash(h);
        trimmed(self.spill_words()).hash(h);
    }
}

/// Printed as a Linux CPU list: "0-3,8".
impl fmt::Display for CoreSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut cores = self.iter().peekable();
        let mut sep = "";
        while let Some(start) = cores.next() {
            let mut end = start;
            while cores.next_if_eq(&(end + 1)).is_some() {
                end += 1;
            }
            if start == end {
                write!(f, "{sep}{start}")?;
            } else {
                write!(f, "{sep}{start}-{end}")?;
            }
            sep = ",";
        }
        Ok(())
    }
}

impl fmt::Debug for CoreSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CoreSet({self})")
    }
}
