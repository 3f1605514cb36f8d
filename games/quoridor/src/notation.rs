//! The standard text notation: cells, walls, actions.
//!
//! - A cell is algebraic: a file letter `a`, `b`, … from the left edge and a rank number
//!   `1`, `2`, … from the BOTTOM edge (`a1` is the bottom-left corner, `e9` the middle of the
//!   top edge on 9×9). Rule Q1 counts rows from the top, so Q1's `(row, col)` is file `col`,
//!   rank `N - row`.
//! - A wall is the lower-left cell of the 2×2 block of cells around its center, then `h` or
//!   `v`. On 9×9, `e3h` lies along the top edges of `e3` and `f3` (between ranks 3 and 4) and
//!   `e3v` along the right edges of `e3` and `e4` (between files e and f). In Q2's terms the
//!   wall with center `(r, c)` is named by file `c`, rank `N - 1 - r`; walls run from `a1` to
//!   `h8` on 9×9.
//! - `pass` passes (Q19).
//!
//! Because cells count from the bottom-left corner the notation does not depend on the board
//! size; [`Cell::on_board`] and [`Wall::on_board`] check it against one.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Serde reads and writes `$t` as its notation text (`Display` and `FromStr`), the same text
/// every client-facing message uses.
macro_rules! serde_as_notation {
    ($t:ty) => {
        impl From<$t> for String {
            fn from(value: $t) -> String {
                value.to_string()
            }
        }

        impl TryFrom<String> for $t {
            type Error = NotationError;
            fn try_from(text: String) -> Result<$t, NotationError> {
                text.parse()
            }
        }
    };
}

/// A cell in algebraic coordinates: `file` 0 = `a` (left edge), `rank` 0 = `1` (bottom edge).
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Cell {
    /// Column from the left edge, 0-based (`a` = 0).
    pub file: u8,
    /// Row from the bottom edge, 0-based (`1` = 0).
    pub rank: u8,
}

impl Cell {
    /// The cell at `file` and `rank` (both 0-based, from the bottom-left corner).
    pub const fn new(file: u8, rank: u8) -> Cell {
        Cell { file, rank }
    }

    /// The cell at Q1's `(row, col)` on an `size`×`size` board (row 0 at the top).
    /// `None` when it is off the board.
    pub fn from_row_col(size: u8, row: u8, col: u8) -> Option<Cell> {
        (row < size && col < size).then(|| Cell::new(col, size - 1 - row))
    }

    /// Q1's row (0 at the top edge) on an `size`×`size` board.
    pub fn row(self, size: u8) -> u8 {
        size.saturating_sub(1).saturating_sub(self.rank)
    }

    /// Q1's column (0 at the left edge).
    pub fn col(self) -> u8 {
        self.file
    }

    /// Whether the cell is on an `size`×`size` board.
    pub fn on_board(self, size: u8) -> bool {
        self.file < size && self.rank < size
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            char::from(b'a' + self.file.min(25)),
            u32::from(self.rank) + 1
        )
    }
}

impl FromStr for Cell {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Cell, NotationError> {
        let bad = || NotationError { text: s.to_owned() };
        let t = s.trim().to_ascii_lowercase();
        let mut chars = t.chars();
        let file = chars
            .next()
            .filter(char::is_ascii_lowercase)
            .ok_or_else(bad)?;
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let rank: u8 = digits.parse().map_err(|_| bad())?;
        if rank == 0 {
            return Err(bad());
        }
        Ok(Cell::new(file as u8 - b'a', rank - 1))
    }
}

serde_as_notation!(Cell);

/// Which way a wall runs (Q2).
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug, Serialize, Deserialize)]
pub enum Orientation {
    /// Runs left-right, between two rows (`h`).
    Horizontal,
    /// Runs up-down, between two columns (`v`).
    Vertical,
}

impl Orientation {
    fn letter(self) -> char {
        match self {
            Orientation::Horizontal => 'h',
            Orientation::Vertical => 'v',
        }
    }
}

/// A wall slot (Q2): the lower-left cell of the 2×2 block around its center, and its
/// orientation. See the module docs for the exact geometry.
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Wall {
    /// The lower-left cell of the 2×2 block of cells around the wall's center.
    pub cell: Cell,
    /// Horizontal or vertical.
    pub orientation: Orientation,
}

impl Wall {
    /// The wall named by `cell` and `orientation`.
    pub const fn new(cell: Cell, orientation: Orientation) -> Wall {
        Wall { cell, orientation }
    }

    /// The wall with Q2 center `(r, c)` on an `size`×`size` board; `None` off the board.
    pub fn from_center(size: u8, r: u8, c: u8, orientation: Orientation) -> Option<Wall> {
        let inner = size.checked_sub(1)?;
        (r < inner && c < inner).then(|| Wall::new(Cell::new(c, size - 2 - r), orientation))
    }

    /// Q2's center `(r, c)` on an `size`×`size` board (meaningful when [`Wall::on_board`]).
    pub fn center(self, size: u8) -> (u8, u8) {
        (
            size.saturating_sub(2).saturating_sub(self.cell.rank),
            self.cell.file,
        )
    }

    /// Whether the slot exists on an `size`×`size` board: both coordinates at most `N - 2`.
    pub fn on_board(self, size: u8) -> bool {
        let inner = size.saturating_sub(1);
        self.cell.file < inner && self.cell.rank < inner
    }
}

impl fmt::Display for Wall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.cell, self.orientation.letter())
    }
}

impl FromStr for Wall {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Wall, NotationError> {
        let t = s.trim().to_ascii_lowercase();
        let orientation = match t.chars().last() {
            Some('h') => Orientation::Horizontal,
            Some('v') => Orientation::Vertical,
            _ => {
                return Err(NotationError { text: s.to_owned() });
            }
        };
        let cell: Cell = t[..t.len() - 1]
            .parse()
            .map_err(|_| NotationError { text: s.to_owned() })?;
        Ok(Wall::new(cell, orientation))
    }
}

serde_as_notation!(Wall);

/// One turn's action (Q11).
///
/// ```
/// use ludus_quoridor::{QuoridorAction, Cell, Orientation, Wall};
/// let a: QuoridorAction = "e3h".parse().unwrap();
/// assert_eq!(a, QuoridorAction::Wall(Wall::new(Cell::new(4, 2), Orientation::Horizontal)));
/// assert_eq!("E2".parse::<QuoridorAction>().unwrap().to_string(), "e2");
/// assert_eq!("pass".parse::<QuoridorAction>().unwrap(), QuoridorAction::Pass);
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum QuoridorAction {
    /// Move the pawn to this cell: a step (Q12), a straight jump or a diagonal move (Q13).
    Move(Cell),
    /// Place a wall (Q14).
    Wall(Wall),
    /// Pass (Q19).
    Pass,
}

impl fmt::Display for QuoridorAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuoridorAction::Move(c) => c.fmt(f),
            QuoridorAction::Wall(w) => w.fmt(f),
            QuoridorAction::Pass => f.write_str("pass"),
        }
    }
}

impl FromStr for QuoridorAction {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<QuoridorAction, NotationError> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("pass") {
            return Ok(QuoridorAction::Pass);
        }
        match t.chars().last() {
            Some('h' | 'v' | 'H' | 'V') => t.parse().map(QuoridorAction::Wall),
            _ => t.parse().map(QuoridorAction::Move),
        }
        .map_err(|_| NotationError { text: s.to_owned() })
    }
}

serde_as_notation!(QuoridorAction);

/// Text that is not a cell, wall or `pass` in the standard notation.
#[derive(Clone, Eq, PartialEq, Debug)]
pub struct NotationError {
    /// The text as given (cut to 32 characters in the message).
    pub text: String,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: String = self.text.chars().take(32).collect();
        write!(
            f,
            "Q1: {shown:?} is not a cell (e2), a wall (e3h, e3v) or pass"
        )
    }
}

impl std::error::Error for NotationError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q1_cells_count_ranks_from_the_bottom() {
        // Q1: (row 0, col 4) is the middle of the top edge: e9 on 9×9, e11 on 11×11.
        assert_eq!(Cell::from_row_col(9, 0, 4).unwrap().to_string(), "e9");
        assert_eq!(Cell::from_row_col(11, 0, 4).unwrap().to_string(), "e11");
        assert_eq!(Cell::from_row_col(9, 8, 0).unwrap().to_string(), "a1");
        assert_eq!("m13".parse::<Cell>().unwrap(), Cell::new(12, 12));
        assert_eq!(Cell::new(4, 0).row(9), 8);
        assert_eq!(Cell::from_row_col(9, 9, 0), None);
    }

    #[test]
    fn q2_walls_are_named_by_the_lower_left_cell() {
        // Q2 center (5, 4) on 9×9: the block e3 f3 e4 f4, lower-left e3.
        let w = Wall::from_center(9, 5, 4, Orientation::Horizontal).unwrap();
        assert_eq!(w.to_string(), "e3h");
        assert_eq!(w.center(9), (5, 4));
        assert_eq!(
            Wall::from_center(9, 0, 0, Orientation::Vertical)
                .unwrap()
                .to_string(),
            "a8v"
        );
        assert_eq!(
            Wall::from_center(9, 7, 7, Orientation::Vertical)
                .unwrap()
                .to_string(),
            "h1v"
        );
        assert!(!"i1h".parse::<Wall>().unwrap().on_board(9));
        assert!("h8h".parse::<Wall>().unwrap().on_board(9));
        assert!(!Wall::new(Cell::new(255, 255), Orientation::Vertical).on_board(13));
        assert!(!Cell::new(255, 0).on_board(13));
        assert_eq!(Cell::new(255, 255).to_string(), "z256");
    }

    #[test]
    fn bad_notation_is_an_error_not_a_panic() {
        for t in [
            "", "e", "e0", "9e", "e100", "pas", "eh", "é3", "e3x", "\u{0}", "a-1", "zz9h",
        ] {
            assert!(t.parse::<QuoridorAction>().is_err(), "{t:?}");
        }
        assert_eq!(
            " Pass ".parse::<QuoridorAction>().unwrap(),
            QuoridorAction::Pass
        );
        assert_eq!("E3V".parse::<QuoridorAction>().unwrap().to_string(), "e3v");
    }

    #[test]
    fn actions_serialize_as_notation() {
        let a: QuoridorAction = "c7v".parse().unwrap();
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, "\"c7v\"");
        assert_eq!(serde_json::from_str::<QuoridorAction>(&json).unwrap(), a);
    }
}
