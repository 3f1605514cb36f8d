//! The complete one-sided bear-off database: for every position of up to 15 checkers on
//! points 1-6 (54,264 of them), the distribution of the number of turns one side needs to bear
//! off every checker (B11, B13), each roll played to minimise the expected number of turns.
//! Built once per process on first use ([`OnceLock`]) by dynamic programming in increasing pip
//! order: every die lowers the pip count, so a position depends only on positions already done.
//!
//! "One-sided" means the opponent is ignored: right for a race (no contact), where it is the
//! heart of the race evaluation in [`super::eval`]. Two such distributions give the exact
//! chance to win a bear-off race ([`race_win`]).
//!
//! The best play of a double is found without enumerating its 4-move sequences: `best[k][d]`
//! keeps, for each position, the best result of `k` moves of die `d`, and a fifth move is one
//! more minimum over the single-die successors.

use std::sync::OnceLock;

/// Checkers one side has (B1).
pub const CHECKERS: usize = 15;
/// Positions in the database: 15 or fewer checkers on 6 points, C(21, 6).
pub const POSITIONS: usize = 54_264;
/// Turns tracked per distribution; the last slot holds the (tiny) tail beyond it.
pub const TURN_SLOTS: usize = 24;

/// Checkers on points 1-6, index 0 = point 1.
pub type Home = [u8; 6];

/// `FIT[k][r]`: positions of at most `r` checkers on `k` points, C(k + r, k).
const fn fit_table() -> [[u32; CHECKERS + 1]; 7] {
    let mut t = [[0u32; CHECKERS + 1]; 7];
    let mut r = 0;
    while r <= CHECKERS {
        t[0][r] = 1;
        r += 1;
    }
    let mut k = 1;
    while k < 7 {
        let mut r = 0;
        while r <= CHECKERS {
            // The first of k points holds 0..=r checkers, the rest fit in what is left.
            let mut v = 0;
            let mut sum = 0;
            while v <= r {
                sum += t[k - 1][r - v];
                v += 1;
            }
            t[k][r] = sum;
            r += 1;
        }
        k += 1;
    }
    t
}

const FIT: [[u32; CHECKERS + 1]; 7] = fit_table();

/// The position's index in the database (lexicographic over the points), `None` beyond 15
/// checkers.
pub fn index(h: &Home) -> Option<usize> {
    let mut left = CHECKERS;
    let mut rank = 0u32;
    for (i, &c) in h.iter().enumerate() {
        let c = usize::from(c);
        if c > left {
            return None;
        }
        for v in 0..c {
            rank += FIT[5 - i][left - v];
        }
        left -= c;
    }
    Some(rank as usize)
}

fn pips(h: &Home) -> u32 {
    h.iter()
        .enumerate()
        .map(|(i, &c)| (i as u32 + 1) * u32::from(c))
        .sum()
}

/// Every position a single die `d` (1-6) can lead to from `h` (B11: a checker moves down
/// inside the board, bears off from point d, or from the highest point when none is higher).
/// With no checker left there is nothing to move: the position itself.
fn die_moves(h: &Home, d: usize, out: &mut Vec<Home>) {
    out.clear();
    let Some(highest) = (0..6).rev().find(|&i| h[i] > 0) else {
        out.push(*h);
        return;
    };
    for from in 0..6 {
        if h[from] == 0 {
            continue;
        }
        let point = from + 1;
        let mut next = *h;
        next[from] -= 1;
        if point > d {
            next[from - d] += 1;
            out.push(next);
        } else if point == d || from == highest {
            // Bearing off exactly, or with a larger die from the highest point.
            out.push(next);
        }
    }
}

/// The database: per position the expected turns and the distribution of turns.
pub struct Database {
    mean: Vec<f32>,
    /// `POSITIONS * TURN_SLOTS`: the chance of finishing in exactly `n` turns.
    dist: Vec<f32>,
}

impl Database {
    fn build() -> Database {
        let mut positions = vec![[0u8; 6]; POSITIONS];
        let mut h = [0u8; 6];
        enumerate(0, CHECKERS, &mut h, &mut positions);
        let mut order: Vec<usize> = (0..POSITIONS).collect();
        order.sort_by_key(|&i| pips(&positions[i]));
        // Single-die successors, as indices: (start, len) into `succ`.
        let mut succ: Vec<u32> = Vec::with_capacity(POSITIONS * 6 * 4);
        let mut span = vec![(0u32, 0u8); POSITIONS * 6];
        let mut buf = Vec::with_capacity(6);
        for (i, h) in positions.iter().enumerate() {
            for d in 1..=6 {
                die_moves(h, d, &mut buf);
                span[i * 6 + d - 1] = (succ.len() as u32, buf.len() as u8);
                succ.extend(buf.iter().filter_map(index).map(|x| x as u32));
            }
        }
        let moves = |i: usize, d: usize| {
            let (s, n) = span[i * 6 + d - 1];
            &succ[s as usize..s as usize + usize::from(n)]
        };
        let mut mean = vec![0f32; POSITIONS];
        let mut dist = vec![0f32; POSITIONS * TURN_SLOTS];
        // best[k][i * 6 + d - 1]: the result of k + 1 moves of die d from i that leaves the
        // fewest expected turns.
        let mut best = vec![vec![0u32; POSITIONS * 6]; 3];
        for &i in &order {
            if positions[i] == [0; 6] {
                dist[i * TURN_SLOTS] = 1.0;
                for table in &mut best {
                    table[i * 6..i * 6 + 6].fill(i as u32);
                }
                continue;
            }
            let pick = |cands: &mut dyn Iterator<Item = u32>| -> u32 {
                let mut top = (f32::INFINITY, i as u32);
                for c in cands {
                    let m = mean[c as usize];
                    if m < top.0 {
                        top = (m, c);
                    }
                }
                top.1
            };
            let mut firsts = [[0u32; 3]; 6];
            for d in 1..=6 {
                firsts[d - 1][0] = pick(&mut moves(i, d).iter().copied());
                for k in 1..3 {
                    let prev = &best[k - 1];
                    firsts[d - 1][k] =
                        pick(&mut moves(i, d).iter().map(|&m| prev[m as usize * 6 + d - 1]));
                }
            }
            for d in 1..=6 {
                for k in 0..3 {
                    best[k][i * 6 + d - 1] = firsts[d - 1][k];
                }
            }
            let mut total = 0f64;
            let mut row = [0f32; TURN_SLOTS];
            for a in 1..=6usize {
                for b in a..=6usize {
                    let r = if a == b {
                        let third = &best[2];
                        pick(&mut moves(i, a).iter().map(|&m| third[m as usize * 6 + a - 1]))
                    } else {
                        let one = &best[0];
                        let ab = moves(i, a).iter().map(|&m| one[m as usize * 6 + b - 1]);
                        let ba = moves(i, b).iter().map(|&m| one[m as usize * 6 + a - 1]);
                        pick(&mut ab.chain(ba))
                    } as usize;
                    let w = if a == b { 1.0 } else { 2.0 } / 36.0;
                    total += w * f64::from(mean[r]);
                    let from = &dist[r * TURN_SLOTS..(r + 1) * TURN_SLOTS];
                    for n in 0..TURN_SLOTS - 1 {
                        row[n + 1] += (w as f32) * from[n];
                    }
                    row[TURN_SLOTS - 1] += (w as f32) * from[TURN_SLOTS - 1];
                }
            }
            mean[i] = (1.0 + total) as f32;
            dist[i * TURN_SLOTS..(i + 1) * TURN_SLOTS].copy_from_slice(&row);
        }
        Database { mean, dist }
    }

    fn distribution(&self, i: usize) -> &[f32] {
        &self.dist[i * TURN_SLOTS..(i + 1) * TURN_SLOTS]
    }
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Database({} positions)", self.mean.len())
    }
}

fn enumerate(i: usize, left: usize, h: &mut Home, out: &mut [Home]) {
    if i == 6 {
        if let Some(x) = index(h) {
            out[x] = *h;
        }
        return;
    }
    for c in 0..=left {
        h[i] = c as u8;
        enumerate(i + 1, left - c, h, out);
    }
    h[i] = 0;
}

/// The database, built on first use (once per process).
pub fn database() -> &'static Database {
    static DB: OnceLock<Database> = OnceLock::new();
    DB.get_or_init(Database::build)
}

/// The expected turns to bear off `home` exactly, when it holds at most 15 checkers.
pub fn expected_turns(home: &Home) -> Option<f64> {
    index(home).map(|i| f64::from(database().mean[i]))
}

/// The variance of the turns to bear off `home`, when it holds at most 15 checkers.
pub fn turn_variance(home: &Home) -> Option<f64> {
    let i = index(home)?;
    let db = database();
    let mean = f64::from(db.mean[i]);
    let second: f64 = db
        .distribution(i)
        .iter()
        .enumerate()
        .map(|(n, &p)| (n * n) as f64 * f64::from(p))
        .sum();
    Some((second - mean * mean).max(0.0))
}

/// The chance that `me`, who has just moved, wins the bear-off race against `them`, on roll:
/// they win when they need no more turns than `me` does. Exact for the database's plays.
pub fn race_win(me: &Home, them: &Home) -> Option<f64> {
    let db = database();
    let m = db.distribution(index(me)?);
    let t = db.distribution(index(them)?);
    // P(them done in n turns) * P(me needing n turns or more).
    let mut me_at_least = 1.0f64;
    let mut lose = 0.0f64;
    for n in 0..TURN_SLOTS {
        lose += f64::from(t[n]) * me_at_least.max(0.0);
        me_at_least -= f64::from(m[n]);
    }
    Some(1.0 - lose)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b11_expected_turns_of_small_bear_offs() {
        assert_eq!(expected_turns(&[1, 0, 0, 0, 0, 0]), Some(1.0));
        // One on the 6-point misses with 1-2, 1-3, 1-4 and 2-3 (eight rolls of 36)...
        let six = expected_turns(&[0, 0, 0, 0, 0, 1]).expect("in the table");
        assert!((1.2..1.3).contains(&six), "{six}");
        // Two on the 1-point: one turn, any roll bears off both.
        assert_eq!(expected_turns(&[2, 0, 0, 0, 0, 0]), Some(1.0));
        // Two on the 6-point: only 6-6, 5-5, 4-4 and 3-3 bear both off at once, and a small
        // first roll can leave a second turn that still misses.
        let t = expected_turns(&[0, 0, 0, 0, 0, 2]).expect("in the table");
        assert!((2.0 - 4.0 / 36.0 - 1e-4..2.2).contains(&t), "{t}");
        // B1: fifteen checkers at most.
        assert_eq!(expected_turns(&[16, 0, 0, 0, 0, 0]), None);
    }

    #[test]
    fn b11_fifteen_on_the_ace_point_take_seven_or_eight_turns() {
        // Two a turn, four on doubles: 15 checkers need 8 turns without a double, fewer with.
        let t = expected_turns(&[15, 0, 0, 0, 0, 0]).expect("in the table");
        assert!((6.5..8.0).contains(&t), "{t}");
        // A full, even home board is the classic ~ 7.5 to 8.5 turns.
        let t = expected_turns(&[3, 3, 3, 2, 2, 2]).expect("in the table");
        assert!((7.0..9.0).contains(&t), "{t}");
    }

    #[test]
    fn every_position_has_its_own_index_and_distributions_sum_to_one() {
        let mut seen = vec![false; POSITIONS];
        let mut h = [0u8; 6];
        let mut all = vec![[0u8; 6]; POSITIONS];
        enumerate(0, CHECKERS, &mut h, &mut all);
        for p in &all {
            let i = index(p).expect("15 checkers or fewer");
            assert!(!seen[i], "{p:?}");
            seen[i] = true;
        }
        assert!(seen.iter().all(|&s| s));
        let db = database();
        for i in (0..POSITIONS).step_by(97) {
            let s: f32 = db.distribution(i).iter().sum();
            assert!((s - 1.0).abs() < 1e-3, "{:?}: {s}", all[i]);
        }
    }

    #[test]
    fn the_side_with_fewer_turns_wins_the_bear_off_race() {
        // Two on my ace point against their one on the 6-point, they on roll: they miss with
        // 1-2, 1-3, 1-4, 2-3 and 1-1 (9 rolls of 36), and then I finish.
        let w = race_win(&[2, 0, 0, 0, 0, 0], &[0, 0, 0, 0, 0, 1]).expect("in the table");
        assert!((w - 9.0 / 36.0).abs() < 1e-4, "{w}");
        let w = race_win(&[1, 0, 0, 0, 0, 0], &[1, 0, 0, 0, 0, 0]).expect("in the table");
        assert!(w.abs() < 1e-6, "{w}");
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    fn home() -> impl Strategy<Value = Home> {
        // Each of the 15 checkers is off (0) or on a point 1-6.
        proptest::collection::vec(0usize..=6, CHECKERS).prop_map(|v| {
            let mut h = [0u8; 6];
            for p in v.into_iter().filter(|&p| p > 0) {
                h[p - 1] += 1;
            }
            h
        })
    }

    proptest! {
        /// B11: one checker fewer never makes the bear-off longer (the same plays do at least
        /// as well). Moving a checker down can: a gap or a stack wastes pips.
        #[test]
        fn fewer_pips_never_take_more_turns(h in home(), from in 0usize..6) {
            prop_assume!(h[from] > 0);
            let t = expected_turns(&h).expect("in the database");
            let mut off = h;
            off[from] -= 1;
            let t_off = expected_turns(&off).expect("in the database");
            prop_assert!(t_off <= t + 1e-5, "{h:?} {t} -> {off:?} {t_off}");
            // A turn bears off at most four checkers (B3, B11).
            let n: u32 = h.iter().map(|&c| u32::from(c)).sum();
            prop_assert!(t >= f64::from(n) / 4.0 - 1e-5, "{h:?} {t}");
        }
    }
}
