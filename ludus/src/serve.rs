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
    /// Where the web client is served (open http://127.0.0.1:8080/ in a browser).
    #[arg(long, env = "LUDUS_WEB_LISTEN", default_value = "127.0.0.1:8080")]
    pub web_listen: SocketAddr,
    /// The built web client (`npm ci && npm run build` in clients/web writes it).
    #[arg(long, env = "LUDUS_WEB_DIR", default_value = "clients/web/dist")]
    pub web_dir: PathBuf,
    /// More web-page origins allowed to call the gateway with grpc-web, e.g.
    /// `http://192.168.1.5:8080` (repeat or separate with commas). The web client's own
    /// loopback origins are always allowed.
    #[arg(long, env = "LUDUS_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origin: Vec<String>,
    /// Redis URL, e.g. redis://127.0.0.1:6379/, or a Redis Cluster's nodes,
    /// redis+cluster://10.0.0.1:6379,10.0.0.2:6379; without it state lives in memory and is
    /// lost when the process stops.
    #[arg(long, env = "LUDUS_REDIS_URL")]
    pub redis_url: Option<String>,
    /// PEM CA certificate(s) a `rediss://` server's certificate must chain to (a private CA);
    /// without it TLS trusts the public web PKI.
    #[arg(long, env = "LUDUS_REDIS_CA_FILE", requires = "redis_url")]
    pub redis_ca_file: Option<PathBuf>,
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
    /// How long an account's access token lives, in seconds (900: 15 minutes). Shorten it only
    /// to test a client's refresh (the web client's browser test does).
    #[arg(long, env = "LUDUS_ACCESS_TOKEN_SECONDS", default_value_t = ludus_gateway::auth::ACCESS_TOKEN_TTL.as_secs())]
    pub access_token_seconds: u64,
    /// Quick-match clocks, milliseconds per turn by game, e.g. `caro=60000,quoridor=30000`;
    /// a game left out keeps its table policy's clock (the default shown).
    #[arg(long, env = "LUDUS_TURN_MS", default_value_t = ludus_matchmaking::QuickMatchClocks::default())]
    pub turn_ms: ludus_matchmaking::QuickMatchClocks,
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
    /// PEM certificate chain for the gateway: with `--tls-key` it serves TLS only (gRPC and
    /// grpc-web), read again when the file changes; the web page then calls it over https.
    #[arg(long, env = "LUDUS_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of `--tls-cert`.
    #[arg(long, env = "LUDUS_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    #[command(flatten)]
    pub internal_calls: ludus_server::local::InternalCallsFlags,
    #[command(flatten)]
    pub replica_wait: ludus_store::ReplicaWaitFlags,
    #[command(flatten)]
    pub telemetry: ludus_telemetry::TelemetryFlags,
}

/// Runs until Ctrl-C or SIGTERM.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    // Each service's spans under its own name (`ludus-game-state`, …).
    let _telemetry = ludus_telemetry::init_system("ludus", ludus::SERVICES, &args.telemetry)?;
    args.internal_calls.apply();
    let backend = match &args.redis_url {
        Some(url) => {
            let flags = ludus_store::RedisFlags {
                redis_url: url.clone(),
                redis_ca_file: args.redis_ca_file.clone(),
            };
            args.replica_wait.apply(flags.connect().await?).await?
        }
        None if args.replica_wait.wait().is_some() => {
            anyhow::bail!(
                "--redis-wait-replicas needs --redis-url: the in-memory store has no replicas"
            )
        }
        None => Backend::memory(),
    };
    let secret = match &args.token_secret {
        Some(secret) => secret.as_bytes().to_vec(),
        None => ludus::random_secret(),
    };
    let web_listener = TcpListener::bind(args.web_listen).await?;
    let web_address = web_listener.local_addr()?;
    let mut cors_origins = web_origins(web_address);
    cors_origins.extend(args.cors_origin.iter().cloned());
    let database_url = match &args.database_url {
        Some(url) => url.clone(),
        None => {
            create_private_dir(&args.data_dir)?;
            format!("sqlite://{}", args.data_dir.join("accounts.db").display())
        }
    };
    let gateway_tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(ludus_server::ServerTls::from_files(cert, key)?),
        _ => None,
    };
    let accounts_store = ludus_accounts::AccountStore::connect(&database_url).await?;
    let database = accounts_store.database();
    let stop = CancellationToken::new();
    let system = ludus::System::start(
        ludus::SystemConfig {
            backend,
            gateway: TcpListener::bind(args.listen).await?,
            token_secret: secret,
            access_token_ttl: Duration::from_secs(args.access_token_seconds),
            turn_ms: args.turn_ms,
            absence_grace: Duration::from_secs(args.absence_grace_seconds),
            cors_origins,
            clock: ludus_store::Clock::system(),
            sign_ins: ludus_gateway::limits::SignInLimit::at(
                args.sign_ins_per_second,
                args.sign_in_burst,
            ),
            per_player: ludus_gateway::limits::PlayerLimit::default(),
            accounts: ludus_accounts::Config::new(accounts_store),
            finished_game_retention: ludus_game_state::DEFAULT_FINISHED_GAME_RETENTION,
            bots: Default::default(),
            gateway_tls: gateway_tls.clone(),
        },
        stop.clone(),
    )
    .await?;
    let web = crate::web::WebConfig {
        dir: args.web_dir.clone(),
        gateway_port: system.gateway.port(),
        gateway_tls: gateway_tls.is_some(),
    };
    if !crate::web::is_built(&web.dir) {
        tracing::warn!(
            dir = %web.dir.display(),
            "the web client is not built: run `npm ci && npm run build` in clients/web"
        );
    }
    let web_server = tokio::spawn(crate::web::serve(
        web,
        web_listener,
        stop.clone().cancelled_owned(),
    ));
    tracing::info!(
        gateway = %system.gateway,
        gateway_tls = gateway_tls.is_some(),
        web = %format!("http://{web_address}/"),
        store = if args.redis_url.is_some() { "redis" } else { "memory" },
        accounts = database,
        "ludus is up"
    );
    ludus_server::shutdown_signal().await;
    stop.cancel();
    let web_result = web_server.await;
    system.wait().await?;
    web_result?
}

/// The origins a browser reports for pages from the web listener: the address itself, and
/// the usual loopback names when it is a loopback or any-address listener.
fn web_origins(web: SocketAddr) -> Vec<String> {
    let port = web.port();
    let mut origins = Vec::new();
    if web.ip().is_loopback() || web.ip().is_unspecified() {
        origins.push(format!("http://localhost:{port}"));
        origins.push(format!("http://127.0.0.1:{port}"));
        origins.push(format!("http://[::1]:{port}"));
    } else {
        origins.push(format!("http://{web}"));
    }
    origins
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
