//! What one viewer sees (J21, J22). Everything here is public: a face-down point is only
//! "face down", with no rank, no colour and no identity that could be followed across flips.

use ludus_rules::{Outcome, Seat};
use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::piece::{CombatResult, Piece};

/// What is on one point, as everybody sees it.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum PointView {
    /// Nothing on the point.
    Empty,
    /// A face-down piece: nothing else about it is known (J22).
    FaceDown,
    /// A face-up piece.
    FaceUp(Piece),
}

/// Piece statistics (J21), indexed `[Colour::index()][Rank::index()]`.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct PieceStats {
    /// Pieces of each colour removed from the board, by rank.
    pub removed: [[u8; 12]; 2],
    /// Pieces of each colour still face down, by rank: the J1 total minus the removed and
    /// face-up ones, so it is known from public facts, never from the hidden layout.
    pub face_down: [[u8; 12]; 2],
}

/// What an action did, as everybody saw it.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum Event {
    /// A flip revealed this piece.
    Flipped(Piece),
    /// A face-up piece moved to an empty point.
    Moved(Piece),
    /// An attack (J11-J15).
    Combat {
        /// The piece that moved.
        attacker: Piece,
        /// The piece on the destination.
        defender: Piece,
        /// What happened to them.
        result: CombatResult,
    },
}

/// The last action played.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct LastAction {
    /// Who played it (or for whom the server played it).
    pub seat: Seat,
    /// The action.
    pub action: Action,
    /// What it did.
    pub event: Event,
    /// Played by the server on a timeout or under autoplay (J19).
    pub automatic: bool,
}

/// One viewer's view of a game. Players and spectators get the same points and statistics;
/// only `viewer`, `viewer_colour` and `opponent_colour` depend on who looks.
#[derive(Clone, Eq, PartialEq, Debug, Serialize, Deserialize)]
pub struct JunqiView {
    /// The viewer's seat; `None` for a spectator.
    pub viewer: Option<Seat>,
    /// All 60 points in index order (`row * 5 + col`, row 0 = rank 12 at the top).
    pub points: Vec<PointView>,
    /// The viewer's colour once settled (J8); `None` before, or for a spectator.
    pub viewer_colour: Option<crate::Colour>,
    /// The viewer's opponent's colour once settled; `None` before, or for a spectator.
    pub opponent_colour: Option<crate::Colour>,
    /// The colour of each seat once settled (J8).
    pub seat_colours: [Option<crate::Colour>; 2],
    /// The colour each seat revealed with its latest flip: flipping the same colour again
    /// settles colours while they are unsettled (J8).
    pub last_flips: [Option<crate::Colour>; 2],
    /// Piece statistics (J21).
    pub statistics: PieceStats,
    /// Whether the server is playing for each seat (J19).
    pub autoplay: [bool; 2],
    /// Whose turn it is; `None` once the game is over.
    pub to_move: Option<Seat>,
    /// Consecutive actions with no flip and no combat (J17).
    pub quiet_actions: u8,
    /// The J17 limit: the game is drawn when `quiet_actions` reaches it.
    pub draw_limit: u8,
    /// The last action, if any.
    pub last_action: Option<LastAction>,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
    /// Actions applied so far.
    pub ply: u32,
}

impl PointView {
    /// Whether a face-up piece stands here.
    pub fn is_face_up(&self) -> bool {
        matches!(self, PointView::FaceUp(_))
    }
}
