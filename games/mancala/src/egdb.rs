//! An endgame database for Kalah (M4–M8): the exact value of every position with at most
//! `max_seeds` seeds left in the pits, built once by retrograde memoisation.
//!
//! A position's value is the margin the mover still wins from its pits with perfect play
//! (the stores only add to it, see [`crate::solver`]), so the key is the 12 pit counts alone.
//! Each seed count `n` is one level of `C(n + 11, 11)` positions, ranked by the combinatorial
//! number system (stars and bars), so the table holds one `i8` per position and no keys:
//! up to 16 seeds 9.0 MiB, 18 seeds 82 MiB, 20 seeds 215 MiB.
//!
//! Building: a sow never adds seeds to the pits, so every child of a level-`n` position is on
//! level `n` or below. Levels are filled in order; inside a level, a position's children on
//! the same level are filled first by recursion (sows that pass no store and capture nothing).
//! That recursion ends because such sows only move seeds forward along their owners' rows.
//!
//! The solver ([`crate::Solver::with_endgame_db`]) and the computer player share one database
//! through [`EndgameDb::global`], built on first use.

use std::sync::OnceLock;

use crate::solver::{KalahPosition, Next, PITS, play};

/// The largest database this crate builds: 20 seeds, 225,792,840 positions (215 MiB).
pub const MAX_DB_SEEDS: u32 = 20;

/// The seed count of the database [`EndgameDb::global`] builds: 16 seeds, 30,421,755
/// positions (29 MiB), built in about 16 CPU-seconds on the shared 2-core machine
/// (`BENCHMARKS.md`). 18 seeds (82 MiB) would cut deeper but take about three times as long
/// to build, on the first Hard move of a process.
pub const DEFAULT_DB_SEEDS: u32 = 16;

/// A value not yet computed (no real margin reaches -128: it is at most the seeds, ≤ 20).
const UNKNOWN: i8 = i8::MIN;

/// Binomial coefficients `C(n, k)` for `n < 34`, `k ≤ 12`: enough for 20 seeds in 12 pits.
struct Binomials([[u64; 13]; 34]);

impl Binomials {
    fn new() -> Binomials {
        let mut c = [[0u64; 13]; 34];
        for n in 0..34 {
            c[n][0] = 1;
            for k in 1..13 {
                c[n][k] = if n == 0 {
                    0
                } else {
                    c[n - 1][k - 1] + c[n - 1][k]
                };
            }
        }
        Binomials(c)
    }

    fn get(&self, n: usize, k: usize) -> u64 {
        self.0[n][k]
    }
}

/// Exact values of every Kalah position with few seeds in the pits.
pub struct EndgameDb {
    max_seeds: u32,
    values: Vec<i8>,
    /// `offsets[n]`: where level `n` (positions of `n` seeds) starts in `values`.
    offsets: Vec<usize>,
    binomials: Binomials,
}

impl std::fmt::Debug for EndgameDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EndgameDb")
            .field("max_seeds", &self.max_seeds)
            .field("positions", &self.values.len())
            .finish()
    }
}

static GLOBAL: OnceLock<EndgameDb> = OnceLock::new();

impl EndgameDb {
    /// The database of [`DEFAULT_DB_SEEDS`] seeds shared by the solver and the computer
    /// player, built by the first caller (a few seconds; later callers wait for it).
    pub fn global() -> &'static EndgameDb {
        GLOBAL.get_or_init(|| EndgameDb::build(DEFAULT_DB_SEEDS))
    }

    /// The shared database, built with `max_seeds` seeds if nobody built it yet (otherwise the
    /// one that exists, whatever its size). For hosts where [`DEFAULT_DB_SEEDS`] costs too
    /// much: a browser tab builds it in WebAssembly on the device, on one core, before the
    /// first Hard move (`clients/offline`), and chooses a smaller one.
    pub fn global_with(max_seeds: u32) -> &'static EndgameDb {
        GLOBAL.get_or_init(|| EndgameDb::build(max_seeds))
    }

    /// Builds the database of every position with at most `max_seeds` seeds in the pits
    /// (clamped to [`MAX_DB_SEEDS`]; memory is `C(max_seeds + 12, 12)` bytes).
    pub fn build(max_seeds: u32) -> EndgameDb {
        let max_seeds = max_seeds.min(MAX_DB_SEEDS);
        let binomials = Binomials::new();
        let mut offsets = Vec::with_capacity(max_seeds as usize + 2);
        let mut total = 0usize;
        for n in 0..=max_seeds as usize + 1 {
            offsets.push(total);
            total += binomials.get(n + 11, 11) as usize;
        }
        let total = offsets[max_seeds as usize + 1];
        let mut db = EndgameDb {
            max_seeds,
            values: vec![UNKNOWN; total],
            offsets,
            binomials,
        };
        for n in 1..=max_seeds as u8 {
            // Every composition of n seeds into 12 pits, from [n, 0, …, 0] on.
            let mut pits = [0u8; 2 * PITS];
            pits[0] = n;
            loop {
                db.fill(&pits);
                if !next_composition(&mut pits) {
                    break;
                }
            }
        }
        db
    }

    /// The most seeds in the pits of a position the database knows.
    pub fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// Positions stored (one byte each).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the database holds no positions (never: level 0 is the empty board).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The exact final margin of `pos` (mover's store minus the opponent's at the end), or
    /// `None` when it has more seeds in the pits than the database holds.
    pub fn margin(&self, pos: &KalahPosition) -> Option<i32> {
        let base = i32::from(pos.stores()[0]) - i32::from(pos.stores()[1]);
        self.pits_value(pos.pits()).map(|v| base + v)
    }

    /// The margin still to be won from `pits` (mover first), if the database holds them.
    pub(crate) fn pits_value(&self, pits: &[u8; 2 * PITS]) -> Option<i32> {
        let (own, theirs) = row_sums(pits);
        if own + theirs > self.max_seeds as i32 {
            return None;
        }
        if own == 0 || theirs == 0 {
            // M7: the game is over, each side keeps its own pits.
            return Some(own - theirs);
        }
        Some(i32::from(self.values[self.index(pits, own + theirs)]))
    }

    /// Where `pits` (holding `seeds` seeds) lives: its level's offset plus its rank among the
    /// compositions of `seeds`, the colex rank of the 11 "bars" between the 12 pits.
    fn index(&self, pits: &[u8; 2 * PITS], seeds: i32) -> usize {
        let mut rank = 0u64;
        let mut bar = 0usize;
        for (k, &p) in pits[..2 * PITS - 1].iter().enumerate() {
            bar += usize::from(p);
            rank += self.binomials.get(bar + k, k + 1);
        }
        self.offsets[seeds as usize] + rank as usize
    }

    /// Computes (and stores) the value of `pits`, all of whose lower levels are filled.
    fn fill(&mut self, pits: &[u8; 2 * PITS]) -> i32 {
        let (own, theirs) = row_sums(pits);
        if own == 0 || theirs == 0 {
            return own - theirs;
        }
        let i = self.index(pits, own + theirs);
        if self.values[i] != UNKNOWN {
            return i32::from(self.values[i]);
        }
        let mut best = i32::MIN;
        for pit in 0..PITS {
            if pits[pit] == 0 {
                continue;
            }
            let (child, gain, next) = play(pits, pit);
            let v = match next {
                Next::Over => gain,
                Next::Again => gain + self.fill(&child),
                Next::Turn => gain - self.fill(&child),
            };
            best = best.max(v);
        }
        // |best| ≤ seeds ≤ 20: fits.
        self.values[i] = best as i8;
        best
    }
}

fn row_sums(pits: &[u8; 2 * PITS]) -> (i32, i32) {
    let own = pits[..PITS].iter().map(|&p| i32::from(p)).sum();
    let theirs = pits[PITS..].iter().map(|&p| i32::from(p)).sum();
    (own, theirs)
}

/// The next composition of the same total (Nijenhuis–Wilf): the last part moves one step
/// left; `false` after `[0, …, 0, n]`.
fn next_composition(p: &mut [u8; 2 * PITS]) -> bool {
    let last = 2 * PITS - 1;
    let t = p[last];
    p[last] = 0;
    let Some(j) = (0..last).rev().find(|&j| p[j] > 0) else {
        p[last] = t;
        return false;
    };
    p[j] -= 1;
    p[j + 1] = t + 1;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositions_are_enumerated_once_each_and_ranked_densely() {
        let db = EndgameDb::build(4);
        for n in 1..=4u8 {
            let mut pits = [0u8; 2 * PITS];
            pits[0] = n;
            let mut seen = std::collections::HashSet::new();
            loop {
                assert_eq!(
                    pits.iter().map(|&p| u32::from(p)).sum::<u32>(),
                    u32::from(n)
                );
                let rank = db.index(&pits, i32::from(n)) - db.offsets[usize::from(n)];
                assert!(seen.insert(rank), "{pits:?}");
                if !next_composition(&mut pits) {
                    break;
                }
            }
            let level = db.binomials.get(usize::from(n) + 11, 11) as usize;
            assert_eq!(seen.len(), level);
            assert_eq!(seen.iter().max().copied(), Some(level - 1));
        }
    }
}
