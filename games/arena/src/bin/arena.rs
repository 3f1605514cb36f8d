//! `cargo run --release -p ludus-arena --bin arena -- --game caro --a hard --b normal --games 200`
//!
//! Plays level A against level B and prints A's score with a 95 % confidence interval and the
//! think time per move of both sides. `--options` takes the game's options as JSON (the same
//! serde form the services store), e.g. `--options '{"size":19}'`.
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use ludus_arena::{Balance, MatchSpec, play_match, report};
use ludus_rules::{Bot, Level};

#[derive(Parser, Debug)]
#[command(about = "Plays computer levels against each other")]
struct Args {
    /// caro, quoridor, backgammon, mancala or junqi.
    #[arg(long)]
    game: String,
    /// Side A's level (easy/normal/hard, or a seed's name: medium, beginner, expert).
    #[arg(long, value_parser = level)]
    a: Level,
    /// Side B's level.
    #[arg(long, value_parser = level)]
    b: Level,
    #[arg(long, default_value_t = 100)]
    games: u32,
    #[arg(long, default_value_t = 2)]
    seats: usize,
    /// The game's options as JSON; the game's defaults when absent.
    #[arg(long)]
    options: Option<String>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A wall-clock allowance per move in milliseconds, on top of the level's work budget.
    #[arg(long)]
    move_ms: Option<u64>,
    #[arg(long, default_value_t = 2_000)]
    max_plies: u32,
    /// Turns of random legal actions before the levels play, the same opening for each group
    /// of `--seats` games (every side plays it from every seat). 0: from the start.
    #[arg(long, default_value_t = 0)]
    opening_turns: u32,
    /// With openings: keep only those a deep search values within this many seeds of even
    /// for the side to move (Congklak, whose first turns usually decide the game, K2-K3).
    #[arg(long)]
    balanced: Option<i32>,
}

/// Positions a Congklak judge searches to value an opening: about a CPU-second, lines
/// followed 14-17 sows deep from the first turns.
const CONGKLAK_JUDGE_WORK: u64 = 4_000_000;

fn congklak_judge(game: &ludus_mancala::Mancala) -> Option<i32> {
    ludus_mancala::bot::congklak_search_value(game, CONGKLAK_JUDGE_WORK).map(|(v, _)| v)
}

fn level(name: &str) -> Result<Level, String> {
    Level::parse(name).ok_or_else(|| format!("unknown level {name:?}: easy, normal or hard"))
}

fn run<G: Bot>(args: &Args, judge: Option<fn(&G) -> Option<i32>>) -> Result<String, String> {
    let options = match &args.options {
        Some(json) => serde_json::from_str(json).map_err(|e| format!("--options: {e}"))?,
        None => G::Options::default(),
    };
    let balanced = match (args.balanced, judge) {
        (None, _) => None,
        (Some(within), Some(judge)) => Some(Balance {
            judge,
            within,
            tries: 1_000,
        }),
        (Some(_), None) => {
            return Err(format!(
                "--balanced: no judge of openings for {:?} (only Congklak: --game mancala with rule_set Congklak)",
                args.game
            ));
        }
    };
    if balanced.is_some() && args.opening_turns == 0 {
        return Err("--balanced picks openings: give --opening-turns too".into());
    }
    let spec = MatchSpec::<G> {
        options,
        seats: args.seats,
        a: args.a,
        b: args.b,
        games: args.games,
        seed: args.seed,
        move_time: args.move_ms.map(Duration::from_millis),
        max_plies: args.max_plies,
        opening_turns: args.opening_turns,
        balanced,
    };
    Ok(report(&args.game, args.a, args.b, &play_match(&spec)))
}

fn main() -> ExitCode {
    let args = Args::parse();
    // One arm per game with a computer player.
    let result: Result<String, String> = match args.game.as_str() {
        "quoridor" => run::<ludus_quoridor::Quoridor>(&args, None),
        "backgammon" => run::<ludus_backgammon::BackgammonSession>(&args, None),
        "caro" => run::<ludus_caro::Caro>(&args, None),
        "junqi" => run::<ludus_junqi::Junqi>(&args, None),
        "mancala" => run::<ludus_mancala::Mancala>(&args, Some(congklak_judge)),
        other => Err(format!("no computer player for game {other:?}")),
    };
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("arena: {e}");
            ExitCode::from(2)
        }
    }
}
