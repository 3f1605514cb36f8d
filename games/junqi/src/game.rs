//! The game state and its rules: setup (J6), turns and colours (J7, J8), movement (J9, J10),
//! combat (J11-J15), the end (J16-J18), timeouts and autoplay (J19), and the view (J21, J22).

use std::fmt;

use ludus_rules::{Budget, Game, Level, Outcome, RandomSource, Seat, SetupError, Viewer};
use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::board::{DIRECTIONS, POINTS, Point, RAIL, ROAD, points_of};
use crate::error::JunqiError;
use crate::piece::{Colour, CombatError, CombatResult, Piece, Rank, combat};
use crate::setup::JunqiSetup;
use crate::view::{Event, JunqiView, LastAction, PieceStats, PointView};

/// J17: the game is drawn after this many consecutive actions with no flip and no combat.
pub const DRAW_LIMIT: u8 = 60;

/// Options a host chooses. Flip Junqi has none today (the J17 limit is fixed at
/// [`DRAW_LIMIT`]); the type exists so options can be added without breaking anything.
#[derive(Clone, Copy, Eq, PartialEq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct JunqiOptions {}

/// A piece on a point, face up or face down.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct Cell {
    /// The piece.
    pub piece: Piece,
    /// Whether it has been flipped (J7).
    pub face_up: bool,
}

/// The 60 points. Serialized as one compact string of two characters per point (`..` empty;
/// then `R`/`B` for a face-up red/blue piece or `r`/`b` for a face-down one, and a rank
/// letter), which keeps the Redis JSON small.
#[derive(Copy, Clone, Eq, PartialEq, Hash)]
pub(crate) struct Board(pub(crate) [Option<Cell>; POINTS]);

impl Board {
    pub(crate) fn encode_cell(cell: Option<Cell>) -> [char; 2] {
        match cell {
            None => ['.', '.'],
            Some(Cell { piece, face_up }) => {
                let c = match (piece.colour, face_up) {
                    (Colour::Red, true) => 'R',
                    (Colour::Blue, true) => 'B',
                    (Colour::Red, false) => 'r',
                    (Colour::Blue, false) => 'b',
                };
                [c, piece.rank.code()]
            }
        }
    }

    pub(crate) fn decode_cell(token: &str) -> Option<Option<Cell>> {
        let mut chars = token.chars();
        let (c, r) = (chars.next()?, chars.next()?);
        if chars.next().is_some() {
            return None;
        }
        if c == '.' && r == '.' {
            return Some(None);
        }
        let (colour, face_up) = match c {
            'R' => (Colour::Red, true),
            'B' => (Colour::Blue, true),
            'r' => (Colour::Red, false),
            'b' => (Colour::Blue, false),
            _ => return None,
        };
        let rank = Rank::from_code(r)?;
        Some(Some(Cell {
            piece: Piece::new(colour, rank),
            face_up,
        }))
    }
}

impl From<Board> for String {
    fn from(b: Board) -> String {
        b.0.iter().flat_map(|&c| Board::encode_cell(c)).collect()
    }
}

impl TryFrom<String> for Board {
    type Error = String;
    fn try_from(s: String) -> Result<Board, String> {
        let chars: Vec<char> = s.chars().collect();
        if chars.len() != POINTS * 2 {
            return Err(format!(
                "a board has {} characters, not {}",
                POINTS * 2,
                chars.len()
            ));
        }
        let mut cells = [None; POINTS];
        for (i, pair) in chars.chunks(2).enumerate() {
            let token: String = pair.iter().collect();
            cells[i] =
                Board::decode_cell(&token).ok_or_else(|| format!("bad board cell {token:?}"))?;
        }
        Ok(Board(cells))
    }
}

/// A game of Flip Junqi: the full position including the hidden layout, so it is for the
/// server only. Clients get a [`JunqiView`]. `Debug` prints only public information (J22),
/// so a stray log line cannot leak the layout.
#[derive(Clone, Eq, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Stored", into = "Stored")]
pub struct Junqi {
    pub(crate) board: Board,
    pub(crate) to_move: Seat,
    /// Seat 0's colour once settled (J8); seat 1 has the other.
    pub(crate) seat0_colour: Option<Colour>,
    pub(crate) last_flips: [Option<Colour>; 2],
    pub(crate) removed: [[u8; 12]; 2],
    pub(crate) quiet: u8,
    pub(crate) autoplay: [bool; 2],
    pub(crate) ply: u32,
    pub(crate) last: Option<LastAction>,
    pub(crate) outcome: Option<Outcome>,
}

/// The stored form: the same fields, validated on the way back in so a corrupt record cannot
/// make the rules index out of bounds.
#[derive(Serialize, Deserialize)]
struct Stored {
    board: String,
    to_move: Seat,
    colour: Option<Colour>,
    last_flips: [Option<Colour>; 2],
    removed: [[u8; 12]; 2],
    quiet: u8,
    autoplay: [bool; 2],
    ply: u32,
    last: Option<LastAction>,
    outcome: Option<Outcome>,
}

impl From<Junqi> for Stored {
    fn from(g: Junqi) -> Stored {
        Stored {
            board: g.board.into(),
            to_move: g.to_move,
            colour: g.seat0_colour,
            last_flips: g.last_flips,
            removed: g.removed,
            quiet: g.quiet,
            autoplay: g.autoplay,
            ply: g.ply,
            last: g.last,
            outcome: g.outcome,
        }
    }
}

impl TryFrom<Stored> for Junqi {
    type Error = String;
    fn try_from(s: Stored) -> Result<Junqi, String> {
        if s.to_move > 1 {
            return Err(format!("seat {} is not a junqi seat", s.to_move));
        }
        if let Some(last) = &s.last
            && last.seat > 1
        {
            return Err(format!("seat {} is not a junqi seat", last.seat));
        }
        Ok(Junqi {
            board: Board::try_from(s.board)?,
            to_move: s.to_move,
            seat0_colour: s.colour,
            last_flips: s.last_flips,
            removed: s.removed,
            quiet: s.quiet,
            autoplay: s.autoplay,
            ply: s.ply,
            last: s.last,
            outcome: s.outcome,
        })
    }
}

impl fmt::Debug for Junqi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Junqi {{ ply: {}, to_move: {}, seat0: {:?}, quiet: {}, outcome: {:?}",
            self.ply,
            self.to_move,
            self.seat0_colour,
            self.quiet,
            self.outcome.as_ref().map(|o| &o.reason)
        )?;
        f.write_str(&self.public_diagram())?;
        f.write_str("}")
    }
}

/// What a validated action will do.
enum Plan {
    Flip(Point, Piece),
    Move {
        from: Point,
        to: Point,
        mover: Piece,
        defender: Option<(Piece, CombatResult)>,
    },
}

impl Junqi {
    /// Builds a position from a description (for tests, puzzles and replays). Fails with the
    /// rule a description breaks: more pieces of a rank than J1 allows, a face-down piece on
    /// a camp (J6), a J17 counter at or past the limit, a bad seat. Pieces of J1 not on the
    /// board count as removed. If the position is already over (J8 settlement, J16), the
    /// outcome is set at once.
    pub fn from_setup(setup: &JunqiSetup) -> Result<Junqi, SetupError> {
        if setup.to_move > 1 {
            return Err(SetupError::new(
                "J7",
                "the player to move is seat 0 or seat 1",
            ));
        }
        if setup.quiet >= DRAW_LIMIT {
            return Err(SetupError::new(
                "J17",
                format!("the quiet-action counter must be below {DRAW_LIMIT}"),
            ));
        }
        let mut cells = [None; POINTS];
        let mut on_board = [[0u8; 12]; 2];
        for &(point, piece, face_up) in &setup.pieces {
            if cells[point.index()].is_some() {
                return Err(SetupError::new("J2", format!("{point} holds two pieces")));
            }
            if !face_up && point.is_camp() {
                return Err(SetupError::new(
                    "J6",
                    format!("{point} is a camp: face-down pieces never stand on camps"),
                ));
            }
            let n = &mut on_board[piece.colour.index()][piece.rank.index()];
            *n += 1;
            if *n > piece.rank.count() {
                return Err(SetupError::new(
                    "J1",
                    format!(
                        "{} has only {} {}",
                        piece.colour,
                        piece.rank.count(),
                        piece.rank
                    ),
                ));
            }
            cells[point.index()] = Some(Cell { piece, face_up });
        }
        let mut removed = [[0u8; 12]; 2];
        for c in Colour::ALL {
            for r in Rank::ALL {
                removed[c.index()][r.index()] = r.count() - on_board[c.index()][r.index()];
            }
        }
        let mut game = Junqi {
            board: Board(cells),
            to_move: setup.to_move,
            seat0_colour: setup.seat0_colour,
            last_flips: setup.last_flips,
            removed,
            quiet: setup.quiet,
            autoplay: [false; 2],
            ply: 0,
            last: None,
            outcome: None,
        };
        if game.seat0_colour.is_none()
            && game.face_down_count() == 0
            && game.last_flips.iter().all(Option::is_none)
        {
            return Err(SetupError::new(
                "J8",
                "with every piece face up, colours need a settled colour or a last flip",
            ));
        }
        game.after_action();
        Ok(game)
    }

    /// The colour `seat` plays, once settled (J8).
    pub fn colour_of(&self, seat: Seat) -> Option<Colour> {
        let c = self.seat0_colour?;
        match seat {
            0 => Some(c),
            1 => Some(c.other()),
            _ => None,
        }
    }

    /// The seat playing `colour`, once settled (J8).
    pub fn seat_of(&self, colour: Colour) -> Option<Seat> {
        (0..2).find(|&s| self.colour_of(s) == Some(colour))
    }

    /// What stands on `point` (face-down pieces included: server side only).
    pub fn cell(&self, point: Point) -> Option<Cell> {
        self.board.0[point.index()]
    }

    /// Whether the server plays for `seat` (J19): on after a timeout, off once the seat acts.
    pub fn autoplay(&self, seat: Seat) -> bool {
        self.autoplay.get(seat).copied().unwrap_or(false)
    }

    /// Switches autoplay for `seat` on or off (J19: the player may switch it off).
    pub fn with_autoplay(mut self, seat: Seat, on: bool) -> Junqi {
        if let Some(a) = self.autoplay.get_mut(seat) {
            *a = on;
        }
        self
    }

    /// Consecutive actions with no flip and no combat so far (J17).
    pub fn quiet_actions(&self) -> u8 {
        self.quiet
    }

    /// Pieces of each colour removed so far, by rank (J21).
    pub fn removed(&self, colour: Colour, rank: Rank) -> u8 {
        self.removed[colour.index()][rank.index()]
    }

    /// How many pieces are on the board, face up or down.
    pub fn piece_count(&self) -> usize {
        self.board.0.iter().flatten().count()
    }

    /// How many pieces are still face down.
    pub fn face_down_count(&self) -> usize {
        self.board.0.iter().flatten().filter(|c| !c.face_up).count()
    }

    /// The legal destinations of the piece on `from` for `seat` (J9-J15), so a client can
    /// highlight them. Empty unless `from` holds one of the seat's face-up movable pieces
    /// after colours are settled; it does not check whose turn it is, so a waiting player
    /// can plan ahead.
    pub fn destinations(&self, seat: Seat, from: Point) -> Vec<Point> {
        points_of(self.destination_mask(seat, from)).collect()
    }

    pub(crate) fn destination_mask(&self, seat: Seat, from: Point) -> u64 {
        let Some(colour) = self.colour_of(seat) else {
            return 0;
        };
        if self.outcome.is_some() {
            return 0;
        }
        match self.cell(from) {
            Some(Cell {
                piece,
                face_up: true,
            }) if piece.colour == colour && piece.rank.is_movable() => {
                let occ = self.occupied();
                let mut out = 0;
                for to in points_of(self.reach(from, piece.rank, occ)) {
                    if self.attack(piece, to).is_ok() {
                        out |= to.bit();
                    }
                }
                out
            }
            _ => 0,
        }
    }

    /// The player for timeouts and autoplay (J19): the Normal bot (J20) on the seat's own
    /// view, with the fixed [`AUTOPLAY_WORK`](crate::bot::AUTOPLAY_WORK) budget so the
    /// server's choice is reproducible from `rng`. `None` when the game is over. Pure: it only
    /// reads the game, and like every bot it sees nothing face down (J22).
    pub fn choose_auto_action(&self, rng: &mut dyn RandomSource) -> Option<Action> {
        if self.outcome.is_some() {
            return None;
        }
        crate::bot::decide(
            &self.view(Viewer::Seat(self.to_move)),
            Level::Normal,
            &Budget::work(crate::bot::AUTOPLAY_WORK),
            rng,
        )
    }

    /// Plays one automatic action for the player to move if autoplay is on for them (J19),
    /// keeping autoplay on. Otherwise the game comes back unchanged.
    pub fn autoplay_turn(mut self, rng: &mut dyn RandomSource) -> Junqi {
        if self.outcome.is_none()
            && self.autoplay[self.to_move]
            && let Some(action) = self.choose_auto_action(rng)
            && let Ok(plan) = self.plan(self.to_move, action)
        {
            self.commit(self.to_move, action, plan, true);
        }
        self
    }

    /// The public board as 12 lines of tokens (`??` face down), for `Debug`.
    fn public_diagram(&self) -> String {
        let mut s = String::new();
        for row in 0..12u8 {
            for col in 0..5u8 {
                let cell = Point::new(row, col).and_then(|p| self.cell(p));
                let token: String = match cell {
                    Some(c) if !c.face_up => "??".into(),
                    c => Board::encode_cell(c).iter().collect(),
                };
                s.push_str(&token);
                s.push(' ');
            }
            s.push('\n');
        }
        s
    }

    pub(crate) fn occupied(&self) -> u64 {
        self.board
            .0
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_some())
            .fold(0, |m, (i, _)| m | (1u64 << i))
    }

    /// Points a piece of `rank` on `from` could end on if occupancy alone mattered (J9):
    /// road steps, straight railway slides up to the first occupied station, and for an
    /// Engineer any railway path through empty stations.
    pub(crate) fn reach(&self, from: Point, rank: Rank, occ: u64) -> u64 {
        let mut m = ROAD[from.index()];
        if !from.is_station() {
            return m;
        }
        if rank == Rank::Engineer {
            let mut seen = from.bit();
            let mut frontier = from.bit();
            while frontier != 0 {
                let mut next = 0;
                for q in points_of(frontier) {
                    next |= RAIL[q.index()];
                }
                next &= !seen;
                seen |= next;
                m |= next;
                // Only empty stations carry the path on.
                frontier = next & !occ;
            }
        } else {
            for (dr, dc) in DIRECTIONS {
                let mut p = from;
                // Straight lines only: the corner curves (J9 [decided]) are turns.
                while let Some(next) = p.step(dr, dc) {
                    if RAIL[p.index()] & next.bit() == 0 {
                        break;
                    }
                    m |= next.bit();
                    if occ & next.bit() != 0 {
                        break;
                    }
                    p = next;
                }
            }
        }
        m
    }

    /// J15: `colour`'s Flag may be attacked once its three Mines are gone and nothing is face
    /// down.
    pub fn flag_open(&self, colour: Colour) -> bool {
        self.removed(colour, Rank::Mine) == Rank::Mine.count() && self.face_down_count() == 0
    }

    /// What moving `mover` onto `to` does, given `to` is reachable (J11-J15).
    fn attack(&self, mover: Piece, to: Point) -> Result<Option<(Piece, CombatResult)>, JunqiError> {
        let Some(cell) = self.cell(to) else {
            return Ok(None);
        };
        // J11, and J22: a face-down target is refused before anything about it is looked at.
        if !cell.face_up {
            return Err(JunqiError::AttackFaceDown { point: to });
        }
        if cell.piece.colour == mover.colour {
            return Err(JunqiError::AttackOwn { point: to });
        }
        if to.is_camp() {
            return Err(JunqiError::AttackCamp { point: to });
        }
        let defender = cell.piece;
        match combat(mover.rank, defender.rank, self.flag_open(defender.colour)) {
            Ok(result) => Ok(Some((defender, result))),
            Err(CombatError::LowerRank) => Err(JunqiError::LowerRank {
                attacker: mover.rank,
                defender: defender.rank,
            }),
            Err(CombatError::MineNeedsEngineer) => Err(JunqiError::MineNeedsEngineer {
                attacker: mover.rank,
            }),
            Err(CombatError::FlagProtected) => Err(JunqiError::FlagProtected {
                colour: defender.colour,
            }),
            Err(CombatError::Immovable) => Err(JunqiError::Immovable {
                point: to,
                rank: mover.rank,
            }),
        }
    }

    /// Checks `action` for `seat` without changing anything.
    fn plan(&self, seat: Seat, action: Action) -> Result<Plan, JunqiError> {
        if self.outcome.is_some() {
            return Err(JunqiError::GameOver);
        }
        if seat != self.to_move {
            return Err(JunqiError::NotYourTurn);
        }
        match action {
            Action::Flip(p) => match self.cell(p) {
                None => Err(JunqiError::FlipEmpty { point: p }),
                Some(c) if c.face_up => Err(JunqiError::AlreadyFaceUp { point: p }),
                Some(c) => Ok(Plan::Flip(p, c.piece)),
            },
            Action::Move { from, to } => {
                let colour = self.colour_of(seat).ok_or(JunqiError::ColoursUnsettled)?;
                let cell = self
                    .cell(from)
                    .ok_or(JunqiError::NothingToMove { point: from })?;
                if !cell.face_up {
                    return Err(JunqiError::MoveFaceDown { point: from });
                }
                let mover = cell.piece;
                if mover.colour != colour {
                    return Err(JunqiError::NotYourPiece { point: from });
                }
                if !mover.rank.is_movable() {
                    return Err(JunqiError::Immovable {
                        point: from,
                        rank: mover.rank,
                    });
                }
                if self.reach(from, mover.rank, self.occupied()) & to.bit() == 0 {
                    return Err(JunqiError::Unreachable { from, to });
                }
                let defender = self.attack(mover, to)?;
                Ok(Plan::Move {
                    from,
                    to,
                    mover,
                    defender,
                })
            }
        }
    }

    /// Carries out a checked plan for `seat`, then settles colours and the end (J8, J16, J17).
    fn commit(&mut self, seat: Seat, action: Action, plan: Plan, automatic: bool) {
        let event = match plan {
            Plan::Flip(p, piece) => {
                self.board.0[p.index()] = Some(Cell {
                    piece,
                    face_up: true,
                });
                // J8: two consecutive flips of the same colour by the same player settle it.
                if self.seat0_colour.is_none() && self.last_flips[seat] == Some(piece.colour) {
                    self.settle(seat, piece.colour);
                }
                self.last_flips[seat] = Some(piece.colour);
                self.quiet = 0;
                Event::Flipped(piece)
            }
            Plan::Move {
                from,
                to,
                mover,
                defender,
            } => {
                let moving = self.board.0[from.index()].take();
                match defender {
                    None => {
                        self.board.0[to.index()] = moving;
                        self.quiet = self.quiet.saturating_add(1);
                        Event::Moved(mover)
                    }
                    Some((defender, result)) => {
                        let d = &mut self.removed[defender.colour.index()][defender.rank.index()];
                        *d = d.saturating_add(1);
                        self.board.0[to.index()] = match result {
                            CombatResult::AttackerWins => moving,
                            CombatResult::BothRemoved => {
                                let m = &mut self.removed[mover.colour.index()][mover.rank.index()];
                                *m = m.saturating_add(1);
                                None
                            }
                        };
                        self.quiet = 0;
                        if defender.rank == Rank::Flag {
                            self.outcome = Some(Outcome::win(
                                2,
                                &[seat],
                                "J15",
                                format!(
                                    "{} captured the {} flag on {to}",
                                    mover.colour, defender.colour
                                ),
                            ));
                        }
                        Event::Combat {
                            attacker: mover,
                            defender,
                            result,
                        }
                    }
                }
            }
        };
        self.last = Some(LastAction {
            seat,
            action,
            event,
            automatic,
        });
        self.ply = self.ply.saturating_add(1);
        self.to_move = 1 - seat;
        self.after_action();
    }

    fn settle(&mut self, seat: Seat, colour: Colour) {
        self.seat0_colour = Some(if seat == 0 { colour } else { colour.other() });
    }

    /// J8's all-face-up case, then the end conditions J16 and J17.
    fn after_action(&mut self) {
        if self.seat0_colour.is_none() && self.face_down_count() == 0 {
            // [decided] J8: the player to move takes the colour of their last flip. A
            // hand-built position where they never flipped falls back to the other seat's.
            let me = self.to_move;
            if let Some(c) = self.last_flips[me] {
                self.settle(me, c);
            } else if let Some(c) = self.last_flips[1 - me] {
                self.settle(1 - me, c);
            }
        }
        if self.outcome.is_some() {
            return;
        }
        if self.seat0_colour.is_some() {
            let has = |seat: Seat| {
                let colour = self.colour_of(seat);
                self.board
                    .0
                    .iter()
                    .flatten()
                    .any(|c| Some(c.piece.colour) == colour && c.piece.rank.is_movable())
            };
            match (has(0), has(1)) {
                (false, false) => {
                    self.outcome = Some(Outcome::draw(
                        2,
                        "J16",
                        "neither side has a movable piece left",
                    ));
                }
                (true, false) | (false, true) => {
                    let winner = if has(0) { 0 } else { 1 };
                    let loser = self.name(1 - winner);
                    self.outcome = Some(Outcome::win(
                        2,
                        &[winner],
                        "J16",
                        format!("{loser} has no movable piece left"),
                    ));
                }
                (true, true) => {}
            }
            if self.outcome.is_some() {
                return;
            }
        }
        if !self.has_legal_action(self.to_move) {
            let loser = self.name(self.to_move);
            self.outcome = Some(Outcome::win(
                2,
                &[1 - self.to_move],
                "J16",
                format!("{loser} has no legal action"),
            ));
            return;
        }
        if self.quiet >= DRAW_LIMIT {
            self.outcome = Some(Outcome::draw(
                2,
                "J17",
                format!("{DRAW_LIMIT} actions in a row without a flip or combat"),
            ));
        }
    }

    /// A seat's name in outcome texts: its colour once settled.
    fn name(&self, seat: Seat) -> String {
        match self.colour_of(seat) {
            Some(c) => c.to_string(),
            None => format!("the player in seat {seat}"),
        }
    }

    fn has_legal_action(&self, seat: Seat) -> bool {
        if self.face_down_count() > 0 {
            return true;
        }
        Point::all().any(|p| self.destination_mask(seat, p) != 0)
    }
}

impl Game for Junqi {
    type Options = JunqiOptions;
    type Action = Action;
    type View = JunqiView;
    type Error = JunqiError;

    /// J6: the 50 pieces are shuffled (Fisher-Yates, drawing from `rng`) onto the 50
    /// non-camp points face down; who moves first is drawn from `rng` too.
    fn setup(
        _options: JunqiOptions,
        seats: usize,
        rng: &mut dyn RandomSource,
    ) -> Result<Junqi, SetupError> {
        if seats != 2 {
            return Err(SetupError::new(
                "J1",
                "junqi is played by exactly two players",
            ));
        }
        let mut pieces: Vec<Piece> = Colour::ALL
            .into_iter()
            .flat_map(|c| {
                Rank::ALL
                    .into_iter()
                    .flat_map(move |r| std::iter::repeat_n(Piece::new(c, r), r.count() as usize))
            })
            .collect();
        for i in (1..pieces.len()).rev() {
            // `% (i + 1)` guards against a source that ignores its bound.
            let j = rng.below(i as u32 + 1) as usize % (i + 1);
            pieces.swap(i, j);
        }
        let mut cells = [None; POINTS];
        for (p, piece) in Point::all().filter(|p| !p.is_camp()).zip(pieces) {
            cells[p.index()] = Some(Cell {
                piece,
                face_up: false,
            });
        }
        let to_move = (rng.below(2) % 2) as Seat;
        Ok(Junqi {
            board: Board(cells),
            to_move,
            seat0_colour: None,
            last_flips: [None; 2],
            removed: [[0; 12]; 2],
            quiet: 0,
            autoplay: [false; 2],
            ply: 0,
            last: None,
            outcome: None,
        })
    }

    fn parse_action(&self, text: &str) -> Result<Action, JunqiError> {
        text.parse()
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<Seat> {
        self.outcome.is_none().then_some(self.to_move)
    }

    /// Flips of every face-down point in point order, then moves by origin and destination.
    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if self.outcome.is_some() || seat != self.to_move {
            return Vec::new();
        }
        let mut out: Vec<Action> = Point::all()
            .filter(|&p| matches!(self.cell(p), Some(c) if !c.face_up))
            .map(Action::Flip)
            .collect();
        for from in Point::all() {
            for to in points_of(self.destination_mask(seat, from)) {
                out.push(Action::Move { from, to });
            }
        }
        out
    }

    fn apply(
        mut self,
        seat: Seat,
        action: &Action,
        _rng: &mut dyn RandomSource,
    ) -> Result<Junqi, (Junqi, JunqiError)> {
        match self.plan(seat, *action) {
            Ok(plan) => {
                // J19: acting yourself ends autoplay for your seat.
                self.autoplay[seat] = false;
                self.commit(seat, *action, plan, false);
                Ok(self)
            }
            Err(e) => Err((self, e)),
        }
    }

    /// J19: plays one automatic action for `seat` and turns autoplay on for it. Ignored when
    /// it is not `seat`'s turn or the game is over.
    fn timeout(mut self, seat: Seat, rng: &mut dyn RandomSource) -> Junqi {
        if self.outcome.is_some() || seat != self.to_move {
            return self;
        }
        self.autoplay[seat] = true;
        if let Some(action) = self.choose_auto_action(rng)
            && let Ok(plan) = self.plan(seat, action)
        {
            self.commit(seat, action, plan, true);
        }
        self
    }

    /// J18: resigning (or leaving) loses, at any time, on either player's turn.
    fn resign(mut self, seat: Seat) -> Junqi {
        if self.outcome.is_none() && seat < 2 {
            let name = self.name(seat);
            self.outcome = Some(Outcome::win(
                2,
                &[1 - seat],
                "J18",
                format!("{name} resigned"),
            ));
        }
        self
    }

    /// Decided here: draws by agreement are allowed (the page is silent; J17 shows draws are part
    /// of the game). The outcome names LJ1, our own rule for it (ARCHITECTURE.md "Flip Junqi").
    fn agree_draw(mut self) -> Result<Junqi, (Junqi, JunqiError)> {
        if self.outcome.is_some() {
            return Err((self, JunqiError::GameOver));
        }
        // LJ1 (ours, ARCHITECTURE.md "Flip Junqi"): the rule file is silent on agreed draws.
        self.outcome = Some(Outcome::draw(2, "LJ1", "both players agreed to a draw"));
        Ok(self)
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// J21, J22: built from public facts only (face-up pieces, the removed counts and the J1
    /// totals), so every viewer sees the same points and statistics, and two games whose
    /// public histories agree have equal views whatever lies face down.
    fn view(&self, viewer: Viewer) -> JunqiView {
        let points: Vec<PointView> = self
            .board
            .0
            .iter()
            .map(|c| match c {
                None => PointView::Empty,
                Some(c) if !c.face_up => PointView::FaceDown,
                Some(c) => PointView::FaceUp(c.piece),
            })
            .collect();
        let mut face_down = [[0u8; 12]; 2];
        for c in Colour::ALL {
            for r in Rank::ALL {
                let up = points
                    .iter()
                    .filter(|p| **p == PointView::FaceUp(Piece::new(c, r)))
                    .count() as u8;
                face_down[c.index()][r.index()] = r
                    .count()
                    .saturating_sub(self.removed[c.index()][r.index()])
                    .saturating_sub(up);
            }
        }
        let seat = match viewer {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        };
        JunqiView {
            viewer: seat,
            points,
            viewer_colour: seat.and_then(|s| self.colour_of(s)),
            opponent_colour: seat.filter(|&s| s < 2).and_then(|s| self.colour_of(1 - s)),
            seat_colours: [self.colour_of(0), self.colour_of(1)],
            last_flips: self.last_flips,
            statistics: PieceStats {
                removed: self.removed,
                face_down,
            },
            autoplay: self.autoplay,
            to_move: Game::to_move(self),
            quiet_actions: self.quiet,
            draw_limit: DRAW_LIMIT,
            last_action: self.last,
            outcome: self.outcome.clone(),
            ply: self.ply,
        }
    }

    fn ply(&self) -> u32 {
        self.ply
    }
}
