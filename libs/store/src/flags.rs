//! The flags of the session store: where Redis is (every service binary that keeps session
//! state), and whether moves wait for replicas (game-state and the all-in-one).

use clap::Args;

use crate::{Backend, RedisOptions, StoreError};

/// Where the session store lives, flattened into each binary's flags
/// (`#[command(flatten)]`) so the flag and its variable are the same everywhere.
#[derive(Debug, Clone, Args)]
pub struct RedisFlags {
    /// The Redis holding session state: one node, e.g. `redis://redis:6379`, or a Redis
    /// Cluster, `redis+cluster://` and any of its nodes, comma-separated, e.g.
    /// `redis+cluster://redis-0:6379,redis-1:6379,redis-2:6379` (credentials, if any, once in
    /// front: `redis+cluster://user:password@host:port,...`). Over TLS: `rediss://` and
    /// `rediss+cluster://`.
    #[arg(long, env = "LUDUS_REDIS_URL")]
    pub redis_url: String,
    /// PEM CA certificate(s) a `rediss://` server's certificate must chain to (a private CA);
    /// without it TLS trusts the public web PKI.
    #[arg(long, env = "LUDUS_REDIS_CA_FILE")]
    pub redis_ca_file: Option<std::path::PathBuf>,
}

impl RedisFlags {
    /// Connects to the Redis these flags name (see [`Backend::redis_with`]).
    pub async fn connect(&self) -> Result<Backend, StoreError> {
        let ca_pem = match &self.redis_ca_file {
            Some(path) => Some(std::fs::read(path).map_err(|e| {
                StoreError::Unavailable(format!("--redis-ca-file {}: {e}", path.display()))
            })?),
            None => None,
        };
        let options = RedisOptions {
            ca_pem,
            ..RedisOptions::default()
        };
        Backend::redis_with(&self.redis_url, options).await
    }
}

/// The replica wait (see [`crate::ReplicaWait`]) game-state and the all-in-one take: whether a
/// move is acknowledged only once a replica of its Redis master has it.
#[derive(Debug, Clone, Copy, Args)]
pub struct ReplicaWaitFlags {
    /// Acknowledge a move only once this many replicas of its Redis master hold it (Redis
    /// `WAIT` after the commit, on the master of the game's slot): with 1, a master failover
    /// loses no acknowledged move. 0 (the default) acknowledges on the master's answer, which
    /// a failover can lose (see deploy/README.md, Failover).
    #[arg(long, env = "LUDUS_REDIS_WAIT_REPLICAS", default_value_t = 0)]
    pub redis_wait_replicas: u32,
    /// How long a move waits for those replicas, in milliseconds (1-2000). A move they do not
    /// all confirm in time is answered UNAVAILABLE (it is on the master, unconfirmed): the
    /// client's retry with the same action id is answered once a replica has it.
    #[arg(
        long,
        env = "LUDUS_REDIS_WAIT_TIMEOUT_MS",
        default_value_t = 500,
        value_parser = clap::value_parser!(u64).range(1..=2000)
    )]
    pub redis_wait_timeout_ms: u64,
}

impl ReplicaWaitFlags {
    /// The wait these flags ask for; `None` for 0 replicas.
    pub fn wait(&self) -> Option<crate::ReplicaWait> {
        (self.redis_wait_replicas > 0).then(|| crate::ReplicaWait {
            replicas: self.redis_wait_replicas,
            timeout: std::time::Duration::from_millis(self.redis_wait_timeout_ms),
        })
    }

    /// `backend`, waiting for replicas when these flags ask for it
    /// ([`Backend::waiting_for_replicas`]).
    pub async fn apply(&self, backend: Backend) -> Result<Backend, StoreError> {
        match self.wait() {
            Some(wait) => backend.waiting_for_replicas(wait).await,
            None => Ok(backend),
        }
    }
}
