//! The turn clock: arming each turn's timer (or the short autoplay timer, Junqi J19), the
//! outcome-report timer, and what happens when a turn timer fires (each game's clock policy).

use ludus_catalog::seat_u32;
use ludus_proto::pb;

use super::random::{csprng, random_for};
use super::{GameStateService, timer_arm};
use crate::error::ServiceError;
use crate::model::Loaded;

/// How soon the server plays for a seat on autoplay (Junqi J19) once its turn starts: prompt,
/// yet long enough for clients to show the action before the next one, and for the player to
/// take back the turn by acting first.
pub const AUTOPLAY_DELAY_MS: u64 = 1_000;

/// The key of a turn timer: one per turn, so a stale timer can never replace a live one.
pub(super) fn turn_timer_key(game_id: &str, turn_seq: u64) -> String {
    format!("turn/{game_id}/{turn_seq}")
}

fn outcome_timer_key(game_id: &str) -> String {
    format!("outcome/{game_id}")
}

impl GameStateService {
    /// Unix milliseconds on the service's clock: deadlines are absolute so every replica
    /// agrees on them (tests run the services on one manual clock).
    pub(super) fn now_ms(&self) -> i64 {
        i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX)
    }

    /// Starts the next turn's clock when the game goes on and is timed: plans its timer in
    /// `loaded.timers`, written with the commit, so a committed turn always has a timer; on a
    /// Redis Cluster it is armed just before the commit, and a timer for a turn that never
    /// got committed fires into a stale turn_seq and is ignored. When the seat to move is on
    /// autoplay (Junqi J19) the timer is due after [`AUTOPLAY_DELAY_MS`] and its expiry plays
    /// for the seat.
    pub(super) fn start_turn_clock(&self, loaded: &mut Loaded) {
        loaded.record.turn_seq += 1;
        // A computer seat's turn goes to the bots service, timed or not.
        self.plan_bot_turn(loaded);
        let autoplay = loaded.game.outcome().is_none() && loaded.game.autoplay_due();
        let turn_time = if autoplay {
            AUTOPLAY_DELAY_MS
        } else {
            loaded.turn_time_ms()
        };
        if loaded.game.outcome().is_some() || turn_time == 0 {
            loaded.record.deadline_ms = 0;
            return;
        }
        let due = self
            .now_ms()
            .saturating_add(i64::try_from(turn_time).unwrap_or(i64::MAX));
        loaded.record.deadline_ms = due;
        let arm = timer_arm(
            &turn_timer_key(&loaded.game_id, loaded.record.turn_seq),
            pb::timer_action::Action::ExpireTurn(pb::ExpireTurnRequest {
                game_id: loaded.game_id.clone(),
                turn_seq: loaded.record.turn_seq,
            }),
            due,
        );
        loaded.timers.arm.push(arm);
    }

    /// When a change finishes the game, the outcome report is a timer due at once, written
    /// with the commit: ratings hear of every finished game at least once. It names the seq
    /// the commit writes, since on a Redis Cluster it is armed before the commit and may fire
    /// before that commit lands (see `report_outcome`).
    pub(super) fn plan_outcome_report(&self, loaded: &mut Loaded) {
        if loaded.game.outcome().is_none() {
            return;
        }
        let arm = timer_arm(
            &outcome_timer_key(&loaded.game_id),
            pb::timer_action::Action::ReportOutcome(pb::ReportOutcomeRequest {
                game_id: loaded.game_id.clone(),
                finishing_seq: loaded.seq + 1,
                armed_unix_ms: self.now_ms(),
            }),
            self.now_ms(),
        );
        loaded.timers.arm.push(arm);
    }

    pub async fn expire_turn(
        &self,
        request: pb::ExpireTurnRequest,
    ) -> Result<pb::ExpireTurnResponse, ServiceError> {
        let event = self
            .server_change(&request.game_id, |loaded| {
                if loaded.record.turn_seq != request.turn_seq || loaded.game.outcome().is_some() {
                    return Ok(None);
                }
                let Some(seat) = loaded.game.to_move() else {
                    return Ok(None);
                };
                // J19: the seat is on autoplay: this was the short timer, not its clock.
                if loaded.game.autoplay_due()
                    && let Some(applied) = loaded.game.play_autoplay(&mut csprng())
                {
                    return Ok(Some(pb::game_event::Kind::ActionApplied(
                        pb::ActionApplied {
                            seat: seat_u32(seat),
                            action: Some(applied.action),
                            notation: applied.notation,
                            automatic: true,
                        },
                    )));
                }
                let effect = loaded.game.timeout(seat, &mut random_for(&request.game_id));
                tracing::info!(game_id = %loaded.game_id, seat, %effect, "turn timed out");
                Ok(Some(pb::game_event::Kind::TurnTimedOut(pb::TurnTimedOut {
                    seat: seat_u32(seat),
                    effect,
                })))
            })
            .await?;
        Ok(pb::ExpireTurnResponse {
            applied: event.is_some(),
            event,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_keys_are_per_turn() {
        assert_ne!(turn_timer_key("g", 1), turn_timer_key("g", 2));
        assert_eq!(outcome_timer_key("g"), "outcome/g");
    }
}
