//! Everything ratings can refuse, and the gRPC status each maps to.

use ludus_proto::ids::IdError;
use tonic::Status;

/// Why a request failed. Messages are lowercase and name the field.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A malformed request.
    #[error("{0}")]
    InvalidArgument(String),
    /// Concurrent reports kept changing the same players' ratings; the caller may retry.
    #[error("{0}")]
    Aborted(String),
    /// The session store is down: retryable.
    #[error("{0}")]
    Unavailable(String),
    /// A bug or corrupt data; details are logged, not returned.
    #[error("{0}")]
    Internal(String),
}

ludus_store::impl_from_store_error!(ServiceError);

impl From<IdError> for ServiceError {
    fn from(error: IdError) -> Self {
        ServiceError::InvalidArgument(error.to_string())
    }
}

/// Each refusal's message, plus the rich details a client acts on (see
/// `ludus_proto::error_details`).
impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        use ludus_proto::error_details::{DOMAIN_RATINGS, ErrorStatus, reason};
        use tonic::Code;
        let status = ErrorStatus::new(DOMAIN_RATINGS, &error);
        match error {
            ServiceError::InvalidArgument(_) => status.invalid(reason::INVALID_FIELD),
            ServiceError::Aborted(_) => status.refuse(Code::Aborted, reason::CONTENDED),
            ServiceError::Unavailable(_) => status.refuse(Code::Unavailable, reason::UNAVAILABLE),
            ServiceError::Internal(_) => {
                tracing::error!(error = %status.message(), "internal error");
                status.internal()
            }
        }
    }
}
