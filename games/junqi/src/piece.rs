//! Colours, ranks and the combat table (J1, J11-J15).

use std::fmt;

use serde::{Deserialize, Serialize};

/// One of the two colours (J1).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Ord, PartialOrd, Debug, Serialize, Deserialize)]
pub enum Colour {
    /// Red.
    Red,
    /// Blue.
    Blue,
}

impl Colour {
    /// Both colours, red first (the order of per-colour arrays).
    pub const ALL: [Colour; 2] = [Colour::Red, Colour::Blue];

    /// The other colour.
    pub const fn other(self) -> Colour {
        match self {
            Colour::Red => Colour::Blue,
            Colour::Blue => Colour::Red,
        }
    }

    /// 0 for red, 1 for blue: the index into per-colour arrays.
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Colour::Red => "red",
            Colour::Blue => "blue",
        })
    }
}

/// A rank, strongest army rank first, then the special pieces (J1).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Ord, PartialOrd, Debug, Serialize, Deserialize)]
pub enum Rank {
    /// Commander, "TL" (1 per colour).
    Commander,
    /// Corps commander, "QĐ" (1).
    CorpsCommander,
    /// Division commander, "SĐ" (2).
    Division,
    /// Brigade commander, "LĐ" (2).
    Brigade,
    /// Regiment commander, "TrĐ" (2).
    Regiment,
    /// Battalion commander, "TĐ" (2).
    Battalion,
    /// Company commander, "ĐĐ" (3).
    Company,
    /// Platoon commander, "Đội" (3).
    Platoon,
    /// Engineer, "CB" (3): turns on the railway (J9), clears Mines (J14).
    Engineer,
    /// Mine, "Mìn" (3): never moves (J10).
    Mine,
    /// Bomb, "Bom" (2): removed with whatever it meets (J13).
    Bomb,
    /// Flag, "Cờ" (1): never moves (J10); capturing it wins (J15).
    Flag,
}

impl Rank {
    /// Every rank, in the order of per-rank arrays.
    pub const ALL: [Rank; 12] = [
        Rank::Commander,
        Rank::CorpsCommander,
        Rank::Division,
        Rank::Brigade,
        Rank::Regiment,
        Rank::Battalion,
        Rank::Company,
        Rank::Platoon,
        Rank::Engineer,
        Rank::Mine,
        Rank::Bomb,
        Rank::Flag,
    ];

    /// The index into per-rank arrays (`Rank::ALL[r.index()] == r`).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// How many pieces of this rank each colour has (J1); 25 in all.
    pub const fn count(self) -> u8 {
        match self {
            Rank::Commander | Rank::CorpsCommander | Rank::Flag => 1,
            Rank::Division | Rank::Brigade | Rank::Regiment | Rank::Battalion | Rank::Bomb => 2,
            Rank::Company | Rank::Platoon | Rank::Engineer | Rank::Mine => 3,
        }
    }

    /// Mines and the Flag never move (J10).
    pub const fn is_movable(self) -> bool {
        !matches!(self, Rank::Mine | Rank::Flag)
    }

    /// An army rank (Commander to Engineer), compared by J12.
    pub const fn is_army(self) -> bool {
        (self as u8) <= (Rank::Engineer as u8)
    }

    /// A one-letter code, used in the compact serialized board.
    pub(crate) const fn code(self) -> char {
        match self {
            Rank::Commander => 'c',
            Rank::CorpsCommander => 'k',
            Rank::Division => 'd',
            Rank::Brigade => 'g',
            Rank::Regiment => 'r',
            Rank::Battalion => 't',
            Rank::Company => 'y',
            Rank::Platoon => 'p',
            Rank::Engineer => 'e',
            Rank::Mine => 'm',
            Rank::Bomb => 'b',
            Rank::Flag => 'f',
        }
    }

    pub(crate) fn from_code(c: char) -> Option<Rank> {
        Rank::ALL.into_iter().find(|r| r.code() == c)
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rank::Commander => "commander",
            Rank::CorpsCommander => "corps commander",
            Rank::Division => "division commander",
            Rank::Brigade => "brigade commander",
            Rank::Regiment => "regiment commander",
            Rank::Battalion => "battalion commander",
            Rank::Company => "company commander",
            Rank::Platoon => "platoon commander",
            Rank::Engineer => "engineer",
            Rank::Mine => "mine",
            Rank::Bomb => "bomb",
            Rank::Flag => "flag",
        })
    }
}

/// A piece: a colour and a rank.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct Piece {
    /// Its colour.
    pub colour: Colour,
    /// Its rank.
    pub rank: Rank,
}

impl Piece {
    /// A piece of `colour` and `rank`.
    pub const fn new(colour: Colour, rank: Rank) -> Piece {
        Piece { colour, rank }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.colour, self.rank)
    }
}

/// What an allowed attack does (J12-J15). A defender never survives an attack: a lower rank
/// may not attack at all (J12).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub enum CombatResult {
    /// The defender is removed and the attacker takes its point.
    AttackerWins,
    /// Both pieces are removed (equal ranks, or a Bomb).
    BothRemoved,
}

/// Why an attack between two face-up pieces is refused.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum CombatError {
    /// J12: a lower rank may not attack a higher one.
    LowerRank,
    /// J14: only an Engineer (or a Bomb) may attack a Mine.
    MineNeedsEngineer,
    /// J15: the Flag is protected while mines of its colour or face-down pieces remain.
    FlagProtected,
    /// J10: Mines and the Flag never move, so never attack.
    Immovable,
}

/// The combat table (J12-J15) for an attack by `attacker` on `defender`, where `flag_open`
/// says whether the J15 condition holds for the defender's colour.
///
/// ```
/// use ludus_junqi::{combat, CombatResult, Rank};
/// assert_eq!(combat(Rank::Engineer, Rank::Mine, false), Ok(CombatResult::AttackerWins));
/// assert_eq!(combat(Rank::Bomb, Rank::Commander, false), Ok(CombatResult::BothRemoved));
/// assert!(combat(Rank::Platoon, Rank::Company, false).is_err());
/// ```
pub fn combat(
    attacker: Rank,
    defender: Rank,
    flag_open: bool,
) -> Result<CombatResult, CombatError> {
    use CombatResult::*;
    if !attacker.is_movable() {
        return Err(CombatError::Immovable);
    }
    // J15 before J13: while protected the Flag cannot be attacked at all, not even by a Bomb.
    if defender == Rank::Flag {
        if !flag_open {
            return Err(CombatError::FlagProtected);
        }
        // [decided] a Bomb that takes an open Flag is removed with it (J13); the Flag is
        // captured either way.
        return Ok(if attacker == Rank::Bomb {
            BothRemoved
        } else {
            AttackerWins
        });
    }
    // J13: a Bomb and whatever it meets, the Mine included.
    if attacker == Rank::Bomb || defender == Rank::Bomb {
        return Ok(BothRemoved);
    }
    // J14: only an Engineer clears a Mine.
    if defender == Rank::Mine {
        return if attacker == Rank::Engineer {
            Ok(AttackerWins)
        } else {
            Err(CombatError::MineNeedsEngineer)
        };
    }
    // J12: both are army ranks here; a smaller index is a higher rank.
    match attacker.index().cmp(&defender.index()) {
        std::cmp::Ordering::Less => Ok(AttackerWins),
        std::cmp::Ordering::Equal => Ok(BothRemoved),
        std::cmp::Ordering::Greater => Err(CombatError::LowerRank),
    }
}
