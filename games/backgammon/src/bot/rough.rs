//! The rough evaluation the Easy level plays on (with noise): pips, borne-off checkers,
//! made points and a flat penalty for blots within the opponent's reach. It used to be the
//! B20 timeout bot, which now plays the Normal level.

use ludus_rules::Seat;

use crate::board::Board;

/// A heuristic value of `board` for `side`, higher is better.
pub fn score(board: &Board, side: Seat) -> i64 {
    let opp = side ^ 1;
    let mut s: i64 = 0;
    // Racing: fewer own pips, more opponent pips (hits send checkers back).
    s -= i64::from(board.pips(side));
    s += i64::from(board.pips(opp));
    s += 12 * i64::from(board.off(side));
    s += 10 * i64::from(board.bar(opp));
    // Opponent checkers that can still reach our checkers stand on our low points (their
    // high points); their bar counts as our point 0.
    let lowest_opp = if board.bar(opp) > 0 {
        Some(0u8)
    } else {
        (1..=24u8).find(|&p| board.opponent_at(side, p) > 0)
    };
    for p in 1..=24u8 {
        let n = board.count(side, p);
        if n >= 2 {
            s += if p <= 7 { 6 } else { 2 };
        } else if n == 1
            && let Some(q) = lowest_opp
            && q < p
        {
            // Distance of the nearest attacker below the blot.
            let nearest = (0..p)
                .rev()
                .find(|&r| {
                    (r == 0 && board.bar(opp) > 0) || (r > 0 && board.opponent_at(side, r) > 0)
                })
                .unwrap_or(q);
            let d = p - nearest;
            s -= if d <= 6 {
                14
            } else if d <= 12 {
                6
            } else {
                2
            };
        }
    }
    s
}
