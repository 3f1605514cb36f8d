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
/// One cell left to complete a winning five.
pub const FOUR: u8 = 6;
/// Two cells that each complete a winning five: cannot be stopped in this line.
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

fn classify(w: &mut [u8; WIDTH], rules: Rules) -> u8 {
    if run_wins(w, CENTER, rules) {
        return FIVE;
    }
    let own = w.iter().filter(|&&c| c == OWN).count();
    if own >= 4 {
        match winning_points(w, rules) {
            0 => {}
            1 => return FOUR,
            _ => return OPEN_FOUR,
        }
    }
    if own >= 3 {
        let mut best = 0;
        for at in 0..WIDTH {
            if w[at] == EMPTY {
                w[at] = OWN;
                best = best.max(winning_points(w, rules));
                w[at] = EMPTY;
                if best >= 2 {
                    return OPEN_THREE;
                }
            }
        }
        if best == 1 {
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
    }
}
