//! Room codes (C16): six characters from an alphabet without look-alikes, shown as
//! two groups of three ("K7M 4QP"), drawn from the random source the caller passes (the
//! service passes the CSPRNG).

use std::fmt;

use ludus_rules::RandomSource;
use serde::{Deserialize, Serialize};

/// The characters a code is made of: digits and capitals without 0/O and 1/I/L, which read
/// alike on a phone screen or when spoken. 31 characters, so 31^6 ≈ 887 million codes.
pub const CODE_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/// Characters in a code.
pub const CODE_LENGTH: usize = 6;

/// A valid room code, kept in its canonical form (six characters, upper case, no space).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RoomCode(String);

/// Why a text is not a room code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    #[error("a room code has {CODE_LENGTH} characters, this one has {0}")]
    Length(usize),
    #[error("{0:?} is not used in room codes (they have no 0, O, 1, I or L)")]
    Character(char),
}

impl RoomCode {
    /// A random code: each character drawn uniformly from [`CODE_ALPHABET`].
    pub fn random(rng: &mut dyn RandomSource) -> RoomCode {
        let code = (0..CODE_LENGTH)
            .map(|_| {
                let i = rng.below(CODE_ALPHABET.len() as u32) as usize % CODE_ALPHABET.len();
                char::from(CODE_ALPHABET[i])
            })
            .collect();
        RoomCode(code)
    }

    /// Reads a code as people type it: case does not matter, and spaces or a dash between
    /// the groups ("k7m 4qp", "K7M-4QP") are ignored.
    pub fn parse(text: &str) -> Result<RoomCode, CodeError> {
        let code: String = text
            .chars()
            .filter(|c| !matches!(c, ' ' | '-'))
            .map(|c| c.to_ascii_uppercase())
            .collect();
        let length = code.chars().count();
        if length != CODE_LENGTH {
            return Err(CodeError::Length(length));
        }
        if let Some(bad) = code
            .chars()
            .find(|&c| !c.is_ascii() || !CODE_ALPHABET.contains(&(c as u8)))
        {
            return Err(CodeError::Character(bad));
        }
        Ok(RoomCode(code))
    }

    /// The canonical form, as stored and as used in keys: `K7M4QP`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form shown to people: two groups of three, `K7M 4QP` (C16).
    pub fn display(&self) -> String {
        format!("{} {}", &self.0[..3], &self.0[3..])
    }
}

impl fmt::Display for RoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

impl fmt::Debug for RoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RoomCode({})", self.0)
    }
}

impl TryFrom<String> for RoomCode {
    type Error = CodeError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        RoomCode::parse(&value)
    }
}

impl From<RoomCode> for String {
    fn from(code: RoomCode) -> String {
        code.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ludus_rules::ScriptedRandom;
    use proptest::prelude::*;

    #[test]
    fn the_alphabet_has_no_look_alikes() {
        for c in b"01OIL" {
            assert!(!CODE_ALPHABET.contains(c), "{}", *c as char);
        }
        assert_eq!(CODE_ALPHABET.len(), 31);
    }

    #[test]
    fn codes_show_as_two_groups_of_three() {
        // C16: "K7M 4QP".
        let code = RoomCode::parse("K7M4QP").expect("valid");
        assert_eq!(code.display(), "K7M 4QP");
        assert_eq!(code.as_str(), "K7M4QP");
        assert_eq!(RoomCode::parse("k7m 4qp"), Ok(code.clone()));
        assert_eq!(RoomCode::parse("K7M-4QP"), Ok(code));
    }

    #[test]
    fn look_alikes_and_wrong_lengths_are_refused() {
        assert_eq!(RoomCode::parse("K7M4Q0"), Err(CodeError::Character('0')));
        assert_eq!(RoomCode::parse("K7M4QO"), Err(CodeError::Character('O')));
        assert_eq!(RoomCode::parse("l7M4QP"), Err(CodeError::Character('L')));
        assert_eq!(RoomCode::parse("K7M4Q"), Err(CodeError::Length(5)));
        assert_eq!(RoomCode::parse("K7M4QPP"), Err(CodeError::Length(7)));
        assert_eq!(RoomCode::parse("K7M4QÉ"), Err(CodeError::Character('É')));
    }

    proptest! {
        #[test]
        fn random_codes_parse_back(values in proptest::collection::vec(any::<u32>(), 6)) {
            let code = RoomCode::random(&mut ScriptedRandom::new(values));
            prop_assert_eq!(RoomCode::parse(&code.display()), Ok(code.clone()));
            prop_assert_eq!(code.as_str().len(), CODE_LENGTH);
        }
    }
}
