//! A game-state service on the memory store with timers that never fire, for tests that
//! call the service directly.
// Every test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use ludus_game_state::{GameStateService, ratings::OutcomeReporter};
use ludus_proto::pb::{self, game_settings::Options, ratings_client::RatingsClient};
use ludus_store::{Backend, GameStore, TimerStore};

/// A game-state service on a fresh memory store (see [`service_on`]).
pub async fn service() -> GameStateService {
    service_on(Backend::memory())
}

/// A game-state service on `backend`. Its timers are written there and no worker claims
/// them: they never fire. Outcomes are reported when their timer fires, so ratings is never
/// dialled.
pub fn service_on(backend: Backend) -> GameStateService {
    let ratings = ludus_server::traced_channel("http://127.0.0.1:9").expect("ratings");
    GameStateService::new(
        GameStore::new(backend.clone()),
        TimerStore::new(backend),
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
    create_timed_game(service, game_id, options, players, 0).await;
}

/// A fresh [`service`] holding `game_id`: a default Caro game between `x` (seat 0) and `o`,
/// no turn clock.
pub async fn service_with_caro_game(game_id: &str) -> GameStateService {
    let service = service().await;
    create_game(
        &service,
        game_id,
        Options::Caro(pb::CaroOptions::default()),
        ["x", "o"],
    )
    .await;
    service
}

/// [`create_game`] with a turn clock of `turn_time_ms` (0: none).
pub async fn create_timed_game(
    service: &GameStateService,
    game_id: &str,
    options: Options,
    players: [&str; 2],
    turn_time_ms: u64,
) {
    service
        .create_game(pb::CreateGameRequest {
            game_id: game_id.to_owned(),
            settings: Some(pb::GameSettings {
                options: Some(options),
                turn_time_ms,
            }),
            players: players
                .map(|player| pb::PlayerRef {
                    player_id: player.to_owned(),
                    display_name: player.to_owned(),
                    computer_level: String::new(),
                })
                .to_vec(),
            casual: false,
            room_code: String::new(),
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
