//! The room state machine, rule by rule (C10, C11, C16, Q23, Q24, Q29, Q30-Q36, Ping44).

use ludus_rules::{Outcome, ScriptedRandom};

use super::*;
use crate::error::RoomError;
use crate::settings::FirstMover;

fn caller(id: &str, account: bool) -> Caller {
    Caller {
        player_id: id.into(),
        name: id.to_uppercase(),
        account,
    }
}

fn code() -> RoomCode {
    RoomCode::parse("K7M4QP").expect("valid code")
}

fn caro_settings(first_mover: FirstMover, rated: bool) -> RoomSettings {
    let game = pb::GameSettings {
        options: Some(pb::game_settings::Options::Caro(pb::CaroOptions::default())),
        turn_time_ms: 60_000,
    };
    RoomSettings::new(game, false, rated, first_mover, false, true).expect("valid settings")
}

fn quoridor_settings(mode: pb::QuoridorMode, players: u32) -> RoomSettings {
    let game = pb::GameSettings {
        options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
            mode: mode as i32,
            players,
            ..Default::default()
        })),
        turn_time_ms: 30_000,
    };
    RoomSettings::new(game, true, false, FirstMover::default(), true, true).expect("valid settings")
}

fn room(settings: RoomSettings) -> Room {
    Room::create(code(), &caller("host", true), settings, false, 1_000)
        .expect("created")
        .0
}

fn rng(values: &[u32]) -> ScriptedRandom {
    ScriptedRandom::new(values.to_vec())
}

fn ready_all(room: &mut Room) {
    let seated: Vec<String> = room.seated().iter().map(|m| m.player_id.clone()).collect();
    for p in seated {
        room.set_ready(&p, true).expect("seated");
    }
}

/// Joins and sits down (no team, no draw needed).
fn sit(r: &mut Room, id: &str, account: bool) {
    r.join(&caller(id, account), true, None, &mut rng(&[]))
        .expect("joins to play");
}

/// Joins as a spectator.
fn watch(r: &mut Room, id: &str, account: bool) {
    r.join(&caller(id, account), false, None, &mut rng(&[]))
        .expect("joins to watch");
}

/// A guest's join that must be refused.
fn refused_join(r: &mut Room, id: &str, as_player: bool, why: &str) -> RoomError {
    r.join(&caller(id, false), as_player, None, &mut rng(&[]))
        .expect_err(why)
}

/// A two-player Quoridor room whose first game the host won at `now_ms` (Q29 then counts
/// down).
fn quoridor_game_won_at(now_ms: u64) -> Room {
    let mut r = room(quoridor_settings(pb::QuoridorMode::FreeForAll, 2));
    sit(&mut r, "b", false);
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("starts");
    let id = r.tables[0].game_id.clone();
    let won = Outcome::win(2, &[0], "Q17", "goal");
    r.game_finished(&id, &won, now_ms, &mut rng(&[]))
        .expect("recorded");
    r
}

fn reason_of(e: &RoomError) -> &'static str {
    e.reason()
}

#[test]
fn only_an_account_may_host() {
    // Ping44: the host must be a registered account.
    let refused = Room::create(
        code(),
        &caller("guest", false),
        caro_settings(FirstMover::Host, false),
        false,
        0,
    )
    .expect_err("guests cannot host");
    assert!(matches!(refused, RoomError::Precondition { .. }));
    assert_eq!(refused.reason(), "ACCOUNT_REQUIRED");
}

#[test]
fn c10_rock_paper_scissors_is_drawn_when_the_guest_sits_and_equal_throws_are_redrawn() {
    let mut r = room(caro_settings(FirstMover::RockPaperScissors, false));
    // Throws: rock/rock (equal, drawn again), then paper (host) beats rock (guest).
    let changes = r
        .join(&caller("guest", false), true, None, &mut rng(&[0, 0, 1, 0]))
        .expect("joins");
    let draw = changes
        .iter()
        .find_map(|c| match c {
            Change::RockPaperScissors(d) => Some(d.clone()),
            _ => None,
        })
        .expect("C10: the server draws when the guest sits down");
    assert_eq!(
        draw.throws,
        vec![[Hand::Rock, Hand::Rock], [Hand::Paper, Hand::Rock]]
    );
    assert_eq!(draw.winner, "host");
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("starts");
    // C9/C10: the winner holds seat 0 (X), which moves first.
    assert_eq!(r.tables[0].players, ["host", "guest"]);
}

#[test]
fn c10_the_host_may_give_the_first_move_to_the_guest() {
    let mut r = room(caro_settings(FirstMover::Guest, false));
    sit(&mut r, "guest", false);
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("starts");
    assert_eq!(r.tables[0].players, ["guest", "host"]);
}

fn finish_first_game(r: &mut Room, winner_seat: Option<usize>) -> Vec<Change> {
    let id = r.tables[0].game_id.clone();
    let outcome = match winner_seat {
        Some(s) => Outcome::win(2, &[s], "C7", "five in a row"),
        None => Outcome::draw(2, "C8", "agreed"),
    };
    r.game_finished(&id, &outcome, 2_000, &mut rng(&[]))
        .expect("recorded")
}

#[test]
fn c11_the_loser_moves_first_and_after_a_draw_the_first_mover_switches() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    sit(&mut r, "guest", false);
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("game 1");
    assert_eq!(
        r.tables[0].players,
        ["host", "guest"],
        "C10: the host first"
    );
    // The host (seat 0) wins: the guest lost and moves first in game 2.
    finish_first_game(&mut r, Some(0));
    assert_eq!(r.phase, Phase::Lobby, "Caro has no auto-start");
    r.start("host", &mut rng(&[])).expect("game 2");
    assert_eq!(
        r.tables[0].players,
        ["guest", "host"],
        "C11: the loser first"
    );
    // A draw: the first mover switches back to the host.
    finish_first_game(&mut r, None);
    r.start("host", &mut rng(&[])).expect("game 3");
    assert_eq!(
        r.tables[0].players,
        ["host", "guest"],
        "C11: switch after a draw"
    );
    let board = &r.scoreboard["caro"];
    assert_eq!(
        (board["host"].won, board["host"].drawn, board["host"].played),
        (1, 1, 2)
    );
    assert_eq!((board["guest"].won, board["guest"].drawn), (0, 1));
}

#[test]
fn a_finished_game_is_recorded_once() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    sit(&mut r, "guest", false);
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("starts");
    assert!(!finish_first_game(&mut r, Some(1)).is_empty());
    assert!(
        finish_first_game(&mut r, Some(1)).is_empty(),
        "timers fire more than once"
    );
    assert_eq!(r.scoreboard["caro"]["guest"].won, 1);
}

#[test]
fn c16_the_51st_spectator_is_refused() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    for i in 0..MAX_SPECTATORS {
        r.join(&caller(&format!("s{i}"), false), false, None, &mut rng(&[]))
            .expect("room for 50 spectators");
    }
    let refused = refused_join(&mut r, "s50", false, "C16: 50 spectators at most");
    assert!(matches!(refused, RoomError::Exhausted { .. }));
    assert!(refused.to_string().starts_with("C16"), "{refused}");
    // A player's seat is still free: joining to play is not a spectator.
    sit(&mut r, "guest", false);
    let full = refused_join(&mut r, "third", true, "two seats");
    assert_eq!(reason_of(&full), "ROOM_FULL");
}

#[test]
fn a_player_holds_one_seat() {
    let mut r = room(quoridor_settings(pb::QuoridorMode::FreeForAll, 4));
    let refused = r
        .take_seat("host", None, &mut rng(&[]))
        .expect_err("already seated");
    assert!(matches!(refused, RoomError::Exists { .. }));
    assert_eq!(r.seated().len(), 1);
    // Joining again as a player is a no-op, not a second seat.
    assert!(
        r.join(&caller("host", true), true, None, &mut rng(&[]))
            .expect("idempotent")
            .is_empty()
    );
}

#[test]
fn only_the_host_changes_settings_and_starts() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    sit(&mut r, "guest", false);
    let start = r.start("guest", &mut rng(&[])).expect_err("not the host");
    assert_eq!(reason_of(&start), "NOT_HOST");
    assert!(matches!(start, RoomError::Denied { .. }));
    let settings = r
        .update_settings("guest", caro_settings(FirstMover::Guest, false))
        .expect_err("not the host");
    assert_eq!(reason_of(&settings), "NOT_HOST");
    let outsider = r
        .start("nobody", &mut rng(&[]))
        .expect_err("not in the room");
    assert_eq!(reason_of(&outsider), "NOT_IN_ROOM");
}

#[test]
fn starting_needs_a_full_ready_table() {
    let mut r = room(quoridor_settings(pb::QuoridorMode::FreeForAll, 3));
    sit(&mut r, "b", false);
    let few = r.start("host", &mut rng(&[])).expect_err("two of three");
    assert!(matches!(few, RoomError::Precondition { .. }));
    assert!(few.to_string().starts_with("Q4:"), "{few}");
    sit(&mut r, "c", false);
    r.set_ready("b", true).expect("ready");
    let unready = r.start("host", &mut rng(&[])).expect_err("c is not ready");
    assert_eq!(reason_of(&unready), "NOT_READY");
    assert!(unready.to_string().contains('C'), "{unready}");
    r.set_ready("c", true).expect("ready");
    // The host's start counts as the host being ready.
    r.start("host", &mut rng(&[])).expect("starts");
    assert_eq!(r.phase, Phase::Playing);
    assert!(r.tables[0].casual, "an unrated room plays casual games");
}

#[test]
fn q23_teams_must_be_balanced_and_members_rotate_in_sit_order() {
    let mut r = Room::create(
        code(),
        &caller("host", true),
        quoridor_settings(pb::QuoridorMode::Teams, 4),
        true,
        0,
    )
    .expect("created")
    .0;
    let no_team = r
        .take_seat("host", None, &mut rng(&[]))
        .expect_err("Q23: choose a team");
    assert!(no_team.to_string().contains("Q23"), "{no_team}");
    r.take_seat("host", Some(Team::Red), &mut rng(&[]))
        .expect("red");
    // A host who creates the room seated sits with red.
    let seated_host = room(quoridor_settings(pb::QuoridorMode::Teams, 4));
    assert_eq!(
        seated_host.seated()[0].seat.as_ref().and_then(|s| s.team),
        Some(Team::Red)
    );
    r.join(&caller("b", false), true, Some(Team::Red), &mut rng(&[]))
        .expect("red");
    let full = r
        .join(&caller("c", false), true, Some(Team::Red), &mut rng(&[]))
        .expect_err("Q23: red has its two");
    assert_eq!(reason_of(&full), "ROOM_FULL");
    watch(&mut r, "c", false);
    r.take_seat("c", Some(Team::Yellow), &mut rng(&[]))
        .expect("yellow");
    let unbalanced = r.start("host", &mut rng(&[])).expect_err("three players");
    assert!(unbalanced.to_string().starts_with("Q23"), "{unbalanced}");
    r.join(&caller("d", false), true, Some(Team::Yellow), &mut rng(&[]))
        .expect("yellow");
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("starts");
    let table = &r.tables[0];
    assert_eq!(table.players, ["host", "b", "c", "d"]);
    let Some(pb::game_settings::Options::Quoridor(q)) = &table.settings.options else {
        panic!("a quoridor game");
    };
    let red = pb::QuoridorTeam::Red as i32;
    let yellow = pb::QuoridorTeam::Yellow as i32;
    assert_eq!(q.teams, [red, red, yellow, yellow]);
    // Q33: every member gets the team pawn's points (the outcome carries them per seat).
    let id = table.game_id.clone();
    let outcome =
        Outcome::win(4, &[0, 1], "Q17", "red reached its goal").with_points(vec![8, 8, 0, 0]);
    let changes = r
        .game_finished(&id, &outcome, 5_000, &mut rng(&[]))
        .expect("recorded");
    let board = &r.scoreboard["quoridor"];
    assert_eq!(
        (board["host"].points, board["b"].points, board["c"].points),
        (8, 8, 0)
    );
    assert_eq!(board["b"].won, 1);
    // Q29: the next game starts 30 s after this one.
    assert!(changes.contains(&Change::CountdownStarted { due_ms: 35_000 }));
}

#[test]
fn q29_the_countdown_pauses_resumes_and_fires_once() {
    let mut r = quoridor_game_won_at(10_000);
    let (first, due) = r.countdown().expect("Q29 countdown");
    assert_eq!(due, 40_000);
    assert_eq!(
        reason_of(&r.pause("b", 20_000).expect_err("host only")),
        "NOT_HOST"
    );
    r.pause("host", 20_000).expect("paused");
    assert_eq!(
        r.phase,
        Phase::Paused {
            id: first,
            remaining_ms: 20_000
        }
    );
    // The paused countdown's timer fires: nothing happens.
    assert!(
        r.countdown_fired(first, &mut rng(&[]))
            .expect("stale")
            .is_empty()
    );
    r.resume("host", 100_000).expect("resumed");
    let (second, due) = r.countdown().expect("running again");
    assert_eq!(due, 120_000, "resumed with the 20 s it had left");
    assert_ne!(second, first);
    let started = r.countdown_fired(second, &mut rng(&[])).expect("starts");
    assert!(matches!(started.last(), Some(Change::GamesStarted { .. })));
    assert_eq!(r.phase, Phase::Playing);
    // A second firing of the same timer changes nothing.
    assert!(
        r.countdown_fired(second, &mut rng(&[]))
            .expect("stale")
            .is_empty()
    );
}

#[test]
fn q29_a_countdown_whose_table_emptied_goes_back_to_the_lobby() {
    let mut r = quoridor_game_won_at(0);
    let changes = r.leave("b").expect("leaves");
    assert!(
        changes
            .iter()
            .any(|c| matches!(c, Change::CountdownCancelled { .. })),
        "{changes:?}"
    );
    assert_eq!(r.phase, Phase::Lobby);
}

#[test]
fn q24_a_five_player_knockout_with_a_bye_a_replay_and_a_champion() {
    let mut r = room(quoridor_settings(pb::QuoridorMode::TournamentMatch, 5));
    for p in ["b", "c", "d", "e"] {
        sit(&mut r, p, false);
    }
    ready_all(&mut r);
    // Bye pick 4 (of five fresh), then first movers.
    let changes = r.start("host", &mut rng(&[4, 0, 0])).expect("round 1");
    let bye = changes
        .iter()
        .find_map(|c| match c {
            Change::TournamentRound { round: 1, bye } => Some(bye.clone()),
            _ => None,
        })
        .expect("round 1 announced");
    assert_eq!(bye.as_deref(), Some("e"), "Q24: an odd field gives a bye");
    assert_eq!(r.tables.len(), 2, "two simultaneous matches");
    for t in &r.tables {
        let Some(pb::game_settings::Options::Quoridor(q)) = &t.settings.options else {
            panic!("quoridor");
        };
        assert_eq!(q.mode, pb::QuoridorMode::TournamentMatch as i32);
        assert_eq!(q.players, 2);
    }
    // Match 0 is drawn: replayed at once with the other player first (Q24).
    let first = r.tables[0].clone();
    let Some(pb::game_settings::Options::Quoridor(q0)) = &first.settings.options else {
        panic!("quoridor");
    };
    let changes = r
        .game_finished(
            &first.game_id,
            &Outcome::draw(2, "Q18", "draw"),
            0,
            &mut rng(&[]),
        )
        .expect("recorded");
    assert!(matches!(changes.last(), Some(Change::GamesStarted { .. })));
    let replay = r.tables.last().expect("replay").clone();
    assert_eq!(replay.players, first.players);
    let Some(pb::game_settings::Options::Quoridor(q1)) = &replay.settings.options else {
        panic!("quoridor");
    };
    assert_eq!(
        q1.first_seat,
        q0.first_seat.map(|s| 1 - s),
        "other player first"
    );
    // Seat 0 wins the replay, seat 1 wins the other match: round 2 pairs three players.
    let win0 = Outcome::win(2, &[0], "Q17", "goal");
    r.game_finished(&replay.game_id, &win0, 0, &mut rng(&[]))
        .expect("recorded");
    let other = r.tables[1].clone();
    let win1 = Outcome::win(2, &[1], "Q17", "goal");
    let changes = r
        .game_finished(&other.game_id, &win1, 50_000, &mut rng(&[]))
        .expect("recorded");
    assert!(
        changes
            .iter()
            .any(|c| matches!(c, Change::TournamentRound { round: 2, .. }))
    );
    assert_eq!(
        r.countdown().map(|c| c.1),
        Some(80_000),
        "Q29 between rounds"
    );
    let (id, _) = r.countdown().expect("countdown");
    r.countdown_fired(id, &mut rng(&[0, 0])).expect("round 2");
    // Play on until a champion: seat 0 always wins.
    let mut champion = None;
    for _ in 0..10 {
        let live: Vec<String> = r.live_tables().map(|t| t.game_id.clone()).collect();
        for id in live {
            for change in r.game_finished(&id, &win0, 0, &mut rng(&[0])).expect("ok") {
                if let Change::Champion { player_id } = change {
                    champion = Some(player_id);
                }
            }
        }
        if champion.is_some() {
            break;
        }
        if let Some((id, _)) = r.countdown() {
            r.countdown_fired(id, &mut rng(&[0, 0]))
                .expect("next round");
        }
    }
    let champion = champion.expect("Q24: one champion remains");
    let board = &r.scoreboard["quoridor"];
    // Q35: 3 per match won, 10 more for the champion; no points for the draw.
    let wins = u32::try_from(board[&champion].points - 10).expect("bonus") / 3;
    assert!(wins >= 2, "{board:?}");
    assert!(board.values().all(|s| s.points % 3 == 0 || s.points >= 10));
    assert!(r.tournament.is_none());
    assert_eq!(r.phase, Phase::Lobby);
}

#[test]
fn the_host_role_moves_on_to_an_account_when_the_host_leaves() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    sit(&mut r, "guest", false);
    watch(&mut r, "member", true);
    let changes = r.leave("host").expect("leaves");
    assert!(changes.contains(&Change::HostChanged {
        player_id: "member".into()
    }));
    assert_eq!(r.host, "member");
    r.hand_over("member", "guest").expect("explicit handover");
    assert_eq!(r.host, "guest");
    r.leave("guest").expect("leaves");
    r.leave("member").expect("leaves");
    assert!(r.is_empty());
}

#[test]
fn rated_rooms_rate_only_tables_of_accounts() {
    let mut r = room(caro_settings(FirstMover::Host, true));
    sit(&mut r, "guest", false);
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("starts");
    assert!(r.tables[0].casual, "a guest at the table: casual (M12)");
    let mut r = room(caro_settings(FirstMover::Host, true));
    sit(&mut r, "friend", true);
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("starts");
    assert!(!r.tables[0].casual);
}

#[test]
fn a_kicked_player_cannot_come_back() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    sit(&mut r, "guest", false);
    assert_eq!(
        reason_of(&r.kick("guest", "host").expect_err("host only")),
        "NOT_HOST"
    );
    r.kick("host", "guest").expect("kicked");
    let back = refused_join(&mut r, "guest", true, "kicked");
    assert_eq!(reason_of(&back), "KICKED");
}

#[test]
fn chat_lines_are_short_visible_limited_and_kept_100() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    watch(&mut r, "fan", false);
    let long = "x".repeat(CHAT_MAX_CHARS + 1);
    assert_eq!(
        reason_of(&r.chat("fan", &long, 0).expect_err("201")),
        "CHAT_INVALID"
    );
    r.chat("fan", &"é".repeat(CHAT_MAX_CHARS), 0)
        .expect("200 characters, not bytes");
    for bad in ["bell\u{7}", "new\nline", "bidi\u{202e}"] {
        assert_eq!(
            reason_of(&r.chat("fan", bad, 0).expect_err(bad)),
            "CHAT_INVALID"
        );
    }
    for i in 1..CHAT_BURST {
        r.chat("fan", &format!("line {i}"), i as u64)
            .expect("within the burst");
    }
    let flood = r.chat("fan", "one more", 100).expect_err("flood");
    assert!(matches!(flood, RoomError::Exhausted { .. }));
    r.chat("fan", "later", CHAT_WINDOW_MS + 10)
        .expect("after the window");
    // The host can turn spectator chat off; players still chat.
    let mut quiet = r.settings.clone();
    quiet.spectator_chat = false;
    r.update_settings("host", quiet).expect("host");
    assert_eq!(
        reason_of(&r.chat("fan", "hi", 60_000).expect_err("off")),
        "CHAT_OFF"
    );
    r.chat("host", "hi", 60_000).expect("the host chats");
    for i in 0..CHAT_KEPT as u64 + 20 {
        r.chat("host", "spam", 100_000 + i * CHAT_WINDOW_MS)
            .expect("paced");
    }
    assert_eq!(r.chat.len(), CHAT_KEPT);
}

#[test]
fn chat_stacks_combining_marks_no_higher_than_names_do() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    watch(&mut r, "fan", false);
    // Vietnamese typed decomposed carries two marks on one vowel: fine.
    r.chat("fan", "chào Nguye\u{323}\u{302}n", 0)
        .expect("two marks");
    for bad in [
        format!("zalgo{}", "\u{301}".repeat(50)),
        "\u{301} alone".to_owned(),
        "word \u{301}".to_owned(),
    ] {
        let refused = r.chat("fan", &bad, 1).expect_err("marks");
        assert_eq!(reason_of(&refused), "CHAT_INVALID", "{bad:?}");
    }
    assert_eq!(r.chat.len(), 1, "no refused line was kept");
}

#[test]
fn settings_change_only_between_games_and_keep_each_game_s_scoreboard() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    sit(&mut r, "guest", false);
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("starts");
    let busy = r
        .update_settings("host", caro_settings(FirstMover::Guest, false))
        .expect_err("playing");
    assert_eq!(reason_of(&busy), "WRONG_STATE");
    finish_first_game(&mut r, Some(0));
    // Switch the room to Quoridor (Ping44): Caro's scoreboard stays.
    r.update_settings("host", quoridor_settings(pb::QuoridorMode::FreeForAll, 2))
        .expect("between games");
    assert_eq!(r.scoreboard["caro"]["host"].won, 1);
    assert!(
        r.seated()
            .iter()
            .all(|m| !m.seat.as_ref().is_some_and(|s| s.ready))
    );
    let shrink = r
        .update_settings("host", quoridor_settings(pb::QuoridorMode::FreeForAll, 2))
        .map(|_| ());
    assert!(shrink.is_ok());
}

#[test]
fn the_room_survives_its_json_form() {
    let mut r = room(quoridor_settings(pb::QuoridorMode::TournamentMatch, 3));
    sit(&mut r, "b", false);
    sit(&mut r, "c", false);
    ready_all(&mut r);
    r.start("host", &mut rng(&[0, 1])).expect("starts");
    let json = serde_json::to_vec(&r).expect("serialises");
    let back: Room = serde_json::from_slice(&json).expect("reads back");
    assert_eq!(serde_json::to_vec(&back).expect("again"), json);
    assert_eq!(back.tables, r.tables);
}

/// A room's computer player: the host seats a computer player, ready at once; nobody else may; it leaves when
/// the host removes it, and computers alone do not keep a room alive.
#[test]
fn the_host_seats_a_computer_player_and_removes_it() {
    let mut r = room(quoridor_settings(pb::QuoridorMode::FreeForAll, 4));
    sit(&mut r, "guest", false);
    let refused = r
        .add_computer("guest", ludus_rules::Level::Easy, &mut rng(&[]))
        .expect_err("not the host");
    assert!(matches!(refused, RoomError::Denied { .. }));
    r.add_computer("host", ludus_rules::Level::Hard, &mut rng(&[]))
        .expect("a computer seat");
    r.add_computer("host", ludus_rules::Level::Easy, &mut rng(&[]))
        .expect("another");
    let computers: Vec<Member> = r
        .seated()
        .into_iter()
        .filter(|m| m.computer.is_some())
        .cloned()
        .collect();
    assert_eq!(computers.len(), 2);
    assert_eq!(computers[0].computer.as_deref(), Some("hard"));
    assert_eq!(computers[0].name, "Computer 1 (Hard)");
    assert!(
        computers
            .iter()
            .all(|m| m.seat.as_ref().is_some_and(|s| s.ready))
    );
    assert!(computers[0].player_id.starts_with("bot-"));
    // The table is full now (4 seats).
    assert!(
        r.add_computer("host", ludus_rules::Level::Easy, &mut rng(&[]))
            .is_err()
    );
    let id = computers[1].player_id.clone();
    r.kick("host", &id).expect("the host removes it");
    assert_eq!(r.seated().len(), 3);
    r.leave("guest").expect("leaves");
    r.leave("host").expect("leaves");
    assert!(r.is_empty(), "only a computer is left: the room is empty");
}

#[test]
fn a_lapsed_presence_leaves_the_room_except_at_a_live_table() {
    let mut r = room(caro_settings(FirstMover::Host, false));
    sit(&mut r, "b", false);
    watch(&mut r, "fan", false);
    // Nobody of that name: nothing.
    assert_eq!(r.presence_lapsed("nobody").expect("no refusal"), []);
    // A lapsed spectator leaves like a leaver.
    assert_eq!(
        r.presence_lapsed("fan").expect("leaves"),
        [Change::Left {
            player_id: "fan".into()
        }]
    );
    // Players at a live table stay: their game's presence rules apply.
    ready_all(&mut r);
    r.start("host", &mut rng(&[])).expect("starts");
    assert_eq!(r.presence_lapsed("host").expect("stays"), []);
    assert!(r.member("host").is_some());
    // Once the game is over, a lapsed host leaves and the role moves on.
    let game_id = r.tables[0].game_id.clone();
    r.game_finished(
        &game_id,
        &Outcome::win(2, &[0], "C7", "five"),
        2_000,
        &mut rng(&[]),
    )
    .expect("recorded");
    let changes = r.presence_lapsed("host").expect("leaves");
    assert!(changes.contains(&Change::HostChanged {
        player_id: "b".into()
    }));
    assert_eq!(r.host, "b");
}
