//! The computer players (ARCHITECTURE.md, "Computer players"): always a legal action on every board, goal, mode and
//! player count; `None` off turn; an answer even with no time; deterministic for a seed and
//! a work budget; and the tactics each level promises, on hand-made positions.

mod common;

use common::options;
use ludus_quoridor::{Cell, Quoridor, QuoridorAction, QuoridorOptions};
use ludus_rules::{Bot, Budget, Game, Level, RandomSource, ScriptedRandom, SplitMix64};
use proptest::prelude::*;

fn cell(s: &str) -> Cell {
    s.parse().expect("a cell in notation")
}

/// A game set up with `first` to move and the pawns of every side on `pawns`.
fn position(options: QuoridorOptions, seats: usize, first: usize, pawns: &[&str]) -> Quoridor {
    let options = QuoridorOptions {
        first_seat: Some(first),
        ..options
    };
    let g = Quoridor::setup(options, seats, &mut SplitMix64(1)).expect("valid options");
    let cells: Vec<Cell> = pawns.iter().map(|p| cell(p)).collect();
    g.arrange(&cells, &[]).expect("a legal position")
}

/// Small work budgets keep the property test quick; the search paths are the same.
fn small(level: Level) -> Budget<'static> {
    Budget::work(match level {
        Level::Easy => 200,
        Level::Normal => 2_000,
        Level::Hard => 4_000,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Q1, Q4, Q9, Q22-Q24: random games of a bot (at every level, in rotation) against a
    /// random mover never panic and every action the bot returns is in `legal_actions`
    /// (so Q3, Q12-Q16 and Q20 hold) and is accepted by `apply`.
    #[test]
    fn every_level_always_plays_a_legal_action(
        size in prop::sample::select(vec![9u8, 11, 13]),
        center in any::<bool>(),
        mode in 0usize..3,
        seats in 2usize..=8,
        walls in 0usize..3,
        seed in any::<u64>(),
    ) {
        let (o, seats) = options(size, seats, mode, center, walls, seed);
        let mut rng = SplitMix64(seed);
        let mut g = Quoridor::setup(o, seats, &mut rng).expect("valid options");
        let bot_seat = (seed % seats as u64) as usize;
        for ply in 0..60 {
            let Some(seat) = g.to_move() else { break };
            let legal = g.legal_actions(seat);
            let a = if seat == bot_seat || ply % 3 == 0 {
                let level = Level::ALL[ply % 3];
                let a = g.choose(seat, level, &small(level), &mut rng);
                let a = a.expect("a bot on turn always answers");
                prop_assert!(legal.contains(&a), "{level} chose illegal {a}");
                a
            } else {
                legal[rng.below(legal.len() as u32) as usize]
            };
            g = g.apply(seat, &a, &mut rng).map_err(|(_, e)| TestCaseError::fail(e.to_string()))?;
        }
    }
}

#[test]
fn no_action_off_turn_or_after_the_end() {
    let g = position(QuoridorOptions::default(), 2, 0, &["e8", "e5"]);
    for level in Level::ALL {
        assert_eq!(g.choose(1, level, &small(level), &mut SplitMix64(3)), None);
        assert_eq!(g.choose(7, level, &small(level), &mut SplitMix64(3)), None);
    }
    // Q17: red steps onto the top edge and the game is over.
    let over = g
        .apply(0, &"e9".parse().expect("notation"), &mut SplitMix64(0))
        .expect("a legal step");
    assert!(over.outcome().is_some());
    for level in Level::ALL {
        for seat in 0..2 {
            assert_eq!(
                over.choose(seat, level, &small(level), &mut SplitMix64(3)),
                None
            );
        }
    }
}

#[test]
fn no_time_at_all_still_gives_a_legal_action() {
    for seats in [2, 4, 8] {
        let g = Quoridor::setup(
            QuoridorOptions {
                first_seat: Some(0),
                ..QuoridorOptions::default()
            },
            seats,
            &mut SplitMix64(5),
        )
        .expect("valid options");
        for level in Level::ALL {
            for work in [0, u64::MAX] {
                let budget = Budget::time_up(work);
                let a = g.choose(0, level, &budget, &mut SplitMix64(9));
                let a = a.expect("an answer");
                assert!(g.legal_actions(0).contains(&a), "{level}: {a}");
            }
        }
    }
}

#[test]
fn same_seed_and_work_give_the_same_action() {
    let two = position(QuoridorOptions::default(), 2, 1, &["e3", "d6"]);
    let four = position(QuoridorOptions::default(), 4, 1, &["e3", "c5", "e7", "g5"]);
    for g in [two, four] {
        for level in Level::ALL {
            let budget = Budget::work(Quoridor::default_work(level).min(20_000));
            let a = g.choose(1, level, &budget, &mut SplitMix64(42));
            let b = g.choose(1, level, &budget, &mut SplitMix64(42));
            assert!(a.is_some());
            assert_eq!(a, b, "{level}");
        }
    }
}

/// Q17: every level steps onto its goal when it can (Easy told by its dice not to waste).
#[test]
fn q17_every_level_takes_a_win_in_one() {
    let g = position(QuoridorOptions::default(), 2, 0, &["c8", "e2"]);
    let win = QuoridorAction::Move(cell("c9"));
    for level in Level::ALL {
        let mut dice = ScriptedRandom::new([50]);
        assert_eq!(
            g.choose(
                0,
                level,
                &Budget::work(Quoridor::default_work(level)),
                &mut dice
            ),
            Some(win),
            "{level}"
        );
    }
}

/// Easy walks its shortest path: with no wall to dodge, every step it takes (when its
/// dice say neither wall nor waste) brings it one step nearer.
#[test]
fn easy_walks_its_shortest_path() {
    let mut g = position(QuoridorOptions::default(), 2, 0, &["e1", "a9"]);
    let mut dice = ScriptedRandom::new([50]);
    for _ in 0..3 {
        let before = g.distance(0).expect("in the game");
        let a = g
            .choose(
                0,
                Level::Easy,
                &Budget::work(Quoridor::default_work(Level::Easy)),
                &mut dice,
            )
            .expect("an answer");
        g = g.apply(0, &a, &mut dice).expect("legal");
        assert_eq!(g.distance(0), Some(before - 1), "{a}");
        let pass = QuoridorAction::Pass;
        g = g.apply(1, &pass, &mut dice).expect("yellow may pass (Q19)");
    }
}

/// Q14, Q15: Normal and Hard stop a rival one step from its goal with a legal wall, in the
/// classic game and in a four-player free-for-all where the rival moves next (when others
/// move in between, the bots may count on them to wall the leader, as they would).
#[test]
fn normal_and_hard_wall_a_rival_about_to_win() {
    let two = position(QuoridorOptions::default(), 2, 1, &["e8", "e5"]);
    // Q6: red bottom (goal top), green left (goal right), blue top, yellow right; yellow
    // (seat 3) to move, red next.
    let four = position(QuoridorOptions::default(), 4, 3, &["b8", "e5", "g4", "h5"]);
    for (g, seat) in [(two, 1), (four, 3)] {
        let red_before = g.distance(0).expect("red plays");
        assert_eq!(red_before, 1);
        for level in [Level::Normal, Level::Hard] {
            let budget = Budget::work(Quoridor::default_work(level));
            let a = g
                .choose(seat, level, &budget, &mut SplitMix64(7))
                .expect("an answer");
            assert!(matches!(a, QuoridorAction::Wall(_)), "{level} played {a}");
            let after = g
                .clone()
                .apply(seat, &a, &mut SplitMix64(0))
                .expect("legal");
            assert!(
                after.distance(0) > Some(1),
                "{level}: {a} does not slow red"
            );
        }
    }
}

/// Q23: a bot in a team seat plays the team's pawn, on that seat's turn only.
#[test]
fn q23_a_bot_in_a_team_seat_plays_for_its_team() {
    let o = QuoridorOptions {
        mode: ludus_quoridor::Mode::Teams,
        ..QuoridorOptions::default()
    };
    // Seats 0 and 2 are red, 1 and 3 yellow; seat 2 takes red's turn.
    let g = position(o, 4, 2, &["d8", "e2"]);
    for level in Level::ALL {
        let budget = Budget::work(Quoridor::default_work(level));
        let mut dice = ScriptedRandom::new([50]);
        assert_eq!(g.choose(0, level, &budget, &mut dice), None, "{level}");
        assert_eq!(
            g.choose(2, level, &budget, &mut dice),
            Some(QuoridorAction::Move(cell("d9"))),
            "{level}"
        );
    }
}
