//! The `Rooms` gRPC service: every request loads the room, lets the pure [`Room`] judge and
//! change it, and commits the new state with one event (compare-and-set on the room's seq,
//! retried from a fresh read when another replica committed first).
//!
//! Side effects follow the games' rule "before the commit, never after" where losing them
//! would lose something: a started game is created in game-state before the commit that
//! announces it (its id comes from the room's state, so a retry creates the same game), and
//! a countdown's durable timer is armed before the commit that starts it (a timer whose
//! commit lost fires into a stale countdown id and changes nothing). Resigning a leaver's
//! game and the lobby and expiry bookkeeping come after the commit; they are idempotent.

use std::time::Duration;

use ludus_proto::error_details::{DOMAIN_ROOMS, internal_error, invalid_argument, refusal};
use ludus_proto::pb::{self, game_state_client::GameStateClient, rooms_server::Rooms};
use ludus_rules::RandomSource;
use ludus_server::Traced;
use ludus_store::{Clock, CommitRefusal, Committed, RoomStore, TimerStore};
use prost::Message;
use rand::RngExt;
use tonic::{Code, Request, Response, Status};

use crate::error::RoomError;
use crate::model;
use crate::room::{Change, Room};

/// An empty room expires after this long (ARCHITECTURE.md, "Rooms").
pub const EMPTY_ROOM_TTL: Duration = Duration::from_secs(10 * 60);
/// A member with no room stream and no request for this long leaves the room (a vanished
/// member, a dead gateway): three of the gateway's 20 s stream heartbeats, so two lost ones
/// cost nothing.
pub const PRESENCE_GRACE: Duration = Duration::from_secs(60);
/// Commits retried from a fresh read before a contended request is ABORTED.
const COMMIT_ATTEMPTS: usize = 8;
/// Codes drawn before giving up on creating a room (a live room holds each one drawn).
const CODE_ATTEMPTS: usize = 8;
/// Room events read per page.
const MAX_EVENTS_PAGE: u32 = 500;

/// The thread CSPRNG (ChaCha, OS-seeded): codes, C10's throws, byes and coin tosses.
struct Csprng(rand::rngs::ThreadRng);

impl RandomSource for Csprng {
    fn below(&mut self, bound: u32) -> u32 {
        self.0.random_range(0..bound.max(1))
    }
}

fn csprng() -> Csprng {
    Csprng(rand::rng())
}

/// Why a request failed, beyond the model's own refusals.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error(transparent)]
    Room(#[from] RoomError),
    /// Other replicas kept committing first; the caller may retry.
    #[error("{0}")]
    Aborted(String),
    /// Redis or game-state is down: retryable.
    #[error("{0}")]
    Unavailable(String),
    /// A bug or corrupt data; details are logged, not returned.
    #[error("{0}")]
    Internal(String),
    /// A dependency's own refusal, passed on as it came.
    #[error("{}", .0.message())]
    Upstream(Box<Status>),
}

ludus_store::impl_from_store_error!(ServiceError);

/// The one place a refusal becomes a gRPC status with its `ErrorInfo` (domain `ludus.rooms`;
/// the catalog's refusals keep theirs).
impl From<ServiceError> for Status {
    fn from(error: ServiceError) -> Self {
        use ludus_proto::error_details::reason as common;
        let message = error.to_string();
        let refuse = |code, reason: &str| refusal(code, message.clone(), DOMAIN_ROOMS, reason, &[]);
        match error {
            ServiceError::Room(room) => match room {
                RoomError::Catalog(catalog) => catalog.into(),
                RoomError::NotFound(_) => refuse(Code::NotFound, room.reason()),
                RoomError::Invalid { reason, .. } => {
                    invalid_argument(message, DOMAIN_ROOMS, reason)
                }
                RoomError::Denied { reason, .. } => refuse(Code::PermissionDenied, reason),
                RoomError::Precondition { reason, .. } => refuse(Code::FailedPrecondition, reason),
                RoomError::Exhausted { reason, .. } => refuse(Code::ResourceExhausted, reason),
                RoomError::Exists { reason, .. } => refuse(Code::AlreadyExists, reason),
            },
            ServiceError::Aborted(_) => refuse(Code::Aborted, common::CONTENDED),
            ServiceError::Unavailable(_) => refuse(Code::Unavailable, common::UNAVAILABLE),
            ServiceError::Internal(_) => {
                tracing::error!(error = %message, "internal error");
                internal_error(DOMAIN_ROOMS)
            }
            ServiceError::Upstream(status) => *status,
        }
    }
}

type Result<T, E = ServiceError> = std::result::Result<T, E>;

/// The rooms service.
#[derive(Clone, Debug)]
pub struct RoomsService {
    pub(crate) store: RoomStore,
    pub(crate) timers: TimerStore,
    pub(crate) game_state: GameStateClient<Traced>,
    pub(crate) clock: Clock,
}

fn not_found(code: &str) -> ServiceError {
    RoomError::NotFound(format!(
        "no room {code}: the code is unknown or the room expired"
    ))
    .into()
}

/// The key of a member's presence lease timer: one per member and room.
fn presence_key(code: &str, player: &str) -> String {
    format!("roommember/{code}/{player}")
}

fn decode_room(state: &[u8]) -> Result<Room> {
    serde_json::from_slice(state)
        .map_err(|e| ServiceError::Internal(format!("stored room is unreadable: {e}")))
}

fn encode_room(room: &Room) -> Result<Vec<u8>> {
    serde_json::to_vec(room).map_err(|e| ServiceError::Internal(format!("room not stored: {e}")))
}

impl RoomsService {
    fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    fn event(&self, room: &Room, seq: u64, changes: &[Change]) -> Vec<u8> {
        pb::RoomEvent {
            code: room.code.as_str().to_owned(),
            seq,
            changes: changes.iter().map(model::change).collect(),
            room: Some(model::view(room)),
            at_unix_ms: i64::try_from(self.now_ms()).unwrap_or(i64::MAX),
        }
        .encode_to_vec()
    }

    /// Creates a room with a fresh code from the CSPRNG.
    async fn create(&self, request: pb::CreateRoomInternalRequest) -> Result<pb::RoomSnapshot> {
        let host = model::caller(request.caller)?;
        let settings = model::settings(request.settings)?;
        for _ in 0..CODE_ATTEMPTS {
            let code = crate::RoomCode::random(&mut csprng());
            let now = self.now_ms();
            let (room, changes) =
                Room::create(code.clone(), &host, settings.clone(), request.watch, now)?;
            let state = encode_room(&room)?;
            if self
                .store
                .create(code.as_str(), &state, &self.event(&room, 1, &changes), now)
                .await?
            {
                self.after_commit(&room, &changes).await;
                self.touch_member(&room, &host.player_id).await;
                tracing::info!(code = code.as_str(), host = %host.player_id, "room created");
                return Ok(model::snapshot(1, &room));
            }
        }
        Err(ServiceError::Unavailable(
            "no free room code found: try again".into(),
        ))
    }

    /// Loads the room, applies `change`, and commits; retried from a fresh read when another
    /// replica committed first. An operation that changes nothing commits nothing.
    async fn mutate(
        &self,
        code: &str,
        change: impl Fn(&mut Room, u64) -> Result<Vec<Change>, RoomError>,
    ) -> Result<pb::RoomSnapshot> {
        let code = model::code(code)?;
        for _ in 0..COMMIT_ATTEMPTS {
            let now = self.now_ms();
            let record = self
                .store
                .load(code.as_str(), now)
                .await?
                .ok_or_else(|| not_found(&code.display()))?;
            let mut room = decode_room(&record.state)?;
            let countdown_before = room.countdown();
            let changes = change(&mut room, now)?;
            if changes.is_empty() {
                return Ok(model::snapshot(record.seq, &room));
            }
            self.create_games(&room, &changes).await?;
            if room.countdown() != countdown_before {
                self.arm_countdown(&room).await?;
            }
            let seq = record.seq + 1;
            let state = encode_room(&room)?;
            match self
                .store
                .commit(
                    code.as_str(),
                    record.seq,
                    &state,
                    &self.event(&room, seq, &changes),
                )
                .await?
            {
                Ok(Committed { seq }) => {
                    self.after_commit(&room, &changes).await;
                    return Ok(model::snapshot(seq, &room));
                }
                Err(CommitRefusal::StaleSeq { .. } | CommitRefusal::DuplicateAction { .. }) => {}
                Err(CommitRefusal::NotFound) => return Err(not_found(&code.display())),
            }
        }
        Err(ServiceError::Aborted(format!(
            "room {} changed {COMMIT_ATTEMPTS} times while this request was judged: retry",
            code.display()
        )))
    }

    /// Creates the games a change started (idempotent by game id).
    async fn create_games(&self, room: &Room, changes: &[Change]) -> Result<()> {
        let started: Vec<&String> = changes
            .iter()
            .filter_map(|c| match c {
                Change::GamesStarted { game_ids } => Some(game_ids),
                _ => None,
            })
            .flatten()
            .collect();
        for table in room.tables.iter().filter(|t| started.contains(&&t.game_id)) {
            let players = table
                .players
                .iter()
                .map(|p| pb::PlayerRef {
                    player_id: p.clone(),
                    display_name: room.member(p).map_or_else(|| p.clone(), |m| m.name.clone()),
                    computer_level: room
                        .member(p)
                        .and_then(|m| m.computer.clone())
                        .unwrap_or_default(),
                })
                .collect();
            self.game_state
                .clone()
                .create_game(pb::CreateGameRequest {
                    game_id: table.game_id.clone(),
                    settings: Some(table.settings.clone()),
                    players,
                    casual: table.casual,
                    room_code: room.code.as_str().to_owned(),
                })
                .await
                .map_err(|status| ServiceError::Upstream(Box::new(status)))?;
        }
        Ok(())
    }

    /// Arms the room's running countdown as a durable timer (Q29): it fires once whichever
    /// replica is alive then.
    async fn arm_countdown(&self, room: &Room) -> Result<()> {
        let Some((id, due_ms)) = room.countdown() else {
            return Ok(());
        };
        let action = pb::TimerAction {
            action: Some(pb::timer_action::Action::RoomCountdown(
                pb::FireCountdownRequest {
                    code: room.code.as_str().to_owned(),
                    countdown_id: id,
                },
            )),
            traceparent: ludus_server::propagation::current_traceparent(),
        };
        let key = format!("room/{}/{id}", room.code.as_str());
        self.timers
            .arm(&key, &action.encode_to_vec(), due_ms)
            .await?;
        Ok(())
    }

    /// Bookkeeping after a commit, each step idempotent and only logged when it fails: the
    /// lobby, the empty room's expiry, and the resignation of a departed player's games (C14).
    async fn after_commit(&self, room: &Room, changes: &[Change]) {
        let code = room.code.as_str();
        let listed = model::listed(room);
        if let Err(e) = self.store.set_listed(code, listed, room.created_ms).await {
            tracing::warn!(code, error = %e, "lobby not updated");
        }
        let expiry = if room.is_empty() {
            self.store
                .expire_in(code, self.now_ms(), EMPTY_ROOM_TTL)
                .await
        } else if changes.iter().any(|c| matches!(c, Change::Joined { .. })) {
            self.store.keep(code).await
        } else {
            Ok(())
        };
        if let Err(e) = expiry {
            tracing::warn!(code, error = %e, "room expiry not updated");
        }
        for change in changes {
            let (Change::Left { player_id } | Change::Kicked { player_id }) = change else {
                continue;
            };
            for table in room.live_tables().filter(|t| t.players.contains(player_id)) {
                let resigned = self
                    .game_state
                    .clone()
                    .resign(pb::PlayerRequest {
                        game_id: table.game_id.clone(),
                        player_id: player_id.clone(),
                    })
                    .await;
                if let Err(status) = resigned {
                    tracing::warn!(code, game_id = %table.game_id, message = status.message(), "could not resign a departed player");
                }
            }
        }
    }

    /// One member's command; a member who sends one is present (their lease renews).
    async fn command(&self, command: pb::RoomCommand) -> Result<pb::RoomSnapshot> {
        let player = command
            .caller
            .as_ref()
            .map(|caller| caller.player_id.clone())
            .unwrap_or_default();
        let snapshot = self.judge_command(command).await?;
        if let Some(room) = &snapshot.room
            && room.members.iter().any(|m| m.player_id == player)
        {
            self.arm_presence(&room.code, &player).await;
        }
        Ok(snapshot)
    }

    async fn judge_command(&self, command: pb::RoomCommand) -> Result<pb::RoomSnapshot> {
        use pb::room_command::Command;
        let caller = model::caller(command.caller)?;
        let Some(body) = command.command else {
            return Err(RoomError::invalid(
                "command",
                crate::error::reason::INVALID_FIELD,
                "command: say what to do",
            )
            .into());
        };
        let who = caller.player_id.clone();
        let code = command.code;
        match body {
            Command::Join(join) => {
                let team = model::team(join.team);
                self.mutate(&code, |room, _| {
                    room.join(&caller, !join.watch, team, &mut csprng())
                })
                .await
            }
            Command::Leave(_) => self.mutate(&code, |room, _| room.leave(&who)).await,
            Command::TakeSeat(seat) => {
                let team = model::team(seat.team);
                self.mutate(&code, |room, _| room.take_seat(&who, team, &mut csprng()))
                    .await
            }
            Command::LeaveSeat(_) => self.mutate(&code, |room, _| room.leave_seat(&who)).await,
            Command::SetReady(ready) => {
                self.mutate(&code, |room, _| room.set_ready(&who, ready.ready))
                    .await
            }
            Command::UpdateSettings(update) => {
                let settings = model::settings(update.settings)?;
                self.mutate(&code, |room, _| {
                    room.update_settings(&who, settings.clone())
                })
                .await
            }
            Command::Start(_) => {
                self.mutate(&code, |room, _| room.start(&who, &mut csprng()))
                    .await
            }
            Command::Pause(pause) => {
                self.mutate(&code, |room, now| {
                    if pause.paused {
                        room.pause(&who, now)
                    } else {
                        room.resume(&who, now)
                    }
                })
                .await
            }
            Command::Kick(kick) => {
                self.mutate(&code, |room, _| room.kick(&who, &kick.player_id))
                    .await
            }
            Command::HandOver(to) => {
                self.mutate(&code, |room, _| room.hand_over(&who, &to.player_id))
                    .await
            }
            Command::Chat(chat) => {
                self.mutate(&code, |room, now| room.chat(&who, &chat.text, now))
                    .await
            }
            Command::AddComputer(add) => {
                let level = ludus_catalog::bots::parse_level("level", &add.level)
                    .map_err(RoomError::from)?;
                self.mutate(&code, |room, _| {
                    room.add_computer(&who, level, &mut csprng())
                })
                .await
            }
        }
    }

    /// Renews `player`'s presence lease if they are a member of `room`.
    async fn touch_member(&self, room: &Room, player: &str) {
        if room.member(player).is_some() {
            self.arm_presence(room.code.as_str(), player).await;
        }
    }

    /// (Re-)arms `player`'s presence lease in `code`: a durable timer due one grace from now,
    /// whose key is the member's, so each touch moves it later (one timer per member).
    /// Logged, not failed, when Redis refuses: a request that worked is not refused for its
    /// bookkeeping, and the next touch arms it again.
    async fn arm_presence(&self, code: &str, player: &str) {
        let now = self.now_ms();
        let due = now.saturating_add(u64::try_from(PRESENCE_GRACE.as_millis()).unwrap_or(0));
        let action = pb::TimerAction {
            action: Some(pb::timer_action::Action::RoomMember(
                pb::ExpireRoomMemberRequest {
                    code: code.to_owned(),
                    player_id: player.to_owned(),
                    seen_unix_ms: i64::try_from(now).unwrap_or(i64::MAX),
                },
            )),
            traceparent: ludus_server::propagation::current_traceparent(),
        };
        if let Err(error) = self
            .timers
            .arm(&presence_key(code, player), &action.encode_to_vec(), due)
            .await
        {
            tracing::warn!(code, player, %error, "room presence lease not renewed");
        }
    }

    async fn touch(&self, request: pb::TouchRoomRequest) -> Result<pb::TouchRoomResponse> {
        let code = model::code(&request.code)?;
        let record = self
            .store
            .load(code.as_str(), self.now_ms())
            .await?
            .ok_or_else(|| not_found(&code.display()))?;
        self.touch_member(&decode_room(&record.state)?, &request.player_id)
            .await;
        Ok(pb::TouchRoomResponse {})
    }

    /// A member's lease ran out: they leave unless a later touch renewed it (the timer under
    /// their key then carries a later `seen`) or they play at a live table (asked again one
    /// grace later).
    async fn expire_member(
        &self,
        request: pb::ExpireRoomMemberRequest,
    ) -> Result<pb::ExpireRoomMemberResponse> {
        let code = model::code(&request.code)?;
        let key = presence_key(code.as_str(), &request.player_id);
        if let Some((_, payload)) = self.timers.get(&key).await?
            && let Ok(pb::TimerAction {
                action: Some(pb::timer_action::Action::RoomMember(armed)),
                ..
            }) = pb::TimerAction::decode(payload.as_slice())
            && armed.seen_unix_ms > request.seen_unix_ms
        {
            return Ok(pb::ExpireRoomMemberResponse { left: false });
        }
        let player = request.player_id.as_str();
        let snapshot = self
            .mutate(code.as_str(), |room, _| room.presence_lapsed(player))
            .await?;
        let still_member = snapshot
            .room
            .as_ref()
            .is_some_and(|room| room.members.iter().any(|m| m.player_id == player));
        if still_member {
            // At a live table: their game's presence rules apply; the room asks again later.
            self.arm_presence(code.as_str(), player).await;
        } else {
            tracing::info!(
                code = code.as_str(),
                player,
                "a vanished member left the room"
            );
        }
        Ok(pb::ExpireRoomMemberResponse {
            left: !still_member,
        })
    }

    async fn get(&self, code: &str) -> Result<pb::RoomSnapshot> {
        let code = model::code(code)?;
        let record = self
            .store
            .load(code.as_str(), self.now_ms())
            .await?
            .ok_or_else(|| not_found(&code.display()))?;
        Ok(model::snapshot(record.seq, &decode_room(&record.state)?))
    }

    async fn list(&self, limit: u32) -> Result<pb::ListPublicRoomsResponse> {
        let limit = match limit {
            0 => 20,
            n => n.min(100),
        } as usize;
        let mut rooms = Vec::new();
        for code in self.store.listed(limit).await? {
            // A listed room may have expired since it was listed.
            if let Some(record) = self.store.load(&code, self.now_ms()).await? {
                rooms.push(model::view(&decode_room(&record.state)?));
            }
        }
        Ok(pb::ListPublicRoomsResponse { rooms })
    }

    async fn read_events(
        &self,
        request: pb::ReadRoomEventsRequest,
    ) -> Result<pb::ReadRoomEventsResponse> {
        let code = model::code(&request.code)?;
        if self
            .store
            .load(code.as_str(), self.now_ms())
            .await?
            .is_none()
        {
            return Err(not_found(&code.display()));
        }
        let limit = match request.limit {
            0 => MAX_EVENTS_PAGE,
            n => n.min(MAX_EVENTS_PAGE),
        };
        let events = self
            .store
            .events_after(code.as_str(), request.after_seq, limit as usize)
            .await?
            .iter()
            .map(|e| {
                pb::RoomEvent::decode(e.payload.as_slice()).map_err(|e| {
                    ServiceError::Internal(format!("stored room event is unreadable: {e}"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(pb::ReadRoomEventsResponse { events })
    }
}

#[tonic::async_trait]
impl Rooms for RoomsService {
    #[tracing::instrument(skip_all)]
    async fn create_room(
        &self,
        request: Request<pb::CreateRoomInternalRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        Ok(Response::new(self.create(request.into_inner()).await?))
    }

    #[tracing::instrument(skip_all, fields(code = %request.get_ref().code))]
    async fn command(
        &self,
        request: Request<pb::RoomCommand>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        Ok(Response::new(
            RoomsService::command(self, request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all)]
    async fn get_room(
        &self,
        request: Request<pb::GetRoomRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        Ok(Response::new(self.get(&request.get_ref().code).await?))
    }

    #[tracing::instrument(skip_all)]
    async fn list_public_rooms(
        &self,
        request: Request<pb::ListPublicRoomsRequest>,
    ) -> Result<Response<pb::ListPublicRoomsResponse>, Status> {
        Ok(Response::new(self.list(request.get_ref().limit).await?))
    }

    #[tracing::instrument(skip_all)]
    async fn read_room_events(
        &self,
        request: Request<pb::ReadRoomEventsRequest>,
    ) -> Result<Response<pb::ReadRoomEventsResponse>, Status> {
        Ok(Response::new(self.read_events(request.into_inner()).await?))
    }

    #[tracing::instrument(skip_all)]
    async fn fire_countdown(
        &self,
        request: Request<pb::FireCountdownRequest>,
    ) -> Result<Response<pb::FireCountdownResponse>, Status> {
        let request = request.into_inner();
        let snapshot = self
            .mutate(&request.code, |room, _| {
                room.countdown_fired(request.countdown_id, &mut csprng())
            })
            .await?;
        let started = snapshot
            .room
            .is_some_and(|r| r.phase == pb::RoomPhase::Playing as i32);
        Ok(Response::new(pb::FireCountdownResponse { started }))
    }

    #[tracing::instrument(skip_all, fields(code = %request.get_ref().code))]
    async fn touch_room(
        &self,
        request: Request<pb::TouchRoomRequest>,
    ) -> Result<Response<pb::TouchRoomResponse>, Status> {
        Ok(Response::new(self.touch(request.into_inner()).await?))
    }

    #[tracing::instrument(skip_all, fields(code = %request.get_ref().code))]
    async fn expire_room_member(
        &self,
        request: Request<pb::ExpireRoomMemberRequest>,
    ) -> Result<Response<pb::ExpireRoomMemberResponse>, Status> {
        Ok(Response::new(
            self.expire_member(request.into_inner()).await?,
        ))
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn room_game_finished(
        &self,
        request: Request<pb::RoomGameFinishedRequest>,
    ) -> Result<Response<pb::RoomGameFinishedResponse>, Status> {
        let request = request.into_inner();
        let outcome = model::outcome(request.outcome).map_err(ServiceError::from)?;
        self.mutate(&request.code, |room, now| {
            room.game_finished(&request.game_id, &outcome, now, &mut csprng())
        })
        .await?;
        Ok(Response::new(pb::RoomGameFinishedResponse {}))
    }
}
