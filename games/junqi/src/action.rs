//! Actions (J7) and their J2 notation: a flip is the point (`c6`), a move is `from-to`
//! (`c6-c7`).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::Point;
use crate::error::JunqiError;

/// One action (J7).
///
/// ```
/// use ludus_junqi::{Action, Point};
/// let a: Action = "c6-c7".parse().unwrap();
/// assert_eq!(a.to_string(), "c6-c7");
/// assert!(matches!("c6".parse::<Action>(), Ok(Action::Flip(_))));
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum Action {
    /// Turn the face-down piece on this point face up.
    Flip(Point),
    /// Move one of your face-up pieces, attacking if `to` holds an enemy (J9, J11).
    Move {
        /// Where the piece stands.
        from: Point,
        /// Where it goes.
        to: Point,
    },
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Flip(p) => write!(f, "{p}"),
            Action::Move { from, to } => write!(f, "{from}-{to}"),
        }
    }
}

impl std::str::FromStr for Action {
    type Err = JunqiError;

    fn from_str(text: &str) -> Result<Action, JunqiError> {
        let bad = || JunqiError::Notation {
            text: text.chars().take(16).collect(),
        };
        let t = text.trim();
        match t.split_once('-') {
            None => t.parse().map(Action::Flip).map_err(|_| bad()),
            Some((a, b)) => {
                let from = a.trim().parse().map_err(|_| bad())?;
                let to = b.trim().parse().map_err(|_| bad())?;
                Ok(Action::Move { from, to })
            }
        }
    }
}
