//! Every game names its own draw rule when it refuses a draw offer or answer: Caro C8,
//! Mancala M9, Junqi LJ1 (ours: the rule file is silent), Quoridor Q18 and Backgammon B13
//! (no draws by agreement), through the real service on the memory store.

mod support;

use ludus_game_state::{GameStateService, error::ServiceError};
use ludus_proto::pb::{self, game_settings::Options};
use support::service;
use tonic::{Code, Status};

async fn create(service: &GameStateService, game_id: &str, options: Options) {
    service
        .create_game(pb::CreateGameRequest {
            game_id: game_id.to_owned(),
            settings: Some(pb::GameSettings {
                options: Some(options),
                turn_time_ms: 0,
            }),
            players: ["a", "b"]
                .map(|player| pb::PlayerRef {
                    player_id: player.to_owned(),
                    display_name: player.to_owned(),
                })
                .to_vec(),
            casual: false,
        })
        .await
        .expect("create");
}

fn player(game_id: &str, player_id: &str) -> pb::PlayerRequest {
    pb::PlayerRequest {
        game_id: game_id.to_owned(),
        player_id: player_id.to_owned(),
    }
}

async fn offer(service: &GameStateService, game_id: &str, by: &str) -> Result<(), ServiceError> {
    service.offer_draw(player(game_id, by)).await.map(drop)
}

async fn answer(
    service: &GameStateService,
    game_id: &str,
    by: &str,
    accept: bool,
) -> Result<(), ServiceError> {
    service
        .respond_draw(pb::RespondDrawInternalRequest {
            game_id: game_id.to_owned(),
            player_id: by.to_owned(),
            accept,
        })
        .await
        .map(drop)
}

/// The refusal is FAILED_PRECONDITION and its message starts with `rule`.
fn assert_refused(result: Result<(), ServiceError>, rule: &str, what: &str) {
    let Err(error) = result else {
        panic!("{what}: refused by {rule}");
    };
    let status = Status::from(error);
    assert_eq!(
        status.code(),
        Code::FailedPrecondition,
        "{what}: {status:?}"
    );
    assert!(
        status.message().starts_with(&format!("{rule}: ")),
        "{what}: names {rule}: {}",
        status.message()
    );
}

/// A game with draws by agreement: every refusal about the offer names `rule`, and an
/// accepted offer ends the game under it.
async fn draws_by_agreement_name(rule: &str, options: Options) {
    let service = service().await;
    let game_id = format!("draw-{rule}");
    create(&service, &game_id, options).await;
    assert_refused(
        answer(&service, &game_id, "b", true).await,
        rule,
        "an answer with no offer",
    );
    offer(&service, &game_id, "a").await.expect("offer");
    assert_refused(
        offer(&service, &game_id, "a").await,
        rule,
        "a second offer by the same seat",
    );
    assert_refused(
        offer(&service, &game_id, "b").await,
        rule,
        "an offer while the opponent's is pending",
    );
    assert_refused(
        answer(&service, &game_id, "a", true).await,
        rule,
        "an answer to one's own offer",
    );
    answer(&service, &game_id, "b", true).await.expect("accept");
    let snapshot = service
        .get_snapshot(pb::GetSnapshotRequest {
            game_id: game_id.clone(),
            viewer_player_id: String::new(),
        })
        .await
        .expect("snapshot");
    let outcome = snapshot.outcome.expect("drawn");
    assert_eq!(outcome.kind, pb::ResultKind::Draw as i32);
}

/// A game without draws by agreement: offers and answers name `rule`.
async fn no_draws_name(rule: &str, options: Options) {
    let service = service().await;
    let game_id = format!("no-draw-{rule}");
    create(&service, &game_id, options).await;
    assert_refused(offer(&service, &game_id, "a").await, rule, "an offer");
    assert_refused(
        answer(&service, &game_id, "b", true).await,
        rule,
        "an answer with no offer",
    );
}

#[tokio::test]
async fn c8_caro_draw_refusals_name_c8() {
    draws_by_agreement_name("C8", Options::Caro(pb::CaroOptions::default())).await;
}

#[tokio::test]
async fn m9_mancala_draw_refusals_name_m9() {
    draws_by_agreement_name("M9", Options::Mancala(pb::MancalaOptions::default())).await;
}

#[tokio::test]
async fn lj1_junqi_draw_refusals_name_our_rule() {
    draws_by_agreement_name("LJ1", Options::Junqi(pb::JunqiOptions {})).await;
}

#[tokio::test]
async fn q18_quoridor_has_no_draw_by_agreement() {
    no_draws_name("Q18", Options::Quoridor(pb::QuoridorOptions::default())).await;
}

#[tokio::test]
async fn b13_backgammon_has_no_draws() {
    no_draws_name("B13", Options::Backgammon(pb::BackgammonOptions::default())).await;
}
