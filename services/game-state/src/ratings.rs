//! Reporting finished games to the ratings service.

use ludus_proto::pb::{self, ratings_client::RatingsClient};
use ludus_rules::{GameResult, Outcome};
use ludus_server::Traced;
use tonic::Status;

/// Sends outcomes to ratings; ratings is idempotent per game id, so repeats are harmless.
#[derive(Clone, Debug)]
pub struct OutcomeReporter {
    ratings: RatingsClient<Traced>,
}

impl OutcomeReporter {
    pub fn new(ratings: RatingsClient<Traced>) -> Self {
        OutcomeReporter { ratings }
    }

    /// Reports a batch of finished games in one call (see [`crate::ends`]): per game in
    /// order, whether ratings recorded it just now, or its refusal of that game alone. An
    /// `Err` (ratings unreachable) recorded none of them.
    pub async fn report_all(
        &self,
        results: Vec<pb::ReportResultRequest>,
    ) -> Result<Vec<Result<bool, Status>>, Status> {
        let count = results.len();
        let response = self
            .ratings
            .clone()
            .report_results(pb::ReportResultsRequest { results })
            .await?
            .into_inner();
        if response.results.len() != count {
            return Err(Status::internal(format!(
                "ratings answered for {} games of {count}",
                response.results.len()
            )));
        }
        let newly = response
            .results
            .iter()
            .filter(|r| r.result.as_ref().is_some_and(|r| r.newly_recorded))
            .count();
        tracing::info!(games = count, newly, "outcomes reported");
        Ok(response
            .results
            .into_iter()
            .map(|answer| match answer.result {
                Some(result) if answer.code == 0 => Ok(result.newly_recorded),
                _ => Err(Status::new(tonic::Code::from(answer.code), answer.message)),
            })
            .collect())
    }
}

/// What ratings is told of a finished game: its players' ranks and points in seat order,
/// and whether it was cancelled (nothing is rated then).
pub fn result_request(
    game_id: &str,
    ruleset: &str,
    seats: &[pb::SeatInfo],
    outcome: &Outcome,
) -> pb::ReportResultRequest {
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
    pb::ReportResultRequest {
        game_id: game_id.to_owned(),
        ruleset: ruleset.to_owned(),
        players,
        cancelled: outcome.result == GameResult::Cancelled,
    }
}
