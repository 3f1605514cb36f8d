//! Backgammon end to end: players and spectators through the gateway, every service real,
//! state in a real redis-server. Rule ids refer to shared/rules/backgammon.md.
//!
//! Dice are known to the tests through game-state's TEST-ONLY seam
//! (`ludus_game_state::test_seams::script_random`, compiled only with the `test-seams` feature
//! that this crate's dev-dependency alone enables): a test scripts the next random draws of a
//! game id (a die `d` is the draw `d - 1`), and the server's rolls take them in order. The
//! scripted values live only in this test process, never in a game's state, snapshot or event.
//! Positions other than the start come from the `preset` seam. Every action goes through the
//! public gateway.

use std::time::Duration;

use ludus_backgammon::board::Board;
use ludus_backgammon::{Backgammon, BackgammonOptions, BackgammonSession};
use ludus_game_state::test_seams;
use ludus_proto::pb;
use ludus_tests::{
    Ludus, Player, events_until_finished, next_event, next_timeout, quick_match_pair, refused,
    refused_by_rule,
};
use tonic::Code;

const MONEY: &str = "backgammon/money";
const MATCH: &str = "backgammon/match";

fn settings(options: pb::BackgammonOptions) -> pb::GameSettings {
    pb::GameSettings {
        options: Some(pb::game_settings::Options::Backgammon(options)),
        turn_time_ms: 0,
    }
}

fn money() -> pb::GameSettings {
    settings(pb::BackgammonOptions::default())
}

/// The draws that roll these dice (a die `d` is the draw `d - 1`).
fn dice(rolls: &[[u32; 2]]) -> Vec<u32> {
    rolls.iter().flatten().map(|d| d - 1).collect()
}

/// Scripts the game's first draws, then creates it through game-state's internal API with
/// `seats` in seat order (seat 0 is white).
async fn create(
    ludus: &Ludus,
    game_id: &str,
    settings: pb::GameSettings,
    seats: [&Player; 2],
    draws: Vec<u32>,
) -> pb::GameSnapshot {
    test_seams::script_random(game_id, draws);
    ludus.create_game(game_id, settings, &seats).await
}

fn bg(view: Option<&pb::GameView>) -> &pb::BackgammonView {
    match view.and_then(|v| v.view.as_ref()) {
        Some(pb::game_view::View::Backgammon(view)) => view,
        other => panic!("a backgammon view, got {other:?}"),
    }
}

async fn view_of(player: &mut Player, game: &str) -> pb::BackgammonView {
    bg(player.game(game).await.view.as_ref()).clone()
}

/// The first play the server lists for the player to move.
async fn first_legal_play(player: &mut Player, game: &str) -> String {
    player
        .game(game)
        .await
        .legal_actions
        .iter()
        .find(|a| {
            matches!(
                a.action.as_ref().and_then(|a| a.action.as_ref()),
                Some(pb::action::Action::Backgammon(pb::BackgammonAction {
                    kind: Some(pb::backgammon_action::Kind::Play(_))
                }))
            )
        })
        .map(|a| a.notation.clone())
        .expect("a legal play")
}

#[tokio::test]
async fn quick_match_money_game_with_a_double_taken_and_a_redouble_dropped() {
    let ludus = Ludus::start().await;
    let (game, mut white, black) = quick_match_pair(&ludus, ["ann", "bob"], money()).await;

    let snapshot = white.game(&game).await;
    assert_eq!(snapshot.ruleset, MONEY);
    assert_eq!(
        snapshot.settings.as_ref().map(|s| s.turn_time_ms),
        Some(60_000),
        "B20: 60 s per turn by default"
    );
    assert!(snapshot.turn.expect("turn").deadline_unix_ms > 0);
    let view = bg(snapshot.view.as_ref());
    assert_eq!(
        view.phase,
        pb::BackgammonPhase::Play as i32,
        "B4: opening roll"
    );
    assert_eq!(view.dice.len(), 2);
    assert_eq!(view.cube_value, 1);
    // The player who won the opening roll plays it; the other then doubles.
    let on_roll = view.turn;
    let (mut first, mut second) = if on_roll == 0 {
        (white, black)
    } else {
        (black, white)
    };
    let opening = first_legal_play(&mut first, &game).await;
    first.play(&game, &opening).await.expect("opening play");

    second.play(&game, "double").await.expect("B14: double");
    let view = view_of(&mut first, &game).await;
    assert_eq!(view.phase, pb::BackgammonPhase::DoubleOffered as i32);
    assert_eq!(view.to_move, Some(on_roll));
    first.play(&game, "take").await.expect("B15: take");
    let view = view_of(&mut second, &game).await;
    assert_eq!(
        (view.cube_value, view.cube_owner),
        (2, Some(on_roll)),
        "B15: the taker owns the cube at 2"
    );
    assert!(!view.can_double, "B14: only the owner may redouble");

    test_seams::script_random(&game, dice(&[[6, 5]]));
    let rolled = second.play(&game, "roll").await.expect("roll");
    assert_eq!(bg(rolled.view.as_ref()).dice, [6, 5]);
    let reply = first_legal_play(&mut second, &game).await;
    second.play(&game, &reply).await.expect("play");

    first.play(&game, "double").await.expect("B14: redouble");
    let last = second.play(&game, "drop").await.expect("B15: drop");
    assert_eq!(last.status, pb::GameStatus::Finished as i32);
    let outcome = last.outcome.expect("outcome");
    assert_eq!(outcome.rule, "B15");
    assert_eq!(outcome.winners, [on_roll]);
    let mut points = vec![0, 0];
    points[on_roll as usize] = 2;
    assert_eq!(outcome.points, points, "the stake before the redouble");

    let winner = first.rating_after(MONEY, 1).await;
    assert!(winner.rating > 1200.0, "{}", winner.rating);
    let loser = second.rating(MONEY).await;
    assert!(loser.rating < 1200.0, "{}", loser.rating);
    assert_eq!(second.rating(MATCH).await.games, 0, "matches rate apart");
    ludus.shutdown().await;
}

#[tokio::test]
async fn b16_bearing_off_the_last_checker_against_no_checker_off_wins_a_gammon() {
    let ludus = Ludus::start().await;
    let [mut ann, bob] = ludus.players(["ann", "bob"]).await;
    // White has one checker left on its ace point; black has borne off nothing.
    let mut counts = [[0u8; 25]; 2];
    counts[0][0] = 1;
    counts[1][5] = 5;
    counts[1][7] = 5;
    counts[1][12] = 5;
    let board = Board::new(counts).expect("a board");
    let position = Backgammon::from_position(BackgammonOptions::default(), board, 0, None)
        .expect("a position");
    test_seams::preset("bg-gammon", BackgammonSession::money(position));
    create(&ludus, "bg-gammon", money(), [&ann, &bob], dice(&[[1, 2]])).await;
    let rolled = ann.play("bg-gammon", "roll").await.expect("roll");
    assert_eq!(bg(rolled.view.as_ref()).dice, [1, 2]);
    let last = ann.play("bg-gammon", "1/off").await.expect("bear off");
    let outcome = last.outcome.expect("outcome");
    assert_eq!(outcome.rule, "B16");
    assert_eq!(outcome.winners, [0]);
    assert_eq!(outcome.points, [2, 0], "a gammon at cube 1");
    assert!(outcome.reason.contains("gammon"), "{}", outcome.reason);
    let view = bg(last.view.as_ref());
    assert_eq!(view.off, [15, 0]);
    assert_eq!(view.phase, pb::BackgammonPhase::Over as i32);
    ann.rating_after(MONEY, 1).await;
    ludus.shutdown().await;
}

#[tokio::test]
async fn b18_a_beaver_redoubles_at_once_and_keeps_the_cube() {
    let ludus = Ludus::start().await;
    let [mut ann, mut bob] = ludus.players(["ann", "bob"]).await;
    let beavers = settings(pb::BackgammonOptions {
        beavers: true,
        ..Default::default()
    });
    // Opening roll: white 3, black 1 (B4): white plays 3-1.
    let snapshot = create(&ludus, "bg-beaver", beavers, [&ann, &bob], dice(&[[3, 1]])).await;
    assert!(bg(snapshot.view.as_ref()).beavers);
    ann.play("bg-beaver", "8/5 6/5").await.expect("white");
    bob.play("bg-beaver", "double")
        .await
        .expect("black doubles");
    let event = ann.play("bg-beaver", "beaver").await.expect("B18: beaver");
    let offer = bg(event.view.as_ref())
        .double_offer
        .expect("the beaver waits for black");
    assert_eq!((offer.by, offer.value, offer.beaver), (0, 4, true));
    assert_eq!(bg(event.view.as_ref()).to_move, Some(1));
    refused_by_rule(bob.play("bg-beaver", "beaver").await, "B18");
    let taken = bob.play("bg-beaver", "take").await.expect("take");
    let view = bg(taken.view.as_ref());
    assert_eq!((view.cube_value, view.cube_owner), (4, Some(0)));
    // Black, on roll, resigns a single game at cube 4.
    bob.play("bg-beaver", "resign single").await.expect("offer");
    let last = ann.play("bg-beaver", "accept").await.expect("accept");
    let outcome = last.outcome.expect("outcome");
    assert_eq!(outcome.rule, "B21");
    assert_eq!(outcome.points, [4, 0]);
    ludus.shutdown().await;
}

#[tokio::test]
async fn b22_a_three_point_match_plays_through_the_crawford_game_as_one_game_id() {
    let ludus = Ludus::start().await;
    let [mut ann, mut bob] = ludus.players(["ann", "bob"]).await;
    let three = settings(pb::BackgammonOptions {
        match_game: Some(pb::BackgammonMatchGame {
            length: 3,
            score: vec![],
            crawford: false,
        }),
        ..Default::default()
    });
    // Every game opens with white 3, black 1.
    let id = "bg-match";
    let snapshot = create(&ludus, id, three, [&ann, &bob], dice(&[[3, 1]; 3])).await;
    assert_eq!(snapshot.ruleset, MATCH);
    let view = bg(snapshot.view.as_ref());
    assert_eq!((view.match_length, view.score.as_slice()), (3, &[0, 0][..]));
    let mut carol = ludus.player("carol").await;
    let mut stream = carol.subscribe(id, 0).await;
    assert_eq!(next_event(&mut stream).await.seq, 1);

    // Game 1: white resigns a gammon: black 2-0, one point from the match.
    ann.play(id, "resign gammon").await.expect("offer");
    let event = bob.play(id, "accept").await.expect("accept");
    assert_eq!(
        event.status,
        pb::GameStatus::Active as i32,
        "the match goes on"
    );
    let view = bg(event.view.as_ref());
    assert_eq!(view.score, [0, 2]);
    assert!(view.crawford, "B22: the next game is the crawford game");
    assert_eq!(
        view.phase,
        pb::BackgammonPhase::Play as i32,
        "B4: a new opening"
    );
    assert_eq!((view.dice.as_slice(), view.turn), (&[3, 1][..], 0));
    assert_eq!(view.off, [0, 0]);

    // Game 2, the Crawford game: no cube.
    ann.play(id, "8/5 6/5").await.expect("white");
    let view = view_of(&mut bob, id).await;
    assert!(!view.can_double);
    refused_by_rule(bob.play(id, "double").await, "B22");
    bob.play(id, "resign single").await.expect("offer");
    let event = ann.play(id, "accept").await.expect("accept");
    let view = bg(event.view.as_ref());
    assert_eq!(view.score, [1, 2]);
    assert!(!view.crawford, "B22: one crawford game only");

    // Game 3: the cube is back; white drops black's double and loses the match.
    ann.play(id, "8/5 6/5").await.expect("white");
    assert!(view_of(&mut bob, id).await.can_double);
    bob.play(id, "double")
        .await
        .expect("B14: double after crawford");
    let last = ann.play(id, "drop").await.expect("drop");
    assert_eq!(last.status, pb::GameStatus::Finished as i32);
    let outcome = last.outcome.expect("outcome");
    assert_eq!(outcome.rule, "B22");
    assert_eq!(outcome.winners, [1]);
    assert_eq!(outcome.points, [1, 3], "the final match score");

    let events = events_until_finished(&mut stream).await;
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (2..=last.seq).collect::<Vec<_>>(),
        "one log for the match"
    );
    let err = refused(bob.play(id, "roll").await);
    assert_eq!(err.code(), Code::FailedPrecondition);
    let winner = bob.rating_after(MATCH, 1).await;
    assert!(winner.rating > 1200.0);
    assert_eq!(bob.rating(MONEY).await.games, 0, "money rates apart");
    ludus.shutdown().await;
}

#[tokio::test]
async fn b8_a_play_that_leaves_a_die_unused_is_refused_and_changes_nothing() {
    let ludus = Ludus::start().await;
    let [mut ann, mut bob] = ludus.players(["ann", "bob"]).await;
    create(&ludus, "bg-b8", money(), [&ann, &bob], dice(&[[3, 1]])).await;
    let before = ann.game("bg-b8").await;
    refused_by_rule(ann.play("bg-b8", "8/5").await, "B8");
    refused_by_rule(bob.play("bg-b8", "roll").await, "B4");
    let after = ann.game("bg-b8").await;
    assert_eq!(after.seq, before.seq);
    assert_eq!(after.view, before.view);
    ann.play("bg-b8", "8/5 6/5").await.expect("both dice");
    ludus.shutdown().await;
}

#[tokio::test]
async fn no_view_snapshot_or_event_shows_dice_before_they_are_rolled() {
    let ludus = Ludus::start().await;
    let [mut ann, mut bob, mut carol] = ludus.players(["ann", "bob", "carol"]).await;
    // The opening 3-1, then black's roll 6-6, already chosen (in this test process only).
    let id = "bg-dice";
    create(&ludus, id, money(), [&ann, &bob], dice(&[[3, 1], [6, 6]])).await;
    let mut stream = carol.subscribe(id, 0).await;
    ann.play(id, "8/5 6/5").await.expect("white");

    for viewer in [&mut ann, &mut bob, &mut carol] {
        let snapshot = viewer.game(id).await;
        let view = bg(snapshot.view.as_ref());
        assert_eq!(view.phase, pb::BackgammonPhase::Roll as i32);
        assert!(view.dice.is_empty(), "B3: no dice before the roll");
        assert!(view.legal_plays.is_empty());
    }
    let actions: Vec<String> = bob
        .game(id)
        .await
        .legal_actions
        .iter()
        .map(|a| a.notation.clone())
        .collect();
    assert!(actions.contains(&"roll".to_owned()), "{actions:?}");
    assert!(!actions.iter().any(|a| a.contains('/')), "{actions:?}");
    assert!(
        ann.game(id).await.legal_actions.is_empty(),
        "not white's turn"
    );

    let rolled = bob.play(id, "roll").await.expect("roll");
    assert_eq!(bg(rolled.view.as_ref()).dice, [6, 6]);
    bob.play(id, "resign single").await.expect("offer");
    ann.play(id, "accept").await.expect("accept");

    let mut events = vec![next_event(&mut stream).await];
    events.extend(events_until_finished(&mut stream).await);
    for event in &events {
        let view = bg(event.view.as_ref());
        if view.phase == pb::BackgammonPhase::Roll as i32 {
            assert!(view.dice.is_empty(), "event {} shows dice", event.seq);
        }
        assert!(
            view.legal_plays.is_empty(),
            "events carry the spectator view"
        );
    }
    let shown: Vec<Vec<u32>> = events
        .iter()
        .map(|e| bg(e.view.as_ref()).dice.clone())
        .collect();
    let first_66 = shown.iter().position(|d| d == &[6, 6]).expect("6-6 shown");
    assert_eq!(
        events[first_66].kind.as_ref().map(|k| matches!(
            k,
            pb::game_event::Kind::ActionApplied(a) if a.notation == "roll"
        )),
        Some(true),
        "6-6 first appears in the roll's own event"
    );
    ludus.shutdown().await;
}

/// The B20 test's turn clock.
const CLOCK_MS: u64 = 3_000;

#[tokio::test]
async fn b20_the_server_plays_for_a_timed_out_player_takes_the_double_and_the_third_timeout_forfeits()
 {
    let ludus = Ludus::start_on_manual_clock().await;
    let [ann, bob, mut carol] = ludus.players(["ann", "bob", "carol"]).await;
    // A short clock (on a manual clock the length costs nothing; B20's 30-120 s choices bind
    // quick match, game-state's internal API takes any clock). Opening roll 6-5, then 3-1 for the player who doubles.
    let settings = pb::GameSettings {
        turn_time_ms: CLOCK_MS,
        ..money()
    };
    let snapshot = create(
        &ludus,
        "bg-clock",
        settings,
        [&ann, &bob],
        dice(&[[6, 5], [3, 1]]),
    )
    .await;
    let on_roll = bg(snapshot.view.as_ref()).turn;
    let mut players = [ann, bob];
    let mut stream = carol.subscribe("bg-clock", 0).await;

    // 1. The opening player lets the clock run out: the server plays the opening 6-5 for them
    //    with the normal bot, and says so.
    ludus.advance(Duration::from_millis(CLOCK_MS)).await;
    let (timeout, event) = next_timeout(&mut stream).await;
    assert_eq!(timeout.seat, on_roll);
    assert!(
        timeout.effect.starts_with("B20") && timeout.effect.contains("played 6-5"),
        "{}",
        timeout.effect
    );
    let view = bg(event.view.as_ref());
    let last = view.last_play.as_ref().expect("the automatic play");
    assert!(last.automatic, "B20: marked as played by the server");
    assert_eq!((last.seat, last.dice.as_slice()), (on_roll, &[6, 5][..]));
    assert_eq!(view.timeouts[on_roll as usize], 1);
    assert_eq!(view.to_move, Some(1 - on_roll));

    // 2. The other player doubles; the decision times out, which takes the double.
    let other = 1 - on_roll;
    players[other as usize]
        .play("bg-clock", "double")
        .await
        .expect("B14: double");
    ludus.advance(Duration::from_millis(CLOCK_MS)).await;
    let (timeout, event) = next_timeout(&mut stream).await;
    assert_eq!(timeout.seat, on_roll);
    assert!(
        timeout.effect.starts_with("B20") && timeout.effect.contains("takes the double"),
        "{}",
        timeout.effect
    );
    let view = bg(event.view.as_ref());
    assert_eq!(
        (view.cube_value, view.cube_owner),
        (2, Some(on_roll)),
        "B20: a pending double times out as a take"
    );
    assert_eq!(view.timeouts[on_roll as usize], 2);

    // 3. The doubler rolls and plays in time (their own timeouts stay at zero).
    let rolled = players[other as usize]
        .play("bg-clock", "roll")
        .await
        .expect("roll");
    assert_eq!(bg(rolled.view.as_ref()).dice, [3, 1]);
    let reply = first_legal_play(&mut players[other as usize], "bg-clock").await;
    players[other as usize]
        .play("bg-clock", &reply)
        .await
        .expect("play");

    // 4. The third timeout in a row forfeits a single game at the current cube: 2 points.
    ludus.advance(Duration::from_millis(CLOCK_MS)).await;
    let (timeout, event) = next_timeout(&mut stream).await;
    assert_eq!(timeout.seat, on_roll);
    assert_eq!(event.status, pb::GameStatus::Finished as i32);
    let outcome = event.outcome.expect("outcome");
    assert_eq!(outcome.rule, "B20");
    assert_eq!(outcome.winners, [other]);
    let mut points = vec![0, 0];
    points[other as usize] = 2;
    assert_eq!(outcome.points, points, "a single game at cube 2");
    let winner = players[other as usize].rating_after(MONEY, 1).await;
    assert!(winner.rating > 1200.0, "{}", winner.rating);
    ludus.shutdown().await;
}

#[tokio::test]
async fn b22_quick_match_plays_a_match_to_the_chosen_length() {
    let ludus = Ludus::start().await;
    let three = settings(pb::BackgammonOptions {
        match_game: Some(pb::BackgammonMatchGame {
            length: 3,
            ..Default::default()
        }),
        ..Default::default()
    });
    let (game, mut white, _) = quick_match_pair(&ludus, ["ann", "bob"], three).await;
    let snapshot = white.game(&game).await;
    assert_eq!(snapshot.ruleset, MATCH);
    assert_eq!(
        snapshot.settings.as_ref().map(|s| s.turn_time_ms),
        Some(60_000),
        "B20: 60 s per turn by default"
    );
    let view = bg(snapshot.view.as_ref());
    assert_eq!((view.match_length, view.score.as_slice()), (3, &[0, 0][..]));
    assert!(!view.crawford);
    ludus.shutdown().await;
}
