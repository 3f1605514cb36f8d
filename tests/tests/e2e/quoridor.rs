//! Quoridor end to end: players through the gateway, every service real, state in a real
//! redis-server. Rule ids refer to shared/rules/quoridor.md. Games that quick match cannot
//! make (teams, a chosen first seat, a short clock) are created through game-state's internal
//! CreateGame, as a room would.

use std::{collections::HashMap, time::Duration};

use ludus_proto::pb;
use ludus_tests::{
    Ludus, Player, events_until_finished, next_timeout, quick_match_table, refused_by_rule,
};
use tonic::Code;

/// Quoridor options for a table of `players` (0 = two), everything else default: 9×9,
/// opposite edge, Auto walls, free-for-all.
fn settings(players: u32) -> pb::GameSettings {
    pb::GameSettings {
        options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
            players,
            ..Default::default()
        })),
        turn_time_ms: 0,
    }
}

fn view(event_or_snapshot_view: Option<pb::GameView>) -> pb::QuoridorView {
    match event_or_snapshot_view.and_then(|v| v.view) {
        Some(pb::game_view::View::Quoridor(view)) => view,
        other => panic!("a quoridor view, got {other:?}"),
    }
}

fn cell(name: &str) -> pb::QuoridorCell {
    let bytes = name.as_bytes();
    pb::QuoridorCell {
        file: u32::from(bytes[0] - b'a'),
        rank: name[1..].parse::<u32>().expect("rank") - 1,
    }
}

/// `players` players quick-match at one table; returns the game and the players by seat.
async fn table(ludus: &Ludus, players: u32) -> (String, Vec<Player>) {
    let names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"];
    quick_match_table(ludus, &names[..players as usize], settings(players)).await
}

/// The seat to move now.
async fn to_move(player: &mut Player, game: &str) -> usize {
    let turn = player.game(game).await.turn.expect("turn");
    turn.to_move.expect("the game goes on") as usize
}

/// Creates a game through game-state's internal API (what rooms do), seating `players` in
/// order.
async fn create(
    ludus: &Ludus,
    options: pb::QuoridorOptions,
    turn_time_ms: u64,
    players: &[&Player],
) -> String {
    let settings = pb::GameSettings {
        options: Some(pb::game_settings::Options::Quoridor(options)),
        turn_time_ms,
    };
    ludus.create_game("", settings, players).await.game_id
}

#[tokio::test]
async fn two_players_quick_match_and_race_to_a_win_with_q31_points_and_a_rating() {
    let ludus = Ludus::start().await;
    let (game, mut players) = table(&ludus, 2).await;

    let snapshot = players[0].game(&game).await;
    assert_eq!(snapshot.ruleset, "quoridor/9/classic");
    assert_eq!(
        snapshot.settings.as_ref().map(|s| s.turn_time_ms),
        Some(30_000),
        "Q28: quick matches default to 30 s per turn"
    );
    let start = view(snapshot.view);
    assert_eq!(start.size, 9);
    assert_eq!(start.you, Some(0));
    let pawns: Vec<_> = start
        .pawns
        .iter()
        .map(|p| (p.cell, p.walls_left, p.distance))
        .collect();
    assert_eq!(
        pawns,
        [
            (Some(cell("e1")), 10, Some(8)),
            (Some(cell("e9")), 10, Some(8))
        ],
        "Q5, Q27, Q30"
    );

    let mut stream = players[1].subscribe(&game, 0).await;
    // Red (seat 0) walks file e to the top; yellow sidesteps to file f and paces there.
    let mut scripts: HashMap<usize, std::vec::IntoIter<&str>> = HashMap::from([
        (
            0,
            vec!["e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"].into_iter(),
        ),
        (
            1,
            vec!["f9", "f8", "f9", "f8", "f9", "f8", "f9", "f8"].into_iter(),
        ),
    ]);
    let last = loop {
        let seat = to_move(&mut players[0], &game).await;
        let notation = scripts
            .get_mut(&seat)
            .and_then(Iterator::next)
            .expect("a scripted move");
        let event = players[seat]
            .play(&game, notation)
            .await
            .expect("a legal step");
        let last = view(event.view.clone())
            .last_action
            .expect("Q37: last action");
        assert_eq!(last.seat as usize, seat);
        assert!(!last.automatic);
        if event.status == pb::GameStatus::Finished as i32 {
            break event;
        }
    };
    let outcome = last.outcome.clone().expect("outcome");
    assert_eq!(outcome.kind, pb::ResultKind::Win as i32);
    assert_eq!(outcome.winners, [0]);
    assert_eq!(outcome.rule, "Q17");
    let end = view(last.view.clone());
    let yellow = end.pawns[1].distance.expect("yellow's distance") as i64;
    assert_eq!(
        outcome.points,
        [2 * yellow, 0],
        "Q31: twice the loser's distance"
    );

    // Spectators saw the same finish.
    let seen = events_until_finished(&mut stream).await;
    assert_eq!(seen.last().map(|e| e.seq), Some(last.seq));

    // Nothing more can be played (Q17).
    refused_by_rule(players[1].play(&game, "f7").await, "Q17");

    // Ratings hear of the result through its durable timer.
    let winner = players[0].rating_after("quoridor/9/classic", 1).await;
    assert!(winner.rating > 1200.0);
    let loser = players[1].rating("quoridor/9/classic").await;
    assert!(loser.rating < 1200.0);
    ludus.shutdown().await;
}

#[tokio::test]
async fn q15_four_player_free_for_all_refuses_a_wall_that_would_shut_a_pawn_in() {
    let ludus = Ludus::start().await;
    let (game, mut players) = table(&ludus, 4).await;
    let snapshot = players[2].game(&game).await;
    assert_eq!(snapshot.ruleset, "quoridor/9/classic/ffa4");
    let start = view(snapshot.view);
    assert_eq!(start.pawns.len(), 4);
    assert_eq!(start.you, Some(2));
    let cells: Vec<_> = start.pawns.iter().map(|p| p.cell).collect();
    assert_eq!(
        cells,
        ["e1", "a5", "e9", "i5"].map(|c| Some(cell(c))),
        "Q6: bottom, left, top, right, so turns go clockwise"
    );
    assert!(
        start.pawns.iter().all(|p| p.walls_left == 5),
        "Q27: 5 each with 4"
    );

    // Whoever is to move walls off rank 1 from b to i; only a1-a2 stays open for red.
    let mut last_placer = 0;
    for wall in ["b1h", "d1h", "f1h", "h1h"] {
        last_placer = to_move(&mut players[0], &game).await;
        players[last_placer]
            .play(&game, wall)
            .await
            .expect("a legal wall");
    }
    let before = players[0].game(&game).await;
    let seat = before.turn.as_ref().and_then(|t| t.to_move).expect("turn") as usize;
    let board = view(before.view.clone());
    assert_eq!(board.walls.len(), 4);
    assert_eq!(
        board.pawns[0].distance,
        Some(12),
        "red now detours by a1-a2"
    );
    assert_eq!(board.pawns[last_placer].walls_left, 4);
    let last = board.last_action.expect("Q37: the latest wall");
    assert_eq!(last.seat as usize, last_placer);
    assert_eq!(
        last.action.and_then(|a| a.kind),
        Some(pb::quoridor_action::Kind::Wall(pb::QuoridorWall {
            cell: Some(cell("h1")),
            orientation: pb::QuoridorOrientation::Horizontal as i32,
        }))
    );

    // a1v would close the last way out: refused, naming Q15, and nothing changes.
    let mover = &mut players[seat];
    assert!(
        !mover
            .game(&game)
            .await
            .legal_actions
            .iter()
            .any(|a| a.notation == "a1v"),
        "the legal list never offers it"
    );
    let action_id = mover.next_action_id();
    let err = mover
        .submit(&game, before.seq, &action_id, "a1v")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert_eq!(err.message(), "Q15: wall a1v would shut in red");
    // The same refusal for the structured action.
    refused_by_rule(
        mover
            .submit_structured(
                &game,
                before.seq,
                pb::action::Action::Quoridor(pb::QuoridorAction {
                    kind: Some(pb::quoridor_action::Kind::Wall(pb::QuoridorWall {
                        cell: Some(cell("a1")),
                        orientation: pb::QuoridorOrientation::Vertical as i32,
                    })),
                }),
            )
            .await,
        "Q15",
    );
    let after = mover.game(&game).await;
    assert_eq!(after.seq, before.seq);
    assert_eq!(view(after.view).walls.len(), 4);

    // A wall that leaves a way is fine, and the turn goes on in seat order (Q8).
    mover.play(&game, "a3h").await.expect("a legal wall");
    assert_eq!(to_move(&mut players[0], &game).await, (seat + 1) % 4);
    ludus.shutdown().await;
}

/// The Q19-Q21 test's turn clock.
const CLOCK_MS: u64 = 3_000;

#[tokio::test]
async fn q19_q20_q21_timeouts_pass_or_step_aside_and_a_blocking_pawn_may_not_pass() {
    let ludus = Ludus::start_on_manual_clock().await;
    let [mut red, mut yellow] = ludus.players(["red", "yellow"]).await;
    // A short clock (on a manual clock: it runs out when the test moves time); red moves
    // first.
    let game = create(
        &ludus,
        pb::QuoridorOptions {
            first_seat: Some(0),
            ..Default::default()
        },
        CLOCK_MS,
        &[&red, &yellow],
    )
    .await;
    let mut stream = yellow.subscribe(&game, 0).await;

    // Q19: red's clock runs out and the turn simply passes; it counts toward Q18.
    ludus.advance(Duration::from_millis(CLOCK_MS)).await;
    let (timeout, event) = next_timeout(&mut stream).await;
    assert_eq!(timeout.seat, 0);
    assert!(timeout.effect.starts_with("Q19"), "{}", timeout.effect);
    let after = view(event.view);
    let last = after.last_action.expect("last action");
    assert!(last.automatic);
    assert_eq!(
        last.action.and_then(|a| a.kind),
        Some(pb::quoridor_action::Kind::Pass(pb::QuoridorPass {}))
    );
    assert_eq!(after.pawns[0].moves, 1, "Q18: the lost turn counts");
    assert_eq!(after.pawns[0].cell, Some(cell("e1")));
    assert_eq!(event.turn.and_then(|t| t.to_move), Some(1));

    // Walls on the rank 8-9 groove everywhere but file e: red can only reach rank 9 through
    // e9, where yellow stands, so yellow blocks red (Q20).
    yellow.play(&game, "a8h").await.expect("wall");
    red.play(&game, "c8h").await.expect("wall");
    yellow.play(&game, "f8h").await.expect("wall");
    red.play(&game, "h8h").await.expect("wall");
    let before = yellow.game(&game).await;
    assert!(
        !before.legal_actions.iter().any(|a| a.notation == "pass"),
        "Q20: no pass on the legal list"
    );
    let err = yellow.play(&game, "pass").await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert_eq!(err.message(), "Q20: yellow blocks red and may not pass");
    assert_eq!(yellow.game(&game).await.seq, before.seq, "nothing changed");

    // Q21: yellow's clock runs out while blocking: it steps aside (left, to d9) instead.
    ludus.advance(Duration::from_millis(CLOCK_MS)).await;
    let (timeout, event) = next_timeout(&mut stream).await;
    assert_eq!(timeout.seat, 1);
    assert!(timeout.effect.starts_with("Q21"), "{}", timeout.effect);
    let after = view(event.view);
    let last = after.last_action.expect("last action");
    assert!(last.automatic);
    assert_eq!(last.from, Some(cell("e9")));
    assert_eq!(
        last.action.and_then(|a| a.kind),
        Some(pb::quoridor_action::Kind::Move(cell("d9")))
    );
    assert_eq!(after.pawns[1].cell, Some(cell("d9")));
    assert_eq!(
        after.pawns[1].moves, 3,
        "Q18: two walls and the automatic step"
    );
    assert_eq!(event.turn.and_then(|t| t.to_move), Some(0));
    ludus.shutdown().await;
}

#[tokio::test]
async fn q23_q33_team_members_alternate_on_the_shared_pawn_and_share_its_points() {
    let ludus = Ludus::start().await;
    let mut players = Vec::new();
    for name in ["ann", "bob", "cat", "dan"] {
        players.push(ludus.player(name).await);
    }
    // Teams alternate by seat: ann and cat are red, bob and dan yellow; untimed.
    let game = create(
        &ludus,
        pb::QuoridorOptions {
            mode: pb::QuoridorMode::Teams as i32,
            first_seat: Some(0),
            ..Default::default()
        },
        0,
        &players.iter().collect::<Vec<_>>(),
    )
    .await;
    let snapshot = players[2].game(&game).await;
    assert_eq!(snapshot.ruleset, "quoridor/9/classic/teams4");
    let start = view(snapshot.view);
    assert_eq!(start.pawns.len(), 2, "one pawn per team");
    assert_eq!(start.pawns[0].seats, [0, 2]);
    assert_eq!(start.pawns[1].seats, [1, 3]);
    assert_eq!(start.pawns[0].walls_left, 10, "Q27: a team's stock");
    assert_eq!(start.you, Some(0), "cat plays the red pawn");

    // Cat is on ann's team but it is ann's turn: refused (Q8).
    refused_by_rule(players[2].play(&game, "e2").await, "Q8");

    // Red walks file e to the top, yellow paces on file f; the members take turns.
    let red = ["e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"];
    let yellow = ["f9", "f8", "f9", "f8", "f9", "f8", "f9"];
    let mut last = None;
    for turn in 0..15 {
        let seat = turn % 4;
        assert_eq!(to_move(&mut players[0], &game).await, seat, "Q23 rotation");
        let notation = if turn % 2 == 0 {
            red[turn / 2]
        } else {
            yellow[turn / 2]
        };
        let event = players[seat].play(&game, notation).await.expect("a step");
        let moved = view(event.view.clone());
        let action = moved.last_action.expect("last action");
        assert_eq!(
            (action.seat as usize, action.side as usize),
            (seat, seat % 2)
        );
        last = Some(event);
    }
    let last = last.expect("events");
    assert_eq!(last.status, pb::GameStatus::Finished as i32);
    let outcome = last.outcome.expect("outcome");
    assert_eq!(outcome.winners, [0, 2], "the red team wins");
    assert_eq!(outcome.ranks, [0, 1, 0, 1]);
    // Yellow ends on f9, 8 steps from rank 1: Q31 gives red 16, and Q33 gives it to both.
    assert_eq!(outcome.points, [16, 0, 16, 0]);
    ludus.shutdown().await;
}
