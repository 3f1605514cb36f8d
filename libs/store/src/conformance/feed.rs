//! The live feed ([`crate::GameFeed`]): one channel per game per process, nothing missed right after subscribing, lag signalled; and the pieces of the tests (Redis only) that kill a feed's connection.

use std::time::Duration;

use super::{RECV_BOUND, commit_lands, recv};
use crate::{
    Backend, Commit, FEED_CAPACITY, FeedError, FeedSubscription, GameFeed, GameStore, StoredEvent,
};

/// The start of a test that kills a feed's connection: game `g` at seq 1 and a live
/// subscription to it (with its feed, which must outlive it).
pub async fn subscribed_game(backend: Backend) -> (GameStore, GameFeed, FeedSubscription) {
    let games = GameStore::new(backend.clone());
    let feed = GameFeed::new(backend);
    games.create("g", b"m", b"s", b"e1").await.expect("create");
    let sub = feed.subscribe("g").await.expect("subscribe");
    (games, feed, sub)
}

/// Kills the pub/sub connections of the Redis node `admin` is connected to; how many.
pub async fn kill_pubsub_clients(admin: &mut redis::aio::MultiplexedConnection) -> i64 {
    redis::cmd("CLIENT")
        .arg("KILL")
        .arg("TYPE")
        .arg("pubsub")
        .query_async(admin)
        .await
        .expect("client kill")
}

/// Once its connection is killed, a subscriber first hears that it lagged, so that it reads
/// the log again.
pub async fn lag_signalled(sub: &mut FeedSubscription) {
    assert_eq!(recv(sub).await, Err(FeedError::Lagged(0)));
}

/// Waits (bounded) until `subscribers`, which counts the subscriptions to game `g`'s live
/// channel on the server, counts the restored one.
pub async fn resubscribed(mut subscribers: impl AsyncFnMut() -> i64) {
    tokio::time::timeout(RECV_BOUND, async {
        while subscribers().await != 1 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("resubscribed");
}

/// The end of a test that killed a feed's connection (`sub`, on game `g` created at seq 1,
/// has seen its `Lagged`, and its subscription is back on the server): the next commit
/// reaches it, whatever lag signals come first.
pub async fn commit_reaches_restored_subscription(games: &GameStore, sub: &mut FeedSubscription) {
    let commit = Commit {
        expected_seq: 1,
        action_id: None,
        state: b"s2",
        event: b"e2",
        version: None,
        expected_version: None,
    };
    games
        .commit("g", commit)
        .await
        .expect("commit")
        .expect("the commit lands");
    loop {
        match recv(sub).await {
            Ok(e) => {
                assert_eq!(e.seq, 2);
                break;
            }
            Err(FeedError::Lagged(_)) => continue,
            Err(FeedError::Closed) => panic!("feed closed"),
        }
    }
}

/// Two subscribers of one game share one channel, both receive, and dropping both closes it.
pub async fn feed_subscribers_share_one_channel(backend: Backend) {
    let games = GameStore::new(backend.clone());
    let feed = GameFeed::new(backend);
    games.create("g", b"m", b"s", b"e1").await.expect("create");
    assert_eq!(feed.open_channels(), 0);
    let mut a = feed.subscribe("g").await.expect("subscribe");
    let mut b = feed.subscribe("g").await.expect("subscribe");
    assert_eq!(feed.open_channels(), 1);
    commit_lands(&games, "g", 1, None, b"e2").await;
    for sub in [&mut a, &mut b] {
        let e = recv(sub).await.expect("event");
        assert_eq!(
            e,
            StoredEvent {
                seq: 2,
                payload: b"e2".to_vec()
            }
        );
    }
    drop(a);
    assert_eq!(feed.open_channels(), 1);
    commit_lands(&games, "g", 2, None, b"e3").await;
    assert_eq!(recv(&mut b).await.expect("event").seq, 3);
    drop(b);
    assert_eq!(feed.open_channels(), 0);
}

/// An event committed (or a game created) right after subscribe returns is received.
pub async fn feed_event_right_after_subscribe_is_received(backend: Backend) {
    let games = GameStore::new(backend.clone());
    let feed = GameFeed::new(backend.clone());
    let mut sub = feed.subscribe("g").await.expect("subscribe");
    games
        .create("g", b"m", b"s", b"started")
        .await
        .expect("create");
    let e = recv(&mut sub).await.expect("event");
    assert_eq!(
        e,
        StoredEvent {
            seq: 1,
            payload: b"started".to_vec()
        }
    );
    // A second process-level feed (another gateway) subscribing now also gets the next event.
    let other = GameFeed::new(backend);
    let mut sub2 = other.subscribe("g").await.expect("subscribe");
    commit_lands(&games, "g", 1, None, b"e2").await;
    assert_eq!(recv(&mut sub).await.expect("event").seq, 2);
    assert_eq!(recv(&mut sub2).await.expect("event").seq, 2);
}

/// Subscribers only see their own game's events.
pub async fn feed_games_are_separate(backend: Backend) {
    let games = GameStore::new(backend.clone());
    let feed = GameFeed::new(backend);
    let mut a = feed.subscribe("a").await.expect("subscribe");
    let mut b = feed.subscribe("b").await.expect("subscribe");
    assert_eq!(feed.open_channels(), 2);
    games.create("a", b"m", b"s", b"a1").await.expect("create");
    games.create("b", b"m", b"s", b"b1").await.expect("create");
    commit_lands(&games, "a", 1, None, b"a2").await;
    assert_eq!(recv(&mut a).await.expect("event").payload, b"a1");
    assert_eq!(recv(&mut a).await.expect("event").payload, b"a2");
    assert_eq!(recv(&mut b).await.expect("event").payload, b"b1");
    commit_lands(&games, "b", 1, None, b"b2").await;
    assert_eq!(recv(&mut b).await.expect("event").payload, b"b2");
}

/// A subscriber that falls too far behind sees Lagged, then the newest events.
pub async fn feed_lagging_subscriber_sees_lagged(backend: Backend) {
    let games = GameStore::new(backend.clone());
    let feed = GameFeed::new(backend);
    let mut sub = feed.subscribe("g").await.expect("subscribe");
    games.create("g", b"m", b"s", b"e").await.expect("create");
    let total = FEED_CAPACITY as u64 + 10;
    for seq in 1..total {
        commit_lands(&games, "g", seq, None, b"e").await;
    }
    // Wait for the last event to be delivered, counting what came before it.
    let mut lagged = false;
    let mut last = 0;
    while last < total {
        match recv(&mut sub).await {
            Ok(e) => {
                assert!(e.seq > last, "events out of order");
                last = e.seq;
            }
            Err(FeedError::Lagged(_)) => lagged = true,
            Err(FeedError::Closed) => panic!("feed closed"),
        }
    }
    assert!(lagged, "a subscriber {total} events behind must see Lagged");
}

/// Dropping the last subscriber and subscribing again works (no lost re-subscription).
pub async fn feed_resubscribe_after_drop(backend: Backend) {
    let games = GameStore::new(backend.clone());
    let feed = GameFeed::new(backend);
    games.create("g", b"m", b"s", b"e1").await.expect("create");
    for seq in 1..5u64 {
        let mut sub = feed.subscribe("g").await.expect("subscribe");
        commit_lands(&games, "g", seq, None, b"e").await;
        assert_eq!(recv(&mut sub).await.expect("event").seq, seq + 1);
        drop(sub);
        assert_eq!(feed.open_channels(), 0);
    }
}
