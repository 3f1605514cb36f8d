//! The Kalah solver against a plain minimax over the game itself (M4–M8), exhaustively on
//! small positions, and the start position (M13).

#![allow(clippy::unwrap_used)] // helpers of tests unwrap like the tests do

mod common;

use common::sow_values;
use ludus_mancala::{KalahPosition, Mancala, RuleSet, Solver};

use proptest::prelude::*;

/// A game of `mover`/`opponent` pits (seat 0 to move), padding the stores to 48 seeds.
fn game_of(mover: [u8; 6], opponent: [u8; 6]) -> Option<Mancala> {
    let pits: u32 = mover.iter().chain(&opponent).map(|&p| u32::from(p)).sum();
    let rest = 48u32.checked_sub(pits)? as u8;
    let stores = [rest / 2, rest - rest / 2];
    Mancala::from_position(RuleSet::Kalah, [&mover, &opponent], stores, 0).ok()
}

fn check(solver: &mut Solver, mover: [u8; 6], opponent: [u8; 6]) {
    let Some(game) = game_of(mover, opponent) else {
        return;
    };
    let pos = KalahPosition::from_game(&game).unwrap();
    // Each sow's value by minimax, once; the position's value is the best of them.
    let values = sow_values(&game);
    let expected = values.iter().map(|&(_, v)| v).max().unwrap();
    let solved = solver.solve(&pos);
    assert_eq!(solved.margin, expected, "{mover:?} {opponent:?}");
    // The best sow really achieves the margin.
    let best = solved.best.expect("a live position has a best sow");
    assert!(
        values.contains(&(best, expected)),
        "best {best} of {mover:?} {opponent:?}"
    );
    // Every sow's value in the analysis matches minimax.
    let analysis: Vec<(u8, i32)> = solver
        .analyze(&pos, u64::MAX)
        .iter()
        .map(|v| {
            assert!(v.is_exact());
            (v.pit, v.lower)
        })
        .collect();
    assert_eq!(analysis, values, "{mover:?} {opponent:?}");
}

/// Every distribution of `seeds` seeds over 12 pits, in order.
fn distributions(seeds: u8, pits: usize, prefix: &mut Vec<u8>, out: &mut dyn FnMut(&[u8])) {
    if prefix.len() == pits - 1 {
        prefix.push(seeds);
        out(prefix);
        prefix.pop();
        return;
    }
    for k in 0..=seeds {
        prefix.push(k);
        distributions(seeds - k, pits, prefix, out);
        prefix.pop();
    }
}

#[test]
fn m4_m8_solver_matches_minimax_on_every_position_of_up_to_5_seeds() {
    let mut solver = Solver::new(16);
    let mut count = 0;
    for seeds in 2..=5u8 {
        distributions(seeds, 12, &mut Vec::new(), &mut |p| {
            let mut mover = [0u8; 6];
            let mut opponent = [0u8; 6];
            mover.copy_from_slice(&p[..6]);
            opponent.copy_from_slice(&p[6..]);
            if mover.iter().any(|&s| s > 0) && opponent.iter().any(|&s| s > 0) {
                check(&mut solver, mover, opponent);
                count += 1;
            }
        });
    }
    // Both rows non-empty: C(n+11, 11) - 2·C(n+5, 5) positions of n seeds, n = 2..5.
    assert_eq!(count, 36 + 252 + 1113 + 3864);
}

#[test]
fn m4_m6_thirteen_seed_laps_match_minimax() {
    let mut solver = Solver::new(16);
    check(&mut solver, [13, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]);
    check(&mut solver, [0, 0, 0, 0, 0, 13], [0, 0, 0, 0, 1, 0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random positions of up to 10 seeds, each seed dropped in a random pit (no rejection).
    #[test]
    fn m4_m8_solver_matches_minimax_on_random_small_positions(
        drops in proptest::collection::vec(0usize..12, 2..=10),
    ) {
        let mut mover = [0u8; 6];
        let mut opponent = [0u8; 6];
        for &pit in &drops {
            if pit < 6 {
                mover[pit] += 1;
            } else {
                opponent[pit - 6] += 1;
            }
        }
        check(&mut Solver::new(12), mover, opponent);
    }
}

#[test]
fn solver_budget_reports_bounds_and_then_the_exact_value() {
    let pos = KalahPosition::new([3, 0, 2, 1, 4, 0], [0, 2, 3, 1, 0, 2], [10, 12]).unwrap();
    let exact = Solver::new(16).solve(&pos);
    let starved = Solver::new(16).solve_within(&pos, 10);
    assert!(!starved.is_exact());
    assert!(starved.lower <= exact.margin && exact.margin <= starved.upper);
    let ample = Solver::new(16).solve_within(&pos, u64::MAX);
    assert!(ample.is_exact());
    assert_eq!(ample.lower, exact.margin);
    assert_eq!(ample.best, exact.best);
    // The stores count in the margin, but do not change the best play.
    let richer = KalahPosition::new([3, 0, 2, 1, 4, 0], [0, 2, 3, 1, 0, 2], [12, 10]).unwrap();
    assert_eq!(Solver::new(16).solve(&richer).margin, exact.margin + 4);
}

#[test]
fn solver_on_finished_positions() {
    let pos = KalahPosition::new([0; 6], [1, 2, 0, 0, 0, 0], [20, 25]).unwrap();
    assert!(pos.is_over());
    let s = Solver::new(8).solve(&pos);
    assert_eq!((s.margin, s.best), (-8, None));
    assert!(Solver::new(8).analyze(&pos, 100).is_empty());
    assert!(KalahPosition::new([100; 6], [0; 6], [0, 0]).is_none());
}

/// M13: from the start (6 pits, 4 seeds) under these rules (the game ends at once when any
/// row is empty, each side keeping its own pits, M7; no capture from an empty opposite pit,
/// M6) the first player wins by 8, opening with pit 3 (whose last seed lands in the store).
///
/// Ignored: in release it searched 672,761,766 positions in 644 s (11 min; 1,304 s under
/// heavier load) with a 2^25-slot table on a shared 2-core machine. Run it with
/// `cargo test --release -p ludus-mancala --test solver -- --ignored m13`.
#[test]
#[ignore = "takes about 11 minutes in release"]
fn m13_the_first_player_wins_the_start_by_8() {
    let solved = Solver::new(25).solve(&KalahPosition::start());
    assert_eq!(solved.margin, 8);
    assert_eq!(solved.best, Some(3));
}

/// A 24-seed position (2 in every pit) is solved exactly well within a budget: the mover wins
/// its pits by 6 (measured in release, 25,774 positions).
#[test]
fn m13_a_small_endgame_is_solved_exactly_within_a_budget() {
    let pos = KalahPosition::new([2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2], [12, 12]).unwrap();
    let report = Solver::new(18).solve_within(&pos, 10_000_000);
    assert!(report.is_exact());
    assert_eq!(report.lower, 6);
    assert_eq!(report.best, Some(5));
    assert!(report.nodes < 10_000_000);
}

/// The analysis RPC's values: with a starved budget every sow gets bounds that bracket its
/// exact value; with enough budget they are exact and the best of them is the position's.
#[test]
fn analysis_bounds_bracket_the_exact_values() {
    let pos = KalahPosition::new([2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2], [12, 12]).unwrap();
    let exact = Solver::new(18).analyze(&pos, u64::MAX);
    assert_eq!(
        exact.iter().map(|v| v.pit).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    assert!(exact.iter().all(|v| v.is_exact()));
    let best = exact.iter().map(|v| v.lower).max().unwrap();
    assert_eq!(best, Solver::new(18).solve(&pos).margin);
    let starved = Solver::new(18).analyze(&pos, 600);
    assert!(starved.iter().any(|v| !v.is_exact()));
    for (s, e) in starved.iter().zip(&exact) {
        assert_eq!(s.pit, e.pit);
        assert!(s.lower <= e.lower && e.lower <= s.upper, "{s:?} vs {e:?}");
    }
}

/// The analysis reports the positions it really searched: some, and never more than its
/// budget (each sow's search stops one node past its share).
#[test]
fn analysis_counts_the_positions_it_searched() {
    let pos = KalahPosition::new([2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2], [12, 12]).unwrap();
    let (starved, searched) = Solver::new(18).analyze_counted(&pos, 600);
    assert!(searched > 0);
    assert!(searched <= 600 + 6, "{searched}");
    assert_eq!(starved, Solver::new(18).analyze(&pos, 600));
    let (_, unbounded) = Solver::new(18).analyze_counted(&pos, u64::MAX);
    assert!(
        unbounded > searched,
        "an exact analysis searches more than a starved one"
    );
}
