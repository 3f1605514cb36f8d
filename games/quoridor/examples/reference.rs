//! The outside yardstick for the Quoridor computer players: each level plays seeded 9×9 duels
//! (Q5, 10 walls each, Q27 Auto) against the independent reference player of
//! `tests/reference/mod.rs` (written from the rule text, not from the bots' code), sides
//! alternated: in even games the level is red (seat 0, moving first), in odd games yellow.
//! Every action either side plays must be legal in both rule engines (the game stops with a
//! panic otherwise), so the two play the same game.
//!
//! `cargo run --release -p ludus-quoridor --example reference -- GAMES DEPTH [SEED] [LEVEL...]`
//!
//! `DEPTH` is the reference's search depth in plies; the levels are `easy`, `normal`,
//! `hard` (all three when none is given). Each level thinks with its default work
//! (`Quoridor::default_work`), so the figures are the ones players meet. Q18's move limit
//! makes a game that nobody wins a draw.
#[path = "../tests/reference/mod.rs"]
mod reference;

use std::time::{Duration, Instant};

use ludus_quoridor::{Quoridor, QuoridorOptions};
use ludus_rules::{Bot, Budget, Game, GameResult, Level, SplitMix64};
use reference::{Player, Pos};

/// One level's games against the reference.
#[derive(Default)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    bot_think: Vec<Duration>,
    reference_think: Vec<Duration>,
}

/// Plays one game; `Some(true)` when the level wins, `None` for a draw.
fn play(level: Level, depth: u32, seed: u64, level_seat: usize, tally: &mut Tally) -> Option<bool> {
    let options = QuoridorOptions {
        first_seat: Some(0),
        ..QuoridorOptions::default()
    };
    let mut dice = SplitMix64(seed);
    let mut game = Quoridor::setup(options, 2, &mut dice).expect("a duel sets up");
    let walls = u32::from(game.walls_left(0).expect("red holds walls"));
    let mut pos = Pos::start(usize::from(game.options().size), walls, 0);
    let mut bot_rng = SplitMix64(seed ^ 0xB07);
    let mut reference_rng = SplitMix64(seed ^ 0x4EF);
    let mut player = Player::new(depth);
    while game.outcome().is_none() {
        let seat = game.to_move().expect("a seat on turn");
        assert_eq!(seat, pos.to_move, "both engines agree whose turn it is");
        let started = Instant::now();
        let text = if seat == level_seat {
            let budget = Budget::work(Quoridor::default_work(level));
            let a = game
                .choose(seat, level, &budget, &mut bot_rng)
                .expect("the level answers");
            tally.bot_think.push(started.elapsed());
            a.to_string()
        } else {
            let a = player.choose(&pos, &mut reference_rng);
            tally.reference_think.push(started.elapsed());
            pos.name(a)
        };
        let act = pos.parse(&text).expect("the reference reads the notation");
        assert!(
            pos.legal().contains(&act),
            "{text} is legal for the crate but not for the reference"
        );
        pos.play(act);
        let action = game
            .parse_action(&text)
            .expect("the crate reads the notation");
        game = game
            .apply(seat, &action, &mut dice)
            .unwrap_or_else(|(_, e)| panic!("{text} refused by the crate: {e}"));
    }
    match &game.outcome().expect("the game is over").result {
        GameResult::Win { winners } => {
            assert_eq!(pos.winner(), Some(winners[0]), "both engines agree who won");
            Some(winners.contains(&level_seat))
        }
        _ => None,
    }
}

fn mean_ms(v: &[Duration]) -> f64 {
    v.iter().map(Duration::as_secs_f64).sum::<f64>() * 1000.0 / v.len().max(1) as f64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args
        .first()
        .and_then(|a| a.parse().ok())
        .expect("GAMES: how many games per level");
    let depth: u32 = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .expect("DEPTH: the reference's plies");
    let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let levels: Vec<Level> = if args.len() > 3 {
        args[3..]
            .iter()
            .map(|a| Level::parse(a).expect("a level: easy, normal or hard"))
            .collect()
    } else {
        Level::ALL.to_vec()
    };
    println!(
        "| level vs reference depth {depth} (seed {seed}) | games | W/D/L | level's score ± 95 % | level / reference think per move (mean) |"
    );
    println!("|---|---|---|---|---|");
    for level in levels {
        let mut tally = Tally::default();
        let mut scores = Vec::new();
        for i in 0..games {
            let game_seed = seed.wrapping_mul(0x9E37_79B9).wrapping_add(i);
            let result = play(level, depth, game_seed, (i % 2) as usize, &mut tally);
            let score = match result {
                Some(true) => {
                    tally.wins += 1;
                    1.0
                }
                Some(false) => {
                    tally.losses += 1;
                    0.0
                }
                None => {
                    tally.draws += 1;
                    0.5
                }
            };
            scores.push(score);
        }
        let n = scores.len() as f64;
        let mean = scores.iter().sum::<f64>() / n;
        let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        println!(
            "| {level} | {games} | {}/{}/{} | {:.1} % ± {:.1} % | {:.1} / {:.1} ms |",
            tally.wins,
            tally.draws,
            tally.losses,
            mean * 100.0,
            196.0 * (var / n).sqrt(),
            mean_ms(&tally.bot_think),
            mean_ms(&tally.reference_think),
        );
    }
}
