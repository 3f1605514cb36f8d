//! [`RoomStore`]: each room's state, its event log and its live feed, with the games' commit
//! discipline (a `seq`, compare-and-set in one script, an event per commit published on the
//! room's channel). It is a [`GameStore`] over the `ludus:room:{CODE}:*` keys, so rooms use
//! the very scripts, log reads, feed and expiry that games use.
//!
//! The state key is also the code index: creating a room whose code a live room holds
//! writes nothing (`Ok(false)`), so codes are unique among live rooms, and an expired room's
//! code is free again. Public rooms are listed in the lobby (`ludus:rooms:public`, scored by
//! when they were listed). An empty room expires: [`RoomStore::expire_in`] gives its keys a
//! time to live and [`RoomStore::keep`] takes it back when someone joins in time.

use std::time::Duration;

use crate::backend::{Backend, StoreError};
use crate::feed::{FeedSubscription, Topic, subscribe};
use crate::game::{Commit, CommitRefusal, Committed, GameStore, Log, StoredEvent};

/// A room as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomRecord {
    /// The seq of the last event; the next commit must expect it.
    pub seq: u64,
    /// The encoded room state after event `seq`.
    pub state: Vec<u8>,
}

/// Rooms' state, logs, feed and lobby. See the crate docs for the keys.
#[derive(Debug, Clone)]
pub struct RoomStore {
    backend: Backend,
    log: GameStore,
}

impl RoomStore {
    /// A room store over `backend`.
    pub fn new(backend: Backend) -> Self {
        RoomStore {
            log: GameStore::of(backend.clone(), Log::Room),
            backend,
        }
    }

    /// Creates the room `code` with seq 1 and its first event, and publishes that event.
    /// `Ok(false)` when a live room holds the code (nothing written): draw another code.
    pub async fn create(
        &self,
        code: &str,
        state: &[u8],
        first_event: &[u8],
        now_ms: u64,
    ) -> Result<bool, StoreError> {
        self.log.purge_expired(now_ms).await?;
        self.log.create(code, b"", state, first_event).await
    }

    /// The room's seq and state; `None` when no live room has this code (never created, or
    /// expired by `now_ms`).
    pub async fn load(&self, code: &str, now_ms: u64) -> Result<Option<RoomRecord>, StoreError> {
        self.log.purge_expired(now_ms).await?;
        Ok(self.log.load(code).await?.map(|record| RoomRecord {
            seq: record.seq,
            state: record.state,
        }))
    }

    /// Compare-and-set: if the room is still at `expected_seq`, writes `state`, appends
    /// `event` as seq `expected_seq + 1` and publishes it.
    pub async fn commit(
        &self,
        code: &str,
        expected_seq: u64,
        state: &[u8],
        event: &[u8],
    ) -> Result<Result<Committed, CommitRefusal>, StoreError> {
        let commit = Commit {
            expected_seq,
            action_id: None,
            state,
            event,
            version: None,
            expected_version: None,
        };
        self.log.commit(code, commit).await
    }

    /// Events with seq > `after_seq`, in order, at most `limit`.
    pub async fn events_after(
        &self,
        code: &str,
        after_seq: u64,
        limit: usize,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.log.events_after(code, after_seq, limit).await
    }

    /// Subscribes to the room's live events (active when this returns), one underlying
    /// subscription per room per process, like a game's.
    pub async fn subscribe(&self, code: &str) -> Result<FeedSubscription, StoreError> {
        subscribe(&self.backend, Topic::Log(Log::Room, code)).await
    }

    /// Lists the room in the lobby (`since_ms` orders it; listing again keeps the first
    /// time) or takes it out.
    pub async fn set_listed(
        &self,
        code: &str,
        listed: bool,
        since_ms: u64,
    ) -> Result<(), StoreError> {
        if listed {
            self.log.mark_live(code, since_ms).await
        } else {
            self.log.unmark_live(code).await
        }
    }

    /// Codes of listed rooms, most recently listed first, at most `limit`. A listed room may
    /// have expired since: callers load each and skip the missing.
    pub async fn listed(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        self.log.live_games(limit).await
    }

    /// The room is empty: it leaves the lobby and its keys expire after `keep_for` unless
    /// [`RoomStore::keep`] is called first.
    pub async fn expire_in(
        &self,
        code: &str,
        now_ms: u64,
        keep_for: Duration,
    ) -> Result<(), StoreError> {
        self.log.finish(code, now_ms, keep_for).await
    }

    /// Someone is in the room again: it no longer expires.
    pub async fn keep(&self, code: &str) -> Result<(), StoreError> {
        self.log.persist(code).await
    }
}
