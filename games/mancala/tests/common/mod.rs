//! Helpers shared by the integration tests and the bench: games from the start, random
//! games, and a plain minimax over the game itself to check the solver and the bots against.
// Each test crate uses its own subset of these.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::HashMap;

use ludus_mancala::{FirstPlayer, Mancala, MancalaOptions, RuleSet};
use ludus_rules::{Game, SplitMix64, random_actions};

/// A game from the start, seat 0 sowing first.
pub fn new_game(rule_set: RuleSet) -> Mancala {
    let options = MancalaOptions {
        rule_set,
        first: FirstPlayer::Seat0,
    };
    Mancala::setup(options, 2, &mut SplitMix64(0)).unwrap()
}

/// A random game from the start, stopped after `sows` sows (or at its end).
pub fn random_game(rule_set: RuleSet, seed: u64, sows: u32) -> Mancala {
    random_actions(new_game(rule_set), sows, &mut SplitMix64(seed)).unwrap()
}

/// Seat 0's final margin by plain minimax over [`Mancala::apply`] (Kalah M4–M8 or Congklak
/// K2–K4, whichever the game plays): no pruning and no code shared with the solver or the
/// bots but the game's sowing engine. Memoized on the pits and the seat to move (the stores
/// only add to the margin), so positions with a 13-seed lap stay cheap.
pub fn seat0_margin(game: &Mancala, memo: &mut HashMap<(Vec<u8>, usize), i32>) -> i32 {
    let stores = game.board().stores();
    let banked = i32::from(stores[0]) - i32::from(stores[1]);
    let Some(seat) = game.to_move() else {
        let points = &game
            .outcome()
            .expect("a finished game has an outcome")
            .points;
        return (points[0] - points[1]) as i32;
    };
    let board = game.board();
    let n = game.rule_set().pits();
    let key = ([board.row(0, n), board.row(1, n)].concat(), seat);
    if let Some(&future) = memo.get(&key) {
        return banked + future;
    }
    let children = game.legal_actions(seat).into_iter().map(|sow| {
        let child = game.clone().apply(seat, &sow, &mut SplitMix64(0)).unwrap();
        seat0_margin(&child, memo)
    });
    let best: Vec<i32> = children.collect();
    // Seat 0 maximises its margin, seat 1 minimises it.
    let value = if seat == 0 {
        best.into_iter().max()
    } else {
        best.into_iter().min()
    }
    .expect("the seat to move has a sow");
    memo.insert(key, value - banked);
    value
}

/// The final margin for seat 0 (to move) after each of its legal sows, by [`seat0_margin`]:
/// `(pit, margin)` in pit order.
pub fn sow_values(game: &Mancala) -> Vec<(u8, i32)> {
    let memo = &mut HashMap::new();
    game.legal_actions(0)
        .iter()
        .map(|sow| {
            let child = game.clone().apply(0, sow, &mut SplitMix64(0)).unwrap();
            (sow.pit, seat0_margin(&child, memo))
        })
        .collect()
}

pub mod referee;
