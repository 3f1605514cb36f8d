//! Everything ratings can refuse, and the gRPC status each maps to.

use ludus_proto::ids::IdError;
use ludus_store::StoreError;
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

impl From<IdError> for ServiceError {
    fn from(error: IdError) -> Self {
        ServiceError::InvalidArgument(error.to_string())
    }
}

/// Each refusal's message, plus the rich details a client acts on (see
/// `ludus_proto::error_details`).
impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        use ludus_proto::error_details::{DOMAIN_RATINGS, invalid_argument, reason, refusal};
        use tonic::Code;
        let message = error.to_string();
        match error {
            ServiceError::InvalidArgument(_) => {
                invalid_argument(message, DOMAIN_RATINGS, reason::INVALID_FIELD)
            }
            ServiceError::Aborted(_) => refusal(
                Code::Aborted,
                message,
                DOMAIN_RATINGS,
                reason::CONTENDED,
                &[],
            ),
            ServiceError::Unavailable(_) => refusal(
                Code::Unavailable,
                message,
                DOMAIN_RATINGS,
                reason::UNAVAILABLE,
                &[],
            ),
            ServiceError::Internal(_) => {
                tracing::error!(error = %message, "internal error");
                refusal(
                    Code::Internal,
                    "internal error",
                    DOMAIN_RATINGS,
                    reason::INTERNAL,
                    &[],
                )
            }
        }
    }
}
