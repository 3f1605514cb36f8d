//! What the accounts service needs to run, and its defaults.

use std::time::Duration;

use ludus_clock::Clock;

use crate::limits::SignInLimitsConfig;
use crate::service::DEFAULT_REFRESH_TTL;
use crate::store::AccountStore;

/// Where the standalone binary listens by default.
pub const DEFAULT_LISTEN: &str = "0.0.0.0:50055";

/// What accounts needs to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The SQL store (already connected and migrated).
    pub store: AccountStore,
    /// Failed sign-in limits per username and per address.
    pub sign_in_limits: SignInLimitsConfig,
    /// How long a refresh token is accepted.
    pub refresh_ttl: Duration,
    /// What "now" is for session expiry and sign-in lockouts ([`Clock::system`]; tests pass a
    /// manual one and move it past a refresh token's term or a lockout).
    pub clock: Clock,
}

impl Config {
    /// The defaults around `store`.
    pub fn new(store: AccountStore) -> Self {
        Config {
            store,
            sign_in_limits: SignInLimitsConfig::default(),
            refresh_ttl: DEFAULT_REFRESH_TTL,
            clock: Clock::system(),
        }
    }
}
