//! `loadgen ends`: E games end within one second while B other games keep moving at an
//! offered rate. The ending games are played to their last move beforehand (14 of the script's
//! 15, untimed); then the background moves start, and after `--quiet-seconds` the E finishing
//! moves go out evenly over `--burst-seconds`. Reports the submit latency of the background
//! games' moves before the burst and from the burst on (when the ends' work lands: the
//! finishing commits, the outcome reports, the archive and the ratings), and of the finishing
//! moves themselves.

use std::time::{Duration, Instant};

use futures::{StreamExt as _, TryStreamExt as _};
use ludus_proto::pb;

use crate::{
    measure::{self, Latencies},
    play::{self, SCRIPT, Table},
    system::{Pool, System},
};

const SETUP_PARALLELISM: usize = 64;

/// The script's last move: it finishes the game (X's five on row 8, C7).
const FINISHING_MOVE: usize = SCRIPT.len() - 1;

/// Flags of `loadgen ends`.
#[derive(Debug, Clone, clap::Args)]
pub struct EndsArgs {
    /// Games that end together.
    #[arg(long, default_value_t = 1000)]
    pub ending: usize,
    /// Games that keep moving meanwhile (never to their end: each plays at most its first 14
    /// moves, so make them enough for the offered rate over the whole run).
    #[arg(long, default_value_t = 400)]
    pub background: usize,
    /// Offered moves per second over the background games.
    #[arg(long, default_value_t = 500.0)]
    pub rate: f64,
    /// Background play before the burst.
    #[arg(long, default_value_t = 2.0)]
    pub quiet_seconds: f64,
    /// The finishing moves go out evenly over this long.
    #[arg(long, default_value_t = 1.0)]
    pub burst_seconds: f64,
    /// Background play from the burst's start on.
    #[arg(long, default_value_t = 4.0)]
    pub after_seconds: f64,
    /// The control run: the burst's games play their second-to-last move instead of their
    /// last, so the same burst of moves goes out and no game ends. What the background's
    /// latency is then is what the extra moves alone cost; the difference to a normal run is
    /// what the game ends' own work (outcome reports, archive, ratings) adds.
    #[arg(long)]
    pub control: bool,
    #[command(flatten)]
    pub system: crate::system::SystemArgs,
}

/// A submitted move: when it went out (from the run's start) and how long its answer took.
type Sample = (Duration, Result<Duration, String>);

async fn submit(table: &mut Table, move_index: usize) -> Result<Duration, String> {
    let request = pb::SubmitActionRequest {
        game_id: table.game_id.clone(),
        expected_seq: table.seq0 + move_index as u64,
        action_id: format!("{}-{move_index}", table.game_id),
        action: Some(pb::Action::notation(SCRIPT[move_index])),
    };
    let sent = Instant::now();
    table.players[move_index % 2]
        .submit_action(request)
        .await
        .map(|_| sent.elapsed())
        .map_err(|status| format!("{}: {status}", table.game_id))
}

/// Sends moves evenly at `per_second` over `span` from `start`, round-robin over the tables
/// that have a move left up to `last_move` (so one table's moves are `tables` gaps apart, and
/// each waits for the answer to the one before); every move's sample.
async fn paced(
    tables: &mut [Table],
    next_move: &mut [usize],
    last_move: usize,
    per_second: f64,
    span: Duration,
    run_start: Instant,
    start: Instant,
) -> Vec<Sample> {
    let count = (per_second * span.as_secs_f64()).round() as u32;
    let gap = span / count.max(1);
    let mut schedule: Vec<Vec<(Instant, usize)>> = vec![Vec::new(); tables.len()];
    let mut turn = 0u32;
    'fill: while turn < count {
        let mut scheduled = false;
        for (moves, next) in schedule.iter_mut().zip(next_move.iter_mut()) {
            if turn == count {
                break 'fill;
            }
            if *next <= last_move {
                moves.push((start + gap * turn, *next));
                *next += 1;
                turn += 1;
                scheduled = true;
            }
        }
        if !scheduled {
            break;
        }
    }
    let runs = tables
        .iter_mut()
        .zip(schedule)
        .filter(|(_, moves)| !moves.is_empty())
        .map(|(table, moves)| async move {
            let mut samples = Vec::with_capacity(moves.len());
            for (at, move_index) in moves {
                tokio::time::sleep_until(at.into()).await;
                let sent_at = run_start.elapsed();
                samples.push((sent_at, submit(table, move_index).await));
            }
            samples
        });
    futures::future::join_all(runs).await.concat()
}

/// Splits samples into latencies sent in `[from, to)` and counts the errors.
fn window(samples: &[Sample], from: Duration, to: Duration) -> (Latencies, usize, Option<String>) {
    let mut latencies = Latencies::default();
    let (mut errors, mut first) = (0, None);
    for (_, result) in samples.iter().filter(|(at, _)| *at >= from && *at < to) {
        match result {
            Ok(latency) => latencies.push(*latency),
            Err(error) => {
                errors += 1;
                first.get_or_insert_with(|| error.clone());
            }
        }
    }
    (latencies, errors, first)
}

pub async fn run(args: EndsArgs) -> anyhow::Result<()> {
    let system = System::start(&args.system).await?;
    println!("system: {}", system.description);
    let pool = Pool::connect(&system.gateway, args.system.connections).await?;
    let internal = Pool::connect(&system.game_state, 4.min(args.system.connections)).await?;
    let total = args.ending + args.background;
    let mut tables: Vec<Table> = futures::stream::iter(0..total)
        .map(|i| play::set_table(&pool, &internal, i, 0, false))
        .buffered(SETUP_PARALLELISM)
        .try_collect()
        .await?;
    let mut background = tables.split_off(args.ending);
    let mut ending = tables;
    // The move the burst sends: the last (it ends the game), or in a control run the one
    // before it.
    let burst_move = if args.control {
        FINISHING_MOVE - 1
    } else {
        FINISHING_MOVE
    };
    // The ending games up to the burst's move, untimed.
    futures::stream::iter(ending.iter_mut())
        .map(|table| async move {
            for move_index in 0..burst_move {
                submit(table, move_index)
                    .await
                    .map_err(|e| anyhow::anyhow!("setting up: {e}"))?;
            }
            anyhow::Ok(())
        })
        .buffer_unordered(SETUP_PARALLELISM)
        .try_collect::<Vec<()>>()
        .await?;
    // Let the setup's work settle (its timers, its connections) before measuring.
    tokio::time::sleep(Duration::from_secs(2)).await;
    println!(
        "set up: {} games one move from their end, {} background games; load {}",
        ending.len(),
        background.len(),
        measure::load_average()
    );
    let quiet = Duration::from_secs_f64(args.quiet_seconds);
    let burst = Duration::from_secs_f64(args.burst_seconds);
    let after = Duration::from_secs_f64(args.after_seconds);
    let cpu_before = measure::cpu_time_of(&system.measured_pids());
    let cpu_before_each = system.cpu_each();
    let run_start = Instant::now();
    let mut background_next = vec![0usize; background.len()];
    let mut ending_next = vec![burst_move; ending.len()];
    let (background_samples, ending_samples) = tokio::join!(
        paced(
            &mut background,
            &mut background_next,
            FINISHING_MOVE - 1,
            args.rate,
            quiet + after,
            run_start,
            run_start,
        ),
        paced(
            &mut ending,
            &mut ending_next,
            burst_move,
            args.ending as f64 / burst.as_secs_f64().max(f64::EPSILON),
            burst,
            run_start,
            run_start + quiet,
        ),
    );
    let elapsed = run_start.elapsed();
    let cpu = measure::cpu_time_of(&system.measured_pids()).saturating_sub(cpu_before);
    let by_process = system.cpu_by_process_since(&cpu_before_each);
    let (before, before_errors, _) = window(&background_samples, Duration::ZERO, quiet);
    let (during, during_errors, during_first) = window(&background_samples, quiet, quiet + after);
    let (ends, end_errors, end_first) = window(&ending_samples, Duration::ZERO, elapsed);
    if args.control {
        println!("control run: the burst's moves end no game");
    }
    println!(
        "ends: {} games ending over {:.1} s amid {} background games at {} moves/s; {:.1} s; server CPU {:.2} s; load {}",
        args.ending,
        burst.as_secs_f64(),
        args.background,
        args.rate,
        elapsed.as_secs_f64(),
        cpu.as_secs_f64(),
        measure::load_average()
    );
    // Where the run's CPU went: which process a burst of ends loads.
    let shares: Vec<String> = by_process
        .iter()
        .map(|(name, spent)| format!("{name} {:.2}", spent.as_secs_f64()))
        .collect();
    println!("  CPU s by process: {}", shares.join(", "));
    println!(
        "  background submit before the burst ({} moves, {} errors): {}",
        before.len(),
        before_errors,
        before.summary()
    );
    println!(
        "  background submit from the burst on ({} moves, {} errors): {}",
        during.len(),
        during_errors,
        during.summary()
    );
    println!(
        "  finishing moves ({} moves, {} errors): {}",
        ends.len(),
        end_errors,
        ends.summary()
    );
    if let Some(error) = end_first.or(during_first) {
        println!("  first error: {error}");
    }
    system.stop().await;
    anyhow::ensure!(
        before_errors + during_errors + end_errors == 0,
        "moves failed"
    );
    Ok(())
}
