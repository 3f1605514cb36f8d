//! Property tests: random games always end, 15 checkers a side at all times, the mover's pip
//! count never grows, the cube is a power of two, every state reached imports back from its
//! gnubg ids, and the optimised play generator agrees with a brute-force one.

use std::collections::HashSet;

use ludus_backgammon::board::Board;
use ludus_backgammon::play::{check_play, legal_plays};
use ludus_backgammon::{Action, Backgammon, BackgammonOptions, Phase};
use ludus_rules::{Game, RandomSource, SplitMix64};
use proptest::prelude::*;

/// A random policy that mostly rolls and plays, sometimes doubles, rarely resigns.
fn pick(game: &Backgammon, rng: &mut SplitMix64) -> Action {
    let seat = game.to_move().expect("game not over");
    let actions = game.legal_actions(seat);
    assert!(!actions.is_empty(), "a player to move always has an action");
    let weight = |a: &Action| match a {
        Action::Resign(_) => 1,
        Action::AcceptResignation | Action::Drop => 5,
        Action::Double => 20,
        _ => 100,
    };
    let total: u32 = actions.iter().map(weight).sum();
    let mut r = rng.below(total);
    for a in &actions {
        if r < weight(a) {
            return a.clone();
        }
        r -= weight(a);
    }
    actions[0].clone()
}

fn checkers_ok(b: &Board) -> bool {
    (0..2).all(|s| {
        let c = b.counts()[s];
        let in_play: u32 = c.iter().map(|&x| u32::from(x)).sum();
        in_play + u32::from(b.off(s)) == 15
    })
}

/// The naive generator: every sequence of single-die steps, no pruning, then B8's filter
/// and de-duplication by position.
fn brute_force(board: &Board, side: usize, dice: [u8; 2]) -> HashSet<Board> {
    fn go(b: &Board, side: usize, dice: &[u8], used: Vec<u8>, out: &mut Vec<(Board, Vec<u8>)>) {
        let mut moved = false;
        if let Some((&d, rest)) = dice.split_first() {
            for from in 1..=25u8 {
                if let Ok((next, _, _)) = b.step(side, from, d) {
                    moved = true;
                    let mut u = used.clone();
                    u.push(d);
                    go(&next, side, rest, u, out);
                }
            }
        }
        if !moved {
            out.push((*b, used));
        }
    }
    let mut leaves = Vec::new();
    if dice[0] == dice[1] {
        go(board, side, &[dice[0]; 4], Vec::new(), &mut leaves);
    } else {
        go(board, side, &dice, Vec::new(), &mut leaves);
        go(board, side, &[dice[1], dice[0]], Vec::new(), &mut leaves);
    }
    let max = leaves.iter().map(|l| l.1.len()).max().unwrap_or(0);
    let larger = dice[0].max(dice[1]);
    let larger_only = dice[0] != dice[1] && max == 1 && leaves.iter().any(|l| l.1 == [larger]);
    leaves
        .into_iter()
        .filter(|l| l.1.len() == max && (!larger_only || l.1 == [larger]))
        .map(|l| l.0)
        .collect()
}

/// A live game's gnubg ids import back to the same game: same ids, checkers, player on
/// roll, phase (dice in gnubg's order), cube value and, unless a beaver is pending (the ids
/// no longer say whose the cube was before that double), cube owner.
fn imports_back(game: &Backgammon, options: &BackgammonOptions) -> Result<(), TestCaseError> {
    let (pid, mid) = (game.position_id(), game.match_id());
    let back = Backgammon::from_gnubg_ids(&pid, &mid, options.clone())
        .map_err(|e| TestCaseError::fail(format!("{pid} {mid} refused: {e}")))?;
    prop_assert_eq!((back.position_id(), back.match_id()), (pid, mid));
    prop_assert_eq!(back.board(), game.board());
    prop_assert_eq!(back.turn(), game.turn());
    prop_assert_eq!(back.to_move(), game.to_move());
    let phase = ludus_backgammon::gnubg::id_phase(game.phase());
    prop_assert_eq!(back.phase(), phase);
    prop_assert_eq!(back.cube_value(), game.cube_value());
    if !matches!(phase, Phase::Doubled { beavered: true, .. }) {
        prop_assert_eq!(back.cube_owner(), game.cube_owner());
    }
    Ok(())
}

/// Plays one random game to its end; checks the invariants after every action.
fn playout(
    seed: u64,
    options: BackgammonOptions,
    compare_every: u32,
) -> Result<u32, TestCaseError> {
    let mut rng = SplitMix64(seed);
    let mut game = Backgammon::setup(options.clone(), 2, &mut rng)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut turns = 0u32;
    while game.outcome().is_none() {
        prop_assert!(game.ply() < 5000, "game did not end");
        let seat = game.to_move().expect("not over");
        // A timeout now and then exercises B20's bot.
        if rng.below(40) == 0 {
            game = game.timeout(seat, &mut rng);
            prop_assert!(checkers_ok(game.board()));
            continue;
        }
        let action = pick(&game, &mut rng);
        if let (Phase::Play { dice }, Action::Play(p)) = (game.phase(), &action) {
            turns += 1;
            let legal = legal_plays(game.board(), seat, dice);
            // Every generated play checks and reaches its own position.
            for (play, b) in &legal.plays {
                let got = check_play(game.board(), seat, dice, play, &legal);
                prop_assert_eq!(got.as_ref().ok(), Some(b), "{} with {:?}", play, dice);
            }
            if compare_every > 0 && turns.is_multiple_of(compare_every) {
                let mine: HashSet<Board> = legal.plays.iter().map(|(_, b)| *b).collect();
                prop_assert_eq!(mine, brute_force(game.board(), seat, dice));
            }
            let before = game.board().pips(seat);
            game = game
                .apply(seat, &action, &mut rng)
                .map_err(|(_, e)| TestCaseError::fail(e.to_string()))?;
            prop_assert!(game.board().pips(seat) <= before, "pips grew after {}", p);
        } else {
            game = game
                .apply(seat, &action, &mut rng)
                .map_err(|(_, e)| TestCaseError::fail(format!("{action}: {e}")))?;
        }
        prop_assert!(checkers_ok(game.board()));
        prop_assert!(game.cube_value().is_power_of_two());
        if game.outcome().is_none() {
            imports_back(&game, &options)?;
        }
        let v = game.view(ludus_rules::Viewer::Spectator);
        prop_assert_eq!(
            v.off[0] as u32
                + v.bar[0] as u32
                + v.points
                    .iter()
                    .filter(|&&p| p > 0)
                    .map(|&p| p as u32)
                    .sum::<u32>(),
            15
        );
    }
    let o = game.outcome().expect("over");
    prop_assert!(o.points.iter().any(|&p| p > 0));
    prop_assert!(["B15", "B16", "B20", "B21"].contains(&o.rule.as_str()));
    Ok(game.ply())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn random_money_games_end_and_keep_invariants(seed in any::<u64>()) {
        playout(seed, BackgammonOptions::default(), 7)?;
    }

    #[test]
    fn random_games_with_every_option_end(seed in any::<u64>()) {
        let options = BackgammonOptions {
            automatic_doubles: true,
            automatic_double_limit: 3,
            beavers: true,
            jacoby: true,
            ..BackgammonOptions::default()
        };
        playout(seed, options, 0)?;
    }

    #[test]
    fn random_match_games_end_and_import_back(
        seed in any::<u64>(),
        length in proptest::sample::select(ludus_backgammon::MATCH_LENGTHS.to_vec()),
        a in 0u32..21,
        b in 0u32..21,
        crawford in any::<bool>(),
    ) {
        let score = [a % length, b % length];
        let crawford = crawford && score.iter().filter(|&&s| s + 1 == length).count() == 1;
        let options = BackgammonOptions {
            match_game: Some(ludus_backgammon::MatchGame { length, score, crawford }),
            ..BackgammonOptions::default()
        };
        playout(seed, options, 0)?;
    }

    #[test]
    fn parse_action_never_panics(text in "\\PC{0,40}") {
        let mut rng = SplitMix64(1);
        let game = Backgammon::setup(BackgammonOptions::default(), 2, &mut rng).expect("setup");
        if let Ok(a) = game.parse_action(&text) {
            let seat = game.to_move().expect("to move");
            let _ = game.apply(seat, &a, &mut rng);
        }
    }

    #[test]
    fn arbitrary_plays_never_panic(moves in proptest::collection::vec((0u8..=30, 0u8..=30), 0..6), seed in any::<u64>()) {
        let mut rng = SplitMix64(seed);
        let game = Backgammon::setup(BackgammonOptions::default(), 2, &mut rng).expect("setup");
        let play = ludus_backgammon::Play(moves.into_iter().map(|(f, t)| ludus_backgammon::Move::new(f, t)).collect());
        let seat = game.to_move().expect("to move");
        let _ = game.apply(seat, &Action::Play(play), &mut rng);
    }
}

#[test]
fn generator_matches_brute_force_from_the_start() {
    for a in 1..=6u8 {
        for b in 1..=a {
            let mine: HashSet<Board> = legal_plays(&Board::START, 0, [a, b])
                .plays
                .iter()
                .map(|(_, b)| *b)
                .collect();
            assert_eq!(mine, brute_force(&Board::START, 0, [a, b]), "{a}-{b}");
        }
    }
}
