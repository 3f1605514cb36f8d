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

/// One game for [`RatingStore::record_in_order`]: what [`RatingStore::record`] takes.
#[derive(Debug, Clone, PartialEq)]
pub struct RatedGame {
    /// The rule set whose ratings change.
    pub ruleset: String,
    /// The game, recorded once.
    pub game_id: String,
    /// Each player's new rating, conditional on the version it was computed from.
    pub updates: Vec<RatingUpdate>,
    /// What to store as the game's marker.
    pub result: Vec<u8>,
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

    /// Records `games` one after another, each exactly as [`RatingStore::record`] would,
    /// and stops at the first that is not `Recorded`: returns how many were recorded (the
    /// first ones) and the outcome of the game that stopped it, `None` when all were. A
    /// batch of game ends is computed from one read, each game's versions following the
    /// games before it in the batch; a game that meets another writer's change stops the
    /// rest, which were computed from what it would have written.
    pub async fn record_in_order(
        &self,
        games: &[RatedGame],
    ) -> Result<(usize, Option<RecordOutcome>), StoreError> {
        let updates = games.iter().flat_map(|g| &g.updates);
        if let Some(u) = updates.clone().find(|u| !u.rating.is_finite()) {
            return Err(StoreError::Corrupt(format!(
                "rating of {} is not finite",
                u.player_id
            )));
        }
        if games.is_empty() {
            return Ok((0, None));
        }
        dispatch!(self.backend, record_in_order(games))
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

    /// [`RatingStore::result`] of each game, in the order asked, in one call.
    pub async fn results(&self, game_ids: &[String]) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
        if game_ids.is_empty() {
            return Ok(Vec::new());
        }
        dispatch!(self.backend, results(game_ids))
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
