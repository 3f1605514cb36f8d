//! The Mancala board (Kalah and Congklak), drawn from the viewer's side.
//!
//! The viewer's row is at the bottom (seat 0's for a spectator). Pits are numbered from their
//! owner's far end toward the owner's store (M1), and own pit `i` faces the opponent's pit
//! `n + 1 - i`. Kalah sows counterclockwise with the store on the mover's right; Congklak
//! sows clockwise with the store on the mover's left (K1), so the bottom numbers run left to
//! right in Kalah and right to left in Congklak, the stores swapping sides to match.
//!
//! The last sow is highlighted without colour: the pit it was sown from in parentheses
//! `( 0)`, the spot where its last seed landed in brackets `[ 5]`.

use std::fmt::Write as _;

use ludus_proto::pb;

use super::{player_name, trimmed};
use crate::i18n::{tr, trf};

/// Most pits a side has (Congklak, K1).
const MAX_PITS: usize = 7;

/// How a spot is highlighted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Plain,
    /// The pit the last sow picked up from.
    From,
    /// Where the last seed landed.
    Last,
}

/// One pit or store, four characters wide: ` 12 `, `( 0)`, `[ 5]`.
fn cell(seeds: u32, mark: Mark) -> String {
    let (open, close) = match mark {
        Mark::Plain => (' ', ' '),
        Mark::From => ('(', ')'),
        Mark::Last => ('[', ']'),
    };
    format!("{open}{seeds:>2}{close}")
}

/// Draws the board with the viewer's side at the bottom, then stores, the last sow and the
/// sow count.
pub fn render(view: &pb::MancalaView, me: Option<u32>, seats: &[pb::SeatInfo]) -> String {
    let [first, second] = view.sides.as_slice() else {
        return trf("mancala.badSides", &[("sides", &view.sides.len())]);
    };
    let pits = first.pits.len();
    if pits == 0 || pits > MAX_PITS || second.pits.len() != pits {
        return trf(
            "mancala.badPits",
            &[("first", &first.pits.len()), ("second", &second.pits.len())],
        );
    }
    let side_of = |seat: u32| if seat == 1 { second } else { first };
    // Events carry the public view (no viewer seat), so the seat this client plays wins.
    let bottom = me.or(view.viewer_seat).filter(|s| *s < 2).unwrap_or(0);
    let top = 1 - bottom;
    let congklak = view.rule_set == pb::MancalaRuleSet::Congklak as i32;
    let n = u32::try_from(pits).unwrap_or(0);
    // Pit numbers by column, left to right.
    let bottom_pits: Vec<u32> = if congklak {
        (1..=n).rev().collect()
    } else {
        (1..=n).collect()
    };
    let top_pits: Vec<u32> = bottom_pits.iter().map(|p| n + 1 - p).collect();
    let (left_store, right_store) = if congklak {
        (bottom, top)
    } else {
        (top, bottom)
    };

    let sow = view.last_sow.as_ref();
    let from = sow
        .and_then(|s| s.laps.first())
        .and_then(|lap| lap.from.as_ref())
        .map(|spot| (spot.seat, spot.pit))
        .or_else(|| sow.map(|s| (s.seat, s.pit)));
    let last = sow
        .and_then(|s| s.last_seed.as_ref())
        .and_then(|seed| seed.spot.as_ref())
        .map(|spot| (spot.seat, spot.pit));
    let mark = |seat: u32, pit: u32| {
        if last == Some((seat, pit)) {
            Mark::Last
        } else if from == Some((seat, pit)) {
            Mark::From
        } else {
            Mark::Plain
        }
    };
    let pit_seeds = |seat: u32, pit: u32| {
        side_of(seat)
            .pits
            .get(pit.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(0)
    };
    let row = |seat: u32, numbers: &[u32]| -> String {
        numbers
            .iter()
            .map(|p| cell(pit_seeds(seat, *p), mark(seat, *p)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let labels = |numbers: &[u32]| -> String {
        numbers
            .iter()
            .map(|p| format!(" {p:>2} "))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let name = |seat: u32| {
        let mut name = trf(
            "history.playerSeat",
            &[("name", &player_name(seats, seat)), ("seat", &seat)],
        );
        if me == Some(seat) {
            name.push_str(tr("render.you"));
        }
        name
    };

    let indent = "      ";
    let width = pits * 5 - 1;
    let mut out = String::new();
    let _ = writeln!(out, "{indent}{}", labels(&top_pits));
    let _ = writeln!(out, "{indent}{}   {}", row(top, &top_pits), name(top));
    let _ = writeln!(
        out,
        "{}  {:width$}  {}",
        cell(side_of(left_store).store, mark(left_store, 0)),
        "",
        cell(side_of(right_store).store, mark(right_store, 0)),
    );
    let _ = writeln!(
        out,
        "{indent}{}   {}",
        row(bottom, &bottom_pits),
        name(bottom)
    );
    let _ = writeln!(out, "{indent}{}", labels(&bottom_pits));
    let _ = writeln!(
        out,
        "{}",
        trf(
            "mancala.stores",
            &[
                ("bottom", &player_name(seats, bottom)),
                ("bottomStore", &side_of(bottom).store),
                ("top", &player_name(seats, top)),
                ("topStore", &side_of(top).store),
                (
                    "rules",
                    &if congklak {
                        tr("mancala.congklakClockwise")
                    } else {
                        tr("mancala.kalahCounterclockwise")
                    }
                ),
                ("sows", &view.sows),
                ("limit", &view.sow_limit),
            ],
        )
    );
    if let Some(sow) = sow {
        out.push_str(&last_sow_line(sow, seats));
    }
    if let Some(seat) = view.to_move {
        if view.extra_turn {
            let _ = writeln!(
                out,
                "{}",
                trf("mancala.sowsAgain", &[("who", &player_name(seats, seat))])
            );
        }
        if !view.legal_pits.is_empty() {
            let legal: Vec<String> = view.legal_pits.iter().map(u32::to_string).collect();
            let _ = writeln!(
                out,
                "{}",
                trf(
                    "mancala.maySow",
                    &[
                        ("who", &player_name(seats, seat)),
                        ("pits", &legal.join(" "))
                    ],
                )
            );
        }
    }
    trimmed(&out)
}

/// `last: ann sowed pit 3; captured 5 (the last seed and 4 opposite)`.
fn last_sow_line(sow: &pb::MancalaSow, seats: &[pb::SeatInfo]) -> String {
    let mut line = trf(
        "mancala.lastSow",
        &[("who", &player_name(seats, sow.seat)), ("pit", &sow.pit)],
    );
    if sow.laps.len() > 1 {
        let relays = sow.laps.len() - 1;
        let key = if relays == 1 {
            "mancala.oneRelay"
        } else {
            "mancala.relays"
        };
        line.push_str(&trf(key, &[("relays", &relays)]));
    }
    if let Some(seed) = sow.last_seed.as_ref() {
        match pb::MancalaLastSeedKind::try_from(seed.kind) {
            Ok(pb::MancalaLastSeedKind::Store) => line.push_str(tr("mancala.lastInStore")),
            Ok(pb::MancalaLastSeedKind::Capture) => {
                line.push_str(&trf(
                    "mancala.captured",
                    &[
                        ("total", &(seed.captured + 1)),
                        ("opposite", &seed.captured),
                    ],
                ));
            }
            Ok(pb::MancalaLastSeedKind::OwnEmptyPit) => {
                line.push_str(tr("mancala.emptyFacingEmpty"));
            }
            Ok(pb::MancalaLastSeedKind::Stopped | pb::MancalaLastSeedKind::Unspecified)
            | Err(_) => {}
        }
    }
    if let [a, b] = sow.swept.as_slice() {
        line.push_str(&trf(
            "mancala.swept",
            &[
                ("first", &player_name(seats, 0)),
                ("a", &a),
                ("second", &player_name(seats, 1)),
                ("b", &b),
            ],
        ));
    }
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::ann_and_bob as seats;

    fn spot(seat: u32, pit: u32) -> Option<pb::MancalaSpot> {
        Some(pb::MancalaSpot { seat, pit })
    }

    /// Kalah after seat 0 sowed pit 3 (4 seeds: pits 4, 5, 6 and the store), seat 0 to sow
    /// again.
    fn kalah_after_pit_3() -> pb::MancalaView {
        pb::MancalaView {
            rule_set: pb::MancalaRuleSet::Kalah as i32,
            viewer_seat: None,
            sides: vec![
                pb::MancalaSide {
                    pits: vec![4, 4, 0, 5, 5, 5],
                    store: 1,
                },
                pb::MancalaSide {
                    pits: vec![4, 4, 4, 4, 4, 4],
                    store: 0,
                },
            ],
            to_move: Some(0),
            first_seat: 0,
            extra_turn: true,
            sows: 1,
            sow_limit: 400,
            legal_pits: vec![1, 2, 4, 5, 6],
            last_sow: Some(pb::MancalaSow {
                seat: 0,
                pit: 3,
                laps: vec![pb::MancalaSowLap {
                    from: spot(0, 3),
                    drops: vec![
                        pb::MancalaSpot { seat: 0, pit: 4 },
                        pb::MancalaSpot { seat: 0, pit: 5 },
                        pb::MancalaSpot { seat: 0, pit: 6 },
                        pb::MancalaSpot { seat: 0, pit: 0 },
                    ],
                }],
                last_seed: Some(pb::MancalaLastSeed {
                    kind: pb::MancalaLastSeedKind::Store as i32,
                    spot: spot(0, 0),
                    captured: 0,
                }),
                swept: Vec::new(),
            }),
            outcome: None,
        }
    }

    #[test]
    fn kalah_from_seat_0_puts_its_pits_left_to_right_and_its_store_right() {
        let text = render(&kalah_after_pit_3(), Some(0), &seats());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "        6    5    4    3    2    1", "{text}");
        assert_eq!(
            lines[1],
            "        4    4    4    4    4    4    bob (seat 1)"
        );
        // Left: bob's store; right: ann's, where the last seed landed.
        assert_eq!(lines[2], "  0                                  [ 1]");
        assert_eq!(
            lines[3],
            "        4    4  ( 0)   5    5    5    ann (seat 0) — you"
        );
        assert_eq!(lines[4], "        1    2    3    4    5    6");
        assert!(
            text.contains("stores: ann 1, bob 0   (kalah, counterclockwise; 1 sows so far of 400)")
        );
        assert!(text.contains("last: ann sowed pit 3; the last seed ended in the store\n"));
        assert!(text.contains("ann sows again (M5)\n"));
        assert!(text.contains("ann may sow pits 1 2 4 5 6\n"));
        assert!(text.lines().all(|l| l == l.trim_end()));
    }

    #[test]
    fn kalah_from_seat_1_turns_the_board_round() {
        let text = render(&kalah_after_pit_3(), Some(1), &seats());
        let lines: Vec<&str> = text.lines().collect();
        // ann's pits are on top now, numbered right to left, her store on the left.
        assert_eq!(lines[0], "        6    5    4    3    2    1", "{text}");
        assert_eq!(
            lines[1],
            "        5    5    5  ( 0)   4    4    ann (seat 0)"
        );
        assert_eq!(lines[2], "[ 1]                                   0");
        assert_eq!(
            lines[3],
            "        4    4    4    4    4    4    bob (seat 1) — you"
        );
    }

    fn congklak() -> pb::MancalaView {
        let mut sides = vec![
            pb::MancalaSide {
                pits: vec![1, 2, 3, 4, 5, 6, 7],
                store: 10,
            },
            pb::MancalaSide {
                pits: vec![11, 12, 13, 14, 15, 0, 17],
                store: 20,
            },
        ];
        sides[1].pits[0] = 0;
        pb::MancalaView {
            rule_set: pb::MancalaRuleSet::Congklak as i32,
            sides,
            to_move: Some(0),
            sows: 9,
            sow_limit: 400,
            last_sow: Some(pb::MancalaSow {
                seat: 1,
                pit: 6,
                laps: vec![
                    pb::MancalaSowLap {
                        from: spot(1, 6),
                        drops: Vec::new(),
                    },
                    pb::MancalaSowLap {
                        from: spot(0, 2),
                        drops: Vec::new(),
                    },
                ],
                last_seed: Some(pb::MancalaLastSeed {
                    kind: pb::MancalaLastSeedKind::Capture as i32,
                    spot: spot(1, 1),
                    captured: 7,
                }),
                swept: Vec::new(),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn congklak_runs_clockwise_with_captures_and_relays() {
        let view = congklak();
        // A spectator sees seat 0 at the bottom.
        let text = render(&view, None, &seats());
        let lines: Vec<&str> = text.lines().collect();
        // Top: bob's pits 1..7 left to right, his store on the right.
        assert_eq!(
            lines[0], "        1    2    3    4    5    6    7",
            "{text}"
        );
        assert_eq!(
            lines[1],
            "      [ 0]  12   13   14   15  ( 0)  17    bob (seat 1)"
        );
        assert_eq!(lines[2], " 10                                        20");
        assert_eq!(
            lines[3],
            "        7    6    5    4    3    2    1    ann (seat 0)"
        );
        assert_eq!(lines[4], "        7    6    5    4    3    2    1");
        assert!(
            text.contains(
                "last: bob sowed pit 6 with 1 relay; captured 8 (the last seed and 7 opposite)"
            ),
            "{text}"
        );
    }

    #[test]
    fn malformed_boards_are_a_note() {
        let view = pb::MancalaView::default();
        assert!(render(&view, None, &[]).contains("0 mancala sides"));
        let view = pb::MancalaView {
            sides: vec![
                pb::MancalaSide {
                    pits: vec![1; 6],
                    store: 0,
                },
                pb::MancalaSide {
                    pits: vec![1; 5],
                    store: 0,
                },
            ],
            ..Default::default()
        };
        assert!(render(&view, None, &[]).contains("6 and 5 pits"));
    }

    #[test]
    fn stores_and_the_last_sow_read_in_vietnamese() {
        let text = crate::i18n::in_vietnamese(|| render(&kalah_after_pit_3(), Some(0), &seats()));
        assert!(text.contains("ann (ghế 0) — bạn"), "{text}");
        assert!(
            text.contains(
                "kho: ann 1, bob 0   (kalah, ngược chiều kim đồng hồ; đã rải 1 trên tối đa 400 lần)"
            ),
            "{text}"
        );
        assert!(
            text.contains("vừa rồi: ann rải hố 3; hạt cuối vào kho\n"),
            "{text}"
        );
        assert!(text.contains("ann được rải thêm lượt (M5)\n"), "{text}");
        assert!(text.contains("ann được rải các hố 1 2 4 5 6\n"), "{text}");
    }
}
