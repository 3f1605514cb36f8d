//! The game store ([`crate::GameStore`]): create, commit (compare-and-set, idempotent actions, timers with the commit, versions), the log, the live set, presence, expiry and the player index.

use std::time::Duration;

use futures::future::join_all;

use super::{RACERS, RECV_BOUND, commit, commit_lands, try_commit};
use crate::{
    Backend, Commit, CommitRefusal, Committed, GameRead, GameStore, StoredEvent, TimerArm,
    TimerStore, TimerWrites,
};

/// The events of game `id` after seq `after_seq`, at most `limit`; the store must answer.
async fn events_after(
    games: &GameStore,
    id: &str,
    after_seq: u64,
    limit: usize,
) -> Vec<StoredEvent> {
    games
        .events_after(id, after_seq, limit)
        .await
        .expect("events")
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
        try_commit(&games, "nope", 1, None, b"x").await,
        Err(CommitRefusal::NotFound)
    );
    games.create("g", b"m", b"s1", b"e1").await.expect("create");
    assert_eq!(
        try_commit(&games, "g", 1, None, b"2").await,
        Ok(Committed { seq: 2 })
    );
    assert_eq!(
        try_commit(&games, "g", 1, Some("late"), b"x").await,
        Err(CommitRefusal::StaleSeq { current: 2 })
    );
    assert_eq!(
        try_commit(&games, "g", 5, None, b"x").await,
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
        try_commit(&games, "g", 2, Some("late"), b"3").await,
        Ok(Committed { seq: 3 })
    );
}

/// A retried action gets its original seq, even after later moves, and writes nothing.
pub async fn game_duplicate_action_returns_original_seq(backend: Backend) {
    let games = GameStore::new(backend);
    games.create("g", b"m", b"s", b"e1").await.expect("create");
    let first = try_commit(&games, "g", 1, Some("a"), b"2").await;
    assert_eq!(first, Ok(Committed { seq: 2 }));
    commit_lands(&games, "g", 2, Some("b"), b"3").await;
    commit_lands(&games, "g", 3, None, b"4").await;
    for expected in [1, 4, 9] {
        assert_eq!(
            try_commit(&games, "g", expected, Some("a"), b"again").await,
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
        try_commit(&games, "h", 1, Some("a"), b"2").await,
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
    assert_eq!(events_after(&games, "g", 0, 100).await.len(), 2);
}

/// The log reads back in order, from any seq, bounded by the limit.
pub async fn game_events_after_order_and_limit(backend: Backend) {
    let games = GameStore::new(backend);
    assert!(events_after(&games, "none", 0, 10).await.is_empty());
    games.create("g", b"m", b"s", b"1").await.expect("create");
    for seq in 1..=10u64 {
        let body = (seq + 1).to_string();
        commit_lands(&games, "g", seq, None, body.as_bytes()).await;
    }
    let all = events_after(&games, "g", 0, 100).await;
    assert_eq!(
        all.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=11).collect::<Vec<_>>()
    );
    for e in &all {
        assert_eq!(e.payload, e.seq.to_string().into_bytes());
    }
    let page = events_after(&games, "g", 3, 4).await;
    assert_eq!(
        page.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![4, 5, 6, 7]
    );
    assert!(events_after(&games, "g", 11, 10).await.is_empty());
    assert!(events_after(&games, "g", 0, 0).await.is_empty());
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
        let committed = try_commit(&games, id, 1, Some("a1"), b"two").await;
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
    assert!(events_after(&games, "old", 0, 10).await.is_empty());
    assert_eq!(games.action_seq("old", "a1").await.expect("action"), None);
    assert_eq!(games.presence("old", 0, 0).await.expect("presence"), 0);
    assert!(games.load("new").await.expect("load").is_some());
    assert_eq!(events_after(&games, "new", 0, 10).await.len(), 2);
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
