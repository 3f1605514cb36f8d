//! The system under test: the all-in-one inside this process, the real service binaries as
//! child processes, or a system already running elsewhere; plus the `redis-server` it uses and
//! the client connections to it.

use std::{
    net::{Ipv4Addr, TcpListener as StdListener},
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use ludus_proto::pb::gateway_client::GatewayClient;
use ludus_store::Backend;
use ludus_tests::{Bearer, measure};
use tokio_util::sync::CancellationToken;
use tonic::{
    metadata::MetadataValue,
    service::interceptor::InterceptedService,
    transport::{Channel, Endpoint},
};

/// The secret every gateway of a run signs tokens with.
pub const TOKEN_SECRET: &str = "loadgen secret: 32+ bytes, loopback benchmarks only";

/// Guest sign-ins per second (and burst) the benchmark gateways allow: a run signs in
/// thousands of guests in seconds, far over the production limit.
pub const BENCHMARK_SIGN_INS: u32 = 1_000_000;

/// How long a started process has to accept connections.
const START_PATIENCE: Duration = Duration::from_secs(30);

/// Where the system runs.
#[derive(Debug, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum Where {
    /// Every service inside this process (the all-in-one library), on loopback gRPC.
    InProcess,
    /// The all-in-one (every service in one process, in-memory store, info-level logs as the
    /// `ludus` binary writes them) in a child process: its CPU is the server's alone, without
    /// the load generator's.
    AllInOne,
    /// `ludus-gateway`, `ludus-game-state`, `ludus-timers`, `ludus-ratings` and
    /// `ludus-matchmaking` as child processes (what Kubernetes runs).
    Processes,
}

/// How to reach or start the system.
#[derive(Debug, Clone, clap::Args)]
pub struct SystemArgs {
    /// Where the system runs (ignored with --gateway).
    #[arg(long, value_enum, default_value = "in-process")]
    pub system: Where,
    /// The in-memory store instead of a fresh redis-server (in-process only).
    #[arg(long)]
    pub memory: bool,
    /// Directory holding the service binaries (default: next to this binary).
    #[arg(long)]
    pub bin_dir: Option<PathBuf>,
    /// The service binaries predate the gateway's --sign-in-burst flag (e.g. a build of an
    /// older commit, for a before/after run): sign-ins then stay under the default limit.
    #[arg(long)]
    pub legacy_binaries: bool,
    /// An already running gateway (with --game-state): nothing is started.
    #[arg(long, requires = "game_state")]
    pub gateway: Option<String>,
    /// The running system's game-state (games are created through its internal API).
    #[arg(long)]
    pub game_state: Option<String>,
    /// Client connections to the gateway, shared round-robin by every simulated client.
    #[arg(long, default_value_t = 16)]
    pub connections: usize,
    /// An already running Redis (or Redis Cluster, `redis+cluster://...`) for the in-process
    /// system instead of a fresh redis-server (its CPU is then not measured), e.g. a cluster
    /// with replicas to measure `--redis-wait-replicas`.
    #[arg(long, conflicts_with = "memory")]
    pub redis_url: Option<String>,
    /// The in-process system's replica wait (as game-state's flags).
    #[command(flatten)]
    pub replica_wait: ludus_store::ReplicaWaitFlags,
    /// The gateway serves TLS with this PEM certificate (for `localhost`) and `--tls-key`;
    /// the clients trust `--tls-ca` (what TLS costs per move: run with and without).
    #[arg(long, requires_all = ["tls_key", "tls_ca"])]
    pub tls_cert: Option<PathBuf>,
    /// The key of `--tls-cert`.
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// The CA the clients trust for an `https://` gateway (also with `--gateway https://...`).
    #[arg(long)]
    pub tls_ca: Option<PathBuf>,
}

/// The gateway's certificate and key files, when it serves TLS.
type TlsFiles<'a> = Option<(&'a std::path::Path, &'a std::path::Path)>;

/// A `redis-server` child process on a free loopback port, killed on drop.
#[derive(Debug)]
pub struct Redis {
    child: Child,
    pub port: u16,
}

impl Redis {
    pub fn start() -> anyhow::Result<Redis> {
        let port = free_port()?;
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                anyhow::anyhow!("start redis-server (apt-get install redis-server): {e}")
            })?;
        let redis = Redis { child, port };
        wait_for_port(port)?;
        Ok(redis)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The internal secret of a benchmark run's service processes (a benchmark on loopback, not a
/// deployment: a fixed value is fine).
const INTERNAL_SECRET: &str = "loadgen internal secret, 32+ bytes long";

/// Child processes killed (SIGKILL) on drop.
#[derive(Debug, Default)]
pub struct Children(Vec<(String, Child)>);

impl Children {
    pub fn spawn(
        &mut self,
        bin_dir: &std::path::Path,
        name: &str,
        args: &[String],
    ) -> anyhow::Result<u32> {
        let path = bin_dir.join(name);
        let mut command = Command::new(&path);
        // The services' own log filter unless the run sets one for them (e.g. `warn`, to
        // measure what info-level logs and spans cost).
        if let Ok(filter) = std::env::var("LOADGEN_CHILD_LOG") {
            command.env("RUST_LOG", filter);
        }
        // Every service of one run signs its internal calls with the same secret.
        command.env("LUDUS_INTERNAL_SECRET", INTERNAL_SECRET);
        let child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                anyhow::anyhow!(
                    "start {}: {e} (build it: cargo build --release -p {name})",
                    path.display()
                )
            })?;
        let pid = child.id();
        self.0.push((name.to_owned(), child));
        Ok(pid)
    }

    pub fn pids(&self) -> Vec<(String, u32)> {
        self.0.iter().map(|(n, c)| (n.clone(), c.id())).collect()
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        for (_, child) in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A free loopback port (bound then released: another process could take it in between,
/// which a benchmark on a quiet machine tolerates).
pub fn free_port() -> anyhow::Result<u16> {
    Ok(StdListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// Waits until something accepts connections on `port`.
pub fn wait_for_port(port: u16) -> anyhow::Result<()> {
    let deadline = Instant::now() + START_PATIENCE;
    while std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        anyhow::ensure!(Instant::now() < deadline, "nothing listens on port {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// The directory of this executable: `cargo build --release` puts every binary there.
pub fn default_bin_dir() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    Ok(exe
        .parent()
        .ok_or_else(|| anyhow::anyhow!("{} has no directory", exe.display()))?
        .to_path_buf())
}

/// A running system and what to measure of it.
#[derive(Debug)]
pub struct System {
    pub gateway: String,
    pub game_state: String,
    /// The processes whose CPU time counts as the system's (including redis-server).
    pub measured: Vec<(String, u32)>,
    /// The gateway process, when it runs on its own (for its resident memory).
    pub gateway_pid: Option<u32>,
    /// Killed when the system is dropped.
    _children: Children,
    _redis: Option<Redis>,
    /// The accounts database (a SQLite file in a temp directory), removed on drop.
    _accounts_db: Option<ludus_accounts::testing::SqliteFile>,
    stop: CancellationToken,
    in_process: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    pub description: String,
}

impl System {
    pub async fn start(args: &SystemArgs) -> anyhow::Result<System> {
        if let Some(ca) = &args.tls_ca {
            ludus_server::tls::install_client_ca(std::fs::read(ca)?)?;
        }
        let tls = args.tls_cert.as_deref().zip(args.tls_key.as_deref());
        if let (Some(gateway), Some(game_state)) = (&args.gateway, &args.game_state) {
            return Ok(System {
                gateway: gateway.clone(),
                game_state: game_state.clone(),
                measured: Vec::new(),
                gateway_pid: None,
                _children: Children::default(),
                _redis: None,
                _accounts_db: None,
                stop: CancellationToken::new(),
                in_process: None,
                description: format!("running system at {gateway} (CPU and memory not measured)"),
            });
        }
        let mut system = match args.system {
            Where::InProcess => System::start_in_process(args, tls).await?,
            Where::AllInOne => {
                anyhow::ensure!(
                    tls.is_none() && args.redis_url.is_none(),
                    "--system all-in-one runs plain, on the in-memory store"
                );
                System::start_all_in_one_child().await?
            }
            Where::Processes => {
                anyhow::ensure!(!args.memory, "--memory runs in-process only");
                let bin_dir = match &args.bin_dir {
                    Some(dir) => dir.clone(),
                    None => default_bin_dir()?,
                };
                System::start_processes_with(&bin_dir, 1, 1, !args.legacy_binaries, tls)?
            }
        };
        if tls.is_some() {
            system.description.push_str(", gateway over TLS");
        }
        Ok(system)
    }

    async fn start_in_process(args: &SystemArgs, tls: TlsFiles<'_>) -> anyhow::Result<System> {
        let (backend, redis) = match (&args.redis_url, args.memory) {
            (_, true) => (Backend::memory(), None),
            (Some(url), false) => (Backend::redis(url).await?, None),
            (None, false) => {
                let redis = Redis::start()?;
                (Backend::redis(&redis.url()).await?, Some(redis))
            }
        };
        let backend = args.replica_wait.apply(backend).await?;
        let store = match (&args.redis_url, args.replica_wait.wait()) {
            (Some(url), Some(wait)) => format!(
                "redis at {url}, moves wait for {} replica(s) up to {} ms",
                wait.replicas,
                wait.timeout.as_millis()
            ),
            (Some(url), None) => format!("redis at {url}"),
            _ if redis.is_some() => "redis".to_owned(),
            _ => "memory".to_owned(),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let stop = CancellationToken::new();
        let accounts_db = ludus_accounts::testing::SqliteFile::new()?;
        let config = all_in_one_config(backend, listener, &accounts_db.url(), tls).await?;
        let system = ludus::System::start(config, stop.clone()).await?;
        let mut measured = vec![(
            "loadgen (all services and the client)".to_owned(),
            std::process::id(),
        )];
        if let Some(redis) = &redis {
            measured.push(("redis-server".into(), redis.pid()));
        }
        Ok(System {
            gateway: match tls {
                Some(_) => format!("https://localhost:{}", system.gateway.port()),
                None => format!("http://{}", system.gateway),
            },
            game_state: format!("http://{}", system.game_state),
            measured,
            gateway_pid: None,
            _children: Children::default(),
            description: format!("all-in-one in this process, {store} store"),
            _redis: redis,
            _accounts_db: Some(accounts_db),
            stop,
            in_process: Some(tokio::spawn(system.wait())),
        })
    }

    /// `loadgen all-in-one-serve` as a child process; game-state's address comes back through
    /// a file.
    async fn start_all_in_one_child() -> anyhow::Result<System> {
        // This process creates games through game-state's internal API, signed with the
        // secret the child installs.
        ludus_server::service_auth::install(INTERNAL_SECRET.as_bytes(), "loadgen")?;
        let gateway = free_port()?;
        let address_dir = tempfile::tempdir()?;
        let address_file = address_dir.path().join("game-state");
        // The child's accounts database lives in this process's temporary directory: the
        // child is killed (SIGKILL) and would never remove its own.
        let accounts_db = ludus_accounts::testing::SqliteFile::new()?;
        let mut children = Children::default();
        children.spawn(
            &default_bin_dir()?,
            &this_binary_name()?,
            &[
                "all-in-one-serve".into(),
                "--listen".into(),
                format!("127.0.0.1:{gateway}"),
                "--address-file".into(),
                address_file.display().to_string(),
                "--accounts-db".into(),
                accounts_db.url(),
            ],
        )?;
        wait_for_port(gateway)?;
        let deadline = Instant::now() + START_PATIENCE;
        let game_state = loop {
            if let Ok(address) = std::fs::read_to_string(&address_file)
                && address.ends_with('\n')
            {
                break address.trim().to_owned();
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "the all-in-one never wrote its address"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let measured = children.pids();
        Ok(System {
            gateway: format!("http://127.0.0.1:{gateway}"),
            game_state: format!("http://{game_state}"),
            gateway_pid: measured.first().map(|(_, pid)| *pid),
            measured,
            _children: children,
            _redis: None,
            _accounts_db: Some(accounts_db),
            stop: CancellationToken::new(),
            in_process: None,
            description: "all-in-one in a child process, memory store".into(),
        })
    }

    /// The five service binaries as child processes on one fresh redis-server, with
    /// `matchmakers` matchmaking replicas and `gateways` gateways (gateway i talks to
    /// matchmaking replica i % matchmakers).
    pub fn start_processes(
        bin_dir: &std::path::Path,
        gateways: usize,
        matchmakers: usize,
        raise_sign_in_limit: bool,
    ) -> anyhow::Result<System> {
        Self::start_processes_with(bin_dir, gateways, matchmakers, raise_sign_in_limit, None)
    }

    /// [`System::start_processes`] with the gateways serving TLS with `tls`, when given.
    fn start_processes_with(
        bin_dir: &std::path::Path,
        gateways: usize,
        matchmakers: usize,
        raise_sign_in_limit: bool,
        tls: TlsFiles<'_>,
    ) -> anyhow::Result<System> {
        // This process creates games through game-state's internal API: it signs those calls
        // with the run's secret, as the services do.
        ludus_server::service_auth::install(INTERNAL_SECRET.as_bytes(), "loadgen")?;
        let redis = Redis::start()?;
        let redis_url = redis.url();
        let url = |port: u16| format!("http://127.0.0.1:{port}");
        let listen = |port: u16| format!("127.0.0.1:{port}");
        let (game_state, timers, ratings) = (free_port()?, free_port()?, free_port()?);
        let mut children = Children::default();
        let mut ports = Vec::new();
        // Binaries older than the accounts service have no `ludus-accounts` (and their
        // game-state and gateway no --accounts-url): start it only when it is there.
        let accounts = bin_dir
            .join("ludus-accounts")
            .exists()
            .then(free_port)
            .transpose()?;
        let accounts_db = match accounts {
            Some(port) => {
                let db = ludus_accounts::testing::SqliteFile::new()?;
                children.spawn(
                    bin_dir,
                    "ludus-accounts",
                    &[
                        "--listen".into(),
                        listen(port),
                        "--database-url".into(),
                        db.url(),
                    ],
                )?;
                ports.push(port);
                Some(db)
            }
            None => None,
        };
        let accounts_url: Vec<String> = accounts
            .map(|port| vec!["--accounts-url".into(), url(port)])
            .unwrap_or_default();
        // Every other service listens on its own port and shares the one Redis.
        let on_redis = |port: u16| -> Vec<String> {
            vec![
                "--listen".into(),
                listen(port),
                "--redis-url".into(),
                redis_url.clone(),
            ]
        };
        children.spawn(bin_dir, "ludus-ratings", &on_redis(ratings))?;
        ports.push(ratings);
        children.spawn(
            bin_dir,
            "ludus-timers",
            &[
                on_redis(timers),
                vec!["--game-state-url".into(), url(game_state)],
            ]
            .concat(),
        )?;
        ports.push(timers);
        children.spawn(
            bin_dir,
            "ludus-game-state",
            &[
                on_redis(game_state),
                vec!["--ratings-url".into(), url(ratings)],
                accounts_url.clone(),
            ]
            .concat(),
        )?;
        ports.push(game_state);
        let mut matchmaking = Vec::new();
        for _ in 0..matchmakers.max(1) {
            let port = free_port()?;
            children.spawn(
                bin_dir,
                "ludus-matchmaking",
                &[
                    on_redis(port),
                    vec![
                        "--game-state-url".into(),
                        url(game_state),
                        "--ratings-url".into(),
                        url(ratings),
                    ],
                ]
                .concat(),
            )?;
            ports.push(port);
            matchmaking.push(port);
        }
        let mut gateway_ports = Vec::new();
        let mut gateway_pid = None;
        for i in 0..gateways.max(1) {
            let port = free_port()?;
            let mut args = on_redis(port);
            args.extend([
                "--game-state-url".into(),
                url(game_state),
                "--matchmaking-url".into(),
                url(matchmaking[i % matchmaking.len()]),
                "--ratings-url".into(),
                url(ratings),
                "--token-secret".into(),
                TOKEN_SECRET.into(),
            ]);
            args.extend(accounts_url.iter().cloned());
            if raise_sign_in_limit {
                args.extend([
                    "--sign-ins-per-second".into(),
                    BENCHMARK_SIGN_INS.to_string(),
                    "--sign-in-burst".into(),
                    BENCHMARK_SIGN_INS.to_string(),
                ]);
            }
            if let Some((cert, key)) = tls {
                args.extend([
                    "--tls-cert".into(),
                    cert.display().to_string(),
                    "--tls-key".into(),
                    key.display().to_string(),
                ]);
            }
            let pid = children.spawn(bin_dir, "ludus-gateway", &args)?;
            gateway_pid.get_or_insert(pid);
            ports.push(port);
            gateway_ports.push(port);
        }
        for port in ports {
            wait_for_port(port)?;
        }
        let mut measured = children.pids();
        measured.push(("redis-server".into(), redis.pid()));
        Ok(System {
            gateway: gateway_ports
                .iter()
                .map(|&p| match tls {
                    Some(_) => format!("https://localhost:{p}"),
                    None => url(p),
                })
                .collect::<Vec<_>>()
                .join(","),
            game_state: url(game_state),
            measured,
            gateway_pid,
            _children: children,
            _redis: Some(redis),
            _accounts_db: accounts_db,
            stop: CancellationToken::new(),
            in_process: None,
            description: format!(
                "{gateways} gateway(s), {matchmakers} matchmaking replica(s), game-state, timers, ratings as processes from {}, one redis-server",
                bin_dir.display()
            ),
        })
    }

    /// The port of the redis-server this system started, if it started one.
    pub fn redis_port(&self) -> Option<u16> {
        self._redis.as_ref().map(|redis| redis.port)
    }

    /// Commands the system's redis-server has run so far, by name (`INFO commandstats`);
    /// empty when it started none.
    pub fn redis_calls(&self) -> std::collections::BTreeMap<String, u64> {
        let Some(port) = self.redis_port() else {
            return Default::default();
        };
        let Ok(out) = Command::new("redis-cli")
            .args(["-p", &port.to_string(), "INFO", "commandstats"])
            .output()
        else {
            return Default::default();
        };
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| {
                let (name, stats) = line.strip_prefix("cmdstat_")?.split_once(':')?;
                let calls = stats
                    .split(',')
                    .next()?
                    .strip_prefix("calls=")?
                    .parse()
                    .ok()?;
                Some((name.to_owned(), calls))
            })
            .collect()
    }

    pub fn measured_pids(&self) -> Vec<u32> {
        self.measured.iter().map(|(_, pid)| *pid).collect()
    }

    /// Each measured process's CPU time now, to hand to [`System::cpu_by_process_since`].
    pub fn cpu_each(&self) -> Vec<Duration> {
        self.measured
            .iter()
            .map(|(_, pid)| measure::cpu_time(*pid))
            .collect()
    }

    /// The CPU each kind of process spent since `before` (from [`System::cpu_each`]),
    /// replicas of one name summed, in the order the processes were started.
    pub fn cpu_by_process_since(&self, before: &[Duration]) -> Vec<(String, Duration)> {
        let mut by_process: Vec<(String, Duration)> = Vec::new();
        for ((name, pid), before) in self.measured.iter().zip(before) {
            let spent = measure::cpu_time(*pid).saturating_sub(*before);
            match by_process.iter_mut().find(|(seen, _)| seen == name) {
                Some((_, total)) => *total += spent,
                None => by_process.push((name.clone(), spent)),
            }
        }
        by_process
    }

    /// Stops what this run started.
    pub async fn stop(mut self) {
        self.stop.cancel();
        if let Some(task) = self.in_process.take() {
            let _ = tokio::time::timeout(Duration::from_secs(20), task).await;
        }
    }
}

/// Round-robin client connections (each one HTTP/2 connection).
#[derive(Debug, Clone)]
pub struct Pool {
    channels: Vec<Channel>,
}

impl Pool {
    /// `count` connections spread over the comma-separated `urls`.
    pub async fn connect(urls: &str, count: usize) -> anyhow::Result<Pool> {
        let urls: Vec<&str> = urls.split(',').collect();
        let mut channels = Vec::new();
        for i in 0..count.max(1) {
            let endpoint = Endpoint::from_shared(urls[i % urls.len()].to_owned())?;
            // `https://` with the CA of `--tls-ca`.
            let channel = ludus_server::tls::with_client_tls(endpoint)?
                .tcp_nodelay(true)
                .connect()
                .await?;
            channels.push(channel);
        }
        Ok(Pool { channels })
    }

    pub fn get(&self, i: usize) -> Channel {
        self.channels[i % self.channels.len()].clone()
    }

    /// A connection for calling an internal service as a Ludus service does: with this
    /// process's service credential (internal servers refuse calls without one) and trace
    /// context.
    pub fn internal(&self, i: usize) -> InterceptedService<Channel, ludus_server::TraceContext> {
        InterceptedService::new(self.get(i), ludus_server::TraceContext)
    }

    pub fn len(&self) -> usize {
        self.channels.len()
    }
}

/// A signed-in gateway client.
pub type Client = GatewayClient<InterceptedService<Channel, Bearer>>;

/// Signs a guest in over `channel` and returns their id and client.
pub async fn sign_in(channel: Channel, name: &str) -> anyhow::Result<(String, Client)> {
    let (player_id, authorization) = sign_in_authorization(channel.clone(), name).await?;
    let bearer: MetadataValue<_> = authorization.parse()?;
    Ok((
        player_id,
        GatewayClient::with_interceptor(channel, Bearer::new(bearer)),
    ))
}

/// Signs a guest in over `channel` and returns their id and the `authorization` value
/// (`Bearer <token>`) of their calls, for calls made without the typed client.
pub async fn sign_in_authorization(
    channel: Channel,
    name: &str,
) -> anyhow::Result<(String, String)> {
    let session = GatewayClient::new(channel)
        .sign_in_guest(ludus_proto::pb::SignInGuestRequest {
            display_name: name.to_owned(),
        })
        .await
        .map_err(|s| anyhow::anyhow!("sign in {name}: {s}"))?
        .into_inner();
    Ok((session.player_id, format!("Bearer {}", session.token)))
}

/// Flags of `loadgen all-in-one-serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct AllInOneServeArgs {
    /// Where the gateway listens.
    #[arg(long)]
    pub listen: std::net::SocketAddr,
    /// Where to write game-state's address (one line) once the system is up.
    #[arg(long)]
    pub address_file: PathBuf,
    /// The accounts database (`sqlite://...`), made and removed by the parent.
    #[arg(long)]
    pub accounts_db: String,
    /// In memory or over loopback (the parent's `LUDUS_INTERNAL_CALLS` reaches the child).
    #[command(flatten)]
    pub internal_calls: ludus_server::local::InternalCallsFlags,
}

/// `loadgen all-in-one-serve`: the all-in-one on the in-memory store, with the `ludus`
/// binary's info-level logs (to stdout, which the parent discards), until killed.
pub async fn serve_all_in_one(args: AllInOneServeArgs) -> anyhow::Result<()> {
    let _telemetry = ludus_telemetry::init_system(
        "ludus",
        ludus::SERVICES,
        &ludus_telemetry::TelemetryFlags::default(),
    )?;
    // The parent signs its CreateGame calls with the run's internal secret.
    ludus_server::service_auth::install(INTERNAL_SECRET.as_bytes(), "ludus")?;
    args.internal_calls.apply();
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let config = all_in_one_config(Backend::memory(), listener, &args.accounts_db, None).await?;
    let system = ludus::System::start(config, CancellationToken::new()).await?;
    std::fs::write(&args.address_file, format!("{}\n", system.game_state))?;
    system.wait().await
}

/// The all-in-one's configuration for a benchmark: the run's token secret, the benchmark
/// sign-in limit, accounts in the database at `accounts_db` (a URL).
async fn all_in_one_config(
    backend: Backend,
    gateway: tokio::net::TcpListener,
    accounts_db: &str,
    tls: TlsFiles<'_>,
) -> anyhow::Result<ludus::SystemConfig> {
    let accounts =
        ludus_accounts::Config::new(ludus_accounts::AccountStore::connect(accounts_db).await?);
    Ok(ludus::SystemConfig {
        backend,
        gateway,
        token_secret: TOKEN_SECRET.as_bytes().to_vec(),
        access_token_ttl: ludus_gateway::auth::ACCESS_TOKEN_TTL,
        turn_ms: Default::default(),
        absence_grace: Duration::from_secs(60),
        sign_ins: ludus_gateway::limits::SignInLimit::at(BENCHMARK_SIGN_INS, BENCHMARK_SIGN_INS),
        per_player: ludus_gateway::limits::PlayerLimit::default(),
        cors_origins: Vec::new(),
        clock: ludus_store::Clock::system(),
        accounts,
        finished_game_retention: ludus::DEFAULT_FINISHED_GAME_RETENTION,
        bots: Default::default(),
        gateway_tls: tls
            .map(|(cert, key)| ludus_server::ServerTls::from_files(cert, key))
            .transpose()?,
    })
}

/// The file name of this executable (it starts itself as the floor's servers and the
/// all-in-one child).
pub fn this_binary_name() -> anyhow::Result<String> {
    let exe = std::env::current_exe()?;
    exe.file_name()
        .and_then(|n| n.to_str())
        .map(str::to_owned)
        .ok_or_else(|| anyhow::anyhow!("this binary has no name"))
}
