//! Failed sign-in limits (governor): per username, so guessing one account's password is
//! slow from any number of addresses, and per client address, so one attacker spraying many
//! usernames is stopped long before it could lock everybody out (only the usernames it tried
//! are slowed, and only for a while).
//!
//! Only failures count. Each key has a GCRA bucket; a failure takes a cell, and a failure
//! that finds the bucket empty locks the key until the bucket has a cell again. While locked,
//! sign-ins for the key are refused before the password is checked (RESOURCE_EXHAUSTED names
//! the limit and the wait), so a locked key costs no hashing.
//!
//! The buckets and locks run on the service's [`Clock`], so a test clock drives a lockout's
//! end like every other expiry (ARCHITECTURE.md, Time).

use std::{
    collections::HashMap,
    num::NonZeroU32,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use governor::{
    Quota, RateLimiter, clock::Reference, middleware::NoOpMiddleware, nanos::Nanos,
    state::keyed::DefaultKeyedStateStore,
};
use ludus_clock::Clock;

use crate::error::{ServiceError, SignInLimit};

/// Failed sign-ins one username may take in a burst.
pub const USERNAME_BURST: u32 = 5;
/// After the burst, one more failure per username per this period.
pub const USERNAME_PERIOD: Duration = Duration::from_secs(30);
/// Failed sign-ins one address may take in a burst (a household shares an address).
pub const ADDRESS_BURST: u32 = 20;
/// After the burst, one more failure per address per this period.
pub const ADDRESS_PERIOD: Duration = Duration::from_secs(10);

/// The two limits' quotas.
#[derive(Clone, Copy, Debug)]
pub struct SignInLimitsConfig {
    pub username_burst: u32,
    pub username_period: Duration,
    pub address_burst: u32,
    pub address_period: Duration,
}

impl Default for SignInLimitsConfig {
    fn default() -> Self {
        SignInLimitsConfig {
            username_burst: USERNAME_BURST,
            username_period: USERNAME_PERIOD,
            address_burst: ADDRESS_BURST,
            address_period: ADDRESS_PERIOD,
        }
    }
}

/// governor reads the time through this: Unix time from the service's [`Clock`], in the
/// nanoseconds governor counts in.
#[derive(Clone, Debug)]
struct LimitClock(Clock);

impl governor::clock::Clock for LimitClock {
    type Instant = Nanos;

    fn now(&self) -> Nanos {
        Nanos::from(self.0.now_ms().saturating_mul(1_000_000))
    }
}

#[derive(Debug)]
struct FailureLimit {
    kind: SignInLimit,
    buckets: RateLimiter<String, DefaultKeyedStateStore<String>, LimitClock, NoOpMiddleware<Nanos>>,
    locked_until: Mutex<HashMap<String, Nanos>>,
}

impl FailureLimit {
    fn new(kind: SignInLimit, burst: u32, period: Duration, clock: Clock) -> Self {
        let quota = Quota::with_period(period.max(Duration::from_millis(1)))
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
            .allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN));
        FailureLimit {
            kind,
            buckets: RateLimiter::dashmap_with_clock(quota, LimitClock(clock)),
            locked_until: Mutex::default(),
        }
    }

    fn now(&self) -> Nanos {
        governor::clock::Clock::now(self.buckets.clock())
    }

    fn check(&self, key: &str) -> Result<(), ServiceError> {
        let now = self.now();
        let mut locked = self
            .locked_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match locked.get(key) {
            Some(until) if *until > now => Err(ServiceError::Locked {
                limit: self.kind,
                retry_after: until.duration_since(now).into(),
            }),
            Some(_) => {
                locked.remove(key);
                Ok(())
            }
            None => Ok(()),
        }
    }

    fn fail(&self, key: &str) {
        if let Err(not_until) = self.buckets.check_key(&key.to_owned()) {
            let mut locked = self
                .locked_until
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            locked.insert(key.to_owned(), not_until.earliest_possible());
        }
    }

    fn forget_idle(&self) {
        self.buckets.retain_recent();
        self.buckets.shrink_to_fit();
        let now = self.now();
        let mut locked = self
            .locked_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        locked.retain(|_, until| *until > now);
    }
}

/// Both limits of one accounts process.
#[derive(Clone, Debug)]
pub struct SignInLimits {
    username: Arc<FailureLimit>,
    address: Arc<FailureLimit>,
}

impl Default for SignInLimits {
    fn default() -> Self {
        SignInLimits::new(SignInLimitsConfig::default(), Clock::system())
    }
}

impl SignInLimits {
    /// The limits of `config`, timed by `clock`.
    pub fn new(config: SignInLimitsConfig, clock: Clock) -> Self {
        SignInLimits {
            username: Arc::new(FailureLimit::new(
                SignInLimit::Username,
                config.username_burst,
                config.username_period,
                clock.clone(),
            )),
            address: Arc::new(FailureLimit::new(
                SignInLimit::Address,
                config.address_burst,
                config.address_period,
                clock,
            )),
        }
    }

    /// RESOURCE_EXHAUSTED when the address or the username is locked. An empty address
    /// (unknown) is limited per username only.
    pub fn check(&self, username: &str, address: &str) -> Result<(), ServiceError> {
        if !address.is_empty() {
            self.address.check(address)?;
        }
        self.username.check(username)
    }

    /// Counts one failed sign-in against both keys.
    pub fn fail(&self, username: &str, address: &str) {
        if !address.is_empty() {
            self.address.fail(address);
        }
        self.username.fail(username);
    }

    /// Forgets keys whose buckets are full again; run now and then so the maps do not grow
    /// with every username and address ever seen.
    pub fn forget_idle(&self) {
        self.username.forget_idle();
        self.address.forget_idle();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(username_burst: u32, address_burst: u32) -> SignInLimits {
        SignInLimits::new(
            SignInLimitsConfig {
                username_burst,
                username_period: Duration::from_secs(3600),
                address_burst,
                address_period: Duration::from_secs(3600),
            },
            Clock::system(),
        )
    }

    #[test]
    fn a_username_locks_after_its_burst_of_failures() {
        let limits = limits(3, 100);
        for attempt in 0..4 {
            assert!(limits.check("ann", &format!("10.0.0.{attempt}")).is_ok());
            limits.fail("ann", &format!("10.0.0.{attempt}"));
        }
        let refused = limits.check("ann", "10.9.9.9").unwrap_err();
        assert!(matches!(
            refused,
            ServiceError::Locked {
                limit: SignInLimit::Username,
                ..
            }
        ));
        assert!(
            refused.to_string().contains("per-username limit"),
            "{refused}"
        );
        assert!(
            limits.check("bob", "10.0.0.1").is_ok(),
            "other usernames are not locked"
        );
    }

    #[test]
    fn an_address_locks_after_its_burst_and_others_do_not() {
        let limits = limits(100, 3);
        for name in ["a1", "a2", "a3", "a4"] {
            limits.fail(name, "10.0.0.66");
        }
        let refused = limits.check("zed", "10.0.0.66").unwrap_err();
        assert!(matches!(
            refused,
            ServiceError::Locked {
                limit: SignInLimit::Address,
                ..
            }
        ));
        assert!(
            limits.check("zed", "10.0.0.7").is_ok(),
            "other addresses go on"
        );
        assert!(
            limits.check("a1", "10.0.0.7").is_ok(),
            "the sprayed names are not locked"
        );
    }

    #[test]
    fn a_lockout_ends_when_the_given_clock_passes_it() {
        let manual = ludus_clock::ManualClock::starting_now();
        let config = SignInLimitsConfig {
            username_burst: 1,
            username_period: Duration::from_secs(30),
            address_burst: 100,
            address_period: Duration::from_secs(3600),
        };
        let limits = SignInLimits::new(config, manual.clock());
        limits.fail("ann", "10.0.0.1");
        limits.fail("ann", "10.0.0.1");
        let Err(ServiceError::Locked { retry_after, .. }) = limits.check("ann", "10.0.0.1") else {
            panic!("two failures past a burst of one lock the username");
        };
        assert!(retry_after <= Duration::from_secs(30), "{retry_after:?}");
        // Real time does not end it: only the service's clock does.
        manual.advance(retry_after - Duration::from_millis(1));
        assert!(limits.check("ann", "10.0.0.1").is_err(), "still locked");
        manual.advance(Duration::from_millis(1));
        assert!(
            limits.check("ann", "10.0.0.1").is_ok(),
            "the lockout is over"
        );
    }

    #[test]
    fn successes_cost_nothing() {
        let limits = limits(1, 1);
        for _ in 0..100 {
            assert!(limits.check("ann", "10.0.0.1").is_ok());
        }
    }
}
