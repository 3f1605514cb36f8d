//! The computer players (J20): they see only what a player sees (J21, J22), always play a
//! legal action, and play the tactics each level promises.
// Helpers outside #[test] fns unwrap too: a failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod common;

use common::{history, layout, p, play, red_to_move};
use ludus_junqi::{Action, Junqi, JunqiOptions};
use ludus_rules::{
    Bot, Budget, Game, GameResult, Level, RandomSource, SplitMix64, Viewer, random_actions,
};
use proptest::prelude::*;

/// A small budget, so the debug-build tests stay quick; the arena runs the real ones.
fn small(level: Level) -> Budget<'static> {
    Budget::work(match level {
        Level::Hard => 1_500,
        other => Junqi::default_work(other),
    })
}

fn choose(g: &Junqi, seat: usize, level: Level, seed: u64) -> Option<Action> {
    g.choose(seat, level, &small(level), &mut SplitMix64(seed))
}

fn legal(g: &Junqi, seat: usize, a: Action) -> bool {
    g.legal_actions(seat).contains(&a)
}

/// A random playout of `plies` actions from `seed`.
fn playout(seed: u64, plies: u32) -> Junqi {
    let mut rng = SplitMix64(seed);
    let g = Junqi::setup(JunqiOptions::default(), 2, &mut rng).unwrap();
    random_actions(g, plies, &mut rng).unwrap()
}

/// A position with colours settled and some pieces still face down.
fn midgame() -> Junqi {
    (0..200)
        .map(|seed| playout(seed, 50))
        .find(|g| g.to_move().is_some() && g.colour_of(0).is_some() && g.face_down_count() > 5)
        .unwrap()
}

#[test]
fn j22_bots_choose_the_same_for_two_layouts_with_one_public_history() {
    // The J22 proof's two games: different hidden layouts, the same public history.
    let (a, b) = (history(layout(1)), history(layout(2)));
    assert_ne!(a, b, "the hidden layouts differ");
    // One more move (not a flip, which would reveal different pieces), so both seats get
    // asked in a settled position.
    let blue = a
        .legal_actions(1)
        .into_iter()
        .find(|x| matches!(x, Action::Move { .. }))
        .unwrap()
        .to_string();
    let (a2, b2) = (play(a.clone(), 1, &blue), play(b.clone(), 1, &blue));
    for (x, y, seat) in [(&a, &b, 1), (&a2, &b2, 0)] {
        assert_eq!(x.view(Viewer::Seat(seat)), y.view(Viewer::Seat(seat)));
        for level in Level::ALL {
            for seed in 0..6 {
                let (cx, cy) = (choose(x, seat, level, seed), choose(y, seat, level, seed));
                assert!(cx.is_some(), "{level} seed {seed}");
                assert_eq!(
                    cx, cy,
                    "{level} seed {seed}: a bot's choice leaks the layout"
                );
            }
        }
    }
    // The same holds with the default budgets the services use (Expert's is too slow for a
    // debug build; its small budget above runs the same code).
    for level in [Level::Easy, Level::Normal] {
        let budget = Budget::work(Junqi::default_work(level));
        let cx = a.choose(1, level, &budget, &mut SplitMix64(9));
        let cy = b.choose(1, level, &budget, &mut SplitMix64(9));
        assert_eq!(cx, cy, "{level} with the default budget");
    }
}

#[test]
fn no_choice_out_of_turn_or_after_the_end() {
    let g = midgame();
    let seat = g.to_move().unwrap();
    for level in Level::ALL {
        assert!(choose(&g, seat, level, 1).is_some());
        assert_eq!(
            choose(&g, 1 - seat, level, 1),
            None,
            "{level}: not its turn"
        );
        assert_eq!(choose(&g, 7, level, 1), None, "{level}: no such seat");
        let over = g.clone().resign(seat);
        assert_eq!(
            choose(&over, 1 - seat, level, 1),
            None,
            "{level}: game over"
        );
    }
}

#[test]
fn an_expired_budget_still_yields_a_legal_action() {
    let budget = Budget::time_up(u64::MAX);
    for g in [midgame(), playout(3, 0), playout(5, 120)] {
        let Some(seat) = g.to_move() else { continue };
        for level in Level::ALL {
            let a = g.choose(seat, level, &budget, &mut SplitMix64(4)).unwrap();
            assert!(legal(&g, seat, a), "{level}: {a}");
        }
        // No work at all is the same.
        for level in Level::ALL {
            let a = g
                .choose(seat, level, &Budget::work(0), &mut SplitMix64(4))
                .unwrap();
            assert!(legal(&g, seat, a), "{level}: {a}");
        }
    }
}

#[test]
fn the_same_seed_and_budget_give_the_same_action() {
    let g = midgame();
    let seat = g.to_move().unwrap();
    for level in Level::ALL {
        for seed in 0..4 {
            assert_eq!(
                choose(&g, seat, level, seed),
                choose(&g, seat, level, seed),
                "{level}"
            );
        }
    }
}

/// Red (seat 0) to move: its corps commander on c6 can take a blue division on c7 (J12);
/// nothing threatens it. Face-down pieces elsewhere keep the game going.
const FREE_CAPTURE: &str = "
    rp  ..  ..  ..  bp
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  Bd  ..  ..
    ..  ..  Rk  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    rf  ..  ..  ..  bf";

#[test]
fn j12_normal_and_expert_take_a_free_capture_and_beginner_mostly_does() {
    let g = red_to_move(FREE_CAPTURE);
    let take = g.parse_action("c6-c7").unwrap();
    for level in [Level::Normal, Level::Hard] {
        for seed in 0..5 {
            assert_eq!(
                choose(&g, 0, level, seed),
                Some(take),
                "{level} seed {seed}"
            );
        }
    }
    let taken = (0..40)
        .filter(|&seed| choose(&g, 0, Level::Easy, seed) == Some(take))
        .count();
    assert!(
        (20..40).contains(&taken),
        "beginner takes it often, not always: {taken}/40"
    );
}

/// Red's division on c6 stands next to the blue commander on c7, which takes it next turn
/// (J12) unless it leaves; a red platoon elsewhere could otherwise move.
const THREATENED: &str = "
    rp  ..  ..  ..  bp
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  Bc  ..  ..
    ..  ..  Rd  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  Rp
    rf  ..  ..  ..  bf";

#[test]
fn j12_normal_and_expert_move_a_threatened_piece_out_of_reach() {
    let g = red_to_move(THREATENED);
    for level in [Level::Normal, Level::Hard] {
        for seed in 0..5 {
            let a = choose(&g, 0, level, seed).unwrap();
            let Action::Move { from, to: dest } = a else {
                panic!("{level} seed {seed}: {a} leaves the division to be taken");
            };
            assert_eq!(from, p("c6"), "{level} seed {seed}: {a}");
            let after = g.clone().apply(0, &a, &mut SplitMix64(0)).unwrap();
            // Whatever blue does next, the division survives: no blue move captures it.
            let attacked = after
                .legal_actions(1)
                .into_iter()
                .any(|r| matches!(r, Action::Move { to, .. } if to == dest));
            assert!(!attacked, "{level} seed {seed}: {a} is still in reach");
        }
    }
}

/// J21 odds: everything still face down is blue and a Bomb or a Mine, so a flip next to the
/// red commander on c6 reveals, half the time, a Bomb that takes the commander with it (J13).
/// The far flip (a12) is harmless; the commander can also move.
const BOMB_ODDS: &str = "
    bm  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  bb  ..  ..
    ..  ..  Rc  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    Rp  ..  ..  ..  ..
    Rf  ..  ..  ..  Bf";

#[test]
fn j21_normal_and_expert_do_not_flip_a_likely_bomb_next_to_their_commander() {
    let g = red_to_move(BOMB_ODDS);
    let risky = g.parse_action("c7").unwrap();
    for level in [Level::Normal, Level::Hard] {
        for seed in 0..5 {
            let a = choose(&g, 0, level, seed).unwrap();
            assert_ne!(a, risky, "{level} seed {seed}");
            assert!(legal(&g, 0, a));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4))]

    /// Any reachable position: random games of a bot (every level) against a random mover
    /// never panic and the bot only ever plays legal actions (J7-J16).
    #[test]
    fn bots_always_play_legal_actions(seed in any::<u64>(), level in 0usize..3) {
        let level = Level::ALL[level];
        let mut rng = SplitMix64(seed);
        let mut g = Junqi::setup(JunqiOptions::default(), 2, &mut rng).unwrap();
        let bot_seat = (seed % 2) as usize;
        while let Some(seat) = g.to_move() {
            if g.ply() >= 120 {
                break;
            }
            let a = if seat == bot_seat {
                let a = g.choose(seat, level, &small(level), &mut rng);
                prop_assert!(a.is_some(), "{} must act", level);
                a.unwrap()
            } else {
                let actions = g.legal_actions(seat);
                actions[rng.below(actions.len() as u32) as usize]
            };
            prop_assert!(legal(&g, seat, a), "{} played {}", level, a);
            g = g.apply(seat, &a, &mut rng).unwrap();
        }
    }
}

/// Nothing face down and no blue Mine left, so the blue Flag on a12 is open (J15); the red
/// commander on c3, red's only movable piece, is far from it and from the blue platoon on e12.
const HUNT: &str = "
    Bf  ..  ..  ..  Bp
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  ..  ..  ..
    ..  ..  Rc  ..  ..
    ..  ..  ..  ..  ..
    Rf  ..  ..  ..  ..";

#[test]
fn j15_j16_expert_hunts_down_the_open_flag() {
    let g = red_to_move(HUNT);
    for seed in 0..3 {
        let mut h = g.clone();
        for _ in 0..12 {
            if h.to_move() != Some(0) {
                break;
            }
            let a = choose(&h, 0, Level::Hard, seed).unwrap();
            h = h.apply(0, &a, &mut SplitMix64(0)).unwrap();
            // Blue's platoon answers with its first legal step.
            if let Some(&reply) = h.legal_actions(1).first() {
                h = h.apply(1, &reply, &mut SplitMix64(0)).unwrap();
            }
        }
        let o = h.outcome().expect("the hunt ends the game within 12 moves");
        assert_eq!(
            o.result,
            GameResult::Win { winners: vec![0] },
            "seed {seed}"
        );
        assert!(
            o.rule == "J15" || o.rule == "J16",
            "seed {seed}: {}",
            o.rule
        );
    }
}
