//! The standalone gateway: parses flags, sets up telemetry, serves until Ctrl-C or SIGTERM.
#![forbid(unsafe_code)]

use std::time::Duration;

use clap::Parser;
use ludus_store::Backend;
use tokio::net::TcpListener;

/// The Ludus public gateway.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "LUDUS_GATEWAY_LISTEN", default_value = "0.0.0.0:50050")]
    listen: String,
    /// The Redis holding session state, e.g. `redis://redis:6379` (live events).
    #[arg(long, env = "LUDUS_REDIS_URL")]
    redis_url: String,
    /// game-state: snapshots, actions, event logs.
    #[arg(
        long,
        env = "LUDUS_GAME_STATE_URL",
        default_value = "http://game-state:50051"
    )]
    game_state_url: String,
    /// matchmaking: quick-match tickets.
    #[arg(
        long,
        env = "LUDUS_MATCHMAKING_URL",
        default_value = "http://matchmaking:50052"
    )]
    matchmaking_url: String,
    /// ratings: ratings and leaderboards.
    #[arg(
        long,
        env = "LUDUS_RATINGS_URL",
        default_value = "http://ratings:50054"
    )]
    ratings_url: String,
    /// accounts: registration, sign-in, sessions, profiles.
    #[arg(
        long,
        env = "LUDUS_ACCOUNTS_URL",
        default_value = "http://accounts:50055"
    )]
    accounts_url: String,
    /// HS256 secret for session tokens, 32+ bytes; every gateway replica needs the same one.
    #[arg(long, env = "LUDUS_TOKEN_SECRET", hide_env_values = true)]
    token_secret: String,
    /// How long a guest token is valid, in hours.
    #[arg(long, env = "LUDUS_TOKEN_TTL_HOURS", default_value_t = 168)]
    token_ttl_hours: u64,
    /// Origin of a web page allowed to call the gateway with grpc-web, e.g.
    /// `https://play.example.org` (repeat the flag or separate with commas); none by default.
    #[arg(long, env = "LUDUS_CORS_ORIGINS", value_delimiter = ',')]
    cors_origin: Vec<String>,
    #[command(flatten)]
    telemetry: ludus_telemetry::TelemetryFlags,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let _telemetry = ludus_telemetry::init("gateway", &args.telemetry)?;
    let config = ludus_gateway::Config {
        backend: Backend::redis(&args.redis_url).await?,
        game_state_url: args.game_state_url,
        matchmaking_url: args.matchmaking_url,
        ratings_url: args.ratings_url,
        accounts_url: args.accounts_url,
        token_secret: args.token_secret.into_bytes(),
        token_ttl: Duration::from_secs(args.token_ttl_hours.max(1) * 3600),
        cors_origins: args.cors_origin,
    };
    let listener = TcpListener::bind(&args.listen).await?;
    tracing::info!(address = %listener.local_addr()?, "gateway listening");
    ludus_gateway::run(config, listener, ludus_telemetry::shutdown_signal()).await
}
