//! The feed on Redis: the process's dedicated pub/sub connection (RESP3 pushes, classic
//! channels on one node, sharded ones on a cluster), demultiplexed into the [`FeedHub`].

use std::convert::Infallible;
use std::sync::Arc;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster_async::ClusterConnection;
use redis::{PushInfo, PushKind, Value};

use super::{FeedHub, FeedSubscription, SubscriberGuard, Topic};
use crate::backend::StoreError;
use crate::backend::redis::{ClusterNodes, RedisBackend, cluster_client};
use crate::game::StoredEvent;

/// The Redis channel of `topic`: the commit scripts publish a log's events on it.
pub(super) async fn subscribe(
    r: &RedisBackend,
    topic: Topic<'_>,
) -> Result<FeedSubscription, StoreError> {
    let channel = match topic {
        Topic::Log(log, id) => r.keys.log_live(log, id),
        Topic::Tickets => r.keys.mm_settled(),
    };
    r.feed.subscribe(channel).await
}

impl FeedHub {
    /// Routes one RESP3 push from the pub/sub connection.
    fn on_push(&self, push: PushInfo) {
        match push.kind {
            PushKind::Message | PushKind::SMessage => {
                let [channel, message] = push.data.as_slice() else {
                    return;
                };
                let (Some(channel), Some(message)) = (bytes(channel), bytes(message)) else {
                    return;
                };
                let Ok(channel) = std::str::from_utf8(channel) else {
                    return;
                };
                match decode_message(message) {
                    Some(event) => self.publish(channel, event),
                    None => tracing::warn!(channel, "undecodable live event dropped"),
                }
            }
            // A SUBSCRIBE confirmation for a channel that was already confirmed is the
            // automatic resubscription after a reconnect: events may have been lost meanwhile.
            PushKind::Subscribe | PushKind::SSubscribe => {
                if let Some(channel) = push.data.first().and_then(bytes)
                    && let Ok(channel) = std::str::from_utf8(channel)
                    && !self.take_awaited(channel)
                {
                    self.gap(Some(channel));
                }
            }
            PushKind::Disconnection => {
                tracing::warn!("pub/sub connection lost; live subscribers will re-read logs");
                self.gap(None);
            }
            _ => {}
        }
    }
}

fn bytes(v: &Value) -> Option<&[u8]> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

/// Decodes `<seq>:<event bytes>` as published by the game scripts.
fn decode_message(message: &[u8]) -> Option<StoredEvent> {
    let colon = message.iter().position(|&b| b == b':')?;
    let seq = std::str::from_utf8(&message[..colon]).ok()?.parse().ok()?;
    Some(StoredEvent {
        seq,
        payload: message[colon + 1..].to_vec(),
    })
}

/// Where the pub/sub connection goes: one node, or the nodes of a cluster.
pub(crate) enum FeedClient {
    Single(redis::Client),
    Cluster(ClusterNodes),
}

/// The open pub/sub connection: classic channels on one node, sharded ones on a cluster.
enum FeedConn {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl FeedConn {
    async fn subscribe(&mut self, channel: &str) -> redis::RedisResult<()> {
        match self {
            FeedConn::Single(c) => c.subscribe(channel).await,
            FeedConn::Cluster(c) => c.ssubscribe(channel).await,
        }
    }

    async fn unsubscribe(&mut self, channel: &str) -> redis::RedisResult<()> {
        match self {
            FeedConn::Single(c) => c.unsubscribe(channel).await,
            FeedConn::Cluster(c) => c.sunsubscribe(channel).await,
        }
    }
}

/// The process's Redis pub/sub side.
pub(crate) struct RedisFeed {
    client: FeedClient,
    pub(super) hub: Arc<FeedHub>,
    /// The dedicated pub/sub connection, opened on first use. Held across SUBSCRIBE and
    /// UNSUBSCRIBE so that they never interleave for one channel.
    conn: tokio::sync::Mutex<Option<FeedConn>>,
}

impl RedisFeed {
    /// Where this feed connects: also where more command connections are opened
    /// ([`crate::Backend::waiting_for_replicas`]).
    pub(crate) fn client(&self) -> &FeedClient {
        &self.client
    }

    pub(crate) fn new(client: FeedClient) -> Self {
        RedisFeed {
            client,
            hub: Arc::new(FeedHub::default()),
            conn: tokio::sync::Mutex::new(None),
        }
    }

    async fn connect(&self) -> Result<FeedConn, StoreError> {
        let hub = self.hub.clone();
        let on_push = move |push: PushInfo| {
            hub.on_push(push);
            Ok::<(), Infallible>(())
        };
        // Pub/sub on a multiplexed connection needs RESP3 push messages.
        match &self.client {
            FeedClient::Single(client) => {
                let info = client.get_connection_info().clone();
                let settings = info
                    .redis_settings()
                    .clone()
                    .set_protocol(redis::ProtocolVersion::RESP3);
                let client = redis::Client::open(info.set_redis_settings(settings))?;
                let config = ConnectionManagerConfig::new()
                    .set_push_sender(on_push)
                    .set_automatic_resubscription();
                Ok(FeedConn::Single(
                    ConnectionManager::new_with_config(client, config).await?,
                ))
            }
            FeedClient::Cluster(nodes) => {
                // The cluster connection resubscribes by itself whenever it has a push sender.
                let conn = cluster_client(nodes)
                    .use_protocol(redis::ProtocolVersion::RESP3)
                    .push_sender(on_push)
                    .build()?
                    .get_async_connection()
                    .await?;
                Ok(FeedConn::Cluster(conn))
            }
        }
    }

    async fn subscribe(self: &Arc<Self>, channel: String) -> Result<FeedSubscription, StoreError> {
        let guard = |key: String| SubscriberGuard {
            key,
            hub: self.hub.clone(),
            redis: Some(self.clone()),
        };
        if let Some(rx) = self.hub.join_confirmed(&channel) {
            return Ok(FeedSubscription {
                rx,
                _guard: guard(channel),
            });
        }
        let mut conn = self.conn.lock().await;
        // Someone may have subscribed while we waited for the lock.
        if let Some(rx) = self.hub.join_confirmed(&channel) {
            return Ok(FeedSubscription {
                rx,
                _guard: guard(channel),
            });
        }
        let conn = match &mut *conn {
            Some(c) => c,
            None => conn.insert(self.connect().await?),
        };
        // Joined before SUBSCRIBE so that the first message finds its broadcast; the guard
        // exists before the await so that a cancelled subscribe still unregisters.
        let rx = self.hub.join(&channel, false);
        let sub = FeedSubscription {
            rx,
            _guard: guard(channel.clone()),
        };
        self.hub.await_confirmation(&channel);
        if let Err(e) = conn.subscribe(&channel).await {
            // Whether the server saw it is unknown; forgetting the confirmation risks only a
            // spurious Lagged, never a missed one.
            self.hub.take_awaited(&channel);
            return Err(e.into());
        }
        self.hub.confirm(&channel);
        Ok(sub)
    }

    pub(super) async fn unsubscribe_if_unused(&self, channel: String) {
        let mut conn = self.conn.lock().await;
        // Re-subscribed since the last subscriber left: keep it.
        if self.hub.contains(&channel) {
            return;
        }
        if let Some(conn) = conn.as_mut()
            && let Err(e) = conn.unsubscribe(&channel).await
        {
            tracing::warn!(channel, error = %e, "unsubscribe failed");
        }
    }
}
