//! An independent referee for Caro positions, written from the rule text of
//! `shared/rules/caro.md` alone (C1 board, C4 runs and blocked ends, C5/C6 the four rule
//! combinations, C7 a placement wins at once). It shares no code with the crate: not its win
//! check (`line`), not the bots' board or shape tables. It judges by brute force, so that a
//! disagreement with the bots is a bug in the bots (or, when a game built from the same
//! stones ends where the referee sees no win, in one of the two win checks).
//!
//! Positions are classified for the side to move:
//! - **win in 1**: it has a cell that wins now (C7);
//! - **must block**: it cannot win now, the opponent could win on its next move, and the
//!   saving cells are the empty cells after which the opponent has no winning cell left
//!   (under C5 blocked-ends a save need not be the completion cell: a stone just past the end
//!   of the run a completion would make kills that five too);
//! - **VCF ≤ 3**: neither side can win now, and the side to move wins by consecutive fours
//!   within three of its own moves, the five included (four, four, five at most), whatever the
//!   opponent answers.
//!
//! The generator mixes seeded random play with planted lines near the board's edges and next
//! to opponent stones, so that blocked completions (C4) occur often.

#![allow(dead_code)]

use ludus_rules::{RandomSource, SplitMix64};

/// Nobody's stone.
pub const EMPTY: u8 = 0;
/// X's stone (C2: X moves first).
pub const X: u8 = 1;
/// O's stone.
pub const O: u8 = 2;

pub fn other(stone: u8) -> u8 {
    3 - stone
}

/// The rules a position is played under: C1 board side and the two C5 options.
#[derive(Copy, Clone, Debug, Eq, PartialEq)]
pub struct Rules {
    pub size: usize,
    pub blocked_ends: bool,
    pub exactly_five: bool,
}

impl Rules {
    /// Both board sizes (C1) with the four C5 combinations (C6).
    pub fn all() -> Vec<Rules> {
        let mut all = Vec::new();
        for size in [15, 19] {
            for blocked_ends in [false, true] {
                for exactly_five in [false, true] {
                    all.push(Rules {
                        size,
                        blocked_ends,
                        exactly_five,
                    });
                }
            }
        }
        all
    }

    pub fn name(&self) -> String {
        let rules = match (self.blocked_ends, self.exactly_five) {
            (false, false) => "free",
            (true, false) => "blocked-ends",
            (false, true) => "exactly-five",
            (true, true) => "blocked-ends+exactly-five",
        };
        format!("{0}x{0} {rules}", self.size)
    }
}

/// The C4 directions: horizontal, vertical, the two diagonals, as (column, row) steps.
const DIRECTIONS: [(isize, isize); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// A position: the stones on the board and the order they were placed in (X first,
/// alternating), so that a game can be replayed up to it.
#[derive(Clone, Debug)]
pub struct Position {
    pub rules: Rules,
    /// Row-major, `size * size`.
    pub cells: Vec<u8>,
    /// Every stone as (column, row), in the order placed.
    pub moves: Vec<(usize, usize)>,
}

impl Position {
    pub fn empty(rules: Rules) -> Self {
        Position {
            rules,
            cells: vec![EMPTY; rules.size * rules.size],
            moves: Vec::new(),
        }
    }

    pub fn to_move(&self) -> u8 {
        if self.moves.len().is_multiple_of(2) {
            X
        } else {
            O
        }
    }

    fn at(&self, col: isize, row: isize) -> Option<u8> {
        let n = self.rules.size as isize;
        (col >= 0 && row >= 0 && col < n && row < n)
            .then(|| self.cells[row as usize * self.rules.size + col as usize])
    }

    pub fn col_row(&self, index: usize) -> (usize, usize) {
        (index % self.rules.size, index / self.rules.size)
    }

    /// C1 notation of a cell: column letter, row number from the top.
    pub fn name(&self, index: usize) -> String {
        let (col, row) = self.col_row(index);
        format!("{}{}", (b'A' + col as u8) as char, row + 1)
    }

    /// C1 notation of each of `cells`, in order (for assertion and report messages).
    pub fn names(&self, cells: &[usize]) -> Vec<String> {
        cells.iter().map(|&i| self.name(i)).collect()
    }

    /// Whether `stone` placed on the empty cell `index` makes a winning run: C4 measures the
    /// maximal run through it in each direction and which ends are blocked (an opponent stone
    /// or off the board), C6 says whether that run wins (7+ counts as 6).
    pub fn wins(&self, index: usize, stone: u8) -> bool {
        let (col, row) = self.col_row(index);
        let (col, row) = (col as isize, row as isize);
        DIRECTIONS.iter().any(|&(dc, dr)| {
            let mut length = 1;
            let mut blocked = 0;
            for sign in [-1, 1] {
                let mut k = 1;
                loop {
                    match self.at(col + sign * k * dc, row + sign * k * dr) {
                        Some(s) if s == stone => {
                            length += 1;
                            k += 1;
                        }
                        Some(EMPTY) => break,
                        // An opponent stone or the edge (C4).
                        _ => {
                            blocked += 1;
                            break;
                        }
                    }
                }
            }
            let five_or_more = length >= 5;
            let six_or_more = length >= 6;
            let both_blocked = blocked == 2;
            five_or_more
                && !(self.rules.exactly_five && six_or_more)
                && !(self.rules.blocked_ends && both_blocked)
        })
    }

    /// Whether some run of `stone` on the board already wins (C6 applied to every stone).
    pub fn has_winning_run(&self, stone: u8) -> bool {
        (0..self.cells.len()).any(|i| {
            self.cells[i] == stone && {
                let mut probe = self.clone();
                probe.cells[i] = EMPTY;
                probe.wins(i, stone)
            }
        })
    }

    /// Every empty cell where `stone` wins now.
    pub fn winning_cells(&self, stone: u8) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&i| self.cells[i] == EMPTY && self.wins(i, stone))
            .collect()
    }

    /// The cells on the four lines through `index`, five each way, that are empty and win
    /// for `stone`. After `stone` places on `index`, these are the only cells where it can
    /// have gained a win: its own stone lengthens only the runs it joins (C4), and those lie
    /// on these lines.
    fn winning_cells_through(&self, index: usize, stone: u8) -> Vec<usize> {
        let (col, row) = self.col_row(index);
        let mut found = Vec::new();
        for (dc, dr) in DIRECTIONS {
            for k in (-5isize..=5).filter(|&k| k != 0) {
                let (c, r) = (col as isize + k * dc, row as isize + k * dr);
                if self.at(c, r) == Some(EMPTY) {
                    let i = r as usize * self.rules.size + c as usize;
                    if self.wins(i, stone) && !found.contains(&i) {
                        found.push(i);
                    }
                }
            }
        }
        found
    }

    pub fn place(&mut self, index: usize, stone: u8) {
        self.cells[index] = stone;
        self.moves.push(self.col_row(index));
    }

    pub fn lift(&mut self, index: usize) {
        self.cells[index] = EMPTY;
        self.moves.pop();
    }

    /// For the side to move, when it cannot win now: the empty cells after which the
    /// opponent has no winning cell. Every empty cell is tried against every opponent
    /// winning cell: a stone of ours never gives the opponent a new one (C4: it only blocks
    /// the opponent's runs), so those are the only ones to re-check.
    pub fn saving_cells(&self) -> Vec<usize> {
        let me = self.to_move();
        let threats = self.winning_cells(other(me));
        let mut probe = self.clone();
        (0..self.cells.len())
            .filter(|&i| {
                self.cells[i] == EMPTY && {
                    probe.place(i, me);
                    let saved = threats.iter().all(|&t| t == i || !probe.wins(t, other(me)));
                    probe.lift(i);
                    saved
                }
            })
            .collect()
    }

    /// [`Position::classify`] without the search for a VCF: what the side to move is forced
    /// to do (take its win, or stop the opponent's), [`Class::Quiet`] otherwise.
    pub fn classify_forced(&self) -> Class {
        let me = self.to_move();
        let wins = self.winning_cells(me);
        if !wins.is_empty() {
            return Class::WinIn1 { cells: wins };
        }
        let threats = self.winning_cells(other(me));
        if threats.is_empty() {
            return Class::Quiet;
        }
        Class::MustBlock {
            saves: self.saving_cells(),
            threats,
        }
    }

    /// Whether `me`, to move, wins by consecutive fours within `own_moves` of its moves (the
    /// five included), whatever the opponent answers.
    fn wins_by_fours(&mut self, me: u8, own_moves: u32) -> bool {
        if !self.winning_cells(me).is_empty() {
            return true;
        }
        own_moves >= 2 && (0..self.cells.len()).any(|m| self.four_wins_on(m, me, own_moves))
    }

    /// Whether `me` (to move, no win now) playing the four `m` wins within `own_moves`:
    /// the opponent cannot win at once, and after each of its answers `me` still wins by
    /// fours with one move fewer.
    fn four_wins_on(&mut self, m: usize, me: u8, own_moves: u32) -> bool {
        if self.cells[m] != EMPTY {
            return false;
        }
        self.place(m, me);
        let threats = self.winning_cells_through(m, me);
        let won = !threats.is_empty()
            && self.winning_cells(other(me)).is_empty()
            && (0..self.cells.len()).all(|r| {
                if self.cells[r] != EMPTY {
                    return true;
                }
                self.place(r, other(me));
                // An opponent stone never adds a win of ours (C4: it only blocks), so a
                // threat left standing is the win; else the fours must go on.
                let still = threats.iter().any(|&w| w != r && self.wins(w, me));
                let holds = still || self.wins_by_fours(me, own_moves - 1);
                self.lift(r);
                holds
            });
        self.lift(m);
        won
    }

    /// The first moves of every win by consecutive fours within `own_moves` moves, for the
    /// side to move when neither side can win now.
    pub fn vcf_first_moves(&self, own_moves: u32) -> Vec<usize> {
        let me = self.to_move();
        let mut probe = self.clone();
        (0..self.cells.len())
            .filter(|&m| probe.four_wins_on(m, me, own_moves))
            .collect()
    }

    /// What the side to move faces (see the module's documentation).
    pub fn classify(&self) -> Class {
        let forced = self.classify_forced();
        if forced != Class::Quiet {
            return forced;
        }
        for own_moves in 2..=3 {
            let moves = self.vcf_first_moves(own_moves);
            if !moves.is_empty() {
                return Class::Vcf { own_moves, moves };
            }
        }
        Class::Quiet
    }
}

/// What the side to move faces.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum Class {
    /// Its winning cells.
    WinIn1 { cells: Vec<usize> },
    /// The opponent's winning cells and the cells that stop them all (empty: lost).
    MustBlock {
        threats: Vec<usize>,
        saves: Vec<usize>,
    },
    /// The shortest win by fours (2 or 3 own moves, the five included) and every first move
    /// of one that short.
    Vcf { own_moves: u32, moves: Vec<usize> },
    /// None of the above.
    Quiet,
}

/// The bridge to the crate (not part of the judging): the game the referee's position was
/// built by, replayed through the crate's rules, a crate cell as the referee's index, and the
/// cell a bot level chooses there.
pub mod bridge {
    use ludus_caro::{Caro, CaroAction, CaroOptions, Cell};
    use ludus_rules::{Bot, Budget, Game, Level, SplitMix64};

    use super::Position;

    pub fn game_of(position: &Position) -> Caro {
        let rules = position.rules;
        let options = CaroOptions {
            size: rules.size as u8,
            blocked_ends: rules.blocked_ends,
            exactly_five: rules.exactly_five,
        };
        let mut rng = SplitMix64(0);
        let mut game = Caro::setup(options, 2, &mut rng).expect("valid options");
        for (i, &(col, row)) in position.moves.iter().enumerate() {
            let action = CaroAction {
                cell: Cell::new(col as u8, row as u8),
            };
            game = game
                .apply(i % 2, &action, &mut rng)
                .map_err(|(_, e)| e)
                .expect("the referee's stones are legal");
            assert!(
                game.outcome().is_none(),
                "the crate ended a game the referee sees going on: {:?}",
                position.moves
            );
        }
        game
    }

    pub fn index(position: &Position, cell: Cell) -> usize {
        usize::from(cell.row) * position.rules.size + usize::from(cell.col)
    }

    /// The cell `level` chooses with its default work (what players meet), seeded by `seed`.
    pub fn choice(position: &Position, level: Level, seed: u64) -> usize {
        let game = game_of(position);
        let seat = game.to_move().expect("the game goes on");
        let budget = Budget::work(Caro::default_work(level));
        let action = game
            .choose(seat, level, &budget, &mut SplitMix64(seed))
            .expect("a bot answers on its turn");
        index(position, action.cell)
    }
}

fn below(rng: &mut SplitMix64, bound: usize) -> usize {
    rng.below(bound as u32) as usize
}

/// A random empty cell within two of a random stone (anywhere when the board is empty).
fn near_stone(position: &Position, rng: &mut SplitMix64) -> Option<usize> {
    let n = position.rules.size;
    for _ in 0..50 {
        let index = if position.moves.is_empty() {
            below(rng, n * n)
        } else {
            let (col, row) = position.moves[below(rng, position.moves.len())];
            let c = col as isize + below(rng, 5) as isize - 2;
            let r = row as isize + below(rng, 5) as isize - 2;
            if c < 0 || r < 0 || c >= n as isize || r >= n as isize {
                continue;
            }
            r as usize * n + c as usize
        };
        if position.cells[index] == EMPTY {
            return Some(index);
        }
    }
    None
}

/// A line of 3 or 4 stones of one colour, gaps allowed, often starting on or next to an
/// edge and often with an opponent stone just past one end: the shapes where C4 blocking
/// decides what a completion is worth.
fn plant(stones: &mut Vec<(usize, u8)>, taken: &mut [u8], rules: Rules, rng: &mut SplitMix64) {
    let n = rules.size as isize;
    let (dc, dr) = DIRECTIONS[below(rng, 4)];
    let near_edge = below(rng, 2) == 0;
    let (mut col, mut row) = (
        below(rng, rules.size) as isize,
        below(rng, rules.size) as isize,
    );
    if near_edge {
        // Start at distance 0-1 from the edge the line comes from.
        let margin = below(rng, 2) as isize;
        if dc == 1 {
            col = margin;
        } else if dr == 1 {
            row = margin;
        }
        if dr == -1 {
            row = n - 1 - margin;
        }
    }
    let colour = if below(rng, 2) == 0 { X } else { O };
    let length = 5 + below(rng, 2);
    let filled = 3 + below(rng, 2);
    let mut slots: Vec<usize> = (0..length).collect();
    // Keep `filled` of the slots, at random.
    while slots.len() > filled {
        let i = below(rng, slots.len());
        slots.remove(i);
    }
    let cell = |k: isize| {
        let (c, r) = (col + k * dc, row + k * dr);
        (c >= 0 && r >= 0 && c < n && r < n).then(|| (r * n + c) as usize)
    };
    for k in slots {
        if let Some(i) = cell(k as isize)
            && taken[i] == EMPTY
        {
            taken[i] = colour;
            stones.push((i, colour));
        }
    }
    if below(rng, 2) == 0 {
        let end = if below(rng, 2) == 0 {
            -1
        } else {
            length as isize
        };
        if let Some(i) = cell(end)
            && taken[i] == EMPTY
        {
            taken[i] = other(colour);
            stones.push((i, other(colour)));
        }
    }
}

/// A position from `seed`: some random play near the stones, one or two planted lines, the
/// colours evened out (X has as many stones as O or one more), the stones then placed in an
/// order where no placement wins (C7: a game that ended is no position to move in). `None`
/// when no such order was found.
pub fn generate(rules: Rules, seed: u64) -> Option<Position> {
    let mut rng = SplitMix64(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x5EED);
    let mut scratch = Position::empty(rules);
    let random_stones = 2 + below(&mut rng, 30);
    for _ in 0..random_stones {
        let stone = scratch.to_move();
        let at = near_stone(&scratch, &mut rng)?;
        if scratch.wins(at, stone) {
            return None;
        }
        scratch.place(at, stone);
    }
    let mut stones: Vec<(usize, u8)> = Vec::new();
    let mut taken = scratch.cells.clone();
    for _ in 0..1 + below(&mut rng, 2) {
        plant(&mut stones, &mut taken, rules, &mut rng);
    }
    let mut xs: Vec<usize> = stones.iter().filter(|s| s.1 == X).map(|s| s.0).collect();
    let mut os: Vec<usize> = stones.iter().filter(|s| s.1 == O).map(|s| s.0).collect();
    // The random play already alternated; even out the planted stones with random ones.
    let x_first = scratch.moves.len().is_multiple_of(2);
    let mut evened = scratch.clone();
    for &i in xs.iter().chain(&os) {
        evened.cells[i] = taken[i];
    }
    loop {
        let (x, o) = (xs.len(), os.len());
        let want_x = if x_first { x < o } else { x <= o };
        let balanced = if x_first {
            x == o || x == o + 1
        } else {
            o == x || o == x + 1
        };
        if balanced && below(&mut rng, 3) != 0 {
            break;
        }
        let at = near_stone(&evened, &mut rng)?;
        let colour = if want_x { X } else { O };
        evened.cells[at] = colour;
        evened.moves.push(evened.col_row(at));
        if want_x { xs.push(at) } else { os.push(at) }
    }
    // Place the extra stones alternately after the random play, shuffled a few times until
    // no placement wins.
    let (first, second) = if x_first { (xs, os) } else { (os, xs) };
    for _ in 0..8 {
        let mut a = first.clone();
        let mut b = second.clone();
        shuffle(&mut a, &mut rng);
        shuffle(&mut b, &mut rng);
        let mut position = scratch.clone();
        let mut ok = true;
        for k in 0..a.len().max(b.len()) {
            for list in [&a, &b] {
                if let Some(&i) = list.get(k) {
                    let stone = position.to_move();
                    if position.cells[i] != EMPTY || position.wins(i, stone) {
                        ok = false;
                        break;
                    }
                    position.place(i, stone);
                }
            }
            if !ok {
                break;
            }
        }
        if ok {
            return Some(position);
        }
    }
    None
}

fn shuffle(list: &mut [usize], rng: &mut SplitMix64) {
    for i in (1..list.len()).rev() {
        let j = below(rng, i + 1);
        list.swap(i, j);
    }
}
