//! An independent Quoridor player for the classic duel (Q5: two pawns, each racing to the
//! opposite edge), written from `shared/rules/quoridor.md` alone to measure the crate's
//! computer players from outside. It shares no code with the crate: not its board or
//! bitboards, not its path search, not the bots' score or wall choice. Its own move
//! generator (steps Q12, jumps Q13, walls Q2-Q3 and Q14-Q16, `pass` under Q19-Q20) is checked
//! against the crate's in `tests/against_reference.rs`, so both play the same game.
//!
//! The player searches a fixed number of plies with alpha-beta (negamax) and scores a
//! position by breadth-first-search distances (Q30: around walls, ignoring pawns):
//! - the opponent's distance minus its own, plus half a step for the side to move (the
//!   tempo), plus a value per wall in hand over the opponent's;
//! - once nobody holds a wall (Q16) the race is settled by who arrives first (pawns aside);
//! - a pawn on its goal row has won (Q17).
//!
//! Candidate walls are the slots that cut an edge of the opponent's shortest path (two per
//! step, Q2 geometry) and the slots at the four corners of each pawn's cell; every one is
//! checked against Q3, Q14 and Q15 before it is searched. Pawn moves are all searched.
//!
//! Cells are Q1's `(row, col)`, row 0 at the top. Side 0 (red, seat 0) starts at the middle
//! of the bottom edge and races to row 0; side 1 (yellow) starts at the top and races to row
//! N-1 (Q5).

#![allow(dead_code)]

use ludus_rules::RandomSource;

/// Largest board of Q1 (13×13): cells and wall centers fit fixed arrays.
const MAX_N: usize = 13;
const CELLS: usize = MAX_N * MAX_N;
const CENTERS: usize = (MAX_N - 1) * (MAX_N - 1);
/// A cell no path reaches.
const FAR: u8 = u8::MAX;

/// Up, down, left, right as seen on the board.
const DIRECTIONS: [(isize, isize); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// One action of the side to move (Q11).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Act {
    /// Move the pawn to `(row, col)` by a step or a jump (Q12, Q13).
    Pawn(usize, usize),
    /// A wall with Q2 center `(r, c)`, horizontal or vertical.
    Wall {
        r: usize,
        c: usize,
        horizontal: bool,
    },
    /// Q19.
    Pass,
}

/// A duel position (Q5) on an N×N board.
#[derive(Clone, Debug)]
pub struct Pos {
    pub n: usize,
    pub pawns: [(usize, usize); 2],
    pub walls_left: [u32; 2],
    /// Wall centers (Q2), `r * (n - 1) + c`.
    horizontal: [bool; CENTERS],
    vertical: [bool; CENTERS],
    pub to_move: usize,
}

impl Pos {
    /// The start of a duel (Q5) with `walls` each (Q27); side `first` moves first (Q8).
    pub fn start(n: usize, walls: u32, first: usize) -> Pos {
        assert!(
            (3..=MAX_N).contains(&n) && n % 2 == 1,
            "an odd size up to 13 (Q1)"
        );
        let mid = (n - 1) / 2;
        Pos {
            n,
            pawns: [(n - 1, mid), (0, mid)],
            walls_left: [walls; 2],
            horizontal: [false; CENTERS],
            vertical: [false; CENTERS],
            to_move: first,
        }
    }

    /// The row side `side` races to (Q5: the opposite edge).
    pub fn goal_row(&self, side: usize) -> usize {
        if side == 0 { 0 } else { self.n - 1 }
    }

    /// The side whose pawn stands on its goal row (Q17), if any.
    pub fn winner(&self) -> Option<usize> {
        (0..2).find(|&s| self.pawns[s].0 == self.goal_row(s))
    }

    fn wall_at(&self, grid: &[bool; CENTERS], r: isize, c: isize) -> bool {
        let m = self.n as isize - 1;
        r >= 0 && c >= 0 && r < m && c < m && grid[(r * m + c) as usize]
    }

    /// The neighbour of `(r, c)` in direction `d`, when it is on the board and no wall lies
    /// between (Q2: a horizontal wall at (wr, wc) separates rows wr and wr+1 across columns
    /// wc and wc+1; a vertical one separates columns wc and wc+1 across rows wr and wr+1).
    pub fn open(&self, (r, c): (usize, usize), d: (isize, isize)) -> Option<(usize, usize)> {
        let (tr, tc) = (r as isize + d.0, c as isize + d.1);
        let n = self.n as isize;
        if tr < 0 || tc < 0 || tr >= n || tc >= n {
            return None;
        }
        let (r, c) = (r as isize, c as isize);
        let h = |wr, wc| self.wall_at(&self.horizontal, wr, wc);
        let v = |wr, wc| self.wall_at(&self.vertical, wr, wc);
        let blocked = match d {
            (1, 0) => h(r, c) || h(r, c - 1),
            (-1, 0) => h(r - 1, c) || h(r - 1, c - 1),
            (0, 1) => v(r, c) || v(r - 1, c),
            _ => v(r, c - 1) || v(r - 1, c - 1),
        };
        (!blocked).then_some((tr as usize, tc as usize))
    }

    /// Breadth-first distances to `side`'s goal row from every cell, around walls and
    /// ignoring pawns (Q15, Q30), with `closed` (a pawn's cell, Q20) left out of the paths.
    pub fn distances(&self, side: usize, closed: Option<(usize, usize)>) -> [u8; CELLS] {
        let n = self.n;
        let mut dist = [FAR; CELLS];
        let mut queue = [0u8; CELLS];
        let (mut head, mut tail) = (0, 0);
        let row = self.goal_row(side);
        for c in 0..n {
            if closed != Some((row, c)) {
                dist[row * n + c] = 0;
                queue[tail] = (row * n + c) as u8;
                tail += 1;
            }
        }
        while head < tail {
            let i = usize::from(queue[head]);
            head += 1;
            for d in DIRECTIONS {
                if let Some((r, c)) = self.open((i / n, i % n), d) {
                    let j = r * n + c;
                    if dist[j] == FAR && closed != Some((r, c)) {
                        dist[j] = dist[i] + 1;
                        queue[tail] = j as u8;
                        tail += 1;
                    }
                }
            }
        }
        dist
    }

    /// Q30: the fewest steps from `side`'s pawn to its goal; `None` when shut in.
    pub fn distance(&self, side: usize) -> Option<u32> {
        let (r, c) = self.pawns[side];
        let d = self.distances(side, None)[r * self.n + c];
        (d != FAR).then_some(u32::from(d))
    }

    /// Q12-Q13: the cells the side to move may move its pawn to.
    pub fn pawn_moves(&self) -> Vec<(usize, usize)> {
        let me = self.pawns[self.to_move];
        let other = self.pawns[1 - self.to_move];
        let mut out = Vec::with_capacity(5);
        for d in DIRECTIONS {
            let Some(next) = self.open(me, d) else {
                continue;
            };
            if next != other {
                out.push(next);
                continue;
            }
            // Facing the other pawn: straight over it, or (wall or edge behind) beside it.
            if let Some(behind) = self.open(other, d) {
                out.push(behind);
            } else {
                for side in [(d.1, d.0), (-d.1, -d.0)] {
                    if let Some(beside) = self.open(other, side) {
                        out.push(beside);
                    }
                }
            }
        }
        out
    }

    /// Q2, Q3, Q14 without Q15: the slot is on the board, the mover holds a wall, and no
    /// placed wall overlaps or crosses it.
    pub fn wall_fits(&self, r: usize, c: usize, horizontal: bool) -> bool {
        let m = self.n - 1;
        if r >= m || c >= m || self.walls_left[self.to_move] == 0 {
            return false;
        }
        let (ri, ci) = (r as isize, c as isize);
        let (same, cross) = if horizontal {
            (&self.horizontal, &self.vertical)
        } else {
            (&self.vertical, &self.horizontal)
        };
        let along = if horizontal { (0, 1) } else { (1, 0) };
        !(same[r * m + c]
            || cross[r * m + c]
            || self.wall_at(same, ri + along.0, ci + along.1)
            || self.wall_at(same, ri - along.0, ci - along.1))
    }

    /// Places a wall for the side to move without any check (the caller checked it).
    fn put_wall(&mut self, r: usize, c: usize, horizontal: bool) {
        let m = self.n - 1;
        if horizontal {
            self.horizontal[r * m + c] = true;
        } else {
            self.vertical[r * m + c] = true;
        }
        self.walls_left[self.to_move] -= 1;
    }

    /// The position after a wall that fits (Q14) with both pawns' distances, or `None` when
    /// the wall shuts a pawn in (Q15).
    pub fn after_wall(&self, r: usize, c: usize, horizontal: bool) -> Option<(Pos, [u32; 2])> {
        let mut next = self.clone();
        next.put_wall(r, c, horizontal);
        let d0 = next.distance(0)?;
        let d1 = next.distance(1)?;
        next.to_move = 1 - self.to_move;
        Some((next, [d0, d1]))
    }

    /// Q20: whether `p`'s pawn blocks the other pawn (no path avoiding `p`'s cell).
    pub fn blocks(&self, p: usize) -> bool {
        let q = 1 - p;
        let (r, c) = self.pawns[q];
        self.distances(q, Some(self.pawns[p]))[r * self.n + c] == FAR
    }

    /// Every legal action of the side to move (Q11-Q16, Q19-Q20).
    pub fn legal(&self) -> Vec<Act> {
        let mut out: Vec<Act> = self
            .pawn_moves()
            .into_iter()
            .map(|(r, c)| Act::Pawn(r, c))
            .collect();
        for r in 0..self.n - 1 {
            for c in 0..self.n - 1 {
                for horizontal in [true, false] {
                    if self.wall_fits(r, c, horizontal)
                        && self.after_wall(r, c, horizontal).is_some()
                    {
                        out.push(Act::Wall { r, c, horizontal });
                    }
                }
            }
        }
        if !self.blocks(self.to_move) {
            out.push(Act::Pass);
        }
        out
    }

    /// Plays a legal action.
    pub fn play(&mut self, a: Act) {
        match a {
            Act::Pawn(r, c) => self.pawns[self.to_move] = (r, c),
            Act::Wall { r, c, horizontal } => self.put_wall(r, c, horizontal),
            Act::Pass => {}
        }
        self.to_move = 1 - self.to_move;
    }

    /// The standard notation of the crate's clients: files `a`… from the left, ranks `1`…
    /// from the bottom; a wall is named by the lower-left cell of the 2×2 block around its
    /// center, then `h` or `v`.
    pub fn name(&self, a: Act) -> String {
        let file = |c: usize| char::from(b'a' + c as u8);
        match a {
            Act::Pawn(r, c) => format!("{}{}", file(c), self.n - r),
            Act::Wall { r, c, horizontal } => {
                format!(
                    "{}{}{}",
                    file(c),
                    self.n - 1 - r,
                    if horizontal { 'h' } else { 'v' }
                )
            }
            Act::Pass => "pass".to_owned(),
        }
    }

    /// Reads the standard notation back.
    pub fn parse(&self, text: &str) -> Option<Act> {
        if text == "pass" {
            return Some(Act::Pass);
        }
        let bytes = text.as_bytes();
        let col = usize::from(bytes.first()?.checked_sub(b'a')?);
        let (digits, wall) = match bytes.last()? {
            b'h' => (&text[1..text.len() - 1], Some(true)),
            b'v' => (&text[1..text.len() - 1], Some(false)),
            _ => (&text[1..], None),
        };
        let rank: usize = digits.parse().ok()?;
        match wall {
            None => Some(Act::Pawn(self.n.checked_sub(rank)?, col)),
            Some(horizontal) => Some(Act::Wall {
                r: (self.n - 1).checked_sub(rank)?,
                c: col,
                horizontal,
            }),
        }
    }
}

/// A won game, less the plies it takes.
const WIN: i32 = 1_000_000;
/// One step of the race.
const STEP: i32 = 100;

/// The reference player: a fixed-depth alpha-beta search.
#[derive(Clone, Debug)]
pub struct Player {
    /// Plies searched (its move, the reply, ...).
    pub depth: u32,
    /// A wall in hand, in hundredths of a step.
    pub wall_value: i32,
    /// Positions scored or expanded in the last choice.
    pub nodes: u64,
}

impl Player {
    pub fn new(depth: u32) -> Player {
        Player {
            depth,
            wall_value: 60,
            nodes: 0,
        }
    }

    /// The side to move's score of `pos`, whose distances are `dist` (Q30).
    fn score(&self, pos: &Pos, dist: [u32; 2]) -> i32 {
        let me = pos.to_move;
        let (mine, theirs) = (dist[me] as i32, dist[1 - me] as i32);
        if pos.walls_left == [0, 0] {
            // Q16: nobody can wall; the side to move arrives first when not farther.
            let margin = theirs - mine;
            return if margin >= 0 {
                WIN / 2 + margin * STEP
            } else {
                -WIN / 2 + margin * STEP
            };
        }
        (theirs - mine) * STEP
            + STEP / 2
            + self.wall_value * (pos.walls_left[me] as i32 - pos.walls_left[1 - me] as i32)
    }

    /// Candidate children of `pos` with their distances: every pawn move, and the walls that
    /// cut the opponent's shortest path or touch a pawn's corners (Q14-Q15 checked).
    fn children(&self, pos: &Pos) -> Vec<(Act, Pos, [u32; 2])> {
        let n = pos.n;
        let me = pos.to_move;
        let mut out = Vec::with_capacity(48);
        for (r, c) in pos.pawn_moves() {
            let mut next = pos.clone();
            next.play(Act::Pawn(r, c));
            let d = [
                next.distance(0).unwrap_or(FAR as u32),
                next.distance(1).unwrap_or(FAR as u32),
            ];
            out.push((Act::Pawn(r, c), next, d));
        }
        if pos.walls_left[me] == 0 {
            return out;
        }
        let m = n - 1;
        let mut slots = vec![[false; 2]; m * m];
        let mut mark = |r: isize, c: isize, horizontal: bool| {
            if r >= 0 && c >= 0 && (r as usize) < m && (c as usize) < m {
                slots[r as usize * m + c as usize][usize::from(horizontal)] = true;
            }
        };
        // The opponent's shortest path, cut at each step by the two slots across it.
        let them = 1 - me;
        let dist = pos.distances(them, None);
        let mut at = pos.pawns[them];
        while dist[at.0 * n + at.1] > 0 {
            let here = dist[at.0 * n + at.1];
            let Some((d, next)) = DIRECTIONS.iter().find_map(|&d| {
                pos.open(at, d)
                    .filter(|&(r, c)| dist[r * n + c] + 1 == here)
                    .map(|x| (d, x))
            }) else {
                break;
            };
            let (r, c) = (at.0 as isize, at.1 as isize);
            match d {
                (1, 0) => (mark(r, c, true), mark(r, c - 1, true)),
                (-1, 0) => (mark(r - 1, c, true), mark(r - 1, c - 1, true)),
                (0, 1) => (mark(r, c, false), mark(r - 1, c, false)),
                _ => (mark(r, c - 1, false), mark(r - 1, c - 1, false)),
            };
            at = next;
        }
        // The four corners of each pawn's cell, both orientations.
        for (r, c) in pos.pawns {
            let (r, c) = (r as isize, c as isize);
            for (wr, wc) in [(r - 1, c - 1), (r - 1, c), (r, c - 1), (r, c)] {
                mark(wr, wc, true);
                mark(wr, wc, false);
            }
        }
        for (i, s) in slots.iter().enumerate() {
            for horizontal in [true, false] {
                let (r, c) = (i / m, i % m);
                if s[usize::from(horizontal)]
                    && pos.wall_fits(r, c, horizontal)
                    && let Some((next, d)) = pos.after_wall(r, c, horizontal)
                {
                    out.push((Act::Wall { r, c, horizontal }, next, d));
                }
            }
        }
        out
    }

    /// Negamax alpha-beta: the score of `pos` for its side to move.
    fn search(
        &mut self,
        pos: &Pos,
        dist: [u32; 2],
        depth: u32,
        ply: i32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if pos.winner().is_some() {
            // Only the side that just moved can have arrived (Q17).
            return -WIN + ply;
        }
        if depth == 0 {
            return self.score(pos, dist);
        }
        let mut kids = self.children(pos);
        if kids.is_empty() {
            // Hemmed in by the other pawn with no walls: the only action is to pass (Q19).
            let mut next = pos.clone();
            next.play(Act::Pass);
            return -self.search(&next, dist, depth - 1, ply + 1, -beta, -alpha);
        }
        if depth >= 2 {
            // Best first by the static score (the child's score is the opponent's).
            kids.sort_by_cached_key(|k| self.static_of(&k.1, k.2));
        }
        let mut alpha = alpha;
        let mut best = -2 * WIN;
        for (_, next, d) in &kids {
            let v = -self.search(next, *d, depth - 1, ply + 1, -beta, -alpha);
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The static score of a child for its side to move (a won child scores as lost).
    fn static_of(&self, pos: &Pos, dist: [u32; 2]) -> i32 {
        if pos.winner().is_some() {
            -WIN
        } else {
            self.score(pos, dist)
        }
    }

    /// The chosen action; ties go to the first in an order shuffled by `rng`.
    pub fn choose(&mut self, pos: &Pos, rng: &mut dyn RandomSource) -> Act {
        self.nodes = 0;
        let mut kids = self.children(pos);
        if kids.is_empty() {
            return Act::Pass;
        }
        for i in (1..kids.len()).rev() {
            let j = (rng.below(i as u32 + 1) as usize).min(i);
            kids.swap(i, j);
        }
        kids.sort_by_cached_key(|k| self.static_of(&k.1, k.2));
        let mut alpha = -2 * WIN;
        let mut best = kids[0].0;
        for (a, next, d) in &kids {
            let v = -self.search(next, *d, self.depth.saturating_sub(1), 1, -2 * WIN, -alpha);
            if v > alpha {
                alpha = v;
                best = *a;
            }
        }
        best
    }
}
