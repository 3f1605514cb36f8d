//! What the host chooses before a game (Q22-Q27), and the colours of the sides (Q4).

use std::fmt;

use ludus_rules::Seat;
use serde::{Deserialize, Serialize};

/// How seats map to pawns (Q22-Q24).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum Mode {
    /// Q22: every seat has its own pawn, colour and walls (the default; two seats always
    /// play the classic game, Q5).
    #[default]
    FreeForAll,
    /// Q23: red against yellow; each team shares one pawn and one stock of walls and its
    /// members take the team's turns in rotation.
    Teams,
    /// Q24: one classic match of a knockout tournament (two seats). The winner gets the Q35
    /// points; the bracket itself is [`crate::Bracket`].
    TournamentMatch,
}

/// Where pawns race to (Q25).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum GoalKind {
    /// The opposite edge (classic).
    #[default]
    Opposite,
    /// The center cell (Q9, Q10).
    Center,
}

/// Walls per player, or per team in team mode (Q27).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum Walls {
    /// By board size and number of pawns (Q27's table).
    #[default]
    Auto,
    /// Exactly this many: 1, 3, 5, 7, 10, 15 or 20.
    Fixed(u8),
}

/// The wall counts a host may choose (Q27).
pub const WALL_CHOICES: [u8; 7] = [1, 3, 5, 7, 10, 15, 20];

/// The board sizes (Q1, Q26).
pub const SIZES: [u8; 3] = [9, 11, 13];

/// A team in team mode (Q23).
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug, Serialize, Deserialize)]
pub enum Team {
    /// The red team: side 0, starts at the bottom (Q5) or bottom-left corner (Q10).
    Red,
    /// The yellow team: side 1, starts at the top (Q5) or top-right corner (Q10).
    Yellow,
}

/// The host's choices. `QuoridorOptions::default()` is the classic 9×9 game with Auto walls.
///
/// ```
/// use ludus_quoridor::{GoalKind, Mode, QuoridorOptions, Team, Walls};
/// let teams = QuoridorOptions {
///     mode: Mode::Teams,
///     goal: GoalKind::Center,
///     size: 11,
///     walls: Walls::Fixed(15),
///     teams: vec![Team::Red, Team::Yellow, Team::Red, Team::Yellow],
///     ..QuoridorOptions::default()
/// };
/// assert_eq!(QuoridorOptions::default().size, 9);
/// # let _ = teams;
/// ```
#[derive(Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct QuoridorOptions {
    /// Free-for-all, teams or a tournament match.
    pub mode: Mode,
    /// Opposite edge or center.
    pub goal: GoalKind,
    /// 9, 11 or 13.
    pub size: u8,
    /// Auto or a fixed count.
    pub walls: Walls,
    /// Team mode: the team of every seat, in seat order (seats are numbered in join order,
    /// so a team's members rotate in seat order). Empty means alternating red, yellow, red…
    /// Ignored in the other modes.
    #[serde(default)]
    pub teams: Vec<Team>,
    /// If set, this seat moves first instead of a random draw (Q8). The tournament bracket
    /// uses it to replay a drawn match with the other player first (Q24).
    #[serde(default)]
    pub first_seat: Option<Seat>,
}

impl Default for QuoridorOptions {
    fn default() -> Self {
        QuoridorOptions {
            mode: Mode::FreeForAll,
            goal: GoalKind::Opposite,
            size: 9,
            walls: Walls::Auto,
            teams: Vec::new(),
            first_seat: None,
        }
    }
}

/// Q27: Auto walls for each pawn, given the board size and the number of pawns in a
/// free-for-all (two pawns also covers teams and tournament matches).
///
/// ```
/// assert_eq!(ludus_quoridor::auto_walls(9, 2), 10);
/// assert_eq!(ludus_quoridor::auto_walls(13, 3), 11);
/// assert_eq!(ludus_quoridor::auto_walls(11, 8), 4);
/// ```
pub fn auto_walls(size: u8, pawns: usize) -> u8 {
    // round-half-up(base × f) with f = 0.7 / 0.5 / 0.3, precomputed.
    let table: [u8; 4] = match size {
        11 => [12, 8, 6, 4],
        13 => [15, 11, 8, 5],
        _ => [10, 7, 5, 3],
    };
    match pawns {
        0..=2 => table[0],
        3 => table[1],
        4 => table[2],
        _ => table[3],
    }
}

/// Pawn colours in seat order (Q4); in team mode red and yellow.
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug, Serialize, Deserialize)]
pub enum Colour {
    Red,
    Yellow,
    Blue,
    Green,
    Purple,
    Orange,
    Cyan,
    Pink,
}

impl Colour {
    /// All colours in seat order.
    pub const ALL: [Colour; 8] = [
        Colour::Red,
        Colour::Yellow,
        Colour::Blue,
        Colour::Green,
        Colour::Purple,
        Colour::Orange,
        Colour::Cyan,
        Colour::Pink,
    ];

    /// The colour of side `i` (Q4).
    pub fn of_side(i: usize) -> Colour {
        Colour::ALL[i % 8]
    }

    /// Lowercase English name, as used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Red => "red",
            Colour::Yellow => "yellow",
            Colour::Blue => "blue",
            Colour::Green => "green",
            Colour::Purple => "purple",
            Colour::Orange => "orange",
            Colour::Cyan => "cyan",
            Colour::Pink => "pink",
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q27_auto_walls_table() {
        assert_eq!([2, 3, 4, 5, 8].map(|p| auto_walls(9, p)), [10, 7, 5, 3, 3]);
        assert_eq!([2, 3, 4, 5, 8].map(|p| auto_walls(11, p)), [12, 8, 6, 4, 4]);
        assert_eq!(
            [2, 3, 4, 5, 8].map(|p| auto_walls(13, p)),
            [15, 11, 8, 5, 5]
        );
    }
}
