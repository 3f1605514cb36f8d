//! Session state of Ludus: the only crate that talks to Redis.
//!
//! Every service keeps its durable state through the stores here: the per-game event log
//! ([`GameStore`]), rooms ([`RoomStore`], the same log over room keys), the live event feed the gateway fans out ([`GameFeed`]), durable deadlines
//! ([`TimerStore`]), matchmaking queues ([`QueueStore`]) and ratings ([`RatingStore`]). Each store
//! is a small `Clone` struct over a [`Backend`]: Redis in production, or an in-memory backend for
//! the all-in-one binary and unit tests. Both backends pass the same `conformance` suite, and
//! every operation is atomic on both: on Redis each multi-key write is one Lua script, in memory
//! it runs under one lock.
//!
//! The store never reads a clock: callers pass `now_ms` (Unix milliseconds), which keeps the
//! memory backend deterministic and tests in control of time. The services read that time
//! from one [`Clock`] (the system's, or a test's [`ManualClock`]).
//!
//! # Layout
//! Every store is a folder with one backend per file: `mod.rs` (the public type, its docs and
//! one `dispatch!` line per call), `redis.rs` (keys, Lua scripts, the cluster path) and
//! `memory.rs` (the in-memory model).
//! - `backend`: [`Backend`], the `dispatch!` macro, error mapping; connections and key naming
//!   in `backend/redis.rs`, the memory state in `backend/memory.rs`.
//! - `lease`: [`StreamLeases`], the gateways' stream leases.
//! - `game`: [`GameStore`], the per-game state, event log and idempotency table.
//! - `feed`: [`GameFeed`], live events over pub/sub, one subscription per game per process.
//! - `flags`: [`RedisFlags`], the Redis flag every service binary flattens into its own, and
//!   [`ReplicaWaitFlags`], the replica wait game-state and the all-in-one take.
//! - `replicas`: [`ReplicaWait`], commits acknowledged only once replicas have them (`WAIT`).
//! - `timer`: [`TimerStore`], claimable deadlines.
//! - `queue`: [`QueueStore`], matchmaking tickets.
//! - `rating`: [`RatingStore`], ratings, leaderboards and the per-game idempotency marker.
//! - `room`: [`RoomStore`], rooms' state, event log, feed and lobby: a [`GameStore`] over the
//!   room keys.
//! - `conformance` (feature `testing`): the behaviour both backends must show, one file per
//!   store, run as one suite by this crate's tests on both backends.
//! - `testing` (feature `testing`): `testing::RedisServer`, a throwaway `redis-server` child
//!   process for tests, and `testing::RedisCluster`, a throwaway three-master Redis Cluster.
//!
//! Both test modules are compiled only with the `testing` feature, which only
//! dev-dependencies (and the end-to-end test crate) enable: no service binary carries them.
//!
//! # Redis and Redis Cluster
//! [`Backend::redis`] takes one node's URL (`redis://host:port/db`) or a cluster's
//! (`redis+cluster://host:port,host:port,...`, [`CLUSTER_SCHEME`]). Both use the same keys
//! and the same scripts: on a cluster each command and script goes to the master of its
//! (first) key's slot, and every key a script touches shares that slot. Live events use
//! classic pub/sub on one node and sharded pub/sub (`SPUBLISH`/`SSUBSCRIBE`, Redis 7) on a
//! cluster: the publishing command is the scripts' argument, not a second script.
//! `rediss://` and `rediss+cluster://` ([`CLUSTER_TLS_SCHEME`]) are the same over TLS, with a
//! CA file for a private CA ([`RedisOptions`], `--redis-ca-file`).
//!
//! # Redis key layout
//! Keys between braces are Redis Cluster hash tags: every key one script touches shares a tag,
//! so the scripts also run on a cluster. A finished game's `ludus:game:{ID}:*` keys expire
//! after its retention ([`GameStore::finish`]). An optional prefix
//! ([`Backend::redis_with_prefix`]) goes in front of every key and channel.
//!
//! | key | type | holds |
//! |---|---|---|
//! | `ludus:game:{ID}:state` | hash | `seq`, `state`, `meta` of one game, and `ver`, the version its last commit wrote ([`Commit::version`]) |
//! | `ludus:game:{ID}:events` | stream | event `seq` at stream id `<seq>-0`, field `e` |
//! | `ludus:game:{ID}:actions` | hash | `player_id:action_id` -> the `seq` it committed (ids are per player) |
//! | `ludus:game:{ID}:presence` | hash | seat -> open event streams of that seat's player (C13) |
//! | `ludus:game:{ID}:live` | pub/sub channel | `<seq>:<event bytes>` per committed event |
//! | `ludus:games:live` | zset | ids of games not finished, scored by creation time (ms) |
//! | `ludus:player:{PID}:games` | set | ids of the unfinished games a player sits in |
//! | `ludus:room:{CODE}:state` | hash | `seq`, `state` of one room (the code's index: one live room per code) |
//! | `ludus:room:{CODE}:events` | stream | room event `seq` at stream id `<seq>-0`, field `e` |
//! | `ludus:room:{CODE}:live` | pub/sub channel | `<seq>:<event bytes>` per committed room event |
//! | `ludus:rooms:public` | zset | codes of public rooms (the lobby), scored by when listed (ms) |
//! | `ludus:{timers:N}:due` | zset | timer key, scored by due time or claim deadline (ms); N = 0..15, the shard of the key ([`TIMER_SHARDS`]) |
//! | `ludus:{timers:N}:payload` | hash | timer key -> payload, of shard N |
//! | `ludus:{mm}:queues` | set | names of queues holding tickets |
//! | `ludus:{mm:QUEUE}:queue` | zset | queued ticket ids, scored by `created_ms` |
//! | `ludus:{mm:QUEUE}:ticket:ID` | hash | one ticket (`alive`: its lease end, Unix ms); expires 1 h after it is matched or cancelled |
//! | `ludus:{mm:QUEUE}:lease` | string | the replica matching the queue |
//! | `ludus:{mm}:settled` | pub/sub channel | ids of tickets whose game exists or that were cancelled |
//! | `ludus:{mm-player:PID}:ticket` | hash | `queue`, `ticket`: the player's live ticket, if that ticket is still queued (see `QueueStore`) |
//! | `ludus:{rating}:RULESET:board` | zset | leaderboard, member `<games:010>:<PID>`, score `-rating` |
//! | `ludus:{rating}:RULESET:player:PID` | hash | `name`, `rating`, `games`, `version`, `member` |
//! | `ludus:{rating}:game:GAMEID` | string | the game's result bytes: marks it as recorded |
//! | `ludus:{presence}:holders` | zset | gateway instance -> its stream lease's end (Unix ms) |
//! | `ludus:{presence}:holder:ID:streams` | hash | `GAME\nPLAYER` -> seated streams that gateway holds |
//!
//! Live events: a subscriber may receive an event committed shortly before it subscribed,
//! and after a Redis reconnect it sees [`FeedError::Lagged`]; either way it should track the
//! last seq it delivered and fill gaps from [`GameStore::events_after`].
//!
//! The two families every replica hits hardest are spread over many tags: timers over sixteen
//! shards (each timers replica claims from all of them), matchmaking by queue (a queue's
//! scripts touch only its own tag; one live ticket per player across queues is kept by a
//! two-step protocol on the player's own key, described in the `queue` module). Rating keys
//! share one tag (`{rating}`) because their script must see keys of several rule sets at once
//! (one result marker per game whatever its rule set).
#![forbid(unsafe_code)]

mod backend;
mod clock;
#[cfg(feature = "testing")]
pub mod conformance;
mod feed;
mod flags;
mod game;
mod lease;
mod queue;
mod rating;
mod replicas;
mod room;
#[cfg(feature = "testing")]
pub mod testing;
mod timer;

pub use backend::{Backend, CLUSTER_SCHEME, CLUSTER_TLS_SCHEME, RedisOptions, StoreError};
pub use clock::{Clock, ManualClock};
pub use feed::{Delivery, FEED_CAPACITY, FeedError, FeedSubscription, GameFeed};
pub use flags::{RedisFlags, ReplicaWaitFlags};
pub use game::{Commit, CommitRefusal, Committed, GameRead, GameRecord, GameStore, StoredEvent};
pub use lease::{HeldStream, StreamLeases};
pub use queue::{
    CHANGED_MARK, Confirmation, EnqueueOutcome, FINISHED_TICKET_TTL_SECS, QueueStore,
    SeatConfirmation, SettledSubscription, TableClaim, TableOutcome, TableProposal, Ticket,
    TicketChange, TicketNotice, TicketProposal, TicketStatus,
};
pub use rating::{RatedGame, RatingEntry, RatingStore, RatingUpdate, RecordOutcome};
pub use replicas::{ReplicaWait, WAIT_CONNECTIONS};
pub use room::{RoomRecord, RoomStore};
pub use timer::{DueTimer, TIMER_SHARDS, TimerArm, TimerStore, TimerWrites};

/// `From<StoreError>` for a service's error enum that has `Unavailable(String)` and
/// `Internal(String)` variants: Redis down is UNAVAILABLE (retryable), unreadable stored data
/// is INTERNAL ([`StoreError::into_service_error`]). Every Redis-backed service maps a store
/// failure this way, so the mapping is written once (a blanket impl is not possible: both
/// the trait and the target are foreign to this crate).
#[macro_export]
macro_rules! impl_from_store_error {
    ($error:ident) => {
        impl From<$crate::StoreError> for $error {
            fn from(error: $crate::StoreError) -> Self {
                error.into_service_error($error::Unavailable, $error::Internal)
            }
        }
    };
}
