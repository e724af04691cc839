//! The sift operations of a binary min-heap kept in a slice, for the run queues, which must
//! visit their entries in order (pulls, balancing) and take tombstones out of the top:
//! `std::collections::BinaryHeap` offers neither.

/// Move the entry at `i` up to its place; ties stay below (an equal parent is not passed).
pub(crate) fn sift_up<T: Copy, K: Ord>(heap: &mut [T], mut i: usize, key: impl Fn(&T) -> K) {
    let entry = heap[i];
    let k = key(&entry);
    while i > 0 {
        let parent = (i - 1) / 2;
        if key(&heap[parent]) <= k {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = entry;
}

/// Move the entry at `i` down to its place.
pub(crate) fn sift_down<T: Copy, K: Ord>(heap: &mut [T], mut i: usize, key: impl Fn(&T) -> K) {
    let n = heap.len();
    let entry = heap[i];
    let k = key(&entry);
    loop {
        let left = 2 * i + 1;
        if left >= n {
            break;
        }
        let child = if left + 1 < n && key(&heap[left + 1]) < key(&heap[left]) { left + 1 } else { left };
        if k <= key(&heap[child]) {
            break;
        }
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = entry;
}

/// Move the entry at `i` down to its place, for an entry that belongs near the bottom (a
/// later time, the last entry moved to the root): down to a leaf along the smaller children,
/// then up as far as needed. One comparison a level on the way down, where `sift_down` makes
/// two (Floyd's trick, as `BinaryHeap::pop` does).
pub(crate) fn sift_down_to_bottom<T: Copy, K: Ord>(heap: &mut [T], mut i: usize, key: impl Fn(&T) -> K) {
    let n = heap.len();
    let entry = heap[i];
    loop {
        let left = 2 * i + 1;
        if left >= n {
            break;
        }
        let child = if left + 1 < n && key(&heap[left + 1]) < key(&heap[left]) { left + 1 } else { left };
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = entry;
    sift_up(heap, i, key);
}

/// Indices of `heap`'s entries in key order, lazily: a best-first walk from the root that
/// holds only the frontier, so the first k cost O(k log k), not a sort of the whole heap.
pub(crate) fn in_order<'h, T: Copy, K: Ord + Copy + 'h>(heap: &'h [T], key: impl Fn(&T) -> K + 'h) -> impl Iterator<Item = usize> + 'h {
    use std::cmp::Reverse;
    let mut frontier = std::collections::BinaryHeap::new();
    if !heap.is_empty() {
        frontier.push(Reverse((key(&heap[0]), 0usize)));
    }
    std::iter::from_fn(move || {
        let Reverse((_, i)) = frontier.pop()?;
        for child in [2 * i + 1, 2 * i + 2] {
            if child < heap.len() {
                frontier.push(Reverse((key(&heap[child]), child)));
            }
        }
        Some(i)
    })
}
