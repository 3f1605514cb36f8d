//! Per-player rate limits: one player cannot flood the services behind the gateway.

use std::{num::NonZeroU32, sync::Arc};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use tonic::Status;

/// Calls a player may make per second, sustained.
pub const CALLS_PER_SECOND: u32 = 20;
/// Calls a player may make in a burst.
pub const BURST: u32 = 40;
/// Guest sign-ins allowed per second for the whole gateway process (they are unauthenticated),
/// sustained; bursts up to [`SIGN_IN_BURST`].
pub const SIGN_INS_PER_SECOND: u32 = 100;
/// Guest sign-ins allowed in a burst.
pub const SIGN_IN_BURST: u32 = 1000;

/// Token buckets per player id, plus one for sign-ins.
#[derive(Clone, Debug)]
pub struct Limits {
    per_player: Arc<DefaultKeyedRateLimiter<String>>,
    sign_ins: Arc<governor::DefaultDirectRateLimiter>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::new(CALLS_PER_SECOND, BURST, SIGN_INS_PER_SECOND, SIGN_IN_BURST)
    }
}

fn nonzero(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

impl Limits {
    pub fn new(per_second: u32, burst: u32, sign_ins_per_second: u32, sign_in_burst: u32) -> Self {
        let quota = Quota::per_second(nonzero(per_second)).allow_burst(nonzero(burst));
        Limits {
            per_player: Arc::new(RateLimiter::keyed(quota)),
            sign_ins: Arc::new(RateLimiter::direct(
                Quota::per_second(nonzero(sign_ins_per_second)).allow_burst(nonzero(sign_in_burst)),
            )),
        }
    }

    /// RESOURCE_EXHAUSTED when `player_id` is over its rate.
    pub fn check_player(&self, player_id: &str) -> Result<(), Status> {
        self.per_player
            .check_key(&player_id.to_owned())
            .map_err(|_| Status::resource_exhausted("too many requests: slow down"))
    }

    /// RESOURCE_EXHAUSTED when sign-ins come too fast.
    pub fn check_sign_in(&self) -> Result<(), Status> {
        self.sign_ins
            .check()
            .map_err(|_| Status::resource_exhausted("too many sign-ins: try again shortly"))
    }

    /// Forgets players idle long enough for a full bucket; run now and then so the map does
    /// not grow with every player ever seen.
    pub fn forget_idle(&self) {
        self.per_player.retain_recent();
        self.per_player.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_over_the_burst_is_refused_and_others_are_not() {
        let limits = Limits::new(1, 3, 1, 1);
        for _ in 0..3 {
            assert!(limits.check_player("ann").is_ok());
        }
        let refused = limits.check_player("ann").unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(limits.check_player("bob").is_ok(), "limits are per player");
        assert!(limits.check_sign_in().is_ok());
        assert!(limits.check_sign_in().is_err());
    }
}
