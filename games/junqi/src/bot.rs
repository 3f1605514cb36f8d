//! Computer players (J20): Beginner, Normal and Expert, behind [`ludus_rules::Bot`].
//!
//! A bot sees only what a player sees (J21, J22). [`Bot::choose`] builds the seat's
//! [`JunqiView`] and hands it to [`decide`], which takes nothing else: the hidden layout
//! cannot reach a decision because the decision function never has it. Where a level needs a
//! full position to run the rules on, it *invents* one: [`Junqi::determinise`] fills the
//! face-down points with the J21 pool of still-hidden pieces, shuffled by the bot's own random
//! source. Two games with the same public history therefore give the same choice for the same
//! random source (tested like the J22 proof).
//!
//! # The levels
//! - **Beginner** flips at random and takes a capture its piece survives when it sees one
//!   (not always); it never looks at what the opponent threatens.
//! - **Normal** looks one action ahead: material by rank, the best capture each side has next
//!   (the Commander weighs most, an open Flag ends the game), the J17 count when ahead, and,
//!   for a flip, the expected value over every kind of piece it can be, from the J21 counts.
//! - **Expert** keeps Normal's best candidates and searches three plies (its action, every
//!   opponent move or a flip at a random hidden point, its answer, with alpha-beta cuts) over
//!   determinised samples: hidden layouts consistent with the view, drawn from the J21 counts.
//!   Averaging over samples weighs each flip by the odds of what it reveals, an enemy piece
//!   next to its own included. It also has endgame technique Normal lacks: hunters drawn
//!   toward what they can take, and trading down when ahead. (Attacks never meet the unknown:
//!   J11 allows them on face-up pieces only, so the uncertainty is all in the flips.)
//!
//! Work is counted in positions evaluated, so a choice depends only on the view, the level,
//! the work budget and the random source; `budget.expired()` is polled between actions and
//! samples, and the best action found so far is returned.

use ludus_rules::{Bot, Budget, Game, GameResult, Level, RandomSource, Seat, Think, Viewer};

use crate::action::Action;
use crate::board::{POINTS, Point, RAIL, ROAD, points_of};
use crate::game::{Board, Cell, Junqi};
use crate::piece::{Colour, CombatResult, Piece, Rank, combat};
use crate::view::{JunqiView, PointView};

/// Work for Beginner: it evaluates nothing, so any budget is enough.
pub const BEGINNER_WORK: u64 = 1_000;
/// Work for Normal: enough to evaluate every action of any position (at most 50 flips of up to
/// 24 kinds of piece, plus moves), so its choice never depends on the budget.
pub const NORMAL_WORK: u64 = 4_000;
/// Work for Expert: positions evaluated over all samples, sized for well under a second.
pub const EXPERT_WORK: u64 = 60_000;
/// Work for the J19 autoplay (the Normal bot): fixed, so a timeout's action is reproducible.
pub const AUTOPLAY_WORK: u64 = NORMAL_WORK;

/// Expert searches this many of Normal's best actions.
const EXPERT_CANDIDATES: usize = 12;

/// Expert's model of an opponent flip: the average over this many random face-down points.
const OPPONENT_FLIPS: usize = 3;

/// A won or lost game, far above any material count.
const WIN: i32 = 1_000_000;

/// Material by rank (J1 order). The Flag is worth nothing as material: capturing it ends the
/// game (J15), which the search sees as a win. A Bomb is worth a strong piece (it removes
/// whatever it meets, J13); Engineers are worth more than their rank for clearing Mines (J14)
/// and turning on the railway (J9).
const VALUE: [i32; 12] = [90, 70, 50, 38, 28, 20, 14, 10, 16, 12, 40, 0];

/// The most material lead that the J17 draw threatens in the evaluation.
const QUIET_STAKE: i32 = 120;

/// Hunters are drawn toward prey up to this many steps away: the whole board, so a lone
/// hunter far from everything still finds its way.
const HUNT_RANGE: u8 = 16;

/// The material of one colour's 25 pieces (J1) by [`VALUE`].
const ARMY_VALUE: i32 = army_value();

const fn army_value() -> i32 {
    let mut total = 0;
    let mut i = 0;
    while i < 12 {
        total += VALUE[i] * Rank::ALL[i].count() as i32;
        i += 1;
    }
    total
}

/// A gain worth taking at once: capturing an open Flag wins (J15).
const FLAG_GAIN: i32 = 5_000;

/// Road and railway steps between points (J4, J5), ignoring what stands on them: how far a
/// hunter is from its prey.
const DIST: [[u8; POINTS]; POINTS] = distances();

const fn distances() -> [[u8; POINTS]; POINTS] {
    let mut d = [[u8::MAX; POINTS]; POINTS];
    let mut s = 0;
    while s < POINTS {
        d[s][s] = 0;
        let mut frontier: u64 = 1 << s;
        let mut seen = frontier;
        let mut k = 0u8;
        while frontier != 0 {
            k += 1;
            let mut next = 0u64;
            let mut i = 0;
            while i < POINTS {
                if frontier & (1 << i) != 0 {
                    next |= ROAD[i] | RAIL[i];
                }
                i += 1;
            }
            next &= !seen;
            seen |= next;
            let mut j = 0;
            while j < POINTS {
                if next & (1 << j) != 0 {
                    d[s][j] = k;
                }
                j += 1;
            }
            frontier = next;
        }
        s += 1;
    }
    d
}

impl Bot for Junqi {
    /// Builds `seat`'s view and decides from it alone (J22): see [`decide`].
    fn decide(&self, seat: Seat, think: Think<'_>) -> Option<Action> {
        decide(
            &self.view(Viewer::Seat(seat)),
            think.level,
            think.budget,
            think.rng,
        )
    }

    fn default_work(level: Level) -> u64 {
        match level {
            Level::Easy => BEGINNER_WORK,
            Level::Normal => NORMAL_WORK,
            Level::Hard => EXPERT_WORK,
        }
    }
}

/// The action the viewing seat takes at `level`, from its view alone: `None` for a spectator's
/// view, when it is not the viewer's turn, or once the game is over. Always a legal action
/// otherwise, whatever the budget.
pub fn decide(
    view: &JunqiView,
    level: Level,
    budget: &Budget<'_>,
    rng: &mut dyn RandomSource,
) -> Option<Action> {
    let seat = view.viewer?;
    if view.outcome.is_some() || view.to_move != Some(seat) {
        return None;
    }
    let game = Junqi::determinise(view, rng)?;
    let actions = game.legal_actions(seat);
    if actions.len() <= 1 {
        return actions.first().copied();
    }
    // J8: before colours are settled every action is a flip and nobody knows whose piece
    // is whose, so there is nothing to weigh: any flip is as good as another.
    let Some(me) = view.viewer_colour else {
        return pick(&actions, rng);
    };
    let judge = Judge {
        me,
        seat,
        technique: level == Level::Hard,
    };
    match level {
        Level::Easy => beginner(&game, &judge, &actions, rng),
        Level::Normal => {
            let mut work = 0;
            let scored = judge.one_ply(&game, view, &actions, budget, &mut work, rng);
            best(&scored, rng).or_else(|| actions.first().copied())
        }
        Level::Hard => expert(&game, &judge, view, &actions, budget, rng),
    }
}

/// A uniformly random element.
fn pick<T: Copy>(items: &[T], rng: &mut dyn RandomSource) -> Option<T> {
    if items.is_empty() {
        return None;
    }
    let i = rng.below(items.len() as u32) as usize;
    items.get(i).or(items.first()).copied()
}

/// The best-scored action, ties broken with `rng` so equal actions are not always the first.
fn best(scored: &[(Action, f64)], rng: &mut dyn RandomSource) -> Option<Action> {
    let top = scored
        .iter()
        .map(|&(_, s)| s)
        .fold(f64::NEG_INFINITY, f64::max);
    let ties: Vec<Action> = scored
        .iter()
        .filter(|&&(_, s)| s >= top - 1e-6)
        .map(|&(a, _)| a)
        .collect();
    pick(&ties, rng)
}

/// Beginner: a capture its piece survives three times in four when one is there, otherwise
/// mostly flips, sometimes any action.
fn beginner(
    game: &Junqi,
    judge: &Judge,
    actions: &[Action],
    rng: &mut dyn RandomSource,
) -> Option<Action> {
    let captures: Vec<Action> = actions
        .iter()
        .copied()
        .filter(|&a| judge.capture(game, a) == Some(CombatResult::AttackerWins))
        .collect();
    if !captures.is_empty() && rng.below(4) != 0 {
        return pick(&captures, rng);
    }
    let flips: Vec<Action> = actions
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Flip(_)))
        .collect();
    if !flips.is_empty() && rng.below(3) != 0 {
        return pick(&flips, rng);
    }
    pick(actions, rng)
}

/// Expert: Normal's best candidates, each searched three plies deep (its action, the
/// opponent's reply, its answer) on determinised samples, and averaged over the samples.
/// Falls back to Normal's choice if no sample fits the budget.
fn expert(
    game: &Junqi,
    judge: &Judge,
    view: &JunqiView,
    actions: &[Action],
    budget: &Budget<'_>,
    rng: &mut dyn RandomSource,
) -> Option<Action> {
    let mut work = 0;
    let mut prior = judge.one_ply(game, view, actions, budget, &mut work, rng);
    if prior.is_empty() {
        return actions.first().copied();
    }
    prior.sort_by(|a, b| b.1.total_cmp(&a.1));
    prior.truncate(EXPERT_CANDIDATES);
    if prior.len() == 1 {
        return prior.first().map(|&(a, _)| a);
    }
    // Stratified chance for the candidate flips: sample k reveals the k-th piece of one
    // shuffled J21 pool, so after as many samples as there are hidden pieces every kind has
    // turned up exactly as often as its count says (far less noise than a fresh draw each time).
    let strata = hidden_pool(view, rng);
    let mut sums = vec![0.0f64; prior.len()];
    let mut samples = 0u32;
    while work < budget.work && !budget.expired() {
        let Some(sample) = Junqi::determinise(view, rng) else {
            break;
        };
        let reveal = strata.get(samples as usize % strata.len().max(1)).copied();
        let mut values = Vec::with_capacity(prior.len());
        for &(a, _) in &prior {
            let start = match (a, reveal) {
                (Action::Flip(p), Some(piece)) => {
                    with_piece(&sample, p, piece).unwrap_or_else(|| sample.clone())
                }
                _ => sample.clone(),
            };
            values.push(judge.three_ply(&start, a, &mut work, rng));
            if budget.expired() {
                break;
            }
        }
        // A sample cut short would bias the averages: drop it.
        if values.len() < prior.len() {
            break;
        }
        for (s, v) in sums.iter_mut().zip(values) {
            *s += f64::from(v);
        }
        samples += 1;
    }
    if samples == 0 {
        return prior.first().map(|&(a, _)| a);
    }
    let scored: Vec<(Action, f64)> = prior
        .iter()
        .zip(&sums)
        .map(|(&(a, _), &s)| (a, s / f64::from(samples)))
        .collect();
    best(&scored, rng)
}

/// Every piece still face down (J21), shuffled with `rng`.
fn hidden_pool(view: &JunqiView, rng: &mut dyn RandomSource) -> Vec<Piece> {
    let mut pool: Vec<Piece> = Vec::with_capacity(50);
    for c in Colour::ALL {
        for r in Rank::ALL {
            let n = view.statistics.face_down[c.index()][r.index()];
            pool.extend(std::iter::repeat_n(Piece::new(c, r), n as usize));
        }
    }
    for i in (1..pool.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize % (i + 1);
        pool.swap(i, j);
    }
    pool
}

impl Junqi {
    /// A full position consistent with `view`: the public points as they are, and on every
    /// face-down point a piece drawn from the J21 pool of what is still face down, shuffled with
    /// `rng`. This is the only way a bot gets a position to run the rules on, so what it
    /// "knows" of a hidden piece is a guess with the right odds, never the layout. `None` for a
    /// finished game or a view that is not 60 points.
    pub(crate) fn determinise(view: &JunqiView, rng: &mut dyn RandomSource) -> Option<Junqi> {
        if view.points.len() != POINTS || view.outcome.is_some() {
            return None;
        }
        let to_move = view.to_move.filter(|&s| s < 2)?;
        let pool = hidden_pool(view, rng);
        // A consistent view has exactly one pool piece per face-down point; a filler keeps a
        // malformed one playable (the legal actions depend only on public facts anyway).
        let mut pool = pool.into_iter();
        let mut cells = [None; POINTS];
        for (cell, point) in cells.iter_mut().zip(&view.points) {
            *cell = match *point {
                PointView::Empty => None,
                PointView::FaceUp(piece) => Some(Cell {
                    piece,
                    face_up: true,
                }),
                PointView::FaceDown => Some(Cell {
                    piece: pool
                        .next()
                        .unwrap_or(Piece::new(Colour::Red, Rank::Platoon)),
                    face_up: false,
                }),
            };
        }
        Some(Junqi {
            board: Board(cells),
            to_move,
            seat0_colour: view.seat_colours[0],
            last_flips: view.last_flips,
            removed: view.statistics.removed,
            quiet: view.quiet_actions,
            autoplay: view.autoplay,
            ply: view.ply,
            last: view.last_action,
            outcome: None,
        })
    }
}

/// The piece's colour and rank on `p`, if face up.
fn face_up(g: &Junqi, p: Point) -> Option<Piece> {
    g.board.0[p.index()].filter(|c| c.face_up).map(|c| c.piece)
}

/// What `action` gains if it is an attack (for move ordering); 0 otherwise.
fn capture_gain(g: &Junqi, action: Action) -> i32 {
    let Action::Move { from, to } = action else {
        return 0;
    };
    match (face_up(g, from), face_up(g, to)) {
        (Some(m), Some(t)) => gain(m.rank, t.rank, g.flag_open(t.colour)).unwrap_or(0),
        _ => 0,
    }
}

/// What `mover` gains by attacking `target` (J12-J15), if the attack is allowed.
fn gain(mover: Rank, target: Rank, flag_open: bool) -> Option<i32> {
    match combat(mover, target, flag_open).ok()? {
        _ if target == Rank::Flag => Some(FLAG_GAIN),
        CombatResult::AttackerWins => Some(VALUE[target.index()]),
        CombatResult::BothRemoved => Some(VALUE[target.index()] - VALUE[mover.index()]),
    }
}

/// Evaluates positions for one side: `me` plays in `seat`.
struct Judge {
    me: Colour,
    seat: Seat,
    /// Expert's endgame technique: hunting and trading down when ahead. Normal weighs the
    /// material, the threats and the flips only, so it drifts once the board is face up.
    technique: bool,
}

impl Judge {
    /// The combat result if `action` attacks a face-up enemy piece.
    fn capture(&self, g: &Junqi, action: Action) -> Option<CombatResult> {
        let Action::Move { from, to } = action else {
            return None;
        };
        let mover = face_up(g, from)?;
        let target = face_up(g, to)?;
        combat(mover.rank, target.rank, g.flag_open(target.colour)).ok()
    }

    /// Normal's scores: every action applied once; a flip scored as the average over every
    /// kind of piece still face down, weighted by its J21 count. Moves first (they are
    /// cheap), so a small budget still weighs the captures.
    fn one_ply(
        &self,
        g: &Junqi,
        view: &JunqiView,
        actions: &[Action],
        budget: &Budget<'_>,
        work: &mut u64,
        rng: &mut dyn RandomSource,
    ) -> Vec<(Action, f64)> {
        let counts = &view.statistics.face_down;
        let total: u32 = counts.iter().flatten().map(|&n| u32::from(n)).sum();
        let mut ordered: Vec<Action> = actions
            .iter()
            .copied()
            .filter(|a| matches!(a, Action::Move { .. }))
            .collect();
        ordered.extend(actions.iter().filter(|a| matches!(a, Action::Flip(_))));
        let mut out = Vec::with_capacity(ordered.len());
        for a in ordered {
            if !out.is_empty() && (*work >= budget.work || budget.expired()) {
                break;
            }
            let score = match a {
                Action::Move { .. } => {
                    *work += 1;
                    match after(g, self.seat, a, rng) {
                        Some(next) => f64::from(self.eval(&next)),
                        None => continue,
                    }
                }
                Action::Flip(p) => {
                    let mut sum = 0.0;
                    for c in Colour::ALL {
                        for r in Rank::ALL {
                            let n = counts[c.index()][r.index()];
                            if n == 0 || total == 0 {
                                continue;
                            }
                            *work += 1;
                            let Some(next) = flip_as(g, self.seat, p, Piece::new(c, r), rng) else {
                                continue;
                            };
                            sum += f64::from(self.eval(&next)) * f64::from(n) / f64::from(total);
                        }
                    }
                    sum
                }
            };
            out.push((a, score));
        }
        out
    }

    /// The value of `action` in a determinised sample, three plies deep: the opponent's best
    /// reply, then our best answer, then the static value. A flip after the first ply is a
    /// chance event, not a choice made knowing the sample: the opponent's flips count as the
    /// average over a few random face-down points (seeing through the sample would credit it
    /// with knowing the layout), and ours as the position handed back unchanged.
    fn three_ply(
        &self,
        g: &Junqi,
        action: Action,
        work: &mut u64,
        rng: &mut dyn RandomSource,
    ) -> i32 {
        *work += 1;
        let Some(next) = after(g, self.seat, action, rng) else {
            return -WIN;
        };
        if next.outcome.is_some() {
            return self.eval(&next);
        }
        let opp = 1 - self.seat;
        let mut worst = i32::MAX;
        let hidden: Vec<Point> = Point::all()
            .filter(|q| matches!(next.board.0[q.index()], Some(c) if !c.face_up))
            .collect();
        if !hidden.is_empty() {
            let mut sum = 0i64;
            let mut n = 0i64;
            for _ in 0..OPPONENT_FLIPS.min(hidden.len()) {
                let Some(q) = pick(&hidden, rng) else { break };
                *work += 1;
                if let Some(flipped) = after(&next, opp, Action::Flip(q), rng) {
                    sum += i64::from(self.answer(&flipped, i32::MAX, work, rng));
                    n += 1;
                }
            }
            if n > 0 {
                worst = i32::try_from(sum / n).unwrap_or(0);
            }
        }
        let mut replies: Vec<(i32, Action)> = next
            .legal_actions(opp)
            .into_iter()
            .filter(|a| matches!(a, Action::Move { .. }))
            .map(|a| (capture_gain(&next, a), a))
            .collect();
        // Captures first: the opponent's strongest replies tighten the cut soonest.
        replies.sort_by_key(|r| std::cmp::Reverse(r.0));
        for (_, reply) in replies {
            *work += 1;
            if let Some(answered) = after(&next, opp, reply, rng) {
                worst = worst.min(self.answer(&answered, worst, work, rng));
            }
        }
        if worst == i32::MAX {
            self.eval(&next)
        } else {
            worst
        }
    }

    /// Our best answer in `g` (our turn): a move, or a flip elsewhere scored as the position
    /// with the opponent to move. Stops as soon as it reaches `cut`, since the opponent
    /// already has a reply that holds us to less (alpha-beta).
    fn answer(&self, g: &Junqi, cut: i32, work: &mut u64, rng: &mut dyn RandomSource) -> i32 {
        if g.outcome.is_some() {
            return self.eval(g);
        }
        let mut best = i32::MIN;
        if g.face_down_count() > 0 {
            let mut passed = g.clone();
            passed.to_move = 1 - self.seat;
            *work += 1;
            best = self.eval(&passed);
            if best >= cut {
                return best;
            }
        }
        let mut moves: Vec<(i32, Action)> = g
            .legal_actions(self.seat)
            .into_iter()
            .filter(|a| matches!(a, Action::Move { .. }))
            .map(|a| (capture_gain(g, a), a))
            .collect();
        moves.sort_by_key(|m| std::cmp::Reverse(m.0));
        for (_, a) in moves {
            *work += 1;
            if let Some(next) = after(g, self.seat, a, rng) {
                best = best.max(self.eval(&next));
                if best >= cut {
                    return best;
                }
            }
        }
        if best == i32::MIN { self.eval(g) } else { best }
    }

    /// The static value of a position for `me`: material from the J21 removed counts, the
    /// best capture each side has (the side to move will take it, the other only threatens),
    /// face-up pieces' activity, and how close hunters stand to pieces they can take.
    fn eval(&self, g: &Junqi) -> i32 {
        let me = self.me;
        let opp = me.other();
        if let Some(o) = &g.outcome {
            // A sooner win is better and a later loss less bad: without this, a win now and
            // a win in three plies tie, and the bot can keep postponing a won capture.
            let plies = i32::try_from(g.ply).unwrap_or(i32::MAX).min(WIN / 2);
            return match &o.result {
                GameResult::Win { winners } if winners.contains(&self.seat) => WIN - plies,
                GameResult::Win { .. } => plies - WIN,
                _ => 0,
            };
        }
        let mut score = 0;
        for r in Rank::ALL {
            let i = r.index();
            score += VALUE[i]
                * (i32::from(g.removed[opp.index()][i]) - i32::from(g.removed[me.index()][i]));
        }
        let lead = score;
        // J17: the side ahead loses its edge to the draw as quiet actions pile up, so it
        // values a flip or a combat (which reset the count) more the longer the quiet lasts;
        // the side behind welcomes the draw.
        let ahead = score.clamp(-QUIET_STAKE, QUIET_STAKE);
        score -= ahead * i32::from(g.quiet) / i32::from(crate::DRAW_LIMIT);
        // Face-up pieces of both colours, for threats and hunting.
        let mut pieces: [Vec<(Point, Rank)>; 2] = [Vec::with_capacity(25), Vec::with_capacity(25)];
        for p in Point::all() {
            if let Some(piece) = face_up(g, p) {
                pieces[piece.colour.index()].push((p, piece.rank));
            }
        }
        // A face-up movable piece can act; a face-down one cannot yet.
        for (colour, sign) in [(me, 1), (opp, -1)] {
            for &(_, r) in &pieces[colour.index()] {
                if r.is_movable() {
                    score += sign * VALUE[r.index()] / 10;
                }
            }
        }
        let occ = g.occupied();
        let my_gain = self.best_capture(g, &pieces, me, occ);
        let their_gain = self.best_capture(g, &pieces, opp, occ);
        let my_turn = g.colour_of(g.to_move) == Some(me);
        score += if my_turn {
            my_gain * 7 / 10 - their_gain / 5
        } else {
            my_gain / 5 - their_gain * 9 / 10
        };
        if !self.technique {
            return score;
        }
        score += hunting(g, &pieces, me, lead > 0) - hunting(g, &pieces, opp, lead < 0);
        // Trading down favours the side ahead: the same lead counts for more on an emptier
        // board, and a J16 win (no movable piece left) comes closer.
        let gone: i32 = (0..2)
            .flat_map(|c| (0..12).map(move |r| (c, r)))
            .map(|(c, r)| VALUE[r] * i32::from(g.removed[c][r]))
            .sum();
        score += lead * gone / (2 * ARMY_VALUE) / 2;
        score
    }

    /// The most `side` can gain with one attack (J11-J15), counting what it may lose.
    fn best_capture(
        &self,
        g: &Junqi,
        pieces: &[Vec<(Point, Rank)>; 2],
        side: Colour,
        occ: u64,
    ) -> i32 {
        let enemy = side.other();
        let mut targets = 0u64;
        for &(p, _) in &pieces[enemy.index()] {
            // J11: a piece in a camp cannot be attacked.
            if !p.is_camp() {
                targets |= 1u64 << p.index();
            }
        }
        if targets == 0 {
            return 0;
        }
        let open = g.flag_open(enemy);
        let mut best = 0;
        for &(from, rank) in &pieces[side.index()] {
            if !rank.is_movable() {
                continue;
            }
            for to in points_of(g.reach(from, rank, occ) & targets) {
                if let Some(t) = face_up(g, to)
                    && let Some(v) = gain(rank, t.rank, open)
                {
                    best = best.max(v);
                }
            }
        }
        best
    }
}

/// How well `side`'s hunters are placed: for each enemy face-up piece outside a camp, the
/// nearest of `side`'s pieces that would take it, closer being better. It pulls pieces toward
/// what they can take once the board is mostly face up, so a won position is pressed instead of
/// drifting into the J17 draw.
fn hunting(g: &Junqi, pieces: &[Vec<(Point, Rank)>; 2], side: Colour, ahead: bool) -> i32 {
    let enemy = side.other();
    let open = g.flag_open(enemy);
    let mut total = 0;
    for &(q, prey) in &pieces[enemy.index()] {
        if q.is_camp() {
            continue;
        }
        // Mines guard the Flag (J15): clearing them is how a won game ends.
        let worth = match prey {
            Rank::Flag => 200,
            Rank::Mine => 30,
            _ => VALUE[prey.index()],
        };
        let mut best = 0;
        for &(p, hunter) in &pieces[side.index()] {
            let d = DIST[p.index()][q.index()];
            if d >= HUNT_RANGE {
                continue;
            }
            // What this hunter makes of the meeting: a capture is worth the prey; a trade
            // (equal ranks, or a Bomb on something bigger, J12-J13) is worth what it gains,
            // and an even trade is worth something only to the side ahead, whose lead grows
            // as the board empties.
            let w = match combat(hunter, prey, open) {
                Ok(CombatResult::AttackerWins) => worth,
                Ok(CombatResult::BothRemoved) if hunter == Rank::Bomb => {
                    (worth - VALUE[Rank::Bomb.index()]).max(0)
                }
                Ok(CombatResult::BothRemoved) if ahead => worth / 4,
                _ => 0,
            };
            best = best.max(w * i32::from(HUNT_RANGE - d));
        }
        total += best / 60;
    }
    total
}

/// `g` after `seat` plays `action`, if legal.
fn after(g: &Junqi, seat: Seat, action: Action, rng: &mut dyn RandomSource) -> Option<Junqi> {
    g.clone().apply(seat, &action, rng).ok()
}

/// `g` after `seat` flips `p` and finds `piece` there.
fn flip_as(
    g: &Junqi,
    seat: Seat,
    p: Point,
    piece: Piece,
    rng: &mut dyn RandomSource,
) -> Option<Junqi> {
    after(&with_piece(g, p, piece)?, seat, Action::Flip(p), rng)
}

/// `g` with `piece` face down on `p`, swapped in from another face-down point that holds one,
/// so the sample stays consistent with the J21 counts. `None` if `p` is not face down or no
/// such piece is hidden.
fn with_piece(g: &Junqi, p: Point, piece: Piece) -> Option<Junqi> {
    let mut g = g.clone();
    let here = g.board.0[p.index()].filter(|c| !c.face_up)?;
    if here.piece != piece {
        let there = Point::all()
            .find(|q| matches!(g.board.0[q.index()], Some(c) if !c.face_up && c.piece == piece))?;
        g.board.0[there.index()] = Some(here);
        g.board.0[p.index()] = Some(Cell {
            piece,
            face_up: false,
        });
    }
    Some(g)
}
