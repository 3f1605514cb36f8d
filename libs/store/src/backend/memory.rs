//! The memory side of the backend: every store family's state, one lock each.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::feed::FeedHub;

/// Memory backend state. One lock per store family: each operation holds its family's lock
/// for its whole duration, which makes it as atomic as the matching Redis script.
#[derive(Default)]
pub(crate) struct MemoryState {
    pub(crate) games: Mutex<crate::game::GamesMem>,
    pub(crate) rooms: Mutex<crate::game::GamesMem>,
    pub(crate) timers: Mutex<crate::timer::TimersMem>,
    pub(crate) queues: Mutex<crate::queue::QueuesMem>,
    pub(crate) ratings: Mutex<crate::rating::RatingsMem>,
    pub(crate) leases: Mutex<crate::lease::LeasesMem>,
    pub(crate) hub: Arc<FeedHub>,
}

/// Locks a memory-backend mutex. A panic while holding the lock cannot leave the state half
/// written (operations validate before they mutate), so poisoning is ignored.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
