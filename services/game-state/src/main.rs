//! The standalone game-state server: parses flags, sets up telemetry, serves until Ctrl-C or
//! SIGTERM.
#![forbid(unsafe_code)]

use clap::Parser;

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

/// The Ludus game-state service.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "LUDUS_GAME_STATE_LISTEN", default_value = "0.0.0.0:50051")]
    listen: String,
    /// The ratings service.
    #[arg(
        long,
        env = "LUDUS_RATINGS_URL",
        default_value = "http://ratings:50054"
    )]
    ratings_url: String,
    /// The accounts service, which archives finished games.
    #[arg(
        long,
        env = "LUDUS_ACCOUNTS_URL",
        default_value = "http://accounts:50055"
    )]
    accounts_url: String,
    /// The rooms service, told when a room's game ends (ARCHITECTURE.md, "Rooms"), e.g. `http://rooms:50056`.
    #[arg(long, env = "LUDUS_ROOMS_URL", default_value = "http://rooms:50056")]
    rooms_url: String,
    /// Seconds a disconnected player has to come back in games with a disconnection rule
    /// (Caro C13 says 60).
    #[arg(long, env = "LUDUS_ABSENCE_GRACE_SECONDS", default_value_t = 60)]
    absence_grace_seconds: u64,
    /// Hours a finished game stays readable in Redis once archived (default a week); until
    /// the archive has it, 30 days.
    #[arg(
        long,
        env = "LUDUS_FINISHED_GAME_RETENTION_HOURS",
        default_value_t = 168
    )]
    finished_game_retention_hours: u64,
    /// How many games this replica keeps decoded between moves (the live-game cache: about
    /// 3 KiB each; Redis stays the truth). 0 turns it off.
    #[arg(
        long,
        env = "LUDUS_LIVE_CACHE_GAMES",
        default_value_t = ludus_game_state::service::DEFAULT_LIVE_CACHE_GAMES
    )]
    live_cache_games: usize,
    #[command(flatten)]
    redis: ludus_store::RedisFlags,
    #[command(flatten)]
    replica_wait: ludus_store::ReplicaWaitFlags,
    #[command(flatten)]
    service: ludus_server::service_auth::ServiceFlags,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    ludus_server::runtime()?.block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
    let _telemetry = args.service.start("game-state")?;
    let config = ludus_game_state::Config {
        backend: args.replica_wait.apply(args.redis.connect().await?).await?,
        ratings_url: args.ratings_url,
        accounts_url: args.accounts_url,
        rooms_url: Some(args.rooms_url),
        absence_grace: std::time::Duration::from_secs(args.absence_grace_seconds),
        finished_game_retention: std::time::Duration::from_secs(
            args.finished_game_retention_hours.saturating_mul(3600),
        ),
        clock: ludus_store::Clock::system(),
        live_cache_games: args.live_cache_games,
    };
    let listener = ludus_server::listen("game-state", &args.listen).await?;
    ludus_game_state::run(config, listener, ludus_server::shutdown_signal()).await
}
