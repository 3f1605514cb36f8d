//! `ludus`: the all-in-one binary and the terminal client.
//!
//! `ludus` (or `ludus serve`) starts every Ludus service in one process, each on its own
//! loopback port talking gRPC to the others exactly as in a cluster, with the in-memory
//! store unless `--redis-url` is given. The gateway listens on `--listen`.
//! `ludus play`, `ludus watch`, `ludus room` and the account commands (`register`, `login`, `logout`,
//! `history`, `profile`) are the terminal client (the `ludus-terminal` crate, in
//! `clients/terminal`).
#![forbid(unsafe_code)]

mod serve;
mod web;

use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};

/// mimalloc (see `ludus_server::Allocator`).
#[global_allocator]
static ALLOCATOR: ludus_server::Allocator = ludus_server::Allocator;

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
    Serve(Box<serve::ServeArgs>),
    /// Sign in, quick-match and play a game (Caro by default) in the terminal.
    Play(ludus_terminal::PlayArgs),
    /// Watch a live game as a spectator.
    Watch(ludus_terminal::WatchArgs),
    /// Friend rooms: create one (an account), join one by its code, or list the public ones.
    Room(ludus_terminal::RoomArgs),
    /// Create an account (the password is read without echo, or from standard input) and
    /// stay signed in.
    Register(ludus_terminal::account::RegisterArgs),
    /// Sign in; `play`, `watch`, `history` and `profile` then use the account.
    Login(ludus_terminal::account::LoginArgs),
    /// Sign out and forget the saved session.
    Logout,
    /// Your finished games, newest first (`--game ID` prints one game's moves).
    History(ludus_terminal::account::HistoryArgs),
    /// A player's profile: name, results, ratings.
    Profile(ludus_terminal::account::ProfileArgs),
}

fn main() -> anyhow::Result<()> {
    // The terminal client's words (and its `--help`) in the player's language: `--lang`,
    // else the locale.
    let matches = ludus_terminal::localized(Cli::command()).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    ludus_server::runtime()?.block_on(run(cli))
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None => serve::serve(serve::ServeArgs::parse_from(["ludus"])).await,
        Some(Command::Serve(args)) => serve::serve(*args).await,
        Some(Command::Play(args)) => ludus_terminal::play(args).await,
        Some(Command::Watch(args)) => ludus_terminal::watch(args).await,
        Some(Command::Room(args)) => ludus_terminal::room(args).await,
        Some(Command::Register(args)) => ludus_terminal::account::register(args).await,
        Some(Command::Login(args)) => ludus_terminal::account::login(args).await,
        Some(Command::Logout) => ludus_terminal::account::logout().await,
        Some(Command::History(args)) => ludus_terminal::account::history(args).await,
        Some(Command::Profile(args)) => ludus_terminal::account::profile(args).await,
    }
}
