//! `loadgen play`: G concurrent Caro games, S spectators each, every move a real
//! `SubmitAction` through the gateway; the same load shape through the floor chain with
//! `--floor`. Rounds of 15-move games run until `--duration` is spent (setup between rounds is
//! not timed: sign-ins, `CreateGame`, `Subscribe`).

use std::{
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use futures::{StreamExt as _, TryStreamExt as _};
use ludus_proto::pb;
use prost::Message as _;
use tokio::sync::{Notify, Semaphore};

use crate::{
    floor,
    measure::{self, Latencies},
    system::{self, Client, Pool, System},
};

/// Every game plays these cells alternately, X first: 15 moves ending with X's five on row 8
/// (C7), so each game is the same length.
pub const SCRIPT: [&str; 15] = [
    "A8", "A1", "B8", "C1", "C8", "E1", "D8", "G1", "F9", "I1", "G10", "K1", "H11", "M1", "E8",
];

/// How long a run waits for something that should come promptly (a bound on a hang).
const PATIENCE: Duration = Duration::from_secs(30);

/// Setups in flight at once.
const SETUP_PARALLELISM: usize = 64;

/// Flags of `loadgen play`.
#[derive(Debug, Clone, clap::Args)]
pub struct PlayArgs {
    /// Concurrent games.
    #[arg(long, default_value_t = 32)]
    pub games: usize,
    /// Spectators subscribed to each game (fan-out latency is measured to the last of them).
    #[arg(long, default_value_t = 1)]
    pub spectators: usize,
    /// Both players subscribe to their game too, as a real client does: each move is then
    /// written to spectators + 2 streams (fan-out latency is to the last of them). The floor
    /// opens as many streams per game.
    #[arg(long)]
    pub player_streams: bool,
    /// Offered moves per second over all games; 0 = closed loop (each game's next move as
    /// soon as the previous one is answered).
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// Timed seconds to play (rounds of 15-move games until spent; a game stops mid-round
    /// when it runs out).
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    /// At most this many rounds.
    #[arg(long, default_value_t = 1000)]
    pub rounds: usize,
    /// Also run the floor with the same load shape and print the ratio: the chain of two
    /// bare servers and Redis, or with `--system all-in-one` one bare server committing in
    /// memory.
    #[arg(long)]
    pub floor: bool,
    /// Run only the floor chain.
    #[arg(long)]
    pub floor_only: bool,
    /// Leave Nagle on in the floor's servers (shows the stall the nodelay fix removed).
    #[arg(long)]
    pub floor_nagle: bool,
    #[command(flatten)]
    pub system: system::SystemArgs,
}

/// What a run measured.
#[derive(Debug, Default)]
pub struct Outcome {
    pub moves: u64,
    pub timed: Duration,
    pub submit: Latencies,
    pub fanout: Latencies,
    pub cpu: Duration,
    pub errors: u64,
    pub first_error: Option<String>,
    pub reply_bytes: usize,
}

impl Outcome {
    fn add(&mut self, other: Outcome) {
        self.moves += other.moves;
        self.timed += other.timed;
        self.submit.extend(other.submit);
        self.fanout.extend(other.fanout);
        self.cpu += other.cpu;
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
        self.reply_bytes = self.reply_bytes.max(other.reply_bytes);
    }

    pub fn moves_per_second(&self) -> f64 {
        self.moves as f64 / self.timed.as_secs_f64().max(f64::EPSILON)
    }

    pub fn cpu_per_move_us(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / (self.moves.max(1) as f64)
    }

    pub fn print(&self, name: &str) {
        println!(
            "{name}: {} moves in {:.2} s = {:.0} moves/s; CPU {:.0} µs/move; errors {}",
            self.moves,
            self.timed.as_secs_f64(),
            self.moves_per_second(),
            self.cpu_per_move_us(),
            self.errors
        );
        println!("  submit latency:  {}", self.submit.summary());
        println!("  fan-out latency: {}", self.fanout.summary());
        if let Some(error) = &self.first_error {
            println!("  first error: {error}");
        }
    }
}

/// Offered rate: a ticker hands out one permit per move.
struct Pace {
    permits: Arc<Semaphore>,
    ticker: tokio::task::JoinHandle<()>,
}

impl Pace {
    fn start(rate: f64) -> Option<Pace> {
        if rate <= 0.0 {
            return None;
        }
        let permits = Arc::new(Semaphore::new(0));
        let feed = permits.clone();
        let ticker = tokio::spawn(async move {
            let started = Instant::now();
            let mut granted = 0u64;
            let mut every = tokio::time::interval(Duration::from_millis(1));
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                every.tick().await;
                let due = (started.elapsed().as_secs_f64() * rate) as u64;
                if due > granted {
                    feed.add_permits(usize::try_from(due - granted).unwrap_or(usize::MAX));
                    granted = due;
                }
            }
        });
        Some(Pace { permits, ticker })
    }

    async fn wait(pace: Option<&Pace>) {
        if let Some(pace) = pace
            && let Ok(permit) = pace.permits.acquire().await
        {
            permit.forget();
        }
    }
}

impl Drop for Pace {
    fn drop(&mut self) {
        self.ticker.abort();
    }
}

impl PlayArgs {
    /// Server streams each game's events are written to.
    fn streams_per_game(&self) -> usize {
        self.spectators + if self.player_streams { 2 } else { 0 }
    }
}

/// One game's fan-out bookkeeping: when each move was sent and how many streams saw it.
struct Track {
    sent: Mutex<[Option<Instant>; SCRIPT.len()]>,
    seen: [AtomicUsize; SCRIPT.len()],
    streams: usize,
    fanout: Mutex<Latencies>,
    progress: Notify,
}

impl Track {
    fn new(streams: usize) -> Track {
        Track {
            sent: Mutex::new([None; SCRIPT.len()]),
            seen: std::array::from_fn(|_| AtomicUsize::new(0)),
            streams,
            fanout: Mutex::default(),
            progress: Notify::new(),
        }
    }

    fn sent(&self, index: usize, at: Instant) {
        self.sent.lock().unwrap_or_else(PoisonError::into_inner)[index] = Some(at);
    }

    fn seen(&self, index: usize) {
        let Some(counter) = self.seen.get(index) else {
            return;
        };
        if counter.fetch_add(1, Ordering::AcqRel) + 1 == self.streams {
            let sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner)[index];
            if let Some(sent) = sent {
                self.fanout
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(sent.elapsed());
            }
            self.progress.notify_one();
        }
    }

    /// Waits until every stream saw move `index`.
    async fn all_seen(&self, index: usize) -> bool {
        let wait = async {
            while self.seen[index].load(Ordering::Acquire) < self.streams {
                self.progress.notified().await;
            }
        };
        tokio::time::timeout(PATIENCE, wait).await.is_ok()
    }

    /// Reads one event stream to its end, counting each event (by its seq) as seen; `seq0` is
    /// the game's seq before its first move.
    fn drain<T: Send + 'static>(
        self: &Arc<Track>,
        mut stream: tonic::Streaming<T>,
        seq0: u64,
        seq_of: fn(&T) -> Option<u64>,
    ) -> tokio::task::JoinHandle<()> {
        let track = self.clone();
        tokio::spawn(async move {
            while let Some(Ok(event)) = stream.next().await {
                if let Some(index) = seq_of(&event).and_then(|seq| seq.checked_sub(seq0 + 1)) {
                    track.seen(usize::try_from(index).unwrap_or(usize::MAX));
                }
            }
        })
    }

    /// After a game's last answered move: waits for its fan-out (an error when a stream
    /// missed it), stops the streams and hands the fan-out latencies to `outcome`.
    async fn finish(
        &self,
        game: &str,
        last_sent: Option<usize>,
        watchers: &[tokio::task::JoinHandle<()>],
        outcome: &mut Outcome,
    ) {
        if let Some(last) = last_sent
            && self.streams > 0
            && !self.all_seen(last).await
        {
            outcome.errors += 1;
            outcome
                .first_error
                .get_or_insert_with(|| format!("{game}: a stream missed move {last}"));
        }
        for watcher in watchers {
            watcher.abort();
        }
        outcome.fanout =
            std::mem::take(&mut self.fanout.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

/// One game ready to play.
pub(crate) struct Table {
    pub(crate) game_id: String,
    pub(crate) seq0: u64,
    pub(crate) players: [Client; 2],
    track: Arc<Track>,
    watchers: Vec<tokio::task::JoinHandle<()>>,
}

/// Signs in two players and `spectators` watchers and creates their game (`loadgen ends` uses
/// it too).
pub(crate) async fn set_table(
    pool: &Pool,
    internal: &Pool,
    index: usize,
    spectators: usize,
    player_streams: bool,
) -> anyhow::Result<Table> {
    let (x_id, x) = system::sign_in(pool.get(index * 3), &format!("x{index}")).await?;
    let (o_id, o) = system::sign_in(pool.get(index * 3 + 1), &format!("o{index}")).await?;
    let snapshot =
        ludus_proto::pb::game_state_client::GameStateClient::new(internal.internal(index))
            .create_game(pb::CreateGameRequest {
                game_id: String::new(),
                settings: Some(pb::GameSettings {
                    turn_time_ms: 60_000,
                    ..ludus_tests::caro_settings()
                }),
                players: [(x_id, format!("x{index}")), (o_id, format!("o{index}"))]
                    .into_iter()
                    .map(|(player_id, display_name)| pb::PlayerRef {
                        player_id,
                        display_name,
                        computer_level: String::new(),
                    })
                    .collect(),
                // Rated, as the games measured before accounts existed (a report per game).
                casual: false,
                room_code: String::new(),
            })
            .await
            .map_err(|s| anyhow::anyhow!("create game: {s}"))?
            .into_inner()
            .game
            .ok_or_else(|| anyhow::anyhow!("create game: no snapshot"))?;
    let track = Arc::new(Track::new(spectators + if player_streams { 2 } else { 0 }));
    let mut watchers = Vec::new();
    let mut subscribers = Vec::new();
    if player_streams {
        subscribers.extend([x.clone(), o.clone()]);
    }
    for s in 0..spectators {
        let (_, watcher) =
            system::sign_in(pool.get(index * 3 + 2 + s), &format!("w{index}-{s}")).await?;
        subscribers.push(watcher);
    }
    for mut subscriber in subscribers {
        let stream = subscriber
            .subscribe(pb::SubscribeRequest {
                game_id: snapshot.game_id.clone(),
                after_seq: snapshot.seq,
            })
            .await
            .map_err(|s| anyhow::anyhow!("subscribe: {s}"))?
            .into_inner();
        watchers.push(track.drain(stream, snapshot.seq, |event: &pb::GameEvent| {
            Some(event.seq)
        }));
    }
    Ok(Table {
        game_id: snapshot.game_id,
        seq0: snapshot.seq,
        players: [x, o],
        track,
        watchers,
    })
}

/// Plays one table's script until `deadline`; returns its moves, latencies and errors.
async fn play_table(mut table: Table, deadline: Instant, pace: Option<&Pace>) -> Outcome {
    let mut outcome = Outcome::default();
    let mut last_sent = None;
    for (i, cell) in SCRIPT.iter().enumerate() {
        if Instant::now() >= deadline {
            break;
        }
        Pace::wait(pace).await;
        let request = pb::SubmitActionRequest {
            game_id: table.game_id.clone(),
            expected_seq: table.seq0 + i as u64,
            action_id: format!("{}-{i}", table.game_id),
            action: Some(pb::Action::notation(*cell)),
        };
        let sent = Instant::now();
        table.track.sent(i, sent);
        match table.players[i % 2].submit_action(request).await {
            Ok(response) => {
                outcome.submit.push(sent.elapsed());
                outcome.moves += 1;
                outcome.reply_bytes = response.get_ref().encoded_len();
                last_sent = Some(i);
            }
            Err(status) => {
                outcome.errors += 1;
                outcome
                    .first_error
                    .get_or_insert_with(|| format!("{cell}: {status}"));
                break;
            }
        }
    }
    table
        .track
        .finish(&table.game_id, last_sent, &table.watchers, &mut outcome)
        .await;
    outcome
}

/// Plays rounds through the Ludus gateway.
pub async fn run_ludus(args: &PlayArgs, system: &System) -> anyhow::Result<Outcome> {
    let pool = Pool::connect(&system.gateway, args.system.connections).await?;
    let internal = Pool::connect(&system.game_state, 4.min(args.system.connections)).await?;
    let measured = system.measured_pids();
    let next_index = AtomicU64::new(0);
    let mut total = Outcome::default();
    let budget = Duration::from_secs_f64(args.duration);
    for round in 0..args.rounds.max(1) {
        if total.timed >= budget {
            break;
        }
        let setup_started = Instant::now();
        let base = next_index.fetch_add(args.games as u64, Ordering::Relaxed) as usize;
        let tables: Vec<Table> = futures::stream::iter(0..args.games)
            .map(|i| {
                set_table(
                    &pool,
                    &internal,
                    base + i,
                    args.spectators,
                    args.player_streams,
                )
            })
            .buffer_unordered(SETUP_PARALLELISM)
            .try_collect()
            .await?;
        let setup = setup_started.elapsed();
        let pace = Pace::start(args.rate);
        let cpu_before = measure::cpu_time_of(&measured);
        let started = Instant::now();
        let deadline = started + (budget - total.timed);
        let outcomes = futures::future::join_all(
            tables
                .into_iter()
                .map(|t| play_table(t, deadline, pace.as_ref())),
        )
        .await;
        let timed = started.elapsed();
        let cpu = measure::cpu_time_of(&measured).saturating_sub(cpu_before);
        let mut outcome = Outcome {
            timed,
            cpu,
            ..Outcome::default()
        };
        for o in outcomes {
            outcome.add(Outcome {
                timed: Duration::ZERO,
                ..o
            });
        }
        if round < 3 {
            println!(
                "  round {round}: setup {:.1} s, {} moves in {:.2} s = {:.0} moves/s, load {}",
                setup.as_secs_f64(),
                outcome.moves,
                timed.as_secs_f64(),
                outcome.moves_per_second(),
                measure::load_average()
            );
        }
        total.add(outcome);
    }
    Ok(total)
}

/// The same load shape through the floor chain: G concurrent games of 15 sequential commits,
/// each game's events streamed to as many server streams as the Ludus run has.
pub async fn run_floor(
    args: &PlayArgs,
    chain: &floor::FloorChain,
    run_id: &str,
) -> anyhow::Result<Outcome> {
    let pool = Pool::connect(&chain.front, args.system.connections).await?;
    let measured: Vec<u32> = chain.measured.iter().map(|(_, pid)| *pid).collect();
    let budget = Duration::from_secs_f64(args.duration);
    let mut total = Outcome::default();
    for round in 0..args.rounds.max(1) {
        if total.timed >= budget {
            break;
        }
        // Untimed, as the Ludus run's Subscribe calls: every game's streams open first.
        let tables: Vec<(String, Arc<Track>, Vec<tokio::task::JoinHandle<()>>)> =
            futures::stream::iter(0..args.games)
                .map(|g| {
                    let game = format!("{run_id}-{round}-{g}");
                    let pool = &pool;
                    async move {
                        let track = Arc::new(Track::new(args.streams_per_game()));
                        let mut watchers = Vec::new();
                        for s in 0..args.streams_per_game() {
                            let stream = floor::watch(pool.get(g * 3 + 2 + s), &game).await?;
                            watchers.push(track.drain(stream, 0, floor::event_seq));
                        }
                        anyhow::Ok((game, track, watchers))
                    }
                })
                .buffer_unordered(SETUP_PARALLELISM)
                .try_collect()
                .await?;
        let pace = Pace::start(args.rate);
        let cpu_before = measure::cpu_time_of(&measured);
        let started = Instant::now();
        let deadline = started + (budget - total.timed);
        let games = tables
            .into_iter()
            .enumerate()
            .map(|(g, (game, track, watchers))| {
                let mut client = ludus_proto::pb::ratings_client::RatingsClient::new(pool.get(g));
                let pace = pace.as_ref();
                async move {
                    let mut outcome = Outcome::default();
                    let mut last_sent = None;
                    for i in 0..SCRIPT.len() {
                        if Instant::now() >= deadline {
                            break;
                        }
                        Pace::wait(pace).await;
                        let sent = Instant::now();
                        track.sent(i, sent);
                        match floor::commit(&mut client, &game, &format!("{game}-{i}"), i as u64)
                            .await
                        {
                            Ok(()) => {
                                outcome.submit.push(sent.elapsed());
                                outcome.moves += 1;
                                last_sent = Some(i);
                            }
                            Err(status) => {
                                outcome.errors += 1;
                                outcome
                                    .first_error
                                    .get_or_insert_with(|| status.to_string());
                                break;
                            }
                        }
                    }
                    track
                        .finish(&game, last_sent, &watchers, &mut outcome)
                        .await;
                    outcome
                }
            });
        let outcomes = futures::future::join_all(games).await;
        let timed = started.elapsed();
        let mut outcome = Outcome {
            timed,
            cpu: measure::cpu_time_of(&measured).saturating_sub(cpu_before),
            ..Outcome::default()
        };
        for o in outcomes {
            outcome.add(o);
        }
        total.add(outcome);
    }
    Ok(total)
}

/// `loadgen play`.
pub async fn run(args: PlayArgs) -> anyhow::Result<()> {
    println!(
        "play: {} games, {} spectator(s) each, {}, {} s, {} client connection(s)",
        args.games,
        args.spectators,
        if args.rate > 0.0 {
            format!("offered {} moves/s", args.rate)
        } else {
            "closed loop".into()
        },
        args.duration,
        args.system.connections
    );
    let mut ludus = None;
    if !args.floor_only {
        let system = System::start(&args.system).await?;
        println!("system: {}", system.description);
        let outcome = run_ludus(&args, &system).await?;
        if let Some(pid) = system.gateway_pid {
            println!(
                "  gateway RSS {:.1} MiB",
                measure::mib(measure::rss_bytes(pid))
            );
        }
        for (name, pid) in &system.measured {
            println!(
                "  {name}: RSS {:.1} MiB",
                measure::mib(measure::rss_bytes(*pid))
            );
        }
        outcome.print("ludus");
        println!(
            "  reply size {} bytes; load average {}",
            outcome.reply_bytes,
            measure::load_average()
        );
        system.stop().await;
        ludus = Some(outcome);
    }
    if args.floor || args.floor_only {
        let reply = ludus.as_ref().map_or(700, |o| o.reply_bytes.max(1));
        // The all-in-one's floor is one process too: no Redis, no second hop.
        let alone = matches!(args.system.system, crate::system::Where::AllInOne);
        let chain = if alone {
            floor::FloorChain::start_alone(reply, args.floor_nagle)?
        } else {
            floor::FloorChain::start(reply, args.floor_nagle)?
        };
        tokio::time::sleep(floor::WARM_UP).await;
        let run_id = format!("{}", std::process::id());
        let outcome = run_floor(&args, &chain, &run_id).await?;
        outcome.print(if args.floor_nagle {
            "floor (Nagle on)"
        } else {
            "floor"
        });
        println!("  load average {}", measure::load_average());
        if let Some(ludus) = &ludus {
            println!(
                "ratio: ludus/floor moves/s = {:.2}; floor/ludus CPU per move = {:.2} ({:.0} vs {:.0} µs); p99 submit {:.2} vs {:.2} ms",
                ludus.moves_per_second() / outcome.moves_per_second().max(f64::EPSILON),
                outcome.cpu_per_move_us() / ludus.cpu_per_move_us().max(f64::EPSILON),
                ludus.cpu_per_move_us(),
                outcome.cpu_per_move_us(),
                ludus.submit.quantile_ms(0.99),
                outcome.submit.quantile_ms(0.99),
            );
        }
    }
    Ok(())
}
