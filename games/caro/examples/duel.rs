//! Plays Caro levels against each other like the arena and prints every game's moves, so that
//! the positions where a game was decided can be read (why Hard loses or draws).
//!
//! `cargo run --release -p ludus-caro --example duel -- hard normal 0 40 '{"size":15,"blocked_ends":true,"exactly_five":false}' [board]`
//!
//! Games `from..to` use the arena's seeds (`ludus-arena`, seed 1), so game `i` here is game
//! `i` of `arena --game caro --games N` for any N > i. With `board`, the final position is
//! drawn too.
use std::time::Instant;

use ludus_caro::{Caro, CaroOptions};
use ludus_rules::{Bot, Budget, Game, GameResult, Level, SplitMix64};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let level = |i: usize| Level::parse(&args[i]).expect("a level: easy, normal or hard");
    let (a, b) = (level(0), level(1));
    let from: u32 = args[2].parse().expect("first game index");
    let to: u32 = args[3].parse().expect("end game index");
    let options: CaroOptions = args
        .get(4)
        .map(|json| serde_json::from_str(json).expect("options as JSON"))
        .unwrap_or_default();
    let draw_board = args.get(5).is_some_and(|a| a == "board");
    let seed = 1u64;
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut cpu: Vec<f64> = Vec::new();
    for i in from..to {
        let a_seat = i as usize % 2;
        let mut dice = SplitMix64(seed ^ (u64::from(i) << 32) ^ 0xD1CE);
        let mut minds = SplitMix64(seed ^ (u64::from(i) << 32) ^ 0xB07);
        let mut game = Caro::setup(options, 2, &mut dice).expect("valid options");
        let mut moves = Vec::new();
        let mut slowest = 0.0f64;
        let mut game_cpu = 0.0f64;
        while let Some(seat) = game.to_move() {
            let lvl = if seat == a_seat { a } else { b };
            let budget = Budget::work(Caro::default_work(lvl));
            let started = Instant::now();
            let cpu_before = cpu_seconds();
            let action = game.choose(seat, lvl, &budget, &mut minds).expect("a move");
            if seat == a_seat {
                slowest = slowest.max(started.elapsed().as_secs_f64());
                let used = cpu_seconds() - cpu_before;
                game_cpu = game_cpu.max(used);
                cpu.push(used);
            }
            moves.push(action.cell.to_string());
            game = game
                .apply(seat, &action, &mut dice)
                .map_err(|(_, e)| e)
                .expect("bots play legal moves");
        }
        let result = match game.outcome().map(|o| &o.result) {
            Some(GameResult::Win { winners }) if winners.contains(&a_seat) => {
                wins += 1;
                "A won"
            }
            Some(GameResult::Win { .. }) => {
                losses += 1;
                "A LOST"
            }
            _ => {
                draws += 1;
                "DRAW"
            }
        };
        println!(
            "game {i}: A ({a}) is {}; {result} after {} moves; A's slowest move {:.2} s (CPU {:.2} s)",
            if a_seat == 0 {
                "X (first)"
            } else {
                "O (second)"
            },
            moves.len(),
            slowest,
            game_cpu
        );
        println!("  {}", moves.join(" "));
        if draw_board || result != "A won" {
            let n = game.size();
            for row in 0..n {
                let line: String = (0..n)
                    .map(|col| match game.stone(ludus_caro::Cell::new(col, row)) {
                        Some(s) => {
                            let idx = game
                                .moves()
                                .iter()
                                .rposition(|c| *c == ludus_caro::Cell::new(col, row));
                            let last = idx == Some(game.moves().len() - 1);
                            let t = s.to_string();
                            if last { t.to_lowercase() } else { t }
                        }
                        None => ".".to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                println!("  {:>2} {line}", row + 1);
            }
        }
    }
    println!("{a} vs {b}: {wins} won, {draws} drawn, {losses} lost");
    cpu.sort_by(f64::total_cmp);
    let at = |q: f64| {
        cpu.get(((cpu.len().saturating_sub(1)) as f64 * q).round() as usize)
            .copied()
            .unwrap_or_default()
    };
    println!(
        "A's CPU per move (10 ms ticks): median {:.3} s, p90 {:.3} s, p99 {:.3} s, max {:.3} s over {} moves",
        at(0.5),
        at(0.9),
        at(0.99),
        cpu.last().copied().unwrap_or_default(),
        cpu.len()
    );
}

/// This thread's CPU time (user + system) from `/proc/thread-self/stat`, in seconds: think
/// time that does not depend on the machine's load (Linux only; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/thread-self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) start at state, field 3.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime is field 14 and stime field 15: indices 11 and 12 after the state.
    (ticks(11) + ticks(12)) / 100.0
}
