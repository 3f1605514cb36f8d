//! `ludus.moves` and `ludus.games.finished` from real game-state calls on the memory store.
//! This file is its own test binary because it installs the process-wide meter provider.

mod support;

use ludus_game_state::{GameStateService, error::ServiceError};
use ludus_proto::pb;
use ludus_telemetry::testing::{MetricsRecorder, attrs};
use support::{create_game, player, service};

/// A Caro game (default options) between `x`, who moves first, and `o`.
async fn caro(service: &GameStateService, game_id: &str) {
    let options = pb::game_settings::Options::Caro(pb::CaroOptions::default());
    create_game(service, game_id, options, ["x", "o"]).await;
}

async fn play(
    service: &GameStateService,
    (game_id, player, seq): (&str, &str, u64),
    action_id: &str,
    notation: &str,
) -> Result<pb::ApplyActionResponse, ServiceError> {
    service
        .apply_action(pb::ApplyActionRequest {
            game_id: game_id.to_owned(),
            player_id: player.to_owned(),
            expected_seq: seq,
            action_id: action_id.to_owned(),
            action: Some(pb::Action::notation(notation)),
        })
        .await
}

#[tokio::test]
async fn committed_moves_and_finished_games_are_counted() {
    let recorder = MetricsRecorder::new();
    // Before the first commit: game-state makes its instruments on first use.
    recorder.install_global();
    let service = service().await;

    // Two moves, a retried one (not counted again), a refused one, then a resignation.
    caro(&service, "g1").await;
    play(&service, ("g1", "x", 1), "a1", "H8").await.expect("x");
    let retried = play(&service, ("g1", "x", 1), "a1", "H8")
        .await
        .expect("retry");
    assert!(retried.duplicate);
    play(&service, ("g1", "o", 2), "a2", "H8")
        .await
        .expect_err("occupied");
    play(&service, ("g1", "o", 2), "a3", "H9").await.expect("o");
    service.resign(player("g1", "x")).await.expect("resign");

    // A draw by agreement, no move.
    caro(&service, "g2").await;
    service.offer_draw(player("g2", "x")).await.expect("offer");
    service
        .respond_draw(pb::RespondDrawInternalRequest {
            game_id: "g2".to_owned(),
            player_id: "o".to_owned(),
            accept: true,
        })
        .await
        .expect("accept");

    let count = |name: &str, pairs: &[(&str, &str)]| {
        let points = recorder.named(name);
        points
            .iter()
            .find(|point| point.attributes == attrs(pairs))
            .map(|point| point.value)
            .unwrap_or_else(|| panic!("no {name} {pairs:?} in {points:?}"))
    };
    assert_eq!(
        count("ludus.moves", &[("game", "caro"), ("automatic", "false")]),
        2.0
    );
    assert_eq!(recorder.named("ludus.moves").len(), 1);
    assert_eq!(
        count(
            "ludus.games.finished",
            &[("game", "caro"), ("result", "win")]
        ),
        1.0
    );
    assert_eq!(
        count(
            "ludus.games.finished",
            &[("game", "caro"), ("result", "draw")]
        ),
        1.0
    );
    assert_eq!(recorder.named("ludus.games.finished").len(), 2);
}
