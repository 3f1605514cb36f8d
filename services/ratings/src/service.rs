//! The Ratings gRPC service: idempotent result reports, ratings and leaderboards.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use ludus_proto::ids::{validate_id, validate_ruleset};
use ludus_proto::pb::{self, ratings_server::Ratings};
use ludus_store::{RatedGame, RatingEntry, RatingStore, RatingUpdate, RecordOutcome};
use prost::Message;
use tonic::{Request, Response, Status};

use crate::elo::{self, INITIAL_RATING, Standing};
use crate::error::ServiceError;
use crate::model::{leaderboard_limit, validate_report};

/// How many times a report re-reads and recomputes after another report changed one of its
/// players in between, before giving up with ABORTED (the caller retries later).
pub const MAX_RECORD_ATTEMPTS: usize = 8;

/// The most games one `ReportResults` call records (the request's limit).
pub const MAX_REPORT_BATCH: usize = 1000;

/// The ratings service.
#[derive(Clone, Debug)]
pub struct RatingsService {
    store: RatingStore,
}

impl RatingsService {
    /// A service over `store`.
    pub fn new(store: RatingStore) -> Self {
        RatingsService { store }
    }

    /// The stored response of a game recorded before, marked as not new.
    async fn recorded(
        &self,
        game_id: &str,
    ) -> Result<Option<pb::ReportResultResponse>, ServiceError> {
        let Some(bytes) = self.store.result(game_id).await? else {
            return Ok(None);
        };
        decode_recorded(game_id, &bytes).map(Some)
    }

    /// The stored original when `game_id` was recorded in the meantime.
    async fn already_recorded(
        &self,
        game_id: &str,
    ) -> Result<pb::ReportResultResponse, ServiceError> {
        self.recorded(game_id).await?.ok_or_else(|| {
            ServiceError::Internal(format!("game {game_id} is recorded but has no result"))
        })
    }

    async fn report(
        &self,
        request: pb::ReportResultRequest,
    ) -> Result<pb::ReportResultResponse, ServiceError> {
        validate_report(&request)?;
        let game_id = request.game_id.as_str();
        if let Some(original) = self.recorded(game_id).await? {
            return Ok(original);
        }
        if request.cancelled {
            let response = pb::ReportResultResponse {
                newly_recorded: true,
                changes: Vec::new(),
            };
            if self
                .store
                .record_unrated(game_id, &response.encode_to_vec())
                .await?
            {
                tracing::info!(game_id, "cancelled game recorded without rating changes");
                return Ok(response);
            }
            return self.already_recorded(game_id).await;
        }
        let ids: Vec<String> = request
            .players
            .iter()
            .map(|p| p.player_id.clone())
            .collect();
        for _ in 0..MAX_RECORD_ATTEMPTS {
            let entries = self.store.get(&request.ruleset, &ids).await?;
            let (updates, response) = compute(&request.players, &entries);
            match self
                .store
                .record(
                    &request.ruleset,
                    game_id,
                    &updates,
                    &response.encode_to_vec(),
                )
                .await?
            {
                RecordOutcome::Recorded => {
                    tracing::info!(game_id, ruleset = %request.ruleset, "result recorded");
                    return Ok(response);
                }
                RecordOutcome::AlreadyRecorded => return self.already_recorded(game_id).await,
                RecordOutcome::Conflict => {
                    tracing::debug!(game_id, "ratings changed while computing; retrying");
                }
            }
        }
        Err(ServiceError::Aborted(format!(
            "game_id: {game_id}: players' ratings kept changing; retry"
        )))
    }

    /// Records a batch of games in order, each with its own answer, as if each were its
    /// own `ReportResult` one after another: games of the same players rate in the batch's
    /// order, a refusal fails its game alone, a repeat answers the original.
    ///
    /// In bulk: one read of every game's marker, one read of every player's rating per rule
    /// set, every game computed from those (a player's later game from what the earlier one
    /// writes), then the games written in order by the store's few scripts. A game that
    /// meets another writer's change (or was recorded in the meantime) stops the bulk write;
    /// it and the games after it go one by one as `ReportResult` does (re-read, recompute,
    /// retry). A failure of a bulk step sends every game not yet answered that way too, so
    /// each gets its own answer. Per game this was three Redis round trips, one after
    /// another; per batch it is now two plus one per 32 games (BENCHMARKS.md, "Game ends in
    /// bulk").
    async fn report_all(
        &self,
        request: pb::ReportResultsRequest,
    ) -> Result<pb::ReportResultsResponse, ServiceError> {
        if request.results.len() > MAX_REPORT_BATCH {
            return Err(ServiceError::InvalidArgument(format!(
                "results: at most {MAX_REPORT_BATCH} in one batch"
            )));
        }
        let reports = request.results;
        let mut answers: Vec<Option<Result<pb::ReportResultResponse, ServiceError>>> =
            reports.iter().map(|_| None).collect();
        if let Err(error) = self.report_in_bulk(&reports, &mut answers).await {
            tracing::warn!(%error, "bulk rating write failed; recording the batch game by game");
        }
        let mut results = Vec::with_capacity(reports.len());
        for (report, answer) in reports.into_iter().zip(answers) {
            let answer = match answer {
                Some(answer) => answer,
                None => self.report(report).await,
            };
            results.push(match answer {
                Ok(result) => pb::ReportedResult {
                    result: Some(result),
                    code: 0,
                    message: String::new(),
                },
                Err(error) => {
                    let status = Status::from(error);
                    pb::ReportedResult {
                        result: None,
                        code: status.code() as i32,
                        message: status.message().to_owned(),
                    }
                }
            });
        }
        Ok(pb::ReportResultsResponse { results })
    }

    /// The bulk part of [`RatingsService::report_all`]: answers the games it settles
    /// (refused, recorded before, recorded now) and leaves the others (cancelled games, a
    /// game named twice, the games from a stop on) to be reported one by one after it.
    async fn report_in_bulk(
        &self,
        reports: &[pb::ReportResultRequest],
        answers: &mut [Option<Result<pb::ReportResultResponse, ServiceError>>],
    ) -> Result<(), ServiceError> {
        let game_ids: Vec<String> = reports.iter().map(|r| r.game_id.clone()).collect();
        let markers = self.store.results(&game_ids).await?;
        let mut named = HashSet::new();
        let mut rated = Vec::new();
        for (i, (report, marker)) in reports.iter().zip(markers).enumerate() {
            if let Err(refusal) = validate_report(report) {
                answers[i] = Some(Err(refusal));
            } else if let Some(marker) = marker {
                answers[i] = Some(decode_recorded(&report.game_id, &marker));
            } else if !report.cancelled && named.insert(report.game_id.as_str()) {
                rated.push(i);
            }
        }
        // Every player's entry before the batch, then as each game in order leaves it.
        let mut entries: HashMap<(&str, &str), Option<RatingEntry>> = HashMap::new();
        let mut players_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for &i in &rated {
            let players = players_of.entry(reports[i].ruleset.as_str()).or_default();
            players.extend(reports[i].players.iter().map(|p| p.player_id.as_str()));
        }
        for (ruleset, players) in players_of {
            let ids: Vec<String> = players.iter().map(|&p| p.to_owned()).collect();
            let read = self.store.get(ruleset, &ids).await?;
            entries.extend(players.into_iter().map(|p| (ruleset, p)).zip(read));
        }
        let mut games = Vec::with_capacity(rated.len());
        let mut responses = Vec::with_capacity(rated.len());
        for &i in &rated {
            let report = &reports[i];
            let ruleset = report.ruleset.as_str();
            let before: Vec<Option<RatingEntry>> = report
                .players
                .iter()
                // Read above for every player of a rated game.
                .map(|p| {
                    entries
                        .get(&(ruleset, p.player_id.as_str()))
                        .cloned()
                        .flatten()
                })
                .collect();
            let (updates, response) = compute(&report.players, &before);
            // `compute` answers the players in the report's order.
            for (player, u) in report.players.iter().zip(&updates) {
                let after = RatingEntry {
                    player_id: u.player_id.clone(),
                    display_name: u.display_name.clone(),
                    rating: u.rating,
                    games: u.games,
                    version: u.expected_version + 1,
                };
                if let Some(entry) = entries.get_mut(&(ruleset, player.player_id.as_str())) {
                    *entry = Some(after);
                }
            }
            games.push(RatedGame {
                ruleset: report.ruleset.clone(),
                game_id: report.game_id.clone(),
                updates,
                result: response.encode_to_vec(),
            });
            responses.push(response);
        }
        let (recorded, stopped) = self.store.record_in_order(&games).await?;
        for ((&i, game), response) in rated.iter().zip(&games).zip(responses).take(recorded) {
            tracing::info!(game_id = %game.game_id, ruleset = %game.ruleset, "result recorded");
            answers[i] = Some(Ok(response));
        }
        if let (Some(stopped), Some(game)) = (stopped, games.get(recorded)) {
            tracing::debug!(
                game_id = %game.game_id,
                ?stopped,
                "ratings changed under the batch; the rest go one by one"
            );
        }
        Ok(())
    }

    /// The player's 1-based place on the leaderboard, 0 when unranked.
    async fn rank_of(&self, ruleset: &str, player_id: &str) -> Result<u32, ServiceError> {
        let place = self.store.rank(ruleset, player_id).await?;
        Ok(place.map_or(0, |p| u32::try_from(p + 1).unwrap_or(u32::MAX)))
    }
}

/// The response stored when `game_id` was recorded, marked as not new.
fn decode_recorded(game_id: &str, bytes: &[u8]) -> Result<pb::ReportResultResponse, ServiceError> {
    let mut response = pb::ReportResultResponse::decode(bytes)
        .map_err(|e| ServiceError::Internal(format!("stored result of {game_id}: {e}")))?;
    response.newly_recorded = false;
    Ok(response)
}

/// The conditional updates and the response for one rated game.
fn compute(
    players: &[pb::PlayerResult],
    entries: &[Option<RatingEntry>],
) -> (Vec<RatingUpdate>, pb::ReportResultResponse) {
    let standings: Vec<Standing> = players
        .iter()
        .zip(entries)
        .map(|(p, e)| Standing {
            rating: e.as_ref().map_or(INITIAL_RATING, |e| e.rating),
            rank: p.rank,
        })
        .collect();
    let after = elo::rate(&standings);
    let mut updates = Vec::with_capacity(players.len());
    let mut changes = Vec::with_capacity(players.len());
    for ((player, entry), (standing, rating)) in
        players.iter().zip(entries).zip(standings.iter().zip(after))
    {
        updates.push(RatingUpdate {
            player_id: player.player_id.clone(),
            display_name: player.display_name.clone(),
            expected_version: entry.as_ref().map_or(0, |e| e.version),
            rating,
            games: entry.as_ref().map_or(0, |e| e.games).saturating_add(1),
        });
        changes.push(pb::RatingChange {
            player_id: player.player_id.clone(),
            before: standing.rating,
            after: rating,
        });
    }
    let response = pb::ReportResultResponse {
        newly_recorded: true,
        changes,
    };
    (updates, response)
}

fn rating_to_pb(ruleset: &str, entry: RatingEntry, rank: u32) -> pb::Rating {
    pb::Rating {
        ruleset: ruleset.to_owned(),
        player_id: entry.player_id,
        display_name: entry.display_name,
        rating: entry.rating,
        games: entry.games,
        rank,
    }
}

#[tonic::async_trait]
impl Ratings for RatingsService {
    #[tracing::instrument(skip_all, fields(game_id = %request.get_ref().game_id))]
    async fn report_result(
        &self,
        request: Request<pb::ReportResultRequest>,
    ) -> Result<Response<pb::ReportResultResponse>, Status> {
        Ok(Response::new(self.report(request.into_inner()).await?))
    }

    #[tracing::instrument(skip_all, fields(games = request.get_ref().results.len()))]
    async fn report_results(
        &self,
        request: Request<pb::ReportResultsRequest>,
    ) -> Result<Response<pb::ReportResultsResponse>, Status> {
        Ok(Response::new(self.report_all(request.into_inner()).await?))
    }

    #[tracing::instrument(skip_all, fields(player_id = %request.get_ref().player_id))]
    async fn get_rating(
        &self,
        request: Request<pb::RatingsGetRatingRequest>,
    ) -> Result<Response<pb::Rating>, Status> {
        let request = request.into_inner();
        validate_ruleset("ruleset", &request.ruleset)?;
        validate_id("player_id", &request.player_id)?;
        let entry = self
            .store
            .get(&request.ruleset, std::slice::from_ref(&request.player_id))
            .await
            .map_err(ServiceError::from)?
            .into_iter()
            .next()
            .flatten();
        let rating = match entry {
            Some(entry) => {
                let rank = self.rank_of(&request.ruleset, &request.player_id).await?;
                rating_to_pb(&request.ruleset, entry, rank)
            }
            None => pb::Rating {
                ruleset: request.ruleset,
                player_id: request.player_id,
                display_name: String::new(),
                rating: INITIAL_RATING,
                games: 0,
                rank: 0,
            },
        };
        Ok(Response::new(rating))
    }

    #[tracing::instrument(skip_all, fields(ruleset = %request.get_ref().ruleset))]
    async fn get_leaderboard(
        &self,
        request: Request<pb::RatingsGetLeaderboardRequest>,
    ) -> Result<Response<pb::RatingsGetLeaderboardResponse>, Status> {
        let request = request.into_inner();
        validate_ruleset("ruleset", &request.ruleset)?;
        let limit = leaderboard_limit(request.limit)?;
        let offset = request.offset as usize;
        let page = self
            .store
            .top(&request.ruleset, offset, limit as usize)
            .await
            .map_err(ServiceError::from)?;
        let entries = page
            .into_iter()
            .enumerate()
            .map(|(i, entry)| {
                let rank = u32::try_from(offset + i + 1).unwrap_or(u32::MAX);
                rating_to_pb(&request.ruleset, entry, rank)
            })
            .collect();
        Ok(Response::new(pb::RatingsGetLeaderboardResponse { entries }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_counts_games_and_versions() {
        let players = vec![
            pb::PlayerResult {
                player_id: "a".into(),
                display_name: "A".into(),
                rank: 0,
                points: 0,
            },
            pb::PlayerResult {
                player_id: "b".into(),
                display_name: "B".into(),
                rank: 1,
                points: 0,
            },
        ];
        let known = RatingEntry {
            player_id: "b".into(),
            display_name: "B".into(),
            rating: 1200.0,
            games: 3,
            version: 7,
        };
        let (updates, response) = compute(&players, &[None, Some(known)]);
        assert_eq!(updates[0].expected_version, 0);
        assert_eq!(updates[0].games, 1);
        assert_eq!(updates[1].expected_version, 7);
        assert_eq!(updates[1].games, 4);
        assert_eq!(response.changes[0].after, 1216.0);
        assert_eq!(response.changes[1].after, 1184.0);
    }
}
