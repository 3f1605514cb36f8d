//! game-state writes its timers straight into the store's `{timers:N}` keys: the same keys and
//! payloads the timers service's `Arm` writes (so its worker fires them unchanged), with the
//! commit they belong to: on the memory store (as on one Redis node) the next turn's timer is
//! armed and the stale one deleted by the commit itself.

mod support;

use ludus_proto::pb::{self, timer_action::Action};
use ludus_store::{Backend, ManualClock, TimerStore};
use prost::Message;
use support::{create_timed_game, player, service_on};

const TURN_MS: u64 = 60_000;

/// The action stored under `key`, and its due time; `None` if no such timer.
async fn timer(timers: &TimerStore, key: &str) -> Option<(u64, Action)> {
    let (due, payload) = timers.get(key).await.expect("read timer")?;
    let action = pb::TimerAction::decode(payload.as_slice())
        .expect("payload is an encoded TimerAction")
        .action
        .expect("an action");
    Some((due, action))
}

#[tokio::test]
async fn turn_and_outcome_timers_are_written_to_the_timer_store() {
    let backend = Backend::memory();
    let clock = ManualClock::starting_now();
    let service = service_on(backend.clone()).clock(clock.clock());
    let timers = TimerStore::new(backend);
    let now = clock.clock().now_ms();

    let caro = pb::game_settings::Options::Caro(pb::CaroOptions::default());
    create_timed_game(&service, "g", caro, ["x", "o"], TURN_MS).await;
    let first = timer(&timers, "turn/g/1")
        .await
        .expect("first turn's timer");
    assert_eq!(
        first,
        (
            now + TURN_MS,
            Action::ExpireTurn(pb::ExpireTurnRequest {
                game_id: "g".to_owned(),
                turn_seq: 1,
            })
        )
    );

    service
        .apply_action(pb::ApplyActionRequest {
            game_id: "g".to_owned(),
            player_id: "x".to_owned(),
            expected_seq: 1,
            action_id: "a1".to_owned(),
            action: Some(pb::Action::notation("H8")),
        })
        .await
        .expect("move");
    // The next turn's timer was written by the commit.
    assert_eq!(
        timer(&timers, "turn/g/2").await,
        Some((
            now + TURN_MS,
            Action::ExpireTurn(pb::ExpireTurnRequest {
                game_id: "g".to_owned(),
                turn_seq: 2,
            })
        ))
    );
    // The previous turn's timer went with the same commit.
    assert_eq!(timer(&timers, "turn/g/1").await, None);

    // Resigning finishes the game: the outcome report is due at once and names the
    // finishing seq.
    service.resign(player("g", "o")).await.expect("resign");
    assert_eq!(
        timer(&timers, "outcome/g").await,
        Some((
            now,
            Action::ReportOutcome(pb::ReportOutcomeRequest {
                game_id: "g".to_owned(),
                finishing_seq: 3,
                armed_unix_ms: i64::try_from(now).expect("ms fit"),
            })
        ))
    );
}
