//! Archiving finished games: what the archive keeps of a game (settings, players, outcome,
//! start and end, the moves in the game's notation, the event log, the final position and a
//! text export), and sending it to the accounts service's `RecordGames` (in batches, see
//! [`crate::ends`]).
//!
//! The outcome timer drives it (see `report_outcome`): a finished game's Redis keys are kept
//! for [`UNARCHIVED_RETENTION`] at commit time and shortened to the normal retention only
//! once the archive acknowledged the game, so a database outage never loses a game.
//!
//! A record is encoded once, where its game's `ReportOutcome` is served, from the event log's
//! stored bytes, and sent as it is ([`ludus_proto::archive_record`]): the events, every one
//! with its board view, are copied, not decoded and encoded again.

use std::time::Duration;

use ludus_proto::archive_record::{GameEventHead, encode_archived_game};
use ludus_proto::pb::{self, accounts_client::AccountsClient};
use ludus_server::Traced;
use prost::Message;
use tonic::Status;

/// How long a finished game that the archive has not acknowledged yet stays in Redis: the
/// outcome timer keeps trying for that long (a database outage of up to 30 days loses
/// nothing).
pub const UNARCHIVED_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Sends finished games to the archive; `RecordGames` is idempotent per game id.
#[derive(Clone, Debug)]
pub struct Archiver {
    accounts: AccountsClient<Traced>,
}

impl Archiver {
    pub fn new(accounts: AccountsClient<Traced>) -> Self {
        Archiver { accounts }
    }

    /// Archives a batch of games in one call (one transaction, see [`crate::ends`]), each an
    /// [`encoded_record`]: per game in order, `Ok` once the archive holds it, or the
    /// archive's refusal of that game alone. An `Err` (the archive unreachable, the database
    /// down) stored none of them.
    pub async fn record_all(&self, games: Vec<Vec<u8>>) -> Result<Vec<Result<(), Status>>, Status> {
        let count = games.len();
        let response = self
            .accounts
            .clone()
            .record_games(ludus_proto::archive_record::RecordGamesRequest { games })
            .await?
            .into_inner();
        if response.games.len() != count {
            return Err(Status::internal(format!(
                "the archive answered for {} games of {count}",
                response.games.len()
            )));
        }
        let newly = response.games.iter().filter(|g| g.newly_recorded).count();
        tracing::info!(games = count, newly, "games archived");
        Ok(response
            .games
            .into_iter()
            .map(|game| match game.refused.as_str() {
                "" => Ok(()),
                refused => Err(Status::invalid_argument(refused)),
            })
            .collect())
    }
}

/// The archive's record of a finished game, encoded (an `ArchivedGame`): from its first
/// event (`GameStarted`), its whole event log as stored (each an encoded `GameEvent`, in
/// order) and its final snapshot. An event that does not decode is an error.
pub fn encoded_record(
    started: &pb::GameStarted,
    events: &[impl AsRef<[u8]>],
    final_snapshot: pb::GameSnapshot,
) -> Result<Vec<u8>, prost::DecodeError> {
    let heads = events
        .iter()
        .map(|event| GameEventHead::decode(event.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    let moves: Vec<String> = heads
        .iter()
        .filter_map(|head| head.action_applied.as_ref().map(|a| a.notation.clone()))
        .collect();
    let started_at_unix_ms = heads.first().map_or(0, |e| e.at_unix_ms);
    let ended_at_unix_ms = heads.last().map_or(0, |e| e.at_unix_ms);
    let export_text = export_text(&final_snapshot, &moves);
    let without_events = pb::ArchivedGame {
        game_id: final_snapshot.game_id.clone(),
        ruleset: final_snapshot.ruleset.clone(),
        settings: started.settings.clone(),
        casual: started.casual,
        seats: started.seats.clone(),
        outcome: final_snapshot.outcome.clone(),
        started_at_unix_ms,
        ended_at_unix_ms,
        moves,
        events: Vec::new(),
        final_snapshot: Some(final_snapshot),
        export_text,
    };
    Ok(encode_archived_game(&without_events, events))
}

/// The game as text: a tag header (game, rule set, players, result) and the moves in the
/// game's notation, one numbered ply per line. Backgammon gets the same form (a
/// gnubg-importable match file is not written).
pub fn export_text(snapshot: &pb::GameSnapshot, moves: &[String]) -> String {
    let mut text = format!(
        "[Game \"{}\"]\n[Ruleset \"{}\"]\n",
        snapshot.game_id, snapshot.ruleset
    );
    for seat in &snapshot.seats {
        text.push_str(&format!(
            "[Seat{} \"{}\"]\n",
            seat.seat,
            seat.display_name.replace('"', "'")
        ));
    }
    if let Some(outcome) = &snapshot.outcome {
        let result = match pb::ResultKind::try_from(outcome.kind) {
            Ok(pb::ResultKind::Win) => {
                let winners: Vec<String> = outcome
                    .winners
                    .iter()
                    .map(|s| format!("seat {s}"))
                    .collect();
                format!("{} won", winners.join(", "))
            }
            Ok(pb::ResultKind::Draw) => "draw".to_owned(),
            _ => "cancelled".to_owned(),
        };
        text.push_str(&format!(
            "[Result \"{result}\"]\n[Reason \"{}\"]\n",
            outcome.reason.replace('"', "'")
        ));
    }
    text.push('\n');
    for (ply, notation) in moves.iter().enumerate() {
        text.push_str(&format!("{}. {notation}\n", ply + 1));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(seq: u64, at: i64, notation: &str) -> pb::GameEvent {
        pb::GameEvent {
            game_id: "g".into(),
            seq,
            at_unix_ms: at,
            kind: Some(pb::game_event::Kind::ActionApplied(pb::ActionApplied {
                notation: notation.into(),
                ..Default::default()
            })),
            // What the record copies without reading.
            view: Some(pb::GameView::default()),
            status: pb::GameStatus::Active as i32,
            traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_record_holds_the_moves_in_notation_the_times_and_the_export() {
        let started = pb::GameStarted {
            seats: vec![
                pb::SeatInfo {
                    seat: 0,
                    player_id: "a".into(),
                    display_name: "Ann".into(),
                    computer_level: String::new(),
                },
                pb::SeatInfo {
                    seat: 1,
                    player_id: "b".into(),
                    display_name: "Bob".into(),
                    computer_level: String::new(),
                },
            ],
            ..Default::default()
        };
        let events = vec![
            pb::GameEvent {
                game_id: "g".into(),
                seq: 1,
                at_unix_ms: 100,
                kind: Some(pb::game_event::Kind::Started(started.clone())),
                ..Default::default()
            },
            applied(2, 150, "H8"),
            applied(3, 190, "H9"),
        ];
        let snapshot = pb::GameSnapshot {
            game_id: "g".into(),
            ruleset: "caro/15/blocked-ends".into(),
            seats: started.seats.clone(),
            outcome: Some(pb::Outcome {
                kind: pb::ResultKind::Win as i32,
                winners: vec![0],
                reason: "C1: five in a row".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let stored: Vec<Vec<u8>> = events.iter().map(Message::encode_to_vec).collect();
        let record = encoded_record(&started, &stored, snapshot.clone()).expect("events decode");
        let game = pb::ArchivedGame::decode(record.as_slice()).expect("the record decodes");
        assert_eq!(game.moves, ["H8", "H9"]);
        assert_eq!((game.started_at_unix_ms, game.ended_at_unix_ms), (100, 190));
        assert_eq!(game.events, events, "every event whole, in order");
        assert_eq!(game.final_snapshot.as_ref(), Some(&snapshot));
        assert_eq!(game.seats, started.seats);
        assert_eq!(game.outcome, snapshot.outcome);
        assert!(
            game.export_text.contains("[Seat1 \"Bob\"]"),
            "{}",
            game.export_text
        );
        assert!(game.export_text.contains("[Result \"seat 0 won\"]"));
        assert!(
            game.export_text.ends_with("1. H8\n2. H9\n"),
            "{}",
            game.export_text
        );
        assert!(
            encoded_record(&started, &[vec![0xff_u8]], snapshot).is_err(),
            "an unreadable stored event fails the record"
        );
    }
}
