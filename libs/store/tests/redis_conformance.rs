//! The conformance suite on a real Redis: a `redis-server` child on a free port (it must be on
//! PATH: this test fails rather than skips), each property under its own key prefix.
use ludus_store::conformance;
use ludus_store::testing::RedisServer;

fn server() -> RedisServer {
    RedisServer::start().unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_conformance() {
    let server = server();
    conformance::run_all_prefixed(|prefix| {
        let server = &server;
        async move { server.backend(&prefix).await.expect("connect to redis") }
    })
    .await;
}

/// The feed survives its connection being killed: subscribers see Lagged (so they re-read the
/// log) and then receive new events on the automatically restored subscription.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feed_survives_reconnect() {
    let server = server();
    let backend = server.backend("r:").await.expect("connect");
    let (games, _feed, mut sub) = conformance::subscribed_game(backend).await;

    let client = redis::Client::open(server.url()).expect("client");
    let mut admin = client
        .get_multiplexed_async_connection()
        .await
        .expect("admin connection");
    let killed = conformance::kill_pubsub_clients(&mut admin).await;
    assert_eq!(killed, 1, "the feed's pub/sub connection");

    conformance::lag_signalled(&mut sub).await;
    // The subscription is back on the server.
    conformance::resubscribed(async || {
        let (_, n): (String, i64) = redis::cmd("PUBSUB")
            .arg("NUMSUB")
            .arg("r:ludus:game:{g}:live")
            .query_async(&mut admin)
            .await
            .expect("numsub");
        n
    })
    .await;
    conformance::commit_reaches_restored_subscription(&games, &mut sub).await;
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
