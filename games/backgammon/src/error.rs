//! The one rules error of the crate: a rule id and a lowercase sentence.

use std::fmt;

use ludus_rules::RuleViolation;

/// Why an action, a notation or an id was refused. `Display` is `"B5: 24/19: point 19 is
/// held by the opponent"`: the rule id, then a lowercase sentence in standard notation.
#[derive(Clone, Eq, PartialEq, Debug)]
pub struct BackgammonError {
    /// The rule id, `"B1"` … `"B22"`, or `"N1"` for notation (see [`crate::notation`]).
    pub rule: &'static str,
    /// A lowercase sentence without the rule id.
    pub message: String,
}

impl BackgammonError {
    /// An error for `rule`.
    pub fn new(rule: &'static str, message: impl Into<String>) -> Self {
        BackgammonError {
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for BackgammonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

impl std::error::Error for BackgammonError {}

impl RuleViolation for BackgammonError {
    fn rule(&self) -> &'static str {
        self.rule
    }
}
