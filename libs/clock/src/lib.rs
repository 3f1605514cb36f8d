//! The one clock every service reads for the times it compares: deadlines, timer scores,
//! event times, ticket ages, session and lockout expiries, token lifetimes, leases. Nothing
//! else in the services reads the Unix clock. Production runs on [`Clock::system`]; tests hand
//! every service the same [`ManualClock`] and move time forward themselves, so a C13 grace, a
//! turn clock or a refresh token runs out when a test says so instead of after a real sleep.
//!
//! Only the time the services compare lives here. Transport timeouts, retry backoff and poll
//! intervals stay on tokio's real time: a manual clock must not fire a client timeout while a
//! request waits on Redis (which is why tests do not use tokio's paused time).

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::Notify;

/// Unix milliseconds, from the system or from a [`ManualClock`]. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    manual: Option<Arc<Manual>>,
}

#[derive(Debug)]
struct Manual {
    now_ms: AtomicU64,
    advanced: Notify,
}

impl Clock {
    /// The wall clock: deadlines are absolute so every replica agrees on them.
    pub fn system() -> Self {
        Clock { manual: None }
    }

    /// Unix milliseconds now.
    pub fn now_ms(&self) -> u64 {
        match &self.manual {
            Some(manual) => manual.now_ms.load(Ordering::SeqCst),
            None => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        }
    }

    /// Resolves when a manual clock next moves forward; never for the system clock. A loop
    /// sleeping until a deadline also waits on this, so moving time wakes it.
    pub async fn advanced(&self) {
        match &self.manual {
            Some(manual) => manual.advanced.notified().await,
            None => std::future::pending().await,
        }
    }
}

/// A clock that stands still until [`ManualClock::advance`]; hand [`ManualClock::clock`] to
/// every service of a test system.
#[derive(Clone, Debug)]
pub struct ManualClock {
    clock: Clock,
}

impl ManualClock {
    /// A manual clock starting at the wall clock's time, so stored times look real.
    pub fn starting_now() -> Self {
        ManualClock {
            clock: Clock {
                manual: Some(Arc::new(Manual {
                    now_ms: AtomicU64::new(Clock::system().now_ms()),
                    advanced: Notify::new(),
                })),
            },
        }
    }

    /// The clock to hand the services.
    pub fn clock(&self) -> Clock {
        self.clock.clone()
    }

    /// Moves time forward by `by` and wakes everything waiting on [`Clock::advanced`].
    pub fn advance(&self, by: Duration) {
        if let Some(manual) = &self.clock.manual {
            let by = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
            manual.now_ms.fetch_add(by, Ordering::SeqCst);
            manual.advanced.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_manual_clock_moves_only_when_advanced_and_wakes_its_waiters() {
        let manual = ManualClock::starting_now();
        let clock = manual.clock();
        let start = clock.now_ms();
        assert_eq!(clock.now_ms(), start, "it stands still");
        let waiter = tokio::spawn({
            let clock = clock.clone();
            async move {
                clock.advanced().await;
                clock.now_ms()
            }
        });
        // Let the waiter register before moving time.
        while !waiter.is_finished() {
            manual.advance(Duration::from_secs(60));
            tokio::task::yield_now().await;
        }
        let seen = waiter.await.expect("waiter");
        assert!(seen >= start + 60_000, "the waiter saw the new time");
        assert_eq!((clock.now_ms() - start) % 60_000, 0);
    }

    #[test]
    fn the_system_clock_is_unix_time() {
        // 2020-01-01 in Unix ms: the clock is not counting from process start.
        assert!(Clock::system().now_ms() > 1_577_836_800_000);
    }
}
