//! The crate against the independent reference player of `reference/mod.rs` (written from
//! shared/rules/quoridor.md, not from the crate's code):
//! - both generate the same legal actions, position after position of seeded random duels
//!   with many walls (Q2-Q3, Q11-Q16, Q19-Q20), so the yardstick of
//!   `examples/reference.rs` plays the crate's game;
//! - Normal and Hard never miss a win in one move (Q17) and never miss a wall that stops the
//!   opponent's win on its next move when one exists (Q14-Q15), judged by the reference.

mod reference;

use std::collections::BTreeSet;

use ludus_quoridor::{Quoridor, QuoridorOptions, Walls};
use ludus_rules::{Bot, Budget, Game, Level, RandomSource, SplitMix64};
use reference::{Act, Player, Pos};

/// A duel on `size`×`size` with `walls` each, red (seat 0) first, in both engines.
fn start(size: u8, walls: u8) -> (Quoridor, Pos) {
    let options = QuoridorOptions {
        size,
        walls: Walls::Fixed(walls),
        first_seat: Some(0),
        ..QuoridorOptions::default()
    };
    let game = Quoridor::setup(options, 2, &mut SplitMix64(0)).expect("a duel sets up");
    (game, Pos::start(usize::from(size), u32::from(walls), 0))
}

/// Plays `text` in both engines.
fn play(game: Quoridor, pos: &mut Pos, text: &str) -> Quoridor {
    let seat = game.to_move().expect("on turn");
    let action = game.parse_action(text).expect("the crate reads it");
    pos.play(pos.parse(text).expect("the reference reads it"));
    game.apply(seat, &action, &mut SplitMix64(0))
        .unwrap_or_else(|(_, e)| panic!("{text}: {e}"))
}

/// Both engines' legal actions, in the standard notation.
fn legal_sets(game: &Quoridor, pos: &Pos) -> (BTreeSet<String>, BTreeSet<String>) {
    let seat = game.to_move().expect("on turn");
    let crate_set = game
        .legal_actions(seat)
        .iter()
        .map(ToString::to_string)
        .collect();
    let reference_set = pos.legal().into_iter().map(|a| pos.name(a)).collect();
    (crate_set, reference_set)
}

/// Q2-Q3, Q11-Q16, Q19-Q20: in seeded random duels on 9×9 and 11×11 (half the actions walls
/// while they last, so boards fill up and pawns meet), the two engines list the same legal
/// actions at every ply, and agree on who wins.
#[test]
fn reference_and_crate_agree_on_legal_actions() {
    let mut positions = 0;
    for seed in 0..8u64 {
        let size = if seed % 4 == 3 { 11 } else { 9 };
        let (mut game, mut pos) = start(size, 20);
        let mut rng = SplitMix64(seed);
        while game.outcome().is_none() && game.ply() < 90 {
            let (crate_set, reference_set) = legal_sets(&game, &pos);
            assert_eq!(
                crate_set,
                reference_set,
                "seed {seed}, ply {}: the engines disagree",
                game.ply()
            );
            positions += 1;
            let walls: Vec<&String> = crate_set
                .iter()
                .filter(|a| a.ends_with(['h', 'v']))
                .collect();
            let moves: Vec<&String> = crate_set
                .iter()
                .filter(|a| !a.ends_with(['h', 'v']))
                .collect();
            let pool = if !walls.is_empty() && rng.below(2) == 0 {
                walls
            } else {
                moves
            };
            let text = pool[rng.below(pool.len() as u32) as usize].clone();
            game = play(game, &mut pos, &text);
        }
        if let Some(ludus_rules::GameResult::Win { winners }) = game.outcome().map(|o| &o.result) {
            assert_eq!(
                pos.winner(),
                Some(winners[0]),
                "seed {seed}: the same winner"
            );
        }
    }
    assert!(positions > 300, "{positions} positions compared");
}

/// Whether the side to move in `pos` has a pawn move onto its goal row (Q17).
fn wins_at_once(pos: &Pos) -> bool {
    let goal = pos.goal_row(pos.to_move);
    pos.pawn_moves().iter().any(|&(r, _)| r == goal)
}

/// The actions after which the opponent cannot win on its next move, when the opponent
/// threatens to (a pass would let it win) and the side to move cannot win first.
fn saves(pos: &Pos) -> Option<Vec<Act>> {
    let mut passed = pos.clone();
    passed.play(Act::Pass);
    if wins_at_once(pos) || !wins_at_once(&passed) {
        return None;
    }
    Some(
        pos.legal()
            .into_iter()
            .filter(|&a| {
                let mut after = pos.clone();
                after.play(a);
                !wins_at_once(&after)
            })
            .collect(),
    )
}

/// Q14-Q15, Q17: over positions from seeded games of the reference player (two plies deep)
/// with a random action now and then, Normal and Hard take every win in one and, when the
/// opponent threatens to win next move and some action stops it, play such an action.
#[test]
fn normal_and_hard_take_wins_and_stop_wins_in_one() {
    let (mut wins, mut saves_checked) = (0, 0);
    for seed in 0..16u64 {
        let (mut game, mut pos) = start(9, 10);
        let mut rng = SplitMix64(seed);
        let mut player = Player::new(2);
        while game.outcome().is_none() && game.ply() < 120 {
            let seat = game.to_move().expect("on turn");
            let judged: Option<Vec<Act>> = if wins_at_once(&pos) {
                Some(
                    pos.pawn_moves()
                        .into_iter()
                        .filter(|&(r, _)| r == pos.goal_row(pos.to_move))
                        .map(|(r, c)| Act::Pawn(r, c))
                        .collect(),
                )
            } else {
                saves(&pos).filter(|s| !s.is_empty())
            };
            if let Some(good) = &judged {
                for level in [Level::Normal, Level::Hard] {
                    let budget = Budget::work(Quoridor::default_work(level));
                    let choice = game
                        .choose(seat, level, &budget, &mut SplitMix64(seed))
                        .expect("an answer");
                    let act = pos.parse(&choice.to_string()).expect("notation");
                    assert!(
                        good.contains(&act),
                        "seed {seed}, ply {}: {level} played {choice}; good: {:?}",
                        game.ply(),
                        good.iter().map(|&a| pos.name(a)).collect::<Vec<_>>()
                    );
                }
                if wins_at_once(&pos) {
                    wins += 1;
                } else {
                    saves_checked += 1;
                }
            }
            let act = if rng.below(4) == 0 {
                let legal = pos.legal();
                legal[rng.below(legal.len() as u32) as usize]
            } else {
                player.choose(&pos, &mut rng)
            };
            let text = pos.name(act);
            game = play(game, &mut pos, &text);
        }
    }
    assert!(
        wins >= 10 && saves_checked >= 5,
        "{wins} wins, {saves_checked} saves judged"
    );
}
