//! Why an action is refused. Every message starts with its rule id and names only points and
//! face-up pieces, never anything face down (J22).

use std::fmt;

use ludus_rules::RuleViolation;

use crate::board::Point;
use crate::piece::{Colour, Rank};

/// A refused action or unreadable notation.
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
#[allow(missing_docs)] // the fields are the points and ranks the message names
pub enum JunqiError {
    /// J2: the text is not a point or a move in notation (at most 16 characters are kept).
    Notation { text: String },
    /// J16: the game is already over.
    GameOver,
    /// J7: it is the other player's turn.
    NotYourTurn,
    /// J8: before colours are settled the only action is flipping.
    ColoursUnsettled,
    /// J7: a flip needs a face-down piece; this point is empty.
    FlipEmpty { point: Point },
    /// J7: a flip needs a face-down piece; this one is already face up.
    AlreadyFaceUp { point: Point },
    /// J7: there is no piece to move on this point.
    NothingToMove { point: Point },
    /// J7: a face-down piece cannot move; it can only be flipped.
    MoveFaceDown { point: Point },
    /// J7: the face-up piece on this point is the opponent's.
    NotYourPiece { point: Point },
    /// J10: Mines and the Flag never move.
    Immovable { point: Point, rank: Rank },
    /// J9: the destination is not a road step away nor at the end of a clear railway path.
    Unreachable { from: Point, to: Point },
    /// J11: face-down pieces cannot be attacked.
    AttackFaceDown { point: Point },
    /// J11: the destination holds a piece of your own.
    AttackOwn { point: Point },
    /// J11: the occupant of a camp cannot be attacked.
    AttackCamp { point: Point },
    /// J12: a lower rank may not attack a higher one.
    LowerRank { attacker: Rank, defender: Rank },
    /// J14: only an Engineer (or a Bomb, J13) may attack a Mine.
    MineNeedsEngineer { attacker: Rank },
    /// J15: this colour's Flag is still protected.
    FlagProtected { colour: Colour },
}

impl fmt::Display for JunqiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use JunqiError::*;
        write!(f, "{}: ", self.rule())?;
        match self {
            Notation { text } => write!(
                f,
                "{text:?} is not a flip like c6 or a move like c6-c7 (columns a-e, rows 1-12)"
            ),
            GameOver => f.write_str("the game is over"),
            NotYourTurn => f.write_str("it is not your turn"),
            ColoursUnsettled => f.write_str("colours are not settled yet, so you can only flip"),
            FlipEmpty { point } => write!(f, "there is no piece to flip on {point}"),
            AlreadyFaceUp { point } => write!(f, "the piece on {point} is already face up"),
            NothingToMove { point } => write!(f, "there is no piece on {point}"),
            MoveFaceDown { point } => {
                write!(f, "the piece on {point} is face down; flip it instead")
            }
            NotYourPiece { point } => write!(f, "the piece on {point} is not yours"),
            Immovable { point, rank } => write!(f, "the {rank} on {point} never moves"),
            Unreachable { from, to } => write!(
                f,
                "{from}-{to} is neither a road step nor a clear railway path for that piece"
            ),
            AttackFaceDown { point } => {
                write!(
                    f,
                    "the piece on {point} is face down and cannot be attacked"
                )
            }
            AttackOwn { point } => write!(f, "{point} holds your own piece"),
            AttackCamp { point } => {
                write!(f, "{point} is a camp; its occupant cannot be attacked")
            }
            LowerRank { attacker, defender } => {
                write!(f, "a {attacker} may not attack a higher {defender}")
            }
            MineNeedsEngineer { attacker } => {
                write!(
                    f,
                    "only an engineer or a bomb may attack a mine, not a {attacker}"
                )
            }
            FlagProtected { colour } => write!(
                f,
                "the {colour} flag cannot be attacked while {colour} mines or face-down pieces remain"
            ),
        }
    }
}

impl std::error::Error for JunqiError {}

impl RuleViolation for JunqiError {
    fn rule(&self) -> &'static str {
        use JunqiError::*;
        match self {
            Notation { .. } => "J2",
            GameOver => "J16",
            NotYourTurn | FlipEmpty { .. } | AlreadyFaceUp { .. } | NothingToMove { .. } => "J7",
            MoveFaceDown { .. } | NotYourPiece { .. } => "J7",
            ColoursUnsettled => "J8",
            Unreachable { .. } => "J9",
            Immovable { .. } => "J10",
            AttackFaceDown { .. } | AttackOwn { .. } | AttackCamp { .. } => "J11",
            LowerRank { .. } => "J12",
            MineNeedsEngineer { .. } => "J14",
            FlagProtected { .. } => "J15",
        }
    }
}
