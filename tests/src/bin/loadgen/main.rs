//! The benchmark tool: load on a real Ludus system on loopback, measured the same way every
//! time, next to a floor of the same shape.
//!
//! - `loadgen play`: G concurrent Caro games with S spectators each, closed loop or a fixed
//!   offered rate, for a bounded time; moves/s, submit and submit→last-subscriber latency
//!   percentiles, CPU per move of the server processes and redis-server, RSS. `--floor` runs
//!   the same load through a bare tonic chain plus one `EVALSHA` and prints the ratio.
//!   `--system processes` runs the real service binaries as child processes;
//!   `--gateway URL --game-state URL` drives a system already running.
//! - `loadgen streams`: N open `Subscribe` streams on one gateway process: RSS per stream and
//!   one event's fan-out latency to F subscribers of one game.
//! - `loadgen matchmaking`: T guests quick-matching through R matchmaking replicas: tickets/s,
//!   CPU per ticket by process, and a double-match check.
//! - `loadgen ends`: E games ending within one second while other games keep moving: those
//!   moves' submit latency before and from the burst on.
//!
//! Loopback only; every loop is bounded (by rounds, a duration or a patience).
//!
//! `cargo build --release -p ludus-tests --bin loadgen -p ludus-gateway -p ludus-game-state
//! -p ludus-timers -p ludus-ratings -p ludus-matchmaking`, then
//! `target/release/loadgen play --games 32 --floor`.
#![forbid(unsafe_code)]

mod ends;
mod floor;
mod matchmaking;
mod play;
mod streams;
mod system;

use clap::{Parser, Subcommand};
use ludus_tests::measure;

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

#[derive(Debug, Parser)]
#[command(name = "loadgen", about = "Ludus benchmarks on loopback")]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Debug, Subcommand)]
enum Mode {
    /// Concurrent games through the gateway (and the floor with --floor).
    Play(play::PlayArgs),
    /// Open Subscribe streams: memory per stream and fan-out latency.
    Streams(streams::StreamsArgs),
    /// Quick-match tickets through several matchmaking replicas.
    Matchmaking(matchmaking::MatchmakingArgs),
    /// Many games ending at once amid other games' moves.
    Ends(ends::EndsArgs),
    /// One server of the floor chain (started by `play --floor`).
    #[command(hide = true)]
    FloorServe(floor::FloorServeArgs),
    /// The all-in-one as a child process (started by `play --system all-in-one`).
    #[command(hide = true)]
    AllInOneServe(system::AllInOneServeArgs),
}

fn main() -> anyhow::Result<()> {
    let mode = Cli::parse().mode;
    // The servers it starts run on the runtime every Ludus binary runs on (the floor's too:
    // the same parts); the load itself on tokio's default one.
    let runtime = match mode {
        Mode::FloorServe(_) | Mode::AllInOneServe(_) => ludus_server::runtime()?,
        _ => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?,
    };
    runtime.block_on(run(mode))
}

async fn run(mode: Mode) -> anyhow::Result<()> {
    match mode {
        Mode::Play(args) => play::run(args).await,
        Mode::Streams(args) => streams::run(args).await,
        Mode::Matchmaking(args) => matchmaking::run(args).await,
        Mode::Ends(args) => ends::run(args).await,
        Mode::FloorServe(args) => floor::serve(args).await,
        Mode::AllInOneServe(args) => system::serve_all_in_one(args).await,
    }
}
