//! Plays: the list of checker moves of one turn. Generating every distinct legal play for a
//! roll (B5-B11, with B8's "use as many dice as possible, else the larger die") and checking
//! a play a client sent, naming the rule it breaks.

use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use ludus_rules::Seat;
use serde::{Deserialize, Serialize};

use crate::board::{BAR, Board, OFF, StepError};
use crate::error::BackgammonError;

/// One checker move in the mover's own numbering: `from` 1-24 or 25 (the bar), `to` 1-24 or
/// 0 (off). A move may span several dice (`24/13` with 6-5, B6).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Serialize, Deserialize)]
pub struct Move {
    /// 1-24, or 25 for the bar.
    pub from: u8,
    /// 1-24, or 0 for off.
    pub to: u8,
    /// Whether the move hits a blot where it lands. Informational: the library sets it on
    /// the plays it generates and ignores it when checking a client's play.
    #[serde(default)]
    pub hit: bool,
}

impl Move {
    /// A move without the hit mark.
    pub const fn new(from: u8, to: u8) -> Move {
        Move {
            from,
            to,
            hit: false,
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_point(f, self.from)?;
        f.write_str("/")?;
        write_point(f, self.to)?;
        if self.hit {
            f.write_str("*")?;
        }
        Ok(())
    }
}

fn write_point(f: &mut fmt::Formatter<'_>, p: u8) -> fmt::Result {
    match p {
        BAR => f.write_str("bar"),
        OFF => f.write_str("off"),
        _ => write!(f, "{p}"),
    }
}

/// The whole play of one turn: possibly empty when no die can be played (B8, B10).
#[derive(Clone, Eq, PartialEq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct Play(pub Vec<Move>);

impl Play {
    /// The moves of the play.
    pub fn moves(&self) -> &[Move] {
        &self.0
    }
}

impl fmt::Display for Play {
    /// Standard notation: `24/18 13/11`, `bar/22`, `6/off`, `8/2(2)`, `13/7*`; an empty play
    /// is `no play`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no play");
        }
        let mut i = 0;
        let mut first = true;
        while i < self.0.len() {
            let m = self.0[i];
            let mut n = 1;
            while i + n < self.0.len() && self.0[i + n] == m {
                n += 1;
            }
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{m}")?;
            if n > 1 {
                write!(f, "({n})")?;
            }
            i += n;
        }
        Ok(())
    }
}

/// The two dice of a roll, as rolled.
pub type Dice = [u8; 2];

/// The dice a roll gives to play: four of a double (B7), else the two numbers.
fn dice_list(dice: Dice) -> Vec<u8> {
    if dice[0] == dice[1] {
        vec![dice[0]; 4]
    } else {
        vec![dice[0], dice[1]]
    }
}

/// A small fast hasher for boards (the FxHash mixing step): generation hashes thousands of
/// 50-byte boards per roll, where SipHash's DoS resistance buys nothing (keys are positions
/// the rules produce, not client input).
#[derive(Default, Clone, Copy, Debug)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FastSet<T> = HashSet<T, BuildHasherDefault<FxHasher>>;

/// The dice left, as a set key: up to four dice of 3 bits each.
fn dice_key(dice: &[u8]) -> u16 {
    dice.iter()
        .fold(u16::from(dice.len() as u8), |k, &d| (k << 3) | u16::from(d))
}

/// One single-die step, as the generator makes them.
#[derive(Copy, Clone, Eq, PartialEq, Debug)]
struct Step {
    from: u8,
    to: u8,
    hit: bool,
    die: u8,
}

struct Leaf {
    board: Board,
    steps: Vec<Step>,
}

/// The distinct legal plays of one roll and how many dice each of them uses (B8).
#[derive(Clone, Debug)]
pub struct LegalPlays {
    /// Each play with the position it leads to; never empty (the empty play when nothing
    /// can be played).
    pub plays: Vec<(Play, Board)>,
    /// Dice every legal play uses: 0-2, or 0-4 for a double.
    pub dice_used: usize,
}

/// Every distinct legal play of `side` for `dice` on `board`, with the position it leads to.
/// Plays that reach the same position are one play. B8 is applied: only plays using the most
/// dice remain, and when that is one die of a non-double, only plays of the larger die when
/// one exists. The list is never empty: when nothing can be played it holds the empty play.
pub fn legal_plays(board: &Board, side: Seat, dice: Dice) -> LegalPlays {
    let mut leaves = Vec::new();
    let mut seen = FastSet::default();
    let mut steps = Vec::with_capacity(4);
    let larger = dice[0].max(dice[1]);
    search(
        board,
        side,
        &dice_list(dice),
        &mut steps,
        &mut leaves,
        &mut seen,
    );
    let max_used = leaves.iter().map(|l| l.steps.len()).max().unwrap_or(0);
    let used_larger = |l: &Leaf| l.steps.len() == 1 && l.steps[0].die == larger;
    let larger_only = dice[0] != dice[1] && max_used == 1 && leaves.iter().any(used_larger);
    let mut out: Vec<(Play, Board)> = Vec::new();
    let mut index: FastSet<Board> = FastSet::default();
    for leaf in leaves {
        if leaf.steps.len() != max_used || (larger_only && !used_larger(&leaf)) {
            continue;
        }
        if index.insert(leaf.board) {
            out.push((compact(&leaf.steps, board.bar(side) > 1), leaf.board));
        }
    }
    if out.is_empty() {
        out.push((Play::default(), *board));
    }
    LegalPlays {
        plays: out,
        dice_used: max_used,
    }
}

/// Depth-first over die orders. `seen` holds (position, dice left) pairs already expanded,
/// which is what keeps doubles cheap: many orders reach the same intermediate position.
fn search(
    board: &Board,
    side: Seat,
    dice: &[u8],
    steps: &mut Vec<Step>,
    leaves: &mut Vec<Leaf>,
    seen: &mut FastSet<(Board, u16)>,
) {
    let mut moved = false;
    let mut tried = [false; 7];
    for (k, &die) in dice.iter().enumerate() {
        if tried[usize::from(die)] {
            continue;
        }
        tried[usize::from(die)] = true;
        let mut rest = dice.to_vec();
        rest.remove(k);
        // `step` refuses empty points and, while a checker is on the bar, anything else.
        for from in (1..=BAR).rev() {
            let Ok((next, to, hit)) = board.step(side, from, die) else {
                continue;
            };
            moved = true;
            if !seen.insert((next, dice_key(&rest))) {
                continue;
            }
            steps.push(Step { from, to, hit, die });
            if rest.is_empty() {
                leaves.push(Leaf {
                    board: next,
                    steps: steps.clone(),
                });
            } else {
                search(&next, side, &rest, steps, leaves, seen);
            }
            steps.pop();
        }
    }
    if !moved {
        leaves.push(Leaf {
            board: *board,
            steps: steps.clone(),
        });
    }
}

/// Merges the single-die steps of one checker into combined moves (`24/18 18/13` becomes
/// `24/13`), except after a hit, so the notation shows where a hit happened, and except for
/// bearing off, which may have to wait for other checkers to come home; then sorts the
/// moves from the highest point down, the order in which they can always be played. With
/// several checkers on the bar an entered checker may not go on before the others are in
/// (B10), so entering moves stay single (`bar/20(2) 20/15(2)`).
fn compact(steps: &[Step], several_on_bar: bool) -> Play {
    let mut moves: Vec<Move> = Vec::with_capacity(steps.len());
    for s in steps {
        if let Some(m) = moves
            .iter_mut()
            .rev()
            .find(|m| m.to == s.from && !m.hit && s.to != OFF && !(several_on_bar && m.from == BAR))
        {
            m.to = s.to;
            m.hit = s.hit;
        } else {
            moves.push(Move {
                from: s.from,
                to: s.to,
                hit: s.hit,
            });
        }
    }
    moves.sort_by(|a, b| b.from.cmp(&a.from).then(b.to.cmp(&a.to)));
    Play(moves)
}

/// A realisation of a client's play: the position reached, the dice used and how many hits
/// happened on intermediate points of combined moves.
struct Resolved {
    board: Board,
    used: usize,
    intermediate_hits: usize,
}

/// Checks a client's play against the legal plays and returns the position it reaches.
/// Errors name the rule: B1 (no such checker, wrong direction), B5 (blocked point), B6
/// (numbers not on the dice, blocked intermediate point), B7 (more moves than a double gives),
/// B8 (dice left unplayed, smaller die played), B10 (bar first), B11 (bearing off).
pub fn check_play(
    board: &Board,
    side: Seat,
    dice: Dice,
    play: &Play,
    legal: &LegalPlays,
) -> Result<Board, BackgammonError> {
    let legal_boards: HashSet<Board> = legal.plays.iter().map(|(_, b)| *b).collect();
    let max_used = legal.dice_used;
    let attempt = |moves: &[Move]| -> Result<Vec<Resolved>, BackgammonError> {
        let mut out = Vec::new();
        let mut err = None;
        resolve(
            board,
            side,
            &dice_list(dice),
            moves,
            0,
            0,
            &mut out,
            &mut err,
        );
        if out.is_empty() {
            Err(err.unwrap_or_else(|| {
                BackgammonError::new("B6", format!("{play} cannot be played with {}", roll(dice)))
            }))
        } else {
            Ok(out)
        }
    };
    for m in &play.0 {
        if !(1..=BAR).contains(&m.from) || m.to > 24 || m.to >= m.from {
            return Err(BackgammonError::new(
                "B1",
                format!("{m} does not move from a higher point to a lower one"),
            ));
        }
    }
    let resolved = match attempt(&play.0) {
        Ok(r) => r,
        Err(e) => {
            // The client may list independent moves in any order: from the highest point down
            // is always playable when the play is (see `compact`).
            let mut sorted = play.0.clone();
            sorted.sort_by(|a, b| b.from.cmp(&a.from).then(b.to.cmp(&a.to)));
            if sorted == play.0 {
                return Err(e);
            }
            attempt(&sorted).map_err(|_| e)?
        }
    };
    let best = resolved
        .iter()
        .filter(|r| legal_boards.contains(&r.board))
        .min_by_key(|r| r.intermediate_hits);
    if let Some(r) = best {
        return Ok(r.board);
    }
    let used = resolved.iter().map(|r| r.used).max().unwrap_or(0);
    if used < max_used {
        if board.bar(side) > 0 {
            let bar_left = resolved.iter().all(|r| r.board.bar(side) > 0);
            let message = if bar_left {
                format!(
                    "{play} leaves checkers on the bar that {} can enter",
                    roll(dice)
                )
            } else {
                format!("{play}: the dice left after entering must be played")
            };
            return Err(BackgammonError::new("B10", message));
        }
        let what = if dice[0] == dice[1] {
            format!("{max_used} of the four {}s", dice[0])
        } else if max_used == 2 {
            "both dice".to_owned()
        } else {
            "one die".to_owned()
        };
        return Err(BackgammonError::new(
            "B8",
            format!("{play} uses {used} dice but {} can play {what}", roll(dice)),
        ));
    }
    Err(BackgammonError::new(
        "B8",
        format!(
            "{play} plays the smaller die: with {} the larger die ({}) must be played",
            roll(dice),
            dice[0].max(dice[1])
        ),
    ))
}

/// Text for a roll: `6-5`.
pub fn roll(dice: Dice) -> String {
    format!("{}-{}", dice[0], dice[1])
}

#[allow(clippy::too_many_arguments)]
fn resolve(
    board: &Board,
    side: Seat,
    dice: &[u8],
    moves: &[Move],
    used: usize,
    hits: usize,
    out: &mut Vec<Resolved>,
    err: &mut Option<BackgammonError>,
) {
    let Some((m, rest)) = moves.split_first() else {
        out.push(Resolved {
            board: *board,
            used,
            intermediate_hits: hits,
        });
        return;
    };
    let mut any_distance = false;
    for seq in die_sequences(dice) {
        let mut b = *board;
        let mut pos = m.from;
        let mut mid_hits = 0;
        let mut ok = true;
        let mut reached = false;
        for (k, &d) in seq.iter().enumerate() {
            let last = k + 1 == seq.len();
            let lands = pos.saturating_sub(d);
            // Only sequences that reach exactly `to` (or bear off on the last die) count.
            let fits = if m.to == OFF {
                if last { pos <= d } else { pos > d }
            } else {
                pos > d && (if last { lands == m.to } else { lands > m.to })
            };
            if !fits {
                ok = false;
                break;
            }
            any_distance = true;
            match b.step(side, pos, d) {
                Ok((next, to, hit)) => {
                    if hit && !last {
                        mid_hits += 1;
                    }
                    b = next;
                    pos = to;
                }
                Err(e) => {
                    if err.is_none() {
                        *err = Some(step_error(e, m, pos, d, k > 0));
                    }
                    ok = false;
                    break;
                }
            }
            if last {
                reached = true;
            }
        }
        if ok && reached {
            let mut left = dice.to_vec();
            for d in &seq {
                if let Some(i) = left.iter().position(|x| x == d) {
                    left.remove(i);
                }
            }
            resolve(
                &b,
                side,
                &left,
                rest,
                used + seq.len(),
                hits + mid_hits,
                out,
                err,
            );
        }
    }
    if !any_distance && err.is_none() {
        *err = Some(if dice.is_empty() {
            BackgammonError::new("B7", format!("no dice are left for {m}"))
        } else {
            let left: Vec<String> = dice.iter().map(u8::to_string).collect();
            BackgammonError::new(
                "B6",
                format!("{m} does not match the dice left ({})", left.join(", ")),
            )
        });
    }
}

/// Every ordered sequence of the dice left that one checker could take: for a double, one to
/// four of it; otherwise each die alone and both in either order.
fn die_sequences(dice: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if dice.is_empty() {
        return out;
    }
    if dice.iter().all(|&d| d == dice[0]) {
        for n in 1..=dice.len() {
            out.push(vec![dice[0]; n]);
        }
    } else {
        for (i, &a) in dice.iter().enumerate() {
            out.push(vec![a]);
            for (j, &b) in dice.iter().enumerate() {
                if i != j {
                    out.push(vec![a, b]);
                }
            }
        }
    }
    out
}

fn step_error(e: StepError, m: &Move, pos: u8, die: u8, intermediate: bool) -> BackgammonError {
    match e {
        StepError::NoSuchDie => BackgammonError::new("B6", format!("{die} is not a die")),
        StepError::NoChecker => BackgammonError::new(
            "B1",
            format!("{m}: there is no checker of yours to move there"),
        ),
        StepError::BarFirst => BackgammonError::new(
            "B10",
            format!("{m}: checkers on the bar must enter before any other move"),
        ),
        StepError::Blocked(p) if intermediate || p != m.to => {
            BackgammonError::new("B6", format!("{m}: the intermediate point {p} is blocked"))
        }
        StepError::Blocked(p) => {
            BackgammonError::new("B5", format!("{m}: point {p} is held by the opponent"))
        }
        StepError::NotAllHome => BackgammonError::new(
            "B11",
            format!("{m}: bearing off needs all 15 checkers in the home board"),
        ),
        StepError::HigherPointOccupied => BackgammonError::new(
            "B11",
            format!("{m}: a {die} bears off from {pos} only when no checker is on a higher point"),
        ),
    }
}
