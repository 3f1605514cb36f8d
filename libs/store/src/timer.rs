//! [`TimerStore`]: durable deadlines that any number of timer replicas claim atomically.
//!
//! A timer is a key with a score: its due time, or once claimed its claim deadline
//! (`now_ms + visibility_ms`). A claimed timer that is not acknowledged before its claim
//! deadline comes due again, so a crashed worker's timers fire again, and no timer is claimed
//! twice at once.
//!
//! On Redis the timers are spread over [`TIMER_SHARDS`] shards by a hash of their key, each
//! shard its own hash tag (`{timers:N}`), so on a Redis Cluster the shards live on every
//! master and no one node takes every deadline. A timer's scripts touch only its shard's two
//! keys. A claim looks at every shard: it reads the earliest due timers of all of them at
//! once, then claims the earliest `limit` of those shard by shard, each claim script
//! re-checking that its timers are still due (a concurrent claimant's are not).

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use futures::future::try_join_all;
use redis::{Script, ScriptInvocation};
use tracing::Instrument;

use crate::backend::{Backend, Keys, Kind, RedisBackend, StoreError, lock, parse_score};

/// How many shards (hash tags) the timers are spread over on Redis. Sixteen spreads them
/// over up to sixteen masters while a claim's look at every shard stays one round of sixteen
/// small concurrent reads. Changing it moves timers to other shards: the store of a running
/// system must be empty (session state is transient) or its armed timers are not claimed.
pub const TIMER_SHARDS: usize = 16;

/// The shard of timer `key`: FNV-1a of its bytes, the same in every process and version.
pub(crate) fn timer_shard(key: &str) -> usize {
    let hash = key.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    });
    // A u32 always fits in usize on the 32- and 64-bit targets Ludus builds for.
    usize::try_from(hash).unwrap_or(0) % TIMER_SHARDS
}

/// A timer handed to one claimant by [`TimerStore::claim_due`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueTimer {
    /// The timer's key.
    pub key: String,
    /// The payload given to [`TimerStore::arm`].
    pub payload: Vec<u8>,
    /// Its score when claimed: the due time, or an expired earlier claim's deadline.
    pub due_ms: u64,
    /// This claim's deadline; pass it to [`TimerStore::ack`].
    pub claim_ms: u64,
}

/// A timer to arm: what [`TimerStore::arm`] takes, as a value that can go with a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerArm {
    /// The timer's key.
    pub key: String,
    /// What its firing carries.
    pub payload: Vec<u8>,
    /// When it is due (Unix ms).
    pub due_ms: u64,
}

/// Timer writes that belong to one change of a game: the timers its new position needs
/// (the next turn's clock, a computer's turn, the outcome report) and the timers it makes
/// stale (the previous turn's). [`crate::GameStore::commit_with_timers`] writes them with the
/// commit: inside the commit script on one Redis node, around it on a cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimerWrites {
    /// Armed (or re-armed) with the commit.
    pub arm: Vec<TimerArm>,
    /// Deleted once the commit is in; deleting them only saves a firing that would change
    /// nothing.
    pub cancel: Vec<String>,
}

impl TimerWrites {
    /// No timer to write.
    pub fn is_empty(&self) -> bool {
        self.arm.is_empty() && self.cancel.is_empty()
    }
}

/// Durable deadlines. See the crate docs for the Redis keys.
#[derive(Debug, Clone)]
pub struct TimerStore {
    backend: Backend,
}

#[derive(Default)]
pub(crate) struct TimersMem {
    timers: HashMap<String, (u64, Vec<u8>)>,
    /// (score, key): the order of the Redis zset.
    order: BTreeSet<(u64, String)>,
}

impl TimersMem {
    fn set(&mut self, key: &str, score: u64, payload: Vec<u8>) {
        if let Some((old, _)) = self.timers.insert(key.to_owned(), (score, payload)) {
            self.order.remove(&(old, key.to_owned()));
        }
        self.order.insert((score, key.to_owned()));
    }

    /// Writes `writes` (what a commit's timers do on the memory backend, under its lock).
    pub(crate) fn write(&mut self, writes: &TimerWrites) {
        for arm in &writes.arm {
            self.set(&arm.key, arm.due_ms, arm.payload.clone());
        }
        for key in &writes.cancel {
            self.remove(key);
        }
    }

    fn remove(&mut self, key: &str) -> bool {
        match self.timers.remove(key) {
            Some((score, _)) => {
                self.order.remove(&(score, key.to_owned()));
                true
            }
            None => false,
        }
    }
}

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

impl TimerStore {
    /// A timer store over `backend`.
    pub fn new(backend: Backend) -> Self {
        TimerStore { backend }
    }

    /// Arms the timer `key`, or re-arms it (replacing due time and payload; a claim on it is
    /// lost, so its claimant's [`TimerStore::ack`] will return false).
    pub async fn arm(&self, key: &str, payload: &[u8], due_ms: u64) -> Result<(), StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                timers_script(&ARM, &r.keys, timer_shard(key))
                    .arg(key)
                    .arg(due_ms)
                    .arg(payload)
                    .invoke_async::<()>(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA arm", "arm"))
                    .await?;
            }
            Kind::Memory(m) => lock(&m.timers).set(key, due_ms, payload.to_vec()),
        }
        Ok(())
    }

    /// Arms and deletes `writes` now, one script each: the timers of a change written without
    /// [`crate::GameStore::commit_with_timers`] (a game's first turn, armed before its create).
    pub async fn write(&self, writes: &TimerWrites) -> Result<(), StoreError> {
        self.arm_all(&writes.arm).await?;
        self.cancel_all(&writes.cancel).await
    }

    /// Arms each of `arms`, one script each.
    pub(crate) async fn arm_all(&self, arms: &[TimerArm]) -> Result<(), StoreError> {
        for arm in arms {
            self.arm(&arm.key, &arm.payload, arm.due_ms).await?;
        }
        Ok(())
    }

    /// Deletes each of `keys`, one script each.
    pub(crate) async fn cancel_all(&self, keys: &[String]) -> Result<(), StoreError> {
        for key in keys {
            self.cancel(key).await?;
        }
        Ok(())
    }

    /// Deletes the timer; false if there was none.
    pub async fn cancel(&self, key: &str) -> Result<bool, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let n: i64 = timers_script(&CANCEL, &r.keys, timer_shard(key))
                    .arg(key)
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA cancel", "cancel"))
                    .await?;
                Ok(n == 1)
            }
            Kind::Memory(m) => Ok(lock(&m.timers).remove(key)),
        }
    }

    /// Atomically claims up to `limit` timers with score <= `now_ms`, earliest first: each
    /// one's score moves to `now_ms + visibility_ms` (its `claim_ms`), so nobody else claims it
    /// before then unless it is re-armed.
    pub async fn claim_due(
        &self,
        now_ms: u64,
        visibility_ms: u64,
        limit: usize,
    ) -> Result<Vec<DueTimer>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let claim_ms = now_ms.saturating_add(visibility_ms);
        match &self.backend.kind {
            Kind::Redis(r) => claim_shards(r, now_ms, claim_ms, limit).await,
            Kind::Memory(m) => {
                let mut timers = lock(&m.timers);
                let due: Vec<(u64, String)> = timers
                    .order
                    .iter()
                    .take_while(|(score, _)| *score <= now_ms)
                    .take(limit)
                    .cloned()
                    .collect();
                let mut out = Vec::with_capacity(due.len());
                for (score, key) in due {
                    let payload = timers
                        .timers
                        .get(&key)
                        .map(|(_, p)| p.clone())
                        .unwrap_or_default();
                    timers.set(&key, claim_ms, payload.clone());
                    out.push(DueTimer {
                        key,
                        payload,
                        due_ms: score,
                        claim_ms,
                    });
                }
                Ok(out)
            }
        }
    }

    /// Deletes the timer if it is still under this claim (its score is `claim_ms`). False if
    /// it was re-armed, re-claimed or cancelled meanwhile (then nothing is deleted).
    pub async fn ack(&self, key: &str, claim_ms: u64) -> Result<bool, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let n: i64 = timers_script(&ACK, &r.keys, timer_shard(key))
                    .arg(key)
                    .arg(claim_ms)
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA ack", "ack"))
                    .await?;
                Ok(n == 1)
            }
            Kind::Memory(m) => {
                let mut timers = lock(&m.timers);
                if timers.timers.get(key).map(|(s, _)| *s) == Some(claim_ms) {
                    timers.remove(key);
                    Ok(true)
                } else {
                    Ok(false)
                }
            }
        }
    }

    /// How many timers are armed, and how many of them have a score at or before `now_ms`
    /// (due and not fired yet, or claimed by a worker that did not answer in time): the
    /// backlog a healthy system keeps near zero.
    pub async fn counts(&self, now_ms: u64) -> Result<(u64, u64), StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
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
            Kind::Memory(m) => {
                let timers = lock(&m.timers);
                let due = timers
                    .order
                    .iter()
                    .take_while(|(score, _)| *score <= now_ms)
                    .count();
                Ok((
                    u64::try_from(timers.order.len()).unwrap_or(u64::MAX),
                    u64::try_from(due).unwrap_or(u64::MAX),
                ))
            }
        }
    }

    /// The earliest score (due time, or claim deadline of a claimed timer): sleep until then.
    pub async fn next_due(&self) -> Result<Option<u64>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let firsts = try_join_all((0..TIMER_SHARDS).map(|shard| async move {
                    let first: Vec<Vec<u8>> = redis::cmd("ZRANGE")
                        .arg(r.keys.timers_due(shard))
                        .arg(0)
                        .arg(0)
                        .arg("WITHSCORES")
                        .query_async(&mut r.conn.clone())
                        .instrument(r.command("ZRANGE"))
                        .await?;
                    first
                        .get(1)
                        .map(|s| parse_score("timer score", s))
                        .transpose()
                }))
                .await?;
                Ok(firsts.into_iter().flatten().min())
            }
            Kind::Memory(m) => Ok(lock(&m.timers).order.first().map(|(s, _)| *s)),
        }
    }

    /// The timer's score (due time or claim deadline) and payload.
    pub async fn get(&self, key: &str) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let reply: Vec<Vec<u8>> = timers_script(&GET, &r.keys, timer_shard(key))
                    .arg(key)
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA get", "get"))
                    .await?;
                match reply.as_slice() {
                    [] => Ok(None),
                    [score, payload] => {
                        Ok(Some((parse_score("timer score", score)?, payload.clone())))
                    }
                    _ => Err(StoreError::Corrupt("bad timer script reply".into())),
                }
            }
            Kind::Memory(m) => Ok(lock(&m.timers).timers.get(key).cloned()),
        }
    }
}

/// [`TimerStore::claim_due`] on Redis: the earliest due timers of every shard, read at once,
/// then the earliest `limit` of them claimed by one script per shard (at once), each claiming
/// only those still due. Timers a concurrent claimant took in between are skipped, and the
/// look is repeated for as many more, so a claim takes what is due up to `limit` as one
/// script on one zset did.
async fn claim_shards(
    r: &RedisBackend,
    now_ms: u64,
    claim_ms: u64,
    limit: usize,
) -> Result<Vec<DueTimer>, StoreError> {
    let mut claimed: Vec<DueTimer> = Vec::new();
    while claimed.len() < limit {
        let wanted = limit - claimed.len();
        let due = try_join_all((0..TIMER_SHARDS).map(|shard| async move {
            let flat: Vec<Vec<u8>> = redis::cmd("ZRANGEBYSCORE")
                .arg(r.keys.timers_due(shard))
                .arg("-inf")
                .arg(now_ms)
                .arg("WITHSCORES")
                .arg("LIMIT")
                .arg(0)
                .arg(wanted)
                .query_async(&mut r.conn.clone())
                .instrument(r.command("ZRANGEBYSCORE"))
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
