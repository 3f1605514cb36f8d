//! [`GameStore`]: each game's current state, its append-only event log and the table of
//! committed action ids that makes a retried action idempotent.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use redis::{Script, ScriptInvocation};
use tracing::Instrument;

use crate::backend::{
    Backend, Keys, Kind, MemoryState, Publish, RedisBackend, StoreError, lock, parse_u64,
    publish_span,
};
use crate::timer::{TimerStore, TimerWrites, timer_shard};

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

    /// The memory backend's map of this family.
    pub(crate) fn memory(self, m: &MemoryState) -> &Mutex<GamesMem> {
        match self {
            Log::Game => &m.games,
            Log::Room => &m.rooms,
        }
    }

    /// The memory feed's channel of one log (a room code could equal a game id).
    pub(crate) fn hub_key(self, id: &str) -> Cow<'_, str> {
        match self {
            Log::Game => Cow::Borrowed(id),
            Log::Room => Cow::Owned(format!("room:{id}")),
        }
    }
}

#[derive(Default)]
pub(crate) struct GamesMem {
    games: HashMap<String, GameMem>,
    /// (live since, id) of unfinished games: the Redis zset's order.
    live: BTreeSet<(u64, String)>,
    /// id -> live since, to find a live entry by id.
    live_since: HashMap<String, u64>,
    /// game -> seat -> open streams; see [`GameStore::presence`]. Keyed by game first so a
    /// game's counts go in one removal, not a scan of every game's.
    presence: HashMap<String, HashMap<u32, u64>>,
    /// Finished games by the time they may be forgotten (Unix ms); see [`GameStore::finish`].
    expiring: BTreeSet<(u64, String)>,
    /// player -> the unfinished games they sit in; see [`GameStore::seat_players`].
    player_games: HashMap<String, BTreeSet<String>>,
}

impl GamesMem {
    /// Forgets every finished game whose retention ended by `now_ms`.
    fn purge(&mut self, now_ms: u64) {
        while let Some((at, game_id)) = self.expiring.first().cloned() {
            if at > now_ms {
                break;
            }
            self.expiring.pop_first();
            // A game re-created under the same id since then has no expiry of its own.
            if self
                .games
                .get(&game_id)
                .is_some_and(|g| g.expires_ms == Some(at))
            {
                self.games.remove(&game_id);
                self.presence.remove(&game_id);
            }
        }
    }
}

struct GameMem {
    /// Set once the game is finished: when it may be forgotten (Unix ms).
    expires_ms: Option<u64>,
    state: Vec<u8>,
    /// The last commit's [`Commit::version`].
    version: Option<String>,
    meta: Vec<u8>,
    /// `events[i]` has seq `i + 1`, so the seq is `events.len()`.
    events: Vec<Vec<u8>>,
    actions: HashMap<String, u64>,
}

/// `script` called on one game's four keys (state, events, actions, presence), in the order
/// CREATE and FINISH take them.
fn game_script<'a>(script: &'a Script, keys: &Keys, log: Log, id: &str) -> ScriptInvocation<'a> {
    let mut invocation = script.prepare_invoke();
    invocation
        .key(keys.log_state(log, id))
        .key(keys.log_events(log, id))
        .key(keys.log_actions(log, id))
        .key(keys.log_presence(log, id));
    invocation
}

/// KEYS: state, events, actions, presence. ARGV: meta, state, first event, live channel,
/// publishing command (`PUBLISH`, or `SPUBLISH` on a cluster: the channel shares the keys'
/// hash tag, so it is sharded onto this very master). Clears leftovers of an earlier game with the same id so event 1 can be appended.
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[1], 'seq', 1, 'state', ARGV[2], 'meta', ARGV[1])
redis.call('XADD', KEYS[2], '1-0', 'e', ARGV[3])
redis.call(ARGV[5], ARGV[4], '1:' .. ARGV[3])
return 1
",
    )
});

/// KEYS: state, events, actions, then a (due, payload) pair of timer-shard keys per timer
/// write. ARGV: expected seq, has action ('1'/'0'), action id, state, event, live channel,
/// publishing command (as [`CREATE`]'s), expected version ('' for any), new version ('' for
/// none), the number of timers to arm, whether a duplicate writes its mark again ('1'/'0'),
/// then key, due, payload of each timer to arm, then the key of each timer to cancel. Returns
/// {0} not found, {1, current} stale (a version other than the expected one answers so too),
/// {2, seq} duplicate, {3, seq} committed. The duplicate check comes first so a retried action
/// gets its original answer even after later moves; with a replica wait the duplicate writes
/// its mark again, unchanged, so the `WAIT` after the script covers a write that follows the
/// original commit (see the `replicas` module). The timer writes happen only with the commit
/// (they are [`crate::TimerStore::arm`]'s and `cancel`'s).
static COMMIT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local seq = redis.call('HGET', KEYS[1], 'seq')
if not seq then return {0} end
if ARGV[2] == '1' then
  local done = redis.call('HGET', KEYS[3], ARGV[3])
  if done then
    if ARGV[11] == '1' then redis.call('HSET', KEYS[3], ARGV[3], done) end
    return {2, tonumber(done)}
  end
end
seq = tonumber(seq)
if seq ~= tonumber(ARGV[1]) then return {1, seq} end
if ARGV[8] ~= '' and redis.call('HGET', KEYS[1], 'ver') ~= ARGV[8] then return {1, seq} end
local new = seq + 1
redis.call('HSET', KEYS[1], 'seq', new, 'state', ARGV[4])
if ARGV[9] ~= '' then
  redis.call('HSET', KEYS[1], 'ver', ARGV[9])
else
  redis.call('HDEL', KEYS[1], 'ver')
end
redis.call('XADD', KEYS[2], new .. '-0', 'e', ARGV[5])
if ARGV[2] == '1' then redis.call('HSET', KEYS[3], ARGV[3], new) end
redis.call(ARGV[7], ARGV[6], new .. ':' .. ARGV[5])
local k, a = 4, 12
for _ = 1, tonumber(ARGV[10]) do
  redis.call('ZADD', KEYS[k], ARGV[a + 1], ARGV[a])
  redis.call('HSET', KEYS[k + 1], ARGV[a], ARGV[a + 2])
  k, a = k + 2, a + 3
end
while a <= #ARGV do
  redis.call('ZREM', KEYS[k], ARGV[a])
  redis.call('HDEL', KEYS[k + 1], ARGV[a])
  k, a = k + 2, a + 1
end
return {3, new}
",
    )
});

/// KEYS: actions. ARGV: action id. Writes the action's mark again, unchanged, and returns the
/// seq it holds (nil when there is none): what [`GameStore::confirm_action`] waits for.
static REMARK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local done = redis.call('HGET', KEYS[1], ARGV[1])
if done then redis.call('HSET', KEYS[1], ARGV[1], done) end
return done
",
    )
});

/// KEYS: state, actions. ARGV: action id, the seq and version of the copy the caller holds
/// ('' for none). Returns {} for no game, else {seq, the action's seq or nil}, followed by
/// state, meta and version unless the game is at the held seq and version.
static READ_FOR_ACTION: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local seq = redis.call('HGET', KEYS[1], 'seq')
if not seq then return {} end
local done = redis.call('HGET', KEYS[2], ARGV[1]) or false
local ver = redis.call('HGET', KEYS[1], 'ver') or false
if seq == ARGV[2] and ver == ARGV[3] then return {seq, done} end
local fields = redis.call('HMGET', KEYS[1], 'state', 'meta')
return {seq, done, fields[1], fields[2], ver}
",
    )
});

/// KEYS: state, events, actions, presence. ARGV: milliseconds to keep them. Only a game that
/// exists gets an expiry.
static FINISH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
return 1
",
    )
});

/// KEYS: state, events, actions, presence. Takes back [`FINISH`]'s expiry.
static PERSIST: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
for i = 1, 4 do redis.call('PERSIST', KEYS[i]) end
return 1
",
    )
});

/// KEYS: presence. ARGV: seat, delta. Adds `delta` to the seat's count, never below zero;
/// returns the count.
static PRESENCE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
if n < 0 then
  redis.call('HSET', KEYS[1], ARGV[1], 0)
  n = 0
end
return n
",
    )
});

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
        match &self.backend.kind {
            Kind::Redis(r) => {
                let k = &r.keys;
                let created: i64 = game_script(&CREATE, k, self.log, game_id)
                    .arg(meta)
                    .arg(state)
                    .arg(first_event)
                    .arg(k.log_live(self.log, game_id))
                    .arg(r.publish.command())
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA create", "create"))
                    .await?;
                Ok(created == 1)
            }
            Kind::Memory(m) => {
                let mut games = lock(self.log.memory(m));
                if games.games.contains_key(game_id) {
                    return Ok(false);
                }
                games.presence.remove(game_id);
                games.games.insert(
                    game_id.to_owned(),
                    GameMem {
                        expires_ms: None,
                        version: None,
                        state: state.to_vec(),
                        meta: meta.to_vec(),
                        events: vec![first_event.to_vec()],
                        actions: HashMap::new(),
                    },
                );
                // Published under the games lock, so feed order is commit order.
                m.hub.publish(
                    &self.log.hub_key(game_id),
                    StoredEvent {
                        seq: 1,
                        payload: first_event.to_vec(),
                    },
                );
                Ok(true)
            }
        }
    }

    /// The game's current seq, state and metadata; `None` if there is no such game.
    pub async fn load(&self, game_id: &str) -> Result<Option<GameRecord>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let fields: [Option<Vec<u8>>; 3] = redis::cmd("HMGET")
                    .arg(r.keys.log_state(self.log, game_id))
                    .arg("seq")
                    .arg("state")
                    .arg("meta")
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("HMGET"))
                    .await?;
                record_from_fields(game_id, fields)
            }
            Kind::Memory(m) => Ok(memory_record(&lock(self.log.memory(m)), game_id)),
        }
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
        match &self.backend.kind {
            Kind::Redis(r) => {
                let reply: Vec<Option<Vec<u8>>> = READ_FOR_ACTION
                    .key(r.keys.log_state(self.log, game_id))
                    .key(r.keys.log_actions(self.log, game_id))
                    .arg(action_id)
                    .arg(held.map(|(seq, _)| seq.to_string()).unwrap_or_default())
                    .arg(held.map_or("", |(_, version)| version))
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA read", "read"))
                    .await?;
                let mut fields = reply.into_iter();
                let Some(Some(seq)) = fields.next() else {
                    return Ok((GameRead::Missing, None));
                };
                let done = fields
                    .next()
                    .flatten()
                    .map(|done| parse_u64("action seq", &done))
                    .transpose()?;
                let seq = parse_u64("game seq", &seq)?;
                let read = match (fields.next(), fields.next(), fields.next()) {
                    (None, None, None) => GameRead::Unchanged { seq },
                    (state, meta, version) => {
                        let version = version
                            .flatten()
                            .map(String::from_utf8)
                            .transpose()
                            .map_err(|_| StoreError::Corrupt("game version is not text".into()))?;
                        record_from_fields(
                            game_id,
                            [
                                Some(seq.to_string().into_bytes()),
                                state.flatten(),
                                meta.flatten(),
                            ],
                        )?
                        .map_or(GameRead::Missing, |record| {
                            GameRead::Record { record, version }
                        })
                    }
                };
                Ok((read, done))
            }
            Kind::Memory(m) => {
                let games = lock(self.log.memory(m));
                let Some(game) = games.games.get(game_id) else {
                    return Ok((GameRead::Missing, None));
                };
                let done = game.actions.get(action_id).copied();
                let seq = game.events.len() as u64;
                let read = match held {
                    Some((held_seq, version))
                        if held_seq == seq && game.version.as_deref() == Some(version) =>
                    {
                        GameRead::Unchanged { seq }
                    }
                    _ => GameRead::Record {
                        record: game.record(),
                        version: game.version.clone(),
                    },
                };
                Ok((read, done))
            }
        }
    }

    /// Atomically: if `commit.action_id` was committed before, answers `DuplicateAction` with
    /// its seq (checked first, so a retry gets its original answer even after later moves);
    /// else if the seq is not `expected_seq`, `StaleSeq`; else writes the state, appends the
    /// event as seq `expected_seq + 1`, records the action id and publishes the event.
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
        match &self.backend.kind {
            Kind::Redis(r) => matches!(r.publish, Publish::Classic),
            Kind::Memory(_) => true,
        }
    }

    /// [`GameStore::commit`], and the change's timer writes in the timers' keys of the same
    /// backend (what a [`TimerStore`] over it reads and fires).
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
        match &self.backend.kind {
            Kind::Redis(r) if self.writes_timers_in_commit() => {
                self.commit_redis(r, game_id, commit, timers).await
            }
            Kind::Redis(r) => {
                let timer_store = TimerStore::new(self.backend.clone());
                timer_store.arm_all(&timers.arm).await?;
                let outcome = self
                    .commit_redis(r, game_id, commit, &TimerWrites::default())
                    .await?;
                if outcome.is_ok() && !timers.cancel.is_empty() {
                    let stale = timers.cancel.clone();
                    tokio::spawn(async move {
                        if let Err(error) = timer_store.cancel_all(&stale).await {
                            tracing::debug!(%error, "could not delete a stale timer; it fires and changes nothing");
                        }
                    });
                }
                Ok(outcome)
            }
            Kind::Memory(m) => {
                let mut games = lock(self.log.memory(m));
                let Some(game) = games.games.get_mut(game_id) else {
                    return Ok(Err(CommitRefusal::NotFound));
                };
                if let Some(&seq) = commit.action_id.and_then(|a| game.actions.get(a)) {
                    return Ok(Err(CommitRefusal::DuplicateAction { seq }));
                }
                let current = game.events.len() as u64;
                if current != commit.expected_seq
                    || commit
                        .expected_version
                        .is_some_and(|expected| game.version.as_deref() != Some(expected))
                {
                    return Ok(Err(CommitRefusal::StaleSeq { current }));
                }
                let seq = current + 1;
                game.state = commit.state.to_vec();
                game.version = commit.version.map(str::to_owned);
                game.events.push(commit.event.to_vec());
                if let Some(a) = commit.action_id {
                    game.actions.insert(a.to_owned(), seq);
                }
                // Under the games lock, as the script does it inside the commit.
                lock(&m.timers).write(timers);
                m.hub.publish(
                    &self.log.hub_key(game_id),
                    StoredEvent {
                        seq,
                        payload: commit.event.to_vec(),
                    },
                );
                Ok(Ok(Committed { seq }))
            }
        }
    }

    /// The commit script on Redis, with `timers` written inside it (one node only: on a
    /// cluster the caller passes none).
    async fn commit_redis(
        &self,
        r: &RedisBackend,
        game_id: &str,
        commit: Commit<'_>,
        timers: &TimerWrites,
    ) -> Result<Result<Committed, CommitRefusal>, StoreError> {
        let k = &r.keys;
        // The script also publishes the event: its producer span is the commit's child.
        let span = r.script("EVALSHA commit", "commit");
        let publish = publish_span(&span, self.log.channel_template());
        let mut invocation = COMMIT.prepare_invoke();
        invocation
            .key(k.log_state(self.log, game_id))
            .key(k.log_events(self.log, game_id))
            .key(k.log_actions(self.log, game_id))
            .arg(commit.expected_seq)
            .arg(if commit.action_id.is_some() { "1" } else { "0" })
            .arg(commit.action_id.unwrap_or(""))
            .arg(commit.state)
            .arg(commit.event)
            .arg(k.log_live(self.log, game_id))
            .arg(r.publish.command())
            .arg(commit.expected_version.unwrap_or(""))
            .arg(commit.version.unwrap_or(""))
            .arg(timers.arm.len())
            .arg(if self.backend.replica_wait.is_some() {
                "1"
            } else {
                "0"
            });
        for arm in &timers.arm {
            let shard = timer_shard(&arm.key);
            invocation
                .key(k.timers_due(shard))
                .key(k.timers_payload(shard))
                .arg(&arm.key)
                .arg(arm.due_ms)
                .arg(&arm.payload);
        }
        for key in &timers.cancel {
            let shard = timer_shard(key);
            invocation
                .key(k.timers_due(shard))
                .key(k.timers_payload(shard))
                .arg(key);
        }
        // With a replica wait, `WAIT` follows the script on the same connection.
        let (reply, acked): (Vec<i64>, Option<u32>) = match &self.backend.replica_wait {
            Some(waiter) => {
                let (reply, acked) = waiter
                    .invoke(&invocation)
                    .instrument(publish)
                    .instrument(span)
                    .await?;
                (reply, Some(acked))
            }
            None => (
                invocation
                    .invoke_async(&mut r.conn.clone())
                    .instrument(publish)
                    .instrument(span)
                    .await?,
                None,
            ),
        };
        let seq = |i: usize| {
            reply
                .get(i)
                .and_then(|&s| u64::try_from(s).ok())
                .ok_or_else(|| StoreError::Corrupt("bad commit script reply".into()))
        };
        let outcome = match reply.first() {
            Some(0) => Err(CommitRefusal::NotFound),
            Some(1) => Err(CommitRefusal::StaleSeq { current: seq(1)? }),
            Some(2) => Err(CommitRefusal::DuplicateAction { seq: seq(1)? }),
            Some(3) => Ok(Committed { seq: seq(1)? }),
            _ => return Err(StoreError::Corrupt("bad commit script reply".into())),
        };
        // A refusal wrote nothing and acknowledges no move: it stands whatever the count. A
        // move (or a retried one) is answered only with enough replicas.
        if let (Some(waiter), Some(acked)) = (&self.backend.replica_wait, acked)
            && let Ok(Committed { seq }) | Err(CommitRefusal::DuplicateAction { seq }) = outcome
        {
            waiter.check(
                acked,
                &format!("event {seq} of {} {game_id}", self.log.word()),
            )?;
        }
        Ok(outcome)
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
        let mut invocation = REMARK.prepare_invoke();
        invocation
            .key(r.keys.log_actions(self.log, game_id))
            .arg(action_id);
        let (done, acked): (Option<u64>, u32) = waiter
            .invoke(&invocation)
            .instrument(r.script("EVALSHA remark", "remark"))
            .await?;
        let Some(done) = done else {
            return Err(StoreError::Unavailable(format!(
                "action {action_id} of {} {game_id} is no longer recorded (a failover lost \
                 it); retry it",
                self.log.word()
            )));
        };
        waiter.check(
            acked,
            &format!("event {done} of {} {game_id}", self.log.word()),
        )?;
        Ok(done)
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
        match &self.backend.kind {
            Kind::Redis(r) => {
                let entries: Vec<(String, Vec<Vec<u8>>)> = redis::cmd("XRANGE")
                    .arg(r.keys.log_events(self.log, game_id))
                    .arg(format!("{}-0", after_seq.saturating_add(1)))
                    .arg("+")
                    .arg("COUNT")
                    .arg(limit)
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("XRANGE"))
                    .await?;
                entries.into_iter().map(stream_entry).collect()
            }
            Kind::Memory(m) => {
                let games = lock(self.log.memory(m));
                let Some(game) = games.games.get(game_id) else {
                    return Ok(Vec::new());
                };
                let start = usize::try_from(after_seq).unwrap_or(usize::MAX);
                Ok(game
                    .events
                    .iter()
                    .enumerate()
                    .skip(start)
                    .take(limit)
                    .map(|(i, e)| StoredEvent {
                        seq: i as u64 + 1,
                        payload: e.clone(),
                    })
                    .collect())
            }
        }
    }

    /// The seq at which `action_id` was committed in this game, if it was. Lets game-state
    /// answer a retried action with its first result before judging it against the rules
    /// (by then it may no longer be legal, or even the caller's turn).
    pub async fn action_seq(
        &self,
        game_id: &str,
        action_id: &str,
    ) -> Result<Option<u64>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let seq: Option<u64> = redis::cmd("HGET")
                    .arg(r.keys.log_actions(self.log, game_id))
                    .arg(action_id)
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("HGET"))
                    .await?;
                Ok(seq)
            }
            Kind::Memory(m) => {
                let games = lock(self.log.memory(m));
                Ok(games
                    .games
                    .get(game_id)
                    .and_then(|g| g.actions.get(action_id).copied()))
            }
        }
    }

    /// The event with this seq, if the game and the event exist.
    pub async fn event(&self, game_id: &str, seq: u64) -> Result<Option<StoredEvent>, StoreError> {
        if seq == 0 {
            return Ok(None);
        }
        match &self.backend.kind {
            Kind::Redis(r) => {
                let id = format!("{seq}-0");
                let entries: Vec<(String, Vec<Vec<u8>>)> = redis::cmd("XRANGE")
                    .arg(r.keys.log_events(self.log, game_id))
                    .arg(&id)
                    .arg(&id)
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("XRANGE"))
                    .await?;
                entries.into_iter().next().map(stream_entry).transpose()
            }
            Kind::Memory(m) => {
                let games = lock(self.log.memory(m));
                let event = games.games.get(game_id).and_then(|g| {
                    let i = usize::try_from(seq - 1).ok()?;
                    g.events.get(i).map(|e| StoredEvent {
                        seq,
                        payload: e.clone(),
                    })
                });
                Ok(event)
            }
        }
    }

    /// Counts the event streams a seat's player has open on the game (Caro C13: a player
    /// with none is disconnected): adds `delta` (+1 when a stream opens, -1 when it closes,
    /// 0 to read), never going below zero, and returns the new count. Every gateway replica
    /// shares the count, so a player who moves from one replica to another stays connected.
    pub async fn presence(&self, game_id: &str, seat: u32, delta: i64) -> Result<u64, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let n: i64 = PRESENCE
                    .key(r.keys.log_presence(self.log, game_id))
                    .arg(seat)
                    .arg(delta)
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA presence", "presence"))
                    .await?;
                Ok(u64::try_from(n).unwrap_or(0))
            }
            Kind::Memory(m) => {
                let mut games = lock(self.log.memory(m));
                let count = games
                    .presence
                    .entry(game_id.to_owned())
                    .or_default()
                    .entry(seat)
                    .or_insert(0);
                *count = count.saturating_add_signed(delta);
                Ok(*count)
            }
        }
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
            Kind::Redis(r) => {
                let k = &r.keys;
                let _: i64 = game_script(&FINISH, k, self.log, game_id)
                    .arg(keep_ms)
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA finish", "finish"))
                    .await?;
                // The live set lives in another slot: its own command.
                redis::cmd("ZREM")
                    .arg(k.live_set(self.log))
                    .arg(game_id)
                    .query_async::<()>(&mut r.conn.clone())
                    .instrument(r.command("ZREM"))
                    .await?;
            }
            Kind::Memory(m) => {
                let mut games = lock(self.log.memory(m));
                if let Some(since) = games.live_since.remove(game_id) {
                    games.live.remove(&(since, game_id.to_owned()));
                }
                let at = now_ms.saturating_add(keep_ms);
                if let Some(game) = games.games.get_mut(game_id) {
                    game.expires_ms = Some(at);
                    games.expiring.insert((at, game_id.to_owned()));
                }
                games.purge(now_ms);
            }
        }
        Ok(())
    }

    /// Takes back [`GameStore::finish`]'s expiry: the log lives on (a room someone joined
    /// again before it expired). Does not list it again: see [`GameStore::mark_live`].
    pub(crate) async fn persist(&self, id: &str) -> Result<(), StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let k = &r.keys;
                let _: i64 = PERSIST
                    .key(k.log_state(self.log, id))
                    .key(k.log_events(self.log, id))
                    .key(k.log_actions(self.log, id))
                    .key(k.log_presence(self.log, id))
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA persist", "persist"))
                    .await?;
            }
            Kind::Memory(m) => {
                if let Some(game) = lock(self.log.memory(m)).games.get_mut(id) {
                    // Its entry in `expiring` no longer matches, so the purge skips it.
                    game.expires_ms = None;
                }
            }
        }
        Ok(())
    }

    /// Forgets, on the memory backend, every log whose expiry passed by `now_ms` (Redis
    /// expires keys by itself): reads that must not see an expired log call it first.
    pub(crate) fn purge_expired(&self, now_ms: u64) {
        if let Kind::Memory(m) = &self.backend.kind {
            lock(self.log.memory(m)).purge(now_ms);
        }
    }

    /// Takes the log out of the listing ([`GameStore::live_games`]) without expiring it.
    pub(crate) async fn unmark_live(&self, id: &str) -> Result<(), StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                redis::cmd("ZREM")
                    .arg(r.keys.live_set(self.log))
                    .arg(id)
                    .query_async::<()>(&mut r.conn.clone())
                    .instrument(r.command("ZREM"))
                    .await?;
            }
            Kind::Memory(m) => {
                let mut logs = lock(self.log.memory(m));
                if let Some(since) = logs.live_since.remove(id) {
                    logs.live.remove(&(since, id.to_owned()));
                }
            }
        }
        Ok(())
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
        match &self.backend.kind {
            Kind::Redis(r) => {
                for player in players {
                    let command = if seated { "SADD" } else { "SREM" };
                    redis::cmd(command)
                        .arg(r.keys.player_games(player))
                        .arg(game_id)
                        .query_async::<()>(&mut r.conn.clone())
                        .instrument(r.command(command))
                        .await?;
                }
            }
            Kind::Memory(m) => {
                let mut games = lock(self.log.memory(m));
                for player in players {
                    if seated {
                        games
                            .player_games
                            .entry(player.clone())
                            .or_default()
                            .insert(game_id.to_owned());
                    } else if let Some(set) = games.player_games.get_mut(player) {
                        set.remove(game_id);
                        if set.is_empty() {
                            games.player_games.remove(player);
                        }
                    }
                }
            }
        }
        Ok(())
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
        match &self.backend.kind {
            Kind::Redis(r) => Ok(redis::cmd("SORT")
                .arg(r.keys.player_games(player))
                .arg("ALPHA")
                .arg("DESC")
                .arg("LIMIT")
                .arg(0)
                .arg(limit)
                .query_async(&mut r.conn.clone())
                .instrument(r.command("SORT"))
                .await?),
            Kind::Memory(m) => Ok(lock(self.log.memory(m))
                .player_games
                .get(player)
                .map(|set| set.iter().rev().take(limit).cloned().collect())
                .unwrap_or_default()),
        }
    }

    /// Lists the game as live since `since_ms` (its creation) for [`GameStore::live_games`],
    /// until [`GameStore::finish`]; marking it again keeps the first time.
    pub async fn mark_live(&self, game_id: &str, since_ms: u64) -> Result<(), StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                redis::cmd("ZADD")
                    .arg(r.keys.live_set(self.log))
                    .arg("NX")
                    .arg(since_ms)
                    .arg(game_id)
                    .query_async::<()>(&mut r.conn.clone())
                    .instrument(r.command("ZADD"))
                    .await?;
            }
            Kind::Memory(m) => {
                let mut games = lock(self.log.memory(m));
                if !games.live_since.contains_key(game_id) {
                    games.live_since.insert(game_id.to_owned(), since_ms);
                    games.live.insert((since_ms, game_id.to_owned()));
                }
            }
        }
        Ok(())
    }

    /// Ids of live games, newest first (latest `since_ms`; ties by id, highest first), at
    /// most `limit`. One `ZREVRANGE`: O(log n + limit) however many games are live, so
    /// listing never blocks Redis the way sorting the whole set would.
    pub async fn live_games(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        match &self.backend.kind {
            Kind::Redis(r) => Ok(redis::cmd("ZREVRANGE")
                .arg(r.keys.live_set(self.log))
                .arg(0)
                .arg(limit - 1)
                .query_async(&mut r.conn.clone())
                .instrument(r.command("ZREVRANGE"))
                .await?),
            Kind::Memory(m) => Ok(lock(self.log.memory(m))
                .live
                .iter()
                .rev()
                .take(limit)
                .map(|(_, id)| id.clone())
                .collect()),
        }
    }
}

/// Decodes one XRANGE entry (`<seq>-0`, [`e`, payload]).
fn stream_entry((id, fields): (String, Vec<Vec<u8>>)) -> Result<StoredEvent, StoreError> {
    let seq = id
        .strip_suffix("-0")
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| StoreError::Corrupt(format!("event id {id} is not <seq>-0")))?;
    let payload = match fields.as_slice() {
        [field, payload] if field.as_slice() == b"e" => payload.clone(),
        _ => return Err(StoreError::Corrupt(format!("event {id} has no payload"))),
    };
    Ok(StoredEvent { seq, payload })
}

/// A game record from the `seq`, `state`, `meta` fields of its hash.
fn record_from_fields(
    game_id: &str,
    [seq, state, meta]: [Option<Vec<u8>>; 3],
) -> Result<Option<GameRecord>, StoreError> {
    let Some(seq) = seq else { return Ok(None) };
    match (state, meta) {
        (Some(state), Some(meta)) => Ok(Some(GameRecord {
            seq: parse_u64("game seq", &seq)?,
            state,
            meta,
        })),
        _ => Err(StoreError::Corrupt(format!(
            "game {game_id} has a seq but no state or meta"
        ))),
    }
}

fn memory_record(games: &GamesMem, game_id: &str) -> Option<GameRecord> {
    games.games.get(game_id).map(GameMem::record)
}

impl GameMem {
    /// Its seq, state and meta, as [`GameStore::load`] answers them.
    fn record(&self) -> GameRecord {
        GameRecord {
            seq: self.events.len() as u64,
            state: self.state.clone(),
            meta: self.meta.clone(),
        }
    }
}
