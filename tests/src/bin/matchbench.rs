//! matchbench: quick-match throughput with several matchmaking replicas on one Redis.
//!
//! Starts a fresh `redis-server`, the whole system in this process (game-state, timers,
//! ratings, one matchmaking replica, the gateway) and `--replicas - 1` more matchmaking
//! replicas, each with its own Redis connection. Each round queues `--tickets` fresh players
//! for Caro at once, spread round-robin over the replicas (`Enqueue` then `WatchTicket`, as
//! the gateway's `FindMatch` does), and waits until every ticket is announced matched.
//!
//! Prints tickets/s, the enqueue→match latency percentiles, this process's CPU and
//! redis-server's CPU per ticket, Redis commands per ticket (`INFO commandstats`), and checks
//! that no ticket and no player sits in two games and that every game has exactly two seats.
//! A benchmark, not a test: it asserts nothing about time.

use std::collections::{HashMap, HashSet};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures::StreamExt;
use ludus_proto::pb::{self, matchmaking_client::MatchmakingClient};
use ludus_store::{Backend, testing::RedisServer};
use ludus_tests::measure::{self, Latencies};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

struct Args {
    tickets: usize,
    rounds: usize,
    replicas: usize,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args {
        tickets: 2000,
        rounds: 3,
        replicas: 3,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value: usize = it
            .next()
            .with_context(|| format!("{flag} needs a value"))?
            .parse()
            .with_context(|| format!("{flag} needs a number"))?;
        match flag.as_str() {
            "--tickets" => args.tickets = value,
            "--rounds" => args.rounds = value,
            "--replicas" => args.replicas = value.max(1),
            _ => bail!("unknown flag {flag} (--tickets N --rounds N --replicas N)"),
        }
    }
    if args.tickets % 2 == 1 {
        bail!("--tickets must be even (two seats per Caro table)");
    }
    Ok(args)
}

/// `INFO <section>` of the redis-server on `port` as field -> value.
fn redis_info(port: u16, section: &str) -> anyhow::Result<HashMap<String, String>> {
    let out = Command::new("redis-cli")
        .args(["-p", &port.to_string(), "INFO", section])
        .output()
        .context("run redis-cli")?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_owned(), v.trim().to_owned()))
        .collect())
}

/// Total commands redis-server has run, by command (`cmdstat_evalsha` -> calls).
fn redis_calls(port: u16) -> anyhow::Result<HashMap<String, u64>> {
    Ok(redis_info(port, "commandstats")?
        .into_iter()
        .filter_map(|(k, v)| {
            let calls = v.split(',').next()?.strip_prefix("calls=")?.parse().ok()?;
            Some((k.trim_start_matches("cmdstat_").to_owned(), calls))
        })
        .collect())
}

/// redis-server's CPU seconds (user + system) so far.
fn redis_cpu(port: u16) -> anyhow::Result<f64> {
    let info = redis_info(port, "cpu")?;
    let get = |k: &str| {
        info.get(k)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    Ok(get("used_cpu_user") + get("used_cpu_sys"))
}

struct Matched {
    ticket_id: String,
    player_id: String,
    game_id: String,
    seat: u32,
    latency: Duration,
}

async fn one_ticket(
    mut client: MatchmakingClient<ludus_server::Traced>,
    player_id: String,
) -> anyhow::Result<Matched> {
    let start = Instant::now();
    let ticket = client
        .enqueue(pb::EnqueueRequest {
            player_id: player_id.clone(),
            display_name: "bench".into(),
            settings: Some(pb::GameSettings {
                options: Some(pb::game_settings::Options::Caro(pb::CaroOptions::default())),
                turn_time_ms: 0,
            }),
            // The rated queue, as an account's quick match (M12).
            casual: false,
            request_id: String::new(),
            // The matcher's own latency: seated at once, no confirmation round trip.
            confirm_presence: false,
        })
        .await
        .context("enqueue")?
        .into_inner();
    let mut updates = client
        .watch_ticket(pb::WatchTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
            player_id: player_id.clone(),
        })
        .await
        .context("watch")?
        .into_inner();
    while let Some(update) = updates.next().await {
        let update = update.context("watch update")?;
        if update.state == pb::TicketState::Matched as i32 {
            return Ok(Matched {
                ticket_id: ticket.ticket_id,
                player_id,
                game_id: update.game_id,
                seat: update.seat,
                latency: start.elapsed(),
            });
        }
    }
    bail!("watch of {} ended unmatched", ticket.ticket_id)
}

/// Every game has seats 0 and 1 and two distinct players; no ticket or player is in two games.
fn check_tables(matched: &[Matched]) -> anyhow::Result<usize> {
    let mut games: HashMap<&str, Vec<&Matched>> = HashMap::new();
    let mut tickets = HashSet::new();
    let mut players = HashSet::new();
    for m in matched {
        if !tickets.insert(&m.ticket_id) {
            bail!("ticket {} announced twice", m.ticket_id);
        }
        if !players.insert(&m.player_id) {
            bail!("player {} in two games", m.player_id);
        }
        games.entry(&m.game_id).or_default().push(m);
    }
    for (game, seats) in &games {
        let mut s: Vec<u32> = seats.iter().map(|m| m.seat).collect();
        s.sort_unstable();
        if s != [0, 1] {
            bail!("game {game} has seats {s:?}");
        }
    }
    Ok(games.len())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    let redis = RedisServer::start()?;
    let port = redis.port();
    let stop = CancellationToken::new();
    let gateway = TcpListener::bind("127.0.0.1:0").await?;
    let accounts_db = ludus_accounts::testing::SqliteFile::new()?;
    let accounts = ludus_accounts::Config::new(
        ludus_accounts::AccountStore::connect(&accounts_db.url()).await?,
    );
    let system = ludus::System::start(
        ludus::SystemConfig {
            backend: Backend::redis(&redis.url()).await?,
            gateway,
            token_secret: b"matchbench secret, at least 32 bytes long".to_vec(),
            access_token_ttl: ludus_gateway::auth::ACCESS_TOKEN_TTL,
            turn_ms: Default::default(),
            absence_grace: Duration::from_secs(60),
            cors_origins: Vec::new(),
            clock: ludus_store::Clock::system(),
            sign_ins: ludus_gateway::limits::SignInLimit::default(),
            per_player: ludus_gateway::limits::PlayerLimit::default(),
            accounts,
            finished_game_retention: ludus::DEFAULT_FINISHED_GAME_RETENTION,
            bots: Default::default(),
            gateway_tls: None,
        },
        stop.clone(),
    )
    .await?;
    let mut replicas = vec![system.matchmaking];
    for _ in 1..args.replicas {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        replicas.push(listener.local_addr()?);
        let config = ludus_matchmaking::Config::new(
            Backend::redis(&redis.url()).await?,
            format!("http://{}", system.game_state),
        );
        tokio::spawn(ludus_matchmaking::run(
            config,
            listener,
            stop.clone().cancelled_owned(),
        ));
    }
    let mut clients = Vec::new();
    for addr in &replicas {
        // Internal servers refuse calls without a service credential: this process holds the
        // one `ludus::System::start` installed, and the services' own channel attaches it.
        clients.push(MatchmakingClient::new(ludus_server::traced_channel(
            &format!("http://{addr}"),
        )?));
    }
    println!(
        "matchbench: {} tickets per round, {} rounds, {} matchmaking replicas, one redis-server",
        args.tickets, args.rounds, args.replicas
    );
    println!(
        "round | tickets/s | p50 ms | p99 ms | max ms | games | cpu us/ticket (process) | redis cpu us/ticket | redis cmds/ticket | top commands"
    );
    for round in 0..args.rounds {
        let calls_before = redis_calls(port)?;
        let redis_cpu_before = redis_cpu(port)?;
        let cpu_before = measure::cpu_time(std::process::id());
        let start = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..args.tickets {
            let client = clients[i % clients.len()].clone();
            tasks.spawn(one_ticket(client, format!("r{round}p{i}")));
        }
        let mut matched = Vec::with_capacity(args.tickets);
        while let Some(result) = tasks.join_next().await {
            matched.push(result??);
        }
        let elapsed = start.elapsed();
        let cpu = (measure::cpu_time(std::process::id()) - cpu_before).as_secs_f64();
        let redis_cpu_used = redis_cpu(port)? - redis_cpu_before;
        let calls_after = redis_calls(port)?;
        let games = check_tables(&matched)?;
        let mut latencies = Latencies::default();
        for m in &matched {
            latencies.push(m.latency);
        }
        let mut deltas: Vec<(String, u64)> = calls_after
            .iter()
            .map(|(k, v)| (k.clone(), v - calls_before.get(k).copied().unwrap_or(0)))
            .filter(|(_, d)| *d > 0)
            .collect();
        deltas.sort_by_key(|(_, calls)| std::cmp::Reverse(*calls));
        let total: u64 = deltas.iter().map(|(_, d)| d).sum();
        #[allow(clippy::cast_precision_loss)]
        let n = args.tickets as f64;
        #[allow(clippy::cast_precision_loss)]
        let top: Vec<String> = deltas
            .iter()
            .take(6)
            .map(|(k, d)| format!("{k} {:.2}", *d as f64 / n))
            .collect();
        #[allow(clippy::cast_precision_loss)]
        let per_ticket_cmds = total as f64 / n;
        println!(
            "{} | {:.0} | {:.1} | {:.1} | {:.1} | {} | {:.0} | {:.0} | {:.2} | {}",
            round + 1,
            n / elapsed.as_secs_f64(),
            latencies.quantile_ms(0.50),
            latencies.quantile_ms(0.99),
            latencies.quantile_ms(1.0),
            games,
            cpu * 1e6 / n,
            redis_cpu_used * 1e6 / n,
            per_ticket_cmds,
            top.join(", ")
        );
    }
    stop.cancel();
    Ok(())
}
