//! The live-game cache: this replica's decoded copy of the games it committed last.
//!
//! Redis stays the truth; a copy only spares reading and decoding (JSON state, encoded meta,
//! the rules' own state) the game on every move of a game played through one replica. A copy
//! is named by its seq and by the version its commit wrote (a fresh random token per commit,
//! `ludus_store::Commit::version`): the seq alone names one state only while history never
//! rewinds, and a Redis that lost its last writes (a failover, a restart without fsync) can
//! reach the same seq again by other moves.
//! - When the client's `expected_seq` is the copy's seq and the store writes timers only with
//!   a commit (one Redis node, memory), the action is judged on the copy and committed with
//!   no read at all: the commit script checks the action id first and then compares and
//!   sets the seq and the version, so a copy the store has moved past (another replica, a
//!   timer or a presence change committed since, lost writes) only gets the ABORTED the client
//!   would have got anyway, and writes nothing. A refusal judged on the copy is judged again
//!   on the store's game.
//! - Otherwise the move reads the game with [`ludus_store::GameStore::read_for_action`],
//!   naming the copy's seq and version: while the game is still that copy the store sends no
//!   state and the copy is used; otherwise the copy is dropped and the game decoded from what
//!   the store sent.
//!
//! A copy is taken out while a change is being made and put back only by a commit that
//! landed, with the seq it wrote: two concurrent actions on one game cannot share a copy, and
//! a refused or failed change leaves none behind. Finished games are not kept. The cache is
//! bounded; when full, an arbitrary copy makes room (it is read from the store on its game's
//! next move).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::model::Loaded;

/// How many games one replica keeps decoded by default: a Caro copy is about 3 KiB.
pub const DEFAULT_LIVE_CACHE_GAMES: usize = 4_096;

/// A decoded game and the version its commit wrote.
#[derive(Debug)]
pub struct Copy {
    /// The game at `loaded.seq`.
    pub loaded: Loaded,
    /// The version the commit of that seq wrote.
    pub version: String,
}

/// Decoded games by id, each at the seq and version of the commit that put it here.
#[derive(Debug)]
pub struct LiveCache {
    games: Mutex<HashMap<String, Copy>>,
    capacity: usize,
}

impl LiveCache {
    /// A cache of at most `capacity` games (0 keeps none).
    pub fn new(capacity: usize) -> Self {
        LiveCache {
            games: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    fn games(&self) -> std::sync::MutexGuard<'_, HashMap<String, Copy>> {
        // A panic under this lock leaves a map of whole entries: nothing to repair.
        self.games.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The seq and version of the copy held of `game_id`, if any.
    pub fn held(&self, game_id: &str) -> Option<(u64, String)> {
        self.games()
            .get(game_id)
            .map(|copy| (copy.loaded.seq, copy.version.clone()))
    }

    /// Takes the copy of `game_id` out if it is at `seq`; a copy at another seq stays (the
    /// store's read says whether it is still current).
    pub fn take(&self, game_id: &str, seq: u64) -> Option<Copy> {
        let mut games = self.games();
        if games
            .get(game_id)
            .is_some_and(|copy| copy.loaded.seq == seq)
        {
            games.remove(game_id)
        } else {
            None
        }
    }

    /// Keeps `loaded`, the game as a commit that landed left it (`loaded.seq` is that
    /// commit's seq, `version` the version it wrote). A finished game is dropped instead: it
    /// takes no more moves.
    pub fn put(&self, mut loaded: Loaded, version: String) {
        if self.capacity == 0 {
            return;
        }
        let mut games = self.games();
        if loaded.game.outcome().is_some() {
            games.remove(&loaded.game_id);
            return;
        }
        loaded.timers = Default::default();
        if games.len() >= self.capacity
            && !games.contains_key(&loaded.game_id)
            && let Some(evicted) = games.keys().next().cloned()
        {
            games.remove(&evicted);
        }
        games.insert(loaded.game_id.clone(), Copy { loaded, version });
    }

    /// Forgets `game_id` (its copy may be stale).
    pub fn forget(&self, game_id: &str) {
        self.games().remove(game_id);
    }

    /// How many games are held.
    pub fn len(&self) -> usize {
        self.games().len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
