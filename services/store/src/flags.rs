//! The flag every service binary that keeps session state takes: where Redis is.

use clap::Args;

use crate::{Backend, StoreError};

/// Where the session store lives, flattened into each binary's flags
/// (`#[command(flatten)]`) so the flag and its variable are the same everywhere.
#[derive(Debug, Clone, Args)]
pub struct RedisFlags {
    /// The Redis holding session state: one node, e.g. `redis://redis:6379`, or a Redis
    /// Cluster, `redis+cluster://` and any of its nodes, comma-separated, e.g.
    /// `redis+cluster://redis-0:6379,redis-1:6379,redis-2:6379` (credentials, if any, once in
    /// front: `redis+cluster://user:password@host:port,...`).
    #[arg(long, env = "LUDUS_REDIS_URL")]
    pub redis_url: String,
}

impl RedisFlags {
    /// Connects to the Redis these flags name (see [`Backend::redis`]).
    pub async fn connect(&self) -> Result<Backend, StoreError> {
        Backend::redis(&self.redis_url).await
    }
}
