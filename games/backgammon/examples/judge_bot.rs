//! The bot side of the gnubg judge (`games/backgammon/judge/judge.py`, not part of CI): reads
//! decisions on stdin and prints what each level does, so an outside referee can grade them.
//!
//! Input, one decision a line, the player on roll being seat 0 of a money game without
//! optional rules (the gnubg Position ID with that player on roll):
//! - `P <position-id> <die> <die>`: checker play. Output:
//!   `P <easy> <normal> <hard> <hard-ms> <normal-ms> | <every distinct result>`, each result the Position ID
//!   after the play, the opponent on roll.
//! - `L <position-id> <die> <die>`: `L <every distinct result>` (for gnubg's self-play).
//! - `W <position-id>`: `W <win> <contact> <win-gammon> <lose-gammon>`, the static
//!   evaluation's winning chance of the player on roll (before rolling), 1 when the sides can
//!   still meet, and its gammon chances either way (for calibration).
//! - `N <position-id>`: `N <win> <win-gammon> <win-backgammon> <lose-gammon>
//!   <lose-backgammon>`, as `W` by the trained contact network (`bot/net.rs`; a race as `W`),
//!   for `judge/train.py`'s check that the Rust network is the trained one.
//! - `F <position-id>`: `F <terms>`, the contact evaluation's terms for the player who has
//!   just moved (the one not on roll; empty in a race), for `judge/fit.py`.
//! - `C <position-id>`: cube, centred, before the roll. Output:
//!   `C <easy> <normal> <hard>` each `D` or `N` (double or roll), then `<easy> <normal> <hard>`
//!   each `T` or `P` (the opponent's answer to a double).
//!
//! `cargo run --release -p ludus-backgammon --example judge_bot < decisions.txt`
use std::io::{BufRead, Write};
use std::time::Instant;

use ludus_backgammon::play::legal_plays;
use ludus_backgammon::{Action, Backgammon, BackgammonOptions, Board};
use ludus_rules::{Bot, Budget, Game, Level, SplitMix64, Think};

const LEVELS: [Level; 3] = [Level::Easy, Level::Normal, Level::Hard];

fn decide(game: &Backgammon, seat: usize, level: Level, seed: u64) -> Option<Action> {
    let budget = Budget::work(Backgammon::default_work(level));
    let mut rng = SplitMix64(seed);
    game.decide(
        seat,
        Think {
            level,
            budget: &budget,
            rng: &mut rng,
        },
    )
}

/// Every distinct position the roll can reach, as Position IDs with the opponent on roll; the
/// board itself (passed to the opponent) when there is no legal move.
fn results(board: &Board, dice: [u8; 2]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<String> = legal_plays(board, 0, dice)
        .plays
        .iter()
        .map(|(_, b)| b.position_id(1))
        .filter(|id| seen.insert(id.clone()))
        .collect();
    if out.is_empty() {
        out.push(board.position_id(1));
    }
    out
}

fn checker_play(id: &str, dice: [u8; 2], seed: u64) -> Result<String, String> {
    let board = Board::from_position_id(id, 0).map_err(|e| e.to_string())?;
    let game = Backgammon::from_position(BackgammonOptions::default(), board, 0, Some(dice))
        .map_err(|e| e.to_string())?;
    let plays = legal_plays(&board, 0, dice).plays;
    let mut out = String::from("P");
    let mut ms = [0.0; 3];
    for (l, level) in LEVELS.into_iter().enumerate() {
        let started = Instant::now();
        let action = decide(&game, 0, level, seed);
        ms[l] = started.elapsed().as_secs_f64() * 1e3;
        let result = match action {
            Some(Action::Play(p)) => plays
                .iter()
                .find(|(q, _)| *q == p)
                .map_or(board, |(_, b)| *b),
            other => return Err(format!("{level:?} answered {other:?} to a roll")),
        };
        out.push(' ');
        out.push_str(&result.position_id(1));
    }
    out.push_str(&format!(" {:.1} {:.1} | ", ms[2], ms[1]));
    out.push_str(&results(&board, dice).join(" "));
    Ok(out)
}

fn cube(id: &str, seed: u64) -> Result<String, String> {
    let board = Board::from_position_id(id, 0).map_err(|e| e.to_string())?;
    let game = Backgammon::from_position(BackgammonOptions::default(), board, 0, None)
        .map_err(|e| e.to_string())?;
    let mut out = String::from("C");
    for level in LEVELS {
        let d = decide(&game, 0, level, seed) == Some(Action::Double);
        out.push_str(if d { " D" } else { " N" });
    }
    let mut dice = SplitMix64(seed);
    let doubled = game
        .apply(0, &Action::Double, &mut dice)
        .map_err(|(_, e)| e.to_string())?;
    for level in LEVELS {
        let t = decide(&doubled, 1, level, seed) == Some(Action::Take);
        out.push_str(if t { " T" } else { " P" });
    }
    Ok(out)
}

fn main() {
    let started = Instant::now();
    ludus_backgammon::bot::bearoff::database();
    eprintln!(
        "bear-off database built in {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for (n, line) in stdin.lock().lines().map_while(Result::ok).enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let seed = n as u64 + 1;
        let answer = match f.as_slice() {
            ["P", id, a, b] => match (a.parse(), b.parse()) {
                (Ok(a), Ok(b)) => checker_play(id, [a, b], seed),
                _ => Err("dice are two numbers".into()),
            },
            ["L", id, a, b] => match (a.parse(), b.parse(), Board::from_position_id(id, 0)) {
                (Ok(a), Ok(b), Ok(board)) => Ok(format!("L {}", results(&board, [a, b]).join(" "))),
                _ => Err("expected a position id and two dice".into()),
            },
            ["C", id] => cube(id, seed),
            ["W", id] => Board::from_position_id(id, 0)
                .map(|b| {
                    // Seat 1 has just moved: its chances, seen from seat 0 on roll.
                    let p = ludus_backgammon::bot::eval::evaluate(&b, 1).flip();
                    let contact = ludus_backgammon::bot::eval::is_contact(&b);
                    format!(
                        "W {:.4} {} {:.4} {:.4}",
                        p.win,
                        u8::from(contact),
                        p.win_gammon,
                        p.lose_gammon
                    )
                })
                .map_err(|e| e.to_string()),
            ["N", id] => Board::from_position_id(id, 0)
                .map(|b| {
                    // As `W`, by the trained network (contact) or the races' evaluation.
                    let p = ludus_backgammon::bot::eval::evaluate_net(&b, 1).flip();
                    format!(
                        "N {:.5} {:.5} {:.5} {:.5} {:.5}",
                        p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon
                    )
                })
                .map_err(|e| e.to_string()),
            ["F", id] => Board::from_position_id(id, 0)
                .map(|b| {
                    // Seat 1 has just moved, seat 0 is on roll (as gnubg evaluates the id).
                    let terms = ludus_backgammon::bot::eval::contact_features(&b, 1)
                        .unwrap_or_default()
                        .iter()
                        .map(|t| format!(" {t:.5}"))
                        .collect::<String>();
                    format!("F{terms}")
                })
                .map_err(|e| e.to_string()),
            _ => Err("expected `P <id> <die> <die>` or `C <id>`".into()),
        };
        let text = answer.unwrap_or_else(|e| format!("E {e}"));
        if writeln!(stdout, "{text}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}
