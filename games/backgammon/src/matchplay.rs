//! Match play to N points with the Crawford rule (B22).

use ludus_rules::{GameResult, Outcome, Seat, SetupError};
use serde::{Deserialize, Serialize};

use crate::options::{BackgammonOptions, MatchGame};

/// The match lengths a host may choose (B22).
pub const MATCH_LENGTHS: [u32; 7] = [1, 3, 5, 7, 11, 15, 21];

/// Where a match stands with the Crawford rule.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum Crawford {
    /// Nobody has reached N-1 points yet.
    Before,
    /// The next game is the Crawford game: no cube.
    Next,
    /// The Crawford game has been played: the cube is back.
    Done,
}

/// A match to `length` points: the score and whether the next game is the Crawford game.
/// Pure: record each game's outcome and ask for the next game's options.
///
/// ```
/// use ludus_backgammon::Match;
/// let m = Match::new(3).unwrap().record_points(0, 2);
/// assert!(m.is_crawford());
/// let m = m.record_points(1, 1);
/// assert!(!m.is_crawford());
/// assert_eq!(m.score(), [2, 1]);
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct Match {
    length: u32,
    score: [u32; 2],
    crawford: Crawford,
    games: u32,
}

impl Match {
    /// A new match; `length` must be one of [`MATCH_LENGTHS`].
    pub fn new(length: u32) -> Result<Match, SetupError> {
        if !MATCH_LENGTHS.contains(&length) {
            return Err(SetupError::new(
                "B22",
                format!("a match is played to 1, 3, 5, 7, 11, 15 or 21 points, not {length}"),
            ));
        }
        Ok(Match {
            length,
            score: [0, 0],
            crawford: Crawford::Before,
            games: 0,
        })
    }

    /// Points needed to win.
    pub fn length(&self) -> u32 {
        self.length
    }

    /// Points of seat 0 and seat 1.
    pub fn score(&self) -> [u32; 2] {
        self.score
    }

    /// Games recorded so far.
    pub fn games(&self) -> u32 {
        self.games
    }

    /// Whether the next game is the Crawford game (B22): the game right after a player first
    /// reaches N-1 points.
    pub fn is_crawford(&self) -> bool {
        self.crawford == Crawford::Next
    }

    /// The Crawford state.
    pub fn crawford(&self) -> Crawford {
        self.crawford
    }

    /// The match winner, once a player has `length` points.
    pub fn winner(&self) -> Option<Seat> {
        (0..2).find(|&s| self.score[s] >= self.length)
    }

    /// Options for the next game of the match (no optional rules, B22).
    pub fn next_game_options(&self) -> BackgammonOptions {
        BackgammonOptions {
            match_game: Some(MatchGame {
                length: self.length,
                score: self.score,
                crawford: self.is_crawford(),
            }),
            ..BackgammonOptions::default()
        }
    }

    /// The match after `winner` won a game worth `points` (B16 scoring). A finished match
    /// does not change.
    pub fn record_points(mut self, winner: Seat, points: u32) -> Match {
        if self.winner().is_some() || winner > 1 {
            return self;
        }
        let before = self.score[winner];
        self.score[winner] = before.saturating_add(points);
        self.games += 1;
        self.crawford = match self.crawford {
            Crawford::Next => Crawford::Done,
            Crawford::Before
                if before + 1 < self.length && self.score[winner] + 1 == self.length =>
            {
                Crawford::Next
            }
            other => other,
        };
        self
    }

    /// The match after a game ended with `outcome` (its winner's positive points count).
    pub fn record(self, outcome: &Outcome) -> Match {
        match &outcome.result {
            GameResult::Win { winners } => match winners.first() {
                Some(&w) => {
                    let pts = outcome.points.get(w).copied().unwrap_or(1).max(0);
                    self.record_points(w, u32::try_from(pts).unwrap_or(u32::MAX))
                }
                None => self,
            },
            _ => self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b22_crawford_game_comes_once_right_after_n_minus_1() {
        let m = Match::new(5).unwrap();
        assert!(!m.is_crawford());
        let m = m.record_points(0, 4); // 4-0: leader at N-1
        assert!(m.is_crawford());
        let m = m.record_points(1, 2); // Crawford game played
        assert!(!m.is_crawford());
        assert_eq!(m.crawford(), Crawford::Done);
        let m = m.record_points(1, 2); // 4-4: no second Crawford game
        assert!(!m.is_crawford());
        let m = m.record_points(1, 1);
        assert_eq!(m.winner(), Some(1));
    }

    #[test]
    fn b22_jumping_past_n_minus_1_is_no_crawford() {
        let m = Match::new(5)
            .unwrap()
            .record_points(0, 2)
            .record_points(0, 4);
        assert_eq!(m.winner(), Some(0));
        let m = Match::new(5)
            .unwrap()
            .record_points(1, 3)
            .record_points(0, 1);
        assert!(!m.is_crawford());
        assert!(Match::new(4).is_err());
    }
}
