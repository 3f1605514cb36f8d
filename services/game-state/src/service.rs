//! The GameState gRPC service: live games, their clocks and their event logs.
//!
//! # Layout
//! - this file: the service, how one change is committed (state, event and clock in one
//!   compare-and-set) and the gRPC trait, which forwards to the handlers.
//! - [`handlers`]: creating, playing (actions, resignations) and reading games.
//! - [`draws`]: draw offers and answers.
//! - [`clock`]: turn clocks, their timers and what a timeout does.
//! - [`computer`]: computer seats, their bot timers, what the bots service reads, take-backs.
//! - [`presence`]: disconnections, returns and absence timers.
//! - [`random`]: the CSPRNG (and the scripted values of test builds).
//! - [`analysis`]: the Kalah solver behind `AnalyzeMancala`.
//! - [`live_cache`]: this replica's decoded copies of the games it committed last.

mod analysis;
mod clock;
mod computer;
mod draws;
mod handlers;
mod live_cache;
mod presence;
mod random;

use ludus_catalog::{outcome_to_pb, seat_u32};
use ludus_proto::pb::{self, game_state_server::GameState, rooms_client::RoomsClient};
use ludus_rules::Viewer;
use ludus_server::Traced;
use ludus_store::{Clock, Commit, CommitOutcome, GameStore, TimerArm, TimerStore};
use prost::Message;
use tonic::{Request, Response, Status};
use tracing::Instrument;

pub use analysis::{DEFAULT_ANALYSIS_MS, MAX_ANALYSIS_MS, MAX_CONCURRENT_ANALYSES};
pub use clock::AUTOPLAY_DELAY_MS;
use clock::turn_timer_key;
pub use computer::{BOT_ID_PREFIX, UndoPoint};
pub use handlers::FINISHING_COMMIT_PATIENCE_MS;
pub use live_cache::{DEFAULT_LIVE_CACHE_GAMES, LiveCache};

use crate::error::ServiceError;
use crate::model::{Loaded, validate_id};
use crate::ratings::OutcomeReporter;

/// How many times a server-side change (timeout, resignation) retries a lost compare-and-set
/// before giving up with ABORTED.
const SERVER_RETRIES: usize = 5;

/// Most events one ReadEvents call returns.
pub const MAX_EVENTS_PAGE: u32 = 500;

/// The timer `key` to run `action` at `due_ms` (Unix ms).
///
/// Written straight into the `{timers:N}` keys rather than through the timers service's
/// `Arm`: the same key and the same payload (the encoded `TimerAction`) that `Arm` writes, so
/// the timers worker fires it unchanged, without a gRPC hop on every move; on one Redis node
/// inside the move's own commit script. The worker is not woken: it finds the timer within
/// its poll bound (ARCHITECTURE.md, Timers). Keys are made here from ids of at most 64
/// characters, well within the 200 `Arm` accepts.
fn timer_arm(key: &str, action: pb::timer_action::Action, due_ms: i64) -> TimerArm {
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
    store: GameStore,
    /// The `{timers:N}` keys the timers service's worker fires: game-state arms and cancels its
    /// own timers there directly (see `arm_timer`).
    timers: TimerStore,
    reporter: OutcomeReporter,
    /// How long a disconnected player has to come back in a game with a disconnection rule
    /// (C13: one minute).
    absence_grace_ms: u64,
    /// How long a finished game's keys are kept (once archived, when there is an archive).
    retention: std::time::Duration,
    /// Deadlines and event times are read from it.
    clock: Clock,
    /// Where finished games are archived; `None` keeps them in Redis only (their keys then
    /// expire `retention` after the game ends).
    archiver: Option<crate::archive::Archiver>,
    /// The rooms service, told when a room's game ends; `None` without rooms.
    rooms: Option<RoomsClient<Traced>>,
    /// Decoded copies of the games this replica committed last (Redis stays the truth).
    live: std::sync::Arc<LiveCache>,
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
            retention: crate::DEFAULT_FINISHED_GAME_RETENTION,
            clock: Clock::system(),
            archiver: None,
            rooms: None,
            live: std::sync::Arc::new(LiveCache::new(DEFAULT_LIVE_CACHE_GAMES)),
        }
    }

    /// Keeps up to `games` decoded games between moves (see [`live_cache`]); 0 decodes every
    /// move's game from the store.
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
    pub fn archive(mut self, archiver: crate::archive::Archiver) -> Self {
        self.archiver = Some(archiver);
        self
    }

    /// How long a game's keys are kept when it finishes: until the archive has it (the
    /// outcome timer then shortens it to `retention`), or `retention` without an archive.
    fn retention_at_finish(&self) -> std::time::Duration {
        match self.archiver {
            Some(_) => self.retention.max(crate::archive::UNARCHIVED_RETENTION),
            None => self.retention,
        }
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

    /// Arms (or re-arms) the timer `key` to run `action` at `due_ms` (Unix ms), now. For
    /// timers that go with no commit (absences); a change's own timers go with its commit
    /// (see [`timer_arm`]).
    async fn arm_timer(
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
    fn cancel_timer_later(&self, key: String) {
        let timers = self.timers.clone();
        tokio::spawn(async move {
            if let Err(error) = timers.cancel(&key).await {
                tracing::debug!(%error, %key, "could not cancel a stale timer; it fires and changes nothing");
            }
        });
    }

    async fn load(&self, game_id: &str) -> Result<Loaded, ServiceError> {
        validate_id("game_id", game_id)?;
        let record = self
            .store
            .load(game_id)
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("no game {game_id}")))?;
        Loaded::decode(game_id, record.seq, &record.meta, &record.state)
    }

    fn snapshot(&self, loaded: &Loaded, viewer_player_id: &str) -> pb::GameSnapshot {
        let your_seat = loaded.seat_of(viewer_player_id);
        let viewer = your_seat.map_or(Viewer::Spectator, Viewer::Seat);
        let legal_actions = match your_seat {
            Some(seat) if loaded.game.to_move() == Some(seat) => loaded.game.legal_actions(seat),
            _ => Vec::new(),
        };
        pb::GameSnapshot {
            game_id: loaded.game_id.clone(),
            settings: loaded.started.settings.clone(),
            ruleset: loaded.game.ruleset(),
            seats: loaded.started.seats.clone(),
            seq: loaded.seq,
            status: loaded.status() as i32,
            turn: Some(loaded.turn_info()),
            view: Some(loaded.game.view(viewer)),
            your_seat: your_seat.map(seat_u32),
            legal_actions,
            draw_offered_by: loaded.record.draw_offer.map(seat_u32),
            outcome: loaded.game.outcome().as_ref().map(outcome_to_pb),
            disconnected: loaded.disconnected(),
        }
    }

    /// The event for the game's state after a change.
    fn event(&self, loaded: &Loaded, seq: u64, kind: pb::game_event::Kind) -> pb::GameEvent {
        pb::GameEvent {
            game_id: loaded.game_id.clone(),
            seq,
            at_unix_ms: self.now_ms(),
            kind: Some(kind),
            view: Some(loaded.game.view(Viewer::Spectator)),
            turn: Some(loaded.turn_info()),
            status: loaded.status() as i32,
            outcome: loaded.game.outcome().as_ref().map(outcome_to_pb),
            // The fan-out's span links to the work that made the event; clients can quote it.
            traceparent: ludus_server::propagation::current_traceparent(),
        }
    }

    /// Commits the change made to `loaded` as event `kind`: state, event and clock in one
    /// atomic compare-and-set on `loaded.seq` (the timers `loaded.timers` plans go with it,
    /// see [`GameStore::commit_with_timers`]).
    async fn commit(
        &self,
        mut loaded: Loaded,
        action_id: Option<&str>,
        kind: pb::game_event::Kind,
        previous_turn_seq: u64,
        expected_version: Option<&str>,
    ) -> Result<Result<pb::GameEvent, CommitOutcome>, ServiceError> {
        if loaded.record.turn_seq != previous_turn_seq {
            // The old turn's timer would fire into a stale turn_seq and be ignored; deleting
            // it with the commit only saves that firing.
            loaded
                .timers
                .cancel
                .push(turn_timer_key(&loaded.game_id, previous_turn_seq));
        }
        self.plan_outcome_report(&mut loaded);
        let seq = loaded.seq + 1;
        let event = self.event(&loaded, seq, kind);
        let state = loaded.save()?;
        let version = random::version_token();
        let outcome = self
            .store
            .commit_with_timers(
                &loaded.game_id,
                Commit {
                    expected_seq: loaded.seq,
                    action_id,
                    state: &state,
                    event: &event.encode_to_vec(),
                    version: Some(&version),
                    expected_version,
                },
                &loaded.timers,
            )
            .await?;
        match outcome {
            CommitOutcome::Committed { seq } => {
                crate::metrics::committed(loaded.record.kind, &event);
                if loaded.game.outcome().is_some() {
                    let now = u64::try_from(self.now_ms()).unwrap_or(0);
                    self.store
                        .finish(&loaded.game_id, now, self.retention_at_finish())
                        .await?;
                    self.store
                        .seat_players(&loaded.game_id, &loaded.player_ids(), false)
                        .await?;
                }
                // The next move of this game on this replica starts from here.
                loaded.seq = seq;
                self.live.put(loaded, version);
                Ok(Ok(event))
            }
            other => Ok(Err(other)),
        }
    }

    async fn original_event(&self, game_id: &str, seq: u64) -> Result<pb::GameEvent, ServiceError> {
        let stored = self.store.event(game_id, seq).await?.ok_or_else(|| {
            ServiceError::Internal(format!("event {seq} of game {game_id} is missing"))
        })?;
        pb::GameEvent::decode(stored.payload.as_slice())
            .map_err(|e| ServiceError::Internal(format!("stored event is unreadable: {e}")))
    }

    /// A change a seated player makes to a live game outside the move order (resigning,
    /// offering or answering a draw): the caller must hold a seat and the game must still be
    /// active; `change` gets the loaded game and the caller's seat.
    async fn seated_change<F>(
        &self,
        game_id: &str,
        player_id: &str,
        mut change: F,
    ) -> Result<pb::ApplyActionResponse, ServiceError>
    where
        F: FnMut(&mut Loaded, usize) -> Result<pb::game_event::Kind, ServiceError>,
    {
        validate_id("player_id", player_id)?;
        let event = self
            .server_change(game_id, |loaded| {
                let seat = loaded.require_seat(player_id)?;
                loaded.require_active()?;
                change(loaded, seat).map(Some)
            })
            .await?;
        Ok(pb::ApplyActionResponse {
            event,
            duplicate: false,
        })
    }

    /// Applies a server-side change (not bound to the caller's seq) with retries on a lost
    /// compare-and-set. `change` returns `None` when there is nothing to do.
    async fn server_change<F>(
        &self,
        game_id: &str,
        mut change: F,
    ) -> Result<Option<pb::GameEvent>, ServiceError>
    where
        F: FnMut(&mut Loaded) -> Result<Option<pb::game_event::Kind>, ServiceError>,
    {
        for _ in 0..SERVER_RETRIES {
            let mut loaded = self.load(game_id).await?;
            let previous_turn = loaded.record.turn_seq;
            let Some(kind) = change(&mut loaded)? else {
                return Ok(None);
            };
            match &kind {
                pb::game_event::Kind::DrawOffered(offer) => {
                    loaded.record.draw_offer =
                        Some(usize::try_from(offer.seat).unwrap_or(usize::MAX));
                }
                // Coming and going withdraws no draw offer.
                pb::game_event::Kind::PlayerDisconnected(_)
                | pb::game_event::Kind::PlayerReconnected(_)
                | pb::game_event::Kind::AbsenceChoiceOffered(_) => {}
                _ => loaded.record.draw_offer = None,
            }
            let moved = matches!(
                kind,
                pb::game_event::Kind::TurnTimedOut(_)
                    | pb::game_event::Kind::Resigned(_)
                    | pb::game_event::Kind::TakenBack(_)
                    | pb::game_event::Kind::ActionApplied(_)
            ) || loaded.game.outcome().is_some();
            if moved {
                self.start_turn_clock(&mut loaded);
            }
            match self.commit(loaded, None, kind, previous_turn, None).await? {
                Ok(event) => return Ok(Some(event)),
                Err(CommitOutcome::StaleSeq { .. }) => continue,
                Err(CommitOutcome::NotFound) => {
                    return Err(ServiceError::NotFound(format!("no game {game_id}")));
                }
                Err(other) => {
                    return Err(ServiceError::Internal(format!(
                        "unexpected commit outcome {other:?}"
                    )));
                }
            }
        }
        Err(ServiceError::Aborted(format!(
            "game {game_id} changed too often; try again"
        )))
    }
}

fn reply<T>(result: Result<T, ServiceError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
}

#[tonic::async_trait]
impl GameState for GameStateService {
    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn create_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        // Runs to its end on its own task even if the caller goes away mid-call (tonic drops
        // a handler whose client vanished): a matchmaking replica killed while its CreateGame
        // was in flight left a created game unlisted and out of its players' ListMyGames,
        // with nobody to retry (found by the 10,000-ticket scenario).
        let service = self.clone();
        let request = request.into_inner();
        let task = tokio::spawn(
            async move { GameStateService::create_game(&service, request).await }.in_current_span(),
        );
        reply(match task.await {
            Ok(created) => created,
            Err(e) => Err(ServiceError::Internal(format!(
                "the create task failed: {e}"
            ))),
        })
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn get_snapshot(
        &self,
        request: Request<pb::GetSnapshotRequest>,
    ) -> Result<Response<pb::GameSnapshot>, Status> {
        reply(GameStateService::get_snapshot(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn apply_action(
        &self,
        request: Request<pb::ApplyActionRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        reply(GameStateService::apply_action(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn resign(
        &self,
        request: Request<pb::PlayerRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        reply(GameStateService::resign(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn offer_draw(
        &self,
        request: Request<pb::PlayerRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        reply(GameStateService::offer_draw(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn respond_draw(
        &self,
        request: Request<pb::RespondDrawInternalRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        reply(GameStateService::respond_draw(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn expire_turn(
        &self,
        request: Request<pb::ExpireTurnRequest>,
    ) -> Result<Response<pb::ExpireTurnResponse>, Status> {
        reply(GameStateService::expire_turn(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn update_presence(
        &self,
        request: Request<pb::UpdatePresenceRequest>,
    ) -> Result<Response<pb::UpdatePresenceResponse>, Status> {
        reply(GameStateService::update_presence(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn expire_absence(
        &self,
        request: Request<pb::ExpireAbsenceRequest>,
    ) -> Result<Response<pb::ExpireTurnResponse>, Status> {
        reply(GameStateService::expire_absence(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn report_outcome(
        &self,
        request: Request<pb::ReportOutcomeRequest>,
    ) -> Result<Response<pb::ReportOutcomeResponse>, Status> {
        let request = request.into_inner();
        reply(
            GameStateService::report_outcome(
                self,
                &request.game_id,
                request.finishing_seq,
                request.armed_unix_ms,
            )
            .await,
        )
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn read_events(
        &self,
        request: Request<pb::ReadEventsRequest>,
    ) -> Result<Response<pb::ReadEventsResponse>, Status> {
        reply(GameStateService::read_events(self, request.into_inner()).await)
    }

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        reply(GameStateService::list_games(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn get_bot_turn(
        &self,
        request: Request<pb::GetBotTurnRequest>,
    ) -> Result<Response<pb::BotTurn>, Status> {
        reply(GameStateService::get_bot_turn(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn take_back(
        &self,
        request: Request<pb::PlayerRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        reply(GameStateService::take_back(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn answer_absence(
        &self,
        request: Request<pb::AnswerAbsenceInternalRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        reply(GameStateService::answer_absence(self, request.into_inner()).await)
    }

    #[tracing::instrument(skip_all)]
    async fn analyze_mancala(
        &self,
        request: Request<pb::AnalyzeMancalaInternalRequest>,
    ) -> Result<Response<pb::AnalyzeMancalaResponse>, Status> {
        reply(GameStateService::analyze_mancala(self, request.into_inner()).await)
    }
}
