//! [`Mancala`]: turns, extra turns and the end of a game (M3, M5, M7–M10, K4, K5) on top of
//! the sowing engine, and the types the game-state service maps to the proto contract.

use std::fmt;

use ludus_rules::{Game, Outcome, RandomSource, RuleViolation, Seat, SetupError, Viewer};
use serde::{Deserialize, Serialize};

use crate::board::{self, Board, LastSeed, MAX_PITS, RuleSet, SowLap, Spot};

/// M9, K5: after this many sows in all the game stops and the stores are compared. A relay
/// sow with all its laps counts once (K5).
pub const SOW_LIMIT: u32 = 400;

/// Who sows first (M3). The service passes `Seat0`/`Seat1` to alternate across rematches and
/// for a human's choice against the computer; `Random` asks the game's [`RandomSource`].
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum FirstPlayer {
    /// Drawn with the random source at setup (online and friend games, M3). The default.
    #[default]
    Random,
    /// Seat 0 sows first.
    Seat0,
    /// Seat 1 sows first.
    Seat1,
}

/// The host's choices for a game. Every combination is valid.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MancalaOptions {
    /// Kalah (default) or Congklak.
    pub rule_set: RuleSet,
    /// Who sows first (M3).
    pub first: FirstPlayer,
}

/// One action: sow the mover's pit `pit`, numbered `1..=6` (`1..=7` in Congklak) from the
/// mover's far end toward their store (M1). Its notation is the bare number: `3`.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct Sow {
    /// The pit, 1-based from the mover's side. Checked by [`Mancala::apply`].
    pub pit: u8,
}

impl fmt::Display for Sow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.pit)
    }
}

/// Why an action was refused. `Display` is a lowercase sentence starting with the rule id.
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
pub enum MancalaError {
    /// M1/K1: the text is not a pit number of this board.
    Notation { text: String, rule_set: RuleSet },
    /// M1/K1: the pit number is out of range.
    NoSuchPit { pit: u8, rule_set: RuleSet },
    /// M4: only a pit with seeds can be sown.
    EmptyPit { pit: u8 },
    /// M5: it is another seat's turn (turns pass after each sow unless an extra turn is won).
    NotYourTurn { seat: Seat, to_move: Seat },
    /// The game is over; `rule` is the rule that ended it.
    GameOver { rule: &'static str },
}

impl fmt::Display for MancalaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = self.rule();
        match self {
            MancalaError::Notation { text, rule_set } => write!(
                f,
                "{rule}: {text:?} is not a pit number from 1 to {}",
                rule_set.pits()
            ),
            MancalaError::NoSuchPit { pit, rule_set } => write!(
                f,
                "{rule}: there is no pit {pit}; pits are numbered 1 to {}",
                rule_set.pits()
            ),
            MancalaError::EmptyPit { pit } => write!(f, "{rule}: pit {pit} is empty"),
            MancalaError::NotYourTurn { seat, to_move } => {
                write!(f, "{rule}: it is seat {to_move}'s turn, not seat {seat}'s")
            }
            MancalaError::GameOver { .. } => write!(f, "{rule}: the game is over"),
        }
    }
}

impl std::error::Error for MancalaError {}

impl RuleViolation for MancalaError {
    fn rule(&self) -> &'static str {
        match self {
            MancalaError::Notation { rule_set, .. } | MancalaError::NoSuchPit { rule_set, .. } => {
                rule_set.numbering_rule()
            }
            MancalaError::EmptyPit { .. } => "M4",
            MancalaError::NotYourTurn { .. } => "M5",
            MancalaError::GameOver { rule } => rule,
        }
    }
}

/// Why a position handed to [`Mancala::from_position`] (or read back from storage) is not one
/// the rules can reach or continue from.
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
pub struct PositionError {
    /// The rule the position breaks.
    pub rule: &'static str,
    /// A lowercase sentence saying what is wrong.
    pub message: String,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

impl std::error::Error for PositionError {}

impl RuleViolation for PositionError {
    fn rule(&self) -> &'static str {
        self.rule
    }
}

/// The last sow as stored: who sowed which pit from which board. The view replays it to show
/// its path, which keeps the stored state small (a Congklak relay sow can drop hundreds of
/// seeds).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
struct LastSow {
    seat: Seat,
    pit: u8,
    before: Board,
}

/// A game of Mancala under Kalah or Congklak rules: the board, whose turn it is, the sow
/// count, the last sow and, once it is over, the outcome.
///
/// Stored as JSON by the game-state service; reading it back checks it ([`PositionError`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "MancalaState")]
pub struct Mancala {
    rule_set: RuleSet,
    board: Board,
    first: Seat,
    to_move: Seat,
    extra_turn: bool,
    sows: u32,
    last: Option<LastSow>,
    outcome: Option<Outcome>,
}

/// [`Mancala`] as read from storage, before it is checked.
#[derive(Deserialize)]
struct MancalaState {
    rule_set: RuleSet,
    board: Board,
    first: Seat,
    to_move: Seat,
    extra_turn: bool,
    sows: u32,
    last: Option<LastSow>,
    outcome: Option<Outcome>,
}

impl TryFrom<MancalaState> for Mancala {
    type Error = PositionError;

    fn try_from(s: MancalaState) -> Result<Self, Self::Error> {
        let rule = s.rule_set.numbering_rule();
        let check_board = |board: &Board| -> Result<(), PositionError> {
            let n = usize::from(s.rule_set.pits());
            if board
                .raw_pits()
                .iter()
                .any(|row| row[n..].iter().any(|&p| p > 0))
            {
                return Err(PositionError {
                    rule,
                    message: format!("seeds lie outside the {n} pits of each row"),
                });
            }
            if board.total() != s.rule_set.total_seeds() {
                return Err(PositionError {
                    rule: if s.rule_set == RuleSet::Kalah {
                        "M2"
                    } else {
                        "K1"
                    },
                    message: format!(
                        "the board holds {} seeds, not {}",
                        board.total(),
                        s.rule_set.total_seeds()
                    ),
                });
            }
            Ok(())
        };
        check_board(&s.board)?;
        if s.first > 1 || s.to_move > 1 {
            return Err(PositionError {
                rule: "M3",
                message: "mancala has two seats, 0 and 1".to_owned(),
            });
        }
        if let Some(last) = &s.last {
            check_board(&last.before)?;
            if last.seat > 1
                || last.pit == 0
                || last.pit > s.rule_set.pits()
                || last.before.pit(last.seat, last.pit) == 0
            {
                return Err(PositionError {
                    rule: "M4",
                    message: "the last sow is not a sow of a non-empty pit".to_owned(),
                });
            }
        }
        if s.outcome.is_none() && s.board.row_total(s.to_move) == 0 {
            return Err(PositionError {
                rule: if s.rule_set == RuleSet::Kalah {
                    "M7"
                } else {
                    "K4"
                },
                message: "the seat to move has no seeds but the game goes on".to_owned(),
            });
        }
        Ok(Mancala {
            rule_set: s.rule_set,
            board: s.board,
            first: s.first,
            to_move: s.to_move,
            extra_turn: s.extra_turn,
            sows: s.sows,
            last: s.last,
            outcome: s.outcome,
        })
    }
}

/// What one viewer sees. Mancala has no hidden information: every viewer sees the same.
#[derive(Clone, Eq, PartialEq, Debug)]
pub struct MancalaView {
    /// Kalah or Congklak.
    pub rule_set: RuleSet,
    /// The seat looking, if seated (clients put that row at the bottom).
    pub viewer: Option<Seat>,
    /// `pits[seat][k]` is pit `k + 1` of `seat`, numbered from that seat's far end toward
    /// its store (M1); 6 or 7 pits per seat.
    pub pits: [Vec<u8>; 2],
    /// Seeds in each seat's store.
    pub stores: [u8; 2],
    /// The seat that sows now; `None` once the game is over.
    pub to_move: Option<Seat>,
    /// The seat that sowed first (M3).
    pub first: Seat,
    /// The seat to move is on an extra turn: its last sow ended in its store (M5, K3).
    pub extra_turn: bool,
    /// Sows so far (each relay sow counts once).
    pub sows: u32,
    /// The sow limit (M9, K5).
    pub sow_limit: u32,
    /// The pits the seat to move may sow; empty when it is over.
    pub legal_pits: Vec<u8>,
    /// The last sow, with the path of its seeds; `None` before the first.
    pub last_sow: Option<SowRecord>,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
}

/// The last sow as clients animate it.
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
pub struct SowRecord {
    /// The seat that sowed.
    pub seat: Seat,
    /// The pit it sowed, from its own side (M1).
    pub pit: u8,
    /// The laps of the sow in order: the first takes the sown pit, each later one a relay
    /// pit (K2). Kalah sows have exactly one lap.
    pub laps: Vec<SowLap>,
    /// Where the last seed came to rest and what it did (extra turn, capture…).
    pub last_seed: LastSeed,
    /// When this sow ended the game (M7, K4, M9): the seeds each seat then moved from its
    /// pits into its store.
    pub swept: Option<[u8; 2]>,
}

impl SowRecord {
    /// Every place a seed was dropped, across all laps, in order.
    pub fn path(&self) -> impl Iterator<Item = Spot> + '_ {
        self.laps.iter().flat_map(|lap| lap.drops.iter().copied())
    }
}

impl Mancala {
    /// A game in an arbitrary position, e.g. to analyse or to test: `pits[seat][k]` is pit
    /// `k + 1` of `seat` (only the first 6 or 7 count), `stores[seat]` its store, `to_move`
    /// the seat to sow. It must hold exactly the rule set's seeds (M2, K1) and the seat to move
    /// must have seeds. A position whose game has already ended (M7) is refused too, because
    /// the rules never hand the move to it.
    pub fn from_position(
        rule_set: RuleSet,
        pits: [&[u8]; 2],
        stores: [u8; 2],
        to_move: Seat,
    ) -> Result<Mancala, PositionError> {
        let n = usize::from(rule_set.pits());
        let mut raw = [[0u8; MAX_PITS]; 2];
        for (seat, row) in pits.iter().enumerate() {
            if row.len() != n {
                return Err(PositionError {
                    rule: rule_set.numbering_rule(),
                    message: format!("seat {seat} has {} pits, not {n}", row.len()),
                });
            }
            raw[seat][..n].copy_from_slice(row);
        }
        let board = Board::from_parts(raw, stores);
        if rule_set == RuleSet::Kalah && (board.row_total(0) == 0 || board.row_total(1) == 0) {
            return Err(PositionError {
                rule: "M7",
                message: "a row is empty, so the game is already over".to_owned(),
            });
        }
        Mancala::try_from(MancalaState {
            rule_set,
            board,
            first: to_move,
            to_move,
            extra_turn: false,
            sows: 0,
            last: None,
            outcome: None,
        })
    }

    /// The rule set being played.
    pub fn rule_set(&self) -> RuleSet {
        self.rule_set
    }

    /// The board now.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Sows so far.
    pub fn sows(&self) -> u32 {
        self.sows
    }

    /// Whether the seat to move is on an extra turn (M5, K3).
    pub fn extra_turn(&self) -> bool {
        self.extra_turn
    }

    fn check_sow(&self, seat: Seat, sow: &Sow) -> Result<(), MancalaError> {
        if let Some(outcome) = &self.outcome {
            return Err(MancalaError::GameOver {
                rule: static_rule(&outcome.rule),
            });
        }
        if seat != self.to_move {
            return Err(MancalaError::NotYourTurn {
                seat,
                to_move: self.to_move,
            });
        }
        if sow.pit == 0 || sow.pit > self.rule_set.pits() {
            return Err(MancalaError::NoSuchPit {
                pit: sow.pit,
                rule_set: self.rule_set,
            });
        }
        if self.board.pit(seat, sow.pit) == 0 {
            return Err(MancalaError::EmptyPit { pit: sow.pit });
        }
        Ok(())
    }

    /// Ends the game by sweeping the pits (M7, K4, M9) and comparing the stores (M8).
    fn finish(&mut self, rule: &'static str, why: String) {
        self.board.sweep();
        let stores = self.board.stores();
        let score = format!("{}–{}", stores[0], stores[1]);
        let outcome = match stores[0].cmp(&stores[1]) {
            std::cmp::Ordering::Equal => {
                Outcome::draw(2, rule, format!("{why}; a draw at {score}"))
            }
            order => {
                let winner = usize::from(order == std::cmp::Ordering::Less);
                Outcome::win(
                    2,
                    &[winner],
                    rule,
                    // The winner's store first: "seat 1 wins 30 to 18".
                    format!(
                        "{why}; seat {winner} wins {} to {}",
                        stores[winner],
                        stores[1 - winner]
                    ),
                )
            }
        };
        self.outcome = Some(outcome.with_points(stores.iter().map(|&s| i64::from(s)).collect()));
    }

    /// Ends the game without sweeping: resignation, timeout, agreed draw (M9, M10).
    fn stop(&mut self, outcome: Outcome) {
        let stores = self.board.stores();
        self.outcome = Some(outcome.with_points(stores.iter().map(|&s| i64::from(s)).collect()));
    }

    /// `seat` loses the game by `rule` (a resignation or a timeout, M9, M10): the message says
    /// what the seat did and who wins.
    fn lose(&mut self, seat: Seat, rule: &'static str, what: &str) {
        let winner = 1 - seat;
        self.stop(Outcome::win(
            2,
            &[winner],
            rule,
            format!("seat {seat} {what}; seat {winner} wins"),
        ));
    }

    fn replay_last(&self) -> Option<SowRecord> {
        let last = self.last?;
        let mut board = last.before;
        let (laps, last_seed) = board::sow(&mut board, self.rule_set, last.seat, last.pit);
        let swept = match self.outcome.as_ref().map(|o| o.rule.as_str()) {
            Some("M7" | "K4" | "M9") => {
                Some([clamp_u8(board.row_total(0)), clamp_u8(board.row_total(1))])
            }
            _ => None,
        };
        Some(SowRecord {
            seat: last.seat,
            pit: last.pit,
            laps,
            last_seed,
            swept,
        })
    }
}

fn clamp_u8(n: u32) -> u8 {
    u8::try_from(n).unwrap_or(u8::MAX)
}

/// The `'static` id of a rule an outcome names, for [`MancalaError::GameOver`].
fn static_rule(rule: &str) -> &'static str {
    ["M7", "M8", "M9", "M10", "K4", "K5"]
        .into_iter()
        .find(|r| *r == rule)
        .unwrap_or("M7")
}

impl Game for Mancala {
    type Options = MancalaOptions;
    type Action = Sow;
    type View = MancalaView;
    type Error = MancalaError;

    fn setup(
        options: MancalaOptions,
        seats: usize,
        rng: &mut dyn RandomSource,
    ) -> Result<Self, SetupError> {
        if seats != 2 {
            return Err(SetupError::new(
                options.rule_set.numbering_rule(),
                format!("mancala is played by two, not {seats}"),
            ));
        }
        // M3: the rng is asked only when the host left the choice to chance.
        let first = match options.first {
            FirstPlayer::Seat0 => 0,
            FirstPlayer::Seat1 => 1,
            FirstPlayer::Random => usize::from(rng.below(2) == 1),
        };
        Ok(Mancala {
            rule_set: options.rule_set,
            board: Board::start(options.rule_set),
            first,
            to_move: first,
            extra_turn: false,
            sows: 0,
            last: None,
            outcome: None,
        })
    }

    fn parse_action(&self, text: &str) -> Result<Sow, MancalaError> {
        let trimmed = text.trim();
        let notation = || MancalaError::Notation {
            text: text.chars().take(16).collect(),
            rule_set: self.rule_set,
        };
        // Exactly one digit: "03" or "+3" are not the standard notation.
        if trimmed.len() != 1 {
            return Err(notation());
        }
        match trimmed.parse::<u8>() {
            Ok(pit) if (1..=self.rule_set.pits()).contains(&pit) => Ok(Sow { pit }),
            _ => Err(notation()),
        }
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<Seat> {
        self.outcome.is_none().then_some(self.to_move)
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Sow> {
        if self.outcome.is_some() || seat != self.to_move {
            return Vec::new();
        }
        (1..=self.rule_set.pits())
            .filter(|&pit| self.board.pit(seat, pit) > 0)
            .map(|pit| Sow { pit })
            .collect()
    }

    fn apply(
        mut self,
        seat: Seat,
        action: &Sow,
        _rng: &mut dyn RandomSource,
    ) -> Result<Self, (Self, MancalaError)> {
        if let Err(e) = self.check_sow(seat, action) {
            return Err((self, e));
        }
        let before = self.board;
        let (_, last_seed) = board::sow(&mut self.board, self.rule_set, seat, action.pit);
        self.last = Some(LastSow {
            seat,
            pit: action.pit,
            before,
        });
        self.sows += 1;
        let extra = last_seed == LastSeed::Store;
        let next = if extra { seat } else { 1 - seat };
        match self.rule_set {
            // M7: the game ends at once when either row is empty, even after a seed landed in
            // the store (M5).
            RuleSet::Kalah => {
                let empty: Vec<Seat> = (0..2).filter(|&s| self.board.row_total(s) == 0).collect();
                if !empty.is_empty() {
                    let why = if empty.len() == 2 {
                        "both rows are empty".to_owned()
                    } else {
                        format!("seat {}'s pits are empty", empty[0])
                    };
                    self.finish("M7", why);
                    return Ok(self);
                }
            }
            // K4: the game ends when the seat to move next has nothing to sow.
            RuleSet::Congklak => {
                if self.board.row_total(next) == 0 {
                    self.finish("K4", format!("seat {next} has no seeds to sow"));
                    return Ok(self);
                }
            }
        }
        if self.sows >= SOW_LIMIT {
            self.finish("M9", format!("{SOW_LIMIT} sows have been played"));
            return Ok(self);
        }
        self.to_move = next;
        self.extra_turn = extra;
        Ok(self)
    }

    /// M10: the seat whose sow clock ran out loses. A timeout for a seat that is not to move
    /// (a stale timer) or after the end changes nothing.
    fn timeout(mut self, seat: Seat, _rng: &mut dyn RandomSource) -> Self {
        if self.outcome.is_none() && seat == self.to_move {
            self.lose(seat, "M10", "ran out of time");
        }
        self
    }

    /// M9: the seat that resigns loses, whether or not it is their turn.
    fn resign(mut self, seat: Seat) -> Self {
        if self.outcome.is_none() && seat < 2 {
            self.lose(seat, "M9", "resigned");
        }
        self
    }

    /// M9: both seats may agree to a draw at any time before the end.
    fn agree_draw(mut self) -> Result<Self, (Self, MancalaError)> {
        if let Some(outcome) = &self.outcome {
            let rule = static_rule(&outcome.rule);
            return Err((self, MancalaError::GameOver { rule }));
        }
        self.stop(Outcome::draw(2, "M9", "both seats agreed to a draw"));
        Ok(self)
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn view(&self, viewer: Viewer) -> MancalaView {
        let n = self.rule_set.pits();
        let to_move = self.to_move();
        MancalaView {
            rule_set: self.rule_set,
            viewer: match viewer {
                Viewer::Seat(seat) if seat < 2 => Some(seat),
                _ => None,
            },
            pits: [self.board.row(0, n).to_vec(), self.board.row(1, n).to_vec()],
            stores: self.board.stores(),
            to_move,
            first: self.first,
            extra_turn: self.extra_turn && to_move.is_some(),
            sows: self.sows,
            sow_limit: SOW_LIMIT,
            legal_pits: to_move
                .map(|seat| self.legal_actions(seat).iter().map(|s| s.pit).collect())
                .unwrap_or_default(),
            last_sow: self.replay_last(),
            outcome: self.outcome.clone(),
        }
    }

    fn ply(&self) -> u32 {
        self.sows
    }
}
