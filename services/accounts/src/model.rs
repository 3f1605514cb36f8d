//! Validated account values, and conversions between them and the proto messages.
//!
//! A value of these types has passed its policy: a [`Username`] is 3 to 24 of `[a-z0-9_]`
//! (upper case folded, so uniqueness ignores case), a [`Password`] 8 to 128 characters. The
//! secrets ([`Password`], [`RefreshToken`]) print as `<redacted>` in `Debug`.

use std::fmt;

use ludus_proto::pb;
use rand::RngExt;
use sha2::{Digest, Sha256};

use crate::error::ServiceError;

pub const MIN_USERNAME_CHARS: usize = 3;
pub const MAX_USERNAME_CHARS: usize = 24;
pub const MIN_PASSWORD_CHARS: usize = 8;
pub const MAX_PASSWORD_CHARS: usize = 128;
/// Random bytes in a refresh token (256 bits).
pub const REFRESH_TOKEN_BYTES: usize = 32;

/// A sign-in name: lower case, 3 to 24 of `[a-z0-9_]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Username(String);

impl Username {
    /// Folds upper case to lower case, then checks the policy.
    pub fn parse(raw: &str) -> Result<Self, ServiceError> {
        let folded = raw.to_ascii_lowercase();
        let length = folded.chars().count();
        if !(MIN_USERNAME_CHARS..=MAX_USERNAME_CHARS).contains(&length)
            || !folded
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            return Err(ServiceError::BadUsername);
        }
        Ok(Username(folded))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A username read back from the database, where only parsed ones are written.
    pub(crate) fn trusted(stored: String) -> Self {
        Username(stored)
    }
}

impl fmt::Display for Username {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A password of 8 to 128 characters; `Debug` never shows it.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    /// Checks the length policy (in characters, so any script counts fairly).
    pub fn parse(raw: String) -> Result<Self, ServiceError> {
        let length = raw.chars().count();
        if length < MIN_PASSWORD_CHARS {
            return Err(ServiceError::PasswordTooShort);
        }
        if length > MAX_PASSWORD_CHARS {
            return Err(ServiceError::PasswordTooLong);
        }
        Ok(Password(raw))
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

/// Trims a display name and checks it against the shared policy
/// ([`ludus_proto::ids::validate_display_name`]: the same limit the gateway applies at
/// sign-in, so a name accepted there is never refused here).
pub fn check_display_name(name: &str) -> Result<String, ServiceError> {
    let name = name.trim();
    ludus_proto::ids::validate_display_name("display_name", name)?;
    Ok(name.to_owned())
}

/// Checks a player id passed by the gateway against the shared id policy.
pub fn check_player_id(id: &str) -> Result<(), ServiceError> {
    ludus_proto::ids::validate_id("player_id", id)?;
    Ok(())
}

/// Guest player ids (minted by the gateway) start with this; only they can be upgraded.
pub const GUEST_PREFIX: &str = "g-";
/// Player ids of accounts registered without a guest before them.
pub const ACCOUNT_PREFIX: &str = "a-";

/// A new player id for an account registered from scratch.
pub fn new_account_player_id() -> String {
    format!("{ACCOUNT_PREFIX}{}", ulid::Ulid::generate())
}

/// A registered account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub player_id: String,
    pub username: Username,
    pub display_name: String,
    pub created_at_ms: i64,
}

impl From<Account> for pb::Account {
    fn from(account: Account) -> Self {
        pb::Account {
            player_id: account.player_id,
            username: account.username.0,
            display_name: account.display_name,
            created_at_unix_ms: account.created_at_ms,
        }
    }
}

/// A refresh token as handed to a client: 256 bits from the CSPRNG, hex encoded. Only its
/// [`TokenDigest`] is stored.
#[derive(Clone, PartialEq, Eq)]
pub struct RefreshToken(String);

impl RefreshToken {
    /// A fresh token from the thread CSPRNG (ChaCha, seeded from the OS).
    pub fn generate() -> Self {
        let bytes: [u8; REFRESH_TOKEN_BYTES] = rand::rng().random();
        RefreshToken(hex(&bytes))
    }

    /// A token presented by a client; anything but 64 lowercase hex digits is refused as
    /// unknown without touching the database.
    pub fn parse(raw: String) -> Option<Self> {
        (raw.len() == REFRESH_TOKEN_BYTES * 2
            && raw
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        .then_some(RefreshToken(raw))
    }

    /// What the database stores: SHA-256 suffices for a 256-bit random secret (no dictionary
    /// to attack, so no slow hash is needed), and a stolen table yields no usable token.
    pub fn digest(&self) -> TokenDigest {
        TokenDigest(hex(&Sha256::digest(self.0.as_bytes())))
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Debug for RefreshToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RefreshToken(<redacted>)")
    }
}

/// The stored SHA-256 digest of a refresh token, hex encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenDigest(pub(crate) String);

impl TokenDigest {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Lowercase hex of `bytes`. By table, not `write!("{:02x}")` per byte: an archived game's
/// record is kilobytes, and formatting it byte by byte was most of the archive's CPU in a
/// burst of game ends (BENCHMARKS.md, "Game ends in bulk").
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_two_lowercase_digits_per_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0x10, 0xa5, 0xff]), "000f10a5ff");
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn usernames_fold_case_and_keep_to_the_alphabet() {
        assert_eq!(Username::parse("Ann_99").unwrap().as_str(), "ann_99");
        assert_eq!(
            Username::parse("ANN_99").unwrap(),
            Username::parse("ann_99").unwrap()
        );
        for bad in ["ab", &"a".repeat(25), "ann-1", "ann 1", "änn", "", "ann@x"] {
            assert!(Username::parse(bad).is_err(), "{bad:?} accepted");
        }
        assert!(Username::parse(&"a".repeat(24)).is_ok());
        assert!(Username::parse("abc").is_ok());
    }

    #[test]
    fn passwords_are_8_to_128_characters() {
        assert!(matches!(
            Password::parse("1234567".into()),
            Err(ServiceError::PasswordTooShort)
        ));
        assert!(Password::parse("12345678".into()).is_ok());
        assert!(
            Password::parse("é".repeat(128)).is_ok(),
            "characters, not bytes"
        );
        assert!(matches!(
            Password::parse("x".repeat(129)),
            Err(ServiceError::PasswordTooLong)
        ));
    }

    #[test]
    fn ids_and_names_follow_the_shared_policy() {
        assert_eq!(check_display_name("  Ann Lee ").unwrap(), "Ann Lee");
        let too_long = check_display_name(&"x".repeat(33)).unwrap_err();
        assert_eq!(
            too_long.to_string(),
            "display_name: must be 1 to 32 characters"
        );
        assert!(check_display_name("a\u{202E}b").is_err(), "bidi override");
        assert!(check_player_id("g-01JABC").is_ok());
        let bad = check_player_id("a b").unwrap_err();
        assert_eq!(
            bad.to_string(),
            "player_id: only letters, digits, '-' and '_' are allowed"
        );
    }

    #[test]
    fn secrets_print_redacted() {
        let password = Password::parse("correct horse".into()).unwrap();
        assert!(!format!("{password:?}").contains("horse"));
        let token = RefreshToken::generate();
        let raw = token.clone().into_string();
        assert!(!format!("{token:?}").contains(&raw));
    }

    #[test]
    fn refresh_tokens_are_256_random_bits_and_stored_as_digests() {
        let a = RefreshToken::generate();
        let b = RefreshToken::generate();
        assert_ne!(a, b);
        let raw = a.clone().into_string();
        assert_eq!(raw.len(), 64);
        assert_eq!(RefreshToken::parse(raw.clone()), Some(a.clone()));
        assert_ne!(a.digest().as_str(), raw, "the digest is not the token");
        assert_eq!(a.digest(), RefreshToken::parse(raw).unwrap().digest());
        assert_eq!(RefreshToken::parse("zz".repeat(32)), None);
        assert_eq!(RefreshToken::parse("ab".into()), None);
    }
}
