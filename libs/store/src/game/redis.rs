//! [`GameStore`](super::GameStore) on Redis: the keys of one log (state hash, event stream,
//! action ids, presence), the Lua scripts that change them atomically, and the cluster path of
//! a commit's timers.

use std::sync::LazyLock;

use redis::{Script, ScriptInvocation};
use tracing::Instrument;

use super::{Commit, CommitRefusal, Committed, GameRead, GameRecord, Log, StoredEvent};
use crate::backend::redis::{Keys, Publish, RedisBackend, parse_u64, publish_span};
use crate::backend::{Backend, StoreError};
use crate::replicas::ReplicaWaiter;
use crate::timer::{TimerStore, TimerWrites, timer_shard};

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

pub(super) async fn create(
    r: &RedisBackend,
    log: Log,
    game_id: &str,
    meta: &[u8],
    state: &[u8],
    first_event: &[u8],
) -> Result<bool, StoreError> {
    let k = &r.keys;
    let created: i64 = game_script(&CREATE, k, log, game_id)
        .arg(meta)
        .arg(state)
        .arg(first_event)
        .arg(k.log_live(log, game_id))
        .arg(r.publish.command())
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA create", "create"))
        .await?;
    Ok(created == 1)
}

pub(super) async fn load(
    r: &RedisBackend,
    log: Log,
    game_id: &str,
) -> Result<Option<GameRecord>, StoreError> {
    let fields: [Option<Vec<u8>>; 3] = r
        .query(
            "HMGET",
            (r.keys.log_state(log, game_id), "seq", "state", "meta"),
        )
        .await?;
    record_from_fields(game_id, fields)
}

pub(super) async fn read_for_action(
    r: &RedisBackend,
    log: Log,
    game_id: &str,
    action_id: &str,
    held: Option<(u64, &str)>,
) -> Result<(GameRead, Option<u64>), StoreError> {
    let reply: Vec<Option<Vec<u8>>> = READ_FOR_ACTION
        .key(r.keys.log_state(log, game_id))
        .key(r.keys.log_actions(log, game_id))
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
            .map_or(GameRead::Missing, |record| GameRead::Record {
                record,
                version,
            })
        }
    };
    Ok((read, done))
}

/// The commit on Redis (see [`super::GameStore::commit_with_timers`]): on one node the timer
/// writes go inside the commit script; on a cluster the timers are armed before it and the
/// stale ones deleted in the background after it lands.
pub(super) async fn commit_with_timers(
    r: &RedisBackend,
    backend: &Backend,
    log: Log,
    game_id: &str,
    commit: Commit<'_>,
    timers: &TimerWrites,
) -> Result<Result<Committed, CommitRefusal>, StoreError> {
    if r.publish == Publish::Classic {
        return commit_script(r, backend, log, game_id, commit, timers).await;
    }
    let timer_store = TimerStore::new(backend.clone());
    timer_store.arm_all(&timers.arm).await?;
    let outcome = commit_script(r, backend, log, game_id, commit, &TimerWrites::default()).await?;
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

/// The commit script on Redis, with `timers` written inside it (one node only: on a
/// cluster the caller passes none).
async fn commit_script(
    r: &RedisBackend,
    backend: &Backend,
    log: Log,
    game_id: &str,
    commit: Commit<'_>,
    timers: &TimerWrites,
) -> Result<Result<Committed, CommitRefusal>, StoreError> {
    let k = &r.keys;
    // The script also publishes the event: its producer span is the commit's child.
    let span = r.script("EVALSHA commit", "commit");
    let publish = publish_span(&span, log.channel_template());
    let mut invocation = COMMIT.prepare_invoke();
    invocation
        .key(k.log_state(log, game_id))
        .key(k.log_events(log, game_id))
        .key(k.log_actions(log, game_id))
        .arg(commit.expected_seq)
        .arg(if commit.action_id.is_some() { "1" } else { "0" })
        .arg(commit.action_id.unwrap_or(""))
        .arg(commit.state)
        .arg(commit.event)
        .arg(k.log_live(log, game_id))
        .arg(r.publish.command())
        .arg(commit.expected_version.unwrap_or(""))
        .arg(commit.version.unwrap_or(""))
        .arg(timers.arm.len())
        .arg(if backend.replica_wait.is_some() {
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
    let (reply, acked): (Vec<i64>, Option<u32>) = match &backend.replica_wait {
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
    if let (Some(waiter), Some(acked)) = (&backend.replica_wait, acked)
        && let Ok(Committed { seq }) | Err(CommitRefusal::DuplicateAction { seq }) = outcome
    {
        waiter.check(acked, &format!("event {seq} of {} {game_id}", log.word()))?;
    }
    Ok(outcome)
}

/// [`super::GameStore::confirm_action`] under a replica wait: the mark written again and
/// waited for.
pub(super) async fn confirm_action(
    r: &RedisBackend,
    waiter: &ReplicaWaiter,
    log: Log,
    game_id: &str,
    action_id: &str,
) -> Result<u64, StoreError> {
    let mut invocation = REMARK.prepare_invoke();
    invocation
        .key(r.keys.log_actions(log, game_id))
        .arg(action_id);
    let (done, acked): (Option<u64>, u32) = waiter
        .invoke(&invocation)
        .instrument(r.script("EVALSHA remark", "remark"))
        .await?;
    let Some(done) = done else {
        return Err(StoreError::Unavailable(format!(
            "action {action_id} of {} {game_id} is no longer recorded (a failover lost \
             it); retry it",
            log.word()
        )));
    };
    waiter.check(acked, &format!("event {done} of {} {game_id}", log.word()))?;
    Ok(done)
}

pub(super) async fn events_after(
    r: &RedisBackend,
    log: Log,
    game_id: &str,
    after_seq: u64,
    limit: usize,
) -> Result<Vec<StoredEvent>, StoreError> {
    let entries: Vec<(String, Vec<Vec<u8>>)> = r
        .query(
            "XRANGE",
            (
                r.keys.log_events(log, game_id),
                format!("{}-0", after_seq.saturating_add(1)),
                "+",
                "COUNT",
                limit,
            ),
        )
        .await?;
    entries.into_iter().map(stream_entry).collect()
}

pub(super) async fn action_seq(
    r: &RedisBackend,
    log: Log,
    game_id: &str,
    action_id: &str,
) -> Result<Option<u64>, StoreError> {
    let seq: Option<u64> = r
        .query("HGET", (r.keys.log_actions(log, game_id), action_id))
        .await?;
    Ok(seq)
}

pub(super) async fn event(
    r: &RedisBackend,
    log: Log,
    game_id: &str,
    seq: u64,
) -> Result<Option<StoredEvent>, StoreError> {
    let id = format!("{seq}-0");
    let entries: Vec<(String, Vec<Vec<u8>>)> = r
        .query("XRANGE", (r.keys.log_events(log, game_id), &id, &id))
        .await?;
    entries.into_iter().next().map(stream_entry).transpose()
}

pub(super) async fn presence(
    r: &RedisBackend,
    log: Log,
    game_id: &str,
    seat: u32,
    delta: i64,
) -> Result<u64, StoreError> {
    let n: i64 = PRESENCE
        .key(r.keys.log_presence(log, game_id))
        .arg(seat)
        .arg(delta)
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA presence", "presence"))
        .await?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// The log's keys expire after `keep_ms` (Redis forgets them by itself); it leaves the
/// listing, which lives in another slot, by its own command.
pub(super) async fn finish(
    r: &RedisBackend,
    log: Log,
    game_id: &str,
    keep_ms: u64,
) -> Result<(), StoreError> {
    // The two commands touch different slots and either order is right: sent together.
    let expire = async {
        let _: i64 = game_script(&FINISH, &r.keys, log, game_id)
            .arg(keep_ms)
            .invoke_async(&mut r.conn.clone())
            .instrument(r.script("EVALSHA finish", "finish"))
            .await?;
        Ok::<_, StoreError>(())
    };
    futures::future::try_join(expire, unmark_live(r, log, game_id)).await?;
    Ok(())
}

pub(super) async fn persist(r: &RedisBackend, log: Log, id: &str) -> Result<(), StoreError> {
    let _: i64 = game_script(&PERSIST, &r.keys, log, id)
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA persist", "persist"))
        .await?;
    Ok(())
}

/// Nothing to do: Redis expires keys by itself.
pub(super) async fn purge_expired(
    _r: &RedisBackend,
    _log: Log,
    _now_ms: u64,
) -> Result<(), StoreError> {
    Ok(())
}

pub(super) async fn unmark_live(r: &RedisBackend, log: Log, id: &str) -> Result<(), StoreError> {
    r.query::<()>("ZREM", (r.keys.live_set(log), id)).await?;
    Ok(())
}

/// One command per player (each player's set lives in its own slot), sent together: a
/// game's start and end wait one round trip for them, not one per seat.
pub(super) async fn seat_players(
    r: &RedisBackend,
    _log: Log,
    game_id: &str,
    players: &[String],
    seated: bool,
) -> Result<(), StoreError> {
    let command = if seated { "SADD" } else { "SREM" };
    futures::future::try_join_all(
        players
            .iter()
            .map(|player| r.query::<()>(command, (r.keys.player_games(player), game_id))),
    )
    .await?;
    Ok(())
}

pub(super) async fn player_games(
    r: &RedisBackend,
    _log: Log,
    player: &str,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    r.query(
        "SORT",
        (
            r.keys.player_games(player),
            "ALPHA",
            "DESC",
            "LIMIT",
            0,
            limit,
        ),
    )
    .await
}

pub(super) async fn mark_live(
    r: &RedisBackend,
    log: Log,
    game_id: &str,
    since_ms: u64,
) -> Result<(), StoreError> {
    r.query::<()>("ZADD", (r.keys.live_set(log), "NX", since_ms, game_id))
        .await?;
    Ok(())
}

/// One `ZREVRANGE`: O(log n + limit) however many games are live.
pub(super) async fn live_games(
    r: &RedisBackend,
    log: Log,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    r.query("ZREVRANGE", (r.keys.live_set(log), 0, limit - 1))
        .await
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
