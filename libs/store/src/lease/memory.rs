//! [`StreamLeases`](super::StreamLeases) in memory: every holder's lease end and streams in
//! one map under one lock.

use std::collections::HashMap;

use super::HeldStream;
use crate::backend::StoreError;
use crate::backend::memory::{MemoryState, lock};

/// (game, player) -> streams, of one holder.
type Streams = HashMap<(String, String), u64>;

/// The memory backend's leases: holder -> (lease end, its streams).
#[derive(Default)]
pub(crate) struct LeasesMem {
    holders: HashMap<String, (u64, Streams)>,
}

pub(super) fn renew(m: &MemoryState, holder: &str, until_ms: u64) -> Result<bool, StoreError> {
    let mut leases = lock(&m.leases);
    let entry = leases.holders.entry(holder.to_owned());
    let new = matches!(entry, std::collections::hash_map::Entry::Vacant(_));
    entry.or_default().0 = until_ms;
    Ok(new)
}

pub(super) fn hold(
    m: &MemoryState,
    holder: &str,
    game_id: &str,
    player_id: &str,
) -> Result<(), StoreError> {
    let mut leases = lock(&m.leases);
    let streams = &mut leases.holders.entry(holder.to_owned()).or_default().1;
    *streams
        .entry((game_id.to_owned(), player_id.to_owned()))
        .or_default() += 1;
    Ok(())
}

pub(super) fn release(
    m: &MemoryState,
    holder: &str,
    game_id: &str,
    player_id: &str,
) -> Result<(), StoreError> {
    let mut leases = lock(&m.leases);
    if let Some((_, streams)) = leases.holders.get_mut(holder) {
        let key = (game_id.to_owned(), player_id.to_owned());
        if let Some(n) = streams.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                streams.remove(&key);
            }
        }
    }
    Ok(())
}

pub(super) fn lapsed(
    m: &MemoryState,
    now_ms: u64,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    let leases = lock(&m.leases);
    let mut lapsed: Vec<String> = leases
        .holders
        .iter()
        .filter(|(_, (until, _))| *until <= now_ms)
        .map(|(holder, _)| holder.clone())
        .collect();
    lapsed.sort();
    lapsed.truncate(limit);
    Ok(lapsed)
}

pub(super) fn take_lapsed(
    m: &MemoryState,
    holder: &str,
    now_ms: u64,
) -> Result<Option<Vec<HeldStream>>, StoreError> {
    let mut leases = lock(&m.leases);
    match leases.holders.get(holder) {
        Some((until, _)) if *until <= now_ms => {}
        _ => return Ok(None),
    }
    let (_, streams) = leases.holders.remove(holder).unwrap_or_default();
    let mut streams: Vec<HeldStream> = streams
        .into_iter()
        .map(|((game_id, player_id), streams)| HeldStream {
            game_id,
            player_id,
            streams,
        })
        .collect();
    streams.sort_by(|a, b| (&a.game_id, &a.player_id).cmp(&(&b.game_id, &b.player_id)));
    Ok(Some(streams))
}
