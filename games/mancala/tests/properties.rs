//! Property tests over random games of both rule sets: seeds are conserved (48 or 98, M2,
//! K1), every game ends (M7, K4, M9), no pit goes negative, and no input panics.

#![allow(clippy::unwrap_used)] // helpers of tests unwrap like the tests do

use ludus_mancala::{FirstPlayer, Mancala, MancalaOptions, RuleSet, SOW_LIMIT, Sow, Spot};
use ludus_rules::{Game, RandomSource, SplitMix64, Viewer};
use proptest::prelude::*;

fn rule_set() -> impl Strategy<Value = RuleSet> {
    prop_oneof![Just(RuleSet::Kalah), Just(RuleSet::Congklak)]
}

fn new_game(rule_set: RuleSet, rng: &mut SplitMix64) -> Mancala {
    let options = MancalaOptions {
        rule_set,
        first: FirstPlayer::Random,
    };
    Mancala::setup(options, 2, rng).unwrap()
}

/// Checks the invariants of one position against its view.
fn check_position(game: &Mancala) {
    let rules = game.rule_set();
    let view = game.view(Viewer::Spectator);
    let n = usize::from(rules.pits());
    assert_eq!(view.pits[0].len(), n);
    assert_eq!(view.pits[1].len(), n);
    // Seeds are u8, so "negative" would show up as a wrapped count and break the total.
    let total: u32 = view
        .pits
        .iter()
        .flatten()
        .map(|&s| u32::from(s))
        .sum::<u32>()
        + view.stores.iter().map(|&s| u32::from(s)).sum::<u32>();
    assert_eq!(total, rules.total_seeds());
    assert_eq!(game.board().total(), rules.total_seeds());
    assert!(view.sows <= SOW_LIMIT);
    match view.to_move {
        Some(seat) => {
            assert!(!view.legal_pits.is_empty());
            assert_eq!(view.legal_pits.len(), game.legal_actions(seat).len());
            assert!(game.legal_actions(1 - seat).is_empty());
            if rules == RuleSet::Kalah {
                // M7: a live Kalah game never has an empty row.
                assert!(view.pits.iter().all(|row| row.iter().any(|&s| s > 0)));
            }
        }
        None => {
            let outcome = game.outcome().unwrap();
            assert_eq!(outcome.points.len(), 2);
            assert!(view.legal_pits.is_empty());
        }
    }
    if let Some(last) = &view.last_sow {
        // Every drop lands on the board and never in the opponent's store (M4, K1).
        for spot in last.path() {
            match spot {
                Spot::Pit { seat, pit } => assert!(seat < 2 && pit >= 1 && usize::from(pit) <= n),
                Spot::Store { seat } => assert_eq!(seat, last.seat),
            }
        }
        // A Kalah sow has one lap (no relay, M4).
        if rules == RuleSet::Kalah {
            assert_eq!(last.laps.len(), 1);
        }
    }
}

/// Plays random legal sows to the end; returns the game and its sow count.
fn playout(rule_set: RuleSet, seed: u64) -> Mancala {
    let mut rng = SplitMix64(seed);
    let mut game = new_game(rule_set, &mut rng);
    check_position(&game);
    for _ in 0..=SOW_LIMIT {
        let Some(seat) = game.to_move() else {
            return game;
        };
        let legal = game.legal_actions(seat);
        let sow = legal[rng.below(legal.len() as u32) as usize];
        let sows = game.sows();
        game = game.apply(seat, &sow, &mut rng).unwrap();
        assert_eq!(game.sows(), sows + 1);
        check_position(&game);
    }
    panic!("the game did not end within {SOW_LIMIT} sows");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn m2_k1_m7_k4_random_games_conserve_seeds_and_end(rules in rule_set(), seed in any::<u64>()) {
        let game = playout(rules, seed);
        let outcome = game.outcome().unwrap();
        prop_assert!(["M7", "K4", "M9"].contains(&outcome.rule.as_str()));
        // M8: the winner has the bigger store.
        let points = &outcome.points;
        prop_assert_eq!(points[0] + points[1], i64::from(rules.total_seeds()));
        let stores = game.board().stores();
        prop_assert_eq!(&vec![i64::from(stores[0]), i64::from(stores[1])], points);
    }

    #[test]
    fn stored_games_read_back_the_same(rules in rule_set(), seed in any::<u64>(), cut in 0u32..80) {
        let mut rng = SplitMix64(seed);
        let mut game = new_game(rules, &mut rng);
        for _ in 0..cut {
            let Some(seat) = game.to_move() else { break };
            let legal = game.legal_actions(seat);
            game = game.apply(seat, &legal[rng.below(legal.len() as u32) as usize], &mut rng).unwrap();
        }
        let json = serde_json::to_string(&game).unwrap();
        let back: Mancala = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back.view(Viewer::Seat(1)), game.view(Viewer::Seat(1)));
        prop_assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }

    #[test]
    fn m1_any_text_or_action_is_refused_without_panic(
        rules in rule_set(),
        text in ".{0,8}",
        pit in any::<u8>(),
        seat in 0usize..4,
        seed in any::<u64>(),
    ) {
        let mut rng = SplitMix64(seed);
        let game = new_game(rules, &mut rng);
        if let Ok(sow) = game.parse_action(&text) {
            prop_assert_eq!(game.parse_action(&sow.to_string()).unwrap(), sow);
        }
        let before = game.view(Viewer::Spectator);
        match game.apply(seat, &Sow { pit }, &mut rng) {
            Ok(after) => check_position(&after),
            Err((back, err)) => {
                prop_assert_eq!(back.view(Viewer::Spectator), before);
                let message = err.to_string();
                prop_assert!(message.starts_with('M') || message.starts_with('K'));
            }
        }
    }

    #[test]
    fn m9_m10_ending_early_keeps_the_board(rules in rule_set(), seed in any::<u64>(), seat in 0usize..3) {
        let mut rng = SplitMix64(seed);
        let game = new_game(rules, &mut rng);
        let ended = game.clone().resign(seat);
        if seat < 2 {
            prop_assert_eq!(ended.outcome().unwrap().rule.as_str(), "M9");
            prop_assert_eq!(ended.board(), game.board());
        } else {
            prop_assert!(ended.outcome().is_none());
        }
        let mover = game.to_move().unwrap();
        let timed_out = game.timeout(mover, &mut rng);
        prop_assert_eq!(timed_out.outcome().unwrap().rule.as_str(), "M10");
        prop_assert_eq!(timed_out.to_move(), None);
    }
}
