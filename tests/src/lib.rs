//! The end-to-end harness: a real `redis-server` on a free port, the whole Ludus system on
//! loopback gRPC against it, and gateway clients that sign in like any app does.
//!
//! With `LUDUS_TEST_REDIS=cluster` in the environment every system a test starts on Redis
//! runs on a fresh local three-master Redis Cluster instead (`testing::RedisCluster`), so the
//! same tests show the system works on a cluster (`scripts/test.sh` runs a subset that way).
//!
//! # Layout
//! - [`Ludus`]: a running system (Redis or in-memory store) and its addresses.
//! - [`Player`]: a signed-in gateway client with helpers for the common calls.
//! - [`quick_match_table`] / [`quick_match_pair`]: players quick-matched into one game, by
//!   seat; [`refused_by_rule`]: an action refused by a rule; [`finished_by_timeout`] and the
//!   other stream readers: events as they come.
//! - [`cluster`]: the multi-process harness (the real binaries as separate processes, SIGKILL
//!   and restart one at a time; ARCHITECTURE.md, "Faults: the multi-process harness").
//! - [`load`]: what the multi-process load plays (Caro cells, queues) and what its clients
//!   retry, shared by the kill scenarios and the soak.
//! - [`measure`]: what the benchmark binaries (`loadgen`, `matchbench`) measure: latency
//!   percentiles, CPU time and memory of processes.
#![forbid(unsafe_code)]

pub mod cluster;
pub mod load;
pub mod measure;
pub mod raw;

use std::{net::SocketAddr, time::Duration};

use ludus_accounts::{
    limits::SignInLimitsConfig,
    testing::{PostgresServer, SqliteFile},
};
use ludus_proto::pb::{self, game_state_client::GameStateClient, gateway_client::GatewayClient};
use ludus_store::{
    Backend, Clock, ManualClock,
    testing::{RedisCluster, RedisServer},
};
use tokio::net::TcpListener;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::{
    Request, Status, Streaming,
    metadata::MetadataValue,
    service::interceptor::InterceptedService,
    transport::{Channel, Endpoint},
};

/// How long a test waits for something that should happen promptly on an idle machine before
/// failing. A bound on a hang, never a performance assertion; tests wait [`patience`].
pub const PATIENCE: Duration = Duration::from_secs(20);

/// A port for a server a test starts: free now and outside the kernel's ephemeral range
/// ([`ludus_store::testing::free_port`]).
pub fn free_port() -> u16 {
    ludus_store::testing::free_port().expect("a free port")
}

/// [`PATIENCE`] stretched by how busy the machine is ([`ludus_store::testing::patience`]).
pub fn patience() -> Duration {
    ludus_store::testing::patience(PATIENCE)
}

/// The Python interpreter with grpcio and grpcio-tools for the Python clients in
/// `tests/python`: `LUDUS_PYTHON` (scripts/test.sh points it at the virtual environment it
/// installs them into), else `python3`; `None` (the test says it skipped) only when neither
/// exists. CI always has one.
pub fn python_with_grpc() -> Option<String> {
    if let Ok(python) = std::env::var("LUDUS_PYTHON") {
        return Some(python);
    }
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok();
    if !found {
        eprintln!("SKIPPED: python3 is not installed: the Python grpcio client did not run");
        return None;
    }
    Some("python3".to_owned())
}

/// The one web-page origin the test system's gateway lets call it with grpc-web (CORS).
pub const WEB_ORIGIN: &str = "http://ludus-web.test:8080";

/// A running Ludus system.
#[derive(Debug)]
pub struct Ludus {
    pub gateway: SocketAddr,
    pub game_state: SocketAddr,
    /// The system's rooms server (internal API).
    pub rooms: SocketAddr,
    stop: CancellationToken,
    system: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    /// The store every service shares (for setting up what no public call can, like a
    /// player's rating history).
    backend: Backend,
    /// Kept alive for the test's lifetime; killed on drop.
    redis: Option<TestRedis>,
    /// The clock every service reads, when the test moves time itself ([`Ludus::advance`]).
    manual_clock: Option<ManualClock>,
    /// The accounts service's SQL database (a SQLite file unless a test asks for PostgreSQL).
    accounts_db: AccountsDatabase,
    /// The internal services a gateway calls besides game-state and rooms (for
    /// [`Ludus::start_gateway_with_matchmaking`]).
    internal: GatewayUpstreams,
}

/// Where a gateway of the system under test finds matchmaking, ratings and accounts.
#[derive(Debug, Clone, Copy)]
struct GatewayUpstreams {
    matchmaking: SocketAddr,
    ratings: SocketAddr,
    accounts: SocketAddr,
}

/// The session-token secret of every system the harness starts.
const TOKEN_SECRET: &[u8] = b"end-to-end tests secret, 32+ bytes long";

/// The guest sign-in limit of a test system's gateways: every test's clients share
/// 127.0.0.1, so the new-guest limit per address would refuse a test's fortieth player. Its
/// own tests are the gateway's unit tests; registrations and room-code lookups keep their
/// production limits.
fn test_sign_ins() -> ludus_gateway::limits::SignInLimit {
    ludus_gateway::limits::SignInLimit {
        guests_per_minute: 10_000,
        guest_burst: 10_000,
        ..Default::default()
    }
}

/// Each player's call rate at a test system's gateways: replies no longer stall ~40 ms
/// (TCP_NODELAY), so a test plays a whole game in milliseconds, far over a human's 20
/// calls/s; no end-to-end test is about the per-player rate (the gateway's unit tests are).
fn test_player_limit() -> ludus_gateway::limits::PlayerLimit {
    ludus_gateway::limits::PlayerLimit {
        per_second: 10_000,
        burst: 10_000,
    }
}

/// The Redis a test system runs on: one `redis-server`, or a local Redis Cluster when
/// `LUDUS_TEST_REDIS=cluster` ([`TEST_REDIS_VAR`]).
#[derive(Debug)]
pub enum TestRedis {
    /// One node.
    Server(RedisServer),
    /// Three masters.
    Cluster(RedisCluster),
}

/// The environment variable that puts every Redis test system on a Redis Cluster: set it to
/// `cluster`.
pub const TEST_REDIS_VAR: &str = "LUDUS_TEST_REDIS";

impl TestRedis {
    /// A fresh one of the kind the environment asks for ([`TEST_REDIS_VAR`]).
    pub fn start() -> TestRedis {
        match std::env::var(TEST_REDIS_VAR).as_deref() {
            Ok("cluster") => {
                TestRedis::Cluster(RedisCluster::start().unwrap_or_else(|e| panic!("{e}")))
            }
            Ok("") | Ok("server") | Err(_) => {
                TestRedis::Server(RedisServer::start().unwrap_or_else(|e| panic!("{e}")))
            }
            Ok(other) => panic!("{TEST_REDIS_VAR}={other:?}: expected `cluster` or `server`"),
        }
    }

    /// The URL the services connect to (`redis://` or `redis+cluster://`).
    pub fn url(&self) -> String {
        match self {
            TestRedis::Server(server) => server.url(),
            TestRedis::Cluster(cluster) => cluster.url(),
        }
    }
}

/// The SQL database behind the accounts service of a test system.
#[derive(Debug)]
pub enum AccountsDatabase {
    /// A SQLite file in a temp directory.
    Sqlite(SqliteFile),
    /// A real PostgreSQL server started for the test.
    Postgres(PostgresServer),
}

impl AccountsDatabase {
    /// A fresh SQLite file.
    pub fn sqlite() -> Self {
        AccountsDatabase::Sqlite(SqliteFile::new().expect("temp dir for SQLite"))
    }

    /// A fresh PostgreSQL server (fails, never skips, when PostgreSQL is not installed).
    pub fn postgres() -> Self {
        AccountsDatabase::Postgres(PostgresServer::start().unwrap_or_else(|e| panic!("{e}")))
    }

    fn url(&self) -> String {
        match self {
            AccountsDatabase::Sqlite(file) => file.url(),
            AccountsDatabase::Postgres(server) => server.url(),
        }
    }

    /// The PostgreSQL server, to stop and start it (database outage tests).
    pub fn postgres_server(&mut self) -> Option<&mut PostgresServer> {
        match self {
            AccountsDatabase::Postgres(server) => Some(server),
            AccountsDatabase::Sqlite(_) => None,
        }
    }
}

/// The Caro options tests use unless they say otherwise: 15x15, blocked ends, not exactly
/// five (the C5 defaults).
pub fn caro_settings() -> pb::GameSettings {
    pb::GameSettings {
        options: Some(pb::game_settings::Options::Caro(pb::CaroOptions::default())),
        turn_time_ms: 0,
    }
}

/// How a test system is set up beyond its store: every test changes at most one or two of
/// these, so each `Ludus::start_*` names only what it changes.
struct Setup {
    turn_ms: ludus_matchmaking::QuickMatchClocks,
    absence_grace: Duration,
    /// The clock every service reads, when the test moves time itself.
    manual_clock: Option<ManualClock>,
    accounts_db: AccountsDatabase,
    sign_in_limits: SignInLimitsConfig,
    finished_game_retention: Duration,
    bots: ludus::BotsSettings,
    /// The gateway's certificate, for a system whose gateway serves TLS.
    gateway_tls: Option<ludus_server::ServerTls>,
}

impl Setup {
    /// C12's one minute per move, C13's minute of grace, the system clock, accounts on a fresh
    /// SQLite file with the default limits, and the default retention.
    fn new() -> Setup {
        Setup {
            turn_ms: Default::default(),
            absence_grace: Duration::from_secs(60),
            manual_clock: None,
            accounts_db: AccountsDatabase::sqlite(),
            sign_in_limits: SignInLimitsConfig::default(),
            finished_game_retention: ludus::DEFAULT_FINISHED_GAME_RETENTION,
            bots: ludus::BotsSettings {
                // A test build is unoptimised: short thinks keep games quick, and a bot out
                // of time still plays a legal action.
                think: Duration::from_millis(200),
                other_replicas: Vec::new(),
            },
            gateway_tls: None,
        }
    }
}

impl Ludus {
    /// The system on a fresh redis-server with the C12 clock (one minute per move).
    pub async fn start() -> Ludus {
        Ludus::start_on_redis(Setup::new()).await
    }

    /// The system on a fresh redis-server with a custom grace for disconnected players (C13
    /// says one minute), on a manual clock: the grace runs out when the test calls
    /// [`Ludus::advance`].
    pub async fn start_with_absence_grace(grace: Duration) -> Ludus {
        Ludus::start_on_redis(Setup {
            absence_grace: grace,
            manual_clock: Some(ManualClock::starting_now()),
            ..Setup::new()
        })
        .await
    }

    /// The system on a fresh redis-server with the C12 clock, on a manual clock the test
    /// moves with [`Ludus::advance`].
    pub async fn start_on_manual_clock() -> Ludus {
        Ludus::start_on_redis(Setup {
            manual_clock: Some(ManualClock::starting_now()),
            ..Setup::new()
        })
        .await
    }

    /// The system on a fresh redis-server with accounts on `accounts` and the given failed
    /// sign-in limits.
    pub async fn start_with_accounts(
        accounts: AccountsDatabase,
        limits: SignInLimitsConfig,
    ) -> Ludus {
        Ludus::start_on_redis(Setup {
            accounts_db: accounts,
            sign_in_limits: limits,
            ..Setup::new()
        })
        .await
    }

    /// The system on a fresh redis-server with accounts (and the archive) on `accounts`, and
    /// finished games kept in Redis for `retention` once archived.
    pub async fn start_with_retention(accounts: AccountsDatabase, retention: Duration) -> Ludus {
        Ludus::start_on_redis(Setup {
            accounts_db: accounts,
            finished_game_retention: retention,
            ..Setup::new()
        })
        .await
    }

    /// The system on a fresh redis-server and a manual clock, with `replica` as a second bots
    /// replica the timers worker offers computer turns to first (a replica stopped
    /// mid-think).
    pub async fn start_with_bots_replica(replica: &SpareBots) -> Ludus {
        let mut setup = Setup {
            manual_clock: Some(ManualClock::starting_now()),
            ..Setup::new()
        };
        setup.bots.other_replicas.push(replica.url());
        Ludus::start_on_redis(setup).await
    }

    /// The system on `backend`, a store the test set up itself (e.g. on a Redis Cluster with
    /// replicas it kills nodes of, waiting for replicas or not) and keeps running.
    pub async fn start_on_backend(backend: Backend) -> Ludus {
        Ludus::start_on(backend, None, Setup::new()).await
    }

    /// The system on a fresh redis-server with a gateway serving TLS with `tls` (gRPC and
    /// grpc-web on its one port).
    pub async fn start_with_gateway_tls(tls: ludus_server::ServerTls) -> Ludus {
        Ludus::start_on_redis(Setup {
            gateway_tls: Some(tls),
            ..Setup::new()
        })
        .await
    }

    /// The system on the in-memory store.
    pub async fn start_in_memory() -> Ludus {
        Ludus::start_on(Backend::memory(), None, Setup::new()).await
    }

    async fn start_on_redis(setup: Setup) -> Ludus {
        let redis = TestRedis::start();
        let backend = Backend::redis(&redis.url())
            .await
            .expect("connect to the test Redis");
        Ludus::start_on(backend, Some(redis), setup).await
    }

    /// Moves every service's clock forward by `by`, then waits until every timer due by then
    /// has fired and its owner answered (the timers worker wakes when time moves): whatever
    /// those deadlines do has happened when this returns.
    ///
    /// # Panics
    /// When the system runs on the system clock, or the timers do not settle in [`PATIENCE`].
    pub async fn advance(&self, by: Duration) {
        let manual = self
            .manual_clock
            .as_ref()
            .expect("this system runs on the system clock: start it on a manual one");
        manual.advance(by);
        // Settled: nothing due now, and nothing in flight. A claimed timer is rescored to its
        // claim deadline, now + visibility, until its owner answers and it is deleted; the
        // clock stands still between advances, so an in-flight timer scores exactly that.
        let visibility =
            u64::try_from(ludus_timers::DEFAULT_VISIBILITY.as_millis()).expect("visibility in ms");
        let timers = ludus_store::TimerStore::new(self.backend.clone());
        let now = manual.clock().now_ms();
        let due_by = async |at: u64| timers.counts(at).await.expect("count timers").1;
        let settled = async {
            loop {
                let in_flight = due_by(now + visibility).await - due_by(now + visibility - 1).await;
                if due_by(now).await == 0 && in_flight == 0 {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::time::timeout(PATIENCE, settled)
            .await
            .expect("the timers due by now fire and are answered");
    }

    async fn start_on(backend: Backend, redis: Option<TestRedis>, setup: Setup) -> Ludus {
        let Setup {
            turn_ms,
            absence_grace,
            manual_clock,
            accounts_db,
            sign_in_limits,
            finished_game_retention,
            bots,
            gateway_tls,
        } = setup;
        let gateway = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let mut accounts = ludus_accounts::Config::new(
            ludus_accounts::AccountStore::connect(&accounts_db.url())
                .await
                .expect("open the accounts database"),
        );
        accounts.sign_in_limits = sign_in_limits;
        let stop = CancellationToken::new();
        let system = ludus::System::start(
            ludus::SystemConfig {
                backend: backend.clone(),
                gateway,
                token_secret: TOKEN_SECRET.to_vec(),
                access_token_ttl: ludus_gateway::auth::ACCESS_TOKEN_TTL,
                turn_ms,
                absence_grace,
                cors_origins: vec![WEB_ORIGIN.to_owned()],
                clock: manual_clock
                    .as_ref()
                    .map_or_else(Clock::system, ManualClock::clock),
                sign_ins: test_sign_ins(),
                per_player: test_player_limit(),
                accounts,
                finished_game_retention,
                bots,
                gateway_tls,
            },
            stop.clone(),
        )
        .await
        .expect("start the system");
        let (gateway, game_state, rooms) = (system.gateway, system.game_state, system.rooms);
        let internal = GatewayUpstreams {
            matchmaking: system.matchmaking,
            ratings: system.ratings,
            accounts: system.accounts,
        };
        Ludus {
            internal,
            gateway,
            game_state,
            rooms,
            stop,
            system: Some(tokio::spawn(system.wait())),
            backend,
            redis,
            manual_clock,
            accounts_db,
        }
    }

    /// When the durable timer `key` is due (Unix ms), if it is armed.
    pub async fn timer_due(&self, key: &str) -> Option<u64> {
        ludus_store::TimerStore::new(self.backend.clone())
            .get(key)
            .await
            .expect("read a timer")
            .map(|(due, _)| due)
    }

    /// Starts one more rooms server on the system's store and clock (the system's own
    /// replica keeps serving the gateway and the timers): its address, and its task, which
    /// the test may abort to kill the replica abruptly (no drain, connections cut).
    pub async fn start_rooms_replica(&self) -> (SocketAddr, tokio::task::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let config = ludus_rooms::Config {
            backend: self.backend.clone(),
            game_state_url: format!("http://{}", self.game_state),
            clock: self
                .manual_clock
                .as_ref()
                .map_or_else(Clock::system, ManualClock::clock),
        };
        let task = tokio::spawn(async move {
            if let Err(error) = ludus_rooms::run(config, listener, std::future::pending()).await {
                panic!("the rooms replica failed: {error:#}");
            }
        });
        (addr, task)
    }

    /// The queue and ticket id `player` has waiting in matchmaking, if any.
    pub async fn live_ticket(&self, player: &Player) -> Option<(String, String)> {
        ludus_store::QueueStore::new(self.backend.clone())
            .live_ticket(&player.id)
            .await
            .expect("read the player's ticket")
    }

    /// Kills the redis-server (an outage) and returns its port, for [`Ludus::restart_redis`].
    ///
    /// # Panics
    /// When the system runs on the in-memory store or on a Redis Cluster.
    pub fn kill_redis(&mut self) -> u16 {
        let redis = match self.redis.take() {
            Some(TestRedis::Server(server)) => server,
            Some(TestRedis::Cluster(_)) => {
                panic!("this system runs on a Redis Cluster: outages are tested on one node")
            }
            None => panic!("this system runs on the in-memory store"),
        };
        let port = redis.port();
        drop(redis);
        port
    }

    /// Starts an empty redis-server on `port` again (the services reconnect by themselves).
    pub fn restart_redis(&mut self, port: u16) {
        self.redis = Some(TestRedis::Server(
            RedisServer::start_on(port).unwrap_or_else(|e| panic!("{e}")),
        ));
    }

    /// The accounts database (to take a PostgreSQL server down and up again).
    pub fn accounts_db(&mut self) -> &mut AccountsDatabase {
        &mut self.accounts_db
    }

    /// Gives `player` a rating in `ruleset` as if they had played `games` rated games (what
    /// the ratings service writes after games; a test cannot play hundreds of them).
    pub async fn seed_rating(&self, ruleset: &str, player: &Player, rating: f64, games: u32) {
        let update = ludus_store::RatingUpdate {
            player_id: player.id.clone(),
            display_name: player.name.clone(),
            expected_version: 0,
            rating,
            games,
        };
        let outcome = ludus_store::RatingStore::new(self.backend.clone())
            .record(ruleset, &format!("seed-{}", player.id), &[update], b"seed")
            .await
            .expect("seed a rating");
        assert!(
            matches!(outcome, ludus_store::RecordOutcome::Recorded),
            "{outcome:?}"
        );
    }

    /// The URL of the system's redis-server, when it runs on one node (for reading keys as
    /// they are stored); `None` on the in-memory store and on a Redis Cluster.
    pub fn redis_url(&self) -> Option<String> {
        match &self.redis {
            Some(TestRedis::Server(server)) => Some(server.url()),
            _ => None,
        }
    }

    /// The Redis Cluster the system runs on, when it does (`LUDUS_TEST_REDIS=cluster`).
    pub fn redis_cluster(&self) -> Option<&RedisCluster> {
        match &self.redis {
            Some(TestRedis::Cluster(cluster)) => Some(cluster),
            _ => None,
        }
    }

    /// Whether this system runs on Redis.
    pub fn on_redis(&self) -> bool {
        self.backend.is_redis()
    }

    /// A raw gateway channel (no token).
    pub async fn channel(&self) -> Channel {
        connect(self.gateway).await
    }

    /// Signs a guest in and returns their client.
    pub async fn player(&self, name: &str) -> Player {
        sign_in(self.gateway, name).await
    }

    /// Registers an account named `name` (a unique username made from it) and returns its
    /// client: quick matches are then rated by default (M12: guests play casual).
    pub async fn account(&self, name: &str) -> Player {
        register(self.gateway, name).await
    }

    /// Signs in one guest per name, in order (see [`Ludus::player`]).
    pub async fn players<const N: usize>(&self, names: [&str; N]) -> [Player; N] {
        let mut players = Vec::with_capacity(N);
        for name in names {
            players.push(self.player(name).await);
        }
        players.try_into().expect("one player per name")
    }

    /// Registers one account per name, in order (see [`Ludus::account`]).
    pub async fn accounts<const N: usize>(&self, names: [&str; N]) -> [Player; N] {
        let mut players = Vec::with_capacity(N);
        for name in names {
            players.push(self.account(name).await);
        }
        players.try_into().expect("one account per name")
    }

    /// Creates a game through game-state's internal API (what matchmaking and rooms do), for
    /// setups quick match cannot make: `players` in seat order; an empty `game_id` lets
    /// game-state choose one. Returns the spectator snapshot.
    pub async fn create_game(
        &self,
        game_id: &str,
        settings: pb::GameSettings,
        players: &[&Player],
    ) -> pb::GameSnapshot {
        let mut internal = GameStateClient::new(connect_internal(self.game_state).await);
        let response = internal
            .create_game(pb::CreateGameRequest {
                game_id: game_id.to_owned(),
                settings: Some(settings),
                players: players
                    .iter()
                    .map(|p| pb::PlayerRef {
                        player_id: p.id.clone(),
                        display_name: p.name.clone(),
                        computer_level: String::new(),
                    })
                    .collect(),
                casual: false,
                room_code: String::new(),
            })
            .await
            .expect("create game")
            .into_inner();
        assert!(response.created, "a new game");
        response.game.expect("snapshot")
    }

    /// Stops every service and waits for them.
    /// Starts one more gateway in front of this system (stopped with it), calling matchmaking
    /// at `matchmaking` (a test's stand-in, e.g. a replica of another release) and every other
    /// service where the system's own gateway does; returns its address. Tokens of either
    /// gateway are good at both (one secret).
    pub async fn start_gateway_with_matchmaking(&self, matchmaking: SocketAddr) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let url = |addr: SocketAddr| format!("http://{addr}");
        let config = ludus_gateway::Config {
            backend: self.backend.clone(),
            game_state_url: url(self.game_state),
            matchmaking_url: url(matchmaking),
            ratings_url: url(self.internal.ratings),
            accounts_url: url(self.internal.accounts),
            rooms_url: url(self.rooms),
            token_secret: TOKEN_SECRET.to_vec(),
            token_ttl: ludus_gateway::auth::DEFAULT_TOKEN_TTL,
            access_token_ttl: ludus_gateway::auth::ACCESS_TOKEN_TTL,
            cors_origins: Vec::new(),
            sign_ins: test_sign_ins(),
            per_player: test_player_limit(),
            presence_lease: ludus_gateway::presence::DEFAULT_LEASE,
            clock: self
                .manual_clock
                .as_ref()
                .map_or_else(Clock::system, ManualClock::clock),
            lease_clock: Clock::system(),
            tls: None,
        };
        tokio::spawn(ludus_gateway::run(
            config,
            listener,
            self.stop.clone().cancelled_owned(),
        ));
        addr
    }

    /// The system's own matchmaking server (internal API).
    pub fn matchmaking(&self) -> SocketAddr {
        self.internal.matchmaking
    }

    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(system) = self.system.take() {
            let result = tokio::time::timeout(PATIENCE, system)
                .await
                .expect("services stop");
            result.expect("no panic").expect("services stop cleanly");
        }
    }
}

impl Drop for Ludus {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Signs a guest in at the gateway on `gateway` and returns their client.
pub async fn sign_in(gateway: SocketAddr, name: &str) -> Player {
    try_sign_in(gateway, name).await.expect("sign in")
}

/// [`sign_in`] that reports a gateway that is down or refusing (for callers that retry
/// through faults, like the soak).
pub async fn try_sign_in(gateway: SocketAddr, name: &str) -> Result<Player, Status> {
    let channel = Endpoint::from_shared(format!("http://{gateway}"))
        .map_err(|e| Status::invalid_argument(e.to_string()))?
        .connect_timeout(Duration::from_secs(1))
        .connect_lazy();
    sign_in_over(channel, name).await
}

/// Signs a guest in over `channel` (any transport: a TLS channel, say) and returns their
/// client on it.
pub async fn sign_in_over(channel: Channel, name: &str) -> Result<Player, Status> {
    let session = GatewayClient::new(channel.clone())
        .sign_in_guest(pb::SignInGuestRequest {
            display_name: name.to_owned(),
        })
        .await?
        .into_inner();
    let bearer: MetadataValue<_> = format!("Bearer {}", session.token)
        .parse()
        .map_err(|_| Status::internal("the session token is not ascii"))?;
    Ok(Player {
        id: session.player_id,
        name: name.to_owned(),
        client: GatewayClient::with_interceptor(channel, Bearer(bearer)),
        token: session.token,
        actions: 0,
    })
}

/// Registers an account displayed as `name` at the gateway on `gateway` (the username is
/// made unique per call) and returns its client.
pub async fn register(gateway: SocketAddr, name: &str) -> Player {
    static ACCOUNTS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = ACCOUNTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let letters: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(12)
        .collect::<String>()
        .to_ascii_lowercase();
    let mut anonymous = GatewayClient::new(connect(gateway).await);
    let session = anonymous
        .register(pb::RegisterRequest {
            username: format!("{letters}_{n}_{}", std::process::id() % 10_000),
            password: "correct horse battery".into(),
            display_name: name.to_owned(),
        })
        .await
        .expect("register")
        .into_inner();
    account_player(gateway, &session).await
}

/// A client holding an account's access token (from Register, SignIn, Refresh or
/// UpgradeGuest).
pub async fn account_player(gateway: SocketAddr, session: &pb::AccountSession) -> Player {
    let account = session
        .account
        .clone()
        .expect("the session names its account");
    let bearer: MetadataValue<_> = format!("Bearer {}", session.access_token)
        .parse()
        .expect("token is ascii");
    Player {
        id: account.player_id,
        name: account.display_name,
        client: GatewayClient::with_interceptor(connect(gateway).await, Bearer(bearer)),
        token: session.access_token.clone(),
        actions: 0,
    }
}

/// A client with no token, connecting from `source` (any 127.x.y.z address: the gateway sees
/// it as the peer address, as it would see different machines).
pub async fn anonymous_from(
    gateway: SocketAddr,
    source: std::net::IpAddr,
) -> GatewayClient<Channel> {
    GatewayClient::new(connect_from(gateway, source).await)
}

/// Connects to a loopback server from `source` (any 127.x.y.z address), which the server
/// sees as the peer address.
pub async fn connect_from(addr: SocketAddr, source: std::net::IpAddr) -> Channel {
    Endpoint::from_shared(format!("http://{addr}"))
        .expect("uri")
        .local_address(Some(source))
        .connect()
        .await
        .expect("connect")
}

/// Connects to a loopback server.
pub async fn connect(addr: SocketAddr) -> Channel {
    Endpoint::from_shared(format!("http://{addr}"))
        .expect("uri")
        .connect()
        .await
        .expect("connect")
}

/// A channel to an internal server that calls as a Ludus service does: with this process's
/// service credential (the system under test installed it) and trace context.
pub async fn connect_internal(
    addr: SocketAddr,
) -> tonic::service::interceptor::InterceptedService<Channel, ludus_server::TraceContext> {
    tonic::service::interceptor::InterceptedService::new(
        connect(addr).await,
        ludus_server::TraceContext,
    )
}

/// A bots replica outside the system, on its own tokio runtime: [`SpareBots::kill`] drops
/// that runtime with every task and connection on it, as if its process died (a think in
/// progress on the blocking pool finishes into nothing and is never submitted).
pub struct SpareBots {
    listener: Option<std::net::TcpListener>,
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
    /// Each think waits here before it searches, once `hold` was asked for.
    entered: std::sync::mpsc::Receiver<()>,
    release: Option<std::sync::mpsc::Sender<()>>,
    hook: ludus_bots::ThinkHook,
}

impl std::fmt::Debug for SpareBots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpareBots")
            .field("addr", &self.addr)
            .finish()
    }
}

impl SpareBots {
    /// Binds the replica's port (so the system can be told its URL) and makes every think it
    /// starts hold until the replica is killed.
    pub fn holding_every_think() -> SpareBots {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (entered_tx, entered) = std::sync::mpsc::channel();
        let (release, release_rx) = std::sync::mpsc::channel::<()>();
        let entered_tx = std::sync::Mutex::new(entered_tx);
        let release_rx = std::sync::Mutex::new(release_rx);
        let hook: ludus_bots::ThinkHook = std::sync::Arc::new(move || {
            let _ = entered_tx
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .send(());
            // Returns once the sender is dropped (at kill).
            let _ = release_rx
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .recv();
        });
        SpareBots {
            listener: Some(listener),
            addr,
            runtime: None,
            entered,
            release: Some(release),
            hook,
        }
    }

    /// Its URL, for the timers worker.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Starts serving, calling `ludus`'s game-state.
    pub fn start(&mut self, ludus: &Ludus) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime for the spare replica");
        let listener = self.listener.take().expect("started once");
        listener.set_nonblocking(true).expect("nonblocking");
        let mut config = ludus_bots::Config::new(format!("http://{}", ludus.game_state));
        config.before_think = Some(self.hook.clone());
        runtime.spawn(async move {
            let listener = TcpListener::from_std(listener).expect("tokio listener");
            ludus_bots::run(config, listener, std::future::pending()).await
        });
        self.runtime = Some(runtime);
    }

    /// Waits until the replica is thinking about a turn.
    pub async fn thinking(&self) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            if self.entered.try_recv().is_ok() {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the spare replica got a turn"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Stops the replica as a crash would: every task and connection on its runtime is gone.
    pub fn kill(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
        // The held think may return now; its answer has nowhere to go.
        self.release.take();
    }
}

/// Adds the bearer token to every call, as a mobile app does.
#[derive(Clone, Debug)]
pub struct Bearer(MetadataValue<tonic::metadata::Ascii>);

impl Bearer {
    /// Sends `value` (`Bearer <token>`) as the `authorization` header.
    pub fn new(value: MetadataValue<tonic::metadata::Ascii>) -> Self {
        Bearer(value)
    }
}

impl tonic::service::Interceptor for Bearer {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        request
            .metadata_mut()
            .insert("authorization", self.0.clone());
        Ok(request)
    }
}

/// A signed-in player.
#[derive(Debug)]
pub struct Player {
    pub id: String,
    pub name: String,
    pub client: GatewayClient<InterceptedService<Channel, Bearer>>,
    /// The bearer token the client sends (for calls made without the typed client).
    pub token: String,
    actions: u64,
}

impl Player {
    /// The same player (token, action ids continuing) on the gateway on `gateway`: a client
    /// reconnecting elsewhere after its gateway died. The channel dials on its first call, so
    /// a gateway that is down shows as UNAVAILABLE there.
    pub fn on_gateway(&self, gateway: SocketAddr) -> Player {
        let channel = Endpoint::from_shared(format!("http://{gateway}"))
            .expect("uri")
            .connect_timeout(Duration::from_secs(1))
            .connect_lazy();
        let bearer: MetadataValue<_> = format!("Bearer {}", self.token)
            .parse()
            .expect("token is ascii");
        Player {
            id: self.id.clone(),
            name: self.name.clone(),
            client: GatewayClient::with_interceptor(channel, Bearer(bearer)),
            token: self.token.clone(),
            actions: self.actions,
        }
    }

    /// `FindMatch` with `settings` in the queue `ranking` picks: the ticket's updates, or the
    /// refusal.
    pub async fn queue(
        &mut self,
        settings: pb::GameSettings,
        ranking: pb::MatchRanking,
    ) -> Result<Streaming<pb::FindMatchUpdate>, Status> {
        self.client
            .find_match(pb::FindMatchRequest {
                settings: Some(settings),
                ranking: ranking as i32,
            })
            .await
            .map(tonic::Response::into_inner)
    }

    /// Queues for a quick match with `settings`: the ticket's updates, as they come.
    pub async fn ticket_updates(
        &mut self,
        settings: pb::GameSettings,
    ) -> Streaming<pb::FindMatchUpdate> {
        self.queue(settings, pb::MatchRanking::Default)
            .await
            .expect("find match")
    }

    /// Quick-matches with `settings` and returns (game id, seat) once matched.
    pub async fn find_match(&mut self, settings: pb::GameSettings) -> (String, u32) {
        matched(self.ticket_updates(settings).await).await
    }

    /// The game as this player sees it.
    pub async fn game(&mut self, game_id: &str) -> pb::GameSnapshot {
        self.client
            .get_game(pb::GetGameRequest {
                game_id: game_id.to_owned(),
            })
            .await
            .expect("get game")
            .into_inner()
            .game
            .expect("snapshot")
    }

    /// A fresh action id.
    pub fn next_action_id(&mut self) -> String {
        self.actions += 1;
        format!("{}-{}", self.id, self.actions)
    }

    /// Submits an action in notation with an explicit seq and action id.
    pub async fn submit(
        &mut self,
        game_id: &str,
        expected_seq: u64,
        action_id: &str,
        notation: &str,
    ) -> Result<pb::SubmitActionResponse, Status> {
        self.client
            .submit_action(pb::SubmitActionRequest {
                game_id: game_id.to_owned(),
                expected_seq,
                action_id: action_id.to_owned(),
                action: Some(pb::Action::notation(notation)),
            })
            .await
            .map(tonic::Response::into_inner)
    }

    /// Submits a structured action (not notation) at `expected_seq` with a fresh action id.
    pub async fn submit_structured(
        &mut self,
        game_id: &str,
        expected_seq: u64,
        action: pb::action::Action,
    ) -> Result<pb::SubmitActionResponse, Status> {
        let action_id = self.next_action_id();
        self.client
            .submit_action(pb::SubmitActionRequest {
                game_id: game_id.to_owned(),
                expected_seq,
                action_id,
                action: Some(pb::Action {
                    action: Some(action),
                }),
            })
            .await
            .map(tonic::Response::into_inner)
    }

    /// Resigns (leaves) the game; returns the event that ended it.
    pub async fn resign(&mut self, game_id: &str) -> Result<pb::GameEvent, Status> {
        self.client
            .resign(pb::ResignRequest {
                game_id: game_id.to_owned(),
            })
            .await
            .map(|r| r.into_inner().event.expect("event"))
    }

    /// Offers a draw; returns the DrawOffered event.
    pub async fn offer_draw(&mut self, game_id: &str) -> Result<pb::GameEvent, Status> {
        self.client
            .offer_draw(pb::OfferDrawRequest {
                game_id: game_id.to_owned(),
            })
            .await
            .map(|r| r.into_inner().event.expect("event"))
    }

    /// Answers the opponent's draw offer; returns the DrawAgreed or DrawDeclined event.
    pub async fn respond_draw(
        &mut self,
        game_id: &str,
        accept: bool,
    ) -> Result<pb::GameEvent, Status> {
        self.client
            .respond_draw(pb::RespondDrawRequest {
                game_id: game_id.to_owned(),
                accept,
            })
            .await
            .map(|r| r.into_inner().event.expect("event"))
    }

    /// Plays `notation` at the game's current seq; returns the event.
    pub async fn play(&mut self, game_id: &str, notation: &str) -> Result<pb::GameEvent, Status> {
        let seq = self.game(game_id).await.seq;
        let action_id = self.next_action_id();
        self.submit(game_id, seq, &action_id, notation)
            .await
            .map(|r| r.event.expect("event"))
    }

    /// Subscribes to a game's events after `after_seq`.
    pub async fn subscribe(&mut self, game_id: &str, after_seq: u64) -> Streaming<pb::GameEvent> {
        self.client
            .subscribe(pb::SubscribeRequest {
                game_id: game_id.to_owned(),
                after_seq,
            })
            .await
            .expect("subscribe")
            .into_inner()
    }

    /// This player's rating in a pool once exactly `games` of their games there are rated: results
    /// reach ratings through a durable timer after the final move, not with it, so this
    /// polls (up to [`PATIENCE`]).
    pub async fn rating_after(&mut self, ruleset: &str, games: u32) -> pb::Rating {
        tokio::time::timeout(PATIENCE, async {
            loop {
                let rating = self.rating(ruleset).await;
                if rating.games == games {
                    return rating;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{games} rated game(s) in {ruleset} in time"))
    }

    /// This player's rating in a pool.
    pub async fn rating(&mut self, ruleset: &str) -> pb::Rating {
        self.client
            .get_rating(pb::GetRatingRequest {
                ruleset: ruleset.to_owned(),
                player_id: String::new(),
            })
            .await
            .expect("rating")
            .into_inner()
    }

    /// The first page (ten entries) of a pool's leaderboard.
    pub async fn leaderboard(&mut self, ruleset: &str) -> pb::GetLeaderboardResponse {
        self.client
            .get_leaderboard(pb::GetLeaderboardRequest {
                ruleset: ruleset.to_owned(),
                limit: 10,
                offset: 0,
            })
            .await
            .expect("leaderboard")
            .into_inner()
    }

    /// `GetProfile` of this player's own account, with its rating in each of `rulesets`.
    pub async fn own_profile(&mut self, rulesets: &[&str]) -> Result<pb::Profile, Status> {
        self.client
            .get_profile(pb::GetProfileRequest {
                player_id: String::new(),
                rulesets: rulesets.iter().map(|r| (*r).to_owned()).collect(),
            })
            .await
            .map(tonic::Response::into_inner)
    }
}

/// Follows a quick-match ticket's updates until it is matched: (game id, seat).
pub async fn matched(mut updates: Streaming<pb::FindMatchUpdate>) -> (String, u32) {
    let wait = async {
        while let Some(update) = updates.next().await {
            let update = update.expect("ticket update");
            if update.state == pb::TicketState::Matched as i32 {
                return (update.game_id, update.seat);
            }
            assert_ne!(update.state, pb::TicketState::Cancelled as i32);
        }
        panic!("the match stream ended before a match");
    };
    tokio::time::timeout(PATIENCE, wait)
        .await
        .expect("matched in time")
}

/// Registers one account per name (rated queues are for accounts, M12), quick-matches them all
/// with `settings` and returns the game
/// with the players in seat order, after checking that they share one table and that every
/// seat is taken once.
pub async fn quick_match_table(
    ludus: &Ludus,
    names: &[&str],
    settings: pb::GameSettings,
) -> (String, Vec<Player>) {
    let mut joined = Vec::new();
    for name in names {
        joined.push(ludus.account(name).await);
    }
    let matches =
        futures::future::join_all(joined.iter_mut().map(|p| p.find_match(settings.clone()))).await;
    let game = matches[0].0.clone();
    assert!(
        matches.iter().all(|(g, _)| *g == game),
        "every ticket is matched into one game"
    );
    let mut by_seat: Vec<(u32, Player)> =
        matches.iter().map(|(_, seat)| *seat).zip(joined).collect();
    by_seat.sort_by_key(|(seat, _)| *seat);
    let seats: Vec<u32> = by_seat.iter().map(|(s, _)| *s).collect();
    let all: Vec<u32> = (0..).take(names.len()).collect();
    assert_eq!(seats, all, "every seat taken once");
    (game, by_seat.into_iter().map(|(_, p)| p).collect())
}

/// [`quick_match_table`] for two: the game, then seat 0's player and seat 1's.
pub async fn quick_match_pair(
    ludus: &Ludus,
    names: [&str; 2],
    settings: pb::GameSettings,
) -> (String, Player, Player) {
    let (game, players) = quick_match_table(ludus, &names, settings).await;
    let [first, second]: [Player; 2] = players.try_into().expect("two players");
    (game, first, second)
}

/// The refusal of an action that should have been refused.
pub fn refused<T: std::fmt::Debug>(result: Result<T, Status>) -> Status {
    match result {
        Ok(accepted) => panic!("accepted: {accepted:?}"),
        Err(status) => status,
    }
}

/// Checks that `result` is a refusal by the rules (`FAILED_PRECONDITION`) whose message starts
/// with `prefix` (the rule id, and as much of the message as the test pins); returns it.
#[track_caller]
pub fn refused_by_rule<T: std::fmt::Debug>(result: Result<T, Status>, prefix: &str) -> Status {
    refused_with(result, tonic::Code::FailedPrecondition, prefix)
}

/// Checks that `result` is a refusal with `code` whose message starts with `prefix` (the field
/// or rule it names, and as much of the message as the test pins); returns it.
#[track_caller]
pub fn refused_with<T: std::fmt::Debug>(
    result: Result<T, Status>,
    code: tonic::Code,
    prefix: &str,
) -> Status {
    let status = refused(result);
    assert_eq!(status.code(), code, "{status:?}");
    assert!(
        status.message().starts_with(prefix),
        "{:?} should start with {prefix:?}",
        status.message()
    );
    status
}

/// Reads events until the one that finishes the game (or `PATIENCE` runs out).
pub async fn events_until_finished(stream: &mut Streaming<pb::GameEvent>) -> Vec<pb::GameEvent> {
    let collect = async {
        let mut events = Vec::new();
        while let Some(event) = stream.next().await {
            let event = event.expect("event");
            let finished = event.status == pb::GameStatus::Finished as i32;
            events.push(event);
            if finished {
                break;
            }
        }
        events
    };
    tokio::time::timeout(PATIENCE, collect)
        .await
        .expect("the game finished in time")
}

/// Reads events until the game finishes and checks that a turn clock running out finished
/// it: the timeout, the final event's outcome, and the final event.
pub async fn finished_by_timeout(
    stream: &mut Streaming<pb::GameEvent>,
) -> (pb::TurnTimedOut, pb::Outcome, pb::GameEvent) {
    let events = events_until_finished(stream).await;
    let last = events.last().expect("final event").clone();
    let Some(pb::game_event::Kind::TurnTimedOut(timeout)) = &last.kind else {
        panic!("the game ends by a timeout, got {:?}", last.kind);
    };
    let outcome = last.outcome.clone().expect("outcome");
    (timeout.clone(), outcome, last)
}

/// The next event of a stream.
pub async fn next_event(stream: &mut Streaming<pb::GameEvent>) -> pb::GameEvent {
    tokio::time::timeout(PATIENCE, stream.next())
        .await
        .expect("an event in time")
        .expect("stream open")
        .expect("event")
}

/// Reads events until a turn clock runs out: the timeout and the event that carries it.
pub async fn next_timeout(
    stream: &mut Streaming<pb::GameEvent>,
) -> (pb::TurnTimedOut, pb::GameEvent) {
    next_of(stream, |kind| match kind {
        pb::game_event::Kind::TurnTimedOut(timeout) => Some(timeout.clone()),
        _ => None,
    })
    .await
}

/// Reads a stream until an event `pick` accepts: what it picked and the event.
pub async fn next_of<T>(
    stream: &mut Streaming<pb::GameEvent>,
    pick: impl Fn(&pb::game_event::Kind) -> Option<T>,
) -> (T, pb::GameEvent) {
    loop {
        let event = next_event(stream).await;
        if let Some(found) = event.kind.as_ref().and_then(&pick) {
            return (found, event);
        }
    }
}
