//! Request validation: every id and name is checked on receipt, before any store access.

use std::collections::HashSet;

use ludus_proto::pb;

use crate::error::ServiceError;

/// Longest player or game id.
pub const MAX_ID_LEN: usize = 64;
/// Longest rule set name (e.g. `caro/15/blocked-ends/exactly-five`).
pub const MAX_RULESET_LEN: usize = 100;
/// Longest display name kept with a rating.
pub const MAX_DISPLAY_NAME_CHARS: usize = 100;
/// Leaderboard page size when the request leaves `limit` at 0.
pub const DEFAULT_LEADERBOARD_LIMIT: u32 = 10;
/// Largest leaderboard page.
pub const MAX_LEADERBOARD_LIMIT: u32 = 100;

/// Player and game ids: 1 to 64 of `[A-Za-z0-9_-]`.
pub fn validate_id(field: &str, id: &str) -> Result<(), ServiceError> {
    if id.is_empty() || id.len() > MAX_ID_LEN {
        return Err(ServiceError::InvalidArgument(format!(
            "{field}: must be 1 to {MAX_ID_LEN} characters"
        )));
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(ServiceError::InvalidArgument(format!(
            "{field}: only letters, digits, '-' and '_' are allowed"
        )));
    }
    Ok(())
}

/// Rule set names: 1 to 100 of `[a-z0-9/_-]`.
pub fn validate_ruleset(ruleset: &str) -> Result<(), ServiceError> {
    if ruleset.is_empty() || ruleset.len() > MAX_RULESET_LEN {
        return Err(ServiceError::InvalidArgument(format!(
            "ruleset: must be 1 to {MAX_RULESET_LEN} characters"
        )));
    }
    if !ruleset
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"/_-".contains(&b))
    {
        return Err(ServiceError::InvalidArgument(
            "ruleset: only lowercase letters, digits, '/', '-' and '_' are allowed".into(),
        ));
    }
    Ok(())
}

/// A report's players: valid, distinct ids and bounded names; a rated game has at least two.
pub fn validate_report(request: &pb::ReportResultRequest) -> Result<(), ServiceError> {
    validate_id("game_id", &request.game_id)?;
    validate_ruleset(&request.ruleset)?;
    let mut seen = HashSet::new();
    for (i, player) in request.players.iter().enumerate() {
        validate_id(&format!("players[{i}].player_id"), &player.player_id)?;
        if player.display_name.chars().count() > MAX_DISPLAY_NAME_CHARS {
            return Err(ServiceError::InvalidArgument(format!(
                "players[{i}].display_name: at most {MAX_DISPLAY_NAME_CHARS} characters"
            )));
        }
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

    #[test]
    fn ids_and_rulesets() {
        assert!(validate_id("player_id", "abc_-9Z").is_ok());
        assert!(validate_id("player_id", "").is_err());
        assert!(validate_id("player_id", "a b").is_err());
        assert!(validate_id("player_id", &"a".repeat(65)).is_err());
        assert!(validate_ruleset("caro/15/blocked-ends").is_ok());
        assert!(validate_ruleset("Caro/15").is_err());
        assert!(validate_ruleset("").is_err());
    }

    #[test]
    fn limits() {
        assert_eq!(leaderboard_limit(0).ok(), Some(10));
        assert_eq!(leaderboard_limit(100).ok(), Some(100));
        assert!(leaderboard_limit(101).is_err());
    }
}
