//! Everything matchmaking can refuse, and the gRPC status each maps to.

use ludus_catalog::CatalogError;
use ludus_proto::ids::IdError;
use ludus_store::StoreError;
use tonic::Status;

/// Why a request failed. Messages are lowercase and name the field.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A malformed request.
    #[error("{0}")]
    InvalidArgument(String),
    /// Settings the game's catalog entry refuses (the message names the field and rule).
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// No such ticket.
    #[error("{0}")]
    NotFound(String),
    /// The ticket is another player's.
    #[error("{0}")]
    PermissionDenied(String),
    /// The player already holds a live ticket (the message names it).
    #[error("{0}")]
    AlreadyExists(String),
    /// A game without quick match yet.
    #[error("{0}")]
    Unimplemented(String),
    /// A dependency is down or the server is stopping: retryable.
    #[error("{0}")]
    Unavailable(String),
    /// A bug or corrupt data; details are logged, not returned.
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

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        let message = error.to_string();
        match error {
            ServiceError::InvalidArgument(_) => Status::invalid_argument(message),
            ServiceError::Catalog(error) => Status::from(error),
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
