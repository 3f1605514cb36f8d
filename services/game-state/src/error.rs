//! Everything game-state can refuse, and the gRPC status each maps to.

use ludus_proto::ids::IdError;
use tonic::Status;

use ludus_catalog::CatalogError;

/// Why a request failed. Messages are lowercase, name the field or the rule, and never carry
/// hidden information.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A malformed request.
    #[error("{0}")]
    InvalidArgument(String),
    /// Settings or an action the game's catalog entry refuses (malformed, or against a rule:
    /// the message names the rule id).
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// Not allowed in the game's current state (game over, no draw offer…).
    #[error("{0}")]
    FailedPrecondition(String),
    /// The game is over: `rule` ended it.
    #[error("{rule}: the game is over ({why})")]
    GameOver { rule: String, why: String },
    /// The caller's expected_seq is stale: the game is at `current`.
    #[error("stale expected_seq {expected}: game {game_id} is at seq {current}; read it again")]
    StaleSeq {
        expected: u64,
        game_id: String,
        current: u64,
    },
    /// Concurrent writers kept changing the game; the caller may retry.
    #[error("{0}")]
    Aborted(String),
    #[error("{0}")]
    NotFound(String),
    /// The caller may not do this; `.0` is the stable reason (`NOT_YOUR_SEAT`, …).
    #[error("{1}")]
    PermissionDenied(&'static str, String),
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{0}")]
    Unimplemented(String),
    /// A bounded resource is full (the analysis queue, one caller's share of it).
    #[error("{0}")]
    ResourceExhausted(String),
    /// A dependency (Redis, timers, ratings) is down: retryable.
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Internal(String),
}

impl From<IdError> for ServiceError {
    fn from(error: IdError) -> Self {
        ServiceError::InvalidArgument(error.to_string())
    }
}

ludus_store::impl_from_store_error!(ServiceError);

impl From<Status> for ServiceError {
    fn from(status: Status) -> Self {
        ServiceError::Unavailable(format!("dependency failed: {}", status.message()))
    }
}

/// Each refusal's message, plus the rich details a client acts on (see
/// `ludus_proto::error_details`): the rule id or a stable reason, and the current seq of a
/// stale write.
impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        use ludus_proto::error_details::{
            DOMAIN_GAMES, ErrorStatus, META_CURRENT_SEQ, META_GAME_ID, META_RULE, reason, rule_of,
        };
        use tonic::Code;
        let status = ErrorStatus::new(DOMAIN_GAMES, &error);
        match error {
            ServiceError::InvalidArgument(_) => status.invalid(reason::INVALID_FIELD),
            ServiceError::Catalog(error) => Status::from(error),
            ServiceError::FailedPrecondition(_) => status.refuse(
                Code::FailedPrecondition,
                rule_of(status.message()).unwrap_or(reason::WRONG_STATE),
            ),
            ServiceError::GameOver { rule, .. } => status.refuse_with(
                Code::FailedPrecondition,
                reason::GAME_OVER,
                &[(META_RULE, rule)],
            ),
            ServiceError::StaleSeq {
                current, game_id, ..
            } => status.refuse_with(
                Code::Aborted,
                reason::STALE_SEQ,
                &[
                    (META_CURRENT_SEQ, current.to_string()),
                    (META_GAME_ID, game_id),
                ],
            ),
            ServiceError::Aborted(_) => status.refuse(Code::Aborted, reason::CONTENDED),
            ServiceError::NotFound(_) => status.refuse(Code::NotFound, reason::GAME_NOT_FOUND),
            ServiceError::PermissionDenied(why, _) => status.refuse(Code::PermissionDenied, why),
            ServiceError::AlreadyExists(_) => {
                status.refuse(Code::AlreadyExists, reason::ALREADY_EXISTS)
            }
            ServiceError::Unimplemented(_) => {
                status.refuse(Code::Unimplemented, reason::NOT_OFFERED)
            }
            ServiceError::ResourceExhausted(_) => {
                status.refuse(Code::ResourceExhausted, reason::RATE_LIMITED)
            }
            ServiceError::Unavailable(_) => status.refuse(Code::Unavailable, reason::UNAVAILABLE),
            ServiceError::Internal(_) => {
                tracing::error!(error = %status.message(), "internal error");
                status.internal()
            }
        }
    }
}
