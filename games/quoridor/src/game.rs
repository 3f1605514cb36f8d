//! The game: setup (Q4-Q10, Q22-Q27), turns (Q8, Q11-Q16, Q19-Q21), the end (Q17, Q18,
//! Q34) and scoring (Q30-Q36).

use ludus_rules::{Game, GameResult, Outcome, RandomSource, Seat, SetupError, Viewer};
use serde::{Deserialize, Serialize};

use crate::bits::{Bits, STRIDE, idx};
use crate::board::{Board, PathInfo, perpendicular, step};
use crate::error::QuoridorError;
use crate::notation::{Cell, Orientation, QuoridorAction, Wall};
use crate::options::{
    Colour, GoalKind, Mode, QuoridorOptions, SIZES, Team, WALL_CHOICES, Walls, auto_walls,
};
use crate::score::{ranks, score};
use crate::view::{Edge, LastAction, PawnGoal, PawnView, PlacedWall, QuoridorView};

/// Q18: moves per pawn before the game is drawn: 60 on 9×9, 75 on 11×11, 90 on 13×13.
pub fn move_limit(size: u8) -> u32 {
    match size {
        11 => 75,
        13 => 90,
        _ => 60,
    }
}

/// Q34: points for a win because everyone else left (if at least two moves were made).
pub const POINTS_WIN_BY_LEAVING: i64 = 10;
/// Q35: points for a tournament match won.
pub const POINTS_MATCH_WON: i64 = 3;
/// Q35: extra points for the tournament champion.
pub const POINTS_CHAMPION: i64 = 10;

/// One pawn and what belongs to it.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Side {
    cell: Cell,
    goal: PawnGoal,
    walls_left: u8,
    /// Turns taken, for Q18.
    moves: u32,
    /// Seats playing this pawn, in rotation order (Q23).
    members: Vec<Seat>,
    /// Index into `members` of the seat whose turn it is next.
    next: usize,
    in_game: bool,
}

/// Everything that is stored; the board masks are rebuilt from it.
///
/// Every pawn's cell and goal are stored, never recomputed from its seat, and turns follow
/// the side index: a game keeps the seat layout it was set up with even when the start
/// places change (as Q6, Q7 and Q10 did on 2026-12-01), so no layout version is needed.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct State {
    options: QuoridorOptions,
    /// The side of every seat.
    seat_side: Vec<usize>,
    /// Seats that resigned or left.
    departed: Vec<bool>,
    sides: Vec<Side>,
    walls: Vec<PlacedWall>,
    /// The side to act.
    turn: usize,
    ply: u32,
    last: Option<LastAction>,
    outcome: Option<Outcome>,
}

/// A Quoridor game in progress or finished. Implements [`Game`].
///
/// ```
/// use ludus_quoridor::{QuoridorOptions, Quoridor};
/// use ludus_rules::{Game, ScriptedRandom};
/// let mut rng = ScriptedRandom::new([0]); // seat 0 (red) moves first
/// let g = Quoridor::setup(QuoridorOptions::default(), 2, &mut rng).unwrap();
/// // 3 steps, 128 walls and pass (Q12, Q2, Q19).
/// assert_eq!(g.legal_actions(0).len(), 132);
/// let a = g.parse_action("e2").unwrap();
/// let g = g.apply(0, &a, &mut rng).unwrap();
/// assert_eq!(g.to_move(), Some(1));
/// let (g, e) = g.apply(1, &"e9h".parse().unwrap(), &mut rng).unwrap_err();
/// assert_eq!(e.to_string(), "Q2: e9h is not on the 9x9 board");
/// # let _ = g;
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "State", into = "State")]
pub struct Quoridor {
    s: State,
    board: Board,
    /// Goal cells of every side.
    goals: Vec<Bits>,
}

/// Up to eight pawn destinations (Q12-Q13), as board indices.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Targets {
    cells: [u8; 8],
    len: usize,
}

impl Targets {
    fn push(&mut self, i: usize) {
        if !self.as_slice().contains(&(i as u8)) && self.len < self.cells.len() {
            self.cells[self.len] = i as u8;
            self.len += 1;
        }
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.cells[..self.len]
    }
}

fn goal_mask(n: u8, goal: PawnGoal) -> Bits {
    let n = usize::from(n);
    let all = Bits::rect(n, n);
    match goal {
        PawnGoal::Edge(Edge::Top) => Bits::rect(1, n),
        PawnGoal::Edge(Edge::Bottom) => all & !Bits::rect(n - 1, n),
        PawnGoal::Edge(Edge::Left) => Bits::rect(n, 1),
        PawnGoal::Edge(Edge::Right) => all & !Bits::rect(n, n - 1),
        PawnGoal::Center => Bits::single(idx((n - 1) / 2, (n - 1) / 2)),
    }
}

/// Q5-Q7, Q10: start cells `(row, col)` and goals of `pawns` pawns, in seat order.
///
/// With three or more pawns the seats go clockwise around the board (bottom, left, top,
/// right) so that turns, which follow seat order (Q8), go clockwise too. Only setup calls
/// this: a stored game carries every pawn's cell and goal, so a game created under the
/// first version of Q6/Q7/Q10 (bottom, top, left, right) keeps that layout.
fn start_places(n: u8, goal: GoalKind, pawns: usize) -> Vec<(u8, u8, PawnGoal)> {
    let m = (n - 1) / 2;
    let k = (n - 1) / 4;
    let last = n - 1;
    let center = goal == GoalKind::Center;
    let g = |edge| {
        if center {
            PawnGoal::Center
        } else {
            PawnGoal::Edge(edge)
        }
    };
    match (pawns, center) {
        // Q10: two pawns in opposite corners, bottom-left and top-right.
        (2, true) => vec![(last, 0, PawnGoal::Center), (0, last, PawnGoal::Center)],
        // Q10: three or four in the corners clockwise from bottom-left.
        (3 | 4, true) => [(last, 0), (0, 0), (0, last), (last, last)]
            .into_iter()
            .take(pawns)
            .map(|(r, c)| (r, c, PawnGoal::Center))
            .collect(),
        // Q5: two pawns at the middles of bottom and top; goal the opposite edge.
        (2, false) => vec![(last, m, g(Edge::Top)), (0, m, g(Edge::Bottom))],
        // Q6: three or four at the middles of bottom, left, top, right (clockwise).
        (3 | 4, false) => [
            (last, m, Edge::Top),
            (m, 0, Edge::Right),
            (0, m, Edge::Bottom),
            (m, last, Edge::Left),
        ]
        .into_iter()
        .take(pawns)
        .map(|(r, c, e)| (r, c, g(e)))
        .collect(),
        // Q7 (and Q10 for 5-8 pawns): seats 1-4 at -k, seats 5-8 at +k of bottom, left,
        // top, right; offsets count in (row, col) as Q1 numbers them.
        _ => (0..pawns)
            .map(|i| {
                let p = if i < 4 { m - k } else { m + k };
                match i % 4 {
                    0 => (last, p, g(Edge::Top)),
                    1 => (p, 0, g(Edge::Right)),
                    2 => (0, p, g(Edge::Bottom)),
                    _ => (p, last, g(Edge::Left)),
                }
            })
            .collect(),
    }
}

impl TryFrom<State> for Quoridor {
    type Error = String;

    /// Rebuilds the board masks, refusing states no game could reach in shape (so a
    /// corrupt stored state cannot make later calls panic).
    fn try_from(s: State) -> Result<Quoridor, String> {
        let n = s.options.size;
        if !SIZES.contains(&n) {
            return Err(format!("bad board size {n}"));
        }
        if s.sides.is_empty() || s.turn >= s.sides.len() || s.sides.len() > 8 {
            return Err("bad sides".into());
        }
        if s.seat_side.len() != s.departed.len() || s.seat_side.iter().any(|&x| x >= s.sides.len())
        {
            return Err("bad seats".into());
        }
        for side in &s.sides {
            if !side.cell.on_board(n) || (side.in_game && side.next >= side.members.len()) {
                return Err("bad side".into());
            }
        }
        let mut board = Board::new(n);
        for pw in &s.walls {
            if !pw.wall.on_board(n) {
                return Err(format!("wall {} off the board", pw.wall));
            }
            let (r, c) = pw.wall.center(n);
            let (r, c) = (usize::from(r), usize::from(c));
            if board.conflict(pw.wall.orientation, r, c).is_some() {
                return Err(format!("wall {} conflicts", pw.wall));
            }
            board.place(pw.wall.orientation, r, c);
        }
        let goals = s.sides.iter().map(|x| goal_mask(n, x.goal)).collect();
        Ok(Quoridor { s, board, goals })
    }
}

impl From<Quoridor> for State {
    fn from(q: Quoridor) -> State {
        q.s
    }
}

impl Quoridor {
    fn n(&self) -> u8 {
        self.s.options.size
    }

    /// Board index of a cell (which must be on the board).
    pub(crate) fn at(&self, c: Cell) -> usize {
        idx(usize::from(c.row(self.n())), usize::from(c.file))
    }

    pub(crate) fn cell_at(&self, i: usize) -> Cell {
        Cell::new((i % STRIDE) as u8, self.n() - 1 - (i / STRIDE) as u8)
    }

    pub(crate) fn wall_at(&self, o: Orientation, i: usize) -> Wall {
        let (r, c) = (i / STRIDE, i % STRIDE);
        Wall::new(Cell::new(c as u8, self.n() - 2 - r as u8), o)
    }

    /// The wall masks, for the computer players' path finding (`bot`).
    pub(crate) fn board(&self) -> &Board {
        &self.board
    }

    /// The goal cells of a side (which must exist).
    pub(crate) fn goal(&self, side: usize) -> Bits {
        self.goals[side]
    }

    /// Whether a side's pawn is still on the board (its players have not all left).
    pub(crate) fn in_game(&self, side: usize) -> bool {
        self.s.sides.get(side).is_some_and(|x| x.in_game)
    }

    /// The options the game was set up with (teams resolved).
    pub fn options(&self) -> &QuoridorOptions {
        &self.s.options
    }

    /// The side (pawn) a seat plays: the seat itself outside team mode.
    pub fn side_of(&self, seat: Seat) -> Option<usize> {
        self.s.seat_side.get(seat).copied()
    }

    /// The side to act, while the game goes on.
    pub fn side_to_move(&self) -> Option<usize> {
        self.s.outcome.is_none().then_some(self.s.turn)
    }

    /// Number of sides (pawns): seats in free-for-all, two otherwise.
    pub fn sides(&self) -> usize {
        self.s.sides.len()
    }

    /// Where a side's pawn stands.
    pub fn cell(&self, side: usize) -> Option<Cell> {
        self.s.sides.get(side).map(|x| x.cell)
    }

    /// Walls a side still holds.
    pub fn walls_left(&self, side: usize) -> Option<u8> {
        self.s.sides.get(side).map(|x| x.walls_left)
    }

    /// Q30: fewest steps from a side's pawn to its goal, around walls and ignoring pawns;
    /// `None` for a side that left (or does not exist).
    pub fn distance(&self, side: usize) -> Option<u32> {
        let sd = self.s.sides.get(side).filter(|x| x.in_game)?;
        Board::distance(
            &self.board.open,
            self.at(sd.cell),
            self.goals[side],
            Bits::EMPTY,
        )
    }

    /// Puts the pawns on `pawns` (one cell per side) and places `walls` before the first
    /// action, for tests, puzzles and analysis. The walls belong to nobody: no stock
    /// changes. Refused once an action was played, or when the position breaks a rule:
    /// off the board (Q1, Q2), overlapping walls (Q3), two pawns on a cell (Q12), a pawn
    /// shut in (Q15) or already at its goal (Q17).
    ///
    /// ```
    /// use ludus_quoridor::{QuoridorOptions, Quoridor};
    /// use ludus_rules::{Game, ScriptedRandom};
    /// let g = Quoridor::setup(QuoridorOptions::default(), 2, &mut ScriptedRandom::new([0])).unwrap();
    /// let g = g.arrange(&["e4".parse().unwrap(), "e5".parse().unwrap()], &[]).unwrap();
    /// let moves: Vec<String> = g.legal_actions(0).iter().take(4).map(|a| a.to_string()).collect();
    /// assert_eq!(moves, ["e6", "e3", "d4", "f4"]); // Q13: red jumps over yellow
    /// ```
    pub fn arrange(self, pawns: &[Cell], walls: &[Wall]) -> Result<Self, QuoridorError> {
        let bad = |rule, message: String| QuoridorError::Position { rule, message };
        let n = self.n();
        if self.s.ply > 0 {
            return Err(bad("Q11", "the game has started".into()));
        }
        if pawns.len() != self.s.sides.len() {
            return Err(bad(
                "Q4",
                format!(
                    "{} pawns given for {} sides",
                    pawns.len(),
                    self.s.sides.len()
                ),
            ));
        }
        let mut g = self;
        for (i, &c) in pawns.iter().enumerate() {
            if !c.on_board(n) {
                return Err(QuoridorError::OffBoard {
                    action: QuoridorAction::Move(c),
                    size: n,
                });
            }
            if pawns[..i].contains(&c) {
                return Err(bad("Q12", format!("two pawns on {c}")));
            }
            g.s.sides[i].cell = c;
        }
        for &wall in walls {
            let (r, c) = g.wall_fits(wall)?;
            g.board.place(wall.orientation, r, c);
            g.s.walls.push(PlacedWall { wall, side: None });
        }
        for q in 0..g.s.sides.len() {
            let colour = Colour::of_side(q);
            match g.distance(q) {
                None => return Err(bad("Q15", format!("{colour} is shut in"))),
                Some(0) => return Err(bad("Q17", format!("{colour} is already at its goal"))),
                Some(_) => {}
            }
        }
        Ok(g)
    }

    /// Cells of every pawn still in the game.
    fn occupied(&self) -> Bits {
        let mut b = Bits::EMPTY;
        for sd in self.s.sides.iter().filter(|x| x.in_game) {
            b.set(self.at(sd.cell));
        }
        b
    }

    /// Q12-Q13: every cell the pawn of `side` may move to.
    pub(crate) fn targets(&self, side: usize) -> Targets {
        let mut t = Targets::default();
        let open = &self.board.open;
        let occ = self.occupied();
        let p = self.at(self.s.sides[side].cell);
        for d in 0..4 {
            if !open[d].get(p) {
                continue;
            }
            let q = step(p, d);
            if !occ.get(q) {
                t.push(q); // Q12: a plain step.
                continue;
            }
            // Q13: facing the pawn on q. Straight over it if nothing is behind it…
            if open[d].get(q) && !occ.get(step(q, d)) {
                t.push(step(q, d));
                continue;
            }
            // …else diagonally beside it, unless a wall separates that cell from it.
            for d2 in perpendicular(d) {
                if open[d2].get(q) && !occ.get(step(q, d2)) {
                    t.push(step(q, d2));
                }
            }
        }
        t
    }

    /// Q20: the first side that the pawn of `side`, standing on `at`, blocks.
    fn blocked_by(&self, side: usize, at: usize) -> Option<usize> {
        let closed = Bits::single(at);
        (0..self.s.sides.len()).find(|&q| {
            let sd = &self.s.sides[q];
            q != side
                && sd.in_game
                && Board::distance(&self.board.open, self.at(sd.cell), self.goals[q], closed)
                    .is_none()
        })
    }

    /// Q2, Q3: the wall's center if the wall is on the board and neither overlaps nor
    /// crosses a placed wall (paths and walls in hand checked apart).
    fn wall_fits(&self, wall: Wall) -> Result<(usize, usize), QuoridorError> {
        let n = self.n();
        if !wall.on_board(n) {
            return Err(QuoridorError::OffBoard {
                action: QuoridorAction::Wall(wall),
                size: n,
            });
        }
        let (r, c) = wall.center(n);
        let (r, c) = (usize::from(r), usize::from(c));
        if let Some((o2, r2, c2)) = self.board.conflict(wall.orientation, r, c) {
            return Err(QuoridorError::WallConflict {
                wall,
                other: self.wall_at(o2, idx(r2, c2)),
                crosses: o2 != wall.orientation,
            });
        }
        Ok((r, c))
    }

    /// Q2, Q3, Q15: the wall's center if it may be placed (walls in hand checked apart).
    fn check_wall(&self, wall: Wall) -> Result<(usize, usize), QuoridorError> {
        let (r, c) = self.wall_fits(wall)?;
        let o = wall.orientation;
        let open = self.board.open_with(o, r, c);
        for (q, sd) in self.s.sides.iter().enumerate() {
            if sd.in_game
                && Board::distance(&open, self.at(sd.cell), self.goals[q], Bits::EMPTY).is_none()
            {
                return Err(QuoridorError::ShutsIn {
                    wall,
                    colour: Colour::of_side(q),
                });
            }
        }
        Ok((r, c))
    }

    /// Shortest paths of the pawns in the game (`None` for the others).
    fn paths(&self) -> [Option<PathInfo>; 8] {
        let mut out = [None; 8];
        for (q, sd) in self.s.sides.iter().enumerate() {
            if sd.in_game {
                out[q] = self.board.path(self.at(sd.cell), self.goals[q]);
            }
        }
        out
    }

    /// Q3, Q14, Q15: every wall that may be placed now, horizontal first, by slot.
    ///
    /// Only walls that touch the border or other walls twice can close a region, and only
    /// those cutting a pawn's current shortest path can shut that pawn in; every other
    /// free slot is legal without a flood fill.
    fn push_legal_walls(&self, paths: &[Option<PathInfo>; 8], out: &mut Vec<QuoridorAction>) {
        let (free_h, free_v) = self.board.free_slots();
        let (enc_h, enc_v) = self.board.may_enclose();
        let (mut cut_h, mut cut_v) = (Bits::EMPTY, Bits::EMPTY);
        for p in paths.iter().flatten() {
            cut_h |= p.cut_h;
            cut_v |= p.cut_v;
        }
        let sides = &self.s.sides;
        for (o, free, check) in [
            (Orientation::Horizontal, free_h, free_h & enc_h & cut_h),
            (Orientation::Vertical, free_v, free_v & enc_v & cut_v),
        ] {
            for i in free.iter() {
                if check.get(i) {
                    let open = self.board.open_with(o, i / STRIDE, i % STRIDE);
                    let shuts = paths.iter().enumerate().any(|(q, p)| {
                        p.is_some_and(|p| {
                            let cut = if o == Orientation::Horizontal {
                                p.cut_h
                            } else {
                                p.cut_v
                            };
                            cut.get(i)
                                && Board::distance(
                                    &open,
                                    self.at(sides[q].cell),
                                    self.goals[q],
                                    Bits::EMPTY,
                                )
                                .is_none()
                        })
                    });
                    if shuts {
                        continue;
                    }
                }
                out.push(QuoridorAction::Wall(self.wall_at(o, i)));
            }
        }
    }

    /// Q21: where the pawn of `side` steps aside to when its clock runs out while it
    /// blocks someone: prefer unblocking, then the shortest own path, then up, left,
    /// right, down (diagonal moves order as up-left, up-right, down-left, down-right).
    fn step_aside(&self, side: usize) -> Option<usize> {
        let p = self.at(self.s.sides[side].cell);
        let goal = self.goals[side];
        let (pr, pc) = ((p / STRIDE) as isize, (p % STRIDE) as isize);
        self.targets(side)
            .as_slice()
            .iter()
            .map(|&t| usize::from(t))
            .min_by_key(|&t| {
                let blocks = self.blocked_by(side, t).is_some();
                let dist =
                    Board::distance(&self.board.open, t, goal, Bits::EMPTY).unwrap_or(u32::MAX);
                let dr = ((t / STRIDE) as isize - pr).signum();
                let dc = ((t % STRIDE) as isize - pc).signum();
                let order = match (dr, dc) {
                    (-1, _) => 1 + dc, // up-left 0, up 1, up-right 2
                    (0, -1) => 3,      // left
                    (0, _) => 4,       // right
                    _ => 6 + dc,       // down-left 5, down 6, down-right 7
                };
                (blocks, dist, order)
            })
    }

    /// Ends the turn of `side` (played by `seat`): Q17 win, Q18 draw, or the next turn.
    fn finish_turn(
        &mut self,
        seat: Seat,
        action: QuoridorAction,
        from: Option<Cell>,
        automatic: bool,
    ) {
        let side = self.s.turn;
        self.s.ply += 1;
        self.s.sides[side].moves += 1;
        self.s.last = Some(LastAction {
            seat,
            side,
            action,
            from,
            automatic,
        });
        if let QuoridorAction::Move(to) = action
            && self.goals[side].get(self.at(to))
        {
            self.s.outcome = Some(self.goal_outcome(side));
            return;
        }
        if self.check_move_limit() {
            return;
        }
        // Q23: the team's next member takes the team's next turn.
        let sd = &mut self.s.sides[side];
        if !sd.members.is_empty() {
            sd.next = (sd.next + 1) % sd.members.len();
        }
        self.advance_turn();
    }

    /// Q8: the turn passes to the next side still in the game.
    fn advance_turn(&mut self) {
        let k = self.s.sides.len();
        for i in 1..=k {
            let q = (self.s.turn + i) % k;
            if self.s.sides[q].in_game {
                self.s.turn = q;
                return;
            }
        }
    }

    /// Q18: draws the game once every pawn in it has used its moves. True if it did.
    fn check_move_limit(&mut self) -> bool {
        let limit = move_limit(self.n());
        if self
            .s
            .sides
            .iter()
            .filter(|x| x.in_game)
            .all(|x| x.moves >= limit)
        {
            let ranks = self.s.departed.iter().map(|&d| u32::from(d)).collect();
            let seats = self.s.seat_side.len();
            let mut o = Outcome::draw(
                seats,
                "Q18",
                format!("no pawn reached its goal within {limit} moves per pawn"),
            )
            .with_points(vec![0; seats]); // Q36
            o.ranks = ranks;
            self.s.outcome = Some(o);
            return true;
        }
        false
    }

    /// Q17, Q30-Q33, Q35: the outcome when `winner` reached its goal.
    fn goal_outcome(&self, winner: usize) -> Outcome {
        let live: Vec<usize> = (0..self.s.sides.len())
            .filter(|&q| self.s.sides[q].in_game)
            .collect();
        let dists: Vec<u32> = live
            .iter()
            .map(|&q| {
                if q == winner {
                    0
                } else {
                    self.distance(q).unwrap_or(0)
                }
            })
            .collect();
        let side_points: Vec<i64> = if self.s.options.mode == Mode::TournamentMatch {
            live.iter()
                .map(|&q| if q == winner { POINTS_MATCH_WON } else { 0 })
                .collect()
        } else {
            score(&dists)
        };
        let side_ranks = ranks(&dists);
        let wc = self.s.sides[winner].cell;
        let place = match self.s.sides[winner].goal {
            PawnGoal::Center => "the center".to_owned(),
            PawnGoal::Edge(e) => format!("the {} edge", edge_name(e)),
        };
        let reason = format!("{} reached {place} at {wc}", Colour::of_side(winner));
        self.seat_outcome(winner, &live, &side_ranks, &side_points, "Q17", reason)
    }

    /// Spreads per-side ranks and points over the seats (Q33); seats that left rank last
    /// with no points.
    fn seat_outcome(
        &self,
        winner: usize,
        live: &[usize],
        side_ranks: &[u32],
        side_points: &[i64],
        rule: &str,
        reason: String,
    ) -> Outcome {
        let seats = self.s.seat_side.len();
        let mut ranks = vec![live.len() as u32; seats];
        let mut points = vec![0; seats];
        for seat in 0..seats {
            if self.s.departed[seat] {
                continue;
            }
            if let Some(j) = live.iter().position(|&q| q == self.s.seat_side[seat]) {
                ranks[seat] = side_ranks[j];
                points[seat] = side_points[j];
            }
        }
        Outcome {
            result: GameResult::Win {
                winners: self.s.sides[winner].members.clone(),
            },
            ranks,
            points,
            rule: rule.to_owned(),
            reason,
        }
    }
}

fn edge_name(e: Edge) -> &'static str {
    match e {
        Edge::Top => "top",
        Edge::Bottom => "bottom",
        Edge::Left => "left",
        Edge::Right => "right",
    }
}

impl Game for Quoridor {
    type Options = QuoridorOptions;
    type Action = QuoridorAction;
    type View = QuoridorView;
    type Error = QuoridorError;

    fn setup(
        options: QuoridorOptions,
        seats: usize,
        rng: &mut dyn RandomSource,
    ) -> Result<Self, SetupError> {
        let mut options = options;
        let n = options.size;
        if !SIZES.contains(&n) {
            return Err(SetupError::new(
                "Q26",
                format!("board size {n} is not 9, 11 or 13"),
            ));
        }
        if !(2..=8).contains(&seats) {
            return Err(SetupError::new(
                "Q4",
                format!("quoridor needs 2 to 8 players, not {seats}"),
            ));
        }
        if let Walls::Fixed(w) = options.walls
            && !WALL_CHOICES.contains(&w)
        {
            return Err(SetupError::new(
                "Q27",
                format!("{w} walls is not 1, 3, 5, 7, 10, 15 or 20"),
            ));
        }
        let seat_side: Vec<usize> = match options.mode {
            Mode::FreeForAll => (0..seats).collect(),
            Mode::TournamentMatch => {
                if seats != 2 {
                    return Err(SetupError::new(
                        "Q24",
                        format!("a tournament match has 2 players, not {seats}"),
                    ));
                }
                vec![0, 1]
            }
            Mode::Teams => {
                if options.teams.is_empty() {
                    options.teams = (0..seats)
                        .map(|s| if s % 2 == 0 { Team::Red } else { Team::Yellow })
                        .collect();
                }
                if options.teams.len() != seats {
                    return Err(SetupError::new(
                        "Q23",
                        format!("{} team choices for {seats} seats", options.teams.len()),
                    ));
                }
                let sides: Vec<usize> = options.teams.iter().map(|t| *t as usize).collect();
                if !sides.contains(&0) || !sides.contains(&1) {
                    return Err(SetupError::new("Q23", "both red and yellow need a player"));
                }
                sides
            }
        };
        let k = seat_side.iter().max().map_or(0, |m| m + 1);
        let walls = match options.walls {
            Walls::Auto => auto_walls(n, k),
            Walls::Fixed(w) => w,
        };
        let sides: Vec<Side> = start_places(n, options.goal, k)
            .into_iter()
            .enumerate()
            .map(|(i, (r, c, goal))| Side {
                cell: Cell::new(c, n - 1 - r),
                goal,
                walls_left: walls,
                moves: 0,
                members: (0..seats).filter(|&s| seat_side[s] == i).collect(),
                next: 0,
                in_game: true,
            })
            .collect();
        let mut s = State {
            options,
            departed: vec![false; seats],
            seat_side,
            sides,
            walls: Vec::new(),
            turn: 0,
            ply: 0,
            last: None,
            outcome: None,
        };
        // Q8: who moves first is random, unless the bracket says (Q24 replays). In team
        // mode the draw picks the team; its first member in seat order starts.
        match s.options.first_seat {
            Some(f) if f >= seats => {
                return Err(SetupError::new(
                    "Q8",
                    format!("there is no seat {f} to move first"),
                ));
            }
            Some(f) => {
                let side = s.seat_side[f];
                s.turn = side;
                s.sides[side].next = s.sides[side]
                    .members
                    .iter()
                    .position(|&m| m == f)
                    .unwrap_or(0);
            }
            None => s.turn = rng.below(k as u32) as usize % k,
        }
        Quoridor::try_from(s).map_err(|e| SetupError::new("Q1", e))
    }

    fn parse_action(&self, text: &str) -> Result<QuoridorAction, QuoridorError> {
        let a: QuoridorAction = text.parse().map_err(QuoridorError::Notation)?;
        let n = self.n();
        let on = match a {
            QuoridorAction::Move(c) => c.on_board(n),
            QuoridorAction::Wall(w) => w.on_board(n),
            QuoridorAction::Pass => true,
        };
        if on {
            Ok(a)
        } else {
            Err(QuoridorError::OffBoard { action: a, size: n })
        }
    }

    fn seats(&self) -> usize {
        self.s.seat_side.len()
    }

    fn to_move(&self) -> Option<Seat> {
        if self.s.outcome.is_some() {
            return None;
        }
        let sd = &self.s.sides[self.s.turn];
        sd.members.get(sd.next).copied()
    }

    /// Steps and jumps, then walls (horizontal, then vertical, by slot), then `pass` when
    /// Q20 allows it (or when the side can do nothing else **[decided]**). The full list,
    /// never a subset.
    fn legal_actions(&self, seat: Seat) -> Vec<QuoridorAction> {
        if self.to_move() != Some(seat) {
            return Vec::new();
        }
        let side = self.s.turn;
        let mut out = Vec::with_capacity(160);
        for &t in self.targets(side).as_slice() {
            out.push(QuoridorAction::Move(self.cell_at(usize::from(t))));
        }
        let paths = self.paths();
        if self.s.sides[side].walls_left > 0 {
            self.push_legal_walls(&paths, &mut out);
        }
        // Q20: a pawn that a shortest path avoids is no block to it.
        let at = self.at(self.s.sides[side].cell);
        let blocks = paths.iter().enumerate().any(|(q, p)| {
            q != side
                && p.is_some_and(|p| {
                    p.cells.get(at)
                        && Board::distance(
                            &self.board.open,
                            self.at(self.s.sides[q].cell),
                            self.goals[q],
                            Bits::single(at),
                        )
                        .is_none()
                })
        });
        // A blocking pawn that can neither move nor place a wall may pass after all
        // [decided]: otherwise the game would stall until its clock runs out (Q21).
        if !blocks || out.is_empty() {
            out.push(QuoridorAction::Pass);
        }
        out
    }

    fn apply(
        mut self,
        seat: Seat,
        action: &QuoridorAction,
        _rng: &mut dyn RandomSource,
    ) -> Result<Self, (Self, QuoridorError)> {
        if self.s.outcome.is_some() {
            return Err((self, QuoridorError::GameOver));
        }
        if self.to_move() != Some(seat) {
            return Err((self, QuoridorError::NotYourTurn { seat }));
        }
        let side = self.s.turn;
        let colour = Colour::of_side(side);
        let n = self.n();
        match *action {
            QuoridorAction::Move(to) => {
                if !to.on_board(n) {
                    return Err((
                        self,
                        QuoridorError::OffBoard {
                            action: *action,
                            size: n,
                        },
                    ));
                }
                let from = self.s.sides[side].cell;
                let t = self.at(to);
                if !self.targets(side).as_slice().contains(&(t as u8)) {
                    let far = from.file.abs_diff(to.file) + from.rank.abs_diff(to.rank);
                    let rule = if far == 1 { "Q12" } else { "Q13" };
                    return Err((self, QuoridorError::IllegalMove { colour, to, rule }));
                }
                self.s.sides[side].cell = to;
                self.finish_turn(seat, *action, Some(from), false);
            }
            QuoridorAction::Wall(wall) => {
                if wall.on_board(n) && self.s.sides[side].walls_left == 0 {
                    return Err((self, QuoridorError::NoWallsLeft { colour }));
                }
                let (r, c) = match self.check_wall(wall) {
                    Ok(rc) => rc,
                    Err(e) => return Err((self, e)),
                };
                self.board.place(wall.orientation, r, c);
                self.s.walls.push(PlacedWall {
                    wall,
                    side: Some(side),
                });
                self.s.sides[side].walls_left -= 1;
                self.finish_turn(seat, *action, None, false);
            }
            QuoridorAction::Pass => {
                let at = self.at(self.s.sides[side].cell);
                if let Some(q) = self.blocked_by(side, at)
                    && !self.legal_actions(seat).contains(&QuoridorAction::Pass)
                {
                    let blocked = Colour::of_side(q);
                    return Err((self, QuoridorError::MayNotPass { colour, blocked }));
                }
                self.finish_turn(seat, QuoridorAction::Pass, None, false);
            }
        }
        Ok(self)
    }

    /// Q19: the turn passes; Q21: a pawn that blocks someone steps aside instead. The
    /// automatic turn counts toward Q18. A timeout of a seat not on turn changes nothing.
    fn timeout(mut self, seat: Seat, _rng: &mut dyn RandomSource) -> Self {
        if self.to_move() != Some(seat) {
            return self;
        }
        let side = self.s.turn;
        let from = self.s.sides[side].cell;
        if self.blocked_by(side, self.at(from)).is_some()
            && let Some(t) = self.step_aside(side)
        {
            let to = self.cell_at(t);
            self.s.sides[side].cell = to;
            self.finish_turn(seat, QuoridorAction::Move(to), Some(from), true);
        } else {
            self.finish_turn(seat, QuoridorAction::Pass, None, true);
        }
        self
    }

    /// The seat leaves. A two-sided game is won by the other side (Q34). In a multi-player
    /// free-for-all the leaver's pawn leaves the board (its walls stay) and the others play
    /// on; the last pawn standing wins by Q34. In team mode the member leaves the rotation
    /// and the team plays on; a team with nobody left loses (Q34).
    fn resign(mut self, seat: Seat) -> Self {
        if self.s.outcome.is_some() || seat >= self.s.seat_side.len() || self.s.departed[seat] {
            return self;
        }
        self.s.departed[seat] = true;
        let side = self.s.seat_side[seat];
        let sd = &mut self.s.sides[side];
        if let Some(pos) = sd.members.iter().position(|&m| m == seat) {
            sd.members.remove(pos);
            if pos < sd.next {
                sd.next -= 1;
            }
            if sd.next >= sd.members.len() {
                sd.next = 0;
            }
        }
        if !sd.members.is_empty() {
            return self;
        }
        sd.in_game = false;
        let live: Vec<usize> = (0..self.s.sides.len())
            .filter(|&q| self.s.sides[q].in_game)
            .collect();
        if let [winner] = live[..] {
            let pts = if self.s.options.mode == Mode::TournamentMatch {
                POINTS_MATCH_WON
            } else if self.s.ply >= 2 {
                POINTS_WIN_BY_LEAVING
            } else {
                0
            };
            let reason = format!(
                "everyone else left the game; {} wins",
                Colour::of_side(winner)
            );
            let o = self.seat_outcome(winner, &live, &[0], &[pts], "Q34", reason);
            self.s.outcome = Some(o);
            return self;
        }
        if !self.check_move_limit() && self.s.turn == side {
            self.advance_turn();
        }
        self
    }

    fn agree_draw(self) -> Result<Self, (Self, QuoridorError)> {
        Err((self, QuoridorError::NoDrawByAgreement))
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.s.outcome.as_ref()
    }

    fn view(&self, viewer: Viewer) -> QuoridorView {
        let pawns = self
            .s
            .sides
            .iter()
            .enumerate()
            .map(|(i, sd)| PawnView {
                side: i,
                colour: Colour::of_side(i),
                cell: sd.cell,
                goal: sd.goal,
                seats: sd.members.clone(),
                walls_left: sd.walls_left,
                moves: sd.moves,
                distance: self.distance(i),
                in_game: sd.in_game,
            })
            .collect();
        let you = match viewer {
            Viewer::Seat(s) if s < self.s.seat_side.len() && !self.s.departed[s] => {
                Some(self.s.seat_side[s])
            }
            _ => None,
        };
        QuoridorView {
            size: self.n(),
            mode: self.s.options.mode,
            goal: self.s.options.goal,
            pawns,
            walls: self.s.walls.clone(),
            last_action: self.s.last,
            to_move: self.to_move(),
            side_to_move: self.side_to_move(),
            you,
            move_limit: move_limit(self.n()),
            ply: self.s.ply,
            outcome: self.s.outcome.clone(),
        }
    }

    fn ply(&self) -> u32 {
        self.s.ply
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q5_q6_q7_start_places() {
        let p = start_places(9, GoalKind::Opposite, 2);
        assert_eq!(p[0], (8, 4, PawnGoal::Edge(Edge::Top)));
        assert_eq!(p[1], (0, 4, PawnGoal::Edge(Edge::Bottom)));
        // Q6: bottom, left, top, right.
        let p = start_places(9, GoalKind::Opposite, 4);
        assert_eq!(p[0], (8, 4, PawnGoal::Edge(Edge::Top)));
        assert_eq!(p[1], (4, 0, PawnGoal::Edge(Edge::Right)));
        assert_eq!(p[2], (0, 4, PawnGoal::Edge(Edge::Bottom)));
        assert_eq!(p[3], (4, 8, PawnGoal::Edge(Edge::Left)));
        let p = start_places(13, GoalKind::Opposite, 8);
        // Q7, k = 3 on 13×13: bottom -k is (12, 3), left -k (3, 0), right +k (9, 12).
        assert_eq!(p[0], (12, 3, PawnGoal::Edge(Edge::Top)));
        assert_eq!(p[1], (3, 0, PawnGoal::Edge(Edge::Right)));
        assert_eq!(p[7], (9, 12, PawnGoal::Edge(Edge::Left)));
    }

    #[test]
    fn q10_center_places_are_equally_far() {
        for n in [9u8, 11, 13] {
            let c = i32::from((n - 1) / 2);
            for pawns in 2..=8 {
                let p = start_places(n, GoalKind::Center, pawns);
                let d: Vec<i32> = p
                    .iter()
                    .map(|&(r, col, _)| (i32::from(r) - c).abs() + (i32::from(col) - c).abs())
                    .collect();
                assert!(d.iter().all(|x| *x == d[0]), "{n} {pawns} {d:?}");
                if n == 9 {
                    assert_eq!(d[0], if pawns <= 4 { 8 } else { 6 });
                }
            }
        }
    }
}
