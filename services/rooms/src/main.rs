//! The standalone rooms server: parses flags, sets up telemetry, serves until ctrl-c or
//! SIGTERM.
#![forbid(unsafe_code)]

use clap::Parser;

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

/// The Ludus rooms service.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "LUDUS_ROOMS_LISTEN", default_value = "0.0.0.0:50056")]
    listen: String,
    /// The game-state service, where room games are created, e.g. `http://game-state:50051`.
    #[arg(long, env = "LUDUS_GAME_STATE_URL")]
    game_state_url: String,
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
    let _telemetry = args.service.start("rooms")?;
    let backend = args.redis.connect().await?;
    let listener = ludus_server::listen("rooms", &args.listen).await?;
    ludus_rooms::run(
        ludus_rooms::Config {
            backend,
            game_state_url: args.game_state_url,
            clock: ludus_store::Clock::system(),
        },
        listener,
        ludus_server::shutdown_signal(),
    )
    .await
}
