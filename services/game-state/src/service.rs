//! The GameState gRPC service: live games, their clocks and their event logs.
//!
//! # Layout, from the top down (each file uses only files below it)
//! - this file: the gRPC trait; each RPC forwards to its handler.
//! - the handlers, one file per concern: [`handlers`] (creating, playing, reading games and
//!   the outcome report), [`draws`] (offers and answers), [`presence`] (disconnections,
//!   returns, C13 absences), [`turns`] (a turn's timer running out, a computer's turn,
//!   take-backs), [`analysis`] (the Kalah solver behind `AnalyzeMancala`).
//! - [`commit`]: how one change is committed (state, event and clock in one compare-and-set)
//!   and what can refuse it; a seated player's change and a server-side one with retries.
//! - [`clock`]: what a change that moves the game on plans with its commit (the next turn's
//!   timer, the autoplay or bot timer, the outcome report).
//! - [`base`]: what the service holds and the reads and timer writes every file above builds
//!   on; [`computer`]: who may sit in a computer seat and what a take-back keeps;
//!   [`live_cache`]: this replica's decoded copies of the games it committed last;
//!   [`random`]: the CSPRNG (and the scripted values of test builds).
//! - below the service: [`crate::model`] (the stored shape of a live game), the error type,
//!   the ratings and archive clients, the metrics.

mod analysis;
mod base;
mod clock;
mod commit;
mod computer;
mod draws;
mod handlers;
mod live_cache;
mod presence;
mod random;
mod turns;

use ludus_proto::pb::{self, game_state_server::GameState};
use tonic::{Request, Response, Status};
use tracing::Instrument;

pub use analysis::{DEFAULT_ANALYSIS_MS, MAX_ANALYSIS_MS, MAX_CONCURRENT_ANALYSES};
pub use base::{DEFAULT_FINISHED_GAME_RETENTION, GameStateService};
pub use clock::AUTOPLAY_DELAY_MS;
pub use handlers::{FINISHING_COMMIT_PATIENCE_MS, MAX_EVENTS_PAGE};
pub use live_cache::{DEFAULT_LIVE_CACHE_GAMES, LiveCache};

use crate::error::ServiceError;

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
        let answer = GameStateService::answer_action(self, request.into_inner()).await?;
        let mut response = Response::new(answer.response);
        // Read only by a caller in this process (extensions never cross the wire).
        if let Some(encoded) = answer.encoded {
            response.extensions_mut().insert(encoded);
        }
        Ok(response)
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
