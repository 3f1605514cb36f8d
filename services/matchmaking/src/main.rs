//! The standalone matchmaking server: parses flags, sets up telemetry, serves (and matches)
//! until ctrl-c or SIGTERM.
#![forbid(unsafe_code)]

use std::time::Duration;

use clap::Parser;
use ludus_matchmaking::{Config, QuickMatchClocks, RatingWindow};

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

/// The Ludus matchmaking service.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(
        long,
        env = "LUDUS_MATCHMAKING_LISTEN",
        default_value = "0.0.0.0:50052"
    )]
    listen: String,
    /// The game-state service, e.g. `http://game-state:50051`.
    #[arg(long, env = "LUDUS_GAME_STATE_URL")]
    game_state_url: String,
    /// The ratings service, asked for a player's rating when they queue (rating windows);
    /// set it empty to pair everyone first come, first served.
    #[arg(
        long,
        env = "LUDUS_RATINGS_URL",
        default_value = "http://ratings:50054"
    )]
    ratings_url: String,
    /// Rating difference paired at once (Elo).
    #[arg(long, env = "LUDUS_RATING_WINDOW", default_value_t = RatingWindow::DEFAULT.base)]
    rating_window: f64,
    /// How much the window widens per second of waiting (Elo).
    #[arg(long, env = "LUDUS_RATING_WINDOW_PER_SECOND", default_value_t = RatingWindow::DEFAULT.per_second)]
    rating_window_per_second: f64,
    /// Seconds after which a ticket pairs with any rating.
    #[arg(long, env = "LUDUS_RATING_WINDOW_OPEN_AFTER_SECONDS", default_value_t = RatingWindow::DEFAULT.open_after.as_secs())]
    rating_window_open_after_seconds: u64,
    /// The server's quick-match clocks, milliseconds per turn by game, e.g.
    /// `caro=60000,quoridor=30000`; a game left out keeps its table policy's clock (the
    /// default shown). Where a game's rule lets players queue for a clock of their own, theirs
    /// wins.
    #[arg(long, env = "LUDUS_TURN_MS", default_value_t = QuickMatchClocks::default())]
    turn_ms: QuickMatchClocks,
    /// How often the matcher polls the queues, milliseconds.
    #[arg(long, env = "LUDUS_MATCH_INTERVAL_MS", default_value_t = 100)]
    match_interval_ms: u64,
    /// Seconds a waiting ticket stays matchable unless its FindMatch stream's watch renews
    /// it (every third of this): a ticket nobody waits on any more is dropped, not matched.
    #[arg(long, env = "LUDUS_TICKET_LEASE_SECONDS", default_value_t = ludus_matchmaking::matcher::DEFAULT_TICKET_LEASE.as_secs())]
    ticket_lease_seconds: u64,
    /// Milliseconds a proposed table waits for every seat's confirmation (each player's
    /// gateway confirms that their FindMatch stream is still open) before its tickets go
    /// back to the queue.
    #[arg(long, env = "LUDUS_CONFIRM_WINDOW_MS", default_value_t = u64::try_from(ludus_matchmaking::matcher::DEFAULT_CONFIRM_WINDOW.as_millis()).unwrap_or(u64::MAX))]
    confirm_window_ms: u64,
    #[command(flatten)]
    redis: ludus_store::RedisFlags,
    #[command(flatten)]
    service: ludus_server::service_auth::ServiceFlags,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    ludus_server::runtime()?.block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
    let _telemetry = args.service.start("matchmaking")?;
    let config = Config {
        backend: args.redis.connect().await?,
        game_state_url: args.game_state_url,
        turn_ms: args.turn_ms,
        match_interval: Duration::from_millis(args.match_interval_ms.max(1)),
        ratings_url: Some(args.ratings_url).filter(|url| !url.is_empty()),
        rating_window: RatingWindow {
            base: args.rating_window,
            per_second: args.rating_window_per_second,
            open_after: Duration::from_secs(args.rating_window_open_after_seconds),
        },
        clock: ludus_store::Clock::system(),
        ticket_lease: Duration::from_secs(args.ticket_lease_seconds.max(1)),
        confirm_window: Duration::from_millis(args.confirm_window_ms.max(1)),
        lease_clock: ludus_store::Clock::system(),
    };
    let listener = ludus_server::listen("matchmaking", &args.listen).await?;
    ludus_matchmaking::run(config, listener, ludus_server::shutdown_signal()).await
}
