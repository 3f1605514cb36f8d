//! Caro (Vietnamese gomoku, "five in a row"): the rules of `shared/rules/caro.md`, C1-C15.
//!
//! Pure rules: no I/O, no clock, no randomness of its own. The services own clocks (C12) and
//! decide when to call [`Game::timeout`]; the rules decide what a timeout means (C12, C15).
//!
//! # Layout
//! - [`Cell`]: a board cell and its C1 notation (`H8`: column letter from the left, row
//!   number from the top).
//! - [`CaroOptions`]: board size and the two optional rules of C5.
//! - [`Caro`]: a game in progress or finished; implements [`ludus_rules::Game`].
//! - [`line`]: the C4-C7 winning-line check, shared by the game and by bots.
//! - `bot` (private): the C17 computer players, Easy/Medium/Hard, as
//!   [`ludus_rules::Bot`] for [`Caro`].
//!
//! ```
//! use ludus_caro::{Caro, CaroOptions};
//! use ludus_rules::{Game, GameResult, ScriptedRandom};
//!
//! let mut rng = ScriptedRandom::new([]);
//! let mut game = Caro::setup(CaroOptions::default(), 2, &mut rng).unwrap();
//! for (seat, cell) in [(0, "D8"), (1, "D9"), (0, "E8"), (1, "E9"), (0, "F8"), (1, "F9"),
//!                      (0, "G8"), (1, "G9"), (0, "H8")] {
//!     let action = game.parse_action(cell).unwrap();
//!     game = game.apply(seat, &action, &mut rng).map_err(|(_, e)| e).unwrap();
//! }
//! assert_eq!(game.outcome().unwrap().result, GameResult::Win { winners: vec![0] });
//! assert_eq!(game.outcome().unwrap().rule, "C7");
//! ```
#![forbid(unsafe_code)]

mod bot;
pub mod line;

use std::fmt;

use ludus_rules::{Game, Outcome, RandomSource, RuleViolation, Seat, SetupError, Viewer};
use serde::{Deserialize, Serialize};

/// The board sides C1 allows.
pub const BOARD_SIZES: [u8; 2] = [15, 19];

/// A cell, 0-based: column 0 is `A`, row 0 is row `1`, the top edge (C1).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct Cell {
    pub col: u8,
    pub row: u8,
}

impl Cell {
    pub const fn new(col: u8, row: u8) -> Self {
        Cell { col, row }
    }

    /// Reads C1 notation (`H8`, `h8`, `S19`) for a board of `size`.
    pub fn parse(text: &str, size: u8) -> Result<Cell, CaroError> {
        let bad = || CaroError::Notation {
            text: text.chars().take(16).collect(),
            size,
        };
        let text = text.trim();
        let mut chars = text.chars();
        let letter = chars.next().ok_or_else(bad)?.to_ascii_uppercase();
        if !letter.is_ascii_uppercase() {
            return Err(bad());
        }
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let number: u8 = digits.parse().map_err(|_| bad())?;
        let col = letter as u8 - b'A';
        if col >= size || number == 0 || number > size {
            return Err(bad());
        }
        Ok(Cell::new(col, number - 1))
    }
}

/// C1 notation: column letter then row number from the top.
impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'A' + self.col) as char,
            u32::from(self.row) + 1
        )
    }
}

/// A player's stones (C2). Seat 0 plays X, seat 1 plays O.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum Stone {
    X,
    O,
}

impl Stone {
    /// The stone of a seat: seat 0 is X (C2).
    pub fn of_seat(seat: Seat) -> Stone {
        if seat == 0 { Stone::X } else { Stone::O }
    }

    pub fn seat(self) -> Seat {
        match self {
            Stone::X => 0,
            Stone::O => 1,
        }
    }

    pub fn other(self) -> Stone {
        match self {
            Stone::X => Stone::O,
            Stone::O => Stone::X,
        }
    }
}

impl fmt::Display for Stone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stone::X => "X",
            Stone::O => "O",
        })
    }
}

/// The choices made before a game (C1, C5).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct CaroOptions {
    /// 15 or 19 (C1).
    pub size: u8,
    /// C5 blocked-both-ends rule (default on).
    pub blocked_ends: bool,
    /// C5 exactly-five rule (default off).
    pub exactly_five: bool,
}

impl Default for CaroOptions {
    fn default() -> Self {
        CaroOptions {
            size: 15,
            blocked_ends: true,
            exactly_five: false,
        }
    }
}

impl CaroOptions {
    /// Checks the options: the board must be 15 or 19 (C1).
    pub fn validate(self) -> Result<Self, SetupError> {
        if BOARD_SIZES.contains(&self.size) {
            Ok(self)
        } else {
            Err(SetupError::new(
                "C1",
                format!("the board is 15x15 or 19x19, not {0}x{0}", self.size),
            ))
        }
    }

    /// The rating pool and queue name of these options, e.g. `caro/15/blocked-ends`
    /// (C16: only equal options are paired).
    pub fn ruleset(&self) -> String {
        let mut name = format!("caro/{}", self.size);
        match (self.blocked_ends, self.exactly_five) {
            (false, false) => name.push_str("/free"),
            (true, false) => name.push_str("/blocked-ends"),
            (false, true) => name.push_str("/exactly-five"),
            (true, true) => name.push_str("/blocked-ends/exactly-five"),
        }
        name
    }
}

/// One action: place a stone on an empty cell (C3).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct CaroAction {
    pub cell: Cell,
}

impl fmt::Display for CaroAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.cell.fmt(f)
    }
}

/// Why an action was refused. Messages start with the rule id and use C1 notation.
#[derive(Clone, Eq, PartialEq, Debug)]
pub enum CaroError {
    /// Not a cell of this board in C1 notation.
    Notation { text: String, size: u8 },
    /// The cell is off the board (C1).
    OffBoard { col: u8, row: u8, size: u8 },
    /// The cell already holds a stone (C3).
    Occupied { cell: Cell },
    /// It is the other player's turn (C2, C3).
    NotYourTurn { seat: Seat },
    /// The seat does not exist.
    NoSuchSeat { seat: Seat },
    /// The game is over (C7, C8).
    GameOver,
}

impl fmt::Display for CaroError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaroError::Notation { text, size } => {
                let last = (b'A' + size - 1) as char;
                write!(
                    f,
                    "C1: {text:?} is not a cell: name a column A-{last} then a row 1-{size}, like H8"
                )
            }
            CaroError::OffBoard { col, row, size } => write!(
                f,
                "C1: column {col}, row {row} is off the {size}x{size} board"
            ),
            CaroError::Occupied { cell } => write!(f, "C3: {cell} is already taken"),
            CaroError::NotYourTurn { seat } => {
                write!(f, "C3: it is not {}'s turn", Stone::of_seat(*seat))
            }
            CaroError::NoSuchSeat { seat } => write!(f, "C2: caro has seats 0 and 1, not {seat}"),
            CaroError::GameOver => f.write_str("C7: the game is over"),
        }
    }
}

impl std::error::Error for CaroError {}

impl RuleViolation for CaroError {
    fn rule(&self) -> &'static str {
        match self {
            CaroError::Notation { .. } | CaroError::OffBoard { .. } => "C1",
            CaroError::Occupied { .. } | CaroError::NotYourTurn { .. } => "C3",
            CaroError::NoSuchSeat { .. } => "C2",
            CaroError::GameOver => "C7",
        }
    }
}

/// What a viewer sees. Caro has no hidden information, so every viewer sees the same.
#[derive(Clone, Eq, PartialEq, Debug)]
pub struct CaroView {
    pub options: CaroOptions,
    /// Row-major, `size * size` cells, the top row first.
    pub cells: Vec<Option<Stone>>,
    /// Every stone in the order it was placed; X placed the first.
    pub moves: Vec<Cell>,
    /// The winning run (C7), from one end to the other, when there is one.
    pub winning_line: Vec<Cell>,
    /// The stone to move, if the game goes on.
    pub to_move: Option<Stone>,
}

/// A Caro game. Stored as its options, its moves and how it ended; the board is rebuilt
/// (and so re-validated) whenever a stored game is read.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "CaroRecord", into = "CaroRecord")]
pub struct Caro {
    options: CaroOptions,
    board: Vec<Option<Stone>>,
    moves: Vec<Cell>,
    winning_line: Vec<Cell>,
    outcome: Option<Outcome>,
}

/// The stored form of a [`Caro`].
#[derive(Clone, Debug, Serialize, Deserialize)]
struct CaroRecord {
    options: CaroOptions,
    moves: Vec<Cell>,
    outcome: Option<Outcome>,
}

impl From<Caro> for CaroRecord {
    fn from(game: Caro) -> Self {
        CaroRecord {
            options: game.options,
            moves: game.moves,
            outcome: game.outcome,
        }
    }
}

impl TryFrom<CaroRecord> for Caro {
    type Error = String;

    fn try_from(record: CaroRecord) -> Result<Self, String> {
        let options = record.options.validate().map_err(|e| e.to_string())?;
        let mut game = Caro::new(options);
        for (i, cell) in record.moves.iter().enumerate() {
            let stone = if i % 2 == 0 { Stone::X } else { Stone::O };
            game.place(stone, *cell).map_err(|e| e.to_string())?;
        }
        // How the game ended is taken from the record: timeouts, resignations and draws by
        // agreement are not visible in the moves.
        if record.outcome.is_some() {
            game.outcome = record.outcome;
        }
        Ok(game)
    }
}

impl Caro {
    fn new(options: CaroOptions) -> Self {
        let cells = usize::from(options.size) * usize::from(options.size);
        Caro {
            options,
            board: vec![None; cells],
            moves: Vec::new(),
            winning_line: Vec::new(),
            outcome: None,
        }
    }

    pub fn options(&self) -> CaroOptions {
        self.options
    }

    pub fn size(&self) -> u8 {
        self.options.size
    }

    /// The stone on a cell; `None` for an empty or off-board cell.
    pub fn stone(&self, cell: Cell) -> Option<Stone> {
        self.index(cell).and_then(|i| self.board[i])
    }

    /// The stones placed so far, in order.
    pub fn moves(&self) -> &[Cell] {
        &self.moves
    }

    /// The stone whose turn it is (X after an even number of moves, C2), if the game goes on.
    pub fn stone_to_move(&self) -> Option<Stone> {
        if self.outcome.is_some() {
            None
        } else if self.moves.len().is_multiple_of(2) {
            Some(Stone::X)
        } else {
            Some(Stone::O)
        }
    }

    fn index(&self, cell: Cell) -> Option<usize> {
        let size = self.options.size;
        (cell.col < size && cell.row < size)
            .then(|| usize::from(cell.row) * usize::from(size) + usize::from(cell.col))
    }

    /// Places `stone` on `cell` and settles C7/C8. The turn has been checked by the caller.
    fn place(&mut self, stone: Stone, cell: Cell) -> Result<(), CaroError> {
        let index = self.index(cell).ok_or(CaroError::OffBoard {
            col: cell.col,
            row: cell.row,
            size: self.options.size,
        })?;
        if self.outcome.is_some() {
            return Err(CaroError::GameOver);
        }
        if self.board[index].is_some() {
            return Err(CaroError::Occupied { cell });
        }
        self.board[index] = Some(stone);
        self.moves.push(cell);
        if let Some(run) = line::winning_run(self, cell, stone) {
            let (first, last) = (run[0], run[run.len() - 1]);
            self.winning_line = run;
            self.outcome = Some(Outcome::win(
                2,
                &[stone.seat()],
                "C7",
                format!("{stone} made a winning line from {first} to {last}"),
            ));
        } else if self.moves.len() == self.board.len() {
            self.outcome = Some(Outcome::draw(
                2,
                "C8",
                "the board is full with no winning line",
            ));
        }
        Ok(())
    }

    /// Whether both players have placed a stone: before that, a timeout cancels the game (C15).
    pub fn both_have_moved(&self) -> bool {
        self.moves.len() >= 2
    }

    /// `seat` leaves the game by its clock (C12) or its absence (C13): it loses by `loss_rule`
    /// once both players have moved, saying "<stone> `lost`"; before that the game is
    /// cancelled (C15), saying "<stone> `cancelled` before each player had moved once". After
    /// the end, or for a seat that is not at the table, nothing changes.
    fn lose_or_cancel(
        mut self,
        seat: Seat,
        loss_rule: &'static str,
        lost: &str,
        cancelled: &str,
    ) -> Self {
        if self.outcome.is_some() || seat > 1 {
            return self;
        }
        let stone = Stone::of_seat(seat);
        self.outcome = Some(if self.both_have_moved() {
            Outcome::win(
                2,
                &[stone.other().seat()],
                loss_rule,
                format!("{stone} {lost}"),
            )
        } else {
            Outcome::cancelled(
                "C15",
                format!("{stone} {cancelled} before each player had moved once"),
            )
        });
        self
    }
}

impl Game for Caro {
    type Options = CaroOptions;
    type Action = CaroAction;
    type View = CaroView;
    type Error = CaroError;

    fn setup(
        options: CaroOptions,
        seats: usize,
        _rng: &mut dyn RandomSource,
    ) -> Result<Self, SetupError> {
        // Who holds X is decided by the seating (C9, C10); in the game X moves first (C2).
        if seats != 2 {
            return Err(SetupError::new(
                "C2",
                format!("caro is for two players, not {seats}"),
            ));
        }
        Ok(Caro::new(options.validate()?))
    }

    fn parse_action(&self, text: &str) -> Result<CaroAction, CaroError> {
        Cell::parse(text, self.options.size).map(|cell| CaroAction { cell })
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<Seat> {
        self.stone_to_move().map(Stone::seat)
    }

    fn legal_actions(&self, seat: Seat) -> Vec<CaroAction> {
        if self.to_move() != Some(seat) {
            return Vec::new();
        }
        let size = self.options.size;
        (0..size)
            .flat_map(|row| (0..size).map(move |col| Cell::new(col, row)))
            .filter(|cell| self.stone(*cell).is_none())
            .map(|cell| CaroAction { cell })
            .collect()
    }

    fn apply(
        mut self,
        seat: Seat,
        action: &CaroAction,
        _rng: &mut dyn RandomSource,
    ) -> Result<Self, (Self, CaroError)> {
        if seat > 1 {
            return Err((self, CaroError::NoSuchSeat { seat }));
        }
        let Some(stone) = self.stone_to_move() else {
            return Err((self, CaroError::GameOver));
        };
        if stone.seat() != seat {
            return Err((self, CaroError::NotYourTurn { seat }));
        }
        match self.place(stone, action.cell) {
            Ok(()) => Ok(self),
            Err(error) => Err((self, error)),
        }
    }

    fn timeout(self, seat: Seat, _rng: &mut dyn RandomSource) -> Self {
        self.lose_or_cancel(seat, "C12", "ran out of time", "ran out of time")
    }

    fn resign(mut self, seat: Seat) -> Self {
        if self.outcome.is_some() || seat > 1 {
            return self;
        }
        let stone = Stone::of_seat(seat);
        self.outcome = Some(Outcome::win(
            2,
            &[stone.other().seat()],
            "C14",
            format!("{stone} resigned"),
        ));
        self
    }

    fn absence_rule(&self) -> Option<&'static str> {
        Some("C13")
    }

    /// C13: a player who does not come back within the minute loses; C15: before each player
    /// has moved once, the game is cancelled instead. **[decided]** C15's "disconnects" means
    /// a disconnection not come back from within C13's minute: a moment's network loss at the
    /// start of a game does not cancel it.
    fn abandon(self, seat: Seat) -> Self {
        self.lose_or_cancel(
            seat,
            "C13",
            "disconnected and did not come back in time",
            "disconnected",
        )
    }

    /// C13 in a friend room: the player who stayed called it a draw. C15 still comes first:
    /// before each player has moved once the game is cancelled, as when they take the win.
    fn abandon_as_draw(mut self, seat: Seat) -> Self {
        if self.outcome.is_some() || seat > 1 {
            return self;
        }
        if !self.both_have_moved() {
            return self.abandon(seat);
        }
        let stone = Stone::of_seat(seat);
        self.outcome = Some(Outcome::draw(
            2,
            "C13",
            format!(
                "{stone} disconnected and did not come back; {} called it a draw",
                stone.other()
            ),
        ));
        self
    }

    fn agree_draw(mut self) -> Result<Self, (Self, CaroError)> {
        if self.outcome.is_some() {
            return Err((self, CaroError::GameOver));
        }
        self.outcome = Some(Outcome::draw(2, "C8", "both players agreed to a draw"));
        Ok(self)
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn view(&self, _viewer: Viewer) -> CaroView {
        CaroView {
            options: self.options,
            cells: self.board.clone(),
            moves: self.moves.clone(),
            winning_line: self.winning_line.clone(),
            to_move: self.stone_to_move(),
        }
    }

    fn ply(&self) -> u32 {
        u32::try_from(self.moves.len()).unwrap_or(u32::MAX)
    }
}
