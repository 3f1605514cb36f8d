//! Request validation: every id and name is checked on receipt, before any store access.

use std::collections::HashSet;

use ludus_proto::ids::{validate_display_name, validate_id, validate_ruleset};
use ludus_proto::pb;

use crate::error::ServiceError;

/// Leaderboard page size when the request leaves `limit` at 0.
pub const DEFAULT_LEADERBOARD_LIMIT: u32 = 10;
/// Largest leaderboard page.
pub const MAX_LEADERBOARD_LIMIT: u32 = 100;

/// A report's players: valid, distinct ids and display names under the shared policy
/// (`ludus_proto::ids`); a rated game has at least two.
pub fn validate_report(request: &pb::ReportResultRequest) -> Result<(), ServiceError> {
    validate_id("game_id", &request.game_id)?;
    validate_ruleset("ruleset", &request.ruleset)?;
    let mut seen = HashSet::new();
    for (i, player) in request.players.iter().enumerate() {
        validate_id(&format!("players[{i}].player_id"), &player.player_id)?;
        validate_display_name(&format!("players[{i}].display_name"), &player.display_name)?;
        if !seen.insert(player.player_id.as_str()) {
            return Err(ServiceError::InvalidArgument(format!(
                "players[{i}].player_id: {} is listed twice",
                player.player_id
            )));
        }
    }
    if !request.cancelled && request.players.len() < 2 {
        return Err(ServiceError::InvalidArgument(
            "players: a rated game needs at least two players".into(),
        ));
    }
    Ok(())
}

/// The page size of a leaderboard request: 0 means the default; more than the maximum is
/// refused rather than silently cut.
pub fn leaderboard_limit(limit: u32) -> Result<u32, ServiceError> {
    match limit {
        0 => Ok(DEFAULT_LEADERBOARD_LIMIT),
        1..=MAX_LEADERBOARD_LIMIT => Ok(limit),
        _ => Err(ServiceError::InvalidArgument(format!(
            "limit: must be 1 to {MAX_LEADERBOARD_LIMIT}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(names: [&str; 2]) -> pb::ReportResultRequest {
        pb::ReportResultRequest {
            game_id: "g1".into(),
            ruleset: "caro/15/blocked-ends".into(),
            players: names
                .iter()
                .enumerate()
                .map(|(i, name)| pb::PlayerResult {
                    player_id: format!("p{i}"),
                    display_name: (*name).into(),
                    rank: u32::try_from(i).unwrap_or(0),
                    points: 0,
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn reports_hold_the_shared_id_and_name_policy() {
        assert!(validate_report(&report(["ann", "bob"])).is_ok());
        let too_long = "x".repeat(ludus_proto::ids::MAX_DISPLAY_NAME_CHARS + 1);
        let error = validate_report(&report(["ann", &too_long])).expect_err("33 characters");
        assert_eq!(
            error.to_string(),
            "players[1].display_name: must be 1 to 32 characters"
        );
        let error = validate_report(&report(["a\u{202E}nn", "bob"])).expect_err("bidi override");
        assert!(
            error
                .to_string()
                .starts_with("players[0].display_name: U+202E is not allowed"),
            "{error}"
        );
        let mut bad_pool = report(["ann", "bob"]);
        bad_pool.ruleset = "Caro/15".into();
        assert!(validate_report(&bad_pool).is_err());
    }

    #[test]
    fn limits() {
        assert_eq!(leaderboard_limit(0).ok(), Some(10));
        assert_eq!(leaderboard_limit(100).ok(), Some(100));
        assert!(leaderboard_limit(101).is_err());
    }
}
