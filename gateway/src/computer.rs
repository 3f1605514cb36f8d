//! Games against the computer (ARCHITECTURE.md, "Computer players"): `PlayComputer` starts one at once, `TakeBack`
//! (routed straight to game-state in `service.rs`) undoes the human's last action (C17, M11).
//! The table (seats, levels, the human's clock) is the catalog's
//! (`ludus_catalog::bots::computer_game`); game-state creates and plays it, the bots service
//! plays the computer seats.

use ludus_proto::pb;
use tonic::{Request, Response, Status};

use crate::service::GatewayService;

impl GatewayService {
    #[tracing::instrument(name = "play_computer", skip_all)]
    pub(crate) async fn start_computer_game(
        &self,
        request: Request<pb::PlayComputerRequest>,
    ) -> Result<Response<pb::PlayComputerResponse>, Status> {
        let caller = self.authenticated(&request)?;
        let request = request.into_inner();
        let settings = request.settings.ok_or_else(|| {
            Status::from(ludus_catalog::CatalogError::InvalidArgument(
                "settings: required".into(),
            ))
        })?;
        let human = pb::PlayerRef {
            player_id: caller.player_id.clone(),
            display_name: caller.display_name.clone(),
            computer_level: String::new(),
        };
        let tag = ulid::Ulid::generate().to_string();
        let (settings, players) = ludus_catalog::bots::computer_game(
            &settings,
            &request.level,
            request.computer_first,
            human,
            &tag,
        )?;
        let mut game_state = self.game_state.clone();
        let created = game_state
            .create_game(pb::CreateGameRequest {
                game_id: String::new(),
                settings: Some(settings),
                players,
                // Unrated: a computer has no rating, and a result against one says little.
                casual: true,
                room_code: String::new(),
            })
            .await?
            .into_inner();
        let game_id = created.game.map(|game| game.game_id).unwrap_or_default();
        tracing::info!(%game_id, level = %request.level, "game against the computer started");
        let game = game_state
            .get_snapshot(pb::GetSnapshotRequest {
                game_id,
                viewer_player_id: caller.player_id,
                omit_position: false,
            })
            .await?
            .into_inner();
        Ok(Response::new(pb::PlayComputerResponse { game: Some(game) }))
    }
}
