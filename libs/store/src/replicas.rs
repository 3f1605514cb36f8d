//! Waiting for replicas before a commit is acknowledged (Redis `WAIT`): what an operator turns
//! on to lose no acknowledged move when a Redis master fails over (deploy/README.md, Failover).
//!
//! Redis replication is asynchronous: a master answers the commit script before its replicas
//! have the write, and a master lost in that moment takes the write with it; the replica
//! promoted in its place never had it. With a [`ReplicaWait`] the commit script goes in one
//! pipeline with `WAIT numreplicas timeout`, on one connection to the master of the game's
//! slot. `WAIT` answers how many replicas hold every write that connection made so far (the
//! commit's among them, since a connection's commands run in order), and the commit is
//! answered only when that is at least the number asked for.
//!
//! When fewer replicas acknowledge within the timeout (a replica down or far behind), the move
//! is on the master but not confirmed: the caller gets [`StoreError::Unavailable`] (the
//! service answers UNAVAILABLE, which the API contract says to retry). A retry carries the
//! same action id: if the move is still there, the commit script finds the id, writes the
//! same mark again and waits for it (a replica holding that write holds the commit before it),
//! so the retry is answered with the original event once a replica has it; if a failover lost
//! the move, the retry applies it afresh. Either way the client acts on an answer that
//! survives the next failover. Live subscribers may see an unconfirmed move's event: the
//! script publishes it before `WAIT`.
//!
//! `WAIT` blocks the connection it runs on until it answers, so every command queued behind
//! it would wait too: waited commits use a pool of their own connections
//! ([`WAIT_CONNECTIONS`], round robin), never the shared command connection that reads and
//! other writes use. A refusal (a stale seq) goes through the same pipeline; it wrote nothing,
//! so its `WAIT` only covers the connection's earlier commits and returns at once unless a
//! replica lags, and its answer stands whatever the count.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::{FromRedisValue, ScriptInvocation};

use crate::backend::redis::{Conn, cluster_client, command_connection};
use crate::backend::{Backend, Kind, RESPONSE_TIMEOUT, StoreError};
use crate::feed::FeedClient;

/// How many replicas must have a commit before it is acknowledged, and how long to wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaWait {
    /// At least 1 (0 waits for nothing: leave the backend without a wait instead).
    pub replicas: u32,
    /// Within [`ReplicaWait::MAX_TIMEOUT`]: Redis takes 0 as "forever".
    pub timeout: Duration,
}

impl ReplicaWait {
    /// The longest wait: a second short of the reply timeout ([`RESPONSE_TIMEOUT`]), so the
    /// client never gives up on a `WAIT` Redis is still allowed to hold.
    pub const MAX_TIMEOUT: Duration = RESPONSE_TIMEOUT.saturating_sub(Duration::from_secs(1));

    fn millis(self) -> u64 {
        u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX)
    }
}

/// How many connections (per node, on a cluster) waited commits share: as many waits can be
/// pending at once per process and node, each blocking only its own connection.
pub const WAIT_CONNECTIONS: usize = 8;

/// The wait and its connections; shared by every clone of a [`Backend`] set up with it.
pub(crate) struct ReplicaWaiter {
    wait: ReplicaWait,
    conns: Vec<Conn>,
    next: AtomicUsize,
}

impl Backend {
    /// This backend with every game and room commit acknowledged only once `wait.replicas`
    /// replicas of the master holding the game have it (see the module docs): opens
    /// [`WAIT_CONNECTIONS`] more connections to Redis. Refused on the in-memory backend and
    /// for a wait outside its bounds.
    pub async fn waiting_for_replicas(mut self, wait: ReplicaWait) -> Result<Backend, StoreError> {
        if wait.replicas == 0 || wait.timeout.is_zero() || wait.timeout > ReplicaWait::MAX_TIMEOUT {
            return Err(StoreError::Unavailable(format!(
                "a replica wait needs at least one replica and a timeout of 1 ms to {} ms: {wait:?}",
                ReplicaWait::MAX_TIMEOUT.as_millis()
            )));
        }
        let Kind::Redis(r) = &self.kind else {
            return Err(StoreError::Unavailable(
                "waiting for replicas needs Redis: the in-memory store has none".into(),
            ));
        };
        let mut conns = Vec::with_capacity(WAIT_CONNECTIONS);
        for _ in 0..WAIT_CONNECTIONS {
            conns.push(match r.feed.client() {
                FeedClient::Single(client) => Conn::Single(
                    ConnectionManager::new_with_config(client.clone(), command_connection())
                        .await?,
                ),
                FeedClient::Cluster(nodes) => Conn::Cluster(
                    cluster_client(nodes)
                        .build()?
                        .get_async_connection()
                        .await?,
                ),
            });
        }
        self.replica_wait = Some(Arc::new(ReplicaWaiter {
            wait,
            conns,
            next: AtomicUsize::new(0),
        }));
        Ok(self)
    }

    /// The replica wait commits go through, if any ([`Backend::waiting_for_replicas`]).
    pub fn replica_wait(&self) -> Option<ReplicaWait> {
        self.replica_wait.as_ref().map(|w| w.wait)
    }
}

impl ReplicaWaiter {
    /// Runs `invocation` then `WAIT` in one pipeline on one of the pool's connections: the
    /// script's reply and how many replicas acknowledged. A master that does not know the
    /// script yet (a replica just promoted) gets it loaded and the pipeline again.
    pub(crate) async fn invoke<T: FromRedisValue>(
        &self,
        invocation: &ScriptInvocation<'_>,
    ) -> Result<(T, u32), StoreError> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.conns.len();
        let mut conn = self.conns[i].clone();
        let mut pipe = redis::pipe();
        pipe.invoke_script(invocation)
            .cmd("WAIT")
            .arg(self.wait.replicas)
            .arg(self.wait.millis());
        match pipe.query_async(&mut conn).await {
            Err(e) if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript) => {
                invocation.load_async(&mut conn).await?;
                Ok(pipe.query_async(&mut conn).await?)
            }
            reply => Ok(reply?),
        }
    }

    /// `Ok` when `acked` replicas are enough; else why `what` is not acknowledged.
    pub(crate) fn check(&self, acked: u32, what: &str) -> Result<(), StoreError> {
        if acked >= self.wait.replicas {
            return Ok(());
        }
        Err(StoreError::Unavailable(format!(
            "{what} is on the Redis master but {acked} of {} replicas confirmed it within {} ms, \
             so it is not acknowledged; retry with the same action id (answered once a replica \
             has it, or applied again if a failover lost it)",
            self.wait.replicas,
            self.wait.millis()
        )))
    }
}
