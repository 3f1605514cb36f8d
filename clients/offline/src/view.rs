//! The rules crates' views and actions as the gRPC contract's messages (`CaroView`,
//! `QuoridorView`, …, `Action` in `proto/ludus/v1`) in protobuf's JSON mapping (camelCase
//! names, a oneof as the field that is set, enums as numbers), which the page reads with
//! `fromJson` and draws with the online boards. The mapping mirrors `ludus-catalog`'s, which
//! cannot come here: it builds on the gRPC crates.

use ludus_backgammon::{Action as BgAction, BackgammonView, Play, ResignLevel, ViewPhase};
use ludus_caro::{CaroAction, CaroView, Cell, Stone};
use ludus_junqi::{
    Action as JunqiAction, Colour, CombatResult, Event, JunqiView, Piece, PointView,
};
use ludus_mancala::{LastSeed, MancalaView, RuleSet, Sow, Spot};
use ludus_quoridor::{
    Cell as QCell, Edge, GoalKind, Mode, Orientation, PawnGoal, QuoridorAction, QuoridorView,
    Wall as QWall,
};
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

/// `ludus.v1.Action` holding a `CaroAction`.
pub fn caro_action(action: &CaroAction) -> Value {
    json!({ "caro": { "place": cell(&action.cell) } })
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

/// `ludus.v1.Action` holding a `MancalaAction`.
pub fn mancala_action(action: &Sow) -> Value {
    json!({ "mancala": { "pit": action.pit } })
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

// ---- Quoridor ----

fn quoridor_cell(cell: QCell) -> Value {
    json!({ "file": cell.file, "rank": cell.rank })
}

fn quoridor_wall(wall: QWall) -> Value {
    let orientation = match wall.orientation {
        Orientation::Horizontal => 1,
        Orientation::Vertical => 2,
    };
    json!({ "cell": quoridor_cell(wall.cell), "orientation": orientation })
}

fn quoridor_action_body(action: QuoridorAction) -> Value {
    match action {
        QuoridorAction::Move(cell) => json!({ "move": quoridor_cell(cell) }),
        QuoridorAction::Wall(wall) => json!({ "wall": quoridor_wall(wall) }),
        QuoridorAction::Pass => json!({ "pass": {} }),
    }
}

/// `ludus.v1.Action` holding a `QuoridorAction`.
pub fn quoridor_action(action: &QuoridorAction) -> Value {
    json!({ "quoridor": quoridor_action_body(*action) })
}

/// `ludus.v1.QuoridorView`.
pub fn quoridor(view: &QuoridorView) -> Value {
    let mode = match view.mode {
        Mode::FreeForAll => 1,
        Mode::Teams => 2,
        Mode::TournamentMatch => 3,
    };
    let goal = match view.goal {
        GoalKind::Opposite => 1,
        GoalKind::Center => 2,
    };
    let pawns: Vec<Value> = view
        .pawns
        .iter()
        .map(|pawn| {
            let goal = match pawn.goal {
                PawnGoal::Edge(Edge::Top) => 1,
                PawnGoal::Edge(Edge::Bottom) => 2,
                PawnGoal::Edge(Edge::Left) => 3,
                PawnGoal::Edge(Edge::Right) => 4,
                PawnGoal::Center => 5,
            };
            json!({
                "side": pawn.side,
                // QuoridorColour counts from RED = 1 in the order of the rules' Colour.
                "colour": pawn.colour as u8 + 1,
                "cell": quoridor_cell(pawn.cell),
                "goal": goal,
                "seats": pawn.seats,
                "wallsLeft": pawn.walls_left,
                "moves": pawn.moves,
                "distance": pawn.distance,
                "inGame": pawn.in_game,
            })
        })
        .collect();
    let walls: Vec<Value> = view
        .walls
        .iter()
        .map(|placed| json!({ "wall": quoridor_wall(placed.wall), "side": placed.side }))
        .collect();
    let last = view.last_action.as_ref().map(|last| {
        json!({
            "seat": last.seat,
            "side": last.side,
            "action": quoridor_action_body(last.action),
            "from": last.from.map(quoridor_cell),
            "automatic": last.automatic,
        })
    });
    json!({
        "size": view.size,
        "mode": mode,
        "goal": goal,
        "pawns": pawns,
        "walls": walls,
        "lastAction": last,
        "toMove": view.to_move,
        "sideToMove": view.side_to_move,
        "you": view.you,
        "moveLimit": view.move_limit,
        "ply": view.ply,
    })
}

// ---- Backgammon ----

fn backgammon_play(play: &Play) -> Value {
    let moves: Vec<Value> = play
        .moves()
        .iter()
        .map(|m| json!({ "from": m.from, "to": m.to, "hit": m.hit }))
        .collect();
    json!({ "moves": moves })
}

fn resign_level(level: ResignLevel) -> u8 {
    match level {
        ResignLevel::Single => 1,
        ResignLevel::Gammon => 2,
        ResignLevel::Backgammon => 3,
    }
}

/// `ludus.v1.Action` holding a `BackgammonAction`.
pub fn backgammon_action(action: &BgAction) -> Value {
    let simple = |n: u8| json!({ "simple": n });
    let body = match action {
        BgAction::Roll => simple(1),
        BgAction::Double => simple(2),
        BgAction::Take => simple(3),
        BgAction::Drop => simple(4),
        BgAction::Beaver => simple(5),
        BgAction::AcceptResignation => simple(6),
        BgAction::RejectResignation => simple(7),
        BgAction::Play(play) => json!({ "play": backgammon_play(play) }),
        BgAction::Resign(level) => json!({ "resign": resign_level(*level) }),
    };
    json!({ "backgammon": body })
}

/// `ludus.v1.BackgammonView`.
pub fn backgammon(view: &BackgammonView) -> Value {
    let phase = match view.phase {
        ViewPhase::Roll => 1,
        ViewPhase::Play => 2,
        ViewPhase::DoubleOffered => 3,
        ViewPhase::ResignationOffered => 4,
        ViewPhase::Over => 5,
    };
    json!({
        "points": view.points,
        "you": view.viewer,
        "mirrored": view.mirrored,
        "bar": view.bar,
        "off": view.off,
        "pips": view.pips,
        "turn": view.turn,
        "toMove": view.to_move,
        "phase": phase,
        "dice": view.dice.map(|d| d.to_vec()).unwrap_or_default(),
        "cubeValue": view.cube_value,
        "cubeOwner": view.cube_owner,
        "canDouble": view.can_double,
        "doubleOffer": view.double_offer.map(|d| json!({ "by": d.by, "value": d.value, "beaver": d.beaver })),
        "resignationOffer": view.resignation_offer.map(|r| json!({
            "by": r.by, "level": resign_level(r.level), "points": r.points,
        })),
        "matchLength": view.match_length,
        "score": view.score,
        "crawford": view.crawford,
        "jacoby": view.jacoby,
        "beavers": view.beavers,
        "automaticDoubles": view.automatic_doubles,
        "legalPlays": view.legal_plays.iter().map(backgammon_play).collect::<Vec<_>>(),
        "lastPlay": view.last_play.as_ref().map(|last| json!({
            "seat": last.seat,
            "dice": last.dice,
            "play": backgammon_play(&last.play),
            "automatic": last.automatic,
        })),
        "positionId": view.position_id,
        "matchId": view.match_id,
        "timeouts": view.timeouts,
        "ply": view.ply,
    })
}

// ---- Flip Junqi ----

fn junqi_colour(colour: Option<Colour>) -> u8 {
    match colour {
        None => 0,
        Some(Colour::Red) => 1,
        Some(Colour::Blue) => 2,
    }
}

fn junqi_piece(piece: Piece) -> Value {
    // JunqiRank counts from COMMANDER = 1 in the order of `Rank::ALL`.
    json!({ "colour": junqi_colour(Some(piece.colour)), "rank": piece.rank.index() + 1 })
}

fn junqi_action_body(action: &JunqiAction) -> Value {
    match action {
        JunqiAction::Flip(point) => json!({ "flip": { "point": point.to_string() } }),
        JunqiAction::Move { from, to } => {
            json!({ "move": { "from": from.to_string(), "to": to.to_string() } })
        }
    }
}

/// `ludus.v1.Action` holding a `JunqiAction`.
pub fn junqi_action(action: &JunqiAction) -> Value {
    json!({ "junqi": junqi_action_body(action) })
}

/// `ludus.v1.JunqiView`. Face-down points carry no piece: the rules' view never names one
/// (J22), so neither does this.
pub fn junqi(view: &JunqiView) -> Value {
    let points: Vec<Value> = view
        .points
        .iter()
        .map(|point| match point {
            PointView::Empty => json!({ "state": 1 }),
            PointView::FaceDown => json!({ "state": 2 }),
            PointView::FaceUp(piece) => json!({ "state": 3, "piece": junqi_piece(*piece) }),
        })
        .collect();
    let last = view.last_action.as_ref().map(|last| {
        let (piece, defender, combat) = match last.event {
            Event::Flipped(piece) | Event::Moved(piece) => (piece, None, 0),
            Event::Combat {
                attacker,
                defender,
                result,
            } => (
                attacker,
                Some(junqi_piece(defender)),
                match result {
                    CombatResult::AttackerWins => 1,
                    CombatResult::BothRemoved => 2,
                },
            ),
        };
        json!({
            "seat": last.seat,
            "action": junqi_action_body(&last.action),
            "notation": last.action.to_string(),
            "automatic": last.automatic,
            "piece": junqi_piece(piece),
            "defender": defender,
            "combat": combat,
        })
    });
    json!({
        "viewerSeat": view.viewer,
        "points": points,
        "viewerColour": junqi_colour(view.viewer_colour),
        "opponentColour": junqi_colour(view.opponent_colour),
        "seatColours": view.seat_colours.iter().map(|c| junqi_colour(*c)).collect::<Vec<_>>(),
        "lastFlipColours": view.last_flips.iter().map(|c| junqi_colour(*c)).collect::<Vec<_>>(),
        "autoplay": view.autoplay,
        "toMove": view.to_move,
        "quietActions": view.quiet_actions,
        "drawLimit": view.draw_limit,
        "lastAction": last,
        "ply": view.ply,
    })
}
