//! The ratings ([`crate::RatingStore`]): records with version checks, a result recorded once per game, leaderboards.

use futures::future::join_all;

use super::{RACERS, ids};
use crate::{Backend, RatedGame, RatingEntry, RatingStore, RatingUpdate, RecordOutcome};

/// The result recorded for `game_id`; the store must answer.
async fn result(r: &RatingStore, game_id: &str) -> Option<Vec<u8>> {
    r.result(game_id).await.expect("result")
}

/// Marks `game_id` unrated with `result`; true when this call recorded it.
async fn record_unrated(r: &RatingStore, game_id: &str, result: &[u8]) -> bool {
    r.record_unrated(game_id, result)
        .await
        .expect("record unrated")
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
    assert_eq!(result(&r, "g1").await, Some(b"r".to_vec()));
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
    assert_eq!(result(&r, "g2").await, None);
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
    assert_eq!(result(&r, "g1").await, None);
    assert!(record_unrated(&r, "g1", b"cancelled").await);
    assert!(!record_unrated(&r, "g1", b"other").await);
    assert_eq!(result(&r, "g1").await, Some(b"cancelled".to_vec()));
    let ups = [update("p1", 0, 1500.0, 1)];
    assert_eq!(
        r.record("rs", "g1", &ups, b"rated").await.expect("record"),
        RecordOutcome::AlreadyRecorded
    );
    r.record("rs", "g2", &ups, b"rated").await.expect("record");
    assert!(!record_unrated(&r, "g2", b"x").await);
    assert_eq!(result(&r, "g2").await, Some(b"rated".to_vec()));
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

/// A game of two players in rule set "rs" whose first player wins, each update expecting
/// the version given; its id is its result.
fn pair(game_id: &str, (winner, w): (&str, u64), (loser, l): (&str, u64)) -> RatedGame {
    let games = |version: u64| u32::try_from(version + 1).unwrap_or(u32::MAX);
    let updates = vec![
        update(winner, w, 1510.0, games(w)),
        update(loser, l, 1490.0, games(l)),
    ];
    rated(game_id, updates)
}

fn rated(game_id: &str, updates: Vec<RatingUpdate>) -> RatedGame {
    RatedGame {
        ruleset: "rs".into(),
        game_id: game_id.into(),
        updates,
        result: game_id.as_bytes().to_vec(),
    }
}

/// A batch records its games in order (a player's second game expects the version its first
/// wrote), stops at the first game that is recorded already or meets a changed version, and
/// writes nothing after it; `results` reads every marker in one call, in the order asked.
pub async fn rating_batch_records_in_order_and_stops(backend: Backend) {
    let r = RatingStore::new(backend);
    // More games than one step of the store writes at once (a Redis script runs 32).
    let chain: Vec<RatedGame> = (0..40u32)
        .map(|i| {
            let version = u64::from(i);
            rated(
                &format!("chain{i}"),
                vec![
                    update("hub", version, 1500.0 + f64::from(i), i + 1),
                    update(&format!("rim{i}"), 0, 1490.0, 1),
                ],
            )
        })
        .collect();
    assert_eq!(r.record_in_order(&chain).await.expect("batch"), (40, None));
    let hub = &r.get("rs", &["hub".into()]).await.expect("get")[0];
    let hub = hub.as_ref().expect("hub rated");
    assert_eq!((hub.version, hub.games, hub.rating), (40, 40, 1539.0));
    let names: Vec<String> = ["chain0", "nope", "chain39"].map(String::from).to_vec();
    assert_eq!(
        r.results(&names).await.expect("results"),
        [Some(b"chain0".to_vec()), None, Some(b"chain39".to_vec())]
    );
    assert_eq!(r.record_in_order(&[]).await.expect("empty"), (0, None));

    // The second game was recorded before: the first is written, the rest are not.
    let again = [
        pair("fresh1", ("a", 0), ("b", 0)),
        pair("chain5", ("a", 1), ("c", 0)),
        pair("fresh2", ("d", 0), ("e", 0)),
    ];
    assert_eq!(
        r.record_in_order(&again).await.expect("batch"),
        (1, Some(RecordOutcome::AlreadyRecorded))
    );
    assert!(result(&r, "fresh1").await.is_some());
    assert_eq!(result(&r, "fresh2").await, None, "nothing after the stop");
    let a = r.get("rs", &["a".into(), "d".into()]).await.expect("get");
    assert_eq!(a[0].as_ref().map(|e| e.version), Some(1), "a: fresh1 only");
    assert_eq!(a[1], None, "d: untouched");

    // A stale version stops the batch at that game, which writes nothing.
    let stale = [
        pair("fresh2", ("d", 0), ("e", 0)),
        pair("fresh3", ("d", 1), ("hub", 7)),
        pair("fresh4", ("f", 0), ("g", 0)),
    ];
    assert_eq!(
        r.record_in_order(&stale).await.expect("batch"),
        (1, Some(RecordOutcome::Conflict))
    );
    assert_eq!(result(&r, "fresh3").await, None);
    assert_eq!(result(&r, "fresh4").await, None);
    let d = r.get("rs", &["d".into()]).await.expect("get");
    assert_eq!(
        d[0].as_ref().map(|e| e.version),
        Some(1),
        "fresh3 wrote nothing"
    );
    let infinite = vec![rated("inf", vec![update("x", 0, f64::INFINITY, 1)])];
    assert!(
        r.record_in_order(&infinite).await.is_err(),
        "ratings are finite"
    );
}
