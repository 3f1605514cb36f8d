//! The harness every game's `tests/perft.rs` shares, the way chess move generators keep their
//! perft tests: a data file lists positions with the number of legal action sequences of
//! length 1, 2, 3… from each, and two generators (the engine and a slow reference written
//! from the rule file alone) must both give those numbers.
//!
//! This crate owns what is the same for every game: the file format (one position a line,
//! `|`-separated fields, the counts last, `#` comments), counting action sequences, the check
//! loop that names the line, the position and the depth of every mismatch, the comparison of
//! engine and reference action lists, and the regenerate helper. Each game's test keeps what
//! is its own: reading the position fields in its notation and its reference generator.
//!
//! It is a dev-dependency only: nothing here runs in a service.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::ops::RangeInclusive;

use ludus_rules::{Game, ScriptedRandom};

/// One position line of a data file.
#[derive(Debug, Clone)]
pub struct Case<P> {
    /// The line number in the file (from 1), for messages.
    pub line: usize,
    /// The position fields as written (the line without its counts), for messages and for
    /// printing the line again.
    pub text: String,
    /// What the game read from the position fields.
    pub position: P,
    /// The file's count at depth 1, 2, 3…
    pub counts: Vec<u64>,
}

/// Reads every position line of `data`: blank lines and lines starting with `#` are skipped;
/// every other line is `field | field | … | count@1 count@2 …` with exactly `fields` position
/// fields before the counts. `read` gets the line number and the trimmed position fields.
///
/// Panics, naming the line, on a line with the wrong number of fields or a count that is not
/// a number, and on a file with no position at all.
pub fn read_cases<P>(
    data: &str,
    fields: usize,
    read: impl Fn(usize, &[&str]) -> P,
) -> Vec<Case<P>> {
    let cases: Vec<Case<P>> = data
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let line = i + 1;
            let split: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(
                split.len(),
                fields + 1,
                "line {line}: {fields} position fields and the counts, separated by `|`"
            );
            let (text, counts) = l.rsplit_once('|').unwrap_or_default();
            let counts = counts
                .split_whitespace()
                .map(|n| {
                    n.parse()
                        .unwrap_or_else(|_| panic!("line {line}: {n:?} is not a count"))
                })
                .collect();
            Case {
                line,
                text: text.trim_end().to_owned(),
                position: read(line, &split[..fields]),
                counts,
            }
        })
        .collect();
    assert!(!cases.is_empty(), "the data file holds positions");
    cases
}

/// The number of sequences of `depth` legal actions from `game` (at least 1); a finished game
/// has none, so a game that ends on the way removes its whole subtree.
pub fn perft<G: Game>(game: &G, depth: u32) -> u64 {
    let Some(seat) = game.to_move() else {
        return 0;
    };
    let actions = game.legal_actions(seat);
    if depth == 1 {
        return actions.len() as u64;
    }
    actions
        .iter()
        .map(|action| perft(&apply(game, seat, action), depth - 1))
        .sum()
}

/// `game` after `seat` takes `action`, which must be legal.
fn apply<G: Game>(game: &G, seat: ludus_rules::Seat, action: &G::Action) -> G {
    game.clone()
        .apply(seat, action, &mut ScriptedRandom::new([]))
        .map_err(|(_, e)| e)
        .unwrap_or_else(|e| panic!("{action} is legal: {e:?}"))
}

/// `game` after the side to move takes the action written `text` in the game's notation.
pub fn play<G: Game>(game: &G, text: &str) -> G {
    let seat = game
        .to_move()
        .unwrap_or_else(|| panic!("the game goes on before {text}"));
    let action = game
        .parse_action(text)
        .unwrap_or_else(|e| panic!("{text} is notation: {e:?}"));
    apply(game, seat, &action)
}

/// `game` after the actions written in `moves`, one after the other.
pub fn play_all<G: Game>(game: G, moves: &[String]) -> G {
    moves.iter().fold(game, |game, text| play(&game, text))
}

/// The legal actions of the side to move, by name (none once the game is over).
pub fn action_names<G: Game>(game: &G) -> BTreeSet<String> {
    game.to_move()
        .map(|seat| game.legal_actions(seat))
        .unwrap_or_default()
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// A reference generator's position: the actions it lists and how it plays one.
pub trait Reference: Clone {
    /// One action of the reference generator's own.
    type Action: Copy;
    /// Every legal action of the side to move; none once the game is over.
    fn actions(&self) -> Vec<Self::Action>;
    /// Plays a legal action.
    fn play(&mut self, action: Self::Action);
}

/// [`perft`] for a reference generator.
pub fn reference_perft<R: Reference>(position: &R, depth: u32) -> u64 {
    let actions = position.actions();
    if depth == 1 {
        return actions.len() as u64;
    }
    actions
        .into_iter()
        .map(|action| {
            let mut next = position.clone();
            next.play(action);
            reference_perft(&next, depth - 1)
        })
        .sum()
}

/// Checks one generator against the file: for every case, `count(start(case), depth)` must be
/// the file's count at every depth of `depths`. Panics listing every mismatch with the
/// generator's name, the line, the position and the depth.
#[track_caller]
pub fn check_counts<P, S>(
    cases: &[Case<P>],
    generator: &str,
    depths: RangeInclusive<u32>,
    start: impl Fn(&P) -> S,
    count: impl Fn(&S, u32) -> u64,
) {
    let mut mismatches = String::new();
    for case in cases {
        let state = start(&case.position);
        for depth in depths.clone() {
            let expected = *usize::try_from(depth - 1)
                .ok()
                .and_then(|i| case.counts.get(i))
                .unwrap_or_else(|| panic!("line {}: no count for depth {depth}", case.line));
            let counted = count(&state, depth);
            if counted != expected {
                let _ = writeln!(
                    mismatches,
                    "{generator}, line {} ({}) depth {depth}: counted {counted}, the file says \
                     {expected}",
                    case.line, case.text
                );
            }
        }
    }
    assert!(mismatches.is_empty(), "perft counts differ:\n{mismatches}");
}

/// Checks the engine ([`perft`]) and the reference generator ([`reference_perft`]) against
/// the file at every depth of `depths`; the reference agreeing with the file shows the file
/// was not simply copied from the engine.
#[track_caller]
pub fn check_engine_and_reference<P, G: Game, R: Reference>(
    cases: &[Case<P>],
    depths: RangeInclusive<u32>,
    engine: impl Fn(&P) -> G,
    reference: impl Fn(&P) -> R,
) {
    check_counts(cases, "engine", depths.clone(), engine, perft);
    check_counts(cases, "reference", depths, reference, reference_perft);
}

/// Checks that the engine lists exactly the reference's actions, by name, in every position of
/// the file and after every first action from it (which the engine must accept by that name).
#[track_caller]
pub fn check_same_actions<P, G: Game, R: Reference>(
    cases: &[Case<P>],
    engine: impl Fn(&P) -> G,
    reference: impl Fn(&P) -> R,
    name: impl Fn(&R, R::Action) -> String,
) {
    let reference_names = |position: &R| -> BTreeSet<String> {
        position
            .actions()
            .into_iter()
            .map(|a| name(position, a))
            .collect()
    };
    for case in cases {
        let game = engine(&case.position);
        let position = reference(&case.position);
        assert_eq!(
            action_names(&game),
            reference_names(&position),
            "line {} ({}): engine (left) and reference (right) actions",
            case.line,
            case.text
        );
        for action in position.actions() {
            let text = name(&position, action);
            let mut next = position.clone();
            next.play(action);
            assert_eq!(
                action_names(&play(&game, &text)),
                reference_names(&next),
                "line {} ({}) after {text}: engine (left) and reference (right) actions",
                case.line,
                case.text
            );
        }
    }
}

/// Prints every case as a data line with the counts `count` gives, to as many depths as the
/// file has counts on that line (run the ignored test that calls it with `--ignored
/// --nocapture` to regenerate a file after a deliberate rule change; then check the reference
/// agrees).
pub fn print_data_lines<P, S>(
    cases: &[Case<P>],
    start: impl Fn(&P) -> S,
    count: impl Fn(&S, u32) -> u64,
) {
    for case in cases {
        let state = start(&case.position);
        let counts: Vec<String> = (1..)
            .zip(&case.counts)
            .map(|(depth, _)| count(&state, depth).to_string())
            .collect();
        println!("{} | {}", case.text, counts.join(" "));
    }
}

/// [`print_data_lines`] with the engine's [`perft`].
pub fn print_engine_lines<P, G: Game>(cases: &[Case<P>], engine: impl Fn(&P) -> G) {
    print_data_lines(cases, engine, perft);
}
