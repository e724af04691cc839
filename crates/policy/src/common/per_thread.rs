//! Per-thread policy state: a table indexed by `ThreadId` that grows as threads appear, so no
//! policy resizes vectors by hand. Threads that never got a value read as `T::default()`.

use ampsched_model::ThreadId;

#[derive(Debug, Clone, Default)]
pub struct PerThread<T> {
    items: Vec<T>,
}

impl<T: Default + Clone> PerThread<T> {
    pub fn new() -> Self {
        PerThread { items: Vec::new() }
    }

    /// The thread's value, created (as the default) if it has none yet.
    pub fn get_mut(&mut self, t: ThreadId) -> &mut T {
        let i = t as usize;
        if i >= self.items.len() {
            self.items.resize(i + 1, T::default());
        }
        &mut self.items[i]
    }

    /// The thread's value, if it was ever given one.
    pub fn get(&self, t: ThreadId) -> Option<&T> {
        self.items.get(t as usize)
    }

    pub fn set(&mut self, t: ThreadId, value: T) {
        *self.get_mut(t) = value;
    }
}

impl<T: Default + Copy> PerThread<T> {
    /// The thread's value, or the default.
    pub fn value(&self, t: ThreadId) -> T {
        self.items.get(t as usize).copied().unwrap_or_default()
    }
}
