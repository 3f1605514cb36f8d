//! The standalone ratings server: parses flags, sets up telemetry, serves until ctrl-c or
//! SIGTERM.
#![forbid(unsafe_code)]

use clap::Parser;

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

/// The Ludus ratings service.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "LUDUS_RATINGS_LISTEN", default_value = "0.0.0.0:50054")]
    listen: String,
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
    let _telemetry = args.service.start("ratings")?;
    let backend = args.redis.connect().await?;
    let listener = ludus_server::listen("ratings", &args.listen).await?;
    ludus_ratings::run(
        ludus_ratings::Config { backend },
        listener,
        ludus_server::shutdown_signal(),
    )
    .await
}
