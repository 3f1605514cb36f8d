//! The backend every store is built on: [`Backend`] (Redis or memory), [`StoreError`] and
//! [`dispatch!`], the one line by which a store's call reaches its backend's own module.
//! Connections, key naming and Redis parsing are in `redis.rs`; the memory state in
//! `memory.rs`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

pub(crate) mod memory;
pub(crate) mod redis;

use self::memory::MemoryState;
pub use self::redis::{CLUSTER_SCHEME, CLUSTER_TLS_SCHEME, RESPONSE_TIMEOUT, RedisOptions};
use self::redis::{Conn, RedisBackend};

/// Why a store operation failed. Expected conditions (a missing game, a stale seq) are values,
/// never errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// Redis could not be reached or did not answer; retrying later may succeed.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// A stored value could not be read (or a value cannot be stored as given).
    #[error("corrupt stored value: {0}")]
    Corrupt(String),
}

impl StoreError {
    /// This failure as a service's own error, with a message that names the session store:
    /// `unavailable` when Redis is down (the caller may retry), `internal` when stored data is
    /// not what we wrote (a bug: the service logs it and returns no details).
    pub fn into_service_error<E>(
        self,
        unavailable: impl FnOnce(String) -> E,
        internal: impl FnOnce(String) -> E,
    ) -> E {
        match self {
            StoreError::Unavailable(message) => {
                unavailable(format!("session store unavailable: {message}"))
            }
            other => internal(format!("session store: {other}")),
        }
    }
}

/// Where the stores keep their state: Redis, or memory inside this process.
///
/// Cheap to clone; clones share the same connection (Redis) or the same state (memory).
#[derive(Clone)]
pub struct Backend {
    pub(crate) kind: Kind,
    /// Set by [`Backend::waiting_for_replicas`]: commits are acknowledged only once this many
    /// replicas have them (see the `replicas` module).
    pub(crate) replica_wait: Option<Arc<crate::replicas::ReplicaWaiter>>,
}

#[derive(Clone)]
pub(crate) enum Kind {
    Redis(Arc<RedisBackend>),
    Memory(Arc<MemoryState>),
}

impl fmt::Debug for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Redis(r) => f
                .debug_struct("Backend::Redis")
                .field("prefix", &r.keys.prefix)
                .finish_non_exhaustive(),
            Kind::Memory(_) => f.write_str("Backend::Memory"),
        }
    }
}

/// A store call on the backend it was made on: `redis::$call(&RedisBackend, args…)`, awaited,
/// or `memory::$call(&MemoryState, args…)`, each from the calling store's own `redis` and
/// `memory` modules. A store's `mod.rs` so holds one line per call, and each backend's code
/// its own file.
macro_rules! dispatch {
    ($backend:expr, $call:ident($($arg:expr),* $(,)?)) => {
        match &$backend.kind {
            $crate::backend::Kind::Redis(r) => redis::$call(r, $($arg),*).await,
            $crate::backend::Kind::Memory(m) => memory::$call(m, $($arg),*),
        }
    };
}
pub(crate) use dispatch;

impl Backend {
    /// An empty in-memory backend: state lives as long as some clone of it.
    pub fn memory() -> Self {
        Backend {
            kind: Kind::Memory(Arc::new(MemoryState::default())),
            replica_wait: None,
        }
    }

    /// Connects to Redis at `url`: one node (`redis://host:port/db`), or a Redis Cluster
    /// (`redis+cluster://host:port,host:port,...`: any reachable nodes of it; the client
    /// learns the rest of the cluster from them); `rediss://` and `rediss+cluster://` over TLS
    /// (see [`RedisOptions::ca_pem`] for whom they trust). The connection reconnects by
    /// itself; an operation attempted while Redis is down fails with
    /// [`StoreError::Unavailable`].
    pub async fn redis(url: &str) -> Result<Self, StoreError> {
        Self::redis_with(url, RedisOptions::default()).await
    }

    /// Like [`Backend::redis`], with `prefix` in front of every key and channel, so several
    /// deployments or test suites can share one Redis. The prefix must not contain `{` or `}`
    /// (they would change the cluster hash tags).
    pub async fn redis_with_prefix(url: &str, prefix: &str) -> Result<Self, StoreError> {
        let options = RedisOptions {
            prefix: prefix.to_owned(),
            ..RedisOptions::default()
        };
        Self::redis_with(url, options).await
    }

    /// Like [`Backend::redis`], with the key prefix and TLS trust of `options`.
    pub async fn redis_with(url: &str, options: RedisOptions) -> Result<Self, StoreError> {
        let RedisOptions { prefix, ca_pem } = options;
        if prefix.contains(['{', '}']) {
            return Err(StoreError::Unavailable(format!(
                "key prefix {prefix:?} must not contain braces"
            )));
        }
        let backend = RedisBackend::connect(url, prefix, ca_pem).await?;
        Ok(Backend {
            kind: Kind::Redis(Arc::new(backend)),
            replica_wait: None,
        })
    }

    /// True when this backend is a Redis Cluster (a `redis+cluster://` URL).
    pub fn is_redis_cluster(&self) -> bool {
        matches!(&self.kind, Kind::Redis(r) if matches!(r.conn, Conn::Cluster(_)))
    }

    /// True for the Redis backend.
    pub fn is_redis(&self) -> bool {
        matches!(self.kind, Kind::Redis(_))
    }

    /// How often servers probe their store for [`Backend::reachability`].
    pub const PROBE_PERIOD: Duration = Duration::from_secs(1);

    /// Whether the store answers, probed every `period` (Redis `PING`) for as long as a
    /// receiver lives: servers report NOT_SERVING while it is `false`. Memory is always
    /// reachable. Must be called within a tokio runtime.
    pub fn reachability(&self, period: Duration) -> watch::Receiver<bool> {
        let (tx, rx) = watch::channel(true);
        if let Kind::Redis(r) = &self.kind {
            r.probe(tx, period);
        }
        rx
    }
}
