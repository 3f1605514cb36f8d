//! Hand-worked positions for every rule of `shared/rules/mancala.md`; test names cite the rule.

#![allow(clippy::unwrap_used)] // helpers of tests unwrap like the tests do

use ludus_mancala::{
    FirstPlayer, LastSeed, Mancala, MancalaError, MancalaOptions, RuleSet, SOW_LIMIT, Sow, Spot,
};
use ludus_rules::{Game, GameResult, RuleViolation, ScriptedRandom, Viewer};

fn rng() -> ScriptedRandom {
    ScriptedRandom::new([])
}

fn kalah(first: FirstPlayer) -> Mancala {
    let options = MancalaOptions {
        rule_set: RuleSet::Kalah,
        first,
    };
    Mancala::setup(options, 2, &mut rng()).unwrap()
}

fn position(rules: RuleSet, s0: &[u8], s1: &[u8], stores: [u8; 2], to_move: usize) -> Mancala {
    Mancala::from_position(rules, [s0, s1], stores, to_move).unwrap()
}

fn sow(game: Mancala, seat: usize, pit: u8) -> Mancala {
    game.apply(seat, &Sow { pit }, &mut rng()).unwrap()
}

fn rows(game: &Mancala) -> [Vec<u8>; 2] {
    game.view(Viewer::Spectator).pits
}

fn pit(seat: usize, pit: u8) -> Spot {
    Spot::Pit { seat, pit }
}

#[test]
fn m1_notation_is_the_pit_number_from_the_movers_side() {
    let game = kalah(FirstPlayer::Seat0);
    for p in 1..=6u8 {
        let action = game.parse_action(&p.to_string()).unwrap();
        assert_eq!(action, Sow { pit: p });
        assert_eq!(action.to_string(), p.to_string());
    }
    assert_eq!(game.parse_action(" 3 ").unwrap(), Sow { pit: 3 });
    for bad in ["0", "7", "", "x", "33", "-1", "+3", "３", "1a"] {
        let err = game.parse_action(bad).unwrap_err();
        assert_eq!(err.rule(), "M1", "{bad:?}");
    }
    assert_eq!(
        game.parse_action("9").unwrap_err().to_string(),
        "M1: \"9\" is not a pit number from 1 to 6"
    );
}

#[test]
fn m1_out_of_range_pits_are_refused_by_apply() {
    let game = kalah(FirstPlayer::Seat0);
    for p in [0u8, 7, 255] {
        let (back, err) = game
            .clone()
            .apply(0, &Sow { pit: p }, &mut rng())
            .unwrap_err();
        assert_eq!(err.rule(), "M1");
        assert_eq!(back.sows(), 0);
    }
}

#[test]
fn m2_every_pit_starts_with_four_seeds() {
    let game = kalah(FirstPlayer::Seat0);
    let view = game.view(Viewer::Seat(0));
    assert_eq!(view.pits, [vec![4; 6], vec![4; 6]]);
    assert_eq!(view.stores, [0, 0]);
    assert_eq!(game.board().total(), 48);
    assert_eq!(view.legal_pits, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(view.viewer, Some(0));
    assert_eq!(view.last_sow, None);
}

#[test]
fn m3_first_player_is_an_option_or_random() {
    assert_eq!(kalah(FirstPlayer::Seat0).to_move(), Some(0));
    assert_eq!(kalah(FirstPlayer::Seat1).to_move(), Some(1));
    let random = MancalaOptions {
        first: FirstPlayer::Random,
        ..Default::default()
    };
    for (value, seat) in [(0u32, 0usize), (1, 1), (2, 0), (3, 1)] {
        let game = Mancala::setup(random, 2, &mut ScriptedRandom::new([value])).unwrap();
        assert_eq!(game.to_move(), Some(seat));
        assert_eq!(game.view(Viewer::Spectator).first, seat);
    }
    assert_eq!(MancalaOptions::default().first, FirstPlayer::Random);
    for seats in [0, 1, 3] {
        assert!(Mancala::setup(MancalaOptions::default(), seats, &mut rng()).is_err());
    }
}

#[test]
fn m4_sowing_pit_2_from_the_start() {
    let game = sow(kalah(FirstPlayer::Seat0), 0, 2);
    assert_eq!(rows(&game), [vec![4, 0, 5, 5, 5, 5], vec![4; 6]]);
    assert_eq!(game.to_move(), Some(1));
    let last = game.view(Viewer::Spectator).last_sow.unwrap();
    assert_eq!(
        last.path().collect::<Vec<_>>(),
        vec![pit(0, 3), pit(0, 4), pit(0, 5), pit(0, 6)]
    );
    assert_eq!(last.last_seed, LastSeed::Stopped { spot: pit(0, 6) });
    assert_eq!(last.laps.len(), 1);
}

#[test]
fn m4_sowing_passes_own_store_and_skips_the_opponents() {
    let game = position(RuleSet::Kalah, &[1, 1, 1, 1, 1, 10], &[1; 6], [20, 7], 0);
    let game = sow(game, 0, 6);
    assert_eq!(rows(&game), [vec![2, 2, 2, 1, 1, 0], vec![2; 6]]);
    assert_eq!(game.board().stores(), [21, 7]);
    let view = game.view(Viewer::Spectator);
    let path: Vec<Spot> = view.last_sow.unwrap().path().collect();
    let mut expected = vec![Spot::Store { seat: 0 }];
    expected.extend((1..=6).map(|p| pit(1, p)));
    expected.extend([pit(0, 1), pit(0, 2), pit(0, 3)]);
    assert_eq!(path, expected);
    // M6: the last seed fell in an occupied pit, so the turn passes.
    assert_eq!(view.to_move, Some(1));
    assert!(!view.extra_turn);
}

#[test]
fn m4_m6_thirteen_seeds_refill_the_emptied_pit_and_capture() {
    let game = position(RuleSet::Kalah, &[13, 2, 0, 0, 0, 0], &[3; 6], [10, 5], 0);
    let game = sow(game, 0, 1);
    // The lap leaves [1,3,1,1,1,1] / [4;6] and store 11; pit 1 was emptied, so its seed
    // captures the 4 opposite (seat 1's pit 6).
    assert_eq!(
        rows(&game),
        [vec![0, 3, 1, 1, 1, 1], vec![4, 4, 4, 4, 4, 0]]
    );
    assert_eq!(game.board().stores(), [16, 5]);
    assert_eq!(game.to_move(), Some(1));
    let last = game.view(Viewer::Spectator).last_sow.unwrap();
    assert_eq!(last.path().count(), 13);
    assert_eq!(last.path().last(), Some(pit(0, 1)));
    assert_eq!(
        last.last_seed,
        LastSeed::Capture {
            pit: 1,
            opposite: 4
        }
    );
}

#[test]
fn m4_an_empty_pit_cannot_be_sown() {
    let game = sow(kalah(FirstPlayer::Seat0), 0, 2);
    let game = sow(game, 1, 1);
    let (back, err) = game.apply(0, &Sow { pit: 2 }, &mut rng()).unwrap_err();
    assert_eq!(err, MancalaError::EmptyPit { pit: 2 });
    assert_eq!(err.to_string(), "M4: pit 2 is empty");
    assert_eq!(back.sows(), 2);
    assert_eq!(back.legal_actions(0).len(), 5);
}

#[test]
fn m5_last_seed_in_the_store_gives_an_extra_turn() {
    // The seed's hint: from the start, pit 3 ends in the store.
    let game = sow(kalah(FirstPlayer::Seat0), 0, 3);
    assert_eq!(rows(&game), [vec![4, 4, 0, 5, 5, 5], vec![4; 6]]);
    assert_eq!(game.board().stores(), [1, 0]);
    assert_eq!(game.to_move(), Some(0));
    let view = game.view(Viewer::Spectator);
    assert!(view.extra_turn);
    assert_eq!(view.last_sow.unwrap().last_seed, LastSeed::Store);
    assert!(game.legal_actions(1).is_empty());
    let (_, err) = game.apply(1, &Sow { pit: 1 }, &mut rng()).unwrap_err();
    assert_eq!(err.rule(), "M5");
    assert_eq!(err.to_string(), "M5: it is seat 0's turn, not seat 1's");
}

#[test]
fn m5_m6_m7_extra_turns_chain_until_a_capture_empties_the_row() {
    let game = position(RuleSet::Kalah, &[1, 0, 0, 0, 2, 1], &[4; 6], [10, 10], 0);
    let game = sow(game, 0, 6);
    assert_eq!((game.to_move(), game.board().store(0)), (Some(0), 11));
    let game = sow(game, 0, 5);
    assert_eq!((game.to_move(), game.board().store(0)), (Some(0), 12));
    let game = sow(game, 0, 6);
    assert_eq!((game.to_move(), game.board().store(0)), (Some(0), 13));
    assert_eq!(rows(&game)[0], vec![1, 0, 0, 0, 0, 0]);
    // Pit 1's seed lands in empty pit 2 facing seat 1's pit 5 (4 seeds): a capture that
    // empties seat 0's row, so the game ends and seat 1 keeps its 20 seeds (M7).
    let game = sow(game, 0, 1);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.rule, "M7");
    assert_eq!(outcome.result, GameResult::Win { winners: vec![1] });
    assert_eq!(outcome.points, vec![18, 30]);
    assert_eq!(outcome.ranks, vec![1, 0]);
    assert_eq!(
        outcome.reason,
        "seat 0's pits are empty; seat 1 wins 30 to 18"
    );
    assert_eq!(game.board().stores(), [18, 30]);
    assert_eq!(rows(&game), [vec![0; 6], vec![0; 6]]);
    assert_eq!(game.to_move(), None);
    assert_eq!(game.sows(), 4);
    let last = game.view(Viewer::Spectator).last_sow.unwrap();
    assert_eq!(
        last.last_seed,
        LastSeed::Capture {
            pit: 2,
            opposite: 4
        }
    );
    assert_eq!(last.swept, Some([0, 20]));
}

#[test]
fn m5_m7_a_last_seed_in_the_store_that_empties_the_row_ends_the_game() {
    let game = position(RuleSet::Kalah, &[0, 0, 0, 0, 0, 1], &[4; 6], [13, 10], 0);
    let game = sow(game, 0, 6);
    let view = game.view(Viewer::Spectator);
    assert_eq!(view.to_move, None);
    assert!(!view.extra_turn);
    assert!(view.legal_pits.is_empty());
    assert_eq!(view.stores, [14, 34]);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.rule, "M7");
    assert_eq!(outcome.result, GameResult::Win { winners: vec![1] });
    let (_, err) = game.apply(0, &Sow { pit: 1 }, &mut rng()).unwrap_err();
    assert_eq!(err, MancalaError::GameOver { rule: "M7" });
    assert_eq!(err.to_string(), "M7: the game is over");
}

#[test]
fn m6_capture_needs_seeds_opposite() {
    // Pit 2's seed reaches empty pit 3, facing seat 1's pit 4, which is empty: it stays.
    let game = position(
        RuleSet::Kalah,
        &[0, 1, 0, 0, 3, 0],
        &[5, 0, 0, 0, 0, 0],
        [20, 19],
        0,
    );
    let game = sow(game, 0, 2);
    assert_eq!(
        rows(&game),
        [vec![0, 0, 1, 0, 3, 0], vec![5, 0, 0, 0, 0, 0]]
    );
    assert_eq!(game.board().stores(), [20, 19]);
    assert_eq!(game.to_move(), Some(1));
    let last = game.view(Viewer::Spectator).last_sow.unwrap();
    assert_eq!(last.last_seed, LastSeed::OwnEmptyPit { pit: 3 });
}

#[test]
fn m6_last_seed_in_an_empty_pit_of_the_opponent_ends_the_turn() {
    let game = position(
        RuleSet::Kalah,
        &[0, 0, 0, 0, 0, 3],
        &[0, 0, 2, 0, 0, 1],
        [20, 22],
        0,
    );
    let game = sow(game, 0, 6);
    assert_eq!(rows(&game), [vec![0; 6], vec![0; 6]]);
    // Seat 0's row is now empty: the game ends at once (M7) with seat 1 keeping its 5.
    assert_eq!(game.board().stores(), [21, 27]);
    let last = game.view(Viewer::Spectator).last_sow.unwrap();
    assert_eq!(last.last_seed, LastSeed::Stopped { spot: pit(1, 2) });
    assert_eq!(game.outcome().unwrap().rule, "M7");

    let game = position(
        RuleSet::Kalah,
        &[0, 0, 0, 0, 1, 3],
        &[0, 0, 2, 0, 0, 1],
        [20, 21],
        0,
    );
    let game = sow(game, 0, 6);
    assert_eq!(
        rows(&game),
        [vec![0, 0, 0, 0, 1, 0], vec![1, 1, 2, 0, 0, 1]]
    );
    assert_eq!(game.to_move(), Some(1));
    assert_eq!(game.board().stores(), [21, 21]);
}

#[test]
fn m7_when_the_opponents_row_empties_each_side_keeps_its_own_seeds() {
    // Seat 0's pit 2 seed lands in empty pit 3 and captures seat 1's last 5 seeds (pit 4).
    let game = position(
        RuleSet::Kalah,
        &[0, 1, 0, 0, 3, 0],
        &[0, 0, 0, 5, 0, 0],
        [20, 19],
        0,
    );
    let game = sow(game, 0, 2);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.rule, "M7");
    assert_eq!(outcome.points, vec![29, 19]);
    assert_eq!(outcome.result, GameResult::Win { winners: vec![0] });
    assert_eq!(
        outcome.reason,
        "seat 1's pits are empty; seat 0 wins 29 to 19"
    );
    assert_eq!(
        game.view(Viewer::Spectator).last_sow.unwrap().swept,
        Some([3, 0])
    );
}

#[test]
fn m7_a_position_with_an_empty_row_is_already_over() {
    let err = Mancala::from_position(RuleSet::Kalah, [&[0; 6], &[4; 6]], [12, 12], 1).unwrap_err();
    assert_eq!(err.rule, "M7");
}

#[test]
fn m8_equal_stores_are_a_draw() {
    let game = position(
        RuleSet::Kalah,
        &[0, 0, 0, 0, 0, 1],
        &[1, 0, 0, 0, 0, 0],
        [23, 23],
        0,
    );
    let game = sow(game, 0, 6);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.result, GameResult::Draw);
    assert_eq!(outcome.points, vec![24, 24]);
    assert_eq!(outcome.ranks, vec![0, 0]);
    assert_eq!(outcome.reason, "seat 0's pits are empty; a draw at 24–24");
}

#[test]
fn m9_resigning_loses_at_any_time() {
    let game = kalah(FirstPlayer::Seat0).resign(1);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.rule, "M9");
    assert_eq!(outcome.result, GameResult::Win { winners: vec![0] });
    assert_eq!(outcome.reason, "seat 1 resigned; seat 0 wins");
    assert_eq!(game.to_move(), None);
    // A second resignation changes nothing.
    let again = game.resign(0);
    assert_eq!(
        again.outcome().unwrap().result,
        GameResult::Win { winners: vec![0] }
    );
}

#[test]
fn m9_draw_by_agreement() {
    let game = sow(kalah(FirstPlayer::Seat0), 0, 2).agree_draw().unwrap();
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.rule, "M9");
    assert_eq!(outcome.result, GameResult::Draw);
    assert_eq!(outcome.points, vec![0, 0]);
    let (_, err) = game.agree_draw().unwrap_err();
    assert_eq!(err, MancalaError::GameOver { rule: "M9" });
}

/// A game one sow short of the limit, made by editing the stored JSON.
fn near_limit(rules: RuleSet) -> Mancala {
    let options = MancalaOptions {
        rule_set: rules,
        first: FirstPlayer::Seat0,
    };
    let game = Mancala::setup(options, 2, &mut rng()).unwrap();
    let mut json = serde_json::to_value(&game).unwrap();
    json["sows"] = serde_json::json!(SOW_LIMIT - 1);
    serde_json::from_value(json).unwrap()
}

#[test]
fn m9_the_game_stops_after_400_sows() {
    // Pit 2 from the start does not end in the store, so only the limit ends the game.
    let game = sow(near_limit(RuleSet::Kalah), 0, 2);
    assert_eq!(game.sows(), 400);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.rule, "M9");
    assert_eq!(outcome.points, vec![24, 24]);
    assert_eq!(outcome.result, GameResult::Draw);
    assert_eq!(
        game.view(Viewer::Spectator).last_sow.unwrap().swept,
        Some([24, 24])
    );
    // Even an extra turn stops at the limit.
    let game = sow(near_limit(RuleSet::Kalah), 0, 3);
    assert_eq!(game.outcome().unwrap().rule, "M9");
    assert_eq!(game.to_move(), None);
}

#[test]
fn m10_running_out_of_time_loses() {
    let game = kalah(FirstPlayer::Seat1);
    // A stale timer for the seat not to move changes nothing.
    let game = game.timeout(0, &mut rng());
    assert_eq!(game.outcome(), None);
    let game = game.timeout(1, &mut rng());
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.rule, "M10");
    assert_eq!(outcome.result, GameResult::Win { winners: vec![0] });
    assert_eq!(outcome.reason, "seat 1 ran out of time; seat 0 wins");
}

#[test]
fn k1_congklak_starts_with_seven_pits_of_seven() {
    let options = MancalaOptions {
        rule_set: RuleSet::Congklak,
        first: FirstPlayer::Seat0,
    };
    let game = Mancala::setup(options, 2, &mut rng()).unwrap();
    assert_eq!(rows(&game), [vec![7; 7], vec![7; 7]]);
    assert_eq!(game.board().total(), 98);
    assert_eq!(game.legal_actions(0).len(), 7);
    assert_eq!(game.parse_action("7").unwrap(), Sow { pit: 7 });
    let err = game.parse_action("8").unwrap_err();
    assert_eq!(err.rule(), "K1");
    assert_eq!(err.to_string(), "K1: \"8\" is not a pit number from 1 to 7");
    // K3: pit 1's seventh seed lands in the store: an extra turn.
    let game = sow(game, 0, 1);
    assert_eq!(rows(&game), [vec![0, 8, 8, 8, 8, 8, 8], vec![7; 7]]);
    assert_eq!(game.to_move(), Some(0));
}

#[test]
fn k2_k3_relay_sowing_then_a_capture() {
    let options = MancalaOptions {
        rule_set: RuleSet::Congklak,
        first: FirstPlayer::Seat0,
    };
    let game = Mancala::setup(options, 2, &mut rng()).unwrap();
    // Pit 2: pits 3–7, the store, seat 1's pit 1 (now 8): relay those 8 through seat 1's
    // pits 2–7, past seat 1's store, into seat 0's pits 1 and 2. Pit 2 was emptied, so the
    // last seed captures seat 1's pit 6 (8 seeds).
    let game = sow(game, 0, 2);
    assert_eq!(
        rows(&game),
        [vec![8, 0, 8, 8, 8, 8, 8], vec![0, 8, 8, 8, 8, 0, 8]]
    );
    assert_eq!(game.board().stores(), [10, 0]);
    assert_eq!(game.to_move(), Some(1));
    let last = game.view(Viewer::Spectator).last_sow.unwrap();
    assert_eq!(last.laps.len(), 2);
    assert_eq!(last.laps[0].from, pit(0, 2));
    assert_eq!(last.laps[0].drops.len(), 7);
    assert_eq!(last.laps[1].from, pit(1, 1));
    let mut second: Vec<Spot> = (2..=7).map(|p| pit(1, p)).collect();
    second.extend([pit(0, 1), pit(0, 2)]);
    assert_eq!(last.laps[1].drops, second);
    assert_eq!(last.path().count(), 15);
    assert_eq!(
        last.last_seed,
        LastSeed::Capture {
            pit: 2,
            opposite: 8
        }
    );
}

#[test]
fn k3_last_seed_in_the_opponents_empty_pit_ends_the_turn() {
    let game = position(
        RuleSet::Congklak,
        &[0, 0, 0, 0, 0, 0, 2],
        &[0, 3, 0, 0, 0, 0, 0],
        [50, 43],
        0,
    );
    let game = sow(game, 0, 7);
    assert_eq!(rows(&game)[1], vec![1, 3, 0, 0, 0, 0, 0]);
    assert_eq!(game.board().stores(), [51, 43]);
    // K4: seat 1 has seeds to sow, so the game goes on although seat 0's row is empty.
    assert_eq!(game.to_move(), Some(1));
    let last = game.view(Viewer::Spectator).last_sow.unwrap();
    assert_eq!(last.last_seed, LastSeed::Stopped { spot: pit(1, 1) });
    // Seat 1's pit 1 seed makes pit 2 hold 4, so it relays on (K2) through pits 3–6; the
    // last lands in empty pit 6 facing seat 0's empty pit 2: no capture.
    let game = sow(game, 1, 1);
    let last = game.view(Viewer::Spectator).last_sow.unwrap();
    assert_eq!(last.laps.len(), 2);
    assert_eq!(last.laps[1].from, pit(1, 2));
    assert_eq!(last.last_seed, LastSeed::OwnEmptyPit { pit: 6 });
    assert_eq!(last.swept, Some([0, 4]));
    // K4: seat 0, to move, has nothing to sow: seat 1 sweeps its 4 seeds.
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.rule, "K4");
    assert_eq!(outcome.points, vec![51, 47]);
    assert_eq!(outcome.result, GameResult::Win { winners: vec![0] });
    assert_eq!(
        outcome.reason,
        "seat 0 has no seeds to sow; seat 0 wins 51 to 47"
    );
}

#[test]
fn k4_extra_turns_go_on_while_the_mover_has_seeds() {
    let game = position(
        RuleSet::Congklak,
        &[0, 0, 0, 0, 0, 2, 1],
        &[0; 7],
        [50, 45],
        0,
    );
    let game = sow(game, 0, 7);
    assert_eq!(game.to_move(), Some(0));
    let game = sow(game, 0, 6);
    assert_eq!(game.to_move(), Some(0));
    let game = sow(game, 0, 7);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.rule, "K4");
    assert_eq!(outcome.points, vec![53, 45]);
}

#[test]
fn k5_the_sow_limit_applies_to_congklak() {
    let game = sow(near_limit(RuleSet::Congklak), 0, 2);
    assert_eq!(game.outcome().unwrap().rule, "M9");
    assert_eq!(game.board().total(), 98);
}

#[test]
fn stored_games_are_checked_when_read_back() {
    let game = sow(kalah(FirstPlayer::Seat0), 0, 2);
    let json = serde_json::to_string(&game).unwrap();
    let back: Mancala = serde_json::from_str(&json).unwrap();
    assert_eq!(back.view(Viewer::Spectator), game.view(Viewer::Spectator));
    let mut value = serde_json::to_value(&game).unwrap();
    value["board"]["stores"] = serde_json::json!([5, 0]);
    assert!(serde_json::from_value::<Mancala>(value).is_err());
    let mut value = serde_json::to_value(&game).unwrap();
    value["to_move"] = serde_json::json!(2);
    assert!(serde_json::from_value::<Mancala>(value).is_err());
}
