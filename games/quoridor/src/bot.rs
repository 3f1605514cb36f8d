//! Computer players (ARCHITECTURE.md, "Computer players"): Easy, Normal and Hard for every board size (Q1), goal (Q9,
//! Q25), player count (Q4) and mode (Q22-Q24). A bot in a team seat plays for its team's pawn.
//!
//! - **Easy** walks its shortest path; now and then it places a wall that lengthens the
//!   path of the opponent nearest to winning, and sometimes it wastes a move.
//! - **Normal** searches two plies (its move, the opponent's reply) over pawn moves and the
//!   walls that cut a shortest path, scoring the race: how many turns the nearest opponent
//!   needs to arrive minus how many it needs, plus walls in hand. With three or more pawns
//!   it plays the best move by that score at one ply.
//! - **Hard** searches deeper with iterative deepening alpha-beta, move ordering by the
//!   static score and the previous iteration, a transposition table keyed by a position
//!   hash, candidate walls that also hug the victims' pawns, and a refined score (a race
//!   nobody can wall any more is decided, progress counts). With three or more pawns each
//!   rival is modelled as playing its own best move by the same score (walling whoever
//!   leads it), and Hard searches its own moves against those replies.
//!
//! Every candidate is played through [`Game::apply`], so the rules (Q3, Q12-Q16, Q20) are
//! the only judge of legality: a wall the Q15 path rule refuses is never chosen. Work is
//! counted in positions generated or scored, so a choice is deterministic given the random
//! source and the work budget; `Budget::expired` is polled as the search runs.

use ludus_rules::{Bot, Budget, Game, GameResult, Level, RandomSource, Seat, SplitMix64, Think};

use crate::bits::{Bits, STRIDE, idx};
use crate::game::Quoridor;
use crate::notation::{Orientation, QuoridorAction};

/// A won game, minus the plies it takes (so the quickest win scores best).
const WIN: i32 = 1_000_000;
/// Larger than any score.
const INF: i32 = 2 * WIN;
/// One step of the race.
const STEP: i32 = 100;
/// Deepest Hard iteration; the work budget usually stops it well before.
const MAX_DEPTH: u32 = 16;
/// Transposition table slots (a power of two).
const TT_SLOTS: usize = 1 << 16;
/// How often (in work units) the wall-clock allowance is polled.
const POLL_EVERY: u64 = 32;

/// Work per level: positions generated plus positions scored (a clone, an `apply` or a
/// flood fill per pawn: about a microsecond on 9×9). In the arena (BENCHMARKS.md) Hard
/// averages 75 ms of CPU per move on 9×9 and Normal's median is 0.1 ms, far inside the
/// 1 s and 100 ms targets; Easy and Normal rarely reach their budgets at all.
const WORK_EASY: u64 = 2_000;
const WORK_NORMAL: u64 = 20_000;
const WORK_HARD: u64 = 120_000;

impl Bot for Quoridor {
    fn decide(
        &self,
        seat: Seat,
        Think { level, budget, rng }: Think<'_>,
    ) -> Option<QuoridorAction> {
        let me = self.side_to_move()?;
        let style = Style::of(level, live_sides(self));
        let mut search = Search::new(me, style, budget);
        let choice = match level {
            Level::Easy => easy(self, me, &mut search, rng),
            Level::Normal | Level::Hard => search.root(self, rng),
        };
        // Every choice above was applied successfully to a copy; the full list is the
        // last resort (a pawn hemmed in by pawns with no walls left may only pass).
        choice.or_else(|| self.legal_actions(seat).first().copied())
    }

    fn default_work(level: Level) -> u64 {
        match level {
            Level::Easy => WORK_EASY,
            Level::Normal => WORK_NORMAL,
            Level::Hard => WORK_HARD,
        }
    }
}

/// How a level searches and scores.
#[derive(Copy, Clone, Debug)]
struct Style {
    /// Plies searched (Hard deepens up to this while the budget lasts).
    depth: u32,
    /// Score of one wall in hand, in hundredths of a step.
    wall_value: i32,
    /// The Hard refinements of the score.
    refined: bool,
    /// Also try the walls at the corners of the victims' cells, not only those on a path.
    near_pawn: bool,
    /// How many opponents (nearest to winning first) its own walls aim at.
    victims: usize,
    /// Whether to keep a transposition table.
    table: bool,
}

impl Style {
    /// The style of `level` in a race of `sides` pawns.
    fn of(level: Level, sides: usize) -> Style {
        match level {
            Level::Easy | Level::Normal => Style {
                // With three or more pawns the reply of the next side is no guide to the
                // race (it plays for itself, not against us): the greedy choice scored
                // better in the arena (49.5 % against three Easy, 200 games, where the
                // two-ply paranoid search scored 33 %).
                depth: if sides > 2 { 1 } else { 2 },
                wall_value: 60,
                refined: false,
                near_pawn: false,
                victims: 2,
                table: false,
            },
            Level::Hard => Style {
                depth: MAX_DEPTH,
                wall_value: 70,
                refined: true,
                near_pawn: true,
                victims: 2,
                table: true,
            },
        }
    }
}

/// A transposition table entry.
#[derive(Copy, Clone, Debug, Default)]
struct Entry {
    key: u64,
    depth: u32,
    score: i32,
    bound: Bound,
    best: Option<QuoridorAction>,
}

#[derive(Copy, Clone, Debug, Default, Eq, PartialEq)]
enum Bound {
    #[default]
    Exact,
    /// The score is at least this (a cutoff in a maximising node).
    Lower,
    /// The score is at most this.
    Upper,
}

/// A position one action away, with the action that leads to it.
type Child = (QuoridorAction, Quoridor);

/// One choice's search: whose side it plays, its style and the work spent.
struct Search<'a, 'b> {
    me: usize,
    style: Style,
    budget: &'a Budget<'b>,
    work: u64,
    stopped: bool,
    table: Vec<Entry>,
}

impl<'a, 'b> Search<'a, 'b> {
    fn new(me: usize, style: Style, budget: &'a Budget<'b>) -> Self {
        let slots = if style.table { TT_SLOTS } else { 0 };
        Search {
            me,
            style,
            budget,
            work: 0,
            stopped: false,
            table: vec![Entry::default(); slots],
        }
    }

    /// Counts one unit of work and notes when the budget is spent.
    fn spend(&mut self) {
        self.work += 1;
        if self.work >= self.budget.work
            || (self.work.is_multiple_of(POLL_EVERY) && self.budget.expired())
        {
            self.stopped = true;
        }
    }

    /// The opponents of `of`, nearest to winning first (by the turn they would arrive).
    fn rivals(g: &Quoridor, of: usize) -> Vec<usize> {
        let race = Race::of(g);
        let mut out: Vec<usize> = race
            .sides
            .iter()
            .map(|r| r.side)
            .filter(|&q| q != of)
            .collect();
        out.sort_by_key(|&q| race.arrival(q).unwrap_or(i32::MAX));
        out
    }

    /// Every candidate action of the side to move and the position after it: all pawn
    /// moves (Q12-Q13), and walls (Q14) that cut the shortest path of a victim or, for
    /// Hard, touch a victim's cell. The mover's victims are `me` when an opponent moves
    /// (paranoid) and the nearest rivals when `me` moves. `apply` refuses what the rules
    /// refuse, Q15 included.
    fn children(&mut self, g: &Quoridor) -> Vec<Child> {
        let (Some(side), Some(seat)) = (g.side_to_move(), g.to_move()) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(48);
        // `apply` never draws from the source; it only needs one.
        let mut dice = SplitMix64(0);
        for &t in g.targets(side).as_slice() {
            let a = QuoridorAction::Move(g.cell_at(usize::from(t)));
            self.spend();
            if let Ok(next) = g.clone().apply(seat, &a, &mut dice) {
                out.push((a, next));
            }
        }
        if g.walls_left(side).unwrap_or(0) == 0 {
            return out;
        }
        let mut victims = Search::rivals(g, side);
        victims.truncate(self.style.victims);
        let (h, v) = wall_candidates(g, &victims, self.style.near_pawn);
        let (free_h, free_v) = g.board().free_slots();
        for (o, slots) in [
            (Orientation::Horizontal, h & free_h),
            (Orientation::Vertical, v & free_v),
        ] {
            for i in slots.iter() {
                let a = QuoridorAction::Wall(g.wall_at(o, i));
                self.spend();
                if let Ok(next) = g.clone().apply(seat, &a, &mut dice) {
                    out.push((a, next));
                }
            }
        }
        out
    }

    /// The score of a position for `me`.
    fn score(&mut self, g: &Quoridor, ply: u32) -> i32 {
        self.spend();
        evaluate(g, self.me, self.style, ply)
    }

    /// The root: candidates in random order (so equal choices vary), sorted by their
    /// static score, then searched to `style.depth` plies, deepening one ply at a time
    /// while the budget lasts. The best move of the last finished iteration wins (or the
    /// unfinished one's, when it beat that move after searching it first).
    fn root(&mut self, g: &Quoridor, rng: &mut dyn RandomSource) -> Option<QuoridorAction> {
        let mut kids = self.children(g);
        shuffle(&mut kids, rng);
        let mut scored: Vec<(i32, Child)> =
            kids.into_iter().map(|k| (self.score(&k.1, 1), k)).collect();
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        let mut best = scored.first().map(|s| s.1.0)?;
        let first = if self.style.table {
            2
        } else {
            self.style.depth
        };
        for depth in first..=self.style.depth {
            let mut alpha = -INF;
            let mut found: Option<usize> = None;
            let mut scores = Vec::with_capacity(scored.len());
            for (i, (_, (_, kid))) in scored.iter().enumerate() {
                let v = self.alphabeta(kid, depth - 1, 1, alpha, INF);
                if self.stopped {
                    break;
                }
                scores.push(v);
                if v > alpha {
                    alpha = v;
                    found = Some(i);
                }
            }
            if let Some(i) = found {
                best = scored[i].1.0;
            }
            if self.stopped {
                break;
            }
            // The next iteration tries the best first; fail-low bounds keep their order.
            for (s, v) in scored.iter_mut().zip(scores) {
                s.0 = v;
            }
            scored.sort_by_key(|s| std::cmp::Reverse(s.0));
            if alpha.abs() >= WIN - 1_000 {
                break; // a forced result: deeper search cannot change it
            }
        }
        Some(best)
    }

    /// Alpha-beta over `me`'s score: `me` maximises; in a duel the opponent minimises it,
    /// with three or more pawns each rival plays its own best move by its own score.
    fn alphabeta(&mut self, g: &Quoridor, depth: u32, ply: u32, alpha: i32, beta: i32) -> i32 {
        if depth == 0 || g.outcome().is_some() {
            return self.score(g, ply);
        }
        if self.stopped {
            return 0; // discarded by the caller
        }
        let (mut alpha, mut beta) = (alpha, beta);
        let key = position_key(g);
        let slot = (key as usize) & self.table.len().wrapping_sub(1);
        let mut hint = None;
        if let Some(e) = self.table.get(slot).filter(|e| e.key == key) {
            hint = e.best;
            if e.depth >= depth {
                match e.bound {
                    Bound::Exact => return e.score,
                    Bound::Lower => alpha = alpha.max(e.score),
                    Bound::Upper => beta = beta.min(e.score),
                }
                if alpha >= beta {
                    return e.score;
                }
            }
        }
        let maximise = g.side_to_move() == Some(self.me);
        let mut kids = self.children(g);
        if kids.is_empty() {
            // Hemmed in with no walls: the side may only pass (Q19, Q20 [decided]).
            let Some(seat) = g.to_move() else {
                return self.score(g, ply);
            };
            return match g
                .clone()
                .apply(seat, &QuoridorAction::Pass, &mut SplitMix64(0))
            {
                Ok(next) => self.alphabeta(&next, depth - 1, ply + 1, alpha, beta),
                Err(_) => self.score(g, ply),
            };
        }
        if !maximise && live_sides(g) > 2 {
            // Three or more pawns: each rival is taken to play its own best move by its
            // own score (walling whoever leads it, us included), not to conspire against
            // us, which made the paranoid search far too timid in the arena.
            let mover = g.side_to_move().unwrap_or(self.me);
            let mut pick = 0;
            let mut top = -INF;
            for (i, k) in kids.iter().enumerate() {
                self.spend();
                let v = evaluate(&k.1, mover, self.style, ply + 1);
                if v > top {
                    top = v;
                    pick = i;
                }
            }
            kids.swap(0, pick);
            kids.truncate(1);
        } else if depth >= 2 {
            let mut keyed: Vec<(i32, Child)> = kids
                .into_iter()
                .map(|k| {
                    let s = self.score(&k.1, ply + 1);
                    (if maximise { -s } else { s }, k)
                })
                .collect();
            keyed.sort_by_key(|k| k.0);
            kids = keyed.into_iter().map(|k| k.1).collect();
        }
        if let Some(pos) = hint.and_then(|h| kids.iter().position(|k| k.0 == h)) {
            let k = kids.remove(pos);
            kids.insert(0, k);
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best = if maximise { -INF } else { INF };
        let mut best_action = None;
        for (a, kid) in &kids {
            let v = self.alphabeta(kid, depth - 1, ply + 1, alpha, beta);
            if self.stopped {
                return 0;
            }
            if (maximise && v > best) || (!maximise && v < best) {
                best = v;
                best_action = Some(*a);
            }
            if maximise {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        if let Some(e) = self.table.get_mut(slot) {
            let bound = if best <= alpha0 {
                Bound::Upper
            } else if best >= beta0 {
                Bound::Lower
            } else {
                Bound::Exact
            };
            *e = Entry {
                key,
                depth,
                score: best,
                bound,
                best: best_action,
            };
        }
        best
    }
}

/// Pawns still in the game.
fn live_sides(g: &Quoridor) -> usize {
    (0..g.sides()).filter(|&q| g.in_game(q)).count()
}

/// Wall slots (horizontal, vertical) aimed at `victims`: those cutting a step of each
/// victim's shortest path and, with `near_pawn`, the four centers at the victim's corners.
fn wall_candidates(g: &Quoridor, victims: &[usize], near_pawn: bool) -> (Bits, Bits) {
    let (mut h, mut v) = (Bits::EMPTY, Bits::EMPTY);
    let n = usize::from(g.options().size);
    for &q in victims {
        let Some(cell) = g.cell(q).filter(|_| g.in_game(q)) else {
            continue;
        };
        let at = g.at(cell);
        if let Some(p) = g.board().path(at, g.goal(q)) {
            h |= p.cut_h;
            v |= p.cut_v;
        }
        if near_pawn {
            let (r, c) = (at / STRIDE, at % STRIDE);
            let mut near = Bits::EMPTY;
            for rr in r.saturating_sub(1)..=r.min(n - 2) {
                for cc in c.saturating_sub(1)..=c.min(n - 2) {
                    near.set(idx(rr, cc));
                }
            }
            h |= near;
            v |= near;
        }
    }
    (h, v)
}

/// The race as it stands: every pawn still in the game, its distance (Q30) and how many
/// turns pass before it moves.
struct Race {
    sides: Vec<Runner>,
}

#[derive(Copy, Clone, Debug)]
struct Runner {
    side: usize,
    distance: i32,
    /// Turns before this side's next turn (0 for the side to move).
    wait: i32,
    walls: i32,
}

impl Race {
    fn of(g: &Quoridor) -> Race {
        let k = g.sides();
        let turn = g.side_to_move().unwrap_or(0);
        let mut sides = Vec::with_capacity(k);
        for i in 0..k {
            let q = (turn + i) % k;
            if !g.in_game(q) {
                continue;
            }
            // A pawn is never shut in (Q15); a missing distance scores as far away.
            let distance = g.distance(q).map_or(4 * STEP, |d| d as i32);
            sides.push(Runner {
                side: q,
                distance,
                wait: sides.len() as i32,
                walls: i32::from(g.walls_left(q).unwrap_or(0)),
            });
        }
        Race { sides }
    }

    /// The turn (counted from now, over all sides) on which `side` would arrive if nobody
    /// placed another wall: its last step comes `distance - 1` rounds after its next turn.
    fn arrival(&self, side: usize) -> Option<i32> {
        let k = self.sides.len() as i32;
        self.sides
            .iter()
            .find(|r| r.side == side)
            .map(|r| (r.distance - 1) * k + r.wait)
    }
}

/// `me`'s score: won or lost games are final; otherwise the nearest rival's arrival minus
/// `me`'s in steps, plus walls in hand against that rival's. Hard also knows that a race
/// nobody can wall any more is decided by arrival (pawns aside), and prefers progress.
fn evaluate(g: &Quoridor, me: usize, style: Style, ply: u32) -> i32 {
    let ply = ply as i32;
    if let Some(o) = g.outcome() {
        return match &o.result {
            GameResult::Win { winners } => {
                if winners.iter().any(|&s| g.side_of(s) == Some(me)) {
                    WIN - ply
                } else {
                    -WIN + ply
                }
            }
            _ => 0, // Q18 draw, or cancelled
        };
    }
    let race = Race::of(g);
    let k = race.sides.len().max(1) as i32;
    let Some(mine) = race.sides.iter().find(|r| r.side == me).copied() else {
        return -WIN + ply; // `me` left the game
    };
    let t_me = (mine.distance - 1) * k + mine.wait;
    let Some((t_rival, rival)) = race
        .sides
        .iter()
        .filter(|r| r.side != me)
        .map(|r| ((r.distance - 1) * k + r.wait, *r))
        .min_by_key(|x| x.0)
    else {
        return WIN - ply;
    };
    let mut s = (t_rival - t_me) * STEP / k + style.wall_value * (mine.walls - rival.walls);
    // A rival one step from its goal that moves before `me` wins unless someone between
    // walls it, which the linear race above would miss beyond the search horizon.
    if rival.distance == 1 && rival.wait < mine.wait {
        s -= WIN / 4;
    }
    if style.refined {
        let rivals_walls: i32 = race
            .sides
            .iter()
            .filter(|r| r.side != me)
            .map(|r| r.walls)
            .sum();
        // A race that nobody can change any more is (pawns aside) decided.
        if rivals_walls == 0 && t_me < t_rival {
            s += 20 * STEP;
        }
        if mine.walls == 0 && t_rival < t_me {
            s -= 20 * STEP;
        }
        // Between equal races, the nearer to its goal is the safer: fewer steps left to cut.
        s -= mine.distance * 5;
    }
    s
}

/// A hash of everything that decides the future of a position: walls, pawns, walls in
/// hand and the side to move (move counts of Q18 aside).
fn position_key(g: &Quoridor) -> u64 {
    let b = g.board();
    let mut h: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    for w in b.h.0.iter().chain(b.v.0.iter()) {
        h = mix(h ^ w);
    }
    for q in 0..g.sides() {
        let cell = g.cell(q).map_or(0, |c| g.at(c) as u64);
        let walls = u64::from(g.walls_left(q).unwrap_or(0));
        h = mix(h ^ cell ^ (walls << 8) ^ (u64::from(g.in_game(q)) << 16) ^ ((q as u64) << 24));
    }
    mix(h ^ g.side_to_move().map_or(99, |s| s as u64))
}

/// SplitMix64's finaliser: a cheap mixing of 64 bits.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Fisher-Yates with the bot's random source.
fn shuffle<T>(v: &mut [T], rng: &mut dyn RandomSource) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        v.swap(i, j.min(i));
    }
}

/// Easy: one move in ten is a random pawn move (wasted), one in five (while walls last) a
/// random wall among those that lengthen the nearest rival's path; otherwise a step along
/// its own shortest path.
fn easy(
    g: &Quoridor,
    me: usize,
    search: &mut Search<'_, '_>,
    rng: &mut dyn RandomSource,
) -> Option<QuoridorAction> {
    let mut kids = search.children(g);
    shuffle(&mut kids, rng);
    let roll = rng.below(100);
    let moves = kids
        .iter()
        .filter(|k| matches!(k.0, QuoridorAction::Move(_)));
    if roll < 10 {
        if let Some(k) = moves.clone().next() {
            return Some(k.0);
        }
    } else if roll < 30 {
        let rival = Search::rivals(g, me).first().copied();
        let before = rival.and_then(|q| g.distance(q));
        let lengthening = kids.iter().find(|k| {
            matches!(k.0, QuoridorAction::Wall(_)) && rival.and_then(|q| k.1.distance(q)) > before
        });
        if let Some(k) = lengthening {
            return Some(k.0);
        }
    }
    // The walk: the move that leaves the shortest path (or wins at once).
    moves
        .min_by_key(|k| {
            if k.1.outcome().is_some() {
                0
            } else {
                k.1.distance(me).map_or(u32::MAX, |d| d + 1)
            }
        })
        .or(kids.first())
        .map(|k| k.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{QuoridorOptions, Walls};

    fn act(g: Quoridor, text: &str) -> Quoridor {
        let seat = g.to_move().expect("on turn");
        let a = g.parse_action(text).expect("notation");
        g.apply(seat, &a, &mut SplitMix64(0)).expect("legal")
    }

    /// Red on a5 and yellow on i5, four steps each, one wall each (Q27 fixed 1).
    fn race() -> Quoridor {
        let o = QuoridorOptions {
            walls: Walls::Fixed(1),
            first_seat: Some(0),
            ..QuoridorOptions::default()
        };
        let g = Quoridor::setup(o, 2, &mut SplitMix64(0)).expect("setup");
        g.arrange(&["a5".parse().unwrap(), "i5".parse().unwrap()], &[])
            .expect("position")
    }

    /// Q16, Q17: once nobody holds a wall, equal distances are won by the side to move;
    /// Hard's score knows it, Normal's only counts the half-step tempo.
    #[test]
    fn hard_scores_a_race_nobody_can_wall_as_decided() {
        // Walls far from both paths use up the stock; red is to move again.
        let g = act(act(race(), "a1v"), "a7v");
        assert_eq!((g.walls_left(0), g.walls_left(1)), (Some(0), Some(0)));
        let hard = Style::of(Level::Hard, 2);
        let normal = Style::of(Level::Normal, 2);
        assert!(evaluate(&g, 0, hard, 0) >= 20 * STEP);
        assert!(evaluate(&g, 1, hard, 0) <= -20 * STEP);
        assert_eq!(evaluate(&g, 0, normal, 0), STEP / 2);
        // With a wall in each hand nothing is decided; once red has spent its wall, yellow
        // (now to move, as near as red) has won the race.
        assert!(evaluate(&race(), 0, hard, 0).abs() < 10 * STEP);
        assert!(evaluate(&act(race(), "a1v"), 1, hard, 0) >= 20 * STEP);
    }

    /// The table key: the same walls, pawns, stocks and side to move give the same key
    /// whatever the order of play; another side to move gives another key.
    #[test]
    fn position_key_sees_transpositions() {
        let o = QuoridorOptions {
            first_seat: Some(0),
            ..QuoridorOptions::default()
        };
        let g = Quoridor::setup(o, 2, &mut SplitMix64(0)).expect("setup");
        let a = act(act(act(g.clone(), "a1v"), "pass"), "c3h");
        let b = act(act(act(g.clone(), "c3h"), "pass"), "a1v");
        assert_eq!(position_key(&a), position_key(&b));
        assert_ne!(position_key(&a), position_key(&act(a.clone(), "pass")));
        assert_ne!(position_key(&g), position_key(&act(g.clone(), "e2")));
    }
}
