//! [`RoomError`]: why the room model refused a request. Pure: the service maps each variant
//! to its gRPC code once (`service::status`), with `reason()` as the `ErrorInfo.reason`.

/// Stable `ErrorInfo.reason` codes of refusals that no game rule names.
pub mod reason {
    pub const ROOM_NOT_FOUND: &str = "ROOM_NOT_FOUND";
    pub const NOT_HOST: &str = "NOT_HOST";
    pub const NOT_IN_ROOM: &str = "NOT_IN_ROOM";
    pub const ROOM_FULL: &str = "ROOM_FULL";
    pub const SPECTATORS_FULL: &str = "SPECTATORS_FULL";
    pub const ALREADY_SEATED: &str = "ALREADY_SEATED";
    pub const SEAT_TAKEN: &str = "SEAT_TAKEN";
    pub const NOT_SEATED: &str = "NOT_SEATED";
    pub const ACCOUNT_REQUIRED: &str = "ACCOUNT_REQUIRED";
    pub const WRONG_STATE: &str = "WRONG_STATE";
    pub const NOT_READY: &str = "NOT_READY";
    pub const TOO_FEW_PLAYERS: &str = "TOO_FEW_PLAYERS";
    pub const KICKED: &str = "KICKED";
    pub const CHAT_OFF: &str = "CHAT_OFF";
    pub const CHAT_FLOOD: &str = "CHAT_FLOOD";
    pub const CHAT_INVALID: &str = "CHAT_INVALID";
    pub const INVALID_FIELD: &str = "INVALID_FIELD";
}

/// A refusal, with the gRPC code family it belongs to. Every message is lowercase and says
/// what to do or which rule refuses; `reason` is the rule id where a rule refuses (`C16`,
/// `Q23`), else a stable code from [`reason`].
#[derive(Debug, Clone, thiserror::Error)]
pub enum RoomError {
    /// NOT_FOUND: no live room has this code (never existed, or expired).
    #[error("{0}")]
    NotFound(String),
    /// INVALID_ARGUMENT: a malformed field (named first in the message).
    #[error("{message}")]
    Invalid {
        field: &'static str,
        reason: &'static str,
        message: String,
    },
    /// PERMISSION_DENIED: only the host may do this, or the caller is not in the room.
    #[error("{message}")]
    Denied {
        reason: &'static str,
        message: String,
    },
    /// FAILED_PRECONDITION: not now (the message names the rule).
    #[error("{message}")]
    Precondition {
        reason: &'static str,
        message: String,
    },
    /// RESOURCE_EXHAUSTED: the room or its spectator stand is full, or a chat flood.
    #[error("{message}")]
    Exhausted {
        reason: &'static str,
        message: String,
    },
    /// ALREADY_EXISTS: the player already holds a seat.
    #[error("{message}")]
    Exists {
        reason: &'static str,
        message: String,
    },
    /// The catalog refused the game settings (INVALID_ARGUMENT naming the field and rule):
    /// mapped by the catalog's own `From<CatalogError> for Status`.
    #[error("{0}")]
    Catalog(#[from] ludus_catalog::CatalogError),
}

impl RoomError {
    /// The `ErrorInfo.reason` of this refusal.
    pub fn reason(&self) -> &'static str {
        match self {
            RoomError::NotFound(_) => reason::ROOM_NOT_FOUND,
            RoomError::Invalid { reason, .. }
            | RoomError::Denied { reason, .. }
            | RoomError::Precondition { reason, .. }
            | RoomError::Exhausted { reason, .. }
            | RoomError::Exists { reason, .. } => reason,
            RoomError::Catalog(_) => reason::INVALID_FIELD,
        }
    }

    pub(crate) fn denied(reason: &'static str, message: impl Into<String>) -> Self {
        RoomError::Denied {
            reason,
            message: message.into(),
        }
    }

    pub(crate) fn precondition(reason: &'static str, message: impl Into<String>) -> Self {
        RoomError::Precondition {
            reason,
            message: message.into(),
        }
    }

    pub(crate) fn exhausted(reason: &'static str, message: impl Into<String>) -> Self {
        RoomError::Exhausted {
            reason,
            message: message.into(),
        }
    }

    pub(crate) fn invalid(
        field: &'static str,
        reason: &'static str,
        message: impl Into<String>,
    ) -> Self {
        RoomError::Invalid {
            field,
            reason,
            message: message.into(),
        }
    }
}
