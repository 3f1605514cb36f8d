//! What the service holds (the store, its timer keys, the clock, the live-game cache and the
//! clients it tells), and the reads and timer writes every layer above builds on.

use ludus_proto::pb::{self, rooms_client::RoomsClient};
use ludus_server::Traced;
use ludus_store::{Clock, GameStore, TimerArm, TimerStore};
use prost::Message;

use super::live_cache::{DEFAULT_LIVE_CACHE_GAMES, LiveCache};
use crate::archive::{Archiver, UNARCHIVED_RETENTION};
use crate::ends::GameEnds;
use crate::error::ServiceError;
use crate::model::{Loaded, validate_id};
use crate::ratings::OutcomeReporter;

/// Finished games stay readable for a week: long enough for late spectators, replays and
/// disputes, short enough that Redis holds live play, not history.
pub const DEFAULT_FINISHED_GAME_RETENTION: std::time::Duration =
    std::time::Duration::from_secs(7 * 24 * 3600);

/// The timer `key` to run `action` at `due_ms` (Unix ms).
///
/// Written straight into the `{timers:N}` keys rather than through the timers service's
/// `Arm`: the same key and the same payload (the encoded `TimerAction`) that `Arm` writes, so
/// the timers worker fires it unchanged, without a gRPC hop on every move; on one Redis node
/// inside the move's own commit script. The worker is not woken: it finds the timer within
/// its poll bound (ARCHITECTURE.md, Timers). Keys are made here from ids of at most 64
/// characters, well within the 200 `Arm` accepts.
pub(super) fn timer_arm(key: &str, action: pb::timer_action::Action, due_ms: i64) -> TimerArm {
    let payload = pb::TimerAction {
        action: Some(action),
        // The firing's trace links back to this one (the move that armed it).
        traceparent: ludus_server::propagation::current_traceparent(),
    }
    .encode_to_vec();
    TimerArm {
        key: key.to_owned(),
        payload,
        // Deadlines are the service's clock plus a duration, never negative; one that were
        // would be in the past, which is what due at once means.
        due_ms: u64::try_from(due_ms).unwrap_or(0),
    }
}

/// The game-state service.
#[derive(Clone, Debug)]
pub struct GameStateService {
    pub(super) store: GameStore,
    /// The `{timers:N}` keys the timers service's worker fires: game-state arms and cancels its
    /// own timers there directly (see `arm_timer`).
    pub(super) timers: TimerStore,
    pub(super) reporter: OutcomeReporter,
    /// How long a disconnected player has to come back in a game with a disconnection rule
    /// (C13: one minute).
    pub(super) absence_grace_ms: u64,
    /// How long a finished game's keys are kept (once archived, when there is an archive).
    pub(super) retention: std::time::Duration,
    /// Deadlines and event times are read from it.
    clock: Clock,
    /// Where finished games are archived; `None` keeps them in Redis only (their keys then
    /// expire `retention` after the game ends).
    pub(super) archiver: Option<Archiver>,
    /// The rooms service, told when a room's game ends; `None` without rooms.
    pub(super) rooms: Option<RoomsClient<Traced>>,
    /// Decoded copies of the games this replica committed last (Redis stays the truth).
    pub(super) live: std::sync::Arc<LiveCache>,
    /// Archive records and rating reports of ended games, written in batches.
    pub(super) ends: GameEnds,
    /// Lets [`crate::ends::PREPARED_AT_ONCE`] outcome reports read their game and build its
    /// record at a time (see `report_outcome`).
    pub(super) preparing_ends: std::sync::Arc<tokio::sync::Semaphore>,
}

impl GameStateService {
    pub fn new(
        store: GameStore,
        timers: TimerStore,
        reporter: OutcomeReporter,
        absence_grace_ms: u64,
    ) -> Self {
        GameStateService {
            store,
            timers,
            reporter,
            absence_grace_ms,
            retention: DEFAULT_FINISHED_GAME_RETENTION,
            clock: Clock::system(),
            archiver: None,
            rooms: None,
            live: std::sync::Arc::new(LiveCache::new(DEFAULT_LIVE_CACHE_GAMES)),
            preparing_ends: std::sync::Arc::new(tokio::sync::Semaphore::new(
                crate::ends::PREPARED_AT_ONCE,
            )),
            ends: GameEnds::default(),
        }
    }

    /// Keeps up to `games` decoded games between moves (see [`super::live_cache`]); 0 decodes
    /// every move's game from the store.
    pub fn live_cache(mut self, games: usize) -> Self {
        self.live = std::sync::Arc::new(LiveCache::new(games));
        self
    }

    /// Tells `rooms` when a game a room started ends (from the outcome timer, at least once).
    pub fn rooms(mut self, rooms: RoomsClient<Traced>) -> Self {
        self.rooms = Some(rooms);
        self
    }

    /// Archives every finished game before its keys may expire (see [`crate::archive`]).
    pub fn archive(mut self, archiver: Archiver) -> Self {
        self.archiver = Some(archiver);
        self
    }

    /// The clock deadlines and event times are read from (the system's unless a test gives
    /// the services a manual one).
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// How long finished games stay readable before their keys expire.
    pub fn finished_game_retention(mut self, retention: std::time::Duration) -> Self {
        self.retention = retention;
        self
    }

    /// How long a game's keys are kept when it finishes: until the archive has it (the
    /// outcome timer then shortens it to `retention`), or `retention` without an archive.
    pub(super) fn retention_at_finish(&self) -> std::time::Duration {
        match self.archiver {
            Some(_) => self.retention.max(UNARCHIVED_RETENTION),
            None => self.retention,
        }
    }

    /// Unix milliseconds on the service's clock: deadlines are absolute so every replica
    /// agrees on them (tests run the services on one manual clock).
    pub(super) fn now_ms(&self) -> i64 {
        i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX)
    }

    /// The game `game_id` as the store holds it, or NOT_FOUND.
    pub(super) async fn load(&self, game_id: &str) -> Result<Loaded, ServiceError> {
        validate_id("game_id", game_id)?;
        let record = self
            .store
            .load(game_id)
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("no game {game_id}")))?;
        Loaded::decode(game_id, record.seq, &record.meta, &record.state)
    }

    /// Arms (or re-arms) the timer `key` to run `action` at `due_ms` (Unix ms), now. For
    /// timers that go with no commit (absences); a change's own timers go with its commit
    /// (see [`timer_arm`]).
    pub(super) async fn arm_timer(
        &self,
        key: &str,
        action: pb::timer_action::Action,
        due_ms: i64,
    ) -> Result<(), ServiceError> {
        let arm = timer_arm(key, action, due_ms);
        self.timers.arm(&arm.key, &arm.payload, arm.due_ms).await?;
        Ok(())
    }

    /// Deletes the timer `key` in the background. Only for timers whose firing would change
    /// nothing (a stale turn, a stale absence token): deleting them saves a firing, so the
    /// caller does not wait for it and a failure is only logged.
    pub(super) fn cancel_timer_later(&self, key: String) {
        let timers = self.timers.clone();
        tokio::spawn(async move {
            if let Err(error) = timers.cancel(&key).await {
                tracing::debug!(%error, %key, "could not cancel a stale timer; it fires and changes nothing");
            }
        });
    }
}
