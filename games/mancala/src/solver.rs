//! An exact solver for Kalah positions (M4–M8, M13).
//!
//! The value of a position is the final margin the side to move can force: its store minus
//! the opponent's store at the end, with both playing perfectly. Stores never change how play
//! goes on, so the search works on the pits alone and adds the stores at the end; the
//! transposition table is keyed by the 12 pit counts, which is exact (no hash collisions can
//! corrupt a value).
//!
//! The search is MTD(f): a sequence of null-window, fail-soft alpha-beta searches to the end
//! of the game that closes in on the margin, sharing one transposition table of bounds.
//! Moves are ordered: the table's best move, then sows that end in the store (M5, from the
//! pit nearest the store), then captures (M6), then the rest from the store end. A node with
//! `s` seeds left in the pits is worth between `-s` and `s`, which cuts windows outside that.
//!
//! Not modelled: the 400-sow limit (M9). It needs the sow count in the position, which would
//! defeat the table; real games last 30–70 sows, and every sow either fills a store or moves
//! the mover's seeds toward its store, so no position repeats.
//!
//! M13: from the start the first player wins by 8, opening with pit 3: 672,761,766 positions
//! without an endgame database (about 11 minutes in release on a shared 2-core machine),
//! 189,842,841 with the 16-seed [`EndgameDb`] (see `BENCHMARKS.md`). With the database the
//! search returns its exact value at the first position of at most 16 seeds, and enhanced
//! transposition cutoffs end a node whose child's known bound already reaches beta.
//! Positions with up to about 30 seeds in the pits solve in milliseconds, so the analysis RPC
//! gets exact values late in a game and bounds ([`Solver::solve_within`]) early on.
//!
//! Everything is deterministic: no clock, no randomness; a budget is a node count.

use ludus_rules::Seat;

use crate::board::RuleSet;
use crate::egdb::EndgameDb;
use crate::game::Mancala;

/// Pits per side in Kalah (M1).
pub(crate) const PITS: usize = 6;
/// Places one sow can drop in: the mover's 6 pits, its store, the opponent's 6 pits (M4).
const CYCLE: usize = 2 * PITS + 1;
/// The mover's store on the cycle.
const STORE: usize = PITS;
/// The most seeds the pits may hold; keeps every margin inside `i8` in the table.
const MAX_SEEDS: u32 = 120;
/// Positions with fewer seeds in the pits are searched without the table.
const TABLE_MIN_SEEDS: i32 = 1;
/// Positions with at least this many seeds in the pits look their children up before
/// searching them (enhanced transposition cutoffs): a probe per child costs less than the
/// subtrees it can save only where those subtrees are big.
const ETC_MIN_SEEDS: i32 = 24;

/// A Kalah position from the side to move: its pits, the opponent's pits and both stores.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct KalahPosition {
    /// `pits[0..6]`: the mover's pits 1–6; `pits[6..12]`: the opponent's pits 1–6 (M1).
    pits: [u8; 2 * PITS],
    /// The mover's store, then the opponent's.
    stores: [u8; 2],
}

impl KalahPosition {
    /// The start of a Kalah game (M2): 4 seeds in every pit, empty stores.
    pub fn start() -> KalahPosition {
        KalahPosition {
            pits: [4; 2 * PITS],
            stores: [0, 0],
        }
    }

    /// A position from the mover's pits 1–6, the opponent's pits 1–6 and the stores (mover's
    /// first). Any seed counts are allowed (smaller or larger games than 6×4) up to 120 seeds
    /// in the pits; `None` beyond that.
    pub fn new(mover: [u8; PITS], opponent: [u8; PITS], stores: [u8; 2]) -> Option<KalahPosition> {
        let mut pits = [0u8; 2 * PITS];
        pits[..PITS].copy_from_slice(&mover);
        pits[PITS..].copy_from_slice(&opponent);
        let total: u32 = pits.iter().map(|&p| u32::from(p)).sum();
        (total <= MAX_SEEDS).then_some(KalahPosition { pits, stores })
    }

    /// The position of a Kalah game in progress, from its seat to move; `None` for Congklak
    /// or a finished game.
    pub fn from_game(game: &Mancala) -> Option<KalahPosition> {
        use ludus_rules::Game;
        if game.rule_set() != RuleSet::Kalah {
            return None;
        }
        let mover: Seat = game.to_move()?;
        let board = game.board();
        let row = |seat: Seat| {
            let mut r = [0u8; PITS];
            r.copy_from_slice(board.row(seat, PITS as u8));
            r
        };
        KalahPosition::new(
            row(mover),
            row(1 - mover),
            [board.store(mover), board.store(1 - mover)],
        )
    }

    /// All 12 pits, the mover's first.
    pub(crate) fn pits(&self) -> &[u8; 2 * PITS] {
        &self.pits
    }

    /// Seeds left in the pits (both rows).
    pub fn seeds(&self) -> u32 {
        seeds(&self.pits) as u32
    }

    /// The position after the mover sows pit `pit` (1–6), seen from whoever sows next: the
    /// mover again after an extra turn (M5), else the opponent. A sow that ends the game
    /// (M7) gives a position with an empty row, not yet swept ([`KalahPosition::is_over`]).
    /// `None` for an empty or missing pit, or when the game is over.
    pub fn after_sow(&self, pit: u8) -> Option<KalahPosition> {
        let i = usize::from(pit).checked_sub(1)?;
        if i >= PITS || self.pits[i] == 0 || self.is_over() {
            return None;
        }
        let (pits, gain, next) = play(&self.pits, i);
        let [mine, theirs] = self.stores;
        // Only the mover's store grows; on the end the gain also counts the pits (M7).
        let stored = match next {
            Next::Over => gain - row_sum(&pits, 0) + row_sum(&pits, PITS),
            Next::Again | Next::Turn => gain,
        };
        let mine = u8::try_from(i32::from(mine) + stored).ok()?;
        Some(match next {
            Next::Turn => KalahPosition {
                pits,
                stores: [theirs, mine],
            },
            Next::Over | Next::Again => KalahPosition {
                pits,
                stores: [mine, theirs],
            },
        })
    }

    /// The mover's pits 1–6.
    pub fn mover_pits(&self) -> &[u8] {
        &self.pits[..PITS]
    }

    /// The opponent's pits 1–6.
    pub fn opponent_pits(&self) -> &[u8] {
        &self.pits[PITS..]
    }

    /// The stores, the mover's first.
    pub fn stores(&self) -> [u8; 2] {
        self.stores
    }

    /// Whether the game is over here (M7: a row is empty).
    pub fn is_over(&self) -> bool {
        row_sum(&self.pits, 0) == 0 || row_sum(&self.pits, PITS) == 0
    }

    /// The pits (1–6) the mover may sow.
    pub fn legal_pits(&self) -> Vec<u8> {
        if self.is_over() {
            return Vec::new();
        }
        (0..PITS)
            .filter(|&i| self.pits[i] > 0)
            .map(|i| i as u8 + 1)
            .collect()
    }

    fn store_margin(&self) -> i32 {
        i32::from(self.stores[0]) - i32::from(self.stores[1])
    }

    /// The final margin if the game were over now (M7: each side keeps its own pits).
    fn swept_margin(&self) -> i32 {
        self.store_margin() + row_sum(&self.pits, 0) - row_sum(&self.pits, PITS)
    }
}

fn row_sum(pits: &[u8; 2 * PITS], from: usize) -> i32 {
    pits[from..from + PITS].iter().map(|&p| i32::from(p)).sum()
}

fn seeds(pits: &[u8; 2 * PITS]) -> i32 {
    pits.iter().map(|&p| i32::from(p)).sum()
}

/// What one sow leads to.
#[derive(Copy, Clone, Eq, PartialEq, Debug)]
pub(crate) enum Next {
    /// The game is over (M7); the gain already holds the swept seeds.
    Over,
    /// The mover sows again from the child (M5).
    Again,
    /// The opponent moves; the child is seen from their side.
    Turn,
}

/// Sows the mover's pit `i` (0-based, must hold seeds): the child pits, the seeds the mover
/// gains (store drops, capture, and on the end the swept margin), and what follows.
pub(crate) fn play(pits: &[u8; 2 * PITS], i: usize) -> ([u8; 2 * PITS], i32, Next) {
    let mut b = *pits;
    let n = usize::from(b[i]);
    b[i] = 0;
    // M4: whole laps put a seed everywhere on the cycle, the emptied pit included.
    let laps = n / CYCLE;
    let mut gain = laps as i32;
    if laps > 0 {
        for p in &mut b {
            *p += laps as u8;
        }
    }
    let mut c = i;
    for _ in 0..n % CYCLE {
        c += 1;
        if c == CYCLE {
            c = 0;
        }
        match c {
            STORE => gain += 1,
            c if c < STORE => b[c] += 1,
            c => b[c - 1] += 1,
        }
    }
    let next = if c == STORE { Next::Again } else { Next::Turn };
    // M6: a last seed in an own pit that was empty captures when the pit opposite holds seeds.
    if c < STORE && b[c] == 1 && b[2 * PITS - 1 - c] > 0 {
        gain += 1 + i32::from(b[2 * PITS - 1 - c]);
        b[c] = 0;
        b[2 * PITS - 1 - c] = 0;
    }
    let own = row_sum(&b, 0);
    let theirs = row_sum(&b, PITS);
    if own == 0 || theirs == 0 {
        // M7: over at once, each side keeping its own pits.
        return (b, gain + own - theirs, Next::Over);
    }
    if next == Next::Turn {
        b.rotate_left(PITS);
    }
    (b, gain, next)
}

/// One slot of the transposition table: bounds on the pits' value (the margin still to be
/// won from here), the best move found, and the work that ranks what to keep: 1 + log2 of
/// the positions its subtree took (0: an empty slot). Four slots share a 64-byte bucket.
#[derive(Copy, Clone, Default, Debug)]
struct Entry {
    pits: [u8; 2 * PITS],
    lower: i8,
    upper: i8,
    best: u8,
    work: u8,
}

/// Slots per bucket: 4 × 16 bytes, one cache line.
const BUCKET: usize = 4;

/// The result of an exact solve.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct Solution {
    /// The final margin (mover's store minus opponent's at the end) with perfect play.
    pub margin: i32,
    /// A sow (pit 1–6) that achieves it; `None` when the game is over.
    pub best: Option<u8>,
    /// Positions searched.
    pub nodes: u64,
}

/// The result of a solve within a node budget: bounds on the final margin.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct SolverReport {
    /// The mover can force at least this final margin.
    pub lower: i32,
    /// The opponent can hold the mover to at most this final margin.
    pub upper: i32,
    /// A sow that achieves at least `lower`, when one was proved (or the game is over: `None`).
    pub best: Option<u8>,
    /// Positions searched.
    pub nodes: u64,
}

impl SolverReport {
    /// Whether the bounds meet: the margin is known exactly.
    pub fn is_exact(&self) -> bool {
        self.lower == self.upper
    }
}

/// The value of one legal sow, as the analysis RPC shows it.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct MoveValue {
    /// The pit sown, 1–6 from the mover's side.
    pub pit: u8,
    /// The final margin for the mover after this sow, at least…
    pub lower: i32,
    /// …and at most. Equal when exact.
    pub upper: i32,
}

impl MoveValue {
    /// Whether the value is known exactly.
    pub fn is_exact(&self) -> bool {
        self.lower == self.upper
    }
}

/// A Kalah solver with its transposition table. Values in the table are facts about
/// positions, so one solver can serve many positions of many games and gets faster with use.
///
/// With an [`EndgameDb`] the search stops at the first position the database holds, which
/// is what makes the 6×4 start solvable in about a minute (`BENCHMARKS.md`).
#[derive(Debug)]
pub struct Solver {
    table: Vec<Entry>,
    mask: usize,
    nodes: u64,
    limit: u64,
    aborted: bool,
    root_best: u8,
    db: Option<&'static EndgameDb>,
}

impl Default for Solver {
    /// A solver with 2^22 table slots (64 MiB) and no endgame database.
    fn default() -> Self {
        Solver::new(22)
    }
}

/// How often (in positions) a search asks whether it should stop.
const POLL: u64 = 4096;

impl Solver {
    /// The default table: 2^22 slots of 16 bytes.
    pub const DEFAULT_TABLE_BITS: u32 = 22;

    /// A solver with `2^table_bits` table slots of 16 bytes each (`table_bits` is clamped
    /// to 4..=30) and no endgame database.
    pub fn new(table_bits: u32) -> Solver {
        let size = 1usize << table_bits.clamp(4, 30);
        Solver {
            table: vec![Entry::default(); size],
            mask: size - 1,
            nodes: 0,
            limit: u64::MAX,
            aborted: false,
            root_best: 0,
            db: None,
        }
    }

    /// A solver that reads exact values from `db` for every position with at most
    /// [`EndgameDb::max_seeds`] seeds in the pits instead of searching it.
    pub fn with_endgame_db(table_bits: u32, db: &'static EndgameDb) -> Solver {
        Solver {
            db: Some(db),
            ..Solver::new(table_bits)
        }
    }

    /// The exact final margin of `pos` and a best sow. May take long from positions with many
    /// seeds; see [`Solver::solve_within`] for a bounded search.
    pub fn solve(&mut self, pos: &KalahPosition) -> Solution {
        let report = self.solve_within(pos, u64::MAX);
        Solution {
            margin: report.lower,
            best: report.best,
            nodes: report.nodes,
        }
    }

    /// Solves `pos` searching at most about `node_budget` positions. The report is exact when
    /// its bounds meet; otherwise they bracket the margin.
    pub fn solve_within(&mut self, pos: &KalahPosition, node_budget: u64) -> SolverReport {
        self.solve_until(pos, node_budget, &|| false)
    }

    /// [`Solver::solve_within`] that also stops as soon as `stop` returns `true` (asked every
    /// few thousand positions): a computer player's deadline.
    pub fn solve_until(
        &mut self,
        pos: &KalahPosition,
        node_budget: u64,
        stop: &dyn Fn() -> bool,
    ) -> SolverReport {
        self.solve_from_guess(pos, None, node_budget, stop)
    }

    /// [`Solver::solve_until`] starting MTD(f) from `guess`, an estimate of the final margin
    /// (a shallow search's, say). Each null-window pass moves the bounds by a seed or two, so
    /// a guess near the value saves most passes: a 35-seed position worth 11 took seven
    /// passes and 4.5 M positions from a guess of 0. Without a guess the table's bounds (or 0)
    /// are the start.
    pub fn solve_from_guess(
        &mut self,
        pos: &KalahPosition,
        guess: Option<i32>,
        node_budget: u64,
        stop: &dyn Fn() -> bool,
    ) -> SolverReport {
        self.nodes = 0;
        self.limit = node_budget;
        self.aborted = false;
        let base = pos.store_margin();
        if pos.is_over() {
            let m = pos.swept_margin();
            return SolverReport {
                lower: m,
                upper: m,
                best: None,
                nodes: 0,
            };
        }
        let s = seeds(&pos.pits);
        let (mut lower, mut upper) = (-s, s);
        let mut best = None;
        let mut guess = match guess {
            Some(g) => g - base,
            None => self
                .probe(&pos.pits)
                .map_or(0, |e| (i32::from(e.lower) + i32::from(e.upper)) / 2),
        };
        while lower < upper {
            let beta = if guess <= lower {
                lower + 1
            } else {
                guess.min(upper)
            };
            self.root_best = 0;
            let v = self.search(&pos.pits, beta - 1, beta, true, stop);
            if self.aborted {
                break;
            }
            if v < beta {
                upper = v;
            } else {
                lower = v;
                best = Some(self.root_best + 1);
            }
            guess = v;
        }
        if best.is_none() && lower == upper {
            // Nothing beat the worst case: every sow is worth it, so any will do.
            best = pos.legal_pits().first().copied();
        }
        SolverReport {
            lower: base + lower,
            upper: base + upper,
            best,
            nodes: self.nodes,
        }
    }

    /// The value of every legal sow of `pos` (final margin for the mover), spending about
    /// `node_budget` positions in all. Unused budget of one sow passes to the next.
    pub fn analyze(&mut self, pos: &KalahPosition, node_budget: u64) -> Vec<MoveValue> {
        self.analyze_counted(pos, node_budget).0
    }

    /// [`Solver::analyze`], and the number of positions it searched.
    pub fn analyze_counted(
        &mut self,
        pos: &KalahPosition,
        node_budget: u64,
    ) -> (Vec<MoveValue>, u64) {
        let legal = pos.legal_pits();
        let mut left = node_budget;
        let mut searched = 0u64;
        let mut out = Vec::with_capacity(legal.len());
        for (k, &pit) in legal.iter().enumerate() {
            let (child, gain, next) = play(&pos.pits, usize::from(pit - 1));
            let base = pos.store_margin() + gain;
            let share = left / (legal.len() - k) as u64;
            let (lower, upper) = match next {
                Next::Over => (base, base),
                Next::Again | Next::Turn => {
                    let stores = [0, 0];
                    let r = self.solve_within(
                        &KalahPosition {
                            pits: child,
                            stores,
                        },
                        share,
                    );
                    left = left.saturating_sub(r.nodes);
                    searched = searched.saturating_add(r.nodes);
                    if next == Next::Again {
                        (base + r.lower, base + r.upper)
                    } else {
                        (base - r.upper, base - r.lower)
                    }
                }
            };
            out.push(MoveValue { pit, lower, upper });
        }
        (out, searched)
    }

    fn index(&self, pits: &[u8; 2 * PITS]) -> usize {
        let mut lo = [0u8; 8];
        lo.copy_from_slice(&pits[..8]);
        let mut hi = [0u8; 4];
        hi.copy_from_slice(&pits[8..]);
        let lo = u64::from_le_bytes(lo);
        let hi = u64::from(u32::from_le_bytes(hi));
        let h = (lo ^ hi.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        ((h >> 32) as usize) & self.mask & !(BUCKET - 1)
    }

    fn probe(&self, pits: &[u8; 2 * PITS]) -> Option<Entry> {
        self.probe_at(self.index(pits), pits)
    }

    fn probe_at(&self, i: usize, pits: &[u8; 2 * PITS]) -> Option<Entry> {
        self.table[i..i + BUCKET]
            .iter()
            .find(|e| e.work > 0 && e.pits == *pits)
            .copied()
    }

    /// Stores bounds in bucket `i`: over the same position, else over the slot whose
    /// subtree was smallest (an empty slot first), so the costly results stay.
    fn store_at(
        &mut self,
        i: usize,
        pits: &[u8; 2 * PITS],
        lower: i32,
        upper: i32,
        best: usize,
        work: u64,
    ) {
        let entry = Entry {
            pits: *pits,
            lower: lower.clamp(-127, 127) as i8,
            upper: upper.clamp(-127, 127) as i8,
            best: best as u8,
            work: (u64::BITS - work.max(1).leading_zeros()) as u8,
        };
        let bucket = &mut self.table[i..i + BUCKET];
        let slot = bucket
            .iter()
            .position(|e| e.work > 0 && e.pits == *pits)
            .or_else(|| (0..BUCKET).min_by_key(|&k| bucket[k].work))
            .unwrap_or(0);
        bucket[slot] = entry;
    }

    /// Bounds on the value of `pits` (mover to play) known without searching: exact from the
    /// endgame database, or the table's bounds.
    fn known(&self, pits: &[u8; 2 * PITS]) -> Option<(i32, i32)> {
        if let Some(v) = self.db.and_then(|db| db.pits_value(pits)) {
            return Some((v, v));
        }
        self.probe(pits)
            .map(|e| (i32::from(e.lower), i32::from(e.upper)))
    }

    /// Fail-soft alpha-beta on the margin still to be won from `pits` (mover to play).
    fn search(
        &mut self,
        pits: &[u8; 2 * PITS],
        mut alpha: i32,
        mut beta: i32,
        root: bool,
        stop: &dyn Fn() -> bool,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes > self.limit || (self.nodes.is_multiple_of(POLL) && stop()) {
            self.aborted = true;
            return 0;
        }
        let s = seeds(pits);
        if let Some(v) = self.db.filter(|_| !root).and_then(|db| db.pits_value(pits)) {
            return v;
        }
        let nodes0 = self.nodes;
        if s <= alpha {
            return s;
        }
        if -s >= beta {
            return -s;
        }
        let mut tt_best = usize::MAX;
        // Small subtrees are cheaper to search again than to look up (a cache miss each).
        let slot = (s >= TABLE_MIN_SEEDS).then(|| self.index(pits));
        let known = slot.and_then(|i| self.probe_at(i, pits));
        if let Some(e) = known {
            let (lo, hi) = (i32::from(e.lower), i32::from(e.upper));
            // The root is searched in full so that it names its best sow.
            if !root {
                if lo >= beta {
                    return lo;
                }
                if hi <= alpha {
                    return hi;
                }
                if lo == hi {
                    return lo;
                }
                alpha = alpha.max(lo);
                beta = beta.min(hi);
            }
            tt_best = usize::from(e.best);
        }
        let alpha0 = alpha;

        // Order: table move, then sows into the store (nearest the store first), then
        // captures, then the rest from the store end.
        let mut order = [0usize; PITS];
        let mut count = 0;
        let mut push = |i: usize, order: &mut [usize; PITS]| {
            if !order[..count].contains(&i) {
                order[count] = i;
                count += 1;
            }
        };
        if tt_best < PITS && pits[tt_best] > 0 {
            push(tt_best, &mut order);
        }
        for i in (0..PITS).rev() {
            if usize::from(pits[i]) == STORE - i {
                push(i, &mut order);
            }
        }
        for i in (0..PITS).rev() {
            let n = usize::from(pits[i]);
            if n > 0 && n < CYCLE {
                let last = i + n;
                if last < STORE && pits[last] == 0 && pits[2 * PITS - 1 - last] > 0 {
                    push(i, &mut order);
                }
            }
        }
        for i in (0..PITS).rev() {
            if pits[i] > 0 {
                push(i, &mut order);
            }
        }

        // Every child once; then enhanced transposition cutoffs: a child whose known bound
        // (table or endgame database) already lifts this node to beta ends it unsearched.
        let mut kids = [([0u8; 2 * PITS], 0i32, Next::Over); PITS];
        for &i in &order[..count] {
            kids[i] = play(pits, i);
        }
        if !root && s >= ETC_MIN_SEEDS {
            for &i in &order[..count] {
                let (child, gain, next) = &kids[i];
                let bound = match next {
                    Next::Over => Some(*gain),
                    Next::Again => self.known(child).map(|(lo, _)| gain + lo),
                    Next::Turn => self.known(child).map(|(_, hi)| gain - hi),
                };
                if let Some(v) = bound.filter(|&v| v >= beta) {
                    if let Some(slot) = slot {
                        self.store_at(slot, pits, v, s, i, self.nodes - nodes0 + 1);
                    }
                    return v;
                }
            }
        }

        let mut best = i32::MIN;
        let mut best_move = order[0];
        for &i in &order[..count] {
            let (child, gain, next) = kids[i];
            let v = match next {
                Next::Over => gain,
                Next::Again => gain + self.search(&child, alpha - gain, beta - gain, false, stop),
                Next::Turn => gain - self.search(&child, gain - beta, gain - alpha, false, stop),
            };
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_move = i;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if root {
            self.root_best = best_move as u8;
        }
        let (lo, hi) = if best <= alpha0 {
            (-s, best)
        } else if best >= beta {
            (best, s)
        } else {
            (best, best)
        };
        if let Some(i) = slot {
            // Keep what the table knew if it was tighter on the other side.
            let (lo, hi) = match known {
                Some(e) => (lo.max(i32::from(e.lower)), hi.min(i32::from(e.upper))),
                None => (lo, hi),
            };
            self.store_at(i, pits, lo, hi, best_move, self.nodes - nodes0 + 1);
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m4_m5_sowing_pit_3_from_the_start_ends_in_the_store() {
        let (child, gain, next) = play(&[4; 12], 2);
        assert_eq!(next, Next::Again);
        assert_eq!(gain, 1);
        assert_eq!(child, [4, 4, 0, 5, 5, 5, 4, 4, 4, 4, 4, 4]);
    }

    #[test]
    fn m4_m6_thirteen_seeds_lap_back_and_capture() {
        let mut pits = [1u8; 12];
        pits[0] = 13;
        let (child, gain, next) = play(&pits, 0);
        // Every other place gets one seed; pit 1 gets the 13th, was empty, faces pit 6 (2).
        assert_eq!(next, Next::Turn);
        assert_eq!(gain, 1 + 1 + 2);
        // Child is seen from the opponent: their pits first, their pit 6 now empty.
        assert_eq!(&child[..6], &[2, 2, 2, 2, 2, 0]);
        assert_eq!(&child[6..], &[0, 2, 2, 2, 2, 2]);
    }
}
