//! The Flip Junqi board (J2-J5): 12 rows of 5 points, drawn the same for everybody.
//!
//! Points are named as players type them (J2): a column `a`-`e` from the left, then the row
//! 1-12 from the bottom, so row 12 is drawn at the top. Nobody owns a side (the pieces are
//! dealt face down anywhere, J6), so the board is never turned round.
//!
//! A point is five characters: a marker on each side and three in the middle. The middle is a
//! face-up piece as its colour's initial and a two-letter rank (`rCm` red commander, `bEn`
//! blue engineer), `###` for a face-down piece (the view says nothing else about it, J22),
//! `+` for an empty railway station and `.` for an empty road-only post. The markers are
//! `( )` around a camp, `{ }` around a headquarters, and, over those, `[ ]` on the point the
//! last action flipped or moved to and `< >` on the point it moved from — no colour needed.
//!
//! Between two points of a row the link is `===` (railway) or `---` (road); between two rows
//! `| |` is a railway, `|` a road and `^` a mountain (no link); `\` and `/` are the diagonal
//! roads of the camps (J4, J5).
//!
//! The geometry is restated here from the rules because the view carries only what stands on
//! each point; the tests check it against the counts J4 and J5 give.

use std::fmt::Write as _;

use ludus_proto::pb;

use super::{player_name, trimmed};
use crate::i18n::{tr, trf};

/// Rows on the board (J2).
const ROWS: u32 = 12;
/// Columns on the board (J2).
const COLS: u32 = 5;
/// Points in a view: `row * 5 + column`, row 0 at the top.
const POINTS: usize = (ROWS * COLS) as usize;
/// The ranks in enum order (J1), for the statistics table.
const RANKS: [pb::JunqiRank; 12] = [
    pb::JunqiRank::Commander,
    pb::JunqiRank::CorpsCommander,
    pb::JunqiRank::Division,
    pb::JunqiRank::Brigade,
    pb::JunqiRank::Regiment,
    pb::JunqiRank::Battalion,
    pb::JunqiRank::Company,
    pb::JunqiRank::Platoon,
    pb::JunqiRank::Engineer,
    pb::JunqiRank::Mine,
    pb::JunqiRank::Bomb,
    pb::JunqiRank::Flag,
];

/// A colour's name, `None` while unsettled (or from a newer server).
fn colour_name(colour: i32) -> Option<&'static str> {
    match pb::JunqiColour::try_from(colour) {
        Ok(pb::JunqiColour::Red) => Some(tr("junqi.red")),
        Ok(pb::JunqiColour::Blue) => Some(tr("junqi.blue")),
        Ok(pb::JunqiColour::Unspecified) | Err(_) => None,
    }
}

/// A rank's two-letter code and its name.
fn rank(rank: i32) -> (&'static str, &'static str) {
    use pb::JunqiRank as R;
    match R::try_from(rank) {
        Ok(R::Commander) => ("Cm", tr("junqi.commander")),
        Ok(R::CorpsCommander) => ("Co", tr("junqi.corps")),
        Ok(R::Division) => ("Dv", tr("junqi.division")),
        Ok(R::Brigade) => ("Br", tr("junqi.brigade")),
        Ok(R::Regiment) => ("Rg", tr("junqi.regiment")),
        Ok(R::Battalion) => ("Bn", tr("junqi.battalion")),
        Ok(R::Company) => ("Cy", tr("junqi.company")),
        Ok(R::Platoon) => ("Pl", tr("junqi.platoon")),
        Ok(R::Engineer) => ("En", tr("junqi.engineer")),
        Ok(R::Mine) => ("Mi", tr("junqi.mine")),
        Ok(R::Bomb) => ("Bo", tr("junqi.bomb")),
        Ok(R::Flag) => ("Fl", tr("junqi.flag")),
        // Never sent for a face-up piece; a newer server's rank still draws as something.
        Ok(R::Unspecified) | Err(_) => ("??", tr("junqi.piece")),
    }
}

/// A face-up piece on the board: `rCm`.
fn piece_code(piece: &pb::JunqiPiece) -> String {
    // The board's letters are notation, the same in both languages.
    let colour = match pb::JunqiColour::try_from(piece.colour) {
        Ok(pb::JunqiColour::Red) => 'r',
        Ok(pb::JunqiColour::Blue) => 'b',
        Ok(pb::JunqiColour::Unspecified) | Err(_) => '?',
    };
    format!("{colour}{}", rank(piece.rank).0)
}

/// A face-up piece in words: `red engineer`.
fn piece_name(piece: Option<&pb::JunqiPiece>) -> String {
    match piece {
        Some(piece) => match colour_name(piece.colour) {
            Some(colour) => trf(
                "junqi.colouredPiece",
                &[("colour", &colour), ("rank", &rank(piece.rank).1)],
            ),
            None => rank(piece.rank).1.to_owned(),
        },
        None => tr("junqi.aPiece").to_owned(),
    }
}

/// The colour a seat plays once settled (J8).
pub fn seat_colour(view: &pb::JunqiView, seat: u32) -> Option<&'static str> {
    view.seat_colours
        .get(seat as usize)
        .and_then(|c| colour_name(*c))
}

/// `red (ann)` once colours are settled, else `ann`.
fn who(view: &pb::JunqiView, seats: &[pb::SeatInfo], seat: u32) -> String {
    match seat_colour(view, seat) {
        Some(colour) => format!("{colour} ({})", player_name(seats, seat)),
        None => player_name(seats, seat),
    }
}

/// A point in J2 notation: `c6` is column 2, row index 6.
fn point_name(row: u32, column: u32) -> String {
    let letter = u8::try_from(column)
        .ok()
        .filter(|c| *c < 26)
        .map_or('?', |c| char::from(b'a' + c));
    format!("{letter}{}", ROWS.saturating_sub(row))
}

/// `(row, column)` of a point in J2 notation, if it is one.
fn parse_point(text: &str) -> Option<Spot> {
    let text = text.trim();
    let mut chars = text.chars();
    let column = u32::from(chars.next()?.to_ascii_lowercase()).checked_sub(u32::from('a'))?;
    let rank: u32 = chars.as_str().parse().ok()?;
    ((1..=ROWS).contains(&rank) && column < COLS).then(|| (ROWS - rank, column))
}

/// A camp (J3).
fn is_camp(row: u32, column: u32) -> bool {
    matches!(
        (row, column),
        (2 | 4 | 7 | 9, 1 | 3) | (3 | 8, 2) // the five camps of each half
    )
}

/// A headquarters (J3).
fn is_headquarters(row: u32, column: u32) -> bool {
    (row == 0 || row == ROWS - 1) && (column == 1 || column == 3)
}

/// A railway station (J5).
fn is_station(row: u32, column: u32) -> bool {
    matches!(row, 1 | 5 | 6 | 10) || ((column == 0 || column == 4) && (1..=10).contains(&row))
}

/// A railway segment between a point and its right neighbour (J5): rows 1, 5, 6 and 10.
fn rail_right(row: u32) -> bool {
    matches!(row, 1 | 5 | 6 | 10)
}

/// What links a point to the one below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Down {
    Railway,
    Road,
    /// The mountains of the front (J4): no link.
    Mountain,
}

fn down(row: u32, column: u32) -> Down {
    let rail_column = (column == 0 || column == 4) && (1..10).contains(&row);
    if rail_column || (row == 5 && column == 2) {
        Down::Railway
    } else if row == 5 {
        Down::Mountain
    } else {
        Down::Road
    }
}

/// The diagonal road (J4) in the square whose top-left point is `(row, column)`: `\` joins
/// top-left and bottom-right, `/` top-right and bottom-left. Only camps have diagonals.
fn diagonal(row: u32, column: u32) -> char {
    let back = is_camp(row, column) || is_camp(row + 1, column + 1);
    let forward = is_camp(row, column + 1) || is_camp(row + 1, column);
    match (back, forward) {
        (true, true) => 'X',
        (true, false) => '\\',
        (false, true) => '/',
        (false, false) => ' ',
    }
}

/// A point as `(row, column)`, row 0 at the top.
type Spot = (u32, u32);

/// The points the last action touched: (flipped or moved to, moved from).
fn last_points(view: &pb::JunqiView) -> (Option<Spot>, Option<Spot>) {
    let Some(last) = view.last_action.as_ref() else {
        return (None, None);
    };
    match last.action.as_ref().and_then(|a| a.kind.as_ref()) {
        Some(pb::junqi_action::Kind::Flip(flip)) => (parse_point(&flip.point), None),
        Some(pb::junqi_action::Kind::Move(step)) => {
            (parse_point(&step.to), parse_point(&step.from))
        }
        // No structured action: the notation says the same (`c6` or `c6-c7`).
        None => match last.notation.split_once('-') {
            Some((from, to)) => (parse_point(to), parse_point(from)),
            None => (parse_point(&last.notation), None),
        },
    }
}

/// Draws the board, then the legends, colours, statistics (J21), the last action, the J17
/// count and autoplay (J19). `me` is the viewer's seat (events carry the public view, which
/// does not say).
pub fn render(view: &pb::JunqiView, me: Option<u32>, seats: &[pb::SeatInfo]) -> String {
    if view.points.len() != POINTS {
        return trf(
            "junqi.badPoints",
            &[("points", &view.points.len()), ("expected", &POINTS)],
        );
    }
    let (last_to, last_from) = last_points(view);
    let cell = |row: u32, column: u32| -> String {
        let point = view.points.get((row * COLS + column) as usize);
        let state = point.map_or(pb::JunqiPointState::Unspecified as i32, |p| p.state);
        let middle = match pb::JunqiPointState::try_from(state) {
            Ok(pb::JunqiPointState::FaceDown) => "###".to_owned(),
            Ok(pb::JunqiPointState::FaceUp) => point
                .and_then(|p| p.piece.as_ref())
                .map_or_else(|| "???".to_owned(), piece_code),
            Ok(pb::JunqiPointState::Empty) if is_station(row, column) => " + ".to_owned(),
            Ok(pb::JunqiPointState::Empty) => " . ".to_owned(),
            Ok(pb::JunqiPointState::Unspecified) | Err(_) => " ? ".to_owned(),
        };
        let (open, close) = if last_to == Some((row, column)) {
            ('[', ']')
        } else if last_from == Some((row, column)) {
            ('<', '>')
        } else if is_camp(row, column) {
            ('(', ')')
        } else if is_headquarters(row, column) {
            ('{', '}')
        } else {
            (' ', ' ')
        };
        format!("{open}{middle}{close}")
    };

    // Column letters over the middle of each point: points are 5 wide with 3 between.
    let letters: String = (0..COLS)
        .map(|c| format!("  {}  ", point_name(0, c).chars().next().unwrap_or('?')))
        .collect::<Vec<_>>()
        .join("   ");
    let mut out = String::new();
    let _ = writeln!(out, "   {letters}");
    for row in 0..ROWS {
        let rank = ROWS - row;
        let mut line = format!("{rank:>2} ");
        for column in 0..COLS {
            line.push_str(&cell(row, column));
            if column + 1 < COLS {
                line.push_str(if rail_right(row) { "===" } else { "---" });
            }
        }
        let _ = writeln!(out, "{line} {rank}");
        if row + 1 == ROWS {
            break;
        }
        let mut links = String::from("   ");
        for column in 0..COLS {
            links.push_str(match down(row, column) {
                Down::Railway => " | | ",
                Down::Road => "  |  ",
                Down::Mountain => "  ^  ",
            });
            if column + 1 < COLS {
                let _ = write!(links, " {} ", diagonal(row, column));
            }
        }
        out.push_str(&links);
        out.push('\n');
    }
    let _ = writeln!(out, "   {letters}");
    let _ = writeln!(out, "{}", tr("junqi.symbolLegend"));
    let _ = writeln!(out, "{}", tr("junqi.rankLegend"));
    out.push_str(&colours_line(view, me, seats));
    out.push_str(&statistics(view));
    if let Some(last) = view.last_action.as_ref() {
        out.push_str(&last_line(view, last, seats));
    }
    let _ = writeln!(
        out,
        "{}",
        trf(
            "junqi.counts",
            &[
                ("ply", &view.ply),
                ("quiet", &view.quiet_actions),
                ("limit", &view.draw_limit),
            ],
        )
    );
    for (seat, on) in (0..).zip(&view.autoplay) {
        if !*on {
            continue;
        }
        if me == Some(seat) {
            let _ = writeln!(out, "{}", tr("junqi.autoplayYou"));
        } else {
            let _ = writeln!(
                out,
                "{}",
                trf("junqi.autoplayOther", &[("who", &who(view, seats, seat))])
            );
        }
    }
    trimmed(&out)
}

/// Who plays which colour (J8), or how the colours will settle.
fn colours_line(view: &pb::JunqiView, me: Option<u32>, seats: &[pb::SeatInfo]) -> String {
    let me = me.or(view.viewer_seat);
    let mine = me
        .and_then(|seat| seat_colour(view, seat))
        .or_else(|| colour_name(view.viewer_colour));
    if seat_colour(view, 0).is_some() || seat_colour(view, 1).is_some() {
        let seat = |s: u32| {
            trf(
                "junqi.seatColour",
                &[
                    ("colour", &seat_colour(view, s).unwrap_or("?")),
                    ("name", &player_name(seats, s)),
                    ("seat", &s),
                ],
            )
        };
        let you = match mine {
            Some(colour) => trf("junqi.youPlay", &[("colour", &colour)]),
            None => String::new(),
        };
        return trf(
            "junqi.colours",
            &[("first", &seat(0)), ("second", &seat(1)), ("you", &you)],
        );
    }
    let flips: Vec<String> = (0..2u32)
        .map(|s| {
            let flipped = view
                .last_flip_colours
                .get(s as usize)
                .and_then(|c| colour_name(*c))
                .unwrap_or(tr("junqi.nothingYet"));
            format!("{} {flipped}", player_name(seats, s))
        })
        .collect();
    let you = if me.is_some() {
        tr("junqi.howColoursSettle")
    } else {
        ""
    };
    trf(
        "junqi.unsettled",
        &[("flips", &flips.join(", ")), ("you", &you)],
    )
}

/// The J21 table: per colour, the pieces still face down and the pieces removed, by rank.
fn statistics(view: &pb::JunqiView) -> String {
    if view.statistics.is_empty() {
        return String::new();
    }
    let header: String = RANKS
        .iter()
        .map(|r| format!(" {}", rank(*r as i32).0))
        .collect();
    let mut out = format!(
        "{:<14}{header}  {}\n",
        tr("junqi.pieces"),
        tr("junqi.total")
    );
    for stats in &view.statistics {
        let colour = colour_name(stats.colour).unwrap_or("?");
        for (what, counts) in [
            ("junqi.faceDownOf", &stats.face_down),
            ("junqi.removedOf", &stats.removed),
        ] {
            let count = |r: pb::JunqiRank| {
                counts
                    .iter()
                    .filter(|c| c.rank == r as i32)
                    .map(|c| c.count)
                    .sum::<u32>()
            };
            // Zeros as dots: the few non-zero counts are what a player looks for.
            let cells: String = RANKS
                .iter()
                .map(|r| match count(*r) {
                    0 => "  .".to_owned(),
                    n => format!("{n:>3}"),
                })
                .collect();
            let total: u32 = counts.iter().map(|c| c.count).sum();
            let label = trf(what, &[("colour", &colour)]);
            let _ = writeln!(out, "{label:<14}{cells}  {total:>5}");
        }
    }
    out
}

/// `last: red (ann) attacked c6-c7: red commander took blue division`.
fn last_line(view: &pb::JunqiView, last: &pb::JunqiLastAction, seats: &[pb::SeatInfo]) -> String {
    let auto = if last.automatic {
        tr("junqi.automatic")
    } else {
        ""
    };
    trf(
        "junqi.last",
        &[
            ("who", &who(view, seats, last.seat)),
            ("what", &what_happened(last)),
            ("auto", &auto),
        ],
    )
}

/// What the last action did, in words: `flipped c6: blue engineer`.
fn what_happened(last: &pb::JunqiLastAction) -> String {
    let piece = piece_name(last.piece.as_ref());
    let flip = matches!(
        last.action.as_ref().and_then(|a| a.kind.as_ref()),
        Some(pb::junqi_action::Kind::Flip(_))
    ) || !last.notation.contains('-');
    if flip {
        return trf(
            "junqi.flipped",
            &[("point", &last.notation), ("piece", &piece)],
        );
    }
    let defender = piece_name(last.defender.as_ref());
    match pb::JunqiCombatResult::try_from(last.combat) {
        Ok(pb::JunqiCombatResult::AttackerWins) => trf(
            "junqi.took",
            &[
                ("move", &last.notation),
                ("piece", &piece),
                ("defender", &defender),
            ],
        ),
        Ok(pb::JunqiCombatResult::BothRemoved) => trf(
            "junqi.bothRemoved",
            &[
                ("move", &last.notation),
                ("piece", &piece),
                ("defender", &defender),
            ],
        ),
        Ok(pb::JunqiCombatResult::Unspecified) | Err(_) => trf(
            "junqi.moved",
            &[("piece", &piece), ("move", &last.notation)],
        ),
    }
}

/// What an applied action did, for the note under the board: `c6: blue engineer`. `None`
/// when the view's last action is another one (the view may be older than the event).
pub fn action_note(view: &pb::JunqiView, seat: u32, notation: &str) -> Option<String> {
    let last = view.last_action.as_ref()?;
    (last.seat == seat && last.notation == notation).then(|| what_happened(last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::ann_and_bob as seats;

    fn piece(colour: pb::JunqiColour, rank: pb::JunqiRank) -> pb::JunqiPiece {
        pb::JunqiPiece {
            colour: colour as i32,
            rank: rank as i32,
        }
    }

    fn index(point: &str) -> usize {
        let (row, column) = parse_point(point).unwrap_or_else(|| panic!("no point {point}"));
        (row * COLS + column) as usize
    }

    fn counts(values: [u32; 12]) -> Vec<pb::JunqiRankCount> {
        RANKS
            .iter()
            .zip(values)
            .map(|(rank, count)| pb::JunqiRankCount {
                rank: *rank as i32,
                count,
            })
            .collect()
    }

    /// The deal (every non-camp point face down), then: ann flipped c6 (a red engineer),
    /// bob flipped a1 (a blue division), ann flipped e12 (a red commander) and so took red;
    /// ann's engineer went c6-b5, along a camp diagonal into the empty camp; bob's turn.
    fn view() -> pb::JunqiView {
        let mut points: Vec<pb::JunqiPoint> = (0..POINTS)
            .map(|i| {
                let (row, column) = (i as u32 / COLS, i as u32 % COLS);
                let state = if is_camp(row, column) {
                    pb::JunqiPointState::Empty
                } else {
                    pb::JunqiPointState::FaceDown
                };
                pb::JunqiPoint {
                    state: state as i32,
                    piece: None,
                }
            })
            .collect();
        let mut up = |at: &str, p: pb::JunqiPiece| {
            points[index(at)] = pb::JunqiPoint {
                state: pb::JunqiPointState::FaceUp as i32,
                piece: Some(p),
            };
        };
        up("b5", piece(pb::JunqiColour::Red, pb::JunqiRank::Engineer));
        up("a1", piece(pb::JunqiColour::Blue, pb::JunqiRank::Division));
        up("e12", piece(pb::JunqiColour::Red, pb::JunqiRank::Commander));
        points[index("c6")] = pb::JunqiPoint {
            state: pb::JunqiPointState::Empty as i32,
            piece: None,
        };
        pb::JunqiView {
            viewer_seat: None,
            points,
            viewer_colour: pb::JunqiColour::Unspecified as i32,
            opponent_colour: pb::JunqiColour::Unspecified as i32,
            seat_colours: vec![pb::JunqiColour::Red as i32, pb::JunqiColour::Blue as i32],
            last_flip_colours: vec![pb::JunqiColour::Red as i32, pb::JunqiColour::Blue as i32],
            statistics: vec![
                pb::JunqiColourStats {
                    colour: pb::JunqiColour::Red as i32,
                    removed: counts([0; 12]),
                    face_down: counts([0, 1, 2, 2, 2, 2, 3, 3, 2, 3, 2, 1]),
                },
                pb::JunqiColourStats {
                    colour: pb::JunqiColour::Blue as i32,
                    removed: counts([0; 12]),
                    face_down: counts([1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 2, 1]),
                },
            ],
            autoplay: vec![false, false],
            to_move: Some(1),
            quiet_actions: 1,
            draw_limit: 60,
            last_action: Some(pb::JunqiLastAction {
                seat: 0,
                action: Some(pb::JunqiAction {
                    kind: Some(pb::junqi_action::Kind::Move(pb::JunqiMove {
                        from: "c6".into(),
                        to: "b5".into(),
                    })),
                }),
                notation: "c6-b5".into(),
                automatic: false,
                piece: Some(piece(pb::JunqiColour::Red, pb::JunqiRank::Engineer)),
                defender: None,
                combat: pb::JunqiCombatResult::Unspecified as i32,
            }),
            outcome: None,
            ply: 4,
        }
    }

    fn row(text: &str, rank: u32) -> &str {
        text.lines()
            .find(|l| l.starts_with(&format!("{rank:>2} ")))
            .unwrap_or_else(|| panic!("no row {rank} in\n{text}"))
    }

    /// The five points of a row line, each five characters, by column.
    fn points_of(line: &str) -> Vec<&str> {
        (0..5).map(|c| &line[3 + c * 8..8 + c * 8]).collect()
    }

    #[test]
    fn pieces_face_down_markers_camps_and_the_last_move() {
        let text = render(&view(), Some(0), &seats());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "     a       b       c       d       e", "{text}");
        // Row 12 at the top: headquarters in braces, the red commander on e12.
        assert_eq!(
            lines[1], "12  ### ---{###}--- ### ---{###}--- rCm  12",
            "{text}"
        );
        assert_eq!(points_of(row(&text, 12))[4], " rCm ");
        // Row 1 at the bottom: the blue division on a1.
        assert_eq!(row(&text, 1), " 1  bDv ---{###}--- ### ---{###}--- ###  1");
        // The engineer moved c6-b5: the camp b5 bracketed (the highlight wins over the camp
        // marker), the empty c6 station marked as left.
        let row5 = points_of(row(&text, 5));
        assert_eq!(
            row5,
            [" ### ", "[rEn]", " ### ", "( . )", " ### "],
            "{text}"
        );
        assert_eq!(points_of(row(&text, 6))[2], "< + >");
        assert_eq!(points_of(row(&text, 7))[2], " ### ");
        // Camps are empty at the start (J3); a road-only camp shows a dot.
        assert_eq!(points_of(row(&text, 4))[2], "( . )");
        assert_eq!(points_of(row(&text, 3))[1], "( . )");
        assert_eq!(points_of(row(&text, 8))[3], "( . )");
        // Every face-down piece is the same three characters and nothing else (J22): 50
        // dealt, three flipped.
        let board: String = lines[1..24].join("\n");
        assert_eq!(board.matches("###").count(), 47, "{text}");
        assert!(text.contains("colours: red ann (seat 0), blue bob (seat 1) — you play red\n"));
        assert!(
            text.contains("last: red (ann) moved red engineer c6-b5\n"),
            "{text}"
        );
        assert!(text.contains(
            "4 actions so far; 1 in a row without a flip or combat (a draw at 60, J17)\n"
        ));
        assert!(!text.contains("autoplay"));
        assert!(text.lines().all(|l| l == l.trim_end()));
        assert_eq!(seat_colour(&view(), 1), Some("blue"));
    }

    #[test]
    fn railways_roads_mountains_and_camp_diagonals() {
        let text = render(&view(), None, &seats());
        let lines: Vec<&str> = text.lines().collect();
        // Row 11 (index 1) is a railway row; row 12 is road only.
        assert!(row(&text, 11).contains("==="), "{text}");
        assert!(!row(&text, 12).contains("==="));
        assert!(!row(&text, 10).contains("==="));
        // Between rows 12 and 11: roads only; a and e become railways below row 11.
        assert_eq!(lines[2], "     |       |       |       |       |");
        assert_eq!(lines[4], "    | |  \\   |   /   |   \\   |   /  | |");
        // The front, between rows 7 and 6: railways on a, c and e, mountains on b and d.
        assert_eq!(lines[12], "    | |      ^      | |      ^      | |");
        assert_eq!(lines[24], "     a       b       c       d       e");
    }

    #[test]
    fn geometry_matches_the_counts_of_j3_to_j5() {
        let all = || (0..ROWS).flat_map(|r| (0..COLS).map(move |c| (r, c)));
        assert_eq!(all().filter(|(r, c)| is_camp(*r, *c)).count(), 10);
        assert_eq!(all().filter(|(r, c)| is_headquarters(*r, *c)).count(), 4);
        assert_eq!(all().filter(|(r, c)| is_station(*r, *c)).count(), 32);
        let across = all()
            .filter(|(_, c)| *c + 1 < COLS)
            .filter(|(r, _)| rail_right(*r))
            .count();
        let downs: Vec<Down> = all()
            .filter(|(r, _)| *r + 1 < ROWS)
            .map(|(r, c)| down(r, c))
            .collect();
        let rail_down = downs.iter().filter(|d| **d == Down::Railway).count();
        assert_eq!(across + rail_down, 35, "railway segments (J5)");
        // Roads: every orthogonal pair but the two mountains (J4), railways included.
        let orthogonal = (ROWS * (COLS - 1) + (ROWS - 1) * COLS) as usize;
        let mountains = downs.iter().filter(|d| **d == Down::Mountain).count();
        assert_eq!(orthogonal - mountains, 101);
        let diagonals = all()
            .filter(|(r, c)| *r + 1 < ROWS && *c + 1 < COLS)
            .map(|(r, c)| match diagonal(r, c) {
                'X' => 2,
                ' ' => 0,
                _ => 1,
            })
            .sum::<u32>();
        assert_eq!(diagonals, 32, "camp diagonals (J4)");
        assert_eq!(point_name(0, 0), "a12");
        assert_eq!(point_name(11, 4), "e1");
        assert_eq!(parse_point("c6"), Some((6, 2)));
        assert_eq!(parse_point("f1"), None);
        assert_eq!(parse_point("a13"), None);
    }

    #[test]
    fn statistics_table_and_unsettled_colours() {
        let mut view = view();
        view.seat_colours = vec![0, 0];
        view.last_flip_colours = vec![pb::JunqiColour::Red as i32, 0];
        let text = render(&view, Some(1), &seats());
        assert!(
            text.contains(
                "pieces         Cm Co Dv Br Rg Bn Cy Pl En Mi Bo Fl  total\n\
                 red face down   .  1  2  2  2  2  3  3  2  3  2  1     23\n\
                 red removed     .  .  .  .  .  .  .  .  .  .  .  .      0\n\
                 blue face down  1  1  1  2  2  2  3  3  3  3  2  1     24\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "colours: not settled yet (J8); last flips: ann red, bob nothing yet\n\
                 you take the colour you flip twice running, your opponent the other\n"
            ),
            "{text}"
        );
        // Before colours settle a seat is named, not coloured.
        assert!(
            text.contains("last: ann moved red engineer c6-b5\n"),
            "{text}"
        );
    }

    #[test]
    fn flips_attacks_and_autoplay() {
        let mut view = view();
        view.autoplay = vec![false, true];
        view.last_action = Some(pb::JunqiLastAction {
            seat: 1,
            action: Some(pb::JunqiAction {
                kind: Some(pb::junqi_action::Kind::Flip(pb::JunqiFlip {
                    point: "a1".into(),
                })),
            }),
            notation: "a1".into(),
            automatic: true,
            piece: Some(piece(pb::JunqiColour::Blue, pb::JunqiRank::Division)),
            defender: None,
            combat: 0,
        });
        let text = render(&view, Some(0), &seats());
        assert!(row(&text, 1).starts_with(" 1 [bDv]---"), "{text}");
        assert!(
            !text.lines().take(25).any(|l| l.contains('<')),
            "a flip marks one point only\n{text}"
        );
        assert!(
            text.contains(
                "last: blue (bob) flipped a1: blue division commander (played by the server, J19)\n"
            ),
            "{text}"
        );
        assert!(text.contains(
            "autoplay: the server is playing for blue (bob) (J19) until they act again\n"
        ));
        assert!(render(&view, Some(1), &seats()).contains(
            "autoplay: the server is playing for you (J19): act before it does to take over\n"
        ));
        view.last_action = Some(pb::JunqiLastAction {
            seat: 0,
            action: None,
            notation: "e12-e11".into(),
            automatic: false,
            piece: Some(piece(pb::JunqiColour::Red, pb::JunqiRank::Commander)),
            defender: Some(piece(pb::JunqiColour::Blue, pb::JunqiRank::Bomb)),
            combat: pb::JunqiCombatResult::BothRemoved as i32,
        });
        for at in ["e12", "e11"] {
            view.points[index(at)] = pb::JunqiPoint {
                state: pb::JunqiPointState::Empty as i32,
                piece: None,
            };
        }
        let text = render(&view, None, &seats());
        assert!(
            text.contains(
                "last: red (ann) attacked e12-e11: red commander and blue bomb both removed\n"
            ),
            "{text}"
        );
        assert!(row(&text, 12).ends_with("---< . > 12"), "{text}");
        assert!(row(&text, 11).ends_with("===[ + ] 11"), "{text}");
        assert_eq!(
            action_note(&view, 0, "e12-e11").as_deref(),
            Some("attacked e12-e11: red commander and blue bomb both removed")
        );
        assert_eq!(action_note(&view, 1, "e12-e11"), None);
    }

    #[test]
    fn malformed_views_are_a_note() {
        let mut view = view();
        view.points.truncate(59);
        assert!(render(&view, None, &[]).contains("59 junqi points"));
        let mut view = self::view();
        view.points[0] = pb::JunqiPoint {
            state: pb::JunqiPointState::FaceUp as i32,
            piece: None,
        };
        view.statistics.clear();
        let text = render(&view, None, &[]);
        assert!(row(&text, 12).starts_with("12  ???"), "{text}");
        assert!(!text.contains("pieces "));
    }

    // The legends, the statistics and the last action in Vietnamese, with JoyPip's rank
    // names; the board's letters (rCm, ###) are notation and stay.
    #[test]
    fn legends_statistics_and_last_action_read_in_vietnamese() {
        let mut view = view();
        view.seat_colours = vec![0, 0];
        view.last_flip_colours = vec![pb::JunqiColour::Red as i32, 0];
        let text = crate::i18n::in_vietnamese(|| render(&view, Some(1), &seats()));
        assert!(
            text.contains(
                "### quân úp  ( ) trại  { } đại bản doanh  === | | đường sắt  --- | đường bộ  \
                 ^ núi  [ ] < > nước vừa đi\n\
                 Cm Tư lệnh  Co Quân đoàn  Dv Sư đoàn  Br Lữ đoàn  Rg Trung đoàn  Bn Tiểu đoàn\n\
                 Cy Đại đội  Pl Trung đội  En Công binh  Mi Mìn  Bo Bom  Fl Quân kỳ   r đỏ  b xanh\n"
            ),
            "{text}"
        );
        assert!(text.contains("quân           Cm Co Dv"), "{text}");
        assert!(text.contains("\nđỏ còn úp       .  1  2"), "{text}");
        assert!(
            text.contains("màu quân: chưa định màu (J8); lần lật gần nhất: ann đỏ, bob chưa lật\n"),
            "{text}"
        );
        assert!(
            text.contains("vừa rồi: ann đi Công binh đỏ c6-b5\n"),
            "{text}"
        );
        assert!(row(&text, 1).starts_with(" 1 "), "{text}");
        assert_eq!(
            text.lines().count(),
            render(&view, Some(1), &seats()).lines().count()
        );
    }
}
