//! Reading actions in standard notation (rule `N1`): plays like `24/18 13/11`, `bar/22`,
//! `6/off`, `8/2(2)`, `13/7*`, `24/18*/13`; and the words `roll`, `double`, `take`, `drop`,
//! `beaver`, `resign single|gammon|backgammon`, `accept`, `reject`, `no play`.

use crate::action::{Action, ResignLevel};
use crate::board::{BAR, OFF};
use crate::error::BackgammonError;
use crate::play::{Move, Play};

fn bad(message: impl Into<String>) -> BackgammonError {
    BackgammonError::new("N1", message)
}

/// Reads one action. `double_pending` makes the word `pass` mean dropping a double (its
/// usual meaning); otherwise `pass` is the empty play.
pub fn parse_action(text: &str, double_pending: bool) -> Result<Action, BackgammonError> {
    if text.len() > 200 {
        return Err(bad("the action text is too long"));
    }
    let t = text.trim().to_ascii_lowercase();
    let words: Vec<&str> = t.split_whitespace().collect();
    let action = match words.as_slice() {
        [] | ["-"] | ["no", "play"] | ["cannot", "move"] => Action::Play(Play::default()),
        ["pass"] if !double_pending => Action::Play(Play::default()),
        ["pass"] | ["drop"] | ["refuse"] => Action::Drop,
        ["roll"] => Action::Roll,
        ["double"] | ["redouble"] => Action::Double,
        ["take"] => Action::Take,
        ["beaver"] => Action::Beaver,
        ["resign"] => Action::Resign(ResignLevel::Single),
        ["resign", level] => Action::Resign(match *level {
            "single" | "1" | "s" => ResignLevel::Single,
            "gammon" | "2" | "g" => ResignLevel::Gammon,
            "backgammon" | "3" | "b" => ResignLevel::Backgammon,
            other => {
                return Err(bad(format!(
                    "resign what? single, gammon or backgammon, not {}",
                    ludus_rules::excerpt(other)
                )));
            }
        }),
        ["accept"] => Action::AcceptResignation,
        ["reject"] => Action::RejectResignation,
        _ => Action::Play(parse_play(&t)?),
    };
    Ok(action)
}

/// Reads a play: moves separated by spaces (or commas).
///
/// ```
/// use ludus_backgammon::{notation::parse_play, Move};
/// let p = parse_play("8/2(2) 6/off").unwrap();
/// assert_eq!(p.0, vec![Move::new(8, 2), Move::new(8, 2), Move::new(6, 0)]);
/// ```
pub fn parse_play(text: &str) -> Result<Play, BackgammonError> {
    let mut moves = Vec::new();
    for token in text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
    {
        let (body, repeat) = match token.find('(') {
            Some(i) => {
                let inner = token[i + 1..]
                    .strip_suffix(')')
                    .ok_or_else(|| bad(format!("{token}: a repeat is written (n)")))?;
                let n: usize = inner
                    .parse()
                    .ok()
                    .filter(|n| (1..=4).contains(n))
                    .ok_or_else(|| bad(format!("{token}: a move repeats 1 to 4 times")))?;
                (&token[..i], n)
            }
            None => (token, 1),
        };
        let parts: Vec<&str> = body.split('/').collect();
        if parts.len() < 2 {
            return Err(bad(format!(
                "{token}: a move is written from/to, like 24/18"
            )));
        }
        let mut chain = Vec::with_capacity(parts.len() - 1);
        let mut from = point(parts[0], token, true)?.0;
        for part in &parts[1..] {
            let (to, hit) = point(part, token, false)?;
            chain.push(Move { from, to, hit });
            from = to;
        }
        for _ in 0..repeat {
            moves.extend_from_slice(&chain);
        }
        if moves.len() > 8 {
            return Err(bad("a play has at most four moves"));
        }
    }
    Ok(Play(moves))
}

/// A point of the notation: `bar`, `off`, or 1-24 (25 and 0 are accepted for bar and off).
fn point(text: &str, token: &str, first: bool) -> Result<(u8, bool), BackgammonError> {
    let (text, hit) = match text.strip_suffix('*') {
        Some(t) if !first => (t, true),
        _ => (text, false),
    };
    let p = match text {
        "bar" | "b" => BAR,
        "off" | "o" => OFF,
        _ => text
            .parse::<u8>()
            .ok()
            .filter(|&p| p <= BAR)
            .ok_or_else(|| {
                bad(format!(
                    "{}: {} is not a point (1-24, bar, off)",
                    ludus_rules::excerpt(token),
                    ludus_rules::excerpt(text)
                ))
            })?,
    };
    Ok((p, hit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n1_reads_standard_notation() {
        let p = parse_play("24/18 13/11").unwrap();
        assert_eq!(p.0, vec![Move::new(24, 18), Move::new(13, 11)]);
        let p = parse_play("bar/22 13/7*").unwrap();
        assert_eq!(p.0[0], Move::new(25, 22));
        assert!(p.0[1].hit);
        let p = parse_play("24/18*/13").unwrap();
        assert_eq!(p.0.len(), 2);
        assert!(p.0[0].hit && !p.0[1].hit);
        assert_eq!(p.to_string(), "24/18* 18/13");
        assert_eq!(
            parse_play("8/2(2) 6/off").unwrap().to_string(),
            "8/2(2) 6/off"
        );
    }

    #[test]
    fn n1_rejects_garbage_without_panicking() {
        for t in [
            "24",
            "24/",
            "x/y",
            "24/18(9)",
            "24/18(",
            "300/1",
            "/",
            "24//18",
            "1/2/3/4/5/6/7/8/9/10",
        ] {
            assert!(parse_play(t).is_err(), "{t}");
        }
        assert_eq!(parse_action("pass", true).unwrap(), Action::Drop);
        assert_eq!(
            parse_action("pass", false).unwrap(),
            Action::Play(Play::default())
        );
        assert!(parse_action("resign lots", false).is_err());
    }
}
