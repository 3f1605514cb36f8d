//! gnubg's Position ID and Match ID: the standard way to exchange backgammon positions.
//!
//! Both are unpadded standard Base64 of a little-endian bit string (the first bit is the
//! least significant bit of the first byte).
//!
//! **Position ID** (14 characters, 80 bits): for each side, for its points 1 to 24 and then
//! its bar, as many `1` bits as it has checkers there followed by one `0`. gnubg writes its
//! `anBoard[0]` first, which is the side *not* on roll, then the side on roll (`anBoard[1]`);
//! the manual's prose says "player on roll first", but gnubg's code (`PositionKey` and
//! `DrawBoard`) and the ids it prints put the opponent first, so this module follows the
//! code. For the symmetric starting position both readings give `4HPwATDgc/ABMA`.
//!
//! **Match ID** (12 characters, 66 bits): cube log2 (4 bits), cube owner (2: 0, 1, or 3 for
//! the middle), player on roll (1), Crawford flag (1), game state (3), player to decide (1),
//! double offered (1), resignation offered (2), the two dice (3 + 3), match length (15; 0 for
//! money play) and the two scores (15 + 15).

use ludus_rules::Seat;
use serde::{Deserialize, Serialize};

use crate::board::Board;
use crate::error::BackgammonError;

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn encode_base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 2);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for k in 0..chars {
            let idx = (n >> (18 - 6 * k)) & 0x3f;
            out.push(char::from(BASE64[idx as usize]));
        }
    }
    out
}

fn decode_base64(text: &str, bytes: usize, what: &str) -> Result<Vec<u8>, BackgammonError> {
    let expected = (bytes * 8).div_ceil(6);
    let text = text.trim().trim_end_matches('=');
    if text.len() != expected {
        return Err(BackgammonError::new(
            "N2",
            format!(
                "a {what} has {expected} base64 characters, not {}",
                text.len()
            ),
        ));
    }
    let mut bits: u64 = 0;
    let mut nbits = 0u32;
    let mut out = Vec::with_capacity(bytes);
    for c in text.bytes() {
        let v = BASE64.iter().position(|&b| b == c).ok_or_else(|| {
            BackgammonError::new("N2", format!("{what} has a character outside base64"))
        })?;
        bits = (bits << 6) | v as u64;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            if out.len() < bytes {
                out.push((bits >> nbits) as u8);
            }
            bits &= (1 << nbits) - 1;
        }
    }
    Ok(out)
}

/// A little-endian bit string.
struct Bits {
    bytes: Vec<u8>,
    pos: usize,
}

impl Bits {
    fn new(bytes: usize) -> Self {
        Bits {
            bytes: vec![0; bytes],
            pos: 0,
        }
    }

    fn push(&mut self, value: u32, width: usize) {
        for k in 0..width {
            if (value >> k) & 1 == 1
                && let Some(b) = self.bytes.get_mut((self.pos + k) / 8)
            {
                *b |= 1 << ((self.pos + k) % 8);
            }
        }
        self.pos += width;
    }

    fn read(bytes: &[u8], pos: usize, width: usize) -> u32 {
        (0..width)
            .map(|k| {
                let p = pos + k;
                let bit = bytes.get(p / 8).map_or(0, |b| (b >> (p % 8)) & 1);
                u32::from(bit) << k
            })
            .sum()
    }
}

impl Board {
    /// gnubg's Position ID of this board with `on_roll` the player on roll.
    ///
    /// ```
    /// use ludus_backgammon::Board;
    /// assert_eq!(Board::START.position_id(0), "4HPwATDgc/ABMA");
    /// ```
    pub fn position_id(&self, on_roll: Seat) -> String {
        let counts = self.counts();
        let mut bits = Bits::new(10);
        for side in [(on_roll & 1) ^ 1, on_roll & 1] {
            for &c in &counts[side] {
                bits.push((1u32 << c) - 1, usize::from(c));
                bits.push(0, 1);
            }
        }
        encode_base64(&bits.bytes)
    }

    /// The board of a gnubg Position ID, `on_roll` being the player on roll.
    ///
    /// ```
    /// use ludus_backgammon::Board;
    /// assert_eq!(Board::from_position_id("4HPwATDgc/ABMA", 1).unwrap(), Board::START);
    /// ```
    pub fn from_position_id(id: &str, on_roll: Seat) -> Result<Board, BackgammonError> {
        let bytes = decode_base64(id, 10, "position id")?;
        let mut counts = [[0u8; 25]; 2];
        let mut pos = 0usize;
        for side in [(on_roll & 1) ^ 1, on_roll & 1] {
            for slot in counts[side].iter_mut() {
                let mut n = 0u8;
                while pos < 80 && Bits::read(&bytes, pos, 1) == 1 {
                    n = n.saturating_add(1);
                    pos += 1;
                }
                pos += 1;
                if pos > 80 {
                    return Err(BackgammonError::new(
                        "N2",
                        "the position id runs out of bits",
                    ));
                }
                *slot = n;
            }
        }
        Board::new(counts).map_err(|e| BackgammonError::new("N2", e.0))
    }
}

/// gnubg's game state field of the Match ID.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum GnubgGameState {
    /// `000`: no game started.
    NoGame,
    /// `001`: a game is being played.
    Playing,
    /// `010`: the game is over.
    Over,
    /// `011`: the game ended by resignation.
    Resigned,
    /// `100`: the game ended by a dropped double.
    Dropped,
}

/// Everything a gnubg Match ID holds.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct MatchKey {
    /// log2 of the cube value (0-15).
    pub cube_log: u8,
    /// The cube owner, `None` for the middle.
    pub cube_owner: Option<Seat>,
    /// The player on roll, or who just rolled.
    pub on_roll: Seat,
    /// Whether this is the Crawford game (B22).
    pub crawford: bool,
    /// The game state.
    pub state: GnubgGameState,
    /// The player who must act now (differs from `on_roll` while a double or a resignation
    /// waits for an answer).
    pub turn: Seat,
    /// Whether a double is being offered.
    pub doubled: bool,
    /// Resignation on offer: 0 none, 1 single, 2 gammon, 3 backgammon.
    pub resign: u8,
    /// The dice rolled, `[0, 0]` before the roll.
    pub dice: [u8; 2],
    /// Match length, 0 for money play.
    pub match_length: u16,
    /// Score of player 0 and player 1.
    pub score: [u16; 2],
}

impl MatchKey {
    /// The 12-character Match ID.
    ///
    /// The example of gnubg's manual: score 2-4 in a 9-point match, player 0 holds a 2-cube,
    /// player 1 has just rolled 5-2.
    /// ```
    /// use ludus_backgammon::gnubg::{GnubgGameState, MatchKey};
    /// let key = MatchKey {
    ///     cube_log: 1, cube_owner: Some(0), on_roll: 1, crawford: false,
    ///     state: GnubgGameState::Playing, turn: 1, doubled: false, resign: 0,
    ///     dice: [5, 2], match_length: 9, score: [2, 4],
    /// };
    /// assert_eq!(key.encode(), "QYkqASAAIAAA");
    /// assert_eq!(MatchKey::decode("QYkqASAAIAAA").unwrap(), key);
    /// ```
    pub fn encode(&self) -> String {
        let mut bits = Bits::new(9);
        bits.push(u32::from(self.cube_log.min(15)), 4);
        bits.push(self.cube_owner.map_or(3, |s| (s & 1) as u32), 2);
        bits.push((self.on_roll & 1) as u32, 1);
        bits.push(u32::from(self.crawford), 1);
        let state = match self.state {
            GnubgGameState::NoGame => 0,
            GnubgGameState::Playing => 1,
            GnubgGameState::Over => 2,
            GnubgGameState::Resigned => 3,
            GnubgGameState::Dropped => 4,
        };
        bits.push(state, 3);
        bits.push((self.turn & 1) as u32, 1);
        bits.push(u32::from(self.doubled), 1);
        bits.push(u32::from(self.resign.min(3)), 2);
        bits.push(u32::from(self.dice[0].min(7)), 3);
        bits.push(u32::from(self.dice[1].min(7)), 3);
        bits.push(u32::from(self.match_length.min(0x7fff)), 15);
        bits.push(u32::from(self.score[0].min(0x7fff)), 15);
        bits.push(u32::from(self.score[1].min(0x7fff)), 15);
        encode_base64(&bits.bytes)
    }

    /// Reads a Match ID.
    pub fn decode(id: &str) -> Result<MatchKey, BackgammonError> {
        let b = decode_base64(id, 9, "match id")?;
        let read = |pos: usize, width: usize| Bits::read(&b, pos, width);
        let cube_owner = match read(4, 2) {
            0 => Some(0),
            1 => Some(1),
            3 => None,
            _ => {
                return Err(BackgammonError::new(
                    "N2",
                    "the match id has no cube owner 2",
                ));
            }
        };
        let state = match read(8, 3) {
            0 => GnubgGameState::NoGame,
            1 => GnubgGameState::Playing,
            2 => GnubgGameState::Over,
            3 => GnubgGameState::Resigned,
            4 => GnubgGameState::Dropped,
            n => {
                return Err(BackgammonError::new(
                    "N2",
                    format!("the match id has an unknown game state {n}"),
                ));
            }
        };
        let dice = [read(15, 3) as u8, read(18, 3) as u8];
        if dice.iter().any(|&d| d > 6) || (dice[0] == 0) != (dice[1] == 0) {
            return Err(BackgammonError::new(
                "N2",
                "the match id holds impossible dice",
            ));
        }
        Ok(MatchKey {
            cube_log: read(0, 4) as u8,
            cube_owner,
            on_roll: read(6, 1) as Seat,
            crawford: read(7, 1) == 1,
            state,
            turn: read(11, 1) as Seat,
            doubled: read(12, 1) == 1,
            resign: read(13, 2) as u8,
            dice,
            match_length: read(21, 15) as u16,
            score: [read(36, 15) as u16, read(51, 15) as u16],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_id_matches_gnubg() {
        assert_eq!(Board::START.position_id(0), "4HPwATDgc/ABMA");
        assert_eq!(Board::START.position_id(1), "4HPwATDgc/ABMA");
        assert_eq!(
            Board::from_position_id("4HPwATDgc/ABMA", 0).unwrap(),
            Board::START
        );
    }

    /// A gnubg id checked against an XGID (XGID=-BDB-------------a------e-, the top player on
    /// roll): the side on roll has 5 on its ace point and 1 on its 8; the other side 2, 4 and
    /// 2 on its 1, 2 and 3 points. The id lists the side not on roll first.
    #[test]
    fn asymmetric_position_id_lists_the_opponent_first() {
        let b = Board::from_position_id("ewMAAD4gAAAAAA", 0).unwrap();
        assert_eq!(b.count(0, 1), 5);
        assert_eq!(b.count(0, 8), 1);
        assert_eq!(b.off(0), 9);
        assert_eq!((b.count(1, 1), b.count(1, 2), b.count(1, 3)), (2, 4, 2));
        assert_eq!(b.off(1), 7);
        assert_eq!(b.position_id(0), "ewMAAD4gAAAAAA");
    }

    #[test]
    fn match_id_of_the_gnubg_manual_decodes() {
        let k = MatchKey::decode("QYkqASAAIAAA").unwrap();
        assert_eq!(k.cube_log, 1);
        assert_eq!(k.cube_owner, Some(0));
        assert_eq!(k.on_roll, 1);
        assert_eq!(k.turn, 1);
        assert_eq!(k.dice, [5, 2]);
        assert_eq!(k.match_length, 9);
        assert_eq!(k.score, [2, 4]);
        assert_eq!(k.state, GnubgGameState::Playing);
    }

    #[test]
    fn match_id_from_gnubg_output_round_trips() {
        // Printed by gnubg next to position g9vBASSYZ8wBBg (bug-gnubg, July 2009).
        let k = MatchKey::decode("cIkmAQAAAAAA").unwrap();
        assert_eq!(k.cube_owner, None);
        assert_eq!(k.cube_log, 0);
        assert_eq!(k.on_roll, 1);
        assert_eq!(k.dice, [5, 1]);
        assert_eq!(k.encode(), "cIkmAQAAAAAA");
        let b = Board::from_position_id("g9vBASSYZ8wBBg", 1).unwrap();
        assert_eq!(b.position_id(1), "g9vBASSYZ8wBBg");
    }

    #[test]
    fn bad_ids_are_errors_not_panics() {
        assert!(Board::from_position_id("", 0).is_err());
        assert!(Board::from_position_id("!!!!!!!!!!!!!!", 0).is_err());
        assert!(Board::from_position_id("//////////////", 0).is_err());
        assert!(MatchKey::decode("////////////").is_err());
    }
}
