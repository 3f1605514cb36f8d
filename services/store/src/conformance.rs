//! The behaviour every backend must show. Each property is a `pub async fn` taking a fresh,
//! empty [`Backend`] and panicking on a violation; [`run_all`] runs them all.
//!
//! Memory: `ludus_store::conformance_tests!(async { Backend::memory() })` expands into one
//! `#[tokio::test]` per property. Redis: start a [`crate::testing::RedisServer`] and call
//! [`run_all`] with a closure that returns a backend with a fresh key prefix (see
//! `tests/redis_conformance.rs`).
//!
//! Panicking is the point here, so `expect` is used on every store call.

use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;

use futures::future::join_all;

use crate::{
    Backend, Commit, CommitOutcome, FeedError, FeedSubscription, GameFeed, GameStore, StoredEvent,
    TimerStore, feed::FEED_CAPACITY,
};

/// A bound on waiting for a live event, so a broken feed fails instead of hanging.
const RECV_BOUND: Duration = Duration::from_secs(5);
/// How many callers race in the concurrency properties.
const RACERS: usize = 16;

macro_rules! properties {
    ($($name:ident),* $(,)?) => {
        /// The property names, in the order [`run_all`] runs them.
        pub const NAMES: &[&str] = &[$(stringify!($name)),*];

        /// Runs every property, each on a fresh backend from `fresh`.
        pub async fn run_all<F, Fut>(mut fresh: F)
        where
            F: FnMut() -> Fut,
            Fut: Future<Output = Backend>,
        {
            $( $name(fresh().await).await; )*
        }

        /// Expands into one `#[tokio::test]` per conformance property; `$fresh` is an
        /// expression evaluated per test to a future of a fresh [`Backend`].
        #[macro_export]
        macro_rules! conformance_tests {
            ($fresh:expr) => {
                $(
                    #[tokio::test]
                    async fn $name() {
                        $crate::conformance::$name($fresh.await).await;
                    }
                )*
            };
        }
    };
}

properties!(
    game_create_and_load,
    game_commit_compare_and_set,
    game_duplicate_action_returns_original_seq,
    game_concurrent_commits_one_wins,
    game_events_after_order_and_limit,
    game_live_set,
    feed_subscribers_share_one_channel,
    feed_event_right_after_subscribe_is_received,
    feed_games_are_separate,
    feed_lagging_subscriber_sees_lagged,
    feed_resubscribe_after_drop,
    timer_arm_get_cancel,
    timer_claim_order_limit_and_ack,
    timer_unacked_claim_comes_due_again,
    timer_rearm_during_claim_defeats_ack,
    timer_concurrent_claims_take_each_once,
    //STUB-PROPS
);

fn commit<'a>(expected_seq: u64, action_id: Option<&'a str>, body: &'a [u8]) -> Commit<'a> {
    Commit {
        expected_seq,
        action_id,
        state: body,
        event: body,
    }
}

async fn recv(sub: &mut FeedSubscription) -> Result<StoredEvent, FeedError> {
    tokio::time::timeout(RECV_BOUND, sub.recv())
        .await
        .expect("no live event within the bound")
}

/// Create makes seq 1 with event 1; a second create of the id changes nothing.
pub async fn game_create_and_load(backend: Backend) {
    let games = GameStore::new(backend);
    assert_eq!(games.load("g1").await.expect("load"), None);
    assert!(
        games
            .create("g1", b"meta", b"s1", b"e1")
            .await
            .expect("create")
    );
    assert!(
        !games
            .create("g1", b"meta2", b"s2", b"e2")
            .await
            .expect("create again")
    );
    let g = games.load("g1").await.expect("load").expect("game exists");
    assert_eq!(
        (g.seq, &g.state[..], &g.meta[..]),
        (1, &b"s1"[..], &b"meta"[..])
    );
    let e = games.event("g1", 1).await.expect("event").expect("event 1");
    assert_eq!(
        e,
        StoredEvent {
            seq: 1,
            payload: b"e1".to_vec()
        }
    );
    // Binary payloads survive unchanged (events are encoded protos).
    let blob: Vec<u8> = (0..=255).collect();
    assert!(
        games
            .create("g2", &blob, &blob, &blob)
            .await
            .expect("create")
    );
    let g = games.load("g2").await.expect("load").expect("game exists");
    assert_eq!((g.state, g.meta), (blob.clone(), blob.clone()));
    let e = games.event("g2", 1).await.expect("event").expect("event 1");
    assert_eq!(e.payload, blob);
}

/// A commit applies only at the expected seq; a stale one writes nothing.
pub async fn game_commit_compare_and_set(backend: Backend) {
    let games = GameStore::new(backend);
    assert_eq!(
        games
            .commit("nope", commit(1, None, b"x"))
            .await
            .expect("commit"),
        CommitOutcome::NotFound
    );
    games.create("g", b"m", b"s1", b"e1").await.expect("create");
    assert_eq!(
        games
            .commit("g", commit(1, None, b"2"))
            .await
            .expect("commit"),
        CommitOutcome::Committed { seq: 2 }
    );
    assert_eq!(
        games
            .commit("g", commit(1, Some("late"), b"x"))
            .await
            .expect("commit"),
        CommitOutcome::StaleSeq { current: 2 }
    );
    assert_eq!(
        games
            .commit("g", commit(5, None, b"x"))
            .await
            .expect("commit"),
        CommitOutcome::StaleSeq { current: 2 }
    );
    let g = games.load("g").await.expect("load").expect("game");
    assert_eq!(
        (g.seq, &g.state[..], &g.meta[..]),
        (2, &b"2"[..], &b"m"[..])
    );
    assert_eq!(games.event("g", 3).await.expect("event"), None);
    // The stale action id was not recorded: it can still commit.
    assert_eq!(
        games
            .commit("g", commit(2, Some("late"), b"3"))
            .await
            .expect("commit"),
        CommitOutcome::Committed { seq: 3 }
    );
}

/// A retried action gets its original seq, even after later moves, and writes nothing.
pub async fn game_duplicate_action_returns_original_seq(backend: Backend) {
    let games = GameStore::new(backend);
    games.create("g", b"m", b"s", b"e1").await.expect("create");
    let first = games
        .commit("g", commit(1, Some("a"), b"2"))
        .await
        .expect("commit");
    assert_eq!(first, CommitOutcome::Committed { seq: 2 });
    games
        .commit("g", commit(2, Some("b"), b"3"))
        .await
        .expect("commit");
    games
        .commit("g", commit(3, None, b"4"))
        .await
        .expect("commit");
    for expected in [1, 4, 9] {
        assert_eq!(
            games
                .commit("g", commit(expected, Some("a"), b"again"))
                .await
                .expect("retry"),
            CommitOutcome::DuplicateAction { seq: 2 }
        );
    }
    let g = games.load("g").await.expect("load").expect("game");
    assert_eq!((g.seq, &g.state[..]), (4, &b"4"[..]));
    let original = games.event("g", 2).await.expect("event").expect("event 2");
    assert_eq!(original.payload, b"2");
    // Action ids are per game.
    games.create("h", b"m", b"s", b"e1").await.expect("create");
    assert_eq!(
        games
            .commit("h", commit(1, Some("a"), b"2"))
            .await
            .expect("commit"),
        CommitOutcome::Committed { seq: 2 }
    );
}

/// Of N concurrent commits at the same seq exactly one wins; the others see it.
pub async fn game_concurrent_commits_one_wins(backend: Backend) {
    let games = GameStore::new(backend);
    games.create("g", b"m", b"s", b"e1").await.expect("create");
    let ids: Vec<String> = (0..RACERS).map(|i| format!("act-{i}")).collect();
    let outcomes = join_all(ids.iter().map(|id| {
        let games = games.clone();
        async move { games.commit("g", commit(1, Some(id), id.as_bytes())).await }
    }))
    .await;
    let mut committed = 0;
    for o in outcomes {
        match o.expect("commit") {
            CommitOutcome::Committed { seq } => {
                assert_eq!(seq, 2);
                committed += 1;
            }
            CommitOutcome::StaleSeq { current } => assert_eq!(current, 2),
            other => panic!("unexpected outcome {other:?}"),
        }
    }
    assert_eq!(committed, 1);
    assert_eq!(
        games.events_after("g", 0, 100).await.expect("events").len(),
        2
    );
}

/// The log reads back in order, from any seq, bounded by the limit.
pub async fn game_events_after_order_and_limit(backend: Backend) {
    let games = GameStore::new(backend);
    assert!(
        games
            .events_after("none", 0, 10)
            .await
            .expect("events")
            .is_empty()
    );
    games.create("g", b"m", b"s", b"1").await.expect("create");
    for seq in 1..=10u64 {
        let body = (seq + 1).to_string();
        games
            .commit("g", commit(seq, None, body.as_bytes()))
            .await
            .expect("commit");
    }
    let all = games.events_after("g", 0, 100).await.expect("events");
    assert_eq!(
        all.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=11).collect::<Vec<_>>()
    );
    for e in &all {
        assert_eq!(e.payload, e.seq.to_string().into_bytes());
    }
    let page = games.events_after("g", 3, 4).await.expect("events");
    assert_eq!(
        page.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![4, 5, 6, 7]
    );
    assert!(
        games
            .events_after("g", 11, 10)
            .await
            .expect("events")
            .is_empty()
    );
    assert!(
        games
            .events_after("g", 0, 0)
            .await
            .expect("events")
            .is_empty()
    );
    assert_eq!(games.event("g", 0).await.expect("event"), None);
    assert_eq!(games.event("g", 12).await.expect("event"), None);
    assert_eq!(games.event("none", 1).await.expect("event"), None);
}

/// set_live adds and removes; live_games lists sorted ids up to the limit.
pub async fn game_live_set(backend: Backend) {
    let games = GameStore::new(backend);
    assert!(games.live_games(10).await.expect("live").is_empty());
    for id in ["c", "a", "b"] {
        games.set_live(id, true).await.expect("set live");
    }
    games.set_live("a", true).await.expect("set live twice");
    games.set_live("b", false).await.expect("set finished");
    games.set_live("zz", false).await.expect("unknown finished");
    assert_eq!(games.live_games(10).await.expect("live"), vec!["a", "c"]);
    assert_eq!(games.live_games(1).await.expect("live"), vec!["a"]);
    assert!(games.live_games(0).await.expect("live").is_empty());
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
    games
        .commit("g", commit(1, None, b"e2"))
        .await
        .expect("commit");
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
    games
        .commit("g", commit(2, None, b"e3"))
        .await
        .expect("commit");
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
    games
        .commit("g", commit(1, None, b"e2"))
        .await
        .expect("commit");
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
    games
        .commit("a", commit(1, None, b"a2"))
        .await
        .expect("commit");
    assert_eq!(recv(&mut a).await.expect("event").payload, b"a1");
    assert_eq!(recv(&mut a).await.expect("event").payload, b"a2");
    assert_eq!(recv(&mut b).await.expect("event").payload, b"b1");
    games
        .commit("b", commit(1, None, b"b2"))
        .await
        .expect("commit");
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
        games
            .commit("g", commit(seq, None, b"e"))
            .await
            .expect("commit");
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
        games
            .commit("g", commit(seq, None, b"e"))
            .await
            .expect("commit");
        assert_eq!(recv(&mut sub).await.expect("event").seq, seq + 1);
        drop(sub);
        assert_eq!(feed.open_channels(), 0);
    }
}

/// Arm, re-arm, get, next_due and cancel.
pub async fn timer_arm_get_cancel(backend: Backend) {
    let timers = TimerStore::new(backend);
    assert_eq!(timers.get("t").await.expect("get"), None);
    assert_eq!(timers.next_due().await.expect("next"), None);
    timers
        .arm("t", b"p1", 1_700_000_000_100)
        .await
        .expect("arm");
    assert_eq!(
        timers.get("t").await.expect("get"),
        Some((1_700_000_000_100, b"p1".to_vec()))
    );
    timers
        .arm("t", b"p2", 1_700_000_000_200)
        .await
        .expect("re-arm");
    timers.arm("u", b"", 1_700_000_000_300).await.expect("arm");
    assert_eq!(
        timers.get("t").await.expect("get"),
        Some((1_700_000_000_200, b"p2".to_vec()))
    );
    assert_eq!(
        timers.next_due().await.expect("next"),
        Some(1_700_000_000_200)
    );
    assert!(timers.cancel("t").await.expect("cancel"));
    assert!(!timers.cancel("t").await.expect("cancel again"));
    assert_eq!(timers.get("t").await.expect("get"), None);
    assert_eq!(
        timers.get("u").await.expect("get"),
        Some((1_700_000_000_300, Vec::new()))
    );
    assert_eq!(
        timers.next_due().await.expect("next"),
        Some(1_700_000_000_300)
    );
}

/// Claims take due timers earliest first up to the limit; ack deletes under the claim only.
pub async fn timer_claim_order_limit_and_ack(backend: Backend) {
    let timers = TimerStore::new(backend);
    for (key, due) in [("c", 300), ("a", 100), ("b", 200), ("d", 400)] {
        timers.arm(key, key.as_bytes(), due).await.expect("arm");
    }
    assert!(
        timers
            .claim_due(99, 1000, 10)
            .await
            .expect("claim")
            .is_empty()
    );
    let claimed = timers.claim_due(350, 1000, 2).await.expect("claim");
    let keys: Vec<_> = claimed
        .iter()
        .map(|t| (t.key.as_str(), t.due_ms, t.claim_ms))
        .collect();
    assert_eq!(keys, vec![("a", 100, 1350), ("b", 200, 1350)]);
    assert_eq!(claimed[0].payload, b"a");
    let rest = timers.claim_due(350, 1000, 10).await.expect("claim");
    assert_eq!(
        rest.iter().map(|t| t.key.as_str()).collect::<Vec<_>>(),
        vec!["c"]
    );
    assert!(
        timers
            .claim_due(350, 1000, 10)
            .await
            .expect("claim")
            .is_empty()
    );
    assert_eq!(
        timers.get("a").await.expect("get"),
        Some((1350, b"a".to_vec()))
    );
    assert_eq!(timers.next_due().await.expect("next"), Some(400));
    assert!(!timers.ack("a", 1349).await.expect("ack wrong claim"));
    assert!(timers.ack("a", 1350).await.expect("ack"));
    assert!(!timers.ack("a", 1350).await.expect("ack twice"));
    assert!(!timers.ack("zz", 1350).await.expect("ack unknown"));
    assert_eq!(timers.get("a").await.expect("get"), None);
    assert!(
        timers
            .claim_due(350, 1000, 0)
            .await
            .expect("claim")
            .is_empty()
    );
}

/// A claim that is never acked comes due again at its claim deadline, for a new claimant.
pub async fn timer_unacked_claim_comes_due_again(backend: Backend) {
    let timers = TimerStore::new(backend);
    timers.arm("t", b"p", 100).await.expect("arm");
    let first = timers.claim_due(100, 50, 10).await.expect("claim");
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].claim_ms, 150);
    assert!(
        timers
            .claim_due(149, 50, 10)
            .await
            .expect("claim")
            .is_empty()
    );
    let again = timers.claim_due(150, 50, 10).await.expect("claim");
    assert_eq!(again.len(), 1);
    assert_eq!(
        (again[0].due_ms, again[0].claim_ms, &again[0].payload[..]),
        (150, 200, &b"p"[..])
    );
    // The crashed worker's late ack must not delete the new claim.
    assert!(!timers.ack("t", 150).await.expect("stale ack"));
    assert!(timers.ack("t", 200).await.expect("ack"));
}

/// Re-arming a claimed timer replaces it: the old claim's ack deletes nothing.
pub async fn timer_rearm_during_claim_defeats_ack(backend: Backend) {
    let timers = TimerStore::new(backend);
    timers.arm("t", b"turn 3", 100).await.expect("arm");
    let claimed = timers.claim_due(100, 1000, 10).await.expect("claim");
    timers.arm("t", b"turn 4", 5000).await.expect("re-arm");
    assert!(!timers.ack("t", claimed[0].claim_ms).await.expect("ack"));
    assert_eq!(
        timers.get("t").await.expect("get"),
        Some((5000, b"turn 4".to_vec()))
    );
}

/// Concurrent claimants never take the same timer.
pub async fn timer_concurrent_claims_take_each_once(backend: Backend) {
    let timers = TimerStore::new(backend);
    let n = 50;
    for i in 0..n {
        timers
            .arm(&format!("t{i}"), b"p", 10 + i)
            .await
            .expect("arm");
    }
    let claims = join_all((0..RACERS).map(|_| {
        let timers = timers.clone();
        async move { timers.claim_due(1000, 60_000, 5).await }
    }))
    .await;
    let mut seen = HashSet::new();
    for claim in claims {
        for t in claim.expect("claim") {
            assert!(seen.insert(t.key.clone()), "timer {} claimed twice", t.key);
        }
    }
    assert_eq!(seen.len(), n as usize);
}
