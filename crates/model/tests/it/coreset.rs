//! `CoreSet` across its inline/spill-over boundary (core 256): the same set behaves and compares
//! the same whichever way it is stored.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use ampsched_model::CoreSet;

fn hash_of(s: &CoreSet) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

#[test]
fn insert_remove_contains_and_len_across_the_boundary() {
    let mut s = CoreSet::EMPTY;
    for c in [0, 63, 64, 255, 256, 319, 320, 1023, CoreSet::CAPACITY - 1] {
        assert!(!s.contains(c));
        s.insert(c);
        assert!(s.contains(c), "core {c}");
    }
    assert_eq!(s.len(), 9);
    assert!(!s.contains(257) && !s.contains(1022) && !s.contains(CoreSet::CAPACITY) && !s.contains(usize::MAX));
    s.remove(256);
    s.remove(5000); // absent, and beyond the spill-over's words so far: no effect
    assert!(!s.contains(256));
    assert_eq!(s.len(), 8);
    assert_eq!(s.first(), Some(0));
}

#[test]
fn iteration_is_ascending_over_both_parts() {
    let cores = [3, 200, 255, 256, 257, 700, 1024, 4095];
    let s = CoreSet::from_cores(cores.iter().rev().copied());
    assert_eq!(s.iter().collect::<Vec<_>>(), cores);
    assert_eq!(CoreSet::single(900).first(), Some(900));
    assert_eq!(CoreSet::EMPTY.first(), None);
}

#[test]
fn first_n_is_every_core_below_n() {
    for n in [0, 1, 63, 64, 65, 255, 256, 257, 1000, 1024, CoreSet::CAPACITY] {
        let s = CoreSet::first_n(n);
        assert_eq!(s.len(), n, "n = {n}");
        assert_eq!(s, CoreSet::from_cores(0..n), "n = {n}");
    }
}

#[test]
fn set_operations_take_missing_words_as_empty() {
    let small = CoreSet::from_cores([1, 2, 200]);
    let big = CoreSet::from_cores([2, 300, 1000]);
    assert_eq!(small.union(&big), CoreSet::from_cores([1, 2, 200, 300, 1000]));
    assert_eq!(big.union(&small), small.union(&big));
    assert_eq!(small.intersection(&big), CoreSet::single(2));
    assert_eq!(big.intersection(&small), CoreSet::single(2));
    assert_eq!(big.difference(&small), CoreSet::from_cores([300, 1000]));
    assert_eq!(small.difference(&big), CoreSet::from_cores([1, 200]));
    assert!(big.difference(&big).is_empty());
    assert!(CoreSet::single(2).is_subset(&big) && !big.is_subset(&CoreSet::first_n(256)) && big.is_subset(&CoreSet::first_n(1001)));
}

#[test]
fn a_spilled_set_emptied_above_256_equals_and_hashes_as_the_inline_one() {
    let inline = CoreSet::from_cores([4, 5]);
    let mut spilled = CoreSet::from_cores([4, 5, 3000]);
    assert_ne!(spilled, inline);
    spilled.remove(3000);
    assert_eq!(spilled, inline);
    assert_eq!(hash_of(&spilled), hash_of(&inline));
    assert_eq!(spilled.to_string(), "4-5");

    let mut empty = CoreSet::single(600);
    empty.remove(600);
    assert!(empty.is_empty());
    assert_eq!(empty, CoreSet::EMPTY);
    assert_eq!(hash_of(&empty), hash_of(&CoreSet::default()));
    // Sets whose spill-overs differ only in trailing empty words.
    let (mut a, b) = (CoreSet::from_cores([300, 2000]), CoreSet::single(300));
    a.remove(2000);
    assert_eq!(a, b);
    assert_eq!(hash_of(&a), hash_of(&b));
}

#[test]
fn display_is_a_linux_cpu_list_across_the_boundary() {
    assert_eq!(CoreSet::EMPTY.to_string(), "");
    assert_eq!(CoreSet::from_cores([0, 1, 2, 3, 8]).to_string(), "0-3,8");
    assert_eq!(CoreSet::from_cores(250..262).to_string(), "250-261");
    assert_eq!(CoreSet::from_cores([255, 257, 1023]).to_string(), "255,257,1023");
    assert_eq!(format!("{:?}", CoreSet::first_n(1024)), "CoreSet(0-1023)");
}

#[test]
#[should_panic(expected = "beyond CoreSet::CAPACITY")]
fn a_core_beyond_capacity_is_a_bug_in_the_caller() {
    CoreSet::single(CoreSet::CAPACITY);
}
