//! What one viewer sees. Backgammon hides nothing but future dice, which the game never
//! holds; a seated viewer also gets their legal actions when it is their turn.

use ludus_rules::{Outcome, Seat};

use crate::action::{Action, ResignLevel};
use crate::play::{Dice, Play};

/// The latest play, so clients can show the opponent's move.
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
pub struct LastPlay {
    /// Who played.
    pub seat: Seat,
    /// The dice played.
    pub dice: Dice,
    /// The moves, in that seat's numbering.
    pub play: Play,
    /// Whether the server played it on a timeout (B20).
    pub automatic: bool,
}

/// The stage of the turn, as clients draw it.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum ViewPhase {
    /// The player on roll may double or roll.
    Roll,
    /// The dice are rolled and must be played.
    Play,
    /// A double waits for an answer.
    DoubleOffered,
    /// A resignation offer waits for an answer.
    ResignationOffered,
    /// The game is over.
    Over,
}

/// A double waiting for an answer.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct DoubleOffer {
    /// Who doubled (after a beaver: the beaverer).
    pub by: Seat,
    /// The cube value if taken.
    pub value: u64,
    /// Whether this is a beaver (B18).
    pub beaver: bool,
}

/// A resignation offer waiting for an answer.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct ResignationOffer {
    /// Who offers to resign.
    pub by: Seat,
    /// Single, gammon or backgammon.
    pub level: ResignLevel,
    /// Points the opponent wins by accepting.
    pub points: u64,
}

/// One viewer's view of the game.
#[derive(Clone, Eq, PartialEq, Debug)]
pub struct BackgammonView {
    /// The seated viewer; `None` for a spectator.
    pub viewer: Option<Seat>,
    /// The 24 points in white's (seat 0's) numbering: entry `i` is white's point `i + 1`
    /// and black's point `24 - i`; positive counts are white checkers, negative black.
    pub points: [i8; 24],
    /// Perspective hint: true when the viewer is black and should draw the board rotated,
    /// their own home board (white's points 19-24) at the bottom right.
    pub mirrored: bool,
    /// Checkers on the bar, per seat.
    pub bar: [u8; 2],
    /// Checkers borne off, per seat.
    pub off: [u8; 2],
    /// Pip counts, per seat.
    pub pips: [u32; 2],
    /// The player on roll.
    pub turn: Seat,
    /// Who must act now; `None` once the game is over.
    pub to_move: Option<Seat>,
    /// The stage of the turn.
    pub phase: ViewPhase,
    /// The dice, only once rolled this turn.
    pub dice: Option<Dice>,
    /// The cube value, a power of two.
    pub cube_value: u64,
    /// The cube owner; `None` when it is in the middle.
    pub cube_owner: Option<Seat>,
    /// Whether the player on roll may double now.
    pub can_double: bool,
    /// A pending double.
    pub double_offer: Option<DoubleOffer>,
    /// A pending resignation offer.
    pub resignation_offer: Option<ResignationOffer>,
    /// Match length; 0 in money play.
    pub match_length: u32,
    /// Match score before this game, per seat.
    pub score: [u32; 2],
    /// Whether this is the Crawford game (no cube).
    pub crawford: bool,
    /// Whether the Jacoby rule is on (B19).
    pub jacoby: bool,
    /// Whether beavers are allowed (B18).
    pub beavers: bool,
    /// Automatic doubles made at the opening (B17).
    pub automatic_doubles: u8,
    /// The viewer's legal actions (plays included); empty when it is not their turn.
    pub legal_actions: Vec<Action>,
    /// The viewer's legal plays of the rolled dice; empty when it is not their turn to play.
    pub legal_plays: Vec<Play>,
    /// The latest play of the game.
    pub last_play: Option<LastPlay>,
    /// How the game ended.
    pub outcome: Option<Outcome>,
    /// gnubg Position ID, from the player gnubg has on roll (after the last checker is borne
    /// off, the loser), byte-identical to GNU Backgammon's.
    pub position_id: String,
    /// gnubg Match ID, byte-identical to GNU Backgammon's (see [`crate::gnubg`]).
    pub match_id: String,
    /// Timeouts in a row, per seat (B20).
    pub timeouts: [u8; 2],
    /// Actions applied so far.
    pub ply: u32,
}
