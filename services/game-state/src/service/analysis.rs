//! `AnalyzeMancala`: the exact Kalah solver (`ludus_mancala::Solver`) on a position a caller
//! sends or on a hosted game's, run on a blocking thread within a time budget. The solver is
//! pure; the time budget, the threads and the proto mapping of its answers live here.

use std::time::{Duration, Instant};

use ludus_catalog::games::mancala;
use ludus_catalog::seat_u32;
use ludus_mancala::{KalahPosition, RuleSet, Solver};
use ludus_proto::pb;
use ludus_rules::Viewer;

use super::base::GameStateService;
use crate::error::ServiceError;

/// The analysis budget when the request leaves it at 0.
pub const DEFAULT_ANALYSIS_MS: u32 = 500;
/// The most time one analysis may take: it runs on a blocking thread, and a client must not be
/// able to hold one for long.
pub const MAX_ANALYSIS_MS: u32 = 2_000;
/// Analyses running at once on this replica; more wait for a turn. Each holds a blocking
/// thread and a 16 MiB table.
pub const MAX_CONCURRENT_ANALYSES: usize = 2;
static ANALYSES: tokio::sync::Semaphore =
    tokio::sync::Semaphore::const_new(MAX_CONCURRENT_ANALYSES);
/// Analyses admitted on this replica, running or waiting for a turn. Past it the answer is
/// RESOURCE_EXHAUSTED at once: an unbounded queue let a few long requests push everybody
/// else's 40 ms analysis to seconds (ARCHITECTURE.md, "Mancala").
pub const MAX_ADMITTED_ANALYSES: usize = 6;
/// Of the [`MAX_ADMITTED_ANALYSES`], the most one client address may hold: guests are free,
/// so one address with a dozen of them held all six and another user was refused 136 times
/// in 141 (ARCHITECTURE.md, "Mancala").
pub const ANALYSES_PER_ADDRESS: usize = 2;
/// The analyses admitted on this replica, by player and address.
static ADMITTED: std::sync::Mutex<Admitted> = std::sync::Mutex::new(Admitted::new());
/// The first node budget of the deepening loop; each round doubles it.
const FIRST_NODE_BUDGET: u64 = 20_000;
/// Transposition table of one analysis: 2^20 slots of 16 bytes (16 MiB).
const ANALYSIS_TABLE_BITS: u32 = 20;
/// Kalah seeds (M2).
const KALAH_SEEDS: u32 = 48;

impl GameStateService {
    /// The Kalah solver's values for a game's position or an explicit one. A player seated in
    /// a game still being played gets no engine help against a human.
    pub async fn analyze_mancala(
        &self,
        request: pb::AnalyzeMancalaInternalRequest,
    ) -> Result<pb::AnalyzeMancalaResponse, ServiceError> {
        use pb::analyze_mancala_request::Source;
        let inner = request
            .request
            .ok_or_else(|| ServiceError::InvalidArgument("request: required".into()))?;
        let analysable = match inner.source {
            Some(Source::GameId(game_id)) => {
                let loaded = self.load(&game_id).await?;
                if loaded.game.outcome().is_none() && loaded.seat_of(&request.player_id).is_some() {
                    return Err(ServiceError::PermissionDenied(
                        ludus_proto::error_details::reason::NO_ENGINE_HELP,
                        format!(
                            "you play in game {game_id} and it is still being played: no engine \
                         help against a human; analyse it once it is over"
                        ),
                    ));
                }
                position_of_view(&loaded.game.view(Viewer::Spectator))?
            }
            Some(Source::Position(position)) => position_from_pb(&position)?,
            None => {
                return Err(ServiceError::InvalidArgument(
                    "source: give a game_id or a position".into(),
                ));
            }
        };
        let _admitted = Admission::enter(&request.player_id, &request.client_address)?;
        analyze(analysable, budget_ms(inner.budget_ms)).await
    }
}

/// Who holds the admitted analyses: one each per player, [`ANALYSES_PER_ADDRESS`] per client
/// address, [`MAX_ADMITTED_ANALYSES`] in all.
#[derive(Debug, Default)]
struct Admitted {
    /// (player, address) of each admitted analysis; the address is empty when unknown.
    holders: Vec<(String, String)>,
}

impl Admitted {
    const fn new() -> Self {
        Admitted {
            holders: Vec::new(),
        }
    }

    fn enter(&mut self, player_id: &str, address: &str) -> Result<(), ServiceError> {
        if self.holders.iter().any(|(p, _)| p == player_id) {
            return Err(ServiceError::ResourceExhausted(
                "you already have an analysis running: one at a time".into(),
            ));
        }
        let from_address = self
            .holders
            .iter()
            .filter(|(_, a)| !address.is_empty() && a == address)
            .count();
        if from_address >= ANALYSES_PER_ADDRESS {
            return Err(ServiceError::ResourceExhausted(format!(
                "your address already has {ANALYSES_PER_ADDRESS} analyses running: try again in \
                 a moment"
            )));
        }
        if self.holders.len() >= MAX_ADMITTED_ANALYSES {
            return Err(ServiceError::ResourceExhausted(format!(
                "the analysis queue is full ({MAX_ADMITTED_ANALYSES}); try again in a moment"
            )));
        }
        self.holders
            .push((player_id.to_owned(), address.to_owned()));
        Ok(())
    }

    fn leave(&mut self, player_id: &str) {
        if let Some(at) = self.holders.iter().position(|(p, _)| p == player_id) {
            self.holders.swap_remove(at);
        }
    }
}

/// One player's place among the admitted analyses; leaving (on completion or when the
/// caller goes away) frees it.
struct Admission(String);

impl Admission {
    fn enter(player_id: &str, address: &str) -> Result<Admission, ServiceError> {
        ADMITTED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .enter(player_id, address)?;
        Ok(Admission(player_id.to_owned()))
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        ADMITTED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .leave(&self.0);
    }
}

/// A Kalah position ready for the solver, and how to show it back.
#[derive(Clone, Debug)]
pub struct Analysable {
    /// The position as the answer shows it.
    pub shown: pb::MancalaPosition,
    /// From the seat to move; `None` when the game is over (no legal sow).
    pub position: Option<KalahPosition>,
    /// The final margin for `shown.to_move` of a finished game (M7, M8).
    pub final_margin: i32,
}

fn to_u8(value: u32, field: &str) -> Result<u8, ServiceError> {
    u8::try_from(value).map_err(|_| {
        ServiceError::InvalidArgument(format!(
            "{field}: M2: {value} seeds is more than the board holds"
        ))
    })
}

/// Checks an explicit position: Kalah, 2 sides of 6 pits, 48 seeds in all (M1, M2), a seat
/// to move that exists, and seeds in both rows (M7: else the game is already over).
pub fn position_from_pb(position: &pb::MancalaPosition) -> Result<Analysable, ServiceError> {
    let rule_set = mancala::rule_set_from_pb(position.rule_set, "position.rule_set")?;
    if rule_set != RuleSet::Kalah {
        return Err(ServiceError::FailedPrecondition(
            "position.rule_set: the solver analyses kalah positions only (M1-M8), not congklak"
                .into(),
        ));
    }
    if position.sides.len() != 2 {
        return Err(ServiceError::InvalidArgument(format!(
            "position.sides: M1: two sides, not {}",
            position.sides.len()
        )));
    }
    let mut pits = [[0u8; 6]; 2];
    let mut stores = [0u8; 2];
    let mut total = 0u32;
    for (seat, side) in position.sides.iter().enumerate() {
        if side.pits.len() != 6 {
            return Err(ServiceError::InvalidArgument(format!(
                "position.sides[{seat}].pits: M1: six pits, not {}",
                side.pits.len()
            )));
        }
        for (k, &seeds) in side.pits.iter().enumerate() {
            pits[seat][k] = to_u8(seeds, &format!("position.sides[{seat}].pits[{k}]"))?;
            total = total.saturating_add(seeds);
        }
        stores[seat] = to_u8(side.store, &format!("position.sides[{seat}].store"))?;
        total = total.saturating_add(side.store);
    }
    if total != KALAH_SEEDS {
        return Err(ServiceError::InvalidArgument(format!(
            "position.sides: M2: the board holds {total} seeds, not {KALAH_SEEDS}"
        )));
    }
    let to_move = match position.to_move {
        0 => 0usize,
        1 => 1,
        other => {
            return Err(ServiceError::InvalidArgument(format!(
                "position.to_move: M3: seats are 0 and 1, not {other}"
            )));
        }
    };
    if pits.iter().any(|row| row.iter().all(|&p| p == 0)) {
        return Err(ServiceError::InvalidArgument(
            "position.sides: M7: a row is empty, so the game is already over".into(),
        ));
    }
    playing_position(&pits, &stores, to_move)
        .ok_or_else(|| ServiceError::InvalidArgument("position.sides: M2: too many seeds".into()))
}

/// A game still in play, `to_move` (0 or 1) to sow: the solver sees the board from the
/// mover's side. `None` when the seeds are more than the solver's board holds (M2).
fn playing_position(pits: &[[u8; 6]; 2], stores: &[u8; 2], to_move: usize) -> Option<Analysable> {
    let position = KalahPosition::new(
        pits[to_move],
        pits[1 - to_move],
        [stores[to_move], stores[1 - to_move]],
    )?;
    Some(Analysable {
        shown: pb::MancalaPosition {
            rule_set: pb::MancalaRuleSet::Kalah as i32,
            sides: position_sides(pits, stores),
            to_move: seat_u32(to_move),
        },
        position: Some(position),
        final_margin: 0,
    })
}

fn position_sides(pits: &[[u8; 6]; 2], stores: &[u8; 2]) -> Vec<pb::MancalaSide> {
    (0..2)
        .map(|seat| pb::MancalaSide {
            pits: pits[seat].iter().map(|&n| u32::from(n)).collect(),
            store: u32::from(stores[seat]),
        })
        .collect()
}

/// The position of a hosted game, read from its (public) view. A finished game has no seat
/// to move: its final margin is given for seat 0 (`to_move` 0 in the answer).
pub fn position_of_view(view: &pb::GameView) -> Result<Analysable, ServiceError> {
    let Some(pb::game_view::View::Mancala(view)) = &view.view else {
        return Err(ServiceError::FailedPrecondition(
            "game_id: this is not a mancala game".into(),
        ));
    };
    if mancala::rule_set_from_pb(view.rule_set, "game")? != RuleSet::Kalah {
        return Err(ServiceError::FailedPrecondition(
            "game_id: the solver analyses kalah games only (M1-M8), not congklak".into(),
        ));
    }
    let mut pits = [[0u8; 6]; 2];
    let mut stores = [0u8; 2];
    for (seat, side) in view.sides.iter().take(2).enumerate() {
        for (k, &seeds) in side.pits.iter().take(6).enumerate() {
            pits[seat][k] = u8::try_from(seeds).unwrap_or(u8::MAX);
        }
        stores[seat] = u8::try_from(side.store).unwrap_or(u8::MAX);
    }
    let Some(to_move) = view.to_move.map(|s| usize::from(s == 1)) else {
        // Over: each side keeps its own pits (M7, already swept), the stores decide (M8).
        let margin = i32::from(stores[0]) - i32::from(stores[1]);
        return Ok(Analysable {
            shown: pb::MancalaPosition {
                rule_set: pb::MancalaRuleSet::Kalah as i32,
                sides: position_sides(&pits, &stores),
                to_move: 0,
            },
            position: None,
            final_margin: margin,
        });
    };
    playing_position(&pits, &stores, to_move)
        .ok_or_else(|| ServiceError::Internal("stored mancala board is too large".into()))
}

/// The budget a request gets: 0 means the default, anything over the cap is capped.
pub fn budget_ms(requested: u32) -> u32 {
    match requested {
        0 => DEFAULT_ANALYSIS_MS,
        ms => ms.min(MAX_ANALYSIS_MS),
    }
}

/// Analyses off the async runtime (a blocking thread), at most [`MAX_CONCURRENT_ANALYSES`]
/// at once.
pub async fn analyze(
    analysable: Analysable,
    budget_ms: u32,
) -> Result<pb::AnalyzeMancalaResponse, ServiceError> {
    let _turn = ANALYSES
        .acquire()
        .await
        .map_err(|_| ServiceError::Unavailable("analysis is shutting down".into()))?;
    tokio::task::spawn_blocking(move || analyze_blocking(analysable, budget_ms))
        .await
        .map_err(|e| ServiceError::Internal(format!("analysis failed: {e}")))
}

/// Solves every legal sow of the position within `budget`. Blocking: call it from
/// `spawn_blocking`. The solver's budget is a node count, so this deepens: it analyses with a
/// node budget, doubles it while some value is still open and the last round, doubled, fits
/// in the time left. Its table carries over between rounds, so no round starts from scratch.
pub fn analyze_blocking(analysable: Analysable, budget_ms: u32) -> pb::AnalyzeMancalaResponse {
    let Some(position) = analysable.position else {
        return pb::AnalyzeMancalaResponse {
            position: Some(analysable.shown),
            sows: Vec::new(),
            best_pit: None,
            exact: true,
            margin: analysable.final_margin,
            nodes: 0,
            budget_ms,
        };
    };
    let started = Instant::now();
    let deadline = Duration::from_millis(u64::from(budget_ms));
    let mut solver = Solver::new(ANALYSIS_TABLE_BITS);
    let mut nodes_budget = FIRST_NODE_BUDGET;
    let mut nodes = 0u64;
    let values = loop {
        let round = Instant::now();
        let (values, searched) = solver.analyze_counted(&position, nodes_budget);
        nodes = nodes.saturating_add(searched);
        let exact = values.iter().all(|v| v.is_exact());
        let took = round.elapsed();
        let left = deadline.saturating_sub(started.elapsed());
        if exact || took.saturating_mul(2) > left {
            break values;
        }
        nodes_budget = nodes_budget.saturating_mul(2);
    };
    let exact = values.iter().all(|v| v.is_exact());
    // The solver's own best sow where several tie (its table is warm: this costs little);
    // otherwise the sow with the best proved lower bound.
    let root = solver.solve_within(&position, nodes_budget);
    nodes = nodes.saturating_add(root.nodes);
    let best = root
        .best
        .filter(|_| root.is_exact())
        .and_then(|pit| values.iter().find(|v| v.pit == pit))
        .or_else(|| {
            values
                .iter()
                .max_by_key(|v| (v.lower, v.upper, std::cmp::Reverse(v.pit)))
        });
    pb::AnalyzeMancalaResponse {
        position: Some(analysable.shown),
        sows: values
            .iter()
            .map(|v| pb::MancalaSowValue {
                pit: u32::from(v.pit),
                margin: v.lower + (v.upper - v.lower) / 2,
                exact: v.is_exact(),
                lower: v.lower,
                upper: v.upper,
            })
            .collect(),
        best_pit: best.map(|v| u32::from(v.pit)),
        exact,
        margin: best.map_or(0, |v| v.lower + (v.upper - v.lower) / 2),
        nodes,
        budget_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_analysis_queue_is_bounded_and_one_player_holds_one_place() {
        let ids: Vec<String> = (0..=MAX_ADMITTED_ANALYSES)
            .map(|i| format!("admission-test-{i}"))
            .collect();
        let first = Admission::enter(&ids[0], "").expect("a place");
        let again = Admission::enter(&ids[0], "").err().expect("one per player");
        assert!(again.to_string().contains("one at a time"), "{again}");
        let mut held: Vec<Admission> = ids[1..MAX_ADMITTED_ANALYSES]
            .iter()
            .map(|id| Admission::enter(id, "").expect("a place"))
            .collect();
        let full = Admission::enter(&ids[MAX_ADMITTED_ANALYSES], "")
            .err()
            .expect("the queue is full");
        assert!(matches!(full, ServiceError::ResourceExhausted(_)), "{full}");
        assert_eq!(
            tonic::Status::from(full).code(),
            tonic::Code::ResourceExhausted
        );
        // Leaving frees the place, for anybody.
        drop(first);
        held.push(Admission::enter(&ids[MAX_ADMITTED_ANALYSES], "").expect("a freed place"));
        drop(held);
        let _back = Admission::enter(&ids[0], "").expect("every place freed");
    }

    /// Security (ARCHITECTURE.md, "Mancala"): a dozen guests from one address hold their
    /// address's share of the six places, and a caller from elsewhere is served.
    #[test]
    fn a_dozen_guests_from_one_address_hold_a_share_and_another_caller_is_served() {
        let mut admitted = Admitted::new();
        let mut refused = 0;
        for guest in 0..12 {
            if admitted
                .enter(&format!("guest-{guest}"), "203.0.113.7")
                .is_err()
            {
                refused += 1;
            }
        }
        assert_eq!(
            refused,
            12 - ANALYSES_PER_ADDRESS,
            "the address holds its share"
        );
        admitted
            .enter("someone-else", "198.51.100.2")
            .expect("another caller is served");
        // The hoggers' departures free places for the same share only.
        admitted.leave("guest-0");
        admitted
            .enter("guest-12", "203.0.113.7")
            .expect("within the share");
        assert!(admitted.enter("guest-13", "203.0.113.7").is_err());
    }

    fn side(pits: [u32; 6], store: u32) -> pb::MancalaSide {
        pb::MancalaSide {
            pits: pits.to_vec(),
            store,
        }
    }

    #[test]
    fn positions_must_hold_48_seeds_in_two_rows_of_six() {
        let good = pb::MancalaPosition {
            rule_set: 0,
            sides: vec![side([4; 6], 0), side([4; 6], 0)],
            to_move: 1,
        };
        let ok = position_from_pb(&good).expect("the start");
        assert_eq!(ok.shown.to_move, 1);
        for (bad, start) in [
            (
                pb::MancalaPosition {
                    sides: vec![side([4; 6], 1), side([4; 6], 0)],
                    ..good.clone()
                },
                "position.sides: M2: the board holds 49",
            ),
            (
                pb::MancalaPosition {
                    sides: vec![side([0; 6], 24), side([4; 6], 0)],
                    ..good.clone()
                },
                "position.sides: M7",
            ),
            (
                pb::MancalaPosition {
                    to_move: 2,
                    ..good.clone()
                },
                "position.to_move: M3",
            ),
            (
                pb::MancalaPosition {
                    sides: vec![side([4; 6], 0)],
                    ..good.clone()
                },
                "position.sides: M1",
            ),
        ] {
            let Err(ServiceError::InvalidArgument(message)) = position_from_pb(&bad) else {
                panic!("{bad:?} refused");
            };
            assert!(message.starts_with(start), "{message}");
        }
        let congklak = pb::MancalaPosition {
            rule_set: pb::MancalaRuleSet::Congklak as i32,
            ..good
        };
        assert!(matches!(
            position_from_pb(&congklak),
            Err(ServiceError::FailedPrecondition(_))
        ));
    }

    #[test]
    fn budgets_default_and_cap() {
        assert_eq!(budget_ms(0), DEFAULT_ANALYSIS_MS);
        assert_eq!(budget_ms(10), 10);
        assert_eq!(budget_ms(60_000), MAX_ANALYSIS_MS);
    }

    #[test]
    fn an_endgame_is_solved_exactly_and_the_best_sow_agrees_with_the_solver() {
        // Seat 0 to move with a few seeds left: pit 6 (1 seed) ends in the store (M5).
        let position = pb::MancalaPosition {
            rule_set: 0,
            sides: vec![side([0, 0, 0, 2, 0, 1], 20), side([1, 0, 1, 0, 0, 1], 22)],
            to_move: 0,
        };
        let analysable = position_from_pb(&position).expect("valid");
        let kalah = analysable.position.expect("game on");
        let solved = Solver::new(16).solve(&kalah);
        let answer = analyze_blocking(analysable, 1_000);
        assert!(answer.exact);
        assert_eq!(answer.margin, solved.margin);
        let best = answer.best_pit.expect("a best sow");
        let best_value = answer.sows.iter().find(|v| v.pit == best).expect("listed");
        assert_eq!(best_value.margin, solved.margin);
        assert_eq!(Some(best), solved.best.map(u32::from));
        assert_eq!(
            answer.sows.iter().map(|v| v.pit).collect::<Vec<_>>(),
            vec![4, 6]
        );
    }
}
