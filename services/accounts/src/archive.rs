//! The archive of finished games, as values: what each seat's result was, how a record is
//! stored (the protobuf `ArchivedGame`, LZ4-compressed, hex encoded), and the page token of
//! `ListPlayerGames`. The SQL lives in [`crate::store`].
//!
//! `RecordGames` hands each game over encoded (`ludus_proto::archive_record`): the archive
//! reads its head for the indexed columns and stores the bytes as they came (compressed),
//! without decoding the event log and encoding it again.

use ludus_proto::archive_record::ArchivedGameHead;
use ludus_proto::pb;
use prost::Message;

use crate::error::ServiceError;

/// Games per page when the caller does not say.
pub const DEFAULT_PAGE: u32 = 20;
/// Most games per page.
pub const MAX_PAGE: u32 = 100;

/// How a finished game went for one seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatResult {
    Won,
    Lost,
    Drawn,
    Cancelled,
}

impl SeatResult {
    /// The seat's result in `outcome`: a win for the seats it names as winners.
    pub fn of(outcome: Option<&pb::Outcome>, seat: u32) -> Self {
        let Some(outcome) = outcome else {
            return SeatResult::Cancelled;
        };
        match pb::ResultKind::try_from(outcome.kind) {
            Ok(pb::ResultKind::Win) if outcome.winners.contains(&seat) => SeatResult::Won,
            Ok(pb::ResultKind::Win) => SeatResult::Lost,
            Ok(pb::ResultKind::Draw) => SeatResult::Drawn,
            _ => SeatResult::Cancelled,
        }
    }

    /// As stored in `archived_game_players.result`.
    pub fn as_str(self) -> &'static str {
        match self {
            SeatResult::Won => "won",
            SeatResult::Lost => "lost",
            SeatResult::Drawn => "drawn",
            SeatResult::Cancelled => "cancelled",
        }
    }
}

/// How a record is stored compressed: this prefix, then the hex of the encoded `ArchivedGame`
/// as an LZ4 block with its length first (`lz4_flex::block::compress_prepend_size`).
/// Records written before compression are plain hex, which never holds `:`; both read back.
///
/// A record repeats the board in every event of its log: a 15-move Caro game is 7.5 KB
/// encoded, 15 KB as hex, and about a sixth of that compressed. The archive's SQL writes
/// were the largest cost of a game end in the all-in-one (BENCHMARKS.md, "Typed calls in one
/// process, records stored compressed"); LZ4 compresses at memory speed, so the saving is not
/// spent again on compressing.
const LZ4_PREFIX: &str = "lz4:";

/// The most a stored record may claim to unpack to: far above any game's record, and a
/// corrupt row's length never becomes an allocation of gigabytes.
const MAX_RECORD_BYTES: usize = 64 << 20;

/// The stored form of an encoded `ArchivedGame`: compressed, then hex (both databases store
/// the same text; no BYTEA/BLOB difference to bridge).
pub fn stored_record(record: &[u8]) -> String {
    let packed = lz4_flex::block::compress_prepend_size(record);
    let mut stored = String::with_capacity(LZ4_PREFIX.len() + 2 * packed.len());
    stored.push_str(LZ4_PREFIX);
    stored.push_str(&crate::model::hex(&packed));
    stored
}

/// The head of a decoded game (what [`ArchivedGameHead`] reads of its encoding).
pub fn head_of(game: &pb::ArchivedGame) -> ArchivedGameHead {
    ArchivedGameHead {
        game_id: game.game_id.clone(),
        ruleset: game.ruleset.clone(),
        casual: game.casual,
        seats: game.seats.clone(),
        outcome: game.outcome.clone(),
        started_at_unix_ms: game.started_at_unix_ms,
        ended_at_unix_ms: game.ended_at_unix_ms,
    }
}

/// Reads a stored record back.
pub fn decode_record(stored: &str) -> Result<pb::ArchivedGame, ServiceError> {
    let bytes = match stored.strip_prefix(LZ4_PREFIX) {
        Some(packed) => unpack(&unhex(packed)?)?,
        None => unhex(stored)?,
    };
    pb::ArchivedGame::decode(bytes.as_slice()).map_err(|_| ServiceError::Internal)
}

/// A record's bytes from its hex.
fn unhex(stored: &str) -> Result<Vec<u8>, ServiceError> {
    (0..stored.len())
        .step_by(2)
        .map(|i| {
            stored
                .get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
        })
        .collect::<Option<Vec<u8>>>()
        .ok_or(ServiceError::Internal)
}

/// A compressed record's bytes; its declared length is checked before anything is allocated.
fn unpack(packed: &[u8]) -> Result<Vec<u8>, ServiceError> {
    let declared = packed
        .first_chunk::<4>()
        .map(|length| u32::from_le_bytes(*length))
        .ok_or(ServiceError::Internal)?;
    if usize::try_from(declared).map_or(true, |length| length > MAX_RECORD_BYTES) {
        return Err(ServiceError::Internal);
    }
    lz4_flex::block::decompress_size_prepended(packed).map_err(|_| ServiceError::Internal)
}

/// Where a page of a player's games stops: the last game's end time and id (games are
/// listed by end time, then id, both descending). Its text form is `<ended_ms>.<game_id>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageCursor {
    pub ended_at_ms: i64,
    pub game_id: String,
}

impl PageCursor {
    pub fn to_token(&self) -> String {
        format!("{}.{}", self.ended_at_ms, self.game_id)
    }

    /// Parses a token from a previous page; anything else is INVALID_ARGUMENT.
    pub fn parse(token: &str) -> Result<Self, ServiceError> {
        let bad = || ServiceError::BadPageToken;
        let (ended, game_id) = token.split_once('.').ok_or_else(bad)?;
        let ended_at_ms = ended.parse().map_err(|_| bad())?;
        ludus_proto::ids::validate_id("page_token", game_id).map_err(|_| bad())?;
        Ok(PageCursor {
            ended_at_ms,
            game_id: game_id.to_owned(),
        })
    }
}

/// What `ListPlayerGames` shows of a game: everything but the move list, the event log and
/// the final snapshot, which `GetArchivedGame` returns.
pub fn summary(mut game: pb::ArchivedGame) -> pb::ArchivedGame {
    game.moves.clear();
    game.events.clear();
    game.final_snapshot = None;
    game.export_text.clear();
    game
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(winners: Vec<u32>) -> pb::Outcome {
        pb::Outcome {
            kind: pb::ResultKind::Win as i32,
            winners,
            ..Default::default()
        }
    }

    #[test]
    fn each_seat_gets_its_result() {
        assert_eq!(SeatResult::of(Some(&win(vec![1])), 1), SeatResult::Won);
        assert_eq!(SeatResult::of(Some(&win(vec![1])), 0), SeatResult::Lost);
        let draw = pb::Outcome {
            kind: pb::ResultKind::Draw as i32,
            ..Default::default()
        };
        assert_eq!(SeatResult::of(Some(&draw), 0), SeatResult::Drawn);
        let cancelled = pb::Outcome {
            kind: pb::ResultKind::Cancelled as i32,
            ..Default::default()
        };
        assert_eq!(SeatResult::of(Some(&cancelled), 0), SeatResult::Cancelled);
    }

    #[test]
    fn records_and_page_tokens_round_trip() {
        let game = pb::ArchivedGame {
            game_id: "g1".into(),
            moves: vec!["H8".into(), "H9".into()],
            ..Default::default()
        };
        assert_eq!(
            decode_record(&stored_record(&game.encode_to_vec())).expect("decodes"),
            game
        );
        assert_eq!(
            ArchivedGameHead::decode(game.encode_to_vec().as_slice()).expect("head"),
            head_of(&game),
            "the head of a decoded game is what the archive reads of its encoding"
        );
        assert!(decode_record("zz").is_err());
        let cursor = PageCursor {
            ended_at_ms: 17,
            game_id: "01JABC".into(),
        };
        assert_eq!(
            PageCursor::parse(&cursor.to_token()).expect("parses"),
            cursor
        );
        for bad in ["", "17", "x.g", "17.a b"] {
            assert!(PageCursor::parse(bad).is_err(), "{bad:?}");
        }
    }

    /// A record as the archive holds one: every event carries the whole board.
    fn caro_like_record(moves: usize) -> pb::ArchivedGame {
        let cells = vec![0; 225];
        let events = (0..moves)
            .map(|seq| {
                let mut cells = cells.clone();
                for placed in cells.iter_mut().take(seq) {
                    *placed = 1;
                }
                pb::GameEvent {
                    game_id: "01JCARO".into(),
                    seq: seq as u64 + 1,
                    at_unix_ms: 1_733_300_000_000 + seq as i64,
                    view: Some(pb::GameView {
                        view: Some(pb::game_view::View::Caro(pb::CaroView {
                            board_size: 15,
                            cells,
                            ..Default::default()
                        })),
                    }),
                    ..Default::default()
                }
            })
            .collect();
        pb::ArchivedGame {
            game_id: "01JCARO".into(),
            ruleset: "caro/15/blocked-ends".into(),
            moves: (0..moves).map(|i| format!("H{i}")).collect(),
            events,
            ..Default::default()
        }
    }

    #[test]
    fn records_are_stored_compressed_and_plain_hex_records_still_read() {
        let game = caro_like_record(15);
        let encoded = game.encode_to_vec();
        let stored = stored_record(&encoded);
        assert!(stored.starts_with(LZ4_PREFIX), "{}", &stored[..8]);
        assert_eq!(decode_record(&stored).expect("decodes"), game);
        let plain_hex = crate::model::hex(&encoded);
        assert!(
            stored.len() * 4 < plain_hex.len(),
            "a log of boards compresses well: {} stored against {} as plain hex",
            stored.len(),
            plain_hex.len()
        );
        // Records archived before compression are plain hex: they read as before.
        assert_eq!(decode_record(&plain_hex).expect("decodes"), game);
    }

    #[test]
    fn a_corrupt_compressed_record_is_an_error_not_a_panic_or_a_huge_allocation() {
        let stored = stored_record(&caro_like_record(5).encode_to_vec());
        for bad in [
            "lz4:".to_owned(),
            "lz4:0a".to_owned(),
            "lz4:zz".to_owned(),
            // Cut short.
            stored[..stored.len() / 2].to_owned(),
            // Claims to unpack to 4 GiB.
            format!("lz4:ffffffff{}", &stored[LZ4_PREFIX.len() + 8..]),
            // Claims less than it holds.
            format!("lz4:10000000{}", &stored[LZ4_PREFIX.len() + 8..]),
        ] {
            assert!(decode_record(&bad).is_err(), "{bad:.40}");
        }
    }
}
