//! Computer players for Caro, the three levels of C17.
//!
//! - **Easy** takes a win when it has one and otherwise plays good shape by the pattern
//!   evaluation, attack first; one time in three it forgets to block a line one stone from
//!   winning (C17: "Easy sometimes forgets to block").
//! - **Medium** ([`Level::Normal`]) never forgets: it wins when it can, stops every four
//!   (broken ones like `XX_XX` included), makes a winning threat when it has one, stops open
//!   threes, and otherwise plays the best shape for both sides' lines through the cell.
//! - **Hard** searches threats (C17: "attacks with consecutive fours and threes to force a
//!   win"): the shortest VCF, then a threat-space search with open threes; when the opponent has a
//!   forced win it keeps only the moves after which that win is gone (searched one threat
//!   deeper at a time, so that when no move is proved safe within the budget it keeps the one
//!   that holds against the deepest of the opponent's threat sequences); otherwise a quiet
//!   "set-up" move, one after which Hard would have a forced win if the opponent passed and
//!   still has one after the opponent's likeliest replies, provided the alpha-beta below
//!   finds no loss after it (without set-ups, Hard as the second mover drew full
//!   boards against Medium's solid blocking); else a 6-ply alpha-beta over the 10 best
//!   candidates (by the pattern board's values, both sides' shapes) at every node, with the
//!   pattern evaluation at the leaves. The search's threat
//!   rules (a four must be blocked, an open four or four-three wins, an open three must be
//!   stopped or out-foured) keep the tree narrow, so six plies see an opponent's quiet move
//!   that leads to a double threat two moves later, which four plies missed (Hard
//!   lost such games to Medium as the second mover, e.g. an open three answered, then a
//!   double open three).
//!
//! Every level works on [`board::Board`], which keeps each empty cell's line shapes up to
//! date incrementally, and judges wins with the crate's own C6 table ([`crate::line::wins`]),
//! so both C5 options and both board sizes (C1) are played by the same code. Every threat is
//! judged by that win rule, never by counting cells: a four is stopped by any cell after
//! which the opponent has no winning cell left (under the C5 blocked-ends rule that can be
//! a cell past the end of the run, C4, and one stone can stop two completions: X on B2-E5
//! is stopped only on F6, which leaves A1's five blocked by the edge and by F6); an open
//! four is one that no single stone stops; an open three is stopped where a stone leaves no
//! open four. `tests/against_referee.rs` holds the levels to an independent brute-force
//! referee written from the rule text.

mod board;
mod patterns;
mod search;

use ludus_rules::{Bot, Budget, Level, RandomSource, Seat, Think};

use crate::{Caro, CaroAction};
use board::Board;
use search::{Search, VCF_DEPTH, VCT_DEPTH};

/// Hard's work budget: stones placed during its search. About a second on one core: a move
/// that spends it all (the threat searches, the set-up search and a 6-ply alpha-beta) takes
/// about a second of CPU in a release build; most moves stop far earlier (a forced block, a
/// found win).
const HARD_WORK: u64 = 1_200_000;
/// How many of the best-valued moves Hard weighs in its alpha-beta and its defence.
const HARD_WIDTH: usize = 10;
/// How much Hard values taking the opponent's shapes away, in tenths of its own.
const HARD_DEFENCE: i32 = 10;
/// Alpha-beta depth in plies.
const HARD_DEPTH: u32 = 6;
/// How many quiet moves (the best-valued) Hard tries as set-ups of a forced win.
const SETUP_WIDTH: usize = 10;
/// How many of the opponent's best-valued replies (by the same move ordering, from its side)
/// a set-up must survive.
const SETUP_REPLIES: usize = 4;
/// VCFs of up to this many fours are searched shortest first.
const SHORT_VCF: u32 = 3;
/// A value beyond any evaluation: a won position.
const WON: i32 = 100_000_000;

impl Bot for Caro {
    fn decide(&self, seat: Seat, Think { level, budget, rng }: Think<'_>) -> Option<CaroAction> {
        let board = Board::of(self);
        let at = match opening(&board, rng) {
            Some(at) => at,
            None => match level {
                Level::Easy => easy(&board, seat, rng),
                Level::Normal => medium(&board, seat, rng),
                Level::Hard => hard(board.clone(), seat, budget, rng),
            },
        };
        Some(CaroAction {
            cell: board.cell(at),
        })
    }

    /// Easy and Medium do no search (one pass over the candidates); Hard's unit is a stone
    /// placed during its search.
    fn default_work(level: Level) -> u64 {
        match level {
            Level::Easy | Level::Normal => 1,
            Level::Hard => HARD_WORK,
        }
    }
}

/// The first stone goes to the middle; the answer to it goes next to it, on a side or a
/// corner chosen by `rng`, so that games between bots do not all repeat.
fn opening(board: &Board, rng: &mut dyn RandomSource) -> Option<usize> {
    match (board.stones(), board.last()) {
        (0, _) => Some(board.center()),
        (1, Some(first)) => {
            let neighbours: Vec<usize> = (0..4)
                .flat_map(|dir| [board.along(first, dir, 1), board.along(first, dir, -1)])
                .filter(|&at| board.is_empty(at))
                .collect();
            pick(&neighbours, rng)
        }
        _ => None,
    }
}

fn pick(cells: &[usize], rng: &mut dyn RandomSource) -> Option<usize> {
    if cells.is_empty() {
        return None;
    }
    let i = rng.below(u32::try_from(cells.len()).unwrap_or(u32::MAX)) as usize;
    cells.get(i).copied()
}

/// The opponent's winning cells (its fours) and the cells where a stone of `me` stops them
/// all ([`Board::saving_cells`]: under the C5 blocked-ends rule not always a winning cell,
/// and not always none when there are two).
fn threats_and_saves(board: &Board, me: usize) -> (Vec<usize>, Vec<usize>) {
    let threats = board.winning_cells(1 - me);
    let saves = if threats.is_empty() {
        Vec::new()
    } else {
        board.saving_cells(&threats, 1 - me)
    };
    (threats, saves)
}

/// The answer to the opponent's fours: the best-valued saving cell; with none the game is
/// lost, and a winning cell is taken anyway.
fn block(
    board: &Board,
    threats: &[usize],
    saves: &[usize],
    me: usize,
    defence: i32,
    rng: &mut dyn RandomSource,
) -> usize {
    let cells = if saves.is_empty() { threats } else { saves };
    best(board, cells, me, defence, 0, rng).unwrap_or(threats[0])
}

/// Any empty cell: for a board whose candidates are all taken (never in practice; the
/// game is not over, so there is one).
fn any_empty(board: &Board) -> usize {
    board.first_empty().unwrap_or_else(|| board.center())
}

/// The value of a move for `me`: its own shapes plus `defence` tenths of the opponent's
/// shapes it takes away.
fn score(board: &Board, at: usize, me: usize, defence: i32) -> i32 {
    10 * board.value(at, me) + defence * board.value(at, 1 - me)
}

/// The best of `cells` by `score`, ties (within `slack` per mille) broken by `rng`.
fn best(
    board: &Board,
    cells: &[usize],
    me: usize,
    defence: i32,
    slack: i32,
    rng: &mut dyn RandomSource,
) -> Option<usize> {
    let scored: Vec<(usize, i32)> = cells
        .iter()
        .map(|&at| (at, score(board, at, me, defence)))
        .collect();
    let top = scored.iter().map(|&(_, s)| s).max()?;
    let floor = top - (i64::from(top.max(0)) * i64::from(slack) / 1000) as i32;
    let near_best: Vec<usize> = scored
        .iter()
        .filter(|&&(_, s)| s >= floor)
        .map(|&(at, _)| at)
        .collect();
    pick(&near_best, rng)
}

/// C17 Easy.
fn easy(board: &Board, me: usize, rng: &mut dyn RandomSource) -> usize {
    let candidates = board.candidates();
    if let Some(&win) = candidates.iter().find(|&&at| board.wins_at(at, me)) {
        return win;
    }
    let (threats, saves) = threats_and_saves(board, me);
    let forgets = rng.below(3) == 0;
    if !threats.is_empty() && !forgets {
        return block(board, &threats, &saves, me, 6, rng);
    }
    // Forgetting means not seeing the opponent's four at all: neither its winning cells nor
    // the cells that would stop it.
    let unseen: Vec<usize> = candidates
        .into_iter()
        .filter(|at| !threats.contains(at) && !saves.contains(at))
        .collect();
    best(board, &unseen, me, 5, 150, rng).unwrap_or_else(|| any_empty(board))
}

/// C17 Medium.
fn medium(board: &Board, me: usize, rng: &mut dyn RandomSource) -> usize {
    let opp = 1 - me;
    let candidates = board.candidates();
    if let Some(&win) = candidates.iter().find(|&&at| board.wins_at(at, me)) {
        return win;
    }
    let (threats, saves) = threats_and_saves(board, me);
    if !threats.is_empty() {
        // The opponent's fours, broken ones included, are always stopped (C17).
        return block(board, &threats, &saves, me, 8, rng);
    }
    let open_fours = board.open_fours(opp);
    let stops = board.open_four_stops(opp, &open_fours);
    let urgent: [Vec<usize>; 2] = [
        // A threat of ours that wins unless answered by a four (there is none: see above).
        candidates
            .iter()
            .copied()
            .filter(|&at| board.makes_winning_threat(at, me))
            .collect(),
        // The opponent's open threes: the cells that stop them (none for a double three:
        // then one of the cells where it would make an open four).
        if stops.is_empty() {
            open_fours.iter().map(|&(at, _)| at).collect()
        } else {
            stops
        },
    ];
    for cells in &urgent {
        if let Some(at) = best(board, cells, me, 8, 0, rng) {
            return at;
        }
    }
    best(board, &candidates, me, 8, 20, rng).unwrap_or_else(|| any_empty(board))
}

/// C17 Hard.
fn hard(board: Board, me: usize, budget: &Budget<'_>, rng: &mut dyn RandomSource) -> usize {
    let opp = 1 - me;
    let candidates = board.candidates();
    if let Some(&win) = candidates.iter().find(|&&at| board.wins_at(at, me)) {
        return win;
    }
    let (threats, saves) = threats_and_saves(&board, me);
    if !threats.is_empty() {
        return block(&board, &threats, &saves, me, 8, rng);
    }
    let mut ranked = candidates.clone();
    ranked.sort_by_key(|&at| std::cmp::Reverse(score(&board, at, me, HARD_DEFENCE)));
    let fallback = ranked.first().copied().unwrap_or_else(|| any_empty(&board));

    let mut search = Search::new(board, budget);
    let eighth = search.left() / 8;
    if let Some(at) = search.phase(eighth, |s| {
        // The shortest VCF first (a long one found first may be a different line), then
        // the whole depth once: deepening all the way would search every depth again.
        s.deepening(me, SHORT_VCF, false)
            .or_else(|| s.attack(me, &[], VCF_DEPTH, false))
    }) {
        return at;
    }
    if let Some(at) = search.phase(2 * eighth, |s| s.deepening(me, VCT_DEPTH, true)) {
        return at;
    }
    let threat = search.phase(3 * eighth, |s| {
        s.attack(opp, &[], VCF_DEPTH, false)
            .or_else(|| s.deepening(opp, VCT_DEPTH - 1, true))
    });
    let mut moves: Vec<usize> = ranked.iter().copied().take(HARD_WIDTH).collect();
    let Some(threat) = threat else {
        // A quarter of what is left looks for a set-up, a third of the rest guards it; the
        // alpha-beta keeps at least half of the budget when there is none (or it loses).
        let share = search.left() / 4;
        if let Some(at) = search.phase(share, |s| set_up(s, &ranked, me)) {
            let share = search.left() / 3;
            if search.phase(share, |s| survives(s, at, me)) {
                return at;
            }
        }
        let share = search.left();
        return search
            .phase(share, |s| alpha_beta_root(s, &moves, me, rng))
            .unwrap_or(fallback);
    };
    // The opponent wins by force if we let it. Candidates: its first threat, every cell
    // where it would make a four or an open three, and our best-valued moves (our own fours
    // among them, which it must answer first).
    moves.retain(|&at| at != threat);
    moves.insert(0, threat);
    for &at in &ranked {
        if (search.board.makes_four(at, opp) || search.board.makes_open_three(at, opp))
            && !moves.contains(&at)
        {
            moves.push(at);
        }
    }
    // First the cheap test (no VCF left for the opponent), then the full one (no VCT).
    let share = search.left() / 4 / (moves.len() as u64 + 1);
    let stops_fours: Vec<usize> = moves
        .iter()
        .copied()
        .filter(|&at| search.phase(share, |s| refutes(s, at, me, None)) == Some(true))
        .collect();
    // Then the opponent's VCTs one threat deeper at a time: the moves it beats at a depth
    // drop out, and the move kept is the one that holds deepest. Proving each move safe to
    // the full depth at once ran out of budget on every move in busy positions, which left
    // the opponent's first threat cell as a blind guess.
    let mut holding = stops_fours;
    for depth in 1..VCT_DEPTH {
        if holding.len() < 2 {
            break;
        }
        let share = search.left() / (holding.len() as u64 + 1);
        let mut held = Vec::new();
        let mut unknown = false;
        for &at in &holding {
            match search.phase(share, |s| refutes(s, at, me, Some(depth))) {
                Some(true) => held.push(at),
                Some(false) => {}
                None => unknown = true,
            }
        }
        if held.is_empty() {
            // Every move loses at this depth (or could not be told): the ones that held one
            // threat less at least make the opponent find a longer win.
            break;
        }
        holding = held;
        if unknown {
            break;
        }
    }
    holding.first().copied().unwrap_or(fallback)
}

/// A quiet move that sets up a win: one after which `me` would have a VCT if the opponent
/// passed, the opponent has no VCF, and the VCT is still there after each of the opponent's
/// likeliest replies (its best-valued moves). Not every reply is tried, so a defender who
/// takes the right cell may refute it; that costs no game, since the move is only played
/// when the alpha-beta finds no loss after it ([`survives`]). (Also requiring the VCT's
/// own first cell as a reply found almost no set-ups: 4 of the 12 drawn games won instead
/// of 7.) Threats (fours, open threes) are not tried: the VCT search has weighed them. An
/// interrupted test counts as no.
fn set_up(search: &mut Search<'_>, ranked: &[usize], me: usize) -> Option<usize> {
    let quiet: Vec<usize> = ranked
        .iter()
        .copied()
        .filter(|&at| !search.board.makes_four(at, me) && !search.board.makes_open_three(at, me))
        .take(SETUP_WIDTH)
        .collect();
    let share = search.left() / (quiet.len() as u64 + 1);
    quiet.into_iter().find(|&at| {
        search.phase(share, |s| {
            s.board.place(at, me);
            let sets_up = wins_after_replies(s, me);
            s.board.undo();
            sets_up && !s.out()
        })
    })
}

/// The opponent is to move after a quiet move of `me`'s: whether it has no VCF, `me` would
/// have a VCT if it passed, and `me` keeps one after each of its likeliest replies.
fn wins_after_replies(search: &mut Search<'_>, me: usize) -> bool {
    let opp = 1 - me;
    if search.attack(opp, &[], VCF_DEPTH, false).is_some() {
        return false;
    }
    if search.deepening(me, VCT_DEPTH, true).is_none() {
        return false;
    }
    let mut replies = search.board.candidates();
    replies.sort_by_key(|&at| std::cmp::Reverse(score(&search.board, at, opp, HARD_DEFENCE)));
    replies.truncate(SETUP_REPLIES);
    replies.into_iter().all(|reply| {
        search.board.place(reply, opp);
        // A four in reply must be stopped first, and the stop must carry the attack on.
        let fours = search.board.winning_cells_through(reply, opp);
        let holds = if fours.is_empty() {
            search.deepening(me, VCT_DEPTH, true).is_some()
        } else {
            let blocks = search.board.saving_cells(&fours, opp);
            !blocks.is_empty() && search.attack(me, &blocks, VCT_DEPTH, true).is_some()
        };
        search.board.undo();
        holds && !search.out()
    })
}

/// The guard on a set-up move (unguarded, set-ups let Medium reach a four-three):
/// whether the `HARD_DEPTH`-ply alpha-beta finds no loss for `me` after `at`. A null window
/// at the loss line: the opponent's value reaching `WON / 2` (an unstoppable threat or
/// better) is a loss. An interrupted search counts as a loss.
fn survives(search: &mut Search<'_>, at: usize, me: usize) -> bool {
    search.board.place(at, me);
    let theirs = alpha_beta(search, 1 - me, HARD_DEPTH - 1, WON / 2 - 1, WON / 2);
    search.board.undo();
    theirs < WON / 2 && !search.out()
}

/// Whether `me` playing `at` leaves the opponent without a forced win: no VCF, and with
/// `vct_depth` no VCT of up to that many threats either. `None` when the search was
/// interrupted.
fn refutes(search: &mut Search<'_>, at: usize, me: usize, vct_depth: Option<u32>) -> Option<bool> {
    let opp = 1 - me;
    search.board.place(at, me);
    let mine = search.board.winning_cells_through(at, me);
    // A four of ours: the opponent must stop it first; if no stone stops it, we win.
    let forced = search.board.saving_cells(&mine, me);
    let safe = if !mine.is_empty() && forced.is_empty() {
        true
    } else if let Some(depth) = vct_depth {
        search.attack(opp, &forced, depth, true).is_none()
    } else {
        search.attack(opp, &forced, VCF_DEPTH, false).is_none()
    };
    // A found win is a proof even if the budget ran out right after it.
    let known = !safe || !search.out();
    search.board.undo();
    known.then_some(safe)
}

/// Alpha-beta over the best `moves` of the root, `HARD_DEPTH` plies, with the pattern
/// evaluation at the leaves; ties between equal root values broken by `rng`.
fn alpha_beta_root(
    search: &mut Search<'_>,
    moves: &[usize],
    me: usize,
    rng: &mut dyn RandomSource,
) -> Option<usize> {
    let mut scored = Vec::new();
    let mut alpha = -WON;
    for &at in moves {
        search.board.place(at, me);
        let value = -alpha_beta(search, 1 - me, HARD_DEPTH - 1, -WON, -alpha + 1);
        search.board.undo();
        if search.out() {
            break;
        }
        alpha = alpha.max(value);
        scored.push((at, value));
    }
    let top = scored.iter().map(|&(_, v)| v).max()?;
    let tied: Vec<usize> = scored
        .iter()
        .filter(|&&(_, v)| v == top)
        .map(|&(at, _)| at)
        .collect();
    pick(&tied, rng)
}

/// Negamax value for `player` to move.
fn alpha_beta(
    search: &mut Search<'_>,
    player: usize,
    depth: u32,
    mut alpha: i32,
    beta: i32,
) -> i32 {
    let opp = 1 - player;
    if !search.board.winning_cells(player).is_empty() {
        return WON;
    }
    let (threats, saves) = threats_and_saves(&search.board, player);
    if !threats.is_empty() && saves.is_empty() {
        return -WON;
    }
    if depth == 0 || search.out() {
        return evaluate(&search.board, player);
    }
    let board = &search.board;
    let candidates = board.candidates();
    let open_fours = board.open_fours(opp);
    let mut moves = if !threats.is_empty() {
        // A four of the opponent's must be stopped.
        saves
    } else if candidates
        .iter()
        .any(|&at| board.makes_winning_threat(at, player))
    {
        // An open four (or four-four, four-three) with no four against it wins.
        return WON / 2;
    } else if !open_fours.is_empty() {
        // The opponent has an open three: stop it, or play a four first.
        let stops = board.open_four_stops(opp, &open_fours);
        candidates
            .into_iter()
            .filter(|&at| board.makes_four(at, player) || stops.contains(&at))
            .collect()
    } else {
        candidates
    };
    moves.sort_by_key(|&at| std::cmp::Reverse(score(&search.board, at, player, HARD_DEFENCE)));
    moves.truncate(HARD_WIDTH);
    let mut best = -WON;
    for at in moves {
        search.board.place(at, player);
        let value = -alpha_beta(search, opp, depth - 1, -beta, -alpha);
        search.board.undo();
        best = best.max(value);
        alpha = alpha.max(value);
        if alpha >= beta || search.out() {
            break;
        }
    }
    best
}

/// The position's value for `player` to move: the best threat each side could make next,
/// the mover's counted fully and the opponent's less (it has to wait a move).
fn evaluate(board: &Board, player: usize) -> i32 {
    let opp = 1 - player;
    let mut mine = 0;
    let mut theirs = 0;
    let mut mine_sum = 0;
    let mut theirs_sum = 0;
    for at in board.candidates() {
        let (m, t) = (board.value(at, player), board.value(at, opp));
        mine = mine.max(m);
        theirs = theirs.max(t);
        mine_sum += m;
        theirs_sum += t;
    }
    2 * mine - theirs + (mine_sum - theirs_sum) / 4
}
