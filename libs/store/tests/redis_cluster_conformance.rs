//! The conformance suite on a real local Redis Cluster (three masters started by
//! `testing::RedisCluster`: `redis-server` and `redis-cli` must be on PATH; this test fails
//! rather than skips), and what only a cluster shows: live events published on one node reach
//! subscribers connected through another, and the timers and tickets spread over the masters.

use std::collections::HashMap;
use std::time::Duration;

use ludus_store::testing::{CLUSTER_MASTERS, RedisCluster};
use ludus_store::{
    Commit, GameFeed, GameStore, QueueStore, TIMER_SHARDS, Ticket, TicketStatus, TimerStore,
    conformance,
};

fn cluster() -> RedisCluster {
    RedisCluster::start().unwrap_or_else(|e| panic!("{e}"))
}

/// A bound so a broken feed fails instead of hanging.
fn bounded<F: std::future::Future>(f: F) -> tokio::time::Timeout<F> {
    tokio::time::timeout(Duration::from_secs(5), f)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_cluster_conformance() {
    let cluster = cluster();
    conformance::run_all_prefixed(|prefix| {
        let cluster = &cluster;
        async move {
            let backend = cluster
                .backend(&prefix)
                .await
                .expect("connect to the cluster");
            assert!(backend.is_redis_cluster());
            backend
        }
    })
    .await;
}

/// Games whose keys live on every master: each one's subscriber, connected through one node
/// only, receives the events committed by a writer connected through another node only (the
/// sharded channel of a game is on its keys' master, whichever node the client named).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_events_cross_nodes() {
    let cluster = cluster();
    let nodes: Vec<String> = cluster
        .node_urls()
        .iter()
        .map(|url| {
            url.trim_start_matches("redis://")
                .trim_end_matches('/')
                .to_owned()
        })
        .collect();
    let through = |node: &str| format!("redis+cluster://{node}");
    let writer = ludus_store::Backend::redis_with_prefix(&through(&nodes[0]), "x:")
        .await
        .expect("writer");
    let reader = ludus_store::Backend::redis_with_prefix(&through(&nodes[2]), "x:")
        .await
        .expect("reader");
    let games = GameStore::new(writer);
    let feed = GameFeed::new(reader);
    let ids: Vec<String> = (0..24).map(|i| format!("g{i}")).collect();
    let mut subs = Vec::new();
    for id in &ids {
        games.create(id, b"m", b"s", b"e1").await.expect("create");
        subs.push(feed.subscribe(id).await.expect("subscribe"));
    }
    for id in &ids {
        let commit = Commit {
            expected_seq: 1,
            action_id: None,
            state: b"s2",
            event: id.as_bytes(),
            version: None,
            expected_version: None,
        };
        games
            .commit(id, commit)
            .await
            .expect("commit")
            .expect("the commit lands");
    }
    for (id, sub) in ids.iter().zip(&mut subs) {
        let event = bounded(sub.recv())
            .await
            .unwrap_or_else(|_| panic!("{id}'s event arrives"))
            .expect("event");
        assert_eq!((event.seq, event.payload.as_slice()), (2, id.as_bytes()));
    }
    // The games really are on more than one master.
    let per_node = keys_per_node(&cluster, "x:ludus:game:*:state").await;
    assert!(
        per_node.values().filter(|n| **n > 0).count() > 1,
        "games on one node only: {per_node:?}"
    );
}

/// The feed survives its connections being killed on every node: subscribers see Lagged (so
/// they re-read the log), and the cluster connection subscribes the sharded channel again on
/// its master, where the next event arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feed_survives_reconnect_on_a_cluster() {
    let cluster = cluster();
    let backend = cluster.backend("r:").await.expect("connect");
    let (games, _feed, mut sub) = conformance::subscribed_game(backend).await;
    let mut killed = 0;
    for url in cluster.node_urls() {
        killed += conformance::kill_pubsub_clients(&mut node(&url).await).await;
    }
    assert!(
        killed >= 1,
        "the feed's pub/sub connection to the game's master"
    );
    conformance::lag_signalled(&mut sub).await;
    // Some node has the sharded subscription back.
    conformance::resubscribed(async || {
        let mut back = 0;
        for url in cluster.node_urls() {
            let (_, n): (String, i64) = redis::cmd("PUBSUB")
                .arg("SHARDNUMSUB")
                .arg("r:ludus:game:{g}:live")
                .query_async(&mut node(&url).await)
                .await
                .expect("shardnumsub");
            back += n;
        }
        back
    })
    .await;
    conformance::commit_reaches_restored_subscription(&games, &mut sub).await;
}

/// Timers and matchmaking tickets spread over the masters: no one node takes every timer and
/// every ticket (the `{timers:N}` shards and the per-queue `{mm:QUEUE}` tags).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timers_and_tickets_spread_over_masters() {
    let cluster = cluster();
    let backend = cluster.backend("s:").await.expect("connect");
    let timers = TimerStore::new(backend.clone());
    for i in 0..200 {
        timers
            .arm(&format!("turn/g{i}/1"), b"p", 1_000 + i)
            .await
            .expect("arm");
    }
    let queues = QueueStore::new(backend);
    for i in 0..60 {
        let ticket = Ticket {
            ticket_id: format!("t{i}"),
            queue: format!("caro-{}", i % 12),
            player_id: format!("p{i}"),
            payload: Vec::new(),
            created_ms: i,
            status: TicketStatus::Queued,
        };
        queues.enqueue(&ticket).await.expect("enqueue");
    }
    let timer_nodes = keys_per_node(&cluster, "s:ludus:{timers:*}:due").await;
    let ticket_nodes = keys_per_node(&cluster, "s:ludus:{mm:*}:ticket:*").await;
    assert_eq!(
        timer_nodes.values().sum::<usize>(),
        TIMER_SHARDS,
        "every shard holds timers: {timer_nodes:?}"
    );
    for (what, per_node) in [("timer shards", &timer_nodes), ("tickets", &ticket_nodes)] {
        let busiest = per_node.values().copied().max().unwrap_or(0);
        let total: usize = per_node.values().sum();
        assert!(
            per_node.values().filter(|n| **n > 0).count() > 1 && busiest < total,
            "{what} all on one of {CLUSTER_MASTERS} masters: {per_node:?}"
        );
    }
    // Claims still see every shard, earliest first.
    let claimed = timers.claim_due(1_099, 60_000, 1_000).await.expect("claim");
    assert_eq!(claimed.len(), 100);
    assert!(claimed.windows(2).all(|w| w[0].due_ms <= w[1].due_ms));
    // The claimed hundred are scored at their claim deadline now, past 10 000.
    assert_eq!(timers.counts(10_000).await.expect("counts"), (200, 100));
}

/// How many keys matching `pattern` each master holds (KEYS on each node alone: a node
/// answers for its own slots only).
async fn keys_per_node(cluster: &RedisCluster, pattern: &str) -> HashMap<String, usize> {
    let mut per_node = HashMap::new();
    for url in cluster.node_urls() {
        let mut conn = node(&url).await;
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(pattern)
            .query_async(&mut conn)
            .await
            .expect("KEYS");
        per_node.insert(url, keys.len());
    }
    per_node
}

/// A connection to one node alone (it answers for its own slots only).
async fn node(url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(url)
        .expect("node url")
        .get_multiplexed_async_connection()
        .await
        .expect("connect to one node")
}
