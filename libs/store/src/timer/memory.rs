//! [`TimerStore`](super::TimerStore) in memory: one map and one ordered set (the Redis
//! zset's order) under one lock.

use std::collections::{BTreeSet, HashMap};

use super::{DueTimer, TimerWrites};
use crate::backend::StoreError;
use crate::backend::memory::{MemoryState, lock};

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

pub(super) fn arm(
    m: &MemoryState,
    key: &str,
    payload: &[u8],
    due_ms: u64,
) -> Result<(), StoreError> {
    lock(&m.timers).set(key, due_ms, payload.to_vec());
    Ok(())
}

pub(super) fn cancel(m: &MemoryState, key: &str) -> Result<bool, StoreError> {
    Ok(lock(&m.timers).remove(key))
}

pub(super) fn claim_due(
    m: &MemoryState,
    now_ms: u64,
    claim_ms: u64,
    limit: usize,
) -> Result<Vec<DueTimer>, StoreError> {
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

pub(super) fn ack(m: &MemoryState, key: &str, claim_ms: u64) -> Result<bool, StoreError> {
    let mut timers = lock(&m.timers);
    if timers.timers.get(key).map(|(s, _)| *s) == Some(claim_ms) {
        timers.remove(key);
        Ok(true)
    } else {
        Ok(false)
    }
}

pub(super) fn counts(m: &MemoryState, now_ms: u64) -> Result<(u64, u64), StoreError> {
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

pub(super) fn next_due(m: &MemoryState) -> Result<Option<u64>, StoreError> {
    Ok(lock(&m.timers).order.first().map(|(s, _)| *s))
}

pub(super) fn get(m: &MemoryState, key: &str) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
    Ok(lock(&m.timers).timers.get(key).cloned())
}
