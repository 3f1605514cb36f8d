//! The host's choices for a game: money play with optional rules, or one game of a match.

use ludus_rules::SetupError;
use serde::{Deserialize, Serialize};

use crate::matchplay::MATCH_LENGTHS;

/// Turn clock choices in seconds (B20); 0 means untimed. The clock lives in the common game
/// settings (`GameSettings.turn_time_ms`) and the services run it; see
/// [`validate_turn_seconds`].
pub const TURN_SECONDS: [u32; 5] = [0, 30, 60, 90, 120];
/// The default turn clock (B20).
pub const DEFAULT_TURN_SECONDS: u32 = 60;
/// The default limit on automatic doubles per game (B17).
pub const DEFAULT_AUTOMATIC_DOUBLE_LIMIT: u8 = 1;
/// The highest cube value is 2^15 = 32768 **[decided]**: B14 sets no limit, but gnubg's
/// Match ID (and every server) stops there, and it keeps stakes far inside `i64`.
pub const MAX_CUBE_LOG: u8 = 15;

/// This game as one game of a match (B22).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct MatchGame {
    /// Points needed to win the match: 1, 3, 5, 7, 11, 15 or 21.
    pub length: u32,
    /// Points of seat 0 and seat 1 before this game.
    pub score: [u32; 2],
    /// Whether this is the Crawford game: no doubling.
    pub crawford: bool,
}

/// Options a host chooses. The default is a money game with no optional rule. Construct with struct update syntax:
///
/// ```
/// use ludus_backgammon::BackgammonOptions;
/// let o = BackgammonOptions { beavers: true, jacoby: true, ..BackgammonOptions::default() };
/// assert!(o.validate().is_ok());
/// ```
#[derive(Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct BackgammonOptions {
    /// B17: equal opening rolls double the stake (cube stays in the middle).
    pub automatic_doubles: bool,
    /// B17: at most this many automatic doubles per game (1-15, default 1).
    pub automatic_double_limit: u8,
    /// B18: a doubled player may beaver.
    pub beavers: bool,
    /// B19: gammons and backgammons count single unless the cube was turned.
    pub jacoby: bool,
    /// B22: this game belongs to a match; the optional rules above must be off.
    pub match_game: Option<MatchGame>,
}

/// Checks a turn clock choice (B20): 30, 60, 90 or 120 seconds, or 0 for untimed.
pub fn validate_turn_seconds(seconds: u32) -> Result<(), SetupError> {
    if TURN_SECONDS.contains(&seconds) {
        Ok(())
    } else {
        Err(SetupError::new(
            "B20",
            format!("the turn clock is 30, 60, 90 or 120 seconds or untimed (0), not {seconds}"),
        ))
    }
}

impl Default for BackgammonOptions {
    fn default() -> Self {
        BackgammonOptions {
            automatic_doubles: false,
            automatic_double_limit: DEFAULT_AUTOMATIC_DOUBLE_LIMIT,
            beavers: false,
            jacoby: false,
            match_game: None,
        }
    }
}

impl BackgammonOptions {
    /// Checks the options; the error names the rule.
    pub fn validate(&self) -> Result<(), SetupError> {
        if self.automatic_doubles && !(1..=MAX_CUBE_LOG).contains(&self.automatic_double_limit) {
            return Err(SetupError::new(
                "B17",
                format!(
                    "the limit on automatic doubles is 1 to 15, not {}",
                    self.automatic_double_limit
                ),
            ));
        }
        if let Some(m) = &self.match_game {
            if !MATCH_LENGTHS.contains(&m.length) {
                return Err(SetupError::new(
                    "B22",
                    format!(
                        "a match is played to 1, 3, 5, 7, 11, 15 or 21 points, not {}",
                        m.length
                    ),
                ));
            }
            if m.score.iter().any(|&s| s >= m.length) {
                return Err(SetupError::new(
                    "B22",
                    "a match game needs both scores below the match length",
                ));
            }
            if m.crawford && !m.score.contains(&(m.length - 1)) {
                return Err(SetupError::new(
                    "B22",
                    "the crawford game needs a player at one point from the match",
                ));
            }
            if self.automatic_doubles || self.beavers || self.jacoby {
                return Err(SetupError::new(
                    "B22",
                    "automatic doubles, beavers and the jacoby rule do not apply in matches",
                ));
            }
        }
        Ok(())
    }

    /// Whether this is money play (no match).
    pub fn is_money(&self) -> bool {
        self.match_game.is_none()
    }
}
