//! The room store ([`crate::RoomStore`]): unique codes, compare-and-set commits, its own keys apart from games, the lobby, expiry.

use std::time::Duration;

use futures::future::join_all;

use super::{RACERS, recv};
use crate::{Backend, CommitRefusal, Committed, GameFeed, GameStore, RoomRecord, RoomStore};

/// Creates room `code` at `now_ms`; true when this call created it. The store must answer.
async fn create_room(
    rooms: &RoomStore,
    code: &str,
    state: &[u8],
    event: &[u8],
    now_ms: u64,
) -> bool {
    rooms
        .create(code, state, event, now_ms)
        .await
        .expect("create room")
}

/// A code names one live room: creating it again writes nothing.
pub async fn room_codes_are_unique_among_live_rooms(backend: Backend) {
    let rooms = RoomStore::new(backend);
    assert_eq!(rooms.load("K7M4QP", 0).await.expect("load"), None);
    assert!(create_room(&rooms, "K7M4QP", b"s1", b"e1", 0).await);
    assert!(
        !create_room(&rooms, "K7M4QP", b"other", b"x", 0).await,
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
    assert!(create_room(&rooms, "ABC234", b"s1", b"e1", 0).await);
    // In order: a commit on seq 1, a stale one, one on a room that does not exist.
    let attempts = [
        ("ABC234", 1, &b"s2"[..], Ok(Committed { seq: 2 })),
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
    assert!(create_room(&rooms, "SAME22", b"room", b"r1", 0).await);
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
        assert!(create_room(&rooms, code, b"s", b"e", 0).await);
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
        assert!(create_room(&rooms, code, b"s", b"e", 0).await);
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
        create_room(&rooms, "GONE22", b"new", b"e", 2_100).await,
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
