//! The archive's records as bytes: `Accounts.RecordGames` carries each finished game as an
//! encoded `ArchivedGame` that neither end decodes whole.
//!
//! A record holds the game's whole event log, every event with its board view: kilobytes per
//! game, hundreds of kilobytes for a long one. Game-state builds it from the event log's
//! stored bytes (an event's encoding is the same alone or inside the record's `repeated
//! GameEvent events`), and accounts stores it as it came, reading only its head
//! ([`ArchivedGameHead`]) for the columns it indexes. Decoding and encoding it as messages
//! cost a batch of game ends one uninterrupted poll of 20-25 ms on a worker that also serves
//! moves, and most of the archive's CPU (BENCHMARKS.md, "Game ends in bulk").
//!
//! Only the Rust types change (`build.rs`): the wire, the descriptors and every other client
//! keep `RecordGamesRequest { repeated ArchivedGame games = 1 }`, whose encoding is the same
//! bytes as `repeated bytes games = 1`.

use crate::pb;

/// `ludus.v1.RecordGamesRequest` as the `RecordGames` client sends it and its server reads
/// it: the games (at most 1,000, distinct game ids), each an encoded `ArchivedGame`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RecordGamesRequest {
    /// Each an encoded `ArchivedGame`.
    #[prost(bytes = "vec", repeated, tag = "1")]
    pub games: Vec<Vec<u8>>,
}

/// What the archive indexes of an encoded `ArchivedGame`: `ArchivedGame`'s fields 1-8
/// but the settings. Decoding a record as this skips its moves, event log, final snapshot
/// and export by their lengths, without reading them.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArchivedGameHead {
    /// The game.
    #[prost(string, tag = "1")]
    pub game_id: String,
    /// Its rule set.
    #[prost(string, tag = "2")]
    pub ruleset: String,
    /// Unrated (M12).
    #[prost(bool, tag = "4")]
    pub casual: bool,
    /// The players in seat order.
    #[prost(message, repeated, tag = "5")]
    pub seats: Vec<pb::SeatInfo>,
    /// How it ended.
    #[prost(message, optional, tag = "6")]
    pub outcome: Option<pb::Outcome>,
    /// When it started, Unix milliseconds.
    #[prost(int64, tag = "7")]
    pub started_at_unix_ms: i64,
    /// When it ended, Unix milliseconds.
    #[prost(int64, tag = "8")]
    pub ended_at_unix_ms: i64,
}

/// What a record needs of a stored `GameEvent`: its time and, for an applied action, the
/// notation. The `kind` oneof's `action_applied` arm is a message field on the wire; the
/// rest of the event, its board view above all, is skipped by its length.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GameEventHead {
    /// When the server committed the event, Unix milliseconds.
    #[prost(int64, tag = "3")]
    pub at_unix_ms: i64,
    /// Set when a seat acted.
    #[prost(message, optional, tag = "11")]
    pub action_applied: Option<ActionAppliedHead>,
}

/// `ActionApplied`'s notation.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ActionAppliedHead {
    /// The action in the game's notation, e.g. "H8".
    #[prost(string, tag = "3")]
    pub notation: String,
}

/// `ArchivedGame.events`' field number.
const EVENTS_FIELD: u32 = 10;

/// An encoded `ArchivedGame`: `without_events` (its `events` empty) followed by `events`,
/// each an encoded `GameEvent`, in order. A decoder reads fields in any order and keeps a
/// repeated field's elements in the order they come.
pub fn encode_archived_game(
    without_events: &pb::ArchivedGame,
    events: &[impl AsRef<[u8]>],
) -> Vec<u8> {
    use prost::Message as _;
    use prost::encoding::{WireType, encode_key, encode_varint, key_len};
    let events_len: usize = events
        .iter()
        .map(|event| {
            let len = event.as_ref().len();
            key_len(EVENTS_FIELD) + prost::length_delimiter_len(len) + len
        })
        .sum();
    let mut record = Vec::with_capacity(without_events.encoded_len() + events_len);
    without_events.encode_raw(&mut record);
    for event in events.iter().map(AsRef::as_ref) {
        encode_key(EVENTS_FIELD, WireType::LengthDelimited, &mut record);
        encode_varint(event.len() as u64, &mut record);
        record.extend_from_slice(event);
    }
    record
}

#[cfg(test)]
mod tests {
    use prost::Message as _;

    use super::*;

    fn event(seq: u64, notation: Option<&str>) -> pb::GameEvent {
        pb::GameEvent {
            game_id: "g1".into(),
            seq,
            at_unix_ms: 1_000 + seq as i64,
            kind: Some(match notation {
                Some(notation) => pb::game_event::Kind::ActionApplied(pb::ActionApplied {
                    seat: 1,
                    notation: notation.into(),
                    ..Default::default()
                }),
                None => pb::game_event::Kind::Started(pb::GameStarted::default()),
            }),
            view: Some(pb::GameView::default()),
            status: pb::GameStatus::Active as i32,
            traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
            ..Default::default()
        }
    }

    fn game() -> pb::ArchivedGame {
        pb::ArchivedGame {
            game_id: "g1".into(),
            ruleset: "caro/15/blocked-ends".into(),
            settings: Some(pb::GameSettings::default()),
            casual: true,
            seats: vec![pb::SeatInfo {
                seat: 1,
                player_id: "p1".into(),
                display_name: "Ann".into(),
                computer_level: String::new(),
            }],
            outcome: Some(pb::Outcome {
                kind: pb::ResultKind::Win as i32,
                winners: vec![1],
                ..Default::default()
            }),
            started_at_unix_ms: 7,
            ended_at_unix_ms: 9,
            moves: vec!["H8".into()],
            events: vec![event(1, None), event(2, Some("H8"))],
            final_snapshot: Some(pb::GameSnapshot::default()),
            export_text: "1. H8\n".into(),
        }
    }

    #[test]
    fn a_record_built_from_stored_events_decodes_as_the_whole_game() {
        let whole = game();
        let stored: Vec<Vec<u8>> = whole.events.iter().map(|e| e.encode_to_vec()).collect();
        let without_events = pb::ArchivedGame {
            events: Vec::new(),
            ..whole.clone()
        };
        let record = encode_archived_game(&without_events, &stored);
        assert_eq!(
            pb::ArchivedGame::decode(record.as_slice()).expect("decodes"),
            whole
        );
    }

    #[test]
    fn the_record_games_request_is_the_declared_message_on_the_wire() {
        let games = vec![game(), pb::ArchivedGame::default()];
        let sent = RecordGamesRequest {
            games: games.iter().map(|g| g.encode_to_vec()).collect(),
        };
        let declared =
            pb::RecordGamesRequest::decode(sent.encode_to_vec().as_slice()).expect("decodes");
        assert_eq!(declared.games, games);
        // And back: a client built from the .proto files sends what the server reads.
        let read = RecordGamesRequest::decode(declared.encode_to_vec().as_slice()).expect("reads");
        assert_eq!(read, sent);
    }

    #[test]
    fn heads_read_what_the_archive_indexes_and_skip_the_rest() {
        let whole = game();
        let head =
            ArchivedGameHead::decode(whole.encode_to_vec().as_slice()).expect("decodes the head");
        assert_eq!(head.game_id, "g1");
        assert_eq!(head.ruleset, whole.ruleset);
        assert!(head.casual);
        assert_eq!(head.seats, whole.seats);
        assert_eq!(head.outcome, whole.outcome);
        assert_eq!((head.started_at_unix_ms, head.ended_at_unix_ms), (7, 9));

        let applied = GameEventHead::decode(event(2, Some("H8")).encode_to_vec().as_slice())
            .expect("decodes");
        assert_eq!(applied.at_unix_ms, 1_002);
        assert_eq!(
            applied.action_applied.map(|a| a.notation).as_deref(),
            Some("H8")
        );
        let started =
            GameEventHead::decode(event(1, None).encode_to_vec().as_slice()).expect("decodes");
        assert_eq!(started.action_applied, None, "not an applied action");
        assert!(ArchivedGameHead::decode([0xff_u8].as_slice()).is_err());
    }
}
