//! [`GameFeed`]: live game events for the gateway, one underlying subscription per game per
//! process, fanned out locally through a tokio broadcast channel.
//!
//! Redis: one dedicated RESP3 connection per [`Backend`] (and its clones) carries every
//! SUBSCRIBE; its push messages are demultiplexed by channel straight into the broadcasts. The
//! connection manager reconnects and resubscribes by itself; because events published while
//! it was away are lost, every subscriber then sees [`FeedError::Lagged`] and re-reads the log.
//! On a Redis Cluster the connection is a RESP3 cluster connection (one connection per master)
//! and channels are sharded (`SSUBSCRIBE` on the master of the channel's slot, which is the
//! slot of the game's keys, so the commit script's `SPUBLISH` is local to it); the cluster
//! connection resubscribes each channel on whichever master serves its slot after a
//! reconnect or a slot move, and every subscriber sees [`FeedError::Lagged`] as above.
//! Memory: [`crate::GameStore`] publishes into the same hub under its lock.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, OnceLock};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster_async::ClusterConnection;
use redis::{PushInfo, PushKind, Value};
use tokio::sync::broadcast;

use crate::backend::{Backend, Kind, StoreError, cluster_client, lock};
use crate::game::StoredEvent;

/// How many events a subscriber may fall behind before it sees [`FeedError::Lagged`].
pub const FEED_CAPACITY: usize = 256;

/// Why [`FeedSubscription::recv`] returned no event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FeedError {
    /// Events were missed (this many; 0 = an unknown number, after a Redis reconnect): re-read
    /// the log with `GameStore::events_after`, then keep receiving.
    #[error("feed lagged by {0} events")]
    Lagged(u64),
    /// The feed is gone; subscribe again.
    #[error("feed closed")]
    Closed,
}

/// Live events of games, published by `GameStore::create` and `GameStore::commit`.
#[derive(Debug, Clone)]
pub struct GameFeed {
    backend: Backend,
}

/// A receiver of one game's live events; dropping the last one of a game ends the underlying
/// subscription.
pub struct FeedSubscription {
    rx: broadcast::Receiver<FeedItem>,
    _guard: SubscriberGuard,
}

impl std::fmt::Debug for FeedSubscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeedSubscription")
            .field("channel", &self._guard.key)
            .finish_non_exhaustive()
    }
}

/// The delivery of one live event to this process's subscribers, shared by every subscriber
/// that receives it: the last one to drop it ends the delivery. The gateway opens its fan-out
/// span here on first receipt ([`Delivery::span`]), so that span lasts from the event's first
/// receipt until every local subscriber has handed it to its stream.
#[derive(Debug)]
pub struct Delivery {
    subscribers: usize,
    span: OnceLock<tracing::Span>,
}

impl Delivery {
    /// How many subscribers of this process the event was sent to.
    pub fn subscribers(&self) -> usize {
        self.subscribers
    }

    /// The delivery's span, opened by `open` for the first subscriber that asks.
    pub fn span(&self, open: impl FnOnce() -> tracing::Span) -> &tracing::Span {
        self.span.get_or_init(open)
    }
}

impl FeedSubscription {
    /// The next live event. [`FeedError::Lagged`] means some were missed: re-read the log.
    pub async fn recv(&mut self) -> Result<StoredEvent, FeedError> {
        self.recv_delivery().await.map(|(event, _)| event)
    }

    /// [`FeedSubscription::recv`], with the event's [`Delivery`]: hold it until the event
    /// is handed on.
    pub async fn recv_delivery(&mut self) -> Result<(StoredEvent, Arc<Delivery>), FeedError> {
        match self.rx.recv().await {
            Ok(FeedItem::Event(e, delivery)) => Ok((e, delivery)),
            Ok(FeedItem::Gap) => Err(FeedError::Lagged(0)),
            Err(broadcast::error::RecvError::Lagged(n)) => Err(FeedError::Lagged(n)),
            Err(broadcast::error::RecvError::Closed) => Err(FeedError::Closed),
        }
    }
}

impl GameFeed {
    /// A feed over `backend`. Clones of one backend share one pub/sub connection.
    pub fn new(backend: Backend) -> Self {
        GameFeed { backend }
    }

    /// Subscribes to the game's live events. When this returns, the subscription is active
    /// (Redis confirmed the SUBSCRIBE), so no event committed afterwards is missed.
    pub async fn subscribe(&self, game_id: &str) -> Result<FeedSubscription, StoreError> {
        match &self.backend.kind {
            Kind::Memory(_) => subscribe_channel(&self.backend, game_id, String::new()).await,
            Kind::Redis(r) => {
                let channel = r.keys.log_live(crate::game::Log::Game, game_id);
                subscribe_channel(&self.backend, game_id, channel).await
            }
        }
    }

    /// How many games have an underlying subscription open in this process.
    pub fn open_channels(&self) -> usize {
        match &self.backend.kind {
            Kind::Memory(m) => m.hub.len(),
            Kind::Redis(r) => r.feed.hub.len(),
        }
    }
}

/// Subscribes to one channel of the process's shared pub/sub side: `memory_key` on the memory
/// backend's hub, `redis_channel` on Redis. Messages use the `<seq>:<bytes>` framing of the
/// game scripts. When this returns the subscription is active.
pub(crate) async fn subscribe_channel(
    backend: &Backend,
    memory_key: &str,
    redis_channel: String,
) -> Result<FeedSubscription, StoreError> {
    match &backend.kind {
        Kind::Memory(m) => {
            let rx = m.hub.join(memory_key, true);
            Ok(FeedSubscription {
                rx,
                _guard: SubscriberGuard {
                    key: memory_key.to_owned(),
                    hub: m.hub.clone(),
                    redis: None,
                },
            })
        }
        Kind::Redis(r) => r.feed.subscribe(redis_channel).await,
    }
}

#[derive(Clone)]
enum FeedItem {
    Event(StoredEvent, Arc<Delivery>),
    /// Events may have been lost (Redis reconnected).
    Gap,
}

/// Local fan-out: one broadcast per channel with its subscriber count.
#[derive(Default)]
pub(crate) struct FeedHub {
    channels: Mutex<HashMap<String, Channel>>,
    /// SUBSCRIBE confirmations we asked for and have not seen yet, per channel. Pushes reach
    /// us through the connection manager's own task, after the command's reply, so this (and
    /// not the `confirmed` flag) tells our own confirmations from automatic resubscriptions.
    /// Kept apart from `channels` because a confirmation may outlive its channel entry.
    awaited: Mutex<HashMap<String, usize>>,
}

struct Channel {
    tx: broadcast::Sender<FeedItem>,
    subscribers: usize,
    /// Redis confirmed the SUBSCRIBE; until then only the subscribing task may join.
    confirmed: bool,
}

impl FeedHub {
    pub(crate) fn publish(&self, key: &str, event: StoredEvent) {
        if let Some(c) = lock(&self.channels).get(key) {
            let delivery = Arc::new(Delivery {
                subscribers: c.tx.receiver_count(),
                span: OnceLock::new(),
            });
            // No receiver left is fine: the last one is about to unregister.
            let _ = c.tx.send(FeedItem::Event(event, delivery));
        }
    }

    fn gap(&self, key: Option<&str>) {
        let channels = lock(&self.channels);
        for (k, c) in channels.iter() {
            if key.is_none_or(|key| key == k) && c.confirmed {
                let _ = c.tx.send(FeedItem::Gap);
            }
        }
    }

    /// Joins the channel's broadcast, creating the channel if needed.
    fn join(&self, key: &str, confirmed: bool) -> broadcast::Receiver<FeedItem> {
        let mut channels = lock(&self.channels);
        let c = channels.entry(key.to_owned()).or_insert_with(|| Channel {
            tx: broadcast::channel(FEED_CAPACITY).0,
            subscribers: 0,
            confirmed,
        });
        c.subscribers += 1;
        c.tx.subscribe()
    }

    /// Joins the channel only if it exists and is confirmed.
    fn join_confirmed(&self, key: &str) -> Option<broadcast::Receiver<FeedItem>> {
        let mut channels = lock(&self.channels);
        let c = channels.get_mut(key).filter(|c| c.confirmed)?;
        c.subscribers += 1;
        Some(c.tx.subscribe())
    }

    fn confirm(&self, key: &str) {
        if let Some(c) = lock(&self.channels).get_mut(key) {
            c.confirmed = true;
        }
    }

    /// Leaves the channel; true if that was its last subscriber (the channel is gone).
    fn leave(&self, key: &str) -> bool {
        let mut channels = lock(&self.channels);
        let Some(c) = channels.get_mut(key) else {
            return false;
        };
        c.subscribers = c.subscribers.saturating_sub(1);
        if c.subscribers == 0 {
            channels.remove(key);
            true
        } else {
            false
        }
    }

    fn await_confirmation(&self, key: &str) {
        *lock(&self.awaited).entry(key.to_owned()).or_default() += 1;
    }

    /// Consumes one awaited confirmation; false if none was awaited.
    fn take_awaited(&self, key: &str) -> bool {
        let mut awaited = lock(&self.awaited);
        match awaited.get_mut(key) {
            Some(n) if *n > 1 => {
                *n -= 1;
                true
            }
            Some(_) => {
                awaited.remove(key);
                true
            }
            None => false,
        }
    }

    fn contains(&self, key: &str) -> bool {
        lock(&self.channels).contains_key(key)
    }

    fn len(&self) -> usize {
        lock(&self.channels).len()
    }

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
    Cluster(crate::backend::ClusterNodes),
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
    hub: Arc<FeedHub>,
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

    async fn unsubscribe_if_unused(&self, channel: String) {
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

/// Unregisters a subscriber; the last one of a channel also unsubscribes it.
struct SubscriberGuard {
    key: String,
    hub: Arc<FeedHub>,
    redis: Option<Arc<RedisFeed>>,
}

impl Drop for SubscriberGuard {
    fn drop(&mut self) {
        if !self.hub.leave(&self.key) {
            return;
        }
        let Some(feed) = self.redis.take() else {
            return;
        };
        // Drop cannot await; without a runtime (process shutdown) the connection is closing
        // anyway, and a stale subscription only delivers messages nobody routes.
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let key = std::mem::take(&mut self.key);
            handle.spawn(async move { feed.unsubscribe_if_unused(key).await });
        }
    }
}
