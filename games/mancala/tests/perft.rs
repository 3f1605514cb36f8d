//! Perft data test for Mancala (Kalah and Congklak), the way chess move generators keep
//! theirs: every line of `tests/data/perft.txt` is a position with the number of legal sow
//! sequences of length 1, 2 and 3 from it (the header of that file defines the count).
//!
//! Two generators are checked against the file and against each other:
//! - the engine (`Mancala::from_position`, `Game::legal_actions`, `Game::apply`);
//! - [`reference`], a slow generator written from shared/rules/mancala.md alone: it sows seed
//!   by seed around the cycle own pits, own store, opponent's pits (M4, K1), relays on a last
//!   seed in an occupied pit (K2), captures (M6, K3), grants extra turns (M5, K3) and ends the
//!   game (M7, K4).

use ludus_mancala::{Mancala, RuleSet};
use ludus_perft::{Case, check_engine_and_reference, perft, print_engine_lines, reference_perft};
use ludus_rules::Seat;

const DATA: &str = include_str!("data/perft.txt");

/// A position of the file.
struct Line {
    rule_set: RuleSet,
    pits: [Vec<u8>; 2],
    stores: [u8; 2],
    to_move: Seat,
}

fn numbers<T: std::str::FromStr>(field: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    field
        .split_whitespace()
        .map(|n| n.parse().expect("a number"))
        .collect()
}

fn cases() -> Vec<Case<Line>> {
    let cases = ludus_perft::read_cases(DATA, 5, |line, f| {
        let stores: Vec<u8> = numbers(f[3]);
        Line {
            rule_set: match f[0] {
                "kalah" => RuleSet::Kalah,
                "congklak" => RuleSet::Congklak,
                other => panic!("line {line}: no rule set {other}"),
            },
            pits: [numbers(f[1]), numbers(f[2])],
            stores: [stores[0], stores[1]],
            to_move: f[4].parse().expect("a seat"),
        }
    });
    assert!(cases.len() >= 10, "the file holds the positions");
    cases
}

fn engine_position(line: &Line) -> Mancala {
    Mancala::from_position(
        line.rule_set,
        [&line.pits[0], &line.pits[1]],
        line.stores,
        line.to_move,
    )
    .expect("a valid position")
}

/// The slow reference generator, from the rule file only.
mod reference {
    use ludus_perft::Reference;
    /// A position: `pits[seat][i]` is pit `i + 1` of `seat` (M1, K1).
    #[derive(Clone, Debug)]
    pub struct Position {
        pub relay: bool,
        pub pits: [Vec<u32>; 2],
        pub stores: [u32; 2],
        /// `None` once the game is over.
        pub to_move: Option<usize>,
    }

    #[derive(Copy, Clone, PartialEq, Debug)]
    enum Spot {
        Pit(usize, usize),
        Store(usize),
    }

    impl Position {
        fn n(&self) -> usize {
            self.pits[0].len()
        }

        /// The spot after `spot` for a sow by `seat`: own pits toward the own store, the
        /// store, then the opponent's pits from their pit 1; the opponent's store is skipped
        /// (M4, K1).
        fn next(&self, seat: usize, spot: Spot) -> Spot {
            match spot {
                Spot::Pit(owner, i) if i + 1 < self.n() => Spot::Pit(owner, i + 1),
                Spot::Pit(owner, _) if owner == seat => Spot::Store(seat),
                Spot::Pit(_, _) => Spot::Pit(seat, 0),
                Spot::Store(_) => Spot::Pit(1 - seat, 0),
            }
        }
    }

    impl Reference for Position {
        type Action = usize;

        /// M4, K2: the non-empty pits of the seat to move.
        fn actions(&self) -> Vec<usize> {
            match self.to_move {
                None => Vec::new(),
                Some(seat) => (0..self.n()).filter(|&i| self.pits[seat][i] > 0).collect(),
            }
        }

        /// Sows pit `pit` of the seat to move and settles the turn.
        fn play(&mut self, pit: usize) {
            let seat = self.to_move.expect("the game goes on");
            let n = self.n();
            let mut spot = Spot::Pit(seat, pit);
            let mut seeds = std::mem::take(&mut self.pits[seat][pit]);
            assert!(seeds > 0, "M4: a non-empty pit");
            let mut laps = 0;
            let extra_turn = loop {
                while seeds > 0 {
                    spot = self.next(seat, spot);
                    match spot {
                        Spot::Pit(o, i) => self.pits[o][i] += 1,
                        Spot::Store(o) => self.stores[o] += 1,
                    }
                    seeds -= 1;
                }
                match spot {
                    Spot::Store(_) => break true, // M5, K3
                    Spot::Pit(o, i) => {
                        if self.relay && self.pits[o][i] >= 2 {
                            // K2: pick the pit up and sow on.
                            seeds = std::mem::take(&mut self.pits[o][i]);
                            laps += 1;
                            assert!(laps < 10_000, "a relay sow ends");
                            continue;
                        }
                        if o == seat && self.pits[o][i] == 1 {
                            // M6, K3: own pit that was empty; capture if the opposite holds seeds.
                            let opposite = self.pits[1 - seat][n - 1 - i];
                            if opposite > 0 {
                                self.stores[seat] += opposite + 1;
                                self.pits[1 - seat][n - 1 - i] = 0;
                                self.pits[seat][i] = 0;
                            }
                        }
                        break false;
                    }
                }
            };
            let next = if extra_turn { seat } else { 1 - seat };
            let rows = [0, 1].map(|s| self.pits[s].iter().sum::<u32>());
            let over = if self.relay {
                rows[next] == 0 // K4: the seat to move has no seeds
            } else {
                rows[0] == 0 || rows[1] == 0 // M7: either row empty, at once
            };
            if over {
                for (s, left) in rows.into_iter().enumerate() {
                    self.stores[s] += left;
                    self.pits[s].iter_mut().for_each(|p| *p = 0);
                }
                self.to_move = None;
            } else {
                self.to_move = Some(next);
            }
        }
    }
}

fn reference_position(line: &Line) -> reference::Position {
    let row = |s: usize| line.pits[s].iter().map(|&p| u32::from(p)).collect();
    reference::Position {
        relay: line.rule_set == RuleSet::Congklak,
        pits: [row(0), row(1)],
        stores: [u32::from(line.stores[0]), u32::from(line.stores[1])],
        to_move: Some(line.to_move),
    }
}

/// M1-M7, K1-K4: engine and reference give the file's counts at depths 1-3.
#[test]
fn counts_match_the_data_file() {
    check_engine_and_reference(&cases(), 1..=3, engine_position, reference_position);
}

/// Engine and reference agree sow by sow deeper than the file goes (depth 5), so a
/// difference that only shows after a few extra turns or relays is caught too.
#[test]
fn engine_and_reference_agree_at_depth_five() {
    for case in &cases() {
        assert_eq!(
            perft(&engine_position(&case.position), 5),
            reference_perft(&reference_position(&case.position), 5),
            "line {} ({})",
            case.line,
            case.text
        );
    }
}

/// Prints the data lines as the engine computes them (run with `--ignored --nocapture` to
/// regenerate the file after a deliberate rule change; then check the reference agrees).
#[test]
#[ignore]
fn print_engine_counts() {
    print_engine_lines(&cases(), engine_position);
}
