//! The computer players of C17 judged by the independent referee of `referee/mod.rs`
//! (brute force from the rule text, C4-C7), over seeded generated positions under every
//! rule set (C1 sizes × C5 options, the four columns of C6).
//!
//! The larger report (thousands of positions per rule set, every level) is the `referee`
//! example; its figures are in BENCHMARKS.md.

mod referee;

use ludus_rules::{Game, GameResult, Level, SplitMix64};
use referee::bridge::{choice, game_of, index};
use referee::{Class, Position, Rules};

/// Generated positions per rule set in the quick tests (debug builds, 2 cores in CI).
const POSITIONS: u64 = 60;

/// The positions of seeds `from..` under `rules`, as many as `count` (seeds whose stones
/// cannot be ordered without an early win are skipped).
fn positions(rules: Rules, from: u64, count: u64) -> Vec<(u64, Position)> {
    (from..)
        .filter_map(|seed| referee::generate(rules, seed).map(|p| (seed, p)))
        .take(count as usize)
        .collect()
}

#[test]
fn the_referee_and_the_rules_agree_on_every_placement() {
    // C6/C7: for every empty cell of a few positions per rule set, the referee's own win
    // check says what the crate's game says after the stone is placed.
    for rules in Rules::all() {
        for (seed, position) in positions(rules, 500, 4) {
            let game = game_of(&position);
            let seat = game.to_move().expect("the game goes on");
            let stone = position.to_move();
            for action in game.legal_actions(seat) {
                let at = index(&position, action.cell);
                let after = game
                    .clone()
                    .apply(seat, &action, &mut SplitMix64(0))
                    .map_err(|(_, e)| e)
                    .expect("a legal action");
                let crate_says = matches!(
                    after.outcome().map(|o| &o.result),
                    Some(GameResult::Win { .. })
                );
                assert_eq!(
                    crate_says,
                    position.wins(at, stone),
                    "{} seed {seed}: {}",
                    rules.name(),
                    position.name(at)
                );
            }
        }
    }
}

#[test]
fn the_referee_sees_the_blocked_end_of_a_four() {
    // C4, C5 blocked-ends: X on B2, C3, D4, E5 wins on A1 and on F6; O on F6 leaves A1's
    // five blocked by the edge and by F6, so F6 is the only save. Under the free rules O
    // cannot stop both.
    for rules in Rules::all() {
        let mut position = Position::empty(rules);
        for (x, o) in [((1, 1), (7, 12)), ((2, 2), (9, 12)), ((3, 3), (11, 12))] {
            position.place(x.1 * rules.size + x.0, referee::X);
            position.place(o.1 * rules.size + o.0, referee::O);
        }
        position.place(4 * rules.size + 4, referee::X);
        let Class::MustBlock { threats, saves } = position.classify() else {
            panic!("{}: O must block", rules.name());
        };
        assert_eq!(position.names(&threats), ["A1", "F6"], "{}", rules.name());
        let expected: &[&str] = if rules.blocked_ends { &["F6"] } else { &[] };
        assert_eq!(position.names(&saves), expected, "{}", rules.name());
        if rules.blocked_ends {
            for level in [Level::Normal, Level::Hard] {
                assert_eq!(
                    position.name(choice(&position, level, 0)),
                    "F6",
                    "{level:?}"
                );
            }
        }
    }
}

#[test]
fn medium_and_hard_never_miss_a_win_in_one_nor_a_forced_block() {
    // C7 (a placement that wins ends the game) and C17 (Medium always blocks when the
    // opponent is one stone from a winning five; Hard is stronger), under the C4 and C5
    // blocking of every rule set: a save is judged by the referee, not by the bots' own
    // idea of a four.
    let mut checked = [0usize; 2];
    for rules in Rules::all() {
        for (seed, position) in positions(rules, 1, POSITIONS) {
            // The cells a good move is among, which count it feeds, and what the message says.
            let (kind, good, against) = match position.classify_forced() {
                Class::WinIn1 { cells } => {
                    let against = format!("with a win on {}", position.name(cells[0]));
                    (0, cells, against)
                }
                Class::MustBlock { threats, saves } if !saves.is_empty() => {
                    let against = format!(
                        "against fours on {:?}; saves {:?}",
                        position.names(&threats),
                        position.names(&saves)
                    );
                    (1, saves, against)
                }
                // Nothing forced (Hard would spend its whole budget on it), or already lost.
                _ => continue,
            };
            for level in [Level::Normal, Level::Hard] {
                checked[kind] += 1;
                let at = choice(&position, level, seed);
                assert!(
                    good.contains(&at),
                    "{} seed {seed}: {level:?} played {} {against}",
                    rules.name(),
                    position.name(at),
                );
            }
        }
    }
    // The generator must keep producing both kinds, or the test proves nothing.
    assert!(checked[0] >= 200 && checked[1] >= 100, "{checked:?}");
}

#[test]
fn hard_starts_a_short_vcf_whenever_there_is_one() {
    // C17: Hard "attacks with consecutive fours". Every position where the side to move wins
    // by fours within three of its moves (the referee's VCF ≤ 3): Hard's move starts such a
    // win (the example's thousands of positions: every one; here at least 95 %).
    let (mut found, mut total) = (0, 0);
    for rules in Rules::all() {
        for (seed, position) in positions(rules, 1, POSITIONS / 2) {
            if position.classify_forced() != Class::Quiet {
                continue;
            }
            let Class::Vcf { moves, .. } = position.classify() else {
                continue;
            };
            total += 1;
            found += usize::from(moves.contains(&choice(&position, Level::Hard, seed)));
        }
    }
    assert!(total >= 20, "only {total} VCF positions");
    assert!(found * 100 >= total * 95, "Hard found {found} of {total}");
}
