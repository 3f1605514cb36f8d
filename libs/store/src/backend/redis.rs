//! The Redis side of the backend: connections (one node, a cluster, TLS), the command and
//! script spans, key naming and parsing what Redis returns.

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, FromRedisValue, Pipeline, RedisFuture, ToRedisArgs, Value};
use tokio::sync::watch;
use tracing::Instrument;

use super::StoreError;
use crate::feed::{FeedClient, RedisFeed};
use crate::game::Log;

impl From<redis::RedisError> for StoreError {
    fn from(e: redis::RedisError) -> Self {
        match e.kind() {
            // A reply we could not convert means the stored data is not what we wrote.
            redis::ErrorKind::Parse | redis::ErrorKind::UnexpectedReturnType => {
                StoreError::Corrupt(e.to_string())
            }
            _ => StoreError::Unavailable(e.to_string()),
        }
    }
}

impl RedisBackend {
    /// Connects to the Redis (one node or a cluster) of `url`; see [`crate::Backend::redis`].
    pub(super) async fn connect(
        url: &str,
        prefix: String,
        ca_pem: Option<Vec<u8>>,
    ) -> Result<Self, StoreError> {
        let keys = Keys { prefix };
        let tls = RedisTls::for_url(url, ca_pem)?;
        let backend = match cluster_nodes(url)? {
            Some(urls) => {
                let nodes = ClusterNodes { urls, tls };
                let conn = cluster_client(&nodes)
                    .build()?
                    .get_async_connection()
                    .await?;
                RedisBackend {
                    conn: Conn::Cluster(conn),
                    server: None,
                    keys,
                    feed: Arc::new(RedisFeed::new(FeedClient::Cluster(nodes))),
                    publish: Publish::Sharded,
                }
            }
            None => {
                let client = match tls.certificates() {
                    Some(certificates) => redis::Client::build_with_tls(url, certificates)?,
                    None => redis::Client::open(url)?,
                };
                let conn = ConnectionManager::new_with_config(client.clone(), command_connection())
                    .await?;
                let server = match client.get_connection_info().addr() {
                    redis::ConnectionAddr::Tcp(host, port)
                    | redis::ConnectionAddr::TcpTls { host, port, .. } => {
                        Some((host.clone(), *port))
                    }
                    _ => None,
                };
                RedisBackend {
                    conn: Conn::Single(conn),
                    server,
                    keys,
                    feed: Arc::new(RedisFeed::new(FeedClient::Single(client))),
                    publish: Publish::Classic,
                }
            }
        };
        Ok(backend)
    }

    /// Pings Redis every `period` into `tx` for as long as a receiver lives (see
    /// [`crate::Backend::reachability`]).
    pub(super) fn probe(&self, tx: watch::Sender<bool>, period: Duration) {
        let mut conn = self.conn.clone();
        tokio::spawn(async move {
            loop {
                let answered = redis::cmd("PING")
                    .query_async::<String>(&mut conn)
                    .await
                    .is_ok();
                tx.send_if_modified(|reachable| {
                    let changed = *reachable != answered;
                    if changed {
                        tracing::warn!(reachable = answered, "session store reachability changed");
                    }
                    *reachable = answered;
                    changed
                });
                tokio::select! {
                    () = tokio::time::sleep(period) => {}
                    () = tx.closed() => return,
                }
            }
        });
    }
}

/// The target of the store's spans: trace-only (`ludus_telemetry::TRACE_ONLY_TARGET`, the same
/// string), so logs never carry them and a process that exports no traces never creates them.
pub(crate) const TRACE_TARGET: &str = "ludus::trace";

impl RedisBackend {
    /// The span of one Redis command (`HMGET`, `XRANGE`, …), after the OpenTelemetry database
    /// semantic conventions: `db.system.name`, `db.operation.name`, `server.address` and
    /// `server.port`. Never a key or an argument: keys hold game, room and player ids, and
    /// arguments hold game data.
    ///
    /// Only as part of traced work: a call made outside any span (a health probe's `PING`,
    /// the timers' claim poll, a gauge's count) starts no trace of its own, or every replica
    /// would export a trace per poll.
    pub(crate) fn command(&self, operation: &'static str) -> tracing::Span {
        self.span(operation, operation, None)
    }

    /// The span of one Lua script call: `db.operation.name` = `EVALSHA` (what the client
    /// sends; it falls back to `EVAL` once per script), `db.stored_procedure.name` = the
    /// script (`commit`), named `name` (`EVALSHA commit`). See [`RedisBackend::command`].
    pub(crate) fn script(&self, name: &'static str, script: &'static str) -> tracing::Span {
        self.span(name, "EVALSHA", Some(script))
    }

    /// One command `operation` with `args` on the shared connection, in its
    /// [`RedisBackend::command`] span.
    pub(crate) async fn query<T: FromRedisValue>(
        &self,
        operation: &'static str,
        args: impl ToRedisArgs,
    ) -> Result<T, StoreError> {
        Ok(redis::cmd(operation)
            .arg(args)
            .query_async(&mut self.conn.clone())
            .instrument(self.command(operation))
            .await?)
    }

    /// What [`RedisBackend::command`] and [`RedisBackend::script`] share: no span outside
    /// traced work, and the server's address on every span.
    fn span(
        &self,
        name: &'static str,
        operation: &'static str,
        procedure: Option<&'static str>,
    ) -> tracing::Span {
        if tracing::Span::current().is_none() {
            return tracing::Span::none();
        }
        let span = tracing::info_span!(
            target: TRACE_TARGET,
            "redis",
            otel.name = name,
            otel.kind = "client",
            db.system.name = "redis",
            db.operation.name = operation,
            db.stored_procedure.name = procedure,
            server.address = tracing::field::Empty,
            server.port = tracing::field::Empty,
        );
        self.record_server(&span);
        span
    }

    fn record_server(&self, span: &tracing::Span) {
        if let Some((host, port)) = &self.server
            && !span.is_disabled()
        {
            span.record("server.address", host.as_str());
            span.record("server.port", port);
        }
    }
}

/// The span of an event published on a log's live channel by the script running in `parent`
/// (the messaging semantic conventions' producer span: `messaging.system` = `redis`, the
/// channel's template rather than its name, which holds the game's id).
pub(crate) fn publish_span(
    parent: &tracing::Span,
    channel_template: &'static str,
) -> tracing::Span {
    if parent.is_disabled() {
        return tracing::Span::none();
    }
    tracing::info_span!(
        target: TRACE_TARGET,
        parent: parent,
        "publish",
        otel.name = "publish",
        otel.kind = "producer",
        messaging.system = "redis",
        messaging.operation.type = "send",
        messaging.operation.name = "publish",
        messaging.destination.template = channel_template,
    )
}

/// How the command connection reconnects: one retry after 100 ms, a second to connect. With
/// the client's default (six retries, backing off from 100 ms) every call made while it
/// reconnected waited 8-9 s when Redis was down, past a client's 5 s deadline: now a call
/// fails within about a second and the service answers UNAVAILABLE (retry) while the client
/// still listens. The next call after a failure starts a new reconnection, so a Redis that
/// comes back is used again.
///
/// A reply is waited for up to [`RESPONSE_TIMEOUT`], not the client's default 500 ms: a dead
/// Redis fails a call at once (the connection is refused or reset), so that timeout only
/// ever fired on a slow reply, from a loaded Redis or a process starved of CPU, and a write
/// that timed out had still been applied. In the 10,000-ticket scenario on a loaded 2-core
/// machine it turned latency into errors and retries (an Enqueue that failed but queued its
/// ticket, CreateGame sent five times, ticket leases not renewed), each adding load.
pub(crate) fn command_connection() -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_number_of_retries(1)
        .set_connection_timeout(Some(Duration::from_secs(1)))
        .set_response_timeout(Some(RESPONSE_TIMEOUT))
}

/// The scheme of a Redis Cluster URL: `redis+cluster://host:port,host:port,...`.
pub const CLUSTER_SCHEME: &str = "redis+cluster://";

/// The scheme of a Redis Cluster URL over TLS: `rediss+cluster://host:port,host:port,...`.
pub const CLUSTER_TLS_SCHEME: &str = "rediss+cluster://";

/// How to reach Redis beyond its URL.
#[derive(Clone, Debug, Default)]
pub struct RedisOptions {
    /// In front of every key and channel (see [`crate::Backend::redis_with_prefix`]).
    pub prefix: String,
    /// PEM CA certificate(s) a `rediss://` or `rediss+cluster://` server's certificate must
    /// chain to: a private CA, or a managed service's own. Without it TLS trusts the public
    /// web PKI (webpki roots), which is what managed Redis offerings present.
    pub ca_pem: Option<Vec<u8>>,
}

/// TLS to Redis: off for `redis://` URLs; on for `rediss://` ones, trusting a CA file or the
/// webpki roots.
#[derive(Clone, Debug)]
pub(crate) enum RedisTls {
    Off,
    On { ca_pem: Option<Vec<u8>> },
}

impl RedisTls {
    fn for_url(url: &str, ca_pem: Option<Vec<u8>>) -> Result<Self, StoreError> {
        if !(url.starts_with("rediss://") || url.starts_with(CLUSTER_TLS_SCHEME)) {
            return match ca_pem {
                None => Ok(RedisTls::Off),
                Some(_) => Err(StoreError::Unavailable(
                    "a Redis CA file was given for a plain URL: TLS needs rediss:// or \
                     rediss+cluster://"
                        .to_owned(),
                )),
            };
        }
        // rustls picks its crypto provider from the process default: make it ring, the one
        // this workspace builds (ARCHITECTURE.md, TLS), before the first handshake. Installing
        // it again (another backend in this process) is refused and harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Ok(RedisTls::On { ca_pem })
    }

    /// What the redis client takes to trust the CA file, when one was given.
    fn certificates(&self) -> Option<redis::TlsCertificates> {
        match self {
            RedisTls::On {
                ca_pem: Some(ca_pem),
            } => Some(redis::TlsCertificates {
                client_tls: None,
                root_cert: Some(ca_pem.clone()),
            }),
            _ => None,
        }
    }
}

/// A cluster's seed nodes (`redis://` or `rediss://` URLs) and how to reach them.
#[derive(Clone, Debug)]
pub(crate) struct ClusterNodes {
    pub(crate) urls: Vec<String>,
    tls: RedisTls,
}

/// The node URLs of a `redis+cluster://` URL, or `rediss://` ones of a `rediss+cluster://`
/// URL (`None` for any other URL: one node). Userinfo in front of the first node
/// (`redis+cluster://user:pass@h1:p1,h2:p2`) applies to every node, as a managed cluster has
/// one set of credentials.
fn cluster_nodes(url: &str) -> Result<Option<Vec<String>>, StoreError> {
    let (rest, node_scheme) = if let Some(rest) = url.strip_prefix(CLUSTER_SCHEME) {
        (rest, "redis://")
    } else if let Some(rest) = url.strip_prefix(CLUSTER_TLS_SCHEME) {
        (rest, "rediss://")
    } else {
        return Ok(None);
    };
    let rest = rest.trim_end_matches('/');
    let (auth, hosts) = match rest.rsplit_once('@') {
        Some((auth, hosts)) => (format!("{auth}@"), hosts),
        None => (String::new(), rest),
    };
    let nodes: Vec<String> = hosts
        .split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(|h| format!("{node_scheme}{auth}{h}/"))
        .collect();
    if nodes.is_empty() || hosts.contains(['/', '?']) {
        return Err(StoreError::Unavailable(format!(
            "a Redis Cluster URL names its nodes as {CLUSTER_SCHEME}host:port,host:port (or \
             {CLUSTER_TLS_SCHEME}...; no database, no options): {url:?}"
        )));
    }
    Ok(Some(nodes))
}

/// A cluster client on `nodes` that fails a call within seconds when the cluster is down, as
/// [`command_connection`] does for one node: a connection attempt gets a second, a reply
/// [`RESPONSE_TIMEOUT`], a call is
/// retried (redirections, a node reconnecting) a few times, backing off from 100 ms. Over
/// TLS when the seed URLs are `rediss://` (the client then dials every node it learns of with
/// TLS too), trusting the CA file when one was given.
pub(crate) fn cluster_client(nodes: &ClusterNodes) -> ClusterClientBuilder {
    let builder = ClusterClientBuilder::new(nodes.urls.iter().map(String::as_str))
        .connection_timeout(Duration::from_secs(1))
        .response_timeout(RESPONSE_TIMEOUT)
        .retries(3)
        .min_retry_wait(100)
        .max_retry_wait(1_000);
    match nodes.tls.certificates() {
        Some(certificates) => builder.certs(certificates),
        None => builder,
    }
}

/// The command connection: one node's connection manager, or a cluster connection that
/// routes each command (and each script, by its first key) to the master of its slot.
#[derive(Clone)]
pub(crate) enum Conn {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// How live events are published: classic pub/sub on one node, sharded pub/sub (Redis 7:
/// `SPUBLISH` reaches only the master of the channel's slot, where its subscribers are) on a
/// cluster, where a classic `PUBLISH` is copied to every node of the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Publish {
    Classic,
    Sharded,
}

impl Publish {
    /// The publishing command, also passed to the scripts that publish.
    pub(crate) fn command(self) -> &'static str {
        match self {
            Publish::Classic => "PUBLISH",
            Publish::Sharded => "SPUBLISH",
        }
    }
}
/// How long a command waits for Redis's reply (see [`command_connection`]): within a
/// client's usual 5 s deadline, far past a healthy Redis's milliseconds.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(3);

pub(crate) struct RedisBackend {
    /// Commands share this one multiplexed connection (one per node on a cluster); clone it
    /// per call.
    pub(crate) conn: Conn,
    /// Where Redis listens (`server.address`, `server.port` of the spans), for TCP.
    server: Option<(String, u16)>,
    pub(crate) keys: Keys,
    /// The process's pub/sub connection, opened on the first subscription.
    pub(crate) feed: Arc<RedisFeed>,
    /// Classic or sharded pub/sub, by the kind of Redis.
    pub(crate) publish: Publish,
}

/// Key and channel names (see the crate docs for the layout).
pub(crate) struct Keys {
    pub(crate) prefix: String,
}

impl Keys {
    pub(crate) fn log_state(&self, log: Log, id: &str) -> String {
        format!("{}ludus:{}:{{{id}}}:state", self.prefix, log.word())
    }
    pub(crate) fn log_events(&self, log: Log, id: &str) -> String {
        format!("{}ludus:{}:{{{id}}}:events", self.prefix, log.word())
    }
    pub(crate) fn log_actions(&self, log: Log, id: &str) -> String {
        format!("{}ludus:{}:{{{id}}}:actions", self.prefix, log.word())
    }
    pub(crate) fn log_presence(&self, log: Log, id: &str) -> String {
        format!("{}ludus:{}:{{{id}}}:presence", self.prefix, log.word())
    }
    pub(crate) fn log_live(&self, log: Log, id: &str) -> String {
        format!("{}ludus:{}:{{{id}}}:live", self.prefix, log.word())
    }
    pub(crate) fn player_games(&self, player: &str) -> String {
        format!("{}ludus:player:{{{player}}}:games", self.prefix)
    }
    /// The listing of a log family: live games, or the public rooms' lobby.
    pub(crate) fn live_set(&self, log: Log) -> String {
        match log {
            Log::Game => format!("{}ludus:games:live", self.prefix),
            Log::Room => format!("{}ludus:rooms:public", self.prefix),
        }
    }
    /// The due set of timer shard `shard` (see [`crate::timer::TIMER_SHARDS`]).
    pub(crate) fn timers_due(&self, shard: usize) -> String {
        format!("{}ludus:{{timers:{shard}}}:due", self.prefix)
    }
    pub(crate) fn timers_payload(&self, shard: usize) -> String {
        format!("{}ludus:{{timers:{shard}}}:payload", self.prefix)
    }
    pub(crate) fn mm_queues(&self) -> String {
        format!("{}ludus:{{mm}}:queues", self.prefix)
    }
    pub(crate) fn mm_queue(&self, queue: &str) -> String {
        format!("{}ludus:{{mm:{queue}}}:queue", self.prefix)
    }
    pub(crate) fn mm_ticket(&self, queue: &str, id: &str) -> String {
        format!("{}ludus:{{mm:{queue}}}:ticket:{id}", self.prefix)
    }
    /// The queue's pending proposals: game id -> deadline (Unix ms).
    pub(crate) fn mm_proposals(&self, queue: &str) -> String {
        format!("{}ludus:{{mm:{queue}}}:proposals", self.prefix)
    }
    /// The queue's pending proposals' tables: game id -> ticket ids joined by commas.
    pub(crate) fn mm_proposal_tables(&self, queue: &str) -> String {
        format!("{}ludus:{{mm:{queue}}}:proposal-tables", self.prefix)
    }
    pub(crate) fn mm_lease(&self, queue: &str) -> String {
        format!("{}ludus:{{mm:{queue}}}:lease", self.prefix)
    }
    pub(crate) fn mm_settled(&self) -> String {
        format!("{}ludus:{{mm}}:settled", self.prefix)
    }
    /// The player's live ticket: in the player's own slot, apart from every queue (see
    /// [`crate::QueueStore::enqueue`] for why one ticket per player still holds).
    pub(crate) fn mm_player(&self, player: &str) -> String {
        format!("{}ludus:{{mm-player:{player}}}:ticket", self.prefix)
    }
    pub(crate) fn lease_holders(&self) -> String {
        format!("{}ludus:{{presence}}:holders", self.prefix)
    }
    pub(crate) fn lease_streams(&self, holder: &str) -> String {
        format!("{}ludus:{{presence}}:holder:{holder}:streams", self.prefix)
    }
    pub(crate) fn rating_board(&self, ruleset: &str) -> String {
        format!("{}ludus:{{rating}}:{ruleset}:board", self.prefix)
    }
    pub(crate) fn rating_player(&self, ruleset: &str, player: &str) -> String {
        format!("{}ludus:{{rating}}:{ruleset}:player:{player}", self.prefix)
    }
    pub(crate) fn rating_game(&self, game_id: &str) -> String {
        format!("{}ludus:{{rating}}:game:{game_id}", self.prefix)
    }
}

/// Parses a decimal integer Redis returned.
pub(crate) fn parse_u64(what: &str, bytes: &[u8]) -> Result<u64, StoreError> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| StoreError::Corrupt(format!("{what} is not an integer")))
}

/// Parses a Redis score or float field into whole milliseconds.
pub(crate) fn parse_score(what: &str, bytes: &[u8]) -> Result<u64, StoreError> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|f| f.is_finite() && *f >= 0.0)
        // Scores are whole milliseconds below 2^53, so the cast is exact.
        .map(|f| f as u64)
        .ok_or_else(|| StoreError::Corrupt(format!("{what} is not a score")))
}

#[cfg(test)]
mod tests {
    use super::cluster_nodes;

    #[test]
    fn a_cluster_url_names_every_node_and_shares_its_credentials() {
        assert_eq!(cluster_nodes("redis://h:1/").expect("one node"), None);
        assert_eq!(
            cluster_nodes("redis+cluster://a:7000,b:7001/").expect("cluster"),
            Some(vec![
                "redis://a:7000/".to_owned(),
                "redis://b:7001/".to_owned()
            ])
        );
        assert_eq!(
            cluster_nodes("redis+cluster://u:p@a:7000,b:7001").expect("cluster"),
            Some(vec![
                "redis://u:p@a:7000/".to_owned(),
                "redis://u:p@b:7001/".to_owned()
            ])
        );
        assert_eq!(
            cluster_nodes("rediss+cluster://a:7000,b:7001").expect("cluster over TLS"),
            Some(vec![
                "rediss://a:7000/".to_owned(),
                "rediss://b:7001/".to_owned()
            ])
        );
        for bad in [
            "redis+cluster://",
            "rediss+cluster://",
            "redis+cluster://a:1/0",
            "redis+cluster://a:1?x=1",
        ] {
            assert!(cluster_nodes(bad).is_err(), "{bad}");
        }
    }
}
