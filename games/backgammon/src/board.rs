//! The checkers on the board (B1, B2), single checker steps (B5, B9-B11) and pip counts.

use std::fmt;

use ludus_rules::Seat;
use serde::{Deserialize, Serialize};

/// Checkers per side (B2).
pub const CHECKERS: u8 = 15;
/// The bar in a side's own numbering (B1): entering from the bar moves from "point 25".
pub const BAR: u8 = 25;
/// Bearing off moves a checker to "point 0".
pub const OFF: u8 = 0;

/// Where every checker of both sides stands.
///
/// `checkers[side][i]` counts `side`'s checkers on its own point `i + 1` for `i < 24`, and on
/// the bar for `i == 24` (B1: each side numbers the points from its own home board). Borne-off
/// checkers are whatever is missing from 15. This is gnubg's board layout, so the Position ID
/// (see [`crate::gnubg`]) is a direct bit packing of it.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct Board {
    checkers: [[u8; 25]; 2],
}

/// Why a set of checker counts is not a position.
#[derive(Clone, Eq, PartialEq, Debug)]
pub struct BoardError(pub String);

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "B2: {}", self.0)
    }
}

impl std::error::Error for BoardError {}

impl Board {
    /// The starting position (B2): 2 on the 24-point, 5 on the 13, 3 on the 8, 5 on the 6.
    pub const START: Board = {
        let mut side = [0u8; 25];
        side[23] = 2;
        side[12] = 5;
        side[7] = 3;
        side[5] = 5;
        Board {
            checkers: [side, side],
        }
    };

    /// A board from per-side counts (`[side][point - 1]`, index 24 = bar), checked: at most
    /// 15 checkers per side, and no point held by both sides.
    pub fn new(checkers: [[u8; 25]; 2]) -> Result<Board, BoardError> {
        for (side, counts) in checkers.iter().enumerate() {
            let total: u32 = counts.iter().map(|&c| u32::from(c)).sum();
            if total > u32::from(CHECKERS) {
                return Err(BoardError(format!(
                    "{} has {total} checkers in play, at most 15",
                    side_name(side)
                )));
            }
        }
        for p in 1..=24usize {
            if checkers[0][p - 1] > 0 && checkers[1][24 - p] > 0 {
                return Err(BoardError(format!(
                    "white's point {p} holds checkers of both sides"
                )));
            }
        }
        Ok(Board { checkers })
    }

    /// The raw counts, `[side][point - 1]` with index 24 the bar.
    pub fn counts(&self) -> [[u8; 25]; 2] {
        self.checkers
    }

    /// `side`'s checkers on its own `point` (1-24), or on the bar for 25; 0 for anything else
    /// (use [`Board::off`] for borne-off checkers).
    pub fn count(&self, side: Seat, point: u8) -> u8 {
        match point {
            1..=25 => self.checkers[side & 1][usize::from(point) - 1],
            _ => 0,
        }
    }

    /// `side`'s checkers on the bar.
    pub fn bar(&self, side: Seat) -> u8 {
        self.checkers[side & 1][24]
    }

    /// `side`'s borne-off checkers.
    pub fn off(&self, side: Seat) -> u8 {
        let in_play: u32 = self.checkers[side & 1].iter().map(|&c| u32::from(c)).sum();
        CHECKERS.saturating_sub(u8::try_from(in_play).unwrap_or(CHECKERS))
    }

    /// The opponent's checkers on `side`'s point `p` (1-24): their point `25 - p`.
    pub fn opponent_at(&self, side: Seat, p: u8) -> u8 {
        match p {
            1..=24 => self.checkers[(side & 1) ^ 1][24 - usize::from(p)],
            _ => 0,
        }
    }

    /// `side`'s pip count: the dice pips needed to bear everything off (bar = 25).
    pub fn pips(&self, side: Seat) -> u32 {
        self.checkers[side & 1]
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as u32 + 1) * u32::from(c))
            .sum()
    }

    /// The 24 points from white's (seat 0's) numbering: entry `i` is white's point `i + 1`,
    /// positive for white checkers, negative for black ones.
    pub fn fixed_points(&self) -> [i8; 24] {
        let mut out = [0i8; 24];
        for (i, slot) in out.iter_mut().enumerate() {
            let white = self.checkers[0][i] as i8;
            let black = self.checkers[1][23 - i] as i8;
            *slot = white - black;
        }
        out
    }

    /// Whether all of `side`'s checkers still in play are in its home board (B11).
    pub fn all_home(&self, side: Seat) -> bool {
        self.checkers[side & 1][6..].iter().all(|&c| c == 0)
    }

    /// Whether `side` has a checker on a point above `p` (B11 bearing off with a higher die).
    fn checker_above(&self, side: Seat, p: u8) -> bool {
        self.checkers[side & 1][usize::from(p)..]
            .iter()
            .any(|&c| c > 0)
    }

    /// Moves one checker of `side` from `from` (1-24, or 25 for the bar) by one die, checking
    /// B5, B10 and B11. Returns the new board and whether it hit a blot (B9).
    pub fn step(&self, side: Seat, from: u8, die: u8) -> Result<(Board, u8, bool), StepError> {
        let s = side & 1;
        if !(1..=6).contains(&die) {
            return Err(StepError::NoSuchDie);
        }
        if !(1..=BAR).contains(&from) || self.count(s, from) == 0 {
            return Err(StepError::NoChecker);
        }
        if from != BAR && self.bar(s) > 0 {
            return Err(StepError::BarFirst);
        }
        let mut next = *self;
        next.checkers[s][usize::from(from) - 1] -= 1;
        if from > die {
            let to = from - die;
            let opp = self.opponent_at(s, to);
            if opp >= 2 {
                return Err(StepError::Blocked(to));
            }
            next.checkers[s][usize::from(to) - 1] += 1;
            let hit = opp == 1;
            if hit {
                // B9: the hit blot goes to the opponent's bar.
                next.checkers[s ^ 1][24 - usize::from(to)] = 0;
                next.checkers[s ^ 1][24] += 1;
            }
            Ok((next, to, hit))
        } else {
            // B11: bearing off needs every checker home; a die larger than the point only
            // bears off from the highest occupied point.
            if !self.all_home(s) {
                return Err(StepError::NotAllHome);
            }
            if from < die && self.checker_above(s, from) {
                return Err(StepError::HigherPointOccupied);
            }
            Ok((next, OFF, false))
        }
    }

    /// Who has won (B13): the side with no checker left in play.
    pub fn winner(&self) -> Option<Seat> {
        (0..2).find(|&s| self.off(s) == CHECKERS)
    }

    /// How many times the stake `loser` loses once the other side has borne off everything
    /// (B16): 1 single, 2 gammon, 3 backgammon.
    pub fn result_multiplier(&self, loser: Seat) -> u8 {
        let l = loser & 1;
        if self.off(l) > 0 {
            return 1;
        }
        // The winner's home board is the loser's points 19-24; the bar is index 24.
        let behind = self.checkers[l][18..].iter().any(|&c| c > 0);
        if behind { 3 } else { 2 }
    }
}

impl Default for Board {
    fn default() -> Self {
        Board::START
    }
}

/// Why one checker cannot move by one die.
#[derive(Copy, Clone, Eq, PartialEq, Debug)]
pub enum StepError {
    /// The die is not 1-6.
    NoSuchDie,
    /// No checker of the mover on that point.
    NoChecker,
    /// B10: a checker on the bar must enter first.
    BarFirst,
    /// B5: the landing point is held by two or more opposing checkers.
    Blocked(u8),
    /// B11: bearing off before every checker is home.
    NotAllHome,
    /// B11: a higher die bears off only when no checker stands on a higher point.
    HigherPointOccupied,
}

/// `"white"` for seat 0, `"black"` for seat 1.
pub fn side_name(side: Seat) -> &'static str {
    if side & 1 == 0 { "white" } else { "black" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b2_start_position_has_fifteen_each_and_167_pips() {
        let b = Board::START;
        assert_eq!(b.off(0), 0);
        assert_eq!(b.pips(0), 167);
        assert_eq!(b.pips(1), 167);
        let fixed = b.fixed_points();
        assert_eq!(fixed[23], 2);
        assert_eq!(fixed[0], -2);
        assert_eq!(fixed[5], 5);
        assert_eq!(fixed[18], -5);
    }

    #[test]
    fn b5_cannot_land_on_a_made_point() {
        // White's 24 checker with a 5 would land on white's 19 = black's 6: five black checkers.
        assert_eq!(
            Board::START.step(0, 24, 5).unwrap_err(),
            StepError::Blocked(19)
        );
        assert!(Board::START.step(0, 24, 6).is_ok());
    }
}
