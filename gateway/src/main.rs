//! The standalone gateway: parses flags, sets up telemetry, serves until Ctrl-C or SIGTERM.
#![forbid(unsafe_code)]

use std::time::Duration;

use clap::Parser;

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

/// The Ludus public gateway.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "LUDUS_GATEWAY_LISTEN", default_value = "0.0.0.0:50050")]
    listen: String,
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
    /// The rooms service.
    #[arg(long, env = "LUDUS_ROOMS_URL", default_value = "http://rooms:50056")]
    rooms_url: String,
    /// HS256 secret for session tokens, 32+ bytes; every gateway replica needs the same one.
    #[arg(long, env = "LUDUS_TOKEN_SECRET", hide_env_values = true)]
    token_secret: String,
    /// How long a guest token is valid, in hours.
    #[arg(long, env = "LUDUS_TOKEN_TTL_HOURS", default_value_t = 168)]
    token_ttl_hours: u64,
    /// How long an account's access token lives, in seconds (900: 15 minutes). Shorten it only
    /// to test a client's refresh.
    #[arg(long, env = "LUDUS_ACCESS_TOKEN_SECONDS", default_value_t = ludus_gateway::auth::ACCESS_TOKEN_TTL.as_secs())]
    access_token_seconds: u64,
    /// Origin of a web page allowed to call the gateway with grpc-web, e.g.
    /// `https://play.example.org` (repeat the flag or separate with commas); none by default.
    #[arg(long, env = "LUDUS_CORS_ORIGINS", value_delimiter = ',')]
    cors_origin: Vec<String>,
    /// Sign-ins per second this process accepts from one address, sustained. Raise it only for
    /// load benchmarks: sign-ins are unauthenticated (raised, new guests and registrations per
    /// address follow it).
    #[arg(long, env = "LUDUS_SIGN_INS_PER_SECOND", default_value_t = ludus_gateway::limits::SIGN_INS_PER_SECOND)]
    sign_ins_per_second: u32,
    /// Guest sign-ins this process accepts in a burst (benchmarks only, like the rate).
    #[arg(long, env = "LUDUS_SIGN_IN_BURST", default_value_t = ludus_gateway::limits::SIGN_IN_BURST)]
    sign_in_burst: u32,
    /// Seconds this gateway's lease over its players' event streams lasts unless renewed
    /// (every third of it): a gateway that dies has its players declared disconnected within
    /// about 4/3 of this (then C13's grace runs).
    #[arg(long, env = "LUDUS_PRESENCE_LEASE_SECONDS", default_value_t = ludus_gateway::presence::DEFAULT_LEASE.as_secs())]
    presence_lease_seconds: u64,
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
    let _telemetry = args.service.start("gateway")?;
    let config = ludus_gateway::Config {
        backend: args.redis.connect().await?,
        game_state_url: args.game_state_url,
        matchmaking_url: args.matchmaking_url,
        ratings_url: args.ratings_url,
        accounts_url: args.accounts_url,
        rooms_url: args.rooms_url,
        token_secret: args.token_secret.into_bytes(),
        token_ttl: Duration::from_secs(args.token_ttl_hours.max(1) * 3600),
        access_token_ttl: Duration::from_secs(args.access_token_seconds),
        cors_origins: args.cors_origin,
        sign_ins: ludus_gateway::limits::SignInLimit::at(
            args.sign_ins_per_second,
            args.sign_in_burst,
        ),
        per_player: ludus_gateway::limits::PlayerLimit::default(),
        presence_lease: Duration::from_secs(args.presence_lease_seconds.max(1)),
        clock: ludus_store::Clock::system(),
        lease_clock: ludus_store::Clock::system(),
        // `--tls-cert` / `--tls-key` (installed by `start` above).
        tls: ludus_server::tls::process_server(),
    };
    let listener = ludus_server::listen("gateway", &args.listen).await?;
    ludus_gateway::run(config, listener, ludus_server::shutdown_signal()).await
}
