//! A game-state service on the memory store with timers that never fire, for tests that
//! call the service directly.
// Every test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use ludus_game_state::{GameStateService, ratings::OutcomeReporter};
use ludus_proto::pb::{
    self,
    game_settings::Options,
    ratings_client::RatingsClient,
    timers_client::TimersClient,
    timers_server::{Timers, TimersServer},
};
use ludus_store::{Backend, GameStore};
use tokio::net::TcpListener;
use tonic::{Request, Response, Status};

/// Accepts every timer and never fires one.
struct IdleTimers;

#[tonic::async_trait]
impl Timers for IdleTimers {
    async fn arm(
        &self,
        _: Request<pb::ArmTimerRequest>,
    ) -> Result<Response<pb::ArmTimerResponse>, Status> {
        Ok(Response::new(pb::ArmTimerResponse {}))
    }

    async fn cancel(
        &self,
        _: Request<pb::CancelTimerRequest>,
    ) -> Result<Response<pb::CancelTimerResponse>, Status> {
        Ok(Response::new(pb::CancelTimerResponse { cancelled: true }))
    }
}

pub async fn service() -> GameStateService {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TimersServer::new(IdleTimers))
            .serve_with_incoming(ludus_telemetry::server::accept_with_nodelay(listener)),
    );
    let timers = ludus_telemetry::traced_channel(&format!("http://{address}")).expect("timers");
    // Outcomes are reported when their timer fires, and these timers never fire: ratings is
    // never dialled.
    let ratings = ludus_telemetry::traced_channel("http://127.0.0.1:9").expect("ratings");
    GameStateService::new(
        GameStore::new(Backend::memory()),
        TimersClient::new(timers),
        OutcomeReporter::new(RatingsClient::new(ratings)),
        60_000,
    )
}

/// Creates `game_id` with `options`, no turn clock, seats 0 and 1 held by `players` (each
/// player's id is also their display name).
pub async fn create_game(
    service: &GameStateService,
    game_id: &str,
    options: Options,
    players: [&str; 2],
) {
    service
        .create_game(pb::CreateGameRequest {
            game_id: game_id.to_owned(),
            settings: Some(pb::GameSettings {
                options: Some(options),
                turn_time_ms: 0,
            }),
            players: players
                .map(|player| pb::PlayerRef {
                    player_id: player.to_owned(),
                    display_name: player.to_owned(),
                })
                .to_vec(),
            casual: false,
        })
        .await
        .expect("create");
}

/// `player_id`'s request about `game_id` (resign, offer a draw).
pub fn player(game_id: &str, player_id: &str) -> pb::PlayerRequest {
    pb::PlayerRequest {
        game_id: game_id.to_owned(),
        player_id: player_id.to_owned(),
    }
}
