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
use ludus_perft::{Case, Reference, check_engine_and_reference, play_all, print_engine_lines};
use ludus_rules::{Game, ScriptedRandom};

const DATA: &str = include_str!("data/perft.txt");

/// A position of the file: the rule set and the moves that led to it.
struct Line {
    ruleset: String,
    moves: Vec<String>,
}

fn cases() -> Vec<Case<Line>> {
    let cases = ludus_perft::read_cases(DATA, 2, |_, f| Line {
        ruleset: f[0].to_owned(),
        moves: f[1].split_whitespace().map(str::to_owned).collect(),
    });
    assert!(cases.len() >= 9, "the file holds the positions");
    cases
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

fn engine_position(line: &Line) -> Caro {
    let game = Caro::setup(options(&line.ruleset), 2, &mut ScriptedRandom::new([]))
        .expect("valid options");
    play_all(game, &line.moves)
}

/// The slow reference generator, from the rule file only.
mod reference {
    use ludus_perft::Reference;
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

    impl Reference for Position {
        type Action = usize;

        /// C3: any empty cell, while the game goes on.
        fn actions(&self) -> Vec<usize> {
            if self.to_move == 0 {
                return Vec::new();
            }
            (0..self.cells.len())
                .filter(|&i| self.cells[i] == 0)
                .collect()
        }

        fn play(&mut self, index: usize) {
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
    }
}

fn reference_position(line: &Line) -> reference::Position {
    let parts: Vec<&str> = line.ruleset.split('/').collect();
    let mut position = reference::Position::new(
        parts[1].parse().expect("a size"),
        parts.contains(&"blocked-ends"),
        parts.contains(&"exactly-five"),
    );
    for text in &line.moves {
        let index = position.cell(text);
        position.play(index);
    }
    position
}

/// Depths checked in every run: a debug build lists about 50,000 positions at depth 3 per
/// line at a few hundred microseconds each, so depth 3 runs in the ignored test below.
const QUICK_DEPTH: u32 = 2;

/// Engine and reference give the file's counts to `max_depth`; the reference agreeing with
/// the file shows the file was not simply copied from the engine.
fn check(max_depth: u32) {
    check_engine_and_reference(&cases(), 1..=max_depth, engine_position, reference_position);
}

/// C1-C8: engine and reference give the file's counts at depths 1 and 2.
#[test]
fn counts_match_the_data_file_to_depth_two() {
    check(QUICK_DEPTH);
}

/// C1-C8 at depth 3 as well: `cargo test --release -p ludus-caro --test perft -- --ignored`.
#[test]
#[ignore = "about 800,000 positions; run in release"]
fn counts_match_the_data_file_to_depth_three() {
    check(3);
}

/// Prints the data lines as the engine computes them (run with `--ignored --nocapture` to
/// regenerate the file after a deliberate rule change; then check the reference agrees).
#[test]
#[ignore]
fn print_engine_counts() {
    print_engine_lines(&cases(), engine_position);
}
