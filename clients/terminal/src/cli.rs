//! The `ludus` command line of the terminal client in the player's language: `--lang en|vi`
//! (read before clap parses, so `--help` already speaks it), and in Vietnamese the about and
//! help of every terminal subcommand and flag, the usage heading, the help flag and the
//! section headings. Clap's own fixed words (`[default: …]`, `[env: …]`, `[possible values:
//! …]`, parse errors) have no translation hook and stay English.

use clap::{Arg, ArgAction, Command};

use crate::i18n::{self, Lang};

/// The subcommands of `ludus` that are this client (`ludus/src/main.rs` names them).
const TERMINAL_COMMANDS: &[&str] = &[
    "play", "watch", "room", "register", "login", "logout", "history", "profile",
];

/// Arguments clap makes itself or that this module adds.
const BUILT_IN: &[&str] = &["help", "version", "lang"];

/// `cmd` (the whole `ludus` command) with `--lang` and, when the language (from `--lang`,
/// else the locale) is Vietnamese, the terminal subcommands' help translated. Call before
/// parsing: clap writes `--help` while it parses.
pub fn localized(cmd: Command) -> Command {
    let args = std::env::args_os().map(|arg| arg.to_string_lossy().into_owned());
    if let Some(lang) = i18n::lang_from_args(args) {
        i18n::set_lang(lang);
    }
    localized_in(cmd, i18n::lang())
}

/// [`localized`] for a given language, without reading the process's arguments.
pub fn localized_in(cmd: Command, lang: Lang) -> Command {
    // On the terminal's subcommands only (`serve` has no text to translate); global within
    // each, so `ludus room join --lang vi` works too.
    let mut lang_flag = Arg::new("lang")
        .long("lang")
        .global(true)
        .value_name("LANG")
        .value_parser(["en", "vi"])
        .help(i18n::tr_in(lang, "cli.lang"));
    if lang == Lang::Vi {
        lang_flag = lang_flag.help_heading(i18n::tr_in(lang, "cli.options"));
    }
    let mut cmd = cmd;
    for name in TERMINAL_COMMANDS {
        if cmd.find_subcommand(name).is_some() {
            let flag = lang_flag.clone();
            cmd = cmd.mut_subcommand(name, |sub| match lang {
                Lang::En => sub.arg(flag),
                Lang::Vi => in_vietnamese(sub.arg(flag), name),
            });
        }
    }
    cmd
}

/// The help of flag `id` of the subcommand at `path`: its own (`cli.watch.name`), else the
/// one shared by every subcommand that has it (`cli.game`, from the flattened game flags).
fn flag_help(path: &str, id: &str) -> Option<(&'static str, &'static str)> {
    i18n::find(&format!("cli.{path}.{id}")).or_else(|| i18n::find(&format!("cli.{id}")))
}

/// A subcommand in Vietnamese; `path` is its key path: `play`, `room.create`.
fn in_vietnamese(mut cmd: Command, path: &str) -> Command {
    if let Some(about) = i18n::find(&format!("cli.{path}")) {
        cmd = cmd.about(about.1).long_about(None);
    }
    let ids: Vec<String> = cmd
        .get_arguments()
        .map(|arg| arg.get_id().to_string())
        .filter(|id| !BUILT_IN.contains(&id.as_str()))
        .collect();
    for id in ids {
        let Some((_, vi)) = flag_help(path, &id) else {
            continue;
        };
        cmd = cmd.mut_arg(&id, |arg| {
            let positional = arg.is_positional();
            // A value enum lists its values with English help; the Vietnamese help names
            // them instead.
            let listed = arg.get_action().takes_values() && !arg.get_possible_values().is_empty();
            let arg = arg.help(vi).long_help(None).hide_possible_values(listed);
            if positional {
                arg.help_heading(i18n::tr_in(Lang::Vi, "cli.arguments"))
            } else {
                arg.help_heading(i18n::tr_in(Lang::Vi, "cli.options"))
            }
        });
    }
    let subcommands: Vec<String> = cmd
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .collect();
    for name in subcommands {
        let nested = format!("{path}.{name}");
        cmd = cmd.mut_subcommand(&name, |sub| in_vietnamese(sub, &nested));
    }
    cmd.disable_help_flag(true)
        .arg(
            Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::Help)
                .help(i18n::tr_in(Lang::Vi, "cli.help"))
                .help_heading(i18n::tr_in(Lang::Vi, "cli.options")),
        )
        .subcommand_help_heading(i18n::tr_in(Lang::Vi, "cli.commands"))
        .help_template(i18n::tr_in(Lang::Vi, "cli.template"))
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, FromArgMatches, Parser};

    use super::*;
    use crate::{PlayArgs, RoomArgs, WatchArgs, account};

    /// The terminal's subcommands as `ludus/src/main.rs` declares them.
    #[derive(clap::Parser, Debug)]
    #[command(name = "ludus")]
    enum Cli {
        Play(PlayArgs),
        Watch(WatchArgs),
        Room(RoomArgs),
        Register(account::RegisterArgs),
        Login(account::LoginArgs),
        Logout,
        History(account::HistoryArgs),
        Profile(account::ProfileArgs),
    }

    /// Every argument of every terminal subcommand: (path, id, clap's English help).
    fn arguments(cmd: &Command, path: &str, out: &mut Vec<(String, String, String)>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if !BUILT_IN.contains(&id) {
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                out.push((path.to_owned(), id.to_owned(), help));
            }
        }
        for sub in cmd.get_subcommands() {
            arguments(sub, &format!("{path}.{}", sub.get_name()), out);
        }
    }

    #[test]
    fn every_flag_has_its_help_in_both_languages_and_the_english_is_clap_s() {
        let cmd = Cli::command();
        let mut found = Vec::new();
        for sub in cmd.get_subcommands() {
            arguments(sub, sub.get_name(), &mut found);
        }
        assert!(found.len() > 30, "the flags were found: {}", found.len());
        let mut missing = Vec::new();
        for (path, id, english) in &found {
            match flag_help(path, id) {
                Some((en, _)) => assert_eq!(en, english, "{path} {id}: the English is clap's"),
                None => missing.push(format!("cli.{path}.{id}\n{english}")),
            }
        }
        assert!(missing.is_empty(), "no help for:\n{}", missing.join("\n\n"));
        // And no key names a flag that is gone.
        for key in i18n::keys().filter(|k| k.starts_with("cli.")) {
            let flag = found.iter().any(|(path, id, _)| {
                key == format!("cli.{path}.{id}") || key == format!("cli.{id}")
            });
            let command = TERMINAL_COMMANDS.iter().any(|c| key == format!("cli.{c}"))
                || ["cli.room.create", "cli.room.join", "cli.room.list"].contains(&key);
            let general = [
                "cli.lang",
                "cli.help",
                "cli.options",
                "cli.arguments",
                "cli.commands",
                "cli.template",
            ]
            .contains(&key);
            assert!(flag || command || general, "{key} names no flag");
        }
    }

    fn help_of(lang: Lang, argv: &[&str]) -> String {
        let cmd = localized_in(Cli::command(), lang);
        match cmd.try_get_matches_from(argv) {
            Err(error) => error.render().to_string(),
            Ok(_) => panic!("{argv:?} printed no help"),
        }
    }

    #[test]
    fn help_speaks_the_chosen_language() {
        let vi = help_of(Lang::Vi, &["ludus", "play", "--help"]);
        assert!(vi.contains("Cách dùng:"), "{vi}");
        assert!(vi.contains("tìm trận nhanh"), "{vi}");
        assert!(!vi.contains("Options:"), "{vi}");
        assert!(vi.contains("Trò chơi: caro (cờ caro, mặc định)"), "{vi}");
        assert!(vi.contains("In trợ giúp"), "{vi}");
        assert!(!vi.contains("Print help"), "{vi}");
        let room = help_of(Lang::Vi, &["ludus", "room", "create", "--help"]);
        assert!(room.contains("Mở một phòng"), "{room}");
        let en = help_of(Lang::En, &["ludus", "play", "--help"]);
        assert!(
            en.contains("Usage:") && en.contains("The game to play"),
            "{en}"
        );
        assert!(en.contains("--lang <LANG>"), "{en}");
    }

    #[test]
    fn the_lang_flag_parses_in_both_languages_and_leaves_the_arguments_alone() {
        for lang in [Lang::En, Lang::Vi] {
            let cmd = localized_in(Cli::command(), lang);
            let matches = cmd
                .try_get_matches_from(["ludus", "play", "--lang", "vi", "--game", "mancala"])
                .map_err(|e| e.render().to_string());
            let Ok(matches) = matches else {
                panic!("{matches:?}");
            };
            let Ok(Cli::Play(play)) = Cli::from_arg_matches(&matches) else {
                panic!("play did not parse");
            };
            assert_eq!(play.game.game, crate::GameChoice::Mancala);
            assert!(
                localized_in(Cli::command(), lang)
                    .try_get_matches_from(["ludus", "play", "--lang", "fr"])
                    .is_err()
            );
        }
        let _ = Cli::try_parse_from(["ludus", "logout"]);
    }
}
