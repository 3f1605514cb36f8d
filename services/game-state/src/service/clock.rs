//! The turn clock: what a change that moves the game on plans with its commit: the next
//! turn's timer (or the short autoplay timer, Junqi J19), a computer seat's bot timer, or,
//! when the game ended, the outcome-report timer; and the previous turn's timer goes.
//!
//! A computer seat's turn: whenever a commit starts a turn of a seat marked at create
//! (`SeatInfo.computer_level`, create included), `bot/<game>/<turn_seq>` is planned, due at
//! once, written with the commit like the turn timers: the timers worker calls
//! `Bots.TakeTurn` at least once and on any replica, and a timer whose commit never landed
//! (armed before it, on a Redis Cluster) names a stale turn and does nothing.

use ludus_proto::pb;

use super::base::{GameStateService, timer_arm};
use crate::model::Loaded;

/// How soon the server plays for a seat on autoplay (Junqi J19) once its turn starts: prompt,
/// yet long enough for clients to show the action before the next one, and for the player to
/// take back the turn by acting first.
pub const AUTOPLAY_DELAY_MS: u64 = 1_000;

/// The key of a turn timer: one per turn, so a stale timer can never replace a live one.
fn turn_timer_key(game_id: &str, turn_seq: u64) -> String {
    format!("turn/{game_id}/{turn_seq}")
}

/// The key of a bot timer: one per turn, like the turn timers.
fn bot_timer_key(game_id: &str, turn_seq: u64) -> String {
    format!("bot/{game_id}/{turn_seq}")
}

fn outcome_timer_key(game_id: &str) -> String {
    format!("outcome/{game_id}")
}

impl GameStateService {
    /// Starts the next turn's clock: plans its timer in `loaded.timers`, written with the
    /// commit, so a committed turn always has a timer; on a Redis Cluster it is armed just
    /// before the commit, and a timer for a turn that never got committed fires into a stale
    /// turn_seq and is ignored. When the seat to move is on autoplay (Junqi J19) the timer is
    /// due after [`AUTOPLAY_DELAY_MS`] and its expiry plays for the seat; an untimed turn has
    /// none; a game that ended gets its outcome report instead.
    pub(super) fn start_turn_clock(&self, loaded: &mut Loaded) {
        let previous_turn = loaded.record.turn_seq;
        if previous_turn > 0 {
            // The old turn's timer would fire into a stale turn_seq and be ignored; deleting
            // it with the commit only saves that firing.
            loaded
                .timers
                .cancel
                .push(turn_timer_key(&loaded.game_id, previous_turn));
        }
        loaded.record.turn_seq += 1;
        if loaded.game.outcome().is_some() {
            loaded.record.deadline_ms = 0;
            self.plan_outcome_report(loaded);
            return;
        }
        // A computer seat's turn goes to the bots service, timed or not.
        self.plan_bot_turn(loaded);
        let turn_time = if loaded.game.autoplay_due() {
            AUTOPLAY_DELAY_MS
        } else {
            loaded.turn_time_ms()
        };
        if turn_time == 0 {
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

    /// Plans the bot timer when the turn just started (`loaded.record.turn_seq`) is a
    /// computer seat's.
    fn plan_bot_turn(&self, loaded: &mut Loaded) {
        let Some(seat) = loaded.game.to_move() else {
            return;
        };
        if loaded.computer_level(seat).is_none() {
            return;
        }
        let arm = timer_arm(
            &bot_timer_key(&loaded.game_id, loaded.record.turn_seq),
            pb::timer_action::Action::TakeBotTurn(pb::TakeBotTurnRequest {
                game_id: loaded.game_id.clone(),
                turn_seq: loaded.record.turn_seq,
            }),
            self.now_ms(),
        );
        loaded.timers.arm.push(arm);
    }

    /// When a change finishes the game, the outcome report is a timer due at once, written
    /// with the commit: ratings hear of every finished game at least once. It names the seq
    /// the commit writes, since on a Redis Cluster it is armed before the commit and may fire
    /// before that commit lands (see `report_outcome`).
    fn plan_outcome_report(&self, loaded: &mut Loaded) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_keys_are_per_turn() {
        assert_ne!(turn_timer_key("g", 1), turn_timer_key("g", 2));
        assert_ne!(bot_timer_key("g", 1), bot_timer_key("g", 2));
        assert_eq!(outcome_timer_key("g"), "outcome/g");
    }
}
