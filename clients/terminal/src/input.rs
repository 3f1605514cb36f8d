//! What the player types: parsing a line into a command, and reading stdin without blocking
//! shutdown.

use tokio::sync::mpsc;

use super::GameChoice;
use super::i18n::{Lang, tr};

/// One line of player input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Place a stone (or any action in the game's notation), e.g. `H8`.
    Play(String),
    /// Resign (C14).
    Resign,
    /// Take back your last move against the computer (C17, M11).
    TakeBack,
    /// Offer a draw (C8).
    OfferDraw,
    /// Accept the opponent's draw offer.
    Accept,
    /// Decline the opponent's draw offer.
    Decline,
    /// Answer a C13 friend-room choice: wait one more minute or take the win (`draw`, while
    /// a choice is pending, calls it a draw).
    Absence(ludus_proto::pb::AbsenceChoice),
    /// Leave: resigns a game in progress.
    Quit,
    /// Show the commands.
    Help,
    /// List the legal actions the server offers now (`?`, except in Caro where `?` is help).
    Legal,
    /// An empty line: redraw.
    Redraw,
    /// Switch the language (`lang vi`, `lang en`); `None` for a language not offered.
    Language(Option<Lang>),
    /// Something else.
    Unknown(String),
}

/// `lang vi` / `language en`: the same in a game and in a room, in both languages.
pub fn language(line: &str) -> Option<Option<Lang>> {
    let (word, rest) = line
        .trim()
        .split_once(char::is_whitespace)
        .unwrap_or((line.trim(), ""));
    matches!(
        word.to_lowercase().as_str(),
        "lang" | "language" | "ngôn-ngữ"
    )
    .then(|| Lang::parse(rest))
}

/// The help text shown by `help`.
/// The help text of each game, in the player's language (the commands stay as typed).
pub fn help(game: GameChoice) -> &'static str {
    match game {
        GameChoice::Caro => tr("help.caro"),
        GameChoice::Mancala => tr("help.mancala"),
        GameChoice::Quoridor => tr("help.quoridor"),
        GameChoice::Backgammon => tr("help.backgammon"),
        GameChoice::Junqi => tr("help.junqi"),
    }
}

/// Parses one line of a game. In Caro a cell is a letter then a number (`h8` works too); the
/// server checks that it is on the board and empty. In the other games anything that is not
/// a command word goes to the server as notation, which names the rule when it is refused.
pub fn parse(line: &str, game: GameChoice) -> Command {
    if let Some(lang) = language(line) {
        return Command::Language(lang);
    }
    if game != GameChoice::Caro {
        return parse_notation(line, game);
    }
    let line = line.trim();
    match line.to_ascii_lowercase().as_str() {
        "" => Command::Redraw,
        "resign" => Command::Resign,
        "undo" | "takeback" | "take back" => Command::TakeBack,
        "draw" | "offer" => Command::OfferDraw,
        "accept" | "yes" => Command::Accept,
        "decline" | "no" => Command::Decline,
        "wait" => Command::Absence(ludus_proto::pb::AbsenceChoice::Wait),
        "win" => Command::Absence(ludus_proto::pb::AbsenceChoice::Win),
        "quit" | "exit" | "q" => Command::Quit,
        "help" | "?" | "h" => Command::Help,
        lower => {
            let mut chars = lower.chars();
            let letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
            let digits = chars.as_str();
            if letter
                && !digits.is_empty()
                && digits.len() <= 2
                && digits.chars().all(|c| c.is_ascii_digit())
            {
                Command::Play(line.to_ascii_uppercase())
            } else {
                Command::Unknown(line.to_owned())
            }
        }
    }
}

/// A line of a game played in its own notation (everything but Caro).
fn parse_notation(line: &str, game: GameChoice) -> Command {
    let lower = line.trim().to_ascii_lowercase();
    let backgammon = game == GameChoice::Backgammon;
    match lower.as_str() {
        "" => Command::Redraw,
        "quit" | "exit" | "q" => Command::Quit,
        "help" | "h" => Command::Help,
        "?" | "legal" => Command::Legal,
        // Bare `resign` leaves the game in every game; Backgammon's graded offers
        // (`resign gammon`) are actions and go to the server as notation.
        "resign" => Command::Resign,
        "undo" | "takeback" | "take back" => Command::TakeBack,
        "draw" | "offer" => Command::OfferDraw,
        // In Backgammon `accept` and `reject` answer a resignation offer (B21).
        "accept" | "yes" if !backgammon => Command::Accept,
        "decline" | "no" => Command::Decline,
        // Players write "flip c6" or "move c6-c7" as readily as the bare notation; the
        // server reads only the points.
        _ if game == GameChoice::Junqi => {
            let bare = ["flip ", "move "]
                .iter()
                .find_map(|word| lower.strip_prefix(word))
                .unwrap_or(&lower);
            Command::Play(bare.trim().to_owned())
        }
        _ => Command::Play(lower),
    }
}

/// Lines typed on stdin, read on a plain thread.
///
/// Not `tokio::io::stdin`: its read runs on the runtime's blocking pool and cannot be
/// cancelled, so when the game ends while the player is not typing, the runtime's shutdown
/// would hang until Enter is pressed. A detached thread does not hold the process back. The
/// channel closes at end of input.
pub fn stdin_lines() -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel(16);
    let spawned = std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut line = String::new();
            loop {
                line.clear();
                match stdin.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.blocking_send(line.clone()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
    if let Err(error) = spawned {
        // Without a reader the channel is simply closed: the caller sees end of input.
        tracing::warn!(%error, "cannot start the stdin reader");
    }
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Command {
        super::parse(line, GameChoice::Caro)
    }

    #[test]
    fn c13_wait_and_win_answer_a_friend_room_choice() {
        use ludus_proto::pb::AbsenceChoice;
        assert_eq!(parse("wait"), Command::Absence(AbsenceChoice::Wait));
        assert_eq!(parse(" WIN "), Command::Absence(AbsenceChoice::Win));
        // `draw` stays the draw offer; the play screen turns it into the answer while a
        // choice is pending.
        assert_eq!(parse("draw"), Command::OfferDraw);
    }

    #[test]
    fn other_games_send_their_notation() {
        use GameChoice::{Backgammon, Junqi, Mancala, Quoridor};
        assert_eq!(super::parse(" 3\n", Mancala), Command::Play("3".into()));
        assert_eq!(super::parse("?", Mancala), Command::Legal);
        assert_eq!(super::parse("E3H", Quoridor), Command::Play("e3h".into()));
        assert_eq!(super::parse("pass", Quoridor), Command::Play("pass".into()));
        assert_eq!(
            super::parse("24/18 13/11", Backgammon),
            Command::Play("24/18 13/11".into())
        );
        assert_eq!(
            super::parse("accept", Backgammon),
            Command::Play("accept".into())
        );
        assert_eq!(
            super::parse("resign gammon", Backgammon),
            Command::Play("resign gammon".into())
        );
        assert_eq!(super::parse("resign", Backgammon), Command::Resign);
        assert_eq!(super::parse("undo", Mancala), Command::TakeBack);
        assert_eq!(
            super::parse("takeback", GameChoice::Caro),
            Command::TakeBack
        );
        assert_eq!(super::parse("accept", Junqi), Command::Accept);
        assert_eq!(super::parse("c6-c7", Junqi), Command::Play("c6-c7".into()));
        assert_eq!(
            super::parse("Move C6-C7", Junqi),
            Command::Play("c6-c7".into())
        );
        assert_eq!(
            super::parse("flip e12\n", Junqi),
            Command::Play("e12".into())
        );
        // Only Junqi drops the words: in Quoridor "move" is not notation to tidy.
        assert_eq!(
            super::parse("move e2", Quoridor),
            Command::Play("move e2".into())
        );
        assert_eq!(super::parse("help", Junqi), Command::Help);
        assert_eq!(super::parse("", Junqi), Command::Redraw);
        // In Caro `?` stays the help it always was.
        assert_eq!(parse("?"), Command::Help);
    }

    #[test]
    fn cells_and_words() {
        assert_eq!(parse(" h8\n"), Command::Play("H8".into()));
        assert_eq!(parse("S19"), Command::Play("S19".into()));
        assert_eq!(parse("RESIGN"), Command::Resign);
        assert_eq!(parse("draw"), Command::OfferDraw);
        assert_eq!(parse("accept"), Command::Accept);
        assert_eq!(parse("decline"), Command::Decline);
        assert_eq!(parse("quit"), Command::Quit);
        assert_eq!(parse("help"), Command::Help);
        assert_eq!(parse(""), Command::Redraw);
        assert_eq!(parse("8H"), Command::Unknown("8H".into()));
        assert_eq!(parse("B"), Command::Unknown("B".into()));
        assert_eq!(parse("H123"), Command::Unknown("H123".into()));
        assert_eq!(parse("é8"), Command::Unknown("é8".into()));
    }

    #[test]
    fn lang_switches_in_every_game() {
        use crate::i18n::Lang;
        for game in [GameChoice::Caro, GameChoice::Quoridor, GameChoice::Junqi] {
            assert_eq!(
                super::parse("lang vi", game),
                Command::Language(Some(Lang::Vi))
            );
            assert_eq!(
                super::parse(" language EN", game),
                Command::Language(Some(Lang::En))
            );
            assert_eq!(super::parse("lang", game), Command::Language(None));
        }
        assert!(help(GameChoice::Caro).contains("lang vi"));
        assert!(crate::i18n::in_vietnamese(|| help(GameChoice::Caro)).contains("lang en"));
    }
}
