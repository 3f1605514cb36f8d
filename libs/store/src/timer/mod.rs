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
//!
//! This file holds the public types and one dispatch per call; the shards' keys and scripts
//! are in `redis.rs`, the in-memory model in `memory.rs`.

use crate::backend::{Backend, StoreError, dispatch};

mod memory;
mod redis;

pub(crate) use memory::TimersMem;

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

impl TimerStore {
    /// A timer store over `backend`.
    pub fn new(backend: Backend) -> Self {
        TimerStore { backend }
    }

    /// Arms the timer `key`, or re-arms it (replacing due time and payload; a claim on it is
    /// lost, so its claimant's [`TimerStore::ack`] will return false).
    pub async fn arm(&self, key: &str, payload: &[u8], due_ms: u64) -> Result<(), StoreError> {
        dispatch!(self.backend, arm(key, payload, due_ms))
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
        dispatch!(self.backend, cancel(key))
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
        dispatch!(self.backend, claim_due(now_ms, claim_ms, limit))
    }

    /// Deletes the timer if it is still under this claim (its score is `claim_ms`). False if
    /// it was re-armed, re-claimed or cancelled meanwhile (then nothing is deleted).
    pub async fn ack(&self, key: &str, claim_ms: u64) -> Result<bool, StoreError> {
        dispatch!(self.backend, ack(key, claim_ms))
    }

    /// How many timers are armed, and how many of them have a score at or before `now_ms`
    /// (due and not fired yet, or claimed by a worker that did not answer in time): the
    /// backlog a healthy system keeps near zero.
    pub async fn counts(&self, now_ms: u64) -> Result<(u64, u64), StoreError> {
        dispatch!(self.backend, counts(now_ms))
    }

    /// The earliest score (due time, or claim deadline of a claimed timer): sleep until then.
    pub async fn next_due(&self) -> Result<Option<u64>, StoreError> {
        dispatch!(self.backend, next_due())
    }

    /// The timer's score (due time or claim deadline) and payload.
    pub async fn get(&self, key: &str) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        dispatch!(self.backend, get(key))
    }
}
