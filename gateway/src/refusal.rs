//! The gateway's own refusals (tokens, limits, validation, shutdown) with the rich details
//! every Ludus refusal carries (`ludus_proto::error_details`), in domain `ludus.gateway`.
//! Refusals of the internal services pass through unchanged, details included: the handlers
//! return the internal `Status` as it came.

use ludus_proto::error_details::{self, DOMAIN_GATEWAY};
use tonic::{Code, Status};

pub use ludus_proto::error_details::reason;

/// A refusal of the gateway with `ErrorInfo { reason }`; `message` is what people read.
pub fn refuse(code: Code, message: impl Into<String>, reason: &str) -> Status {
    error_details::refusal(code, message, DOMAIN_GATEWAY, reason, &[])
}

/// INVALID_ARGUMENT whose message starts with the field: `BadRequest` names it.
pub fn invalid(message: impl Into<String>, reason: &str) -> Status {
    error_details::invalid_argument(message, DOMAIN_GATEWAY, reason)
}

/// UNAVAILABLE for a stream the client resumes with `after_seq` (metadata `after_seq`).
pub fn resume_after(message: impl Into<String>, after_seq: u64) -> Status {
    error_details::refusal(
        Code::Unavailable,
        message,
        DOMAIN_GATEWAY,
        reason::UNAVAILABLE,
        &[(error_details::META_AFTER_SEQ, after_seq.to_string())],
    )
}

/// OUT_OF_RANGE for a stream asked to resume after an event the game has not had (metadata
/// `current_seq`: the last event there is).
pub fn after_seq_ahead(game_id: &str, after_seq: u64, current_seq: u64) -> Status {
    error_details::refusal(
        Code::OutOfRange,
        format!(
            "after_seq {after_seq} is past the last event of game {game_id} ({current_seq}): \
             resume from a seq you received"
        ),
        DOMAIN_GATEWAY,
        reason::AFTER_SEQ_AHEAD,
        &[(error_details::META_CURRENT_SEQ, current_seq.to_string())],
    )
}
