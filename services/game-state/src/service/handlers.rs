//! The RPCs that create games, play them and read them, and the outcome report (draws,
//! presence, turns and the analysis have their own files).

use ludus_catalog::{outcome_to_pb, seat_u32};
use ludus_proto::codec::EncodedEvent;
use ludus_proto::pb;
use ludus_rules::Viewer;
use ludus_store::{GameRead, TimerWrites};
use prost::Message;

use super::base::GameStateService;
use super::commit::CommitError;
use super::computer::seat_levels;
use super::random::random_for;
use crate::error::ServiceError;
use crate::model::{LiveRecord, Loaded, validate_id};

/// Most events one ReadEvents call returns.
pub const MAX_EVENTS_PAGE: u32 = 500;

/// Most events archived with one game: far beyond any game's length (Caro's 225 cells,
/// Mancala's M9 limit), a bound on one archive record rather than a rule.
const ARCHIVED_EVENTS_LIMIT: usize = 100_000;

/// How long after arming an outcome timer its finishing commit may still land: a commit takes
/// milliseconds, a minute covers a loaded store and the timer's own retries.
pub const FINISHING_COMMIT_PATIENCE_MS: i64 = 60_000;

/// An applied action's answer and, when this call committed the action, its event as
/// encoded for the log: handed to a caller in the same process (the gateway sends those bytes
/// in its own answer instead of encoding the event again; `ludus_proto::codec`).
#[derive(Debug)]
pub struct ActionAnswer {
    pub response: pb::ApplyActionResponse,
    pub encoded: Option<EncodedEvent>,
}

impl From<pb::ApplyActionResponse> for ActionAnswer {
    fn from(response: pb::ApplyActionResponse) -> Self {
        ActionAnswer {
            response,
            encoded: None,
        }
    }
}

impl GameStateService {
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
        let levels = seat_levels(&request.players)?;
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
            // A retry whose first attempt wrote the game but lost its answer (a store reply
            // past the timeout, a killed replica) before listing it and indexing its players
            // finishes those steps, both idempotent: else the game was missing from every
            // player's ListMyGames for good (the 10,000-ticket scenario of tests/tests/faults.rs).
            if loaded.game.outcome().is_none() {
                self.list_live(&loaded).await?;
            }
            return Ok(pb::CreateGameResponse {
                game: Some(self.snapshot(&loaded, "", false)),
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
            None => {
                ludus_catalog::setup(&settings, request.players.len(), &mut random_for(&game_id))?
            }
        };
        let kind = game.kind();
        let started = pb::GameStarted {
            settings: Some(settings),
            seats: request
                .players
                .iter()
                .enumerate()
                .zip(levels)
                .map(|((seat, player), computer_level)| pb::SeatInfo {
                    seat: seat_u32(seat),
                    player_id: player.player_id.clone(),
                    display_name: player.display_name.clone(),
                    computer_level,
                })
                .collect(),
            casual: request.casual,
            room_code: request.room_code.clone(),
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
                game: serde_json::value::RawValue::NULL.to_owned(),
                away: Vec::new(),
                undo: Vec::new(),
            },
            game,
            timers: TimerWrites::default(),
        };
        self.start_turn_clock(&mut loaded);
        // The create script writes no timers: the first turn's are armed first (a timer of a
        // game that was not created fires into nothing).
        self.timers.write(&loaded.timers).await?;
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
                casual: started.casual,
                room_code: started.room_code,
            }))
            .await;
        }
        self.list_live(&loaded).await?;
        loaded.seq = 1;
        tracing::info!(game_id = %game_id, ruleset = %loaded.game.ruleset(), "game created");
        Ok(pb::CreateGameResponse {
            game: Some(self.snapshot(&loaded, "", false)),
            created: true,
        })
    }

    /// Lists a new game among the live ones and indexes it under each of its players (both
    /// idempotent).
    async fn list_live(&self, loaded: &Loaded) -> Result<(), ServiceError> {
        self.store
            .mark_live(&loaded.game_id, u64::try_from(self.now_ms()).unwrap_or(0))
            .await?;
        self.store
            .seat_players(&loaded.game_id, &loaded.player_ids(), true)
            .await?;
        Ok(())
    }

    /// `ApplyAction`'s answer.
    pub async fn apply_action(
        &self,
        request: pb::ApplyActionRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        Ok(self.answer_action(request).await?.response)
    }

    /// [`Self::apply_action`], with the event as encoded for the log when this call committed
    /// it (what the gRPC handler answers with).
    pub async fn answer_action(
        &self,
        request: pb::ApplyActionRequest,
    ) -> Result<ActionAnswer, ServiceError> {
        validate_id("player_id", &request.player_id)?;
        validate_id("action_id", &request.action_id)?;
        let action = request
            .action
            .as_ref()
            .ok_or_else(|| ServiceError::InvalidArgument("action: required".into()))?;
        validate_id("game_id", &request.game_id)?;
        // Action ids are the client's idempotency keys, so they are unique per player, not per
        // game: O reusing X's `m1` is a new action of O's, not a retry of X's. `:` is not an id
        // character, so the key cannot collide.
        let action_key = format!("{}:{}", request.player_id, request.action_id);
        // The fast path: this replica holds the game at the seq the client expects, and the
        // store writes a commit's timers only with the commit. The action is judged on the
        // copy and the commit's compare-and-set on seq and version decides (a retried action
        // id is found by the commit script first, as the read below finds it): one Redis
        // script for the move. A refusal judged on the copy, or a commit that finds the game
        // moved past the copy (it wrote nothing), is judged again below on the store's game.
        if self.store.writes_timers_in_commit()
            && let Some(copy) = self.live.take(&request.game_id, request.expected_seq)
        {
            let mut loaded = copy.loaded;
            if let Ok(seat) = loaded.require_seat(&request.player_id)
                && let Ok(kind) = self.prepare_action(&mut loaded, seat, action, &request.game_id)
            {
                let answer = self
                    .commit_action(loaded, &action_key, kind, Some(&copy.version))
                    .await;
                if !matches!(answer, Err(ServiceError::StaleSeq { .. })) {
                    return answer;
                }
            }
        }

        // One round trip reads whether this action id was seen and the game, unless the copy
        // this replica holds is still current (see `live_cache`).
        let held = self.live.held(&request.game_id);
        let (read, seen) = self
            .store
            .read_for_action(
                &request.game_id,
                &action_key,
                held.as_ref().map(|(seq, version)| (*seq, version.as_str())),
            )
            .await?;
        let copy = match read {
            GameRead::Unchanged { seq } => self.live.take(&request.game_id, seq),
            GameRead::Record { .. } | GameRead::Missing => {
                self.live.forget(&request.game_id);
                None
            }
        };
        // The game, and the version the commit must still find (none: compare the seq only).
        let (mut loaded, version) = match (copy, read) {
            (Some(copy), _) => (copy.loaded, Some(copy.version)),
            (None, GameRead::Record { record, version }) => (
                Loaded::decode(&request.game_id, record.seq, &record.meta, &record.state)?,
                version,
            ),
            // Taken by a concurrent action on this replica between the read and now: read it
            // whole.
            (None, GameRead::Unchanged { .. }) => (self.load(&request.game_id).await?, None),
            (None, GameRead::Missing) => {
                return Err(ServiceError::NotFound(format!(
                    "no game {}",
                    request.game_id
                )));
            }
        };
        let seat = loaded.require_seat(&request.player_id)?;

        // A retried action gets its first result, whatever happened since: with a replica
        // wait, once a replica has it (the first answer may have been UNAVAILABLE for want of
        // one; see `ludus_store::ReplicaWait`).
        if let Some(seq) = seen {
            let seq = self
                .store
                .confirm_action(&request.game_id, &action_key, seq)
                .await?;
            return Ok(pb::ApplyActionResponse {
                event: Some(self.original_event(&request.game_id, seq).await?),
                duplicate: true,
            }
            .into());
        }
        if request.expected_seq != loaded.seq {
            return Err(ServiceError::StaleSeq {
                expected: request.expected_seq,
                game_id: loaded.game_id,
                current: loaded.seq,
            });
        }
        let kind = self.prepare_action(&mut loaded, seat, action, &request.game_id)?;
        self.commit_action(loaded, &action_key, kind, version.as_deref())
            .await
    }

    /// Applies `seat`'s `action` to `loaded` (no I/O): the game must be active and the rules
    /// must accept it. Returns the event's kind (its commit starts the next turn's clock). A
    /// refusal leaves `loaded` to be dropped.
    fn prepare_action(
        &self,
        loaded: &mut Loaded,
        seat: usize,
        action: &pb::Action,
        game_id: &str,
    ) -> Result<pb::game_event::Kind, ServiceError> {
        loaded.require_active()?;
        loaded.remember_for_take_back(seat)?;
        let applied = loaded.game.apply(seat, action, &mut random_for(game_id))?;
        loaded.record.draw_offer = None;
        // A player who acts is back, stream or not (C13): their grace timer becomes stale.
        loaded.record.away.retain(|away| away.seat != seat);
        Ok(pb::game_event::Kind::ActionApplied(pb::ActionApplied {
            seat: seat_u32(seat),
            action: Some(applied.action),
            notation: applied.notation,
            automatic: false,
        }))
    }

    /// Commits a player's action prepared on `loaded` (the event's kind), on the game's seq
    /// (the request's `expected_seq`) and, when known, the version `loaded` was read at;
    /// answers the request with what the store decided: the new event, the original event of
    /// a retried action id, or ABORTED with the game's seq.
    async fn commit_action(
        &self,
        loaded: Loaded,
        action_key: &str,
        kind: pb::game_event::Kind,
        version: Option<&str>,
    ) -> Result<ActionAnswer, ServiceError> {
        let game_id = loaded.game_id.clone();
        match self.commit(loaded, Some(action_key), kind, version).await {
            Ok((event, encoded)) => Ok(ActionAnswer {
                response: pb::ApplyActionResponse {
                    event: Some(event),
                    duplicate: false,
                },
                encoded: Some(encoded),
            }),
            Err(CommitError::DuplicateAction { seq }) => Ok(pb::ApplyActionResponse {
                event: Some(self.original_event(&game_id, seq).await?),
                duplicate: true,
            }
            .into()),
            Err(refused) => Err(refused.into()),
        }
    }

    async fn original_event(&self, game_id: &str, seq: u64) -> Result<pb::GameEvent, ServiceError> {
        let stored = self.store.event(game_id, seq).await?.ok_or_else(|| {
            ServiceError::Internal(format!("event {seq} of game {game_id} is missing"))
        })?;
        pb::GameEvent::decode(stored.payload.as_slice())
            .map_err(|e| ServiceError::Internal(format!("stored event is unreadable: {e}")))
    }

    pub async fn resign(
        &self,
        request: pb::PlayerRequest,
    ) -> Result<pb::ApplyActionResponse, ServiceError> {
        self.seated_change(&request.game_id, &request.player_id, |loaded, seat| {
            loaded.game.resign(seat);
            Ok(pb::game_event::Kind::Resigned(pb::PlayerResigned {
                seat: seat_u32(seat),
            }))
        })
        .await
    }

    /// Archives a finished game, then reports it to ratings. `finishing_seq` is the seq of
    /// the commit that finishes it (0: unknown). The outcome timer is armed just before that
    /// commit and may fire first: while the game is below that seq the answer is ABORTED, so
    /// the timer fires again instead of being dropped (which would lose the game's rating and
    /// archive); once the game is at or past it unfinished, the commit lost and the refusal
    /// is final (a later finishing commit arms its own timer). So is a finishing commit still
    /// missing [`FINISHING_COMMIT_PATIENCE_MS`] after the timer was armed (`armed_ms`): it
    /// failed, and an untimed game nobody plays would otherwise keep the timer firing forever.
    pub async fn report_outcome(
        &self,
        game_id: &str,
        finishing_seq: u64,
        armed_ms: i64,
    ) -> Result<pb::ReportOutcomeResponse, ServiceError> {
        validate_id("game_id", game_id)?;
        // Game ends are prepared a few at a time (`crate::ends::PREPARED_AT_ONCE`): a burst
        // of them waits here rather than crowding the moves.
        let preparing = self
            .preparing_ends
            .acquire()
            .await
            .map_err(|_| ServiceError::Unavailable("game-state is shutting down".into()))?;
        // The game and its event log (for the archive record) are read together: a timer
        // fires for a finished game, so the log is almost never read in vain.
        let events = async {
            match &self.archiver {
                Some(_) => self
                    .store
                    .events_after(game_id, 0, ARCHIVED_EVENTS_LIMIT)
                    .await
                    .map_err(ServiceError::from),
                None => Ok(Vec::new()),
            }
        };
        let (loaded, stored) = tokio::try_join!(self.load(game_id), events)?;
        let Some(outcome) = loaded.game.outcome() else {
            let may_still_land =
                self.now_ms().saturating_sub(armed_ms) < FINISHING_COMMIT_PATIENCE_MS;
            if loaded.seq < finishing_seq && may_still_land {
                return Err(ServiceError::Aborted(format!(
                    "game {game_id} is at seq {}: its finishing commit (seq {finishing_seq}) has \
                     not landed yet; report again",
                    loaded.seq
                )));
            }
            return Err(ServiceError::FailedPrecondition(format!(
                "game {game_id} is still being played"
            )));
        };
        // The archive first: until it acknowledges, this call fails, the timer fires again
        // and the game's keys keep their long pre-archive expiry. Both writes go with the
        // batch of game ends this one joins (see `crate::ends`).
        let archived = match &self.archiver {
            Some(_) => {
                let snapshot = self.snapshot(&loaded, "", false);
                let events: Vec<&[u8]> = stored.iter().map(|e| e.payload.as_slice()).collect();
                Some(
                    crate::archive::encoded_record(&loaded.started, &events, snapshot).map_err(
                        |e| ServiceError::Internal(format!("stored event is unreadable: {e}")),
                    )?,
                )
            }
            None => None,
        };
        // M12: casual games are played by the same rules but rate nobody.
        let rating = (!loaded.started.casual).then(|| {
            crate::ratings::result_request(
                game_id,
                &loaded.game.ruleset(),
                &loaded.started.seats,
                &outcome,
            )
        });
        drop(preparing);
        let newly_recorded = self
            .ends
            .write(
                crate::ends::GameEnd { archived, rating },
                self.archiver.as_ref(),
                &self.reporter,
            )
            .await?;
        // The finishing move updated the players' index too, unless its handler was dropped
        // after the commit (a caller gone): the index keeps only unfinished games
        // (idempotent). It goes along with telling the room; the live keys' expiry waits for
        // both.
        let unseat = async {
            self.store
                .seat_players(game_id, &loaded.player_ids(), false)
                .await
                .map_err(ServiceError::from)
        };
        tokio::try_join!(self.tell_room(game_id, &loaded.started, &outcome), unseat)?;
        if self.archiver.is_some() {
            // Archived and rated: the live keys may now go after the normal retention.
            let now = u64::try_from(self.now_ms()).unwrap_or(0);
            self.store.finish(game_id, now, self.retention).await?;
        }
        Ok(pb::ReportOutcomeResponse { newly_recorded })
    }

    /// Tells the room that started the game how it ended (ARCHITECTURE.md, "Rooms"). A failure fails the
    /// report, so the outcome timer fires again; a room that no longer exists (expired) is
    /// only logged.
    async fn tell_room(
        &self,
        game_id: &str,
        started: &pb::GameStarted,
        outcome: &ludus_rules::Outcome,
    ) -> Result<(), ServiceError> {
        let Some(rooms) = &self.rooms else {
            return Ok(());
        };
        if started.room_code.is_empty() {
            return Ok(());
        }
        let told = rooms
            .clone()
            .room_game_finished(pb::RoomGameFinishedRequest {
                code: started.room_code.clone(),
                game_id: game_id.to_owned(),
                outcome: Some(outcome_to_pb(outcome)),
            })
            .await;
        match told {
            Ok(_) => Ok(()),
            Err(status) if status.code() == tonic::Code::NotFound => {
                tracing::info!(game_id, room = %started.room_code, "the game's room is gone");
                Ok(())
            }
            // A permanent refusal would get the same answer every time the timer fires:
            // logged, and the report goes on (the game's result is in the archive).
            Err(status)
                if matches!(
                    status.code(),
                    tonic::Code::InvalidArgument | tonic::Code::FailedPrecondition
                ) =>
            {
                tracing::error!(game_id, room = %started.room_code, message = status.message(), "the room refused the game's result");
                Ok(())
            }
            Err(status) => Err(ServiceError::Unavailable(format!(
                "rooms did not take the result: {}",
                status.message()
            ))),
        }
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
            more: events.len() >= limit as usize,
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
                games.push(self.snapshot(&loaded, &request.player_id, false));
            }
        }
        Ok(pb::ListGamesResponse { games })
    }

    /// The game as `viewer_player_id` may see it (a spectator's view unless they sit in it),
    /// with their legal actions on their turn; without the position (`view` and
    /// `legal_actions`, most of a snapshot's cost) when `omit_position`.
    fn snapshot(
        &self,
        loaded: &Loaded,
        viewer_player_id: &str,
        omit_position: bool,
    ) -> pb::GameSnapshot {
        let your_seat = loaded.seat_of(viewer_player_id);
        let viewer = your_seat.map_or(Viewer::Spectator, Viewer::Seat);
        let legal_actions = match your_seat {
            Some(seat) if !omit_position && loaded.game.to_move() == Some(seat) => {
                loaded.game.legal_actions(seat)
            }
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
            view: (!omit_position).then(|| loaded.game.view(viewer)),
            your_seat: your_seat.map(seat_u32),
            legal_actions,
            draw_offered_by: loaded.record.draw_offer.map(seat_u32),
            outcome: loaded.game.outcome().as_ref().map(outcome_to_pb),
            disconnected: loaded.disconnected(),
        }
    }

    pub async fn get_snapshot(
        &self,
        request: pb::GetSnapshotRequest,
    ) -> Result<pb::GameSnapshot, ServiceError> {
        let loaded = self.load(&request.game_id).await?;
        Ok(self.snapshot(&loaded, &request.viewer_player_id, request.omit_position))
    }
}
