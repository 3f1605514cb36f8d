//! Computer seats (issue 15): who may sit in one, the bot timer that hands each of their
//! turns to the bots service, what the bots service may read of the game, and take-backs.
//!
//! A computer seat is marked at create (`PlayerRef.computer_level`) and kept in the stored
//! `GameStarted` (`SeatInfo.computer_level`). Whenever a commit starts a turn of such a seat
//! (at create too), `start_turn_clock` plans `bot/<game>/<turn_seq>`, due at once, written
//! with the commit like the turn timers: the timers worker calls `Bots.TakeTurn` at least once
//! and on any replica, and a timer whose commit never landed (armed before it, on a Redis
//! Cluster) names a stale turn and does nothing.

use ludus_catalog::seat_u32;
use ludus_proto::pb;
use ludus_rules::{Level, Seat};
use serde::{Deserialize, Serialize};

use super::{GameStateService, timer_arm};
use crate::error::ServiceError;
use crate::model::{Loaded, validate_id};

pub use ludus_catalog::bots::BOT_ID_PREFIX;

/// The position before one of the human's actions, kept for a take-back.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct UndoPoint {
    /// The game's state before the action, as the rules crate serializes it.
    pub game: serde_json::Value,
    /// The seq of the last event before the action (its view is what comes back).
    pub seq: u64,
    /// The computer's actions since.
    pub replies: u32,
}

/// The key of a bot timer: one per turn, like the turn timers.
pub(super) fn bot_timer_key(game_id: &str, turn_seq: u64) -> String {
    format!("bot/{game_id}/{turn_seq}")
}

/// Checks the players of a create: a computer seat has a known level and a `bot-` id, a
/// person's id never starts with `bot-`. Returns each seat's canonical level (`""` for a
/// person).
pub(super) fn seat_levels(players: &[pb::PlayerRef]) -> Result<Vec<String>, ServiceError> {
    players
        .iter()
        .enumerate()
        .map(|(i, player)| {
            let is_bot_id = player.player_id.starts_with(BOT_ID_PREFIX);
            if player.computer_level.is_empty() {
                if is_bot_id {
                    return Err(ServiceError::InvalidArgument(format!(
                        "players[{i}].player_id: ids starting with {BOT_ID_PREFIX} are computer \
                         players': set computer_level"
                    )));
                }
                return Ok(String::new());
            }
            let field = format!("players[{i}].computer_level");
            let level = ludus_catalog::bots::parse_level(&field, &player.computer_level)?;
            if !is_bot_id {
                return Err(ServiceError::InvalidArgument(format!(
                    "players[{i}].player_id: a computer player's id starts with {BOT_ID_PREFIX}"
                )));
            }
            Ok(level.name().to_owned())
        })
        .collect()
}

impl Loaded {
    /// The level of the computer in `seat`, if a computer sits there.
    pub fn computer_level(&self, seat: Seat) -> Option<Level> {
        self.started
            .seats
            .get(seat)
            .and_then(|info| Level::parse(&info.computer_level))
    }

    /// The levels of every computer seat.
    fn computer_levels(&self) -> Vec<Level> {
        (0..self.started.seats.len())
            .filter_map(|seat| self.computer_level(seat))
            .collect()
    }

    /// How many undo points a human action leaves in this game: 0 without a computer or
    /// where the rules allow no take-back, else the game's table policy (C17: ten Caro moves;
    /// M11: the last sow). Each undo point is a copy of the game, kept in the live record.
    fn take_backs_kept(&self) -> usize {
        let levels = self.computer_levels();
        if levels.is_empty() {
            return 0;
        }
        match ludus_catalog::bots::take_back_rule(self.record.kind, &levels) {
            Ok(_) => self.record.kind.table_policy().take_backs,
            Err(_) => 0,
        }
    }

    /// Records what an action by `seat` changes for take-backs, before it is applied: a
    /// person's action keeps the position before it, a computer's counts as a reply.
    pub fn remember_for_take_back(&mut self, seat: Seat) -> Result<(), ServiceError> {
        if self.computer_level(seat).is_some() {
            if let Some(last) = self.record.undo.last_mut() {
                last.replies += 1;
            }
            return Ok(());
        }
        let kept = self.take_backs_kept();
        if kept == 0 {
            return Ok(());
        }
        self.record.undo.push(UndoPoint {
            game: self.game.save()?,
            seq: self.seq,
            replies: 0,
        });
        let excess = self.record.undo.len().saturating_sub(kept);
        self.record.undo.drain(..excess);
        Ok(())
    }
}

impl GameStateService {
    /// Plans the bot timer (written with the commit) when the turn just started
    /// (`loaded.record.turn_seq`) is a computer seat's. Called by `start_turn_clock`.
    pub(super) fn plan_bot_turn(&self, loaded: &mut Loaded) {
        if loaded.game.outcome().is_some() {
            return;
        }
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

    pub async fn get_bot_turn(
        &self,
        request: pb::GetBotTurnRequest,
    ) -> Result<pb::BotTurn, ServiceError> {
        let loaded = self.load(&request.game_id).await?;
        let not_ready = pb::BotTurn {
            ready: false,
            seq: loaded.seq,
            turn_seq: loaded.record.turn_seq,
            kind: loaded.record.kind.name().to_owned(),
            ..pb::BotTurn::default()
        };
        if loaded.record.turn_seq != request.turn_seq || loaded.game.outcome().is_some() {
            return Ok(not_ready);
        }
        let Some(seat) = loaded.game.to_move() else {
            return Ok(not_ready);
        };
        let Some(level) = loaded.computer_level(seat) else {
            return Ok(not_ready);
        };
        // What the seat may know, and nothing else (J22): the catalog decides what that is.
        let position = loaded.game.seat_position(seat)?;
        Ok(pb::BotTurn {
            ready: true,
            seat: seat_u32(seat),
            player_id: loaded.started.seats[seat].player_id.clone(),
            level: level.name().to_owned(),
            position_json: position.to_string(),
            ..not_ready
        })
    }

    /// C17, M11: undoes the caller's last action and the computer's replies since, as a new
    /// `TakenBack` event whose view is the restored position.
    pub async fn take_back(
        &self,
        request: pb::PlayerRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        let player_id = request.player_id.clone();
        self.seated_change(&request.game_id, &player_id, |loaded, seat| {
            let levels = loaded.computer_levels();
            if levels.is_empty() {
                return Err(ServiceError::FailedPrecondition(
                    "C17: moves can be taken back only in a game against the computer (C17, M11)"
                        .into(),
                ));
            }
            if loaded.computer_level(seat).is_some() {
                return Err(ServiceError::FailedPrecondition(
                    "C17: only the human player takes moves back".into(),
                ));
            }
            let rule = ludus_catalog::bots::take_back_rule(loaded.record.kind, &levels)?;
            if loaded.game.to_move() != Some(seat) {
                return Err(ServiceError::FailedPrecondition(format!(
                    "{rule}: take back on your turn, once the computer has replied"
                )));
            }
            let Some(point) = loaded.record.undo.pop() else {
                return Err(ServiceError::FailedPrecondition(format!(
                    "{rule}: there is no move of yours to take back"
                )));
            };
            loaded.game = ludus_catalog::load(loaded.record.kind, point.game.clone())?;
            Ok(pb::game_event::Kind::TakenBack(pb::TakenBack {
                seat: seat_u32(seat),
                actions: point.replies.saturating_add(1),
                restored_seq: point.seq,
            }))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(id: &str, level: &str) -> pb::PlayerRef {
        pb::PlayerRef {
            player_id: id.into(),
            display_name: id.into(),
            computer_level: level.into(),
        }
    }

    #[test]
    fn computer_seats_need_a_level_and_a_bot_id() {
        let levels = seat_levels(&[player("g-1", ""), player("bot-1", "Medium")]).unwrap();
        assert_eq!(levels, ["", "normal"]);
        let unknown = seat_levels(&[player("bot-1", "grandmaster")]).unwrap_err();
        assert!(
            unknown.to_string().contains("easy, normal or hard"),
            "{unknown}"
        );
        assert!(seat_levels(&[player("g-1", "easy")]).is_err());
        assert!(seat_levels(&[player("bot-1", "")]).is_err());
        assert_ne!(bot_timer_key("g", 1), bot_timer_key("g", 2));
    }
}
