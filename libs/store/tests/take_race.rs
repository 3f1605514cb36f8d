//! Property: matchers racing on a real Redis with batched claims (`take_tables`, as each
//! matchmaking replica's matcher claims a round) never put a ticket in two games, and every
//! ticket ends either queued or matched into exactly the table that took it.

use std::collections::HashMap;

use futures::future::join_all;
use ludus_store::testing::RedisServer;
use ludus_store::{QueueStore, TableClaim, Ticket, TicketStatus};
use proptest::prelude::*;

/// Each racer's pairing: a permutation of the ticket indices, paired off in order.
fn racers() -> impl Strategy<Value = (usize, Vec<Vec<usize>>)> {
    (4usize..40).prop_flat_map(|n| {
        let order = Just((0..n).collect::<Vec<usize>>()).prop_shuffle();
        (Just(n), proptest::collection::vec(order, 2..6))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn racing_batched_claims_never_match_a_ticket_twice((n, orders) in racers()) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(race(n, orders));
    }
}

async fn race(n: usize, orders: Vec<Vec<usize>>) {
    let server = RedisServer::start().unwrap_or_else(|e| panic!("{e}"));
    // One store (one connection) per racer, as separate replicas have.
    let mut stores = Vec::new();
    for _ in &orders {
        stores.push(QueueStore::new(
            server.backend("race:").await.expect("connect"),
        ));
    }
    for i in 0..n {
        let ticket = Ticket {
            ticket_id: format!("t{i}"),
            queue: "qu".into(),
            player_id: format!("p{i}"),
            payload: b"{}".to_vec(),
            created_ms: i as u64,
            status: TicketStatus::Queued,
        };
        stores[0].enqueue(&ticket).await.expect("enqueue");
    }
    let batches: Vec<Vec<TableClaim>> = orders
        .iter()
        .enumerate()
        .map(|(r, order)| {
            order
                .chunks_exact(2)
                .enumerate()
                .map(|(k, pair)| TableClaim {
                    game_id: format!("g{r}-{k}"),
                    ticket_ids: pair.iter().map(|i| format!("t{i}")).collect(),
                })
                .collect()
        })
        .collect();
    let results = join_all(
        batches
            .iter()
            .zip(&stores)
            .map(
                |(batch, store)| async move { store.take_tables("qu", batch).await.expect("take") },
            ),
    )
    .await;
    let mut game_of = HashMap::new();
    for (batch, taken) in batches.iter().zip(results) {
        assert_eq!(batch.len(), taken.len());
        for (table, won) in batch.iter().zip(taken) {
            if won {
                for id in &table.ticket_ids {
                    assert!(
                        game_of.insert(id.clone(), table.game_id.clone()).is_none(),
                        "ticket {id} is in two games"
                    );
                }
            }
        }
    }
    // The first racer's script ran whole before any other: its every table was taken.
    assert!(!game_of.is_empty(), "some racer took its tables");
    for i in 0..n {
        let id = format!("t{i}");
        let ticket = stores[0]
            .ticket("qu", &id)
            .await
            .expect("read")
            .expect("exists");
        match (&ticket.status, game_of.get(&id)) {
            (TicketStatus::Matched { game_id, .. }, Some(game)) => assert_eq!(game_id, game),
            (TicketStatus::Queued, None) => {}
            (status, game) => panic!("ticket {id}: {status:?}, taken into {game:?}"),
        }
    }
    let queued = stores[0].queued("qu", n).await.expect("queued");
    assert_eq!(queued.len() + game_of.len(), n);
}
