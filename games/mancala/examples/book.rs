//! Generates the Kalah 6×4 opening book of the Hard computer player (`data/kalah_book.txt`).
//!
//! `cargo run --release -p ludus-mancala --example book -- [SOWS] [DB_SEEDS] > games/mancala/data/kalah_book.txt`
//!
//! Every position reachable from the start in at most SOWS sows (default 2; any sow of either
//! side) is solved exactly, one shared solver and endgame database (default 16 seeds) for all,
//! and written as `a1 … a6 b1 … b6 best margin` (mover first; margin from the pits). Progress
//! and timings go to stderr.
use std::collections::HashSet;
use std::time::Instant;

use ludus_mancala::egdb::{DEFAULT_DB_SEEDS, EndgameDb};
use ludus_mancala::{KalahPosition, Solver};

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sows = args.first().copied().unwrap_or(2);
    let db_seeds = args.get(1).copied().unwrap_or(DEFAULT_DB_SEEDS);
    let t = Instant::now();
    let db: &'static EndgameDb = Box::leak(Box::new(EndgameDb::build(db_seeds)));
    eprintln!(
        "endgame database of {db_seeds} seeds built in {:.2?}",
        t.elapsed()
    );
    // Breadth first, so the start comes first and every level follows the one before.
    let mut seen = HashSet::new();
    let mut level = vec![KalahPosition::start()];
    let mut book = Vec::new();
    seen.insert(KalahPosition::start());
    for depth in 0..=sows {
        let mut next = Vec::new();
        for pos in &level {
            book.push(*pos);
            if depth == sows {
                continue;
            }
            for pit in pos.legal_pits() {
                if let Some(child) = pos.after_sow(pit).filter(|c| !c.is_over())
                    && seen.insert(child)
                {
                    next.push(child);
                }
            }
        }
        level = next;
    }
    let mut solver = Solver::with_endgame_db(24, db);
    println!("# Kalah 6x4 opening book (M13): every position within {sows} sows of the start.");
    println!(
        "# Regenerate: cargo run --release -p ludus-mancala --example book -- {sows} {db_seeds} > games/mancala/data/kalah_book.txt"
    );
    println!(
        "# mover's pits 1-6, opponent's pits 1-6, best sow, margin the mover wins from the pits"
    );
    let all = Instant::now();
    for pos in &book {
        let t = Instant::now();
        let s = solver.solve(pos);
        let Some(best) = s.best else { continue };
        let pits: Vec<String> = pos
            .mover_pits()
            .iter()
            .chain(pos.opponent_pits())
            .map(|p| p.to_string())
            .collect();
        println!("{} {best} {}", pits.join(" "), s.margin);
        eprintln!(
            "{} -> {best} ({}) {} nodes {:.2?}",
            pits.join(" "),
            s.margin,
            s.nodes,
            t.elapsed()
        );
    }
    eprintln!("{} positions solved in {:.2?}", book.len(), all.elapsed());
}
