//! Perft data test for Backgammon, the way chess move generators keep theirs: every line of
//! `tests/data/perft.txt` is a position with the number of legal plays summed over the 21
//! rolls, to depth 1, 2 and 3 (the header of that file defines the count precisely).
//!
//! Two generators are checked against the file and against each other:
//! - the engine (`Backgammon::from_position` with the dice, `Game::legal_actions`,
//!   `Game::apply`);
//! - [`reference`], a slow generator written from shared/rules/backgammon.md alone: it
//!   plays the dice in every order, checker by checker (B6, B7), with its own single-step
//!   legality (B5, B9, B10, B11), keeps the sequences that use the most dice and, when that
//!   is one die of a non-double, those of the larger die (B8), and counts distinct positions.

use std::collections::{BTreeSet, HashSet};

use ludus_backgammon::play::legal_plays;
use ludus_backgammon::{Action, Backgammon, BackgammonOptions, Board};
use ludus_perft::{Case, check_counts, print_data_lines};
use ludus_rules::{Game, ScriptedRandom, Seat};

const DATA: &str = include_str!("data/perft.txt");

/// The 21 distinct rolls: the larger die first.
fn rolls() -> Vec<[u8; 2]> {
    (1..=6u8)
        .flat_map(|a| (1..=a).map(move |b| [a, b]))
        .collect()
}

/// Checker counts per side in its own numbering: index 1-24 the points, 25 the bar.
type Checkers = [[u8; 26]; 2];

/// A position of the file.
struct Line {
    on_roll: Seat,
    checkers: Checkers,
}

fn side(field: &str) -> [u8; 26] {
    let mut out = [0u8; 26];
    for item in field.split_whitespace() {
        let (point, count) = item.split_once(':').expect("point:count");
        let index = if point == "bar" {
            25
        } else {
            point.parse::<usize>().expect("a point number")
        };
        assert!((1..=25).contains(&index), "{item}");
        out[index] = count.parse().expect("a checker count");
    }
    out
}

fn cases() -> Vec<Case<Line>> {
    let cases = ludus_perft::read_cases(DATA, 3, |line, f| Line {
        on_roll: match f[0] {
            "white" => 0,
            "black" => 1,
            other => panic!("line {line}: no side {other}"),
        },
        checkers: [side(f[1]), side(f[2])],
    });
    assert!(cases.len() >= 8, "the file holds the positions");
    cases
}

/// The engine's board (`[side][point - 1]`, index 24 the bar).
fn engine_board(checkers: &Checkers) -> Board {
    let mut counts = [[0u8; 25]; 2];
    for s in 0..2 {
        counts[s].copy_from_slice(&checkers[s][1..26]);
    }
    Board::new(counts).expect("a valid board")
}

fn checkers_of(board: &Board) -> Checkers {
    let counts = board.counts();
    let mut out = [[0u8; 26]; 2];
    for s in 0..2 {
        out[s][1..26].copy_from_slice(&counts[s]);
    }
    out
}

/// The positions (with the game's end, if it ended) after each legal play of `dice`.
fn engine_children(board: &Board, on_roll: Seat, dice: [u8; 2]) -> Vec<(Board, bool)> {
    let game = Backgammon::from_position(BackgammonOptions::default(), *board, on_roll, Some(dice))
        .expect("a playable position");
    game.legal_actions(on_roll)
        .iter()
        .filter(|a| matches!(a, Action::Play(_)))
        .map(|play| {
            let next = game
                .clone()
                .apply(on_roll, play, &mut ScriptedRandom::new([]))
                .map_err(|(_, e)| e)
                .expect("a listed play is legal");
            (*next.board(), next.outcome().is_some())
        })
        .collect()
}

/// Counts with the engine's generator: `Game::legal_actions` for the number of plays, and
/// the positions they reach from `play::legal_plays`, the list `legal_actions` is built from
/// (applying every play through `Game::apply` re-checks it against that list, which makes
/// depth 2 quadratic; [`engine_and_reference_reach_the_same_positions`] applies them all at
/// depth 1).
fn engine_perft(board: &Board, on_roll: Seat, depth: u32) -> u64 {
    rolls()
        .into_iter()
        .map(|dice| {
            let game = Backgammon::from_position(
                BackgammonOptions::default(),
                *board,
                on_roll,
                Some(dice),
            )
            .expect("a playable position");
            let count = game
                .legal_actions(on_roll)
                .iter()
                .filter(|a| matches!(a, Action::Play(_)))
                .count();
            if depth == 1 {
                return count as u64;
            }
            let children = legal_plays(board, on_roll, dice).plays;
            assert_eq!(children.len(), count, "one action per legal play");
            children
                .iter()
                .filter(|(_, next)| next.winner().is_none())
                .map(|(_, next)| engine_perft(next, on_roll ^ 1, depth - 1))
                .sum()
        })
        .sum()
}

/// The slow reference generator, from the rule file only.
mod reference {
    use std::collections::HashSet;

    use super::Checkers;

    fn in_play(side: &[u8; 26]) -> u32 {
        side.iter().map(|&c| u32::from(c)).sum()
    }

    /// One checker of `s` from `from` (1-24, 25 the bar) by `die`, if legal.
    fn step(board: &Checkers, s: usize, from: usize, die: usize) -> Option<Checkers> {
        if board[s][from] == 0 {
            return None;
        }
        // B10: while a checker is on the bar nothing else moves.
        if from != 25 && board[s][25] > 0 {
            return None;
        }
        let mut next = *board;
        next[s][from] -= 1;
        if from > die {
            let to = from - die;
            // The opponent numbers this point 25 - to (B1).
            let theirs = 25 - to;
            match board[1 - s][theirs] {
                0 => {}
                1 => {
                    // B9: a blot is hit and goes to the bar.
                    next[1 - s][theirs] = 0;
                    next[1 - s][25] += 1;
                }
                _ => return None, // B5
            }
            next[s][to] += 1;
        } else {
            // B11: bearing off, only with every checker in play home (points 1-6).
            if (7..=25).any(|p| board[s][p] > 0) {
                return None;
            }
            // A larger die than the point only from the highest occupied point.
            if from < die && (from + 1..=6).any(|p| board[s][p] > 0) {
                return None;
            }
        }
        Some(next)
    }

    /// Every sequence of single steps with the dice in `left`, in any order; records each
    /// final position with the dice the sequence used and whether it used the die `larger`
    /// alone.
    fn explore(
        board: &Checkers,
        s: usize,
        left: &[usize],
        used: Vec<usize>,
        seen: &mut HashSet<(Checkers, Vec<usize>)>,
        leaves: &mut Vec<(Checkers, Vec<usize>)>,
    ) {
        if !seen.insert((*board, left.to_vec())) {
            return;
        }
        let mut moved = false;
        for k in 0..left.len() {
            let die = left[k];
            let mut rest = left.to_vec();
            rest.remove(k);
            for from in 1..=25 {
                if let Some(next) = step(board, s, from, die) {
                    moved = true;
                    let mut now_used = used.clone();
                    now_used.push(die);
                    explore(&next, s, &rest, now_used, seen, leaves);
                }
            }
        }
        if !moved {
            leaves.push((*board, used));
        }
    }

    /// The distinct positions the legal plays of `dice` reach (B6-B8, B10, B11); the
    /// unchanged position when nothing can be played.
    pub fn plays(board: &Checkers, s: usize, dice: [u8; 2]) -> Vec<Checkers> {
        let (a, b) = (usize::from(dice[0]), usize::from(dice[1]));
        let all: Vec<usize> = if a == b { vec![a; 4] } else { vec![a, b] }; // B7
        let mut leaves = Vec::new();
        explore(board, s, &all, Vec::new(), &mut HashSet::new(), &mut leaves);
        // B8: the most dice; one die of a non-double: the larger when it can be played.
        let most = leaves.iter().map(|(_, u)| u.len()).max().unwrap_or(0);
        let larger = a.max(b);
        let larger_alone =
            a != b && most == 1 && leaves.iter().any(|(_, u)| u.len() == 1 && u[0] == larger);
        let mut out: Vec<Checkers> = Vec::new();
        for (position, used) in leaves {
            if used.len() == most
                && !(larger_alone && used[0] != larger)
                && !out.contains(&position)
            {
                out.push(position);
            }
        }
        out
    }

    /// B13: a side with no checker in play has won.
    pub fn over(board: &Checkers) -> bool {
        in_play(&board[0]) == 0 || in_play(&board[1]) == 0
    }

    pub fn perft(board: &Checkers, s: usize, depth: u32) -> u64 {
        super::rolls()
            .into_iter()
            .map(|dice| {
                let plays = plays(board, s, dice);
                if depth == 1 {
                    return plays.len() as u64;
                }
                plays
                    .iter()
                    .filter(|p| !over(p))
                    .map(|p| perft(p, 1 - s, depth - 1))
                    .sum()
            })
            .sum()
    }
}

/// B5-B11: for every position of the file, every roll and every play after it, the engine
/// reaches exactly the positions the reference reaches.
#[test]
fn engine_and_reference_reach_the_same_positions() {
    for case in &cases() {
        let line = &case.position;
        let board = engine_board(&line.checkers);
        for dice in rolls() {
            let engine: BTreeSet<Checkers> = engine_children(&board, line.on_roll, dice)
                .iter()
                .map(|(b, _)| checkers_of(b))
                .collect();
            let reference: BTreeSet<Checkers> =
                reference::plays(&line.checkers, line.on_roll, dice)
                    .into_iter()
                    .collect();
            assert_eq!(engine, reference, "line {} roll {dice:?}", case.line);
            let distinct: HashSet<Checkers> = engine.iter().copied().collect();
            assert_eq!(distinct.len(), engine.len(), "plays are distinct positions");
        }
    }
}

/// The engine's starting point for a line: its board and the side on roll.
fn engine_start(line: &Line) -> (Board, Seat) {
    (engine_board(&line.checkers), line.on_roll)
}

fn engine_counts(&(board, on_roll): &(Board, Seat), depth: u32) -> u64 {
    engine_perft(&board, on_roll, depth)
}

/// The reference's starting point for a line: its checkers and the side on roll.
fn reference_start(line: &Line) -> (Checkers, Seat) {
    (line.checkers, line.on_roll)
}

fn reference_counts((checkers, on_roll): &(Checkers, Seat), depth: u32) -> u64 {
    reference::perft(checkers, *on_roll, depth)
}

/// B5-B13: engine and reference give the file's counts at depths 1 and 2.
#[test]
fn counts_match_the_data_file_to_depth_two() {
    let cases = cases();
    check_counts(&cases, "engine", 1..=2, engine_start, engine_counts);
    check_counts(
        &cases,
        "reference",
        1..=2,
        reference_start,
        reference_counts,
    );
}

/// Depth 3 with the engine (tens of millions of plays from the opening):
/// `cargo test --release -p ludus-backgammon --test perft -- --ignored`.
#[test]
#[ignore = "tens of millions of plays; run in release"]
fn engine_counts_match_the_data_file_to_depth_three() {
    check_counts(&cases(), "engine", 1..=3, engine_start, engine_counts);
}

/// Depth 3 with the reference generator alone, so the two depth-3 runs can go in parallel.
#[test]
#[ignore = "tens of millions of plays; run in release"]
fn reference_counts_match_the_data_file_to_depth_three() {
    check_counts(
        &cases(),
        "reference",
        3..=3,
        reference_start,
        reference_counts,
    );
}

/// Prints the data lines as the engine computes them (run with `--ignored --nocapture` to
/// regenerate the file after a deliberate rule change; then check the reference agrees).
#[test]
#[ignore]
fn print_engine_counts() {
    print_data_lines(&cases(), engine_start, engine_counts);
}
