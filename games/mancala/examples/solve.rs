//! Solves a Kalah position and prints the margin, best sow, nodes and time.
//!
//! `cargo run --release -p ludus-mancala --example solve -- [table_bits] [12 pit counts]`
//! (mover's pits 1–6 then the opponent's pits 1–6; the start position by default).
use std::time::Instant;

use ludus_mancala::{KalahPosition, Solver};

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let bits = args.first().copied().unwrap_or(Solver::DEFAULT_TABLE_BITS);
    let pos = if args.len() == 13 {
        let p: Vec<u8> = args[1..].iter().map(|&x| x as u8).collect();
        let mut a = [0u8; 6];
        let mut b = [0u8; 6];
        a.copy_from_slice(&p[..6]);
        b.copy_from_slice(&p[6..]);
        KalahPosition::new(a, b, [0, 0]).expect("at most 120 seeds")
    } else {
        KalahPosition::start()
    };
    let mut solver = Solver::new(bits);
    let t = Instant::now();
    let s = solver.solve(&pos);
    println!(
        "margin {} best {:?} nodes {} time {:.2?}",
        s.margin,
        s.best,
        s.nodes,
        t.elapsed()
    );
}
