//! soak: the multi-process system under a steady load for a long time, one process SIGKILLed
//! and restarted at every interval (rotating through the roles), every process's memory
//! sampled, and the promises of the design checked on everything the load did (ARCHITECTURE.md,
//! "Faults: the multi-process harness"). Run by `scripts/soak.sh`; not in CI (it lasts 30 minutes by default).
//!
//! # The load
//! `--tables` workers, each a loop of rounds until the duration is over: two fresh guests,
//! one on each gateway, quick-match in the worker's own Caro queue (one of the eight C1/C5
//! variants, so a worker's pair meets itself, not another worker's); a third guest spectates.
//! The pair plays `--moves` moves (paced like people), every move retried with the same
//! action id until acknowledged (on the other gateway after a failure), then X resigns.
//! Every fourth game is abandoned halfway instead: the player to move stops, and the turn
//! clock (`--turn-ms`, C12) must run out exactly once. Players and spectator each follow the
//! game on a Subscribe stream of their own, subscribing again after their last seq when it
//! breaks.
//!
//! # The faults
//! Every `--kill-every` seconds the next role of [`ROTATION`] is SIGKILLed (the replicas of a
//! role in turn), left dead for two seconds and started again; redis-server is one of them
//! (restarted on its AOF, `appendfsync always`).
//!
//! # What is checked, per game once it is over
//! The log is seqs 1..N; each of the three subscribers saw exactly 1..N, in order (a seq
//! missing is lost, a seq twice duplicated); the log's moves are exactly the acknowledged
//! ones; no game has more than one TurnTimedOut and every abandoned game has one. At the end:
//! no ticket announced matched into two games, no game with more than two tickets, and no
//! process died that the soak did not kill.
//!
//! # What it writes
//! `--out` (a directory): `rss.csv` (RSS in MiB of every process, every `--sample-every`
//! seconds), `kills.csv` (when each fault struck and how long the restart took) and
//! `summary.md` (the totals). Exits non-zero when any check failed.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt::Write as _,
    io::Write as _,
    net::SocketAddr,
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::Context as _;
use clap::Parser;
use ludus_proto::pb;
use ludus_tests::{
    Player,
    cluster::{Cluster, ClusterSpec, Role},
    load::{Acked, caro_variants, moves_in, o_cells, retryable, x_cells},
    measure, try_sign_in,
};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_stream::StreamExt;
use tonic::Code;

#[derive(Parser, Debug)]
#[command(about = "Soak the multi-process Ludus: steady load, a SIGKILL every interval")]
struct Args {
    /// How long the load is offered, in minutes (games in flight then finish and are checked).
    #[arg(long, default_value_t = 30.0)]
    minutes: f64,
    /// Seconds between two faults.
    #[arg(long, default_value_t = 60)]
    kill_every: u64,
    /// Games played at once (each its own worker and quick-match queue; at most 8).
    #[arg(long, default_value_t = 6)]
    tables: usize,
    /// Moves per game (at most 64: the cells of `x_cells`/`o_cells`).
    #[arg(long, default_value_t = 40)]
    moves: usize,
    /// Pause between two moves of a game, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pace_ms: u64,
    /// The Caro turn clock of quick matches (C12), in milliseconds.
    #[arg(long, default_value_t = 8_000)]
    turn_ms: u64,
    /// Seconds between two memory samples.
    #[arg(long, default_value_t = 10)]
    sample_every: u64,
    /// Where rss.csv, kills.csv and summary.md go.
    #[arg(long, default_value = "target/soak")]
    out: PathBuf,
}

/// How long one call is retried, or one stream waited on, before the soak calls it a
/// failure: longer than any restart (a process has 30 s to become healthy).
const PATIENCE: Duration = Duration::from_secs(90);

/// The timers' claim visibility: a claim a killed replica held is fired again after this.
const TIMER_VISIBILITY_S: &str = "5";

/// What a fault strikes, in turn.
#[derive(Clone, Copy, Debug)]
enum Target {
    Process(Role),
    Redis,
}

const ROTATION: [Target; 8] = [
    Target::Process(Role::GameState),
    Target::Process(Role::Gateway),
    Target::Process(Role::Matchmaking),
    Target::Process(Role::Timers),
    Target::Redis,
    Target::Process(Role::Ratings),
    Target::Process(Role::Accounts),
    Target::Process(Role::Rooms),
];

/// Everything the load did and found, shared by the workers.
#[derive(Default)]
struct Totals {
    games: usize,
    abandoned: usize,
    /// Pairs whose two guests were matched into different games (a stale ticket met one).
    split_pairs: usize,
    moves_acked: usize,
    events_checked: usize,
    lost_events: usize,
    duplicated_events: usize,
    out_of_order: usize,
    lost_moves: usize,
    duplicated_moves: usize,
    timeouts: usize,
    lost_timeouts: usize,
    duplicated_timeouts: usize,
    /// The latest a clock ran out after its deadline (server timestamps), in ms.
    max_timeout_late_ms: i64,
    resubscriptions: usize,
    retries: usize,
    tickets_matched: usize,
    /// Ticket -> the games it was announced matched into.
    tickets: BTreeMap<String, BTreeSet<String>>,
    /// Failures, described (each also counted above where it has a column).
    failures: Vec<String>,
}

type Shared = Arc<Mutex<Totals>>;

fn note(totals: &Shared, update: impl FnOnce(&mut Totals)) {
    update(&mut totals.lock().expect("totals"));
}

fn fail(totals: &Shared, failure: String) {
    eprintln!("soak: FAILED: {failure}");
    note(totals, |t| t.failures.push(failure));
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    anyhow::ensure!(
        (1..=8).contains(&args.tables),
        "--tables: 1 to 8 (one Caro queue each)"
    );
    anyhow::ensure!(args.moves <= 64, "--moves: at most 64");
    std::fs::create_dir_all(&args.out).with_context(|| format!("{}", args.out.display()))?;
    let turn = format!("caro={}", args.turn_ms);
    let spec = ClusterSpec::default()
        .flags(Role::Timers, &["--visibility-seconds", TIMER_VISIBILITY_S])
        .flags(Role::Matchmaking, &["--turn-ms", &turn]);
    let mut cluster = Cluster::start(spec).await;
    let gateways = [cluster.gateway(0), cluster.gateway(1)];
    let started = Instant::now();
    let stop_at = started + Duration::from_secs_f64(args.minutes * 60.0);
    eprintln!(
        "soak: {} processes up; load for {} min, a fault every {} s",
        cluster.pids().len(),
        args.minutes,
        args.kill_every
    );

    let totals = Shared::default();
    let mut workers = Vec::new();
    for (w, settings) in caro_variants().into_iter().take(args.tables).enumerate() {
        let load = Load {
            worker: w,
            gateways,
            settings,
            moves: args.moves,
            pace: Duration::from_millis(args.pace_ms),
            totals: totals.clone(),
        };
        workers.push(tokio::spawn(load.run(stop_at)));
    }

    let mut rss = Rss::create(&args.out, &cluster)?;
    let mut kills = std::fs::File::create(args.out.join("kills.csv"))?;
    writeln!(kills, "elapsed_s,target,restart_s")?;
    let mut sample = tokio::time::interval(Duration::from_secs(args.sample_every));
    sample.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let every = Duration::from_secs(args.kill_every);
    let mut fault = tokio::time::interval_at(started + every, every);
    fault.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut struck: BTreeMap<String, usize> = BTreeMap::new();
    let mut faults = 0usize;
    loop {
        tokio::select! {
            _ = sample.tick() => rss.sample(started, &cluster)?,
            _ = fault.tick() => {
                let target = ROTATION[faults % ROTATION.len()];
                faults += 1;
                let at = started.elapsed().as_secs();
                let (name, took) = strike(&mut cluster, target, &mut struck).await;
                eprintln!("soak: {at} s: SIGKILL {name}, back in {took:.1} s");
                writeln!(kills, "{at},{name},{took:.1}")?;
            }
            () = tokio::time::sleep_until(stop_at) => break,
        }
    }
    eprintln!("soak: load over after {faults} faults; games in flight finish");
    // Games in flight finish (each bounded by its retries): memory is still sampled.
    let mut all_done = Box::pin(futures::future::join_all(workers));
    let joined = loop {
        tokio::select! {
            _ = sample.tick() => rss.sample(started, &cluster)?,
            joined = &mut all_done => break joined,
        }
    };
    rss.sample(started, &cluster)?;
    for (w, worker) in joined.into_iter().enumerate() {
        if let Err(e) = worker {
            fail(&totals, format!("worker {w} panicked: {e}"));
        }
    }
    for dead in cluster.dead_processes() {
        fail(&totals, format!("a process died unkilled: {dead}"));
    }
    let elapsed = started.elapsed();
    let mut totals = totals.lock().expect("totals");
    let mut shared_tickets = 0;
    let mut games_tickets: BTreeMap<&str, usize> = BTreeMap::new();
    for games in totals.tickets.values() {
        if games.len() > 1 {
            shared_tickets += 1;
        }
        for game in games {
            *games_tickets.entry(game).or_default() += 1;
        }
    }
    let crowded = games_tickets.values().filter(|&&n| n > 2).count();
    if shared_tickets > 0 || crowded > 0 {
        let failure =
            format!("{shared_tickets} tickets in two games, {crowded} games with 3+ tickets");
        totals.failures.push(failure);
    }
    let summary = summary(
        &args,
        &totals,
        elapsed,
        faults,
        &struck,
        shared_tickets,
        &rss,
    );
    std::fs::write(args.out.join("summary.md"), &summary)?;
    println!("{summary}");
    drop(cluster);
    anyhow::ensure!(
        totals.failures.is_empty(),
        "{} checks failed (see above)",
        totals.failures.len()
    );
    Ok(())
}

/// SIGKILLs the next replica of `target`, waits two seconds and starts it again: (its name,
/// seconds from the restart to healthy).
async fn strike(
    cluster: &mut Cluster,
    target: Target,
    struck: &mut BTreeMap<String, usize>,
) -> (String, f64) {
    match target {
        Target::Redis => {
            *struck.entry("redis-server".to_owned()).or_default() += 1;
            cluster.kill_redis();
            tokio::time::sleep(Duration::from_secs(2)).await;
            let back = Instant::now();
            cluster.restart_redis();
            ("redis-server".to_owned(), back.elapsed().as_secs_f64())
        }
        Target::Process(role) => {
            let count = struck.entry(role.to_string()).or_default();
            let replicas = cluster
                .pids()
                .iter()
                .filter(|(name, _)| name.starts_with(&format!("{role}#")))
                .count();
            let index = *count % replicas.max(1);
            *count += 1;
            cluster.kill(role, index);
            tokio::time::sleep(Duration::from_secs(2)).await;
            let back = Instant::now();
            cluster.restart(role, index).await;
            (format!("{role}#{index}"), back.elapsed().as_secs_f64())
        }
    }
}

/// The memory samples: `rss.csv` as they come, and first/peak/last per process.
struct Rss {
    file: std::fs::File,
    names: Vec<String>,
    /// Per process: (first, peak, last) MiB, ignoring samples taken while it was down.
    seen: BTreeMap<String, (f64, f64, f64)>,
    /// Every sample, for the summary's chart: (elapsed s, MiB per process in `names` order).
    rows: Vec<(u64, Vec<Option<f64>>)>,
}

impl Rss {
    fn create(out: &std::path::Path, cluster: &Cluster) -> anyhow::Result<Rss> {
        let names: Vec<String> = cluster.pids().into_iter().map(|(name, _)| name).collect();
        let mut file = std::fs::File::create(out.join("rss.csv"))?;
        writeln!(file, "elapsed_s,{}", names.join(","))?;
        Ok(Rss {
            file,
            names,
            seen: BTreeMap::new(),
            rows: Vec::new(),
        })
    }

    fn sample(&mut self, started: Instant, cluster: &Cluster) -> anyhow::Result<()> {
        let at = started.elapsed().as_secs();
        let pids: BTreeMap<String, Option<u32>> = cluster.pids().into_iter().collect();
        let mut row = Vec::new();
        let mut line = at.to_string();
        for name in &self.names {
            let mib = pids
                .get(name)
                .copied()
                .flatten()
                .map(measure::rss_bytes)
                .filter(|&bytes| bytes > 0)
                .map(measure::mib);
            line.push(',');
            if let Some(mib) = mib {
                let _ = write!(line, "{mib:.1}");
                let entry = self.seen.entry(name.clone()).or_insert((mib, mib, mib));
                entry.1 = entry.1.max(mib);
                entry.2 = mib;
            }
            row.push(mib);
        }
        writeln!(self.file, "{line}")?;
        self.rows.push((at, row));
        Ok(())
    }

    /// A table of one sample a minute (and the last), MiB per process.
    fn by_minute(&self) -> String {
        let mut table = format!("| t (min) | {} |\n", self.names.join(" | "));
        let _ = writeln!(table, "|---|{}", "---|".repeat(self.names.len()));
        let mut next_minute = 0;
        for (i, (at, row)) in self.rows.iter().enumerate() {
            let last = i + 1 == self.rows.len();
            if *at < next_minute * 60 && !last {
                continue;
            }
            next_minute = at / 60 + 1;
            let cells: Vec<String> = row
                .iter()
                .map(|mib| mib.map_or("down".to_owned(), |m| format!("{m:.0}")))
                .collect();
            let _ = writeln!(
                table,
                "| {:.1} | {} |",
                *at as f64 / 60.0,
                cells.join(" | ")
            );
        }
        table
    }
}

fn summary(
    args: &Args,
    t: &Totals,
    elapsed: Duration,
    faults: usize,
    struck: &BTreeMap<String, usize>,
    shared_tickets: usize,
    rss: &Rss,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Soak: {:.1} min of load ({:.1} min in all), {} tables, {} moves a game, {} ms \
         pace, {} ms turn clock, a fault every {} s\n",
        args.minutes,
        elapsed.as_secs_f64() / 60.0,
        args.tables,
        args.moves,
        args.pace_ms,
        args.turn_ms,
        args.kill_every
    );
    let struck: Vec<String> = struck.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
    let _ = writeln!(
        s,
        "- faults: {faults} SIGKILL + restart ({})",
        struck.join(", ")
    );
    let _ = writeln!(
        s,
        "- games: {} ({} abandoned to the clock), {} split pairs, {} tickets matched, {} \
         tickets in two games",
        t.games, t.abandoned, t.split_pairs, t.tickets_matched, shared_tickets
    );
    let _ = writeln!(
        s,
        "- moves acknowledged: {}, lost {}, duplicated {}",
        t.moves_acked, t.lost_moves, t.duplicated_moves
    );
    let _ = writeln!(
        s,
        "- events checked (log + 3 subscribers a game): {}, lost {}, duplicated {}, out of \
         order {}",
        t.events_checked, t.lost_events, t.duplicated_events, t.out_of_order
    );
    let _ = writeln!(
        s,
        "- turn clocks run out: {}, lost {}, twice {}, latest {} ms after the deadline",
        t.timeouts, t.lost_timeouts, t.duplicated_timeouts, t.max_timeout_late_ms
    );
    let _ = writeln!(
        s,
        "- calls retried: {}, resubscriptions: {}",
        t.retries, t.resubscriptions
    );
    let _ = writeln!(s, "- failures: {}", t.failures.len());
    for failure in t.failures.iter().take(20) {
        let _ = writeln!(s, "  - {failure}");
    }
    let _ = writeln!(s, "\n### RSS (MiB): first, peak, last\n");
    let _ = writeln!(s, "| process | first | peak | last |\n|---|---|---|---|");
    for (name, (first, peak, last)) in &rss.seen {
        let _ = writeln!(s, "| {name} | {first:.1} | {peak:.1} | {last:.1} |");
    }
    let _ = writeln!(s, "\n### RSS (MiB) by minute\n\n{}", rss.by_minute());
    s
}

fn other(gateways: &[SocketAddr; 2], current: SocketAddr) -> SocketAddr {
    if current == gateways[0] {
        gateways[1]
    } else {
        gateways[0]
    }
}

/// One worker's load.
struct Load {
    worker: usize,
    gateways: [SocketAddr; 2],
    settings: pb::GameSettings,
    moves: usize,
    pace: Duration,
    totals: Shared,
}

/// A client and the gateway it talks to now.
struct Client {
    player: Player,
    gateway: SocketAddr,
}

impl Client {
    /// Moves to the other gateway (after a failure, as an app behind a balancer would).
    fn switch(&mut self, gateways: &[SocketAddr; 2]) {
        self.gateway = other(gateways, self.gateway);
        self.player = self.player.on_gateway(self.gateway);
    }
}

impl Load {
    async fn run(self, stop_at: Instant) {
        let mut round = 0usize;
        while Instant::now() < stop_at {
            round += 1;
            let abandon = round.is_multiple_of(4);
            if let Err(failure) = self.round(round, abandon).await {
                fail(
                    &self.totals,
                    format!("worker {} round {round}: {failure}", self.worker),
                );
            }
        }
    }

    /// Signs in, retried through faults (a gateway or accounts may be down).
    async fn guest(&self, name: String, gateway: usize) -> Result<Client, String> {
        let mut gateway = self.gateways[gateway];
        let deadline = Instant::now() + PATIENCE;
        loop {
            match try_sign_in(gateway, &name).await {
                Ok(player) => return Ok(Client { player, gateway }),
                Err(status) if retryable(&status) && Instant::now() < deadline => {
                    self.retried();
                    gateway = other(&self.gateways, gateway);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(status) => return Err(format!("sign in {name}: {status:?}")),
            }
        }
    }

    fn retried(&self) {
        note(&self.totals, |t| t.retries += 1);
    }

    /// Queues `client` until a Matched update: (game, seat). A broken stream is queued
    /// again (a fresh ticket); every Matched ticket is recorded.
    async fn matched(&self, client: &mut Client) -> Result<(String, u32), String> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let attempt = async {
                let mut updates = client
                    .player
                    .queue(self.settings.clone(), pb::MatchRanking::Default)
                    .await?;
                while let Some(update) = updates.next().await {
                    let update = update?;
                    if update.state == pb::TicketState::Matched as i32 {
                        return Ok((update.ticket_id, update.game_id, update.seat));
                    }
                    if update.state == pb::TicketState::Cancelled as i32 {
                        return Err(tonic::Status::cancelled("the ticket was cancelled"));
                    }
                }
                Err(tonic::Status::unavailable("the FindMatch stream ended"))
            };
            match tokio::time::timeout_at(deadline, attempt).await {
                Ok(Ok((ticket, game, seat))) => {
                    note(&self.totals, |t| {
                        t.tickets_matched += 1;
                        t.tickets.entry(ticket).or_default().insert(game.clone());
                    });
                    return Ok((game, seat));
                }
                Ok(Err(status)) if retryable(&status) || status.code() == Code::Cancelled => {
                    self.retried();
                    client.switch(&self.gateways);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Ok(Err(status)) => return Err(format!("FindMatch refused: {status:?}")),
                Err(_) => return Err(format!("not matched within {PATIENCE:?}")),
            }
        }
    }

    async fn round(&self, round: usize, abandon: bool) -> Result<(), String> {
        let tag = format!("w{}r{round}", self.worker);
        let mut a = self.guest(format!("{tag}a"), 0).await?;
        let mut b = self.guest(format!("{tag}b"), 1).await?;
        let (ma, mb) = tokio::join!(self.matched(&mut a), self.matched(&mut b));
        let ((game_a, seat_a), (game_b, _)) = (ma?, mb?);
        if game_a != game_b {
            // A ticket left queued by a broken stream met one of them: each game has an
            // absent player, so its clock must end it (checked like an abandoned game).
            note(&self.totals, |t| t.split_pairs += 1);
            for game in [game_a, game_b] {
                let mut watcher = a.player.on_gateway(a.gateway);
                let view = follow(&mut watcher, a.gateway, &self.gateways, &game).await;
                self.check(&mut a, &game, &[view], &[], None, true).await?;
            }
            return Ok(());
        }
        let game_id = game_a;
        let mut seats = if seat_a == 0 { [a, b] } else { [b, a] };
        let spectator = self.guest(format!("{tag}s"), round % 2).await?;
        let mut followers = Vec::new();
        for client in seats.iter().chain([&spectator]) {
            let mut player = client.player.on_gateway(client.gateway);
            let (gateway, gateways, game) = (client.gateway, self.gateways, game_id.clone());
            followers.push(tokio::spawn(async move {
                follow(&mut player, gateway, &gateways, &game).await
            }));
        }
        let stop_after = if abandon { self.moves / 2 } else { self.moves };
        let played = self
            .play(&mut seats, &game_id, stop_after, !abandon)
            .await?;
        let mut views = Vec::new();
        for follower in followers {
            views.push(
                follower
                    .await
                    .map_err(|e| format!("a follower panicked: {e}"))?,
            );
        }
        note(&self.totals, |t| {
            t.games += 1;
            t.abandoned += usize::from(abandon);
            t.moves_acked += played.acked.len();
        });
        let deadline = abandon.then_some(played.deadline).flatten();
        let [x, _] = &mut seats;
        self.check(
            x,
            &game_id,
            &views,
            &played.acked,
            played.pending.as_ref(),
            abandon,
        )
        .await?;
        if let Some(deadline) = deadline {
            self.lateness(x, &game_id, deadline).await;
        }
        Ok(())
    }

    /// Plays `moves` moves, each retried with its action id until acknowledged; then X
    /// resigns when `resign`, or the game is left to its clock.
    async fn play(
        &self,
        seats: &mut [Client; 2],
        game_id: &str,
        moves: usize,
        resign: bool,
    ) -> Result<Played, String> {
        let cells = [x_cells(), o_cells()];
        let mut played = Played::default();
        let mut seq = self.seq(&mut seats[0], game_id).await?;
        for i in 0..moves {
            let seat = i % 2;
            let cell = &cells[seat][i / 2];
            let client = &mut seats[seat];
            let action_id = client.player.next_action_id();
            let deadline = Instant::now() + PATIENCE;
            let event = loop {
                match client.player.submit(game_id, seq, &action_id, cell).await {
                    Ok(response) => {
                        break response
                            .event
                            .ok_or_else(|| format!("{game_id}: an ack without its event"))?;
                    }
                    // The log moved (a presence event): the same action id at the new seq.
                    Err(status) if status.code() == Code::Aborted => {
                        seq = self.seq(client, game_id).await?;
                    }
                    // The game is over: its clock ran out while the call was retried. This
                    // move may have landed or not: the check allows either.
                    Err(status) if status.code() == Code::FailedPrecondition => {
                        played.pending = Some((u32::try_from(seat).unwrap_or(0), cell.clone()));
                        return Ok(played);
                    }
                    Err(status) if retryable(&status) && Instant::now() < deadline => {
                        self.retried();
                        client.switch(&self.gateways);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    Err(status) => return Err(format!("{game_id}: move {i}: {status:?}")),
                }
            };
            seq = event.seq;
            played.acked.push(Acked {
                seq: event.seq,
                seat: u32::try_from(seat).unwrap_or(0),
                cell: cell.clone(),
            });
            tokio::time::sleep(self.pace).await;
        }
        if !resign {
            played.deadline = self.deadline(&mut seats[0], game_id).await;
            return Ok(played);
        }
        let x = &mut seats[0];
        let deadline = Instant::now() + PATIENCE;
        loop {
            match x.player.resign(game_id).await {
                // A retried resignation whose first try landed, or a clock that ran out.
                Ok(_) => return Ok(played),
                Err(status) if status.code() == Code::FailedPrecondition => return Ok(played),
                Err(status) if retryable(&status) && Instant::now() < deadline => {
                    self.retried();
                    x.switch(&self.gateways);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(status) => return Err(format!("{game_id}: resign: {status:?}")),
            }
        }
    }

    /// The game's snapshot, retried through faults.
    async fn snapshot(
        &self,
        client: &mut Client,
        game_id: &str,
    ) -> Result<pb::GameSnapshot, String> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let request = pb::GetGameRequest {
                game_id: game_id.to_owned(),
            };
            match client.player.client.get_game(request).await {
                Ok(response) => {
                    return response
                        .into_inner()
                        .game
                        .ok_or_else(|| format!("{game_id}: no snapshot"));
                }
                Err(status) if retryable(&status) && Instant::now() < deadline => {
                    self.retried();
                    client.switch(&self.gateways);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(status) => return Err(format!("{game_id}: get game: {status:?}")),
            }
        }
    }

    async fn seq(&self, client: &mut Client, game_id: &str) -> Result<u64, String> {
        Ok(self.snapshot(client, game_id).await?.seq)
    }

    /// The running turn's deadline (unix ms), if the game is still on.
    async fn deadline(&self, client: &mut Client, game_id: &str) -> Option<i64> {
        let snapshot = self.snapshot(client, game_id).await.ok()?;
        snapshot
            .turn
            .map(|turn| turn.deadline_unix_ms)
            .filter(|&d| d > 0)
    }

    /// Records how late the abandoned game's clock ran out after `deadline` (server clocks).
    async fn lateness(&self, client: &mut Client, game_id: &str, deadline: i64) {
        if let Ok(log) = log_of(client, &self.gateways, game_id).await
            && let Some(timeout) = log
                .iter()
                .find(|e| matches!(e.kind, Some(pb::game_event::Kind::TurnTimedOut(_))))
        {
            let late = timeout.at_unix_ms - deadline;
            note(&self.totals, |t| {
                t.max_timeout_late_ms = t.max_timeout_late_ms.max(late);
            });
        }
    }

    /// Checks a finished game (see the module's doc) and adds what it found to the totals.
    async fn check(
        &self,
        reader: &mut Client,
        game_id: &str,
        views: &[View],
        acked: &[Acked],
        pending: Option<&(u32, String)>,
        clock_must_end_it: bool,
    ) -> Result<(), String> {
        let log = log_of(reader, &self.gateways, game_id).await?;
        let n = u64::try_from(log.len()).unwrap_or(0);
        let expected: Vec<u64> = (1..=n).collect();
        let seqs: Vec<u64> = log.iter().map(|e| e.seq).collect();
        let mut failures = Vec::new();
        if seqs != expected {
            failures.push(format!("{game_id}: the log is not 1..{n}: {seqs:?}"));
        }
        let (mut lost, mut duplicated, mut disordered, mut resubscribed) = (0, 0, 0, 0);
        for (i, view) in views.iter().enumerate() {
            resubscribed += view.resubscribed;
            let distinct: BTreeSet<u64> = view.seen.iter().copied().collect();
            lost += expected.iter().filter(|s| !distinct.contains(s)).count();
            duplicated += view.seen.len() - distinct.len();
            if !view.seen.is_sorted() {
                disordered += 1;
            }
            if view.seen != expected {
                failures.push(format!(
                    "{game_id}: subscriber {i} saw {:?}, the log is 1..{n}",
                    view.seen
                ));
            }
        }
        let moves = moves_in(&log);
        let lost_moves = acked.iter().filter(|m| !moves.contains(m)).count();
        let mut extra: Vec<&Acked> = moves.iter().filter(|m| !acked.contains(m)).collect();
        // The move in flight when the clock ended the game may have landed.
        if let Some((seat, cell)) = pending
            && extra.len() == 1
            && extra[0].seat == *seat
            && &extra[0].cell == cell
        {
            extra.clear();
        }
        if lost_moves > 0 || !extra.is_empty() {
            failures.push(format!(
                "{game_id}: {lost_moves} acknowledged moves missing from the log, {} in the \
                 log never acknowledged",
                extra.len()
            ));
        }
        let timeouts = log
            .iter()
            .filter(|e| matches!(e.kind, Some(pb::game_event::Kind::TurnTimedOut(_))))
            .count();
        let lost_timeout = usize::from(clock_must_end_it && timeouts == 0);
        if lost_timeout > 0 || timeouts > 1 {
            failures.push(format!("{game_id}: the clock ran out {timeouts} times"));
        }
        let checked = log.len() * (1 + views.len());
        note(&self.totals, |t| {
            t.events_checked += checked;
            t.lost_events += lost;
            t.duplicated_events += duplicated;
            t.out_of_order += disordered;
            t.lost_moves += lost_moves;
            t.duplicated_moves += extra.len();
            t.timeouts += timeouts;
            t.lost_timeouts += lost_timeout;
            t.duplicated_timeouts += timeouts.saturating_sub(1);
            t.resubscriptions += resubscribed;
        });
        for failure in failures {
            fail(&self.totals, format!("worker {}: {failure}", self.worker));
        }
        Ok(())
    }
}

/// What playing a game came to.
#[derive(Default)]
struct Played {
    acked: Vec<Acked>,
    /// The move refused because the game was over (it may or may not have landed).
    pending: Option<(u32, String)>,
    /// The running turn's deadline when the players stopped (abandoned games).
    deadline: Option<i64>,
}

/// What one subscriber saw of a game: every seq delivered, duplicates included, and how
/// often it subscribed again.
struct View {
    seen: Vec<u64>,
    resubscribed: usize,
}

/// Follows `game_id` until it finishes, subscribing again after the last seq it saw (on the
/// other gateway) whenever the stream breaks. Gives up after [`PATIENCE`] without an event.
async fn follow(
    player: &mut Player,
    mut gateway: SocketAddr,
    gateways: &[SocketAddr; 2],
    game_id: &str,
) -> View {
    let mut view = View {
        seen: Vec::new(),
        resubscribed: 0,
    };
    let mut last = 0;
    let mut quiet_since = Instant::now();
    let mut follower = player.on_gateway(gateway);
    while quiet_since.elapsed() < PATIENCE {
        let request = pb::SubscribeRequest {
            game_id: game_id.to_owned(),
            after_seq: last,
        };
        if let Ok(stream) = follower.client.subscribe(request).await {
            let mut stream = stream.into_inner();
            while let Ok(Some(Ok(event))) = tokio::time::timeout(PATIENCE, stream.next()).await {
                quiet_since = Instant::now();
                view.seen.push(event.seq);
                last = last.max(event.seq);
                if event.status == pb::GameStatus::Finished as i32 {
                    return view;
                }
            }
        }
        view.resubscribed += 1;
        gateway = other(gateways, gateway);
        follower = player.on_gateway(gateway);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    view
}

/// The whole log of a finished game, read from the start.
async fn log_of(
    reader: &mut Client,
    gateways: &[SocketAddr; 2],
    game_id: &str,
) -> Result<Vec<pb::GameEvent>, String> {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        let request = pb::SubscribeRequest {
            game_id: game_id.to_owned(),
            after_seq: 0,
        };
        if let Ok(stream) = reader.player.client.subscribe(request).await {
            let mut stream = stream.into_inner();
            let mut events = Vec::new();
            while let Ok(Some(Ok(event))) = tokio::time::timeout(PATIENCE, stream.next()).await {
                let finished = event.status == pb::GameStatus::Finished as i32;
                events.push(event);
                if finished {
                    return Ok(events);
                }
            }
        }
        reader.switch(gateways);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!("{game_id}: its log could not be read to its end"))
}
