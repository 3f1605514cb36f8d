//! Games against the computer end to end (ARCHITECTURE.md, "Computer players"): `PlayComputer` through the gateway, the
//! bot timers game-state arms, the timers worker handing each computer turn to the bots
//! service, its submissions through game-state, take-backs (C17, M11), and a bots replica
//! stopped mid-think. Real redis-server, every service real.
//!
//! The system runs on a manual clock: `Ludus::advance(ZERO)` wakes the timers worker and
//! returns once every bot turn due has been played, so each test steps the computer's replies
//! deterministically instead of waiting for the worker's poll.

use std::time::Duration;

use ludus_catalog::{GameKind, LiveGame, bots};
use ludus_proto::pb::{self, game_state_client::GameStateClient};
use ludus_rules::{Budget, Level, RandomSource, SplitMix64, Think};
use ludus_tests::{Ludus, Player, SpareBots, connect_internal, patience, refused, refused_by_rule};
use tonic::Code;

fn settings(kind: GameKind) -> pb::GameSettings {
    bots::default_settings(kind)
}

async fn play_computer(
    player: &mut Player,
    settings: pb::GameSettings,
    level: &str,
) -> Result<pb::GameSnapshot, tonic::Status> {
    player
        .client
        .play_computer(pb::PlayComputerRequest {
            settings: Some(settings),
            level: level.to_owned(),
            computer_first: false,
        })
        .await
        .map(|r| r.into_inner().game.expect("snapshot"))
}

async fn take_back(player: &mut Player, game_id: &str) -> Result<pb::GameEvent, tonic::Status> {
    player
        .client
        .take_back(pb::TakeBackRequest {
            game_id: game_id.to_owned(),
        })
        .await
        .map(|r| r.into_inner().event.expect("event"))
}

/// The game's log after `after_seq`, read from game-state as any service reads it.
async fn log_after(ludus: &Ludus, game_id: &str, after_seq: u64) -> pb::ReadEventsResponse {
    let mut internal = GameStateClient::new(connect_internal(ludus.game_state).await);
    internal
        .read_events(pb::ReadEventsRequest {
            game_id: game_id.to_owned(),
            after_seq,
            limit: 0,
        })
        .await
        .expect("read events")
        .into_inner()
}

/// Lets the computer reply: returns once it is `human`'s turn again or the game is over, and
/// the snapshot then. `Ludus::advance` returns when no timer is due or in flight, but its two
/// counts are separate reads: a computer turn armed and claimed between them (one computer
/// replying after another) can slip through, so this looks at the game itself.
async fn computer_replies(ludus: &Ludus, human: &mut Player, game_id: &str) -> pb::GameSnapshot {
    // A level thinks for up to a second of its own budget; a busy machine stretches that.
    let deadline = tokio::time::Instant::now() + patience();
    while tokio::time::Instant::now() < deadline {
        ludus.advance(Duration::ZERO).await;
        let game = human.game(game_id).await;
        if my_turn(&game) || finished(&game) {
            return game;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the computer did not reply within {:?}", patience());
}

fn finished(game: &pb::GameSnapshot) -> bool {
    game.status == pb::GameStatus::Finished as i32
}

fn my_turn(game: &pb::GameSnapshot) -> bool {
    !finished(game) && game.turn.as_ref().and_then(|t| t.to_move) == game.your_seat
}

/// A human who plays a level of the game's own bot from a copy of the position it keeps by
/// replaying the log (the perfect-information games, whose setup draws nothing).
struct Thinker {
    kind: GameKind,
    level: Level,
    game: Box<dyn LiveGame>,
    seen: u64,
    rng: SplitMix64,
}

impl Thinker {
    fn new(kind: GameKind, level: Level, seed: u64) -> Thinker {
        let mut rng = SplitMix64(seed);
        let game = ludus_catalog::setup(&settings(kind), 2, &mut rng).expect("setup");
        Thinker {
            kind,
            level,
            game,
            seen: 1,
            rng,
        }
    }

    /// Replays the actions committed since the last call.
    async fn catch_up(&mut self, ludus: &Ludus, game_id: &str) {
        let events = log_after(ludus, game_id, self.seen).await;
        for event in events.events {
            self.seen = event.seq;
            if let Some(pb::game_event::Kind::ActionApplied(applied)) = event.kind {
                let seat = applied.seat as usize;
                let action = applied.action.expect("action");
                self.game
                    .apply(seat, &action, &mut self.rng)
                    .expect("the log replays");
            }
        }
    }

    fn choose(&mut self, seat: usize) -> String {
        let position = self.game.seat_position(seat).expect("position");
        let budget = Budget::work(bots::default_work(self.kind, self.level));
        let think = Think {
            level: self.level,
            budget: &budget,
            rng: &mut self.rng,
        };
        bots::choose(self.kind, &position, seat, think)
            .expect("choose")
            .expect("a move")
            .notation
    }
}

/// Plays one game as `human` with `thinker` against the computer until it ends; returns the
/// final snapshot.
async fn play_out(
    ludus: &Ludus,
    human: &mut Player,
    game_id: &str,
    thinker: &mut Thinker,
) -> pb::GameSnapshot {
    for _ in 0..400 {
        let game = computer_replies(ludus, human, game_id).await;
        if finished(&game) {
            return game;
        }
        assert!(my_turn(&game), "the computer replied: {:?}", game.turn);
        thinker.catch_up(ludus, game_id).await;
        let seat = game.your_seat.expect("seated") as usize;
        let notation = thinker.choose(seat);
        human.play(game_id, &notation).await.expect("a legal move");
    }
    panic!("the game did not end in 400 moves");
}

fn winner(game: &pb::GameSnapshot) -> Option<u32> {
    let outcome = game.outcome.as_ref()?;
    (outcome.kind == pb::ResultKind::Win as i32)
        .then(|| outcome.winners.first().copied())
        .flatten()
}

/// C17: Easy sometimes forgets to block, so a human playing Medium's moves beats it; the
/// harness cannot seed the service's CSPRNG, so the human gets a few games.
#[tokio::test]
async fn c17_a_human_beats_easy_at_caro() {
    let ludus = Ludus::start_on_manual_clock().await;
    let mut human = ludus.player("ana").await;
    let mut wins = 0;
    for round in 0..6 {
        let game = play_computer(&mut human, settings(GameKind::Caro), "easy")
            .await
            .expect("a game against Easy");
        assert_eq!(game.your_seat, Some(0), "the human is X and moves first");
        assert_eq!(game.seats[1].computer_level, "easy");
        assert_eq!(game.seats[1].display_name, "Computer (Easy)");
        assert_eq!(
            game.turn.as_ref().map(|t| t.deadline_unix_ms),
            Some(0),
            "C17: untimed"
        );
        let mut thinker = Thinker::new(GameKind::Caro, Level::Normal, round);
        let end = play_out(&ludus, &mut human, &game.game_id, &mut thinker).await;
        if winner(&end) == Some(0) {
            wins += 1;
            break;
        }
    }
    assert!(wins > 0, "the human beat Easy in one of six games");
    ludus.shutdown().await;
}

/// M11: the human takes back their last sow; the log gets a TakenBack event whose view is
/// the position before it, the computer's reply is undone with it, and the game goes on.
#[tokio::test]
async fn m11_a_take_back_in_mancala() {
    let ludus = Ludus::start_on_manual_clock().await;
    let mut human = ludus.player("ana").await;
    let game = play_computer(&mut human, settings(GameKind::Mancala), "normal")
        .await
        .expect("a game against Normal");
    let id = game.game_id.clone();
    let before = computer_replies(&ludus, &mut human, &id).await;
    assert!(
        my_turn(&before),
        "the computer sowed first, if it did, and it is ours"
    );
    // Out of turn: nothing of ours to take back yet.
    refused_by_rule(take_back(&mut human, &id).await, "M11");
    // Sow until the computer replies (a sow ending in the store gives another turn, M6):
    // `before` is the position before the human's last sow, which the take-back restores.
    let mut before = before;
    let replied = loop {
        let sow = before.legal_actions[0].notation.clone();
        let mine = human.play(&id, &sow).await.expect("sow");
        let now = computer_replies(&ludus, &mut human, &id).await;
        if now.seq > mine.seq || finished(&now) {
            break now;
        }
        before = now;
    };
    assert!(!finished(&replied), "a game this short goes on");
    assert!(my_turn(&replied), "the computer replied");
    let event = take_back(&mut human, &id).await.expect("M11: take back");
    let Some(pb::game_event::Kind::TakenBack(taken)) = &event.kind else {
        panic!("a TakenBack event, got {:?}", event.kind);
    };
    assert_eq!(taken.seat, before.your_seat.expect("seat"));
    assert!(taken.actions >= 1);
    assert!(event.seq > replied.seq, "a new event: the log only grows");
    let after = human.game(&id).await;
    assert_eq!(
        after.view, before.view,
        "the position before the sow is back"
    );
    assert!(my_turn(&after), "and it is the human's turn again");
    // Nothing was rewritten: the sow and the reply are still in the log.
    let log = log_after(&ludus, &id, 0).await;
    assert_eq!(log.last_seq, event.seq);
    let sows = log
        .events
        .iter()
        .filter(|e| matches!(e.kind, Some(pb::game_event::Kind::ActionApplied(_))))
        .count();
    assert!(sows >= 2, "the undone sows stay in the log");
    // A stale bot timer (for the taken-back turn) does nothing; the human plays on.
    ludus.advance(Duration::ZERO).await;
    assert_eq!(
        human.game(&id).await.seq,
        event.seq,
        "nobody moved for the human"
    );
    let sow = after.legal_actions[0].notation.clone();
    human.play(&id, &sow).await.expect("the game goes on");
    ludus.shutdown().await;
}

/// J20, J22: a Junqi game against Expert plays to its end (the human is a random legal mover);
/// the computer decides from its seat's view alone (catalog test
/// `j22_a_junqi_bot_sees_the_same_for_two_layouts_with_one_public_history`).
#[tokio::test]
async fn j20_a_junqi_game_against_expert_finishes() {
    let ludus = Ludus::start_on_manual_clock().await;
    let mut human = ludus.player("ana").await;
    let game = play_computer(&mut human, settings(GameKind::Junqi), "expert")
        .await
        .expect("a game against Expert");
    assert_eq!(game.seats[1].display_name, "Computer (Expert)");
    let id = game.game_id;
    let mut rng = SplitMix64(5);
    let mut moves = 0;
    loop {
        let game = computer_replies(&ludus, &mut human, &id).await;
        if finished(&game) {
            assert!(game.outcome.is_some());
            break;
        }
        assert!(my_turn(&game), "the computer replied");
        let i = rng.below(u32::try_from(game.legal_actions.len()).expect("few")) as usize;
        let action = game.legal_actions[i].notation.clone();
        human.play(&id, &action).await.expect("a legal action");
        moves += 1;
        assert!(moves < 2_000, "the game ends (J draw limit)");
    }
    ludus.shutdown().await;
}

/// Quoridor free-for-all: one human and three computers (Q22); the computers take their turns
/// in seat order until it is the human's again.
#[tokio::test]
async fn quoridor_free_for_all_seats_three_computers() {
    let ludus = Ludus::start_on_manual_clock().await;
    let mut human = ludus.player("ana").await;
    let mut four = settings(GameKind::Quoridor);
    if let Some(pb::game_settings::Options::Quoridor(options)) = &mut four.options {
        options.players = 4;
        options.mode = pb::QuoridorMode::FreeForAll as i32;
    }
    let game = play_computer(&mut human, four, "normal")
        .await
        .expect("a free-for-all against three computers");
    assert_eq!(game.seats.len(), 4);
    assert_eq!(game.your_seat, Some(0));
    for seat in &game.seats[1..] {
        assert_eq!(seat.computer_level, "normal");
        assert!(seat.player_id.starts_with("bot-"), "{}", seat.player_id);
    }
    let id = game.game_id;
    for _ in 0..3 {
        let game = computer_replies(&ludus, &mut human, &id).await;
        assert!(my_turn(&game), "the three computers moved: {:?}", game.turn);
        let before = game.seq;
        let step = game.legal_actions[0].notation.clone();
        human.play(&id, &step).await.expect("a step");
        let after = computer_replies(&ludus, &mut human, &id).await;
        if finished(&after) {
            break;
        }
        let since = log_after(&ludus, &id, before).await.events;
        let movers: Vec<u32> = since
            .iter()
            .filter_map(|e| match &e.kind {
                Some(pb::game_event::Kind::ActionApplied(a)) => Some(a.seat),
                _ => None,
            })
            .collect();
        assert_eq!(
            movers,
            [0, 1, 2, 3],
            "one action each for the three computers: {since:?}"
        );
    }
    ludus.shutdown().await;
}

/// A bots replica stopped mid-think: the timer it had claimed comes due again after the
/// visibility timeout, the other replica plays the turn, and the game finishes.
#[tokio::test]
async fn a_bots_replica_killed_mid_think_and_the_game_still_finishes() {
    let mut spare = SpareBots::holding_every_think();
    let ludus = Ludus::start_with_bots_replica(&spare).await;
    spare.start(&ludus);
    let mut human = ludus.player("ana").await;
    let game = play_computer(&mut human, settings(GameKind::Caro), "easy")
        .await
        .expect("a game");
    let id = game.game_id;
    human.play(&id, "H8").await.expect("first move");
    // The first computer turn is offered to the spare replica first; it starts thinking and
    // dies there, its claim on the timer still held.
    let ludus = std::sync::Arc::new(ludus);
    let stepping = tokio::spawn({
        let ludus = ludus.clone();
        async move { ludus.advance(Duration::ZERO).await }
    });
    spare.thinking().await;
    spare.kill();
    let _ = stepping.await;
    // The worker's call broke with the replica's connection: it offers the turn to the live
    // replica at once. Had the worker itself died with the claim, the timer would come due
    // again after the visibility timeout: past it, the turn is played either way, once.
    ludus.advance(ludus_timers::DEFAULT_VISIBILITY).await;
    let game = computer_replies(&ludus, &mut human, &id).await;
    assert_eq!(game.seq, 3, "the live replica played the turn, once");
    assert!(my_turn(&game));
    let mut thinker = Thinker::new(GameKind::Caro, Level::Normal, 1);
    let end = play_out(&ludus, &mut human, &id, &mut thinker).await;
    assert!(end.outcome.is_some(), "the game finished");
    match std::sync::Arc::try_unwrap(ludus) {
        Ok(ludus) => ludus.shutdown().await,
        Err(_) => panic!("the test holds the only handle"),
    }
}

/// Refusals: an unknown level (INVALID_ARGUMENT naming the levels), a take-back in a game
/// between people, against Caro's Hard (C17), by someone not seated, and after the end.
#[tokio::test]
async fn refusals_name_the_levels_and_the_rules() {
    let ludus = Ludus::start_on_manual_clock().await;
    let [mut ana, mut bo] = ludus.players(["ana", "bo"]).await;
    let unknown = refused(play_computer(&mut ana, settings(GameKind::Caro), "grandmaster").await);
    assert_eq!(unknown.code(), Code::InvalidArgument);
    assert!(
        unknown.message().contains("easy, normal or hard"),
        "{}",
        unknown.message()
    );
    // A level as long as a request may be: its refusal quotes a bounded slice of it (whole,
    // it made 57 KB of reply headers).
    let huge =
        refused(play_computer(&mut ana, settings(GameKind::Caro), &"x".repeat(60_000)).await);
    assert_eq!(huge.code(), Code::InvalidArgument, "{huge:?}");
    assert!(huge.message().len() < 300, "{} bytes", huge.message().len());
    // Between people: no take-backs (C17).
    let people = ludus
        .create_game("", settings(GameKind::Caro), &[&ana, &bo])
        .await;
    ana.play(&people.game_id, "H8").await.expect("move");
    refused_by_rule(take_back(&mut ana, &people.game_id).await, "C17");
    // Against Hard: none either (C17: only against Easy and Medium).
    let hard = play_computer(&mut ana, settings(GameKind::Caro), "hard")
        .await
        .expect("a game against Hard");
    ana.play(&hard.game_id, "H8").await.expect("move");
    computer_replies(&ludus, &mut ana, &hard.game_id).await;
    refused_by_rule(take_back(&mut ana, &hard.game_id).await, "C17");
    // Someone else's game.
    let denied = refused(take_back(&mut bo, &hard.game_id).await);
    assert_eq!(denied.code(), Code::PermissionDenied);
    // After the end.
    let medium = play_computer(&mut ana, settings(GameKind::Caro), "medium")
        .await
        .expect("a game against Medium");
    ana.play(&medium.game_id, "H8").await.expect("move");
    computer_replies(&ludus, &mut ana, &medium.game_id).await;
    ana.resign(&medium.game_id).await.expect("resign");
    let over = refused(take_back(&mut ana, &medium.game_id).await);
    assert_eq!(over.code(), Code::FailedPrecondition);
    ludus.shutdown().await;
}

/// Rooms (ARCHITECTURE.md, "Computer players"): the host seats a computer player, ready at once; the room's game gets
/// the computer seat and the bots service plays it.
#[tokio::test]
async fn a_room_game_seats_the_hosts_computer_player() {
    let ludus = Ludus::start_on_manual_clock().await;
    let mut host = ludus.account("host").await;
    let mut caro = settings(GameKind::Caro);
    caro.turn_time_ms = 60_000;
    let room = host
        .client
        .create_room(pb::CreateRoomRequest {
            settings: Some(pb::RoomSettings {
                game: Some(caro),
                ..Default::default()
            }),
            watch: false,
        })
        .await
        .expect("a room")
        .into_inner();
    let code = room.room.expect("room").code;
    let added = host
        .client
        .add_computer_player(pb::AddComputerPlayerRequest {
            code: code.clone(),
            level: "medium".into(),
        })
        .await
        .expect("a computer seat")
        .into_inner();
    let members = added.room.expect("room").members;
    let computer = members
        .iter()
        .find(|m| !m.computer_level.is_empty())
        .expect("a computer member");
    assert_eq!(computer.computer_level, "normal");
    assert!(computer.seated && computer.ready);
    host.client
        .set_ready(pb::SetReadyRequest {
            code: code.clone(),
            ready: true,
        })
        .await
        .expect("ready");
    let started = host
        .client
        .start_room_game(pb::RoomCodeRequest { code: code.clone() })
        .await
        .expect("start")
        .into_inner();
    let id = started.room.expect("room").tables[0].game_id.clone();
    let game = computer_replies(&ludus, &mut host, &id).await;
    assert!(
        game.seats.iter().any(|s| s.computer_level == "normal"),
        "the game has the computer seat: {:?}",
        game.seats
    );
    let seq = game.seq;
    let cell = game.legal_actions[0].notation.clone();
    host.play(&id, &cell).await.expect("a move");
    let game = computer_replies(&ludus, &mut host, &id).await;
    assert_eq!(game.seq, seq + 2, "the computer replied");
    ludus.shutdown().await;
}
