//! The standalone accounts server: parses flags, connects to the database (running its
//! migrations), sets up telemetry, serves until ctrl-c or SIGTERM.
#![forbid(unsafe_code)]

use clap::Parser;
use ludus_accounts::AccountStore;
use tokio::net::TcpListener;

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

/// The Ludus accounts service.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "LUDUS_ACCOUNTS_LISTEN", default_value = ludus_accounts::config::DEFAULT_LISTEN)]
    listen: String,
    /// The SQL database: `postgres://user:password@host/db` in production, or
    /// `sqlite://path/accounts.db` (created when missing).
    #[arg(long, env = "LUDUS_DATABASE_URL", hide_env_values = true)]
    database_url: String,
    /// How long a refresh token is accepted, in days.
    #[arg(long, env = "LUDUS_REFRESH_TTL_DAYS", default_value_t = 30)]
    refresh_ttl_days: u64,
    #[command(flatten)]
    service: ludus_server::service_auth::ServiceFlags,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    ludus_server::runtime()?.block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
    let _telemetry = args.service.start("accounts")?;
    let store = AccountStore::connect(&args.database_url).await?;
    let mut config = ludus_accounts::Config::new(store);
    config.refresh_ttl = std::time::Duration::from_secs(args.refresh_ttl_days.max(1) * 24 * 3600);
    let listener = TcpListener::bind(&args.listen).await?;
    tracing::info!(address = %listener.local_addr()?, database = config.store.database(), "accounts listening");
    ludus_accounts::run(config, listener, ludus_server::shutdown_signal()).await
}
