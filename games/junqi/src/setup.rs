//! Hand-built positions: an unvalidated description, turned into a game only by
//! [`Junqi::from_setup`](crate::Junqi::from_setup).

use ludus_rules::{Seat, SetupError};

use crate::board::{COLS, Point, ROWS};
use crate::game::Board;
use crate::piece::{Colour, Piece, Rank};

/// A position to build: pieces on points, whose turn, colours and counters. Nothing is
/// checked until [`Junqi::from_setup`](crate::Junqi::from_setup).
///
/// ```
/// use ludus_junqi::{Colour, Junqi, JunqiSetup, Rank};
/// let setup = JunqiSetup::from_diagram(
///     "..  ..  ..  ..  ..
///      ..  ..  Bf  ..  ..
///      ..  ..  ..  ..  ..
///      ..  ..  ..  ..  ..
///      ..  ..  ..  ..  ..
///      ..  ..  Bg  ..  ..
///      ..  ..  Rd  ..  ..
///      ..  ..  ..  ..  ..
///      ..  ..  ..  ..  ..
///      ..  ..  ..  ..  ..
///      ..  ..  Rf  ..  ..
///      ..  ..  ..  ..  ..",
/// )
/// .unwrap()
/// .settled(Colour::Red);
/// let game = Junqi::from_setup(&setup).unwrap();
/// // Road steps, railway slides along row 6, the diagonals into both camps and the attack on c7.
/// assert_eq!(game.destinations(0, "c6".parse().unwrap()).len(), 8);
/// ```
#[derive(Clone, Eq, PartialEq, Debug, Default)]
pub struct JunqiSetup {
    /// Pieces: where, which, and whether face up.
    pub pieces: Vec<(Point, Piece, bool)>,
    /// The seat to move (0 or 1).
    pub to_move: Seat,
    /// Seat 0's colour if colours are settled (J8); seat 1 has the other.
    pub seat0_colour: Option<Colour>,
    /// The colour each seat revealed with its latest flip (J8).
    pub last_flips: [Option<Colour>; 2],
    /// Consecutive quiet actions so far (J17), below the limit.
    pub quiet: u8,
}

impl JunqiSetup {
    /// An empty board, seat 0 to move, colours unsettled.
    pub fn new() -> JunqiSetup {
        JunqiSetup::default()
    }

    /// Reads a diagram of 12 rows (top row first) of 5 whitespace-separated tokens each:
    /// `..` for an empty point, else a colour letter (`R`/`B` face up, `r`/`b` face down) and
    /// a rank letter: `c` commander, `k` corps commander, `d` division, `g` brigade,
    /// `r` regiment, `t` battalion, `y` company, `p` platoon, `e` engineer, `m` mine,
    /// `b` bomb, `f` flag.
    pub fn from_diagram(diagram: &str) -> Result<JunqiSetup, SetupError> {
        let rows: Vec<&str> = diagram.lines().filter(|l| !l.trim().is_empty()).collect();
        if rows.len() != ROWS as usize {
            return Err(SetupError::new("J2", "a diagram has 12 rows"));
        }
        let mut setup = JunqiSetup::new();
        for (r, line) in rows.iter().enumerate() {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            if tokens.len() != COLS as usize {
                return Err(SetupError::new(
                    "J2",
                    format!("diagram row {r} needs 5 points"),
                ));
            }
            for (c, token) in tokens.iter().enumerate() {
                let cell = Board::decode_cell(token)
                    .ok_or_else(|| SetupError::new("J1", format!("unknown piece {token:?}")))?;
                if let (Some(cell), Some(p)) = (cell, Point::new(r as u8, c as u8)) {
                    setup.pieces.push((p, cell.piece, cell.face_up));
                }
            }
        }
        Ok(setup)
    }

    /// Adds a piece.
    pub fn with(mut self, point: Point, colour: Colour, rank: Rank, face_up: bool) -> Self {
        self.pieces.push((point, Piece::new(colour, rank), face_up));
        self
    }

    /// Settles colours: seat 0 plays `seat0`.
    pub fn settled(mut self, seat0: Colour) -> Self {
        self.seat0_colour = Some(seat0);
        self
    }

    /// Sets the seat to move.
    pub fn to_move(mut self, seat: Seat) -> Self {
        self.to_move = seat;
        self
    }

    /// Sets the J17 counter.
    pub fn quiet(mut self, quiet: u8) -> Self {
        self.quiet = quiet;
        self
    }

    /// Sets the colours of the seats' latest flips (J8).
    pub fn last_flips(mut self, flips: [Option<Colour>; 2]) -> Self {
        self.last_flips = flips;
        self
    }
}
