//! The terminal client: `ludus play` finds a Caro quick match and plays it from the keyboard;
//! `ludus watch` follows a live game as a spectator. Both talk only to the public `Gateway`.
//!
//! # Layout
//! - [`PlayArgs`], [`WatchArgs`], [`play`], [`watch`]: what `main.rs` calls.
//! - `session`: connect, guest sign-in, the bearer token on every call, the resumable event
//!   stream.
//! - `table`: the game as last seen, updated from the snapshot and each event.
//! - `render`: pure text rendering (board in C1 notation, clock, move list, outcome).
//! - `input`: parsing typed commands; reading stdin on a thread that cannot hang shutdown.
//! - `play`, `watch`: the two loops.
//!
//! Nothing from the network is trusted to be well formed: a malformed view renders as a
//! note, never a panic.

mod input;
mod play;
mod render;
mod session;
mod table;
mod watch;

use std::io::{IsTerminal as _, Write as _};

/// The default Gateway address (the all-in-one binary listens here).
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:50051";

/// `ludus play`: quick-match a Caro game and play it in the terminal.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// The Gateway address.
    #[arg(long, env = "LUDUS_SERVER", default_value = DEFAULT_SERVER)]
    pub server: String,
    /// Your display name (1 to 32 characters).
    #[arg(long)]
    pub name: String,
    /// Board side: 15 or 19 (C1).
    #[arg(long, default_value_t = 15, value_parser = parse_size)]
    pub size: u32,
    /// Free rules: a five blocked at both ends also wins (turns the C5 blocked-ends rule off).
    #[arg(long)]
    pub free: bool,
    /// Only a run of exactly five wins (C5 exactly-five rule on).
    #[arg(long)]
    pub exactly_five: bool,
}

/// `ludus watch`: follow a live game as a spectator.
#[derive(clap::Args, Debug)]
pub struct WatchArgs {
    /// The Gateway address.
    #[arg(long, env = "LUDUS_SERVER", default_value = DEFAULT_SERVER)]
    pub server: String,
    /// The display name to sign in with.
    #[arg(long, default_value = "spectator")]
    pub name: String,
    /// The game to watch; without it, the live games are listed and the newest is watched.
    pub game_id: Option<String>,
    /// Start from the events after this seq (0 replays the whole game).
    #[arg(long, default_value_t = 0)]
    pub from: u64,
}

/// Signs in as a guest, waits for a quick match, and plays it; returns when the game is over
/// or the player quits.
pub async fn play(args: PlayArgs) -> anyhow::Result<()> {
    play::run(args).await
}

/// Signs in as a guest and follows one live game to its end.
pub async fn watch(args: WatchArgs) -> anyhow::Result<()> {
    watch::run(args).await
}

/// Board sides Caro is played on (C1).
fn parse_size(text: &str) -> Result<u32, String> {
    match text.trim() {
        "15" => Ok(15),
        "19" => Ok(19),
        _ => Err("the board is 15 or 19".to_owned()),
    }
}

/// Clears the terminal before a redraw; when the output is a file or a pipe, boards simply
/// follow each other, which keeps logs readable.
fn clear_screen() {
    if std::io::stdout().is_terminal() {
        print!("\x1b[H\x1b[2J");
    }
}

/// Shows a prompt that does not end in a newline.
fn flush() {
    // A failed flush of the terminal leaves nothing useful to do.
    let _ = std::io::stdout().flush();
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(clap::Parser, Debug)]
    enum Cli {
        Play(PlayArgs),
        Watch(WatchArgs),
    }

    #[test]
    fn play_defaults_to_15_with_blocked_ends() {
        let Ok(Cli::Play(args)) = Cli::try_parse_from(["ludus", "play", "--name", "ann"]) else {
            panic!("play did not parse");
        };
        assert_eq!(args.size, 15);
        assert!(!args.free && !args.exactly_five);
        assert!(Cli::try_parse_from(["ludus", "play", "--name", "a", "--size", "17"]).is_err());
        assert!(
            Cli::try_parse_from(["ludus", "play"]).is_err(),
            "name is required"
        );
    }

    #[test]
    fn watch_takes_an_optional_game() {
        let Ok(Cli::Watch(args)) = Cli::try_parse_from(["ludus", "watch", "g1", "--from", "3"])
        else {
            panic!("watch did not parse");
        };
        assert_eq!(args.game_id.as_deref(), Some("g1"));
        assert_eq!(args.from, 3);
        assert_eq!(args.name, "spectator");
    }
}
