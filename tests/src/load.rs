//! What the multi-process load plays and how its clients ride out faults: shared by the kill
//! scenarios (`tests/tests/faults.rs`) and the soak (`src/bin/soak.rs`). Rule ids refer to
//! shared/rules/caro.md.

use ludus_proto::pb;
use tonic::Code;

/// Caro cells X plays, in order: every other column of rows 1, 5, 9 and 13. Nothing here
/// makes five in a row (C3) for either side, so a game lasts as long as the load wants
/// (32 moves each).
pub fn x_cells() -> Vec<String> {
    cells(&[1, 5, 9, 13])
}

/// O's cells: every other column of rows 3, 7, 11 and 15.
pub fn o_cells() -> Vec<String> {
    cells(&[3, 7, 11, 15])
}

fn cells(rows: &[u32]) -> Vec<String> {
    rows.iter()
        .flat_map(|row| {
            ['A', 'C', 'E', 'G', 'I', 'K', 'M', 'O']
                .into_iter()
                .map(move |col| format!("{col}{row}"))
        })
        .collect()
}

/// The eight Caro quick-match queues (C1 board sizes, C5 variants): a ticket in one meets
/// only tickets of the same queue.
pub fn caro_variants() -> Vec<pb::GameSettings> {
    let mut variants = Vec::new();
    for board_size in [15, 19] {
        for blocked_ends_off in [false, true] {
            for exactly_five in [false, true] {
                variants.push(pb::GameSettings {
                    options: Some(pb::game_settings::Options::Caro(pb::CaroOptions {
                        board_size,
                        blocked_ends_off,
                        exactly_five,
                    })),
                    turn_time_ms: 0,
                });
            }
        }
    }
    variants
}

/// What a client retries: UNAVAILABLE from the server (the contract's one code to retry), or
/// a failure of the client's own connection, when no answer came at all (the gateway it
/// reached died, its connection broke mid-call, its deadline passed). A status the server
/// sent has no source error; one the client's transport made up has one. UNKNOWN, INTERNAL
/// or CANCELLED *from the server* is never retryable: the gateway must not answer them for a
/// broken transport of its own (ARCHITECTURE.md, "Error codes").
pub fn retryable(status: &tonic::Status) -> bool {
    let local = std::error::Error::source(status).is_some();
    match status.code() {
        Code::Unavailable => true,
        Code::Unknown | Code::Cancelled | Code::DeadlineExceeded | Code::Internal => local,
        _ => false,
    }
}

/// A move in a game's log, or one the server acknowledged: the seq of its event, the seat
/// that played it and its cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acked {
    pub seq: u64,
    pub seat: u32,
    pub cell: String,
}

/// The moves a game's log holds, in order (what the acknowledged moves are checked against).
pub fn moves_in(log: &[pb::GameEvent]) -> Vec<Acked> {
    log.iter()
        .filter_map(|event| match &event.kind {
            Some(pb::game_event::Kind::ActionApplied(applied)) => Some(Acked {
                seq: event.seq,
                seat: applied.seat,
                cell: applied.notation.clone(),
            }),
            _ => None,
        })
        .collect()
}
