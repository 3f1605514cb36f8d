//! Fits the horizon evaluation of Kalah Hard's search (`bot::HORIZON_WEIGHTS`): a linear
//! estimate of the margin the mover still wins from the pits, fitted by least squares to
//! exact values from the solver.
//!
//! `cargo run --release -p ludus-mancala --example horizon_weights -- [FEWEST MOST COUNT]`
//!
//! Positions come from random games (uniform random sows from the start; game `k` uses seed
//! `k`), one per game, taken among those with FEWEST to MOST seeds in the pits (default 22 to
//! 34: where the search's horizon lands when Hard searches a position of 37-48 seeds about 20
//! sows deep), COUNT of them (default 6,000), each solved exactly with the endgame database.
//! The first half fits the weights, the second half measures them: the root-mean-square error
//! of each evaluation against the exact values is printed next to the store difference alone
//! (0) and the sweep (each side's pits counted as its own, M7). Deterministic: the same
//! arguments print the same weights. Prints the weights in eighths of a seed, as `bot.rs`
//! holds them.
//!
//! Features (M1, M5): the seeds in each of the 12 pits (mover's pits 1–6, then the
//! opponent's), how many of the mover's pits end a sow in its store (an extra turn now), the
//! same for the opponent, and a constant.

use ludus_mancala::{EndgameDb, KalahPosition, Solver};
use ludus_rules::{RandomSource, SplitMix64};

const FEATURES: usize = 15;

fn features(p: &[u8; 12]) -> [f64; FEATURES] {
    let mut f = [0.0; FEATURES];
    for (x, &seeds) in f.iter_mut().zip(p) {
        *x = f64::from(seeds);
    }
    // A pit with as many seeds as places to its store (pit k: 7 - k) ends in the store (M5).
    let extra_turns = |row: &[u8]| {
        row.iter()
            .enumerate()
            .filter(|&(i, &seeds)| usize::from(seeds) == 6 - i)
            .count() as f64
    };
    f[12] = extra_turns(&p[..6]);
    f[13] = extra_turns(&p[6..]);
    f[14] = 1.0;
    f
}

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let fewest = args.first().copied().unwrap_or(22);
    let most = args.get(1).copied().unwrap_or(34);
    let count = args.get(2).copied().unwrap_or(6_000) as usize;
    let db = EndgameDb::global();
    let mut solver = Solver::with_endgame_db(22, db);
    let mut samples: Vec<([u8; 12], f64)> = Vec::with_capacity(count);
    let mut seed = 1u64;
    while samples.len() < count {
        let mut rng = SplitMix64(seed);
        seed += 1;
        let mut pos = KalahPosition::start();
        let mut band = Vec::new();
        while !pos.is_over() {
            if (fewest..=most).contains(&pos.seeds()) {
                band.push(pos);
            }
            let legal = pos.legal_pits();
            let pit = legal[rng.below(legal.len() as u32) as usize];
            let Some(next) = pos.after_sow(pit) else {
                break;
            };
            pos = next;
        }
        if band.is_empty() {
            continue;
        }
        let p = band[rng.below(band.len() as u32) as usize];
        let solved = solver.solve(&p);
        let [mine, theirs] = p.stores();
        let from_pits = solved.margin - (i32::from(mine) - i32::from(theirs));
        let mut pits = [0u8; 12];
        pits[..6].copy_from_slice(p.mover_pits());
        pits[6..].copy_from_slice(p.opponent_pits());
        samples.push((pits, f64::from(from_pits)));
    }
    let (fit, check) = samples.split_at(samples.len() / 2);
    let weights = least_squares(fit);
    let sweep = |p: &[u8; 12]| {
        p[..6].iter().map(|&s| f64::from(s)).sum::<f64>()
            - p[6..].iter().map(|&s| f64::from(s)).sum::<f64>()
    };
    let linear = |p: &[u8; 12]| {
        features(p)
            .iter()
            .zip(&weights)
            .map(|(f, w)| f * w)
            .sum::<f64>()
    };
    let eighths: Vec<i32> = weights.iter().map(|w| (w * 8.0).round() as i32).collect();
    let in_eighths = |p: &[u8; 12]| {
        features(p)
            .iter()
            .zip(&eighths)
            .map(|(f, &w)| f * f64::from(w))
            .sum::<f64>()
            / 8.0
    };
    let rmse = |eval: &dyn Fn(&[u8; 12]) -> f64| {
        let sum: f64 = check.iter().map(|(p, v)| (eval(p) - v).powi(2)).sum();
        (sum / check.len() as f64).sqrt()
    };
    println!(
        "{} positions of {fewest}-{most} seeds ({} fitted, {} checked); RMSE against the exact values:",
        samples.len(),
        fit.len(),
        check.len()
    );
    println!("  store difference alone: {:.2}", rmse(&|_| 0.0));
    println!("  sweep: {:.2}", rmse(&sweep));
    println!("  fitted: {:.2}", rmse(&linear));
    println!("  fitted, in eighths: {:.2}", rmse(&in_eighths));
    println!("weights in eighths (pits 1-6, their pits 1-6, own extra turns, theirs, constant):");
    println!("{eighths:?}");
}

/// Least-squares weights by the normal equations, solved by Gauss-Jordan elimination.
fn least_squares(samples: &[([u8; 12], f64)]) -> [f64; FEATURES] {
    let mut a = [[0.0f64; FEATURES + 1]; FEATURES];
    for (p, v) in samples {
        let f = features(p);
        for i in 0..FEATURES {
            for j in 0..FEATURES {
                a[i][j] += f[i] * f[j];
            }
            a[i][FEATURES] += f[i] * v;
        }
    }
    // A touch of ridge keeps a feature that never varies from making the system singular.
    for (i, row) in a.iter_mut().enumerate() {
        row[i] += 1e-6;
    }
    for c in 0..FEATURES {
        let pivot = (c..FEATURES)
            .max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))
            .unwrap_or(c);
        a.swap(c, pivot);
        for r in 0..FEATURES {
            if r != c {
                let m = a[r][c] / a[c][c];
                let pivot_row = a[c];
                for (x, p) in a[r][c..].iter_mut().zip(&pivot_row[c..]) {
                    *x -= m * p;
                }
            }
        }
    }
    std::array::from_fn(|i| a[i][FEATURES] / a[i][i])
}
