//! The machine-readable half of every Ludus refusal: the standard rich error details of
//! Google's API guidelines (AIP-193), so a client acts on `ErrorInfo.reason` instead of
//! parsing the message (which stays human text and unchanged).
//!
//! Every refusal carries a `google.rpc.ErrorInfo` whose `reason` is the rule id that refuses
//! (`C3`, `Q12`, `M1/K1`) or, where no rule applies, a stable UPPER_SNAKE code from [`reason`];
//! its `domain` names the service that refused ([`DOMAIN_GAMES`], …). INVALID_ARGUMENT also
//! carries a `google.rpc.BadRequest` with one `FieldViolation` naming the field. Clients read
//! them with [`StatusExt::get_error_details`]. The table of reasons is in ARCHITECTURE.md
//! ("Errors") and in the comments of `gateway.proto`.
//!
//! Messages follow one convention the helpers rely on: an invalid argument's message starts
//! with the field (`settings.caro.board_size: C1: …`), a rule refusal's with the rule id
//! (`C8: …`).
//!
//! The constants and the message convention ([`field_of`], [`rule_of`]) need nothing but the
//! messages; what builds a `tonic::Status` comes with the `grpc` feature.

#[cfg(feature = "grpc")]
use std::collections::HashMap;

#[cfg(feature = "grpc")]
use tonic::{Code, Status};
#[cfg(feature = "grpc")]
pub use tonic_types::{BadRequest, ErrorDetails, ErrorInfo, FieldViolation, StatusExt};

/// Refusals of game-state: sessions, actions, draws, presence, analysis.
pub const DOMAIN_GAMES: &str = "ludus.games";
/// Refusals of matchmaking: tickets and queues.
pub const DOMAIN_MATCHMAKING: &str = "ludus.matchmaking";
/// Refusals of ratings.
pub const DOMAIN_RATINGS: &str = "ludus.ratings";
/// Refusals of timers (internal only).
pub const DOMAIN_TIMERS: &str = "ludus.timers";
/// The gateway's own refusals: tokens, limits, validation.
pub const DOMAIN_GATEWAY: &str = "ludus.gateway";
/// Refusals of accounts: registration, sign-in, refresh tokens, profiles, the archive.
pub const DOMAIN_ACCOUNTS: &str = "ludus.accounts";
/// Refusals of the rooms service (codes, seats, host rights, chat).
pub const DOMAIN_ROOMS: &str = "ludus.rooms";
/// Calls between Ludus services whose connection broke (`ludus_server::upstream`).
pub const DOMAIN_TRANSPORT: &str = "ludus.transport";

/// `ErrorInfo.metadata` key: the game's current seq (ABORTED `STALE_SEQ`).
pub const META_CURRENT_SEQ: &str = "current_seq";
/// `ErrorInfo.metadata` key: the game a refusal is about.
pub const META_GAME_ID: &str = "game_id";
/// `ErrorInfo.metadata` key: the rule that ended a game (`GAME_OVER`).
pub const META_RULE: &str = "rule";
/// `ErrorInfo.metadata` key: the seq to resume a stream after (UNAVAILABLE at shutdown).
pub const META_AFTER_SEQ: &str = "after_seq";
/// `ErrorInfo.metadata` key: the field of an INVALID_ARGUMENT (also in `BadRequest`).
pub const META_FIELD: &str = "field";
/// The internal method a broken call was for (`/ludus.v1.GameState/GetSnapshot`).
pub const META_UPSTREAM: &str = "upstream";
/// `true` when a call that broke may still have been applied upstream: read before retrying
/// a write that is not idempotent.
pub const META_MAYBE_APPLIED: &str = "maybe_applied";

/// The stable reasons where no rule id applies. Adding one is a contract change: list it in
/// ARCHITECTURE.md and gateway.proto.
pub mod reason {
    /// INVALID_ARGUMENT: a malformed field (the `BadRequest` names it).
    pub const INVALID_FIELD: &str = "INVALID_FIELD";
    /// INVALID_ARGUMENT: the request body is not a protobuf message of the call's type.
    pub const MALFORMED_REQUEST: &str = "MALFORMED_REQUEST";
    /// INVALID_ARGUMENT: an id (game, ticket, action, player) that is empty, too long or has
    /// characters outside `[A-Za-z0-9_-]`.
    pub const INVALID_ID: &str = "INVALID_ID";
    /// INVALID_ARGUMENT: a display name outside the allowed length or characters.
    pub const INVALID_DISPLAY_NAME: &str = "INVALID_DISPLAY_NAME";
    /// INVALID_ARGUMENT: a rating pool name that is not one.
    pub const INVALID_RULESET: &str = "INVALID_RULESET";
    /// ABORTED: `expected_seq` is stale; metadata `current_seq` is the game's seq now.
    pub const STALE_SEQ: &str = "STALE_SEQ";
    /// OUT_OF_RANGE: a stream asked to resume after an event the game has not had (metadata
    /// `current_seq`: the game's last event).
    pub const AFTER_SEQ_AHEAD: &str = "AFTER_SEQ_AHEAD";
    /// ABORTED: concurrent writers kept changing the same record; retry.
    pub const CONTENDED: &str = "CONTENDED";
    /// FAILED_PRECONDITION: the game is over; metadata `rule` ended it.
    pub const GAME_OVER: &str = "GAME_OVER";
    /// FAILED_PRECONDITION: the request needs a state the game is not in (no draw offer to
    /// answer, still being played…).
    pub const WRONG_STATE: &str = "WRONG_STATE";
    /// PERMISSION_DENIED: the caller does not sit in the game.
    pub const NOT_YOUR_SEAT: &str = "NOT_YOUR_SEAT";
    /// PERMISSION_DENIED: a C13 friend-room choice belongs to the player who stayed.
    pub const NOT_YOUR_CHOICE: &str = "NOT_YOUR_CHOICE";
    /// PERMISSION_DENIED: engine analysis of a live game the caller plays in.
    pub const NO_ENGINE_HELP: &str = "NO_ENGINE_HELP";
    /// PERMISSION_DENIED: the ticket is another player's.
    pub const NOT_YOUR_TICKET: &str = "NOT_YOUR_TICKET";
    /// NOT_FOUND: no such game.
    pub const GAME_NOT_FOUND: &str = "GAME_NOT_FOUND";
    /// NOT_FOUND: no such ticket.
    pub const TICKET_NOT_FOUND: &str = "TICKET_NOT_FOUND";
    /// ALREADY_EXISTS: a game with this id exists, or the player holds a live ticket.
    pub const ALREADY_EXISTS: &str = "ALREADY_EXISTS";
    /// UNIMPLEMENTED: a game or mode not offered yet.
    pub const NOT_OFFERED: &str = "NOT_OFFERED";
    /// UNAVAILABLE: a dependency is down or the server is stopping; retry.
    pub const UNAVAILABLE: &str = "UNAVAILABLE";
    /// UNAVAILABLE: the connection to an internal service broke and stayed broken through
    /// the retries its method allows; retry (metadata `maybe_applied` says whether to read
    /// first).
    pub const UPSTREAM_UNAVAILABLE: &str = "UPSTREAM_UNAVAILABLE";
    /// INTERNAL: a bug or corrupt data (details are logged, not returned).
    pub const INTERNAL: &str = "INTERNAL";
    /// UNAUTHENTICATED: no `authorization: Bearer <token>` header, or not in that form.
    pub const TOKEN_MISSING: &str = "TOKEN_MISSING";
    /// UNAUTHENTICATED: the token has expired; sign in again.
    pub const TOKEN_EXPIRED: &str = "TOKEN_EXPIRED";
    /// UNAUTHENTICATED: the token is not valid.
    pub const TOKEN_INVALID: &str = "TOKEN_INVALID";
    /// RESOURCE_EXHAUSTED: the caller's request rate limit.
    pub const RATE_LIMITED: &str = "RATE_LIMITED";
    /// RESOURCE_EXHAUSTED: too many open event streams for one player.
    pub const TOO_MANY_STREAMS: &str = "TOO_MANY_STREAMS";
    /// INVALID_ARGUMENT: a username outside 3-24 characters of a-z, 0-9 and _.
    pub const INVALID_USERNAME: &str = "INVALID_USERNAME";
    /// INVALID_ARGUMENT: a password shorter than 8 or longer than 128 characters.
    pub const INVALID_PASSWORD: &str = "INVALID_PASSWORD";
    /// ALREADY_EXISTS: the username is taken (case-insensitively).
    pub const USERNAME_TAKEN: &str = "USERNAME_TAKEN";
    /// ALREADY_EXISTS / FAILED_PRECONDITION: the player already has an account.
    pub const ALREADY_REGISTERED: &str = "ALREADY_REGISTERED";
    /// FAILED_PRECONDITION: the call needs a registered account (a guest made it).
    pub const ACCOUNT_REQUIRED: &str = "ACCOUNT_REQUIRED";
    /// UNAUTHENTICATED: unknown username or wrong password (one answer for both).
    pub const WRONG_CREDENTIALS: &str = "WRONG_CREDENTIALS";
    /// RESOURCE_EXHAUSTED: too many failed sign-ins for this username or from this address;
    /// metadata `limit` says which (`username`, `address`), `retry_after_seconds` when.
    pub const SIGN_IN_LOCKED: &str = "SIGN_IN_LOCKED";
    /// UNAUTHENTICATED: a refresh token that is unknown, expired or signed out: sign in again.
    pub const REFRESH_INVALID: &str = "REFRESH_INVALID";
    /// UNAUTHENTICATED: a refresh token used twice; its whole session is revoked.
    pub const REFRESH_REUSED: &str = "REFRESH_REUSED";
    /// NOT_FOUND: no account for the player.
    pub const ACCOUNT_NOT_FOUND: &str = "ACCOUNT_NOT_FOUND";
    /// NOT_FOUND: the archive holds no such game.
    pub const ARCHIVED_GAME_NOT_FOUND: &str = "ARCHIVED_GAME_NOT_FOUND";
}

/// The longest message a refusal carries, in bytes. A message quotes client input through
/// `ludus_rules::excerpt` (a bounded slice); this is the backstop for one that does not: a
/// message travels in the reply's headers, and 8 KB of them broke the connection every other
/// caller on it shared (ARCHITECTURE.md, "Errors").
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// `message` cut to at most [`MAX_MESSAGE_BYTES`] bytes on a character boundary, marked with
/// "…" where it was cut.
pub fn bounded_message(message: String) -> String {
    if message.len() <= MAX_MESSAGE_BYTES {
        return message;
    }
    let mut end = MAX_MESSAGE_BYTES - '…'.len_utf8();
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &message[..end])
}

/// A status with `ErrorInfo { reason, domain, metadata }` attached; the message is unchanged
/// but for the [`MAX_MESSAGE_BYTES`] bound.
#[cfg(feature = "grpc")]
pub fn refusal(
    code: Code,
    message: impl Into<String>,
    domain: &str,
    reason: &str,
    metadata: &[(&str, String)],
) -> Status {
    let message = bounded_message(message.into());
    let metadata: HashMap<String, String> = metadata
        .iter()
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect();
    Status::with_error_details(
        code,
        message,
        ErrorDetails::with_error_info(reason, domain, metadata),
    )
}

/// One service error on its way to a [`Status`]: its message and the refusing service's
/// domain, so that a service's `From<Error> for Status` is one match that names only each
/// case's code and reason.
#[cfg(feature = "grpc")]
#[derive(Debug)]
pub struct ErrorStatus {
    message: String,
    domain: &'static str,
}

#[cfg(feature = "grpc")]
impl ErrorStatus {
    /// `error`'s message, refused in `domain`.
    pub fn new(domain: &'static str, error: &impl std::fmt::Display) -> Self {
        ErrorStatus {
            message: error.to_string(),
            domain,
        }
    }

    /// The message, e.g. to log an internal error before hiding it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// A [`refusal`] with `code` and `reason` and no metadata.
    pub fn refuse(&self, code: Code, reason: &str) -> Status {
        self.refuse_with(code, reason, &[])
    }

    /// A [`refusal`] with `code`, `reason` and `metadata`.
    pub fn refuse_with(&self, code: Code, reason: &str, metadata: &[(&str, String)]) -> Status {
        refusal(code, self.message.clone(), self.domain, reason, metadata)
    }

    /// An [`invalid_argument`] (`reason` unless the message names a rule).
    pub fn invalid(&self, reason: &str) -> Status {
        invalid_argument(self.message.clone(), self.domain, reason)
    }

    /// An [`internal_error`]: the message is the caller's to log, never the client's.
    pub fn internal(&self) -> Status {
        internal_error(self.domain)
    }
}

/// INTERNAL as a client sees it: "internal error" and nothing more. The service logs what
/// went wrong itself, since the details may name stored data.
#[cfg(feature = "grpc")]
pub fn internal_error(domain: &str) -> Status {
    refusal(
        Code::Internal,
        "internal error",
        domain,
        reason::INTERNAL,
        &[],
    )
}

/// An INVALID_ARGUMENT whose message follows `field: [rule: ]why`: `BadRequest` names the
/// field, and `ErrorInfo.reason` is the rule id when the message names one, else `reason`.
#[cfg(feature = "grpc")]
pub fn invalid_argument(message: impl Into<String>, domain: &str, reason: &str) -> Status {
    let message = bounded_message(message.into());
    let field = field_of(&message).unwrap_or_default();
    let reason = rule_of(&message).unwrap_or(reason);
    let description = message
        .strip_prefix(field)
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(&message);
    let mut details = ErrorDetails::with_error_info(
        reason,
        domain,
        HashMap::from([(META_FIELD.to_owned(), field.to_owned())]),
    );
    details.add_bad_request_violation(field, description);
    Status::with_error_details(Code::InvalidArgument, message, details)
}

/// The field an invalid argument's message starts with (`settings.caro.board_size`,
/// `action.mancala.pit`, `players[1]`), if it starts with one.
pub fn field_of(message: &str) -> Option<&str> {
    let (head, _) = message.split_once(": ")?;
    let is_path = !head.is_empty()
        && head.starts_with(|c: char| c.is_ascii_lowercase())
        && head
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._[]".contains(c));
    is_path.then_some(head)
}

/// The rule id a message names first: its opening (`C8: …`) or right after its field
/// (`settings.caro.board_size: C1: …`).
pub fn rule_of(message: &str) -> Option<&str> {
    let rest = match field_of(message) {
        Some(field) => &message[field.len() + 2..],
        None => message,
    };
    let (head, _) = rest.split_once(": ")?;
    head.split('/').all(is_rule_id).then_some(head)
}

/// `C3`, `Q12`, `LJ1`: one to three capitals, then one to three digits.
fn is_rule_id(token: &str) -> bool {
    let letters = token.chars().take_while(char::is_ascii_uppercase).count();
    let digits = token.len() - letters;
    (1..=3).contains(&letters)
        && (1..=3).contains(&digits)
        && token[letters..].chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_rules_are_read_from_the_message_convention() {
        let cases = [
            (
                "settings.caro.board_size: C1: 15 or 19",
                Some("settings.caro.board_size"),
                Some("C1"),
            ),
            (
                "players[1]: must be 1 to 64 characters",
                Some("players[1]"),
                None,
            ),
            (
                "settings.mancala.rule_set: M1/K1: x is not a rule set",
                Some("settings.mancala.rule_set"),
                Some("M1/K1"),
            ),
            ("C8: a draw is offered only on your turn", None, Some("C8")),
            ("LJ1: no draw offers in flip junqi", None, Some("LJ1")),
            (
                "stale expected_seq 3: game g is at seq 5; read it again",
                None,
                None,
            ),
            ("no game g1", None, None),
        ];
        for (message, field, rule) in cases {
            assert_eq!(field_of(message), field, "{message}");
            assert_eq!(rule_of(message), rule, "{message}");
        }
    }

    #[cfg(feature = "grpc")]
    #[test]
    fn an_invalid_argument_names_its_field_and_rule() {
        let status = invalid_argument(
            "settings.caro.board_size: C1: 15 or 19, not 7",
            DOMAIN_GAMES,
            reason::INVALID_FIELD,
        );
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(
            status.message(),
            "settings.caro.board_size: C1: 15 or 19, not 7"
        );
        let details = status.get_error_details();
        let info = details.error_info().expect("ErrorInfo");
        assert_eq!(
            (info.reason.as_str(), info.domain.as_str()),
            ("C1", DOMAIN_GAMES)
        );
        let violations = &details.bad_request().expect("BadRequest").field_violations;
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].field, "settings.caro.board_size");
        assert_eq!(violations[0].description, "C1: 15 or 19, not 7");

        let plain = invalid_argument(
            "game_id: must be 1 to 64 characters",
            DOMAIN_GAMES,
            reason::INVALID_ID,
        );
        let info = plain
            .get_error_details()
            .error_info()
            .cloned()
            .expect("ErrorInfo");
        assert_eq!(info.reason, reason::INVALID_ID);
        assert_eq!(info.metadata[META_FIELD], "game_id");
    }

    #[cfg(feature = "grpc")]
    #[test]
    fn a_message_is_bounded_on_a_character_boundary() {
        let short = "level: unknown".to_owned();
        assert_eq!(bounded_message(short.clone()), short);
        let long = format!("level: unknown {}", "é".repeat(64 * 1024));
        let bounded = bounded_message(long);
        assert!(bounded.len() <= MAX_MESSAGE_BYTES, "{}", bounded.len());
        assert!(bounded.starts_with("level: unknown éé") && bounded.ends_with('…'));
        let status = invalid_argument(
            format!("level: {}", "x".repeat(60_000)),
            DOMAIN_GAMES,
            reason::INVALID_FIELD,
        );
        assert!(status.message().len() <= MAX_MESSAGE_BYTES);
    }

    #[test]
    fn a_refusal_carries_its_metadata() {
        let status = refusal(
            Code::Aborted,
            "stale",
            DOMAIN_GAMES,
            reason::STALE_SEQ,
            &[(META_CURRENT_SEQ, "5".into())],
        );
        let info = status
            .get_error_details()
            .error_info()
            .cloned()
            .expect("ErrorInfo");
        assert_eq!(info.reason, "STALE_SEQ");
        assert_eq!(info.metadata[META_CURRENT_SEQ], "5");
        assert_eq!(status.message(), "stale");
    }
}
