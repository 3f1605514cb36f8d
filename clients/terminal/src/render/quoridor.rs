//! The Quoridor board: cells, pawns and the walls between them, in the standard notation.
//!
//! Files `a`… run left to right and ranks `1`… bottom to top, as in the notation players
//! type, so the board is drawn the same for everybody. Each cell is three characters wide
//! with a one-character gap for vertical walls (`|`), and between two ranks a line holds the
//! horizontal walls (`---`). A pawn is its colour's initial (`R` red, `Y` yellow, …).
//!
//! Under the grid the legend has one line per pawn in seat order, which is turn order (Q8):
//! clockwise from the bottom edge in games with three or more pawns (Q6, Q7, Q10). Each
//! line names the pawn's goal as the server's view gives it, so a game set up before that
//! order was revised, which keeps its layout, is drawn as it stands too.
//!
//! The last action is highlighted without colour: a move shows the pawn in brackets `[R]` and
//! the cell it left in parentheses `(.)`; the last wall is drawn with `=` (horizontal) or `#`
//! (vertical) instead of `-` or `|`.

use std::fmt::Write as _;

use ludus_proto::pb;

use super::{player_name, trimmed};
use crate::i18n::{tr, trf};

/// Largest board drawn (Q26 allows 13; files are single letters).
const MAX_SIZE: u32 = 26;

/// A colour's name and the letter its pawn is drawn with.
fn colour(colour: i32) -> (&'static str, char) {
    use pb::QuoridorColour as C;
    match C::try_from(colour) {
        Ok(C::Red) => (tr("quoridor.red"), 'R'),
        Ok(C::Yellow) => (tr("quoridor.yellow"), 'Y'),
        Ok(C::Blue) => (tr("quoridor.blue"), 'B'),
        Ok(C::Green) => (tr("quoridor.green"), 'G'),
        Ok(C::Purple) => (tr("quoridor.purple"), 'P'),
        Ok(C::Orange) => (tr("quoridor.orange"), 'O'),
        Ok(C::Cyan) => (tr("quoridor.cyan"), 'C'),
        Ok(C::Pink) => (tr("quoridor.pink"), 'K'),
        Ok(C::Unspecified) | Err(_) => (tr("quoridor.pawn"), '?'),
    }
}

/// The colour of the pawn a seat plays, e.g. `red`.
pub fn seat_colour(view: &pb::QuoridorView, seat: u32) -> Option<&'static str> {
    view.pawns
        .iter()
        .find(|p| p.seats.contains(&seat))
        .map(|p| colour(p.colour))
        .filter(|(_, letter)| *letter != '?')
        .map(|(name, _)| name)
}

/// A cell in notation, e.g. `e2`.
fn cell_name(cell: &pb::QuoridorCell) -> String {
    match u8::try_from(cell.file).ok().filter(|f| *f < 26) {
        Some(file) => format!("{}{}", char::from(b'a' + file), cell.rank.saturating_add(1)),
        None => format!("?{}", cell.rank.saturating_add(1)),
    }
}

/// A wall in notation, e.g. `e3h`.
fn wall_name(wall: &pb::QuoridorWall) -> String {
    let cell = wall.cell.as_ref().map_or_else(|| "?".to_owned(), cell_name);
    let way = if wall.orientation == pb::QuoridorOrientation::Vertical as i32 {
        'v'
    } else {
        'h'
    };
    format!("{cell}{way}")
}

/// A wall slot as (file, rank, vertical).
fn slot(wall: &pb::QuoridorWall) -> Option<(u32, u32, bool)> {
    let cell = wall.cell.as_ref()?;
    let vertical = match pb::QuoridorOrientation::try_from(wall.orientation) {
        Ok(pb::QuoridorOrientation::Vertical) => true,
        Ok(pb::QuoridorOrientation::Horizontal) => false,
        _ => return None,
    };
    Some((cell.file, cell.rank, vertical))
}

/// Draws the grid with its labels, then one line per pawn and the last action.
pub fn render(view: &pb::QuoridorView, seats: &[pb::SeatInfo]) -> String {
    let n = view.size;
    if !(2..=MAX_SIZE).contains(&n) {
        return trf("quoridor.badSize", &[("size", &n)]);
    }
    let walls: Vec<(u32, u32, bool)> = view
        .walls
        .iter()
        .filter_map(|w| w.wall.as_ref().and_then(slot))
        .collect();
    let last = view.last_action.as_ref();
    let last_kind = last
        .and_then(|l| l.action.as_ref())
        .and_then(|a| a.kind.as_ref());
    let last_wall = match last_kind {
        Some(pb::quoridor_action::Kind::Wall(wall)) => slot(wall),
        _ => None,
    };
    let last_to = match last_kind {
        Some(pb::quoridor_action::Kind::Move(cell)) => Some((cell.file, cell.rank)),
        _ => None,
    };
    let last_from = last_to
        .and(last.and_then(|l| l.from.as_ref()))
        .map(|c| (c.file, c.rank));
    let has = |file: u32, rank: u32, vertical: bool| walls.contains(&(file, rank, vertical));
    let is_last = |file: u32, rank: u32, vertical: bool| last_wall == Some((file, rank, vertical));
    let pawn_at = |file: u32, rank: u32| {
        view.pawns
            .iter()
            .filter(|p| p.in_game)
            .find(|p| {
                p.cell
                    .as_ref()
                    .is_some_and(|c| c.file == file && c.rank == rank)
            })
            .map(|p| colour(p.colour).1)
    };

    let letters: String = (0..n)
        .map(|f| format!(" {} ", char::from(b'a' + u8::try_from(f).unwrap_or(0))))
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = String::new();
    let _ = writeln!(out, "   {letters}");
    for rank in (0..n).rev() {
        let mut line = format!("{:>2} ", rank + 1);
        for file in 0..n {
            let piece = pawn_at(file, rank).unwrap_or('.');
            let (open, close) = if last_to == Some((file, rank)) {
                ('[', ']')
            } else if last_from == Some((file, rank)) {
                ('(', ')')
            } else {
                (' ', ' ')
            };
            line.push(open);
            line.push(piece);
            line.push(close);
            if file + 1 < n {
                // A vertical wall in slot (file, r) covers ranks r and r + 1.
                let here = |r: u32| has(file, r, true).then(|| is_last(file, r, true));
                let wall = here(rank).or_else(|| rank.checked_sub(1).and_then(here));
                line.push(match wall {
                    Some(true) => '#',
                    Some(false) => '|',
                    None => ' ',
                });
            }
        }
        let _ = writeln!(out, "{line} {}", rank + 1);
        if rank == 0 {
            break;
        }
        // Between this rank and the one below: horizontal walls in slots of rank - 1.
        let below = rank - 1;
        let mut gap = String::from("   ");
        for file in 0..n {
            // A horizontal wall in slot (f, below) covers files f and f + 1.
            let here = |f: u32| has(f, below, false).then(|| is_last(f, below, false));
            let wall = here(file).or_else(|| file.checked_sub(1).and_then(here));
            gap.push_str(match wall {
                Some(true) => "===",
                Some(false) => "---",
                None => "   ",
            });
            if file + 1 < n {
                gap.push(if has(file, below, false) {
                    if is_last(file, below, false) {
                        '='
                    } else {
                        '-'
                    }
                } else if has(file, below, true) {
                    if is_last(file, below, true) { '#' } else { '|' }
                } else {
                    ' '
                });
            }
        }
        out.push_str(&gap);
        out.push('\n');
    }
    let _ = writeln!(out, "   {letters}");

    for pawn in &view.pawns {
        let (name, letter) = colour(pawn.colour);
        let players: Vec<String> = pawn.seats.iter().map(|s| player_name(seats, *s)).collect();
        let mut line = format!("{letter} {name} ({})", players.join(", "));
        if !pawn.in_game {
            line.push_str(tr("quoridor.leftGame"));
        } else {
            line.push_str(&trf("quoridor.wallsLeft", &[("walls", &pawn.walls_left)]));
            if let Some(distance) = pawn.distance {
                line.push_str(&trf(
                    "quoridor.stepsTo",
                    &[("steps", &distance), ("goal", &goal(pawn.goal))],
                ));
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(last) = last {
        let who = view.pawns.iter().find(|p| p.side == last.side).map_or_else(
            || trf("render.seat", &[("seat", &last.seat)]),
            |p| colour(p.colour).0.to_owned(),
        );
        let what = match last_kind {
            Some(pb::quoridor_action::Kind::Move(cell)) => match last.from.as_ref() {
                Some(from) => trf(
                    "quoridor.movedFrom",
                    &[("from", &cell_name(from)), ("to", &cell_name(cell))],
                ),
                None => trf("quoridor.movedTo", &[("to", &cell_name(cell))]),
            },
            Some(pb::quoridor_action::Kind::Wall(wall)) => {
                trf("quoridor.placedWall", &[("wall", &wall_name(wall))])
            }
            Some(pb::quoridor_action::Kind::Pass(_)) => tr("quoridor.passed").to_owned(),
            None => tr("quoridor.acted").to_owned(),
        };
        let auto = if last.automatic {
            tr("backgammon.automatic")
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{}",
            trf(
                "quoridor.last",
                &[
                    ("who", &who),
                    ("name", &player_name(seats, last.seat)),
                    ("what", &what),
                    ("auto", &auto),
                ],
            )
        );
    }
    if view.move_limit > 0 {
        let _ = writeln!(
            out,
            "{}",
            trf(
                "quoridor.counts",
                &[("ply", &view.ply), ("limit", &view.move_limit)],
            )
        );
    }
    trimmed(&out)
}

/// Where a pawn races to.
fn goal(goal: i32) -> &'static str {
    use pb::QuoridorPawnGoal as G;
    match G::try_from(goal) {
        Ok(G::TopEdge) => tr("quoridor.topEdge"),
        Ok(G::BottomEdge) => tr("quoridor.bottomEdge"),
        Ok(G::LeftEdge) => tr("quoridor.leftEdge"),
        Ok(G::RightEdge) => tr("quoridor.rightEdge"),
        Ok(G::Center) => tr("quoridor.center"),
        Ok(G::Unspecified) | Err(_) => tr("quoridor.itsGoal"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::ann_and_bob as seats;

    fn cell(file: u32, rank: u32) -> Option<pb::QuoridorCell> {
        Some(pb::QuoridorCell { file, rank })
    }

    fn wall(file: u32, rank: u32, vertical: bool) -> pb::QuoridorWall {
        pb::QuoridorWall {
            cell: cell(file, rank),
            orientation: if vertical {
                pb::QuoridorOrientation::Vertical
            } else {
                pb::QuoridorOrientation::Horizontal
            } as i32,
        }
    }

    fn pawn(
        side: u32,
        colour: pb::QuoridorColour,
        at: (u32, u32),
        walls_left: u32,
    ) -> pb::QuoridorPawn {
        pb::QuoridorPawn {
            side,
            colour: colour as i32,
            cell: cell(at.0, at.1),
            goal: if side == 0 {
                pb::QuoridorPawnGoal::TopEdge
            } else {
                pb::QuoridorPawnGoal::BottomEdge
            } as i32,
            seats: vec![side],
            walls_left,
            moves: 1,
            distance: Some(7),
            in_game: true,
        }
    }

    /// 9x9: red moved e1-e2, yellow on e9 placed e3h earlier, then red's d5v is the last…
    fn view(last: pb::QuoridorLastAction) -> pb::QuoridorView {
        pb::QuoridorView {
            size: 9,
            mode: pb::QuoridorMode::FreeForAll as i32,
            goal: pb::QuoridorGoal::Opposite as i32,
            pawns: vec![
                pawn(0, pb::QuoridorColour::Red, (4, 1), 10),
                pawn(1, pb::QuoridorColour::Yellow, (4, 8), 8),
            ],
            walls: vec![
                pb::QuoridorPlacedWall {
                    wall: Some(wall(4, 2, false)),
                    side: Some(1),
                },
                pb::QuoridorPlacedWall {
                    wall: Some(wall(0, 6, true)),
                    side: Some(1),
                },
            ],
            last_action: Some(last),
            to_move: Some(1),
            side_to_move: Some(1),
            you: None,
            move_limit: 60,
            ply: 3,
        }
    }

    fn row(text: &str, rank: u32) -> &str {
        text.lines()
            .find(|l| l.starts_with(&format!("{rank:>2} ")))
            .unwrap_or_else(|| panic!("no rank {rank} in\n{text}"))
    }

    #[test]
    fn pawns_walls_and_the_last_move() {
        let text = render(
            &view(pb::QuoridorLastAction {
                seat: 0,
                side: 0,
                action: Some(pb::QuoridorAction {
                    kind: Some(pb::quoridor_action::Kind::Move(pb::QuoridorCell {
                        file: 4,
                        rank: 1,
                    })),
                }),
                from: cell(4, 0),
                automatic: false,
            }),
            &seats(),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "    a   b   c   d   e   f   g   h   i", "{text}");
        assert_eq!(row(&text, 9), " 9  .   .   .   .   Y   .   .   .   .  9");
        // The red pawn moved e1-e2: bracketed on e2, the empty e1 in parentheses.
        assert_eq!(row(&text, 2), " 2  .   .   .   .  [R]  .   .   .   .  2");
        assert_eq!(row(&text, 1), " 1  .   .   .   .  (.)  .   .   .   .  1");
        // e3h: along the top of e3 and f3, so between ranks 3 and 4 under files e and f.
        let e = lines[0].find('e').unwrap_or(0);
        let gap = lines
            .iter()
            .position(|l| l.starts_with(" 4 "))
            .and_then(|i| lines.get(i + 1))
            .copied()
            .unwrap_or_default();
        assert_eq!(&gap[e - 1..e + 6], "-------", "{text}");
        assert_eq!(gap.trim(), "-------");
        // a7v: right of a7 and a8.
        assert!(row(&text, 7).starts_with(" 7  . | ."), "{text}");
        assert!(row(&text, 8).starts_with(" 8  . | ."), "{text}");
        assert!(row(&text, 6).starts_with(" 6  .   ."), "{text}");
        assert!(text.contains("R red (ann): 10 walls left, 7 steps to the top edge\n"));
        assert!(text.contains("Y yellow (bob): 8 walls left, 7 steps to the bottom edge\n"));
        assert!(text.contains("last: red (ann) moved e1-e2\n"), "{text}");
        assert!(text.lines().all(|l| l == l.trim_end()));
        assert_eq!(
            seat_colour(&view(pb::QuoridorLastAction::default()), 1),
            Some("yellow")
        );
    }

    #[test]
    fn the_last_wall_is_drawn_with_equals_or_hashes() {
        let placed = |w: pb::QuoridorWall| pb::QuoridorLastAction {
            seat: 1,
            side: 1,
            action: Some(pb::QuoridorAction {
                kind: Some(pb::quoridor_action::Kind::Wall(w)),
            }),
            from: None,
            automatic: false,
        };
        let text = render(&view(placed(wall(4, 2, false))), &seats());
        assert!(text.contains("\n                   =======\n"), "{text}");
        assert!(text.contains("last: yellow (bob) placed wall e3h\n"));
        let text = render(&view(placed(wall(0, 6, true))), &seats());
        assert!(row(&text, 7).starts_with(" 7  . # ."), "{text}");
        assert!(row(&text, 8).starts_with(" 8  . # ."), "{text}");
        assert!(text.contains("\n      #\n"), "{text}");
        assert!(text.contains("placed wall a7v"));
    }

    #[test]
    fn the_legend_lists_four_pawns_clockwise_in_turn_order() {
        use pb::{QuoridorColour as C, QuoridorPawnGoal as G};
        // Q6: bottom, left, top, right; each races to the opposite edge.
        let places = [
            (C::Red, (4, 0), G::TopEdge),
            (C::Yellow, (0, 4), G::RightEdge),
            (C::Blue, (4, 8), G::BottomEdge),
            (C::Green, (8, 4), G::LeftEdge),
        ];
        let mut four = view(pb::QuoridorLastAction::default());
        four.last_action = None;
        four.walls.clear();
        four.pawns = places
            .iter()
            .zip(0..)
            .map(|((colour, at, goal), side)| pb::QuoridorPawn {
                goal: *goal as i32,
                distance: Some(8),
                ..pawn(side, *colour, *at, 5)
            })
            .collect();
        let text = render(&four, &seats());
        assert_eq!(row(&text, 9), " 9  .   .   .   .   B   .   .   .   .  9");
        assert_eq!(row(&text, 5), " 5  Y   .   .   .   .   .   .   .   G  5");
        assert_eq!(row(&text, 1), " 1  .   .   .   .   R   .   .   .   .  1");
        let legend: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("R ")).collect();
        assert_eq!(
            legend[..4],
            [
                "R red (ann): 5 walls left, 8 steps to the top edge",
                "Y yellow (bob): 5 walls left, 8 steps to the right edge",
                "B blue (seat 2): 5 walls left, 8 steps to the bottom edge",
                "G green (seat 3): 5 walls left, 8 steps to the left edge",
            ],
            "{text}"
        );
    }

    #[test]
    fn odd_sizes_are_a_note() {
        let mut bad = view(pb::QuoridorLastAction::default());
        bad.size = 0;
        assert!(render(&bad, &[]).contains("size 0"));
        bad.size = 13;
        let text = render(&bad, &[]);
        assert!(text.starts_with("    a   b") && text.contains("13  .") && text.contains(" m"));
    }

    #[test]
    fn the_legend_reads_in_vietnamese_and_the_pawns_keep_their_letters() {
        let text = crate::i18n::in_vietnamese(|| {
            render(
                &view(pb::QuoridorLastAction {
                    seat: 0,
                    side: 0,
                    action: Some(pb::QuoridorAction {
                        kind: Some(pb::quoridor_action::Kind::Move(pb::QuoridorCell {
                            file: 4,
                            rank: 1,
                        })),
                    }),
                    from: cell(4, 0),
                    automatic: false,
                }),
                &seats(),
            )
        });
        assert!(
            text.contains("R đỏ (ann): còn 10 tường, còn 7 bước tới mép trên\n"),
            "{text}"
        );
        assert!(
            text.contains("Y vàng (bob): còn 8 tường, còn 7 bước tới mép dưới\n"),
            "{text}"
        );
        assert!(text.contains("vừa rồi: đỏ (ann) đi e1-e2\n"), "{text}");
        assert_eq!(row(&text, 2), " 2  .   .   .   .  [R]  .   .   .   .  2");
    }
}
