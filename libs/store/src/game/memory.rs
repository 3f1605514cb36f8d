//! [`GameStore`](super::GameStore) in memory: each family of logs (games, rooms) is one map
//! under one lock, so every operation is as atomic as the matching Redis script.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use super::{Commit, CommitRefusal, Committed, GameRead, GameRecord, Log, StoredEvent};
use crate::backend::StoreError;
use crate::backend::memory::{MemoryState, lock};
use crate::feed::Topic;
use crate::feed::memory::hub_key;
use crate::timer::TimerWrites;

#[derive(Default)]
pub(crate) struct GamesMem {
    games: HashMap<String, GameMem>,
    /// (live since, id) of unfinished games: the Redis zset's order.
    live: BTreeSet<(u64, String)>,
    /// id -> live since, to find a live entry by id.
    live_since: HashMap<String, u64>,
    /// game -> seat -> open streams; see [`super::GameStore::presence`]. Keyed by game first
    /// so a game's counts go in one removal, not a scan of every game's.
    presence: HashMap<String, HashMap<u32, u64>>,
    /// Finished games by the time they may be forgotten (Unix ms); see
    /// [`super::GameStore::finish`].
    expiring: BTreeSet<(u64, String)>,
    /// player -> the unfinished games they sit in; see [`super::GameStore::seat_players`].
    player_games: HashMap<String, BTreeSet<String>>,
}

impl GamesMem {
    /// Forgets every finished game whose retention ended by `now_ms`.
    fn purge(&mut self, now_ms: u64) {
        while let Some((at, game_id)) = self.expiring.first().cloned() {
            if at > now_ms {
                break;
            }
            self.expiring.pop_first();
            // A game re-created under the same id since then has no expiry of its own.
            if self
                .games
                .get(&game_id)
                .is_some_and(|g| g.expires_ms == Some(at))
            {
                self.games.remove(&game_id);
                self.presence.remove(&game_id);
            }
        }
    }

    /// Takes `id` out of the listing.
    fn unlist(&mut self, id: &str) {
        if let Some(since) = self.live_since.remove(id) {
            self.live.remove(&(since, id.to_owned()));
        }
    }
}

struct GameMem {
    /// Set once the game is finished: when it may be forgotten (Unix ms).
    expires_ms: Option<u64>,
    state: Vec<u8>,
    /// The last commit's [`Commit::version`].
    version: Option<String>,
    meta: Vec<u8>,
    /// `events[i]` has seq `i + 1`, so the seq is `events.len()`.
    events: Vec<Vec<u8>>,
    actions: HashMap<String, u64>,
}

impl GameMem {
    /// Its seq, state and meta, as [`super::GameStore::load`] answers them.
    fn record(&self) -> GameRecord {
        GameRecord {
            seq: self.events.len() as u64,
            state: self.state.clone(),
            meta: self.meta.clone(),
        }
    }
}

/// The map of the `log` family.
fn logs(m: &MemoryState, log: Log) -> &Mutex<GamesMem> {
    match log {
        Log::Game => &m.games,
        Log::Room => &m.rooms,
    }
}

pub(super) fn create(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    meta: &[u8],
    state: &[u8],
    first_event: &[u8],
) -> Result<bool, StoreError> {
    let mut games = lock(logs(m, log));
    if games.games.contains_key(game_id) {
        return Ok(false);
    }
    games.presence.remove(game_id);
    games.games.insert(
        game_id.to_owned(),
        GameMem {
            expires_ms: None,
            version: None,
            state: state.to_vec(),
            meta: meta.to_vec(),
            events: vec![first_event.to_vec()],
            actions: HashMap::new(),
        },
    );
    // Published under the games lock, so feed order is commit order.
    m.hub.publish(
        &hub_key(Topic::Log(log, game_id)),
        StoredEvent {
            seq: 1,
            payload: first_event.to_vec(),
        },
    );
    Ok(true)
}

pub(super) fn load(
    m: &MemoryState,
    log: Log,
    game_id: &str,
) -> Result<Option<GameRecord>, StoreError> {
    Ok(lock(logs(m, log)).games.get(game_id).map(GameMem::record))
}

pub(super) fn read_for_action(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    action_id: &str,
    held: Option<(u64, &str)>,
) -> Result<(GameRead, Option<u64>), StoreError> {
    let games = lock(logs(m, log));
    let Some(game) = games.games.get(game_id) else {
        return Ok((GameRead::Missing, None));
    };
    let done = game.actions.get(action_id).copied();
    let seq = game.events.len() as u64;
    let read = match held {
        Some((held_seq, version))
            if held_seq == seq && game.version.as_deref() == Some(version) =>
        {
            GameRead::Unchanged { seq }
        }
        _ => GameRead::Record {
            record: game.record(),
            version: game.version.clone(),
        },
    };
    Ok((read, done))
}

/// The commit and its timer writes under the games lock, as the script does them.
pub(super) fn commit_with_timers(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    commit: Commit<'_>,
    timers: &TimerWrites,
) -> Result<Result<Committed, CommitRefusal>, StoreError> {
    let mut games = lock(logs(m, log));
    let Some(game) = games.games.get_mut(game_id) else {
        return Ok(Err(CommitRefusal::NotFound));
    };
    if let Some(&seq) = commit.action_id.and_then(|a| game.actions.get(a)) {
        return Ok(Err(CommitRefusal::DuplicateAction { seq }));
    }
    let current = game.events.len() as u64;
    if current != commit.expected_seq
        || commit
            .expected_version
            .is_some_and(|expected| game.version.as_deref() != Some(expected))
    {
        return Ok(Err(CommitRefusal::StaleSeq { current }));
    }
    let seq = current + 1;
    game.state = commit.state.to_vec();
    game.version = commit.version.map(str::to_owned);
    game.events.push(commit.event.to_vec());
    if let Some(a) = commit.action_id {
        game.actions.insert(a.to_owned(), seq);
    }
    // Under the games lock, as the script does it inside the commit.
    lock(&m.timers).write(timers);
    m.hub.publish(
        &hub_key(Topic::Log(log, game_id)),
        StoredEvent {
            seq,
            payload: commit.event.to_vec(),
        },
    );
    Ok(Ok(Committed { seq }))
}

pub(super) fn events_after(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    after_seq: u64,
    limit: usize,
) -> Result<Vec<StoredEvent>, StoreError> {
    let games = lock(logs(m, log));
    let Some(game) = games.games.get(game_id) else {
        return Ok(Vec::new());
    };
    let start = usize::try_from(after_seq).unwrap_or(usize::MAX);
    Ok(game
        .events
        .iter()
        .enumerate()
        .skip(start)
        .take(limit)
        .map(|(i, e)| StoredEvent {
            seq: i as u64 + 1,
            payload: e.clone(),
        })
        .collect())
}

pub(super) fn action_seq(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    action_id: &str,
) -> Result<Option<u64>, StoreError> {
    Ok(lock(logs(m, log))
        .games
        .get(game_id)
        .and_then(|g| g.actions.get(action_id).copied()))
}

pub(super) fn event(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    seq: u64,
) -> Result<Option<StoredEvent>, StoreError> {
    let games = lock(logs(m, log));
    Ok(games.games.get(game_id).and_then(|g| {
        let i = usize::try_from(seq - 1).ok()?;
        g.events.get(i).map(|e| StoredEvent {
            seq,
            payload: e.clone(),
        })
    }))
}

pub(super) fn presence(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    seat: u32,
    delta: i64,
) -> Result<u64, StoreError> {
    let mut games = lock(logs(m, log));
    let count = games
        .presence
        .entry(game_id.to_owned())
        .or_default()
        .entry(seat)
        .or_insert(0);
    *count = count.saturating_add_signed(delta);
    Ok(*count)
}

/// The log leaves the listing and may be forgotten from `now_ms + keep_ms`; every log whose
/// time has come is forgotten now.
pub(super) fn finish(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    now_ms: u64,
    keep_ms: u64,
) -> Result<(), StoreError> {
    let mut games = lock(logs(m, log));
    games.unlist(game_id);
    let at = now_ms.saturating_add(keep_ms);
    if let Some(game) = games.games.get_mut(game_id) {
        game.expires_ms = Some(at);
        games.expiring.insert((at, game_id.to_owned()));
    }
    games.purge(now_ms);
    Ok(())
}

pub(super) fn persist(m: &MemoryState, log: Log, id: &str) -> Result<(), StoreError> {
    if let Some(game) = lock(logs(m, log)).games.get_mut(id) {
        // Its entry in `expiring` no longer matches, so the purge skips it.
        game.expires_ms = None;
    }
    Ok(())
}

pub(super) fn purge_expired(m: &MemoryState, log: Log, now_ms: u64) -> Result<(), StoreError> {
    lock(logs(m, log)).purge(now_ms);
    Ok(())
}

pub(super) fn unmark_live(m: &MemoryState, log: Log, id: &str) -> Result<(), StoreError> {
    lock(logs(m, log)).unlist(id);
    Ok(())
}

pub(super) fn seat_players(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    players: &[String],
    seated: bool,
) -> Result<(), StoreError> {
    let mut games = lock(logs(m, log));
    for player in players {
        if seated {
            games
                .player_games
                .entry(player.clone())
                .or_default()
                .insert(game_id.to_owned());
        } else if let Some(set) = games.player_games.get_mut(player) {
            set.remove(game_id);
            if set.is_empty() {
                games.player_games.remove(player);
            }
        }
    }
    Ok(())
}

pub(super) fn player_games(
    m: &MemoryState,
    log: Log,
    player: &str,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    Ok(lock(logs(m, log))
        .player_games
        .get(player)
        .map(|set| set.iter().rev().take(limit).cloned().collect())
        .unwrap_or_default())
}

pub(super) fn mark_live(
    m: &MemoryState,
    log: Log,
    game_id: &str,
    since_ms: u64,
) -> Result<(), StoreError> {
    let mut games = lock(logs(m, log));
    if !games.live_since.contains_key(game_id) {
        games.live_since.insert(game_id.to_owned(), since_ms);
        games.live.insert((since_ms, game_id.to_owned()));
    }
    Ok(())
}

pub(super) fn live_games(
    m: &MemoryState,
    log: Log,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    Ok(lock(logs(m, log))
        .live
        .iter()
        .rev()
        .take(limit)
        .map(|(_, id)| id.clone())
        .collect())
}
