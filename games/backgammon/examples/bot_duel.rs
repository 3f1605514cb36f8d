//! Plays one bot level against another in money games (or matches) and reports the win rate
//! and the points per game, both with a 95 % interval: the arena counts wins only, and in
//! backgammon the points (cube, gammons, B16) are what a level is worth.
//!
//! `cargo run --release -p ludus-backgammon --example bot_duel -- normal easy 400 [seed] [match-length] [nocube]`
use std::time::{Duration, Instant};

use ludus_backgammon::{BackgammonOptions, BackgammonSession, MatchGame};
use ludus_rules::{Bot, Budget, Game, GameResult, Level, SplitMix64};

fn mean_ci(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, 1.96 * (var / n).sqrt())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let level = |i: usize, d: Level| args.get(i).and_then(|s| Level::parse(s)).unwrap_or(d);
    let (a, b) = (level(0, Level::Normal), level(1, Level::Easy));
    let games: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let length: u32 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(0);
    let no_cube = args.iter().any(|s| s == "nocube");
    let options = BackgammonOptions {
        match_game: (length > 0).then_some(MatchGame {
            length,
            score: [0, 0],
            crawford: false,
        }),
        ..BackgammonOptions::default()
    };
    let mut wins = Vec::new();
    let mut points = Vec::new();
    let mut think: Vec<Duration> = Vec::new();
    for i in 0..games {
        let a_seat = (i % 2) as usize;
        let mut dice = SplitMix64(seed ^ (u64::from(i) << 32) ^ 0xD1CE);
        let mut minds = SplitMix64(seed ^ (u64::from(i) << 32) ^ 0xB07);
        let Ok(mut game) = BackgammonSession::setup(options.clone(), 2, &mut dice) else {
            continue;
        };
        while game.outcome().is_none() {
            let Some(seat) = game.to_move() else { break };
            let lv = if seat == a_seat { a } else { b };
            let started = Instant::now();
            let budget = Budget::work(BackgammonSession::default_work(lv));
            let mut action = game
                .choose(seat, lv, &budget, &mut minds)
                .expect("a bot always answers on its turn");
            if seat == a_seat {
                think.push(started.elapsed());
            }
            if no_cube && action == ludus_backgammon::Action::Double {
                action = ludus_backgammon::Action::Roll;
            }
            game = match game.apply(seat, &action, &mut dice) {
                Ok(g) => g,
                Err((_, e)) => panic!("illegal action {action}: {e}"),
            };
        }
        let Some(o) = game.outcome() else { continue };
        let won = matches!(&o.result, GameResult::Win { winners } if winners.contains(&a_seat));
        wins.push(if won { 1.0 } else { 0.0 });
        let pts = if length > 0 {
            if won { 1.0 } else { -1.0 }
        } else {
            (o.points[a_seat] - o.points[1 - a_seat]) as f64
        };
        points.push(pts);
    }
    think.sort();
    let (w, wh) = mean_ci(&wins);
    let (p, ph) = mean_ci(&points);
    let median = think.get(think.len() / 2).copied().unwrap_or_default();
    let p90 = think.get(think.len() * 9 / 10).copied().unwrap_or_default();
    println!(
        "{a} vs {b}, {} {}{}: {a} wins {:.1} % ± {:.1} %, {:+.3} ± {:.3} points per {}; {a} thinks median {:.2} ms, p90 {:.2} ms",
        wins.len(),
        if length > 0 {
            format!("matches to {length}")
        } else {
            "money games".to_owned()
        },
        if no_cube { " without the cube" } else { "" },
        w * 100.0,
        wh * 100.0,
        p,
        ph,
        if length > 0 { "match" } else { "game" },
        median.as_secs_f64() * 1000.0,
        p90.as_secs_f64() * 1000.0,
    );
}
