//! [`RatingStore`]: ratings per rule set, leaderboards, and the per-game marker that makes
//! recording a game's result idempotent.
//!
//! This file holds the public types and one dispatch per call; the Redis keys and scripts are
//! in `redis.rs`, the in-memory model in `memory.rs`.

use crate::backend::{Backend, StoreError, dispatch};

mod memory;
mod redis;

pub(crate) use memory::RatingsMem;

/// A player's rating in one rule set.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingEntry {
    /// The player.
    pub player_id: String,
    /// The name shown on leaderboards.
    pub display_name: String,
    /// The rating.
    pub rating: f64,
    /// Rated games played.
    pub games: u32,
    /// Bumped by every write; pass it back as [`RatingUpdate::expected_version`].
    pub version: u64,
}

/// What [`RatingStore::record`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordOutcome {
    /// Every update was written.
    Recorded,
    /// The game was recorded before: nothing written.
    AlreadyRecorded,
    /// Some player's version changed since it was read: nothing written; re-read and retry.
    Conflict,
}

/// One player's new rating, conditional on the version it was computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingUpdate {
    /// The player.
    pub player_id: String,
    /// The name to show.
    pub display_name: String,
    /// The version read (0 = the player had no rating).
    pub expected_version: u64,
    /// The new rating; must be finite.
    pub rating: f64,
    /// The new number of rated games.
    pub games: u32,
}

/// Ratings and leaderboards. See the crate docs for the Redis keys.
#[derive(Debug, Clone)]
pub struct RatingStore {
    backend: Backend,
}

impl RatingStore {
    /// A rating store over `backend`.
    pub fn new(backend: Backend) -> Self {
        RatingStore { backend }
    }

    /// The players' entries in `ruleset`, in the order asked; missing players are `None`.
    pub async fn get(
        &self,
        ruleset: &str,
        player_ids: &[String],
    ) -> Result<Vec<Option<RatingEntry>>, StoreError> {
        dispatch!(self.backend, get(ruleset, player_ids))
    }

    /// Atomically: `AlreadyRecorded` if the game was recorded before; `Conflict` if any
    /// player's version is not its `expected_version` (0 = absent); else writes every update
    /// (version + 1), updates the leaderboard and stores `result` as the game's marker.
    /// Player ids must be distinct; ratings must be finite.
    pub async fn record(
        &self,
        ruleset: &str,
        game_id: &str,
        updates: &[RatingUpdate],
        result: &[u8],
    ) -> Result<RecordOutcome, StoreError> {
        if let Some(u) = updates.iter().find(|u| !u.rating.is_finite()) {
            return Err(StoreError::Corrupt(format!(
                "rating of {} is not finite",
                u.player_id
            )));
        }
        dispatch!(self.backend, record(ruleset, game_id, updates, result))
    }

    /// Marks a game as handled without rating changes (e.g. cancelled), storing `result`.
    /// False (nothing written) if the game was already recorded, rated or not.
    pub async fn record_unrated(&self, game_id: &str, result: &[u8]) -> Result<bool, StoreError> {
        dispatch!(self.backend, record_unrated(game_id, result))
    }

    /// The result stored when the game was recorded, if it was.
    pub async fn result(&self, game_id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        dispatch!(self.backend, result(game_id))
    }

    /// A player's 0-based place on the leaderboard ([`RatingStore::top`]'s order), in one
    /// call; `None` for a player without a rating in this pool.
    pub async fn rank(&self, ruleset: &str, player_id: &str) -> Result<Option<u64>, StoreError> {
        dispatch!(self.backend, rank(ruleset, player_id))
    }

    /// The leaderboard of `ruleset`: highest rating first, ties by fewer games, then player
    /// id; at most `n` entries from `offset`.
    pub async fn top(
        &self,
        ruleset: &str,
        offset: usize,
        n: usize,
    ) -> Result<Vec<RatingEntry>, StoreError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        dispatch!(self.backend, top(ruleset, offset, n))
    }
}
