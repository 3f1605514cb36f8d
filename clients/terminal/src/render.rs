//! Pure text rendering: boards, the status line, move lists, event lines and outcomes.
//!
//! Nothing here does I/O or reads the clock (the current time comes in as an argument), so
//! every screen the client can show is unit-tested. The Caro board and everything shared by
//! all games live here; each other game's board is drawn by its own module.

mod backgammon;
mod junqi;
mod mancala;
mod quoridor;

use std::fmt::Write as _;

use ludus_proto::pb;

use crate::i18n::{tr, trf};

/// Largest board side the renderer draws: column names are single letters.
const MAX_SIDE: u32 = 26;
/// Moves per line of the move list, so a long game does not make one endless line.
const MOVES_PER_LINE: usize = 8;

/// The C1 name of a 0-based cell: column letter from the left, row number from the top.
pub fn cell_name(column: u32, row: u32) -> String {
    match u8::try_from(column).ok().filter(|c| *c < 26) {
        Some(c) => format!("{}{}", char::from(b'A' + c), row.saturating_add(1)),
        // Off the alphabet: a malformed view, but say something rather than panic.
        None => format!("?{}", row.saturating_add(1)),
    }
}

/// The name of a cell as the server sent it, or computed when the server left it empty.
fn cell_label(cell: &pb::CaroCell) -> String {
    if cell.name.is_empty() {
        cell_name(cell.column, cell.row)
    } else {
        cell.name.clone()
    }
}

/// The letter of a stone.
pub fn stone_char(stone: i32) -> char {
    match pb::CaroStone::try_from(stone) {
        Ok(pb::CaroStone::X) => 'X',
        Ok(pb::CaroStone::O) => 'O',
        Ok(pb::CaroStone::Empty) => '.',
        // An enum value from a newer server.
        Err(_) => '?',
    }
}

/// The stone a seat plays, from the view; seat 0 is X when the view does not say (C2).
pub fn seat_stone(view: Option<&pb::CaroView>, seat: u32) -> char {
    view.and_then(|v| v.seat_stones.get(seat as usize))
        .map(|s| stone_char(*s))
        .filter(|c| *c == 'X' || *c == 'O')
        .unwrap_or(match seat {
            0 => 'X',
            1 => 'O',
            _ => '?',
        })
}

/// Draws a Caro board in C1 notation: column letters on top, row numbers (1 = top) on the
/// left, `X`/`O`/`.` per cell. The `last` move is in brackets (`[X]`) and a winning run in
/// parentheses (`(X)`), so both read without colour. Followed by the move list.
pub fn render_caro(view: &pb::CaroView, last: Option<&pb::CaroCell>) -> String {
    let side = view.board_size;
    let mut out = String::new();
    if side == 0 || side > MAX_SIDE {
        let _ = writeln!(out, "{}", trf("render.badSide", &[("side", &side)]));
        out.push_str(&render_moves(view));
        return out;
    }
    let expected = (side * side) as usize;
    if view.cells.len() != expected {
        // Draw what there is; missing cells show as '?', which is more useful than nothing.
        let _ = writeln!(
            out,
            "{}",
            trf(
                "render.badCells",
                &[("cells", &view.cells.len()), ("side", &side)]
            )
        );
    }
    let on_line = |column: u32, row: u32| {
        view.winning_line
            .iter()
            .any(|c| c.column == column && c.row == row)
    };

    column_letters(&mut out, side);
    out.push('\n');
    for row in 0..side {
        let mut line = format!("{:>2} ", row + 1);
        for column in 0..side {
            let stone = view
                .cells
                .get((row * side + column) as usize)
                .map_or('?', |s| stone_char(*s));
            let (open, close) = if last.is_some_and(|l| l.column == column && l.row == row) {
                ('[', ']')
            } else if on_line(column, row) {
                ('(', ')')
            } else {
                (' ', ' ')
            };
            line.push(open);
            line.push(stone);
            line.push(close);
        }
        let _ = write!(out, "{} {:<2}", line.trim_end(), row + 1);
        out.push('\n');
    }
    column_letters(&mut out, side);
    let mut out = trimmed(&out);
    out.push_str(&render_moves(view));
    out
}

/// The column letters over (and under) a Caro board, `A` to the board's last column.
fn column_letters(out: &mut String, side: u32) {
    out.push_str("   ");
    for column in 0..side {
        let _ = write!(
            out,
            " {} ",
            cell_name(column, 0).chars().next().unwrap_or('?')
        );
    }
}

/// The move list in C1 notation, numbered, with the stone of each move, e.g.
/// `1.X H8   2.O G7`.
pub fn render_moves(view: &pb::CaroView) -> String {
    if view.moves.is_empty() {
        return format!("{}\n", tr("render.noMoves"));
    }
    let side = view.board_size;
    let mut out = String::from(tr("render.moves"));
    // Two spaces between moves, cells padded to three characters: the list lines up.
    for (i, cell) in view.moves.iter().enumerate() {
        // The stone on the cell says who played it, whoever moved first (C11).
        let stone = if cell.column < side && cell.row < side {
            view.cells
                .get((cell.row * side + cell.column) as usize)
                .map_or('?', |s| stone_char(*s))
        } else {
            '?'
        };
        if i > 0 && i % MOVES_PER_LINE == 0 {
            out.push_str("\n      ");
        }
        let _ = write!(out, "  {}.{} {:<3}", i + 1, stone, cell_label(cell));
    }
    trimmed(&out)
}

/// What a seat plays as, in the game's own words: `X` in Caro, `white` in Backgammon, the
/// pawn's colour in Quoridor, the colour once settled in Junqi, else `seat 1`.
pub fn seat_mark(view: Option<&pb::GameView>, seat: u32) -> String {
    use pb::game_view::View;
    match view.and_then(|v| v.view.as_ref()) {
        Some(View::Caro(caro)) => seat_stone(Some(caro), seat).to_string(),
        None => seat_stone(None, seat).to_string(),
        Some(View::Backgammon(_)) => backgammon::seat_colour(seat).to_owned(),
        Some(View::Quoridor(quoridor)) => {
            quoridor::seat_colour(quoridor, seat).map_or_else(|| numbered_seat(seat), str::to_owned)
        }
        Some(View::Junqi(junqi)) => {
            junqi::seat_colour(junqi, seat).map_or_else(|| numbered_seat(seat), str::to_owned)
        }
        Some(View::Mancala(_)) => numbered_seat(seat),
    }
}

/// `seat 1`, in the player's language.
fn numbered_seat(seat: u32) -> String {
    trf("render.seat", &[("seat", &seat)])
}

/// A seat as people read it: `X (alice)`, `white (bob)`, `seat 0 (carol)`.
pub fn seat_label(view: Option<&pb::GameView>, seats: &[pb::SeatInfo], seat: u32) -> String {
    let mark = seat_mark(view, seat);
    match seats.iter().find(|s| s.seat == seat) {
        Some(info) => format!("{mark} ({})", info.display_name),
        // `seat 1 (seat 1)` would say nothing twice.
        None if mark == numbered_seat(seat) => mark,
        None => format!("{mark} ({})", numbered_seat(seat)),
    }
}

/// A seat's display name, or `seat N` when the server did not name it.
pub fn player_name(seats: &[pb::SeatInfo], seat: u32) -> String {
    seats
        .iter()
        .find(|s| s.seat == seat)
        .map_or_else(|| numbered_seat(seat), |s| s.display_name.clone())
}

/// Seats 0 and 1 held by `ann` (player `p0`) and `bob` (`p1`): the table of the renderers'
/// tests.
#[cfg(test)]
pub(crate) fn ann_and_bob() -> Vec<pb::SeatInfo> {
    ["ann", "bob"]
        .iter()
        .zip(0..)
        .map(|(name, seat)| pb::SeatInfo {
            seat,
            player_id: format!("p{seat}"),
            display_name: (*name).into(),
            computer_level: String::new(),
        })
        .collect()
}

/// Joins lines with their trailing spaces removed (they make copied transcripts ragged),
/// ending in a newline.
pub fn trimmed(text: &str) -> String {
    let mut out: String = text
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

/// The legal actions the server listed, wrapped to the terminal: `legal: 1, 2, 5`.
pub fn render_legal(actions: &[pb::LegalAction]) -> String {
    const WIDTH: usize = 78;
    if actions.is_empty() {
        return format!("{}\n", tr("render.noLegal"));
    }
    let mut out = String::new();
    let mut line = String::from(tr("render.legal"));
    for (i, action) in actions.iter().enumerate() {
        let item = if i + 1 < actions.len() {
            format!(" {},", action.notation)
        } else {
            format!(" {}", action.notation)
        };
        if line.len() + item.len() > WIDTH && line.len() > tr("render.legal").len() {
            out.push_str(&line);
            out.push('\n');
            line = String::from("      ");
        }
        line.push_str(&item);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// Everything shown above the prompt, for one moment of a game.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The game id.
    pub game_id: &'a str,
    /// The players.
    pub seats: &'a [pb::SeatInfo],
    /// The position.
    pub view: Option<&'a pb::GameView>,
    /// Whose turn and the clock.
    pub turn: Option<&'a pb::TurnInfo>,
    /// Active or finished.
    pub finished: bool,
    /// The viewer's seat, if seated.
    pub me: Option<u32>,
    /// A pending draw offer, by this seat.
    pub draw_offered_by: Option<u32>,
    /// Recent notes (draw offers, timeouts, errors), shown between the board and the turn.
    pub notes: &'a [String],
    /// Now, Unix milliseconds.
    pub now_ms: i64,
}

/// The caro view inside a game view, if it is a Caro game.
pub fn caro_view(view: Option<&pb::GameView>) -> Option<&pb::CaroView> {
    match view.and_then(|v| v.view.as_ref()) {
        Some(pb::game_view::View::Caro(caro)) => Some(caro),
        _ => None,
    }
}

/// Seconds left until `deadline_unix_ms`, rounded up; `None` when untimed.
pub fn seconds_left(deadline_unix_ms: i64, now_ms: i64) -> Option<i64> {
    (deadline_unix_ms > 0).then(|| (deadline_unix_ms.saturating_sub(now_ms).max(0) + 999) / 1000)
}

/// The game's board, drawn from the view the server sent.
pub fn render_board(
    view: Option<&pb::GameView>,
    me: Option<u32>,
    seats: &[pb::SeatInfo],
) -> String {
    use pb::game_view::View;
    match view.and_then(|v| v.view.as_ref()) {
        Some(View::Caro(caro)) => render_caro(caro, caro.moves.last()),
        Some(View::Mancala(mancala)) => mancala::render(mancala, me, seats),
        Some(View::Quoridor(quoridor)) => quoridor::render(quoridor, seats),
        Some(View::Backgammon(backgammon)) => backgammon::render(backgammon, me, seats),
        Some(View::Junqi(junqi)) => junqi::render(junqi, me, seats),
        None if view.is_none() => tr("render.noPosition").to_owned(),
        // A game added after this client was built.
        None => tr("render.cannotDraw").to_owned(),
    }
}

/// The players line, the board, recent notes, and whose turn it is with the clock.
pub fn render_frame(frame: &Frame<'_>) -> String {
    let mut out = String::new();
    let players: Vec<String> = frame
        .seats
        .iter()
        .map(|s| {
            let mut label = seat_label(frame.view, frame.seats, s.seat);
            if frame.me == Some(s.seat) {
                label.push_str(tr("render.you"));
            }
            label
        })
        .collect();
    let players = players.join(tr("render.versus"));
    let _ = writeln!(
        out,
        "{}",
        trf(
            "render.gameLine",
            &[("game", &frame.game_id), ("players", &players)]
        )
    );
    out.push('\n');
    out.push_str(&render_board(frame.view, frame.me, frame.seats));
    out.push('\n');
    for note in frame.notes {
        out.push_str(note);
        out.push('\n');
    }
    if !frame.finished {
        out.push_str(&render_turn(frame));
    }
    out
}

/// `X (alice) to move — 57 s left`, addressed to the viewer when it is their turn.
fn render_turn(frame: &Frame<'_>) -> String {
    let view = frame.view;
    let mut out = String::new();
    match frame.turn.and_then(|t| t.to_move) {
        Some(seat) => {
            if frame.me == Some(seat) {
                let mark = seat_mark(view, seat);
                out.push_str(&trf("render.yourTurn", &[("mark", &mark)]));
            } else {
                let who = seat_label(view, frame.seats, seat);
                out.push_str(&trf("render.toMove", &[("who", &who)]));
            }
            if let Some(secs) = frame
                .turn
                .and_then(|t| seconds_left(t.deadline_unix_ms, frame.now_ms))
            {
                out.push_str(&trf("render.secondsLeft", &[("seconds", &secs)]));
            }
            out.push('\n');
        }
        None => {
            out.push_str(tr("render.nobodyToMove"));
            out.push('\n');
        }
    }
    if let Some(by) = frame.draw_offered_by {
        if frame.me.is_some() && frame.me != Some(by) {
            let who = seat_label(view, frame.seats, by);
            let _ = writeln!(out, "{}", trf("render.offersDrawAnswer", &[("who", &who)]));
        } else {
            let who = seat_label(view, frame.seats, by);
            let _ = writeln!(out, "{}", trf("render.drawOfferedBy", &[("who", &who)]));
        }
    }
    out
}

/// How a game ended: `game over: X (alice) wins — C7: five in a row from D4 to H8`.
pub fn render_outcome(
    outcome: Option<&pb::Outcome>,
    view: Option<&pb::GameView>,
    seats: &[pb::SeatInfo],
) -> String {
    let Some(outcome) = outcome else {
        return format!("{}\n", tr("render.gameOver"));
    };
    let what = match pb::ResultKind::try_from(outcome.kind) {
        Ok(pb::ResultKind::Win) => {
            let winners: Vec<String> = outcome
                .winners
                .iter()
                .map(|seat| seat_label(view, seats, *seat))
                .collect();
            if winners.is_empty() {
                tr("render.aWin").to_owned()
            } else {
                let who = winners.join(tr("render.and"));
                trf("render.wins", &[("who", &who)])
            }
        }
        Ok(pb::ResultKind::Draw) => tr("render.draw").to_owned(),
        Ok(pb::ResultKind::Cancelled) => tr("render.cancelled").to_owned(),
        Ok(pb::ResultKind::Unspecified) | Err(_) => tr("render.ended").to_owned(),
    };
    let why = match (outcome.rule.is_empty(), outcome.reason.is_empty()) {
        (true, true) => String::new(),
        (false, true) => format!(" — {}", outcome.rule),
        (true, false) => format!(" — {}", outcome.reason),
        (false, false) => format!(" — {}: {}", outcome.rule, outcome.reason),
    };
    format!(
        "{}\n",
        trf("render.gameOverWhat", &[("what", &what), ("why", &why)])
    )
}

/// One line about an event that is worth a note under the board (draw offers, timeouts,
/// resignations, and moves of games this client cannot draw).
pub fn event_line(
    event: &pb::GameEvent,
    view: Option<&pb::GameView>,
    seats: &[pb::SeatInfo],
) -> Option<String> {
    use pb::game_event::Kind;
    let caro = caro_view(view);
    let who = |seat: u32| seat_label(view, seats, seat);
    let seq = event.seq;
    match event.kind.as_ref()? {
        Kind::Started(started) => {
            let names: Vec<String> = started
                .seats
                .iter()
                .map(|s| format!("{} ({})", s.display_name, numbered_seat(s.seat)))
                .collect();
            let players = names.join(tr("render.versus"));
            Some(format!(
                "#{seq} {}",
                trf("render.gameStarted", &[("players", &players)])
            ))
        }
        // On a Caro board the move shows as the highlighted cell and in the move list; the
        // other boards highlight only the last action, so every action also gets a note in
        // the game's notation: the notes are the recent history.
        Kind::ActionApplied(applied) if caro.is_none() || applied.automatic => {
            let auto = if applied.automatic {
                tr("render.byServer")
            } else {
                ""
            };
            let who = if caro.is_some() {
                numbered_seat(applied.seat)
            } else {
                who(applied.seat)
            };
            // A Junqi note also says what the action revealed or took: flips are the game.
            let what = match view.and_then(|v| v.view.as_ref()) {
                Some(pb::game_view::View::Junqi(junqi)) => {
                    junqi::action_note(junqi, applied.seat, &applied.notation)
                }
                _ => None,
            }
            .unwrap_or_else(|| applied.notation.clone());
            Some(format!("#{seq} {who}: {what}{auto}"))
        }
        Kind::ActionApplied(_) => None,
        Kind::TurnTimedOut(timeout) if timeout.effect.is_empty() => Some(format!(
            "#{seq} {}",
            trf("render.ranOutOfTime", &[("who", &who(timeout.seat))])
        )),
        // The effect already names the seat and the rule, e.g. "C12: x ran out of time".
        Kind::TurnTimedOut(timeout) => Some(format!(
            "#{seq} {}",
            trf(
                "render.timeIsUp",
                &[("who", &who(timeout.seat)), ("effect", &timeout.effect)]
            )
        )),
        Kind::Resigned(resigned) => Some(format!(
            "#{seq} {}",
            trf("render.resigned", &[("who", &who(resigned.seat))])
        )),
        Kind::TakenBack(taken) => Some(format!(
            "#{seq} {}",
            trf(
                "render.tookBack",
                &[
                    ("who", &who(taken.seat)),
                    ("actions", &taken.actions),
                    ("seq", &taken.restored_seq)
                ]
            )
        )),
        Kind::DrawOffered(offer) => Some(format!(
            "#{seq} {}",
            trf("render.offersDraw", &[("who", &who(offer.seat))])
        )),
        Kind::DrawDeclined(declined) => Some(format!(
            "#{seq} {}",
            trf("render.declinedDraw", &[("who", &who(declined.seat))])
        )),
        Kind::DrawAgreed(agreed) => Some(format!(
            "#{seq} {}",
            trf("render.drawAgreed", &[("who", &who(agreed.seat))])
        )),
        Kind::PlayerDisconnected(gone) if gone.return_by_unix_ms > 0 => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
            let seconds = (gone.return_by_unix_ms - now).max(0) / 1000;
            Some(format!(
                "#{seq} {}",
                trf(
                    "render.disconnectedFor",
                    &[("who", &who(gone.seat)), ("seconds", &seconds)]
                )
            ))
        }
        Kind::PlayerDisconnected(gone) => Some(format!(
            "#{seq} {}",
            trf("render.disconnected", &[("who", &who(gone.seat))])
        )),
        Kind::PlayerReconnected(back) => Some(format!(
            "#{seq} {}",
            trf("render.isBack", &[("who", &who(back.seat))])
        )),
        Kind::AbsenceExpired(expired) => Some(format!(
            "#{seq} {}",
            trf(
                "render.didNotComeBack",
                &[("who", &who(expired.seat)), ("effect", &expired.effect)]
            )
        )),
        Kind::AbsenceChoiceOffered(offer) => {
            let options = if offer.wait_allowed {
                tr("render.absenceWaitWinDraw")
            } else {
                tr("render.absenceWinDraw")
            };
            Some(format!(
                "#{seq} {}",
                trf(
                    "render.absenceChoice",
                    &[
                        ("who", &who(offer.seat)),
                        ("chooser", &who(offer.chooser)),
                        ("options", &options)
                    ]
                )
            ))
        }
        Kind::AbsenceChoiceMade(made) => Some(match pb::AbsenceChoice::try_from(made.choice) {
            Ok(pb::AbsenceChoice::Wait) => format!(
                "#{seq} {}",
                trf(
                    "render.waitsForOne",
                    &[("chooser", &who(made.chooser)), ("who", &who(made.seat))]
                )
            ),
            _ => format!(
                "#{seq} {}",
                trf(
                    "render.chose",
                    &[("chooser", &who(made.chooser)), ("effect", &made.effect)]
                )
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(side: u32, stones: &[(u32, u32, pb::CaroStone)]) -> pb::CaroView {
        let mut cells = vec![pb::CaroStone::Empty as i32; (side * side) as usize];
        let mut moves = Vec::new();
        for (column, row, stone) in stones {
            cells[(row * side + column) as usize] = *stone as i32;
            moves.push(pb::CaroCell {
                column: *column,
                row: *row,
                name: cell_name(*column, *row),
            });
        }
        pb::CaroView {
            board_size: side,
            cells,
            moves,
            seat_stones: vec![pb::CaroStone::X as i32, pb::CaroStone::O as i32],
            winning_line: Vec::new(),
            options: None,
        }
    }

    fn line_of_row(text: &str, row: u32) -> &str {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{row} ")))
            .unwrap_or_else(|| panic!("no row {row} in\n{text}"))
    }

    #[test]
    fn c1_names_cells_from_the_top_left() {
        assert_eq!(cell_name(0, 0), "A1");
        assert_eq!(cell_name(7, 7), "H8");
        assert_eq!(cell_name(8, 0), "I1"); // the letter I is included (C1)
        assert_eq!(cell_name(18, 18), "S19");
        assert_eq!(cell_name(40, 0), "?1");
    }

    #[test]
    fn x_at_h8_is_in_column_h_and_row_8_of_15x15() {
        let view = board(15, &[(7, 7, pb::CaroStone::X)]);
        let text = render_caro(&view, view.moves.last());
        let header = text.lines().next().unwrap_or_default();
        assert_eq!(header.trim(), "A  B  C  D  E  F  G  H  I  J  K  L  M  N  O");
        let h = header.find('H').unwrap_or(0);
        let row8 = line_of_row(&text, 8);
        assert_eq!(&row8[h - 1..=h + 1], "[X]");
        assert!(row8.starts_with(" 8 "));
        // Row 1 is the top edge: the first row drawn.
        assert!(text.lines().nth(1).unwrap_or_default().starts_with(" 1 "));
        // Exactly one stone on the board.
        assert_eq!(
            text.lines()
                .take(16)
                .flat_map(|l| l.chars())
                .filter(|c| *c == 'X')
                .count(),
            1
        );
        assert!(
            text.contains("moves:  1.X H8   2.O") || text.ends_with("moves:  1.X H8\n"),
            "{text}"
        );
    }

    #[test]
    fn board_19_has_columns_a_to_s() {
        let view = board(19, &[(9, 9, pb::CaroStone::X), (0, 18, pb::CaroStone::O)]);
        let text = render_caro(&view, view.moves.last());
        let header = text.lines().next().unwrap_or_default();
        let letters: String = header.split_whitespace().collect();
        assert_eq!(letters, "ABCDEFGHIJKLMNOPQRS");
        let row19 = line_of_row(&text, 19);
        assert!(row19.starts_with("19 [O]"), "{row19}");
        let row10 = line_of_row(&text, 10);
        let j = header.find('J').unwrap_or(0);
        assert_eq!(&row10[j..=j], "X");
        assert!(
            text.contains("1.X J10") && text.contains("2.O A19"),
            "{text}"
        );
    }

    #[test]
    fn no_trailing_spaces_and_winning_line_marked() {
        let mut view = board(
            15,
            &[
                (0, 0, pb::CaroStone::X),
                (1, 0, pb::CaroStone::X),
                (2, 0, pb::CaroStone::X),
            ],
        );
        view.winning_line = view.moves.clone();
        let text = render_caro(&view, view.moves.last());
        assert!(text.lines().all(|l| l == l.trim_end()));
        assert!(line_of_row(&text, 1).starts_with(" 1 (X)(X)[X]"));
    }

    #[test]
    fn malformed_views_do_not_panic() {
        let mut view = board(15, &[(7, 7, pb::CaroStone::X)]);
        view.cells.truncate(10);
        assert!(render_caro(&view, None).contains("10 cells"));
        view.board_size = 0;
        assert!(render_caro(&view, None).contains("side 0"));
        view.board_size = 1000;
        view.cells.push(99);
        assert!(render_caro(&view, None).contains("side 1000"));
        let mut view = board(15, &[]);
        view.moves.push(pb::CaroCell {
            column: 99,
            row: 99,
            name: String::new(),
        });
        assert!(render_moves(&view).contains("1.? ?100"));
    }

    #[test]
    fn move_list_wraps() {
        let stones: Vec<_> = (0..10)
            .map(|i| {
                let stone = if i % 2 == 0 {
                    pb::CaroStone::X
                } else {
                    pb::CaroStone::O
                };
                (i, 3, stone)
            })
            .collect();
        let text = render_moves(&board(15, &stones));
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.contains("9.X I4"));
    }

    fn seats() -> Vec<pb::SeatInfo> {
        vec![
            pb::SeatInfo {
                seat: 0,
                player_id: "p0".into(),
                display_name: "alice".into(),
                computer_level: String::new(),
            },
            pb::SeatInfo {
                seat: 1,
                player_id: "p1".into(),
                display_name: "bob".into(),
                computer_level: String::new(),
            },
        ]
    }

    #[test]
    fn frame_shows_turn_and_clock() {
        let view = pb::GameView {
            view: Some(pb::game_view::View::Caro(board(
                15,
                &[(7, 7, pb::CaroStone::X)],
            ))),
        };
        let turn = pb::TurnInfo {
            to_move: Some(1),
            deadline_unix_ms: 100_000,
            turn_seq: 2,
        };
        let seats = seats();
        let notes = vec!["#2 X (alice) offers a draw".to_owned()];
        let mut frame = Frame {
            game_id: "g1",
            seats: &seats,
            view: Some(&view),
            turn: Some(&turn),
            finished: false,
            me: Some(1),
            draw_offered_by: Some(0),
            notes: &notes,
            now_ms: 43_500,
        };
        let text = render_frame(&frame);
        assert!(
            text.starts_with("game g1: X (alice) vs O (bob) — you\n"),
            "{text}"
        );
        assert!(
            text.contains("#2 X (alice) offers a draw\nyour turn (O) — 57 s left"),
            "{text}"
        );
        assert!(text.contains("X (alice) offers a draw: type accept or decline"));
        frame.me = None;
        let text = render_frame(&frame);
        assert!(text.contains("O (bob) to move — 57 s left"), "{text}");
        assert!(text.contains("draw offered by X (alice)"));
    }

    #[test]
    fn other_games_are_drawn_and_their_actions_noted() {
        let view = pb::GameView {
            view: Some(pb::game_view::View::Mancala(pb::MancalaView::default())),
        };
        let seats = seats();
        let frame = Frame {
            game_id: "g2",
            seats: &seats,
            view: Some(&view),
            turn: None,
            finished: true,
            me: None,
            draw_offered_by: None,
            notes: &[],
            now_ms: 0,
        };
        // A malformed (empty) board is a note, not a panic.
        assert!(
            render_frame(&frame).contains("0 mancala sides"),
            "{}",
            render_frame(&frame)
        );
        let event = pb::GameEvent {
            seq: 4,
            kind: Some(pb::game_event::Kind::ActionApplied(pb::ActionApplied {
                seat: 1,
                action: None,
                notation: "c3".into(),
                automatic: false,
            })),
            ..Default::default()
        };
        assert_eq!(
            event_line(&event, Some(&view), &seats).as_deref(),
            Some("#4 seat 1 (bob): c3")
        );
        let backgammon = pb::GameView {
            view: Some(pb::game_view::View::Backgammon(
                pb::BackgammonView::default(),
            )),
        };
        assert_eq!(
            event_line(&event, Some(&backgammon), &seats).as_deref(),
            Some("#4 black (bob): c3")
        );
        assert_eq!(
            event_line(&event, Some(&backgammon), &[]).as_deref(),
            Some("#4 black (seat 1): c3")
        );
    }

    #[test]
    fn junqi_notes_say_what_a_flip_revealed() {
        let junqi = pb::JunqiView {
            seat_colours: vec![pb::JunqiColour::Blue as i32, pb::JunqiColour::Red as i32],
            last_action: Some(pb::JunqiLastAction {
                seat: 1,
                notation: "c6".into(),
                piece: Some(pb::JunqiPiece {
                    colour: pb::JunqiColour::Blue as i32,
                    rank: pb::JunqiRank::Engineer as i32,
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        let view = pb::GameView {
            view: Some(pb::game_view::View::Junqi(junqi)),
        };
        let applied = |notation: &str| pb::GameEvent {
            seq: 9,
            kind: Some(pb::game_event::Kind::ActionApplied(pb::ActionApplied {
                seat: 1,
                action: None,
                notation: notation.into(),
                automatic: false,
            })),
            ..Default::default()
        };
        assert_eq!(
            event_line(&applied("c6"), Some(&view), &seats()).as_deref(),
            Some("#9 red (bob): flipped c6: blue engineer")
        );
        // A view that does not show this action: the notation alone.
        assert_eq!(
            event_line(&applied("d6"), Some(&view), &seats()).as_deref(),
            Some("#9 red (bob): d6")
        );
        assert_eq!(seat_mark(Some(&view), 0), "blue");
    }

    #[test]
    fn legal_actions_wrap() {
        let actions: Vec<pb::LegalAction> = (0..40)
            .map(|i| pb::LegalAction {
                action: None,
                notation: format!("{}/{}", 24 - i % 12, 18 - i % 12),
            })
            .collect();
        let text = render_legal(&actions);
        assert!(text.starts_with("legal: 24/18, 23/17,"), "{text}");
        assert!(text.lines().all(|l| l.len() <= 78));
        assert!(text.lines().count() > 1);
        assert!(text.ends_with(" 21/15\n"), "{text}");
        assert_eq!(render_legal(&[]), "no legal actions listed right now\n");
    }

    #[test]
    fn outcomes_name_winners_rule_and_reason() {
        let view = pb::GameView {
            view: Some(pb::game_view::View::Caro(board(15, &[]))),
        };
        let outcome = pb::Outcome {
            kind: pb::ResultKind::Win as i32,
            winners: vec![1],
            rule: "C7".into(),
            reason: "five in a row from D4 to H8".into(),
            ..Default::default()
        };
        assert_eq!(
            render_outcome(Some(&outcome), Some(&view), &seats()),
            "game over: O (bob) wins — C7: five in a row from D4 to H8\n"
        );
        let draw = pb::Outcome {
            kind: pb::ResultKind::Draw as i32,
            rule: "C8".into(),
            ..Default::default()
        };
        assert_eq!(
            render_outcome(Some(&draw), None, &[]),
            "game over: draw — C8\n"
        );
        assert_eq!(render_outcome(None, None, &[]), "game over\n");
    }

    // Under a Vietnamese locale the client's own words change; the rule id and the
    // server's reason stay as sent.
    #[test]
    fn the_outcome_and_the_turn_read_in_vietnamese() {
        use crate::i18n::{Lang, set_test_lang};
        set_test_lang(Lang::Vi);
        let draw = pb::Outcome {
            kind: pb::ResultKind::Draw as i32,
            rule: "C8".into(),
            ..Default::default()
        };
        let outcome = render_outcome(Some(&draw), None, &[]);
        let resigned = pb::GameEvent {
            seq: 9,
            kind: Some(pb::game_event::Kind::Resigned(pb::PlayerResigned {
                seat: 1,
            })),
            ..Default::default()
        };
        let line = event_line(&resigned, None, &ann_and_bob());
        set_test_lang(Lang::En);
        assert_eq!(outcome, "hết ván: hòa — C8\n");
        assert_eq!(line.as_deref(), Some("#9 O (bob) đầu hàng"));
    }

    #[test]
    fn clock_rounds_up_and_never_goes_negative() {
        assert_eq!(seconds_left(0, 5), None);
        assert_eq!(seconds_left(10_000, 9_001), Some(1));
        assert_eq!(seconds_left(10_000, 20_000), Some(0));
        assert_eq!(seconds_left(60_000, 0), Some(60));
    }
}
