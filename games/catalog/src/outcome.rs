//! Seats and outcomes in the contract, the same for every game.

use ludus_proto::pb;
use ludus_rules::{GameResult, Outcome, Seat};

/// A seat as the contract numbers it.
pub fn seat_u32(seat: Seat) -> u32 {
    u32::try_from(seat).unwrap_or(u32::MAX)
}

/// How a game ended, as the contract shows it.
pub fn outcome_to_pb(outcome: &Outcome) -> pb::Outcome {
    let (kind, winners) = match &outcome.result {
        GameResult::Win { winners } => (
            pb::ResultKind::Win,
            winners.iter().map(|s| seat_u32(*s)).collect(),
        ),
        GameResult::Draw => (pb::ResultKind::Draw, Vec::new()),
        GameResult::Cancelled => (pb::ResultKind::Cancelled, Vec::new()),
    };
    pb::Outcome {
        kind: kind as i32,
        winners,
        ranks: outcome.ranks.clone(),
        points: outcome.points.clone(),
        rule: outcome.rule.clone(),
        reason: outcome.reason.clone(),
    }
}
