//! The conformance suite on a real Redis: a `redis-server` child on a free port (it must be on
//! PATH: this test fails rather than skips), each property under its own key prefix.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ludus_store::testing::RedisServer;
/// A bound so a broken feed fails instead of hanging.
fn bounded<F: std::future::Future>(f: F) -> tokio::time::Timeout<F> {
    tokio::time::timeout(Duration::from_secs(5), f)
}

use ludus_store::{Commit, FeedError, GameFeed, GameStore, conformance};

fn server() -> RedisServer {
    RedisServer::start().unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_conformance() {
    let server = server();
    let next = AtomicUsize::new(0);
    conformance::run_all(|| {
        let prefix = format!("c{}:", next.fetch_add(1, Ordering::Relaxed));
        let server = &server;
        async move { server.backend(&prefix).await.expect("connect to redis") }
    })
    .await;
    assert_eq!(next.load(Ordering::Relaxed), conformance::NAMES.len());
}

/// The feed survives its connection being killed: subscribers see Lagged (so they re-read the
/// log) and then receive new events on the automatically restored subscription.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feed_survives_reconnect() {
    let server = server();
    let backend = server.backend("r:").await.expect("connect");
    let games = GameStore::new(backend.clone());
    let feed = GameFeed::new(backend);
    games.create("g", b"m", b"s", b"e1").await.expect("create");
    let mut sub = feed.subscribe("g").await.expect("subscribe");

    let client = redis::Client::open(server.url()).expect("client");
    let mut admin = client
        .get_multiplexed_async_connection()
        .await
        .expect("admin connection");
    let killed: i64 = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("TYPE")
        .arg("pubsub")
        .query_async(&mut admin)
        .await
        .expect("client kill");
    assert_eq!(killed, 1, "the feed's pub/sub connection");

    assert_eq!(
        bounded(sub.recv()).await.expect("lag signal"),
        Err(FeedError::Lagged(0))
    );
    // Wait (bounded) until the subscription is back on the server.
    bounded(async {
        loop {
            let (_, n): (String, i64) = redis::cmd("PUBSUB")
                .arg("NUMSUB")
                .arg("r:ludus:game:{g}:live")
                .query_async(&mut admin)
                .await
                .expect("numsub");
            if n == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("resubscribed");
    let commit = Commit {
        expected_seq: 1,
        action_id: None,
        state: b"s2",
        event: b"e2",
    };
    games.commit("g", commit).await.expect("commit");
    loop {
        match bounded(sub.recv()).await.expect("event after reconnect") {
            Ok(e) => {
                assert_eq!(e.seq, 2);
                break;
            }
            Err(FeedError::Lagged(_)) => continue,
            Err(FeedError::Closed) => panic!("feed closed"),
        }
    }
}

/// Matched and cancelled tickets expire on Redis (queued ones never do).
#[tokio::test]
async fn finished_tickets_expire() {
    use ludus_store::{QueueStore, Ticket, TicketStatus};
    let server = server();
    let queues = QueueStore::new(server.backend("x:").await.expect("connect"));
    for (id, player) in [("a", "pa"), ("b", "pb"), ("c", "pc")] {
        let t = Ticket {
            ticket_id: id.into(),
            queue: "q".into(),
            player_id: player.into(),
            payload: Vec::new(),
            created_ms: 1,
            status: TicketStatus::Queued,
        };
        queues.enqueue(&t).await.expect("enqueue");
    }
    assert!(queues.take("q", &["a".into()], "g").await.expect("take"));
    queues.cancel("b", "q", "pb").await.expect("cancel");
    let client = redis::Client::open(server.url()).expect("client");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("connect");
    for (id, finished) in [("a", true), ("b", true), ("c", false)] {
        let ttl: i64 = redis::cmd("TTL")
            .arg(format!("x:ludus:{{mm:q}}:ticket:{id}"))
            .query_async(&mut conn)
            .await
            .expect("ttl");
        if finished {
            assert!(
                ttl > 0 && ttl <= ludus_store::FINISHED_TICKET_TTL_SECS as i64,
                "{id}: {ttl}"
            );
        } else {
            assert_eq!(ttl, -1, "a queued ticket must not expire");
        }
    }
}
