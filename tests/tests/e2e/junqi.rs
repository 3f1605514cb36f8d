//! Flip Junqi end to end: players and spectators through the gateway, every service real, state
//! in a real redis-server. Rule ids refer to shared/rules/junqi.md.
//!
//! Positions are known to the tests through game-state's TEST-ONLY seam
//! (`ludus_game_state::test_seams::preset`, compiled only with the `test-seams` feature that
//! this crate's dev-dependency alone enables): a test presets the position of a game id, then
//! creates that game through game-state's internal `CreateGame`, exactly as matchmaking does.
//! Everything after creation goes through the public gateway.

use std::time::Duration;

use ludus_junqi::{Action, Colour, Junqi, JunqiOptions, JunqiSetup, Point};
use ludus_proto::pb;
use ludus_rules::{Game, SplitMix64, Viewer};
use ludus_tests::{
    Ludus, Player, events_until_finished, next_event, patience, quick_match_pair, refused,
    refused_by_rule, refused_with,
};
use prost::Message;
use tonic::Code;

const RULESET: &str = "junqi/flip";

fn settings(turn_time_ms: u64) -> pb::GameSettings {
    pb::GameSettings {
        options: Some(pb::game_settings::Options::Junqi(pb::JunqiOptions {})),
        turn_time_ms,
    }
}

/// A random deal (J6) from a seeded generator, so the test knows the layout.
fn dealt(seed: u64) -> Junqi {
    Junqi::setup(JunqiOptions::default(), 2, &mut SplitMix64(seed)).expect("a deal")
}

/// A hand-built position: seat 0 plays red and moves first.
fn diagram(text: &str) -> Junqi {
    let setup = JunqiSetup::from_diagram(text)
        .expect("a diagram")
        .settled(Colour::Red);
    Junqi::from_setup(&setup).expect("a valid position")
}

fn point(text: &str) -> Point {
    text.parse().expect("a point")
}

/// Presets `game` for `game_id` (test seam) and creates it with `seats` in seat order.
async fn create(
    ludus: &Ludus,
    game_id: &str,
    game: Junqi,
    seats: [&Player; 2],
    turn_time_ms: u64,
) -> pb::GameSnapshot {
    ludus_game_state::test_seams::preset(game_id, game);
    ludus
        .create_game(game_id, settings(turn_time_ms), &seats)
        .await
}

fn junqi_view(view: Option<&pb::GameView>) -> &pb::JunqiView {
    match view.and_then(|v| v.view.as_ref()) {
        Some(pb::game_view::View::Junqi(view)) => view,
        other => panic!("a junqi view, got {other:?}"),
    }
}

fn point_state(view: &pb::JunqiView, at: &str) -> (i32, Option<pb::JunqiPiece>) {
    let p = &view.points[point(at).index()];
    (p.state, p.piece)
}

fn face_up(colour: pb::JunqiColour, rank: pb::JunqiRank) -> (i32, Option<pb::JunqiPiece>) {
    (
        pb::JunqiPointState::FaceUp as i32,
        Some(pb::JunqiPiece {
            colour: colour as i32,
            rank: rank as i32,
        }),
    )
}

fn empty() -> (i32, Option<pb::JunqiPiece>) {
    (pb::JunqiPointState::Empty as i32, None)
}

fn removed(view: &pb::JunqiView, colour: usize, rank: pb::JunqiRank) -> u32 {
    view.statistics[colour]
        .removed
        .iter()
        .find(|c| c.rank == rank as i32)
        .map_or(0, |c| c.count)
}

#[tokio::test]
async fn quick_match_deals_face_down_with_the_j19_clock_and_leaving_loses() {
    let ludus = Ludus::start().await;
    let (game, mut seat0, seat1) = quick_match_pair(&ludus, ["ann", "bob"], settings(0)).await;

    let snapshot = seat0.game(&game).await;
    assert_eq!(snapshot.ruleset, RULESET);
    assert_eq!(
        snapshot.settings.as_ref().map(|s| s.turn_time_ms),
        Some(30_000),
        "J19: 30 s per action in quick matches"
    );
    let turn = snapshot.turn.expect("turn");
    assert!(turn.deadline_unix_ms > 0);
    let view = junqi_view(snapshot.view.as_ref());
    let face_down = view
        .points
        .iter()
        .filter(|p| p.state == pb::JunqiPointState::FaceDown as i32)
        .count();
    assert_eq!(face_down, 50, "J6: every piece starts face down");
    assert!(view.points.iter().all(|p| p.piece.is_none()), "J22");

    let (mut mover, mut other) = if turn.to_move == Some(0) {
        (seat0, seat1)
    } else {
        (seat1, seat0)
    };
    let mine = mover.game(&game).await;
    assert_eq!(mine.legal_actions.len(), 50, "J8: only flips at first");
    assert!(other.game(&game).await.legal_actions.is_empty());
    let flip = mine.legal_actions[0].notation.clone();
    let event = mover.play(&game, &flip).await.expect("a flip");
    let (state, piece) = point_state(junqi_view(event.view.as_ref()), &flip);
    assert_eq!(state, pb::JunqiPointState::FaceUp as i32);
    assert!(piece.is_some());

    // J18: leaving the game (resigning) loses it at once, even on the opponent's turn.
    let resigned = mover.resign(&game).await.expect("resign");
    let outcome = resigned.outcome.expect("outcome");
    assert_eq!(outcome.rule, "J18");
    let other_seat = other.game(&game).await.your_seat.expect("seated");
    assert_eq!(outcome.winners, [other_seat]);
    ludus.shutdown().await;
}

#[tokio::test]
async fn j8_two_flips_of_the_same_colour_settle_colours() {
    let ludus = Ludus::start().await;
    let [mut ann, mut bob] = ludus.players(["ann", "bob"]).await;
    let game = dealt(11);
    let first = game.to_move().expect("to move");
    let reds: Vec<Point> = Point::all()
        .filter(|p| game.cell(*p).is_some_and(|c| c.piece.colour == Colour::Red))
        .collect();
    let blue = Point::all()
        .find(|p| {
            game.cell(*p)
                .is_some_and(|c| c.piece.colour == Colour::Blue)
        })
        .expect("a blue piece");
    create(&ludus, "settle", game, [&ann, &bob], 0).await;
    let (mover, other) = if first == 0 {
        (&mut ann, &mut bob)
    } else {
        (&mut bob, &mut ann)
    };

    let event = mover
        .play("settle", &reds[0].to_string())
        .await
        .expect("flip");
    let view = junqi_view(event.view.as_ref());
    assert_eq!(
        view.seat_colours,
        [pb::JunqiColour::Unspecified as i32; 2],
        "one flip settles nothing"
    );
    // J8: before colours are settled the only action is flipping, even of a face-up piece.
    let to = reds[0]
        .road_neighbours()
        .find(|q| !q.is_camp())
        .expect("a neighbour");
    refused_by_rule(
        other.play("settle", &format!("{}-{to}", reds[0])).await,
        "J8:",
    );

    other.play("settle", &blue.to_string()).await.expect("flip");
    let event = mover
        .play("settle", &reds[1].to_string())
        .await
        .expect("flip");
    let view = junqi_view(event.view.as_ref());
    let mut expected = [pb::JunqiColour::Blue as i32; 2];
    expected[first] = pb::JunqiColour::Red as i32;
    assert_eq!(
        view.seat_colours, expected,
        "J8: two reds in a row take red"
    );

    let mine = mover.game("settle").await;
    let view = junqi_view(mine.view.as_ref());
    assert_eq!(view.viewer_colour, pb::JunqiColour::Red as i32);
    assert_eq!(view.opponent_colour, pb::JunqiColour::Blue as i32);
    let theirs = other.game("settle").await;
    assert_eq!(
        junqi_view(theirs.view.as_ref()).viewer_colour,
        pb::JunqiColour::Blue as i32
    );
    ludus.shutdown().await;
}

#[tokio::test]
async fn j9_a_railway_slide_goes_straight_and_only_an_engineer_turns() {
    let ludus = Ludus::start().await;
    let [mut red, mut blue] = ludus.players(["red", "blue"]).await;
    let game = diagram(
        "..  Bf  ..  ..  ..
         ..  ..  ..  ..  Bd
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         Rd  ..  ..  ..  Re
         ..  Rf  ..  ..  ..",
    );
    let snapshot = create(&ludus, "slide", game, [&red, &blue], 0).await;
    assert_eq!(snapshot.turn.and_then(|t| t.to_move), Some(0));
    let mine = red.game("slide").await;
    let offered: Vec<&str> = mine
        .legal_actions
        .iter()
        .map(|a| a.notation.as_str())
        .collect();
    assert!(offered.contains(&"a2-a11"), "{offered:?}");
    assert!(!offered.contains(&"a2-e11"), "a division cannot turn (J9)");

    refused_by_rule(red.play("slide", "a2-e11").await, "J9:");

    let event = red
        .play("slide", "a2-a11")
        .await
        .expect("a nine-point slide");
    let view = junqi_view(event.view.as_ref());
    assert_eq!(point_state(view, "a2"), empty());
    assert_eq!(
        point_state(view, "a11"),
        face_up(pb::JunqiColour::Red, pb::JunqiRank::Division)
    );
    assert_eq!(view.quiet_actions, 1, "J17 counts plain moves");

    blue.play("slide", "e11-d11").await.expect("blue moves");
    // J9: the Engineer follows the railway round the a2 corner and up to a10.
    let event = red
        .play("slide", "e2-a10")
        .await
        .expect("an engineer turns");
    let view = junqi_view(event.view.as_ref());
    assert_eq!(
        point_state(view, "a10"),
        face_up(pb::JunqiColour::Red, pb::JunqiRank::Engineer)
    );
    ludus.shutdown().await;
}

#[tokio::test]
async fn j14_only_an_engineer_clears_a_mine() {
    let ludus = Ludus::start().await;
    let [mut red, blue] = ludus.players(["red", "blue"]).await;
    let game = diagram(
        "..  Bf  ..  ..  ..
         ..  ..  ..  ..  Bd
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  Rr  Bm  ..  ..
         ..  ..  Re  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  Rf  ..  ..  ..",
    );
    create(&ludus, "mine", game, [&red, &blue], 0).await;
    let before = red.game("mine").await;
    let mines_before = removed(junqi_view(before.view.as_ref()), 1, pb::JunqiRank::Mine);

    let status = refused(red.play("mine", "b7-c7").await);
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(
        status.message(),
        "J14: only an engineer or a bomb may attack a mine, not a regiment commander"
    );
    assert_eq!(
        red.game("mine").await.seq,
        before.seq,
        "a refusal changes nothing"
    );

    let event = red
        .play("mine", "c6-c7")
        .await
        .expect("the engineer attacks");
    let view = junqi_view(event.view.as_ref());
    let last = view.last_action.clone().expect("last action");
    assert_eq!(last.combat, pb::JunqiCombatResult::AttackerWins as i32);
    assert_eq!(
        last.defender.map(|d| d.rank),
        Some(pb::JunqiRank::Mine as i32)
    );
    assert_eq!(
        point_state(view, "c7"),
        face_up(pb::JunqiColour::Red, pb::JunqiRank::Engineer)
    );
    assert_eq!(point_state(view, "c6"), empty());
    assert_eq!(
        removed(view, 1, pb::JunqiRank::Mine),
        mines_before + 1,
        "J21"
    );
    assert_eq!(view.quiet_actions, 0, "combat resets J17");
    ludus.shutdown().await;
}

#[tokio::test]
async fn j13_a_bomb_and_the_commander_it_meets_are_both_removed() {
    let ludus = Ludus::start().await;
    let [mut red, blue] = ludus.players(["red", "blue"]).await;
    let game = diagram(
        "..  Bf  ..  ..  ..
         ..  ..  ..  ..  Bd
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  Bc  ..  ..
         ..  ..  Rb  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         Rd  ..  ..  ..  ..
         ..  Rf  ..  ..  ..",
    );
    create(&ludus, "bomb", game, [&red, &blue], 0).await;
    let before = red.game("bomb").await;
    let before = junqi_view(before.view.as_ref()).clone();

    let event = red.play("bomb", "c6-c7").await.expect("the bomb attacks");
    let view = junqi_view(event.view.as_ref());
    assert_eq!(point_state(view, "c6"), empty());
    assert_eq!(point_state(view, "c7"), empty());
    let last = view.last_action.clone().expect("last action");
    assert_eq!(last.combat, pb::JunqiCombatResult::BothRemoved as i32);
    assert_eq!(
        removed(view, 0, pb::JunqiRank::Bomb),
        removed(&before, 0, pb::JunqiRank::Bomb) + 1
    );
    assert_eq!(
        removed(view, 1, pb::JunqiRank::Commander),
        removed(&before, 1, pb::JunqiRank::Commander) + 1
    );
    assert_eq!(event.status, pb::GameStatus::Active as i32);
    ludus.shutdown().await;
}

#[tokio::test]
async fn j11_attacking_a_camp_is_refused_naming_the_rule() {
    let ludus = Ludus::start().await;
    let [mut red, blue] = ludus.players(["red", "blue"]).await;
    let game = diagram(
        "..  Bf  ..  ..  ..
         ..  ..  ..  ..  Bd
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  By  ..  ..  ..
         ..  Rc  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  Rf  ..  ..  ..",
    );
    create(&ludus, "camp", game, [&red, &blue], 0).await;
    let before = red.game("camp").await;
    assert!(
        !before.legal_actions.iter().any(|a| a.notation == "b7-b8"),
        "the camp is not offered"
    );
    let status = refused(red.play("camp", "b7-b8").await);
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(
        status.message(),
        "J11: b8 is a camp; its occupant cannot be attacked"
    );
    let after = red.game("camp").await;
    assert_eq!(after.seq, before.seq);
    assert_eq!(after.view, before.view, "nothing changed");
    ludus.shutdown().await;
}

#[tokio::test]
async fn j15_capturing_the_open_flag_wins() {
    let ludus = Ludus::start().await;
    let [mut red, mut blue] = ludus.players(["red", "blue"]).await;
    // Blue's three Mines are gone (not on the board) and nothing is face down: the flag is open.
    let game = diagram(
        "..  Bf  ..  ..  ..
         ..  Rd  ..  ..  Bd
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  Rf  ..  ..  ..",
    );
    create(&ludus, "flag", game, [&red, &blue], 0).await;
    let mut stream = blue.subscribe("flag", 0).await;
    let event = red
        .play("flag", "b11-b12")
        .await
        .expect("the flag is taken");
    assert_eq!(event.status, pb::GameStatus::Finished as i32);
    let outcome = event.outcome.clone().expect("outcome");
    assert_eq!(outcome.kind, pb::ResultKind::Win as i32);
    assert_eq!(outcome.winners, [0]);
    assert_eq!(outcome.rule, "J15");
    assert_eq!(outcome.reason, "red captured the blue flag on b12");
    let view = junqi_view(event.view.as_ref());
    let junqi_outcome = view.outcome.clone().expect("junqi outcome");
    assert_eq!(junqi_outcome.result, pb::JunqiResult::Win as i32);
    assert_eq!(junqi_outcome.winner, 0);
    assert!(view.to_move.is_none());

    let events = events_until_finished(&mut stream).await;
    assert_eq!(events.last().map(|e| e.seq), Some(event.seq));
    let status = refused(blue.play("flag", "e11-e10").await);
    assert_eq!(status.code(), Code::FailedPrecondition);
    ludus.shutdown().await;
}

#[tokio::test]
async fn j17_sixty_actions_without_a_flip_or_combat_draw() {
    let ludus = Ludus::start().await;
    let [mut red, mut blue] = ludus.players(["red", "blue"]).await;
    let game = diagram(
        "..  Bf  ..  ..  ..
         ..  ..  ..  ..  Bd
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         ..  ..  ..  ..  ..
         Rd  ..  ..  ..  ..
         ..  Rf  ..  ..  ..",
    );
    create(&ludus, "quiet", game, [&red, &blue], 0).await;
    let mut last = None;
    for round in 0..30 {
        let (r, b) = if round % 2 == 0 {
            ("a2-a3", "e11-e10")
        } else {
            ("a3-a2", "e10-e11")
        };
        let event = red.play("quiet", r).await.expect("red moves");
        assert_eq!(event.status, pb::GameStatus::Active as i32);
        let event = blue.play("quiet", b).await.expect("blue moves");
        let view = junqi_view(event.view.as_ref());
        assert_eq!(view.quiet_actions, 2 * round + 2);
        last = Some(event);
    }
    let last = last.expect("sixty actions");
    assert_eq!(last.status, pb::GameStatus::Finished as i32);
    let outcome = last.outcome.expect("outcome");
    assert_eq!(outcome.kind, pb::ResultKind::Draw as i32);
    assert_eq!(outcome.rule, "J17");
    assert_eq!(
        outcome.reason,
        "60 actions in a row without a flip or combat"
    );
    ludus.shutdown().await;
}

/// The J19 test's turn clock (a manual clock: it runs out when the test moves time).
const CLOCK_MS: u64 = 2_000;

#[tokio::test]
async fn j19_a_timeout_plays_for_the_player_and_autoplay_goes_on_until_they_act() {
    let ludus = Ludus::start_on_manual_clock().await;
    let [mut ann, mut bob] = ludus.players(["ann", "bob"]).await;
    let game = dealt(5);
    let sleeper = game.to_move().expect("to move");
    create(&ludus, "autoplay", game, [&ann, &bob], CLOCK_MS).await;
    let mut stream = ann.subscribe("autoplay", 1).await;
    let (sleepy, awake) = if sleeper == 0 {
        (&mut ann, &mut bob)
    } else {
        (&mut bob, &mut ann)
    };
    let sleeper = sleeper as u32;

    // The sleeper's clock runs out: the server plays one action and turns autoplay on.
    ludus.advance(Duration::from_millis(CLOCK_MS)).await;
    let event = next_event(&mut stream).await;
    let Some(pb::game_event::Kind::TurnTimedOut(timeout)) = &event.kind else {
        panic!("a timeout, got {:?}", event.kind);
    };
    assert_eq!(timeout.seat, sleeper);
    let view = junqi_view(event.view.as_ref());
    assert!(view.autoplay[sleeper as usize], "J19: autoplay is on");
    let last = view.last_action.clone().expect("the server played");
    assert!(last.automatic);
    assert_eq!(last.seat, sleeper);

    // From now on the sleeper's turns are played at once, as automatic actions (not
    // timeouts of its clock).
    for _ in 0..2 {
        let options = awake.game("autoplay").await.legal_actions;
        awake
            .play("autoplay", &options[0].notation)
            .await
            .expect("the awake player acts");
        let mine = next_event(&mut stream).await;
        assert!(matches!(
            mine.kind,
            Some(pb::game_event::Kind::ActionApplied(_))
        ));
        ludus
            .advance(Duration::from_millis(
                ludus_game_state::service::AUTOPLAY_DELAY_MS,
            ))
            .await;
        let auto = next_event(&mut stream).await;
        let Some(pb::game_event::Kind::ActionApplied(applied)) = &auto.kind else {
            panic!("an automatic action, got {:?}", auto.kind);
        };
        assert_eq!(applied.seat, sleeper);
        assert!(applied.automatic, "J19");
        assert!(junqi_view(auto.view.as_ref()).autoplay[sleeper as usize]);
    }

    // The sleeper acts again before the server does: autoplay is off.
    let acted = tokio::time::timeout(patience(), async {
        loop {
            let options = awake.game("autoplay").await.legal_actions;
            awake
                .play("autoplay", &options[0].notation)
                .await
                .expect("the awake player acts");
            let snapshot = sleepy.game("autoplay").await;
            let Some(option) = snapshot.legal_actions.first() else {
                continue; // the server already played for the sleeper
            };
            let action_id = sleepy.next_action_id();
            match sleepy
                .submit("autoplay", snapshot.seq, &action_id, &option.notation)
                .await
            {
                Ok(response) => return response.event.expect("event"),
                Err(status) if status.code() == Code::Aborted => continue,
                Err(status) => panic!("{status:?}"),
            }
        }
    })
    .await
    .expect("the sleeper got a turn in");
    let Some(pb::game_event::Kind::ActionApplied(applied)) = &acted.kind else {
        panic!("an action, got {:?}", acted.kind);
    };
    assert!(!applied.automatic);
    assert!(
        !junqi_view(acted.view.as_ref()).autoplay[sleeper as usize],
        "J19: acting switches autoplay off"
    );
    ludus.shutdown().await;
}

/// What a policy plays next in the hidden-information test: flips first, some attacks, then
/// quiet moves (so J17 ends the game with pieces still face down). Deterministic.
fn next_action(game: &Junqi) -> Option<Action> {
    let seat = game.to_move()?;
    let legal = game.legal_actions(seat);
    let ply = game.ply() as usize;
    let flips: Vec<Action> = legal
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Flip(_)))
        .collect();
    let quiet: Vec<Action> = legal
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Move { to, .. } if game.cell(*to).is_none()))
        .collect();
    let attacks: Vec<Action> = legal
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Move { to, .. } if game.cell(*to).is_some()))
        .collect();
    let settled = game.colour_of(0).is_some();
    let pick = |v: &[Action], k: usize| (!v.is_empty()).then(|| v[(ply * k) % v.len()]);
    if !settled || ply < 24 {
        return pick(&flips, 7).or_else(|| pick(&legal, 3));
    }
    if ply < 44
        && ply.is_multiple_of(2)
        && let Some(a) = pick(&attacks, 5)
    {
        return Some(a);
    }
    pick(&quiet, 5)
        .or_else(|| pick(&attacks, 3))
        .or_else(|| pick(&legal, 1))
}

/// Plays the policy from `start` on the rules alone: the actions, and the game at the end.
fn script(start: &Junqi, limit: usize) -> (Vec<Action>, Junqi) {
    let mut game = start.clone();
    let mut actions = Vec::new();
    while actions.len() < limit {
        let Some(action) = next_action(&game) else {
            break;
        };
        let seat = game.to_move().expect("to move");
        game = game
            .apply(seat, &action, &mut SplitMix64(0))
            .unwrap_or_else(|(_, e)| panic!("{action}: {e}"));
        actions.push(action);
    }
    (actions, game)
}

/// `start` with the pieces on `hidden` (all face down in it) rotated one place.
fn rotated(start: &Junqi, hidden: &[Point]) -> Junqi {
    let mut setup = JunqiSetup::new().to_move(start.to_move().expect("to move"));
    for p in Point::all() {
        if let Some(cell) = start.cell(p) {
            let piece = match hidden.iter().position(|h| *h == p) {
                Some(i) => {
                    let from = hidden[(i + 1) % hidden.len()];
                    start.cell(from).expect("a hidden piece").piece
                }
                None => cell.piece,
            };
            setup = setup.with(p, piece.colour, piece.rank, cell.face_up);
        }
    }
    Junqi::from_setup(&setup).expect("the same pieces, elsewhere")
}

/// Clears what differs between two games for reasons other than their pieces (their ids and
/// when things happened), then encodes.
fn snapshot_bytes(mut snapshot: pb::GameSnapshot) -> Vec<u8> {
    snapshot.game_id.clear();
    if let Some(turn) = snapshot.turn.as_mut() {
        turn.deadline_unix_ms = 0;
    }
    snapshot.encode_to_vec()
}

fn event_bytes(mut event: pb::GameEvent) -> Vec<u8> {
    event.game_id.clear();
    event.at_unix_ms = 0;
    if let Some(turn) = event.turn.as_mut() {
        turn.deadline_unix_ms = 0;
    }
    event.encode_to_vec()
}

fn error_bytes(game_id: &str, status: &tonic::Status) -> Vec<u8> {
    format!(
        "{:?} {}",
        status.code(),
        status.message().replace(game_id, "GAME")
    )
    .into_bytes()
}

/// Plays `actions` in a game created from `start` through the gateway; returns every message
/// the two players and a spectator received, in order, labelled.
async fn play_and_record(
    ludus: &Ludus,
    game_id: &str,
    start: &Junqi,
    actions: &[Action],
    players: &mut [Player; 3],
) -> Vec<(String, Vec<u8>)> {
    let mut record = Vec::new();
    let [ann, bob, carl] = players;
    create(ludus, game_id, start.clone(), [&*ann, &*bob], 0).await;
    let mut streams = [
        ann.subscribe(game_id, 0).await,
        bob.subscribe(game_id, 0).await,
        carl.subscribe(game_id, 0).await,
    ];
    let mut mirror = start.clone();
    for (i, action) in actions.iter().enumerate() {
        for (who, player) in [("ann", &mut *ann), ("bob", &mut *bob), ("carl", &mut *carl)] {
            record.push((
                format!("{i} snapshot {who}"),
                snapshot_bytes(player.game(game_id).await),
            ));
        }
        let seat = mirror.to_move().expect("to move");
        let (mover, waiter) = if seat == 0 {
            (&mut *ann, &mut *bob)
        } else {
            (&mut *bob, &mut *ann)
        };
        let seq = mover.game(game_id).await.seq;
        // Probes that touch face-down pieces, by every kind of caller.
        let hidden: Vec<Point> = Point::all()
            .filter(|p| mirror.cell(*p).is_some_and(|c| !c.face_up))
            .collect();
        let mut probes: Vec<(&str, String)> = Vec::new();
        if let Some(p) = hidden.first() {
            let q = p.road_neighbours().next().expect("a neighbour");
            probes.push(("mover moves face down", format!("{p}-{q}")));
            probes.push(("waiter flips", p.to_string()));
            probes.push(("spectator flips", p.to_string()));
        }
        let own = mirror.colour_of(seat);
        let attack = Point::all().find_map(|from| {
            let cell = mirror.cell(from)?;
            if !cell.face_up || Some(cell.piece.colour) != own || !cell.piece.rank.is_movable() {
                return None;
            }
            from.road_neighbours()
                .find(|to| mirror.cell(*to).is_some_and(|c| !c.face_up))
                .map(|to| format!("{from}-{to}"))
        });
        if let Some(text) = attack {
            probes.push(("mover attacks face down", text));
        }
        for (label, text) in probes {
            let caller: &mut Player = match label {
                "waiter flips" => &mut *waiter,
                "spectator flips" => &mut *carl,
                _ => &mut *mover,
            };
            let action_id = caller.next_action_id();
            let status = caller
                .submit(game_id, seq, &action_id, &text)
                .await
                .expect_err("a probe is refused");
            if label == "mover moves face down" && mirror.colour_of(0).is_some() {
                assert_eq!(
                    status.message(),
                    format!(
                        "J7: the piece on {} is face down; flip it instead",
                        hidden[0]
                    ),
                    "the refusal names the point and nothing else"
                );
            }
            if label == "mover attacks face down" {
                assert!(
                    status.message().starts_with("J11: the piece on ")
                        && status
                            .message()
                            .ends_with(" is face down and cannot be attacked"),
                    "{}",
                    status.message()
                );
            }
            record.push((format!("{i} {label}"), error_bytes(game_id, &status)));
        }
        let action_id = mover.next_action_id();
        let response = mover
            .submit(game_id, seq, &action_id, &action.to_string())
            .await
            .expect("the scripted action");
        record.push((
            format!("{i} response"),
            event_bytes(response.event.expect("event")),
        ));
        mirror = mirror
            .apply(seat, action, &mut SplitMix64(0))
            .unwrap_or_else(|(_, e)| panic!("{e}"));
    }
    // Whole games: the script ends the game by J17, or the player to move leaves (J18).
    if mirror.outcome().is_none() {
        let leaver = if mirror.to_move() == Some(0) {
            &mut *ann
        } else {
            &mut *bob
        };
        leaver.resign(game_id).await.expect("leave");
    }
    for (who, player) in [("ann", &mut *ann), ("bob", &mut *bob), ("carl", &mut *carl)] {
        record.push((
            format!("end snapshot {who}"),
            snapshot_bytes(player.game(game_id).await),
        ));
    }
    for (who, stream) in ["ann", "bob", "carl"].iter().zip(streams.iter_mut()) {
        for event in events_until_finished(stream).await {
            record.push((format!("event {} to {who}", event.seq), event_bytes(event)));
        }
    }
    record
}

/// J22, proved as a property of everything the server sends: two games whose hidden layouts
/// differ but whose public histories are the same must be indistinguishable to every client.
///
/// How the two games are made: game A is a random deal (J6) from a seeded generator, game B is
/// A with the pieces that stay face down through the whole game rotated among their points (so
/// B's hidden layout differs from A's on every one of those points that holds a different
/// piece). Both are started through game-state's TEST-ONLY seam, which exists only with the
/// `test-seams` feature of this crate's dev-dependency: production builds always deal with
/// their CSPRNG. A deterministic policy plays the same actions in both (flips, attacks, then
/// quiet moves until the J17 draw, or a resignation); every flip reveals the same piece in both
/// games, so their public histories are equal by construction.
///
/// What is compared: every snapshot each player and a spectator reads before each action
/// (views, statistics, legal action lists), the response to each action, every event each of
/// the three receives on its Subscribe stream, and the refusals of probes at face-down pieces
/// (moving one, attacking one, flipping one out of turn or as a spectator). Only the game id,
/// timestamps and deadlines are cleared: everything else must be byte-identical. If any
/// message carried anything about a face-down piece beyond J21's public counts, some message
/// would differ between A and B.
#[tokio::test]
async fn j22_no_message_to_anybody_reveals_a_face_down_piece() {
    let (start, actions, hidden) = (1..)
        .map(|seed| {
            let start = dealt(seed);
            let (actions, end) = script(&start, 200);
            let hidden: Vec<Point> = Point::all()
                .filter(|p| end.cell(*p).is_some_and(|c| !c.face_up))
                .collect();
            (start, actions, hidden)
        })
        .find(|(start, _, hidden)| {
            let distinct: std::collections::HashSet<_> =
                hidden.iter().filter_map(|p| start.cell(*p)).collect();
            distinct.len() >= 3
        })
        .expect("a deal that keeps different pieces hidden");
    let other = rotated(&start, &hidden);
    let differing = hidden
        .iter()
        .filter(|p| start.cell(**p) != other.cell(**p))
        .count();
    assert!(differing >= 2, "the hidden layouts differ");
    // The rules agree that the public history is the same (a sanity check of the setup).
    let (_, end_a) = script(&start, 200);
    let mut replay = other.clone();
    for action in &actions {
        let seat = replay.to_move().expect("to move");
        replay = replay
            .apply(seat, action, &mut SplitMix64(0))
            .unwrap_or_else(|(_, e)| panic!("{e}"));
    }
    assert_eq!(
        replay.view(Viewer::Spectator),
        end_a.view(Viewer::Spectator)
    );

    let ludus = Ludus::start().await;
    let mut players = [
        ludus.player("ann").await,
        ludus.player("bob").await,
        ludus.player("carl").await,
    ];
    let a = play_and_record(&ludus, "hidden-a", &start, &actions, &mut players).await;
    let b = play_and_record(&ludus, "hidden-b", &other, &actions, &mut players).await;
    assert!(a.len() > actions.len() * 4, "everything was recorded");
    assert_eq!(a.len(), b.len(), "the same number of messages");
    for ((label_a, bytes_a), (label_b, bytes_b)) in a.iter().zip(&b) {
        assert_eq!(label_a, label_b);
        assert!(
            bytes_a == bytes_b,
            "{label_a}: the message differs between two games with the same public history"
        );
    }
    ludus.shutdown().await;
}

#[tokio::test]
async fn malformed_junqi_actions_get_invalid_argument() {
    let ludus = Ludus::start().await;
    let [mut ann, bob] = ludus.players(["ann", "bob"]).await;
    let game = dealt(2);
    create(&ludus, "malformed", game, [&ann, &bob], 0).await;
    let seq = ann.game("malformed").await.seq;
    let status = ann
        .submit_structured(
            "malformed",
            seq,
            pb::action::Action::Junqi(pb::JunqiAction {
                kind: Some(pb::junqi_action::Kind::Move(pb::JunqiMove {
                    from: "z9".into(),
                    to: "a1".into(),
                })),
            }),
        )
        .await;
    refused_with(status, Code::InvalidArgument, "action.junqi.move.from: J2");
    // Notation is read before anything else: a point off the board names J2.
    refused_by_rule(ann.play("malformed", "c13").await, "J2:");
    ludus.shutdown().await;
}
