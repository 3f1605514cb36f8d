//! The public `Gateway` gRPC service: authenticates every call from its token, validates the
//! request, and forwards it to the internal service that owns it.

use std::pin::Pin;

use futures::Stream;
use ludus_proto::codec::{EncodedEvent, SubmitActionReply};
use ludus_proto::ids::{validate_id, validate_ruleset};
use ludus_proto::pb::accounts_client::AccountsClient;
use ludus_proto::pb::{
    self, gateway_server::Gateway, matchmaking_client::MatchmakingClient,
    ratings_client::RatingsClient,
};
use ludus_server::Traced;
use ludus_store::{GameFeed, GameStore};
use tokio::sync::{mpsc, oneshot};
use tokio_stream::{StreamExt, wrappers::ReceiverStream};
use tokio_util::sync::CancellationToken;
use tonic::{Code, Request, Response, Status};

use crate::auth::{Caller, Kind, Tokens, validate_display_name};
use crate::fanout::{STREAM_BUFFER, StreamItem, Subscription};
use crate::limits::Limits;
use crate::refusal::{after_seq_ahead, invalid, reason, refuse};

/// `Subscribe`'s events, encoded (see `ludus_proto::codec`).
type EventStream = Pin<Box<dyn Stream<Item = Result<EncodedEvent, Status>> + Send>>;
type MatchStream = Pin<Box<dyn Stream<Item = Result<pb::FindMatchUpdate, Status>> + Send>>;

/// The gateway.
#[derive(Clone, Debug)]
pub struct GatewayService {
    pub(crate) tokens: Tokens,
    pub(crate) game_state: crate::game_state::GameStateLink,
    pub(crate) matchmaking: MatchmakingClient<Traced>,
    pub(crate) ratings: RatingsClient<Traced>,
    pub(crate) accounts: AccountsClient<Traced>,
    pub(crate) feed: GameFeed,
    /// The games' store, read only for the players' game index (FindMatch asks game-state
    /// only when the player sits in a game at all).
    pub(crate) games: GameStore,
    pub(crate) limits: Limits,
    /// Rooms (gateway/src/rooms.rs).
    pub(crate) rooms: crate::rooms::RoomsGateway,
    /// Cancelled at shutdown: open streams end with a resumable UNAVAILABLE.
    pub(crate) stopping: CancellationToken,
    /// This gateway's lease over the seated streams it holds (gateway/src/presence.rs).
    pub(crate) leases: std::sync::Arc<crate::presence::PresenceLeases>,
}

impl GatewayService {
    /// The authenticated caller, within their rate limit.
    pub(crate) fn authenticated<T>(&self, request: &Request<T>) -> Result<Caller, Status> {
        self.caller(request)
    }

    /// The authenticated caller, within their rate limit.
    fn caller<T>(&self, request: &Request<T>) -> Result<Caller, Status> {
        let caller = self.tokens.caller(request.metadata()).map_err(|refusal| {
            self.limits
                .refused_token(crate::limits::peer(request), refusal)
        })?;
        self.limits.check_player(&caller.player_id)?;
        Ok(caller)
    }

    /// The authenticated caller and the request body: whom a forwarded call acts for comes
    /// from the token only, never from the body.
    fn open<T>(&self, request: Request<T>) -> Result<(Caller, T), Status> {
        let caller = self.caller(&request)?;
        Ok((caller, request.into_inner()))
    }

    /// A request that names one game and nothing else, as game-state takes it on the caller's
    /// behalf: authenticated, its `game_id` validated.
    fn player_in_game<T>(
        &self,
        request: Request<T>,
        game_id: impl FnOnce(T) -> String,
    ) -> Result<pb::PlayerRequest, Status> {
        let (caller, body) = self.open(request)?;
        let game_id = game_id(body);
        validate_id("game_id", &game_id)?;
        Ok(pb::PlayerRequest {
            game_id,
            player_id: caller.player_id,
        })
    }
}

/// How long FindMatch keeps trying to watch a ticket again after its watch broke, before it
/// tells the client UNAVAILABLE (a replica's death costs one reconnect, not this).
const REWATCH_PATIENCE: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether a call failed because the connection to the replica broke (or no replica took
/// it), not because matchmaking refused it: h2's UNKNOWN for a reset connection, CANCELLED,
/// UNAVAILABLE.
fn broken_transport(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unknown | Code::Unavailable | Code::Cancelled
    )
}

/// Calls matchmaking with `call` again while it fails on a broken transport
/// ([`broken_transport`]: the replica died, no replica took the connection), every 100 ms for
/// [`REWATCH_PATIENCE`]; then UNAVAILABLE, the code the contract says to retry on. A refusal
/// from matchmaking is returned as it is. A killed replica's callers reconnect to a live one
/// through the Service, so a retry there is a reconnect, not a wait.
// A closure returning a future, not an async closure: the latter's futures borrow their
// captures, and tokio::spawn cannot prove those borrows Send for every lifetime.
async fn past_broken_transport<T, F, Fut>(mut call: F) -> Result<T, Status>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Status>>,
{
    let deadline = tokio::time::Instant::now() + REWATCH_PATIENCE;
    loop {
        match call().await {
            Err(status) if broken_transport(&status) => {
                if tokio::time::Instant::now() >= deadline {
                    return Err(refuse(
                        Code::Unavailable,
                        "matchmaking is unreachable: find a match again",
                        reason::UNAVAILABLE,
                    ));
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            answered => return answered,
        }
    }
}

/// A game the caller sits in (see [`GatewayService::seated_with`]).
struct Seated {
    game_id: String,
    seat: u32,
}

impl GatewayService {
    /// The unfinished game against people the caller already sits in with the rule set of
    /// these settings, if any. FindMatch answers it instead of queueing (ARCHITECTURE.md, "Matchmaking"): a client whose
    /// FindMatch stream broke after its ticket was matched (a gateway or the network failed
    /// between the match and the update) asks again, and must land in the game its partner is
    /// already seated in, not queue a ticket nobody will meet while the partner's clock runs.
    /// It is also what a player who left a game and asks for the same kind again needs: that
    /// game is still theirs to play or resign. Games against the computer do not count
    /// (PlayComputer starts those; a person may look for a human opponent meanwhile).
    async fn seated_with(
        &self,
        player_id: &str,
        settings: &pb::GameSettings,
    ) -> Result<Option<Seated>, Status> {
        // Settings Enqueue will refuse have no game either: its refusal says why.
        let Ok(ruleset) =
            ludus_catalog::rating_pool(settings, ludus_catalog::table_seats(settings))
        else {
            return Ok(None);
        };
        // Most players queueing sit in no game: the index game-state lists from says so in
        // one read, without a call to game-state and a load of each game. A player with games
        // (or an unreadable index) is asked about as before: game-state knows which of them
        // are unfinished and of which kind.
        match self.games.player_games(player_id, 1).await {
            Ok(ids) if ids.is_empty() => return Ok(None),
            Ok(_) => {}
            Err(error) => {
                tracing::debug!(%error, "player's game index unreadable; asking game-state");
            }
        }
        let games = self
            .game_state
            .clone()
            .list_games(pb::ListGamesRequest {
                limit: 100,
                player_id: player_id.to_owned(),
            })
            .await?
            .into_inner()
            .games;
        Ok(games.into_iter().find_map(|game| {
            let against_people = game.seats.iter().all(|s| s.computer_level.is_empty());
            // By rule set, not by the settings as sent: the game's carry the server's clock
            // and defaults filled in.
            let same_kind = game.ruleset == ruleset;
            let unfinished = game.outcome.is_none();
            match game.your_seat {
                Some(seat) if against_people && same_kind && unfinished => Some(Seated {
                    game_id: game.game_id,
                    seat,
                }),
                _ => None,
            }
        }))
    }
}

/// Watches `watch`'s ticket again (on whichever replica the connection reaches), past broken
/// connections ([`past_broken_transport`]).
async fn rewatch(
    matchmaking: &mut MatchmakingClient<Traced>,
    watch: &pb::WatchTicketRequest,
) -> Result<tonic::Streaming<pb::TicketUpdate>, Status> {
    past_broken_transport(|| {
        let (mut matchmaking, watch) = (matchmaking.clone(), watch.clone());
        async move {
            matchmaking
                .watch_ticket(watch)
                .await
                .map(Response::into_inner)
        }
    })
    .await
}

/// Queues a ticket and opens its watch with one `QueueAndWatch`: its first update (which
/// names the ticket) and the stream of the rest. A stream that ends before its first update
/// counts as a broken transport (UNAVAILABLE), like a replica that died.
async fn queue_and_watch(
    mut matchmaking: MatchmakingClient<Traced>,
    enqueue: pb::EnqueueRequest,
) -> Result<(pb::TicketUpdate, tonic::Streaming<pb::TicketUpdate>), Status> {
    let mut updates = matchmaking.queue_and_watch(enqueue).await?.into_inner();
    match updates.message().await? {
        Some(first) => Ok((first, updates)),
        None => Err(Status::unavailable(
            "the ticket's watch ended before its first update",
        )),
    }
}

fn ticket_state(state: i32) -> pb::TicketState {
    pb::TicketState::try_from(state).unwrap_or(pb::TicketState::Unspecified)
}

/// The `Gateway` service as a routing table, one row per RPC, so the trait's plain
/// pass-through bodies are written once here:
/// - `game_events`: a player's request about one game that game-state serves as it comes and
///   answers with the event it committed: authenticated, `game_id` validated, forwarded for
///   the caller with the listed fields, the event answered (message names from `pb`);
/// - `handlers`: the method of [`GatewayService`] that serves the RPC (those doing their own
///   work; one of the same name as its RPC is the inherent method, which path resolution
///   picks before the trait's).
macro_rules! serve_gateway {
    (
        streams { $($stream:ident = $stream_type:ty;)* }
        game_events {
            $($event_rpc:ident($event_request:ident { $($field:ident),* }) -> $event_response:ident
                = $internal_rpc:ident($internal:ident);)*
        }
        handlers { $($rpc:ident($request:ty) -> $response:ty = $handler:ident;)* }
    ) => {
        #[tonic::async_trait]
        impl Gateway for GatewayService {
            $(type $stream = $stream_type;)*
            $(
                #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
                async fn $event_rpc(
                    &self,
                    request: Request<pb::$event_request>,
                ) -> Result<Response<pb::$event_response>, Status> {
                    let (caller, body) = self.open(request)?;
                    validate_id("game_id", &body.game_id)?;
                    let internal = pb::$internal {
                        game_id: body.game_id,
                        player_id: caller.player_id,
                        $($field: body.$field,)*
                    };
                    let answer = self.game_state.clone().$internal_rpc(internal).await?;
                    Ok(Response::new(pb::$event_response {
                        event: answer.into_inner().event,
                    }))
                }
            )*
            $(
                async fn $rpc(
                    &self,
                    request: Request<$request>,
                ) -> Result<Response<$response>, Status> {
                    GatewayService::$handler(self, request).await
                }
            )*
        }
    };
}

serve_gateway! {
    streams {
        FindMatchStream = MatchStream;
        SubscribeStream = EventStream;
        SubscribeRoomStream = crate::rooms::RoomEventStream;
    }
    game_events {
        resign(ResignRequest {}) -> ResignResponse = resign(PlayerRequest);
        offer_draw(OfferDrawRequest {}) -> OfferDrawResponse
            = offer_draw(PlayerRequest);
        respond_draw(RespondDrawRequest { accept }) -> RespondDrawResponse
            = respond_draw(RespondDrawInternalRequest);
        answer_absence(AnswerAbsenceRequest { choice }) -> AnswerAbsenceResponse
            = answer_absence(AnswerAbsenceInternalRequest);
        // Games against the computer: C17, M11 (game-state checks them).
        take_back(TakeBackRequest {}) -> TakeBackResponse = take_back(PlayerRequest);
    }
    handlers {
        // Guests, matches, games, ratings (below).
        sign_in_guest(pb::SignInGuestRequest) -> pb::SignInGuestResponse = sign_in_guest;
        find_match(pb::FindMatchRequest) -> MatchStream = find_match;
        cancel_match(pb::CancelMatchRequest) -> pb::CancelMatchResponse = cancel_match;
        get_game(pb::GetGameRequest) -> pb::GetGameResponse = get_game;
        submit_action(pb::SubmitActionRequest) -> SubmitActionReply = submit_action;
        subscribe(pb::SubscribeRequest) -> EventStream = subscribe;
        list_live_games(pb::ListLiveGamesRequest) -> pb::ListLiveGamesResponse = list_live_games;
        list_my_games(pb::ListMyGamesRequest) -> pb::ListMyGamesResponse = list_my_games;
        get_rating(pb::GetRatingRequest) -> pb::Rating = get_rating;
        get_leaderboard(pb::GetLeaderboardRequest) -> pb::GetLeaderboardResponse = get_leaderboard;
        analyze_mancala(pb::AnalyzeMancalaRequest) -> pb::AnalyzeMancalaResponse = analyze_mancala;
        // Accounts and the archive (accounts.rs).
        register(pb::RegisterRequest) -> pb::AccountSession = account_register;
        sign_in(pb::SignInRequest) -> pb::AccountSession = account_sign_in;
        refresh(pb::RefreshRequest) -> pb::AccountSession = account_refresh;
        sign_out(pb::SignOutRequest) -> pb::SignOutResponse = account_sign_out;
        upgrade_guest(pb::UpgradeGuestRequest) -> pb::AccountSession = account_upgrade_guest;
        get_profile(pb::GetProfileRequest) -> pb::Profile = account_get_profile;
        update_profile(pb::UpdateProfileRequest) -> pb::Profile = account_update_profile;
        list_player_games(pb::ListPlayerGamesRequest) -> pb::ListPlayerGamesResponse
            = archive_list_player_games;
        get_archived_game(pb::GetArchivedGameRequest) -> pb::ArchivedGame = archive_get_game;
        // Rooms (rooms.rs).
        create_room(pb::CreateRoomRequest) -> pb::RoomSnapshot = room_create;
        join_room(pb::JoinRoomRequest) -> pb::RoomSnapshot = room_join;
        leave_room(pb::RoomCodeRequest) -> pb::RoomSnapshot = room_leave;
        take_seat(pb::TakeSeatRequest) -> pb::RoomSnapshot = room_take_seat;
        leave_seat(pb::RoomCodeRequest) -> pb::RoomSnapshot = room_leave_seat;
        set_ready(pb::SetReadyRequest) -> pb::RoomSnapshot = room_set_ready;
        update_room_settings(pb::UpdateRoomSettingsRequest) -> pb::RoomSnapshot
            = room_update_settings;
        start_room_game(pb::RoomCodeRequest) -> pb::RoomSnapshot = room_start;
        pause_room_countdown(pb::PauseRoomCountdownRequest) -> pb::RoomSnapshot = room_pause;
        kick_from_room(pb::RoomMemberRequest) -> pb::RoomSnapshot = room_kick;
        hand_over_room(pb::RoomMemberRequest) -> pb::RoomSnapshot = room_hand_over;
        send_room_chat(pb::SendRoomChatRequest) -> pb::RoomSnapshot = room_chat;
        add_computer_player(pb::AddComputerPlayerRequest) -> pb::RoomSnapshot = room_add_computer;
        get_room(pb::RoomCodeRequest) -> pb::RoomSnapshot = room_get;
        list_public_rooms(pb::ListPublicRoomsRequest) -> pb::ListPublicRoomsResponse = room_list;
        subscribe_room(pb::SubscribeRoomRequest) -> crate::rooms::RoomEventStream = room_subscribe;
        // Games against the computer (computer.rs).
        play_computer(pb::PlayComputerRequest) -> pb::PlayComputerResponse = start_computer_game;
        // The games' options, public catalog data (below).
        list_game_options(pb::ListGameOptionsRequest) -> pb::ListGameOptionsResponse
            = list_game_options;
    }
}

/// The handlers that do their own work (the others are in accounts.rs, rooms.rs and
/// computer.rs); [`serve_gateway!`] routes each RPC to its handler.
impl GatewayService {
    #[tracing::instrument(skip_all)]
    async fn sign_in_guest(
        &self,
        request: Request<pb::SignInGuestRequest>,
    ) -> Result<Response<pb::SignInGuestResponse>, Status> {
        self.limits.check_new_guest(crate::limits::peer(&request))?;
        let name = validate_display_name(&request.get_ref().display_name)?;
        let (token, player_id, expires_at_unix_ms) = self.tokens.issue_guest(&name)?;
        tracing::info!(player_id = %player_id, "guest signed in");
        Ok(Response::new(pb::SignInGuestResponse {
            token,
            player_id,
            expires_at_unix_ms,
        }))
    }

    /// The catalog's description of every game's options: public (no token), the same for
    /// everyone and built once per process, so an unauthenticated caller costs a copy of it.
    #[tracing::instrument(skip_all)]
    async fn list_game_options(
        &self,
        request: Request<pb::ListGameOptionsRequest>,
    ) -> Result<Response<pb::ListGameOptionsResponse>, Status> {
        // No token to key a limit on: the caller's address is the key.
        self.limits
            .check_public_read(crate::limits::peer(&request))?;
        static CATALOG: std::sync::OnceLock<pb::GameOptionsCatalog> = std::sync::OnceLock::new();
        let catalog = CATALOG.get_or_init(ludus_catalog::options::catalog);
        Ok(Response::new(pb::ListGameOptionsResponse {
            catalog: Some(catalog.clone()),
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn find_match(
        &self,
        request: Request<pb::FindMatchRequest>,
    ) -> Result<Response<MatchStream>, Status> {
        let caller = self.caller(&request)?;
        let request = request.into_inner();
        let casual = casual_queue(caller.kind, request.ranking)?;
        let settings = request
            .settings
            .ok_or_else(|| invalid("settings: required", reason::INVALID_FIELD))?;
        if let Some(seated) = self.seated_with(&caller.player_id, &settings).await? {
            let update = Ok(pb::FindMatchUpdate {
                ticket_id: String::new(),
                state: pb::TicketState::Matched as i32,
                game_id: seated.game_id,
                seat: seated.seat,
                waited_ms: 0,
            });
            return Ok(Response::new(Box::pin(tokio_stream::once(update))));
        }
        let mut matchmaking = self.matchmaking.clone();
        // The whole life of the ticket runs in one task, from Enqueue on: a client that leaves
        // at any moment, even while Enqueue is in flight, gets its ticket cancelled. (Begun
        // after Enqueue and WatchTicket returned, a client that reset the stream in between
        // left a queued ticket nobody cancelled, and was seated in a game it had left.)
        let (started_tx, started_rx) = oneshot::channel::<Result<(), Status>>();
        let (tx, rx) = mpsc::channel(8);
        let stopping = self.stopping.clone();
        tokio::spawn(async move {
            // One request id for every attempt: an Enqueue whose answer was lost (its replica
            // died, Redis answered late) queued a ticket nobody would watch or cancel, and the
            // client's retry met ALREADY_EXISTS. Retried with the same id, matchmaking hands
            // that ticket back (ARCHITECTURE.md, "Matchmaking").
            let enqueue = pb::EnqueueRequest {
                player_id: caller.player_id.clone(),
                display_name: caller.display_name.clone(),
                settings: Some(settings),
                casual,
                request_id: ulid::Ulid::generate().to_string(),
                // Only present players are seated: this task holds the ticket's watch for
                // exactly as long as the client's stream, and matchmaking seats the player
                // only through an open watch (ARCHITECTURE.md, Matchmaking).
                confirm_presence: true,
            };
            // Queued and watched in one call (QueueAndWatch: its first update names the
            // ticket), again past a broken connection with the same request id. A replica of
            // an older release answers UNIMPLEMENTED: Enqueue, then WatchTicket below.
            let opened = past_broken_transport(|| {
                let (matchmaking, enqueue) = (matchmaking.clone(), enqueue.clone());
                queue_and_watch(matchmaking, enqueue)
            })
            .await;
            let (ticket_id, mut pending, opened) = match opened {
                Ok((first, updates)) => (first.ticket_id.clone(), Some(first), Some(updates)),
                Err(status) if status.code() == Code::Unimplemented => {
                    let enqueued = past_broken_transport(|| {
                        let (mut matchmaking, enqueue) = (matchmaking.clone(), enqueue.clone());
                        async move { matchmaking.enqueue(enqueue).await.map(Response::into_inner) }
                    })
                    .await;
                    match enqueued {
                        Ok(ticket) => (ticket.ticket_id, None, None),
                        Err(status) => {
                            let _ = started_tx.send(Err(status));
                            return;
                        }
                    }
                }
                Err(status) => {
                    let _ = started_tx.send(Err(status));
                    return;
                }
            };
            // Sent again past a broken connection: a cancel lost with a killed replica left
            // the ticket of a player who had gone matchable until its lease ran out.
            let cancel = async |matchmaking: MatchmakingClient<Traced>| {
                let request = pb::CancelTicketRequest {
                    ticket_id: ticket_id.clone(),
                    player_id: caller.player_id.clone(),
                };
                let _ = past_broken_transport(|| {
                    let (mut matchmaking, request) = (matchmaking.clone(), request.clone());
                    async move { matchmaking.cancel_ticket(request).await }
                })
                .await;
            };
            let watch = pb::WatchTicketRequest {
                ticket_id: ticket_id.clone(),
                player_id: caller.player_id.clone(),
            };
            // The client left while we queued: the watch goes first, so nothing confirms
            // their seat.
            if started_tx.is_closed() {
                drop(opened);
                cancel(matchmaking).await;
                return;
            }
            let mut updates = match opened {
                Some(updates) => updates,
                // Past a broken connection too: the ticket is queued, and lives in Redis.
                None => match rewatch(&mut matchmaking, &watch).await {
                    Ok(updates) => updates,
                    Err(status) => {
                        cancel(matchmaking).await;
                        let _ = started_tx.send(Err(status));
                        return;
                    }
                },
            };
            // Nobody is waiting for the answer: the client left while we queued. The watch
            // goes before the cancel (see below).
            if started_tx.send(Ok(())).is_err() {
                drop(updates);
                cancel(matchmaking).await;
                return;
            }
            let mut settled = false;
            let mut last_state = None;
            loop {
                // QueueAndWatch's first update, read when the ticket was opened, goes first.
                let update = if let Some(first) = pending.take() {
                    Some(Ok(first))
                } else {
                    tokio::select! {
                        () = tx.closed() => break,
                        () = stopping.cancelled() => {
                            let _ = tx.send(Err(refuse(Code::Unavailable, "the server is shutting down: find a match again", reason::UNAVAILABLE))).await;
                            break;
                        }
                        update = updates.next() => update,
                    }
                };
                let update = match update {
                    Some(Ok(update)) => update,
                    Some(Err(status)) if !broken_transport(&status) => {
                        let _ = tx.send(Err(status)).await;
                        break;
                    }
                    // The replica watching the ticket died (h2 reports UNKNOWN), or closed the
                    // stream before the ticket settled (its connection rotated, it shut
                    // down): the ticket lives in Redis, so another replica watches it and the
                    // client keeps its place (ARCHITECTURE.md, "Matchmaking"). Cancelling it here cost the client
                    // its place in the queue for a replica's death.
                    _ => match rewatch(&mut matchmaking, &watch).await {
                        Ok(again) => {
                            updates = again;
                            continue;
                        }
                        Err(status) => {
                            let _ = tx.send(Err(status)).await;
                            break;
                        }
                    },
                };
                let state = ticket_state(update.state);
                // A new watch starts with the ticket's current state: the client heard it.
                if state == pb::TicketState::Queued && last_state == Some(state) {
                    continue;
                }
                last_state = Some(state);
                settled = matches!(state, pb::TicketState::Matched | pb::TicketState::Cancelled);
                let out = pb::FindMatchUpdate {
                    ticket_id: update.ticket_id,
                    state: state as i32,
                    game_id: update.game_id,
                    seat: update.seat,
                    waited_ms: update.waited_ms,
                };
                if tx.send(Ok(out)).await.is_err() || settled {
                    break;
                }
            }
            // The watch goes first: matchmaking seats a player only through an open watch, so
            // a table proposed while the cancel below is on its way is not confirmed.
            drop(updates);
            // The client left (or the server stops) before a match: the ticket goes too.
            if !settled {
                cancel(matchmaking).await;
            }
        });
        started_rx.await.map_err(|_| {
            refuse(
                Code::Unavailable,
                "matchmaking did not answer: find a match again",
                reason::UNAVAILABLE,
            )
        })??;
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    #[tracing::instrument(skip_all)]
    async fn cancel_match(
        &self,
        request: Request<pb::CancelMatchRequest>,
    ) -> Result<Response<pb::CancelMatchResponse>, Status> {
        let (caller, request) = self.open(request)?;
        validate_id("ticket_id", &request.ticket_id)?;
        let update = self
            .matchmaking
            .clone()
            .cancel_ticket(pb::CancelTicketRequest {
                ticket_id: request.ticket_id,
                player_id: caller.player_id,
            })
            .await?
            .into_inner();
        Ok(Response::new(pb::CancelMatchResponse {
            cancelled: ticket_state(update.state) == pb::TicketState::Cancelled
                && update.game_id.is_empty(),
            game_id: update.game_id,
        }))
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn get_game(
        &self,
        request: Request<pb::GetGameRequest>,
    ) -> Result<Response<pb::GetGameResponse>, Status> {
        let viewer = self.player_in_game(request, |body| body.game_id)?;
        let snapshot = pb::GetSnapshotRequest {
            game_id: viewer.game_id,
            viewer_player_id: viewer.player_id,
            omit_position: false,
        };
        let game = self.game_state.clone().get_snapshot(snapshot).await?;
        Ok(Response::new(pb::GetGameResponse {
            game: Some(game.into_inner()),
        }))
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn submit_action(
        &self,
        request: Request<pb::SubmitActionRequest>,
    ) -> Result<Response<SubmitActionReply>, Status> {
        let (caller, request) = self.open(request)?;
        validate_id("game_id", &request.game_id)?;
        validate_id("action_id", &request.action_id)?;
        let action = request
            .action
            .filter(|action| action.action.is_some())
            .ok_or_else(|| {
                invalid(
                    "action: set the game's action or its notation",
                    reason::INVALID_FIELD,
                )
            })?;
        let response = self
            .game_state
            .clone()
            .apply_action(pb::ApplyActionRequest {
                game_id: request.game_id,
                player_id: caller.player_id,
                expected_seq: request.expected_seq,
                action_id: request.action_id,
                action: Some(action),
            })
            .await?;
        // Game-state in this process hands over the event as it encoded it for the log.
        let encoded = response.extensions().get::<EncodedEvent>().cloned();
        let response = response.into_inner();
        Ok(Response::new(match encoded {
            Some(event) => SubmitActionReply::Encoded {
                event,
                duplicate: response.duplicate,
            },
            None => SubmitActionReply::Message(pb::SubmitActionResponse {
                event: response.event,
                duplicate: response.duplicate,
            }),
        }))
    }

    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn subscribe(
        &self,
        request: Request<pb::SubscribeRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let caller = self.caller(&request)?;
        let request = request.into_inner();
        validate_id("game_id", &request.game_id)?;
        let permit = self.limits.open_stream(&caller.player_id)?;
        // Fail fast on an unknown game, before the stream opens; learn whether the caller
        // plays in it (their presence then follows the stream, C13). The position is not
        // needed: the stream starts from the log.
        let snapshot = self
            .game_state
            .clone()
            .get_snapshot(pb::GetSnapshotRequest {
                game_id: request.game_id.clone(),
                viewer_player_id: caller.player_id.clone(),
                omit_position: true,
            })
            .await?
            .into_inner();
        // A client cannot have seen an event after the game's last one: resuming past it would
        // wait for events that may never come (a finished game's stream would never end).
        if request.after_seq > snapshot.seq {
            return Err(after_seq_ahead(
                &request.game_id,
                request.after_seq,
                snapshot.seq,
            ));
        }
        let seated_player = (snapshot.your_seat.is_some()
            && snapshot.status == pb::GameStatus::Active as i32)
            .then_some(caller.player_id);
        // A seated player's every open and close is a presence event in the game's log.
        if let Some(player_id) = &seated_player {
            self.limits
                .check_seated_subscribe(player_id, &request.game_id)?;
        }
        let Some(seated_player) = seated_player else {
            let watching = crate::fanout::watch(
                request.game_id,
                request.after_seq,
                self.game_state.clone(),
                self.feed.clone(),
                self.stopping.clone(),
                permit,
            );
            return Ok(Response::new(Box::pin(watching)));
        };
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let subscription = Subscription {
            game_id: request.game_id,
            last: request.after_seq,
            tx,
            game_state: self.game_state.clone(),
            seated_player,
            leases: self.leases.clone(),
        };
        let (feed, stopping) = (self.feed.clone(), self.stopping.clone());
        tokio::spawn(async move {
            subscription.run(feed, stopping).await;
            drop(permit);
        });
        let unboxed = ReceiverStream::new(rx).map(|item: StreamItem| item.map_err(|s| *s));
        Ok(Response::new(Box::pin(unboxed)))
    }

    #[tracing::instrument(skip_all)]
    async fn list_live_games(
        &self,
        request: Request<pb::ListLiveGamesRequest>,
    ) -> Result<Response<pb::ListLiveGamesResponse>, Status> {
        self.caller(&request)?;
        let limit = request.into_inner().limit;
        let listing = self
            .game_state
            .clone()
            .list_games(pb::ListGamesRequest {
                limit,
                player_id: String::new(),
            })
            .await?
            .into_inner();
        let games = listing
            .games
            .into_iter()
            .map(|game| pb::LiveGame {
                game_id: game.game_id,
                settings: game.settings,
                seats: game.seats,
                seq: game.seq,
            })
            .collect();
        Ok(Response::new(pb::ListLiveGamesResponse { games }))
    }

    #[tracing::instrument(skip_all)]
    async fn list_my_games(
        &self,
        request: Request<pb::ListMyGamesRequest>,
    ) -> Result<Response<pb::ListMyGamesResponse>, Status> {
        let caller = self.caller(&request)?;
        let limit = request.into_inner().limit;
        let listing = self
            .game_state
            .clone()
            .list_games(pb::ListGamesRequest {
                limit,
                player_id: caller.player_id,
            })
            .await?
            .into_inner();
        Ok(Response::new(pb::ListMyGamesResponse {
            games: listing.games,
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn get_rating(
        &self,
        request: Request<pb::GetRatingRequest>,
    ) -> Result<Response<pb::Rating>, Status> {
        let caller = self.caller(&request)?;
        let request = request.into_inner();
        validate_ruleset("ruleset", &request.ruleset)?;
        let player_id = caller.or_named(request.player_id)?;
        let rating = self
            .ratings
            .clone()
            .get_rating(pb::RatingsGetRatingRequest {
                ruleset: request.ruleset,
                player_id,
            })
            .await?;
        Ok(rating)
    }

    #[tracing::instrument(skip_all)]
    async fn get_leaderboard(
        &self,
        request: Request<pb::GetLeaderboardRequest>,
    ) -> Result<Response<pb::GetLeaderboardResponse>, Status> {
        self.caller(&request)?;
        let request = request.into_inner();
        validate_ruleset("ruleset", &request.ruleset)?;
        let limit = match request.limit {
            0 => 10,
            n => n.min(100),
        };
        let page = self
            .ratings
            .clone()
            .get_leaderboard(pb::RatingsGetLeaderboardRequest {
                ruleset: request.ruleset,
                offset: request.offset,
                limit,
            })
            .await?
            .into_inner();
        Ok(Response::new(pb::GetLeaderboardResponse {
            entries: page.entries,
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn analyze_mancala(
        &self,
        request: Request<pb::AnalyzeMancalaRequest>,
    ) -> Result<Response<pb::AnalyzeMancalaResponse>, Status> {
        let caller = self.caller(&request)?;
        let client_address = crate::accounts::client_address(&request);
        let request = request.into_inner();
        // Shape checks only; game-state checks the position against the rules (M1, M2).
        match &request.source {
            Some(pb::analyze_mancala_request::Source::GameId(game_id)) => {
                validate_id("game_id", game_id)?;
            }
            Some(pb::analyze_mancala_request::Source::Position(position)) => {
                if position.sides.len() > 2 || position.sides.iter().any(|s| s.pits.len() > 7) {
                    return Err(invalid(
                        "position.sides: two sides of at most seven pits (M1)",
                        reason::INVALID_FIELD,
                    ));
                }
            }
            None => {
                return Err(invalid(
                    "source: give a game_id or a position",
                    reason::INVALID_FIELD,
                ));
            }
        }
        let answer = self
            .game_state
            .clone()
            .analyze_mancala(pb::AnalyzeMancalaInternalRequest {
                request: Some(request),
                player_id: caller.player_id,
                client_address,
            })
            .await?;
        Ok(answer)
    }
}

/// Whether a quick match queues casual, from the caller's verified token and the ranking they
/// asked for. M12: ranked games need a registered account, so a guest asking for a rated
/// queue is refused and a guest's default is casual; an account's default is rated.
fn casual_queue(kind: Kind, ranking: i32) -> Result<bool, Status> {
    let ranking = pb::MatchRanking::try_from(ranking).map_err(|_| {
        invalid(
            format!("ranking: {ranking} is not a ranking (0 default, 1 rated, 2 casual)"),
            reason::INVALID_FIELD,
        )
    })?;
    match (ranking, kind) {
        (pb::MatchRanking::Casual, _) | (pb::MatchRanking::Default, Kind::Guest) => Ok(true),
        (pb::MatchRanking::Rated, Kind::Guest) => Err(refuse(
            Code::FailedPrecondition,
            "M12: rated games need a registered account; register or sign in, or queue casual \
             (MATCH_RANKING_CASUAL)",
            "M12",
        )),
        (pb::MatchRanking::Rated | pb::MatchRanking::Default, Kind::Account) => Ok(false),
    }
}

#[cfg(test)]
mod ranking_tests {
    use super::*;

    #[test]
    fn m12_rated_queues_are_for_accounts_and_guests_default_to_casual() {
        let rated = pb::MatchRanking::Rated as i32;
        let casual = pb::MatchRanking::Casual as i32;
        let default = pb::MatchRanking::Default as i32;
        assert_eq!(casual_queue(Kind::Account, default).ok(), Some(false));
        assert_eq!(casual_queue(Kind::Account, rated).ok(), Some(false));
        assert_eq!(casual_queue(Kind::Account, casual).ok(), Some(true));
        assert_eq!(casual_queue(Kind::Guest, default).ok(), Some(true));
        assert_eq!(casual_queue(Kind::Guest, casual).ok(), Some(true));
        let refused = casual_queue(Kind::Guest, rated).expect_err("M12");
        assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
        assert!(refused.message().contains("M12"), "{}", refused.message());
        let unknown = casual_queue(Kind::Account, 7).expect_err("unknown");
        assert_eq!(unknown.code(), tonic::Code::InvalidArgument);
    }
}

#[cfg(test)]
mod broken_transport_tests {
    use super::*;

    /// How a killed replica's callers see it: h2's UNKNOWN for the reset connection.
    fn reset() -> Status {
        Status::unknown("h2 protocol error: error reading a body from connection")
    }

    #[tokio::test]
    async fn a_call_cut_by_a_dead_replica_is_sent_again_until_a_live_one_answers() {
        let mut calls = 0;
        let answer = past_broken_transport(|| {
            calls += 1;
            let this = calls;
            async move { if this < 3 { Err(reset()) } else { Ok(this) } }
        })
        .await;
        assert_eq!(answer.ok(), Some(3), "answered on the third call");
    }

    #[tokio::test]
    async fn a_refusal_is_answered_at_once_and_not_sent_again() {
        let mut calls = 0;
        let answer: Result<(), Status> = past_broken_transport(|| {
            calls += 1;
            async {
                Err(Status::already_exists(
                    "player_id: ann already holds ticket t",
                ))
            }
        })
        .await;
        assert_eq!(answer.map_err(|s| s.code()), Err(Code::AlreadyExists));
        assert_eq!(calls, 1);
    }

    #[tokio::test]
    async fn no_replica_for_the_whole_patience_is_the_unavailable_the_contract_retries() {
        let answer: Result<(), Status> = past_broken_transport(|| async { Err(reset()) }).await;
        let status = answer.expect_err("nobody answers");
        assert_eq!(status.code(), Code::Unavailable, "not h2's UNKNOWN");
        assert!(
            status.message().contains("find a match again"),
            "{status:?}"
        );
    }
}
