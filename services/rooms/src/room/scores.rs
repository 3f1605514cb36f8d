//! The room's scoreboard: per game, each player's games, wins and draws, and points where
//! the game scores them (Q30-Q36; a tournament's are its bracket's, Q35).

use ludus_rules::Outcome;
use serde::{Deserialize, Serialize};

use super::{PlayerId, Room, TableResult};

/// One player's line on a game's scoreboard.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Score {
    pub name: String,
    pub played: u32,
    pub won: u32,
    pub drawn: u32,
    /// Points where the game scores them (Quoridor's Q30-Q36); other games count wins and
    /// draws only.
    pub points: i64,
}

impl Room {
    pub(super) fn score_game(
        &mut self,
        players: &[PlayerId],
        result: &TableResult,
        outcome: &Outcome,
        with_points: bool,
    ) {
        let points = self.settings.policy().scores_points;
        let names: Vec<String> = players
            .iter()
            .map(|p| self.member(p).map_or_else(|| p.clone(), |m| m.name.clone()))
            .collect();
        let board = self
            .scoreboard
            .entry(self.settings.kind().name().to_owned())
            .or_default();
        for (seat, player) in players.iter().enumerate() {
            let line = board.entry(player.clone()).or_default();
            line.name = names[seat].clone();
            line.played += 1;
            match result {
                TableResult::Won { winners } if winners.contains(player) => line.won += 1,
                TableResult::Drawn => line.drawn += 1,
                _ => {}
            }
            // Q30-Q34 points come with the outcome (team members each get the team's, Q33);
            // a draw gives none (Q36). Tournament points are the bracket's (Q35).
            if points && with_points {
                line.points += outcome.points.get(seat).copied().unwrap_or(0);
            }
        }
    }
}
