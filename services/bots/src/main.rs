//! The standalone bots server: parses flags, sets up telemetry, serves until ctrl-c or
//! SIGTERM.
#![forbid(unsafe_code)]

use std::time::Duration;

use clap::Parser;

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

/// The Ludus bots service.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "LUDUS_BOTS_LISTEN", default_value = "0.0.0.0:50057")]
    listen: String,
    /// The game-state service, where bots read their turns and submit, e.g.
    /// `http://game-state:50051`.
    #[arg(long, env = "LUDUS_GAME_STATE_URL")]
    game_state_url: String,
    /// The longest a bot thinks about one turn, in milliseconds, whatever its level's work
    /// budget: past it the bot plays the best action found so far.
    #[arg(long, env = "LUDUS_BOTS_THINK_MS", default_value_t = 3_000)]
    think_ms: u64,
    #[command(flatten)]
    service: ludus_server::service_auth::ServiceFlags,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    ludus_server::runtime()?.block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
    let _telemetry = args.service.start("bots")?;
    let listener = ludus_server::listen("bots", &args.listen).await?;
    let mut config = ludus_bots::Config::new(args.game_state_url);
    config.think = Duration::from_millis(args.think_ms);
    ludus_bots::run(config, listener, ludus_server::shutdown_signal()).await
}
