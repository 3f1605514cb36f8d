//! Rate limits: one player cannot flood the services behind the gateway, and one peer
//! address cannot lock everybody else out of signing in or burn the gateway's CPU on tokens
//! that do not verify.
//!
//! Unauthenticated work (guest sign-ins, account sign-ins, refreshes, calls whose token is
//! refused) is limited per peer IP address, authenticated calls per player. The peer is the
//! TCP peer: behind a proxy that hides client addresses every client shares one bucket, so
//! deploy behind an L4 load balancer that keeps them (`externalTrafficPolicy: Local`).

use std::{
    collections::HashMap,
    net::{IpAddr, Ipv4Addr},
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
/// Sign-ins (guest and account), registrations and refreshes allowed per second from one peer
/// address (they are unauthenticated), sustained; bursts up to [`SIGN_IN_BURST`].
pub const SIGN_INS_PER_SECOND: u32 = 100;
/// Sign-ins allowed in a burst from one peer address.
pub const SIGN_IN_BURST: u32 = 1000;
/// Calls with a refused token (missing, malformed, expired, forged) allowed per second from
/// one peer address; bursts up to [`REFUSED_TOKEN_BURST`]. Checking a token costs an HMAC:
/// past this the gateway answers RESOURCE_EXHAUSTED without looking.
pub const REFUSED_TOKENS_PER_SECOND: u32 = 5;
/// Calls with a refused token allowed in a burst from one peer address.
pub const REFUSED_TOKEN_BURST: u32 = 50;
/// Streams a seated player may open on one game per minute (sustained and burst). Each open
/// and close of a seated player's stream logs a presence event that every watcher receives
/// and the log keeps: a client flapping Subscribe 150 times added 299 of them. A flaky phone
/// reconnects a few times a minute at most.
pub const SEATED_SUBSCRIBES_PER_MINUTE: u32 = 12;
/// Subscribe streams one player may hold open at once on one gateway process: plenty for a
/// few devices and a few games watched, and a cap on what one token can pin (a task, a buffer
/// and a share of a feed subscription each). FindMatch needs none: a player holds one ticket.
pub const STREAMS_PER_PLAYER: usize = 16;
/// Room code lookups (join, read, subscribe by code) a player may make per minute, on top of
/// the general rate: a 6-character code from 31 characters cannot be found by trying.
pub const CODE_LOOKUPS_PER_MINUTE: u32 = 20;
/// The burst of code lookups (a player opening a few rooms at once).
pub const CODE_LOOKUP_BURST: u32 = 10;

/// The sign-in rate per peer address: [`SIGN_INS_PER_SECOND`] sustained, bursts up to
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

/// Token buckets per player id, per peer address for sign-ins and for refused tokens, and
/// open streams per player.
#[derive(Clone, Debug)]
pub struct Limits {
    per_player: Arc<DefaultKeyedRateLimiter<String>>,
    sign_ins: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    refused_tokens: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    seated_subscribes: Arc<DefaultKeyedRateLimiter<(String, String)>>,
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
            sign_ins: Arc::new(RateLimiter::keyed(
                Quota::per_second(nonzero(sign_ins_per_second)).allow_burst(nonzero(sign_in_burst)),
            )),
            refused_tokens: Arc::new(RateLimiter::keyed(
                Quota::per_second(nonzero(REFUSED_TOKENS_PER_SECOND))
                    .allow_burst(nonzero(REFUSED_TOKEN_BURST)),
            )),
            seated_subscribes: Arc::new(RateLimiter::keyed(Quota::per_minute(nonzero(
                SEATED_SUBSCRIBES_PER_MINUTE,
            )))),
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

    /// RESOURCE_EXHAUSTED when `player_id` looks up room codes too fast (codes
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

    /// RESOURCE_EXHAUSTED when sign-ins come too fast from `peer`.
    pub fn check_sign_in(&self, peer: IpAddr) -> Result<(), Status> {
        self.sign_ins.check_key(&peer).map_err(|_| {
            refuse(
                Code::ResourceExhausted,
                "too many sign-ins from your address: try again shortly",
                reason::RATE_LIMITED,
            )
        })
    }

    /// What to answer a call from `peer` whose token was refused: the refusal itself, or
    /// RESOURCE_EXHAUSTED once that peer sends refused tokens too fast.
    pub fn refused_token(&self, peer: IpAddr, refusal: Status) -> Status {
        match self.refused_tokens.check_key(&peer) {
            Ok(()) => refusal,
            Err(_) => refuse(
                Code::ResourceExhausted,
                "too many calls with a refused token from your address: sign in again, then \
                 retry shortly",
                reason::RATE_LIMITED,
            ),
        }
    }

    /// RESOURCE_EXHAUSTED when `player_id`, seated in `game_id`, opens its streams too often.
    pub fn check_seated_subscribe(&self, player_id: &str, game_id: &str) -> Result<(), Status> {
        self.seated_subscribes
            .check_key(&(player_id.to_owned(), game_id.to_owned()))
            .map_err(|_| {
                refuse(
                    Code::ResourceExhausted,
                    format!(
                        "you reopened game {game_id}'s stream more than \
                         {SEATED_SUBSCRIBES_PER_MINUTE} times in a minute: wait a few seconds, \
                         then resume with after_seq"
                    ),
                    reason::RATE_LIMITED,
                )
            })
    }

    /// Forgets players and addresses idle long enough for a full bucket; run now and then so
    /// the maps do not grow with every caller ever seen.
    pub fn forget_idle(&self) {
        self.per_player.retain_recent();
        self.per_player.shrink_to_fit();
        for by_peer in [&self.sign_ins, &self.refused_tokens] {
            by_peer.retain_recent();
            by_peer.shrink_to_fit();
        }
        self.seated_subscribes.retain_recent();
        self.seated_subscribes.shrink_to_fit();
        self.code_lookups.retain_recent();
        self.code_lookups.shrink_to_fit();
    }
}

/// The peer address a request came from (unspecified when the transport does not say, e.g. an
/// in-process call): what unauthenticated limits key on.
pub fn peer<T>(request: &tonic::Request<T>) -> IpAddr {
    request
        .remote_addr()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |addr| addr.ip())
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
    }

    #[test]
    fn a_sign_in_flood_from_one_address_does_not_lock_out_another() {
        let limits = Limits::new(1, 1, 1, 3);
        let (flooder, neighbour) = (
            IpAddr::from([203, 0, 113, 7]),
            IpAddr::from([198, 51, 100, 9]),
        );
        for _ in 0..3 {
            assert!(limits.check_sign_in(flooder).is_ok());
        }
        let refused = limits.check_sign_in(flooder).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(
            limits.check_sign_in(neighbour).is_ok(),
            "limits are per address"
        );
    }

    #[test]
    fn refused_tokens_are_answered_as_such_until_one_address_sends_too_many() {
        let limits = Limits::default();
        let (flooder, neighbour) = (
            IpAddr::from([203, 0, 113, 7]),
            IpAddr::from([198, 51, 100, 9]),
        );
        let refusal = || tonic::Status::unauthenticated("token expired");
        for _ in 0..REFUSED_TOKEN_BURST {
            let answer = limits.refused_token(flooder, refusal());
            assert_eq!(answer.code(), tonic::Code::Unauthenticated);
        }
        let answer = limits.refused_token(flooder, refusal());
        assert_eq!(answer.code(), tonic::Code::ResourceExhausted);
        assert!(
            answer.message().contains("refused token"),
            "{}",
            answer.message()
        );
        let answer = limits.refused_token(neighbour, refusal());
        assert_eq!(answer.code(), tonic::Code::Unauthenticated, "per address");
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
