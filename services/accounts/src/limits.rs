//! Failed sign-in limits (governor): per username *at one address*, so one attacker guessing a
//! known username's password is slow and locks only itself out; per client address, so one
//! attacker spraying many usernames is stopped long before it could lock everybody out; and
//! per username across all addresses as a backstop against guessing from many addresses, which
//! the addresses this username signed in from before get past (ARCHITECTURE.md, "Accounts").
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

/// Failed sign-ins one username may take from one address in a burst.
pub const GUESS_BURST: u32 = 5;
/// After the burst, one more failure per username and address per this period.
pub const GUESS_PERIOD: Duration = Duration::from_secs(30);
/// Failed sign-ins one address may take in a burst (a household shares an address).
pub const ADDRESS_BURST: u32 = 20;
/// After the burst, one more failure per address per this period.
pub const ADDRESS_PERIOD: Duration = Duration::from_secs(10);
/// Failed sign-ins one username may take from all addresses together before the backstop
/// locks it for every address it has not signed in from: guessing from a botnet.
pub const USERNAME_BURST: u32 = 100;
/// After the backstop's burst, one more failure per username per this period.
pub const USERNAME_PERIOD: Duration = Duration::from_secs(30);
/// Addresses remembered per username as known (the backstop lets them past).
pub const KNOWN_ADDRESSES: usize = 16;
/// How long an address stays known after its last successful sign-in.
pub const KNOWN_ADDRESS_TERM: Duration = Duration::from_secs(30 * 24 * 3600);

/// The three limits' quotas.
#[derive(Clone, Copy, Debug)]
pub struct SignInLimitsConfig {
    /// One username from one address.
    pub guess_burst: u32,
    pub guess_period: Duration,
    /// One address, every username.
    pub address_burst: u32,
    pub address_period: Duration,
    /// One username, every address (the backstop; known addresses pass it).
    pub username_burst: u32,
    pub username_period: Duration,
}

impl Default for SignInLimitsConfig {
    fn default() -> Self {
        SignInLimitsConfig {
            guess_burst: GUESS_BURST,
            guess_period: GUESS_PERIOD,
            address_burst: ADDRESS_BURST,
            address_period: ADDRESS_PERIOD,
            username_burst: USERNAME_BURST,
            username_period: USERNAME_PERIOD,
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

/// Per username, the addresses it signed in from (or registered from) and when (Unix ms),
/// newest last.
type KnownAddresses = HashMap<String, Vec<(String, u64)>>;

/// The limits of one accounts process, and the addresses each username signed in from.
#[derive(Clone, Debug)]
pub struct SignInLimits {
    guess: Arc<FailureLimit>,
    address: Arc<FailureLimit>,
    username: Arc<FailureLimit>,
    /// Per username, the addresses it signed in from (or registered from) and when, newest
    /// last: the backstop does not lock them out.
    known: Arc<Mutex<KnownAddresses>>,
    clock: Clock,
}

impl Default for SignInLimits {
    fn default() -> Self {
        SignInLimits::new(SignInLimitsConfig::default(), Clock::system())
    }
}

/// The key of one username at one address (a newline is in neither).
fn guess_key(username: &str, address: &str) -> String {
    format!("{username}\n{address}")
}

impl SignInLimits {
    /// The limits of `config`, timed by `clock`.
    pub fn new(config: SignInLimitsConfig, clock: Clock) -> Self {
        let limit =
            |kind, burst, period| Arc::new(FailureLimit::new(kind, burst, period, clock.clone()));
        SignInLimits {
            guess: limit(
                SignInLimit::UsernameAtAddress,
                config.guess_burst,
                config.guess_period,
            ),
            address: limit(
                SignInLimit::Address,
                config.address_burst,
                config.address_period,
            ),
            username: limit(
                SignInLimit::Username,
                config.username_burst,
                config.username_period,
            ),
            known: Arc::default(),
            clock: clock.clone(),
        }
    }

    fn is_known(&self, username: &str, address: &str) -> bool {
        let known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        known
            .get(username)
            .is_some_and(|addresses| addresses.iter().any(|(a, _)| a == address))
    }

    /// RESOURCE_EXHAUSTED when the address, the username at this address, or (unless the
    /// username signed in from this address before) the username everywhere is locked. An
    /// empty address (unknown) is limited per username only.
    pub fn check(&self, username: &str, address: &str) -> Result<(), ServiceError> {
        if !address.is_empty() {
            self.address.check(address)?;
            self.guess.check(&guess_key(username, address))?;
            if self.is_known(username, address) {
                return Ok(());
            }
        }
        self.username.check(username)
    }

    /// Counts one failed sign-in against every key.
    pub fn fail(&self, username: &str, address: &str) {
        if !address.is_empty() {
            self.address.fail(address);
            self.guess.fail(&guess_key(username, address));
        }
        self.username.fail(username);
    }

    /// Remembers that `username` signed in (or registered) from `address`: the backstop
    /// lets it past from there.
    pub fn succeed(&self, username: &str, address: &str) {
        if address.is_empty() {
            return;
        }
        let now = self.clock.now_ms();
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        let addresses = known.entry(username.to_owned()).or_default();
        addresses.retain(|(a, _)| a != address);
        addresses.push((address.to_owned(), now));
        if addresses.len() > KNOWN_ADDRESSES {
            addresses.remove(0);
        }
    }

    /// Forgets keys whose buckets are full again, and addresses not seen for
    /// [`KNOWN_ADDRESS_TERM`]; run now and then so the maps do not grow with every username
    /// and address ever seen.
    pub fn forget_idle(&self) {
        self.guess.forget_idle();
        self.address.forget_idle();
        self.username.forget_idle();
        let term = u64::try_from(KNOWN_ADDRESS_TERM.as_millis()).unwrap_or(u64::MAX);
        let oldest = self.clock.now_ms().saturating_sub(term);
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        known.retain(|_, addresses| {
            addresses.retain(|(_, seen)| *seen >= oldest);
            !addresses.is_empty()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(username_burst: u32, address_burst: u32) -> SignInLimits {
        SignInLimits::new(
            SignInLimitsConfig {
                guess_burst: 5,
                guess_period: Duration::from_secs(3600),
                address_burst,
                address_period: Duration::from_secs(3600),
                username_burst,
                username_period: Duration::from_secs(3600),
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

    /// Security (ARCHITECTURE.md, "Accounts"): wrong guesses from one address lock that
    /// address out of the username, not its owner elsewhere; a botnet's guesses trip the
    /// backstop, which the owner's known address gets past.
    #[test]
    fn an_attacker_at_one_address_does_not_lock_the_owner_out_elsewhere() {
        let limits = SignInLimits::default();
        limits.succeed("ann", "10.0.0.1");
        // The burst and one more: the attacker is locked out of this username.
        for _ in 0..=GUESS_BURST {
            limits.fail("ann", "10.66.0.1");
        }
        let attacker = limits.check("ann", "10.66.0.1").unwrap_err();
        assert!(matches!(
            attacker,
            ServiceError::Locked {
                limit: SignInLimit::UsernameAtAddress,
                ..
            }
        ));
        assert!(limits.check("ann", "10.0.0.1").is_ok(), "the owner at home");
        assert!(
            limits.check("ann", "10.0.0.2").is_ok(),
            "the owner at a new address, under the backstop"
        );
        // Many addresses trip the backstop: new addresses wait, the known one does not.
        for host in 0..USERNAME_BURST {
            limits.fail("ann", &format!("10.77.{}.{}", host / 256, host % 256));
        }
        let refused = limits.check("ann", "10.0.0.2").unwrap_err();
        assert!(matches!(
            refused,
            ServiceError::Locked {
                limit: SignInLimit::Username,
                ..
            }
        ));
        assert!(limits.check("ann", "10.0.0.1").is_ok(), "known address");
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
            guess_burst: 1,
            guess_period: Duration::from_secs(30),
            address_burst: 100,
            address_period: Duration::from_secs(3600),
            username_burst: 100,
            username_period: Duration::from_secs(3600),
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
