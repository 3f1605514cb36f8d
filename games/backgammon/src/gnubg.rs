//! gnubg's Position ID and Match ID: the standard way to exchange backgammon positions.
//!
//! Both are unpadded standard Base64 of a little-endian bit string (the first bit is the
//! least significant bit of the first byte). The ids this module writes are byte-identical to
//! those of GNU Backgammon 1.1 (checked against rows its Python package `gnubg` wrote, in
//! `tests/fixtures/gnubg_ids.txt`).
//!
//! **Position ID** (14 characters, 80 bits): for each side, for its points 1 to 24 and then
//! its bar, as many `1` bits as it has checkers there followed by one `0`. gnubg writes its
//! `anBoard[0]` first, which is the side *not* on roll, then the side on roll (`anBoard[1]`);
//! the manual's prose says "player on roll first", but gnubg's code (`PositionKey` and
//! `DrawBoard`) and the ids it prints put the opponent first, so this module follows the
//! code. For the symmetric starting position both readings give `4HPwATDgc/ABMA`.
//!
//! **Match ID** (12 characters, 72 bits of which 67 are used):
//!
//! | bits  | width | field |
//! |-------|-------|-------|
//! | 0-3   | 4     | log2 of the cube value |
//! | 4-5   | 2     | cube owner: 0, 1, or 3 for the middle |
//! | 6     | 1     | player on roll (`fMove`) |
//! | 7     | 1     | Crawford game |
//! | 8-10  | 3     | game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped |
//! | 11    | 1     | player who must act now (`fTurn`) |
//! | 12    | 1     | a double is offered |
//! | 13-14 | 2     | resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon |
//! | 15-17 | 3     | first die (the **higher** one: a roll has one id whatever order it came in) |
//! | 18-20 | 3     | second die |
//! | 21-35 | 15    | match length, 0 for money play |
//! | 36-50 | 15    | score of player 0 |
//! | 51-65 | 15    | score of player 1 |
//! | 66    | 1     | set when the Jacoby rule is **not** in use: every match-play id, and money ids without Jacoby (B19) |
//!
//! How gnubg fills the fields, and so how [`crate::Backgammon::match_key`] does:
//! - A double on offer: `fMove` is the doubler, `fTurn` the doubled player, the cube as it
//!   was. A **beaver** (B18) awaiting the doubler's answer: gnubg turns the cube at once, so
//!   the cube shows twice its value owned by the beaverer, and `fTurn` is the doubler again.
//!   That is the only legal state where a double is offered and `fTurn == fMove`.
//! - A resignation on offer (B21): `fMove` is the resigner, `fTurn` the opponent, the dice
//!   stay when the offer came after the roll.
//! - A finished game: the score already includes the game's points (in money play too: gnubg
//!   counts a session), and the Crawford bit is the *next* game's. After a last checker is
//!   borne off, `fMove` and `fTurn` pass to the loser and the dice are cleared; after a
//!   dropped double or an accepted resignation they stay as they were while it was on offer.

use ludus_rules::Seat;
use serde::{Deserialize, Serialize};

use crate::action::ResignLevel;
use crate::board::{Board, side_name};
use crate::error::BackgammonError;
use crate::game::Phase;
use crate::matchplay::MATCH_LENGTHS;
use crate::options::{BackgammonOptions, MAX_CUBE_LOG, MatchGame};

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
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
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
    /// The dice rolled, `[0, 0]` before the roll. [`MatchKey::encode`] writes the higher die
    /// first, as gnubg does, so [`MatchKey::decode`] always gives them in that order.
    pub dice: [u8; 2],
    /// Match length, 0 for money play.
    pub match_length: u16,
    /// Score of player 0 and player 1.
    pub score: [u16; 2],
    /// Whether the Jacoby rule is in use (B19): only ever in money play. Bit 66 of the id is
    /// its negation.
    pub jacoby: bool,
}

/// The dice with the higher first, the order gnubg writes them in.
pub fn higher_first(dice: [u8; 2]) -> [u8; 2] {
    [dice[0].max(dice[1]), dice[0].min(dice[1])]
}

/// `phase` as gnubg's ids record it: the dice of a roll (also under a resignation offer) with
/// the higher first, since the ids keep the roll, not the order it was rolled in. A game read
/// back from its ids has this phase.
pub fn id_phase(phase: Phase) -> Phase {
    match phase {
        Phase::Play { dice } => Phase::Play {
            dice: higher_first(dice),
        },
        Phase::ResignOffered { level, dice } => Phase::ResignOffered {
            level,
            dice: dice.map(higher_first),
        },
        other => other,
    }
}

impl MatchKey {
    /// The 12-character Match ID.
    ///
    /// The example of gnubg's manual: score 2-4 in a 9-point match, player 0 holds a 2-cube,
    /// player 1 has just rolled 5-2. The manual predates bit 66; gnubg 1.1 sets it for every
    /// match-play id (the Jacoby rule is a money rule), so its last character is `E`.
    /// ```
    /// use ludus_backgammon::gnubg::{GnubgGameState, MatchKey};
    /// let key = MatchKey {
    ///     cube_log: 1, cube_owner: Some(0), on_roll: 1, crawford: false,
    ///     state: GnubgGameState::Playing, turn: 1, doubled: false, resign: 0,
    ///     dice: [5, 2], match_length: 9, score: [2, 4], jacoby: false,
    /// };
    /// assert_eq!(key.encode(), "QYkqASAAIAAE");
    /// assert_eq!(MatchKey::decode("QYkqASAAIAAE").unwrap(), key);
    /// // Dice rolled 2 then 5 have the same id.
    /// assert_eq!(MatchKey { dice: [2, 5], ..key }.encode(), "QYkqASAAIAAE");
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
        let [high, low] = higher_first(self.dice);
        bits.push(u32::from(high.min(7)), 3);
        bits.push(u32::from(low.min(7)), 3);
        bits.push(u32::from(self.match_length.min(0x7fff)), 15);
        bits.push(u32::from(self.score[0].min(0x7fff)), 15);
        bits.push(u32::from(self.score[1].min(0x7fff)), 15);
        bits.push(u32::from(!self.jacoby), 1);
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
        let dice = higher_first([read(15, 3) as u8, read(18, 3) as u8]);
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
            jacoby: read(66, 1) == 0,
        })
    }
}

/// A game in progress read from a Position ID and a Match ID, checked against the rules, in
/// the engine's terms. Built by [`import`], turned into a game by
/// [`crate::Backgammon::from_gnubg_ids`].
pub(crate) struct ImportedGame {
    pub options: BackgammonOptions,
    pub board: Board,
    pub on_roll: Seat,
    pub phase: Phase,
    pub cube_log: u8,
    pub cube_owner: Option<Seat>,
    pub automatic_doubles: u8,
}

fn refuse(rule: &'static str, message: impl Into<String>) -> BackgammonError {
    BackgammonError::new(rule, message)
}

/// Reads a Position ID + Match ID pair into a game in progress, refusing any pair that no
/// legal game can reach, with the rule it breaks. `options` supplies what the ids do not
/// carry (beavers, automatic doubles and their limit, for money play); the Match ID decides
/// money or match, the score, the Crawford game and the Jacoby rule.
pub(crate) fn import(
    position_id: &str,
    match_id: &str,
    options: &BackgammonOptions,
) -> Result<ImportedGame, BackgammonError> {
    let key = MatchKey::decode(match_id)?;
    match key.state {
        GnubgGameState::Playing => {}
        GnubgGameState::NoGame => {
            return Err(refuse(
                "B4",
                "the match id holds no game in progress (game state 0)",
            ));
        }
        GnubgGameState::Over | GnubgGameState::Resigned | GnubgGameState::Dropped => {
            return Err(refuse(
                "B13",
                "the match id describes a finished game; only a game in progress can be set up",
            ));
        }
    }
    let options = import_options(&key, options)?;
    let on_roll = key.on_roll;
    let board = Board::from_position_id(position_id, on_roll)?;
    if let Some(winner) = board.winner() {
        return Err(refuse(
            "B13",
            format!(
                "{} has borne off all 15 checkers, so the game is over, but the match id says it is in progress",
                side_name(winner)
            ),
        ));
    }
    let dice = (key.dice != [0, 0]).then_some(key.dice);
    let crawford = options.match_game.is_some_and(|m| m.crawford);
    let opponent = on_roll ^ 1;

    if key.doubled && key.resign > 0 {
        return Err(refuse(
            "B21",
            "a double and a resignation cannot be on offer at once",
        ));
    }
    if crawford && (key.cube_log > 0 || key.cube_owner.is_some() || key.doubled) {
        return Err(refuse(
            "B22",
            "the cube is not used in the crawford game, but the match id shows it turned or offered",
        ));
    }
    // gnubg shows a pending beaver (B18) as the cube already turned to the beaverer with the
    // doubler to answer: the one state where a double is offered and `turn == on_roll`.
    let beaver = key.doubled && key.turn == on_roll;
    let (cube_log, cube_owner) = if beaver {
        if !options.beavers {
            return Err(refuse(
                "B18",
                "the match id shows a beaver awaiting an answer, but beavers are not played here",
            ));
        }
        if key.cube_owner != Some(opponent) || key.cube_log == 0 {
            return Err(refuse(
                "B18",
                format!(
                    "a pending beaver shows a cube of 2 or more owned by the beaverer ({}), which the match id does not",
                    side_name(opponent)
                ),
            ));
        }
        if key.cube_log + 1 > MAX_CUBE_LOG {
            return Err(refuse(
                "B14",
                format!("the cube stops at {}", 1u64 << MAX_CUBE_LOG),
            ));
        }
        // The cube before the double: gnubg no longer says whether it was in the middle or
        // the doubler's; above 1 without automatic doubles it can only have been the
        // doubler's, and at 1 only in the middle.
        let before = key.cube_log - 1;
        let centred =
            before == 0 || (options.automatic_doubles && before <= options.automatic_double_limit);
        (before, if centred { None } else { Some(on_roll) })
    } else {
        (key.cube_log, key.cube_owner)
    };
    if cube_owner.is_some() && cube_log == 0 {
        return Err(refuse(
            "B15",
            "a cube has an owner only after a double was taken, so it shows at least 2",
        ));
    }
    let mut automatic_doubles = 0;
    if cube_owner.is_none() && cube_log > 0 {
        if !options.automatic_doubles || cube_log > options.automatic_double_limit {
            return Err(refuse(
                "B17",
                format!(
                    "a cube of {} in the middle comes only from automatic doubles, which are not played here (or not that many)",
                    1u64 << cube_log
                ),
            ));
        }
        automatic_doubles = cube_log;
    }

    let phase = if key.doubled {
        if dice.is_some() {
            return Err(refuse(
                "B14",
                "a double is offered before rolling, but the match id shows dice",
            ));
        }
        if !beaver {
            if cube_owner == Some(opponent) {
                return Err(refuse(
                    "B14",
                    format!(
                        "only the cube owner ({}) may double, but the match id has {} doubling",
                        side_name(opponent),
                        side_name(on_roll)
                    ),
                ));
            }
            if cube_log >= MAX_CUBE_LOG {
                return Err(refuse(
                    "B14",
                    format!("the cube stops at {}", 1u64 << MAX_CUBE_LOG),
                ));
            }
        }
        Phase::Doubled {
            decider: key.turn,
            beavered: beaver,
        }
    } else if key.resign > 0 {
        if key.turn != opponent {
            return Err(refuse(
                "B21",
                format!(
                    "{} answers {}'s resignation, but the match id gives the turn to {}",
                    side_name(opponent),
                    side_name(on_roll),
                    side_name(key.turn)
                ),
            ));
        }
        let level = ResignLevel::from_multiplier(key.resign)
            .ok_or_else(|| refuse("N2", "the match id has an unknown resignation level"))?;
        Phase::ResignOffered { level, dice }
    } else {
        if key.turn != on_roll {
            return Err(refuse(
                "B4",
                format!(
                    "nothing is on offer, so {} (on roll) acts, but the match id gives the turn to {}",
                    side_name(on_roll),
                    side_name(key.turn)
                ),
            ));
        }
        dice.map_or(Phase::Roll, |dice| Phase::Play { dice })
    };
    Ok(ImportedGame {
        options,
        board,
        on_roll,
        phase,
        cube_log,
        cube_owner,
        automatic_doubles,
    })
}

/// The game's options from the Match ID, with `base` for what it does not carry.
fn import_options(
    key: &MatchKey,
    base: &BackgammonOptions,
) -> Result<BackgammonOptions, BackgammonError> {
    let options = if key.match_length == 0 {
        if key.crawford {
            return Err(refuse(
                "B22",
                "money play has no crawford game, but the match id sets the crawford flag",
            ));
        }
        if key.score != [0, 0] {
            return Err(refuse(
                "B22",
                format!(
                    "money play keeps no score here, but the match id has {}-{}",
                    key.score[0], key.score[1]
                ),
            ));
        }
        BackgammonOptions {
            jacoby: key.jacoby,
            match_game: None,
            ..base.clone()
        }
    } else {
        let length = u32::from(key.match_length);
        if !MATCH_LENGTHS.contains(&length) {
            return Err(refuse(
                "B22",
                format!("a match is played to 1, 3, 5, 7, 11, 15 or 21 points, not {length}"),
            ));
        }
        let score = [u32::from(key.score[0]), u32::from(key.score[1])];
        if score.iter().any(|&s| s >= length) {
            return Err(refuse(
                "B22",
                format!(
                    "the score {}-{} has already won a match to {length}",
                    score[0], score[1]
                ),
            ));
        }
        let away = length - 1;
        if key.crawford && score.iter().filter(|&&s| s == away).count() != 1 {
            return Err(refuse(
                "B22",
                format!(
                    "the crawford game is played when exactly one player is one point from the match, not at {}-{}",
                    score[0], score[1]
                ),
            ));
        }
        // B22: the optional rules B17-B19 are money rules; a match id's Jacoby bit is
        // ignored (gnubg always sets "no Jacoby" in matches, older versions never did).
        BackgammonOptions {
            match_game: Some(MatchGame {
                length,
                score,
                crawford: key.crawford,
            }),
            ..BackgammonOptions::default()
        }
    };
    options.validate().map_err(|e| refuse(e.rule, e.message))?;
    Ok(options)
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
