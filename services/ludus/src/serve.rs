//! Every service in one process: the newcomer's `cargo run --release`.

use std::{net::SocketAddr, time::Duration};

use clap::Parser;
use ludus_store::Backend;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Flags of `ludus serve`.
#[derive(Parser, Debug)]
pub struct ServeArgs {
    /// Where the public gateway listens.
    #[arg(long, env = "LUDUS_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,
    /// Redis URL, e.g. redis://127.0.0.1:6379/; without it state lives in memory and is lost
    /// when the process stops.
    #[arg(long, env = "LUDUS_REDIS_URL")]
    pub redis_url: Option<String>,
    /// HS256 secret for session tokens (32+ bytes); a random one per run when absent, which
    /// signs everybody out at restart.
    #[arg(long, env = "LUDUS_TOKEN_SECRET", hide_env_values = true)]
    pub token_secret: Option<String>,
    /// Seconds per move in Caro quick matches (C12 says 60).
    #[arg(long, env = "LUDUS_CARO_TURN_SECONDS", default_value_t = 60)]
    pub caro_turn_seconds: u64,
    /// Seconds a disconnected player has to come back in games with a disconnection rule
    /// (Caro C13 says 60).
    #[arg(long, env = "LUDUS_ABSENCE_GRACE_SECONDS", default_value_t = 60)]
    pub absence_grace_seconds: u64,
    /// Guest sign-ins per second the gateway accepts, sustained. Raise it only for load
    /// benchmarks: sign-ins are unauthenticated.
    #[arg(long, env = "LUDUS_SIGN_INS_PER_SECOND", default_value_t = ludus_gateway::limits::SIGN_INS_PER_SECOND)]
    pub sign_ins_per_second: u32,
    /// Guest sign-ins the gateway accepts in a burst (benchmarks only, like the rate).
    #[arg(long, env = "LUDUS_SIGN_IN_BURST", default_value_t = ludus_gateway::limits::SIGN_IN_BURST)]
    pub sign_in_burst: u32,
    /// OTLP/gRPC endpoint for traces and metrics, e.g. http://127.0.0.1:4317.
    #[arg(long, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,
    /// Log JSON lines instead of text.
    #[arg(long, env = "LUDUS_JSON_LOGS")]
    pub json_logs: bool,
}

/// Runs until Ctrl-C or SIGTERM.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let _telemetry = ludus_telemetry::init(&ludus_telemetry::TelemetryConfig {
        service_name: "ludus".into(),
        otlp_endpoint: args.otlp_endpoint.clone(),
        json_logs: args.json_logs,
    })?;
    let backend = match &args.redis_url {
        Some(url) => Backend::redis(url).await?,
        None => Backend::memory(),
    };
    let secret = match &args.token_secret {
        Some(secret) => secret.as_bytes().to_vec(),
        None => random_secret(),
    };
    let stop = CancellationToken::new();
    let system = ludus::System::start(
        ludus::SystemConfig {
            backend,
            gateway: TcpListener::bind(args.listen).await?,
            token_secret: secret,
            caro_turn: Duration::from_secs(args.caro_turn_seconds),
            absence_grace: Duration::from_secs(args.absence_grace_seconds),
            sign_ins: ludus_gateway::limits::SignInLimit {
                per_second: args.sign_ins_per_second,
                burst: args.sign_in_burst,
            },
            per_player: ludus_gateway::limits::PlayerLimit::default(),
        },
        stop.clone(),
    )
    .await?;
    tracing::info!(
        gateway = %system.gateway,
        store = if args.redis_url.is_some() { "redis" } else { "memory" },
        "ludus is up"
    );
    ludus_telemetry::shutdown_signal().await;
    stop.cancel();
    system.wait().await
}

fn random_secret() -> Vec<u8> {
    use rand::RngExt;
    let mut rng = rand::rng();
    (0..48).map(|_| rng.random::<u8>()).collect()
}
