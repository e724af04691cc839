//! A cache prefetch hint. With thousands of threads, their state no longer fits the core's
//! private caches, and a thread's first touch at its dispatch waits on memory. The engine knows
//! one dispatch ahead which thread comes next on a core (the head of its run queue) and fetches
//! its state then, while that core runs its current slice.

/// Ask the CPU to bring the cache line of `value` in; a no-op where there is no such hint.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint: it never faults and changes no state a program sees.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(value as *const T as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
