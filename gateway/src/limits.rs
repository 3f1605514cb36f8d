//! Per-player rate limits: one player cannot flood the services behind the gateway.

use std::{
    collections::HashMap,
    num::NonZeroU32,
    sync::{Arc, Mutex, PoisonError},
};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use tonic::{Code, Status};

use crate::refusal::{reason, refuse};

/// Calls a player may make per second, sustained.
pub const CALLS_PER_SECOND: u32 = 20;
/// Calls a player may make in a burst.
pub const BURST: u32 = 40;
/// Guest sign-ins allowed per second for the whole gateway process (they are unauthenticated),
/// sustained; bursts up to [`SIGN_IN_BURST`].
pub const SIGN_INS_PER_SECOND: u32 = 100;
/// Guest sign-ins allowed in a burst.
pub const SIGN_IN_BURST: u32 = 1000;
/// Subscribe streams one player may hold open at once on one gateway process: plenty for a
/// few devices and a few games watched, and a cap on what one token can pin (a task, a buffer
/// and a share of a feed subscription each). FindMatch needs none: a player holds one ticket.
pub const STREAMS_PER_PLAYER: usize = 16;
/// Room code lookups (join, read, subscribe by code) a player may make per minute, on top of
/// the general rate: a 6-character code from 31 characters cannot be found by trying.
pub const CODE_LOOKUPS_PER_MINUTE: u32 = 20;
/// The burst of code lookups (a player opening a few rooms at once).
pub const CODE_LOOKUP_BURST: u32 = 10;

/// The process-wide guest sign-in rate: [`SIGN_INS_PER_SECOND`] sustained, bursts up to
/// [`SIGN_IN_BURST`], unless a benchmark raises it (`--sign-ins-per-second`,
/// `--sign-in-burst`): a load generator signs thousands of guests in within seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignInLimit {
    pub per_second: u32,
    pub burst: u32,
}

impl Default for SignInLimit {
    fn default() -> Self {
        SignInLimit {
            per_second: SIGN_INS_PER_SECOND,
            burst: SIGN_IN_BURST,
        }
    }
}

/// Each player's call rate: [`CALLS_PER_SECOND`] sustained, bursts up to [`BURST`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerLimit {
    pub per_second: u32,
    pub burst: u32,
}

impl Default for PlayerLimit {
    fn default() -> Self {
        PlayerLimit {
            per_second: CALLS_PER_SECOND,
            burst: BURST,
        }
    }
}

/// Token buckets per player id, plus one for sign-ins, and open streams per player.
#[derive(Clone, Debug)]
pub struct Limits {
    per_player: Arc<DefaultKeyedRateLimiter<String>>,
    sign_ins: Arc<governor::DefaultDirectRateLimiter>,
    code_lookups: Arc<DefaultKeyedRateLimiter<String>>,
    streams: Arc<Mutex<HashMap<String, usize>>>,
    streams_per_player: usize,
}

/// One open stream of a player, counted until dropped.
#[derive(Debug)]
pub struct StreamPermit {
    streams: Arc<Mutex<HashMap<String, usize>>>,
    player_id: String,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(open) = streams.get_mut(&self.player_id) {
            *open = open.saturating_sub(1);
            if *open == 0 {
                streams.remove(&self.player_id);
            }
        }
    }
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
            code_lookups: Arc::new(RateLimiter::keyed(
                Quota::per_minute(nonzero(CODE_LOOKUPS_PER_MINUTE))
                    .allow_burst(nonzero(CODE_LOOKUP_BURST)),
            )),
            streams: Arc::default(),
            streams_per_player: STREAMS_PER_PLAYER,
        }
    }

    /// `per_player` for each player's calls, `sign_ins` for guest sign-ins.
    pub fn configured(per_player: PlayerLimit, sign_ins: SignInLimit) -> Self {
        Limits::new(
            per_player.per_second,
            per_player.burst,
            sign_ins.per_second,
            sign_ins.burst,
        )
    }

    /// The same limits with another cap on open streams per player.
    pub fn with_streams_per_player(mut self, streams: usize) -> Self {
        self.streams_per_player = streams;
        self
    }

    /// A permit for one more open stream of `player_id`, or RESOURCE_EXHAUSTED when they
    /// already hold the maximum.
    pub fn open_stream(&self, player_id: &str) -> Result<StreamPermit, Status> {
        let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
        let open = streams.entry(player_id.to_owned()).or_insert(0);
        if *open >= self.streams_per_player {
            return Err(refuse(
                Code::ResourceExhausted,
                format!(
                    "too many open streams: a player may hold {} at once; close one first",
                    self.streams_per_player
                ),
                reason::TOO_MANY_STREAMS,
            ));
        }
        *open += 1;
        Ok(StreamPermit {
            streams: self.streams.clone(),
            player_id: player_id.to_owned(),
        })
    }

    /// RESOURCE_EXHAUSTED when `player_id` is over its rate.
    pub fn check_player(&self, player_id: &str) -> Result<(), Status> {
        self.per_player
            .check_key(&player_id.to_owned())
            .map_err(|_| {
                refuse(
                    Code::ResourceExhausted,
                    "too many requests: slow down",
                    reason::RATE_LIMITED,
                )
            })
    }

    /// RESOURCE_EXHAUSTED when `player_id` looks up room codes too fast (issue 14: codes
    /// cannot be enumerated).
    pub fn check_code_lookup(&self, player_id: &str) -> Result<(), Status> {
        self.code_lookups
            .check_key(&player_id.to_owned())
            .map_err(|_| {
                refuse(
                    Code::ResourceExhausted,
                    format!(
                        "too many room codes tried: at most {CODE_LOOKUPS_PER_MINUTE} a minute"
                    ),
                    reason::RATE_LIMITED,
                )
            })
    }

    /// RESOURCE_EXHAUSTED when sign-ins come too fast.
    pub fn check_sign_in(&self) -> Result<(), Status> {
        self.sign_ins.check().map_err(|_| {
            refuse(
                Code::ResourceExhausted,
                "too many sign-ins: try again shortly",
                reason::RATE_LIMITED,
            )
        })
    }

    /// Forgets players idle long enough for a full bucket; run now and then so the map does
    /// not grow with every player ever seen.
    pub fn forget_idle(&self) {
        self.per_player.retain_recent();
        self.per_player.shrink_to_fit();
        self.code_lookups.retain_recent();
        self.code_lookups.shrink_to_fit();
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

    #[test]
    fn room_code_lookups_are_limited_per_player() {
        let limits = Limits::default();
        for _ in 0..CODE_LOOKUP_BURST {
            assert!(limits.check_code_lookup("ann").is_ok());
        }
        let refused = limits.check_code_lookup("ann").unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(
            limits.check_code_lookup("bob").is_ok(),
            "limits are per player"
        );
    }

    #[test]
    fn open_streams_are_capped_per_player_and_freed_on_drop() {
        let limits = Limits::default().with_streams_per_player(2);
        let first = limits.open_stream("ann").expect("first");
        let _second = limits.open_stream("ann").expect("second");
        let refused = limits.open_stream("ann").unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(
            refused.message().contains("2 at once"),
            "{}",
            refused.message()
        );
        assert!(limits.open_stream("bob").is_ok(), "caps are per player");
        drop(first);
        assert!(
            limits.open_stream("ann").is_ok(),
            "a closed stream frees its place"
        );
    }
}
