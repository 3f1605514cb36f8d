//! The feed in memory: the stores publish into the backend's [`FeedHub`] under their own
//! lock (so feed order is commit order), and subscribers join it directly.

use std::borrow::Cow;

use super::{FeedSubscription, SubscriberGuard, Topic};
use crate::backend::StoreError;
use crate::backend::memory::MemoryState;
use crate::game::Log;

/// The hub key of `topic`: a game's id, a room's code behind `room:` (a room code could equal
/// a game id), the ticket notices under a key no game id has (game ids never contain braces).
pub(crate) fn hub_key(topic: Topic<'_>) -> Cow<'_, str> {
    match topic {
        Topic::Log(Log::Game, id) => Cow::Borrowed(id),
        Topic::Log(Log::Room, code) => Cow::Owned(format!("room:{code}")),
        Topic::Tickets => Cow::Borrowed("{mm}:settled"),
    }
}

pub(super) fn subscribe(m: &MemoryState, topic: Topic<'_>) -> Result<FeedSubscription, StoreError> {
    let key = hub_key(topic);
    let rx = m.hub.join(&key, true);
    Ok(FeedSubscription {
        rx,
        _guard: SubscriberGuard {
            key: key.into_owned(),
            hub: m.hub.clone(),
            redis: None,
        },
    })
}
