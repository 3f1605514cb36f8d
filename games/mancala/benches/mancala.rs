//! Sowing, whole random games and the Kalah solver.
//!
//! `cargo bench -p ludus-mancala -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used)] // a bench panics on a broken setup like a test does

#[path = "../tests/common/mod.rs"]
mod common;

use common::{new_game, random_game};
use criterion::{Criterion, criterion_group, criterion_main};
use ludus_mancala::{KalahPosition, RuleSet, Solver};
use ludus_rules::{Game, SplitMix64, Viewer};
use std::hint::black_box;

fn rules(c: &mut Criterion) {
    for rule_set in [RuleSet::Kalah, RuleSet::Congklak] {
        let name = format!("{rule_set:?}").to_lowercase();
        let mut seed = 0;
        c.bench_function(&format!("{name}/random game to the end"), |b| {
            b.iter(|| {
                seed += 1;
                black_box(random_game(rule_set, seed, u32::MAX))
            })
        });
        let start = new_game(rule_set);
        c.bench_function(&format!("{name}/legal actions + apply one sow"), |b| {
            b.iter(|| {
                let legal = start.legal_actions(0);
                black_box(
                    start
                        .clone()
                        .apply(0, &legal[1], &mut SplitMix64(0))
                        .unwrap(),
                )
            })
        });
        let mid = random_game(rule_set, 7, 12);
        c.bench_function(&format!("{name}/view with last sow path"), |b| {
            b.iter(|| black_box(mid.view(Viewer::Spectator)))
        });
    }
}

fn solver(c: &mut Criterion) {
    let mut group = c.benchmark_group("kalah solver");
    group.sample_size(10);
    // Mid-game positions from random games, with their seed counts in the name.
    // (Seed 5 stopped at sow 16 leaves 40 seeds: 11.4 s a solve, too slow to sample here.)
    for (seed, sows) in [(3u64, 20u32), (11, 14)] {
        let game = random_game(RuleSet::Kalah, seed, sows);
        let Some(pos) = KalahPosition::from_game(&game) else {
            continue;
        };
        let seeds: u32 = pos
            .mover_pits()
            .iter()
            .chain(pos.opponent_pits())
            .map(|&s| u32::from(s))
            .sum();
        group.bench_function(format!("exact, {seeds} seeds left (seed {seed})"), |b| {
            b.iter(|| black_box(Solver::new(20).solve(&pos)))
        });
    }
    let twos = KalahPosition::new([2; 6], [2; 6], [12, 12]).unwrap();
    group.bench_function("exact, 24 seeds (2 per pit)", |b| {
        b.iter(|| black_box(Solver::new(20).solve(&twos)))
    });
    let start = KalahPosition::start();
    group.bench_function("start, budget 1M nodes", |b| {
        b.iter(|| black_box(Solver::new(20).solve_within(&start, 1_000_000)))
    });
    group.bench_function("start, analysis of every sow, budget 1M nodes", |b| {
        b.iter(|| black_box(Solver::new(20).analyze(&start, 1_000_000)))
    });
    group.finish();
}

criterion_group!(benches, rules, solver);
criterion_main!(benches);
