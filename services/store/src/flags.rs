//! The flag every service binary that keeps session state takes: where Redis is.

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
