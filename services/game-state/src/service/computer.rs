//! Computer seats (ARCHITECTURE.md, Computer players): who may sit in one, and what a human's action keeps for a
//! take-back. The bot timer that hands each of their turns to the bots service is planned
//! with the turn clock (`clock.rs`); `GetBotTurn` and `TakeBack` are answered in `turns.rs`.
//!
//! A computer seat is marked at create (`PlayerRef.computer_level`) and kept in the stored
//! `GameStarted` (`SeatInfo.computer_level`).

use ludus_proto::pb;
use ludus_rules::{Level, Seat};

use crate::error::ServiceError;
use crate::model::{Loaded, UndoPoint};

pub use ludus_catalog::bots::BOT_ID_PREFIX;

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
    pub(super) fn computer_levels(&self) -> Vec<Level> {
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
    }
}
