//! Everything matchmaking can refuse, and the gRPC status each maps to.

use ludus_catalog::CatalogError;
use ludus_proto::ids::IdError;
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

ludus_store::impl_from_store_error!(ServiceError);

/// Each refusal's message, plus the rich details a client acts on (see
/// `ludus_proto::error_details`).
impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        use ludus_proto::error_details::{DOMAIN_MATCHMAKING, ErrorStatus, reason};
        use tonic::Code;
        let status = ErrorStatus::new(DOMAIN_MATCHMAKING, &error);
        match error {
            ServiceError::InvalidArgument(_) => status.invalid(reason::INVALID_FIELD),
            ServiceError::Catalog(error) => Status::from(error),
            ServiceError::NotFound(_) => status.refuse(Code::NotFound, reason::TICKET_NOT_FOUND),
            ServiceError::PermissionDenied(_) => {
                status.refuse(Code::PermissionDenied, reason::NOT_YOUR_TICKET)
            }
            ServiceError::AlreadyExists(_) => {
                status.refuse(Code::AlreadyExists, reason::ALREADY_EXISTS)
            }
            ServiceError::Unimplemented(_) => {
                status.refuse(Code::Unimplemented, reason::NOT_OFFERED)
            }
            ServiceError::Unavailable(_) => status.refuse(Code::Unavailable, reason::UNAVAILABLE),
            ServiceError::Internal(_) => {
                tracing::error!(error = %status.message(), "internal error");
                status.internal()
            }
        }
    }
}
