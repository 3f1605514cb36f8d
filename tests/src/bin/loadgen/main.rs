//! Load generator: plays N concurrent Caro games through the gateway and reports moves per
//! second (sign-ins, game creation and subscriptions happen before the clock starts). It starts its own system (on a fresh redis-server, or in memory with `--memory`)
//! on loopback, so it measures the whole path of a move: gateway, game-state, timers, the
//! atomic Redis commit and the pub/sub fan-out to one spectator stream per game.
//!
//! `cargo run --release -p ludus-tests --bin loadgen -- --games 64 --rounds 3`
#![forbid(unsafe_code)]

use std::time::{Duration, Instant};

use ludus_proto::pb;
use ludus_tests::{Ludus, Player, caro_settings, events_until_finished};

/// Every game plays these cells alternately, X first: 15 moves ending with X's five on row 8
/// (C7), so each game is the same length.
const SCRIPT: [&str; 15] = [
    "A8", "A1", "B8", "C1", "C8", "E1", "D8", "G1", "F9", "I1", "G10", "K1", "H11", "M1", "E8",
];

struct Args {
    games: usize,
    rounds: usize,
    memory: bool,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args {
        games: 32,
        rounds: 3,
        memory: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--games" => args.games = it.next().unwrap_or_default().parse()?,
            "--rounds" => args.rounds = it.next().unwrap_or_default().parse()?,
            "--memory" => args.memory = true,
            other => anyhow::bail!("unknown flag {other}: use --games N --rounds N [--memory]"),
        }
    }
    Ok(args)
}

/// One game ready to play: its id, its two players and a spectator's stream.
struct Table {
    game_id: String,
    x: Player,
    o: Player,
    stream: tonic::Streaming<pb::GameEvent>,
}

/// Signs the players in, creates the game and subscribes a spectator: not timed.
async fn set_table(ludus: &Ludus, index: usize) -> anyhow::Result<Table> {
    let x = ludus.player(&format!("x{index}")).await;
    let o = ludus.player(&format!("o{index}")).await;
    let mut watcher = ludus.player(&format!("w{index}")).await;
    let settings = pb::GameSettings {
        turn_time_ms: 60_000,
        ..caro_settings()
    };
    let game_id = ludus.create_game("", settings, &[&x, &o]).await.game_id;
    let stream = watcher.subscribe(&game_id, 0).await;
    Ok(Table {
        game_id,
        x,
        o,
        stream,
    })
}

/// Plays the script (timed): one SubmitAction per move, then waits until the spectator has
/// seen the final event.
async fn play(mut table: Table) -> anyhow::Result<usize> {
    let mut seq = 1;
    for (i, cell) in SCRIPT.iter().enumerate() {
        let player: &mut Player = if i % 2 == 0 {
            &mut table.x
        } else {
            &mut table.o
        };
        let action_id = player.next_action_id();
        let response = player
            .submit(&table.game_id, seq, &action_id, cell)
            .await
            .map_err(|s| anyhow::anyhow!("{cell}: {s}"))?;
        seq = response.event.map_or(seq + 1, |e| e.seq);
    }
    let events = events_until_finished(&mut table.stream).await;
    anyhow::ensure!(
        events.len() == SCRIPT.len() + 1,
        "the spectator saw every event"
    );
    Ok(SCRIPT.len())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    let ludus = if args.memory {
        Ludus::start_in_memory().await
    } else {
        Ludus::start().await
    };
    println!(
        "store: {}, concurrent games: {}, moves per game: {}, rounds: {}",
        if ludus.on_redis() { "redis" } else { "memory" },
        args.games,
        SCRIPT.len(),
        args.rounds
    );
    let mut rates = Vec::new();
    for round in 0..args.rounds {
        let mut tables = Vec::with_capacity(args.games);
        for i in 0..args.games {
            tables.push(set_table(&ludus, round * args.games + i).await?);
        }
        let started = Instant::now();
        let moves: usize = futures_sum(tables.into_iter().map(play).collect()).await?;
        let elapsed = started.elapsed();
        let rate = moves as f64 / elapsed.as_secs_f64().max(f64::EPSILON);
        println!(
            "round {round}: {moves} moves in {:.2} s = {rate:.0} moves/s",
            elapsed.as_secs_f64()
        );
        rates.push(rate);
    }
    rates.sort_by(f64::total_cmp);
    println!("median: {:.0} moves/s", rates[rates.len() / 2]);
    ludus.shutdown().await;
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(())
}

async fn futures_sum(
    games: Vec<impl std::future::Future<Output = anyhow::Result<usize>>>,
) -> anyhow::Result<usize> {
    let results = futures::future::join_all(games).await;
    results.into_iter().sum()
}
