//! Perft data test for Caro, the way chess move generators keep theirs: every line of
//! `tests/data/perft.txt` is a position (rule set and the moves that led to it, in C1
//! notation) with the number of legal action sequences of length 1, 2 and 3 from it.
//!
//! Two generators are checked against the file and against each other:
//! - the engine (`Game::legal_actions` + `Game::apply`);
//! - [`reference`], a slow generator written from shared/rules/caro.md alone: a legal action
//!   is any empty cell (C3) while nobody has won (C7) and the board is not full (C8); a win is
//!   found by walking the four lines through the placed stone (C4) and applying the table of
//!   C6 for the chosen options (C5).
//!
//! A sequence ends early at a finished game, so a win at depth 1 or 2 removes its whole
//! subtree: that is what the near-win positions in the file exercise.

use ludus_caro::{Caro, CaroOptions};
use ludus_rules::{Game, ScriptedRandom};

const DATA: &str = include_str!("data/perft.txt");

/// One line of the data file.
struct Case {
    line: usize,
    ruleset: String,
    moves: Vec<String>,
    counts: Vec<u64>,
}

fn cases() -> Vec<Case> {
    DATA.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let fields: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(fields.len(), 3, "line {}: three fields", i + 1);
            Case {
                line: i + 1,
                ruleset: fields[0].to_owned(),
                moves: fields[1].split_whitespace().map(str::to_owned).collect(),
                counts: fields[2]
                    .split_whitespace()
                    .map(|n| n.parse().expect("a count"))
                    .collect(),
            }
        })
        .collect()
}

/// Reads `caro/<size>/<rules>` (the engine's own rule-set naming, C16).
fn options(ruleset: &str) -> CaroOptions {
    let parts: Vec<&str> = ruleset.split('/').collect();
    assert_eq!(parts[0], "caro", "{ruleset}");
    let size = parts[1].parse().expect("a board size");
    let rules = &parts[2..];
    let options = CaroOptions {
        size,
        blocked_ends: rules.contains(&"blocked-ends"),
        exactly_five: rules.contains(&"exactly-five"),
    };
    assert_eq!(options.ruleset(), ruleset, "rule set naming round-trips");
    options
}

fn engine_position(case: &Case) -> Caro {
    let mut rng = ScriptedRandom::new([]);
    let mut game = Caro::setup(options(&case.ruleset), 2, &mut rng).expect("valid options");
    for text in &case.moves {
        let seat = game.to_move().expect("the game goes on");
        let action = game.parse_action(text).expect("C1 notation");
        game = game
            .apply(seat, &action, &mut rng)
            .map_err(|(_, e)| e)
            .expect("a legal move");
    }
    game
}

fn engine_perft(game: &Caro, depth: u32) -> u64 {
    let Some(seat) = game.to_move() else {
        return 0;
    };
    let actions = game.legal_actions(seat);
    if depth == 1 {
        return actions.len() as u64;
    }
    actions
        .iter()
        .map(|a| {
            let next = game
                .clone()
                .apply(seat, a, &mut ScriptedRandom::new([]))
                .map_err(|(_, e)| e)
                .expect("a listed action is legal");
            engine_perft(&next, depth - 1)
        })
        .sum()
}

/// The slow reference generator, from the rule file only.
mod reference {
    /// A position: `cells[row * size + col]` is 0 (empty), 1 (X) or 2 (O).
    #[derive(Clone)]
    pub struct Position {
        pub size: usize,
        pub blocked_ends: bool,
        pub exactly_five: bool,
        pub cells: Vec<u8>,
        /// 1 or 2 while the game goes on (C2: X first, then alternate); 0 once it has ended.
        pub to_move: u8,
    }

    impl Position {
        pub fn new(size: usize, blocked_ends: bool, exactly_five: bool) -> Self {
            Position {
                size,
                blocked_ends,
                exactly_five,
                cells: vec![0; size * size],
                to_move: 1,
            }
        }

        /// C1: column letter from the left (I included), row number from the top.
        pub fn cell(&self, text: &str) -> usize {
            let bytes = text.as_bytes();
            let col = usize::from(bytes[0].to_ascii_uppercase() - b'A');
            let row: usize = text[1..].parse::<usize>().expect("a row number") - 1;
            assert!(col < self.size && row < self.size, "{text} is on the board");
            row * self.size + col
        }

        /// C3: any empty cell, while the game goes on.
        pub fn actions(&self) -> Vec<usize> {
            if self.to_move == 0 {
                return Vec::new();
            }
            (0..self.cells.len())
                .filter(|&i| self.cells[i] == 0)
                .collect()
        }

        pub fn play(&mut self, index: usize) {
            assert!(self.to_move != 0 && self.cells[index] == 0);
            let stone = self.to_move;
            self.cells[index] = stone;
            if self.wins(index, stone) {
                self.to_move = 0; // C7
            } else if self.cells.iter().all(|&c| c != 0) {
                self.to_move = 0; // C8
            } else {
                self.to_move = 3 - stone;
            }
        }

        /// C4-C7: the four lines through the placed stone.
        fn wins(&self, index: usize, stone: u8) -> bool {
            let n = self.size as i32;
            let (row, col) = ((index / self.size) as i32, (index % self.size) as i32);
            let at = |r: i32, c: i32| -> Option<u8> {
                (r >= 0 && r < n && c >= 0 && c < n).then(|| self.cells[(r * n + c) as usize])
            };
            [(0, 1), (1, 0), (1, 1), (1, -1)].iter().any(|&(dr, dc)| {
                let mut length = 1;
                let mut blocked = 0;
                for sign in [1, -1] {
                    let (mut r, mut c) = (row + sign * dr, col + sign * dc);
                    loop {
                        match at(r, c) {
                            Some(s) if s == stone => length += 1,
                            Some(0) => break,
                            _ => {
                                blocked += 1; // opponent stone or off the board (C4)
                                break;
                            }
                        }
                        r += sign * dr;
                        c += sign * dc;
                    }
                }
                // C6's table.
                length >= 5
                    && !(self.exactly_five && length > 5)
                    && !(self.blocked_ends && blocked == 2)
            })
        }
    }

    pub fn perft(position: &Position, depth: u32) -> u64 {
        let actions = position.actions();
        if depth == 1 {
            return actions.len() as u64;
        }
        actions
            .into_iter()
            .map(|a| {
                let mut next = position.clone();
                next.play(a);
                perft(&next, depth - 1)
            })
            .sum()
    }
}

fn reference_position(case: &Case) -> reference::Position {
    let parts: Vec<&str> = case.ruleset.split('/').collect();
    let mut position = reference::Position::new(
        parts[1].parse().expect("a size"),
        parts.contains(&"blocked-ends"),
        parts.contains(&"exactly-five"),
    );
    for text in &case.moves {
        let index = position.cell(text);
        position.play(index);
    }
    position
}

/// Depths checked in every run: a debug build lists about 50,000 positions at depth 3 per
/// line at a few hundred microseconds each, so depth 3 runs in the ignored test below.
const QUICK_DEPTH: u32 = 2;

fn check_engine(max_depth: u32) {
    let cases = cases();
    assert!(cases.len() >= 9, "the file holds the positions");
    for case in &cases {
        let game = engine_position(case);
        for (depth, &expected) in (1..=max_depth).zip(&case.counts) {
            assert_eq!(
                engine_perft(&game, depth),
                expected,
                "engine, line {} ({} {:?}) depth {depth}",
                case.line,
                case.ruleset,
                case.moves
            );
        }
    }
}

/// The reference generator agrees with the file, so the file was not simply copied from the
/// engine.
fn check_reference(max_depth: u32) {
    for case in &cases() {
        let position = reference_position(case);
        for (depth, &expected) in (1..=max_depth).zip(&case.counts) {
            assert_eq!(
                reference::perft(&position, depth),
                expected,
                "reference, line {} ({} {:?}) depth {depth}",
                case.line,
                case.ruleset,
                case.moves
            );
        }
    }
}

/// C1-C8: engine and reference give the file's counts at depths 1 and 2.
#[test]
fn counts_match_the_data_file_to_depth_two() {
    check_engine(QUICK_DEPTH);
    check_reference(QUICK_DEPTH);
}

/// C1-C8 at depth 3 as well: `cargo test --release -p ludus-caro --test perft -- --ignored`.
#[test]
#[ignore = "about 800,000 positions; run in release"]
fn counts_match_the_data_file_to_depth_three() {
    check_engine(3);
    check_reference(3);
}

/// Prints the data lines as the engine computes them (run with `--ignored --nocapture` to
/// regenerate the file after a deliberate rule change; then check the reference agrees).
#[test]
#[ignore]
fn print_engine_counts() {
    for case in &cases() {
        let game = engine_position(case);
        let counts: Vec<String> = (1..=3)
            .map(|d| engine_perft(&game, d).to_string())
            .collect();
        println!(
            "{} | {} | {}",
            case.ruleset,
            case.moves.join(" "),
            counts.join(" ")
        );
    }
}
