//! The whole Ludus system in one process: every service on its own loopback port, talking
//! gRPC to the others as in a cluster, except that a call between two of them goes in memory
//! to the other's server stack, without HTTP/2 or a socket (`ludus_server::local`). Used by
//! the `ludus` binary and by the end-to-end tests, which run it against a real Redis.
//!
//! # Layout
//! - [`System`]: starts game-state, timers, ratings, matchmaking, accounts, rooms, bots and
//!   the gateway, and stops them together.
#![forbid(unsafe_code)]

use std::{net::SocketAddr, sync::OnceLock, time::Duration};

use ludus_store::{Backend, Clock};
use tokio::{net::TcpListener, task::JoinSet};
use tokio_util::sync::CancellationToken;

/// How long a finished game stays in the session store once archived, unless configured.
pub use ludus_game_state::DEFAULT_FINISHED_GAME_RETENTION;

/// The services [`System`] runs, by the names their own binaries report in traces: the
/// all-in-one exports each one's spans as `ludus-<name>` (`ludus_telemetry::init_system`).
pub const SERVICES: &[&str] = &[
    "gateway",
    "game-state",
    "timers",
    "ratings",
    "matchmaking",
    "accounts",
    "rooms",
    "bots",
];

/// What the system needs.
#[derive(Debug)]
pub struct SystemConfig {
    /// The session store every service shares.
    pub backend: Backend,
    /// Where the public gateway listens.
    pub gateway: TcpListener,
    /// HS256 secret for session tokens, 32+ bytes.
    pub token_secret: Vec<u8>,
    /// How long an account's access token lives ([`ludus_gateway::auth::ACCESS_TOKEN_TTL`]
    /// unless a test of the clients' refresh shortens it).
    pub access_token_ttl: Duration,
    /// The quick-match clocks (each game's rule unless `--turn-ms` sets it: C12's minute for
    /// Caro…).
    pub turn_ms: ludus_matchmaking::QuickMatchClocks,
    /// How long a disconnected player has to come back (C13: one minute).
    pub absence_grace: Duration,
    /// Origins of web pages allowed to call the gateway with grpc-web (CORS).
    pub cors_origins: Vec<String>,
    /// The one clock every service reads deadlines, event times, ticket ages, session terms
    /// and token lifetimes from ([`Clock::system`]; the end-to-end tests pass a manual one).
    pub clock: Clock,
    /// The gateway's guest sign-in rate (the default unless a benchmark raises it).
    pub sign_ins: ludus_gateway::limits::SignInLimit,
    /// Each player's call rate at the gateway (the default outside tests).
    pub per_player: ludus_gateway::limits::PlayerLimit,
    /// The accounts service's store and limits (SQLite under the data directory by default).
    pub accounts: ludus_accounts::Config,
    /// How long a finished game stays in the session store once archived.
    pub finished_game_retention: Duration,
    /// The computer players' service.
    pub bots: BotsSettings,
    /// The gateway's certificate, when it serves TLS (the internal services stay on plain
    /// loopback: they never leave this process's machine).
    pub gateway_tls: Option<ludus_server::ServerTls>,
}

/// How the system's bots service runs.
#[derive(Clone, Debug)]
pub struct BotsSettings {
    /// The longest one think takes ([`ludus_bots::DEFAULT_THINK`]).
    pub think: Duration,
    /// More bots replicas (their URLs) the timers worker offers computer turns to, before the
    /// system's own; tests start them to stop one mid-game.
    pub other_replicas: Vec<String>,
}

impl Default for BotsSettings {
    fn default() -> Self {
        BotsSettings {
            think: ludus_bots::DEFAULT_THINK,
            other_replicas: Vec::new(),
        }
    }
}

/// A running system.
#[derive(Debug)]
pub struct System {
    /// The public gateway's address.
    pub gateway: SocketAddr,
    /// The internal services' addresses (for tests that call them directly).
    pub game_state: SocketAddr,
    pub timers: SocketAddr,
    pub ratings: SocketAddr,
    pub matchmaking: SocketAddr,
    pub accounts: SocketAddr,
    pub rooms: SocketAddr,
    pub bots: SocketAddr,
    tasks: JoinSet<(&'static str, anyhow::Result<()>)>,
}

async fn loopback() -> anyhow::Result<(TcpListener, SocketAddr, String)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    Ok((listener, addr, format!("http://{addr}")))
}

/// Runs one service on `tasks` until it ends, its result labelled with its name for
/// [`System::wait`].
fn spawn_service(
    tasks: &mut JoinSet<(&'static str, anyhow::Result<()>)>,
    name: &'static str,
    service: impl Future<Output = anyhow::Result<()>> + Send + 'static,
) {
    tasks.spawn(async move { (name, service.await) });
}

impl System {
    /// Binds every internal service on a free loopback port, then starts them all; they stop
    /// when `stop` is cancelled.
    pub async fn start(config: SystemConfig, stop: CancellationToken) -> anyhow::Result<System> {
        install_internal_secret()?;
        let (game_state_listener, game_state, game_state_url) = loopback().await?;
        let (timers_listener, timers, _) = loopback().await?;
        let (ratings_listener, ratings, ratings_url) = loopback().await?;
        let (matchmaking_listener, matchmaking, matchmaking_url) = loopback().await?;
        let (accounts_listener, accounts, accounts_url) = loopback().await?;
        let (rooms_listener, rooms, rooms_url) = loopback().await?;
        let (bots_listener, bots, bots_url) = loopback().await?;
        let SystemConfig {
            backend,
            gateway: gateway_listener,
            token_secret,
            access_token_ttl,
            turn_ms,
            absence_grace,
            cors_origins,
            clock,
            sign_ins,
            per_player,
            accounts: mut accounts_config,
            finished_game_retention,
            bots: bots_settings,
            gateway_tls,
        } = config;
        let gateway = gateway_listener.local_addr()?;
        let mut tasks = JoinSet::new();

        let config = ludus_game_state::Config {
            backend: backend.clone(),
            ratings_url: ratings_url.clone(),
            accounts_url: accounts_url.clone(),
            rooms_url: Some(rooms_url.clone()),
            absence_grace,
            finished_game_retention,
            clock: clock.clone(),
            live_cache_games: ludus_game_state::service::DEFAULT_LIVE_CACHE_GAMES,
        };
        let run =
            ludus_game_state::run(config, game_state_listener, stop.clone().cancelled_owned());
        spawn_service(&mut tasks, "game-state", run);

        let mut config = ludus_timers::Config::new(backend.clone(), game_state_url.clone());
        config.clock = clock.clone();
        config.rooms_url = Some(rooms_url.clone());
        config.bots_urls = bots_settings.other_replicas.clone();
        config.bots_urls.push(bots_url);
        let run = ludus_timers::run(config, timers_listener, stop.clone().cancelled_owned());
        spawn_service(&mut tasks, "timers", run);

        let config = ludus_ratings::Config {
            backend: backend.clone(),
        };
        let run = ludus_ratings::run(config, ratings_listener, stop.clone().cancelled_owned());
        spawn_service(&mut tasks, "ratings", run);

        let mut config = ludus_matchmaking::Config::new(backend.clone(), game_state_url.clone());
        config.turn_ms = turn_ms;
        config.ratings_url = Some(ratings_url.clone());
        config.clock = clock.clone();
        let run =
            ludus_matchmaking::run(config, matchmaking_listener, stop.clone().cancelled_owned());
        spawn_service(&mut tasks, "matchmaking", run);

        accounts_config.clock = clock.clone();
        let run = ludus_accounts::run(
            accounts_config,
            accounts_listener,
            stop.clone().cancelled_owned(),
        );
        spawn_service(&mut tasks, "accounts", run);

        let config = ludus_rooms::Config {
            backend: backend.clone(),
            game_state_url: game_state_url.clone(),
            clock: clock.clone(),
        };
        let run = ludus_rooms::run(config, rooms_listener, stop.clone().cancelled_owned());
        spawn_service(&mut tasks, "rooms", run);

        let mut config = ludus_bots::Config::new(game_state_url.clone());
        config.think = bots_settings.think;
        let run = ludus_bots::run(config, bots_listener, stop.clone().cancelled_owned());
        spawn_service(&mut tasks, "bots", run);

        let config = ludus_gateway::Config {
            backend,
            game_state_url,
            matchmaking_url,
            ratings_url,
            accounts_url,
            rooms_url,
            token_secret,
            token_ttl: ludus_gateway::auth::DEFAULT_TOKEN_TTL,
            access_token_ttl,
            cors_origins,
            sign_ins,
            per_player,
            presence_lease: ludus_gateway::presence::DEFAULT_LEASE,
            clock,
            // Presence leases say whether a gateway is alive: real time even when the
            // games run on a test's manual clock.
            lease_clock: Clock::system(),
            tls: gateway_tls,
        };
        let run = ludus_gateway::run(config, gateway_listener, stop.cancelled_owned());
        spawn_service(&mut tasks, "gateway", run);
        Ok(System {
            gateway,
            game_state,
            timers,
            ratings,
            matchmaking,
            accounts,
            rooms,
            bots,
            tasks,
        })
    }

    /// Waits for every service to stop; the first failure is returned.
    pub async fn wait(mut self) -> anyhow::Result<()> {
        let mut first_error = None;
        while let Some(joined) = self.tasks.join_next().await {
            match joined {
                Ok((_, Ok(()))) => {}
                Ok((name, Err(error))) => {
                    tracing::error!(service = name, %error, "service failed");
                    first_error.get_or_insert(error.context(name));
                }
                Err(join_error) => {
                    first_error.get_or_insert(anyhow::anyhow!("a service panicked: {join_error}"));
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// The services call each other over loopback ports any local process can reach: they sign
/// their calls with a per-process secret and refuse unsigned ones. A process that starts
/// several systems (tests) keeps the first secret. The secret is drawn once per process:
/// systems starting at the same moment on two threads used to both find none installed,
/// install two different secrets, and the second start failed.
fn install_internal_secret() -> anyhow::Result<()> {
    static INTERNAL_SECRET: OnceLock<Vec<u8>> = OnceLock::new();
    if !ludus_server::service_auth::installed() {
        ludus_server::service_auth::install(
            INTERNAL_SECRET.get_or_init(crate::random_secret),
            "ludus",
        )?;
    }
    Ok(())
}

/// 48 bytes from the operating system's CSPRNG (via `rand`'s thread generator, which is
/// seeded from it): the all-in-one binary's token secret when none is given, and its internal
/// secret.
pub fn random_secret() -> Vec<u8> {
    use rand::RngExt;
    let mut rng = rand::rng();
    (0..48).map(|_| rng.random::<u8>()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Systems started at once on many threads (the end-to-end tests) all get the process's
    /// one secret; none fails with "another internal secret is already installed".
    #[test]
    fn systems_starting_at_once_share_one_internal_secret() {
        let barrier = std::sync::Barrier::new(16);
        let outcomes: Vec<anyhow::Result<()>> = std::thread::scope(|scope| {
            let starts: Vec<_> = (0..16)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        install_internal_secret()
                    })
                })
                .collect();
            starts
                .into_iter()
                .map(|start| start.join().expect("no panic"))
                .collect()
        });
        for outcome in outcomes {
            assert!(outcome.is_ok(), "{outcome:?}");
        }
        assert!(ludus_server::service_auth::installed());
    }
}
