//! `loadgen streams`: N open `Subscribe` streams on one gateway process: its resident memory
//! per stream (RSS after opening them minus RSS before, over N), then one event's fan-out
//! latency to the F subscribers of one game (from `SubmitAction` sent to the event received by
//! the last of them).
//!
//! The subscribers run in this process, on the gateway's cores: by default they decode only
//! each event's `seq` (`--decode seq`), as a client that hands the rest to its own device's
//! work would. Decoding every event whole (`--decode full`) in a thousand streams took half of
//! the machine's CPU during the fan-out, more than the gateway: the latency then measured this
//! process's decoding as much as the gateway's fan-out (BENCHMARKS.md, "Fan-out: the
//! subscribers' share").

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use bytes::Bytes;
use futures::{StreamExt as _, TryStreamExt as _};
use ludus_proto::pb;
use prost::Message as _;
use tokio::sync::Notify;
use tonic::{Streaming, transport::Channel};

use crate::{
    measure::{self, Latencies},
    play::SCRIPT,
    system::{self, Client, Pool, System},
};

/// Subscribe streams one player may hold on one gateway (the gateway's per-player cap).
const STREAMS_PER_PLAYER: usize = 16;
const SETUP_PARALLELISM: usize = 64;

/// Flags of `loadgen streams`.
#[derive(Debug, Clone, clap::Args)]
pub struct StreamsArgs {
    /// Subscribe streams to open on the gateway.
    #[arg(long, default_value_t = 10_000)]
    pub streams: usize,
    /// Games the streams watch (the fan-out games included).
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Subscribers of each fan-out game (part of --streams).
    #[arg(long, default_value_t = 1000)]
    pub fanout: usize,
    /// Fan-out games, played one after the other (15 moves each: one latency sample per move).
    #[arg(long, default_value_t = 4)]
    pub fanout_games: usize,
    /// Client connections to the gateway.
    #[arg(long, default_value_t = 64)]
    pub connections: usize,
    /// Directory holding the service binaries (default: next to this binary).
    #[arg(long)]
    pub bin_dir: Option<std::path::PathBuf>,
    /// What the subscribers decode of each event (see the module).
    #[arg(long, value_enum, default_value_t = Decode::Seq)]
    pub decode: Decode,
}

/// What a subscriber of this benchmark decodes of each event it receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Decode {
    /// `GameEvent.seq` only; every other field is skipped by its length.
    Seq,
    /// The whole `GameEvent` (its board view included).
    Full,
}

/// `GameEvent` as a subscriber that reads only its position in the log sees it: prost skips
/// the fields this message does not name.
#[derive(Clone, PartialEq, prost::Message)]
struct EventSeq {
    /// `GameEvent.seq`.
    #[prost(uint64, tag = "2")]
    seq: u64,
}

/// A spectator: the connection it uses and the `authorization` of its calls.
#[derive(Clone)]
struct Viewer {
    channel: Channel,
    authorization: String,
}

/// An open `Subscribe` stream, read as `--decode` says.
enum EventStream {
    Seq(Streaming<Bytes>),
    Full(Streaming<pb::GameEvent>),
}

impl EventStream {
    async fn open(
        viewer: Viewer,
        request: pb::SubscribeRequest,
        decode: Decode,
    ) -> Result<Self, tonic::Status> {
        match decode {
            Decode::Seq => ludus_tests::raw::server_streaming(
                viewer.channel,
                "/ludus.v1.Gateway/Subscribe",
                Bytes::from(request.encode_to_vec()),
                Some(&viewer.authorization),
            )
            .await
            .map(EventStream::Seq),
            Decode::Full => {
                let bearer = viewer
                    .authorization
                    .parse()
                    .map_err(|_| tonic::Status::internal("authorization is not a header value"))?;
                pb::gateway_client::GatewayClient::with_interceptor(
                    viewer.channel,
                    ludus_tests::Bearer::new(bearer),
                )
                .subscribe(request)
                .await
                .map(|r| EventStream::Full(r.into_inner()))
            }
        }
    }

    /// The seq of the next event; `None` when the stream ended or failed (or sent bytes that
    /// are no `GameEvent`).
    async fn next_seq(&mut self) -> Option<u64> {
        match self {
            EventStream::Seq(stream) => match stream.next().await? {
                Ok(bytes) => EventSeq::decode(bytes).ok().map(|e| e.seq),
                Err(_) => None,
            },
            EventStream::Full(stream) => stream.next().await?.ok().map(|e| e.seq),
        }
    }
}

struct Game {
    game_id: String,
    seq0: u64,
    players: [Client; 2],
}

async fn new_game(pool: &Pool, internal: &Pool, index: usize) -> anyhow::Result<Game> {
    let (x_id, x) = system::sign_in(pool.get(index), &format!("x{index}")).await?;
    let (o_id, o) = system::sign_in(pool.get(index + 1), &format!("o{index}")).await?;
    let game = pb::game_state_client::GameStateClient::new(internal.internal(index))
        .create_game(pb::CreateGameRequest {
            game_id: String::new(),
            settings: Some(pb::GameSettings {
                turn_time_ms: 60_000,
                ..ludus_tests::caro_settings()
            }),
            players: vec![
                pb::PlayerRef {
                    player_id: x_id,
                    display_name: format!("x{index}"),
                    computer_level: String::new(),
                },
                pb::PlayerRef {
                    player_id: o_id,
                    display_name: format!("o{index}"),
                    computer_level: String::new(),
                },
            ],
            // Rated, as the games measured before accounts existed (a report per game).
            casual: false,
            room_code: String::new(),
        })
        .await?
        .into_inner()
        .game
        .ok_or_else(|| anyhow::anyhow!("no snapshot"))?;
    Ok(Game {
        game_id: game.game_id,
        seq0: game.seq,
        players: [x, o],
    })
}

pub async fn run(args: StreamsArgs) -> anyhow::Result<()> {
    let bin_dir = match &args.bin_dir {
        Some(dir) => dir.clone(),
        None => system::default_bin_dir()?,
    };
    let system = System::start_processes(&bin_dir, 1, 1, true)?;
    let gateway_pid = system
        .gateway_pid
        .ok_or_else(|| anyhow::anyhow!("no gateway process"))?;
    let pool = Pool::connect(&system.gateway, args.connections).await?;
    let internal = Pool::connect(&system.game_state, 4).await?;
    let games: Vec<Game> = futures::stream::iter(0..args.games.max(args.fanout_games))
        .map(|i| new_game(&pool, &internal, i * 2))
        .buffered(SETUP_PARALLELISM)
        .try_collect()
        .await?;
    let viewers: Vec<Viewer> = futures::stream::iter(0..args.streams.div_ceil(STREAMS_PER_PLAYER))
        .map(|i| {
            let channel = pool.get(i);
            async move {
                system::sign_in_authorization(channel.clone(), &format!("viewer{i}"))
                    .await
                    .map(|(_, authorization)| Viewer {
                        channel,
                        authorization,
                    })
            }
        })
        .buffered(SETUP_PARALLELISM)
        .try_collect()
        .await?;
    // Let the sign-ins' garbage settle before the baseline.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = measure::rss_bytes(gateway_pid);

    // Stream i watches a fan-out game while those need subscribers, then the others in turn.
    let fanout_streams = (args.fanout * args.fanout_games).min(args.streams);
    let other_games = games.len().saturating_sub(args.fanout_games).max(1);
    let game_of = |i: usize| {
        if i < fanout_streams {
            i / args.fanout.max(1)
        } else {
            (args.fanout_games + (i - fanout_streams) % other_games) % games.len()
        }
    };
    let opened = Instant::now();
    let streams: Vec<(usize, EventStream)> = futures::stream::iter(0..args.streams)
        .map(|i| {
            let viewer = viewers[i / STREAMS_PER_PLAYER].clone();
            let game = &games[game_of(i)];
            let request = pb::SubscribeRequest {
                game_id: game.game_id.clone(),
                after_seq: game.seq0,
            };
            let decode = args.decode;
            async move {
                EventStream::open(viewer, request, decode)
                    .await
                    .map(|stream| (game_of(i), stream))
                    .map_err(|s| anyhow::anyhow!("subscribe #{i}: {s}"))
            }
        })
        .buffered(SETUP_PARALLELISM)
        .try_collect()
        .await?;
    let open_time = opened.elapsed();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let after = measure::rss_bytes(gateway_pid);
    let per_stream = after.saturating_sub(before) as f64 / args.streams.max(1) as f64;
    println!(
        "streams: {} open on one gateway (opened in {:.1} s over {} connections): RSS {:.1} -> {:.1} MiB, {:.0} bytes ({:.1} KiB) per stream; load {}",
        args.streams,
        open_time.as_secs_f64(),
        pool.len(),
        measure::mib(before),
        measure::mib(after),
        per_stream,
        per_stream / 1024.0,
        measure::load_average()
    );

    // Fan-out: read the fan-out games' streams, hold the rest.
    let mut held = Vec::new();
    let seen: Vec<Arc<[AtomicUsize; SCRIPT.len()]>> = (0..args.fanout_games)
        .map(|_| Arc::new(std::array::from_fn(|_| AtomicUsize::new(0))))
        .collect();
    let progress = Arc::new(Notify::new());
    let mut readers = Vec::new();
    let mut subscribers = vec![0usize; args.fanout_games];
    for (game, mut stream) in streams {
        if game < args.fanout_games {
            subscribers[game] += 1;
            let (seen, progress, seq0) = (seen[game].clone(), progress.clone(), games[game].seq0);
            readers.push(tokio::spawn(async move {
                while let Some(seq) = stream.next_seq().await {
                    if let Some(i) = seq.checked_sub(seq0 + 1)
                        && let Some(counter) = seen.get(usize::try_from(i).unwrap_or(usize::MAX))
                    {
                        counter.fetch_add(1, Ordering::AcqRel);
                        progress.notify_waiters();
                    }
                }
            }));
        } else {
            held.push(stream);
        }
    }
    let mut fanout = Latencies::default();
    let cpu_before = measure::cpu_time_of(&system.measured_pids());
    let own_cpu_before = measure::cpu_time_of(&[std::process::id()]);
    let mut moves = 0u64;
    for (g, game) in games.iter().take(args.fanout_games).enumerate() {
        let mut players = game.players.clone();
        for (i, cell) in SCRIPT.iter().enumerate() {
            let sent = Instant::now();
            let wait = async {
                loop {
                    let notified = progress.notified();
                    if seen[g][i].load(Ordering::Acquire) >= subscribers[g] {
                        return;
                    }
                    notified.await;
                }
            };
            let submit = players[i % 2].submit_action(pb::SubmitActionRequest {
                game_id: game.game_id.clone(),
                expected_seq: game.seq0 + i as u64,
                action_id: format!("{}-{i}", game.game_id),
                action: Some(pb::Action::notation(*cell)),
            });
            let (submitted, waited) =
                tokio::join!(submit, tokio::time::timeout(Duration::from_secs(30), wait));
            submitted.map_err(|s| anyhow::anyhow!("{cell}: {s}"))?;
            anyhow::ensure!(
                waited.is_ok(),
                "move {i} of fan-out game {g} reached every subscriber"
            );
            fanout.push(sent.elapsed());
            moves += 1;
        }
    }
    let cpu = measure::cpu_time_of(&system.measured_pids()).saturating_sub(cpu_before);
    let own_cpu = measure::cpu_time_of(&[std::process::id()]).saturating_sub(own_cpu_before);
    let per_event = |cpu: Duration| cpu.as_secs_f64() * 1e6 / moves.max(1) as f64;
    println!(
        "fan-out: one event to {} subscribers of one game: {} ({} moves, CPU {:.0} µs per event fanned out; the subscribers, decoding {}: {:.0} µs); load {}",
        args.fanout,
        fanout.summary(),
        moves,
        per_event(cpu),
        match args.decode {
            Decode::Seq => "the seq",
            Decode::Full => "every event whole",
        },
        per_event(own_cpu),
        measure::load_average()
    );
    for reader in readers {
        reader.abort();
    }
    drop(held);
    system.stop().await;
    Ok(())
}
