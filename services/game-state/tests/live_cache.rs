//! The live-game cache never answers from a stale copy: two game-state replicas share one
//! store (memory, and a real redis-server), each keeping its own decoded copies, and moves,
//! resignations, retries and stale requests alternate between them. Every answer must be the
//! one the store's current game gives.

mod support;

use ludus_game_state::{GameStateService, error::ServiceError};
use ludus_proto::pb::{self, game_settings::Options};
use ludus_store::{Backend, testing::RedisServer};
use support::{create_game, player, service_on};
use tonic::{Code, Status};

fn caro() -> Options {
    Options::Caro(pb::CaroOptions::default())
}

async fn play(
    service: &GameStateService,
    by: &str,
    expected_seq: u64,
    action_id: &str,
    cell: &str,
) -> Result<pb::ApplyActionResponse, ServiceError> {
    service
        .apply_action(pb::ApplyActionRequest {
            game_id: "g".to_owned(),
            player_id: by.to_owned(),
            expected_seq,
            action_id: action_id.to_owned(),
            action: Some(pb::Action::notation(cell)),
        })
        .await
}

fn seq_of(response: &pb::ApplyActionResponse) -> u64 {
    response.event.as_ref().map_or(0, |event| event.seq)
}

fn status(result: Result<pb::ApplyActionResponse, ServiceError>) -> Status {
    match result {
        Ok(response) => panic!("expected a refusal, got {response:?}"),
        Err(error) => Status::from(error),
    }
}

/// The stones of game `g` in the order they were placed, as the store's game has them.
async fn placed(service: &GameStateService) -> Vec<String> {
    let snapshot = service
        .get_snapshot(pb::GetSnapshotRequest {
            game_id: "g".to_owned(),
            viewer_player_id: String::new(),
            omit_position: false,
        })
        .await
        .expect("snapshot");
    match snapshot.view.and_then(|view| view.view) {
        Some(pb::game_view::View::Caro(caro)) => caro.moves.into_iter().map(|m| m.name).collect(),
        other => panic!("not a Caro view: {other:?}"),
    }
}

async fn stones(service: &GameStateService) -> usize {
    placed(service).await.len()
}

async fn two_replicas_never_answer_from_a_stale_copy(backend: Backend) {
    let a = service_on(backend.clone());
    let b = service_on(backend);
    create_game(&a, "g", caro(), ["x", "o"]).await;

    // A plays and keeps the game at seq 2; B plays from the store (seq 3).
    assert_eq!(seq_of(&play(&a, "x", 1, "x1", "H8").await.expect("x1")), 2);
    assert_eq!(seq_of(&play(&b, "o", 2, "o1", "H9").await.expect("o1")), 3);
    // A's copy is at 2, the game at 3: A reads it again and the move lands on B's.
    assert_eq!(seq_of(&play(&a, "x", 3, "x2", "I8").await.expect("x2")), 4);
    // B's copy (3) is stale too: I8 is taken in the store's game, not in B's copy.
    let taken = status(play(&b, "o", 4, "o2", "I8").await);
    assert_eq!(taken.code(), Code::FailedPrecondition, "{taken:?}");
    assert!(taken.message().starts_with("C3"), "{taken:?}");
    // A refusal keeps no copy: the next move on B is read whole and lands.
    assert_eq!(seq_of(&play(&b, "o", 4, "o2", "J8").await.expect("o2")), 5);
    assert_eq!(stones(&a).await, 4);
    // B's copy is current (seq 5): an illegal move judged on it is refused by the rule, and
    // so is one the other player sends out of turn; then the right move lands.
    let taken = status(play(&b, "x", 5, "x-bad", "H8").await);
    assert_eq!(taken.code(), Code::FailedPrecondition, "{taken:?}");
    assert!(taken.message().starts_with("C3"), "{taken:?}");
    let out_of_turn = status(play(&b, "o", 5, "o-bad", "A1").await);
    assert_eq!(
        out_of_turn.code(),
        Code::FailedPrecondition,
        "{out_of_turn:?}"
    );
    assert_eq!(stones(&b).await, 4);

    // A retried action on the other replica gets its original answer.
    let retried = play(&a, "o", 4, "o2", "J8").await.expect("retry");
    assert!(retried.duplicate);
    assert_eq!(seq_of(&retried), 5);

    // A stale seq after the other replica's commit is ABORTED with the current seq, though
    // A's copy was at the seq the client sent.
    assert_eq!(seq_of(&play(&a, "x", 5, "x3", "K8").await.expect("x3")), 6);
    assert_eq!(seq_of(&play(&b, "o", 6, "o3", "K9").await.expect("o3")), 7);
    let stale = status(play(&a, "x", 6, "x4", "L8").await);
    assert_eq!(stale.code(), Code::Aborted, "{stale:?}");

    // B finishes the game (a resignation): A holds a copy of the game still being played,
    // yet the move A is sent is refused as the game being over.
    assert_eq!(seq_of(&play(&a, "x", 7, "x4", "L8").await.expect("x4")), 8);
    b.resign(player("g", "o")).await.expect("resign");
    // A's copy is at 8, where this client still is: the store's answer is ABORTED (the game
    // moved to 9), not a move on A's copy.
    let behind = status(play(&a, "x", 8, "x5", "M8").await);
    assert_eq!(behind.code(), Code::Aborted, "{behind:?}");
    let over = status(play(&a, "x", 9, "x5", "M8").await);
    assert_eq!(over.code(), Code::FailedPrecondition, "{over:?}");
    assert_eq!(stones(&b).await, 7);
}

#[tokio::test]
async fn on_memory_two_replicas_never_answer_from_a_stale_copy() {
    two_replicas_never_answer_from_a_stale_copy(Backend::memory()).await;
}

/// A Redis that lost its last writes (a failover to a lagging replica, a restart without
/// fsync) and then took other moves reaches the same seq again with another game. A replica's
/// copy from before the loss has that seq but not that version: neither the read nor the
/// commit may take it for the game.
#[tokio::test]
async fn on_redis_a_copy_from_before_lost_writes_is_not_the_game_at_its_seq() {
    let redis = RedisServer::start().expect("redis-server");
    let prefix = "lost-writes:";
    let backend = redis.backend(prefix).await.expect("backend");
    let client = redis::Client::open(redis.url()).expect("client");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("connection");
    let keys = ["state", "events", "actions"].map(|k| format!("{prefix}ludus:game:{{g}}:{k}"));
    let a = service_on(backend.clone());
    let b = service_on(backend);
    create_game(&a, "g", caro(), ["x", "o"]).await;
    assert_eq!(seq_of(&play(&a, "x", 1, "x1", "H8").await.expect("x1")), 2);
    // What Redis will come back with: the game at seq 2.
    let mut saved = Vec::new();
    for key in &keys {
        let dump: Vec<u8> = redis::cmd("DUMP")
            .arg(key)
            .query_async(&mut conn)
            .await
            .expect("dump");
        saved.push(dump);
    }
    // Through A: seq 3 and 4 (A keeps the game at 4: H8, H9, I8).
    assert_eq!(seq_of(&play(&a, "o", 2, "o1", "H9").await.expect("o1")), 3);
    assert_eq!(seq_of(&play(&a, "x", 3, "x2", "I8").await.expect("x2")), 4);
    // The writes after seq 2 are lost...
    for (key, dump) in keys.iter().zip(&saved) {
        let () = redis::cmd("RESTORE")
            .arg(key)
            .arg(0)
            .arg(dump)
            .arg("REPLACE")
            .query_async(&mut conn)
            .await
            .expect("restore");
    }
    // ...and B takes the game to seq 4 again by other moves: H8, J9, J8.
    assert_eq!(
        seq_of(&play(&b, "o", 2, "o1b", "J9").await.expect("o1b")),
        3
    );
    assert_eq!(
        seq_of(&play(&b, "x", 3, "x2b", "J8").await.expect("x2b")),
        4
    );
    // A's copy says I8 is taken and J8 free; the game says the opposite. O at I8 lands (on
    // the game), O at J8 is refused (C3).
    let taken = status(play(&a, "o", 4, "o2", "J8").await);
    assert_eq!(taken.code(), Code::FailedPrecondition, "{taken:?}");
    assert!(taken.message().starts_with("C3"), "{taken:?}");
    assert_eq!(seq_of(&play(&a, "o", 4, "o2", "I8").await.expect("o2")), 5);
    assert_eq!(placed(&b).await, ["H8", "J9", "J8", "I8"]);
}

#[tokio::test]
async fn on_redis_two_replicas_never_answer_from_a_stale_copy() {
    let redis = RedisServer::start().expect("redis-server");
    let backend = redis.backend("live-cache:").await.expect("backend");
    two_replicas_never_answer_from_a_stale_copy(backend).await;
}
