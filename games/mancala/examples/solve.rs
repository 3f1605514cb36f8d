//! Solves Kalah positions exactly and prints the margin, best sow, positions searched and time.
//!
//! `cargo run --release -p ludus-mancala --example solve -- [--db N] [--bits B] [MODE]`
//!
//! - `--db N`: the endgame database of every position with at most N seeds in the pits
//!   (default `DEFAULT_DB_SEEDS`; `--db 0` searches without one). Its build time is printed.
//! - `--bits B`: 2^B transposition-table slots of 16 bytes (default 24: 256 MiB).
//! - MODE `--start` (default): the 6×4 start (M13).
//! - MODE `--pits a1 … a6 b1 … b6`: one position, the mover's pits 1–6 then the opponent's.
//! - MODE `--midgame K S`: K positions from random games (seeds 1..=K, uniform random sows),
//!   each the first with at most S seeds in the pits, solved with a fresh table each; prints
//!   each position's pits (to replay with `--pits`) and the slowest and median times.
use std::time::{Duration, Instant};

use ludus_mancala::egdb::{DEFAULT_DB_SEEDS, EndgameDb};
use ludus_mancala::{FirstPlayer, KalahPosition, Mancala, MancalaOptions, RuleSet, Solver};
use ludus_rules::{Game, RandomSource, SplitMix64};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name);
    let number = |name: &str, default: u32| {
        flag(name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let db_seeds = number("--db", DEFAULT_DB_SEEDS);
    let bits = number("--bits", 24);
    let db: Option<&'static EndgameDb> = (db_seeds > 0).then(|| {
        let t = Instant::now();
        let cpu = cpu_seconds();
        let db: &'static EndgameDb = Box::leak(Box::new(EndgameDb::build(db_seeds)));
        println!(
            "endgame database: {} seeds, {} positions ({:.1} MiB), built in {:.2?} (cpu {:.2} s)",
            db.max_seeds(),
            db.len(),
            db.len() as f64 / 1048576.0,
            t.elapsed(),
            cpu_seconds() - cpu,
        );
        db
    });
    let solver = |bits: u32| match db {
        Some(db) => Solver::with_endgame_db(bits, db),
        None => Solver::new(bits),
    };
    if let Some(i) = flag("--pits") {
        let p: Vec<u8> = args[i + 1..]
            .iter()
            .take(12)
            .filter_map(|a| a.parse().ok())
            .collect();
        assert_eq!(p.len(), 12, "--pits takes 12 seed counts");
        let pos = position(&p);
        report(&mut solver(bits), &pos);
    } else if let Some(i) = flag("--midgame") {
        let count: u64 = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(20);
        let most: u32 = args.get(i + 2).and_then(|v| v.parse().ok()).unwrap_or(36);
        let mut times = Vec::new();
        for seed in 1..=count {
            let Some(pos) = midgame(seed, most) else {
                continue;
            };
            times.push(report(&mut solver(bits), &pos));
        }
        times.sort();
        if let (Some(max), Some(median)) = (times.last(), times.get(times.len() / 2)) {
            println!(
                "{} positions of at most {most} seeds: median {median:.2?}, slowest {max:.2?} (wall clock)",
                times.len()
            );
        }
    } else {
        report(&mut solver(bits), &KalahPosition::start());
    }
}

fn position(p: &[u8]) -> KalahPosition {
    let mut a = [0u8; 6];
    let mut b = [0u8; 6];
    a.copy_from_slice(&p[..6]);
    b.copy_from_slice(&p[6..12]);
    KalahPosition::new(a, b, [0, 0]).expect("at most 120 seeds")
}

/// The first position of a random game (seeded) with at most `most` seeds in the pits.
fn midgame(seed: u64, most: u32) -> Option<KalahPosition> {
    let options = MancalaOptions {
        rule_set: RuleSet::Kalah,
        first: FirstPlayer::Seat0,
    };
    let mut rng = SplitMix64(seed);
    let mut game = Mancala::setup(options, 2, &mut rng).ok()?;
    while let Some(seat) = game.to_move() {
        let pos = KalahPosition::from_game(&game)?;
        if pos.seeds() <= most {
            // The stores are left out: they add to the margin but not to the work.
            let mut p = pos.mover_pits().to_vec();
            p.extend_from_slice(pos.opponent_pits());
            return Some(position(&p));
        }
        let legal = game.legal_actions(seat);
        let sow = legal[rng.below(legal.len() as u32) as usize];
        game = game.apply(seat, &sow, &mut rng).ok()?;
    }
    None
}

/// CPU seconds this process has used (user + system, Linux `/proc`; 0 elsewhere): on a
/// shared machine wall-clock time mostly measures the other processes.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces): utime and stime are the 12th
    // and 13th, in clock ticks of 1/100 s.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse().ok())
        .collect();
    fields.iter().sum::<f64>() / 100.0
}

fn report(solver: &mut Solver, pos: &KalahPosition) -> Duration {
    if std::env::args().any(|a| a == "--hard") {
        return report_hard(pos);
    }
    let t = Instant::now();
    let cpu = cpu_seconds();
    let s = solver.solve(pos);
    let took = t.elapsed();
    println!(
        "pits {:?} {:?} ({} seeds): margin {} best {:?} nodes {} time {took:.2?} cpu {:.2} s",
        pos.mover_pits(),
        pos.opponent_pits(),
        pos.seeds(),
        s.margin,
        s.best,
        s.nodes,
        cpu_seconds() - cpu,
    );
    took
}

/// `--hard`: Kalah Hard's choice at its default work instead of a solve (its sow, the
/// positions it searched, whether its exact solve finished, its CPU time).
fn report_hard(pos: &KalahPosition) -> Duration {
    use ludus_rules::{Bot, Budget, Level};
    let t = Instant::now();
    let cpu = cpu_seconds();
    let budget = Budget::work(Mancala::default_work(Level::Hard));
    let hard = ludus_mancala::bot::kalah_hard_choice(pos, &budget, &mut SplitMix64(0));
    let took = t.elapsed();
    println!(
        "pits {:?} {:?} ({} seeds): Hard {hard:?} time {took:.2?} cpu {:.2} s",
        pos.mover_pits(),
        pos.opponent_pits(),
        pos.seeds(),
        cpu_seconds() - cpu,
    );
    took
}
