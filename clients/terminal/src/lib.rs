//! The terminal client: `ludus play` finds a quick match (Caro by default; Mancala, Quoridor,
//! Backgammon or Flip Junqi with `--game`) and plays it from the keyboard; `ludus watch`
//! follows a live game of any of them as a spectator; `ludus room create|join|list` opens or
//! joins a friend room by its code and stays in it, playing or watching its games;
//! `ludus register`, `login`, `logout`, `history` and `profile` are the account commands. All
//! talk only to the public `Gateway`.
//!
//! A library so the all-in-one `ludus` binary (which depends on it) offers it as
//! `ludus play` / `ludus watch` / ...; it needs nothing of the server but the gRPC contract.
//!
//! # Layout
//! - [`PlayArgs`], [`WatchArgs`], [`RoomArgs`], [`play`], [`watch`], [`room()`]: what the
//!   `ludus` binary's `main.rs` calls; [`GameFlags`] the game and its options, shared by
//!   `play` and `room create`; [`account`] the account commands' arguments and entry points.
//! - [`saved_session`]: the signed-in account kept in a 0600 file between runs, and the only
//!   code that handles its tokens (refresh and rotation, sign-out).
//! - `session`: connect, guest sign-in, the bearer token on every call, and the resumable
//!   event streams (`Resumable` over a game's `Subscribe` or a room's `SubscribeRoom`).
//! - `table`: the game as last seen, updated from the snapshot and each event.
//! - `render`: pure text rendering (the frame, clock, outcome, event lines, and the Caro board
//!   in C1 notation); `render/{mancala,quoridor,backgammon,junqi}.rs` draw the other boards.
//! - `input`: parsing typed commands (per game: the move notation differs); reading stdin on a
//!   thread that cannot hang shutdown.
//! - `play`, `watch`: the two game loops.
//! - [`mod@room`]: the room commands and the room loop (the room's stream on a task of its own,
//!   typed room commands, the room's games through the play loop or a watch loop);
//!   `room/command.rs` parses room lines, codes and `set`, `room/render.rs` the room's text.
//! - `i18n`: every message in English and Vietnamese, and the language chosen ([`set_lang`],
//!   `--lang`, the `lang` command, the locale); `cli`: [`localized`], the command line with
//!   `--lang` and its help in Vietnamese, which `main.rs` parses with.
//! - [`Screen`]: where a loop's text goes (stdout, or any writer: [`room::run_with`] takes
//!   typed lines from a channel and writes to one, which is how the tests drive it).
//!
//! Nothing from the network is trusted to be well formed: a malformed view renders as a
//! note, never a panic.
#![forbid(unsafe_code)]

pub mod account;
mod cli;
mod i18n;
mod input;
mod play;
mod render;
pub mod room;
pub mod saved_session;
mod screen;
mod session;
mod table;
mod watch;

pub use cli::{localized, localized_in};
pub use i18n::{Lang, set_lang};
pub use room::RoomArgs;
pub use screen::Screen;
pub use session::{Client, Session, get_game};

use std::io::{IsTerminal as _, Write as _};

use ludus_proto::pb;

/// The default Gateway address (the all-in-one binary listens here).
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:50051";

/// The games `ludus play` can queue for.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GameChoice {
    /// Caro (gomoku), 15x15 or 19x19.
    #[default]
    Caro,
    /// Mancala: Kalah or Congklak.
    Mancala,
    /// Quoridor, 9x9, 11x11 or 13x13 (two players in a quick match, 2 to 8 in a room).
    Quoridor,
    /// Backgammon, a money game (or a match with `--match-length`).
    Backgammon,
    /// Flip Junqi.
    Junqi,
}

/// Mancala rule sets (M12).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RuleSetChoice {
    /// 6 pits of 4 seeds, counterclockwise.
    #[default]
    Kalah,
    /// 7 pits of 7 seeds, clockwise, relay sowing.
    Congklak,
}

/// The `--server` flag of every command that talks to a gateway (`ludus room` has its own,
/// global to its subcommands).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ServerFlag {
    /// The Gateway address (default: the saved session's, else the local server).
    #[arg(long = "server", env = "LUDUS_SERVER")]
    pub address: Option<String>,
}

impl ServerFlag {
    /// The address given, if any.
    pub fn address(&self) -> Option<&str> {
        self.address.as_deref()
    }
}

/// `ludus play`: quick-match a game and play it in the terminal.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub server: ServerFlag,
    /// Your display name as a guest (1 to 32 characters); not needed once signed in with
    /// `ludus login`, whose account plays (rated).
    #[arg(long)]
    pub name: Option<String>,
    /// Play as a guest (casual) even when signed in.
    #[arg(long, requires = "name")]
    pub guest: bool,
    /// The game and its options.
    #[command(flatten)]
    pub game: GameFlags,
    /// Play against the computer at this level instead of quick-matching: easy, normal or
    /// hard (also the seeds' medium, beginner, expert). Starts at once, unrated; `undo` takes
    /// a move back in Caro (Easy, Medium) and Mancala.
    #[arg(long, value_name = "LEVEL")]
    pub computer: Option<String>,
}

impl PlayArgs {
    /// The quick-match settings for the chosen game (see [`GameFlags::settings`]).
    pub fn settings(&self) -> anyhow::Result<pb::GameSettings> {
        self.game.settings(Where::QuickMatch)
    }
}

/// The game and its options, as `ludus play` and `ludus room create` take them.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct GameFlags {
    /// The game to play.
    #[arg(long, value_enum, default_value_t = GameChoice::Caro)]
    pub game: GameChoice,
    /// Board side: 15 (default) or 19 for Caro (C1); 9 (default), 11 or 13 for Quoridor (Q26).
    #[arg(long, value_parser = parse_size)]
    pub size: Option<u32>,
    /// Caro free rules: a five blocked at both ends also wins (turns the C5 blocked-ends rule
    /// off).
    #[arg(long)]
    pub free: bool,
    /// Caro: only a run of exactly five wins (C5 exactly-five rule on).
    #[arg(long)]
    pub exactly_five: bool,
    /// Mancala: the rule set.
    #[arg(long, value_enum)]
    pub rule_set: Option<RuleSetChoice>,
    /// Seconds per turn. Quick match: Quoridor 15 to 90 (Q28), Backgammon 30, 60, 90 or 120
    /// (B20). A room also: Caro 0 (untimed), 30, 60 or 120 (C12), 0 untimed in Backgammon.
    /// Without it the server's default clock (in a Caro room: untimed).
    #[arg(long)]
    pub turn_seconds: Option<u32>,
    /// Backgammon: equal opening rolls double the stake (B17).
    #[arg(long)]
    pub automatic_doubles: bool,
    /// Backgammon: a doubled player may beaver (B18).
    #[arg(long)]
    pub beavers: bool,
    /// Backgammon: the Jacoby rule (B19).
    #[arg(long)]
    pub jacoby: bool,
    /// Backgammon: play a match to this many points (1, 3, 5, 7, 11, 15 or 21; B22) instead
    /// of a money game.
    #[arg(long)]
    pub match_length: Option<u32>,
}

/// Where settings are for: a friend room lets the host choose clocks a quick match fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    /// `ludus play`.
    QuickMatch,
    /// `ludus room create`.
    Room,
}

impl GameFlags {
    /// The settings for the chosen game. Flags of another game are refused rather than
    /// silently ignored, so nobody queues for (or opens a room of) something they did not
    /// mean. The values are the server's to judge; it names the rule.
    pub fn settings(&self, place: Where) -> anyhow::Result<pb::GameSettings> {
        use pb::game_settings::Options;
        let caro_only = self.free || self.exactly_five;
        let backgammon_only =
            self.automatic_doubles || self.beavers || self.jacoby || self.match_length.is_some();
        // Quick matches use the server's Caro, Mancala and Junqi clocks (C12, M10, J19); a
        // room's host picks Caro's (C12), and the server names M10 and J19 for the others.
        let fixed_clock = place == Where::QuickMatch && self.turn_seconds.is_some();
        let misplaced = match self.game {
            GameChoice::Caro => (backgammon_only || self.rule_set.is_some() || fixed_clock)
                .then_some("options.notForCaro"),
            GameChoice::Mancala => {
                (caro_only || backgammon_only || self.size.is_some() || fixed_clock)
                    .then_some("options.notForMancala")
            }
            GameChoice::Quoridor => (caro_only || backgammon_only || self.rule_set.is_some())
                .then_some("options.notForQuoridor"),
            GameChoice::Backgammon => (caro_only || self.size.is_some() || self.rule_set.is_some())
                .then_some("options.notForBackgammon"),
            GameChoice::Junqi => (caro_only
                || backgammon_only
                || self.size.is_some()
                || self.rule_set.is_some()
                || fixed_clock)
                .then_some("options.notForJunqi"),
        };
        if let Some(key) = misplaced {
            anyhow::bail!(i18n::tr(key));
        }
        let turn_time_ms = u64::from(self.turn_seconds.unwrap_or(0)) * 1000;
        let options = match self.game {
            GameChoice::Caro => {
                let size = self.size.unwrap_or(15);
                if size != 15 && size != 19 {
                    anyhow::bail!(i18n::trf("options.caroSize", &[("size", &size)]));
                }
                Options::Caro(pb::CaroOptions {
                    board_size: size,
                    blocked_ends_off: self.free,
                    exactly_five: self.exactly_five,
                })
            }
            GameChoice::Mancala => Options::Mancala(pb::MancalaOptions {
                rule_set: match self.rule_set.unwrap_or_default() {
                    RuleSetChoice::Kalah => pb::MancalaRuleSet::Kalah,
                    RuleSetChoice::Congklak => pb::MancalaRuleSet::Congklak,
                } as i32,
                // Quick matches and rooms draw who sows first (M3).
                first_player: pb::MancalaFirstPlayer::Random as i32,
            }),
            GameChoice::Quoridor => {
                let size = self.size.unwrap_or(9);
                if ![9, 11, 13].contains(&size) {
                    anyhow::bail!(i18n::trf("options.quoridorSize", &[("size", &size)]));
                }
                Options::Quoridor(pb::QuoridorOptions {
                    mode: pb::QuoridorMode::FreeForAll as i32,
                    goal: pb::QuoridorGoal::Opposite as i32,
                    size,
                    players: 2,
                    ..Default::default()
                })
            }
            GameChoice::Backgammon => Options::Backgammon(pb::BackgammonOptions {
                automatic_doubles: self.automatic_doubles,
                automatic_double_limit: 0,
                beavers: self.beavers,
                jacoby: self.jacoby,
                match_game: self.match_length.map(|length| pb::BackgammonMatchGame {
                    length,
                    score: vec![0, 0],
                    crawford: false,
                }),
            }),
            GameChoice::Junqi => Options::Junqi(pb::JunqiOptions {}),
        };
        Ok(pb::GameSettings {
            options: Some(options),
            // The server's clock unless the game lets players choose one (C12 in rooms, Q28,
            // B20); the server checks the value.
            turn_time_ms,
        })
    }
}

impl GameChoice {
    /// The game `settings` are for (`None` for settings naming no game).
    pub fn of(settings: Option<&pb::GameSettings>) -> Option<GameChoice> {
        use pb::game_settings::Options;
        Some(match settings?.options.as_ref()? {
            Options::Caro(_) => GameChoice::Caro,
            Options::Mancala(_) => GameChoice::Mancala,
            Options::Quoridor(_) => GameChoice::Quoridor,
            Options::Backgammon(_) => GameChoice::Backgammon,
            Options::Junqi(_) => GameChoice::Junqi,
        })
    }
}

/// `ludus watch`: follow a live game as a spectator.
#[derive(clap::Args, Debug)]
pub struct WatchArgs {
    #[command(flatten)]
    pub server: ServerFlag,
    /// The guest name to watch under when not signed in (or with `--guest`).
    #[arg(long, default_value = "spectator")]
    pub name: String,
    /// Watch as a guest even when signed in.
    #[arg(long)]
    pub guest: bool,
    /// The game to watch; without it, the live games are listed and the newest is watched.
    pub game_id: Option<String>,
    /// Start from the events after this seq (0 replays the whole game).
    #[arg(long, default_value_t = 0)]
    pub from: u64,
}

/// Signs in (the saved account, else a guest), waits for a quick match, and plays it; returns
/// when the game is over or the player quits.
pub async fn play(args: PlayArgs) -> anyhow::Result<()> {
    play::run(args).await
}

/// Signs in (the saved account, else a guest) and follows one live game to its end.
pub async fn watch(args: WatchArgs) -> anyhow::Result<()> {
    watch::run(args).await
}

/// `ludus room create|join|list`: friend rooms, staying in the room until the member leaves.
pub async fn room(args: RoomArgs) -> anyhow::Result<()> {
    room::run(args).await
}

/// Board sides: Caro is played on 15 or 19 (C1), Quoridor on 9, 11 or 13 (Q26); which fits
/// the game is checked with the game in [`PlayArgs::settings`].
fn parse_size(text: &str) -> Result<u32, String> {
    match text.trim() {
        "15" => Ok(15),
        "19" => Ok(19),
        "9" => Ok(9),
        "11" => Ok(11),
        "13" => Ok(13),
        _ => Err(i18n::tr("options.boardSize").to_owned()),
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
        Register(account::RegisterArgs),
        Login(account::LoginArgs),
        History(account::HistoryArgs),
        Profile(account::ProfileArgs),
    }

    #[test]
    fn play_defaults_to_15_with_blocked_ends() {
        let Ok(Cli::Play(args)) = Cli::try_parse_from(["ludus", "play", "--name", "ann"]) else {
            panic!("play did not parse");
        };
        assert_eq!(args.game.game, GameChoice::Caro);
        let settings = args.settings().ok();
        assert_eq!(
            settings.and_then(|s| s.options),
            Some(pb::game_settings::Options::Caro(pb::CaroOptions {
                board_size: 15,
                blocked_ends_off: false,
                exactly_five: false,
            }))
        );
        assert!(Cli::try_parse_from(["ludus", "play", "--name", "a", "--size", "17"]).is_err());
        let Ok(Cli::Play(nine)) =
            Cli::try_parse_from(["ludus", "play", "--name", "a", "--size", "9"])
        else {
            panic!("--size 9 did not parse");
        };
        assert!(nine.settings().is_err(), "caro is not played on 9x9");
        let Ok(Cli::Play(signed_in)) = Cli::try_parse_from(["ludus", "play"]) else {
            panic!("a signed-in player needs no name");
        };
        assert_eq!((signed_in.name, signed_in.guest), (None, false));
        assert!(
            Cli::try_parse_from(["ludus", "play", "--guest"]).is_err(),
            "a guest needs a name"
        );
    }

    fn settings_of(args: &[&str]) -> anyhow::Result<pb::GameSettings> {
        let mut argv = vec!["ludus", "play", "--name", "ann"];
        argv.extend_from_slice(args);
        match Cli::try_parse_from(argv)? {
            Cli::Play(play) => play.settings(),
            _ => anyhow::bail!("not play"),
        }
    }

    #[test]
    fn each_game_has_its_quick_match_options() {
        use pb::game_settings::Options;
        let Ok(Some(Options::Mancala(mancala))) =
            settings_of(&["--game", "mancala", "--rule-set", "congklak"]).map(|s| s.options)
        else {
            panic!("mancala did not parse");
        };
        assert_eq!(mancala.rule_set, pb::MancalaRuleSet::Congklak as i32);
        let Ok(Some(Options::Mancala(kalah))) =
            settings_of(&["--game", "mancala"]).map(|s| s.options)
        else {
            panic!("kalah is the default");
        };
        assert_eq!(kalah.rule_set, pb::MancalaRuleSet::Kalah as i32);
        let Ok(quoridor) =
            settings_of(&["--game", "quoridor", "--size", "11", "--turn-seconds", "20"])
        else {
            panic!("quoridor did not parse");
        };
        assert_eq!(quoridor.turn_time_ms, 20_000);
        let Some(Options::Quoridor(options)) = quoridor.options else {
            panic!("not quoridor");
        };
        assert_eq!((options.size, options.players), (11, 2));
        assert!(settings_of(&["--game", "quoridor", "--size", "15"]).is_err());
        let Ok(Some(Options::Backgammon(money))) =
            settings_of(&["--game", "backgammon", "--jacoby"]).map(|s| s.options)
        else {
            panic!("backgammon did not parse");
        };
        assert!(money.jacoby && money.match_game.is_none());
        assert!(matches!(
            settings_of(&["--game", "junqi"]).map(|s| s.options),
            Ok(Some(Options::Junqi(_)))
        ));
        // Another game's flags are refused, not ignored.
        assert!(settings_of(&["--game", "mancala", "--size", "9"]).is_err());
        assert!(settings_of(&["--rule-set", "kalah"]).is_err());
        assert!(settings_of(&["--game", "junqi", "--jacoby"]).is_err());
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

    #[test]
    fn play_against_the_computer_parses() {
        let Ok(Cli::Play(play)) =
            Cli::try_parse_from(["ludus", "play", "--game", "mancala", "--computer", "hard"])
        else {
            panic!("play --computer did not parse");
        };
        assert_eq!(play.computer.as_deref(), Some("hard"));
        assert!(play.settings().is_ok());
    }

    #[test]
    fn the_account_commands_parse() {
        let Ok(Cli::Register(register)) =
            Cli::try_parse_from(["ludus", "register", "ann", "--display-name", "Ann"])
        else {
            panic!("register did not parse");
        };
        assert_eq!(
            (register.username.as_str(), register.display_name.as_deref()),
            ("ann", Some("Ann"))
        );
        assert!(
            Cli::try_parse_from(["ludus", "login"]).is_err(),
            "login needs a username"
        );
        let Ok(Cli::History(history)) =
            Cli::try_parse_from(["ludus", "history", "--game", "g1", "--limit", "5"])
        else {
            panic!("history did not parse");
        };
        assert_eq!((history.game.as_deref(), history.limit), (Some("g1"), 5));
        let Ok(Cli::Profile(profile)) = Cli::try_parse_from([
            "ludus",
            "profile",
            "a-01X",
            "--ruleset",
            "caro/15/blocked-ends",
            "--ruleset",
            "quoridor/9",
        ]) else {
            panic!("profile did not parse");
        };
        assert_eq!(profile.player.as_deref(), Some("a-01X"));
        assert_eq!(profile.ruleset.len(), 2);
    }
}
