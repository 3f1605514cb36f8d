//! Why an action was refused. Every message is a lowercase sentence that starts with the
//! rule id and uses the standard notation.

use std::fmt;

use ludus_rules::{RuleViolation, Seat};

use crate::notation::{Cell, NotationError, QuoridorAction, Wall};
use crate::options::Colour;

/// An action the rules refuse.
#[derive(Clone, Eq, PartialEq, Debug)]
pub enum QuoridorError {
    /// Q1: the text is not in the standard notation.
    Notation(NotationError),
    /// Q1 (cells) or Q2 (walls): not on this board.
    OffBoard { action: QuoridorAction, size: u8 },
    /// Q17: the game is already over.
    GameOver,
    /// Q8: it is not this seat's turn.
    NotYourTurn { seat: Seat },
    /// Q12 (steps) or Q13 (jumps and diagonal moves): the pawn cannot move there.
    IllegalMove {
        colour: Colour,
        to: Cell,
        rule: &'static str,
    },
    /// Q16: no walls left.
    NoWallsLeft { colour: Colour },
    /// Q3: the wall overlaps or crosses a placed wall.
    WallConflict {
        wall: Wall,
        other: Wall,
        crosses: bool,
    },
    /// Q15: the wall would shut a pawn in.
    ShutsIn { wall: Wall, colour: Colour },
    /// Q20: the pawn blocks another pawn, so its side may not pass.
    MayNotPass { colour: Colour, blocked: Colour },
    /// Q18: Quoridor has no draw by agreement.
    NoDrawByAgreement,
    /// [`crate::Quoridor::arrange`] was given a position that breaks `rule`.
    Position { rule: &'static str, message: String },
}

impl fmt::Display for QuoridorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = self.rule();
        match self {
            QuoridorError::Notation(e) => e.fmt(f),
            QuoridorError::OffBoard { action, size } => {
                write!(f, "{rule}: {action} is not on the {size}x{size} board")
            }
            QuoridorError::GameOver => write!(f, "{rule}: the game is over"),
            QuoridorError::NotYourTurn { seat } => {
                write!(f, "{rule}: it is not seat {seat}'s turn")
            }
            QuoridorError::IllegalMove { colour, to, .. } => {
                write!(f, "{rule}: {colour} cannot move to {to}")
            }
            QuoridorError::NoWallsLeft { colour } => {
                write!(f, "{rule}: {colour} has no walls left")
            }
            QuoridorError::WallConflict {
                wall,
                other,
                crosses,
            } => {
                let how = if *crosses { "crosses" } else { "overlaps" };
                write!(f, "{rule}: wall {wall} {how} wall {other}")
            }
            QuoridorError::ShutsIn { wall, colour } => {
                write!(f, "{rule}: wall {wall} would shut in {colour}")
            }
            QuoridorError::MayNotPass { colour, blocked } => {
                write!(f, "{rule}: {colour} blocks {blocked} and may not pass")
            }
            QuoridorError::NoDrawByAgreement => write!(
                f,
                "{rule}: there is no draw by agreement; only the move limit draws"
            ),
            QuoridorError::Position { message, .. } => write!(f, "{rule}: {message}"),
        }
    }
}

impl std::error::Error for QuoridorError {}

impl RuleViolation for QuoridorError {
    fn rule(&self) -> &'static str {
        match self {
            QuoridorError::Notation(_) => "Q1",
            QuoridorError::OffBoard {
                action: QuoridorAction::Wall(_),
                ..
            } => "Q2",
            QuoridorError::OffBoard { .. } => "Q1",
            QuoridorError::GameOver => "Q17",
            QuoridorError::NotYourTurn { .. } => "Q8",
            QuoridorError::IllegalMove { rule, .. } => rule,
            QuoridorError::NoWallsLeft { .. } => "Q16",
            QuoridorError::WallConflict { .. } => "Q3",
            QuoridorError::ShutsIn { .. } => "Q15",
            QuoridorError::MayNotPass { .. } => "Q20",
            QuoridorError::NoDrawByAgreement => "Q18",
            QuoridorError::Position { rule, .. } => rule,
        }
    }
}
