//! Reporting finished games to the ratings service.

use ludus_proto::pb::{self, ratings_client::RatingsClient};
use ludus_rules::{GameResult, Outcome};
use ludus_server::Traced;

use crate::error::ServiceError;

/// Sends outcomes to ratings; ratings is idempotent per game id, so repeats are harmless.
#[derive(Clone, Debug)]
pub struct OutcomeReporter {
    ratings: RatingsClient<Traced>,
}

impl OutcomeReporter {
    pub fn new(ratings: RatingsClient<Traced>) -> Self {
        OutcomeReporter { ratings }
    }

    /// Reports one finished game; returns whether ratings recorded it just now.
    pub async fn report(
        &self,
        game_id: &str,
        ruleset: &str,
        seats: &[pb::SeatInfo],
        outcome: &Outcome,
    ) -> Result<bool, ServiceError> {
        let cancelled = outcome.result == GameResult::Cancelled;
        let players = seats
            .iter()
            .enumerate()
            .map(|(i, seat)| pb::PlayerResult {
                player_id: seat.player_id.clone(),
                display_name: seat.display_name.clone(),
                rank: outcome.ranks.get(i).copied().unwrap_or(0),
                points: outcome.points.get(i).copied().unwrap_or(0),
            })
            .collect();
        let response = self
            .ratings
            .clone()
            .report_result(pb::ReportResultRequest {
                game_id: game_id.to_owned(),
                ruleset: ruleset.to_owned(),
                players,
                cancelled,
            })
            .await?
            .into_inner();
        tracing::info!(
            game_id,
            ruleset,
            newly = response.newly_recorded,
            "outcome reported"
        );
        Ok(response.newly_recorded)
    }
}
