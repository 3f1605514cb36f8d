//! [`StreamLeases`]: which seated players' event streams each gateway holds, under a lease the
//! gateway renews (ARCHITECTURE.md, "Disconnection (presence)"). A gateway that dies stops renewing; another gateway takes its
//! streams once the lease has lapsed and closes them for it (game-state's presence count), so
//! a dead gateway's players are declared disconnected instead of counted connected forever.
//!
//! This file holds the public types and one dispatch per call; the Redis keys and scripts are
//! in `redis.rs`, the in-memory model in `memory.rs`.

use crate::backend::{Backend, StoreError, dispatch};

mod memory;
mod redis;

pub(crate) use memory::LeasesMem;

/// One game's stream count of one player on a holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldStream {
    pub game_id: String,
    pub player_id: String,
    /// Open streams of that player on that game held by the holder.
    pub streams: u64,
}

/// Gateways' stream leases. See the crate docs for the keys.
#[derive(Debug, Clone)]
pub struct StreamLeases {
    backend: Backend,
}

impl StreamLeases {
    /// The leases kept in `backend`.
    pub fn new(backend: Backend) -> Self {
        StreamLeases { backend }
    }

    /// Extends `holder`'s lease to `until_ms`. `Ok(true)` when the holder was not registered:
    /// it is new, or its lease lapsed and another holder took its streams (the caller then
    /// registers the streams it still holds again).
    pub async fn renew(&self, holder: &str, until_ms: u64) -> Result<bool, StoreError> {
        dispatch!(self.backend, renew(holder, until_ms))
    }

    /// Records one more stream of `player_id` on `game_id` held by `holder`.
    pub async fn hold(
        &self,
        holder: &str,
        game_id: &str,
        player_id: &str,
    ) -> Result<(), StoreError> {
        dispatch!(self.backend, hold(holder, game_id, player_id))
    }

    /// Records one stream of `player_id` on `game_id` fewer held by `holder`.
    pub async fn release(
        &self,
        holder: &str,
        game_id: &str,
        player_id: &str,
    ) -> Result<(), StoreError> {
        dispatch!(self.backend, release(holder, game_id, player_id))
    }

    /// Up to `limit` holders whose lease ran out by `now_ms`.
    pub async fn lapsed(&self, now_ms: u64, limit: usize) -> Result<Vec<String>, StoreError> {
        dispatch!(self.backend, lapsed(now_ms, limit))
    }

    /// Takes the streams of `holder` if its lease ran out by `now_ms` (removing the holder):
    /// `None` when it did not, or another caller took them first.
    pub async fn take_lapsed(
        &self,
        holder: &str,
        now_ms: u64,
    ) -> Result<Option<Vec<HeldStream>>, StoreError> {
        dispatch!(self.backend, take_lapsed(holder, now_ms))
    }
}
