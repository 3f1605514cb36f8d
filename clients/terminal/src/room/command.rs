//! What a room member types: parsing a line into a command, room codes as people type
//! them, and the host's `set <option> <value>` applied to the room's settings.

use ludus_proto::pb;

use crate::i18n::{tr, trf};
use crate::{GameChoice, GameFlags, Where};

/// The help text shown by `help` in a room.
pub fn help() -> &'static str {
    tr("room.help")
}

/// The options `set` knows, for `set help` and for an unknown option.
pub fn set_help() -> &'static str {
    tr("room.setHelp")
}

/// Where a member wants to sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatWish {
    /// The next free seat.
    Next,
    /// Seat N (1-based); seats fill in order, so only the next free one can be had.
    Number(u32),
    /// A Quoridor team (Q23).
    Team(pb::RoomTeam),
}

/// One line typed in a room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoomInput {
    /// Take a seat.
    Seat(SeatWish),
    /// Give the seat up.
    Unseat,
    /// Ready (true) or not.
    Ready(bool),
    /// A chat line.
    Say(String),
    /// Follow the room's Nth live game (1-based) as a spectator.
    Watch(usize),
    /// Show the room.
    Show,
    /// Leave the room.
    Leave,
    /// The commands.
    Help,
    /// Host: start the next game.
    Start,
    /// Host: pause (true) or resume the countdown.
    Pause(bool),
    /// Host: change one setting.
    Set {
        /// The option's name as typed, lower case.
        option: String,
        /// Its value, lower case.
        value: String,
    },
    /// Host: remove a member (by name or player id).
    Kick(String),
    /// Host: hand the host role to a member.
    Host(String),
    /// Host: seat a computer player at this level.
    Computer(String),
    /// Switch the language (`lang vi`, `lang en`); `None` for a language not offered.
    Language(Option<crate::i18n::Lang>),
    /// A line that is not a command: what to tell the member.
    Invalid(String),
}

/// Parses one line typed in a room.
pub fn parse(line: &str) -> RoomInput {
    let line = line.trim();
    // A quote mark starts a chat line, as in many chat programs; a closing one is dropped.
    if let Some(text) = line.strip_prefix(['"', '\'']) {
        let text = text.strip_suffix(['"', '\'']).unwrap_or(text).trim();
        return say(text);
    }
    if let Some(lang) = crate::input::language(line) {
        return RoomInput::Language(lang);
    }
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    let lower_rest = rest.to_lowercase();
    match (word.to_lowercase().as_str(), lower_rest.as_str()) {
        ("", _) | ("room" | "who" | "members", "") => RoomInput::Show,
        ("help" | "h" | "?", _) => RoomInput::Help,
        ("say" | "chat", _) => say(rest),
        ("seat" | "sit", "") => RoomInput::Seat(SeatWish::Next),
        ("seat" | "sit", "red") => RoomInput::Seat(SeatWish::Team(pb::RoomTeam::Red)),
        ("seat" | "sit", "yellow") => RoomInput::Seat(SeatWish::Team(pb::RoomTeam::Yellow)),
        ("seat" | "sit", number) => match number.parse::<u32>() {
            Ok(n) if n >= 1 => RoomInput::Seat(SeatWish::Number(n)),
            _ => RoomInput::Invalid(trf("room.seatTakes", &[("text", &format!("{rest:?}"))])),
        },
        ("unseat" | "stand", "") => RoomInput::Unseat,
        ("ready", "") => RoomInput::Ready(true),
        ("unready" | "notready", "") | ("not", "ready") => RoomInput::Ready(false),
        ("start", "") => RoomInput::Start,
        ("pause", "") => RoomInput::Pause(true),
        ("resume", "") => RoomInput::Pause(false),
        ("watch", "") => RoomInput::Watch(1),
        ("watch", number) => match number.parse::<usize>() {
            Ok(n) if n >= 1 => RoomInput::Watch(n),
            _ => RoomInput::Invalid(trf("room.watchTakes", &[("text", &format!("{rest:?}"))])),
        },
        ("set", "" | "help") => RoomInput::Invalid(set_help().to_owned()),
        ("set", _) => match lower_rest.split_once(char::is_whitespace) {
            Some((option, value)) => RoomInput::Set {
                option: option.to_owned(),
                value: value.trim().to_owned(),
            },
            None => RoomInput::Invalid(trf(
                "room.setNeedsValue",
                &[("option", &lower_rest), ("help", &set_help())],
            )),
        },
        ("kick", "") | ("host", "") => {
            RoomInput::Invalid(trf("room.needsName", &[("command", &word)]))
        }
        ("kick", _) => RoomInput::Kick(rest.to_owned()),
        ("host", _) => RoomInput::Host(rest.to_owned()),
        ("computer" | "bot", "") => RoomInput::Computer("normal".to_owned()),
        ("computer" | "bot", level) => RoomInput::Computer(level.to_owned()),
        ("leave" | "quit" | "exit" | "q", "") => RoomInput::Leave,
        _ => RoomInput::Invalid(trf(
            "play.unknownCommand",
            &[("text", &format!("{line:?}"))],
        )),
    }
}

fn say(text: &str) -> RoomInput {
    if text.is_empty() {
        RoomInput::Invalid(tr("room.sayWhat").to_owned())
    } else {
        RoomInput::Say(text.to_owned())
    }
}

/// A room code as people type it: any case, with or without the space or a dash, or the
/// invite link `ludus://room/K7M4QP`. The canonical code comes back, `K7M4QP`.
pub fn normalise_code(typed: &str) -> Result<String, String> {
    let typed = typed.trim();
    let bare = typed.strip_prefix("ludus://room/").unwrap_or(typed);
    let code: String = bare
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if code.len() == 6 && code.chars().all(|c| c.is_ascii_alphanumeric()) {
        Ok(code)
    } else {
        Err(trf("room.badCode", &[("text", &format!("{typed:?}"))]))
    }
}

/// `K7M 4QP`, as codes are shown (C16).
pub fn display_code(code: &str) -> String {
    match (code.get(..3), code.get(3..)) {
        (Some(head), Some(tail)) if !tail.is_empty() => format!("{head} {tail}"),
        _ => code.to_owned(),
    }
}

/// The invite link of a room (ARCHITECTURE.md, Rooms).
pub fn invite_link(code: &str) -> String {
    format!("ludus://room/{code}")
}

/// The room's settings after the host's `set option value`. Only the form is checked here
/// (a number where a number goes, an option of the room's game); the server judges the
/// values and names the rule.
pub fn apply_setting(
    settings: &pb::RoomSettings,
    option: &str,
    value: &str,
) -> Result<pb::RoomSettings, String> {
    use pb::game_settings::Options;
    let mut settings = settings.clone();
    let number = || {
        value.parse::<u32>().map_err(|_| {
            trf(
                "room.takesNumber",
                &[("option", &option), ("value", &format!("{value:?}"))],
            )
        })
    };
    let switch = || match value {
        "on" | "yes" | "true" | "1" => Ok(true),
        "off" | "no" | "false" | "0" => Ok(false),
        _ => Err(trf(
            "room.onOrOff",
            &[("option", &option), ("value", &format!("{value:?}"))],
        )),
    };
    let game = settings.game.get_or_insert_with(Default::default);
    let kind = GameChoice::of(Some(game));
    let wrong_game = || {
        trf(
            "room.notAnOptionOf",
            &[
                ("option", &option),
                ("game", &kind.map_or(tr("room.thisGame"), game_title)),
                ("help", &set_help()),
            ],
        )
    };
    match (option, game.options.as_mut()) {
        ("game", _) => {
            let choice = <GameChoice as clap::ValueEnum>::from_str(value, true)
                .map_err(|_| trf("room.theGames", &[("value", &format!("{value:?}"))]))?;
            let flags = GameFlags {
                game: choice,
                ..GameFlags::default()
            };
            *game = flags
                .settings(Where::Room)
                .map_err(|error| format!("{error:#}"))?;
        }
        ("clock" | "turn-seconds" | "turn", _) => {
            game.turn_time_ms = u64::from(number()?) * 1000;
        }
        ("public", _) => settings.public = switch()?,
        ("rated", _) => settings.rated = switch()?,
        ("spectator-chat", _) => settings.spectator_chat = Some(switch()?),
        ("size", Some(Options::Caro(caro))) => caro.board_size = number()?,
        ("size", Some(Options::Quoridor(quoridor))) => quoridor.size = number()?,
        ("free", Some(Options::Caro(caro))) => caro.blocked_ends_off = switch()?,
        ("exactly-five", Some(Options::Caro(caro))) => caro.exactly_five = switch()?,
        ("first" | "first-mover", Some(Options::Caro(_))) => {
            settings.first_mover = first_mover(value)? as i32;
        }
        ("players", Some(Options::Quoridor(quoridor))) => quoridor.players = number()?,
        ("mode", Some(Options::Quoridor(quoridor))) => quoridor.mode = quoridor_mode(value)? as i32,
        ("walls", Some(Options::Quoridor(quoridor))) => quoridor.walls = number()?,
        ("goal", Some(Options::Quoridor(quoridor))) => {
            quoridor.goal = match value {
                "opposite" | "edge" => pb::QuoridorGoal::Opposite,
                "center" | "centre" => pb::QuoridorGoal::Center,
                _ => {
                    return Err(trf("room.goalIs", &[("value", &format!("{value:?}"))]));
                }
            } as i32;
        }
        ("auto-start", Some(Options::Quoridor(_))) => settings.auto_start = Some(switch()?),
        ("rule-set" | "variant", Some(Options::Mancala(mancala))) => {
            mancala.rule_set = match value {
                "kalah" => pb::MancalaRuleSet::Kalah,
                "congklak" => pb::MancalaRuleSet::Congklak,
                _ => {
                    return Err(trf("room.ruleSetIs", &[("value", &format!("{value:?}"))]));
                }
            } as i32;
        }
        ("match-length", Some(Options::Backgammon(backgammon))) => {
            backgammon.match_game = match number()? {
                0 => None,
                length => Some(pb::BackgammonMatchGame {
                    length,
                    score: vec![0, 0],
                    crawford: false,
                }),
            };
        }
        ("jacoby", Some(Options::Backgammon(backgammon))) => backgammon.jacoby = switch()?,
        ("beavers", Some(Options::Backgammon(backgammon))) => backgammon.beavers = switch()?,
        ("automatic-doubles", Some(Options::Backgammon(backgammon))) => {
            backgammon.automatic_doubles = switch()?;
        }
        (
            "size" | "free" | "exactly-five" | "first" | "first-mover" | "players" | "mode"
            | "walls" | "goal" | "auto-start" | "rule-set" | "variant" | "match-length" | "jacoby"
            | "beavers" | "automatic-doubles",
            _,
        ) => return Err(wrong_game()),
        _ => {
            return Err(trf(
                "room.unknownOption",
                &[("option", &format!("{option:?}")), ("help", &set_help())],
            ));
        }
    }
    Ok(settings)
}

/// C10's choice as typed.
pub fn first_mover(value: &str) -> Result<pb::CaroFirstMover, String> {
    match value.to_lowercase().as_str() {
        "host" => Ok(pb::CaroFirstMover::Host),
        "guest" => Ok(pb::CaroFirstMover::Guest),
        "rps" | "rock-paper-scissors" => Ok(pb::CaroFirstMover::RockPaperScissors),
        _ => Err(trf("room.firstIs", &[("value", &format!("{value:?}"))])),
    }
}

/// A game's name as the seed sites write it: Caro is "Cờ caro" on cocaro, Quoridor "Rào
/// chắn" on Ping44, Flip Junqi "Cờ quân lật" on JoyPip.
pub fn game_title(game: GameChoice) -> &'static str {
    match game {
        GameChoice::Caro => tr("game.caro"),
        GameChoice::Mancala => tr("game.mancala"),
        GameChoice::Quoridor => tr("game.quoridor"),
        GameChoice::Backgammon => tr("game.backgammon"),
        GameChoice::Junqi => tr("game.junqi"),
    }
}

/// A Quoridor room's mode as typed.
pub fn quoridor_mode(value: &str) -> Result<pb::QuoridorMode, String> {
    match value.to_lowercase().as_str() {
        "ffa" | "free-for-all" => Ok(pb::QuoridorMode::FreeForAll),
        "teams" => Ok(pb::QuoridorMode::Teams),
        "tournament" => Ok(pb::QuoridorMode::TournamentMatch),
        _ => Err(trf("room.modeIs", &[("value", &format!("{value:?}"))])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_lines_parse_into_commands() {
        assert_eq!(parse("seat"), RoomInput::Seat(SeatWish::Next));
        assert_eq!(
            parse(" Seat RED "),
            RoomInput::Seat(SeatWish::Team(pb::RoomTeam::Red))
        );
        assert_eq!(
            parse("seat yellow"),
            RoomInput::Seat(SeatWish::Team(pb::RoomTeam::Yellow))
        );
        assert_eq!(parse("seat 2"), RoomInput::Seat(SeatWish::Number(2)));
        assert!(matches!(parse("seat 0"), RoomInput::Invalid(_)));
        assert!(matches!(parse("seat blue"), RoomInput::Invalid(_)));
        assert_eq!(parse("unseat"), RoomInput::Unseat);
        assert_eq!(parse("READY"), RoomInput::Ready(true));
        assert_eq!(parse("unready"), RoomInput::Ready(false));
        assert_eq!(parse("not ready"), RoomInput::Ready(false));
        assert_eq!(parse("start"), RoomInput::Start);
        assert_eq!(parse("pause"), RoomInput::Pause(true));
        assert_eq!(parse("resume"), RoomInput::Pause(false));
        assert_eq!(parse("kick Bob Smith"), RoomInput::Kick("Bob Smith".into()));
        assert_eq!(parse("host ann"), RoomInput::Host("ann".into()));
        assert!(matches!(parse("kick"), RoomInput::Invalid(_)));
        assert_eq!(parse("computer Hard"), RoomInput::Computer("hard".into()));
        assert_eq!(parse("computer"), RoomInput::Computer("normal".into()));
        assert_eq!(parse("watch"), RoomInput::Watch(1));
        assert_eq!(parse("watch 2"), RoomInput::Watch(2));
        assert_eq!(parse("leave"), RoomInput::Leave);
        assert_eq!(parse("quit"), RoomInput::Leave);
        assert_eq!(parse(""), RoomInput::Show);
        assert_eq!(parse("room"), RoomInput::Show);
        assert_eq!(parse("help"), RoomInput::Help);
        assert!(matches!(parse("dance"), RoomInput::Invalid(m) if m.contains("help")));
        assert!(matches!(parse("ready now"), RoomInput::Invalid(_)));
    }

    #[test]
    fn chat_keeps_the_text_as_typed() {
        assert_eq!(
            parse("say Hello, Room!"),
            RoomInput::Say("Hello, Room!".into())
        );
        assert_eq!(parse("\"gl hf\""), RoomInput::Say("gl hf".into()));
        assert_eq!(parse("'start now"), RoomInput::Say("start now".into()));
        assert!(matches!(parse("say"), RoomInput::Invalid(_)));
        assert!(matches!(parse("\""), RoomInput::Invalid(_)));
    }

    #[test]
    fn set_parses_an_option_and_a_value() {
        assert_eq!(
            parse("set Clock 30"),
            RoomInput::Set {
                option: "clock".into(),
                value: "30".into()
            }
        );
        assert!(matches!(parse("set"), RoomInput::Invalid(m) if m.contains("set options")));
        assert!(matches!(parse("set clock"), RoomInput::Invalid(m) if m.contains("needs a value")));
    }

    #[test]
    fn codes_are_typed_in_any_case_with_or_without_the_space() {
        for typed in ["K7M4QP", "k7m 4qp", " K7M-4QP ", "ludus://room/K7M4QP"] {
            assert_eq!(normalise_code(typed).as_deref(), Ok("K7M4QP"), "{typed}");
        }
        assert!(normalise_code("K7M4Q").is_err());
        assert!(normalise_code("K7M4QP9").is_err());
        assert!(normalise_code("K7M 4Q!").is_err());
        assert_eq!(display_code("K7M4QP"), "K7M 4QP");
        assert_eq!(invite_link("K7M4QP"), "ludus://room/K7M4QP");
    }

    fn caro_room() -> pb::RoomSettings {
        pb::RoomSettings {
            game: GameFlags::default().settings(Where::Room).ok(),
            ..Default::default()
        }
    }

    #[test]
    fn set_changes_one_setting_of_the_room() {
        use pb::game_settings::Options;
        let room = caro_room();
        let clocked = apply_setting(&room, "clock", "30").expect("clock");
        assert_eq!(clocked.game.as_ref().map(|g| g.turn_time_ms), Some(30_000));
        let big = apply_setting(&clocked, "size", "19").expect("size");
        assert!(matches!(
            big.game.as_ref().and_then(|g| g.options.as_ref()),
            Some(Options::Caro(c)) if c.board_size == 19
        ));
        assert_eq!(big.game.as_ref().map(|g| g.turn_time_ms), Some(30_000));
        let first = apply_setting(&big, "first", "guest").expect("C10");
        assert_eq!(first.first_mover, pb::CaroFirstMover::Guest as i32);
        assert!(apply_setting(&room, "public", "on").expect("public").public);
        assert_eq!(
            apply_setting(&room, "spectator-chat", "off")
                .expect("chat")
                .spectator_chat,
            Some(false)
        );
        // Form errors are the client's; values (size 17) are the server's to refuse.
        assert!(apply_setting(&room, "size", "seventeen").is_err());
        assert!(apply_setting(&room, "size", "17").is_ok());
        assert!(apply_setting(&room, "public", "maybe").is_err());
        assert!(
            apply_setting(&room, "walls", "10").is_err_and(|m| m.contains("not an option of Caro"))
        );
        assert!(apply_setting(&room, "colour", "red").is_err_and(|m| m.contains("unknown option")));

        let quoridor = apply_setting(&room, "game", "quoridor").expect("switch game");
        let teams = apply_setting(&quoridor, "mode", "teams")
            .and_then(|s| apply_setting(&s, "players", "4"))
            .and_then(|s| apply_setting(&s, "walls", "10"))
            .and_then(|s| apply_setting(&s, "goal", "center"))
            .expect("quoridor options");
        let Some(Options::Quoridor(q)) = teams.game.and_then(|g| g.options) else {
            panic!("quoridor");
        };
        assert_eq!(
            (q.mode, q.players, q.walls, q.goal, q.size),
            (
                pb::QuoridorMode::Teams as i32,
                4,
                10,
                pb::QuoridorGoal::Center as i32,
                9
            )
        );
        let backgammon = apply_setting(&room, "game", "backgammon")
            .and_then(|s| apply_setting(&s, "match-length", "5"))
            .expect("backgammon");
        assert!(matches!(
            backgammon.game.as_ref().and_then(|g| g.options.as_ref()),
            Some(Options::Backgammon(b)) if b.match_game.as_ref().is_some_and(|m| m.length == 5)
        ));
        let money = apply_setting(&backgammon, "match-length", "0").expect("money");
        assert!(matches!(
            money.game.and_then(|g| g.options),
            Some(Options::Backgammon(b)) if b.match_game.is_none()
        ));
        let congklak = apply_setting(&room, "game", "mancala")
            .and_then(|s| apply_setting(&s, "rule-set", "congklak"))
            .expect("mancala");
        assert!(matches!(
            congklak.game.and_then(|g| g.options),
            Some(Options::Mancala(m)) if m.rule_set == pb::MancalaRuleSet::Congklak as i32
        ));
        assert!(apply_setting(&room, "game", "chess").is_err());
    }

    #[test]
    fn lang_switches_in_a_room_and_the_help_follows() {
        use crate::i18n::{Lang, in_vietnamese};
        assert_eq!(parse("lang vi"), RoomInput::Language(Some(Lang::Vi)));
        assert_eq!(parse("LANG en"), RoomInput::Language(Some(Lang::En)));
        assert_eq!(parse("lang fr"), RoomInput::Language(None));
        assert!(help().starts_with("room commands:"));
        assert!(in_vietnamese(help).starts_with("lệnh trong phòng:"));
        let caro = pb::RoomSettings {
            game: GameFlags::default().settings(Where::Room).ok(),
            ..Default::default()
        };
        let refused = in_vietnamese(|| apply_setting(&caro, "mode", "x"));
        assert!(
            refused.is_err_and(|m| m.starts_with("mode không phải tùy chọn của Cờ caro")),
            "a Caro room has no mode"
        );
    }
}
