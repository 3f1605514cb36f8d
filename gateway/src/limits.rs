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
    net::{IpAddr, Ipv4Addr, Ipv6Addr},
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
/// Room code lookups per minute from one peer address, whichever players make them: guests
/// are free, so a per-player limit alone let one address mint a guest every ten guesses
/// (ARCHITECTURE.md, "Security"; the time a guess now takes is in RELIABILITY.md).
pub const CODE_LOOKUPS_PER_ADDRESS_PER_MINUTE: u32 = 30;
/// The burst of code lookups from one address (a household opening a friend's room).
pub const CODE_LOOKUP_ADDRESS_BURST: u32 = 60;
/// Room code lookups per minute from one network (an IPv4 /24, an IPv6 /64: what one
/// customer or one cloud host usually holds), so a block of addresses is one guesser.
pub const CODE_LOOKUPS_PER_NETWORK_PER_MINUTE: u32 = 60;
/// The burst of code lookups from one network.
pub const CODE_LOOKUP_NETWORK_BURST: u32 = 120;
/// New guests one address may mint per minute, sustained (a school behind one NAT signs a
/// class in within the burst).
pub const GUESTS_PER_MINUTE: u32 = 20;
/// New guests one address may mint in a burst.
pub const GUEST_BURST: u32 = 60;
/// Registrations (and guest upgrades) one address may make per minute, sustained: each costs
/// an Argon2id hash (19 MiB, tens of milliseconds of CPU).
pub const REGISTRATIONS_PER_MINUTE: u32 = 6;
/// Registrations one address may make in a burst.
pub const REGISTRATION_BURST: u32 = 20;

/// Token-free public reads (`ListGameOptions`) one peer address may make per second,
/// sustained. An app or page reads the options once when it starts (the web client keeps a
/// copy): a flood of them from one address is refused, not served.
pub const PUBLIC_READS_PER_SECOND: u32 = 20;
/// Token-free public reads one address may make in a burst (a household's devices starting
/// at once, a browser test opening many pages).
pub const PUBLIC_READ_BURST: u32 = 200;

/// The unauthenticated entry points' rates per peer address: sign-ins, refreshes and
/// sign-outs at [`SIGN_INS_PER_SECOND`] (bursts of [`SIGN_IN_BURST`]), new guests at
/// [`GUESTS_PER_MINUTE`] and registrations at [`REGISTRATIONS_PER_MINUTE`] on top, unless a
/// benchmark raises them all ([`SignInLimit::at`]): a load generator signs thousands of
/// guests in within seconds from one address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignInLimit {
    pub per_second: u32,
    pub burst: u32,
    pub guests_per_minute: u32,
    pub guest_burst: u32,
    pub registrations_per_minute: u32,
    pub registration_burst: u32,
}

impl Default for SignInLimit {
    fn default() -> Self {
        SignInLimit {
            per_second: SIGN_INS_PER_SECOND,
            burst: SIGN_IN_BURST,
            guests_per_minute: GUESTS_PER_MINUTE,
            guest_burst: GUEST_BURST,
            registrations_per_minute: REGISTRATIONS_PER_MINUTE,
            registration_burst: REGISTRATION_BURST,
        }
    }
}

impl SignInLimit {
    /// The limits of `--sign-ins-per-second` / `--sign-in-burst`: the defaults when the flags
    /// are left alone; raised by a benchmark, guests and registrations follow the same rate
    /// and burst (a load generator mints its players from one address).
    pub fn at(per_second: u32, burst: u32) -> Self {
        let default = SignInLimit::default();
        if (per_second, burst) == (default.per_second, default.burst) {
            return default;
        }
        let per_minute = per_second.saturating_mul(60);
        SignInLimit {
            per_second,
            burst,
            guests_per_minute: per_minute,
            guest_burst: burst,
            registrations_per_minute: per_minute,
            registration_burst: burst,
        }
    }
}

/// The network an address belongs to for the code-lookup limit: its IPv4 /24 or IPv6 /64
/// (an IPv4 address mapped into IPv6 counts as IPv4).
pub fn network_of(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            IpAddr::V4(Ipv4Addr::new(a, b, c, 0))
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => network_of(IpAddr::V4(v4)),
            None => {
                let segments = v6.segments();
                IpAddr::V6(Ipv6Addr::new(
                    segments[0],
                    segments[1],
                    segments[2],
                    segments[3],
                    0,
                    0,
                    0,
                    0,
                ))
            }
        },
    }
}

fn per_minute(per_minute: u32, burst: u32) -> Quota {
    Quota::per_minute(nonzero(per_minute)).allow_burst(nonzero(burst))
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
    code_lookups_by_address: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    code_lookups_by_network: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    guests: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    registrations: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    public_reads: Arc<DefaultKeyedRateLimiter<IpAddr>>,
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
        Limits::configured(PlayerLimit::default(), SignInLimit::default())
    }
}

fn nonzero(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

impl Limits {
    pub fn new(per_second: u32, burst: u32, sign_ins_per_second: u32, sign_in_burst: u32) -> Self {
        Limits::configured(
            PlayerLimit { per_second, burst },
            SignInLimit {
                per_second: sign_ins_per_second,
                burst: sign_in_burst,
                ..SignInLimit::default()
            },
        )
    }

    /// `per_player` for each player's calls, `sign_ins` for unauthenticated entry per address.
    pub fn configured(per_player: PlayerLimit, sign_ins: SignInLimit) -> Self {
        let quota = Quota::per_second(nonzero(per_player.per_second))
            .allow_burst(nonzero(per_player.burst));
        Limits {
            per_player: Arc::new(RateLimiter::keyed(quota)),
            sign_ins: Arc::new(RateLimiter::keyed(
                Quota::per_second(nonzero(sign_ins.per_second))
                    .allow_burst(nonzero(sign_ins.burst)),
            )),
            guests: Arc::new(RateLimiter::keyed(per_minute(
                sign_ins.guests_per_minute,
                sign_ins.guest_burst,
            ))),
            registrations: Arc::new(RateLimiter::keyed(per_minute(
                sign_ins.registrations_per_minute,
                sign_ins.registration_burst,
            ))),
            public_reads: Arc::new(RateLimiter::keyed(
                Quota::per_second(nonzero(PUBLIC_READS_PER_SECOND))
                    .allow_burst(nonzero(PUBLIC_READ_BURST)),
            )),
            code_lookups_by_address: Arc::new(RateLimiter::keyed(per_minute(
                CODE_LOOKUPS_PER_ADDRESS_PER_MINUTE,
                CODE_LOOKUP_ADDRESS_BURST,
            ))),
            code_lookups_by_network: Arc::new(RateLimiter::keyed(per_minute(
                CODE_LOOKUPS_PER_NETWORK_PER_MINUTE,
                CODE_LOOKUP_NETWORK_BURST,
            ))),
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

    /// RESOURCE_EXHAUSTED when `player_id`, its address `peer` or the network of `peer` looks
    /// up room codes too fast (codes cannot be enumerated, however many guests one address
    /// mints). The network is checked last, so a player already over its own limit does not
    /// spend its neighbours' share.
    pub fn check_code_lookup(&self, player_id: &str, peer: IpAddr) -> Result<(), Status> {
        let refused = |per_minute: u32, whose: &str| {
            refuse(
                Code::ResourceExhausted,
                format!("too many room codes tried: at most {per_minute} a minute {whose}"),
                reason::RATE_LIMITED,
            )
        };
        self.code_lookups
            .check_key(&player_id.to_owned())
            .map_err(|_| refused(CODE_LOOKUPS_PER_MINUTE, "per player"))?;
        self.code_lookups_by_address
            .check_key(&peer)
            .map_err(|_| refused(CODE_LOOKUPS_PER_ADDRESS_PER_MINUTE, "from one address"))?;
        self.code_lookups_by_network
            .check_key(&network_of(peer))
            .map_err(|_| refused(CODE_LOOKUPS_PER_NETWORK_PER_MINUTE, "from one network"))
    }

    /// RESOURCE_EXHAUSTED when `peer` mints new guests too fast (on top of its sign-in rate).
    pub fn check_new_guest(&self, peer: IpAddr) -> Result<(), Status> {
        self.check_sign_in(peer)?;
        self.guests.check_key(&peer).map_err(|_| {
            refuse(
                Code::ResourceExhausted,
                "too many new guests from your address: try again in a minute",
                reason::RATE_LIMITED,
            )
        })
    }

    /// RESOURCE_EXHAUSTED when `peer` registers accounts too fast (on top of its sign-in
    /// rate): each registration costs a password hash.
    pub fn check_registration(&self, peer: IpAddr) -> Result<(), Status> {
        self.check_sign_in(peer)?;
        self.registrations.check_key(&peer).map_err(|_| {
            refuse(
                Code::ResourceExhausted,
                "too many registrations from your address: try again in a minute",
                reason::RATE_LIMITED,
            )
        })
    }

    /// RESOURCE_EXHAUSTED when token-free public reads come too fast from `peer`.
    pub fn check_public_read(&self, peer: IpAddr) -> Result<(), Status> {
        self.public_reads.check_key(&peer).map_err(|_| {
            refuse(
                Code::ResourceExhausted,
                "too many game-option reads from your address: keep the copy you have and \
                 retry shortly",
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
        for by_peer in [
            &self.sign_ins,
            &self.refused_tokens,
            &self.guests,
            &self.registrations,
            &self.public_reads,
            &self.code_lookups_by_address,
            &self.code_lookups_by_network,
        ] {
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

    /// Two addresses of the documentation ranges: one floods, the other must not feel it.
    const FLOODER: IpAddr = IpAddr::V4(Ipv4Addr::new(203, 0, 113, 7));
    const NEIGHBOUR: IpAddr = IpAddr::V4(Ipv4Addr::new(198, 51, 100, 9));

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
    fn a_flood_of_public_reads_from_one_address_is_refused_and_others_are_served() {
        let limits = Limits::default();
        let (flooder, neighbour) = (FLOODER, NEIGHBOUR);
        let mut served = 0;
        let refused = loop {
            match limits.check_public_read(flooder) {
                Ok(()) => served += 1,
                Err(refused) => break refused,
            }
            assert!(served <= PUBLIC_READ_BURST * 2, "never refused");
        };
        // The bucket refills at 20 a second, so a slow test may be served a few more.
        assert!(
            (PUBLIC_READ_BURST..PUBLIC_READ_BURST + 20).contains(&served),
            "a burst of {PUBLIC_READ_BURST} is served, then refused ({served} served)"
        );
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(
            refused.message().contains("game-option reads"),
            "{refused:?}"
        );
        assert!(
            limits.check_public_read(neighbour).is_ok(),
            "limits are per address"
        );
        assert!(
            limits.check_sign_in(flooder).is_ok(),
            "reading options does not use up the address's sign-ins"
        );
    }

    #[test]
    fn a_sign_in_flood_from_one_address_does_not_lock_out_another() {
        let limits = Limits::new(1, 1, 1, 3);
        let (flooder, neighbour) = (FLOODER, NEIGHBOUR);
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
        let (flooder, neighbour) = (FLOODER, NEIGHBOUR);
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
        let home: IpAddr = "198.51.100.7".parse().unwrap();
        for _ in 0..CODE_LOOKUP_BURST {
            assert!(limits.check_code_lookup("ann", home).is_ok());
        }
        let refused = limits.check_code_lookup("ann", home).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(
            limits.check_code_lookup("bob", home).is_ok(),
            "limits are per player"
        );
    }

    /// Security (ARCHITECTURE.md): fresh guests from one address do not get fresh guesses,
    /// nor do the other addresses of its /24; another network is not slowed.
    #[test]
    fn room_code_guesses_follow_the_address_and_its_network_not_the_guest() {
        let limits = Limits::default();
        let guesser: IpAddr = "203.0.113.9".parse().unwrap();
        // A new guest every five guesses (under the per-player burst).
        let mut tried = 0;
        let refused = loop {
            let guest = format!("guest-{}", tried / 5);
            match limits.check_code_lookup(&guest, guesser) {
                Ok(()) => tried += 1,
                Err(refused) => break refused,
            }
            assert!(tried <= 1_000, "never refused");
        };
        assert_eq!(tried, CODE_LOOKUP_ADDRESS_BURST);
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(
            refused.message().contains("from one address"),
            "{refused:?}"
        );
        // The rest of the /24 shares the network's burst, then is refused as one network.
        let mut neighbours = 0;
        for host in 10..=250u8 {
            let neighbour = IpAddr::V4(Ipv4Addr::new(203, 0, 113, host));
            if limits
                .check_code_lookup(&format!("n{host}"), neighbour)
                .is_err()
            {
                break;
            }
            neighbours += 1;
        }
        assert_eq!(
            neighbours,
            CODE_LOOKUP_NETWORK_BURST - CODE_LOOKUP_ADDRESS_BURST,
            "the /24 shares one burst"
        );
        let elsewhere: IpAddr = "203.0.114.9".parse().unwrap();
        assert!(limits.check_code_lookup("eve", elsewhere).is_ok());
    }

    #[test]
    fn an_ipv6_guesser_is_one_network_per_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        assert_eq!(network_of(a), network_of(b));
        assert_ne!(
            network_of(a),
            network_of("2001:db8:1:3::1".parse().unwrap())
        );
        let mapped: IpAddr = "::ffff:203.0.113.9".parse().unwrap();
        assert_eq!(network_of(mapped), "203.0.113.0".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn new_guests_and_registrations_are_limited_per_address() {
        let limits = Limits::default();
        let minter: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..GUEST_BURST {
            assert!(limits.check_new_guest(minter).is_ok());
        }
        let refused = limits.check_new_guest(minter).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        for _ in 0..REGISTRATION_BURST {
            assert!(limits.check_registration(minter).is_ok());
        }
        let refused = limits.check_registration(minter).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        let other: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(limits.check_new_guest(other).is_ok(), "per address");
        assert!(limits.check_registration(other).is_ok(), "per address");
        // A benchmark's raised rate raises them with it.
        let raised = Limits::configured(PlayerLimit::default(), SignInLimit::at(20_000, 20_000));
        for _ in 0..1_000 {
            assert!(raised.check_new_guest(minter).is_ok());
        }
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
