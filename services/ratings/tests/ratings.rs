//! The ratings service over gRPC, on the memory backend and on a real `redis-server` (it must
//! be on PATH: these tests fail rather than skip).

use std::time::Duration;

use ludus_proto::pb::{self, ratings_client::RatingsClient};
use ludus_store::Backend;
use ludus_store::testing::RedisServer;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::Code;
use tonic::transport::Channel;

/// A running server; dropping it shuts the server down.
struct Running {
    client: RatingsClient<Channel>,
    _stop: oneshot::Sender<()>,
}

async fn start(backend: Backend) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(ludus_ratings::run(
        ludus_ratings::Config { backend },
        listener,
        async move {
            let _ = stopped.await;
        },
    ));
    let client = RatingsClient::connect(format!("http://{addr}"))
        .await
        .expect("connect");
    Running {
        client,
        _stop: stop,
    }
}

fn player(id: &str, rank: u32) -> pb::PlayerResult {
    pb::PlayerResult {
        player_id: id.into(),
        display_name: id.to_uppercase(),
        rank,
        points: 0,
    }
}

fn report(game_id: &str, players: Vec<pb::PlayerResult>) -> pb::ReportResultRequest {
    pb::ReportResultRequest {
        game_id: game_id.into(),
        ruleset: RULESET.into(),
        players,
        cancelled: false,
    }
}

const RULESET: &str = "caro/15/blocked-ends";

async fn rating(client: &mut RatingsClient<Channel>, id: &str) -> pb::Rating {
    client
        .get_rating(pb::RatingsGetRatingRequest {
            ruleset: RULESET.into(),
            player_id: id.into(),
        })
        .await
        .expect("get rating")
        .into_inner()
}

/// One page of the test pool's leaderboard: (player, rank) from `offset`, `limit` entries (0:
/// the default page).
async fn leaderboard(
    client: &mut RatingsClient<Channel>,
    offset: u32,
    limit: u32,
) -> Vec<(String, u32)> {
    let page = client
        .get_leaderboard(pb::RatingsGetLeaderboardRequest {
            ruleset: RULESET.into(),
            offset,
            limit,
        })
        .await
        .expect("leaderboard")
        .into_inner();
    page.entries
        .into_iter()
        .map(|e| (e.player_id, e.rank))
        .collect()
}

fn changes(response: &pb::ReportResultResponse) -> Vec<(String, f64, f64)> {
    response
        .changes
        .iter()
        .map(|c| (c.player_id.clone(), c.before, c.after))
        .collect()
}

/// Everything the service promises, against one backend.
async fn scenario(backend: Backend) {
    let running = start(backend).await;
    let mut c = running.client.clone();

    // Unknown players: 1200, no games, unranked.
    let fresh = rating(&mut c, "alice").await;
    assert_eq!((fresh.rating, fresh.games, fresh.rank), (1200.0, 0, 0));

    // A win between two newcomers: K = 32, half of it each way.
    let won = c
        .report_result(report("g1", vec![player("alice", 0), player("bob", 1)]))
        .await
        .expect("report")
        .into_inner();
    assert!(won.newly_recorded);
    assert_eq!(
        changes(&won),
        vec![
            ("alice".into(), 1200.0, 1216.0),
            ("bob".into(), 1200.0, 1184.0)
        ]
    );
    let alice = rating(&mut c, "alice").await;
    assert_eq!(
        (
            alice.rating,
            alice.games,
            alice.rank,
            alice.display_name.as_str()
        ),
        (1216.0, 1, 1, "ALICE")
    );
    assert_eq!(rating(&mut c, "bob").await.rank, 2);

    // The same game again: the original changes, not recorded twice.
    let repeat = c
        .report_result(report("g1", vec![player("alice", 1), player("bob", 0)]))
        .await
        .expect("repeat")
        .into_inner();
    assert!(!repeat.newly_recorded);
    assert_eq!(changes(&repeat), changes(&won));
    assert_eq!(rating(&mut c, "alice").await.games, 1);

    // A draw between 1216 and 1184: expected 0.546 for the stronger, so it loses 1.47.
    let drawn = c
        .report_result(report("g2", vec![player("alice", 0), player("bob", 0)]))
        .await
        .expect("draw")
        .into_inner();
    let expected = 1.0 / (1.0 + 10f64.powf((1184.0 - 1216.0) / 400.0));
    let delta = 32.0 * (0.5 - expected);
    assert!((drawn.changes[0].after - (1216.0 + delta)).abs() < 1e-9);
    assert!((drawn.changes[1].after - (1184.0 - delta)).abs() < 1e-9);
    assert!(delta < 0.0);

    // Cancelled: recorded, nothing rated, and a later rated report of it changes nothing.
    let mut cancelled = report("g3", vec![player("alice", 0), player("bob", 1)]);
    cancelled.cancelled = true;
    let nothing = c
        .report_result(cancelled)
        .await
        .expect("cancelled")
        .into_inner();
    assert!(nothing.newly_recorded && nothing.changes.is_empty());
    let before = rating(&mut c, "alice").await;
    let late = c
        .report_result(report("g3", vec![player("alice", 0), player("bob", 1)]))
        .await
        .expect("late")
        .into_inner();
    assert!(!late.newly_recorded && late.changes.is_empty());
    assert_eq!(rating(&mut c, "alice").await, before);

    // Leaderboard: highest first, ranks from the offset, default page.
    c.report_result(report("g4", vec![player("carol", 0), player("dave", 1)]))
        .await
        .expect("g4");
    // carol 1216, alice 1214.53 (after the draw), bob 1185.47, dave 1184.
    assert_eq!(
        leaderboard(&mut c, 0, 0).await,
        [("carol", 1), ("alice", 2), ("bob", 3), ("dave", 4)].map(|(p, r)| (p.to_owned(), r))
    );
    assert_eq!(
        leaderboard(&mut c, 1, 2).await,
        [("alice", 2), ("bob", 3)].map(|(p, r)| (p.to_owned(), r))
    );
    assert_eq!(rating(&mut c, "dave").await.rank, 4);

    // Pools are separate.
    let other = c
        .get_rating(pb::RatingsGetRatingRequest {
            ruleset: "caro/19/free".into(),
            player_id: "alice".into(),
        })
        .await
        .expect("other pool")
        .into_inner();
    assert_eq!((other.rating, other.games), (1200.0, 0));

    // Three players: pairwise Elo, summed.
    let ffa = c
        .report_result(pb::ReportResultRequest {
            game_id: "q1".into(),
            ruleset: "quoridor/9/ffa".into(),
            players: vec![player("x", 0), player("y", 1), player("z", 2)],
            cancelled: false,
        })
        .await
        .expect("free for all")
        .into_inner();
    let after: Vec<f64> = ffa.changes.iter().map(|c| c.after).collect();
    assert_eq!(after, vec![1232.0, 1200.0, 1168.0]);

    invalid_arguments(&mut c).await;
}

async fn invalid_arguments(c: &mut RatingsClient<Channel>) {
    let cases: Vec<(pb::ReportResultRequest, &str)> = vec![
        (report("", vec![player("a", 0), player("b", 1)]), "game_id"),
        (
            report("g 1", vec![player("a", 0), player("b", 1)]),
            "game_id",
        ),
        (
            pb::ReportResultRequest {
                ruleset: "Caro".into(),
                ..report("g9", vec![player("a", 0), player("b", 1)])
            },
            "ruleset",
        ),
        (report("g9", vec![player("a", 0)]), "players"),
        (
            report("g9", vec![player("a", 0), player("a", 1)]),
            "players[1].player_id",
        ),
        (
            report("g9", vec![player("a", 0), player("b!", 1)]),
            "players[1].player_id",
        ),
    ];
    for (request, field) in cases {
        let status = c.report_result(request).await.expect_err("refused");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(status.message().starts_with(field), "{status:?}");
    }
    let status = c
        .get_rating(pb::RatingsGetRatingRequest {
            ruleset: RULESET.into(),
            player_id: "x".repeat(65),
        })
        .await
        .expect_err("long id");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("player_id"));
    let status = c
        .get_leaderboard(pb::RatingsGetLeaderboardRequest {
            ruleset: RULESET.into(),
            offset: 0,
            limit: 101,
        })
        .await
        .expect_err("big page");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("limit"));
    let status = c
        .get_leaderboard(pb::RatingsGetLeaderboardRequest {
            ruleset: String::new(),
            offset: 0,
            limit: 1,
        })
        .await
        .expect_err("no ruleset");
    assert!(status.message().starts_with("ruleset"));
    // Nothing refused was recorded.
    assert_eq!(rating(c, "a").await.games, 0);
}

/// One `ReportResults` call that must be answered; its answers, one per game.
async fn report_batch(
    c: &mut RatingsClient<Channel>,
    results: Vec<pb::ReportResultRequest>,
) -> Vec<pb::ReportedResult> {
    c.report_results(pb::ReportResultsRequest { results })
        .await
        .expect("batch")
        .into_inner()
        .results
}

/// One `ReportResult` in a task of its own.
fn spawn_report(
    running: &Running,
    request: pb::ReportResultRequest,
) -> tokio::task::JoinHandle<Result<tonic::Response<pb::ReportResultResponse>, tonic::Status>> {
    let mut c = running.client.clone();
    tokio::spawn(async move { c.report_result(request).await })
}

/// Concurrent reports touching the same player all land: optimistic retries, no lost update.
async fn concurrent(backend: Backend) {
    let running = start(backend).await;
    let games = 12;
    let mut tasks = Vec::new();
    for g in 0..games {
        let players = vec![player("hub", 0), player(&format!("p{g}"), 1)];
        tasks.push(spawn_report(&running, report(&format!("c{g}"), players)));
    }
    let mut aborted = 0;
    for task in tasks {
        match task.await.expect("task") {
            Ok(_) => {}
            Err(status) if status.code() == Code::Aborted => aborted += 1,
            Err(status) => panic!("{status:?}"),
        }
    }
    let mut c = running.client.clone();
    let hub = rating(&mut c, "hub").await;
    assert_eq!(hub.games, games - aborted);
}

/// A batch of game ends (one `ReportResults`, as game-state sends them): each game as its own
/// `ReportResult` would be, in order, so one player's games in a batch rate one after
/// another; a repeat answers the original; a refused game fails alone.
async fn batched(backend: Backend) {
    let running = start(backend).await;
    let mut c = running.client.clone();
    let mut bad = report("b-bad", vec![player("hub", 0)]);
    bad.ruleset = "Not A Ruleset".into();
    let batch = vec![
        report("b1", vec![player("hub", 0), player("rim1", 1)]),
        report("b2", vec![player("hub", 0), player("rim2", 1)]),
        bad,
        report("b1", vec![player("hub", 1), player("rim1", 0)]),
    ];
    let answers = report_batch(&mut c, batch).await;
    assert_eq!(answers.len(), 4, "one answer per game, in order");
    let first = answers[0].result.as_ref().expect("b1 recorded");
    assert!(first.newly_recorded);
    assert_eq!(changes(first)[0], ("hub".into(), 1200.0, 1216.0));
    let second = answers[1].result.as_ref().expect("b2 recorded");
    assert_eq!(
        changes(second)[0].1,
        1216.0,
        "b2 rated hub after b1, in the batch's order"
    );
    assert_eq!(answers[2].code, Code::InvalidArgument as i32, "{answers:?}");
    assert!(answers[2].message.starts_with("ruleset"), "{answers:?}");
    assert!(answers[2].result.is_none());
    let repeat = answers[3].result.as_ref().expect("b1 again");
    assert!(!repeat.newly_recorded, "a game is rated once");
    assert_eq!(changes(repeat), changes(first), "the original result");
    assert_eq!(rating(&mut c, "hub").await.games, 2);

    let redelivered = report_batch(
        &mut c,
        vec![report("b2", vec![player("hub", 0), player("rim2", 1)])],
    )
    .await;
    assert!(!redelivered[0].result.as_ref().expect("b2").newly_recorded);
    assert_eq!(rating(&mut c, "hub").await.games, 2);
    let status = c
        .report_results(pb::ReportResultsRequest {
            results: vec![report("b3", vec![player("x", 0), player("y", 1)]); 1001],
        })
        .await
        .expect_err("too many");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
}

/// Batches racing single reports over the same player: the bulk write stops where another
/// writer got in first and its remaining games go one by one, so every game lands once and
/// no update is lost (the hub's game count is every game that was not refused as contended).
async fn batches_racing_single_reports(backend: Backend) {
    let running = start(backend).await;
    let mut tasks = Vec::new();
    for b in 0..4 {
        let mut c = running.client.clone();
        tasks.push(tokio::spawn(async move {
            let batch = (0..10)
                .map(|g| {
                    report(
                        &format!("bulk{b}-{g}"),
                        vec![player("hub", 0), player(&format!("r{b}-{g}"), 1)],
                    )
                })
                .collect();
            let answers = report_batch(&mut c, batch).await;
            assert_eq!(answers.len(), 10);
            answers
                .iter()
                .map(|a| match (a.result.as_ref(), Code::from(a.code)) {
                    (Some(result), Code::Ok) => {
                        assert!(result.newly_recorded, "{a:?}");
                        (1, 0)
                    }
                    (None, Code::Aborted) => (0, 1),
                    _ => panic!("{a:?}"),
                })
                .fold((0, 0), |(r, x), (r2, x2)| (r + r2, x + x2))
        }));
    }
    let mut singles = Vec::new();
    for g in 0..10 {
        let players = vec![player("hub", 1), player(&format!("s{g}"), 0)];
        singles.push(spawn_report(&running, report(&format!("one{g}"), players)));
    }
    let mut landed = 0;
    for task in tasks {
        let (recorded, aborted) = task.await.expect("task");
        assert_eq!(recorded + aborted, 10);
        landed += recorded;
    }
    for task in singles {
        match task.await.expect("task") {
            Ok(response) => {
                assert!(response.into_inner().newly_recorded);
                landed += 1;
            }
            Err(status) if status.code() == Code::Aborted => {}
            Err(status) => panic!("{status:?}"),
        }
    }
    let mut c = running.client.clone();
    assert_eq!(rating(&mut c, "hub").await.games, landed);
    assert!(landed >= 10, "most games land: {landed} of 50");
}

fn redis() -> RedisServer {
    RedisServer::start().unwrap_or_else(|e| panic!("{e}"))
}

fn bounded<F: std::future::Future>(f: F) -> tokio::time::Timeout<F> {
    tokio::time::timeout(Duration::from_secs(20), f)
}

#[tokio::test]
async fn memory_backend() {
    bounded(scenario(Backend::memory())).await.expect("in time");
    bounded(concurrent(Backend::memory()))
        .await
        .expect("in time");
    bounded(batched(Backend::memory())).await.expect("in time");
    bounded(batches_racing_single_reports(Backend::memory()))
        .await
        .expect("in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_backend() {
    let server = redis();
    let backend = server.backend("r1:").await.expect("connect");
    bounded(scenario(backend)).await.expect("in time");
    let backend = server.backend("r2:").await.expect("connect");
    bounded(concurrent(backend)).await.expect("in time");
    let backend = server.backend("r3:").await.expect("connect");
    bounded(batched(backend)).await.expect("in time");
    let backend = server.backend("r4:").await.expect("connect");
    bounded(batches_racing_single_reports(backend))
        .await
        .expect("in time");
}
