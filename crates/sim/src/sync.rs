//! Synchronisation objects of one app run: barriers (also used for serial sections) and locks.

use std::collections::VecDeque;

/// A barrier instance. Threads arrive; when the last arrives, all go on. For a serial section
/// the non-leaders are then `held` until the leader has retired the serial work.
#[derive(Debug, Default, Clone)]
pub struct Barrier {
    pub arrived: u32,
    pub waiters: Vec<u32>,
    pub held: Vec<u32>,
}

/// A FIFO lock: on release it is handed to the longest waiter.
#[derive(Debug, Default, Clone)]
pub struct Lock {
    pub holder: Option<u32>,
    pub holder_since: u64,
    /// (thread, time it started waiting)
    pub queue: VecDeque<(u32, u64)>,
}
