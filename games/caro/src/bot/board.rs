//! The bots' own board: a padded array with the shape of every empty cell kept up to date.
//!
//! Placing or lifting a stone changes the shapes of the cells on the four lines through it
//! (five each side), so only those 4 × 11 entries are recomputed, by table lookup
//! ([`super::patterns`]). The board also counts, for every cell, the stones within two cells
//! of it: the bots only consider empty cells near stones (a bounded candidate set).

use super::patterns::{self, BLOCKED, EMPTY, FIVE, FOUR, OPEN_FOUR, OPEN_THREE, OWN, REACH};
use crate::{Caro, Cell, line};

/// A cell state on the bots' board: empty, a player's stone (player 0 is X), or off the board.
pub const WALL: u8 = 3;
/// Padding around the board: a shape reads five cells past any board cell.
const PAD: usize = REACH;
/// Stones within this many cells (in both directions) make an empty cell a candidate.
const NEAR: isize = 2;

/// What each shape is worth to the player who would make it (move ordering and evaluation).
const SHAPE_VALUE: [i32; 9] = [0, 1, 6, 24, 30, 220, 200, 12_000, 1_000_000];

/// The stone of a player number: 1 for X (player 0), 2 for O.
fn stone_code(player: usize) -> u8 {
    player as u8 + 1
}

/// A fixed pseudo-random key for a stone of `player` on `at` (SplitMix64 of the pair).
fn zobrist(at: usize, player: usize) -> u64 {
    let mut z = (at as u64 * 2 + player as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone)]
pub struct Board {
    size: usize,
    stride: usize,
    steps: [isize; 4],
    cells: Vec<u8>,
    /// `shapes[player][cell][direction]`: what `player` would make there (0 when occupied).
    shapes: [Vec<[u8; 4]>; 2],
    near: Vec<u8>,
    table: &'static [u8],
    blocked_ends: bool,
    exactly_five: bool,
    placed: Vec<usize>,
    /// Zobrist hash of the stones: equal positions reached in different orders share
    /// their search results.
    pub hash: u64,
    /// Stones placed on this board since it was built, search moves included: the work unit.
    pub work: u64,
}

impl Board {
    /// The bots' board for a game's position.
    pub fn of(game: &Caro) -> Board {
        let options = game.options();
        let size = usize::from(options.size);
        let stride = size + 2 * PAD;
        let mut cells = vec![WALL; stride * stride];
        for row in 0..size {
            for col in 0..size {
                cells[(row + PAD) * stride + col + PAD] = EMPTY;
            }
        }
        let s = stride as isize;
        let mut board = Board {
            size,
            stride,
            // C4's four directions, as in `line::DIRECTIONS`: (1,0), (0,1), (1,1), (1,-1).
            steps: [1, s, s + 1, 1 - s],
            shapes: [vec![[0; 4]; cells.len()], vec![[0; 4]; cells.len()]],
            near: vec![0; cells.len()],
            cells,
            table: patterns::table((options.blocked_ends, options.exactly_five)),
            blocked_ends: options.blocked_ends,
            exactly_five: options.exactly_five,
            placed: Vec::new(),
            hash: 0,
            work: 0,
        };
        for (i, cell) in game.moves().iter().enumerate() {
            let at = board.index(*cell);
            board.cells[at] = stone_code(i % 2);
            board.placed.push(at);
            board.hash ^= zobrist(at, i % 2);
            board.mark_near(at, 1);
        }
        for at in 0..board.cells.len() {
            if board.cells[at] == EMPTY {
                for dir in 0..4 {
                    board.refresh(at, dir);
                }
            }
        }
        board
    }

    pub fn index(&self, cell: Cell) -> usize {
        (usize::from(cell.row) + PAD) * self.stride + usize::from(cell.col) + PAD
    }

    pub fn cell(&self, at: usize) -> Cell {
        let (row, col) = (at / self.stride - PAD, at % self.stride - PAD);
        Cell::new(col as u8, row as u8)
    }

    pub fn is_empty(&self, at: usize) -> bool {
        self.cells[at] == EMPTY
    }

    pub fn stones(&self) -> usize {
        self.placed.len()
    }

    /// The last stone placed.
    pub fn last(&self) -> Option<usize> {
        self.placed.last().copied()
    }

    pub fn first_empty(&self) -> Option<usize> {
        self.cells.iter().position(|&c| c == EMPTY)
    }

    /// The middle of the board (H8 on 15×15, J10 on 19×19).
    pub fn center(&self) -> usize {
        let mid = self.size / 2 + PAD;
        mid * self.stride + mid
    }

    /// The cell `k` steps from `at` along `dir` (possibly a wall; the padding keeps
    /// |k| ≤ 5 inside the array).
    pub fn along(&self, at: usize, dir: usize, k: isize) -> usize {
        (at as isize + k * self.steps[dir]) as usize
    }

    /// Empty cells with a stone within two cells: where the bots look for moves.
    pub fn candidates(&self) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&at| self.cells[at] == EMPTY && self.near[at] > 0)
            .collect()
    }

    pub fn place(&mut self, at: usize, player: usize) {
        debug_assert_eq!(self.cells[at], EMPTY);
        self.cells[at] = stone_code(player);
        self.placed.push(at);
        self.hash ^= zobrist(at, player);
        self.work += 1;
        self.mark_near(at, 1);
        self.refresh_lines(at);
    }

    pub fn undo(&mut self) {
        if let Some(at) = self.placed.pop() {
            self.hash ^= zobrist(at, usize::from(self.cells[at]) - 1);
            self.cells[at] = EMPTY;
            self.mark_near(at, -1);
            self.refresh_lines(at);
        }
    }

    fn mark_near(&mut self, at: usize, by: i8) {
        for dr in -NEAR..=NEAR {
            for dc in -NEAR..=NEAR {
                let k = (at as isize + dr * self.stride as isize + dc) as usize;
                self.near[k] = self.near[k].wrapping_add_signed(by);
            }
        }
    }

    fn refresh_lines(&mut self, at: usize) {
        for dir in 0..4 {
            for k in -(REACH as isize)..=REACH as isize {
                let c = self.along(at, dir, k);
                if self.cells[c] != WALL {
                    self.refresh(c, dir);
                }
            }
        }
    }

    fn refresh(&mut self, at: usize, dir: usize) {
        if self.cells[at] != EMPTY {
            self.shapes[0][at][dir] = 0;
            self.shapes[1][at][dir] = 0;
            return;
        }
        let keys = self.keys(at, dir, None);
        self.shapes[0][at][dir] = self.table[keys[0]];
        self.shapes[1][at][dir] = self.table[keys[1]];
    }

    /// Both players' shape-table keys of the window around `at` along `dir`, with the
    /// empty cell `blocker` (if any) read as an opponent stone for both.
    fn keys(&self, at: usize, dir: usize, blocker: Option<usize>) -> [usize; 2] {
        let step = self.steps[dir];
        let mut keys = [0usize; 2];
        let mut weight = 1;
        for k in (-(REACH as isize)..=REACH as isize).filter(|&k| k != 0) {
            let c = (at as isize + k * step) as usize;
            let stone = self.cells[c];
            for (player, key) in keys.iter_mut().enumerate() {
                let state = if Some(c) == blocker {
                    BLOCKED
                } else if stone == EMPTY {
                    EMPTY
                } else if stone == stone_code(player) {
                    OWN
                } else {
                    BLOCKED
                };
                *key += usize::from(state) * weight;
            }
            weight *= 3;
        }
        keys
    }

    /// Whether `player` placing on the empty cell `at` makes a winning run (C7), judged on
    /// the real board by the crate's own C6 table ([`line::wins`]).
    pub fn wins_at(&self, at: usize, player: usize) -> bool {
        self.wins_at_unless(at, player, None)
    }

    /// [`Board::wins_at`] with the empty cell `blocker` (if any) read as an opponent stone:
    /// whether an answer there leaves the win standing.
    fn wins_at_unless(&self, at: usize, player: usize, blocker: Option<usize>) -> bool {
        if self.cells[at] != EMPTY || Some(at) == blocker {
            return false;
        }
        (0..4).any(|dir| self.winning_run_ends(at, player, dir, blocker).is_some())
    }

    /// When `player` placing on `at` makes a winning run along `dir` (C4-C6, `blocker` read
    /// as an opponent stone), the two cells just past that run's ends.
    fn winning_run_ends(
        &self,
        at: usize,
        player: usize,
        dir: usize,
        blocker: Option<usize>,
    ) -> Option<[usize; 2]> {
        let own = stone_code(player);
        let step = self.steps[dir];
        let mut blocked = 0;
        let mut length = 1;
        let mut ends = [at; 2];
        for (end, sign) in ends.iter_mut().zip([-1, 1]) {
            let mut c = at as isize + sign * step;
            while self.cells[c as usize] == own {
                length += 1;
                c += sign * step;
            }
            *end = c as usize;
            if self.cells[c as usize] != EMPTY || Some(c as usize) == blocker {
                blocked += 1;
            }
        }
        line::wins(length, blocked, self.blocked_ends, self.exactly_five).then_some(ends)
    }

    /// The answers to `attacker`'s winning cells `wins`: the empty cells where one stone of
    /// the other player leaves none of them winning. A win dies when its cell is taken or,
    /// under the C5 blocked-ends rule, when a stone just past an end of the run it would make
    /// leaves that run blocked at both ends (C4): X on B2-E5 wins on A1 and on F6, and only
    /// F6 stops both, since A1's five would then be blocked by the edge and by F6. Empty
    /// when no single stone stops them all.
    pub fn saving_cells(&self, wins: &[usize], attacker: usize) -> Vec<usize> {
        let mut tried = Vec::new();
        for &win in wins {
            tried.push(win);
            for dir in 0..4 {
                if let Some(ends) = self.winning_run_ends(win, attacker, dir, None) {
                    tried.extend(ends.into_iter().filter(|&c| self.cells[c] == EMPTY));
                }
            }
        }
        tried.sort_unstable();
        tried.dedup();
        tried.retain(|&answer| {
            wins.iter()
                .all(|&win| !self.wins_at_unless(win, attacker, Some(answer)))
        });
        tried
    }

    /// Every cell where `player` would win now.
    pub fn winning_cells(&self, player: usize) -> Vec<usize> {
        // A winning cell touches the run it completes, so it is always near a stone.
        self.candidates()
            .into_iter()
            .filter(|&at| self.wins_at(at, player))
            .collect()
    }

    /// The cells on the four lines through `at` where `player` would win now: after a
    /// stone on `at`, the only winning cells it can have created.
    pub fn winning_cells_through(&self, at: usize, player: usize) -> Vec<usize> {
        let mut found = Vec::new();
        for dir in 0..4 {
            for k in (-(REACH as isize)..=REACH as isize).filter(|&k| k != 0) {
                let c = self.along(at, dir, k);
                if self.wins_at(c, player) && !found.contains(&c) {
                    found.push(c);
                }
            }
        }
        found
    }

    /// Whether a stone of `player` on `at` would make a four (one move from a win) or better.
    pub fn makes_four(&self, at: usize, player: usize) -> bool {
        self.shapes[player][at]
            .iter()
            .any(|&s| (FOUR..=FIVE).contains(&s))
    }

    /// Whether a stone of `player` on `at` would make an open three (one move from an
    /// unstoppable open four).
    pub fn makes_open_three(&self, at: usize, player: usize) -> bool {
        self.shapes[player][at].contains(&OPEN_THREE)
    }

    /// What a stone of `player` on `at` is worth to `player`: its shapes, plus the
    /// combinations that win by force (two fours, a four and an open three, two open threes).
    pub fn value(&self, at: usize, player: usize) -> i32 {
        let shapes = &self.shapes[player][at];
        let mut value: i32 = shapes.iter().map(|&s| SHAPE_VALUE[usize::from(s)]).sum();
        let fours = shapes
            .iter()
            .filter(|&&s| s == FOUR || s == OPEN_FOUR)
            .count();
        let threes = shapes.iter().filter(|&&s| s == OPEN_THREE).count();
        if fours >= 2 || (fours == 1 && threes >= 1) {
            value += 8_000;
        } else if threes >= 2 {
            value += 3_000;
        }
        value
    }

    /// Whether `player` placing on `at` makes a threat that wins by force unless the
    /// opponent has a four of its own: an open four, two fours, or a four and an open three.
    pub fn makes_winning_threat(&self, at: usize, player: usize) -> bool {
        let shapes = &self.shapes[player][at];
        let fours = shapes
            .iter()
            .filter(|&&s| s == FOUR || s == OPEN_FOUR)
            .count();
        shapes.contains(&OPEN_FOUR) || fours >= 2 || (fours == 1 && shapes.contains(&OPEN_THREE))
    }

    /// The cells on the lines through `at` where `attacker` would make an open four, each
    /// with its direction: what an open three through `at` threatens.
    pub fn open_fours_through(&self, at: usize, attacker: usize) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for dir in 0..4 {
            for k in (-(REACH as isize)..=REACH as isize).filter(|&k| k != 0) {
                let c = self.along(at, dir, k);
                if self.cells[c] == EMPTY && self.shapes[attacker][c][dir] == OPEN_FOUR {
                    found.push((c, dir));
                }
            }
        }
        found
    }

    /// Every cell where `attacker` would make an open four, with its direction: its open
    /// threes, all over the board.
    pub fn open_fours(&self, attacker: usize) -> Vec<(usize, usize)> {
        self.candidates()
            .into_iter()
            .flat_map(|at| (0..4).map(move |dir| (at, dir)))
            .filter(|&(at, dir)| self.shapes[attacker][at][dir] == OPEN_FOUR)
            .collect()
    }

    /// The answers to open threes: the empty cells where one stone of the defender leaves
    /// none of `open_fours` (cells and directions where `attacker` would make an open four)
    /// open. Taking such a cell is one answer; under the C5 blocked-ends rule a stone a
    /// little further out can be another (it leaves the four's far completion blocked at
    /// both ends, C4). Empty when no single stone stops them all (a double open three).
    pub fn open_four_stops(&self, attacker: usize, open_fours: &[(usize, usize)]) -> Vec<usize> {
        let mut tried = Vec::new();
        for &(four, dir) in open_fours {
            for k in -(REACH as isize)..=REACH as isize {
                let c = self.along(four, dir, k);
                if self.cells[c] == EMPTY && !tried.contains(&c) {
                    tried.push(c);
                }
            }
        }
        tried.retain(|&answer| {
            open_fours.iter().all(|&(four, dir)| {
                four == answer
                    || self.table[self.keys(four, dir, Some(answer))[attacker]] != OPEN_FOUR
            })
        });
        tried
    }
}
