//! The bots' evaluation: how good a position is for the side that has just moved, with the
//! opponent on roll, as the probabilities of the six results (B16: single, gammon and
//! backgammon, won or lost). Hand-made, not trained, but calibrated against gnubg's chances
//! (`games/backgammon/judge`):
//!
//! - **Race** (no contact left): when both sides are bearing off, the exact winning chance
//!   from the two turn distributions of the one-sided database [`super::bearoff`]; otherwise
//!   the expected turns each side needs (the database's once a side is home, else the pip
//!   count with a wastage allowance) and their spread (the database's variance, or
//!   `0.034 n` turns² for a race of `n` pips, from the 18.5 variance of the pips of one roll)
//!   turn the difference into a winning chance. Gammons come the same way: can the loser bring everything home
//!   and bear one checker off before the winner finishes?
//! - **Contact**: a logit, a weighted sum of hand-made terms ([`contact_terms`]): the race
//!   (pip difference, absolute and relative), made points weighted by where they stand (the
//!   5-point, the bar point, advanced anchors), primes in front of the opponent's back
//!   checkers, checkers on the bar against the home board that holds them, checkers back,
//!   anchors, blots, home points, and the blots' exposure: the rolls out of 36 that hit one of
//!   them (direct and indirect shots, through open points only), with the pips a hit costs
//!   and how hard re-entering will be. The conditional gammon rate is the logistic of another
//!   weighted sum ([`gammon_terms`]): the loser's checkers back and on the bar, the winner's
//!   home board, the distance the loser must still travel, and the win logit itself. Both
//!   sets of weights are fitted to gnubg's 0-ply chances by `games/backgammon/judge/fit.py`
//!   on positions of gnubg self-play (not the judge's corpus).
//!
//! Hard's plays and Normal's and Hard's cube decisions read contact positions with the
//! trained network instead ([`evaluate_net`], [`super::net`]); the hand-made terms remain
//! Normal's plays, Easy's cube chances and the answer to a resignation offer.

use ludus_rules::Seat;

use super::bearoff::{self, Home};
use crate::board::Board;

/// The probabilities of the results for one side (B16). `win_gammon` includes backgammons,
/// `win` includes gammons; likewise for the losses (`1 - win` in all).
#[derive(Copy, Clone, Debug, PartialEq, Default)]
pub struct Probs {
    /// Winning at all.
    pub win: f64,
    /// Winning a gammon or a backgammon.
    pub win_gammon: f64,
    /// Winning a backgammon.
    pub win_backgammon: f64,
    /// Losing a gammon or a backgammon.
    pub lose_gammon: f64,
    /// Losing a backgammon.
    pub lose_backgammon: f64,
}

impl Probs {
    /// The same results seen from the other side.
    pub fn flip(self) -> Probs {
        Probs {
            win: 1.0 - self.win,
            win_gammon: self.lose_gammon,
            win_backgammon: self.lose_backgammon,
            lose_gammon: self.win_gammon,
            lose_backgammon: self.win_backgammon,
        }
    }

    /// The six exclusive results' probabilities: win single, gammon, backgammon, then lose
    /// single, gammon, backgammon.
    pub fn outcomes(&self) -> [f64; 6] {
        [
            self.win - self.win_gammon,
            self.win_gammon - self.win_backgammon,
            self.win_backgammon,
            (1.0 - self.win) - self.lose_gammon,
            self.lose_gammon - self.lose_backgammon,
            self.lose_backgammon,
        ]
    }

    /// Cubeless money equity per unit stake: gammons count double, backgammons triple (B16).
    pub fn equity(&self) -> f64 {
        2.0 * self.win - 1.0 + self.win_gammon - self.lose_gammon + self.win_backgammon
            - self.lose_backgammon
    }

    /// A weighted sum of probabilities (for averaging over rolls).
    pub fn add_scaled(&mut self, other: &Probs, w: f64) {
        self.win += other.win * w;
        self.win_gammon += other.win_gammon * w;
        self.win_backgammon += other.win_backgammon * w;
        self.lose_gammon += other.lose_gammon * w;
        self.lose_backgammon += other.lose_backgammon * w;
    }

    /// The result of a finished game won by this side with `multiplier` 1-3 (B16).
    pub fn won(multiplier: u8) -> Probs {
        Probs {
            win: 1.0,
            win_gammon: if multiplier >= 2 { 1.0 } else { 0.0 },
            win_backgammon: if multiplier >= 3 { 1.0 } else { 0.0 },
            lose_gammon: 0.0,
            lose_backgammon: 0.0,
        }
    }

    /// Keeps the probabilities consistent (each gammon chance inside its win chance).
    fn clamped(mut self) -> Probs {
        self.win = self.win.clamp(0.0, 1.0);
        self.win_gammon = self.win_gammon.clamp(0.0, self.win);
        self.win_backgammon = self.win_backgammon.clamp(0.0, self.win_gammon);
        self.lose_gammon = self.lose_gammon.clamp(0.0, 1.0 - self.win);
        self.lose_backgammon = self.lose_backgammon.clamp(0.0, self.lose_gammon);
        self
    }
}

/// Mean pips of one roll (doubles count four times).
const PIPS_PER_ROLL: f64 = 49.0 / 6.0;
/// Variance of the turns a race of `n` pips takes, per pip: 18.47 / 8.17³.
const TURN_VARIANCE_PER_PIP: f64 = 0.034;

/// One side's checkers in its own numbering: index 1-24 the points, 25 the bar, 0 unused.
type Side = [u8; 26];

fn sides(board: &Board, me: Seat) -> (Side, Side) {
    let counts = board.counts();
    let mut m = [0u8; 26];
    let mut o = [0u8; 26];
    m[1..].copy_from_slice(&counts[me & 1]);
    o[1..].copy_from_slice(&counts[(me & 1) ^ 1]);
    (m, o)
}

/// The win/gammon chances of `me`, who has just moved into `board`; the opponent is on roll.
/// A finished board (someone has borne off all 15) is exact.
pub fn evaluate(board: &Board, me: Seat) -> Probs {
    if let Some(w) = board.winner() {
        let p = Probs::won(board.result_multiplier(w ^ 1));
        return if w == me { p } else { p.flip() };
    }
    let (m, o) = sides(board, me);
    let top_m = highest(&m);
    let top_o = highest(&o);
    // A checker of mine on my point p faces the opponent's checkers on my points below p,
    // which stand on their points above 25 - p.
    if top_m + top_o <= 25 {
        race(&m, &o)
    } else {
        contact(&m, &o)
    }
}

fn highest(s: &Side) -> usize {
    (1..=25).rev().find(|&p| s[p] > 0).unwrap_or(0)
}

fn pips(s: &Side) -> f64 {
    (1..=25).map(|p| (p * usize::from(s[p])) as f64).sum()
}

fn off(s: &Side) -> u8 {
    15u8.saturating_sub(s[1..].iter().sum::<u8>())
}

/// `s`'s checkers on its points 1-6 when every one of them is home (B11).
fn home_board(s: &Side) -> Option<Home> {
    if (7..=25).any(|p| s[p] > 0) {
        return None;
    }
    let mut home: Home = [0; 6];
    home.copy_from_slice(&s[1..=6]);
    Some(home)
}

/// Expected turns to bear everything off in a race, and their variance. A home side's turns
/// are the database's; a side still coming home is read as bringing its stragglers to its
/// 6-point (their pips beyond it, by the mean roll) and then bearing off that home board, so
/// both sides are measured with the same yardstick (a pip formula against the exact turns of
/// the other side misjudged races, judged by gnubg). The spread stays the pips' one.
fn race_turns(s: &Side) -> (f64, f64) {
    let variance = TURN_VARIANCE_PER_PIP * pips(s) + 0.1;
    let mut home: Home = [0; 6];
    home.copy_from_slice(&s[1..=6]);
    home[5] += s[7..=25].iter().sum::<u8>();
    let coming_home = home_distance(s) / PIPS_PER_ROLL;
    match bearoff::expected_turns(&home) {
        Some(t) => (t + coming_home, variance),
        None => (pips(s) / PIPS_PER_ROLL, variance),
    }
}

/// Pips `s` must move to have every checker home (bar = 25).
fn home_distance(s: &Side) -> f64 {
    (7..=25).map(|p| ((p - 6) * usize::from(s[p])) as f64).sum()
}

/// Expected turns before `s` has borne one checker off (0 once one is off).
fn turns_to_first_off(s: &Side) -> f64 {
    if off(s) > 0 {
        return 0.0;
    }
    let lowest = (1..=25).find(|&p| s[p] > 0).unwrap_or(1);
    // Bringing the stragglers home, then one checker off (from the lowest home point when
    // everything is home already).
    let first = if home_distance(s) > 0.0 {
        3.0
    } else {
        lowest.min(6) as f64
    };
    ((home_distance(s) + first) / PIPS_PER_ROLL).max(1.0)
}

/// Standard normal distribution function, by the logistic approximation (error < 0.01).
fn phi(x: f64) -> f64 {
    1.0 / (1.0 + (-1.702 * x).exp())
}

fn race(m: &Side, o: &Side) -> Probs {
    let (tm, vm) = race_turns(m);
    let (to, vo) = race_turns(o);
    let win = match (home_board(m), home_board(o)) {
        // Both bearing off: exact from the two turn distributions (the opponent on roll).
        (Some(hm), Some(ho)) => bearoff::race_win(&hm, &ho).unwrap_or(0.0),
        _ => {
            let sd = (vm + vo).sqrt();
            // The opponent is on roll: they win when they need no more turns than I do.
            1.0 - phi((tm - to + 0.5) / sd)
        }
    };
    // I win a gammon when I finish before the opponent gets a checker off; they have as many
    // turns as I do before my last one.
    let go = turns_to_first_off(o);
    let win_gammon = if go > 0.0 {
        phi((go - tm - 0.5) / (vm + 0.2).sqrt())
    } else {
        0.0
    };
    let gm = turns_to_first_off(m);
    let lose_gammon = if gm > 0.0 {
        phi((gm - to + 0.5) / (vo + 0.2).sqrt())
    } else {
        0.0
    };
    Probs {
        win,
        win_gammon,
        win_backgammon: 0.0,
        lose_gammon,
        lose_backgammon: 0.0,
    }
    .clamped()
}

/// Value of a made point by where it stands in its owner's numbering: the 5-point and the
/// bar point most, then the 4- and 6-points; 20 and 21 are the advanced anchors in the
/// opponent's board.
const POINT_WEIGHT: [f64; 25] = [
    0.0, 0.02, 0.08, 0.14, 0.22, 0.34, 0.3, 0.26, 0.15, 0.09, 0.06, 0.04, 0.04, 0.03, 0.03, 0.02,
    0.02, 0.03, 0.08, 0.1, 0.24, 0.2, 0.1, 0.05, 0.03,
];

/// Bonus for a prime of each length (index) standing in front of opposing checkers.
const PRIME_BONUS: [f64; 7] = [0.0, 0.0, 0.0, 0.12, 0.3, 0.6, 1.0];

/// The opponent's checkers on `x`'s point p: those on their point 25 - p; their bar is
/// `x`'s point 0.
fn other_at(y: &Side, p: usize) -> u8 {
    if p == 0 { y[25] } else { y[25 - p] }
}

/// The structural value of `x`'s position against `y` (points, primes, stacks).
fn structure(x: &Side, y: &Side) -> f64 {
    // The lowest of y's checkers in x's numbering: x's points above it still block them.
    let lowest_y = (0..=24).find(|&p| other_at(y, p) > 0);
    let mut s = 0.0;
    let mut run = 0usize;
    let mut best_prime = 0usize;
    for p in 1..=24 {
        if x[p] >= 2 {
            let behind = lowest_y.is_some_and(|l| l < p);
            // A home point blocks nobody once the opponent's checkers are past it.
            let factor = if p <= 9 && !behind { 0.3 } else { 1.0 };
            s += POINT_WEIGHT[p] * factor;
            s -= 0.025 * f64::from(x[p].saturating_sub(3));
            run += 1;
            if behind {
                best_prime = best_prime.max(run);
            }
        } else {
            run = 0;
        }
    }
    s + PRIME_BONUS[best_prime.min(6)]
}

/// Made points of `x` in its home board (1-6).
fn home_points(x: &Side) -> usize {
    (1..=6).filter(|&p| x[p] >= 2).count()
}

/// The rolls (out of 36) on which `y`, on roll, hits a blot of `x`, and the mean pips such a
/// hit costs `x`. `y` moves upward in `x`'s numbering, from its bar at `x`'s point 0.
pub fn exposure(x: &Side, y: &Side) -> (f64, f64) {
    let blots: Vec<usize> = (1..=24).filter(|&p| x[p] == 1).collect();
    if blots.is_empty() {
        return (0.0, 0.0);
    }
    let open = |p: usize| (1..=24).contains(&p) && x[p] < 2;
    let attacker = |r: usize| other_at(y, r) > 0;
    let on_bar = y[25];
    let mut rolls = 0.0;
    let mut cost = 0.0;
    for a in 1..=6usize {
        for b in a..=6usize {
            let weight = if a == b { 1.0 } else { 2.0 };
            let mut worst: Option<usize> = None;
            for &p in &blots {
                if hits(p, a, b, on_bar, &open, &attacker) {
                    // The pips lost are 25 - p; the further advanced, the worse.
                    worst = Some(worst.map_or(p, |w: usize| w.min(p)));
                }
            }
            if let Some(p) = worst {
                rolls += weight;
                cost += weight * (25 - p) as f64;
            }
        }
    }
    if rolls == 0.0 {
        (0.0, 0.0)
    } else {
        (rolls, cost / rolls)
    }
}

/// Whether the roll a-b lets the opponent hit the blot on `p` (B5, B6, B7, B10: entering
/// first, through open points only).
fn hits(
    p: usize,
    a: usize,
    b: usize,
    on_bar: u8,
    open: &dyn Fn(usize) -> bool,
    attacker: &dyn Fn(usize) -> bool,
) -> bool {
    let reach_from = |r: usize, d: usize, steps: usize| -> bool {
        // A checker on r moving `steps` times by d reaches p through open points.
        (1..=steps).all(|k| {
            let q = r + k * d;
            q == p || (q < p && open(q))
        }) && r + steps * d == p
    };
    if a == b {
        let d = a;
        let (entering, free) = match on_bar {
            0 => (false, 4),
            1 => (true, 3),
            2 => (true, 2),
            3 => (true, 1),
            _ => (true, 0),
        };
        if entering && !open(d) {
            return false;
        }
        if entering {
            // The entered checkers go on from d with the dice left.
            if (0..=free).any(|k| d + k * d == p && (1..=k).all(|j| open(d + j * d))) {
                return true;
            }
        }
        (1..=free).any(|k| p >= k * d && attacker(p - k * d) && reach_from(p - k * d, d, k))
    } else {
        match on_bar {
            0 => {
                let direct = |d: usize| p > d && attacker(p - d);
                let combined = p > a + b && attacker(p - a - b) && (open(p - a) || open(p - b));
                direct(a) || direct(b) || combined
            }
            1 => [(a, b), (b, a)].iter().any(|&(enter, other)| {
                open(enter)
                    && (enter == p
                        || enter + other == p
                        || (p > other && p - other != 0 && attacker(p - other)))
            }),
            _ => a == p || b == p,
        }
    }
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// How many terms the gammon rate's logit sums ([`gammon_terms`]).
pub const GAMMON_TERMS: usize = 11;

/// The terms of the logit of `x`'s conditional chance, when it wins, that the win is a
/// gammon (before [`GAMMON_WEIGHTS`]): a constant, `y`'s checkers in `x`'s home board and on
/// the bar, `x`'s home points, the pips `y` still needs to bring everything home (in tens),
/// `y`'s checkers not yet home; `x`'s own checkers back (in `y`'s home board or on the bar)
/// and `y`'s home points, which slow `x` down; `x`'s structure and `y`'s blots; last, the
/// logit of `x`'s winning chance (the more one-sided the game, the more of its wins are
/// gammons).
fn gammon_terms(x: &Side, y: &Side, win_logit: f64) -> [f64; GAMMON_TERMS] {
    let back: f64 = (19..=24).map(|q| f64::from(y[q])).sum();
    let outside: f64 = (7..=25).map(|q| f64::from(y[q])).sum();
    [
        1.0,
        back,
        f64::from(y[25]),
        home_points(x) as f64,
        home_distance(y) / 10.0,
        outside,
        (19..=25).map(|q| f64::from(x[q])).sum(),
        home_points(y) as f64,
        structure(x, y),
        (1..=24).filter(|&p| y[p] == 1).count() as f64,
        win_logit,
    ]
}

/// `x`'s conditional chance, when it wins, that the win is a gammon; `win_logit` is the
/// logit of `x`'s winning chance.
fn gammon_rate(x: &Side, y: &Side, win_logit: f64) -> f64 {
    if off(y) > 0 {
        return 0.0;
    }
    let terms = gammon_terms(x, y, win_logit);
    logistic(terms.iter().zip(GAMMON_WEIGHTS).map(|(t, w)| t * w).sum())
}

fn backgammon_rate(x: &Side, y: &Side) -> f64 {
    let back: f64 = (19..=25).map(|q| f64::from(y[q])).sum();
    if back == 0.0 {
        return 0.0;
    }
    (0.04 + 0.04 * back + 0.02 * home_points(x) as f64).min(0.5)
}

/// Entering against `x`'s home board: how much a checker of `y` on the bar is worth to `x`.
fn bar_value(x: &Side, y: &Side) -> f64 {
    let h = home_points(x) as f64;
    let closed = if h >= 6.0 { 1.0 } else { 0.0 };
    f64::from(y[25]) * (0.2 + 0.1 * h + 0.8 * closed)
}

/// How many terms the contact logit sums ([`contact_terms`]).
pub const CONTACT_TERMS: usize = 22;

/// The terms of the logit of `me`'s winning chance in a contact position, the opponent on
/// roll, before [`CONTACT_WEIGHTS`]: a constant, the pip difference (in tens), each side's
/// structure (points, primes, stacks), each side's checkers on the bar against the other's
/// board, the borne-off difference, and each side's blot exposure (the share of the other's
/// rolls that hit, alone, times the pips a hit costs in tens, and times the other's home
/// points); then the pip difference relative to the pips left, each side's checkers back
/// (in the other's home board or on the bar), anchors there, blots and home points.
fn contact_terms(m: &Side, o: &Side) -> [f64; CONTACT_TERMS] {
    let (shots, cost) = exposure(m, o);
    let (shots_o, cost_o) = exposure(o, m);
    let (shots, shots_o) = (shots / 36.0, shots_o / 36.0);
    let back = |x: &Side| (19..=25).map(|p| f64::from(x[p])).sum::<f64>();
    let anchors = |x: &Side| (19..=24).filter(|&p| x[p] >= 2).count() as f64;
    let blots = |x: &Side| (1..=24).filter(|&p| x[p] == 1).count() as f64;
    let (pm, po) = (pips(m), pips(o));
    [
        1.0,
        (pips(o) - pips(m)) / 10.0,
        structure(m, o),
        structure(o, m),
        bar_value(m, o),
        bar_value(o, m),
        f64::from(off(m)) - f64::from(off(o)),
        shots,
        shots * cost / 10.0,
        shots * home_points(o) as f64,
        shots_o,
        shots_o * cost_o / 10.0,
        shots_o * home_points(m) as f64,
        10.0 * (po - pm) / (pm + po).max(1.0),
        back(m),
        back(o),
        anchors(m),
        anchors(o),
        blots(m),
        blots(o),
        home_points(m) as f64,
        home_points(o) as f64,
    ]
}

/// The contact logit's weights, fitted by logistic regression against gnubg's 0-ply winning
/// chances (`games/backgammon/judge/fit.py`).
const CONTACT_WEIGHTS: [f64; CONTACT_TERMS] = [
    -0.1796, -0.2418, 0.8406, -0.6142, 0.3752, -0.4842, 0.0994, 0.2072, -0.2436, -0.1951, 0.0574,
    -0.0865, 0.0058, 0.6156, -0.0897, 0.1679, -0.1501, 0.0912, -0.0025, 0.0108, 0.0665, -0.0960,
];

/// The gammon rate's logit weights ([`gammon_terms`]), fitted by logistic regression against
/// gnubg's 0-ply gammon chances among its wins (`games/backgammon/judge/fit.py`).
const GAMMON_WEIGHTS: [f64; GAMMON_TERMS] = [
    -4.3754, -0.1324, 0.2983, 0.2635, 0.2537, 0.1185, 0.2468, 0.0451, -0.4680, 0.1265, 0.5745,
];

/// The logit of `me`'s winning chance in a contact position, the opponent on roll.
fn contact_logit(m: &Side, o: &Side) -> f64 {
    let terms = contact_terms(m, o);
    terms.iter().zip(CONTACT_WEIGHTS).map(|(t, w)| t * w).sum()
}

/// The contact terms, then the two gammon rates' terms (the mover's, then the opponent's),
/// of `board` for `me`, who has just moved: what `judge/fit.py` fits the weights on. `None`
/// in a race or a finished game.
pub fn contact_features(board: &Board, me: Seat) -> Option<Vec<f64>> {
    if !is_contact(board) || board.winner().is_some() {
        return None;
    }
    let (m, o) = sides(board, me);
    let mut v = contact_terms(&m, &o).to_vec();
    let logit = contact_logit(&m, &o);
    v.extend(gammon_terms(&m, &o, logit));
    v.extend(gammon_terms(&o, &m, -logit));
    Some(v)
}

fn contact(m: &Side, o: &Side) -> Probs {
    let logit = contact_logit(m, o);
    let win = logistic(logit);
    let win_gammon = win * gammon_rate(m, o, logit);
    let lose_gammon = (1.0 - win) * gammon_rate(o, m, -logit);
    Probs {
        win,
        win_gammon,
        win_backgammon: win_gammon * backgammon_rate(m, o),
        lose_gammon,
        lose_backgammon: lose_gammon * backgammon_rate(o, m),
    }
    .clamped()
}

/// As [`evaluate`], with contact positions read by the trained network ([`super::net`])
/// instead of the hand-made terms; races and finished games are the same.
pub fn evaluate_net(board: &Board, me: Seat) -> Probs {
    match super::net::net() {
        Some(net) if board.winner().is_none() && is_contact(board) => {
            let (m, o) = sides(board, me);
            net.evaluate(&m, &o).clamped()
        }
        _ => evaluate(board, me),
    }
}

/// Whether the two sides' checkers can still meet (B5, B9): otherwise the game is a race.
pub fn is_contact(board: &Board) -> bool {
    let (m, o) = sides(board, 0);
    highest(&m) + highest(&o) > 25
}

/// The exposure of `side`'s blots to the other side's next roll: rolls out of 36.
pub fn shots_against(board: &Board, side: Seat) -> f64 {
    let (m, o) = sides(board, side);
    exposure(&m, &o).0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(white: &[(usize, u8)], black: &[(usize, u8)]) -> Board {
        let mut c = [[0u8; 25]; 2];
        for &(p, n) in white {
            c[0][p - 1] = n;
        }
        for &(p, n) in black {
            c[1][p - 1] = n;
        }
        Board::new(c).expect("a legal board")
    }

    #[test]
    fn probabilities_are_consistent_and_the_start_is_even() {
        let p = evaluate(&Board::START, 0);
        assert!((p.win - 0.5).abs() < 0.1, "{p:?}");
        let sum: f64 = p.outcomes().iter().sum();
        assert!((sum - 1.0).abs() < 1e-9);
        assert!(p.outcomes().iter().all(|&x| x >= 0.0));
        assert!(p.win_gammon > 0.05 && p.win_gammon < 0.25, "{p:?}");
    }

    #[test]
    fn a_direct_shot_is_eleven_rolls_and_an_indirect_six_away_is_seventeen() {
        // White blot on its 10; a black checker 4 pips behind it (white's 6 = black's 19).
        let b = board(&[(10, 1), (1, 14)], &[(19, 1), (1, 14)]);
        // Four away: 11 rolls with a 4, then 3-1 twice, 2-2 and 1-1.
        assert_eq!(shots_against(&b, 0), 15.0);
        // Six away: 11 direct + 6 combination (5-1, 4-2, 3-3, 2-2...) = 17.
        let b = board(&[(12, 1), (1, 14)], &[(19, 1), (1, 14)]);
        assert_eq!(shots_against(&b, 0), 17.0);
    }

    #[test]
    fn a_race_leader_is_the_favourite_and_a_big_lead_wins_gammons() {
        let b = board(&[(1, 3)], &[(6, 15)]);
        let p = evaluate(&b, 0);
        assert!(p.win > 0.9, "{p:?}");
        // Black still has all 15 on its 13-point: it cannot get one home and off in time.
        let b = board(&[(1, 2)], &[(13, 15)]);
        let p = evaluate(&b, 0);
        assert!(p.win_gammon > 0.9, "{p:?}");
        assert!(!is_contact(&b));
    }
}
