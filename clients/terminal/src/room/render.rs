//! Room text, pure: one line per room change (joins, seats, ready, settings, countdowns,
//! games, scoreboards, chat, the host), the room's summary, and the lobby's listing.

use std::collections::HashMap;
use std::fmt::Write as _;

use clap::ValueEnum as _;
use ludus_proto::pb;
use pb::room_change::Kind;

use super::command::{display_code, invite_link};
use crate::GameChoice;
use crate::i18n::{tr, trf};
use crate::watch::game_name;

/// Members' names by player id. A member who left or was kicked is gone from the room's view
/// by the time their change is shown, so names are remembered from every view seen.
#[derive(Debug, Default, Clone)]
pub struct Names(HashMap<String, String>);

impl Names {
    /// Remembers the names of `room`'s members.
    pub fn learn(&mut self, room: &pb::RoomView) {
        for member in &room.members {
            self.0
                .insert(member.player_id.clone(), member.display_name.clone());
        }
    }

    /// Remembers a name from a chat line or a scoreboard.
    pub fn learn_one(&mut self, player_id: &str, name: &str) {
        self.0.insert(player_id.to_owned(), name.to_owned());
    }

    /// The name of `player_id`, or the id when it was never seen.
    pub fn of(&self, player_id: &str) -> String {
        self.0
            .get(player_id)
            .cloned()
            .unwrap_or_else(|| player_id.to_owned())
    }
}

/// The clock as a phrase: `1 min a move`, `untimed`.
fn clock(turn_time_ms: u64) -> String {
    match turn_time_ms {
        0 => tr("room.untimed").to_owned(),
        ms if ms % 60_000 == 0 => trf("room.minutesAMove", &[("minutes", &(ms / 60_000))]),
        ms => trf("room.secondsAMove", &[("seconds", &(ms / 1000))]),
    }
}

/// The room's settings in one line, e.g. `caro 15x15 · untimed · rock-paper-scissors first
/// (C10) · private · casual`.
pub fn settings_line(settings: Option<&pb::RoomSettings>) -> String {
    use pb::game_settings::Options;
    let Some(settings) = settings else {
        return "?".to_owned();
    };
    let game = settings.game.as_ref();
    let mut parts = vec![game_name(game)];
    match game.and_then(|g| g.options.as_ref()) {
        Some(Options::Caro(caro)) => {
            if caro.blocked_ends_off {
                parts.push(tr("room.freeRules").to_owned());
            }
            if caro.exactly_five {
                parts.push(tr("room.exactlyFive").to_owned());
            }
        }
        Some(Options::Quoridor(q)) => {
            let players = q.players.max(2);
            parts.push(match pb::QuoridorMode::try_from(q.mode) {
                Ok(pb::QuoridorMode::Teams) => trf("room.teams", &[("side", &(players / 2))]),
                Ok(pb::QuoridorMode::TournamentMatch) => {
                    trf("room.knockout", &[("players", &players)])
                }
                _ => trf("room.players", &[("players", &players)]),
            });
            parts.push(match q.walls {
                0 => tr("room.wallsBySize").to_owned(),
                walls => trf("room.walls", &[("walls", &walls)]),
            });
            if q.goal == pb::QuoridorGoal::Center as i32 {
                parts.push(tr("room.raceToCenter").to_owned());
            }
        }
        Some(Options::Mancala(_) | Options::Junqi(_)) | None => {}
        Some(Options::Backgammon(b)) => {
            for (on, name) in [
                (b.automatic_doubles, "room.automaticDoubles"),
                (b.beavers, "room.beavers"),
                (b.jacoby, "room.jacoby"),
            ] {
                if on {
                    parts.push(tr(name).to_owned());
                }
            }
        }
    }
    parts.push(clock(game.map_or(0, |g| g.turn_time_ms)));
    if matches!(
        game.and_then(|g| g.options.as_ref()),
        Some(Options::Caro(_))
    ) {
        parts.push(
            match pb::CaroFirstMover::try_from(settings.first_mover) {
                Ok(pb::CaroFirstMover::Host) => tr("room.hostFirst"),
                Ok(pb::CaroFirstMover::Guest) => tr("room.guestFirst"),
                _ => tr("room.rpsFirst"),
            }
            .to_owned(),
        );
    }
    parts.push(
        tr(if settings.public {
            "room.public"
        } else {
            "room.private"
        })
        .to_owned(),
    );
    parts.push(
        tr(if settings.rated {
            "room.rated"
        } else {
            "room.casual"
        })
        .to_owned(),
    );
    if settings.spectator_chat == Some(false) {
        parts.push(tr("room.spectatorsSilent").to_owned());
    }
    parts.join(" · ")
}

/// What the room is doing.
fn phase_line(room: &pb::RoomView, now_ms: i64) -> String {
    match pb::RoomPhase::try_from(room.phase) {
        Ok(pb::RoomPhase::Countdown) => trf(
            "room.phaseCountdown",
            &[(
                "seconds",
                &seconds(room.countdown_due_unix_ms.saturating_sub(now_ms)),
            )],
        ),
        Ok(pb::RoomPhase::Paused) => trf(
            "room.phasePaused",
            &[("seconds", &seconds(room.countdown_remaining_ms))],
        ),
        Ok(pb::RoomPhase::Playing) => tr("room.phasePlaying").to_owned(),
        _ => tr("room.phaseWaiting").to_owned(),
    }
}

/// Whole seconds, rounded up: "1 s" until the last millisecond.
fn seconds(ms: i64) -> i64 {
    (ms.max(0) + 999) / 1000
}

fn team_name(team: i32) -> Option<&'static str> {
    match pb::RoomTeam::try_from(team) {
        Ok(pb::RoomTeam::Red) => Some(tr("quoridor.red")),
        Ok(pb::RoomTeam::Yellow) => Some(tr("quoridor.yellow")),
        _ => None,
    }
}

/// The room: code and invite, settings, phase, members (what each is doing), live games.
pub fn summary(room: &pb::RoomView, me: &str, now_ms: i64) -> String {
    let mut out = String::new();
    let code = if room.display_code.is_empty() {
        display_code(&room.code)
    } else {
        room.display_code.clone()
    };
    let _ = writeln!(
        out,
        "{}",
        trf(
            "room.summaryHeader",
            &[("code", &code), ("link", &invite_link(&room.code))]
        )
    );
    let _ = writeln!(out, "  {}", settings_line(room.settings.as_ref()));
    let seated = room.members.iter().filter(|m| m.seated).count();
    let _ = writeln!(
        out,
        "  {} · {}",
        phase_line(room, now_ms),
        trf(
            "room.seatsTaken",
            &[("seated", &seated), ("seats", &room.seats)]
        )
    );
    for member in &room.members {
        let mut tags = Vec::new();
        if member.player_id == me {
            tags.push(tr("room.you").to_owned());
        }
        if member.host {
            tags.push(tr("room.host").to_owned());
        }
        if !member.computer_level.is_empty() {
            tags.push(trf("room.computer", &[("level", &member.computer_level)]));
        } else if !member.account {
            tags.push(tr("room.guest").to_owned());
        }
        let ready = if member.ready {
            tr("room.andReady")
        } else {
            ""
        };
        let doing = match (member.seated, team_name(member.team)) {
            (false, _) => tr("room.watching").to_owned(),
            (true, Some(team)) => trf("room.seatedWith", &[("team", &team), ("ready", &ready)]),
            (true, None) => trf("room.seated", &[("ready", &ready)]),
        };
        let tags = if tags.is_empty() {
            String::new()
        } else {
            format!(" ({})", tags.join(", "))
        };
        let _ = writeln!(out, "  - {}{tags}: {doing}", member.display_name);
    }
    let names = name_map(room);
    for (n, table) in room.tables.iter().filter(|t| !t.finished).enumerate() {
        let _ = writeln!(
            out,
            "{}",
            trf(
                "room.liveGame",
                &[
                    ("n", &(n + 1)),
                    ("players", &players(&table.player_ids, &names)),
                    ("game", &table.game_id),
                ],
            )
        );
    }
    out
}

fn name_map(room: &pb::RoomView) -> Names {
    let mut names = Names::default();
    names.learn(room);
    names
}

fn players(ids: &[String], names: &Names) -> String {
    ids.iter()
        .map(|id| names.of(id))
        .collect::<Vec<_>>()
        .join(tr("render.versus"))
}

/// The line for one change, `None` for what needs none. `room` is the view after the
/// event, `at_ms` when it happened.
pub fn change_line(
    change: &pb::RoomChange,
    room: &pb::RoomView,
    names: &Names,
    me: &str,
    at_ms: i64,
) -> Option<String> {
    let mine = change.player_id == me;
    let who = || {
        if mine {
            tr("room.you").to_owned()
        } else {
            names.of(&change.player_id)
        }
    };
    // "you are" / "Ann is": the subject of a state.
    let are = || {
        if mine {
            tr("room.youAre").to_owned()
        } else {
            trf("room.isSubject", &[("who", &names.of(&change.player_id))])
        }
    };
    let kind = Kind::try_from(change.kind).ok()?;
    Some(match kind {
        Kind::Unspecified => return None,
        Kind::Created => trf("room.opened", &[("code", &room.display_code)]),
        Kind::Joined if change.seated => trf("room.joined", &[("who", &who())]),
        Kind::Joined => trf("room.joinedToWatch", &[("who", &who())]),
        Kind::Left => trf("room.left", &[("who", &who())]),
        Kind::Kicked if mine => tr("room.kickedYou").to_owned(),
        Kind::Kicked => trf("room.kicked", &[("who", &who())]),
        Kind::Seated => {
            let seated = room.members.iter().filter(|m| m.seated).count();
            let team = team_name(change.team)
                .map_or(String::new(), |t| trf("room.withTeam", &[("team", &t)]));
            trf(
                "room.satDown",
                &[
                    ("who", &who()),
                    ("team", &team),
                    (
                        "taken",
                        &trf(
                            "room.seatsTaken",
                            &[("seated", &seated), ("seats", &room.seats)],
                        ),
                    ),
                ],
            )
        }
        Kind::Unseated => trf("room.unseated", &[("who", &who())]),
        Kind::Ready if change.ready => trf("room.isReady", &[("are", &are())]),
        Kind::Ready => trf("room.notReady", &[("are", &are())]),
        Kind::SettingsChanged => trf(
            "room.settingsChanged",
            &[("settings", &settings_line(room.settings.as_ref()))],
        ),
        Kind::HostChanged => trf("room.hostNow", &[("are", &are())]),
        Kind::RockPaperScissors => {
            let draw = change.rock_paper_scissors.as_ref()?;
            trf(
                "room.rockPaperScissors",
                &[
                    ("pair", &players(&draw.player_ids, names)),
                    ("throws", &draw.throws.join(", ")),
                    ("first", &names.of(&draw.winner_id)),
                ],
            )
        }
        Kind::GamesStarted => {
            let mut out = String::new();
            for game_id in &change.game_ids {
                let at = room.tables.iter().find(|t| &t.game_id == game_id);
                let who = at.map_or_else(String::new, |t| {
                    format!(": {}", players(&t.player_ids, names))
                });
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&trf(
                    "room.gameStarted",
                    &[("game", game_id), ("players", &who)],
                ));
            }
            out
        }
        Kind::GameFinished => {
            let game_id = change.game_ids.first().map_or("?", String::as_str);
            let result = if change.winner_ids.is_empty() {
                tr("room.noWinner").to_owned()
            } else {
                let winners: Vec<String> =
                    change.winner_ids.iter().map(|id| names.of(id)).collect();
                trf("room.won", &[("who", &winners.join(tr("render.and")))])
            };
            let mut out = trf(
                "room.gameFinished",
                &[("game", &game_id), ("result", &result)],
            );
            if let Some(board) = scoreboard(room) {
                out.push('\n');
                out.push_str(&board);
            }
            out
        }
        Kind::CountdownStarted => trf(
            "room.countdownStarted",
            &[(
                "seconds",
                &seconds(change.due_unix_ms.saturating_sub(at_ms)),
            )],
        ),
        Kind::CountdownPaused => trf(
            "room.countdownPaused",
            &[("seconds", &seconds(change.remaining_ms))],
        ),
        Kind::CountdownCancelled => trf("room.countdownStopped", &[("reason", &change.text)]),
        Kind::TournamentRound if change.player_id.is_empty() => {
            trf("room.round", &[("round", &change.round)])
        }
        Kind::TournamentRound => trf(
            "room.roundBye",
            &[
                ("round", &change.round),
                ("who", &names.of(&change.player_id)),
            ],
        ),
        Kind::Champion => trf("room.champion", &[("are", &are())]),
        Kind::Chat => chat_line(change.chat.as_ref()?),
    })
}

/// One chat line, `Ann: hello`.
pub fn chat_line(line: &pb::RoomChatLine) -> String {
    format!("{}: {}", line.display_name, line.text)
}

/// The scoreboard of the game the room plays now, one player a line, most points first.
pub fn scoreboard(room: &pb::RoomView) -> Option<String> {
    let game = GameChoice::of(room.settings.as_ref().and_then(|s| s.game.as_ref()));
    // Scoreboards are named by game ("caro"), as clap names the choice.
    let board = room
        .scoreboards
        .iter()
        .find(|b| {
            game.and_then(|g| g.to_possible_value())
                .is_some_and(|name| name.get_name() == b.game)
        })
        .or(room.scoreboards.first())?;
    if board.scores.is_empty() {
        return None;
    }
    let mut out = trf("room.scoreboard", &[("game", &board.game)]);
    for score in &board.scores {
        out.push_str(&trf(
            "room.score",
            &[
                ("name", &score.display_name),
                ("played", &score.played),
                ("won", &score.won),
                ("drawn", &score.drawn),
                ("points", &score.points),
            ],
        ));
    }
    Some(out)
}

/// The public rooms, one a line.
pub fn listing(rooms: &[pb::RoomView]) -> String {
    if rooms.is_empty() {
        return tr("room.noPublicRooms").to_owned();
    }
    let mut out = String::from(tr("room.publicRooms"));
    for room in rooms {
        let host = room
            .members
            .iter()
            .find(|m| m.host)
            .map_or("?", |m| m.display_name.as_str());
        let seated = room.members.iter().filter(|m| m.seated).count();
        let code = if room.display_code.is_empty() {
            display_code(&room.code)
        } else {
            room.display_code.clone()
        };
        let _ = writeln!(
            out,
            "{}",
            trf(
                "room.listed",
                &[
                    ("code", &code),
                    ("settings", &settings_line(room.settings.as_ref())),
                    ("host", &host),
                    (
                        "taken",
                        &trf(
                            "room.seatsTaken",
                            &[("seated", &seated), ("seats", &room.seats)],
                        ),
                    ),
                    ("phase", &phase_line(room, crate::session::now_ms())),
                ],
            )
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: &str, name: &str, seated: bool, host: bool) -> pb::RoomMember {
        pb::RoomMember {
            player_id: id.into(),
            display_name: name.into(),
            account: host,
            seated,
            host,
            ..Default::default()
        }
    }

    fn room() -> pb::RoomView {
        pb::RoomView {
            code: "K7M4QP".into(),
            display_code: "K7M 4QP".into(),
            host_player_id: "h".into(),
            settings: Some(pb::RoomSettings {
                game: Some(pb::GameSettings {
                    options: Some(pb::game_settings::Options::Caro(pb::CaroOptions {
                        board_size: 15,
                        ..Default::default()
                    })),
                    turn_time_ms: 60_000,
                }),
                first_mover: pb::CaroFirstMover::Host as i32,
                ..Default::default()
            }),
            phase: pb::RoomPhase::Lobby as i32,
            members: vec![
                member("h", "Hana", true, true),
                member("g", "Gus", true, false),
                member("s", "Sam", false, false),
            ],
            seats: 2,
            ..Default::default()
        }
    }

    fn line(kind: Kind, player: &str, edit: impl FnOnce(&mut pb::RoomChange)) -> Option<String> {
        let mut change = pb::RoomChange {
            kind: kind as i32,
            player_id: player.into(),
            ..Default::default()
        };
        edit(&mut change);
        let mut names = Names::default();
        names.learn(&room());
        names.learn_one("gone", "Zed");
        change_line(&change, &room(), &names, "h", 1_000)
    }

    #[test]
    fn each_change_is_one_line_naming_who() {
        assert_eq!(
            line(Kind::Joined, "g", |c| c.seated = true).as_deref(),
            Some("Gus joined")
        );
        assert_eq!(
            line(Kind::Joined, "s", |_| {}).as_deref(),
            Some("Sam joined to watch")
        );
        assert_eq!(
            line(Kind::Seated, "g", |_| {}).as_deref(),
            Some("Gus sat down (2 of 2 seats taken)")
        );
        assert_eq!(
            line(Kind::Seated, "g", |c| c.team = pb::RoomTeam::Red as i32).as_deref(),
            Some("Gus sat down with red (2 of 2 seats taken)")
        );
        assert_eq!(
            line(Kind::Ready, "g", |c| c.ready = true).as_deref(),
            Some("Gus is ready")
        );
        assert_eq!(
            line(Kind::Ready, "h", |_| {}).as_deref(),
            Some("you are not ready")
        );
        assert_eq!(
            line(Kind::Left, "gone", |_| {}).as_deref(),
            Some("Zed left")
        );
        assert_eq!(
            line(Kind::Kicked, "g", |_| {}).as_deref(),
            Some("the host removed Gus")
        );
        assert_eq!(
            line(Kind::Kicked, "h", |_| {}).as_deref(),
            Some("the host removed you from the room")
        );
        assert_eq!(
            line(Kind::HostChanged, "g", |_| {}).as_deref(),
            Some("Gus is the host now")
        );
        assert_eq!(
            line(Kind::Chat, "g", |c| {
                c.chat = Some(pb::RoomChatLine {
                    player_id: "g".into(),
                    display_name: "Gus".into(),
                    text: "gl hf".into(),
                    at_unix_ms: 0,
                });
            })
            .as_deref(),
            Some("Gus: gl hf")
        );
        assert_eq!(
            line(Kind::SettingsChanged, "", |_| {}).as_deref(),
            Some(
                "settings: caro 15x15 · 1 min a move · host first (C10) · private · casual \
                 (players get ready again)"
            )
        );
        assert_eq!(
            line(Kind::CountdownStarted, "", |c| c.due_unix_ms = 31_000).as_deref(),
            Some("the next game starts in 30 s (Q29; the host can pause)")
        );
        assert_eq!(
            line(Kind::CountdownPaused, "", |c| c.remaining_ms = 12_500).as_deref(),
            Some("countdown paused with 13 s left (resume to go on)")
        );
        assert_eq!(
            line(Kind::TournamentRound, "s", |c| c.round = 2).as_deref(),
            Some("tournament round 2 (Q24): Sam sits this round out")
        );
        assert_eq!(
            line(Kind::RockPaperScissors, "", |c| {
                c.rock_paper_scissors = Some(pb::RockPaperScissorsDraw {
                    player_ids: vec!["h".into(), "g".into()],
                    throws: vec!["rock/rock".into(), "paper/rock".into()],
                    winner_id: "h".into(),
                });
            })
            .as_deref(),
            Some("C10 rock-paper-scissors, Hana vs Gus: rock/rock, paper/rock — Hana moves first")
        );
        assert_eq!(line(Kind::Unspecified, "", |_| {}), None);
    }

    #[test]
    fn games_started_and_finished_name_the_players_and_the_scoreboard() {
        let mut view = room();
        view.tables = vec![pb::RoomTable {
            game_id: "K7M4QP-1-0".into(),
            player_ids: vec!["h".into(), "g".into()],
            ..Default::default()
        }];
        view.scoreboards = vec![pb::RoomScoreboard {
            game: "caro".into(),
            scores: vec![pb::RoomScore {
                player_id: "h".into(),
                display_name: "Hana".into(),
                played: 1,
                won: 1,
                drawn: 0,
                points: 0,
            }],
        }];
        let mut names = Names::default();
        names.learn(&view);
        let started = pb::RoomChange {
            kind: Kind::GamesStarted as i32,
            game_ids: vec!["K7M4QP-1-0".into()],
            ..Default::default()
        };
        assert_eq!(
            change_line(&started, &view, &names, "h", 0).as_deref(),
            Some("game K7M4QP-1-0 started: Hana vs Gus")
        );
        let finished = pb::RoomChange {
            kind: Kind::GameFinished as i32,
            game_ids: vec!["K7M4QP-1-0".into()],
            winner_ids: vec!["h".into()],
            ..Default::default()
        };
        assert_eq!(
            change_line(&finished, &view, &names, "h", 0).as_deref(),
            Some(
                "game K7M4QP-1-0 finished: Hana won\nscoreboard (caro):\n  Hana: 1 played, 1 won, \
                 0 drawn, 0 points"
            )
        );
    }

    #[test]
    fn the_summary_shows_code_invite_settings_and_members() {
        assert_eq!(
            summary(&room(), "g", 0),
            "room K7M 4QP · invite: ludus://room/K7M4QP\n  caro 15x15 · 1 min a move · host \
             first (C10) · private · casual\n  waiting for the host to start · 2 of 2 seats \
             taken\n  - Hana (host): seated\n  - Gus (you, guest): seated\n  - Sam (guest): \
             watching\n"
        );
    }

    #[test]
    fn the_lobby_lists_rooms() {
        assert!(listing(&[]).starts_with("no public rooms"));
        let listed = listing(&[room()]);
        assert!(
            listed.contains("K7M 4QP  caro 15x15 · 1 min a move · host first (C10) · private · casual  host Hana  2 of 2 seats taken  waiting"),
            "{listed}"
        );
    }

    #[test]
    fn room_lines_and_the_summary_read_in_vietnamese() {
        use crate::i18n::in_vietnamese;
        assert_eq!(
            in_vietnamese(|| line(Kind::Seated, "g", |c| c.team = pb::RoomTeam::Red as i32))
                .as_deref(),
            Some("Gus đã ngồi vào đội đỏ (đã ngồi 2/2 ghế)")
        );
        assert_eq!(
            in_vietnamese(|| line(Kind::Ready, "h", |_| {})).as_deref(),
            Some("bạn chưa sẵn sàng")
        );
        assert_eq!(
            in_vietnamese(|| line(Kind::HostChanged, "g", |_| {})).as_deref(),
            Some("Gus giờ là chủ phòng")
        );
        assert_eq!(
            in_vietnamese(|| line(Kind::CountdownStarted, "", |c| c.due_unix_ms = 31_000))
                .as_deref(),
            Some("ván sau bắt đầu sau 30 giây (Q29; chủ phòng có thể tạm dừng)")
        );
        assert_eq!(
            in_vietnamese(|| summary(&room(), "g", 0)),
            "phòng K7M 4QP · liên kết mời: ludus://room/K7M4QP\n  cờ caro 15x15 · 1 phút mỗi \
             nước · chủ phòng đi trước (C10) · riêng tư · không tính điểm\n  chờ chủ phòng bắt \
             đầu · đã ngồi 2/2 ghế\n  - Hana (chủ phòng): đã ngồi\n  - Gus (bạn, khách): đã \
             ngồi\n  - Sam (khách): đang xem\n"
        );
        assert!(in_vietnamese(|| listing(&[])).starts_with("hiện không có phòng công khai"));
    }
}
