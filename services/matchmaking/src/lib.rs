//! matchmaking: quick-match queues per (game, rule set). Players enqueue a ticket, a matcher
//! loop in every replica pairs the oldest tickets of each queue, seats them at random and asks
//! game-state to create the game; players follow their ticket with `WatchTicket`.
//!
//! Any number of replicas may run against one Redis: the store's `take_tables` matches each
//! table's tickets all-or-nothing, so a ticket is matched at most once; a player holds at most
//! one live ticket; a cancelled ticket is never matched. A per-queue lease spreads queues over
//! replicas so they do not race for the same tickets (an economy: correctness never rests on
//! it), and watches wait for notices instead of polling Redis (see [`notices`]).
//!
//! # Layout
//! - [`model`]: request validation, queue names, ticket ids and the ticket payload.
//! - [`matcher`]: the matcher loop (claiming tables, random seats, creating the game).
//! - [`notices`]: wakes a replica's ticket watches when their tickets settle.
//! - [`pairing`]: who sits with whom: rating windows that widen with waiting.
//! - [`service`]: the `Matchmaking` gRPC service.
//! - [`error`]: every refusal and its gRPC status.
#![forbid(unsafe_code)]

pub mod error;
pub mod matcher;
pub mod model;
pub mod notices;
pub mod pairing;
pub mod service;

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ludus_proto::pb::{
    game_state_client::GameStateClient, matchmaking_server::MatchmakingServer,
    ratings_client::RatingsClient,
};
use ludus_store::{Backend, Clock, QueueStore};
use opentelemetry::{KeyValue, metrics::Meter};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// The quick-match clocks of [`Config::turn_ms`] (the catalog's type, re-exported for the
/// binaries that configure matchmaking).
pub use ludus_catalog::QuickMatchClocks;
pub use matcher::Matcher;
pub use pairing::RatingWindow;
pub use service::MatchmakingService;

/// How often the matcher looks at the queues when no enqueue wakes it earlier.
pub const DEFAULT_MATCH_INTERVAL: Duration = Duration::from_millis(100);

/// What matchmaking needs to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The session store (Redis, or in-memory for the all-in-one binary).
    pub backend: Backend,
    /// The game-state service, e.g. `http://game-state:50051`.
    pub game_state_url: String,
    /// The server's quick-match clock of each game (`--turn-ms caro=60000,…`): each game's
    /// table policy default unless the operator set it.
    pub turn_ms: QuickMatchClocks,
    /// How often the matcher polls the queues (an enqueue on this replica wakes it at once).
    pub match_interval: Duration,
    /// The ratings service, e.g. `http://ratings:50054`, asked for a player's rating when
    /// they queue; `None` pairs everyone first come, first served.
    pub ratings_url: Option<String>,
    /// How far apart paired ratings may be, by waiting time.
    pub rating_window: RatingWindow,
    /// Tickets are ordered and aged by it ([`Clock::system`]; tests pass a manual one).
    pub clock: Clock,
    /// How long a waiting ticket stays matchable unless its watch renews it (ARCHITECTURE.md, "Disconnection (presence)").
    pub ticket_lease: Duration,
    /// How long a proposed table waits for every seat's confirmation.
    pub confirm_window: Duration,
    /// Ticket leases and confirmation windows run on it ([`Clock::system`], also in tests
    /// that move `clock`: moving game time must not make every waiting ticket lapse).
    pub lease_clock: Clock,
}

impl Config {
    /// A config with the default clocks and interval.
    pub fn new(backend: Backend, game_state_url: impl Into<String>) -> Self {
        Config {
            backend,
            game_state_url: game_state_url.into(),
            turn_ms: QuickMatchClocks::default(),
            match_interval: DEFAULT_MATCH_INTERVAL,
            ratings_url: None,
            rating_window: RatingWindow::DEFAULT,
            clock: Clock::system(),
            ticket_lease: matcher::DEFAULT_TICKET_LEASE,
            confirm_window: matcher::DEFAULT_CONFIRM_WINDOW,
            lease_clock: Clock::system(),
        }
    }
}

/// Serves matchmaking on `listener` and runs this replica's matcher until `shutdown`
/// completes; the matcher and open ticket watches stop with the server.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let game_state = GameStateClient::new(ludus_server::traced_channel(&config.game_state_url)?);
    let reachable = config.backend.reachability(Backend::PROBE_PERIOD);
    let queues = QueueStore::new(config.backend);
    let wake = Arc::new(Notify::new());
    let stop = CancellationToken::new();
    // Stops the matcher even if this future is dropped instead of completing.
    let _stop_on_drop = stop.clone().drop_guard();

    let notices = notices::TicketNotices::default();
    let matcher = Matcher::new(
        queues.clone(),
        game_state,
        config.turn_ms,
        config.match_interval,
        wake.clone(),
    )
    .rating_window(config.rating_window)
    .clock(config.clock)
    .ticket_lease(config.ticket_lease)
    .confirm_window(config.confirm_window)
    .lease_clock(config.lease_clock)
    .watches(notices.clone());
    let queues_for_counts = queues.clone();
    // Subscribed before serving, so no watch can miss a notice published after its read.
    let settled = queues.subscribe_settled().await?;
    let routing = tokio::spawn(notices.clone().run(queues.clone(), settled, stop.clone()));
    let mut service = MatchmakingService::new(queues, matcher.clone(), wake, notices, stop.clone());
    if let Some(url) = &config.ratings_url {
        service = service.with_ratings(RatingsClient::new(ludus_server::traced_channel(url)?));
    }
    let matching = tokio::spawn(matcher.run(stop.clone()));
    // Counting polls the store: only when metrics are exported.
    let counting = ludus_telemetry::metrics::enabled().then(|| {
        let counts = TicketCounts::default();
        counts.observe(&ludus_telemetry::metrics::meter());
        tokio::spawn(counts.run(queues_for_counts, TICKET_COUNT_INTERVAL, stop.clone()))
    });

    let server = MatchmakingServer::new(service)
        .max_decoding_message_size(ludus_server::server::MAX_DECODING_MESSAGE_SIZE);
    let stop_on_shutdown = stop.clone();
    let result = ludus_server::serve_while_ready(
        server,
        listener,
        async move {
            shutdown.await;
            stop_on_shutdown.cancel();
        },
        reachable,
    )
    .await;
    stop.cancel();
    if let Err(error) = matching.await {
        tracing::error!(%error, "matcher task failed");
    }
    if let Err(error) = routing.await {
        tracing::error!(%error, "ticket notice task failed");
    }
    if let Some(counting) = counting
        && let Err(error) = counting.await
    {
        tracing::error!(%error, "ticket counting task failed");
    }
    result
}

/// How often a replica counts the queued tickets for `ludus.matchmaking.tickets`.
pub const TICKET_COUNT_INTERVAL: Duration = Duration::from_secs(5);

/// The most tickets counted per queue: the gauge saturates there. A queue that long means the
/// matcher is stuck, and a bounded read keeps the count cheap (the matcher itself reads up to
/// `matcher::MATCH_BATCH` tickets per round of the queue it leases).
pub const TICKET_COUNT_CAP: usize = 1_000;

/// Queued tickets per queue for the observable gauge `ludus.matchmaking.tickets` (attribute
/// `queue`). A background task refreshes the counts from the store every
/// [`TICKET_COUNT_INTERVAL`]; the gauge's callback only reads them, so an export never waits
/// for Redis. Every replica reads the same shared queues: aggregate the gauge across replicas
/// with max, not sum.
#[derive(Clone, Debug, Default)]
pub struct TicketCounts {
    /// queue -> queued tickets. A queue that empties stays, at 0, so its series drops to 0
    /// instead of stopping at its last value.
    counts: Arc<Mutex<BTreeMap<String, u64>>>,
}

impl TicketCounts {
    /// Registers the gauge on `meter`; it reports the counts of the last refresh.
    pub fn observe(&self, meter: &Meter) {
        let counts = self.counts.clone();
        meter
            .u64_observable_gauge("ludus.matchmaking.tickets")
            .with_unit("{ticket}")
            .with_description(format!(
                "Queued tickets per queue (counted every {} s, at most {TICKET_COUNT_CAP})",
                TICKET_COUNT_INTERVAL.as_secs()
            ))
            .with_callback(move |observer| {
                // A poisoned lock only means a refresh panicked midway: the counts are
                // still numbers.
                let counts = counts.lock().unwrap_or_else(PoisonError::into_inner);
                for (queue, count) in counts.iter() {
                    observer.observe(*count, &[KeyValue::new("queue", queue.clone())]);
                }
            })
            .build();
    }

    /// Counts the queued tickets of every queue now.
    pub async fn refresh(&self, queues: &QueueStore) -> Result<(), ludus_store::StoreError> {
        let mut fresh = BTreeMap::new();
        for queue in queues.queues().await? {
            let queued = queues.queued(&queue, TICKET_COUNT_CAP).await?.len();
            fresh.insert(queue, u64::try_from(queued).unwrap_or(u64::MAX));
        }
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        for count in counts.values_mut() {
            *count = 0;
        }
        counts.extend(fresh);
        Ok(())
    }

    /// Refreshes every `interval` until `stop` is cancelled. A store error keeps the last
    /// counts until the next refresh.
    pub async fn run(self, queues: QueueStore, interval: Duration, stop: CancellationToken) {
        loop {
            if let Err(error) = self.refresh(&queues).await {
                tracing::debug!(%error, "could not count queued tickets");
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(interval) => {}
            }
        }
    }
}
