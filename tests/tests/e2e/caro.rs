//! Caro end to end: players and spectators through the gateway, every service real, state in
//! a real redis-server. Rule ids refer to shared/rules/caro.md.

use std::time::Duration;

use ludus_proto::error_details::{ErrorInfo, StatusExt};
use ludus_proto::pb;
use ludus_tests::{
    Ludus, Player, caro_settings, events_until_finished, finished_by_timeout, next_event, next_of,
    patience, quick_match_pair, refused_by_rule, refused_with,
};
use tonic::{Code, Streaming};

const RULESET: &str = "caro/15/blocked-ends";

/// C12: one minute per move, the quick-match clock.
const C12_TURN: Duration = Duration::from_secs(60);

/// The `ErrorInfo` (AIP-193) a refusal carries, read the way a generated client reads it.
fn error_info(status: &tonic::Status) -> ErrorInfo {
    status
        .get_error_details()
        .error_info()
        .cloned()
        .expect("every refusal carries an ErrorInfo")
}

/// The fields a `BadRequest` names.
fn violated_fields(status: &tonic::Status) -> Vec<String> {
    status
        .get_error_details()
        .bad_request()
        .map(|bad| {
            bad.field_violations
                .iter()
                .map(|v| v.field.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Two players quick-match; returns the game with X (seat 0) first (the harness checks one X,
/// one O: C9).
async fn matched(ludus: &Ludus) -> (String, Player, Player) {
    quick_match_pair(ludus, ["ann", "bob"], caro_settings()).await
}

/// X plays D8..H8 (five in a row), O answers on row 1.
async fn play_x_to_a_win(game: &str, x: &mut Player, o: &mut Player) -> pb::GameEvent {
    let o_moves = ["A1", "C1", "E1", "G1"];
    for (i, cell) in ["D8", "E8", "F8", "G8"].iter().enumerate() {
        x.play(game, cell).await.expect("x moves");
        o.play(game, o_moves[i]).await.expect("o moves");
    }
    x.play(game, "H8").await.expect("the winning move")
}

#[tokio::test]
async fn two_players_quick_match_and_play_to_a_win() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;

    let snapshot = x.game(&game).await;
    assert_eq!(snapshot.ruleset, RULESET);
    assert_eq!(snapshot.your_seat, Some(0));
    assert_eq!(
        snapshot.legal_actions.len(),
        225,
        "X moves first on an empty board (C2)"
    );
    assert_eq!(
        snapshot.settings.as_ref().map(|s| s.turn_time_ms),
        Some(60_000),
        "C12"
    );
    let turn = snapshot.turn.expect("turn");
    assert_eq!(turn.to_move, Some(0));
    assert!(turn.deadline_unix_ms > 0, "quick matches are timed (C12)");
    assert!(o.game(&game).await.legal_actions.is_empty(), "not O's turn");

    let last = play_x_to_a_win(&game, &mut x, &mut o).await;
    assert_eq!(last.status, pb::GameStatus::Finished as i32);
    let outcome = last.outcome.expect("outcome");
    assert_eq!(outcome.kind, pb::ResultKind::Win as i32);
    assert_eq!(outcome.winners, [0]);
    assert_eq!(outcome.rule, "C7");
    assert_eq!(outcome.reason, "X made a winning line from D8 to H8");
    let Some(pb::game_view::View::Caro(view)) = last.view.and_then(|v| v.view) else {
        panic!("a caro view");
    };
    let line: Vec<&str> = view.winning_line.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(line, ["D8", "E8", "F8", "G8", "H8"]);

    // Nothing more can be played (C7).
    refused_by_rule(o.play(&game, "B2").await, "C7");
    ludus.shutdown().await;
}

#[tokio::test]
async fn a_spectator_from_the_start_receives_every_event_in_order() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    let mut carol = ludus.player("carol").await;
    let mut stream = carol.subscribe(&game, 0).await;
    let first = next_event(&mut stream).await;
    assert_eq!(first.seq, 1);
    assert!(matches!(first.kind, Some(pb::game_event::Kind::Started(_))));

    play_x_to_a_win(&game, &mut x, &mut o).await;
    let mut events = vec![first];
    events.extend(events_until_finished(&mut stream).await);
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=10).collect::<Vec<_>>(), "no gap, no duplicate");
    let moves: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            Some(pb::game_event::Kind::ActionApplied(a)) => Some(a.notation.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        moves,
        ["D8", "A1", "E8", "C1", "F8", "E1", "G8", "G1", "H8"]
    );
    // The stream ends after the final event.
    assert!(
        tokio::time::timeout(patience(), tokio_stream::StreamExt::next(&mut stream))
            .await
            .expect("stream closes")
            .is_none()
    );
    ludus.shutdown().await;
}

#[tokio::test]
async fn a_late_spectator_resumes_from_an_older_seq_with_no_gap_and_no_duplicate() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    for (xc, oc) in [("D8", "A1"), ("E8", "C1")] {
        x.play(&game, xc).await.expect("x");
        o.play(&game, oc).await.expect("o");
    }
    // The game is at seq 5; the spectator last saw seq 2.
    let mut dave = ludus.player("dave").await;
    let mut stream = dave.subscribe(&game, 2).await;
    let missed: Vec<u64> = [
        next_event(&mut stream).await,
        next_event(&mut stream).await,
        next_event(&mut stream).await,
    ]
    .iter()
    .map(|e| e.seq)
    .collect();
    assert_eq!(missed, [3, 4, 5], "the missed events come from the log");

    // Live events follow, interleaved with a second resume by another spectator.
    x.play(&game, "F8").await.expect("x");
    let mut erin = ludus.player("erin").await;
    let mut second = erin.subscribe(&game, 5).await;
    o.play(&game, "E1").await.expect("o");
    x.play(&game, "G8").await.expect("x");
    o.play(&game, "G1").await.expect("o");
    x.play(&game, "H8").await.expect("x wins");
    let live: Vec<u64> = events_until_finished(&mut stream)
        .await
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(live, [6, 7, 8, 9, 10]);
    let second: Vec<u64> = events_until_finished(&mut second)
        .await
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(second, [6, 7, 8, 9, 10]);

    // Resuming after the game ended replays what is missing and closes.
    let mut late = dave.subscribe(&game, 8).await;
    let tail: Vec<u64> = events_until_finished(&mut late)
        .await
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(tail, [9, 10]);
    ludus.shutdown().await;
}

#[tokio::test]
async fn c12_a_clock_runs_out_and_the_player_to_move_loses() {
    let ludus = Ludus::start_on_manual_clock().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    let mut stream = x.subscribe(&game, 0).await;
    // Each move restarts the clock; X then lets it run out.
    x.play(&game, "H8").await.expect("x");
    ludus.advance(C12_TURN - Duration::from_millis(1)).await;
    o.play(&game, "H9")
        .await
        .expect("o, a moment before the flag falls");
    ludus.advance(C12_TURN - Duration::from_millis(1)).await;
    assert_eq!(x.game(&game).await.status, pb::GameStatus::Active as i32);
    ludus.advance(Duration::from_millis(1)).await;
    let (timeout, outcome, last) = finished_by_timeout(&mut stream).await;
    assert_eq!(timeout.seat, 0);
    assert_eq!(outcome.rule, "C12");
    assert_eq!(outcome.winners, [1]);
    assert_eq!(last.seq, 4, "one event per move and one for the timeout");
    ludus.shutdown().await;
}

#[tokio::test]
async fn c15_a_clock_running_out_before_both_moved_cancels_and_changes_no_rating() {
    let ludus = Ludus::start_on_manual_clock().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    let mut stream = o.subscribe(&game, 0).await;
    x.play(&game, "H8").await.expect("x");
    // O never moves.
    ludus.advance(C12_TURN).await;
    let (timeout, outcome, _) = finished_by_timeout(&mut stream).await;
    assert_eq!(timeout.seat, 1, "O's clock ran out");
    assert_eq!(outcome.kind, pb::ResultKind::Cancelled as i32);
    assert_eq!(outcome.rule, "C15");
    // The cancelled game reaches ratings (through its timer) and changes nothing. Asking
    // game-state to report it again proves it is recorded by then, whoever got there first,
    // so the check below cannot pass merely because the report had not arrived yet.
    let mut internal = pb::game_state_client::GameStateClient::new(
        ludus_tests::connect_internal(ludus.game_state).await,
    );
    internal
        .report_outcome(pb::ReportOutcomeRequest {
            game_id: game.clone(),
            finishing_seq: 0,
            armed_unix_ms: 0,
        })
        .await
        .expect("the cancelled game is reported");
    for player in [&mut x, &mut o] {
        let rating = player.rating(RULESET).await;
        assert_eq!((rating.rating, rating.games), (1200.0, 0));
    }
    ludus.shutdown().await;
}

#[tokio::test]
async fn illegal_and_out_of_turn_moves_are_refused_naming_the_rule_and_change_nothing() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    x.play(&game, "H8").await.expect("x");
    let before = o.game(&game).await;

    let occupied = o.play(&game, "H8").await.unwrap_err();
    assert_eq!(occupied.code(), Code::FailedPrecondition);
    assert_eq!(occupied.message(), "C3: H8 is already taken");
    // The same refusal for machines: the rule id, without parsing the text (AIP-193).
    let info = error_info(&occupied);
    assert_eq!(
        (info.reason.as_str(), info.domain.as_str()),
        ("C3", "ludus.games")
    );

    let out_of_turn = x.play(&game, "A1").await.unwrap_err();
    assert_eq!(out_of_turn.code(), Code::FailedPrecondition);
    assert_eq!(out_of_turn.message(), "C3: it is not X's turn");

    refused_by_rule(o.play(&game, "P1").await, "C1: ");

    let after = o.game(&game).await;
    assert_eq!(after.seq, before.seq, "nothing was committed");
    assert_eq!(after.view, before.view);
    ludus.shutdown().await;
}

#[tokio::test]
async fn a_stale_expected_seq_is_aborted_and_a_repeated_action_id_returns_the_first_result() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    let first = x.submit(&game, 1, "x-first", "H8").await.expect("x");
    assert!(!first.duplicate);
    let event = first.event.clone().expect("event");
    assert_eq!(event.seq, 2);

    // The same action id again, even with a stale seq: the original result, nothing new.
    let again = x.submit(&game, 1, "x-first", "H8").await.expect("retry");
    assert!(again.duplicate);
    assert_eq!(again.event, first.event);
    o.play(&game, "A1").await.expect("o");
    let later = x
        .submit(&game, 1, "x-first", "B2")
        .await
        .expect("late retry");
    assert!(later.duplicate, "still the first result after later moves");
    assert_eq!(later.event.map(|e| e.seq), Some(2));

    // A new action with a stale seq is ABORTED and changes nothing.
    let stale = x.submit(&game, 2, "x-second", "G7").await.unwrap_err();
    assert_eq!(stale.code(), Code::Aborted);
    assert!(
        stale.message().contains("is at seq 3"),
        "{}",
        stale.message()
    );
    let info = error_info(&stale);
    assert_eq!(info.reason, "STALE_SEQ");
    assert_eq!(info.metadata["current_seq"], "3", "the seq to retry from");
    assert_eq!(x.game(&game).await.seq, 3);
    ludus.shutdown().await;
}

#[tokio::test]
async fn an_action_id_is_one_players_key_so_the_opponent_reusing_it_plays_their_own_move() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    let first = x.submit(&game, 1, "m1", "H8").await.expect("x");
    assert_eq!(first.event.as_ref().map(|e| e.seq), Some(2));
    // Regression: O's `m1` used to be taken for a retry of X's and silently dropped.
    let mine = o.submit(&game, 2, "m1", "A1").await.expect("o");
    assert!(!mine.duplicate, "O's action is new, not X's retried");
    let event = mine.event.expect("event");
    assert_eq!(event.seq, 3);
    let applied = match event.kind {
        Some(pb::game_event::Kind::ActionApplied(applied)) => applied,
        other => panic!("expected O's move, got {other:?}"),
    };
    assert_eq!((applied.seat, applied.notation.as_str()), (1, "A1"));
    // And each player's own retry still gets their own first result.
    let again = o.submit(&game, 2, "m1", "A1").await.expect("retry");
    assert!(again.duplicate);
    assert_eq!(again.event.map(|e| e.seq), Some(3));
    assert_eq!(x.game(&game).await.seq, 3);
    ludus.shutdown().await;
}

#[tokio::test]
async fn resuming_a_finished_game_ends_at_once_and_resuming_past_its_end_is_out_of_range() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    x.play(&game, "H8").await.expect("x");
    let last = o.resign(&game).await.expect("resign").seq;

    // Regression: a stream resumed after the last event used to wait forever.
    let mut caught_up = x.subscribe(&game, last).await;
    let end = tokio::time::timeout(patience(), caught_up.message())
        .await
        .expect("the stream of a finished game ends");
    assert!(
        matches!(end, Ok(None)),
        "ends cleanly, nothing more: {end:?}"
    );

    let ahead = x
        .client
        .subscribe(pb::SubscribeRequest {
            game_id: game.clone(),
            after_seq: last + 5,
        })
        .await
        .map(|_| ())
        .expect_err("no events after the last one");
    assert_eq!(ahead.code(), Code::OutOfRange);
    let info = error_info(&ahead);
    assert_eq!(info.reason, "AFTER_SEQ_AHEAD");
    assert_eq!(info.metadata["current_seq"], last.to_string());
    ludus.shutdown().await;
}

#[tokio::test]
async fn only_the_seated_player_to_move_can_act_and_identity_comes_from_the_token() {
    let ludus = Ludus::start().await;
    let (game, mut x, _o) = matched(&ludus).await;
    let mut mallory = ludus.player("mallory").await;
    let err = mallory.play(&game, "H8").await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    assert_eq!(error_info(&err).reason, "NOT_YOUR_SEAT");
    let err = mallory.resign(&game).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);

    // Without a token nothing but sign-in works.
    let mut anonymous = pb::gateway_client::GatewayClient::new(ludus.channel().await);
    let err = anonymous
        .get_game(pb::GetGameRequest {
            game_id: game.clone(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let info = error_info(&err);
    assert_eq!(
        (info.reason.as_str(), info.domain.as_str()),
        ("TOKEN_MISSING", "ludus.gateway")
    );
    assert_eq!(x.game(&game).await.seq, 1, "nothing changed");
    ludus.shutdown().await;
}

#[tokio::test]
async fn malformed_requests_get_invalid_argument_and_unknown_games_not_found() {
    let ludus = Ludus::start().await;
    let (game, mut x, _o) = matched(&ludus).await;
    let submitted = x
        .client
        .submit_action(pb::SubmitActionRequest {
            game_id: game.clone(),
            expected_seq: 1,
            action_id: "a".into(),
            action: None,
        })
        .await;
    let no_action = refused_with(submitted, Code::InvalidArgument, "action");

    let submitted = x.submit(&game, 1, "", "H8").await;
    let bad_id = refused_with(submitted, Code::InvalidArgument, "action_id");
    assert_eq!(violated_fields(&bad_id), ["action_id"]);
    let info = error_info(&bad_id);
    assert_eq!(
        (info.reason.as_str(), info.domain.as_str()),
        ("INVALID_ID", "ludus.gateway")
    );
    assert_eq!(violated_fields(&no_action), ["action"]);

    let unknown = x.submit("no-such-game", 1, "a1", "H8").await.unwrap_err();
    assert_eq!(unknown.code(), Code::NotFound);
    assert_eq!(error_info(&unknown).reason, "GAME_NOT_FOUND");
    let err = x
        .client
        .get_game(pb::GetGameRequest {
            game_id: "no-such-game".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);

    // An oversized message is refused before it is decoded.
    let huge = x
        .submit(&game, 1, "big", &"H".repeat(200_000))
        .await
        .unwrap_err();
    assert!(
        matches!(huge.code(), Code::ResourceExhausted | Code::OutOfRange),
        "{huge:?}"
    );

    // A structured action off the board names C1.
    let off = x
        .client
        .submit_action(pb::SubmitActionRequest {
            game_id: game.clone(),
            expected_seq: 1,
            action_id: "off".into(),
            action: Some(pb::Action {
                action: Some(pb::action::Action::Caro(pb::CaroAction {
                    place: Some(pb::CaroCell {
                        column: 99,
                        row: 0,
                        name: String::new(),
                    }),
                })),
            }),
        })
        .await
        .unwrap_err();
    assert_eq!(off.code(), Code::InvalidArgument);
    assert!(off.message().contains("C1"), "{}", off.message());
    assert_eq!(x.game(&game).await.seq, 1, "nothing changed");
    ludus.shutdown().await;
}

#[tokio::test]
async fn ratings_move_by_elo_after_a_win_and_the_leaderboard_shows_it() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    play_x_to_a_win(&game, &mut x, &mut o).await;
    // The result reaches ratings through its durable timer: wait for it.
    let rating = x.rating_after(RULESET, 1).await;
    // Elo, K = 32, from 1200 each: the winner gains 16.
    assert!((rating.rating - 1216.0).abs() < 1e-9, "{}", rating.rating);
    let loser = o.rating(RULESET).await;
    assert!((loser.rating - 1184.0).abs() < 1e-9, "{}", loser.rating);
    let board = x.leaderboard(RULESET).await;
    let names: Vec<&str> = board
        .entries
        .iter()
        .map(|e| e.display_name.as_str())
        .collect();
    assert_eq!(names, [x.name.as_str(), o.name.as_str()]);
    ludus.shutdown().await;
}

#[tokio::test]
async fn c8_a_declined_draw_changes_nothing_and_an_accepted_one_ends_the_game() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    x.play(&game, "H8").await.expect("x");
    let offer = o.offer_draw(&game).await.expect("offer");
    assert!(matches!(
        offer.kind,
        Some(pb::game_event::Kind::DrawOffered(_))
    ));
    assert_eq!(x.game(&game).await.draw_offered_by, Some(1));
    // The offerer cannot answer their own offer.
    let own = o.respond_draw(&game, true).await.unwrap_err();
    assert_eq!(own.code(), Code::FailedPrecondition);
    x.respond_draw(&game, false).await.expect("decline");
    let snapshot = o.game(&game).await;
    assert_eq!(snapshot.status, pb::GameStatus::Active as i32);
    assert_eq!(snapshot.draw_offered_by, None);
    assert_eq!(
        snapshot.turn.and_then(|t| t.to_move),
        Some(1),
        "play goes on"
    );

    o.play(&game, "H9").await.expect("o");
    x.offer_draw(&game).await.expect("offer");
    let accepted = o.respond_draw(&game, true).await.expect("accept");
    assert_eq!(
        accepted.kind,
        Some(pb::game_event::Kind::DrawAgreed(pb::DrawOffered {
            seat: 0
        })),
        "the agreed draw names who offered it (X)"
    );
    let outcome = accepted.outcome.expect("outcome");
    assert_eq!(outcome.kind, pb::ResultKind::Draw as i32);
    assert_eq!(outcome.rule, "C8");
    ludus.shutdown().await;
}

#[tokio::test]
async fn c14_resigning_loses() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    x.play(&game, "H8").await.expect("x");
    let event = o.resign(&game).await.expect("resign");
    let outcome = event.outcome.expect("outcome");
    assert_eq!(outcome.winners, [0]);
    assert_eq!(outcome.rule, "C14");
    ludus.shutdown().await;
}

#[tokio::test]
async fn c16_quick_match_pairs_only_equal_options_and_a_player_holds_one_ticket() {
    let ludus = Ludus::start().await;
    let [mut big, mut small] = ludus.players(["big", "small"]).await;
    let nineteen = pb::GameSettings {
        options: Some(pb::game_settings::Options::Caro(pb::CaroOptions {
            board_size: 19,
            ..Default::default()
        })),
        turn_time_ms: 0,
    };
    let mut big_updates = big.ticket_updates(nineteen).await;
    let first = tokio::time::timeout(patience(), tokio_stream::StreamExt::next(&mut big_updates))
        .await
        .expect("update")
        .expect("open")
        .expect("ok");
    assert_eq!(first.state, pb::TicketState::Queued as i32);
    // A second ticket for the same player is refused.
    let twice = big
        .queue(caro_settings(), pb::MatchRanking::Default)
        .await
        .unwrap_err();
    assert_eq!(twice.code(), Code::AlreadyExists);
    // A 15x15 player is not paired with the 19x19 one.
    let mut small_updates = small.ticket_updates(caro_settings()).await;
    let queued = tokio::time::timeout(
        patience(),
        tokio_stream::StreamExt::next(&mut small_updates),
    )
    .await
    .expect("update")
    .expect("open")
    .expect("ok");
    assert_eq!(queued.state, pb::TicketState::Queued as i32);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let cancelled = small
        .client
        .cancel_match(pb::CancelMatchRequest {
            ticket_id: queued.ticket_id,
        })
        .await
        .expect("cancel")
        .into_inner();
    assert!(
        cancelled.cancelled,
        "still queued: never paired across options"
    );
    ludus.shutdown().await;
}

#[tokio::test]
async fn every_server_answers_health_checks() {
    let ludus = Ludus::start().await;
    for addr in [ludus.gateway, ludus.game_state] {
        let mut health =
            tonic_health::pb::health_client::HealthClient::new(ludus_tests::connect(addr).await);
        let status = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: String::new(),
            })
            .await
            .expect("health")
            .into_inner()
            .status;
        assert_eq!(
            status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32
        );
    }
    ludus.shutdown().await;
}

/// The grace of the C13 tests. They run on a manual clock, so waiting costs nothing; it is
/// short next to the C12 clock so that moving time past it (even twice over) runs out only
/// the grace, never the turn.
const GRACE: Duration = Duration::from_secs(3);

/// Opens a player's event stream and waits until the gateway serves it (the first event
/// comes after the gateway has told game-state the player is connected).
async fn connect_stream(player: &mut Player, game: &str) -> Streaming<pb::GameEvent> {
    let mut stream = player.subscribe(game, 0).await;
    next_event(&mut stream).await;
    stream
}

fn disconnected(kind: &pb::game_event::Kind) -> Option<pb::PlayerDisconnected> {
    match kind {
        pb::game_event::Kind::PlayerDisconnected(gone) => Some(*gone),
        _ => None,
    }
}

#[tokio::test]
async fn c13_a_disconnected_player_who_does_not_come_back_in_time_loses() {
    let ludus = Ludus::start_with_absence_grace(GRACE).await;
    let (game, mut x, mut o) = matched(&ludus).await;
    x.play(&game, "H8").await.expect("x");
    o.play(&game, "H9").await.expect("o");
    let mut carol = ludus.player("carol").await;
    let mut watch = carol.subscribe(&game, 0).await;
    // Spectators come and go without a trace: only seated players have a presence.
    drop(connect_stream(&mut carol, &game).await);

    // X's only stream closes: X is disconnected, whoever's turn it is.
    let x_stream = connect_stream(&mut x, &game).await;
    drop(x_stream);
    let (gone, event) = next_of(&mut watch, disconnected).await;
    assert_eq!(gone.seat, 0);
    assert!(
        gone.return_by_unix_ms > event.at_unix_ms,
        "C13: a time to come back"
    );
    let snapshot = o.game(&game).await;
    assert_eq!(
        snapshot.disconnected,
        [gone],
        "the snapshot shows who is away"
    );
    assert_eq!(
        snapshot.status,
        pb::GameStatus::Active as i32,
        "C13: the game is kept"
    );

    // The grace runs out: X loses.
    ludus.advance(GRACE).await;
    let (effect, event) = next_of(&mut watch, |kind| match kind {
        pb::game_event::Kind::AbsenceExpired(expired) => Some(expired.clone()),
        _ => None,
    })
    .await;
    assert_eq!(effect.seat, 0);
    assert!(effect.effect.starts_with("C13"), "{}", effect.effect);
    assert_eq!(event.status, pb::GameStatus::Finished as i32);
    let outcome = event.outcome.expect("outcome");
    assert_eq!(outcome.rule, "C13");
    assert_eq!(outcome.winners, [1]);
    let rated = o.rating_after(RULESET, 1).await;
    assert!(rated.rating > 1200.0, "{}", rated.rating);
    ludus.shutdown().await;
}

#[tokio::test]
async fn c13_a_player_who_comes_back_in_time_plays_on_and_a_second_stream_keeps_them_connected() {
    let ludus = Ludus::start_with_absence_grace(GRACE).await;
    let (game, mut x, mut o) = matched(&ludus).await;
    x.play(&game, "H8").await.expect("x");
    o.play(&game, "H9").await.expect("o");
    let mut carol = ludus.player("carol").await;
    let mut watch = carol.subscribe(&game, 0).await;

    // Two devices: closing one of them is not a disconnection; closing both is.
    let phone = connect_stream(&mut x, &game).await;
    let tablet = connect_stream(&mut x, &game).await;
    drop(phone);
    drop(tablet);
    let (gone, event) = next_of(&mut watch, disconnected).await;
    assert_eq!(gone.seat, 0);
    assert_eq!(
        event.seq, 4,
        "one disconnection for the two streams, right after the two moves"
    );

    // X resumes from the last event seen: back in time, the game goes on.
    let mut back = x.subscribe(&game, event.seq).await;
    let (reconnected, _) = next_of(&mut back, |kind| match kind {
        pb::game_event::Kind::PlayerReconnected(back) => Some(*back),
        _ => None,
    })
    .await;
    assert_eq!(reconnected.seat, 0);
    assert!(o.game(&game).await.disconnected.is_empty());
    // Well past the grace the stale timer has fired and changed nothing: the next event is
    // X's move.
    ludus.advance(GRACE * 2).await;
    x.play(&game, "H10").await.expect("X plays on");
    let (next, _) = next_of(&mut watch, |kind| match kind {
        pb::game_event::Kind::PlayerReconnected(_) => None,
        other => Some(other.clone()),
    })
    .await;
    assert!(
        matches!(next, pb::game_event::Kind::ActionApplied(_)),
        "{next:?}"
    );

    // O leaves too, and comes back by playing (stream or not, acting is being there).
    drop(connect_stream(&mut o, &game).await);
    let (gone, _) = next_of(&mut watch, disconnected).await;
    assert_eq!(gone.seat, 1);
    o.play(&game, "H11").await.expect("O plays");
    assert!(o.game(&game).await.disconnected.is_empty());
    ludus.advance(GRACE * 2).await;
    let snapshot = x.game(&game).await;
    assert_eq!(snapshot.status, pb::GameStatus::Active as i32);
    assert_eq!(snapshot.turn.and_then(|t| t.to_move), Some(0));
    ludus.shutdown().await;
}

#[tokio::test]
async fn c15_a_disconnection_not_come_back_from_before_both_moved_cancels() {
    let ludus = Ludus::start_with_absence_grace(GRACE).await;
    let (game, mut x, mut o) = matched(&ludus).await;
    let mut carol = ludus.player("carol").await;
    let mut watch = carol.subscribe(&game, 0).await;
    x.play(&game, "H8").await.expect("x");
    // O never moved; O's phone dies.
    drop(connect_stream(&mut o, &game).await);
    next_of(&mut watch, disconnected).await;
    ludus.advance(GRACE).await;
    let events = events_until_finished(&mut watch).await;
    let last = events.last().expect("events");
    assert!(
        matches!(last.kind, Some(pb::game_event::Kind::AbsenceExpired(_))),
        "{:?}",
        last.kind
    );
    let outcome = last.outcome.clone().expect("outcome");
    assert_eq!(outcome.kind, pb::ResultKind::Cancelled as i32);
    assert_eq!(outcome.rule, "C15");
    ludus.shutdown().await;
}

#[tokio::test]
async fn quick_match_pairs_close_ratings_together() {
    // Rating windows: 150 Elo at once, wider with waiting. Four players queue together; the
    // two strong ones meet each other, not the weak ones (who are 270-300 Elo away).
    let ludus = Ludus::start().await;
    let [mut ann, mut bob, mut cat, mut dan] = ludus.accounts(["ann", "bob", "cat", "dan"]).await;
    for (player, rating) in [
        (&ann, 1500.0),
        (&bob, 1210.0),
        (&cat, 1480.0),
        (&dan, 1200.0),
    ] {
        ludus.seed_rating(RULESET, player, rating, 40).await;
    }
    let ((game_ann, _), (game_bob, _), (game_cat, _), (game_dan, _)) = tokio::join!(
        ann.find_match(caro_settings()),
        bob.find_match(caro_settings()),
        cat.find_match(caro_settings()),
        dan.find_match(caro_settings()),
    );
    assert_eq!(game_ann, game_cat, "1500 meets 1480");
    assert_eq!(game_bob, game_dan, "1210 meets 1200");
    assert_ne!(game_ann, game_bob);
    ludus.shutdown().await;
}

#[tokio::test]
async fn a_player_holds_at_most_sixteen_open_streams() {
    let ludus = Ludus::start().await;
    let (game, _x, _o) = matched(&ludus).await;
    let mut carol = ludus.player("carol").await;
    let mut streams = Vec::new();
    for _ in 0..16 {
        streams.push(carol.subscribe(&game, 0).await);
    }
    let refused = carol
        .client
        .subscribe(pb::SubscribeRequest {
            game_id: game.clone(),
            after_seq: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted);
    assert_eq!(error_info(&refused).reason, "TOO_MANY_STREAMS");
    assert!(
        refused.message().contains("16 at once"),
        "{}",
        refused.message()
    );
    // Closing one frees its place (once the gateway has seen it close).
    streams.pop();
    let reopened = tokio::time::timeout(patience(), async {
        loop {
            let attempt = carol
                .client
                .subscribe(pb::SubscribeRequest {
                    game_id: game.clone(),
                    after_seq: 0,
                })
                .await;
            match attempt {
                Ok(stream) => return stream,
                Err(status) if status.code() == Code::ResourceExhausted => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(status) => panic!("{status}"),
            }
        }
    })
    .await
    .expect("a place freed in time");
    drop(reopened);
    drop(streams);
    ludus.shutdown().await;
}

#[tokio::test]
async fn an_app_that_lost_its_state_finds_its_games_again() {
    let ludus = Ludus::start().await;
    let (game, mut x, mut o) = matched(&ludus).await;
    x.play(&game, "H8").await.expect("x");
    // O's app restarts with nothing but its token: it asks for its games.
    let mine = o
        .client
        .list_my_games(pb::ListMyGamesRequest { limit: 0 })
        .await
        .expect("list")
        .into_inner()
        .games;
    assert_eq!(mine.len(), 1);
    let found = &mine[0];
    assert_eq!(found.game_id, game);
    assert_eq!(found.your_seat, Some(1), "its own snapshot: O's seat");
    assert_eq!(found.seq, 2, "resume from here with Subscribe");
    assert!(!found.legal_actions.is_empty(), "O's turn: O's legal moves");
    // A spectator has no games of their own.
    let mut carol = ludus.player("carol").await;
    let none = carol
        .client
        .list_my_games(pb::ListMyGamesRequest { limit: 0 })
        .await
        .expect("list")
        .into_inner()
        .games;
    assert!(none.is_empty());
    // A finished game is no longer listed.
    o.resign(&game).await.expect("resign");
    for player in [&mut x, &mut o] {
        let left = player
            .client
            .list_my_games(pb::ListMyGamesRequest { limit: 0 })
            .await
            .expect("list")
            .into_inner()
            .games;
        assert!(left.is_empty(), "{left:?}");
    }
    ludus.shutdown().await;
}

/// The gateway encodes responses into a small buffer (`ludus_proto::codec`); a larger
/// message must still arrive whole: the player to move's snapshot lists every empty cell of
/// the 15x15 board as a legal action, many times that buffer.
#[tokio::test]
async fn a_response_larger_than_the_gateway_encode_buffer_arrives_whole() {
    use prost::Message;

    let ludus = Ludus::start().await;
    let (game, mut x, _o) = matched(&ludus).await;
    let snapshot = x.game(&game).await;
    assert_eq!(snapshot.legal_actions.len(), 15 * 15, "every cell is free");
    assert!(
        snapshot.encoded_len() > 4 * ludus_proto::codec::ENCODE_BUFFER,
        "the snapshot ({} bytes) is larger than the encode buffer",
        snapshot.encoded_len()
    );
    let notations: Vec<&str> = snapshot
        .legal_actions
        .iter()
        .map(|a| a.notation.as_str())
        .collect();
    assert!(notations.contains(&"A1") && notations.contains(&"O15"));
    ludus.shutdown().await;
}

/// A matchmaking replica of a release before `QueueAndWatch`: it serves Enqueue, WatchTicket
/// and CancelTicket (forwarded to the system's own replica) and answers UNIMPLEMENTED to
/// anything newer, as an older server does for a method it does not know.
struct OlderReplica {
    current: pb::matchmaking_client::MatchmakingClient<
        tonic::service::interceptor::InterceptedService<
            tonic::transport::Channel,
            ludus_server::TraceContext,
        >,
    >,
    refused: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    enqueued: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

#[tonic::async_trait]
impl pb::matchmaking_server::Matchmaking for OlderReplica {
    async fn enqueue(
        &self,
        request: tonic::Request<pb::EnqueueRequest>,
    ) -> Result<tonic::Response<pb::EnqueueResponse>, tonic::Status> {
        self.enqueued
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.current.clone().enqueue(request.into_inner()).await
    }

    type WatchTicketStream = Streaming<pb::TicketUpdate>;

    async fn watch_ticket(
        &self,
        request: tonic::Request<pb::WatchTicketRequest>,
    ) -> Result<tonic::Response<Self::WatchTicketStream>, tonic::Status> {
        self.current
            .clone()
            .watch_ticket(request.into_inner())
            .await
    }

    type QueueAndWatchStream = Streaming<pb::TicketUpdate>;

    async fn queue_and_watch(
        &self,
        _: tonic::Request<pb::EnqueueRequest>,
    ) -> Result<tonic::Response<Self::QueueAndWatchStream>, tonic::Status> {
        self.refused
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Err(tonic::Status::unimplemented(
            "unknown method QueueAndWatch for service ludus.v1.Matchmaking",
        ))
    }

    async fn cancel_ticket(
        &self,
        request: tonic::Request<pb::CancelTicketRequest>,
    ) -> Result<tonic::Response<pb::TicketUpdate>, tonic::Status> {
        self.current
            .clone()
            .cancel_ticket(request.into_inner())
            .await
    }
}

/// During a rolling upgrade a gateway of this release may reach a matchmaking replica of the
/// previous one, which has no `QueueAndWatch` (ARCHITECTURE.md, "Matchmaking"): quick match
/// still pairs its players, through Enqueue and then WatchTicket.
#[tokio::test]
async fn quick_match_through_a_replica_without_queue_and_watch() {
    use std::sync::atomic::Ordering;
    let ludus = Ludus::start().await;
    let older = OlderReplica {
        current: pb::matchmaking_client::MatchmakingClient::new(
            ludus_tests::connect_internal(ludus.matchmaking()).await,
        ),
        refused: Default::default(),
        enqueued: Default::default(),
    };
    let (refused, enqueued) = (older.refused.clone(), older.enqueued.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let older_addr = listener.local_addr().expect("address");
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(pb::matchmaking_server::MatchmakingServer::new(older))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    let gateway = ludus.start_gateway_with_matchmaking(older_addr).await;
    let mut ann = ludus_tests::sign_in(gateway, "ann").await;
    let mut bob = ludus_tests::sign_in(gateway, "bob").await;
    let ((game_ann, seat_ann), (game_bob, seat_bob)) = tokio::join!(
        ann.find_match(caro_settings()),
        bob.find_match(caro_settings()),
    );
    assert_eq!(game_ann, game_bob);
    assert_ne!(seat_ann, seat_bob);
    assert_eq!(
        refused.load(Ordering::SeqCst),
        2,
        "each FindMatch tried the new call first"
    );
    assert_eq!(
        enqueued.load(Ordering::SeqCst),
        2,
        "then queued the old way"
    );
    ludus.shutdown().await;
}
