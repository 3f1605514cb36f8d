//! [`GameStore`]: each game's current state, its append-only event log and the table of
//! committed action ids that makes a retried action idempotent.
//!
//! This file holds the public types and one dispatch per call; the Redis keys, scripts and
//! cluster path are in `redis.rs`, the in-memory model in `memory.rs`.

use std::time::Duration;

use crate::backend::{Backend, Kind, StoreError, dispatch};
use crate::timer::TimerWrites;

mod memory;
mod redis;

pub(crate) use memory::GamesMem;

/// One event of a game's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// The game's seq right after this event (the first event has seq 1).
    pub seq: u64,
    /// The encoded event.
    pub payload: Vec<u8>,
}

/// A game as stored: its seq, state and immutable metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// The seq of the last event; the next commit must expect it.
    pub seq: u64,
    /// The encoded game state after event `seq`.
    pub state: Vec<u8>,
    /// The metadata given at creation.
    pub meta: Vec<u8>,
}

/// What [`GameStore::read_for_action`] read of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameRead {
    /// No such game.
    Missing,
    /// The game is still the copy the caller said it holds (its seq and version): state and
    /// meta were not sent.
    Unchanged {
        /// That seq.
        seq: u64,
    },
    /// The game as stored.
    Record {
        /// Its seq, state and meta.
        record: GameRecord,
        /// The version its last commit wrote ([`Commit::version`]).
        version: Option<String>,
    },
}

/// A commit that landed ([`GameStore::commit`]): the game is now at `seq`
/// (= `expected_seq + 1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Committed {
    /// The new seq.
    pub seq: u64,
}

/// Why [`GameStore::commit`] wrote nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitRefusal {
    /// `expected_seq` was not the game's seq: nothing written.
    StaleSeq {
        /// The game's seq.
        current: u64,
    },
    /// The action id was committed before, as event `seq`: nothing written.
    DuplicateAction {
        /// The seq that action produced.
        seq: u64,
    },
    /// No such game.
    NotFound,
}

/// One move to commit: compare-and-set on the seq, plus the new state and the event.
#[derive(Debug, Clone, Copy)]
pub struct Commit<'a> {
    /// The seq the caller read; the commit applies only if the game is still there.
    pub expected_seq: u64,
    /// Idempotency key of a player action (per game); `None` for server actions (timeouts).
    pub action_id: Option<&'a str>,
    /// The new state.
    pub state: &'a [u8],
    /// The event appended as seq `expected_seq + 1`.
    pub event: &'a [u8],
    /// The version the commit writes: a fresh token no earlier commit of the game wrote (a
    /// caller that keeps a copy of the game names the copy by it). `None` writes none, which
    /// also invalidates every copy.
    pub version: Option<&'a str>,
    /// The commit applies only if the game's stored version is this one as well as its seq
    /// being `expected_seq`: seq alone names one state only while history never rewinds,
    /// and a Redis that lost its last writes (a failover, a restart without fsync) can reach
    /// the same seq again by other moves.
    pub expected_version: Option<&'a str>,
}

/// Each game's state and event log. See the crate docs for the Redis keys.
///
/// The same code keeps rooms' state and logs ([`crate::RoomStore`]): a [`Log`] names which
/// family of keys (and which memory map, and which feed channels) a store works on, so rooms
/// get the games' commit script, log, feed and expiry rather than a second copy.
#[derive(Debug, Clone)]
pub struct GameStore {
    backend: Backend,
    log: Log,
}

/// Which family of logs a [`GameStore`] works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Log {
    /// `ludus:game:{ID}:*`, the live set `ludus:games:live`.
    Game,
    /// `ludus:room:{CODE}:*`, the lobby `ludus:rooms:public`.
    Room,
}

impl Log {
    /// The word in the keys: `game` or `room`.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Log::Game => "game",
            Log::Room => "room",
        }
    }

    /// The live channels' name with the id left out (a span names no id).
    pub(crate) fn channel_template(self) -> &'static str {
        match self {
            Log::Game => "ludus:game:{ID}:live",
            Log::Room => "ludus:room:{CODE}:live",
        }
    }
}
impl GameStore {
    /// A game store over `backend`.
    pub fn new(backend: Backend) -> Self {
        GameStore {
            backend,
            log: Log::Game,
        }
    }

    /// A store of the `log` family on `backend`.
    pub(crate) fn of(backend: Backend, log: Log) -> Self {
        GameStore { backend, log }
    }

    /// Creates the game with seq 1 and event 1 (the "game started" event), and publishes that
    /// event. `Ok(false)` if the id exists (nothing written).
    pub async fn create(
        &self,
        game_id: &str,
        meta: &[u8],
        state: &[u8],
        first_event: &[u8],
    ) -> Result<bool, StoreError> {
        dispatch!(
            self.backend,
            create(self.log, game_id, meta, state, first_event)
        )
    }

    /// The game's current seq, state and metadata; `None` if there is no such game.
    pub async fn load(&self, game_id: &str) -> Result<Option<GameRecord>, StoreError> {
        dispatch!(self.backend, load(self.log, game_id))
    }

    /// What the path of a player's action reads, in one round trip: the game (see
    /// [`GameRead`]) and the seq `action_id` produced if it was committed before (as
    /// [`GameStore::action_seq`]). With `held`, the seq and version of a copy of the game the
    /// caller holds, the state and meta are not sent while the game is still that copy.
    pub async fn read_for_action(
        &self,
        game_id: &str,
        action_id: &str,
        held: Option<(u64, &str)>,
    ) -> Result<(GameRead, Option<u64>), StoreError> {
        dispatch!(
            self.backend,
            read_for_action(self.log, game_id, action_id, held)
        )
    }

    /// Atomically: if `commit.action_id` was committed before, refuses with
    /// `DuplicateAction` and its seq (checked first, so a retry gets its original answer even
    /// after later moves); else if the seq is not `expected_seq`, `StaleSeq`; else writes the
    /// state, appends the event as seq `expected_seq + 1`, records the action id and
    /// publishes the event.
    pub async fn commit(
        &self,
        game_id: &str,
        commit: Commit<'_>,
    ) -> Result<Result<Committed, CommitRefusal>, StoreError> {
        self.commit_with_timers(game_id, commit, &TimerWrites::default())
            .await
    }

    /// Whether [`GameStore::commit_with_timers`] writes the timers only if the commit lands
    /// (one Redis node, memory); false on a Redis Cluster, where they are armed before it.
    pub fn writes_timers_in_commit(&self) -> bool {
        !self.backend.is_redis_cluster()
    }

    /// [`GameStore::commit`], and the change's timer writes in the timers' keys of the same
    /// backend (what a [`crate::TimerStore`] over it reads and fires).
    ///
    /// On one Redis node and in memory they are part of the commit: the timers are armed and
    /// the stale ones deleted if and only if the commit lands, in the same script (one round
    /// trip for the move, its clock and the previous clock's removal). On a Redis Cluster the
    /// timer shards live in other slots than the game, which one script cannot touch, so the
    /// timers are armed before the commit (a timer for a change that did not land fires into
    /// a stale turn and changes nothing; a landed change always has its timers) and the stale
    /// ones deleted in the background after it.
    pub async fn commit_with_timers(
        &self,
        game_id: &str,
        commit: Commit<'_>,
        timers: &TimerWrites,
    ) -> Result<Result<Committed, CommitRefusal>, StoreError> {
        let (log, backend) = (self.log, &self.backend);
        match &backend.kind {
            Kind::Redis(r) => {
                redis::commit_with_timers(r, backend, log, game_id, commit, timers).await
            }
            Kind::Memory(m) => memory::commit_with_timers(m, log, game_id, commit, timers),
        }
    }

    /// The seq `action_id` committed as, `seq` by the caller's earlier read, answered only
    /// once the replicas of a replica wait have that commit (see the `replicas` module): its
    /// mark is written again, unchanged, and waited for. Without a replica wait, `seq` at
    /// once. A mark gone since the read (a failover lost the commit) is UNAVAILABLE: the
    /// caller's retry applies the action afresh.
    pub async fn confirm_action(
        &self,
        game_id: &str,
        action_id: &str,
        seq: u64,
    ) -> Result<u64, StoreError> {
        let (Kind::Redis(r), Some(waiter)) = (&self.backend.kind, &self.backend.replica_wait)
        else {
            return Ok(seq);
        };
        redis::confirm_action(r, waiter, self.log, game_id, action_id).await
    }

    /// Events with seq > `after_seq`, in order, at most `limit`. Empty for an unknown game.
    pub async fn events_after(
        &self,
        game_id: &str,
        after_seq: u64,
        limit: usize,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        dispatch!(
            self.backend,
            events_after(self.log, game_id, after_seq, limit)
        )
    }

    /// The seq at which `action_id` was committed in this game, if it was. Lets game-state
    /// answer a retried action with its first result before judging it against the rules
    /// (by then it may no longer be legal, or even the caller's turn).
    pub async fn action_seq(
        &self,
        game_id: &str,
        action_id: &str,
    ) -> Result<Option<u64>, StoreError> {
        dispatch!(self.backend, action_seq(self.log, game_id, action_id))
    }

    /// The event with this seq, if the game and the event exist.
    pub async fn event(&self, game_id: &str, seq: u64) -> Result<Option<StoredEvent>, StoreError> {
        if seq == 0 {
            return Ok(None);
        }
        dispatch!(self.backend, event(self.log, game_id, seq))
    }

    /// Counts the event streams a seat's player has open on the game (Caro C13: a player
    /// with none is disconnected): adds `delta` (+1 when a stream opens, -1 when it closes,
    /// 0 to read), never going below zero, and returns the new count. Every gateway replica
    /// shares the count, so a player who moves from one replica to another stays connected.
    pub async fn presence(&self, game_id: &str, seat: u32, delta: i64) -> Result<u64, StoreError> {
        dispatch!(self.backend, presence(self.log, game_id, seat, delta))
    }

    /// A game is over: it leaves the live set, and its keys (state, log, action ids, presence)
    /// expire after `keep_for`, so finished games do not pile up in Redis forever while
    /// players and spectators can still read them for a while. `now_ms` is the caller's
    /// clock: the memory backend forgets games whose time has come whenever a game finishes.
    pub async fn finish(
        &self,
        game_id: &str,
        now_ms: u64,
        keep_for: Duration,
    ) -> Result<(), StoreError> {
        let keep_ms = u64::try_from(keep_for.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        match &self.backend.kind {
            Kind::Redis(r) => redis::finish(r, self.log, game_id, keep_ms).await,
            Kind::Memory(m) => memory::finish(m, self.log, game_id, now_ms, keep_ms),
        }
    }

    /// Takes back [`GameStore::finish`]'s expiry: the log lives on (a room someone joined
    /// again before it expired). Does not list it again: see [`GameStore::mark_live`].
    pub(crate) async fn persist(&self, id: &str) -> Result<(), StoreError> {
        dispatch!(self.backend, persist(self.log, id))
    }

    /// Forgets, on the memory backend, every log whose expiry passed by `now_ms` (Redis
    /// expires keys by itself): reads that must not see an expired log call it first.
    pub(crate) async fn purge_expired(&self, now_ms: u64) -> Result<(), StoreError> {
        dispatch!(self.backend, purge_expired(self.log, now_ms))
    }

    /// Takes the log out of the listing ([`GameStore::live_games`]) without expiring it.
    pub(crate) async fn unmark_live(&self, id: &str) -> Result<(), StoreError> {
        dispatch!(self.backend, unmark_live(self.log, id))
    }

    /// Records that `players` sit in the unfinished game `game_id` (or, with `seated` false,
    /// no longer: it is over), for [`GameStore::player_games`]. One set per player, so each
    /// player's set lives in its own slot: one command per player, each idempotent.
    pub async fn seat_players(
        &self,
        game_id: &str,
        players: &[String],
        seated: bool,
    ) -> Result<(), StoreError> {
        dispatch!(
            self.backend,
            seat_players(self.log, game_id, players, seated)
        )
    }

    /// Ids of the unfinished games `player` sits in, highest (newest) first, at most `limit`.
    pub async fn player_games(
        &self,
        player: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        dispatch!(self.backend, player_games(self.log, player, limit))
    }

    /// Lists the game as live since `since_ms` (its creation) for [`GameStore::live_games`],
    /// until [`GameStore::finish`]; marking it again keeps the first time.
    pub async fn mark_live(&self, game_id: &str, since_ms: u64) -> Result<(), StoreError> {
        dispatch!(self.backend, mark_live(self.log, game_id, since_ms))
    }

    /// Ids of live games, newest first (latest `since_ms`; ties by id, highest first), at
    /// most `limit`. One `ZREVRANGE`: O(log n + limit) however many games are live, so
    /// listing never blocks Redis the way sorting the whole set would.
    pub async fn live_games(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        dispatch!(self.backend, live_games(self.log, limit))
    }
}
