//! Mancala end to end: quick match, sows, extra turns, captures, the end of the game, the M10
//! clock, Congklak relays and the analysis RPC, through the gateway on a real redis-server.
//! Rule ids are those of `shared/rules/mancala.md`.
//!
//! The scripted games were found by a search over random Kalah games and are written from the
//! first player's side: Kalah is symmetric and pits are counted from the mover's side (M1), so
//! a script plays the same whichever seat sows first (M3: random in a quick match).

use std::time::Duration;

use ludus_mancala::{KalahPosition, Solver};
use ludus_proto::pb;
use ludus_tests::{
    Ludus, Player, events_until_finished, finished_by_timeout, next_event, next_of,
    quick_match_pair, refused_by_rule,
};
use tonic::Code;

fn kalah() -> pb::GameSettings {
    pb::GameSettings {
        options: Some(pb::game_settings::Options::Mancala(pb::MancalaOptions {
            rule_set: pb::MancalaRuleSet::Kalah as i32,
            first_player: pb::MancalaFirstPlayer::Unspecified as i32,
        })),
        turn_time_ms: 0,
    }
}

/// Two players quick-matched for `settings`, in seat order.
async fn matched(ludus: &Ludus, settings: pb::GameSettings) -> (String, Player, Player) {
    quick_match_pair(ludus, ["ana", "bo"], settings).await
}

/// Two signed-in players seated by game-state's internal CreateGame (seat order as given),
/// for options a quick match does not offer (a chosen first player, a short clock).
async fn created(
    ludus: &Ludus,
    options: pb::MancalaOptions,
    turn_time_ms: u64,
) -> (String, Player, Player) {
    let [a, b] = ludus.players(["ana", "bo"]).await;
    let settings = pb::GameSettings {
        options: Some(pb::game_settings::Options::Mancala(options)),
        turn_time_ms,
    };
    let game = ludus.create_game("", settings, &[&a, &b]).await;
    (game.game_id, a, b)
}

fn seat0_first(rule_set: pb::MancalaRuleSet) -> pb::MancalaOptions {
    pb::MancalaOptions {
        rule_set: rule_set as i32,
        first_player: pb::MancalaFirstPlayer::Seat0 as i32,
    }
}

fn mancala_view(view: Option<&pb::GameView>) -> pb::MancalaView {
    match view.and_then(|v| v.view.clone()) {
        Some(pb::game_view::View::Mancala(view)) => view,
        other => panic!("a mancala view, got {other:?}"),
    }
}

fn last_seed_kind(view: &pb::MancalaView) -> pb::MancalaLastSeedKind {
    let kind = view
        .last_sow
        .as_ref()
        .and_then(|s| s.last_seed.as_ref())
        .expect("the last sow")
        .kind;
    pb::MancalaLastSeedKind::try_from(kind).expect("a known kind")
}

/// Plays a script of `(first player's sow?, pit)` and checks each sow's last seed, with the
/// seat to move read from the snapshot (M3, M5). Returns every event.
async fn play_script(
    game: &str,
    players: [&mut Player; 2],
    first: usize,
    script: &[(bool, &str, pb::MancalaLastSeedKind)],
) -> Vec<pb::GameEvent> {
    let [p0, p1] = players;
    let seats = [p0, p1];
    let mut events = Vec::new();
    for (i, &(by_first, pit, kind)) in script.iter().enumerate() {
        let seat = if by_first { first } else { 1 - first };
        let snapshot = seats[seat].game(game).await;
        assert_eq!(
            snapshot.turn.as_ref().and_then(|t| t.to_move),
            Some(seat as u32),
            "sow {i}: seat {seat} to move"
        );
        let event = seats[seat]
            .play(game, pit)
            .await
            .unwrap_or_else(|e| panic!("sow {i} ({pit}): {e:?}"));
        let view = mancala_view(event.view.as_ref());
        assert_eq!(last_seed_kind(&view), kind, "sow {i} ({pit})");
        events.push(event);
    }
    events
}

use pb::MancalaLastSeedKind::{Capture, Stopped, Store};

/// Game A, from the first player's side: sows 8-10 are a chained extra turn (store, store)
/// ending in a capture (M5, M6); the first player wins 33-15 (M7, M8).
const GAME_A: &[(bool, &str, pb::MancalaLastSeedKind)] = &[
    (true, "3", Store),
    (true, "4", Stopped),
    (false, "1", Stopped),
    (true, "2", Stopped),
    (false, "2", Stopped),
    (true, "3", Stopped),
    (false, "4", Stopped),
    (true, "1", Store),
    (true, "4", Store),
    (true, "2", Capture),
    (false, "5", Stopped),
    (true, "2", Stopped),
    (false, "6", Capture),
];

#[tokio::test]
async fn kalah_quick_match_chained_extra_turns_a_capture_and_elo_per_rule_set() {
    let ludus = Ludus::start().await;
    let (game, mut s0, mut s1) = matched(&ludus, kalah()).await;
    let snapshot = s0.game(&game).await;
    assert_eq!(snapshot.ruleset, "mancala/kalah");
    assert_eq!(
        snapshot.settings.as_ref().map(|s| s.turn_time_ms),
        Some(30_000),
        "M10: 30 s per sow from the matchmaking config"
    );
    let view = mancala_view(snapshot.view.as_ref());
    assert_eq!(view.viewer_seat, Some(0));
    assert_eq!(view.sides.len(), 2);
    assert!(
        view.sides.iter().all(|s| s.pits == [4; 6] && s.store == 0),
        "M2"
    );
    // M3: random; the script follows whoever the server chose.
    let first = snapshot
        .turn
        .and_then(|t| t.to_move)
        .expect("someone sows first") as usize;
    assert_eq!(view.first_seat as usize, first);

    let mut watch = s0.subscribe(&game, 0).await;
    let events = play_script(&game, [&mut s0, &mut s1], first, GAME_A).await;

    // The chained extra turn: after sows 8 and 9 the same seat is on an extra turn (M5).
    for i in [7, 8] {
        let view = mancala_view(events[i].view.as_ref());
        assert!(view.extra_turn, "sow {i} earned an extra turn");
        assert_eq!(view.to_move, Some(first as u32));
    }
    // The capture (sow 10): the last seed and the seeds opposite went to the store (M6).
    let capture = mancala_view(events[9].view.as_ref());
    let last = capture.last_sow.as_ref().expect("last sow");
    let seed = last.last_seed.as_ref().expect("last seed");
    assert!(seed.captured > 0);
    let spot = seed.spot.as_ref().expect("spot");
    assert_eq!(
        spot.seat as usize, first,
        "M6: the last seed landed in the mover's own pit"
    );
    assert_eq!(
        capture.sides[first].pits[spot.pit as usize - 1],
        0,
        "the capturing seed left"
    );
    assert!(!capture.extra_turn);
    assert_eq!(capture.to_move, Some(1 - first as u32));

    let finished = events.last().expect("last event");
    assert_eq!(finished.status, pb::GameStatus::Finished as i32);
    let outcome = finished.outcome.clone().expect("outcome");
    assert_eq!(outcome.rule, "M7");
    assert_eq!(outcome.winners, [first as u32]);
    let mut points = outcome.points.clone();
    if first == 1 {
        points.reverse();
    }
    assert_eq!(points, [33, 15], "M8: the stores, first player first");
    let view = mancala_view(finished.view.as_ref());
    assert_eq!(view.to_move, None);
    assert_eq!(view.outcome.as_ref().map(|o| o.rule.as_str()), Some("M7"));
    // Every sow reached the watcher in order, and the stream ended with the game.
    let watched = events_until_finished(&mut watch).await;
    assert_eq!(watched.len(), 1 + GAME_A.len());

    // M12: the result moves Elo in the mancala/kalah pool, from 1200.
    let (winner, loser) = if first == 0 {
        (&mut s0, &mut s1)
    } else {
        (&mut s1, &mut s0)
    };
    let rated = winner.rating_after("mancala/kalah", 1).await;
    assert!(rated.rating > 1200.0);
    assert!(loser.rating("mancala/kalah").await.rating < 1200.0);
    assert_eq!(
        winner.rating("mancala/congklak").await.games,
        0,
        "pools are per rule set"
    );
    ludus.shutdown().await;
}

/// Game B: its last sow drops its last seed in the store and empties the mover's row, so the
/// game ends at once instead of giving an extra turn (M5, M7); 41-7.
const GAME_B: &[(bool, &str, pb::MancalaLastSeedKind)] = &[
    (true, "6", Stopped),
    (false, "2", Store),
    (false, "3", Stopped),
    (true, "1", Capture),
    (false, "6", Stopped),
    (true, "1", Stopped),
    (false, "4", Stopped),
    (true, "1", Stopped),
    (false, "6", Store),
    (false, "5", Stopped),
    (true, "1", Stopped),
    (false, "6", Store),
];

#[tokio::test]
async fn m7_the_game_ends_right_after_a_seed_lands_in_the_store() {
    let ludus = Ludus::start().await;
    let (game, mut s0, mut s1) = created(&ludus, seat0_first(pb::MancalaRuleSet::Kalah), 0).await;
    let events = play_script(&game, [&mut s0, &mut s1], 0, GAME_B).await;
    let last = events.last().expect("last");
    assert_eq!(last.status, pb::GameStatus::Finished as i32);
    let view = mancala_view(last.view.as_ref());
    assert!(
        !view.extra_turn,
        "M7 beats M5: no extra turn once a row is empty"
    );
    assert_eq!(view.to_move, None);
    assert!(view.sides[1].pits.iter().all(|&p| p == 0));
    let sow = view.last_sow.as_ref().expect("last sow");
    assert_eq!(sow.swept.len(), 2, "the sweep is shown");
    let outcome = last.outcome.clone().expect("outcome");
    assert_eq!(outcome.rule, "M7");
    assert_eq!(outcome.winners, [0]);
    assert_eq!(outcome.points, [41, 7]);
    // A finished game takes no more sows.
    let refused = s0.play(&game, "1").await.expect_err("over");
    assert_eq!(refused.code(), Code::FailedPrecondition);
    ludus.shutdown().await;
}

#[tokio::test]
async fn m10_the_seat_whose_clock_runs_out_loses_and_an_extra_sow_gets_a_fresh_clock() {
    let ludus = Ludus::start_on_manual_clock().await;
    // M10: at most 30 s per sow; on the manual clock it runs out when the test moves time.
    const CLOCK_MS: u64 = 30_000;
    let (game, mut s0, mut s1) =
        created(&ludus, seat0_first(pb::MancalaRuleSet::Kalah), CLOCK_MS).await;
    let mut watch = s1.subscribe(&game, 0).await;
    let started = next_event(&mut watch).await;
    let first_turn = started.turn.expect("turn");
    // M5 + M10: an extra sow restarts the clock (a new turn_seq, a later deadline).
    ludus.advance(Duration::from_secs(1)).await;
    let event = s0.play(&game, "3").await.expect("extra turn");
    let turn = event.turn.expect("turn");
    assert_eq!(turn.to_move, Some(0));
    assert!(turn.turn_seq > first_turn.turn_seq);
    assert!(turn.deadline_unix_ms > first_turn.deadline_unix_ms);
    s0.play(&game, "1").await.expect("turn passes");
    // Seat 1 never sows.
    ludus.advance(Duration::from_millis(CLOCK_MS)).await;
    let (timeout, outcome, _) = finished_by_timeout(&mut watch).await;
    assert_eq!(timeout.seat, 1);
    assert_eq!(outcome.rule, "M10");
    assert_eq!(outcome.winners, [0]);
    assert!(s1.game(&game).await.legal_actions.is_empty());
    ludus.shutdown().await;
}

#[tokio::test]
async fn congklak_relay_sows_and_plays_to_the_end() {
    let ludus = Ludus::start().await;
    let (game, mut s0, mut s1) =
        created(&ludus, seat0_first(pb::MancalaRuleSet::Congklak), 0).await;
    let snapshot = s0.game(&game).await;
    assert_eq!(snapshot.ruleset, "mancala/congklak");
    let view = mancala_view(snapshot.view.as_ref());
    assert!(view.sides.iter().all(|s| s.pits == [7; 7]), "K1");
    // K2: pit 2's 7 seeds end in the opponent's pit 1, which now holds 8: a relay.
    let event = s0.play(&game, "2").await.expect("relay sow");
    let view = mancala_view(event.view.as_ref());
    let sow = view.last_sow.as_ref().expect("last sow");
    assert!(
        sow.laps.len() >= 2,
        "K2: relay laps, got {}",
        sow.laps.len()
    );
    assert_eq!(sow.laps[0].drops.len(), 7);
    let relay_from = sow.laps[1].from.as_ref().expect("from");
    assert_eq!((relay_from.seat, relay_from.pit), (1, 1));
    assert_eq!(view.sows, 1, "K5: a relay sow counts once");
    let seeds: u32 = view
        .sides
        .iter()
        .map(|s| s.pits.iter().sum::<u32>() + s.store)
        .sum();
    assert_eq!(seeds, 98, "K1: seeds are conserved");

    // Play on (the first legal pit each turn) until the game ends (K4 or the M9 limit).
    let mut seats = [&mut s0, &mut s1];
    for _ in 0..450 {
        let snapshot = seats[0].game(&game).await;
        let Some(to_move) = snapshot.turn.and_then(|t| t.to_move) else {
            break;
        };
        let player = &mut seats[to_move as usize];
        let mine = player.game(&game).await;
        let pit = mine
            .legal_actions
            .first()
            .expect("a legal sow")
            .notation
            .clone();
        player.play(&game, &pit).await.expect("legal sow");
    }
    let end = s0.game(&game).await;
    let outcome = end.outcome.expect("the game ended");
    assert!(
        ["K4", "M9"].contains(&outcome.rule.as_str()),
        "{}",
        outcome.rule
    );
    assert_eq!(outcome.points.iter().sum::<i64>(), 98);
    ludus.shutdown().await;
}

#[tokio::test]
async fn illegal_sows_are_refused_naming_the_rule_and_change_nothing() {
    let ludus = Ludus::start().await;
    let (game, mut s0, mut s1) = created(&ludus, seat0_first(pb::MancalaRuleSet::Kalah), 0).await;
    s0.play(&game, "3").await.expect("extra turn");
    let before = s0.game(&game).await;
    // M4: pit 3 was just emptied.
    refused_by_rule(s0.play(&game, "3").await, "M4: pit 3 is empty");
    // M5: seat 1 may not sow on seat 0's extra turn.
    refused_by_rule(s1.play(&game, "1").await, "M5:");
    // M1: pits are counted from the mover's side, so no pit number names an enemy pit: 7 and
    // beyond do not exist, in notation or structured.
    refused_by_rule(s0.play(&game, "7").await, "M1:");
    refused_by_rule(
        s0.submit_structured(
            &game,
            before.seq,
            pb::action::Action::Mancala(pb::MancalaAction { pit: 9 }),
        )
        .await,
        "M1: there is no pit 9",
    );
    let after = s0.game(&game).await;
    assert_eq!(after.seq, before.seq, "nothing was written");
    assert_eq!(after.view, before.view);
    ludus.shutdown().await;
}

fn side(pits: [u32; 6], store: u32) -> pb::MancalaSide {
    pb::MancalaSide {
        pits: pits.to_vec(),
        store,
    }
}

async fn analyze(
    player: &mut Player,
    source: pb::analyze_mancala_request::Source,
    budget_ms: u32,
) -> Result<pb::AnalyzeMancalaResponse, tonic::Status> {
    player
        .client
        .analyze_mancala(pb::AnalyzeMancalaRequest {
            source: Some(source),
            budget_ms,
        })
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn analysis_solves_a_known_position_and_is_refused_to_a_player_of_an_active_game() {
    use pb::analyze_mancala_request::Source;
    let ludus = Ludus::start().await;
    let mut fan = ludus.player("fan").await;

    // An endgame, seat 1 to move; the answer must be exact and agree with the solver.
    let position = pb::MancalaPosition {
        rule_set: pb::MancalaRuleSet::Kalah as i32,
        sides: vec![side([0, 0, 0, 2, 0, 1], 20), side([1, 0, 3, 0, 0, 1], 20)],
        to_move: 1,
    };
    let answer = analyze(&mut fan, Source::Position(position.clone()), 2_000)
        .await
        .expect("analysed");
    let solved = Solver::new(16).solve(
        &KalahPosition::new([1, 0, 3, 0, 0, 1], [0, 0, 0, 2, 0, 1], [20, 20]).expect("position"),
    );
    assert!(answer.exact);
    assert_eq!(answer.margin, solved.margin);
    assert_eq!(answer.best_pit, solved.best.map(u32::from));
    assert_eq!(
        answer.sows.iter().map(|s| s.pit).collect::<Vec<_>>(),
        [1, 3, 6]
    );
    assert!(
        answer
            .sows
            .iter()
            .all(|s| s.exact && s.lower == s.upper && s.margin <= solved.margin)
    );
    assert_eq!(answer.position.as_ref().map(|p| p.to_move), Some(1));
    assert_eq!(answer.budget_ms, 2_000);
    // The budget is capped.
    let capped = analyze(&mut fan, Source::Position(position.clone()), 60_000)
        .await
        .expect("analysed");
    assert_eq!(capped.budget_ms, 2_000);

    // M2: seeds are conserved (48); INVALID_ARGUMENT otherwise.
    let wrong = pb::MancalaPosition {
        sides: vec![side([4; 6], 1), side([4; 6], 0)],
        ..position.clone()
    };
    let refused = analyze(&mut fan, Source::Position(wrong), 100)
        .await
        .expect_err("49 seeds");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(refused.message().contains("M2"), "{}", refused.message());

    // A game being played: its players get no engine help, a spectator may analyse it.
    let (game, mut s0, mut s1) = created(&ludus, seat0_first(pb::MancalaRuleSet::Kalah), 0).await;
    for player in [&mut s0, &mut s1] {
        let denied = analyze(player, Source::GameId(game.clone()), 100)
            .await
            .expect_err("a player of an active game");
        assert_eq!(denied.code(), Code::PermissionDenied);
        assert!(
            denied.message().contains("no engine help"),
            "{}",
            denied.message()
        );
    }
    let watched = analyze(&mut fan, Source::GameId(game.clone()), 100)
        .await
        .expect("a spectator may");
    assert_eq!(watched.sows.len(), 6);
    assert_eq!(watched.position.as_ref().map(|p| p.to_move), Some(0));
    // Once it is over its players may analyse it too.
    s1.resign(&game).await.expect("resign");
    let after = analyze(&mut s1, Source::GameId(game), 100)
        .await
        .expect("after the end");
    assert!(after.sows.is_empty());
    assert_eq!(after.best_pit, None);

    // Congklak is not analysed.
    let (congklak, _, _) = created(&ludus, seat0_first(pb::MancalaRuleSet::Congklak), 0).await;
    let refused = analyze(&mut fan, Source::GameId(congklak), 100)
        .await
        .expect_err("congklak");
    assert_eq!(refused.code(), Code::FailedPrecondition);
    ludus.shutdown().await;
}

#[tokio::test]
async fn m10_a_disconnection_is_shown_but_only_the_clock_runs() {
    // Mancala has no disconnection rule (M10: the clock keeps running while a player is
    // away), so a disconnected player gets no deadline to come back, even with a short grace.
    let ludus = Ludus::start_with_absence_grace(Duration::from_millis(500)).await;
    let (game, mut a, mut b) = matched(&ludus, kalah()).await;
    let mut watch = b.subscribe(&game, 0).await;
    let mut stream = a.subscribe(&game, 0).await;
    next_event(&mut stream).await;
    drop(stream);
    let (gone, _) = next_of(&mut watch, |kind| match kind {
        pb::game_event::Kind::PlayerDisconnected(gone) => Some(*gone),
        _ => None,
    })
    .await;
    assert_eq!(gone.seat, 0);
    assert_eq!(gone.return_by_unix_ms, 0, "no deadline to come back");
    assert_eq!(b.game(&game).await.disconnected, [gone]);
    // Long past the grace the game is still on, and the clock is the 30 s of M10.
    ludus.advance(Duration::from_millis(1_500)).await;
    let snapshot = b.game(&game).await;
    assert_eq!(snapshot.status, pb::GameStatus::Active as i32);
    assert!(snapshot.turn.expect("turn").deadline_unix_ms > 0);
    ludus.shutdown().await;
}
