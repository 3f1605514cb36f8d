//! Line shapes: what placing a stone on an empty cell makes along one direction.
//!
//! A shape is read from the ten cells around the candidate along a line (five each side),
//! seen from the player who would place there: empty, own, or blocked (an opponent stone or
//! the board edge, C4). Ten cells with three states make 3^10 = 59,049 windows, so every
//! window is classified once per C5 rule combination and looked up afterwards: the bots then
//! update shapes incrementally (only the cells on the four lines through a placed stone
//! change) instead of rescanning the board.
//!
//! Wins are classified with [`crate::line::wins`], the crate's own C6 table, so a run of six
//! under exactly-five or a five blocked at both ends under the blocked-ends rule is never a
//! win here either. Cells past the window count as blocked; the search never trusts a shape
//! for a win, it re-checks wins on the real board ([`super::board::Board::wins_at`]).

use std::sync::OnceLock;

use crate::line;

/// Nothing: no five-cell window through the cell is free of blockers.
pub const NONE: u8 = 0;
/// A lone stone with room for a five.
pub const ONE: u8 = 1;
/// Two stones (or more, but crippled by the rules) with room for a five.
pub const TWO: u8 = 2;
/// Two stones with room on both sides: one more makes an open three.
pub const OPEN_TWO: u8 = 3;
/// One more stone makes a four (a "sleeping" three).
pub const THREE: u8 = 4;
/// One more stone makes an open four: a threat that must be answered.
pub const OPEN_THREE: u8 = 5;
/// One stone from a winning five, and one answer in this line stops it.
pub const FOUR: u8 = 6;
/// A four no single stone stops in this line: its winning points outlive any one answer
/// (under C5 blocked-ends two points are not always enough, see `unstoppable`).
pub const OPEN_FOUR: u8 = 7;
/// A winning five under the chosen C5 rules.
pub const FIVE: u8 = 8;

/// The window's cell states, seen from the player who would place in the middle.
pub const EMPTY: u8 = 0;
pub const OWN: u8 = 1;
pub const BLOCKED: u8 = 2;

/// Cells each side of the candidate that a shape looks at.
pub const REACH: usize = 5;
const WIDTH: usize = 2 * REACH + 1;
const CENTER: usize = REACH;
/// 3^10 windows.
pub const WINDOWS: usize = 59_049;

/// The rules a table was built for: (blocked-ends rule, exactly-five rule), C5.
pub type Rules = (bool, bool);

static TABLES: [OnceLock<Vec<u8>>; 4] = [
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
];

/// The shape table of one C5 rule combination, built on first use and shared afterwards.
pub fn table(rules: Rules) -> &'static [u8] {
    let slot = usize::from(rules.0) + 2 * usize::from(rules.1);
    TABLES[slot].get_or_init(|| build(rules))
}

/// The table index of a window: digit `i` (base 3) is the state of the cell at offset
/// -5, -4, -3, -2, -1, +1, …, +5 for `i` = 0…9.
fn window(key: usize) -> [u8; WIDTH] {
    let mut w = [EMPTY; WIDTH];
    let mut rest = key;
    for i in 0..2 * REACH {
        let at = if i < REACH { i } else { i + 1 };
        w[at] = (rest % 3) as u8;
        rest /= 3;
    }
    w[CENTER] = OWN;
    w
}

fn build(rules: Rules) -> Vec<u8> {
    (0..WINDOWS)
        .map(|key| classify(&mut window(key), rules))
        .collect()
}

/// Whether the run through `at` (an own cell) contains the center and wins under `rules`.
fn run_wins(w: &[u8; WIDTH], at: usize, rules: Rules) -> bool {
    let mut lo = at;
    while lo > 0 && w[lo - 1] == OWN {
        lo -= 1;
    }
    let mut hi = at;
    while hi + 1 < WIDTH && w[hi + 1] == OWN {
        hi += 1;
    }
    if lo > CENTER || hi < CENTER {
        return false;
    }
    let blocked =
        u8::from(lo == 0 || w[lo - 1] != EMPTY) + u8::from(hi + 1 == WIDTH || w[hi + 1] != EMPTY);
    line::wins(hi - lo + 1, blocked, rules.0, rules.1)
}

/// How many empty cells would complete a winning run through the center.
fn winning_points(w: &mut [u8; WIDTH], rules: Rules) -> usize {
    let mut count = 0;
    for at in 0..WIDTH {
        if w[at] == EMPTY {
            w[at] = OWN;
            if run_wins(w, at, rules) {
                count += 1;
            }
            w[at] = EMPTY;
        }
    }
    count
}

/// Whether the winning points through the center survive any one opponent stone in the
/// window: an open four, which no single answer stops in this line. Under the C5
/// blocked-ends rule two winning points are not enough: in `|.xxxx.` (the edge on the left)
/// an answer on the right point leaves the left completion blocked at both ends (C4), so that
/// four has one answer like any other. Without that rule only filling a point kills it.
fn unstoppable(w: &mut [u8; WIDTH], rules: Rules) -> bool {
    if winning_points(w, rules) < 2 {
        return false;
    }
    (0..WIDTH).all(|answer| {
        if w[answer] != EMPTY {
            return true;
        }
        w[answer] = BLOCKED;
        let survives = winning_points(w, rules) > 0;
        w[answer] = EMPTY;
        survives
    })
}

fn classify(w: &mut [u8; WIDTH], rules: Rules) -> u8 {
    if run_wins(w, CENTER, rules) {
        return FIVE;
    }
    let own = w.iter().filter(|&&c| c == OWN).count();
    if own >= 4 && winning_points(w, rules) > 0 {
        return if unstoppable(w, rules) {
            OPEN_FOUR
        } else {
            FOUR
        };
    }
    if own >= 3 {
        // A three: one more stone makes a four; an open three: one more makes an open four.
        let mut four = false;
        for at in 0..WIDTH {
            if w[at] == EMPTY {
                w[at] = OWN;
                let points = winning_points(w, rules);
                let open = points >= 2 && unstoppable(w, rules);
                w[at] = EMPTY;
                if open {
                    return OPEN_THREE;
                }
                four |= points > 0;
            }
        }
        if four {
            return THREE;
        }
    }
    // Below a three, count stones in the free five-cell windows through the center.
    let free = |from: usize, to: usize| (from..to).all(|i| w[i] != BLOCKED);
    let own_in = |from: usize, to: usize| (from..to).filter(|&i| w[i] == OWN).count();
    let most = (CENTER + 1 - 5..=CENTER)
        .filter(|&s| free(s, s + 5))
        .map(|s| own_in(s, s + 5))
        .max();
    match most {
        None => NONE,
        Some(1) => ONE,
        Some(2) => {
            let open = (CENTER + 1 - 6..=CENTER).any(|s| {
                s + 6 <= WIDTH
                    && w[s] == EMPTY
                    && w[s + 5] == EMPTY
                    && free(s + 1, s + 5)
                    && own_in(s + 1, s + 5) == 2
            });
            if open { OPEN_TWO } else { TWO }
        }
        Some(_) => TWO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a window from text: `x` own, `.` empty, `o` blocked; the middle must be `x`.
    fn key(text: &str) -> usize {
        let cells: Vec<u8> = text
            .bytes()
            .map(|b| match b {
                b'x' => OWN,
                b'o' => BLOCKED,
                _ => EMPTY,
            })
            .collect();
        assert_eq!(cells.len(), WIDTH);
        assert_eq!(cells[CENTER], OWN);
        let mut key = 0;
        for i in (0..2 * REACH).rev() {
            let at = if i < REACH { i } else { i + 1 };
            key = key * 3 + usize::from(cells[at]);
        }
        key
    }

    #[test]
    fn shapes_follow_the_c6_table() {
        let free = table((false, false));
        let blocked = table((true, false));
        let exact = table((false, true));
        // C6: a five open at both ends wins under every rule.
        for t in [free, blocked, exact] {
            assert_eq!(t[key("...xxxxx...")], FIVE);
            assert_eq!(t[key("....xxxx...")], OPEN_FOUR);
            assert_eq!(t[key("...oxxxx...")], FOUR);
            assert_eq!(t[key("..xx.xx....")], FOUR, "a broken four");
            assert_eq!(t[key("....xxx....")], OPEN_THREE);
            assert_eq!(t[key("....xx.x...")], OPEN_THREE, "a broken three");
            assert_eq!(t[key("...oxxx....")], THREE);
            assert_eq!(t[key("....xx.....")], OPEN_TWO);
        }
        // C5 blocked-ends: a five blocked at both ends does not win, so oxxxx.o is dead.
        assert_eq!(free[key("..oxxxxxo..")], FIVE);
        assert_eq!(blocked[key("..oxxxxxo..")], TWO);
        assert_eq!(free[key("..oxxxx.o..")], FOUR);
        assert_eq!(blocked[key("..oxxxx.o..")], TWO);
        // C5 exactly-five: a six never wins, so filling a gap that would make six is no threat.
        assert_eq!(free[key("..xxxxxx...")], FIVE);
        assert_eq!(exact[key("..xxxxxx...")], TWO);
        assert_eq!(
            exact[key(".x.xxxx....")],
            FOUR,
            "only the right end wins exactly"
        );
        assert_eq!(free[key(".x.xxxx....")], OPEN_FOUR);
        // C4/C5 blocked-ends: with a blocker two cells out, an answer on one end leaves the
        // other completion blocked at both ends, so `o.xxxx.` is a four, not an open four,
        // and `o..xxx..o` is a three: each of its fours has an answer.
        let both = table((true, true));
        assert_eq!(free[key("o.xxxx.....")], OPEN_FOUR);
        assert_eq!(exact[key("o.xxxx.....")], OPEN_FOUR);
        assert_eq!(blocked[key("o.xxxx.....")], FOUR);
        assert_eq!(both[key("o.xxxx.....")], FOUR);
        assert_eq!(blocked[key("o.xxxx..o..")], FOUR);
        assert_eq!(blocked[key("..xxxx.....")], OPEN_FOUR);
        assert_eq!(blocked[key("o..xxx..o..")], THREE);
        assert_eq!(free[key("o..xxx..o..")], OPEN_THREE);
        assert_eq!(blocked[key("...xxx.....")], OPEN_THREE);
    }
}
