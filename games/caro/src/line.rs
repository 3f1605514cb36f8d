//! The winning-line check of C4-C7.

use crate::{Caro, Cell, Stone};

/// The four directions of C4: horizontal, vertical and the two diagonals.
pub const DIRECTIONS: [(i8, i8); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// A maximal run through one cell in one direction (C4).
#[derive(Clone, Eq, PartialEq, Debug)]
pub struct Run {
    /// The run's cells from one end to the other.
    pub cells: Vec<Cell>,
    /// How many of the two ends are blocked: by an opponent stone or the board edge (C4).
    pub blocked_ends: u8,
}

fn step(game: &Caro, cell: Cell, (dc, dr): (i8, i8)) -> Option<Cell> {
    let col = cell.col.checked_add_signed(dc)?;
    let row = cell.row.checked_add_signed(dr)?;
    (col < game.size() && row < game.size()).then_some(Cell::new(col, row))
}

/// The maximal run of `stone` through `cell` along `dir` (the cell must hold `stone`).
pub fn run_through(game: &Caro, cell: Cell, stone: Stone, dir: (i8, i8)) -> Run {
    let back = (-dir.0, -dir.1);
    let mut start = cell;
    let mut blocked_ends = 0;
    loop {
        match step(game, start, back) {
            Some(prev) if game.stone(prev) == Some(stone) => start = prev,
            Some(prev) if game.stone(prev).is_none() => break,
            _ => {
                blocked_ends += 1;
                break;
            }
        }
    }
    let mut cells = vec![start];
    let mut end = start;
    loop {
        match step(game, end, dir) {
            Some(next) if game.stone(next) == Some(stone) => {
                end = next;
                cells.push(next);
            }
            Some(next) if game.stone(next).is_none() => break,
            _ => {
                blocked_ends += 1;
                break;
            }
        }
    }
    Run {
        cells,
        blocked_ends,
    }
}

/// Whether a run wins under the chosen rules: the table of C6. Runs of 7 or more count as 6.
pub fn wins(
    run_length: usize,
    blocked_ends: u8,
    blocked_ends_rule: bool,
    exactly_five: bool,
) -> bool {
    if run_length < 5 {
        return false;
    }
    if exactly_five && run_length > 5 {
        return false;
    }
    !(blocked_ends_rule && blocked_ends == 2)
}

/// The winning run made by placing `stone` on `cell`, if any (C7: only lines through the
/// placed stone are checked).
pub fn winning_run(game: &Caro, cell: Cell, stone: Stone) -> Option<Vec<Cell>> {
    let options = game.options();
    DIRECTIONS.iter().find_map(|&dir| {
        let run = run_through(game, cell, stone, dir);
        wins(
            run.cells.len(),
            run.blocked_ends,
            options.blocked_ends,
            options.exactly_five,
        )
        .then_some(run.cells)
    })
}
