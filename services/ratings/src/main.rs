//! The standalone ratings server: parses flags, sets up telemetry, serves until ctrl-c or
//! SIGTERM.
#![forbid(unsafe_code)]

use clap::Parser;
use ludus_store::Backend;
use tokio::net::TcpListener;

/// The Ludus ratings service.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "LUDUS_RATINGS_LISTEN", default_value = "0.0.0.0:50054")]
    listen: String,
    /// The Redis holding session state, e.g. `redis://redis:6379`.
    #[arg(long, env = "LUDUS_REDIS_URL")]
    redis_url: String,
    #[command(flatten)]
    telemetry: ludus_telemetry::TelemetryFlags,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let _telemetry = ludus_telemetry::init("ratings", &args.telemetry)?;
    let backend = Backend::redis(&args.redis_url).await?;
    let listener = TcpListener::bind(&args.listen).await?;
    tracing::info!(address = %listener.local_addr()?, "ratings listening");
    ludus_ratings::run(
        ludus_ratings::Config { backend },
        listener,
        ludus_telemetry::shutdown_signal(),
    )
    .await
}
