//! Every service in one process: the newcomer's `cargo run --release`.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use clap::Parser;
use ludus_store::Backend;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Where `ludus serve` keeps durable data unless told otherwise: beside where it runs, so a
/// newcomer sees it (and can delete it) at once.
pub const DEFAULT_DATA_DIR: &str = "ludus-data";

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
    /// Directory for durable data: accounts live in `accounts.db` (SQLite) there unless
    /// `--database-url` says otherwise. Created when missing.
    #[arg(long, env = "LUDUS_DATA_DIR", default_value = DEFAULT_DATA_DIR)]
    pub data_dir: PathBuf,
    /// SQL database for accounts instead of the SQLite file, e.g.
    /// postgres://ludus:secret@127.0.0.1/ludus.
    #[arg(long, env = "LUDUS_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
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
    let database_url = match &args.database_url {
        Some(url) => url.clone(),
        None => {
            create_private_dir(&args.data_dir)?;
            format!("sqlite://{}", args.data_dir.join("accounts.db").display())
        }
    };
    let accounts_store = ludus_accounts::AccountStore::connect(&database_url).await?;
    let database = accounts_store.database();
    let stop = CancellationToken::new();
    let system = ludus::System::start(
        ludus::SystemConfig {
            backend,
            gateway: TcpListener::bind(args.listen).await?,
            token_secret: secret,
            caro_turn: Duration::from_secs(args.caro_turn_seconds),
            absence_grace: Duration::from_secs(args.absence_grace_seconds),
            accounts: ludus_accounts::Config::new(accounts_store),
        },
        stop.clone(),
    )
    .await?;
    tracing::info!(
        gateway = %system.gateway,
        store = if args.redis_url.is_some() { "redis" } else { "memory" },
        accounts = database,
        "ludus is up"
    );
    ludus_telemetry::shutdown_signal().await;
    stop.cancel();
    system.wait().await
}

/// Creates `dir` (and its parents) readable by the user only, where the platform allows: the
/// accounts database in it holds password hashes.
fn create_private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

fn random_secret() -> Vec<u8> {
    use rand::RngExt;
    let mut rng = rand::rng();
    (0..48).map(|_| rng.random::<u8>()).collect()
}
