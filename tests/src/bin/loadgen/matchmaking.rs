//! `loadgen matchmaking`: T guests queue for a Caro quick match at once through G gateways in
//! front of R matchmaking replicas on one Redis (all separate processes). Reports tickets
//! paired per second, the wait from `FindMatch` to the match, and checks that no ticket was
//! paired twice: every game has exactly two distinct players in seats 0 and 1, and every
//! player is in exactly one game.
//!
//! `--rounds R` repeats the burst R times on the same processes, each round with its own
//! guests (all signed in before the first round), and reports each round apart: the first
//! burst of a fresh process pays for growing its heap (the kernel zeroing fresh pages was
//! about half of a new gateway's CPU in that burst, BENCHMARKS.md), later ones show what a
//! server already running spends per ticket.

use std::{
    collections::{HashMap, HashSet},
    time::{Duration, Instant},
};

use futures::{StreamExt as _, TryStreamExt as _};
use ludus_proto::pb;

use crate::{
    measure::{self, Latencies},
    system::{self, Pool, System},
};

const SETUP_PARALLELISM: usize = 64;

/// Flags of `loadgen matchmaking`.
#[derive(Debug, Clone, clap::Args)]
pub struct MatchmakingArgs {
    /// Matchmaking replicas.
    #[arg(long, default_value_t = 3)]
    pub replicas: usize,
    /// Gateways (gateway i talks to replica i % replicas).
    #[arg(long, default_value_t = 2)]
    pub gateways: usize,
    /// Guests queueing at once (an even number: every one of them should be paired).
    #[arg(long, default_value_t = 2000)]
    pub tickets: usize,
    /// Client connections per gateway.
    #[arg(long, default_value_t = 8)]
    pub connections: usize,
    /// How long to wait for every ticket to be paired.
    #[arg(long, default_value_t = 120)]
    pub patience_seconds: u64,
    /// Bursts of `--tickets` to send one after the other, each reported apart.
    #[arg(long, default_value_t = 1)]
    pub rounds: usize,
    /// Directory holding the service binaries (default: next to this binary).
    #[arg(long)]
    pub bin_dir: Option<std::path::PathBuf>,
}

pub async fn run(args: MatchmakingArgs) -> anyhow::Result<()> {
    let bin_dir = match &args.bin_dir {
        Some(dir) => dir.clone(),
        None => system::default_bin_dir()?,
    };
    let system = System::start_processes(&bin_dir, args.gateways, args.replicas, true)?;
    println!("system: {}", system.description);
    let pool = Pool::connect(&system.gateway, args.connections * args.gateways.max(1)).await?;
    let rounds = args.rounds.max(1);
    let mut players: Vec<(String, system::Client)> =
        futures::stream::iter(0..args.tickets * rounds)
            .map(|i| {
                let pool = pool.clone();
                async move { system::sign_in(pool.get(i), &format!("q{i}")).await }
            })
            .buffered(SETUP_PARALLELISM)
            .try_collect()
            .await?;
    let mut paired_twice = false;
    for round in 1..=rounds {
        let these = players.split_off(players.len() - args.tickets.min(players.len()));
        let label = if rounds == 1 {
            String::new()
        } else {
            format!("round {round} of {rounds}: ")
        };
        paired_twice |= !burst(&args, &system, these, &label).await;
    }
    system.stop().await;
    anyhow::ensure!(!paired_twice, "a ticket was paired twice");
    Ok(())
}

/// One burst: every player of `players` calls `FindMatch` at once; prints what it measured
/// and returns whether the double-match check passed.
async fn burst(
    args: &MatchmakingArgs,
    system: &System,
    players: Vec<(String, system::Client)>,
    label: &str,
) -> bool {
    let tickets = players.len();
    let cpu_before = measure::cpu_time_of(&system.measured_pids());
    let cpu_before_each = system.cpu_each();
    let calls_before = system.redis_calls();
    let started = Instant::now();
    let patience = Duration::from_secs(args.patience_seconds);
    let tickets_sent = players
        .into_iter()
        .map(|(player_id, mut client)| async move {
            let sent = Instant::now();
            let mut updates = client
                .find_match(pb::FindMatchRequest {
                    settings: Some(ludus_tests::caro_settings()),
                    // Guests: their default is the casual twin of the queue (M12).
                    ranking: pb::MatchRanking::Default as i32,
                })
                .await
                .map_err(|s| anyhow::anyhow!("find match: {s}"))?
                .into_inner();
            let matched = tokio::time::timeout(patience, async {
                while let Some(update) = updates.next().await {
                    let update = update.map_err(|s| anyhow::anyhow!("ticket: {s}"))?;
                    if update.state == pb::TicketState::Matched as i32 {
                        return Ok((update.game_id, update.seat));
                    }
                }
                anyhow::bail!("the ticket stream ended unmatched")
            })
            .await
            .map_err(|_| anyhow::anyhow!("not matched within {patience:?}"))??;
            anyhow::Ok((player_id, matched, sent.elapsed(), started.elapsed()))
        });
    let results = futures::future::join_all(tickets_sent).await;
    let cpu = measure::cpu_time_of(&system.measured_pids()).saturating_sub(cpu_before);
    let mut waits = Latencies::default();
    let mut last = Duration::ZERO;
    let mut games: HashMap<String, Vec<(String, u32)>> = HashMap::new();
    let mut players_seen = HashSet::new();
    let mut doubles = 0usize;
    let mut unmatched = 0usize;
    let mut first_error = None;
    for result in results {
        match result {
            Ok((player, (game_id, seat), wait, at)) => {
                waits.push(wait);
                last = last.max(at);
                if !players_seen.insert(player.clone()) {
                    doubles += 1;
                }
                games.entry(game_id).or_default().push((player, seat));
            }
            Err(e) => {
                unmatched += 1;
                first_error.get_or_insert(e.to_string());
            }
        }
    }
    let bad_games = games
        .values()
        .filter(|seats| {
            let distinct: HashSet<&String> = seats.iter().map(|(p, _)| p).collect();
            let mut seat_numbers: Vec<u32> = seats.iter().map(|(_, s)| *s).collect();
            seat_numbers.sort_unstable();
            seats.len() != 2 || distinct.len() != 2 || seat_numbers != [0, 1]
        })
        .count();
    let paired = waits.len();
    println!(
        "{label}matchmaking: {} tickets, {} replicas, {} gateways: {} paired into {} games in {:.2} s = {:.0} tickets/s; CPU {:.0} µs/ticket; load {}",
        tickets,
        args.replicas,
        args.gateways,
        paired,
        games.len(),
        last.as_secs_f64(),
        paired as f64 / last.as_secs_f64().max(f64::EPSILON),
        cpu.as_secs_f64() * 1e6 / paired.max(1) as f64,
        measure::load_average()
    );
    println!("  FindMatch -> matched: {}", waits.summary());
    // Where a ticket's CPU goes, process by process (replicas and gateways summed by name).
    let by_process = system.cpu_by_process_since(&cpu_before_each);
    let shares: Vec<String> = by_process
        .iter()
        .map(|(name, spent)| {
            format!(
                "{name} {:.0}",
                spent.as_secs_f64() * 1e6 / paired.max(1) as f64
            )
        })
        .collect();
    println!("  CPU µs/ticket by process: {}", shares.join(", "));
    // Redis commands per ticket (scripts count once, as EVALSHA; INFO's own call excluded).
    let mut calls: Vec<(String, f64)> = system
        .redis_calls()
        .into_iter()
        .filter(|(name, _)| name != "info")
        .map(|(name, total)| {
            let before = calls_before.get(&name).copied().unwrap_or(0);
            let per = total.saturating_sub(before) as f64 / paired.max(1) as f64;
            (name, per)
        })
        .filter(|(_, per)| *per >= 0.005)
        .collect();
    calls.sort_by(|a, b| b.1.total_cmp(&a.1));
    let total: f64 = calls.iter().map(|(_, per)| per).sum();
    let listed: Vec<String> = calls
        .iter()
        .map(|(name, per)| format!("{name} {per:.2}"))
        .collect();
    println!(
        "  Redis commands/ticket: {total:.2} ({})",
        listed.join(", ")
    );
    println!(
        "  double-match check: {} player(s) matched twice, {} game(s) without exactly two distinct players in seats 0 and 1, {} unmatched{}",
        doubles,
        bad_games,
        unmatched,
        first_error.map_or(String::new(), |e| format!(" (first: {e})"))
    );
    doubles == 0 && bad_games == 0
}
