//! The rules crates' views as JSON shaped like the gRPC contract's messages (`CaroView`,
//! `MancalaView` in `proto/ludus/v1`), which the page's boards already draw.

use ludus_caro::{CaroView, Cell, Stone};
use ludus_mancala::{LastSeed, MancalaView, RuleSet, Spot};
use serde_json::{Value, json};

fn stone(stone: Option<Stone>) -> u8 {
    match stone {
        None => 0,
        Some(Stone::X) => 1,
        Some(Stone::O) => 2,
    }
}

fn cell(cell: &Cell) -> Value {
    json!({ "column": cell.col, "row": cell.row, "name": cell.to_string() })
}

/// `ludus.v1.CaroView`.
pub fn caro(view: &CaroView) -> Value {
    json!({
        "boardSize": view.options.size,
        "cells": view.cells.iter().map(|c| stone(*c)).collect::<Vec<_>>(),
        "moves": view.moves.iter().map(cell).collect::<Vec<_>>(),
        "seatStones": [1, 2],
        "winningLine": view.winning_line.iter().map(cell).collect::<Vec<_>>(),
        "options": {
            "boardSize": view.options.size,
            "blockedEndsOff": !view.options.blocked_ends,
            "exactlyFive": view.options.exactly_five,
        },
    })
}

fn spot(spot: &Spot) -> Value {
    match spot {
        Spot::Pit { seat, pit } => json!({ "seat": seat, "pit": pit }),
        Spot::Store { seat } => json!({ "seat": seat, "pit": 0 }),
    }
}

/// `ludus.v1.MancalaView`.
pub fn mancala(view: &MancalaView) -> Value {
    let last_sow = view.last_sow.as_ref().map(|sow| {
        let (kind, at, captured) = match &sow.last_seed {
            LastSeed::Store => (1, json!({ "seat": sow.seat, "pit": 0 }), 0),
            LastSeed::Capture { pit, opposite } => (
                2,
                json!({ "seat": sow.seat, "pit": pit }),
                u32::from(*opposite) + 1,
            ),
            LastSeed::OwnEmptyPit { pit } => (3, json!({ "seat": sow.seat, "pit": pit }), 0),
            LastSeed::Stopped { spot: at } => (4, spot(at), 0),
        };
        json!({
            "seat": sow.seat,
            "pit": sow.pit,
            "laps": sow.laps.iter().map(|lap| json!({
                "from": spot(&lap.from),
                "drops": lap.drops.iter().map(spot).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "lastSeed": { "kind": kind, "spot": at, "captured": captured },
            "swept": sow.swept.map(|s| s.to_vec()).unwrap_or_default(),
        })
    });
    json!({
        "ruleSet": if view.rule_set == RuleSet::Kalah { 1 } else { 2 },
        "viewerSeat": view.viewer,
        "sides": (0..2).map(|seat| json!({
            "pits": view.pits[seat],
            "store": view.stores[seat],
        })).collect::<Vec<_>>(),
        "toMove": view.to_move,
        "firstSeat": view.first,
        "extraTurn": view.extra_turn,
        "sows": view.sows,
        "sowLimit": view.sow_limit,
        "legalPits": view.legal_pits,
        "lastSow": last_sow,
    })
}
