//! The Backgammon board, from the viewer's side: the 24 points, the bar, borne-off checkers,
//! dice, cube and pip counts.
//!
//! Points are numbered from the viewer's own home board (B1), as the viewer types them: the
//! home board 1-6 at the bottom right, 7-12 bottom left, 13-18 top left, 19-24 top right.
//! Black (seat 1) sees the board turned half round, so its own numbers read the same way.
//! Spectators see white's side. A point shows its count and colour (`5W`, `2B`); the points
//! the last play landed on are in brackets (`[3W]`), without colour.

use std::fmt::Write as _;

use ludus_proto::pb;

use super::{player_name, trimmed};
use crate::i18n::{tr, trf};

/// Where a move starts from the bar / ends borne off, in a seat's numbering.
const BAR: u32 = 25;
const OFF: u32 = 0;

/// The colour a seat plays: seat 0 is white, seat 1 black.
pub fn seat_colour(seat: u32) -> &'static str {
    if seat == 0 {
        tr("backgammon.white")
    } else {
        tr("backgammon.black")
    }
}

/// `white (ann)`.
fn who(seats: &[pb::SeatInfo], seat: u32) -> String {
    format!("{} ({})", seat_colour(seat), player_name(seats, seat))
}

/// A seat's point `p` (1-24, its own numbering) as white's point.
fn to_white(seat: u32, point: u32) -> u32 {
    if seat == 1 { 25 - point } else { point }
}

/// One move in standard notation: `24/18`, `bar/22`, `6/off`, `13/7*`.
fn move_text(m: &pb::BackgammonMove) -> String {
    let end = |p: u32| match p {
        BAR => "bar".to_owned(),
        OFF => "off".to_owned(),
        p => p.to_string(),
    };
    format!(
        "{}/{}{}",
        end(m.from),
        end(m.to),
        if m.hit { "*" } else { "" }
    )
}

/// Draws the board from the viewer's side, then bar, off, pips, dice, cube and the last play.
pub fn render(view: &pb::BackgammonView, me: Option<u32>, seats: &[pb::SeatInfo]) -> String {
    if view.points.len() != 24 {
        return trf("backgammon.badPoints", &[("points", &view.points.len())]);
    }
    // Events carry the public view, so the seat this client plays decides the side.
    let viewer = me.or(view.you).unwrap_or(0);
    let black = viewer == 1;
    // Viewer's point (1-24) -> index into `points` (white's point - 1).
    let index = |p: u32| (if black { 25 - p } else { p }) as usize - 1;
    let landed: Vec<u32> = view
        .last_play
        .as_ref()
        .and_then(|last| last.play.as_ref().map(|play| (last.seat, play)))
        .map(|(seat, play)| {
            play.moves
                .iter()
                .filter(|m| (1..=24).contains(&m.to))
                .map(|m| to_white(seat, m.to))
                .collect()
        })
        .unwrap_or_default();
    let cell = |p: u32| {
        let count = view.points.get(index(p)).copied().unwrap_or(0);
        let text = match count {
            0 => ".".to_owned(),
            c if c > 0 => format!("{c}W"),
            c => format!("{}B", c.unsigned_abs()),
        };
        let white_point = if black { 25 - p } else { p };
        if landed.contains(&white_point) {
            format!("[{text:>3}]")
        } else {
            format!(" {text:>3} ")
        }
    };
    let numbers =
        |points: &[u32]| -> String { points.iter().map(|p| format!(" {p:>3} ")).collect() };
    let cells = |points: &[u32]| -> String { points.iter().map(|p| cell(*p)).collect() };
    let top_left: Vec<u32> = (13..=18).collect();
    let top_right: Vec<u32> = (19..=24).collect();
    let bottom_left: Vec<u32> = (7..=12).rev().collect();
    let bottom_right: Vec<u32> = (1..=6).rev().collect();

    let mut out = String::new();
    let _ = writeln!(out, "{} bar {}", numbers(&top_left), numbers(&top_right));
    let _ = writeln!(out, "{}  |  {}", cells(&top_left), cells(&top_right));
    let _ = writeln!(out, "{}  |  {}", cells(&bottom_left), cells(&bottom_right));
    let _ = writeln!(
        out,
        "{} bar {}",
        numbers(&bottom_left),
        numbers(&bottom_right)
    );
    let two = |values: &[u32], seat: usize| values.get(seat).copied().unwrap_or(0);
    let side = |seat: u32| {
        let index = seat as usize;
        trf(
            "backgammon.side",
            &[
                ("who", &who(seats, seat)),
                ("bar", &two(&view.bar, index)),
                ("off", &two(&view.off, index)),
                ("pips", &two(&view.pips, index)),
            ],
        )
    };
    let _ = writeln!(out, "{}   {}", side(0), side(1));
    let dice = match view.dice.as_slice() {
        [] => tr("backgammon.notRolled").to_owned(),
        dice => dice
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("-"),
    };
    let cube = match view.cube_owner {
        Some(owner) => trf(
            "backgammon.cubeOwned",
            &[("value", &view.cube_value), ("who", &who(seats, owner))],
        ),
        None => trf(
            "backgammon.cubeMiddle",
            &[("value", &view.cube_value.max(1))],
        ),
    };
    out.push_str(&trf(
        "backgammon.onRoll",
        &[
            ("colour", &seat_colour(view.turn)),
            ("dice", &dice),
            ("cube", &cube),
        ],
    ));
    if view.can_double {
        out.push_str(tr("backgammon.mayDouble"));
    }
    out.push('\n');
    if view.match_length > 0 {
        let _ = writeln!(
            out,
            "{}{}",
            trf(
                "backgammon.matchScore",
                &[
                    ("length", &view.match_length),
                    ("white", &two(&view.score, 0)),
                    ("black", &two(&view.score, 1)),
                ],
            ),
            if view.crawford {
                tr("backgammon.crawford")
            } else {
                ""
            }
        );
    }
    if let Some(offer) = view.double_offer.as_ref() {
        let key = if offer.beaver {
            "backgammon.beaversTo"
        } else {
            "backgammon.doublesTo"
        };
        let _ = writeln!(
            out,
            "{}{}",
            trf(
                key,
                &[("who", &who(seats, offer.by)), ("value", &offer.value)]
            ),
            if view.beavers && !offer.beaver {
                tr("backgammon.orBeaver")
            } else {
                ""
            }
        );
    }
    if let Some(offer) = view.resignation_offer.as_ref() {
        let level = match pb::BackgammonResignLevel::try_from(offer.level) {
            Ok(pb::BackgammonResignLevel::Gammon) => tr("backgammon.resignGammon"),
            Ok(pb::BackgammonResignLevel::Backgammon) => tr("backgammon.resignBackgammon"),
            _ => tr("backgammon.resignSingle"),
        };
        let _ = writeln!(
            out,
            "{}",
            trf(
                "backgammon.resignOffer",
                &[
                    ("who", &who(seats, offer.by)),
                    ("level", &level),
                    ("points", &offer.points),
                ],
            )
        );
    }
    if let Some(last) = view.last_play.as_ref() {
        let moves: Vec<String> = last
            .play
            .as_ref()
            .map(|p| p.moves.iter().map(move_text).collect())
            .unwrap_or_default();
        let played = if moves.is_empty() {
            tr("backgammon.noPlay").to_owned()
        } else {
            moves.join(" ")
        };
        let dice: Vec<String> = last.dice.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "{}{}",
            trf(
                "backgammon.last",
                &[
                    ("who", &who(seats, last.seat)),
                    ("dice", &dice.join("-")),
                    ("played", &played),
                ],
            ),
            if last.automatic {
                tr("backgammon.automatic")
            } else {
                ""
            }
        );
    }
    trimmed(&out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::ann_and_bob as seats;

    /// The opening position after black (bob) rolled 6-5 and ran 24/13, then white rolled
    /// 3-1 and made its 5 point; white to play... cube owned by black at 2.
    fn view() -> pb::BackgammonView {
        let mut points = vec![0; 24];
        // White (white's numbering): 24 x2, 13 x5, 8 x2 (one went to 5), 6 x4, 5 x2.
        points[23] = 2;
        points[12] = 5;
        points[7] = 2;
        points[5] = 4;
        points[4] = 2;
        // Black: its 24 = white 1 (one left), 13 = white 12 (six), 8 = white 17 (3),
        // 6 = white 19 (5).
        points[0] = -1;
        points[11] = -6;
        points[16] = -3;
        points[18] = -5;
        pb::BackgammonView {
            points,
            you: None,
            mirrored: false,
            bar: vec![0, 0],
            off: vec![0, 0],
            pips: vec![164, 156],
            turn: 1,
            to_move: Some(1),
            phase: pb::BackgammonPhase::Roll as i32,
            dice: Vec::new(),
            cube_value: 2,
            cube_owner: Some(1),
            can_double: true,
            last_play: Some(pb::BackgammonLastPlay {
                seat: 0,
                dice: vec![3, 1],
                play: Some(pb::BackgammonPlay {
                    moves: vec![
                        pb::BackgammonMove {
                            from: 8,
                            to: 5,
                            hit: false,
                        },
                        pb::BackgammonMove {
                            from: 6,
                            to: 5,
                            hit: false,
                        },
                    ],
                }),
                automatic: false,
            }),
            ..Default::default()
        }
    }

    #[test]
    fn white_sees_its_home_board_bottom_right() {
        let text = render(&view(), Some(0), &seats());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0], "  13   14   15   16   17   18  bar   19   20   21   22   23   24",
            "{text}"
        );
        // White's 13 (five white) top left, its 24 (two white) top right.
        assert_eq!(
            lines[1],
            "  5W    .    .    .   3B    .   |    5B    .    .    .    .   2W"
        );
        // The last play landed on white's 5 point: bracketed.
        assert_eq!(
            lines[2],
            "  6B    .    .    .   2W    .   |    4W [ 2W]   .    .    .   1B"
        );
        assert_eq!(
            lines[3],
            "  12   11   10    9    8    7  bar    6    5    4    3    2    1"
        );
        assert!(text.contains(
            "white (ann): bar 0, off 0, 164 pips   black (bob): bar 0, off 0, 156 pips\n"
        ));
        assert!(text.contains(
            "black on roll, dice not rolled; cube 2, owned by black (bob); may double\n"
        ));
        assert!(
            text.contains("last: white (ann) rolled 3-1 and played 8/5 6/5\n"),
            "{text}"
        );
        assert!(text.lines().all(|l| l == l.trim_end()));
    }

    #[test]
    fn black_sees_the_board_turned_round() {
        let mut view = view();
        view.dice = vec![6, 5];
        view.phase = pb::BackgammonPhase::Play as i32;
        let text = render(&view, Some(1), &seats());
        let lines: Vec<&str> = text.lines().collect();
        // Black's 13 is white's 12 (six black), its 24 is white's 1 (one black).
        assert_eq!(
            lines[1], "  6B    .    .    .   2W    .   |    4W [ 2W]   .    .    .   1B",
            "{text}"
        );
        assert_eq!(
            lines[2],
            "  5W    .    .    .   3B    .   |    5B    .    .    .    .   2W"
        );
        assert!(text.contains("dice 6-5"));
    }

    #[test]
    fn offers_match_score_and_bad_boards() {
        let mut view = view();
        view.double_offer = Some(pb::BackgammonDoubleOffer {
            by: 1,
            value: 4,
            beaver: false,
        });
        view.beavers = true;
        view.match_length = 5;
        view.score = vec![2, 1];
        view.bar = vec![1, 0];
        let text = render(&view, None, &seats());
        assert!(
            text.contains("black (bob) doubles to 4: take or drop (or beaver)\n"),
            "{text}"
        );
        assert!(text.contains("match to 5: white 2, black 1\n"));
        assert!(text.contains("white (ann): bar 1,"));
        view.points.pop();
        assert!(render(&view, None, &[]).contains("23 backgammon points"));
    }

    #[test]
    fn the_status_lines_read_in_vietnamese_and_the_notation_stays() {
        let mut view = view();
        view.double_offer = Some(pb::BackgammonDoubleOffer {
            by: 1,
            value: 4,
            beaver: false,
        });
        view.match_length = 5;
        view.score = vec![2, 1];
        view.bar = vec![1, 0];
        let text = crate::i18n::in_vietnamese(|| render(&view, None, &seats()));
        assert!(
            text.contains("đen (bob) gấp đôi lên 4: take (nhận) hoặc drop (bỏ)\n"),
            "{text}"
        );
        assert!(text.contains("trận 5 điểm: trắng 2, đen 1\n"), "{text}");
        assert!(text.contains("trắng (ann): thanh giữa 1,"), "{text}");
        // The points' numbers and the bar column are notation, as typed (`bar/22`).
        assert!(
            text.lines().next().is_some_and(|l| l.contains(" bar ")),
            "{text}"
        );
    }
}
