//! Which threads a policy must look at again in this call.

use ampsched_model::{SystemView, ThreadId};

/// Tracks a policy's calls so that it reads the view's `changed` list, or every live thread
/// when it missed a call (the engine skips calls in idle stretches): per-thread state it keeps
/// from `changed` would be stale then.
#[derive(Debug, Clone, Copy, Default)]
pub struct Changes {
    last_call: u64,
}

impl Changes {
    /// Whether calls were missed since the last one (then `since_last` gives every live thread,
    /// and a policy that files threads by `changed` may have missed exits).
    pub fn missed(&self, view: &SystemView) -> bool {
        view.call != self.last_call + 1
    }

    /// Whether `since_last` was asked already in this call (a second ask would give every live
    /// thread, as after a missed call).
    pub fn asked(&self, view: &SystemView) -> bool {
        view.call != 0 && view.call == self.last_call
    }

    /// The threads to refresh in this call (and records the call).
    pub fn since_last<'a>(&mut self, view: &SystemView<'a>) -> &'a [ThreadId] {
        let out = if view.call == self.last_call + 1 { view.changed } else { view.live };
        self.last_call = view.call;
        out
    }
}
