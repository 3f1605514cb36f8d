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
    Backend, Commit, CommitRefusal, Committed, Confirmation, EnqueueOutcome, FEED_CAPACITY,
    FeedError, FeedSubscription, GameFeed, GameRead, GameStore, HeldStream, QueueStore,
    RatingEntry, RatingStore, RatingUpdate, RecordOutcome, RoomRecord, RoomStore, StoredEvent,
    StreamLeases, TableClaim, TableOutcome, TableProposal, Ticket, TicketChange, TicketNotice,
    TicketProposal, TicketStatus, TimerArm, TimerStore, TimerWrites,
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
    room_codes_are_unique_among_live_rooms,
    room_commits_compare_and_set_and_publish,
    room_log_is_apart_from_a_game_with_the_same_id,
    room_lobby_lists_public_rooms,
    room_empty_room_expires_unless_kept,
    game_create_and_load,
    game_commit_compare_and_set,
    game_duplicate_action_returns_original_seq,
    game_concurrent_commits_one_wins,
    game_commit_writes_its_timers,
    game_versions_name_one_state,
    game_events_after_order_and_limit,
    game_live_set,
    game_presence_counts,
    stream_leases_lapse_and_are_taken_once,
    game_finish_forgets_the_game_after_its_retention,
    game_player_index,
    feed_subscribers_share_one_channel,
    feed_event_right_after_subscribe_is_received,
    feed_games_are_separate,
    feed_lagging_subscriber_sees_lagged,
    feed_resubscribe_after_drop,
    timer_arm_get_cancel,
    timer_counts_armed_and_due,
    timer_claim_order_limit_and_ack,
    timer_unacked_claim_comes_due_again,
    timer_rearm_during_claim_defeats_ack,
    timer_concurrent_claims_take_each_once,
    queue_enqueue_and_list,
    queue_one_live_ticket_per_player,
    queue_concurrent_enqueues_of_one_player_queue_one,
    queue_take_all_or_nothing,
    queue_concurrent_overlapping_takes,
    queue_take_tables_each_table_alone,
    queue_concurrent_batched_takes_never_match_twice,
    queue_lease_is_exclusive_until_it_lapses,
    queue_settled_notices_reach_subscribers,
    queue_cancel,
    queue_proposal_matches_once_every_seat_confirmed,
    queue_cancelled_proposal_sends_the_others_to_the_front,
    queue_expired_proposal_requeues_every_ticket,
    queue_concurrent_confirms_and_cancels_seat_nobody_twice,
    rating_record_and_get,
    rating_record_twice_is_already_recorded,
    rating_version_conflict,
    rating_unrated_and_results,
    rating_top_order_and_paging,
);

/// Runs every property on one Redis (a node or a cluster), each on the backend `connect`
/// gives for its own key prefix (`c0:`, `c1:`, …), and checks that every property ran.
pub async fn run_all_prefixed<F, Fut>(mut connect: F)
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Backend>,
{
    let mut next = 0;
    run_all(|| {
        let prefix = format!("c{next}:");
        next += 1;
        connect(prefix)
    })
    .await;
    assert_eq!(next, NAMES.len());
}

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
    games.commit("g", commit).await.expect("commit");
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

fn commit<'a>(expected_seq: u64, action_id: Option<&'a str>, body: &'a [u8]) -> Commit<'a> {
    Commit {
        expected_seq,
        action_id,
        state: body,
        event: body,
        version: None,
        expected_version: None,
    }
}

/// A commit's timer writes: when it lands, its timers are armed (payload and due time as
/// given) and the stale ones deleted; a commit that does not land changes no game state. (On
/// one node and in memory the timers are part of the commit; on a cluster they are armed just
/// before it and the stale ones deleted just after, in the background.)
pub async fn game_commit_writes_its_timers(backend: Backend) {
    let games = GameStore::new(backend.clone());
    let timers = TimerStore::new(backend);
    assert!(games.create("g", b"m", b"s1", b"e1").await.expect("create"));
    timers.arm("turn/g/1", b"old", 5_000).await.expect("arm");
    let writes = TimerWrites {
        arm: vec![
            TimerArm {
                key: "turn/g/2".into(),
                payload: b"expire 2".to_vec(),
                due_ms: 9_000,
            },
            TimerArm {
                key: "outcome/g".into(),
                payload: b"report".to_vec(),
                due_ms: 1_000,
            },
        ],
        cancel: vec!["turn/g/1".into()],
    };
    let outcome = games
        .commit_with_timers("g", commit(1, Some("a"), b"s2"), &writes)
        .await
        .expect("commit");
    assert_eq!(outcome, Ok(Committed { seq: 2 }));
    assert_eq!(
        timers.get("turn/g/2").await.expect("get"),
        Some((9_000, b"expire 2".to_vec()))
    );
    assert_eq!(
        timers.get("outcome/g").await.expect("get"),
        Some((1_000, b"report".to_vec()))
    );
    // The stale timer's deletion may be a background write (cluster): wait for it, bounded.
    let deadline = tokio::time::Instant::now() + RECV_BOUND;
    while timers.get("turn/g/1").await.expect("get").is_some() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the stale timer was not deleted"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // A stale commit is refused whole: the game stays at seq 2 with its state.
    let stale = games
        .commit_with_timers("g", commit(1, Some("b"), b"s3"), &writes)
        .await
        .expect("commit");
    assert_eq!(stale, Err(CommitRefusal::StaleSeq { current: 2 }));
    let record = games.load("g").await.expect("load").expect("game");
    assert_eq!((record.seq, record.state.as_slice()), (2, &b"s2"[..]));
    // Without timer writes the commit is the plain one.
    let plain = games
        .commit_with_timers("g", commit(2, None, b"s3"), &TimerWrites::default())
        .await
        .expect("commit");
    assert_eq!(plain, Ok(Committed { seq: 3 }));
}

/// A commit's version names the state it wrote: a read holding the game's seq and version is
/// told the game is unchanged (no state sent), any other seq or version gets the state and its
/// version; a commit expecting another version is refused as stale and writes nothing; a
/// commit writing no version leaves none.
pub async fn game_versions_name_one_state(backend: Backend) {
    let games = GameStore::new(backend);
    assert!(games.create("g", b"m", b"s1", b"e1").await.expect("create"));
    // Commits `state` on game `g` if it is at `expected_seq` (and `expected_version`).
    let commit = async |expected_seq, state: &'static [u8], version, expected_version| {
        let versioned = Commit {
            expected_seq,
            action_id: None,
            state,
            event: state,
            version,
            expected_version,
        };
        games.commit("g", versioned).await.expect("commit")
    };
    let first = commit(1, b"s2", Some("v2"), None).await;
    assert_eq!(first, Ok(Committed { seq: 2 }));
    let (read, _) = games
        .read_for_action("g", "a", Some((2, "v2")))
        .await
        .expect("read");
    assert_eq!(read, GameRead::Unchanged { seq: 2 });
    for held in [(2, "v1"), (1, "v2")] {
        let (read, _) = games
            .read_for_action("g", "a", Some(held))
            .await
            .expect("read");
        let GameRead::Record { record, version } = read else {
            panic!("{held:?} is not the game's copy: {read:?}")
        };
        assert_eq!((record.seq, &record.state[..]), (2, &b"s2"[..]));
        assert_eq!(version.as_deref(), Some("v2"));
    }
    // The right seq with another version is stale: nothing is written.
    let stale = commit(2, b"s3", Some("v3"), Some("v1")).await;
    assert_eq!(stale, Err(CommitRefusal::StaleSeq { current: 2 }));
    let record = games.load("g").await.expect("load").expect("game");
    assert_eq!((record.seq, &record.state[..]), (2, &b"s2"[..]));
    let landed = commit(2, b"s3", Some("v3"), Some("v2")).await;
    assert_eq!(landed, Ok(Committed { seq: 3 }));
    // A commit without a version leaves none: no copy's version matches any more.
    let plain = commit(3, b"s4", None, None).await;
    assert_eq!(plain, Ok(Committed { seq: 4 }));
    let (read, _) = games
        .read_for_action("g", "a", Some((4, "v3")))
        .await
        .expect("read");
    assert!(
        matches!(read, GameRead::Record { version: None, .. }),
        "{read:?}"
    );
    let refused = commit(4, b"s5", Some("v5"), Some("v3")).await;
    assert_eq!(refused, Err(CommitRefusal::StaleSeq { current: 4 }));
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
        Err(CommitRefusal::NotFound)
    );
    games.create("g", b"m", b"s1", b"e1").await.expect("create");
    assert_eq!(
        games
            .commit("g", commit(1, None, b"2"))
            .await
            .expect("commit"),
        Ok(Committed { seq: 2 })
    );
    assert_eq!(
        games
            .commit("g", commit(1, Some("late"), b"x"))
            .await
            .expect("commit"),
        Err(CommitRefusal::StaleSeq { current: 2 })
    );
    assert_eq!(
        games
            .commit("g", commit(5, None, b"x"))
            .await
            .expect("commit"),
        Err(CommitRefusal::StaleSeq { current: 2 })
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
        Ok(Committed { seq: 3 })
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
    assert_eq!(first, Ok(Committed { seq: 2 }));
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
            Err(CommitRefusal::DuplicateAction { seq: 2 })
        );
    }
    let g = games.load("g").await.expect("load").expect("game");
    assert_eq!((g.seq, &g.state[..]), (4, &b"4"[..]));
    let original = games.event("g", 2).await.expect("event").expect("event 2");
    assert_eq!(original.payload, b"2");
    assert_eq!(games.action_seq("g", "a").await.expect("lookup"), Some(2));
    assert_eq!(games.action_seq("g", "b").await.expect("lookup"), Some(3));
    assert_eq!(games.action_seq("g", "zzz").await.expect("lookup"), None);
    assert_eq!(games.action_seq("nope", "a").await.expect("lookup"), None);
    let (read, seq) = games.read_for_action("g", "b", None).await.expect("read");
    let GameRead::Record { record, version } = read else {
        panic!("no record read: {read:?}")
    };
    assert_eq!(
        (record.seq, record.state, record.meta, version),
        (4, b"4".to_vec(), b"m".to_vec(), None)
    );
    assert_eq!(seq, Some(3));
    let (read, seq) = games.read_for_action("g", "zzz", None).await.expect("read");
    assert!(matches!(read, GameRead::Record { .. }));
    assert_eq!(seq, None);
    let (read, seq) = games
        .read_for_action("nope", "a", Some((4, "v")))
        .await
        .expect("read");
    assert_eq!((read, seq), (GameRead::Missing, None));
    // Action ids are per game.
    games.create("h", b"m", b"s", b"e1").await.expect("create");
    assert_eq!(
        games
            .commit("h", commit(1, Some("a"), b"2"))
            .await
            .expect("commit"),
        Ok(Committed { seq: 2 })
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
            Ok(Committed { seq }) => {
                assert_eq!(seq, 2);
                committed += 1;
            }
            Err(CommitRefusal::StaleSeq { current }) => assert_eq!(current, 2),
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

/// mark_live lists a game until finish; live_games lists the newest first (ties by id,
/// highest first) up to the limit; marking again keeps the first time.
pub async fn game_live_set(backend: Backend) {
    let games = GameStore::new(backend);
    assert!(games.live_games(10).await.expect("live").is_empty());
    for (id, since) in [("c", 3), ("a", 1), ("b", 2), ("d", 3)] {
        games.mark_live(id, since).await.expect("mark live");
    }
    games.mark_live("a", 9).await.expect("mark live again");
    games
        .finish("b", 10, Duration::from_secs(60))
        .await
        .expect("finish");
    games
        .finish("zz", 10, Duration::from_secs(60))
        .await
        .expect("finish an unknown game");
    assert_eq!(
        games.live_games(10).await.expect("live"),
        vec!["d", "c", "a"],
        "newest first; a keeps its first time"
    );
    assert_eq!(games.live_games(1).await.expect("live"), vec!["d"]);
    assert!(games.live_games(0).await.expect("live").is_empty());
}

/// Presence counts per game and seat, never below zero, and reset by a new game with the id.
pub async fn game_presence_counts(backend: Backend) {
    let games = GameStore::new(backend);
    assert_eq!(games.presence("g", 0, 0).await.expect("read"), 0);
    assert_eq!(games.presence("g", 0, 1).await.expect("open"), 1);
    assert_eq!(games.presence("g", 0, 1).await.expect("open"), 2);
    assert_eq!(games.presence("g", 1, 1).await.expect("other seat"), 1);
    assert_eq!(games.presence("h", 0, 0).await.expect("other game"), 0);
    assert_eq!(games.presence("g", 0, -1).await.expect("close"), 1);
    assert_eq!(games.presence("g", 0, -1).await.expect("close"), 0);
    assert_eq!(
        games.presence("g", 0, -1).await.expect("close again"),
        0,
        "a stray close never goes below zero"
    );
    assert_eq!(games.presence("g", 0, 1).await.expect("open"), 1);
    assert!(
        games
            .create("g", b"meta", b"state", b"started")
            .await
            .expect("create")
    );
    assert_eq!(
        games.presence("g", 1, 0).await.expect("read"),
        0,
        "a new game with the id starts with nobody connected"
    );
}

/// A holder's streams are counted per (game, player); a lease that ran out is taken once, with
/// its streams, and a renewal afterwards reports the holder as new (issue 16).
pub async fn stream_leases_lapse_and_are_taken_once(backend: Backend) {
    let leases = StreamLeases::new(backend);
    assert!(
        leases.renew("gw1", 1_000).await.expect("renew"),
        "new holder"
    );
    assert!(
        !leases.renew("gw1", 2_000).await.expect("renew"),
        "known holder"
    );
    assert!(leases.renew("gw2", 5_000).await.expect("renew"));
    for _ in 0..2 {
        leases.hold("gw1", "g", "ann").await.expect("hold");
    }
    leases.hold("gw1", "g", "bob").await.expect("hold");
    leases.hold("gw1", "h", "ann").await.expect("hold");
    leases.release("gw1", "h", "ann").await.expect("release");
    leases.hold("gw2", "g", "cid").await.expect("hold");
    assert!(leases.lapsed(1_999, 10).await.expect("lapsed").is_empty());
    assert_eq!(leases.lapsed(2_000, 10).await.expect("lapsed"), vec!["gw1"]);
    assert_eq!(
        leases.take_lapsed("gw2", 2_000).await.expect("take"),
        None,
        "a live lease is not taken"
    );
    let mut taken = leases
        .take_lapsed("gw1", 2_000)
        .await
        .expect("take")
        .expect("a lapsed lease is taken");
    taken.sort_by(|a, b| (&a.game_id, &a.player_id).cmp(&(&b.game_id, &b.player_id)));
    let held = |game: &str, player: &str, streams| HeldStream {
        game_id: game.into(),
        player_id: player.into(),
        streams,
    };
    assert_eq!(taken, vec![held("g", "ann", 2), held("g", "bob", 1)]);
    assert_eq!(
        leases.take_lapsed("gw1", 2_000).await.expect("take"),
        None,
        "taken once"
    );
    assert!(leases.lapsed(3_000, 10).await.expect("lapsed").is_empty());
    assert!(
        leases.renew("gw1", 9_000).await.expect("renew"),
        "a holder whose lease was taken is told so"
    );
}

/// A finished game leaves the live set at once and is forgotten (state, log, action ids,
/// presence) after its retention; a game finished later is kept meanwhile.
pub async fn game_finish_forgets_the_game_after_its_retention(backend: Backend) {
    let games = GameStore::new(backend);
    for id in ["old", "new"] {
        assert!(
            games
                .create(id, b"meta", b"s1", b"e1")
                .await
                .expect("create")
        );
        games.mark_live(id, 1).await.expect("live");
        let committed = games
            .commit(id, commit(1, Some("a1"), b"two"))
            .await
            .expect("commit");
        assert_eq!(committed, Ok(Committed { seq: 2 }));
        games.presence(id, 0, 1).await.expect("presence");
    }
    games
        // A second of retention: long enough that the check below sees the game on a loaded
        // machine (50 ms once expired it before the load on a busy CI box).
        .finish("old", 1_000, Duration::from_secs(1))
        .await
        .expect("finish old");
    assert_eq!(games.live_games(10).await.expect("live"), vec!["new"]);
    assert!(
        games.load("old").await.expect("load").is_some(),
        "kept for a while"
    );
    // Redis expires by its own clock; the memory backend at the next finish.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    games
        .finish("new", 60_000, Duration::from_secs(3600))
        .await
        .expect("finish new");
    assert!(games.live_games(10).await.expect("live").is_empty());
    assert_eq!(games.load("old").await.expect("load"), None);
    assert!(
        games
            .events_after("old", 0, 10)
            .await
            .expect("events")
            .is_empty()
    );
    assert_eq!(games.action_seq("old", "a1").await.expect("action"), None);
    assert_eq!(games.presence("old", 0, 0).await.expect("presence"), 0);
    assert!(games.load("new").await.expect("load").is_some());
    assert_eq!(
        games
            .events_after("new", 0, 10)
            .await
            .expect("events")
            .len(),
        2
    );
    // A game finished again (or unknown) is fine.
    games
        .finish("gone", 60_000, Duration::from_secs(1))
        .await
        .expect("finish unknown");
}

/// Each player's unfinished games: added and removed idempotently, sorted, limited.
pub async fn game_player_index(backend: Backend) {
    let games = GameStore::new(backend);
    let ann_bob = ["ann".to_owned(), "bob".to_owned()];
    assert!(
        games
            .player_games("ann", 10)
            .await
            .expect("list")
            .is_empty()
    );
    games
        .seat_players("g2", &ann_bob, true)
        .await
        .expect("seat");
    games
        .seat_players("g1", &ann_bob[..1], true)
        .await
        .expect("seat");
    games
        .seat_players("g1", &ann_bob[..1], true)
        .await
        .expect("seat twice");
    assert_eq!(
        games.player_games("ann", 10).await.expect("list"),
        vec!["g2", "g1"]
    );
    assert_eq!(
        games.player_games("ann", 1).await.expect("list"),
        vec!["g2"]
    );
    assert_eq!(
        games.player_games("bob", 10).await.expect("list"),
        vec!["g2"]
    );
    assert!(games.player_games("ann", 0).await.expect("list").is_empty());
    games
        .seat_players("g2", &ann_bob, false)
        .await
        .expect("over");
    games
        .seat_players("g2", &ann_bob, false)
        .await
        .expect("over twice");
    assert_eq!(
        games.player_games("ann", 10).await.expect("list"),
        vec!["g1"]
    );
    assert!(
        games
            .player_games("bob", 10)
            .await
            .expect("list")
            .is_empty()
    );
}

/// Armed timers, and those due by a time (the backlog gauge).
pub async fn timer_counts_armed_and_due(backend: Backend) {
    let timers = TimerStore::new(backend);
    assert_eq!(timers.counts(1_000).await.expect("counts"), (0, 0));
    for (key, due) in [("a", 100), ("b", 1_000), ("c", 5_000)] {
        timers.arm(key, b"p", due).await.expect("arm");
    }
    assert_eq!(timers.counts(999).await.expect("counts"), (3, 1));
    assert_eq!(
        timers.counts(1_000).await.expect("counts"),
        (3, 2),
        "due at now counts"
    );
    timers.cancel("a").await.expect("cancel");
    assert_eq!(timers.counts(10_000).await.expect("counts"), (2, 2));
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

fn ticket(queue: &str, id: &str, player: &str, created_ms: u64) -> Ticket {
    Ticket {
        ticket_id: id.to_owned(),
        queue: queue.to_owned(),
        player_id: player.to_owned(),
        payload: format!(r#"{{"name":"{player}","rating":1500}}"#).into_bytes(),
        created_ms,
        status: TicketStatus::Queued,
    }
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// Enqueued tickets are listed oldest first per queue; queues() names non-empty queues.
pub async fn queue_enqueue_and_list(backend: Backend) {
    let q = QueueStore::new(backend);
    assert!(q.queues().await.expect("queues").is_empty());
    assert!(q.queued("caro", 10).await.expect("queued").is_empty());
    for (id, player, created) in [("t2", "p2", 20), ("t1", "p1", 10), ("t3", "p3", 30)] {
        let outcome = q
            .enqueue(&ticket("caro", id, player, created))
            .await
            .expect("enqueue");
        assert_eq!(outcome, EnqueueOutcome::Queued);
    }
    q.enqueue(&ticket("quoridor", "t9", "p9", 5))
        .await
        .expect("enqueue");
    assert_eq!(q.queues().await.expect("queues"), vec!["caro", "quoridor"]);
    let listed = q.queued("caro", 10).await.expect("queued");
    assert_eq!(
        listed
            .iter()
            .map(|t| t.ticket_id.as_str())
            .collect::<Vec<_>>(),
        ["t1", "t2", "t3"]
    );
    assert_eq!(listed[0], ticket("caro", "t1", "p1", 10));
    assert_eq!(q.queued("caro", 2).await.expect("queued").len(), 2);
    assert!(q.queued("caro", 0).await.expect("queued").is_empty());
    assert_eq!(
        q.ticket("caro", "t2").await.expect("ticket"),
        Some(ticket("caro", "t2", "p2", 20))
    );
    assert_eq!(q.ticket("caro", "nope").await.expect("ticket"), None);
    assert_eq!(q.ticket("quoridor", "t1").await.expect("ticket"), None);
    assert!(q.take("quoridor", &ids(&["t9"]), "g").await.expect("take"));
    assert_eq!(q.queues().await.expect("queues"), vec!["caro"]);
}

/// A player holds at most one queued ticket across queues; a matched ticket frees them.
pub async fn queue_one_live_ticket_per_player(backend: Backend) {
    let q = QueueStore::new(backend);
    assert_eq!(q.live_ticket("p1").await.expect("live"), None);
    q.enqueue(&ticket("caro", "t1", "p1", 10))
        .await
        .expect("enqueue");
    assert_eq!(
        q.live_ticket("p1").await.expect("live"),
        Some(("caro".to_owned(), "t1".to_owned()))
    );
    let again = EnqueueOutcome::AlreadyQueued {
        ticket_id: "t1".into(),
    };
    assert_eq!(
        q.enqueue(&ticket("caro", "t1", "p1", 10))
            .await
            .expect("retry"),
        again
    );
    assert_eq!(
        q.enqueue(&ticket("caro", "t2", "p1", 11))
            .await
            .expect("second"),
        again
    );
    assert_eq!(
        q.enqueue(&ticket("mancala", "t3", "p1", 12))
            .await
            .expect("other queue"),
        again
    );
    assert_eq!(q.queued("caro", 10).await.expect("queued").len(), 1);
    assert!(q.queued("mancala", 10).await.expect("queued").is_empty());
    q.enqueue(&ticket("caro", "t4", "p2", 13))
        .await
        .expect("enqueue");
    assert!(
        q.take("caro", &ids(&["t1", "t4"]), "g1")
            .await
            .expect("take")
    );
    assert_eq!(q.live_ticket("p1").await.expect("live"), None);
    // A retried enqueue of the matched ticket must not re-queue it.
    let retry = q
        .enqueue(&ticket("caro", "t1", "p1", 10))
        .await
        .expect("retry");
    assert_eq!(retry, again);
    assert!(q.queued("caro", 10).await.expect("queued").is_empty());
    // A new ticket is fine once matched.
    assert_eq!(
        q.enqueue(&ticket("caro", "t5", "p1", 14))
            .await
            .expect("new"),
        EnqueueOutcome::Queued
    );
}

/// One player enqueuing into many queues at once (a client racing itself, or two devices)
/// ends with exactly one queued ticket, and every other enqueue names that one; after it is
/// cancelled the player may queue again.
pub async fn queue_concurrent_enqueues_of_one_player_queue_one(backend: Backend) {
    let q = QueueStore::new(backend);
    let outcomes = join_all((0..RACERS).map(|i| {
        let q = q.clone();
        async move {
            let t = ticket(&format!("q{i}"), &format!("t{i}"), "p", i as u64);
            (i, q.enqueue(&t).await.expect("enqueue"))
        }
    }))
    .await;
    let queued: Vec<usize> = outcomes
        .iter()
        .filter(|(_, o)| *o == EnqueueOutcome::Queued)
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(queued.len(), 1, "exactly one enqueue queued: {outcomes:?}");
    let winner = queued[0];
    let mut listed = 0;
    for i in 0..RACERS {
        listed += q.queued(&format!("q{i}"), 10).await.expect("queued").len();
    }
    assert_eq!(listed, 1, "one queued ticket across every queue");
    let live = (format!("q{winner}"), format!("t{winner}"));
    assert_eq!(q.live_ticket("p").await.expect("live"), Some(live.clone()));
    for (i, outcome) in &outcomes {
        if *i != winner {
            // Either the winner, or (its own ticket tombstoned under it) its own id.
            assert!(
                *outcome
                    == EnqueueOutcome::AlreadyQueued {
                        ticket_id: live.1.clone()
                    }
                    || *outcome
                        == EnqueueOutcome::AlreadyQueued {
                            ticket_id: format!("t{i}")
                        },
                "{i}: {outcome:?}"
            );
        }
    }
    q.cancel(&live.1, &live.0, "p").await.expect("cancel");
    assert_eq!(q.live_ticket("p").await.expect("live"), None);
    assert!(q.queues().await.expect("queues").is_empty());
    assert_eq!(
        q.enqueue(&ticket("again", "t-again", "p", 100))
            .await
            .expect("enqueue"),
        EnqueueOutcome::Queued
    );
}

/// take matches all the tickets, seats in slice order, or changes nothing.
pub async fn queue_take_all_or_nothing(backend: Backend) {
    let q = QueueStore::new(backend);
    for (id, player) in [("a", "pa"), ("b", "pb"), ("c", "pc")] {
        q.enqueue(&ticket("qu", id, player, 1))
            .await
            .expect("enqueue");
    }
    assert!(
        !q.take("qu", &ids(&["a", "missing"]), "g0")
            .await
            .expect("take")
    );
    assert!(!q.take("other", &ids(&["a"]), "g0").await.expect("take"));
    assert!(!q.take("qu", &ids(&["a", "a"]), "g0").await.expect("take"));
    assert!(!q.take("qu", &[], "g0").await.expect("take"));
    assert_eq!(q.queued("qu", 10).await.expect("queued").len(), 3);
    assert!(q.take("qu", &ids(&["c", "a"]), "g1").await.expect("take"));
    let c = q.ticket("qu", "c").await.expect("ticket").expect("c");
    assert_eq!(
        c.status,
        TicketStatus::Matched {
            game_id: "g1".into(),
            seat: 0,
            table: ids(&["c", "a"]),
        }
    );
    let a = q.ticket("qu", "a").await.expect("ticket").expect("a");
    assert_eq!(
        a.status,
        TicketStatus::Matched {
            game_id: "g1".into(),
            seat: 1,
            table: ids(&["c", "a"]),
        }
    );
    assert!(!q.take("qu", &ids(&["b", "a"]), "g2").await.expect("take"));
    let b = q.ticket("qu", "b").await.expect("ticket").expect("b");
    assert_eq!(b.status, TicketStatus::Queued);
    let left = q.queued("qu", 10).await.expect("queued");
    assert_eq!(
        left.iter()
            .map(|t| t.ticket_id.as_str())
            .collect::<Vec<_>>(),
        ["b"]
    );
    assert_eq!(
        q.live_ticket("pb").await.expect("live"),
        Some(("qu".into(), "b".into()))
    );
}

/// Concurrent takes of overlapping ticket sets never put a ticket in two matches.
pub async fn queue_concurrent_overlapping_takes(backend: Backend) {
    let q = QueueStore::new(backend);
    let n = 12;
    for i in 0..n {
        q.enqueue(&ticket("qu", &format!("t{i}"), &format!("p{i}"), i))
            .await
            .expect("enqueue");
    }
    // Racer r wants tickets r and r+1 (mod n): neighbours overlap.
    let results = join_all((0..RACERS).map(|r| {
        let q = q.clone();
        let pair = vec![
            format!("t{}", r % n as usize),
            format!("t{}", (r + 1) % n as usize),
        ];
        async move { (q.take("qu", &pair, &format!("g{r}")).await, pair) }
    }))
    .await;
    let mut matched = HashSet::new();
    for (ok, pair) in results {
        if ok.expect("take") {
            for id in pair {
                assert!(matched.insert(id.clone()), "ticket {id} matched twice");
            }
        }
    }
    assert!(!matched.is_empty());
    for i in 0..n {
        let id = format!("t{i}");
        let t = q.ticket("qu", &id).await.expect("ticket").expect("exists");
        assert_eq!(
            matches!(t.status, TicketStatus::Matched { .. }),
            matched.contains(&id)
        );
    }
    let queued = q.queued("qu", 100).await.expect("queued");
    assert_eq!(queued.len() + matched.len(), n as usize);
}

fn claim(game: &str, list: &[&str]) -> TableClaim {
    TableClaim {
        game_id: game.to_owned(),
        ticket_ids: ids(list),
    }
}

/// One batched take decides each table on its own, in order: a table loses if any ticket is
/// not queued (or was taken by an earlier table of the same batch), and a lost table changes
/// nothing.
pub async fn queue_take_tables_each_table_alone(backend: Backend) {
    let q = QueueStore::new(backend);
    for (i, id) in ["a", "b", "c", "d", "e", "f", "g"].iter().enumerate() {
        q.enqueue(&ticket("qu", id, &format!("p{id}"), i as u64))
            .await
            .expect("enqueue");
    }
    let taken = q
        .take_tables(
            "qu",
            &[
                claim("g1", &["b", "a"]),
                claim("g2", &["b", "c"]),
                claim("g3", &["d", "missing"]),
                claim("g4", &["f", "e"]),
                claim("g5", &[]),
                claim("g6", &["g", "g"]),
            ],
        )
        .await
        .expect("take tables");
    assert_eq!(taken, [true, false, false, true, false, false]);
    let status = |id: &'static str| {
        let q = q.clone();
        async move {
            q.ticket("qu", id)
                .await
                .expect("read")
                .expect("exists")
                .status
        }
    };
    assert_eq!(
        status("a").await,
        TicketStatus::Matched {
            game_id: "g1".into(),
            seat: 1,
            table: ids(&["b", "a"]),
        }
    );
    assert_eq!(
        status("e").await,
        TicketStatus::Matched {
            game_id: "g4".into(),
            seat: 1,
            table: ids(&["f", "e"]),
        }
    );
    for id in ["c", "d", "g"] {
        assert_eq!(status(id).await, TicketStatus::Queued, "{id} stays queued");
    }
    let queued: Vec<String> = q
        .queued("qu", 10)
        .await
        .expect("queued")
        .into_iter()
        .map(|t| t.ticket_id)
        .collect();
    assert_eq!(queued, ids(&["c", "d", "g"]));
    assert_eq!(q.live_ticket("pa").await.expect("live"), None);
    assert_eq!(
        q.live_ticket("pc").await.expect("live"),
        Some(("qu".into(), "c".into()))
    );
}

/// Racers each claim a batch of overlapping tables at once (as matchers on several replicas
/// would): no ticket is in two taken tables, and each matched ticket names the table that
/// took it.
pub async fn queue_concurrent_batched_takes_never_match_twice(backend: Backend) {
    let q = QueueStore::new(backend);
    let n = 40usize;
    for i in 0..n {
        q.enqueue(&ticket("qu", &format!("t{i}"), &format!("p{i}"), i as u64))
            .await
            .expect("enqueue");
    }
    // Racer r pairs ticket i with ticket (i + r + 1) mod n for every i, a different pairing
    // per racer, so every batch overlaps every other.
    let batches: Vec<Vec<TableClaim>> = (0..RACERS)
        .map(|r| {
            (0..n)
                .step_by(2)
                .map(|i| TableClaim {
                    game_id: format!("g{r}-{i}"),
                    ticket_ids: vec![format!("t{i}"), format!("t{}", (i + r + 1) % n)],
                })
                .collect()
        })
        .collect();
    let results = join_all(batches.iter().map(|batch| {
        let q = q.clone();
        async move { q.take_tables("qu", batch).await.expect("take tables") }
    }))
    .await;
    let mut matched = std::collections::HashMap::new();
    for (batch, taken) in batches.iter().zip(results) {
        assert_eq!(batch.len(), taken.len());
        for (table, won) in batch.iter().zip(taken) {
            if won {
                for id in &table.ticket_ids {
                    let before = matched.insert(id.clone(), table.game_id.clone());
                    assert!(before.is_none(), "ticket {id} matched twice");
                }
            }
        }
    }
    assert!(!matched.is_empty());
    for i in 0..n {
        let id = format!("t{i}");
        let t = q.ticket("qu", &id).await.expect("ticket").expect("exists");
        match (&t.status, matched.get(&id)) {
            (TicketStatus::Matched { game_id, .. }, Some(game)) => assert_eq!(game_id, game),
            (TicketStatus::Queued, None) => {}
            (status, game) => panic!("ticket {id}: {status:?} but taken into {game:?}"),
        }
    }
}

/// A queue's matching lease has one holder at a time; the holder renews it; it lapses.
pub async fn queue_lease_is_exclusive_until_it_lapses(backend: Backend) {
    let q = QueueStore::new(backend);
    let long = Duration::from_secs(30);
    assert!(q.lease_queue("qu", "r1", long).await.expect("lease"));
    assert!(!q.lease_queue("qu", "r2", long).await.expect("lease"));
    assert!(q.lease_queue("qu", "r1", long).await.expect("renew"));
    assert!(
        q.lease_queue("other", "r2", long).await.expect("lease"),
        "leases are per queue"
    );
    let short = Duration::from_millis(20);
    assert!(q.lease_queue("brief", "r1", short).await.expect("lease"));
    // Waits for the lapse (no time is asserted: the bound only ends a broken store's test).
    let lapsed = async {
        while !q.lease_queue("brief", "r2", long).await.expect("lease") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(RECV_BOUND, lapsed)
        .await
        .expect("the lease lapses");
    assert!(!q.lease_queue("brief", "r1", long).await.expect("lease"));
}

/// Settled notices reach every subscriber of every clone.
pub async fn queue_settled_notices_reach_subscribers(backend: Backend) {
    let q = QueueStore::new(backend);
    let mut first = q.subscribe_settled().await.expect("subscribe");
    let mut second = q.subscribe_settled().await.expect("subscribe");
    q.publish_settled(&ids(&["a", "b"])).await.expect("publish");
    q.publish_settled(&[]).await.expect("nothing to publish");
    q.publish_changed(&[]).await.expect("nothing to publish");
    let changes = [
        TicketChange {
            ticket_id: "c".into(),
            proposed_into: None,
        },
        TicketChange {
            ticket_id: "d".into(),
            proposed_into: Some(TicketProposal {
                game_id: "g1".into(),
                seat: 1,
                table: ids(&["x", "d"]),
            }),
        },
    ];
    q.publish_changed(&changes).await.expect("publish");
    for sub in [&mut first, &mut second] {
        let got = tokio::time::timeout(RECV_BOUND, sub.recv())
            .await
            .expect("in time")
            .expect("notice");
        assert_eq!(got, settled(&["a", "b"]));
        let got = tokio::time::timeout(RECV_BOUND, sub.recv())
            .await
            .expect("in time")
            .expect("notice");
        assert_eq!(got.changed, changes);
        assert!(got.settled.is_empty());
    }
}

fn settled(list: &[&str]) -> TicketNotice {
    TicketNotice {
        settled: ids(list),
        changed: Vec::new(),
    }
}

/// A notice that `list` went back to the queue, or was proposed into `game` (seat by
/// position), as [`QueueStore::publish_changed`] tells it.
fn changed(list: &[&str], game: Option<&str>) -> TicketNotice {
    TicketNotice {
        settled: Vec::new(),
        changed: (0u32..)
            .zip(list)
            .map(|(seat, id)| TicketChange {
                ticket_id: (*id).to_owned(),
                proposed_into: game.map(|g| TicketProposal {
                    game_id: g.to_owned(),
                    seat,
                    table: ids(list),
                }),
            })
            .collect(),
    }
}

fn proposal(game: &str, list: &[&str], confirmed: &[bool]) -> TableProposal {
    TableProposal {
        claim: claim(game, list),
        confirmed: confirmed.to_vec(),
    }
}

/// The table's ticket ids of a confirmation that completed it, `None` for any other.
fn completed(confirmation: Confirmation) -> Option<Vec<String>> {
    match confirmation {
        Confirmation::Complete { tickets } => {
            assert!(
                tickets
                    .iter()
                    .all(|t| matches!(t.status, TicketStatus::Matched { .. })),
                "{tickets:?}"
            );
            Some(tickets.into_iter().map(|t| t.ticket_id).collect())
        }
        _ => None,
    }
}

/// A deadline no test reaches.
const FAR_MS: u64 = u64::MAX / 2;

async fn status_of(q: &QueueStore, id: &str) -> TicketStatus {
    q.ticket("qu", id)
        .await
        .expect("read")
        .expect("exists")
        .status
}

async fn queued_ids(q: &QueueStore) -> Vec<String> {
    q.queued("qu", 100)
        .await
        .expect("queued")
        .into_iter()
        .map(|t| t.ticket_id)
        .collect()
}

/// A proposed table leaves the queue and stays each player's live ticket; it is matched, all
/// at once, by the confirmation that completes it (a seat confirmed from the start needs
/// none); a confirmation for another game or from another player changes nothing; a table
/// whose every seat counts as confirmed is matched at once.
pub async fn queue_proposal_matches_once_every_seat_confirmed(backend: Backend) {
    let q = QueueStore::new(backend);
    for (i, id) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        q.enqueue(&ticket("qu", id, &format!("p{id}"), i as u64))
            .await
            .expect("enqueue");
    }
    let outcomes = q
        .propose_tables(
            "qu",
            &[
                proposal("g1", &["b", "a"], &[false, true]),
                proposal("g2", &["a", "c"], &[false, false]),
                proposal("g3", &["e", "d"], &[true, true]),
                proposal("g4", &["c"], &[]),
            ],
            FAR_MS,
        )
        .await
        .expect("propose");
    assert_eq!(
        outcomes,
        [
            TableOutcome::Proposed,
            TableOutcome::Lost,
            TableOutcome::Matched,
            TableOutcome::Lost
        ]
    );
    assert_eq!(
        status_of(&q, "b").await,
        TicketStatus::Proposed {
            game_id: "g1".into(),
            seat: 0,
            table: ids(&["b", "a"]),
            confirmed: false,
        }
    );
    assert!(matches!(
        status_of(&q, "a").await,
        TicketStatus::Proposed {
            confirmed: true,
            seat: 1,
            ..
        }
    ));
    assert!(matches!(
        status_of(&q, "e").await,
        TicketStatus::Matched { .. }
    ));
    assert_eq!(queued_ids(&q).await, ids(&["c"]));
    // Proposed is live: one ticket per player still holds.
    assert_eq!(
        q.live_ticket("pb").await.expect("live"),
        Some(("qu".into(), "b".into()))
    );
    assert_eq!(
        q.enqueue(&ticket("other", "b2", "pb", 9))
            .await
            .expect("enqueue"),
        EnqueueOutcome::AlreadyQueued {
            ticket_id: "b".into()
        }
    );
    assert!(q.keep_alive("qu", "b", 1).await.expect("keep alive"));
    let wrong_game = q.confirm("qu", "b", "pb", "g9", 7).await.expect("confirm");
    assert!(matches!(
        wrong_game,
        Confirmation::NotProposed(Some(Ticket {
            status: TicketStatus::Proposed {
                confirmed: false,
                ..
            },
            ..
        }))
    ));
    assert_eq!(
        q.confirm("qu", "b", "intruder", "g1", 7)
            .await
            .expect("confirm"),
        Confirmation::NotProposed(None)
    );
    assert_eq!(
        completed(q.confirm("qu", "b", "pb", "g1", 7).await.expect("confirm")),
        Some(ids(&["b", "a"]))
    );
    for (id, seat) in [("b", 0), ("a", 1)] {
        assert_eq!(
            status_of(&q, id).await,
            TicketStatus::Matched {
                game_id: "g1".into(),
                seat,
                table: ids(&["b", "a"]),
            }
        );
    }
    assert_eq!(q.live_ticket("pb").await.expect("live"), None);
    assert_eq!(q.confirmed_at("qu", "b").await.expect("read"), Some(7));
    assert_eq!(
        q.confirmed_at("qu", "a").await.expect("read"),
        None,
        "confirmed from the start: no time"
    );
    assert!(matches!(
        q.confirm("qu", "b", "pb", "g1", 8)
            .await
            .expect("confirm again"),
        Confirmation::NotProposed(Some(Ticket {
            status: TicketStatus::Matched { .. },
            ..
        }))
    ));
    // A two-seat table confirmed one seat at a time.
    assert_eq!(
        q.enqueue(&ticket("qu", "f", "pf", 10))
            .await
            .expect("enqueue"),
        EnqueueOutcome::Queued
    );
    let outcomes = q
        .propose_tables(
            "qu",
            &[proposal("g5", &["c", "f"], &[false, false])],
            FAR_MS,
        )
        .await
        .expect("propose");
    assert_eq!(outcomes, [TableOutcome::Proposed]);
    assert_eq!(
        q.queues().await.expect("queues"),
        ["qu"],
        "a pending proposal keeps its queue listed"
    );
    assert_eq!(
        q.confirm("qu", "f", "pf", "g5", 7).await.expect("confirm"),
        Confirmation::Waiting
    );
    assert_eq!(
        q.confirm("qu", "f", "pf", "g5", 7)
            .await
            .expect("confirm twice"),
        Confirmation::Waiting
    );
    assert!(matches!(
        status_of(&q, "c").await,
        TicketStatus::Proposed {
            confirmed: false,
            ..
        }
    ));
    assert_eq!(
        completed(q.confirm("qu", "c", "pc", "g5", 7).await.expect("confirm")),
        Some(ids(&["c", "f"]))
    );
    assert!(q.queues().await.expect("queues").is_empty());
}

/// Cancelling a proposed ticket (its player left) takes the proposal down: that ticket is
/// cancelled, every other goes back to queued at its own place (the front, waiting time
/// kept), confirmations forgotten, and their watches are told.
pub async fn queue_cancelled_proposal_sends_the_others_to_the_front(backend: Backend) {
    let q = QueueStore::new(backend);
    let mut notices = q.subscribe_settled().await.expect("subscribe");
    for (i, id) in ["a", "b", "c", "d"].iter().enumerate() {
        q.enqueue(&ticket("qu", id, &format!("p{id}"), i as u64 + 1))
            .await
            .expect("enqueue");
    }
    let outcomes = q
        .propose_tables(
            "qu",
            &[proposal("g1", &["c", "a"], &[false, false])],
            FAR_MS,
        )
        .await
        .expect("propose");
    assert_eq!(outcomes, [TableOutcome::Proposed]);
    let told = tokio::time::timeout(RECV_BOUND, notices.recv())
        .await
        .expect("in time")
        .expect("notice");
    assert_eq!(told, changed(&["c", "a"], Some("g1")));
    assert_eq!(
        q.confirm("qu", "a", "pa", "g1", 7).await.expect("confirm"),
        Confirmation::Waiting
    );
    assert_eq!(q.cancel("c", "qu", "intruder").await.expect("cancel"), None);
    let c = q.cancel("c", "qu", "pc").await.expect("cancel").expect("c");
    assert_eq!(c.status, TicketStatus::Cancelled);
    assert_eq!(q.live_ticket("pc").await.expect("live"), None);
    assert_eq!(status_of(&q, "a").await, TicketStatus::Queued);
    assert_eq!(
        q.confirmed_at("qu", "a").await.expect("read"),
        None,
        "a confirmation goes with its proposal"
    );
    assert_eq!(queued_ids(&q).await, ids(&["a", "b", "d"]));
    assert_eq!(
        q.live_ticket("pa").await.expect("live"),
        Some(("qu".into(), "a".into()))
    );
    let told = tokio::time::timeout(RECV_BOUND, notices.recv())
        .await
        .expect("in time")
        .expect("notice");
    assert_eq!(told, changed(&["a"], None));
    assert!(matches!(
        q.confirm("qu", "a", "pa", "g1", 7).await.expect("confirm"),
        Confirmation::NotProposed(Some(Ticket {
            status: TicketStatus::Queued,
            ..
        }))
    ));
    // The confirmation did not carry over: a new proposal asks again.
    let outcomes = q
        .propose_tables(
            "qu",
            &[proposal("g2", &["a", "b"], &[false, false])],
            FAR_MS,
        )
        .await
        .expect("propose");
    assert_eq!(outcomes, [TableOutcome::Proposed]);
    assert_eq!(
        q.confirm("qu", "b", "pb", "g2", 7).await.expect("confirm"),
        Confirmation::Waiting
    );
    // A cancel that comes after the table completed shows the match.
    assert_eq!(
        completed(q.confirm("qu", "a", "pa", "g2", 7).await.expect("confirm")),
        Some(ids(&["a", "b"]))
    );
    let a = q.cancel("a", "qu", "pa").await.expect("cancel").expect("a");
    assert!(matches!(a.status, TicketStatus::Matched { .. }));
    assert_eq!(queued_ids(&q).await, ids(&["d"]));
}

/// A proposal past its deadline is taken down with every ticket back at its place; one not
/// yet due stays.
pub async fn queue_expired_proposal_requeues_every_ticket(backend: Backend) {
    let q = QueueStore::new(backend);
    for (i, id) in ["a", "b", "c", "d"].iter().enumerate() {
        q.enqueue(&ticket("qu", id, &format!("p{id}"), i as u64 + 1))
            .await
            .expect("enqueue");
    }
    let outcomes = q
        .propose_tables(
            "qu",
            &[
                proposal("g1", &["b", "a"], &[false, true]),
                proposal("g2", &["d", "c"], &[false, false]),
            ],
            1_000,
        )
        .await
        .expect("propose");
    assert_eq!(outcomes, [TableOutcome::Proposed, TableOutcome::Proposed]);
    assert!(queued_ids(&q).await.is_empty());
    assert_eq!(q.queues().await.expect("queues"), ["qu"]);
    assert!(
        q.expire_proposals("qu", 999)
            .await
            .expect("expire")
            .is_empty()
    );
    assert_eq!(
        q.confirm("qu", "d", "pd", "g2", 7).await.expect("confirm"),
        Confirmation::Waiting
    );
    let mut requeued = q.expire_proposals("qu", 1_001).await.expect("expire");
    requeued.sort();
    assert_eq!(requeued, ids(&["a", "b", "c", "d"]));
    assert_eq!(queued_ids(&q).await, ids(&["a", "b", "c", "d"]));
    assert!(
        q.expire_proposals("qu", 2_000)
            .await
            .expect("expire")
            .is_empty()
    );
    assert!(matches!(
        q.confirm("qu", "b", "pb", "g1", 7).await.expect("confirm"),
        Confirmation::NotProposed(Some(Ticket {
            status: TicketStatus::Queued,
            ..
        }))
    ));
    assert!(q.take("qu", &ids(&["a", "b"]), "g3").await.expect("take"));
    assert!(q.take("qu", &ids(&["c", "d"]), "g4").await.expect("take"));
    assert!(q.queues().await.expect("queues").is_empty());
}

/// Confirmations of every seat racing a cancel of one seat, table by table: each table ends
/// either matched whole (the cancel shows the match) or with that seat cancelled and the
/// other queued, never a ticket matched alone or in two games.
pub async fn queue_concurrent_confirms_and_cancels_seat_nobody_twice(backend: Backend) {
    let q = QueueStore::new(backend);
    let tables = 8usize;
    for i in 0..2 * tables {
        q.enqueue(&ticket("qu", &format!("t{i}"), &format!("p{i}"), i as u64))
            .await
            .expect("enqueue");
    }
    let proposals: Vec<TableProposal> = (0..tables)
        .map(|t| TableProposal {
            claim: TableClaim {
                game_id: format!("g{t}"),
                ticket_ids: vec![format!("t{}", 2 * t), format!("t{}", 2 * t + 1)],
            },
            confirmed: vec![false, false],
        })
        .collect();
    let outcomes = q
        .propose_tables("qu", &proposals, FAR_MS)
        .await
        .expect("propose");
    assert!(outcomes.iter().all(|o| *o == TableOutcome::Proposed));
    join_all((0..tables).map(|t| {
        let q = q.clone();
        async move {
            let (first, second) = (format!("t{}", 2 * t), format!("t{}", 2 * t + 1));
            let game = format!("g{t}");
            let (p0, p1) = (format!("p{}", 2 * t), format!("p{}", 2 * t + 1));
            let (a, b, c) = tokio::join!(
                q.confirm("qu", &first, &p0, &game, 7),
                q.confirm("qu", &second, &p1, &game, 7),
                q.cancel(&second, "qu", &p1),
            );
            a.expect("confirm");
            b.expect("confirm");
            c.expect("cancel");
        }
    }))
    .await;
    for t in 0..tables {
        let first = status_of(&q, &format!("t{}", 2 * t)).await;
        let second = status_of(&q, &format!("t{}", 2 * t + 1)).await;
        match (&first, &second) {
            (
                TicketStatus::Matched { game_id: g1, .. },
                TicketStatus::Matched { game_id: g2, .. },
            ) => assert!(g1 == g2 && *g1 == format!("g{t}")),
            (TicketStatus::Queued, TicketStatus::Cancelled) => {}
            other => panic!("table {t}: {other:?}"),
        }
    }
}

/// Cancel works only for the owner, only while queued; it shows a match that came first.
pub async fn queue_cancel(backend: Backend) {
    let q = QueueStore::new(backend);
    q.enqueue(&ticket("qu", "a", "pa", 1))
        .await
        .expect("enqueue");
    q.enqueue(&ticket("qu", "b", "pb", 2))
        .await
        .expect("enqueue");
    q.enqueue(&ticket("qu", "c", "pc", 3))
        .await
        .expect("enqueue");
    assert_eq!(q.cancel("a", "qu", "intruder").await.expect("cancel"), None);
    assert_eq!(q.cancel("zz", "qu", "pa").await.expect("cancel"), None);
    let a = q.cancel("a", "qu", "pa").await.expect("cancel").expect("a");
    assert_eq!(a.status, TicketStatus::Cancelled);
    assert_eq!(q.live_ticket("pa").await.expect("live"), None);
    // Cancelled tickets are never matched.
    assert!(!q.take("qu", &ids(&["a", "b"]), "g").await.expect("take"));
    assert!(q.take("qu", &ids(&["b", "c"]), "g").await.expect("take"));
    let b = q.cancel("b", "qu", "pb").await.expect("cancel").expect("b");
    assert_eq!(
        b.status,
        TicketStatus::Matched {
            game_id: "g".into(),
            seat: 0,
            table: ids(&["b", "c"]),
        }
    );
    let again = q.cancel("a", "qu", "pa").await.expect("cancel").expect("a");
    assert_eq!(again.status, TicketStatus::Cancelled);
    assert!(q.queues().await.expect("queues").is_empty());
    assert_eq!(
        q.enqueue(&ticket("qu", "a2", "pa", 4))
            .await
            .expect("requeue"),
        EnqueueOutcome::Queued
    );
}

fn update(player: &str, expected_version: u64, rating: f64, games: u32) -> RatingUpdate {
    RatingUpdate {
        player_id: player.to_owned(),
        display_name: format!("name of {player}"),
        expected_version,
        rating,
        games,
    }
}

/// record writes every update with version + 1; get returns None for unknown players.
pub async fn rating_record_and_get(backend: Backend) {
    let r = RatingStore::new(backend);
    let players = ids(&["p1", "p2", "p3"]);
    assert_eq!(
        r.get("caro-15", &players).await.expect("get"),
        vec![None, None, None]
    );
    let ups = [update("p1", 0, 1512.25, 1), update("p2", 0, 1487.75, 1)];
    assert_eq!(
        r.record("caro-15", "g1", &ups, b"r1")
            .await
            .expect("record"),
        RecordOutcome::Recorded
    );
    let got = r.get("caro-15", &players).await.expect("get");
    let p1 = got[0].clone().expect("p1");
    assert_eq!((p1.rating, p1.games, p1.version), (1512.25, 1, 1));
    assert_eq!(p1.display_name, "name of p1");
    assert_eq!(got[1].as_ref().map(|e| e.version), Some(1));
    assert_eq!(got[2], None);
    // Rule sets are separate.
    assert_eq!(
        r.get("caro-19", &players[..1]).await.expect("get"),
        vec![None]
    );
    let ups = [update("p1", 1, 1500.1 + 0.2, 2)];
    assert_eq!(
        r.record("caro-15", "g2", &ups, b"r2")
            .await
            .expect("record"),
        RecordOutcome::Recorded
    );
    let p1 = r.get("caro-15", &players[..1]).await.expect("get")[0]
        .clone()
        .expect("p1");
    assert_eq!((p1.rating, p1.games, p1.version), (1500.1 + 0.2, 2, 2));
    assert!(r.get("caro-15", &[]).await.expect("get").is_empty());
}

/// Recording the same game twice writes nothing the second time.
pub async fn rating_record_twice_is_already_recorded(backend: Backend) {
    let r = RatingStore::new(backend);
    let ups = [update("p1", 0, 1510.0, 1), update("p2", 0, 1490.0, 1)];
    assert_eq!(
        r.record("rs", "g1", &ups, b"r").await.expect("record"),
        RecordOutcome::Recorded
    );
    assert_eq!(
        r.record("rs", "g1", &ups, b"r").await.expect("record"),
        RecordOutcome::AlreadyRecorded
    );
    let ups2 = [update("p1", 1, 1600.0, 2)];
    assert_eq!(
        r.record("rs", "g1", &ups2, b"x").await.expect("record"),
        RecordOutcome::AlreadyRecorded
    );
    let p1 = r.get("rs", &ids(&["p1"])).await.expect("get")[0]
        .clone()
        .expect("p1");
    assert_eq!((p1.rating, p1.version), (1510.0, 1));
    assert_eq!(r.result("g1").await.expect("result"), Some(b"r".to_vec()));
}

/// A stale version anywhere makes the whole record a Conflict that writes nothing.
pub async fn rating_version_conflict(backend: Backend) {
    let r = RatingStore::new(backend);
    r.record("rs", "g1", &[update("p1", 0, 1510.0, 1)], b"r")
        .await
        .expect("record");
    let stale = [update("p2", 0, 1490.0, 1), update("p1", 0, 1520.0, 1)];
    assert_eq!(
        r.record("rs", "g2", &stale, b"r").await.expect("record"),
        RecordOutcome::Conflict
    );
    assert_eq!(r.get("rs", &ids(&["p2"])).await.expect("get"), vec![None]);
    assert_eq!(r.result("g2").await.expect("result"), None);
    let future = [update("p1", 7, 1520.0, 2)];
    assert_eq!(
        r.record("rs", "g2", &future, b"r").await.expect("record"),
        RecordOutcome::Conflict
    );
    // After re-reading, the retry succeeds.
    let fresh = [update("p2", 0, 1490.0, 1), update("p1", 1, 1520.0, 2)];
    assert_eq!(
        r.record("rs", "g2", &fresh, b"r").await.expect("record"),
        RecordOutcome::Recorded
    );
    // Concurrent recorders of different games from the same read: one wins.
    let outcomes = join_all((0..RACERS).map(|i| {
        let r = r.clone();
        async move {
            let ups = [update("p1", 2, 1530.0 + i as f64, 3)];
            r.record("rs", &format!("race{i}"), &ups, b"r").await
        }
    }))
    .await;
    let recorded = outcomes
        .into_iter()
        .filter(|o| *o.as_ref().expect("record") == RecordOutcome::Recorded)
        .count();
    assert_eq!(recorded, 1);
    assert!(
        r.record("rs", "nan", &[update("p9", 0, f64::NAN, 1)], b"r")
            .await
            .is_err()
    );
}

/// Unrated games are marked once; results come back for rated and unrated games.
pub async fn rating_unrated_and_results(backend: Backend) {
    let r = RatingStore::new(backend);
    assert_eq!(r.result("g1").await.expect("result"), None);
    assert!(r.record_unrated("g1", b"cancelled").await.expect("unrated"));
    assert!(
        !r.record_unrated("g1", b"other")
            .await
            .expect("unrated twice")
    );
    assert_eq!(
        r.result("g1").await.expect("result"),
        Some(b"cancelled".to_vec())
    );
    let ups = [update("p1", 0, 1500.0, 1)];
    assert_eq!(
        r.record("rs", "g1", &ups, b"rated").await.expect("record"),
        RecordOutcome::AlreadyRecorded
    );
    r.record("rs", "g2", &ups, b"rated").await.expect("record");
    assert!(
        !r.record_unrated("g2", b"x")
            .await
            .expect("unrated after rated")
    );
    assert_eq!(
        r.result("g2").await.expect("result"),
        Some(b"rated".to_vec())
    );
}

/// The leaderboard: highest first, ties by fewer games then id, paged by offset.
pub async fn rating_top_order_and_paging(backend: Backend) {
    let r = RatingStore::new(backend);
    assert!(r.top("rs", 0, 10).await.expect("top").is_empty());
    let ups = [
        update("b", 0, 1600.0, 5),
        update("a", 0, 1600.0, 5),
        update("c", 0, 1600.0, 3),
        update("d", 0, 1700.5, 9),
        update("e", 0, -20.0, 1),
        update("f", 0, 1500.0, 12),
    ];
    r.record("rs", "g1", &ups, b"r").await.expect("record");
    let order = |v: Vec<RatingEntry>| v.into_iter().map(|e| e.player_id).collect::<Vec<_>>();
    assert_eq!(
        order(r.top("rs", 0, 10).await.expect("top")),
        ["d", "c", "a", "b", "f", "e"]
    );
    assert_eq!(order(r.top("rs", 1, 2).await.expect("top")), ["c", "a"]);
    assert!(r.top("rs", 6, 2).await.expect("top").is_empty());
    assert!(r.top("rs", 0, 0).await.expect("top").is_empty());
    // An update moves the player (no stale leaderboard entry stays behind).
    r.record("rs", "g2", &[update("e", 1, 1800.0, 2)], b"r")
        .await
        .expect("record");
    let top = r.top("rs", 0, 10).await.expect("top");
    assert_eq!(order(top.clone()), ["e", "d", "c", "a", "b", "f"]);
    assert_eq!(
        (top[0].rating, top[0].games, top[0].version),
        (1800.0, 2, 2)
    );
    assert!(r.top("other", 0, 10).await.expect("top").is_empty());
    // A player's place is their 0-based position in `top`, in one call.
    for (place, id) in ["e", "d", "c", "a", "b", "f"].iter().enumerate() {
        assert_eq!(
            r.rank("rs", id).await.expect("rank"),
            Some(place as u64),
            "{id}"
        );
    }
    assert_eq!(r.rank("rs", "nobody").await.expect("rank"), None);
    assert_eq!(r.rank("other", "e").await.expect("rank"), None);
}

/// A code names one live room: creating it again writes nothing.
pub async fn room_codes_are_unique_among_live_rooms(backend: Backend) {
    let rooms = RoomStore::new(backend);
    assert_eq!(rooms.load("K7M4QP", 0).await.expect("load"), None);
    assert!(
        rooms
            .create("K7M4QP", b"s1", b"e1", 0)
            .await
            .expect("create")
    );
    assert!(
        !rooms
            .create("K7M4QP", b"other", b"x", 0)
            .await
            .expect("create again"),
        "the code is taken"
    );
    assert_eq!(
        rooms.load("K7M4QP", 0).await.expect("load"),
        Some(RoomRecord {
            seq: 1,
            state: b"s1".to_vec()
        })
    );
}

/// A room's commit is the games' compare-and-set: stale seqs write nothing, every commit
/// appends one event and publishes it.
pub async fn room_commits_compare_and_set_and_publish(backend: Backend) {
    let rooms = RoomStore::new(backend);
    let mut live = rooms.subscribe("ABC234").await.expect("subscribe");
    assert!(
        rooms
            .create("ABC234", b"s1", b"e1", 0)
            .await
            .expect("create")
    );
    // In order: a commit on seq 1, a stale one, one on a room that does not exist.
    let attempts: [(&str, u64, &[u8], Result<Committed, CommitRefusal>); 3] = [
        ("ABC234", 1, b"s2", Ok(Committed { seq: 2 })),
        (
            "ABC234",
            1,
            b"lost",
            Err(CommitRefusal::StaleSeq { current: 2 }),
        ),
        ("ZZZ999", 0, b"s", Err(CommitRefusal::NotFound)),
    ];
    for (code, expected_seq, body, outcome) in attempts {
        // The event is the state's bytes: enough to tell commits apart.
        let committed = rooms.commit(code, expected_seq, body, body).await;
        assert_eq!(committed.expect("commit"), outcome);
    }
    assert_eq!(
        rooms
            .load("ABC234", 0)
            .await
            .expect("load")
            .map(|r| r.state),
        Some(b"s2".to_vec())
    );
    let logged: Vec<u64> = rooms
        .events_after("ABC234", 0, 10)
        .await
        .expect("events")
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(logged, [1, 2]);
    assert_eq!(recv(&mut live).await.expect("event").payload, b"e1");
    assert_eq!(recv(&mut live).await.expect("event").payload, b"s2");
    // Racing commits from one seq: exactly one wins.
    let outcomes = join_all((0..RACERS).map(|i| {
        let rooms = rooms.clone();
        async move {
            let body = format!("r{i}");
            rooms
                .commit("ABC234", 2, body.as_bytes(), body.as_bytes())
                .await
                .expect("commit")
        }
    }))
    .await;
    let won = outcomes
        .iter()
        .filter(|o| matches!(o, Ok(Committed { seq: 3 })))
        .count();
    assert_eq!(won, 1, "{outcomes:?}");
}

/// Rooms and games keep separate keys, logs and channels even under the same id.
pub async fn room_log_is_apart_from_a_game_with_the_same_id(backend: Backend) {
    let rooms = RoomStore::new(backend.clone());
    let games = GameStore::new(backend.clone());
    let feed = GameFeed::new(backend);
    let mut game_live = feed.subscribe("SAME22").await.expect("subscribe game");
    let mut room_live = rooms.subscribe("SAME22").await.expect("subscribe room");
    assert!(
        games
            .create("SAME22", b"m", b"game", b"g1")
            .await
            .expect("game")
    );
    assert!(
        rooms
            .create("SAME22", b"room", b"r1", 0)
            .await
            .expect("room")
    );
    assert_eq!(
        recv(&mut game_live).await.expect("game event").payload,
        b"g1"
    );
    assert_eq!(
        recv(&mut room_live).await.expect("room event").payload,
        b"r1"
    );
    assert_eq!(
        games.load("SAME22").await.expect("load").map(|g| g.state),
        Some(b"game".to_vec())
    );
    assert_eq!(
        rooms.events_after("SAME22", 0, 10).await.expect("events")[0].payload,
        b"r1"
    );
    assert!(games.live_games(10).await.expect("live").is_empty());
}

/// The lobby lists public rooms, most recently listed first, and forgets unlisted ones.
pub async fn room_lobby_lists_public_rooms(backend: Backend) {
    let rooms = RoomStore::new(backend.clone());
    for (code, since) in [("AAA222", 1), ("BBB222", 2), ("CCC222", 3)] {
        assert!(rooms.create(code, b"s", b"e", 0).await.expect("create"));
        rooms.set_listed(code, true, since).await.expect("list");
    }
    rooms.set_listed("BBB222", false, 9).await.expect("unlist");
    rooms
        .set_listed("AAA222", true, 9)
        .await
        .expect("list again");
    assert_eq!(rooms.listed(10).await.expect("lobby"), ["CCC222", "AAA222"]);
    assert_eq!(rooms.listed(1).await.expect("lobby"), ["CCC222"]);
    assert!(
        GameStore::new(backend)
            .live_games(10)
            .await
            .expect("games")
            .is_empty(),
        "the lobby is not the games' live set"
    );
}

/// An empty room expires (and leaves the lobby) unless someone joins in time; its code is
/// then free for a new room.
pub async fn room_empty_room_expires_unless_kept(backend: Backend) {
    let rooms = RoomStore::new(backend);
    for code in ["KEPT22", "GONE22"] {
        assert!(rooms.create(code, b"s", b"e", 0).await.expect("create"));
        rooms.set_listed(code, true, 1).await.expect("list");
        rooms
            // A second: long enough for a loaded machine to see the room before it expires.
            .expire_in(code, 1_000, Duration::from_secs(1))
            .await
            .expect("expire");
    }
    assert!(
        rooms.listed(10).await.expect("lobby").is_empty(),
        "empty rooms are not listed"
    );
    rooms.keep("KEPT22").await.expect("keep");
    assert!(
        rooms.load("GONE22", 1_000).await.expect("load").is_some(),
        "kept for a while"
    );
    // Redis expires by its own clock; the memory backend by the time the caller passes.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(rooms.load("GONE22", 2_100).await.expect("load"), None);
    assert!(
        rooms
            .events_after("GONE22", 0, 10)
            .await
            .expect("events")
            .is_empty()
    );
    assert!(
        rooms.load("KEPT22", 2_100).await.expect("load").is_some(),
        "someone joined"
    );
    assert!(
        rooms
            .create("GONE22", b"new", b"e", 2_100)
            .await
            .expect("create"),
        "an expired room's code is free"
    );
    assert_eq!(
        rooms
            .load("GONE22", 2_100)
            .await
            .expect("load")
            .map(|r| r.seq),
        Some(1)
    );
}
