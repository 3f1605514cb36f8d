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
    /// OTLP/gRPC endpoint for traces and metrics; none exported when unset.
    #[arg(long, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
    /// Log JSON lines instead of human-readable ones.
    #[arg(long, env = "LUDUS_JSON_LOGS")]
    json_logs: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let _telemetry = ludus_telemetry::init(&ludus_telemetry::TelemetryConfig {
        service_name: "ratings".into(),
        otlp_endpoint: args.otlp_endpoint,
        json_logs: args.json_logs,
    })?;
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
