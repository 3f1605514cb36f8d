//! Every game names its own draw rule when it refuses a draw offer or answer: Caro C8,
//! Mancala M9, Junqi LJ1 (ours: the rule file is silent), Quoridor Q18 and Backgammon B13
//! (no draws by agreement), through the real service on the memory store.

mod support;

use ludus_game_state::{GameStateService, error::ServiceError};
use ludus_proto::pb::{self, game_settings::Options};
use support::{create_game, player, service};
use tonic::{Code, Status};

/// A draw step by one seat: offering a draw, or accepting the pending offer.
#[derive(Debug, Clone, Copy)]
enum Step {
    Offer(&'static str),
    Accept(&'static str),
}

impl Step {
    async fn take(self, service: &GameStateService, game_id: &str) -> Result<(), ServiceError> {
        match self {
            Step::Offer(by) => service.offer_draw(player(game_id, by)).await.map(drop),
            Step::Accept(by) => service
                .respond_draw(pb::RespondDrawInternalRequest {
                    game_id: game_id.to_owned(),
                    player_id: by.to_owned(),
                    accept: true,
                })
                .await
                .map(drop),
        }
    }
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

/// Takes `steps` in a new game of `options` between seats `a` and `b`: a step with a refusal
/// must be refused naming `rule` (the refusal says what was refused), one without must
/// succeed. Returns the service and the game.
async fn take_steps(
    rule: &str,
    options: Options,
    steps: &[(Step, Option<&str>)],
) -> (GameStateService, String) {
    let service = service().await;
    let game_id = format!("draw-{rule}");
    create_game(&service, &game_id, options, ["a", "b"]).await;
    for &(step, refusal) in steps {
        let result = step.take(&service, &game_id).await;
        match refusal {
            Some(what) => assert_refused(result, rule, what),
            None => result.unwrap_or_else(|error| panic!("{rule}: {step:?}: {error:?}")),
        }
    }
    (service, game_id)
}

/// A game with draws by agreement: every refusal about the offer names `rule`, and an
/// accepted offer ends the game under it.
async fn draws_by_agreement_name(rule: &str, options: Options) {
    let steps = [
        (Step::Accept("b"), Some("an answer with no offer")),
        (Step::Offer("a"), None),
        (Step::Offer("a"), Some("a second offer by the same seat")),
        (
            Step::Offer("b"),
            Some("an offer while the opponent's is pending"),
        ),
        (Step::Accept("a"), Some("an answer to one's own offer")),
        (Step::Accept("b"), None),
    ];
    let (service, game_id) = take_steps(rule, options, &steps).await;
    let snapshot = service
        .get_snapshot(pb::GetSnapshotRequest {
            game_id,
            viewer_player_id: String::new(),
            omit_position: false,
        })
        .await
        .expect("snapshot");
    let outcome = snapshot
        .outcome
        .unwrap_or_else(|| panic!("{rule}: an accepted offer draws"));
    assert_eq!(outcome.kind, pb::ResultKind::Draw as i32);
}

/// A game without draws by agreement: offers and answers name `rule`.
async fn no_draws_name(rule: &str, options: Options) {
    let steps = [
        (Step::Offer("a"), Some("an offer")),
        (Step::Accept("b"), Some("an answer with no offer")),
    ];
    take_steps(rule, options, &steps).await;
}

#[tokio::test]
async fn c8_m9_lj1_draw_refusals_name_each_games_rule() {
    for (rule, options) in [
        ("C8", Options::Caro(pb::CaroOptions::default())),
        ("M9", Options::Mancala(pb::MancalaOptions::default())),
        ("LJ1", Options::Junqi(pb::JunqiOptions {})),
    ] {
        draws_by_agreement_name(rule, options).await;
    }
}

#[tokio::test]
async fn q18_quoridor_and_b13_backgammon_have_no_draw_by_agreement() {
    for (rule, options) in [
        ("Q18", Options::Quoridor(pb::QuoridorOptions::default())),
        ("B13", Options::Backgammon(pb::BackgammonOptions::default())),
    ] {
        no_draws_name(rule, options).await;
    }
}
