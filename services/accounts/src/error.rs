//! Every refusal of the accounts service and its gRPC status.

use std::time::Duration;

use ludus_proto::error_details::{DOMAIN_ACCOUNTS, ErrorStatus, reason};
use tonic::{Code, Status};

use crate::model::{
    MAX_PASSWORD_CHARS, MAX_USERNAME_CHARS, MIN_PASSWORD_CHARS, MIN_USERNAME_CHARS,
};
use crate::store::StoreError;

/// Which failed-sign-in limit refused a sign-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignInLimit {
    /// Too many failures for one username from one client address.
    UsernameAtAddress,
    /// Too many failures for one username from many addresses (the backstop; addresses it
    /// signed in from before are not held).
    Username,
    /// Too many failures from one client address, for any usernames.
    Address,
}

/// Why a refresh token is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefreshError {
    /// Not a token this service issued (or malformed).
    Unknown,
    /// Past its expiry.
    Expired,
    /// Its session was signed out or revoked.
    Revoked,
    /// Already traded in: the whole session has just been revoked.
    Reused,
}

/// A refusal or failure of the accounts service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error(
        "username: must be {MIN_USERNAME_CHARS} to {MAX_USERNAME_CHARS} characters of a-z, 0-9 and _"
    )]
    BadUsername,
    #[error("password: must be at least {MIN_PASSWORD_CHARS} characters")]
    PasswordTooShort,
    #[error("password: must be at most {MAX_PASSWORD_CHARS} characters")]
    PasswordTooLong,
    /// A player id or display name outside the shared policy (`ludus_proto::ids`); the
    /// message names the field.
    #[error(transparent)]
    BadId(#[from] ludus_proto::ids::IdError),
    #[error("page_token: not a token from a previous page")]
    BadPageToken,
    #[error("game: {0}")]
    BadGame(&'static str),
    #[error("no archived game {0}")]
    NoArchivedGame(String),
    #[error("client_address: at most 64 characters")]
    BadClientAddress,
    #[error("username: already taken")]
    UsernameTaken,
    #[error("player {0} already has an account")]
    AlreadyRegistered(String),
    /// The same answer for an unknown username and a wrong password.
    #[error("wrong username or password")]
    WrongCredentials,
    #[error("{}", locked_message(*.limit, *.retry_after))]
    Locked {
        limit: SignInLimit,
        retry_after: Duration,
    },
    #[error("{}", refresh_message(*.0))]
    Refresh(RefreshError),
    #[error("no account for player {0}")]
    NoAccount(String),
    #[error("the account database is unavailable: retry later")]
    Unavailable,
    #[error("internal error")]
    Internal,
}

fn locked_message(limit: SignInLimit, retry_after: Duration) -> String {
    let seconds = retry_after.as_secs().max(1);
    match limit {
        SignInLimit::UsernameAtAddress => format!(
            "too many failed sign-ins for this username from this address (per-username-and-address \
             limit): try again in {seconds} s"
        ),
        SignInLimit::Username => format!(
            "too many failed sign-ins for this username from many addresses (per-username limit; \
             an address it signed in from before is not held): try again in {seconds} s"
        ),
        SignInLimit::Address => format!(
            "too many failed sign-ins from this address (per-address limit): try again in {seconds} s"
        ),
    }
}

fn refresh_message(refusal: RefreshError) -> &'static str {
    match refusal {
        RefreshError::Unknown => "refresh_token: not a valid refresh token",
        RefreshError::Expired => "refresh_token: expired, sign in again",
        RefreshError::Revoked => "refresh_token: the session was signed out, sign in again",
        RefreshError::Reused => {
            "refresh_token: already used; every token of this session is revoked, sign in again"
        }
    }
}

impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::UsernameTaken => ServiceError::UsernameTaken,
            StoreError::PlayerTaken(player) => ServiceError::AlreadyRegistered(player),
            StoreError::Unavailable(error) => {
                tracing::warn!(error = %error, "account database unavailable");
                ServiceError::Unavailable
            }
        }
    }
}

impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        let status = ErrorStatus::new(DOMAIN_ACCOUNTS, &error);
        match error {
            ServiceError::BadUsername => status.invalid(reason::INVALID_USERNAME),
            ServiceError::PasswordTooShort | ServiceError::PasswordTooLong => {
                status.invalid(reason::INVALID_PASSWORD)
            }
            ServiceError::BadId(id) => Status::from(id),
            ServiceError::BadPageToken
            | ServiceError::BadGame(_)
            | ServiceError::BadClientAddress => status.invalid(reason::INVALID_FIELD),
            ServiceError::UsernameTaken => {
                status.refuse(Code::AlreadyExists, reason::USERNAME_TAKEN)
            }
            ServiceError::AlreadyRegistered(_) => {
                status.refuse(Code::AlreadyExists, reason::ALREADY_REGISTERED)
            }
            ServiceError::WrongCredentials => {
                status.refuse(Code::Unauthenticated, reason::WRONG_CREDENTIALS)
            }
            ServiceError::Refresh(RefreshError::Reused) => {
                status.refuse(Code::Unauthenticated, reason::REFRESH_REUSED)
            }
            ServiceError::Refresh(_) => {
                status.refuse(Code::Unauthenticated, reason::REFRESH_INVALID)
            }
            ServiceError::Locked { limit, retry_after } => status.refuse_with(
                Code::ResourceExhausted,
                reason::SIGN_IN_LOCKED,
                &[
                    (
                        "limit",
                        match limit {
                            SignInLimit::UsernameAtAddress => "username_at_address",
                            SignInLimit::Username => "username",
                            SignInLimit::Address => "address",
                        }
                        .to_owned(),
                    ),
                    (
                        "retry_after_seconds",
                        retry_after.as_secs().max(1).to_string(),
                    ),
                ],
            ),
            ServiceError::NoAccount(_) => status.refuse(Code::NotFound, reason::ACCOUNT_NOT_FOUND),
            ServiceError::NoArchivedGame(_) => {
                status.refuse(Code::NotFound, reason::ARCHIVED_GAME_NOT_FOUND)
            }
            ServiceError::Unavailable => status.refuse(Code::Unavailable, reason::UNAVAILABLE),
            ServiceError::Internal => status.internal(),
        }
    }
}
