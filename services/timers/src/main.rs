//! The standalone timers server: parses flags, sets up telemetry, serves and fires timers
//! until Ctrl-C or SIGTERM.
#![forbid(unsafe_code)]

use std::time::Duration;

use clap::Parser;

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

/// The Ludus timers service.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "LUDUS_TIMERS_LISTEN", default_value = "0.0.0.0:50053")]
    listen: String,
    /// game-state, which owns turn clocks.
    #[arg(
        long,
        env = "LUDUS_GAME_STATE_URL",
        default_value = "http://game-state:50051"
    )]
    game_state_url: String,
    /// rooms, which owns room countdowns (Q29).
    #[arg(long, env = "LUDUS_ROOMS_URL", default_value = "http://rooms:50056")]
    rooms_url: String,
    /// bots, which owns computer turns (ARCHITECTURE.md, "Computer players"); repeat the flag (or separate with commas)
    /// for one URL per replica.
    #[arg(
        long,
        env = "LUDUS_BOTS_URL",
        default_value = "http://bots:50057",
        value_delimiter = ','
    )]
    bots_url: Vec<String>,
    /// Seconds a claimed timer stays hidden before another replica may fire it again.
    #[arg(long, env = "LUDUS_TIMER_VISIBILITY_SECONDS", default_value_t = 10)]
    visibility_seconds: u64,
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
    let _telemetry = args.service.start("timers")?;
    let mut config = ludus_timers::Config::new(args.redis.connect().await?, args.game_state_url);
    config.rooms_url = Some(args.rooms_url);
    config.bots_urls = args.bots_url;
    config.visibility = Duration::from_secs(args.visibility_seconds.max(1));
    let listener = ludus_server::listen("timers", &args.listen).await?;
    ludus_timers::run(config, listener, ludus_server::shutdown_signal()).await
}
