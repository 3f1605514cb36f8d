//! The one refusal type of the catalog, and its gRPC status.

use ludus_proto::error_details;
#[cfg(feature = "grpc")]
use tonic::{Code, Status};

use crate::GameKind;
use crate::hosting::RuleError;

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
    Rule(RuleError),
    /// A stored game could not be read or written: a bug or corrupt data (INTERNAL); the
    /// details are logged, not returned.
    #[error("{0}")]
    Internal(String),
}

impl CatalogError {
    /// Settings whose options are another game's than `kind`.
    pub(crate) fn options_not_for(kind: GameKind) -> CatalogError {
        CatalogError::InvalidArgument(format!("settings.options: expected {kind} options"))
    }

    /// An action of another game than `kind`, the game being played.
    pub(crate) fn action_not_for(kind: GameKind) -> CatalogError {
        CatalogError::InvalidArgument(format!(
            "action: this is a {kind} game: send action.{kind} or action.notation"
        ))
    }

    /// The rule that refuses: a [`CatalogError::Rule`]'s rule id, or the rule an invalid
    /// argument's message names after its field (`settings.caro.board_size: C1: …`).
    pub fn rule(&self) -> Option<&str> {
        match self {
            CatalogError::Rule(refusal) => Some(refusal.rule),
            CatalogError::InvalidArgument(message) => error_details::rule_of(message),
            CatalogError::Internal(_) => None,
        }
    }

    /// The request field an invalid argument names (its message starts with it).
    pub fn field(&self) -> Option<&str> {
        match self {
            CatalogError::InvalidArgument(message) => error_details::field_of(message),
            CatalogError::Rule(_) | CatalogError::Internal(_) => None,
        }
    }
}

/// The single place a catalog refusal becomes a gRPC status: every service that wraps a
/// [`CatalogError`] in its own error converts it with this. The message is the error's text;
/// the details say the same for machines: `ErrorInfo.reason` is the rule id (or
/// `INVALID_FIELD` where no rule applies) in domain `ludus.games`, and an invalid argument's
/// `BadRequest` names the field.
#[cfg(feature = "grpc")]
impl From<CatalogError> for Status {
    fn from(error: CatalogError) -> Self {
        let message = error.to_string();
        match error {
            CatalogError::InvalidArgument(_) => error_details::invalid_argument(
                message,
                error_details::DOMAIN_GAMES,
                error_details::reason::INVALID_FIELD,
            ),
            CatalogError::Rule(refusal) => error_details::refusal(
                Code::FailedPrecondition,
                message,
                error_details::DOMAIN_GAMES,
                refusal.rule,
                &[],
            ),
            CatalogError::Internal(_) => {
                tracing::error!(error = %message, "internal error");
                Status::internal("internal error")
            }
        }
    }
}

#[cfg(all(test, feature = "grpc"))]
mod tests {
    use ludus_proto::error_details::StatusExt;

    use super::*;

    #[test]
    fn each_kind_of_refusal_has_its_status() {
        let invalid = CatalogError::InvalidArgument("settings.caro.board_size: C1: 7".into());
        assert_eq!(invalid.field(), Some("settings.caro.board_size"));
        assert_eq!(invalid.rule(), Some("C1"));
        let invalid = Status::from(invalid);
        assert_eq!(invalid.code(), tonic::Code::InvalidArgument);
        assert_eq!(invalid.message(), "settings.caro.board_size: C1: 7");
        let details = invalid.get_error_details();
        assert_eq!(details.error_info().map(|i| i.reason.as_str()), Some("C1"));
        let violations = &details.bad_request().expect("BadRequest").field_violations;
        assert_eq!(violations[0].field, "settings.caro.board_size");
        let refusal = CatalogError::Rule(RuleError {
            rule: "C8",
            message: "C8: no".into(),
        });
        assert_eq!(refusal.rule(), Some("C8"));
        let rule = Status::from(refusal);
        assert_eq!(rule.code(), tonic::Code::FailedPrecondition);
        assert_eq!(rule.message(), "C8: no");
        let info = rule
            .get_error_details()
            .error_info()
            .cloned()
            .expect("ErrorInfo");
        assert_eq!(
            (info.reason.as_str(), info.domain.as_str()),
            ("C8", "ludus.games")
        );
        let internal = Status::from(CatalogError::Internal("state: bad json".into()));
        assert_eq!(internal.code(), tonic::Code::Internal);
        assert_eq!(
            internal.message(),
            "internal error",
            "details are not returned"
        );
    }
}
