//! The Kalah 6×4 opening book of the Hard computer player (M11, M13): for every position
//! reachable in the first few sows from the start (both sides playing any sow), a best sow
//! found by the exact solver, so Hard plays perfectly from the first sow on.
//!
//! The data file `data/kalah_book.txt` is generated offline, not by hand:
//!
//! `cargo run --release -p ludus-mancala --example book -- SOWS DB_SEEDS > games/mancala/data/kalah_book.txt`
//!
//! (SOWS: how many sows deep the book goes; DB_SEEDS: the endgame database the solver uses).
//! The shipped book is `-- 1 18`: the start and the 6 positions one sow later (338 s to
//! generate on the shared machine, `BENCHMARKS.md`).
//! Each line is `a1 … a6 b1 … b6 best margin`: the mover's pits 1–6, the opponent's pits
//! 1–6, a best sow (1–6) and the final margin of the mover with perfect play, counting the stores
//! as reached from the start (stores do not change the best sow, so lookups use the pits). `#` starts a comment.

use crate::solver::PITS;

const BOOK: &str = include_str!("../data/kalah_book.txt");

/// A best sow (1–6) for `pits` (mover's row first), when the book holds the position.
pub(crate) fn best_sow(pits: &[u8; 2 * PITS]) -> Option<u8> {
    entries()
        .find(|(p, _, _)| p == pits)
        .map(|(_, best, _)| best)
}

/// Every entry of the book: pits, best sow, margin from the pits. Lines that do not parse
/// are skipped (the book's test checks there are none).
fn entries() -> impl Iterator<Item = ([u8; 2 * PITS], u8, i32)> {
    BOOK.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .filter_map(parse_line)
}

fn parse_line(line: &str) -> Option<([u8; 2 * PITS], u8, i32)> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() != 2 * PITS + 2 {
        return None;
    }
    let mut pits = [0u8; 2 * PITS];
    for (p, f) in pits.iter_mut().zip(&fields) {
        *p = f.parse().ok()?;
    }
    let best: u8 = fields[2 * PITS].parse().ok()?;
    let margin: i32 = fields[2 * PITS + 1].parse().ok()?;
    ((1..=PITS as u8).contains(&best) && pits[usize::from(best) - 1] > 0)
        .then_some((pits, best, margin))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of the shipped book parses, and the start is in it (M13: sow pit 3 wins
    /// by 8 from the start, as the ignored solver test proves from scratch).
    #[test]
    fn m13_the_book_parses_and_opens_with_the_solved_start() {
        let lines = BOOK
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .count();
        assert_eq!(entries().count(), lines);
        let start = [4u8; 2 * PITS];
        let (_, best, margin) = entries()
            .find(|(p, _, _)| *p == start)
            .unwrap_or_else(|| unreachable!("the start is the book's first line"));
        assert_eq!((best, margin), (3, 8));
    }
}
