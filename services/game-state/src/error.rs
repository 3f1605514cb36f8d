//! Everything game-state can refuse, and the gRPC status each maps to.

use ludus_proto::ids::IdError;
use ludus_store::StoreError;
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
    /// The caller's expected_seq is stale.
    #[error("{0}")]
    Aborted(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    PermissionDenied(String),
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{0}")]
    Unimplemented(String),
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

impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(message) => {
                ServiceError::Unavailable(format!("session store unavailable: {message}"))
            }
            other => ServiceError::Internal(format!("session store: {other}")),
        }
    }
}

impl From<Status> for ServiceError {
    fn from(status: Status) -> Self {
        ServiceError::Unavailable(format!("dependency failed: {}", status.message()))
    }
}

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        let message = error.to_string();
        match error {
            ServiceError::InvalidArgument(_) => Status::invalid_argument(message),
            ServiceError::Catalog(error) => Status::from(error),
            ServiceError::FailedPrecondition(_) => Status::failed_precondition(message),
            ServiceError::Aborted(_) => Status::aborted(message),
            ServiceError::NotFound(_) => Status::not_found(message),
            ServiceError::PermissionDenied(_) => Status::permission_denied(message),
            ServiceError::AlreadyExists(_) => Status::already_exists(message),
            ServiceError::Unimplemented(_) => Status::unimplemented(message),
            ServiceError::Unavailable(_) => Status::unavailable(message),
            ServiceError::Internal(_) => {
                tracing::error!(error = %message, "internal error");
                Status::internal("internal error")
            }
        }
    }
}
