//! The GameState gRPC service: live games, their clocks and their event logs.

use std::time::{SystemTime, UNIX_EPOCH};

use ludus_proto::pb::{self, game_state_server::GameState, timers_client::TimersClient};
use ludus_rules::{RandomSource, Viewer};
use ludus_store::{Commit, CommitOutcome, GameStore};
use ludus_telemetry::Traced;
use prost::Message;
use rand::RngExt;
use tonic::{Request, Response, Status};

use crate::engine;
use crate::error::ServiceError;
use crate::model::{Away, LiveRecord, Loaded, outcome_to_pb, seat_u32, validate_id};
use crate::ratings::OutcomeReporter;

/// How many times a server-side change (timeout, resignation) retries a lost compare-and-set
/// before giving up with ABORTED.
const SERVER_RETRIES: usize = 5;

/// Most events one ReadEvents call returns.
pub const MAX_EVENTS_PAGE: u32 = 500;

/// How soon the server plays for a seat on autoplay (Junqi J19) once its turn starts: prompt,
/// yet long enough for clients to show the action before the next one, and for the player to
/// take back the turn by acting first.
pub const AUTOPLAY_DELAY_MS: u64 = 1_000;

/// Randomness for the rules: the thread-local CSPRNG (ChaCha12, reseeded from the OS).
struct Csprng(rand::rngs::ThreadRng);

impl RandomSource for Csprng {
    fn below(&mut self, bound: u32) -> u32 {
        self.0.random_range(0..bound.max(1))
    }
}

fn csprng() -> Csprng {
    Csprng(rand::rng())
}

/// Randomness for one change to `game_id`: the CSPRNG. A test build (`test-seams`) first
/// uses values a test scripted for that game (`test_seams::script_random`).
struct GameRandom<'a> {
    #[cfg_attr(not(feature = "test-seams"), allow(dead_code))]
    game_id: &'a str,
    csprng: Csprng,
}

impl RandomSource for GameRandom<'_> {
    fn below(&mut self, bound: u32) -> u32 {
        #[cfg(feature = "test-seams")]
        if let Some(value) = crate::test_seams::scripted_value(self.game_id) {
            return value % bound.max(1);
        }
        self.csprng.below(bound)
    }
}

fn random_for(game_id: &str) -> GameRandom<'_> {
    GameRandom {
        game_id,
        csprng: csprng(),
    }
}

/// Wall-clock Unix milliseconds: deadlines are absolute so every replica agrees on them.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The game-state service.
#[derive(Clone, Debug)]
pub struct GameStateService {
    store: GameStore,
    timers: TimersClient<Traced>,
    reporter: OutcomeReporter,
    /// How long a disconnected player has to come back in a game with a disconnection rule
    /// (C13: one minute).
    absence_grace_ms: u64,
    /// How long a finished game's keys are kept.
    retention: std::time::Duration,
}

/// The key of a turn timer: one per turn, so a stale timer can never replace a live one.
fn turn_timer_key(game_id: &str, turn_seq: u64) -> String {
    format!("turn/{game_id}/{turn_seq}")
}

fn outcome_timer_key(game_id: &str) -> String {
    format!("outcome/{game_id}")
}

/// The key of a disconnected seat's grace timer: one per disconnection.
fn absence_timer_key(game_id: &str, seat: usize, token: &str) -> String {
    format!("absence/{game_id}/{seat}/{token}")
}

impl GameStateService {
    pub fn new(
        store: GameStore,
        timers: TimersClient<Traced>,
        reporter: OutcomeReporter,
        absence_grace_ms: u64,
    ) -> Self {
        GameStateService {
            store,
            timers,
            reporter,
            absence_grace_ms,
            retention: crate::DEFAULT_FINISHED_GAME_RETENTION,
        }
    }

    /// How long finished games stay readable before their keys expire.
    pub fn finished_game_retention(mut self, retention: std::time::Duration) -> Self {
        self.retention = retention;
        self
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
            at_unix_ms: now_ms(),
            kind: Some(kind),
            view: Some(loaded.game.view(Viewer::Spectator)),
            turn: Some(loaded.turn_info()),
            status: loaded.status() as i32,
            outcome: loaded.game.outcome().as_ref().map(outcome_to_pb),
        }
    }

    /// Starts the next turn's clock when the game goes on and is timed. Arms its timer
    /// before anything is committed, so a committed turn always has a timer; a timer for a
    /// turn that never got committed fires into a stale turn_seq and is ignored. When the
    /// seat to move is on autoplay (Junqi J19) the timer is due after [`AUTOPLAY_DELAY_MS`]
    /// and its expiry plays for the seat.
    async fn start_turn_clock(&self, loaded: &mut Loaded) -> Result<(), ServiceError> {
        loaded.record.turn_seq += 1;
        let autoplay = loaded.game.outcome().is_none() && loaded.game.autoplay_due();
        let turn_time = if autoplay {
            AUTOPLAY_DELAY_MS
        } else {
            loaded.turn_time_ms()
        };
        if loaded.game.outcome().is_some() || turn_time == 0 {
            loaded.record.deadline_ms = 0;
            return Ok(());
        }
        let due = now_ms().saturating_add(i64::try_from(turn_time).unwrap_or(i64::MAX));
        loaded.record.deadline_ms = due;
        let request = pb::ArmTimerRequest {
            key: turn_timer_key(&loaded.game_id, loaded.record.turn_seq),
            due_unix_ms: due,
            action: Some(pb::TimerAction {
                action: Some(pb::timer_action::Action::ExpireTurn(pb::ExpireTurnTimer {
                    game_id: loaded.game_id.clone(),
                    turn_seq: loaded.record.turn_seq,
                })),
            }),
        };
        self.timers.clone().arm(request).await?;
        Ok(())
    }

    /// When a change finishes the game, the outcome report is armed as a timer due at once,
    /// before the commit: ratings hear of every finished game at least once.
    async fn arm_outcome_report(&self, loaded: &Loaded) -> Result<(), ServiceError> {
        if loaded.game.outcome().is_none() {
            return Ok(());
        }
        let request = pb::ArmTimerRequest {
            key: outcome_timer_key(&loaded.game_id),
            due_unix_ms: now_ms(),
            action: Some(pb::TimerAction {
                action: Some(pb::timer_action::Action::ReportOutcome(
                    pb::ReportOutcomeTimer {
                        game_id: loaded.game_id.clone(),
                    },
                )),
            }),
        };
        self.timers.clone().arm(request).await?;
        Ok(())
    }

    /// Commits the change made to `loaded` as event `kind`: state, event and clock in one
    /// atomic compare-and-set on `loaded.seq`.
    async fn commit(
        &self,
        mut loaded: Loaded,
        action_id: Option<&str>,
        kind: pb::game_event::Kind,
        previous_turn_seq: u64,
    ) -> Result<Result<pb::GameEvent, CommitOutcome>, ServiceError> {
        let turn_changed = loaded.record.turn_seq != previous_turn_seq;
        self.arm_outcome_report(&loaded).await?;
        let seq = loaded.seq + 1;
        let event = self.event(&loaded, seq, kind);
        let state = loaded.save()?;
        let outcome = self
            .store
            .commit(
                &loaded.game_id,
                Commit {
                    expected_seq: loaded.seq,
                    action_id,
                    state: &state,
                    event: &event.encode_to_vec(),
                },
            )
            .await?;
        match outcome {
            CommitOutcome::Committed { .. } => {
                crate::metrics::committed(loaded.record.kind, &event);
                if turn_changed {
                    // The old turn's timer would fire into a stale turn_seq and be ignored;
                    // cancelling it only saves that round trip.
                    let mut timers = self.timers.clone();
                    let key = turn_timer_key(&loaded.game_id, previous_turn_seq);
                    tokio::spawn(async move {
                        let _ = timers.cancel(pb::CancelTimerRequest { key }).await;
                    });
                }
                if loaded.game.outcome().is_some() {
                    let now = u64::try_from(now_ms()).unwrap_or(0);
                    self.store
                        .finish(&loaded.game_id, now, self.retention)
                        .await?;
                    self.store
                        .seat_players(&loaded.game_id, &loaded.player_ids(), false)
                        .await?;
                }
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

    pub async fn create_game(
        &self,
        request: pb::CreateGameRequest,
    ) -> Result<pb::CreateGameResponse, ServiceError> {
        let game_id = if request.game_id.is_empty() {
            ulid::Ulid::generate().to_string()
        } else {
            validate_id("game_id", &request.game_id)?;
            request.game_id.clone()
        };
        let settings = request
            .settings
            .ok_or_else(|| ServiceError::InvalidArgument("settings: required".into()))?;
        for (i, player) in request.players.iter().enumerate() {
            validate_id(&format!("players[{i}].player_id"), &player.player_id)?;
            let name_field = format!("players[{i}].display_name");
            ludus_proto::ids::validate_display_name(&name_field, &player.display_name)?;
            if request.players[..i]
                .iter()
                .any(|other| other.player_id == player.player_id)
            {
                return Err(ServiceError::InvalidArgument(format!(
                    "players[{i}]: {} is seated twice",
                    player.player_id
                )));
            }
        }
        if let Some(existing) = self.store.load(&game_id).await? {
            let loaded = Loaded::decode(&game_id, existing.seq, &existing.meta, &existing.state)?;
            let same_players = loaded
                .started
                .seats
                .iter()
                .map(|s| &s.player_id)
                .eq(request.players.iter().map(|p| &p.player_id));
            if !same_players {
                return Err(ServiceError::AlreadyExists(format!(
                    "game {game_id} exists with other players"
                )));
            }
            return Ok(pb::CreateGameResponse {
                game: Some(self.snapshot(&loaded, "")),
                created: false,
            });
        }

        // A test build may start the game from a preset position (see `test_seams`); the
        // default build always deals with the CSPRNG.
        #[cfg(feature = "test-seams")]
        let preset = crate::test_seams::take(&game_id, &settings, request.players.len())?;
        #[cfg(not(feature = "test-seams"))]
        let preset = None;
        let game = match preset {
            Some(game) => game,
            None => engine::setup(&settings, request.players.len(), &mut random_for(&game_id))?,
        };
        let kind = game.kind();
        let started = pb::GameStarted {
            settings: Some(settings),
            seats: request
                .players
                .iter()
                .enumerate()
                .map(|(seat, player)| pb::SeatInfo {
                    seat: seat_u32(seat),
                    player_id: player.player_id.clone(),
                    display_name: player.display_name.clone(),
                })
                .collect(),
        };
        let mut loaded = Loaded {
            game_id: game_id.clone(),
            seq: 0,
            started: started.clone(),
            record: LiveRecord {
                kind,
                turn_seq: 0,
                deadline_ms: 0,
                draw_offer: None,
                game: serde_json::Value::Null,
                away: Vec::new(),
            },
            game,
        };
        self.start_turn_clock(&mut loaded).await?;
        let event = self.event(&loaded, 1, pb::game_event::Kind::Started(started.clone()));
        let state = loaded.save()?;
        let created = self
            .store
            .create(
                &game_id,
                &started.encode_to_vec(),
                &state,
                &event.encode_to_vec(),
            )
            .await?;
        if !created {
            // Lost a race with an identical create: answer with the winner's game.
            return Box::pin(self.create_game(pb::CreateGameRequest {
                game_id,
                settings: started.settings,
                players: request.players,
            }))
            .await;
        }
        self.store
            .mark_live(&game_id, u64::try_from(now_ms()).unwrap_or(0))
            .await?;
        self.store
            .seat_players(&game_id, &loaded.player_ids(), true)
            .await?;
        loaded.seq = 1;
        tracing::info!(game_id = %game_id, ruleset = %loaded.game.ruleset(), "game created");
        Ok(pb::CreateGameResponse {
            game: Some(self.snapshot(&loaded, "")),
            created: true,
        })
    }

    pub async fn apply_action(
        &self,
        request: pb::ApplyActionRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        validate_id("action_id", &request.action_id)?;
        let action = request
            .action
            .as_ref()
            .ok_or_else(|| ServiceError::InvalidArgument("action: required".into()))?;
        validate_id("game_id", &request.game_id)?;
        // One round trip reads the game and whether this action id was seen.
        let (record, seen) = self
            .store
            .load_for_action(&request.game_id, &request.action_id)
            .await?;
        let record =
            record.ok_or_else(|| ServiceError::NotFound(format!("no game {}", request.game_id)))?;
        let mut loaded = Loaded::decode(&request.game_id, record.seq, &record.meta, &record.state)?;
        let seat = loaded.require_seat(&request.player_id)?;

        // A retried action gets its first result, whatever happened since.
        if let Some(seq) = seen {
            return Ok(pb::ApplyActionResponse {
                event: Some(self.original_event(&request.game_id, seq).await?),
                duplicate: true,
            });
        }
        if request.expected_seq != loaded.seq {
            return Err(ServiceError::Aborted(format!(
                "stale expected_seq {}: game {} is at seq {}; read it again",
                request.expected_seq, loaded.game_id, loaded.seq
            )));
        }
        loaded.require_active()?;

        let applied = loaded
            .game
            .apply(seat, action, &mut random_for(&request.game_id))?;
        loaded.record.draw_offer = None;
        // A player who acts is back, stream or not (C13): their grace timer becomes stale.
        loaded.record.away.retain(|away| away.seat != seat);
        let previous_turn = loaded.record.turn_seq;
        self.start_turn_clock(&mut loaded).await?;
        let kind = pb::game_event::Kind::ActionApplied(pb::ActionApplied {
            seat: seat_u32(seat),
            action: Some(applied.action),
            notation: applied.notation,
            automatic: false,
        });
        let game_id = loaded.game_id.clone();
        match self
            .commit(loaded, Some(&request.action_id), kind, previous_turn)
            .await?
        {
            Ok(event) => Ok(pb::ApplyActionResponse {
                event: Some(event),
                duplicate: false,
            }),
            Err(CommitOutcome::DuplicateAction { seq }) => Ok(pb::ApplyActionResponse {
                event: Some(self.original_event(&game_id, seq).await?),
                duplicate: true,
            }),
            Err(CommitOutcome::StaleSeq { current }) => Err(ServiceError::Aborted(format!(
                "stale expected_seq {}: game {game_id} is at seq {current}; read it again",
                request.expected_seq
            ))),
            Err(CommitOutcome::NotFound) => {
                Err(ServiceError::NotFound(format!("no game {game_id}")))
            }
            Err(CommitOutcome::Committed { .. }) => {
                Err(ServiceError::Internal("commit outcome mismatch".into()))
            }
        }
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
                | pb::game_event::Kind::PlayerReconnected(_) => {}
                _ => loaded.record.draw_offer = None,
            }
            let moved = matches!(
                kind,
                pb::game_event::Kind::TurnTimedOut(_)
                    | pb::game_event::Kind::Resigned(_)
                    | pb::game_event::Kind::ActionApplied(_)
            ) || loaded.game.outcome().is_some();
            if moved {
                self.start_turn_clock(&mut loaded).await?;
            }
            match self.commit(loaded, None, kind, previous_turn).await? {
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

    pub async fn expire_turn(
        &self,
        request: pb::ExpireTurnRequest,
    ) -> Result<pb::ExpireTurnResponse, ServiceError> {
        let event = self
            .server_change(&request.game_id, |loaded| {
                if loaded.record.turn_seq != request.turn_seq || loaded.game.outcome().is_some() {
                    return Ok(None);
                }
                let Some(seat) = loaded.game.to_move() else {
                    return Ok(None);
                };
                // J19: the seat is on autoplay: this was the short timer, not its clock.
                if loaded.game.autoplay_due()
                    && let Some(applied) = loaded.game.play_autoplay(&mut csprng())
                {
                    return Ok(Some(pb::game_event::Kind::ActionApplied(
                        pb::ActionApplied {
                            seat: seat_u32(seat),
                            action: Some(applied.action),
                            notation: applied.notation,
                            automatic: true,
                        },
                    )));
                }
                let effect = loaded.game.timeout(seat, &mut random_for(&request.game_id));
                tracing::info!(game_id = %loaded.game_id, seat, %effect, "turn timed out");
                Ok(Some(pb::game_event::Kind::TurnTimedOut(pb::TurnTimedOut {
                    seat: seat_u32(seat),
                    effect,
                })))
            })
            .await?;
        Ok(pb::ExpireTurnResponse {
            applied: event.is_some(),
            event,
        })
    }

    /// A seated player's event stream opened or closed (see the RPC's docs).
    pub async fn update_presence(
        &self,
        request: pb::UpdatePresenceRequest,
    ) -> Result<pb::UpdatePresenceResponse, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        let loaded = self.load(&request.game_id).await?;
        let Some(seat) = loaded.seat_of(&request.player_id) else {
            return Ok(pb::UpdatePresenceResponse::default());
        };
        if loaded.game.outcome().is_some() {
            return Ok(pb::UpdatePresenceResponse {
                seat: Some(seat_u32(seat)),
                ..Default::default()
            });
        }
        let streams = self
            .store
            .presence(
                &request.game_id,
                seat_u32(seat),
                if request.connected { 1 } else { -1 },
            )
            .await?;
        let away = loaded.record.away.iter().any(|away| away.seat == seat);
        let event = if request.connected && away {
            self.come_back(&request.game_id, seat).await?
        } else if !request.connected && streams == 0 && !away {
            self.leave(&loaded, seat).await?
        } else {
            None
        };
        Ok(pb::UpdatePresenceResponse {
            seat: Some(seat_u32(seat)),
            streams,
            event,
        })
    }

    /// Commits `seat`'s disconnection; in a game with a disconnection rule, first arms the
    /// timer that applies it when the grace runs out.
    async fn leave(
        &self,
        loaded: &Loaded,
        seat: usize,
    ) -> Result<Option<pb::GameEvent>, ServiceError> {
        let game_id = loaded.game_id.clone();
        let token = ulid::Ulid::generate().to_string();
        let return_by = if loaded.game.absence_rule().is_some() {
            now_ms().saturating_add(i64::try_from(self.absence_grace_ms).unwrap_or(i64::MAX))
        } else {
            0
        };
        if return_by > 0 {
            let request = pb::ArmTimerRequest {
                key: absence_timer_key(&game_id, seat, &token),
                due_unix_ms: return_by,
                action: Some(pb::TimerAction {
                    action: Some(pb::timer_action::Action::ExpireAbsence(
                        pb::ExpireAbsenceTimer {
                            game_id: game_id.clone(),
                            seat: seat_u32(seat),
                            token: token.clone(),
                        },
                    )),
                }),
            };
            self.timers.clone().arm(request).await?;
        }
        let event = self
            .server_change(&game_id, |loaded| {
                if loaded.game.outcome().is_some()
                    || loaded.record.away.iter().any(|away| away.seat == seat)
                {
                    return Ok(None);
                }
                loaded.record.away.push(Away {
                    seat,
                    return_by_ms: return_by,
                    token: token.clone(),
                });
                Ok(Some(pb::game_event::Kind::PlayerDisconnected(
                    pb::PlayerDisconnected {
                        seat: seat_u32(seat),
                        return_by_unix_ms: return_by,
                    },
                )))
            })
            .await?;
        // A stream that opened while this was being committed found nobody away: it is
        // the one that brings the player back.
        if event.is_some() && self.store.presence(&game_id, seat_u32(seat), 0).await? > 0 {
            self.come_back(&game_id, seat).await?;
        }
        Ok(event)
    }

    /// Commits `seat`'s return, if they are away, and cancels their grace timer.
    async fn come_back(
        &self,
        game_id: &str,
        seat: usize,
    ) -> Result<Option<pb::GameEvent>, ServiceError> {
        let mut token = None;
        let event = self
            .server_change(game_id, |loaded| {
                let Some(i) = loaded.record.away.iter().position(|away| away.seat == seat) else {
                    return Ok(None);
                };
                if loaded.game.outcome().is_some() {
                    return Ok(None);
                }
                token = Some(loaded.record.away.remove(i).token);
                Ok(Some(pb::game_event::Kind::PlayerReconnected(
                    pb::PlayerReconnected {
                        seat: seat_u32(seat),
                    },
                )))
            })
            .await?;
        if let (Some(_), Some(token)) = (&event, token) {
            // A timer left behind would find the token gone and change nothing; cancelling it
            // only saves that round trip.
            let mut timers = self.timers.clone();
            let key = absence_timer_key(game_id, seat, &token);
            tokio::spawn(async move {
                let _ = timers.cancel(pb::CancelTimerRequest { key }).await;
            });
        }
        Ok(event)
    }

    /// A disconnected seat's grace ran out: the game's disconnection rule applies, unless
    /// the player is back (a stream open, or they acted) or the timer is stale.
    pub async fn expire_absence(
        &self,
        request: pb::ExpireAbsenceRequest,
    ) -> Result<pb::ExpireTurnResponse, ServiceError> {
        let seat = usize::try_from(request.seat).unwrap_or(usize::MAX);
        let is_this_absence = |loaded: &Loaded| {
            loaded.game.outcome().is_none()
                && loaded
                    .record
                    .away
                    .iter()
                    .any(|away| away.seat == seat && away.token == request.token)
        };
        let loaded = self.load(&request.game_id).await?;
        if !is_this_absence(&loaded) {
            return Ok(pb::ExpireTurnResponse::default());
        }
        let event = if self
            .store
            .presence(&request.game_id, request.seat, 0)
            .await?
            > 0
        {
            self.come_back(&request.game_id, seat).await?
        } else {
            self.server_change(&request.game_id, |loaded| {
                if !is_this_absence(loaded) {
                    return Ok(None);
                }
                loaded.record.away.retain(|away| away.seat != seat);
                let effect = loaded.game.abandon(seat);
                tracing::info!(game_id = %loaded.game_id, seat, %effect, "absence expired");
                Ok(Some(pb::game_event::Kind::AbsenceExpired(
                    pb::AbsenceExpired {
                        seat: request.seat,
                        effect,
                    },
                )))
            })
            .await?
        };
        Ok(pb::ExpireTurnResponse {
            applied: event.is_some(),
            event,
        })
    }

    pub async fn resign(
        &self,
        request: pb::PlayerRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        let event = self
            .server_change(&request.game_id, |loaded| {
                let seat = loaded.require_seat(&request.player_id)?;
                loaded.require_active()?;
                loaded.game.resign(seat);
                Ok(Some(pb::game_event::Kind::Resigned(pb::PlayerResigned {
                    seat: seat_u32(seat),
                })))
            })
            .await?;
        Ok(pb::ApplyActionResponse {
            event,
            duplicate: false,
        })
    }

    pub async fn offer_draw(
        &self,
        request: pb::PlayerRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        let event = self
            .server_change(&request.game_id, |loaded| {
                let seat = loaded.require_seat(&request.player_id)?;
                loaded.require_active()?;
                loaded.game.can_agree_draw().map_err(ServiceError::Rule)?;
                if let Some(by) = loaded.record.draw_offer {
                    return Err(ServiceError::FailedPrecondition(if by == seat {
                        "C8: your draw offer is already pending".to_owned()
                    } else {
                        "C8: your opponent already offered a draw: answer it".to_owned()
                    }));
                }
                Ok(Some(pb::game_event::Kind::DrawOffered(pb::DrawOffered {
                    seat: seat_u32(seat),
                })))
            })
            .await?;
        Ok(pb::ApplyActionResponse {
            event,
            duplicate: false,
        })
    }

    pub async fn respond_draw(
        &self,
        request: pb::RespondDrawInternalRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        let event = self
            .server_change(&request.game_id, |loaded| {
                let seat = loaded.require_seat(&request.player_id)?;
                loaded.require_active()?;
                let offered_by = match loaded.record.draw_offer {
                    Some(by) if by != seat => by,
                    Some(_) => {
                        return Err(ServiceError::FailedPrecondition(
                            "C8: you cannot answer your own draw offer".into(),
                        ));
                    }
                    None => {
                        return Err(ServiceError::FailedPrecondition(
                            "C8: there is no draw offer to answer".into(),
                        ));
                    }
                };
                if request.accept {
                    loaded.game.agree_draw().map_err(ServiceError::Rule)?;
                    // The event's message is the offer's: it names who offered.
                    Ok(Some(pb::game_event::Kind::DrawAgreed(pb::DrawOffered {
                        seat: seat_u32(offered_by),
                    })))
                } else {
                    Ok(Some(pb::game_event::Kind::DrawDeclined(pb::DrawDeclined {
                        seat: seat_u32(seat),
                    })))
                }
            })
            .await?;
        Ok(pb::ApplyActionResponse {
            event,
            duplicate: false,
        })
    }

    pub async fn report_outcome(
        &self,
        game_id: &str,
    ) -> Result<pb::ReportOutcomeResponse, ServiceError> {
        let loaded = self.load(game_id).await?;
        let Some(outcome) = loaded.game.outcome() else {
            return Err(ServiceError::FailedPrecondition(format!(
                "game {game_id} is still being played"
            )));
        };
        let newly_recorded = self
            .reporter
            .report(
                game_id,
                &loaded.game.ruleset(),
                &loaded.started.seats,
                &outcome,
            )
            .await?;
        Ok(pb::ReportOutcomeResponse { newly_recorded })
    }

    pub async fn read_events(
        &self,
        request: pb::ReadEventsRequest,
    ) -> Result<pb::ReadEventsResponse, ServiceError> {
        validate_id("game_id", &request.game_id)?;
        let limit = match request.limit {
            0 => MAX_EVENTS_PAGE,
            n => n.min(MAX_EVENTS_PAGE),
        };
        let record = self
            .store
            .load(&request.game_id)
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("no game {}", request.game_id)))?;
        let stored = self
            .store
            .events_after(&request.game_id, request.after_seq, limit as usize)
            .await?;
        let events = stored
            .iter()
            .map(|event| {
                pb::GameEvent::decode(event.payload.as_slice())
                    .map_err(|e| ServiceError::Internal(format!("stored event is unreadable: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(pb::ReadEventsResponse {
            events,
            last_seq: record.seq.max(stored.last().map_or(0, |e| e.seq)),
        })
    }

    /// Live games (spectator snapshots), or the unfinished games `player_id` sits in (their
    /// own snapshots) when it is set.
    pub async fn list_games(
        &self,
        request: pb::ListGamesRequest,
    ) -> Result<pb::ListGamesResponse, ServiceError> {
        let limit = match request.limit {
            0 => 20,
            n => n.min(100),
        } as usize;
        let ids = if request.player_id.is_empty() {
            self.store.live_games(limit).await?
        } else {
            validate_id("player_id", &request.player_id)?;
            self.store.player_games(&request.player_id, limit).await?
        };
        let mut games = Vec::with_capacity(ids.len());
        for id in ids {
            // A game may finish between the listing and the load: skip what is gone.
            if let Ok(loaded) = self.load(&id).await
                && loaded.game.outcome().is_none()
            {
                games.push(self.snapshot(&loaded, &request.player_id));
            }
        }
        Ok(pb::ListGamesResponse { games })
    }

    pub async fn get_snapshot(
        &self,
        request: pb::GetSnapshotRequest,
    ) -> Result<pb::GameSnapshot, ServiceError> {
        let loaded = self.load(&request.game_id).await?;
        Ok(self.snapshot(&loaded, &request.viewer_player_id))
    }

    /// The Kalah solver's values for a game's position or an explicit one. A player seated in
    /// a game still being played gets no engine help against a human.
    pub async fn analyze_mancala(
        &self,
        request: pb::AnalyzeMancalaInternalRequest,
    ) -> Result<pb::AnalyzeMancalaResponse, ServiceError> {
        use crate::games::mancala;
        use pb::analyze_mancala_request::Source;
        let inner = request
            .request
            .ok_or_else(|| ServiceError::InvalidArgument("request: required".into()))?;
        let analysable = match inner.source {
            Some(Source::GameId(game_id)) => {
                let loaded = self.load(&game_id).await?;
                if loaded.game.outcome().is_none() && loaded.seat_of(&request.player_id).is_some() {
                    return Err(ServiceError::PermissionDenied(format!(
                        "you play in game {game_id} and it is still being played: no engine \
                         help against a human; analyse it once it is over"
                    )));
                }
                mancala::position_of_view(&loaded.game.view(Viewer::Spectator))?
            }
            Some(Source::Position(position)) => mancala::position_from_pb(&position)?,
            None => {
                return Err(ServiceError::InvalidArgument(
                    "source: give a game_id or a position".into(),
                ));
            }
        };
        mancala::analyze(analysable, mancala::budget_ms(inner.budget_ms)).await
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
        reply(GameStateService::create_game(self, request.into_inner()).await)
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
        reply(GameStateService::report_outcome(self, &request.into_inner().game_id).await)
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

    #[tracing::instrument(skip_all)]
    async fn analyze_mancala(
        &self,
        request: Request<pb::AnalyzeMancalaInternalRequest>,
    ) -> Result<Response<pb::AnalyzeMancalaResponse>, Status> {
        reply(GameStateService::analyze_mancala(self, request.into_inner()).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_keys_are_per_turn() {
        assert_ne!(turn_timer_key("g", 1), turn_timer_key("g", 2));
        assert_eq!(outcome_timer_key("g"), "outcome/g");
    }
}
