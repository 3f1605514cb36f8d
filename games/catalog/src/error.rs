//! The one refusal type of the catalog, and its gRPC status.

use tonic::Status;

use crate::hosting::Refusal;

/// Why settings or an action are not valid. Messages are lowercase, name the field or the
/// rule (`settings.caro.board_size: C1: …`), and never carry hidden information.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CatalogError {
    /// Malformed settings or action (INVALID_ARGUMENT): the message starts with the field,
    /// then the rule id where a rule says why.
    #[error("{0}")]
    InvalidArgument(String),
    /// The rules refuse it now (FAILED_PRECONDITION); the refusal carries the rule id.
    #[error("{}", .0.message)]
    Rule(Refusal),
    /// A stored game could not be read or written: a bug or corrupt data (INTERNAL); the
    /// details are logged, not returned.
    #[error("{0}")]
    Internal(String),
}

impl CatalogError {
    /// The rule a [`CatalogError::Rule`] refusal names.
    pub fn rule(&self) -> Option<&'static str> {
        match self {
            CatalogError::Rule(refusal) => Some(refusal.rule),
            CatalogError::InvalidArgument(_) | CatalogError::Internal(_) => None,
        }
    }
}

/// The single place a catalog refusal becomes a gRPC status: every service that wraps a
/// [`CatalogError`] in its own error converts it with this.
impl From<CatalogError> for Status {
    fn from(error: CatalogError) -> Self {
        let message = error.to_string();
        match error {
            CatalogError::InvalidArgument(_) => Status::invalid_argument(message),
            CatalogError::Rule(_) => Status::failed_precondition(message),
            CatalogError::Internal(_) => {
                tracing::error!(error = %message, "internal error");
                Status::internal("internal error")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_refusal_has_its_status() {
        let invalid = Status::from(CatalogError::InvalidArgument("settings: x".into()));
        assert_eq!(invalid.code(), tonic::Code::InvalidArgument);
        assert_eq!(invalid.message(), "settings: x");
        let refusal = CatalogError::Rule(Refusal {
            rule: "C8",
            message: "C8: no".into(),
        });
        assert_eq!(refusal.rule(), Some("C8"));
        let rule = Status::from(refusal);
        assert_eq!(rule.code(), tonic::Code::FailedPrecondition);
        assert_eq!(rule.message(), "C8: no");
        let internal = Status::from(CatalogError::Internal("state: bad json".into()));
        assert_eq!(internal.code(), tonic::Code::Internal);
        assert_eq!(
            internal.message(),
            "internal error",
            "details are not returned"
        );
    }
}
