//! TEST ONLY: games with a chosen starting position, for end-to-end tests of games with hidden
//! information or chance (a Junqi layout is otherwise drawn by game-state's CSPRNG and never
//! leaves the server).
//!
//! Compiled only with the `test-seams` cargo feature, which nothing enables but the
//! `ludus-tests` crate's dev-dependency; the default build (and every binary) has no such
//! module and no such path. Even where the feature is compiled in, the seam is a Rust function
//! of this process, never a request field: nothing reachable over the network can choose a
//! position. A test calls [`preset`] with the game id it will create, then `CreateGame` with
//! that id starts from the preset position instead of a random setup (once: the preset is
//! taken).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use ludus_proto::pb;

use crate::error::ServiceError;
use ludus_catalog::{GameKind, Hosted, Hosting, LiveGame};

static PRESETS: Mutex<Option<HashMap<String, Box<dyn LiveGame>>>> = Mutex::new(None);

/// The next `CreateGame` for `game_id` starts from `game` (its settings must name the same
/// game and seat as many players).
pub fn preset<G: Hosting + ludus_catalog::SeatPosition>(game_id: &str, game: G) {
    PRESETS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(game_id.to_owned(), Box::new(Hosted::new(game)));
}

/// The preset game for `game_id`, if a test set one, checked against the request.
pub(crate) fn take(
    game_id: &str,
    settings: &pb::GameSettings,
    seats: usize,
) -> Result<Option<Box<dyn LiveGame>>, ServiceError> {
    let Some(game) = PRESETS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()
        .and_then(|presets| presets.remove(game_id))
    else {
        return Ok(None);
    };
    let kind: GameKind = GameKind::of(settings)?;
    if game.kind() != kind || game.seats() != seats {
        return Err(ServiceError::InvalidArgument(format!(
            "test seam: the preset for {game_id} is a {:?} game for {} seats",
            game.kind(),
            game.seats()
        )));
    }
    Ok(Some(game))
}

/// Random values a test chose per game id (e.g. Backgammon dice), consumed in order.
static RANDOM: Mutex<Option<HashMap<String, std::collections::VecDeque<u32>>>> = Mutex::new(None);

/// The next random draws made for `game_id` (its setup, then its actions and timeouts, in
/// order) return `values`, each taken modulo the draw's bound; once they run out the game
/// draws from the CSPRNG again. A Backgammon die is a draw below 6: value `d - 1` rolls `d`.
pub fn script_random(game_id: &str, values: impl IntoIterator<Item = u32>) {
    RANDOM
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .entry(game_id.to_owned())
        .or_default()
        .extend(values);
}

/// The next scripted value for `game_id`, if a test scripted one.
pub(crate) fn scripted_value(game_id: &str) -> Option<u32> {
    let mut guard = RANDOM.lock().unwrap_or_else(PoisonError::into_inner);
    let values = guard.as_mut()?.get_mut(game_id)?;
    let value = values.pop_front();
    if values.is_empty() {
        guard.as_mut()?.remove(game_id);
    }
    value
}
