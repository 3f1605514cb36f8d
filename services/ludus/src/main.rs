//! `ludus`: the all-in-one binary and the terminal client.
//!
//! `ludus` (or `ludus serve`) starts every Ludus service in one process, each on its own
//! loopback port talking gRPC to the others exactly as in a cluster, with the in-memory
//! store unless `--redis-url` is given. The gateway listens on `--listen`.
//! `ludus play` and `ludus watch` are the terminal client (the `ludus-terminal` crate, in
//! `clients/terminal`).
#![forbid(unsafe_code)]

mod serve;
mod web;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "ludus",
    version,
    about = "Ludus: online turn-based board games"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run every service in one process (the default).
    Serve(serve::ServeArgs),
    /// Sign in, quick-match and play a game (Caro by default) in the terminal.
    Play(ludus_terminal::PlayArgs),
    /// Watch a live game as a spectator.
    Watch(ludus_terminal::WatchArgs),
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        None => serve::serve(serve::ServeArgs::parse_from(["ludus"])).await,
        Some(Command::Serve(args)) => serve::serve(args).await,
        Some(Command::Play(args)) => ludus_terminal::play(args).await,
        Some(Command::Watch(args)) => ludus_terminal::watch(args).await,
    }
}
