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

use crate::engine::{GameKind, Hosted, Hosting, LiveGame};
use crate::error::ServiceError;

static PRESETS: Mutex<Option<HashMap<String, Box<dyn LiveGame>>>> = Mutex::new(None);

/// The next `CreateGame` for `game_id` starts from `game` (its settings must name the same
/// game and seat as many players).
pub fn preset<G: Hosting>(game_id: &str, game: G) {
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
