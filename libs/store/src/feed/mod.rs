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
//!
//! This file holds the public types, the local fan-out both backends deliver through
//! ([`FeedHub`]) and one dispatch per call; the pub/sub connection is in `redis.rs`, the
//! memory backend's subscriptions in `memory.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::broadcast;

use crate::backend::memory::lock;
use crate::backend::{Backend, Kind, StoreError, dispatch};
use crate::game::{Log, StoredEvent};

pub(crate) mod memory;
pub(crate) mod redis;

pub(crate) use self::redis::{FeedClient, RedisFeed};

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

/// A live channel, named each backend's way (a Redis channel, a key of the memory hub).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Topic<'a> {
    /// The live events of one log: a game's or a room's.
    Log(Log, &'a str),
    /// The notices of settled and changed matchmaking tickets.
    Tickets,
}

impl GameFeed {
    /// A feed over `backend`. Clones of one backend share one pub/sub connection.
    pub fn new(backend: Backend) -> Self {
        GameFeed { backend }
    }

    /// Subscribes to the game's live events. When this returns, the subscription is active
    /// (Redis confirmed the SUBSCRIBE), so no event committed afterwards is missed.
    pub async fn subscribe(&self, game_id: &str) -> Result<FeedSubscription, StoreError> {
        subscribe(&self.backend, Topic::Log(Log::Game, game_id)).await
    }

    /// How many games have an underlying subscription open in this process.
    pub fn open_channels(&self) -> usize {
        match &self.backend.kind {
            Kind::Redis(r) => r.feed.hub.len(),
            Kind::Memory(m) => m.hub.len(),
        }
    }
}

/// Subscribes to `topic` on the process's shared pub/sub side. Messages use the
/// `<seq>:<bytes>` framing of the game scripts. When this returns the subscription is active.
pub(crate) async fn subscribe(
    backend: &Backend,
    topic: Topic<'_>,
) -> Result<FeedSubscription, StoreError> {
    dispatch!(backend, subscribe(topic))
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
