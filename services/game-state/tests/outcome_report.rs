//! The outcome timer is armed just before the commit that finishes a game, so it can fire
//! before that commit lands. Its report must then be retried (ABORTED), not dropped: a
//! dropped report is a finished game that ratings and the archive never hear of. Once the
//! game has moved past the finishing seq unfinished, that commit lost and the refusal is final.

mod support;

use ludus_game_state::service::FINISHING_COMMIT_PATIENCE_MS;
use ludus_game_state::{GameStateService, error::ServiceError};
use ludus_proto::pb;
use support::service_with_caro_game;
use tonic::{Code, Status};

async fn seq_of(service: &GameStateService, game_id: &str) -> u64 {
    service
        .get_snapshot(pb::GetSnapshotRequest {
            game_id: game_id.to_owned(),
            viewer_player_id: String::new(),
            omit_position: false,
        })
        .await
        .expect("snapshot")
        .seq
}

/// Now, in Unix ms (the service runs on the system clock).
fn now_ms() -> i64 {
    i64::try_from(ludus_store::Clock::system().now_ms()).expect("ms fit")
}

async fn report(
    service: &GameStateService,
    game_id: &str,
    finishing_seq: u64,
    armed_ms: i64,
) -> Code {
    let refused: ServiceError = service
        .report_outcome(game_id, finishing_seq, armed_ms)
        .await
        .expect_err("the game is not finished");
    Status::from(refused).code()
}

#[tokio::test]
async fn a_report_before_its_finishing_commit_lands_is_retried_and_after_a_lost_one_refused() {
    let service = service_with_caro_game("g1").await;
    let seq = seq_of(&service, "g1").await;

    let armed_just_now = now_ms();
    // The timer of a commit that would write seq + 1 fired first: try again later.
    assert_eq!(
        report(&service, "g1", seq + 1, armed_just_now).await,
        Code::Aborted
    );
    // Still missing two minutes after it was armed: that commit failed, stop retrying.
    let armed_long_ago = armed_just_now - 2 * FINISHING_COMMIT_PATIENCE_MS;
    assert_eq!(
        report(&service, "g1", seq + 1, armed_long_ago).await,
        Code::FailedPrecondition
    );
    // The game is at that seq and still going: the finishing commit lost its race.
    assert_eq!(
        report(&service, "g1", seq, armed_just_now).await,
        Code::FailedPrecondition
    );
    // A timer armed before timers carried the seq: as before, refused.
    assert_eq!(report(&service, "g1", 0, 0).await, Code::FailedPrecondition);
}
