//! The actions of a backgammon turn.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::play::Play;

/// What a resignation offer concedes (B21): the stake times 1, 2 or 3.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum ResignLevel {
    /// A single game: 1 × the cube.
    Single,
    /// A gammon: 2 × the cube.
    Gammon,
    /// A backgammon: 3 × the cube.
    Backgammon,
}

impl ResignLevel {
    /// 1, 2 or 3.
    pub fn multiplier(self) -> u8 {
        match self {
            ResignLevel::Single => 1,
            ResignLevel::Gammon => 2,
            ResignLevel::Backgammon => 3,
        }
    }

    /// The level of a multiplier 1-3.
    pub fn from_multiplier(n: u8) -> Option<ResignLevel> {
        match n {
            1 => Some(ResignLevel::Single),
            2 => Some(ResignLevel::Gammon),
            3 => Some(ResignLevel::Backgammon),
            _ => None,
        }
    }

    /// `single`, `gammon` or `backgammon`.
    pub fn name(self) -> &'static str {
        match self {
            ResignLevel::Single => "single",
            ResignLevel::Gammon => "gammon",
            ResignLevel::Backgammon => "backgammon",
        }
    }
}

/// One player's action. `Display` and [`crate::notation::parse_action`] use the standard
/// notation: `roll`, `24/18 13/11`, `double`, `take`, `drop`, `beaver`, `resign gammon`,
/// `accept`, `reject`.
#[derive(Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum Action {
    /// Roll the dice (B4); the dice come from the server's random source inside `apply`.
    Roll,
    /// Play the rolled dice: the whole turn's moves, empty when nothing can be played (B8).
    Play(Play),
    /// Offer to double before rolling (B14).
    Double,
    /// Accept a double (B15).
    Take,
    /// Refuse a double, conceding the stake before it (B15).
    Drop,
    /// Accept a double and redouble at once, keeping the cube (B18).
    Beaver,
    /// Offer to resign a single game, a gammon or a backgammon (B21).
    Resign(ResignLevel),
    /// Accept the opponent's resignation offer (B21).
    AcceptResignation,
    /// Refuse the opponent's resignation offer: play goes on (B21).
    RejectResignation,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Roll => f.write_str("roll"),
            Action::Play(p) => write!(f, "{p}"),
            Action::Double => f.write_str("double"),
            Action::Take => f.write_str("take"),
            Action::Drop => f.write_str("drop"),
            Action::Beaver => f.write_str("beaver"),
            Action::Resign(l) => write!(f, "resign {}", l.name()),
            Action::AcceptResignation => f.write_str("accept"),
            Action::RejectResignation => f.write_str("reject"),
        }
    }
}
