//! [`TimerStore`](super::TimerStore) on Redis: the timers spread over [`TIMER_SHARDS`]
//! shards, each a due zset and a payload hash under its own hash tag, and the scripts on one
//! shard's two keys.

use std::sync::LazyLock;

use futures::future::try_join_all;
use redis::{Script, ScriptInvocation};
use tracing::Instrument;

use super::{DueTimer, TIMER_SHARDS, timer_shard};
use crate::backend::StoreError;
use crate::backend::redis::{Keys, RedisBackend, parse_score};

/// `script` called on the keys of `shard` every timer script takes: the due set, then the
/// payload hash.
fn timers_script<'a>(script: &'a Script, keys: &Keys, shard: usize) -> ScriptInvocation<'a> {
    let mut invocation = script.prepare_invoke();
    invocation
        .key(keys.timers_due(shard))
        .key(keys.timers_payload(shard));
    invocation
}

/// KEYS: due, payload. ARGV: key, due, payload.
static ARM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
",
    )
});

/// KEYS: due, payload. ARGV: key.
static CANCEL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local n = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return n
",
    )
});

/// KEYS: due, payload. ARGV: now, claim deadline, then timer keys. Claims each listed timer
/// that is still due by now; returns key, old score, payload triples.
static CLAIM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local out = {}
for i = 3, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) <= tonumber(ARGV[1]) then
    redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i])
    out[#out + 1] = ARGV[i]
    out[#out + 1] = score
    out[#out + 1] = redis.call('HGET', KEYS[2], ARGV[i]) or ''
  end
end
return out
",
    )
});

/// KEYS: due, payload. ARGV: key, claim deadline.
static ACK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
",
    )
});

/// KEYS: due, payload. ARGV: key. Reads score and payload at one instant.
static GET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return {} end
return {score, redis.call('HGET', KEYS[2], ARGV[1]) or ''}
",
    )
});

pub(super) async fn arm(
    r: &RedisBackend,
    key: &str,
    payload: &[u8],
    due_ms: u64,
) -> Result<(), StoreError> {
    timers_script(&ARM, &r.keys, timer_shard(key))
        .arg(key)
        .arg(due_ms)
        .arg(payload)
        .invoke_async::<()>(&mut r.conn.clone())
        .instrument(r.script("EVALSHA arm", "arm"))
        .await?;
    Ok(())
}

pub(super) async fn cancel(r: &RedisBackend, key: &str) -> Result<bool, StoreError> {
    let n: i64 = timers_script(&CANCEL, &r.keys, timer_shard(key))
        .arg(key)
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA cancel", "cancel"))
        .await?;
    Ok(n == 1)
}

pub(super) async fn ack(r: &RedisBackend, key: &str, claim_ms: u64) -> Result<bool, StoreError> {
    let n: i64 = timers_script(&ACK, &r.keys, timer_shard(key))
        .arg(key)
        .arg(claim_ms)
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA ack", "ack"))
        .await?;
    Ok(n == 1)
}

/// Both counts of every shard, one pipeline per shard, at once.
pub(super) async fn counts(r: &RedisBackend, now_ms: u64) -> Result<(u64, u64), StoreError> {
    let per_shard = try_join_all((0..TIMER_SHARDS).map(|shard| async move {
        let counts: (u64, u64) = redis::pipe()
            .cmd("ZCARD")
            .arg(r.keys.timers_due(shard))
            .cmd("ZCOUNT")
            .arg(r.keys.timers_due(shard))
            .arg("-inf")
            .arg(now_ms)
            .query_async(&mut r.conn.clone())
            .instrument(r.command("BATCH ZCARD ZCOUNT"))
            .await?;
        Ok::<_, StoreError>(counts)
    }))
    .await?;
    Ok(per_shard
        .into_iter()
        .fold((0, 0), |(armed, due), (a, d)| (armed + a, due + d)))
}

/// The earliest of every shard's first score.
pub(super) async fn next_due(r: &RedisBackend) -> Result<Option<u64>, StoreError> {
    let firsts = try_join_all((0..TIMER_SHARDS).map(|shard| async move {
        let first: Vec<Vec<u8>> = r
            .query("ZRANGE", (r.keys.timers_due(shard), 0, 0, "WITHSCORES"))
            .await?;
        first
            .get(1)
            .map(|s| parse_score("timer score", s))
            .transpose()
    }))
    .await?;
    Ok(firsts.into_iter().flatten().min())
}

pub(super) async fn get(r: &RedisBackend, key: &str) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
    let reply: Vec<Vec<u8>> = timers_script(&GET, &r.keys, timer_shard(key))
        .arg(key)
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA get", "get"))
        .await?;
    match reply.as_slice() {
        [] => Ok(None),
        [score, payload] => Ok(Some((parse_score("timer score", score)?, payload.clone()))),
        _ => Err(StoreError::Corrupt("bad timer script reply".into())),
    }
}

/// [`super::TimerStore::claim_due`] on Redis: the earliest due timers of every shard, read at once,
/// then the earliest `limit` of them claimed by one script per shard (at once), each claiming
/// only those still due. Timers a concurrent claimant took in between are skipped, and the
/// look is repeated for as many more, so a claim takes what is due up to `limit` as one
/// script on one zset did.
pub(super) async fn claim_due(
    r: &RedisBackend,
    now_ms: u64,
    claim_ms: u64,
    limit: usize,
) -> Result<Vec<DueTimer>, StoreError> {
    let mut claimed: Vec<DueTimer> = Vec::new();
    while claimed.len() < limit {
        let wanted = limit - claimed.len();
        let due = try_join_all((0..TIMER_SHARDS).map(|shard| async move {
            let flat: Vec<Vec<u8>> = r
                .query(
                    "ZRANGEBYSCORE",
                    (
                        r.keys.timers_due(shard),
                        "-inf",
                        now_ms,
                        "WITHSCORES",
                        "LIMIT",
                        0,
                        wanted,
                    ),
                )
                .await?;
            flat.chunks(2)
                .map(|pair| match pair {
                    [key, score] => Ok((parse_score("timer score", score)?, key.clone(), shard)),
                    _ => Err(StoreError::Corrupt("bad ZRANGEBYSCORE reply".into())),
                })
                .collect::<Result<Vec<_>, StoreError>>()
        }))
        .await?;
        // A timer this call claimed already (a visibility of 0 leaves it due) is not taken twice.
        let mut due: Vec<(u64, Vec<u8>, usize)> = due
            .into_iter()
            .flatten()
            .filter(|(_, key, _)| !claimed.iter().any(|t| t.key.as_bytes() == key.as_slice()))
            .collect();
        if due.is_empty() {
            break;
        }
        // The zset's own order: by score, then by key.
        due.sort();
        due.truncate(wanted);
        let mut by_shard: Vec<Vec<Vec<u8>>> = vec![Vec::new(); TIMER_SHARDS];
        for (_, key, shard) in &due {
            by_shard[*shard].push(key.clone());
        }
        let won = try_join_all(
            by_shard
                .into_iter()
                .enumerate()
                .filter(|(_, keys)| !keys.is_empty())
                .map(|(shard, keys)| async move {
                    let mut invocation = timers_script(&CLAIM, &r.keys, shard);
                    invocation.arg(now_ms).arg(claim_ms);
                    for key in &keys {
                        invocation.arg(key);
                    }
                    let flat: Vec<Vec<u8>> = invocation
                        .invoke_async(&mut r.conn.clone())
                        .instrument(r.script("EVALSHA claim", "claim"))
                        .await?;
                    flat.chunks(3)
                        .map(|c| match c {
                            [key, score, payload] => Ok(DueTimer {
                                key: String::from_utf8(key.clone()).map_err(|_| {
                                    StoreError::Corrupt("timer key not utf-8".into())
                                })?,
                                payload: payload.clone(),
                                due_ms: parse_score("timer score", score)?,
                                claim_ms,
                            }),
                            _ => Err(StoreError::Corrupt("bad claim script reply".into())),
                        })
                        .collect::<Result<Vec<_>, StoreError>>()
                }),
        )
        .await?;
        let won: Vec<DueTimer> = won.into_iter().flatten().collect();
        let all_won = won.len() == due.len();
        claimed.extend(won);
        if all_won {
            // Everything seen was claimed: either `limit` is reached or nothing else is due.
            break;
        }
    }
    claimed.sort_by(|a, b| (a.due_ms, &a.key).cmp(&(b.due_ms, &b.key)));
    Ok(claimed)
}
