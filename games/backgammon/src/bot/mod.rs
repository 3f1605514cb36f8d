//! The computer players (ARCHITECTURE.md, "Computer players"): checker play and cube decisions (B8-B19) in money and
//! match play (B22), at three levels, behind [`ludus_rules::Bot`] for [`Backgammon`] and for
//! the hosted [`crate::BackgammonSession`].
//!
//! - **Easy**: 0-ply on [`rough::score`] plus noise from the random source; cube by flat
//!   thresholds on the evaluation's winning chance.
//! - **Normal**: 0-ply on [`eval::evaluate`] (the legal play whose position is worth most;
//!   money: points; match: the chance to win the match, [`cube::Scoring`]), then the best
//!   six looked at 1-ply (the opponent's best answer to each of the 21 rolls, averaged).
//!   Cube decisions from 2-ply chances, as Hard's (a cube decision comes once a turn and
//!   costs some 10 ms there; gnubg graded the cube 43.8 mEMG per decision from 1-ply
//!   chances, 28.7 from 2-ply, 4.7 once they came from the trained network and the cube
//!   model kept the live cube past the cash point, [`cube`]). Its plays stay on the
//!   hand-made terms (gnubg: 17.9 mEMG per move, inside the level's goal of 20; on the
//!   network 8.2, so close to Hard that Hard won only 53.7 % of 300 money games against it).
//!   The B20 timeout bot.
//! - **Hard**: the best 0-ply candidates (on [`eval::evaluate_net`]) looked at 1-ply (the
//!   opponent's best answer to each of the 21 rolls, averaged), then the best few at 2-ply
//!   (our best answer to each of our 21 rolls after theirs) while the work budget lasts and
//!   `budget.expired()` stays false; cube decisions from 2-ply chances, as Normal's.
//!
//! Normal's and Hard's cube decisions, and Hard's plays, read contact positions with the
//! trained network ([`net`], issue 28: gnubg graded the hand-made terms' cube 28.7 mEMG per
//! decision, the network's 10.5, and 4.7 with the live cube past the cash point); races with the bear-off database and the race formula
//! ([`eval`]).
//!
//! Every action comes from the rules' own generation ([`crate::play::legal_plays`],
//! [`Game::legal_actions`]), so the bot never needs rules of its own.

pub mod bearoff;
pub mod cube;
pub mod eval;
pub mod net;
pub mod rough;

use ludus_rules::{Bot, Budget, Game, Level, RandomSource, Seat, Think};

use self::cube::{Answer, CubeState, Scoring};
use self::eval::{Probs, evaluate, evaluate_net};
use crate::action::Action;
use crate::board::Board;
use crate::game::{Backgammon, Phase};
use crate::play::{Dice, Play, legal_plays};
use crate::session::BackgammonSession;

/// Hard looks at this many of the best 0-ply plays at 1-ply, then at this many of the best
/// 1-ply plays at 2-ply.
const HARD_STAGES: [(u32, usize); 2] = [(1, 10), (2, 5)];
/// Normal looks at this many of the best 0-ply plays at 1-ply: a few thousand evaluations,
/// a few milliseconds, and most of the 0-ply evaluation's blunders caught (judged by gnubg).
const NORMAL_STAGES: [(u32, usize); 1] = [(1, 6)];
// Each level's work budget, in static evaluations; generating a roll's plays counts
// GENERATION_WORK of them.
const EASY_WORK: u64 = 100_000;
const NORMAL_WORK: u64 = 100_000;
const HARD_WORK: u64 = 400_000;
const GENERATION_WORK: u64 = 10;
/// Easy's noise: uniform in ±this many units of [`rough::score`] (about a pip each).
const EASY_NOISE: u32 = 24;

/// The 21 distinct rolls and how many of the 36 each stands for.
fn rolls() -> impl Iterator<Item = (Dice, f64)> {
    (1..=6u8).flat_map(|a| (a..=6u8).map(move |b| ([a, b], if a == b { 1.0 } else { 2.0 })))
}

/// One decision's search: whose eyes, how results are scored, and the work spent.
struct Search<'a, 'b> {
    me: Seat,
    scoring: Scoring,
    cube: u64,
    budget: &'a Budget<'b>,
    work: u64,
    /// Whether static looks read contact positions with the trained network
    /// ([`evaluate_net`]: as cheap as the hand-made terms and nearer gnubg) rather than the
    /// hand-made terms ([`evaluate`]).
    net: bool,
}

impl Search<'_, '_> {
    /// `net`: whether contact positions are read by the trained network (see the field).
    fn new<'a, 'b>(
        game: &Backgammon,
        me: Seat,
        budget: &'a Budget<'b>,
        net: bool,
    ) -> Search<'a, 'b> {
        Search {
            me,
            scoring: scoring(game, me),
            cube: game.cube_value(),
            budget,
            work: 0,
            net,
        }
    }

    fn out_of_work(&self) -> bool {
        self.work >= self.budget.work || self.budget.expired()
    }

    /// What `p` (the bot's chances) is worth to the bot.
    fn value(&self, p: &Probs) -> f64 {
        self.scoring.value(p, self.cube)
    }

    /// The bot's chances once `mover` has just moved into `board`.
    fn stat(&mut self, board: &Board, mover: Seat) -> Probs {
        self.work += 1;
        let p = if self.net {
            evaluate_net(board, mover)
        } else {
            evaluate(board, mover)
        };
        if mover == self.me { p } else { p.flip() }
    }

    /// The index of `mover`'s best play by 0-ply, and the bot's chances after it.
    fn best_static(&mut self, plays: &[(Play, Board)], mover: Seat) -> (usize, Probs) {
        let mut best = (0, Probs::default());
        let mut best_value = f64::NEG_INFINITY;
        for (i, (_, b)) in plays.iter().enumerate() {
            let p = self.stat(b, mover);
            let v = self.value(&p);
            // The opponent minimises the bot's worth.
            let v = if mover == self.me { v } else { -v };
            if v > best_value {
                best_value = v;
                best = (i, p);
            }
        }
        best
    }

    /// The bot's chances with `to_roll` about to roll on `board`, looking `depth` rolls
    /// ahead (each side choosing its plays by 0-ply). `None` when the budget ran out.
    fn ahead(&mut self, board: &Board, to_roll: Seat, depth: u32) -> Option<Probs> {
        if board.winner().is_some() || depth == 0 {
            return Some(self.stat(board, to_roll ^ 1));
        }
        let mut sum = Probs::default();
        for (dice, weight) in rolls() {
            if self.out_of_work() {
                return None;
            }
            self.work += GENERATION_WORK;
            let plays = legal_plays(board, to_roll, dice).plays;
            let (i, p) = self.best_static(&plays, to_roll);
            let p = if depth == 1 {
                p
            } else {
                let next = plays.get(i).map_or(*board, |(_, b)| *b);
                self.ahead(&next, to_roll ^ 1, depth - 1)?
            };
            sum.add_scaled(&p, weight / 36.0);
        }
        Some(sum)
    }
}

/// How `seat`'s results are scored in `game` now (B19: gammons count under the Jacoby rule
/// only once the cube is turned; a cube has an owner exactly when a double was taken).
fn scoring(game: &Backgammon, seat: Seat) -> Scoring {
    let o = game.options();
    let gammons = !(o.jacoby && o.is_money() && game.cube_owner().is_none());
    Scoring::new(o.match_game, seat, gammons)
}

fn cube_state(game: &Backgammon, seat: Seat) -> CubeState {
    match game.cube_owner() {
        None => CubeState::Centre,
        Some(o) if o == seat => CubeState::Own,
        Some(_) => CubeState::Theirs,
    }
}

/// The play the bot picks among `plays` (each with the position it reaches) for `game`'s
/// player on roll.
fn choose_play(
    game: &Backgammon,
    plays: &[(Play, Board)],
    level: Level,
    budget: &Budget<'_>,
    rng: &mut dyn RandomSource,
) -> usize {
    let me = game.turn();
    if plays.len() <= 1 {
        return 0;
    }
    match level {
        Level::Easy => {
            let mut best = 0;
            let mut best_score = i64::MIN;
            for (i, (_, b)) in plays.iter().enumerate() {
                let noise = i64::from(rng.below(2 * EASY_NOISE + 1)) - i64::from(EASY_NOISE);
                let s = rough::score(b, me) + noise;
                if s > best_score {
                    best_score = s;
                    best = i;
                }
            }
            best
        }
        Level::Normal => look_ahead_play(game, plays, budget, &NORMAL_STAGES, false),
        Level::Hard => look_ahead_play(game, plays, budget, &HARD_STAGES, true),
    }
}

/// 0-ply over every play, then each stage `(depth, keep)` looks `depth` rolls ahead at the
/// best `keep` of the previous ranking; the deepest finished ranking decides. `net`: contact
/// positions read by the trained network (Hard) or the hand-made terms (Normal).
fn look_ahead_play(
    game: &Backgammon,
    plays: &[(Play, Board)],
    budget: &Budget<'_>,
    stages: &[(u32, usize)],
    net: bool,
) -> usize {
    let me = game.turn();
    let mut search = Search::new(game, me, budget, net);
    let mut ranked: Vec<(usize, f64)> = plays
        .iter()
        .enumerate()
        .map(|(i, (_, b))| {
            let p = search.stat(b, me);
            (i, search.value(&p))
        })
        .collect();
    sort_best_first(&mut ranked);
    for &(depth, keep) in stages {
        ranked.truncate(keep);
        if ranked.len() <= 1 {
            break;
        }
        let mut deeper = Vec::with_capacity(ranked.len());
        for &(i, _) in &ranked {
            let Some((_, b)) = plays.get(i) else { continue };
            match search.ahead(b, me ^ 1, depth) {
                Some(p) => deeper.push((i, search.value(&p))),
                None => break,
            }
        }
        // A ranking cut short compares only the plays it finished; the first of them is the
        // previous level's best, so it can only improve on it.
        if deeper.is_empty() {
            break;
        }
        let finished = deeper.len() == ranked.len();
        sort_best_first(&mut deeper);
        ranked = deeper;
        if !finished {
            break;
        }
    }
    ranked.first().map_or(0, |&(i, _)| i)
}

fn sort_best_first(v: &mut [(usize, f64)]) {
    // Stable: equal values keep generation order, so the choice is deterministic.
    v.sort_by(|a, b| b.1.total_cmp(&a.1));
}

/// The bot's chances with `to_roll` about to roll, as deep as the level looks.
fn chances(game: &Backgammon, me: Seat, to_roll: Seat, level: Level, budget: &Budget) -> Probs {
    // The cube decisions turn these chances into take and cash points, where the hand-made
    // contact terms' error cost most (judged by gnubg): Normal and Hard read the network;
    // Easy's flat thresholds stay on the hand-made chances they were set for.
    let mut search = Search::new(game, me, budget, level != Level::Easy);
    let depth = match level {
        Level::Easy => 0,
        Level::Normal | Level::Hard => 2,
    };
    search
        .ahead(game.board(), to_roll, depth)
        // Out of budget: a static look costs nothing and is always there.
        .unwrap_or_else(|| search.stat(game.board(), to_roll ^ 1))
}

/// The B20 timeout play: the Normal level's choice for `game`'s player on roll.
pub fn timeout_play(game: &Backgammon, plays: &[(Play, Board)]) -> usize {
    let mut no_noise = ludus_rules::ScriptedRandom::new([0]);
    choose_play(
        game,
        plays,
        Level::Normal,
        &Budget::work(u64::MAX),
        &mut no_noise,
    )
}

/// Easy's cube: double with 72 % of the games, take with 25 %.
const EASY_DOUBLE_AT: f64 = 0.72;
const EASY_TAKE_AT: f64 = 0.25;

impl Bot for Backgammon {
    fn decide(&self, seat: Seat, Think { level, budget, rng }: Think<'_>) -> Option<Action> {
        let action = match self.phase() {
            Phase::Over => return None,
            Phase::Roll => {
                let double = self.can_double() && {
                    let p = chances(self, seat, seat, level, budget);
                    match level {
                        Level::Easy => p.win >= EASY_DOUBLE_AT,
                        _ => cube::should_double(
                            &p,
                            scoring(self, seat),
                            self.cube_value(),
                            cube_state(self, seat),
                        ),
                    }
                };
                if double { Action::Double } else { Action::Roll }
            }
            Phase::Play { dice } => {
                let plays = legal_plays(self.board(), seat, dice).plays;
                let i = choose_play(self, &plays, level, budget, rng);
                let play = plays.into_iter().nth(i).map(|(p, _)| p).unwrap_or_default();
                return Some(Action::Play(play));
            }
            Phase::Doubled { beavered, .. } => {
                let p = chances(self, seat, self.turn(), level, budget);
                let legal = self.legal_actions(seat);
                let answer = match level {
                    Level::Easy if p.win >= EASY_TAKE_AT => Answer::Take,
                    Level::Easy => Answer::Drop,
                    _ => {
                        // The stake on offer: the cube before the double, or after the
                        // beaverer's redouble the cube already doubled once.
                        let scoring = scoring_after_double(self, seat);
                        cube::answer(
                            &p,
                            scoring,
                            self.cube_value(),
                            beavered,
                            legal.contains(&Action::Beaver),
                        )
                    }
                };
                match answer {
                    Answer::Take => Action::Take,
                    Answer::Drop => Action::Drop,
                    Answer::Beaver => Action::Beaver,
                }
            }
            Phase::ResignOffered { level: offered, .. } => {
                let p = chances(self, seat, self.turn(), Level::Easy, budget);
                let scoring = scoring(self, seat);
                let offered_value = scoring.values(self.cube_value())
                    [usize::from(offered.multiplier().clamp(1, 3)) - 1];
                if offered_value >= scoring.value(&p, self.cube_value()) {
                    Action::AcceptResignation
                } else {
                    Action::RejectResignation
                }
            }
        };
        // The rules have the last word: anything they would refuse becomes their first
        // legal action (roll, take, reject), which is always there in these phases.
        let legal = self.legal_actions(seat);
        if legal.contains(&action) {
            Some(action)
        } else {
            legal.into_iter().next()
        }
    }

    fn default_work(level: Level) -> u64 {
        match level {
            Level::Easy => EASY_WORK,
            Level::Normal => NORMAL_WORK,
            Level::Hard => HARD_WORK,
        }
    }
}

/// Gammons always count once a double is taken (B19), so the answer to a double scores as
/// a turned cube.
fn scoring_after_double(game: &Backgammon, seat: Seat) -> Scoring {
    Scoring::new(game.options().match_game, seat, true)
}

impl Bot for BackgammonSession {
    /// The game being played carries the match score and the Crawford flag (B22); while the
    /// match goes on, `seat` to move in the session is `seat` to move in that game.
    fn decide(&self, seat: Seat, think: Think<'_>) -> Option<Action> {
        self.game().decide(seat, think)
    }

    fn default_work(level: Level) -> u64 {
        Backgammon::default_work(level)
    }
}
