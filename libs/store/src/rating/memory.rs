//! [`RatingStore`](super::RatingStore) in memory: every rule set's entries and every recorded
//! result under one lock.

use std::collections::HashMap;

use super::{RatedGame, RatingEntry, RatingUpdate, RecordOutcome};
use crate::backend::StoreError;
use crate::backend::memory::{MemoryState, lock};

#[derive(Default)]
pub(crate) struct RatingsMem {
    /// ruleset -> player -> entry.
    players: HashMap<String, HashMap<String, RatingEntry>>,
    /// game id -> result bytes.
    results: HashMap<String, Vec<u8>>,
}

pub(super) fn get(
    m: &MemoryState,
    ruleset: &str,
    player_ids: &[String],
) -> Result<Vec<Option<RatingEntry>>, StoreError> {
    let ratings = lock(&m.ratings);
    let board = ratings.players.get(ruleset);
    Ok(player_ids
        .iter()
        .map(|p| board.and_then(|b| b.get(p)).cloned())
        .collect())
}

pub(super) fn record(
    m: &MemoryState,
    ruleset: &str,
    game_id: &str,
    updates: &[RatingUpdate],
    result: &[u8],
) -> Result<RecordOutcome, StoreError> {
    Ok(lock(&m.ratings).record(ruleset, game_id, updates, result))
}

pub(super) fn record_in_order(
    m: &MemoryState,
    games: &[RatedGame],
) -> Result<(usize, Option<RecordOutcome>), StoreError> {
    let mut ratings = lock(&m.ratings);
    for (recorded, g) in games.iter().enumerate() {
        match ratings.record(&g.ruleset, &g.game_id, &g.updates, &g.result) {
            RecordOutcome::Recorded => {}
            stopped => return Ok((recorded, Some(stopped))),
        }
    }
    Ok((games.len(), None))
}

impl RatingsMem {
    fn record(
        &mut self,
        ruleset: &str,
        game_id: &str,
        updates: &[RatingUpdate],
        result: &[u8],
    ) -> RecordOutcome {
        if self.results.contains_key(game_id) {
            return RecordOutcome::AlreadyRecorded;
        }
        let board = self.players.entry(ruleset.to_owned()).or_default();
        let conflict = updates
            .iter()
            .any(|u| board.get(&u.player_id).map_or(0, |e| e.version) != u.expected_version);
        if conflict {
            return RecordOutcome::Conflict;
        }
        for u in updates {
            board.insert(
                u.player_id.clone(),
                RatingEntry {
                    player_id: u.player_id.clone(),
                    display_name: u.display_name.clone(),
                    rating: u.rating,
                    games: u.games,
                    version: u.expected_version + 1,
                },
            );
        }
        self.results.insert(game_id.to_owned(), result.to_vec());
        RecordOutcome::Recorded
    }
}

pub(super) fn record_unrated(
    m: &MemoryState,
    game_id: &str,
    result: &[u8],
) -> Result<bool, StoreError> {
    let mut ratings = lock(&m.ratings);
    if ratings.results.contains_key(game_id) {
        return Ok(false);
    }
    ratings.results.insert(game_id.to_owned(), result.to_vec());
    Ok(true)
}

pub(super) fn result(m: &MemoryState, game_id: &str) -> Result<Option<Vec<u8>>, StoreError> {
    Ok(lock(&m.ratings).results.get(game_id).cloned())
}

pub(super) fn results(
    m: &MemoryState,
    game_ids: &[String],
) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
    let ratings = lock(&m.ratings);
    Ok(game_ids
        .iter()
        .map(|g| ratings.results.get(g).cloned())
        .collect())
}

pub(super) fn rank(
    m: &MemoryState,
    ruleset: &str,
    player_id: &str,
) -> Result<Option<u64>, StoreError> {
    let ratings = lock(&m.ratings);
    let Some(board) = ratings.players.get(ruleset) else {
        return Ok(None);
    };
    let Some(me) = board.get(player_id) else {
        return Ok(None);
    };
    // Everyone ahead of the player in `top`'s order.
    let ahead = board
        .values()
        .filter(|e| {
            e.rating
                .total_cmp(&me.rating)
                .reverse()
                .then(e.games.cmp(&me.games))
                .then(e.player_id.cmp(&me.player_id))
                .is_lt()
        })
        .count();
    Ok(Some(ahead as u64))
}

pub(super) fn top(
    m: &MemoryState,
    ruleset: &str,
    offset: usize,
    n: usize,
) -> Result<Vec<RatingEntry>, StoreError> {
    let ratings = lock(&m.ratings);
    let Some(board) = ratings.players.get(ruleset) else {
        return Ok(Vec::new());
    };
    let mut all: Vec<&RatingEntry> = board.values().collect();
    all.sort_by(|a, b| {
        b.rating
            .total_cmp(&a.rating)
            .then(a.games.cmp(&b.games))
            .then(a.player_id.cmp(&b.player_id))
    });
    Ok(all.into_iter().skip(offset).take(n).cloned().collect())
}
