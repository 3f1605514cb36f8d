//! `ludus.timers.armed` and `ludus.timers.due`: how many timers are armed, and how many are
//! due and not yet fired — the backlog, which stays near zero while the workers keep up and
//! grows when they stall or cannot reach game-state.
//!
//! A background task counts them from the store every [`BACKLOG_INTERVAL`]; the gauges'
//! callbacks only read the last counts, so an export never waits for Redis. Every replica
//! reads the same shared timers: aggregate across replicas with max, not sum.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};
use std::time::Duration;

use ludus_store::{Clock, StoreError, TimerStore};
use opentelemetry::metrics::Meter;
use tokio_util::sync::CancellationToken;

/// How often a replica counts the timers.
pub const BACKLOG_INTERVAL: Duration = Duration::from_secs(5);

/// The last counts, shared with the gauges' callbacks.
#[derive(Clone, Debug, Default)]
pub struct Backlog {
    armed: Arc<AtomicU64>,
    due: Arc<AtomicU64>,
}

impl Backlog {
    /// Registers both gauges on `meter`; they report the counts of the last refresh.
    pub fn observe(&self, meter: &Meter) {
        timer_gauge(
            meter,
            "ludus.timers.armed",
            "Timers armed (counted every 5 s)",
            &self.armed,
        );
        timer_gauge(
            meter,
            "ludus.timers.due",
            "Timers due and not yet fired (counted every 5 s): the backlog",
            &self.due,
        );
    }

    /// Counts the timers as of `now_ms`.
    pub async fn refresh(&self, store: &TimerStore, now_ms: u64) -> Result<(), StoreError> {
        let (armed, due) = store.counts(now_ms).await?;
        self.armed.store(armed, Ordering::Relaxed);
        self.due.store(due, Ordering::Relaxed);
        Ok(())
    }

    /// Refreshes every `interval` until `stop` is cancelled; a store error keeps the last
    /// counts until the next refresh.
    pub async fn run(
        self,
        store: TimerStore,
        clock: Clock,
        interval: Duration,
        stop: CancellationToken,
    ) {
        loop {
            if let Err(error) = self.refresh(&store, clock.now_ms()).await {
                tracing::debug!(%error, "could not count timers");
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(interval) => {}
            }
        }
    }
}

/// A gauge of timers that reports `count` as last stored.
fn timer_gauge(
    meter: &Meter,
    name: &'static str,
    description: &'static str,
    count: &Arc<AtomicU64>,
) {
    let count = Arc::clone(count);
    meter
        .u64_observable_gauge(name)
        .with_unit("{timer}")
        .with_description(description)
        .with_callback(move |observer| observer.observe(count.load(Ordering::Relaxed), &[]))
        .build();
}
