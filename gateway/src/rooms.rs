//! The room RPCs of the gateway (ARCHITECTURE.md, "Rooms"): each authenticates the caller from the token
//! (whether they hold an account comes from the token's kind, never from the request) and
//! forwards to the rooms service as one `RoomCommand`. Looking a room up by code (join, read,
//! subscribe) is rate limited per player, per address and per network on top of the general
//! limit, so codes cannot be enumerated. `SubscribeRoom` is the games' resumable stream ([`crate::fanout::Resume`])
//! over the room's log and feed.

use std::pin::Pin;

use futures::Stream;
use ludus_proto::codec::EncodedEvent;
use ludus_proto::pb::{self, room_command::Command, rooms_client::RoomsClient};
use std::time::Duration;

use ludus_server::Traced;
use ludus_store::{Clock, FeedSubscription, RoomStore, StoreError};
use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::{StreamExt, wrappers::ReceiverStream};
use tonic::{Request, Response, Status};

use crate::auth::{Caller, Kind};
use crate::fanout::{EventLog, LogPage, OpenStream, Resume, STREAM_BUFFER, STREAMS, StreamItem};
use crate::service::GatewayService;

/// `SubscribeRoom`'s events, encoded as the rooms service stored them.
pub type RoomEventStream = Pin<Box<dyn Stream<Item = Result<EncodedEvent, Status>> + Send>>;

/// What the gateway needs for rooms.
#[derive(Clone, Debug)]
pub struct RoomsGateway {
    pub(crate) rooms: RoomsClient<Traced>,
    /// The rooms' live feed (pub/sub), read directly like the games' feed.
    pub(crate) store: RoomStore,
    /// Times the presence heartbeat (a manual clock's advance wakes it).
    pub(crate) clock: Clock,
}

impl RoomsGateway {
    pub fn new(rooms: RoomsClient<Traced>, store: RoomStore, clock: Clock) -> Self {
        RoomsGateway {
            rooms,
            store,
            clock,
        }
    }
}

/// How often a room stream renews its member's presence lease (`Rooms.TouchRoom`); the
/// rooms service's grace is three of these (`ludus_rooms::service::PRESENCE_GRACE`).
pub const ROOM_HEARTBEAT: Duration = Duration::from_secs(20);

/// While a member's room stream is open: touches the room at once, then every
/// [`ROOM_HEARTBEAT`] of the clock's time (waking early when a manual clock moves, so tests
/// that move time see the stream renew like real time would). Runs until dropped with the
/// stream; a failed touch is retried at the next beat (the lease outlasts two).
async fn heartbeat(mut rooms: RoomsClient<Traced>, clock: Clock, code: String, player_id: String) {
    let beat = u64::try_from(ROOM_HEARTBEAT.as_millis()).unwrap_or(u64::MAX);
    loop {
        let touched_at = clock.now_ms();
        let touch = pb::TouchRoomRequest {
            code: code.clone(),
            player_id: player_id.clone(),
        };
        if let Err(status) = rooms.touch_room(touch).await {
            tracing::debug!(
                code,
                message = status.message(),
                "room presence not renewed"
            );
        }
        while clock.now_ms().saturating_sub(touched_at) < beat {
            tokio::select! {
                () = tokio::time::sleep(ROOM_HEARTBEAT) => break,
                () = clock.advanced() => {}
            }
        }
    }
}

fn room_caller(caller: &Caller) -> pb::RoomCaller {
    pb::RoomCaller {
        player_id: caller.player_id.clone(),
        display_name: caller.display_name.clone(),
        account: caller.kind == Kind::Account,
    }
}

impl GatewayService {
    /// Forwards one room command for the authenticated caller.
    async fn room_command<T>(
        &self,
        request: Request<T>,
        code: impl FnOnce(&T) -> String,
        command: impl FnOnce(T) -> Command,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        let caller = self.authenticated(&request)?;
        let peer = crate::limits::peer(&request);
        let body = request.into_inner();
        let code = code(&body);
        let command = command(body);
        if matches!(command, Command::Join(_)) {
            self.limits.check_code_lookup(&caller.player_id, peer)?;
        }
        let snapshot = self
            .rooms
            .rooms
            .clone()
            .command(pb::RoomCommand {
                code,
                caller: Some(room_caller(&caller)),
                command: Some(command),
            })
            .await?;
        Ok(snapshot)
    }

    pub(crate) async fn room_create(
        &self,
        request: Request<pb::CreateRoomRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        let caller = self.authenticated(&request)?;
        let body = request.into_inner();
        self.rooms
            .rooms
            .clone()
            .create_room(pb::CreateRoomInternalRequest {
                caller: Some(room_caller(&caller)),
                settings: body.settings,
                watch: body.watch,
            })
            .await
    }

    pub(crate) async fn room_join(
        &self,
        request: Request<pb::JoinRoomRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::Join)
            .await
    }

    pub(crate) async fn room_leave(
        &self,
        request: Request<pb::RoomCodeRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::Leave)
            .await
    }

    pub(crate) async fn room_take_seat(
        &self,
        request: Request<pb::TakeSeatRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::TakeSeat)
            .await
    }

    pub(crate) async fn room_leave_seat(
        &self,
        request: Request<pb::RoomCodeRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::LeaveSeat)
            .await
    }

    pub(crate) async fn room_set_ready(
        &self,
        request: Request<pb::SetReadyRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::SetReady)
            .await
    }

    pub(crate) async fn room_update_settings(
        &self,
        request: Request<pb::UpdateRoomSettingsRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::UpdateSettings)
            .await
    }

    pub(crate) async fn room_start(
        &self,
        request: Request<pb::RoomCodeRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::Start)
            .await
    }

    pub(crate) async fn room_pause(
        &self,
        request: Request<pb::PauseRoomCountdownRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::Pause)
            .await
    }

    pub(crate) async fn room_kick(
        &self,
        request: Request<pb::RoomMemberRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::Kick)
            .await
    }

    pub(crate) async fn room_hand_over(
        &self,
        request: Request<pb::RoomMemberRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::HandOver)
            .await
    }

    pub(crate) async fn room_chat(
        &self,
        request: Request<pb::SendRoomChatRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::Chat)
            .await
    }

    pub(crate) async fn room_add_computer(
        &self,
        request: Request<pb::AddComputerPlayerRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        self.room_command(request, |r| r.code.clone(), Command::AddComputer)
            .await
    }

    pub(crate) async fn room_get(
        &self,
        request: Request<pb::RoomCodeRequest>,
    ) -> Result<Response<pb::RoomSnapshot>, Status> {
        let caller = self.authenticated(&request)?;
        self.limits
            .check_code_lookup(&caller.player_id, crate::limits::peer(&request))?;
        self.rooms
            .rooms
            .clone()
            .get_room(pb::GetRoomRequest {
                code: request.into_inner().code,
            })
            .await
    }

    pub(crate) async fn room_list(
        &self,
        request: Request<pb::ListPublicRoomsRequest>,
    ) -> Result<Response<pb::ListPublicRoomsResponse>, Status> {
        self.authenticated(&request)?;
        self.rooms
            .rooms
            .clone()
            .list_public_rooms(request.into_inner())
            .await
    }

    pub(crate) async fn room_subscribe(
        &self,
        request: Request<pb::SubscribeRoomRequest>,
    ) -> Result<Response<RoomEventStream>, Status> {
        let caller = self.authenticated(&request)?;
        self.limits
            .check_code_lookup(&caller.player_id, crate::limits::peer(&request))?;
        let request = request.into_inner();
        let permit = self.limits.open_stream(&caller.player_id)?;
        // Fail fast on an unknown code, before the stream opens; the canonical code names
        // the room's keys.
        let snapshot = self
            .rooms
            .rooms
            .clone()
            .get_room(pb::GetRoomRequest { code: request.code })
            .await?
            .into_inner();
        let code = snapshot.room.map(|r| r.code).unwrap_or_default();
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let mut resume = Resume {
            last: request.after_seq,
            tx,
            log: RoomLog {
                code,
                rooms: self.rooms.rooms.clone(),
                store: self.rooms.store.clone(),
            },
        };
        let stopping = self.stopping.clone();
        let beat = heartbeat(
            self.rooms.rooms.clone(),
            self.rooms.clock.clone(),
            resume.log.code.clone(),
            caller.player_id,
        );
        tokio::spawn(async move {
            let _open = OpenStream::new(&STREAMS);
            // The member is present while their stream runs: the heartbeat ends with it.
            tokio::select! {
                _ = resume.run(stopping) => {}
                () = beat => {}
            }
            drop(permit);
        });
        let unboxed = ReceiverStream::new(rx).map(|item: StreamItem| item.map_err(|s| *s));
        Ok(Response::new(Box::pin(unboxed)))
    }
}

/// A room's log: read through the rooms service, live from the store's room feed. A room's
/// log never ends; its stream runs until the client leaves or the server stops.
struct RoomLog {
    code: String,
    rooms: RoomsClient<Traced>,
    store: RoomStore,
}

/// Room events asked for per page: a page that holds this many may have more behind it (the
/// rooms service's own maximum is no smaller, so a full page is never mistaken for the end).
const ROOM_EVENTS_PAGE: u32 = 500;

impl EventLog for RoomLog {
    async fn page(&mut self, after_seq: u64) -> Result<LogPage, Status> {
        let page = self
            .rooms
            .read_room_events(pb::ReadRoomEventsRequest {
                code: self.code.clone(),
                after_seq,
                limit: ROOM_EVENTS_PAGE,
            })
            .await?
            .into_inner();
        let full = page.events.len() >= ROOM_EVENTS_PAGE as usize;
        let events = page
            .events
            .into_iter()
            .map(|event| {
                let seq = event.seq;
                let bytes = bytes::Bytes::from(event.encode_to_vec());
                (seq, EncodedEvent::from_encoded(bytes), false)
            })
            .collect();
        Ok(LogPage { events, full })
    }

    async fn subscribe(&self) -> Result<FeedSubscription, StoreError> {
        self.store.subscribe(&self.code).await
    }

    const FEED: &'static str = "ludus:room:{CODE}:live";

    fn ends(_payload: &[u8]) -> Result<bool, Status> {
        Ok(false)
    }
}
