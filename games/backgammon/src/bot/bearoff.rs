//! A small one-sided bear-off table: the expected number of turns one side needs to bear off
//! every checker from its home board, played to minimise that number, for positions of up to
//! [`MAX_CHECKERS`] checkers on points 1-6 (B11). Computed once on first use by dynamic
//! programming over the positions in increasing pip order (every die lowers the pip count, so
//! each position depends only on positions already computed); 3,003 positions.
//!
//! "One-sided" means the opponent is ignored: right for a race (no contact), where it is the
//! heart of the race evaluation in [`super::eval`].

use std::collections::HashMap;
use std::sync::OnceLock;

/// Positions with at most this many checkers are in the table.
pub const MAX_CHECKERS: u32 = 8;

/// Checkers on points 1-6, index 0 = point 1.
pub type Home = [u8; 6];

fn key(h: &Home) -> u32 {
    h.iter().rev().fold(0u32, |k, &c| (k << 4) | u32::from(c))
}

fn pips(h: &Home) -> u32 {
    h.iter()
        .enumerate()
        .map(|(i, &c)| (i as u32 + 1) * u32::from(c))
        .sum()
}

/// Every position a single die `d` (1-6) can lead to from `h` (B11: a checker moves down
/// inside the board, bears off from point d, or from the highest point when none is higher).
fn die_moves(h: &Home, d: usize, out: &mut Vec<Home>) {
    let highest = (0..6).rev().find(|&i| h[i] > 0);
    let Some(highest) = highest else {
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

/// Every position the roll `a`-`b` leads to (both orders; four moves for a double).
fn roll_results(h: &Home, a: usize, b: usize) -> Vec<Home> {
    let dice: Vec<usize> = if a == b { vec![a; 4] } else { vec![a, b] };
    let orders: Vec<Vec<usize>> = if a == b {
        vec![dice]
    } else {
        vec![vec![a, b], vec![b, a]]
    };
    let mut results = Vec::new();
    for order in orders {
        let mut layer = vec![*h];
        for &d in &order {
            let mut next = Vec::new();
            for pos in &layer {
                die_moves(pos, d, &mut next);
            }
            next.sort_unstable();
            next.dedup();
            layer = next;
        }
        results.extend(layer);
    }
    results
}

struct Table {
    turns: HashMap<u32, f32>,
}

fn build() -> Table {
    let mut positions: Vec<Home> = Vec::new();
    let mut h = [0u8; 6];
    enumerate(0, MAX_CHECKERS, &mut h, &mut positions);
    positions.sort_by_key(pips);
    let mut turns: HashMap<u32, f32> = HashMap::with_capacity(positions.len());
    for pos in positions {
        if pos.iter().all(|&c| c == 0) {
            turns.insert(key(&pos), 0.0);
            continue;
        }
        let mut total = 0.0f64;
        for a in 1..=6usize {
            for b in a..=6usize {
                let weight = if a == b { 1.0 } else { 2.0 };
                let best = roll_results(&pos, a, b)
                    .iter()
                    .map(|r| f64::from(turns.get(&key(r)).copied().unwrap_or(0.0)))
                    .fold(f64::INFINITY, f64::min);
                total += weight * if best.is_finite() { best } else { 0.0 };
            }
        }
        turns.insert(key(&pos), (1.0 + total / 36.0) as f32);
    }
    Table { turns }
}

fn enumerate(i: usize, left: u32, h: &mut Home, out: &mut Vec<Home>) {
    if i == 6 {
        out.push(*h);
        return;
    }
    for c in 0..=left {
        h[i] = c as u8;
        enumerate(i + 1, left - c, h, out);
    }
    h[i] = 0;
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(build)
}

/// The expected turns to bear off `home` exactly, when it is in the table.
pub fn expected_turns(home: &Home) -> Option<f64> {
    let n: u32 = home.iter().map(|&c| u32::from(c)).sum();
    if n > MAX_CHECKERS {
        return None;
    }
    table().turns.get(&key(home)).map(|&t| f64::from(t))
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
        assert_eq!(expected_turns(&[15, 0, 0, 0, 0, 0]), None);
    }
}
