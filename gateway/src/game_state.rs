//! Game-state as the gateway calls it.
//!
//! Between processes, over gRPC ([`GameStateClient`] on a traced channel). When game-state
//! runs in this process (the all-in-one), its handlers are called with the messages as they
//! are: no encoding of the move's request and of the answer with its event and board view,
//! no HTTP request, credential check or routing (`ludus_server::local`, "Typed calls on the
//! hot path"). Either way the caller sees the same answers and statuses: they come from the
//! same handlers.

use ludus_proto::pb::{self, game_state_client::GameStateClient, game_state_server::GameState};
use ludus_server::Traced;
use ludus_server::local::{Local, Offered};
use tonic::{Request, Response, Status};
use tracing::Instrument as _;

/// Game-state, over gRPC or in this process.
#[derive(Clone, Debug)]
pub struct GameStateLink {
    grpc: GameStateClient<Traced>,
    local: Local<dyn GameState>,
}

impl GameStateLink {
    /// Game-state at `url` (`http://host:port`); in this process when its server offers its
    /// handlers under that address.
    pub fn new(url: &str) -> anyhow::Result<GameStateLink> {
        Ok(GameStateLink {
            grpc: GameStateClient::new(ludus_server::traced_channel(url)?),
            local: Local::at(url),
        })
    }

    /// The handlers, while game-state runs in this process.
    fn local(&self) -> Option<Offered<dyn GameState>> {
        self.local.get()
    }
}

/// The methods the gateway calls, each to the handlers in this process when they are there.
macro_rules! calls {
    ($($method:ident = $name:literal($request:ty) -> $response:ty;)*) => {
        impl GameStateLink {
            $(
                pub async fn $method(
                    &mut self,
                    request: $request,
                ) -> Result<Response<$response>, Status> {
                    match self.local() {
                        Some(local) => {
                            let span = local.span(concat!("/ludus.v1.GameState/", $name));
                            let call = local.handlers.$method(Request::new(request));
                            call.instrument(span).await
                        }
                        None => self.grpc.$method(request).await,
                    }
                }
            )*
        }
    };
}

calls! {
    apply_action = "ApplyAction"(pb::ApplyActionRequest) -> pb::ApplyActionResponse;
    get_snapshot = "GetSnapshot"(pb::GetSnapshotRequest) -> pb::GameSnapshot;
    read_events = "ReadEvents"(pb::ReadEventsRequest) -> pb::ReadEventsResponse;
    update_presence = "UpdatePresence"(pb::UpdatePresenceRequest) -> pb::UpdatePresenceResponse;
    create_game = "CreateGame"(pb::CreateGameRequest) -> pb::CreateGameResponse;
    list_games = "ListGames"(pb::ListGamesRequest) -> pb::ListGamesResponse;
    analyze_mancala = "AnalyzeMancala"(pb::AnalyzeMancalaInternalRequest) -> pb::AnalyzeMancalaResponse;
    resign = "Resign"(pb::PlayerRequest) -> pb::ApplyActionResponse;
    offer_draw = "OfferDraw"(pb::PlayerRequest) -> pb::ApplyActionResponse;
    respond_draw = "RespondDraw"(pb::RespondDrawInternalRequest) -> pb::ApplyActionResponse;
    answer_absence = "AnswerAbsence"(pb::AnswerAbsenceInternalRequest) -> pb::ApplyActionResponse;
    take_back = "TakeBack"(pb::PlayerRequest) -> pb::ApplyActionResponse;
}
