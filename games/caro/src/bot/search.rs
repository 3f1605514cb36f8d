//! Threat search (C17 Hard): victory by continuous fours (VCF) and a threat-space search
//! with fours and open threes (VCT).
//!
//! The attacker only plays threats, so the defender's answers are few: a four has one answer
//! (its winning cell), an open three has the cells that stop it becoming an open four, plus
//! any four of the defender's own. A line is proved when every answer still loses. Wins are
//! always re-checked on the real board with the crate's C6 table, so the search is right
//! under both C5 options; the work budget bounds it and an interrupted search proves nothing.

use std::collections::HashMap;

use ludus_rules::Budget;

use super::board::Board;

/// How many fours in a row a VCF may play.
pub const VCF_DEPTH: u32 = 16;
/// How many threats (fours or open threes) a VCT may play before it must finish by fours.
pub const VCT_DEPTH: u32 = 7;
/// The VCF depth at the leaves of a VCT and when the defender counters an open three.
const LEAF_VCF_DEPTH: u32 = 8;
/// At most this many open threes are tried at each attacker node (the best by value).
const MAX_THREES: usize = 8;
/// How often (in placed stones) the caller's clock is polled.
const POLL_EVERY: u64 = 512;
/// The transposition table is cleared when it holds this many positions (memory bound).
const TABLE_LIMIT: usize = 1 << 20;

/// What is known of one attack (position, attacker, forced cell, with or without threes).
#[derive(Copy, Clone, Default)]
struct Known {
    /// The shallowest depth a win was proved at, and its first move.
    won: Option<(u32, usize)>,
    /// Every depth up to this one was searched in full without a win.
    failed: u32,
}

pub struct Search<'a> {
    pub board: Board,
    budget: &'a Budget<'a>,
    /// The work at which the current phase stops.
    limit: u64,
    next_poll: u64,
    /// The caller ran out of time: every phase stops from now on.
    expired: bool,
    known: HashMap<u64, Known>,
}

impl<'a> Search<'a> {
    pub fn new(board: Board, budget: &'a Budget<'a>) -> Self {
        let limit = board.work.saturating_add(budget.work);
        let next_poll = board.work;
        Search {
            board,
            budget,
            limit,
            next_poll,
            expired: false,
            known: HashMap::new(),
        }
    }

    /// Runs `phase` with at most `share` of the work left, so that one phase cannot starve
    /// the next.
    pub fn phase<T>(&mut self, share: u64, phase: impl FnOnce(&mut Self) -> T) -> T {
        let outer = self.limit;
        self.limit = outer.min(self.board.work.saturating_add(share));
        let result = phase(self);
        self.limit = outer;
        result
    }

    /// The work left in the whole budget.
    pub fn left(&self) -> u64 {
        self.limit.saturating_sub(self.board.work)
    }

    /// Whether the current phase must stop.
    pub fn out(&mut self) -> bool {
        if !self.expired && self.board.work >= self.next_poll {
            self.next_poll = self.board.work + POLL_EVERY;
            self.expired = self.budget.expired();
        }
        self.expired || self.board.work >= self.limit
    }

    /// A VCF or (with `threes`) a VCT ([`Search::attack`]) by iterative deepening, one
    /// threat deeper at a time up to `depth`: a short forced win is found before the budget
    /// is spent deep in the first branch of a long one, and the shortest is played.
    pub fn deepening(&mut self, attacker: usize, depth: u32, threes: bool) -> Option<usize> {
        for depth in 1..=depth {
            if let Some(at) = self.attack(attacker, &[], depth, threes) {
                return Some(at);
            }
            if self.out() {
                break;
            }
        }
        None
    }

    /// A first move with which `attacker` (to move, with no winning cell of the defender
    /// left open unless `forced` answers it) wins by force: by fours alone, or with `threes`
    /// also by open threes. `forced`, when not empty, holds the cells that stop the
    /// defender's four ([`Board::saving_cells`]): the attacker must play one of them.
    pub fn attack(
        &mut self,
        attacker: usize,
        forced: &[usize],
        depth: u32,
        threes: bool,
    ) -> Option<usize> {
        if self.out() {
            return None;
        }
        if depth == 0 {
            return if threes {
                self.attack(attacker, forced, LEAF_VCF_DEPTH, false)
            } else {
                None
            };
        }
        let key = self.board.hash
            ^ (attacker as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F)
            ^ u64::from(threes).wrapping_mul(0xE703_7ED1_A0B4_28DB)
            ^ forced.iter().fold(0, |key: u64, &at| {
                key.rotate_left(7) ^ (at as u64 + 7).wrapping_mul(0x8EBC_6AF0_9C88_C6E3)
            });
        let known = self.known.get(&key).copied().unwrap_or_default();
        match known.won {
            Some((proved, at)) if proved <= depth => return Some(at),
            _ if known.failed >= depth => return None,
            _ => {}
        }
        let moves = self.threat_moves(attacker, forced, threes);
        let found = self.first_win(attacker, moves, depth, threes);
        if found.is_some() || !self.out() {
            if self.known.len() >= TABLE_LIMIT {
                self.known.clear();
            }
            let entry = self.known.entry(key).or_default();
            match found {
                Some(at) if entry.won.is_none_or(|(proved, _)| depth < proved) => {
                    entry.won = Some((depth, at));
                }
                Some(_) => {}
                None => entry.failed = entry.failed.max(depth),
            }
        }
        found
    }

    /// The first of the attacker's threat `moves` that wins by force.
    fn first_win(
        &mut self,
        attacker: usize,
        moves: Vec<usize>,
        depth: u32,
        threes: bool,
    ) -> Option<usize> {
        for at in moves {
            if self.board.wins_at(at, attacker) {
                return Some(at);
            }
            let open_three = threes && self.board.makes_open_three(at, attacker);
            self.board.place(at, attacker);
            let wins = self.board.winning_cells_through(at, attacker);
            let won = if wins.is_empty() {
                open_three && self.three_holds(at, attacker, depth)
            } else {
                // The defender, with no four of its own, must stop every winning cell with
                // one stone; with no such stone the four wins (C4: not the count of
                // winning cells decides, an answer may kill two).
                let answers = self.board.saving_cells(&wins, attacker);
                answers
                    .into_iter()
                    .all(|answer| self.answer(attacker, answer, depth, threes, None) && !self.out())
            };
            self.board.undo();
            if won {
                return Some(at);
            }
            if self.out() {
                return None;
            }
        }
        None
    }

    /// The defender answers on `at`; whether the attacker still wins. `three` is the
    /// attacker's open three the answer was meant to stop, if any.
    fn answer(
        &mut self,
        attacker: usize,
        at: usize,
        depth: u32,
        threes: bool,
        three: Option<usize>,
    ) -> bool {
        let defender = 1 - attacker;
        self.board.place(at, defender);
        let counter = self.board.winning_cells_through(at, defender);
        let won = if counter.is_empty() {
            self.attack(attacker, &[], depth - 1, threes).is_some()
        } else {
            // A counter-four: the attacker stops it. If the stop is a threat itself the
            // attack goes on from it; if not, the defender moves again and the pending open
            // three must still win. No stop: the defender wins.
            let blocks = self.board.saving_cells(&counter, defender);
            !blocks.is_empty()
                && (self.attack(attacker, &blocks, depth - 1, threes).is_some()
                    || three.is_some_and(|three| {
                        blocks.iter().any(|&block| {
                            self.board.place(block, attacker);
                            let holds = depth > 1 && self.three_holds(three, attacker, depth - 1);
                            self.board.undo();
                            holds
                        })
                    }))
        };
        self.board.undo();
        won
    }

    /// The attacker has an open three through `at` (made by its last stone or still
    /// pending) and the defender is to move: whether the attacker wins whatever the defender
    /// does (a counter-VCF, a block of the three, or a four of its own).
    fn three_holds(&mut self, at: usize, attacker: usize, depth: u32) -> bool {
        let defender = 1 - attacker;
        let open_fours = self.board.open_fours_through(at, attacker);
        // The three may have been stopped by a counter-four: then it proves nothing.
        if open_fours.is_empty() {
            return false;
        }
        let mut answers = self.board.open_four_stops(attacker, &open_fours);
        if self.attack(defender, &[], LEAF_VCF_DEPTH, false).is_some() {
            return false;
        }
        for cell in self.board.candidates() {
            if self.board.makes_four(cell, defender) && !answers.contains(&cell) {
                answers.push(cell);
            }
        }
        for answer in answers {
            if !self.answer(attacker, answer, depth, true, Some(at)) || self.out() {
                return false;
            }
        }
        true
    }

    /// The attacker's threats, fours first (they are cheaper to refute), each group best first.
    fn threat_moves(&self, attacker: usize, forced: &[usize], threes: bool) -> Vec<usize> {
        if !forced.is_empty() {
            return forced.to_vec();
        }
        let defender = 1 - attacker;
        let mut fours = Vec::new();
        let mut open_threes = Vec::new();
        for at in self.board.candidates() {
            if self.board.makes_four(at, attacker) {
                fours.push(at);
            } else if threes && self.board.makes_open_three(at, attacker) {
                open_threes.push(at);
            }
        }
        let value = |at: &usize| {
            std::cmp::Reverse(self.board.value(*at, attacker) + self.board.value(*at, defender))
        };
        fours.sort_by_key(value);
        open_threes.sort_by_key(value);
        open_threes.truncate(MAX_THREES);
        fours.extend(open_threes);
        fours
    }
}
