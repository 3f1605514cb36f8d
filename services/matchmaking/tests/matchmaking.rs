//! Matchmaking over gRPC against a fake GameState that records CreateGame calls, on the
//! memory backend and on a real `redis-server` (it must be on PATH: these tests fail rather
//! than skip).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use ludus_matchmaking::Config;
use ludus_proto::pb::{
    self,
    game_state_server::{GameState, GameStateServer},
    matchmaking_client::MatchmakingClient,
};
use ludus_store::Backend;
use ludus_store::testing::RedisServer;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::transport::Channel;
use tonic::{Code, Request, Response, Status};

/// A GameState that records CreateGame and refuses everything else; it fails the first
/// `failures` calls with UNAVAILABLE, to exercise the matcher's retries.
#[derive(Clone, Default)]
struct FakeGameState {
    created: Arc<Mutex<Vec<pb::CreateGameRequest>>>,
    failures: Arc<Mutex<u32>>,
}

impl FakeGameState {
    fn created(&self) -> Vec<pb::CreateGameRequest> {
        self.created.lock().expect("lock").clone()
    }
}

fn no() -> Status {
    Status::unimplemented("fake")
}

#[tonic::async_trait]
impl GameState for FakeGameState {
    async fn create_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        {
            let mut failures = self.failures.lock().expect("lock");
            if *failures > 0 {
                *failures -= 1;
                return Err(Status::unavailable("fake outage"));
            }
        }
        let request = request.into_inner();
        let mut created = self.created.lock().expect("lock");
        let new = !created.iter().any(|c| c.game_id == request.game_id);
        if new {
            created.push(request);
        }
        Ok(Response::new(pb::CreateGameResponse {
            game: None,
            created: new,
        }))
    }
    /// Knows the games it created: NOT_FOUND for any other (matchmaking announces a match
    /// only once its game exists).
    async fn get_snapshot(
        &self,
        request: Request<pb::GetSnapshotRequest>,
    ) -> Result<Response<pb::GameSnapshot>, Status> {
        let game_id = request.into_inner().game_id;
        if self.created().iter().any(|c| c.game_id == game_id) {
            Ok(Response::new(pb::GameSnapshot {
                game_id,
                ..Default::default()
            }))
        } else {
            Err(Status::not_found(format!("no game {game_id}")))
        }
    }
    async fn apply_action(
        &self,
        _: Request<pb::ApplyActionRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        Err(no())
    }
    async fn resign(
        &self,
        _: Request<pb::PlayerRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        Err(no())
    }
    async fn offer_draw(
        &self,
        _: Request<pb::PlayerRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        Err(no())
    }
    async fn respond_draw(
        &self,
        _: Request<pb::RespondDrawInternalRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        Err(no())
    }
    async fn expire_turn(
        &self,
        _: Request<pb::ExpireTurnRequest>,
    ) -> Result<Response<pb::ExpireTurnResponse>, Status> {
        Err(no())
    }
    async fn update_presence(
        &self,
        _: Request<pb::UpdatePresenceRequest>,
    ) -> Result<Response<pb::UpdatePresenceResponse>, Status> {
        Err(no())
    }
    async fn expire_absence(
        &self,
        _: Request<pb::ExpireAbsenceRequest>,
    ) -> Result<Response<pb::ExpireTurnResponse>, Status> {
        Err(no())
    }
    async fn report_outcome(
        &self,
        _: Request<pb::ReportOutcomeRequest>,
    ) -> Result<Response<pb::ReportOutcomeResponse>, Status> {
        Err(no())
    }
    async fn read_events(
        &self,
        _: Request<pb::ReadEventsRequest>,
    ) -> Result<Response<pb::ReadEventsResponse>, Status> {
        Err(no())
    }
    async fn list_games(
        &self,
        _: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        Err(no())
    }

    async fn analyze_mancala(
        &self,
        _: Request<pb::AnalyzeMancalaInternalRequest>,
    ) -> Result<Response<pb::AnalyzeMancalaResponse>, Status> {
        Err(no())
    }

    async fn get_bot_turn(
        &self,
        _: Request<pb::GetBotTurnRequest>,
    ) -> Result<Response<pb::BotTurn>, Status> {
        Err(no())
    }

    async fn take_back(
        &self,
        _: Request<pb::PlayerRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        Err(no())
    }

    async fn answer_absence(
        &self,
        _: Request<pb::AnswerAbsenceInternalRequest>,
    ) -> Result<Response<pb::ApplyActionResponse>, Status> {
        Err(no())
    }
}

/// The fake game-state plus one or more matchmaking replicas; dropping it stops them all.
struct World {
    fake: FakeGameState,
    clients: Vec<MatchmakingClient<Channel>>,
    _stops: Vec<oneshot::Sender<()>>,
}

impl World {
    fn client(&self) -> MatchmakingClient<Channel> {
        self.clients[0].clone()
    }
}

async fn serve_fake(fake: FakeGameState) -> (String, oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = tonic::transport::Server::builder()
            .add_service(GameStateServer::new(fake))
            .serve_with_incoming_shutdown(
                ludus_server::server::accept_with_nodelay(listener),
                async move {
                    let _ = stopped.await;
                },
            )
            .await;
    });
    (url, stop)
}

async fn world(backends: Vec<Backend>, caro_turn_ms: Option<u64>) -> World {
    world_with(backends, caro_turn_ms, Duration::from_millis(20)).await
}

async fn world_with_interval(backends: Vec<Backend>, interval: Duration) -> World {
    world_with(backends, None, interval).await
}

async fn world_with(
    backends: Vec<Backend>,
    caro_turn_ms: Option<u64>,
    match_interval: Duration,
) -> World {
    world_configured(backends, |config| {
        if let Some(ms) = caro_turn_ms {
            config.turn_ms = config.turn_ms.with(ludus_catalog::GameKind::Caro, ms);
        }
        config.match_interval = match_interval;
    })
    .await
}

async fn world_configured(backends: Vec<Backend>, configure: impl Fn(&mut Config)) -> World {
    let fake = FakeGameState::default();
    let (url, fake_stop) = serve_fake(fake.clone()).await;
    let mut clients = Vec::new();
    let mut stops = vec![fake_stop];
    for backend in backends {
        let mut config = Config::new(backend, url.clone());
        configure(&mut config);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(ludus_matchmaking::run(config, listener, async move {
            let _ = stopped.await;
        }));
        clients.push(
            MatchmakingClient::connect(format!("http://{addr}"))
                .await
                .expect("connect"),
        );
        stops.push(stop);
    }
    World {
        fake,
        clients,
        _stops: stops,
    }
}

fn caro(board_size: u32, blocked_ends_off: bool, exactly_five: bool) -> pb::GameSettings {
    pb::GameSettings {
        options: Some(pb::game_settings::Options::Caro(pb::CaroOptions {
            board_size,
            blocked_ends_off,
            exactly_five,
        })),
        // Clients cannot choose a quick match's clock: this is ignored.
        turn_time_ms: 1,
    }
}

async fn enqueue(
    c: &mut MatchmakingClient<Channel>,
    player: &str,
    settings: pb::GameSettings,
) -> Result<pb::EnqueueResponse, Status> {
    enqueue_request(c, player, settings, "").await
}

/// Every update of a ticket's watch until the stream ends.
async fn watch_to_end(
    c: &mut MatchmakingClient<Channel>,
    ticket_id: &str,
    player: &str,
) -> Vec<pb::TicketUpdate> {
    let mut stream = c
        .watch_ticket(pb::WatchTicketRequest {
            ticket_id: ticket_id.into(),
            player_id: player.into(),
        })
        .await
        .expect("watch")
        .into_inner();
    let mut updates = Vec::new();
    while let Some(update) = stream.next().await {
        updates.push(update.expect("update"));
    }
    updates
}

fn state(update: &pb::TicketUpdate) -> pb::TicketState {
    pb::TicketState::try_from(update.state).expect("state")
}

/// The final update of each ticket, once all are settled.
async fn settle(
    c: &MatchmakingClient<Channel>,
    tickets: &[(String, String)],
) -> Vec<pb::TicketUpdate> {
    let watches = tickets.iter().map(|(player, ticket)| {
        let mut c = c.clone();
        async move {
            let updates = watch_to_end(&mut c, ticket, player).await;
            updates.last().cloned().expect("at least one update")
        }
    });
    futures::future::join_all(watches).await
}

/// The final updates of two players' tickets, both matched.
async fn both_matched(
    c: &MatchmakingClient<Channel>,
    (a, a_ticket): (&str, &pb::EnqueueResponse),
    (b, b_ticket): (&str, &pb::EnqueueResponse),
) -> Vec<pb::TicketUpdate> {
    let ends = settle(
        c,
        &[
            (a.into(), a_ticket.ticket_id.clone()),
            (b.into(), b_ticket.ticket_id.clone()),
        ],
    )
    .await;
    for end in &ends {
        assert_eq!(state(end), pb::TicketState::Matched);
    }
    ends
}

/// Waits (bounded) until the fake has seen `n` games.
async fn created(fake: &FakeGameState, n: usize) -> Vec<pb::CreateGameRequest> {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let all = fake.created();
            if all.len() >= n {
                return all;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("games created in time")
}

fn bounded<F: std::future::Future>(f: F) -> tokio::time::Timeout<F> {
    tokio::time::timeout(Duration::from_secs(20), f)
}

/// Two players are matched into one game, at seats 0 and 1, and the game is created once
/// with both, the server's clock, and the normalised options.
async fn pair(backend: Backend, turn_ms: Option<u64>) {
    let w = world(vec![backend], turn_ms).await;
    // One transient game-state failure: the matcher retries CreateGame.
    *w.fake.failures.lock().expect("lock") = 1;
    let mut c = w.client();
    let a = enqueue(&mut c, "ann", caro(0, false, false))
        .await
        .expect("ann");
    assert_eq!(a.queue, "caro/15/blocked-ends");
    let b = enqueue(&mut c, "bob", caro(15, false, false))
        .await
        .expect("bob");
    let ends = both_matched(&c, ("ann", &a), ("bob", &b)).await;
    assert_eq!(ends[0].game_id, ends[1].game_id);
    let seats: HashSet<u32> = ends.iter().map(|e| e.seat).collect();
    assert_eq!(seats, HashSet::from([0, 1]));

    let games = created(&w.fake, 1).await;
    assert_eq!(games.len(), 1);
    let game = &games[0];
    assert_eq!(game.game_id, ends[0].game_id);
    let settings = game.settings.clone().expect("settings");
    assert_eq!(settings.turn_time_ms, turn_ms.unwrap_or(60_000));
    assert_eq!(
        settings.options,
        Some(pb::game_settings::Options::Caro(pb::CaroOptions {
            board_size: 15,
            blocked_ends_off: false,
            exactly_five: false,
        }))
    );
    // Seat order in the game is the seat each ticket was told.
    let ann_seat = ends[0].seat as usize;
    assert_eq!(game.players[ann_seat].player_id, "ann");
    assert_eq!(game.players[ann_seat].display_name, "ANN");
    assert_eq!(game.players[1 - ann_seat].player_id, "bob");

    // Watching a matched ticket: one update, then the stream ends.
    let again = watch_to_end(&mut c, &a.ticket_id, "ann").await;
    assert_eq!(again.len(), 1);
    assert_eq!(state(&again[0]), pb::TicketState::Matched);
    // Cancelling after the match shows the match.
    let late = c
        .cancel_ticket(pb::CancelTicketRequest {
            ticket_id: a.ticket_id.clone(),
            player_id: "ann".into(),
        })
        .await
        .expect("late cancel")
        .into_inner();
    assert_eq!(state(&late), pb::TicketState::Matched);
    assert_eq!(late.game_id, ends[0].game_id);
    // Once matched, the player may queue again.
    enqueue(&mut c, "ann", caro(15, false, false))
        .await
        .expect("queue again");
}

/// A second ticket is refused, cancel beats the matcher, owners only, bad input refused.
async fn tickets(backend: Backend) {
    let w = world(vec![backend], None).await;
    let mut c = w.client();
    let a = enqueue(&mut c, "ann", caro(19, true, false))
        .await
        .expect("ann");
    let twice = enqueue(&mut c, "ann", caro(15, false, false))
        .await
        .expect_err("second ticket");
    assert_eq!(twice.code(), Code::AlreadyExists);
    assert!(twice.message().contains(&a.ticket_id), "{twice:?}");

    // Only the owner may watch or cancel.
    let status = c
        .watch_ticket(pb::WatchTicketRequest {
            ticket_id: a.ticket_id.clone(),
            player_id: "eve".into(),
        })
        .await
        .expect_err("not yours");
    assert_eq!(status.code(), Code::PermissionDenied);
    let status = c
        .cancel_ticket(pb::CancelTicketRequest {
            ticket_id: a.ticket_id.clone(),
            player_id: "eve".into(),
        })
        .await
        .expect_err("not yours");
    assert_eq!(status.code(), Code::PermissionDenied);

    // Cancel, then the watch shows Cancelled and ends; a repeated cancel says the same.
    let cancelled = c
        .cancel_ticket(pb::CancelTicketRequest {
            ticket_id: a.ticket_id.clone(),
            player_id: "ann".into(),
        })
        .await
        .expect("cancel")
        .into_inner();
    assert_eq!(state(&cancelled), pb::TicketState::Cancelled);
    assert!(cancelled.game_id.is_empty());
    let watched = watch_to_end(&mut c, &a.ticket_id, "ann").await;
    assert_eq!(watched.len(), 1);
    assert_eq!(state(&watched[0]), pb::TicketState::Cancelled);

    // The cancelled ticket is never matched: two later players of its queue pair together.
    let b = enqueue(&mut c, "bob", caro(19, true, false))
        .await
        .expect("bob");
    let d = enqueue(&mut c, "dan", caro(19, true, false))
        .await
        .expect("dan");
    let ends = settle(
        &c,
        &[("bob".into(), b.ticket_id), ("dan".into(), d.ticket_id)],
    )
    .await;
    assert!(ends.iter().all(|e| state(e) == pb::TicketState::Matched));
    let games = created(&w.fake, 1).await;
    let players: HashSet<&str> = games[0]
        .players
        .iter()
        .map(|p| p.player_id.as_str())
        .collect();
    assert_eq!(players, HashSet::from(["bob", "dan"]));
    let after = c
        .cancel_ticket(pb::CancelTicketRequest {
            ticket_id: a.ticket_id.clone(),
            player_id: "ann".into(),
        })
        .await
        .expect("cancel again")
        .into_inner();
    assert_eq!(state(&after), pb::TicketState::Cancelled);

    // Unknown and malformed tickets.
    let unknown = a.ticket_id.replace("caro_19", "caro_15");
    let status = c
        .watch_ticket(pb::WatchTicketRequest {
            ticket_id: unknown,
            player_id: "ann".into(),
        })
        .await
        .expect_err("unknown");
    assert_eq!(status.code(), Code::NotFound);
    let status = c
        .cancel_ticket(pb::CancelTicketRequest {
            ticket_id: "nope".into(),
            player_id: "ann".into(),
        })
        .await
        .expect_err("malformed");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("ticket_id"));

    // Bad enqueues.
    let cases: Vec<(pb::EnqueueRequest, Code, &str)> = vec![
        (
            pb::EnqueueRequest {
                player_id: "a b".into(),
                display_name: "A".into(),
                settings: Some(caro(15, false, false)),
                casual: false,
                request_id: String::new(),
                confirm_presence: false,
            },
            Code::InvalidArgument,
            "player_id",
        ),
        (
            pb::EnqueueRequest {
                player_id: "zed".into(),
                display_name: String::new(),
                settings: Some(caro(15, false, false)),
                casual: false,
                request_id: String::new(),
                confirm_presence: false,
            },
            Code::InvalidArgument,
            "display_name",
        ),
        (
            pb::EnqueueRequest {
                player_id: "zed".into(),
                display_name: "Z".into(),
                settings: None,
                casual: false,
                request_id: String::new(),
                confirm_presence: false,
            },
            Code::InvalidArgument,
            "settings",
        ),
        (
            pb::EnqueueRequest {
                player_id: "zed".into(),
                display_name: "Z".into(),
                settings: Some(caro(17, false, false)),
                casual: false,
                request_id: String::new(),
                confirm_presence: false,
            },
            Code::InvalidArgument,
            "settings.caro.board_size",
        ),
        (
            pb::EnqueueRequest {
                player_id: "zed".into(),
                display_name: "Z".into(),
                settings: Some(pb::GameSettings {
                    options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
                        mode: pb::QuoridorMode::Teams as i32,
                        ..Default::default()
                    })),
                    turn_time_ms: 0,
                }),
                casual: false,
                request_id: String::new(),
                confirm_presence: false,
            },
            Code::InvalidArgument,
            "settings.quoridor.mode: quick match seats free-for-all tables (Q22)",
        ),
    ];
    for (request, code, start) in cases {
        let status = c.enqueue(request).await.expect_err("refused");
        assert_eq!(status.code(), code, "{status:?}");
        assert!(status.message().starts_with(start), "{status:?}");
    }
}

/// Enqueue as the gateway sends it: with a request id, the same on every attempt.
async fn enqueue_request(
    c: &mut MatchmakingClient<Channel>,
    player: &str,
    settings: pb::GameSettings,
    request_id: &str,
) -> Result<pb::EnqueueResponse, Status> {
    c.enqueue(request_of(player, Some(settings), request_id, false))
        .await
        .map(Response::into_inner)
}

/// What a caller sends to queue `player` (displayed as their name in capitals), rated.
fn request_of(
    player: &str,
    settings: Option<pb::GameSettings>,
    request_id: &str,
    confirm_presence: bool,
) -> pb::EnqueueRequest {
    pb::EnqueueRequest {
        player_id: player.into(),
        display_name: player.to_uppercase(),
        settings,
        casual: false,
        request_id: request_id.into(),
        confirm_presence,
    }
}

/// The last update of a ticket stream, read until it ends.
async fn last_update(mut stream: tonic::Streaming<pb::TicketUpdate>) -> pb::TicketUpdate {
    let mut last = None;
    while let Some(update) = stream.next().await {
        last = Some(update.expect("update"));
    }
    last.expect("an update")
}

/// An Enqueue retried with its request id (its first answer was lost: the replica died, or
/// Redis answered past the client's timeout, after the ticket was queued) gets the ticket the
/// first attempt queued, queued or already matched, instead of ALREADY_EXISTS (ARCHITECTURE.md, "Matchmaking"); the
/// id never hands over another player's ticket, and a new request still meets the one-ticket
/// rule.
async fn retried_enqueue(backend: Backend) {
    let w = world(vec![backend], None).await;
    let mut c = w.client();
    let request = ulid::Ulid::generate().to_string();
    let first = enqueue_request(&mut c, "ann", caro(19, true, true), &request)
        .await
        .expect("ann");
    let again = enqueue_request(&mut c, "ann", caro(19, true, true), &request)
        .await
        .expect("the same request, retried");
    assert_eq!(again, first, "the retry gets the first attempt's ticket");
    let other = ulid::Ulid::generate().to_string();
    let status = enqueue_request(&mut c, "ann", caro(19, true, true), &other)
        .await
        .expect_err("a second request");
    assert_eq!(status.code(), Code::AlreadyExists, "{status:?}");
    assert!(status.message().contains(&first.ticket_id), "{status:?}");
    let status = enqueue_request(&mut c, "bob", caro(19, true, true), &request)
        .await
        .expect_err("another player with ann's request id");
    assert_eq!(status.code(), Code::AlreadyExists, "{status:?}");
    let status = enqueue_request(&mut c, "bob", caro(19, true, true), "not-a-ulid")
        .await
        .expect_err("a request id that is not a ULID");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(status.message().starts_with("request_id"), "{status:?}");

    // Matched meanwhile: the retry still gets the ticket, and its watch says where to sit.
    let partner = enqueue(&mut c, "cid", caro(19, true, true))
        .await
        .expect("cid");
    let matched = both_matched(&c, ("ann", &first), ("cid", &partner)).await;
    let late = enqueue_request(&mut c, "ann", caro(19, true, true), &request)
        .await
        .expect("a retry after the match");
    assert_eq!(late.ticket_id, first.ticket_id);
    let updates = watch_to_end(&mut c, &late.ticket_id, "ann").await;
    let last = updates.last().expect("an update");
    assert_eq!(state(last), pb::TicketState::Matched, "{last:?}");
    assert_eq!(
        (&last.game_id, last.seat),
        (&matched[0].game_id, matched[0].seat),
        "the match, not a new ticket"
    );
    assert_eq!(w.fake.created().len(), 1, "one game");
}

/// QueueAndWatch as the gateway calls it: with a request id and `confirm_presence`.
async fn queue_and_watch(
    c: &mut MatchmakingClient<Channel>,
    player: &str,
    settings: Option<pb::GameSettings>,
    request_id: &str,
) -> Result<tonic::Streaming<pb::TicketUpdate>, Status> {
    c.queue_and_watch(request_of(player, settings, request_id, true))
        .await
        .map(Response::into_inner)
}

/// QueueAndWatch is Enqueue and WatchTicket in one call: the first update is the queued
/// ticket, named; the stream then ends with the match (the seat confirmed by the stream
/// itself); a retry with the request id gets the same ticket back, as it stands; a second
/// request meets the one-ticket rule, and a malformed one queues nothing. The lease is
/// written with the ticket.
async fn queued_and_watched(backend: Backend) {
    let queues = ludus_store::QueueStore::new(backend.clone());
    let w = world(vec![backend], None).await;
    let mut c = w.client();
    let status = queue_and_watch(&mut c, "ann", None, "")
        .await
        .expect_err("no settings");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let request = ulid::Ulid::generate().to_string();
    let mut ann = queue_and_watch(&mut c, "ann", Some(caro(15, false, false)), &request)
        .await
        .expect("ann");
    let first = ann.next().await.expect("a first update").expect("queued");
    assert_eq!(state(&first), pb::TicketState::Queued, "{first:?}");
    assert!(first.ticket_id.contains(&request), "{first:?}");
    let queue = ludus_matchmaking::model::queue_of(&first.ticket_id).expect("a ticket id");
    let leases = queues
        .lease_ends(&queue, &[first.ticket_id.as_str()])
        .await
        .expect("read");
    assert!(leases[0].is_some(), "leased from the start: {leases:?}");
    let mut again = queue_and_watch(&mut c, "ann", Some(caro(15, false, false)), &request)
        .await
        .expect("the same request, retried");
    let retried = again.next().await.expect("an update").expect("queued");
    assert_eq!(
        (state(&retried), &retried.ticket_id),
        (pb::TicketState::Queued, &first.ticket_id)
    );
    drop(again);
    let other = ulid::Ulid::generate().to_string();
    let status = queue_and_watch(&mut c, "ann", Some(caro(15, false, false)), &other)
        .await
        .expect_err("a second request");
    assert_eq!(status.code(), Code::AlreadyExists, "{status:?}");
    assert!(status.message().contains(&first.ticket_id), "{status:?}");

    let bob = queue_and_watch(&mut c, "bob", Some(caro(15, false, false)), "")
        .await
        .expect("bob");
    let ends = [last_update(ann).await, last_update(bob).await];
    assert!(
        ends.iter()
            .all(|end| state(end) == pb::TicketState::Matched),
        "{ends:?}"
    );
    assert_eq!(ends[0].game_id, ends[1].game_id);
    assert_eq!(ends[0].ticket_id, first.ticket_id);
    let games = created(&w.fake, 1).await;
    assert_eq!(players_of(&games[0]), HashSet::from(["ann", "bob"]));
}

/// A QueueAndWatch stream is its player's presence, as a watch is: while it is open it renews
/// the ticket's lease (Carl waits past two leases and is still seated; his renewals start
/// from the lease the enqueue wrote), and once closed it renews nothing (Dora, who left right
/// after QUEUED, lapses and is dropped). Dora waits in another queue so that no proposal races
/// her leaving (a seat confirmed just before the server saw a stream close is seated:
/// ARCHITECTURE.md, "Matchmaking").
async fn queue_and_watch_stream_is_presence(backend: Backend) {
    let queues = ludus_store::QueueStore::new(backend.clone());
    let lease = Duration::from_secs(1);
    let w = world_configured(vec![backend], |config| {
        config.match_interval = Duration::from_millis(20);
        config.confirm_window = Duration::from_millis(500);
        config.ticket_lease = lease;
    })
    .await;
    let mut c = w.client();
    let carl_queued = tokio::time::Instant::now();
    let mut carl = queue_and_watch(&mut c, "carl", Some(caro(15, false, false)), "")
        .await
        .expect("carl");
    let queued = carl.next().await.expect("an update").expect("queued");
    assert_eq!(state(&queued), pb::TicketState::Queued);
    let carl_waits = tokio::spawn(last_update(carl));
    let mut dora = queue_and_watch(&mut c, "dora", Some(caro(19, false, false)), "")
        .await
        .expect("dora");
    let queued = dora.next().await.expect("an update").expect("queued");
    drop(dora);
    let dora = pb::EnqueueResponse {
        queue: ludus_matchmaking::model::queue_of(&queued.ticket_id).expect("a ticket id"),
        ticket_id: queued.ticket_id,
    };
    ticket_becomes(&queues, &dora, |s| {
        *s == ludus_store::TicketStatus::Cancelled
    })
    .await;
    tokio::time::sleep_until(carl_queued + 2 * lease + Duration::from_millis(200)).await;
    let eve = queue_and_watch(&mut c, "eve", Some(caro(15, false, false)), "")
        .await
        .expect("eve");
    let eve_end = last_update(eve).await;
    let carl_end = carl_waits.await.expect("carl");
    assert_eq!(state(&carl_end), pb::TicketState::Matched, "{carl_end:?}");
    assert_eq!(carl_end.game_id, eve_end.game_id);
    assert!(
        carl_end.waited_ms >= 2_000,
        "carl waited two leases: {carl_end:?}"
    );
    let games = created(&w.fake, 1).await;
    assert_eq!(games.len(), 1);
    assert_eq!(players_of(&games[0]), HashSet::from(["carl", "eve"]));
}

/// C16: only identical size and optional rules pair.
async fn options_never_mix(backend: Backend) {
    let w = world(vec![backend], None).await;
    let mut c = w.client();
    let plan = [
        ("p1", caro(15, false, false)),
        ("p2", caro(19, false, false)),
        ("p3", caro(15, false, true)),
        ("p4", caro(15, true, false)),
        ("p5", caro(15, false, false)),
        ("p6", caro(19, false, false)),
        ("p7", caro(15, false, true)),
        ("p8", caro(15, true, false)),
    ];
    let mut tickets = Vec::new();
    for (player, settings) in plan {
        let t = enqueue(&mut c, player, settings).await.expect("enqueue");
        tickets.push((player.to_owned(), t.ticket_id));
    }
    let ends = settle(&c, &tickets).await;
    assert!(ends.iter().all(|e| state(e) == pb::TicketState::Matched));
    let games = created(&w.fake, 4).await;
    let mut pairs: Vec<Vec<String>> = games
        .iter()
        .map(|g| {
            let mut ids: Vec<String> = g.players.iter().map(|p| p.player_id.clone()).collect();
            ids.sort();
            ids
        })
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        vec![
            vec!["p1".to_owned(), "p5".into()],
            vec!["p2".into(), "p6".into()],
            vec!["p3".into(), "p7".into()],
            vec!["p4".into(), "p8".into()],
        ]
    );
}

/// Three replicas on one store (each with its own connection on Redis), 60 players queued
/// at once on all three and watched on another replica than the one they queued on: 30
/// games, nobody in two, every watch told of its match (by the notice of whichever replica
/// matched it).
async fn replicas(backends: Vec<Backend>) {
    let w = world(backends, None).await;
    let replicas = w.clients.len();
    let queued = (0..60).map(|i| {
        let mut c = w.clients[i % replicas].clone();
        async move {
            let player = format!("r{i}");
            let t = enqueue(&mut c, &player, caro(15, false, false))
                .await
                .expect("enqueue");
            (player, t.ticket_id)
        }
    });
    let tickets: Vec<(String, String)> = futures::future::join_all(queued).await;
    let ends = futures::future::join_all(tickets.chunks(2).enumerate().map(|(i, pair)| {
        let c = w.clients[(i + 1) % replicas].clone();
        async move { settle(&c, pair).await }
    }))
    .await
    .concat();
    let mut by_game: HashMap<&str, Vec<u32>> = HashMap::new();
    for end in &ends {
        assert_eq!(state(end), pb::TicketState::Matched);
        by_game.entry(&end.game_id).or_default().push(end.seat);
    }
    assert_eq!(by_game.len(), 30);
    for seats in by_game.values_mut() {
        seats.sort();
        assert_eq!(seats, &vec![0, 1]);
    }
    let games = created(&w.fake, 30).await;
    assert_eq!(games.len(), 30);
    let mut seated = HashSet::new();
    for game in &games {
        assert!(by_game.contains_key(game.game_id.as_str()));
        for p in &game.players {
            assert!(seated.insert(p.player_id.clone()), "{} twice", p.player_id);
        }
    }
    assert_eq!(seated.len(), 60);
}

/// Queues a ticket straight through the store, as Enqueue does but without waking a matcher.
async fn queue_quietly(
    queues: &ludus_store::QueueStore,
    player: &str,
    settings: &pb::GameSettings,
) -> String {
    use ludus_matchmaking::model::{QuickMatch, TicketPayload, ticket_id};
    let quick = QuickMatch::from_settings(Some(settings)).expect("quick match");
    let id = ticket_id(&quick.queue, ulid::Ulid::generate()).expect("ticket id");
    let ticket = ludus_store::Ticket {
        ticket_id: id.clone(),
        queue: quick.queue.clone(),
        player_id: player.into(),
        payload: TicketPayload::new(&player.to_uppercase(), &quick, None)
            .to_bytes()
            .expect("payload"),
        created_ms: 1,
        status: ludus_store::TicketStatus::Queued,
    };
    queues.enqueue(&ticket).await.expect("enqueue");
    id
}

/// A matcher that took two tickets and died before CreateGame (simulated by taking them
/// straight through the store, with this replica's matcher asleep): the players' watches
/// create the game from the tickets and only then announce the match, so nobody is sent to a
/// game that does not exist.
async fn orphaned_match(backend: Backend) {
    let w = world_with_interval(vec![backend.clone()], Duration::from_secs(3600)).await;
    let mut c = w.client();
    let queues = ludus_store::QueueStore::new(backend);
    let settings = caro(19, true, true);
    let a = queue_quietly(&queues, "ann", &settings).await;
    let b = queue_quietly(&queues, "bob", &settings).await;
    let queue = "caro/19/exactly-five";
    assert!(
        queues
            .take(queue, &[b.clone(), a.clone()], "orphan-game")
            .await
            .expect("take"),
        "both tickets were queued"
    );
    assert!(w.fake.created().is_empty(), "nobody created the game yet");
    let updates = watch_to_end(&mut c, &a, "ann").await;
    let last = updates.last().expect("an update");
    assert_eq!(state(last), pb::TicketState::Matched);
    assert_eq!((last.game_id.as_str(), last.seat), ("orphan-game", 1));
    let created = w.fake.created();
    assert_eq!(created.len(), 1, "the watch created the game");
    let players: Vec<&str> = created[0]
        .players
        .iter()
        .map(|p| p.player_id.as_str())
        .collect();
    assert_eq!(players, ["bob", "ann"], "seats as the tickets were taken");
    assert_eq!(
        created[0].settings.as_ref().map(|s| s.turn_time_ms),
        Some(ludus_catalog::GameKind::Caro.table_policy().default_turn_ms)
    );
    // bob's watch finds the game and does not create it again.
    let updates = watch_to_end(&mut c, &b, "bob").await;
    assert_eq!(updates.last().map(|u| u.seat), Some(0));
    assert_eq!(w.fake.created().len(), 1);
}

fn redis() -> RedisServer {
    RedisServer::start().unwrap_or_else(|e| panic!("{e}"))
}

/// Enqueue as the gateway sends it (`confirm_presence`: seated only through an open watch).
async fn enqueue_present(c: &mut MatchmakingClient<Channel>, player: &str) -> pb::EnqueueResponse {
    c.enqueue(request_of(player, Some(caro(15, false, false)), "", true))
        .await
        .expect("enqueue")
        .into_inner()
}

/// The last update of `player`'s watch of `ticket`, read until it ends.
async fn watched_end(
    c: &MatchmakingClient<Channel>,
    ticket: &pb::EnqueueResponse,
    player: &str,
) -> pb::TicketUpdate {
    let updates = watch_to_end(&mut c.clone(), &ticket.ticket_id, player).await;
    updates.last().cloned().expect("an update")
}

/// Waits (bounded) until `ticket` stands as `wanted` says in the store.
async fn ticket_becomes(
    queues: &ludus_store::QueueStore,
    ticket: &pb::EnqueueResponse,
    wanted: impl Fn(&ludus_store::TicketStatus) -> bool,
) {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let now = queues
                .ticket(&ticket.queue, &ticket.ticket_id)
                .await
                .expect("read")
                .expect("exists");
            if wanted(&now.status) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the ticket changes in time");
}

fn players_of(game: &pb::CreateGameRequest) -> HashSet<&str> {
    game.players.iter().map(|p| p.player_id.as_str()).collect()
}

/// The confirm step (tickets queued with `confirm_presence`, as the gateway queues them): a
/// table becomes a game only once a watch with its stream open confirmed every seat; a player
/// nobody watches (their gateway died) is never seated, the proposal expires and the other
/// goes back to the queue; a player who cancels a proposal is dropped and the other goes back
/// to the front with their waiting time.
async fn confirmed_presence(backend: Backend) {
    let queues = ludus_store::QueueStore::new(backend.clone());
    let w = world_configured(vec![backend], |config| {
        config.match_interval = Duration::from_millis(20);
        config.confirm_window = Duration::from_millis(500);
        config.ticket_lease = Duration::from_secs(1);
    })
    .await;
    let c = w.client();
    let mut e = w.client();

    // Both watched: matched as before, the confirmations automatic.
    let ann = enqueue_present(&mut e, "ann").await;
    let bob = enqueue_present(&mut e, "bob").await;
    let (ann_end, bob_end) =
        tokio::join!(watched_end(&c, &ann, "ann"), watched_end(&c, &bob, "bob"));
    assert_eq!(state(&ann_end), pb::TicketState::Matched);
    assert_eq!(ann_end.game_id, bob_end.game_id);
    let games = created(&w.fake, 1).await;
    assert_eq!(players_of(&games[0]), HashSet::from(["ann", "bob"]));
    assert!(
        queues
            .confirmed_at(&ann.queue, &ann.ticket_id)
            .await
            .expect("read")
            .is_some(),
        "ann's seat was confirmed by her watch"
    );

    // Dora is never watched: her seat is never confirmed, her proposals expire, and once her
    // lease lapses she is dropped; Carl, watched all along, sits with Eve.
    let carl = enqueue_present(&mut e, "carl").await;
    let dora = enqueue_present(&mut e, "dora").await;
    let carl_waits = tokio::spawn({
        let (c, carl) = (c.clone(), carl.clone());
        async move { watched_end(&c, &carl, "carl").await }
    });
    ticket_becomes(&queues, &dora, |s| {
        matches!(s, ludus_store::TicketStatus::Proposed { .. })
    })
    .await;
    ticket_becomes(&queues, &dora, |s| {
        *s == ludus_store::TicketStatus::Cancelled
    })
    .await;
    let eve = enqueue_present(&mut e, "eve").await;
    let eve_end = watched_end(&c, &eve, "eve").await;
    let carl_end = carl_waits.await.expect("carl's watch");
    assert_eq!(state(&carl_end), pb::TicketState::Matched);
    assert_eq!(carl_end.game_id, eve_end.game_id);
    assert!(
        carl_end.waited_ms > eve_end.waited_ms,
        "carl's wait counts from his first queueing: {carl_end:?} {eve_end:?}"
    );
    let games = created(&w.fake, 2).await;
    assert_eq!(games.len(), 2, "no game ever seated dora");
    assert_eq!(players_of(&games[1]), HashSet::from(["carl", "eve"]));

    // Gus, unwatched, is proposed with Fay, then cancels: Fay goes back to the front of the
    // queue, confirmation forgotten, and sits with Hal.
    let fay = enqueue_present(&mut e, "fay").await;
    let gus = enqueue_present(&mut e, "gus").await;
    let fay_waits = tokio::spawn({
        let (c, fay) = (c.clone(), fay.clone());
        async move { watched_end(&c, &fay, "fay").await }
    });
    ticket_becomes(&queues, &gus, |s| {
        matches!(s, ludus_store::TicketStatus::Proposed { .. })
    })
    .await;
    let gone = e
        .cancel_ticket(pb::CancelTicketRequest {
            ticket_id: gus.ticket_id.clone(),
            player_id: "gus".into(),
        })
        .await
        .expect("cancel")
        .into_inner();
    assert_eq!(state(&gone), pb::TicketState::Cancelled);
    let hal = enqueue_present(&mut e, "hal").await;
    let hal_end = watched_end(&c, &hal, "hal").await;
    let fay_end = fay_waits.await.expect("fay's watch");
    assert_eq!(fay_end.game_id, hal_end.game_id);
    let games = created(&w.fake, 3).await;
    assert_eq!(games.len(), 3);
    assert_eq!(players_of(&games[2]), HashSet::from(["fay", "hal"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_backend() {
    bounded(pair(Backend::memory(), None)).await.expect("pair");
    bounded(tickets(Backend::memory())).await.expect("tickets");
    bounded(retried_enqueue(Backend::memory()))
        .await
        .expect("retried enqueue");
    bounded(queued_and_watched(Backend::memory()))
        .await
        .expect("queued and watched");
    bounded(queue_and_watch_stream_is_presence(Backend::memory()))
        .await
        .expect("a closed stream is an absent player");
    bounded(options_never_mix(Backend::memory()))
        .await
        .expect("options");
    let shared = Backend::memory();
    bounded(replicas(vec![shared.clone(), shared.clone(), shared]))
        .await
        .expect("replicas");
    bounded(orphaned_match(Backend::memory()))
        .await
        .expect("orphaned match");
    bounded(confirmed_presence(Backend::memory()))
        .await
        .expect("confirmed presence");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_backend() {
    let server = redis();
    let backend = |prefix: &'static str| {
        let server = &server;
        async move { server.backend(prefix).await.expect("connect") }
    };
    bounded(pair(backend("p:").await, Some(30_000)))
        .await
        .expect("pair");
    bounded(tickets(backend("t:").await))
        .await
        .expect("tickets");
    bounded(retried_enqueue(backend("e:").await))
        .await
        .expect("retried enqueue");
    bounded(queued_and_watched(backend("w:").await))
        .await
        .expect("queued and watched");
    bounded(queue_and_watch_stream_is_presence(backend("a:").await))
        .await
        .expect("a closed stream is an absent player");
    bounded(options_never_mix(backend("o:").await))
        .await
        .expect("options");
    bounded(replicas(vec![
        backend("r:").await,
        backend("r:").await,
        backend("r:").await,
    ]))
    .await
    .expect("replicas");
    bounded(orphaned_match(backend("x:").await))
        .await
        .expect("orphaned match");
    bounded(confirmed_presence(backend("c:").await))
        .await
        .expect("confirmed presence");
}
