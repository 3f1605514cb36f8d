//! The standalone ratings server: parses flags, sets up telemetry, serves until ctrl-c or
//! SIGTERM.
#![forbid(unsafe_code)]

use clap::Parser;

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
    telemetry: ludus_telemetry::TelemetryFlags,
    #[command(flatten)]
    service_auth: ludus_telemetry::service_auth::ServiceAuthFlags,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let _telemetry = ludus_telemetry::init("ratings", &args.telemetry)?;
    ludus_telemetry::service_auth::install(
        args.service_auth.internal_secret.as_bytes(),
        "ratings",
    )?;
    let backend = args.redis.connect().await?;
    let listener = ludus_telemetry::listen("ratings", &args.listen).await?;
    ludus_ratings::run(
        ludus_ratings::Config { backend },
        listener,
        ludus_telemetry::shutdown_signal(),
    )
    .await
}
