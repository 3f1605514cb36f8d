//! An exact Kalah referee written from the rule file alone (M1, M4–M8), sharing no code with
//! the crate: its own board of 14 places, its own sowing, and a plain negamax alpha-beta on
//! the final score difference with a transposition table of bounds. The computer player is
//! judged against it, so a shared bug cannot hide.
//!
//! The board is seen from the side to move: places 0–5 are its pits 1–6 (M1: numbered from the
//! far end toward its store), 6 its store, 7–12 the opponent's pits 1–6, 13 the opponent's
//! store. Sowing runs 0 → 13 and round again, skipping 13 (M4). The mover's pit `k` faces the
//! opponent's pit `6 - k` (place `12 - k`).
//!
//! Only the pits matter for what is still to be won (the stores just add up), so the table is
//! keyed by the 12 pit counts and holds the margin the mover still wins from them; it lives
//! as long as the referee, so positions of the same game share their work. A value is found
//! by null-window searches only, halving the range it can be in, and positions of few seeds
//! are valued once by plain minimax and remembered (shared between threads).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Places on the board: 12 pits and 2 stores.
const PLACES: usize = 14;
const MY_STORE: usize = 6;
const THEIR_STORE: usize = 13;

/// What a sow led to.
enum After {
    /// M5: the mover sows again, from these pits.
    Again([u8; 12]),
    /// The opponent sows next, from these pits (seen from the opponent).
    Turn([u8; 12]),
    /// M7: the game is over.
    Over,
}

/// Sows place `pit` (0–5) of the mover: the seeds the mover's final margin gains (its store,
/// and on the end both sides' sweeps, M7) and what follows.
fn sow(pits: &[u8; 12], pit: usize) -> (i32, After) {
    let mut board = [0u8; PLACES];
    board[..6].copy_from_slice(&pits[..6]);
    board[7..13].copy_from_slice(&pits[6..]);
    let mut hand = board[pit];
    board[pit] = 0;
    let mut at = pit;
    while hand > 0 {
        at = (at + 1) % PLACES;
        if at == THEIR_STORE {
            continue; // M4: the opponent's store is skipped.
        }
        board[at] += 1;
        hand -= 1;
    }
    // M6: the last seed in an own pit that was empty, the pit opposite holding seeds.
    if at < MY_STORE && board[at] == 1 && board[12 - at] > 0 {
        board[MY_STORE] += 1 + board[12 - at];
        board[at] = 0;
        board[12 - at] = 0;
    }
    let mine: i32 = board[..6].iter().map(|&s| i32::from(s)).sum();
    let theirs: i32 = board[7..13].iter().map(|&s| i32::from(s)).sum();
    let stored = i32::from(board[MY_STORE]);
    if mine == 0 || theirs == 0 {
        // M7: over at once; each side moves its own pits into its own store.
        return (stored + mine - theirs, After::Over);
    }
    let mut next = [0u8; 12];
    if at == MY_STORE {
        next[..6].copy_from_slice(&board[..6]);
        next[6..].copy_from_slice(&board[7..13]);
        (stored, After::Again(next))
    } else {
        next[..6].copy_from_slice(&board[7..13]);
        next[6..].copy_from_slice(&board[..6]);
        (stored, After::Turn(next))
    }
}

/// Seeds in all 12 pits.
fn total(pits: &[u8; 12]) -> usize {
    pits.iter().map(|&p| usize::from(p)).sum()
}

#[derive(Copy, Clone, Default)]
struct Slot {
    pits: [u8; 12],
    used: bool,
    lower: i16,
    upper: i16,
    /// The sow (0–5) that gave the bound, tried first next time: only speed.
    best: u8,
}

/// Exact values of the positions with at most `seeds` seeds in the pits, each computed by
/// plain minimax the first time the search meets it and kept: one byte per position, at its
/// lexicographic rank among the ways to lay that many seeds in 12 pits. Referees on other
/// threads can share it: a value is a fact of the position, so two threads computing the same
/// one write the same byte.
pub struct Small {
    seeds: usize,
    /// `value + 64`, 0 while unknown (a margin is at most the seeds: ±`seeds`).
    values: Vec<AtomicU8>,
    /// `level[s]`: where the positions of `s` seeds start in `values`.
    level: Vec<usize>,
    /// `ways[k][s]`: the ways to lay `s` seeds in `k` pits.
    ways: Vec<Vec<usize>>,
}

impl Small {
    fn new(seeds: usize) -> Small {
        let mut ways = vec![vec![0usize; seeds + 1]; 13];
        ways[0][0] = 1;
        for k in 1..=12 {
            for s in 0..=seeds {
                // The first of k pits holds 0..=s seeds, the other k - 1 the rest.
                ways[k][s] = (0..=s).map(|first| ways[k - 1][s - first]).sum();
            }
        }
        let mut level = vec![0usize; seeds + 2];
        for s in 0..=seeds {
            level[s + 1] = level[s] + ways[12][s];
        }
        Small {
            seeds,
            // One byte per position, all of it up front (20 seeds: 215 MiB).
            values: std::iter::repeat_with(|| AtomicU8::new(0))
                .take(level[seeds + 1])
                .collect(),
            level,
            ways,
        }
    }

    /// Where `pits` (holding `seeds` seeds) is kept: the positions of as many seeds that come
    /// before it pit by pit (fewer seeds in the first pit that differs).
    fn rank(&self, pits: &[u8; 12], seeds: usize) -> usize {
        let mut rank = self.level[seeds];
        let mut left = seeds;
        for (k, &p) in pits[..11].iter().enumerate() {
            let rest = 11 - k;
            for fewer in 0..usize::from(p) {
                rank += self.ways[rest][left - fewer];
            }
            left -= usize::from(p);
        }
        rank
    }
}

impl Small {
    /// The exact margin still to be won from `pits` (holding `seeds` seeds, at most
    /// [`Small::seeds`], both rows holding seeds) by plain minimax, remembered; `nodes` counts
    /// the positions computed.
    fn value(&self, pits: &[u8; 12], seeds: usize, nodes: &mut u64) -> i32 {
        let at = self.rank(pits, seeds);
        let known = self.values[at].load(Ordering::Relaxed);
        if known != 0 {
            return i32::from(known) - 64;
        }
        *nodes += 1;
        let mut best = i32::MIN;
        for p in (0..6).filter(|&p| pits[p] > 0) {
            let (gain, after) = sow(pits, p);
            let v = match after {
                After::Over => gain,
                After::Again(next) => gain + self.value(&next, total(&next), nodes),
                After::Turn(next) => gain - self.value(&next, total(&next), nodes),
            };
            best = best.max(v);
        }
        self.values[at].store((best + 64) as u8, Ordering::Relaxed);
        best
    }
}

/// The referee: exact values of Kalah positions.
pub struct Referee {
    table: Vec<Slot>,
    small: Option<Arc<Small>>,
    /// Positions visited, over the referee's life.
    pub nodes: u64,
}

impl Referee {
    /// A referee with `2^bits` table slots.
    pub fn new(bits: u32) -> Referee {
        Referee {
            table: vec![Slot::default(); 1 << bits],
            small: None,
            nodes: 0,
        }
    }

    /// A referee that also keeps the exact value of every position of at most `seeds` seeds
    /// in the pits that it meets (plain minimax, remembered): the deep part of every line is
    /// solved once, which is what makes positions of 37-48 seeds affordable.
    pub fn with_small_positions(bits: u32, seeds: usize) -> Referee {
        Referee {
            small: Some(Arc::new(Small::new(seeds))),
            ..Referee::new(bits)
        }
    }

    /// Another referee (its own table of `2^bits` slots) that shares this one's small
    /// positions: for a second thread judging other positions.
    pub fn sharing_small_positions(&self, bits: u32) -> Referee {
        Referee {
            small: self.small.clone(),
            ..Referee::new(bits)
        }
    }

    /// The margin the mover still wins from `pits` (mover's pits 1–6, then the opponent's)
    /// with both sides playing perfectly; add the store difference for the final margin.
    ///
    /// Null-window searches only, halving the range the value can still be in: a search
    /// whose window is one wide prunes far more than a full-window one, and the table keeps
    /// what every pass proved for the next (on positions of 37-48 seeds this is what makes a
    /// position take seconds instead of many minutes).
    pub fn value(&mut self, pits: &[u8; 12]) -> i32 {
        let seeds: i32 = pits.iter().map(|&s| i32::from(s)).sum();
        // The margin still to be won lies in -seeds..=seeds (every seed in the pits goes to
        // one store or the other, M7).
        let (mut lower, mut upper) = (-seeds, seeds);
        while lower < upper {
            // A test in lower+1..=upper: "is the value at least `test`?"
            let test = lower + (upper - lower + 1) / 2;
            let v = self.negamax(pits, test - 1, test);
            if v >= test {
                lower = v;
            } else {
                upper = v;
            }
        }
        lower
    }

    /// The margin the mover still wins from `pits` after sowing its pit `pit` (1–6).
    pub fn sow_value(&mut self, pits: &[u8; 12], pit: u8) -> i32 {
        let (gain, after) = sow(pits, usize::from(pit) - 1);
        match after {
            After::Over => gain,
            After::Again(next) => gain + self.value(&next),
            After::Turn(next) => gain - self.value(&next),
        }
    }

    /// Whether sowing pit `pit` (1–6) wins the mover more than `v` from `pits`: one
    /// null-window search, much cheaper than the sow's exact value.
    pub fn sow_beats(&mut self, pits: &[u8; 12], pit: u8, v: i32) -> bool {
        let (gain, after) = sow(pits, usize::from(pit) - 1);
        let w = v - gain;
        match after {
            After::Over => gain > v,
            After::Again(next) => self.negamax(&next, w, w + 1) > w,
            After::Turn(next) => self.negamax(&next, -w - 1, -w) < -w,
        }
    }

    fn slot(&self, pits: &[u8; 12]) -> usize {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &p in pits {
            h = (h ^ u64::from(p)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        (h as usize) & (self.table.len() - 1)
    }

    fn negamax(&mut self, pits: &[u8; 12], mut alpha: i32, mut beta: i32) -> i32 {
        let seeds = total(pits);
        if let Some(small) = &self.small
            && seeds <= small.seeds
        {
            return small.value(pits, seeds, &mut self.nodes);
        }
        self.nodes += 1;
        let i = self.slot(pits);
        let hit = self.table[i];
        if hit.used && hit.pits == *pits {
            let (lo, hi) = (i32::from(hit.lower), i32::from(hit.upper));
            if lo == hi || lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let (alpha0, beta0) = (alpha, beta);
        // The table's sow first, then sows that end in the store (M5), then the biggest
        // gains: only speed.
        let first = (hit.used && hit.pits == *pits).then_some(usize::from(hit.best));
        let mut kids: [(i32, usize, After); 6] = std::array::from_fn(|_| (0, 0, After::Over));
        let mut n = 0;
        for p in (0..6).filter(|&p| pits[p] > 0) {
            let (gain, after) = sow(pits, p);
            kids[n] = (gain, p, after);
            n += 1;
        }
        kids[..n].sort_by_key(|(gain, p, after)| {
            (Some(*p) != first, !matches!(after, After::Again(_)), -gain)
        });
        let mut best = i32::MIN;
        let mut best_pit = 0;
        for (gain, p, after) in &kids[..n] {
            let gain = *gain;
            let v = match after {
                After::Over => gain,
                After::Again(next) => gain + self.negamax(next, alpha - gain, beta - gain),
                After::Turn(next) => gain - self.negamax(next, gain - beta, gain - alpha),
            };
            if v > best {
                best = v;
                best_pit = *p;
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let (lower, upper) = if best <= alpha0 {
            (i32::from(i16::MIN), best)
        } else if best >= beta0 {
            (best, i32::from(i16::MAX))
        } else {
            (best, best)
        };
        // Keep what was known of the same position on the other side.
        let (lower, upper) = if hit.used && hit.pits == *pits {
            (
                lower.max(i32::from(hit.lower)),
                upper.min(i32::from(hit.upper)),
            )
        } else {
            (lower, upper)
        };
        self.table[i] = Slot {
            pits: *pits,
            used: true,
            lower: lower as i16,
            upper: upper as i16,
            best: best_pit as u8,
        };
        best
    }
}
