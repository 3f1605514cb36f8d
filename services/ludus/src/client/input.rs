//! What the player types: parsing a line into a command, and reading stdin without blocking
//! shutdown.

use tokio::sync::mpsc;

/// One line of player input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Place a stone (or any action in the game's notation), e.g. `H8`.
    Play(String),
    /// Resign (C14).
    Resign,
    /// Offer a draw (C8).
    OfferDraw,
    /// Accept the opponent's draw offer.
    Accept,
    /// Decline the opponent's draw offer.
    Decline,
    /// Leave: resigns a game in progress.
    Quit,
    /// Show the commands.
    Help,
    /// An empty line: redraw.
    Redraw,
    /// Something else.
    Unknown(String),
}

/// The help text shown by `help`.
pub const HELP: &str = "commands:
  H8        place a stone (column letter A-O or A-S, row number from the top)
  resign    give up the game
  draw      offer a draw
  accept    accept a draw offer
  decline   decline a draw offer
  quit      leave (resigns a game in progress)
  help      this list
  (empty)   redraw the board";

/// Parses one line. A cell is a letter then a number (`h8` works too); the server checks
/// that it is on the board and empty.
pub fn parse(line: &str) -> Command {
    let line = line.trim();
    match line.to_ascii_lowercase().as_str() {
        "" => Command::Redraw,
        "resign" => Command::Resign,
        "draw" | "offer" => Command::OfferDraw,
        "accept" | "yes" => Command::Accept,
        "decline" | "no" => Command::Decline,
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
}
