//! The matchmaking queues ([`crate::QueueStore`]): one live ticket per player, all-or-nothing takes, the matching lease, notices, proposals and their confirmations, cancels.

use std::collections::HashSet;
use std::time::Duration;

use futures::future::join_all;

use super::{RACERS, RECV_BOUND, ids};
use crate::{
    Backend, Confirmation, EnqueueOutcome, QueueStore, SeatConfirmation, TableClaim, TableOutcome,
    TableProposal, Ticket, TicketChange, TicketNotice, TicketProposal, TicketStatus,
};

fn ticket(queue: &str, id: &str, player: &str, created_ms: u64) -> Ticket {
    Ticket {
        ticket_id: id.to_owned(),
        queue: queue.to_owned(),
        player_id: player.to_owned(),
        payload: format!(r#"{{"name":"{player}","rating":1500}}"#).into_bytes(),
        created_ms,
        status: TicketStatus::Queued,
    }
}

/// Enqueues a fresh ticket (see [`ticket`]); the store must answer.
async fn enqueue(
    q: &QueueStore,
    queue: &str,
    id: &str,
    player: &str,
    created_ms: u64,
) -> EnqueueOutcome {
    q.enqueue(&ticket(queue, id, player, created_ms))
        .await
        .expect("enqueue")
}

/// Enqueued tickets are listed oldest first per queue; queues() names non-empty queues.
pub async fn queue_enqueue_and_list(backend: Backend) {
    let q = QueueStore::new(backend);
    assert!(q.queues().await.expect("queues").is_empty());
    assert!(q.queued("caro", 10).await.expect("queued").is_empty());
    for (id, player, created) in [("t2", "p2", 20), ("t1", "p1", 10), ("t3", "p3", 30)] {
        let outcome = enqueue(&q, "caro", id, player, created).await;
        assert_eq!(outcome, EnqueueOutcome::Queued);
    }
    enqueue(&q, "quoridor", "t9", "p9", 5).await;
    assert_eq!(q.queues().await.expect("queues"), vec!["caro", "quoridor"]);
    let listed = q.queued("caro", 10).await.expect("queued");
    assert_eq!(
        listed
            .iter()
            .map(|t| t.ticket_id.as_str())
            .collect::<Vec<_>>(),
        ["t1", "t2", "t3"]
    );
    assert_eq!(listed[0], ticket("caro", "t1", "p1", 10));
    assert_eq!(q.queued("caro", 2).await.expect("queued").len(), 2);
    assert!(q.queued("caro", 0).await.expect("queued").is_empty());
    assert_eq!(
        q.ticket("caro", "t2").await.expect("ticket"),
        Some(ticket("caro", "t2", "p2", 20))
    );
    assert_eq!(q.ticket("caro", "nope").await.expect("ticket"), None);
    assert_eq!(q.ticket("quoridor", "t1").await.expect("ticket"), None);
    assert!(q.take("quoridor", &ids(&["t9"]), "g").await.expect("take"));
    assert_eq!(q.queues().await.expect("queues"), vec!["caro"]);
}

/// A player holds at most one queued ticket across queues; a matched ticket frees them.
pub async fn queue_one_live_ticket_per_player(backend: Backend) {
    let q = QueueStore::new(backend);
    assert_eq!(q.live_ticket("p1").await.expect("live"), None);
    enqueue(&q, "caro", "t1", "p1", 10).await;
    assert_eq!(
        q.live_ticket("p1").await.expect("live"),
        Some(("caro".to_owned(), "t1".to_owned()))
    );
    let again = EnqueueOutcome::AlreadyQueued {
        ticket_id: "t1".into(),
    };
    assert_eq!(enqueue(&q, "caro", "t1", "p1", 10).await, again);
    assert_eq!(enqueue(&q, "caro", "t2", "p1", 11).await, again);
    assert_eq!(enqueue(&q, "mancala", "t3", "p1", 12).await, again);
    assert_eq!(q.queued("caro", 10).await.expect("queued").len(), 1);
    assert!(q.queued("mancala", 10).await.expect("queued").is_empty());
    enqueue(&q, "caro", "t4", "p2", 13).await;
    assert!(
        q.take("caro", &ids(&["t1", "t4"]), "g1")
            .await
            .expect("take")
    );
    assert_eq!(q.live_ticket("p1").await.expect("live"), None);
    // A retried enqueue of the matched ticket must not re-queue it.
    let retry = enqueue(&q, "caro", "t1", "p1", 10).await;
    assert_eq!(retry, again);
    assert!(q.queued("caro", 10).await.expect("queued").is_empty());
    // A new ticket is fine once matched.
    assert_eq!(
        enqueue(&q, "caro", "t5", "p1", 14).await,
        EnqueueOutcome::Queued
    );
}

/// A leased enqueue writes the ticket's lease with it (what a `keep_alive` right after would
/// write), and `ticket_and_lease` reads both back; a refused enqueue writes no lease, neither
/// on the existing ticket nor under the new id.
/// Both refusals go past the enqueue's first guess (an empty player index).
pub async fn queue_enqueue_leased_writes_the_lease_with_the_ticket(backend: Backend) {
    let q = QueueStore::new(backend);
    let leased = q
        .enqueue_leased(&ticket("caro", "t1", "p1", 10), 5_000)
        .await
        .expect("enqueue");
    assert_eq!(leased, EnqueueOutcome::Queued);
    assert_eq!(
        enqueue(&q, "caro", "t2", "p2", 11).await,
        EnqueueOutcome::Queued
    );
    let leases = q.lease_ends("caro", &["t1", "t2"]).await.expect("leases");
    assert_eq!(leases, [Some(5_000), None]);
    let read = q.ticket_and_lease("caro", "t1").await.expect("read");
    assert_eq!(read, Some((ticket("caro", "t1", "p1", 10), Some(5_000))));
    let read = q.ticket_and_lease("caro", "t2").await.expect("read");
    assert_eq!(read, Some((ticket("caro", "t2", "p2", 11), None)));
    let read = q.ticket_and_lease("caro", "t9").await.expect("read");
    assert_eq!(read, None);
    let held = EnqueueOutcome::AlreadyQueued {
        ticket_id: "t1".into(),
    };
    for id in ["t1", "t3"] {
        let again = q
            .enqueue_leased(&ticket("caro", id, "p1", 12), 9_000)
            .await
            .expect("enqueue");
        assert_eq!(again, held, "{id}");
    }
    let leases = q.lease_ends("caro", &["t1", "t3"]).await.expect("leases");
    assert_eq!(leases, [Some(5_000), None]);
    assert_eq!(q.queued("caro", 10).await.expect("queued").len(), 2);
}

/// One player enqueuing into many queues at once (a client racing itself, or two devices)
/// ends with exactly one queued ticket, and every other enqueue names that one; after it is
/// cancelled the player may queue again.
pub async fn queue_concurrent_enqueues_of_one_player_queue_one(backend: Backend) {
    let q = QueueStore::new(backend);
    let outcomes = join_all((0..RACERS).map(|i| {
        let q = q.clone();
        async move {
            let t = ticket(&format!("q{i}"), &format!("t{i}"), "p", i as u64);
            (i, q.enqueue(&t).await.expect("enqueue"))
        }
    }))
    .await;
    let queued: Vec<usize> = outcomes
        .iter()
        .filter(|(_, o)| *o == EnqueueOutcome::Queued)
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(queued.len(), 1, "exactly one enqueue queued: {outcomes:?}");
    let winner = queued[0];
    let mut listed = 0;
    for i in 0..RACERS {
        listed += q.queued(&format!("q{i}"), 10).await.expect("queued").len();
    }
    assert_eq!(listed, 1, "one queued ticket across every queue");
    let live = (format!("q{winner}"), format!("t{winner}"));
    assert_eq!(q.live_ticket("p").await.expect("live"), Some(live.clone()));
    for (i, outcome) in &outcomes {
        if *i != winner {
            // Either the winner, or (its own ticket tombstoned under it) its own id.
            assert!(
                *outcome
                    == EnqueueOutcome::AlreadyQueued {
                        ticket_id: live.1.clone()
                    }
                    || *outcome
                        == EnqueueOutcome::AlreadyQueued {
                            ticket_id: format!("t{i}")
                        },
                "{i}: {outcome:?}"
            );
        }
    }
    q.cancel(&live.1, &live.0, "p").await.expect("cancel");
    assert_eq!(q.live_ticket("p").await.expect("live"), None);
    assert!(q.queues().await.expect("queues").is_empty());
    assert_eq!(
        enqueue(&q, "again", "t-again", "p", 100).await,
        EnqueueOutcome::Queued
    );
}

/// take matches all the tickets, seats in slice order, or changes nothing.
pub async fn queue_take_all_or_nothing(backend: Backend) {
    let q = QueueStore::new(backend);
    for (id, player) in [("a", "pa"), ("b", "pb"), ("c", "pc")] {
        enqueue(&q, "qu", id, player, 1).await;
    }
    assert!(
        !q.take("qu", &ids(&["a", "missing"]), "g0")
            .await
            .expect("take")
    );
    assert!(!q.take("other", &ids(&["a"]), "g0").await.expect("take"));
    assert!(!q.take("qu", &ids(&["a", "a"]), "g0").await.expect("take"));
    assert!(!q.take("qu", &[], "g0").await.expect("take"));
    assert_eq!(q.queued("qu", 10).await.expect("queued").len(), 3);
    assert!(q.take("qu", &ids(&["c", "a"]), "g1").await.expect("take"));
    let c = q.ticket("qu", "c").await.expect("ticket").expect("c");
    assert_eq!(
        c.status,
        TicketStatus::Matched {
            game_id: "g1".into(),
            seat: 0,
            table: ids(&["c", "a"]),
        }
    );
    let a = q.ticket("qu", "a").await.expect("ticket").expect("a");
    assert_eq!(
        a.status,
        TicketStatus::Matched {
            game_id: "g1".into(),
            seat: 1,
            table: ids(&["c", "a"]),
        }
    );
    assert!(!q.take("qu", &ids(&["b", "a"]), "g2").await.expect("take"));
    let b = q.ticket("qu", "b").await.expect("ticket").expect("b");
    assert_eq!(b.status, TicketStatus::Queued);
    let left = q.queued("qu", 10).await.expect("queued");
    assert_eq!(
        left.iter()
            .map(|t| t.ticket_id.as_str())
            .collect::<Vec<_>>(),
        ["b"]
    );
    assert_eq!(
        q.live_ticket("pb").await.expect("live"),
        Some(("qu".into(), "b".into()))
    );
}

/// Concurrent takes of overlapping ticket sets never put a ticket in two matches.
pub async fn queue_concurrent_overlapping_takes(backend: Backend) {
    let q = QueueStore::new(backend);
    let n = 12;
    for i in 0..n {
        enqueue(&q, "qu", &format!("t{i}"), &format!("p{i}"), i).await;
    }
    // Racer r wants tickets r and r+1 (mod n): neighbours overlap.
    let results = join_all((0..RACERS).map(|r| {
        let q = q.clone();
        let pair = vec![
            format!("t{}", r % n as usize),
            format!("t{}", (r + 1) % n as usize),
        ];
        async move { (q.take("qu", &pair, &format!("g{r}")).await, pair) }
    }))
    .await;
    let mut matched = HashSet::new();
    for (ok, pair) in results {
        if ok.expect("take") {
            for id in pair {
                assert!(matched.insert(id.clone()), "ticket {id} matched twice");
            }
        }
    }
    assert!(!matched.is_empty());
    for i in 0..n {
        let id = format!("t{i}");
        let t = q.ticket("qu", &id).await.expect("ticket").expect("exists");
        assert_eq!(
            matches!(t.status, TicketStatus::Matched { .. }),
            matched.contains(&id)
        );
    }
    let queued = q.queued("qu", 100).await.expect("queued");
    assert_eq!(queued.len() + matched.len(), n as usize);
}

fn claim(game: &str, list: &[&str]) -> TableClaim {
    TableClaim {
        game_id: game.to_owned(),
        ticket_ids: ids(list),
    }
}

/// One batched take decides each table on its own, in order: a table loses if any ticket is
/// not queued (or was taken by an earlier table of the same batch), and a lost table changes
/// nothing.
pub async fn queue_take_tables_each_table_alone(backend: Backend) {
    let q = QueueStore::new(backend);
    for (i, id) in ["a", "b", "c", "d", "e", "f", "g"].iter().enumerate() {
        enqueue(&q, "qu", id, &format!("p{id}"), i as u64).await;
    }
    let taken = q
        .take_tables(
            "qu",
            &[
                claim("g1", &["b", "a"]),
                claim("g2", &["b", "c"]),
                claim("g3", &["d", "missing"]),
                claim("g4", &["f", "e"]),
                claim("g5", &[]),
                claim("g6", &["g", "g"]),
            ],
        )
        .await
        .expect("take tables");
    assert_eq!(taken, [true, false, false, true, false, false]);
    let status = |id: &'static str| {
        let q = q.clone();
        async move {
            q.ticket("qu", id)
                .await
                .expect("read")
                .expect("exists")
                .status
        }
    };
    assert_eq!(
        status("a").await,
        TicketStatus::Matched {
            game_id: "g1".into(),
            seat: 1,
            table: ids(&["b", "a"]),
        }
    );
    assert_eq!(
        status("e").await,
        TicketStatus::Matched {
            game_id: "g4".into(),
            seat: 1,
            table: ids(&["f", "e"]),
        }
    );
    for id in ["c", "d", "g"] {
        assert_eq!(status(id).await, TicketStatus::Queued, "{id} stays queued");
    }
    let queued: Vec<String> = q
        .queued("qu", 10)
        .await
        .expect("queued")
        .into_iter()
        .map(|t| t.ticket_id)
        .collect();
    assert_eq!(queued, ids(&["c", "d", "g"]));
    assert_eq!(q.live_ticket("pa").await.expect("live"), None);
    assert_eq!(
        q.live_ticket("pc").await.expect("live"),
        Some(("qu".into(), "c".into()))
    );
}

/// Racers each claim a batch of overlapping tables at once (as matchers on several replicas
/// would): no ticket is in two taken tables, and each matched ticket names the table that
/// took it.
pub async fn queue_concurrent_batched_takes_never_match_twice(backend: Backend) {
    let q = QueueStore::new(backend);
    let n = 40usize;
    for i in 0..n {
        enqueue(&q, "qu", &format!("t{i}"), &format!("p{i}"), i as u64).await;
    }
    // Racer r pairs ticket i with ticket (i + r + 1) mod n for every i, a different pairing
    // per racer, so every batch overlaps every other.
    let batches: Vec<Vec<TableClaim>> = (0..RACERS)
        .map(|r| {
            (0..n)
                .step_by(2)
                .map(|i| TableClaim {
                    game_id: format!("g{r}-{i}"),
                    ticket_ids: vec![format!("t{i}"), format!("t{}", (i + r + 1) % n)],
                })
                .collect()
        })
        .collect();
    let results = join_all(batches.iter().map(|batch| {
        let q = q.clone();
        async move { q.take_tables("qu", batch).await.expect("take tables") }
    }))
    .await;
    let mut matched = std::collections::HashMap::new();
    for (batch, taken) in batches.iter().zip(results) {
        assert_eq!(batch.len(), taken.len());
        for (table, won) in batch.iter().zip(taken) {
            if won {
                for id in &table.ticket_ids {
                    let before = matched.insert(id.clone(), table.game_id.clone());
                    assert!(before.is_none(), "ticket {id} matched twice");
                }
            }
        }
    }
    assert!(!matched.is_empty());
    for i in 0..n {
        let id = format!("t{i}");
        let t = q.ticket("qu", &id).await.expect("ticket").expect("exists");
        match (&t.status, matched.get(&id)) {
            (TicketStatus::Matched { game_id, .. }, Some(game)) => assert_eq!(game_id, game),
            (TicketStatus::Queued, None) => {}
            (status, game) => panic!("ticket {id}: {status:?} but taken into {game:?}"),
        }
    }
}

/// A queue's matching lease has one holder at a time; the holder renews it; it lapses.
pub async fn queue_lease_is_exclusive_until_it_lapses(backend: Backend) {
    let q = QueueStore::new(backend);
    let long = Duration::from_secs(30);
    assert!(q.lease_queue("qu", "r1", long).await.expect("lease"));
    assert!(!q.lease_queue("qu", "r2", long).await.expect("lease"));
    assert!(q.lease_queue("qu", "r1", long).await.expect("renew"));
    assert!(
        q.lease_queue("other", "r2", long).await.expect("lease"),
        "leases are per queue"
    );
    let short = Duration::from_millis(20);
    assert!(q.lease_queue("brief", "r1", short).await.expect("lease"));
    // Waits for the lapse (no time is asserted: the bound only ends a broken store's test).
    let lapsed = async {
        while !q.lease_queue("brief", "r2", long).await.expect("lease") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(RECV_BOUND, lapsed)
        .await
        .expect("the lease lapses");
    assert!(!q.lease_queue("brief", "r1", long).await.expect("lease"));
}

/// Settled notices reach every subscriber of every clone.
pub async fn queue_settled_notices_reach_subscribers(backend: Backend) {
    let q = QueueStore::new(backend);
    let mut first = q.subscribe_settled().await.expect("subscribe");
    let mut second = q.subscribe_settled().await.expect("subscribe");
    q.publish_settled(&ids(&["a", "b"])).await.expect("publish");
    q.publish_settled(&[]).await.expect("nothing to publish");
    q.publish_changed(&[]).await.expect("nothing to publish");
    let changes = [
        TicketChange {
            ticket_id: "c".into(),
            proposed_into: None,
        },
        TicketChange {
            ticket_id: "d".into(),
            proposed_into: Some(TicketProposal {
                game_id: "g1".into(),
                seat: 1,
                table: ids(&["x", "d"]),
            }),
        },
    ];
    q.publish_changed(&changes).await.expect("publish");
    for sub in [&mut first, &mut second] {
        let got = tokio::time::timeout(RECV_BOUND, sub.recv())
            .await
            .expect("in time")
            .expect("notice");
        assert_eq!(got, settled(&["a", "b"]));
        let got = tokio::time::timeout(RECV_BOUND, sub.recv())
            .await
            .expect("in time")
            .expect("notice");
        assert_eq!(got.changed, changes);
        assert!(got.settled.is_empty());
    }
}

fn settled(list: &[&str]) -> TicketNotice {
    TicketNotice {
        settled: ids(list),
        changed: Vec::new(),
    }
}

/// A notice that `list` went back to the queue, or was proposed into `game` (seat by
/// position), as [`QueueStore::publish_changed`] tells it.
fn changed(list: &[&str], game: Option<&str>) -> TicketNotice {
    TicketNotice {
        settled: Vec::new(),
        changed: (0u32..)
            .zip(list)
            .map(|(seat, id)| TicketChange {
                ticket_id: (*id).to_owned(),
                proposed_into: game.map(|g| TicketProposal {
                    game_id: g.to_owned(),
                    seat,
                    table: ids(list),
                }),
            })
            .collect(),
    }
}

/// Proposes `tables` in queue `qu`, to be confirmed by `deadline_ms`; the store must answer.
async fn propose(q: &QueueStore, tables: &[TableProposal], deadline_ms: u64) -> Vec<TableOutcome> {
    q.propose_tables("qu", tables, deadline_ms)
        .await
        .expect("propose")
}

/// A proposal of `list`'s tickets in seat order, each confirmed from the start or not.
fn proposal(game: &str, list: &[&str], confirmed: &[bool]) -> TableProposal {
    seats(
        game,
        list,
        &confirmed
            .iter()
            .map(|&c| {
                if c {
                    SeatConfirmation::FromStart
                } else {
                    SeatConfirmation::Pending
                }
            })
            .collect::<Vec<_>>(),
    )
}

fn seats(game: &str, list: &[&str], confirmed: &[SeatConfirmation]) -> TableProposal {
    TableProposal {
        claim: claim(game, list),
        confirmed: confirmed.to_vec(),
    }
}

/// The table's ticket ids of a confirmation that completed it, `None` for any other.
fn completed(confirmation: Confirmation) -> Option<Vec<String>> {
    match confirmation {
        Confirmation::Complete { tickets } => {
            assert!(
                tickets
                    .iter()
                    .all(|t| matches!(t.status, TicketStatus::Matched { .. })),
                "{tickets:?}"
            );
            Some(tickets.into_iter().map(|t| t.ticket_id).collect())
        }
        _ => None,
    }
}

/// A deadline no test reaches.
const FAR_MS: u64 = u64::MAX / 2;

async fn status_of(q: &QueueStore, id: &str) -> TicketStatus {
    q.ticket("qu", id)
        .await
        .expect("read")
        .expect("exists")
        .status
}

async fn queued_ids(q: &QueueStore) -> Vec<String> {
    q.queued("qu", 100)
        .await
        .expect("queued")
        .into_iter()
        .map(|t| t.ticket_id)
        .collect()
}

/// A proposed table leaves the queue and stays each player's live ticket; it is matched, all
/// at once, by the confirmation that completes it (a seat confirmed from the start needs
/// none); a confirmation for another game or from another player changes nothing; a table
/// whose every seat counts as confirmed is matched at once.
pub async fn queue_proposal_matches_once_every_seat_confirmed(backend: Backend) {
    let q = QueueStore::new(backend);
    for (i, id) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        enqueue(&q, "qu", id, &format!("p{id}"), i as u64).await;
    }
    let outcomes = propose(
        &q,
        &[
            proposal("g1", &["b", "a"], &[false, true]),
            proposal("g2", &["a", "c"], &[false, false]),
            proposal("g3", &["e", "d"], &[true, true]),
            proposal("g4", &["c"], &[]),
        ],
        FAR_MS,
    )
    .await;
    assert_eq!(
        outcomes,
        [
            TableOutcome::Proposed,
            TableOutcome::Lost,
            TableOutcome::Matched,
            TableOutcome::Lost
        ]
    );
    assert_eq!(
        status_of(&q, "b").await,
        TicketStatus::Proposed {
            game_id: "g1".into(),
            seat: 0,
            table: ids(&["b", "a"]),
            confirmed: false,
        }
    );
    assert!(matches!(
        status_of(&q, "a").await,
        TicketStatus::Proposed {
            confirmed: true,
            seat: 1,
            ..
        }
    ));
    assert!(matches!(
        status_of(&q, "e").await,
        TicketStatus::Matched { .. }
    ));
    assert_eq!(queued_ids(&q).await, ids(&["c"]));
    // Proposed is live: one ticket per player still holds.
    assert_eq!(
        q.live_ticket("pb").await.expect("live"),
        Some(("qu".into(), "b".into()))
    );
    assert_eq!(
        enqueue(&q, "other", "b2", "pb", 9).await,
        EnqueueOutcome::AlreadyQueued {
            ticket_id: "b".into()
        }
    );
    assert!(q.keep_alive("qu", "b", 1).await.expect("keep alive"));
    let wrong_game = q.confirm("qu", "b", "pb", "g9", 7).await.expect("confirm");
    assert!(matches!(
        wrong_game,
        Confirmation::NotProposed(Some(Ticket {
            status: TicketStatus::Proposed {
                confirmed: false,
                ..
            },
            ..
        }))
    ));
    assert_eq!(
        q.confirm("qu", "b", "intruder", "g1", 7)
            .await
            .expect("confirm"),
        Confirmation::NotProposed(None)
    );
    assert_eq!(
        completed(q.confirm("qu", "b", "pb", "g1", 7).await.expect("confirm")),
        Some(ids(&["b", "a"]))
    );
    for (id, seat) in [("b", 0), ("a", 1)] {
        assert_eq!(
            status_of(&q, id).await,
            TicketStatus::Matched {
                game_id: "g1".into(),
                seat,
                table: ids(&["b", "a"]),
            }
        );
    }
    assert_eq!(q.live_ticket("pb").await.expect("live"), None);
    assert_eq!(q.confirmed_at("qu", "b").await.expect("read"), Some(7));
    assert_eq!(
        q.confirmed_at("qu", "a").await.expect("read"),
        None,
        "confirmed from the start: no time"
    );
    assert!(matches!(
        q.confirm("qu", "b", "pb", "g1", 8)
            .await
            .expect("confirm again"),
        Confirmation::NotProposed(Some(Ticket {
            status: TicketStatus::Matched { .. },
            ..
        }))
    ));
    // A two-seat table confirmed one seat at a time.
    assert_eq!(
        enqueue(&q, "qu", "f", "pf", 10).await,
        EnqueueOutcome::Queued
    );
    let outcomes = propose(&q, &[proposal("g5", &["c", "f"], &[false, false])], FAR_MS).await;
    assert_eq!(outcomes, [TableOutcome::Proposed]);
    assert_eq!(
        q.queues().await.expect("queues"),
        ["qu"],
        "a pending proposal keeps its queue listed"
    );
    assert_eq!(
        q.confirm("qu", "f", "pf", "g5", 7).await.expect("confirm"),
        Confirmation::Waiting
    );
    assert_eq!(
        q.confirm("qu", "f", "pf", "g5", 7)
            .await
            .expect("confirm twice"),
        Confirmation::Waiting
    );
    assert!(matches!(
        status_of(&q, "c").await,
        TicketStatus::Proposed {
            confirmed: false,
            ..
        }
    ));
    assert_eq!(
        completed(q.confirm("qu", "c", "pc", "g5", 7).await.expect("confirm")),
        Some(ids(&["c", "f"]))
    );
    assert!(q.queues().await.expect("queues").is_empty());
}

/// A seat its proposer saw present (the matcher holds that player's open watch) counts as
/// confirmed at that time: a table of such seats (or of seats confirmed from the start) is
/// matched at once, and each such seat records the time as a confirmation would, whether
/// its table is matched or still waits for another seat.
pub async fn queue_seats_seen_present_are_confirmed_at_that_time(backend: Backend) {
    let q = QueueStore::new(backend);
    for (i, id) in ["a", "b", "c", "d", "e", "f"].iter().enumerate() {
        assert_eq!(
            enqueue(&q, "qu", id, &format!("p{id}"), i as u64 + 1).await,
            EnqueueOutcome::Queued
        );
    }
    use SeatConfirmation::{FromStart, Pending, PresentAt};
    let outcomes = propose(
        &q,
        &[
            seats("g1", &["b", "a"], &[PresentAt(5), PresentAt(6)]),
            seats("g2", &["c", "d"], &[PresentAt(7), Pending]),
            seats("g3", &["e", "f"], &[FromStart, PresentAt(8)]),
        ],
        FAR_MS,
    )
    .await;
    assert_eq!(
        outcomes,
        vec![
            TableOutcome::Matched,
            TableOutcome::Proposed,
            TableOutcome::Matched
        ]
    );
    assert!(matches!(
        status_of(&q, "a").await,
        TicketStatus::Matched { seat: 1, .. }
    ));
    assert_eq!(q.confirmed_at("qu", "b").await.expect("read"), Some(5));
    assert_eq!(q.confirmed_at("qu", "a").await.expect("read"), Some(6));
    assert_eq!(q.confirmed_at("qu", "f").await.expect("read"), Some(8));
    assert_eq!(
        q.confirmed_at("qu", "e").await.expect("read"),
        None,
        "confirmed from the start: no time"
    );
    assert!(matches!(
        status_of(&q, "c").await,
        TicketStatus::Proposed {
            confirmed: true,
            ..
        }
    ));
    assert!(matches!(
        status_of(&q, "d").await,
        TicketStatus::Proposed {
            confirmed: false,
            ..
        }
    ));
    assert_eq!(q.confirmed_at("qu", "c").await.expect("read"), Some(7));
    assert_eq!(q.confirmed_at("qu", "d").await.expect("read"), None);
    let confirmation = q.confirm("qu", "d", "pd", "g2", 9).await.expect("confirm");
    assert_eq!(
        completed(confirmation),
        Some(vec!["c".to_owned(), "d".to_owned()]),
        "the seat waiting completed the table"
    );
    assert_eq!(q.confirmed_at("qu", "c").await.expect("read"), Some(7));
    assert_eq!(q.confirmed_at("qu", "d").await.expect("read"), Some(9));
    assert!(queued_ids(&q).await.is_empty());
}

/// Cancelling a proposed ticket (its player left) takes the proposal down: that ticket is
/// cancelled, every other goes back to queued at its own place (the front, waiting time
/// kept), confirmations forgotten, and their watches are told.
pub async fn queue_cancelled_proposal_sends_the_others_to_the_front(backend: Backend) {
    let q = QueueStore::new(backend);
    let mut notices = q.subscribe_settled().await.expect("subscribe");
    for (i, id) in ["a", "b", "c", "d"].iter().enumerate() {
        enqueue(&q, "qu", id, &format!("p{id}"), i as u64 + 1).await;
    }
    let outcomes = propose(&q, &[proposal("g1", &["c", "a"], &[false, false])], FAR_MS).await;
    assert_eq!(outcomes, [TableOutcome::Proposed]);
    let told = tokio::time::timeout(RECV_BOUND, notices.recv())
        .await
        .expect("in time")
        .expect("notice");
    assert_eq!(told, changed(&["c", "a"], Some("g1")));
    assert_eq!(
        q.confirm("qu", "a", "pa", "g1", 7).await.expect("confirm"),
        Confirmation::Waiting
    );
    assert_eq!(q.cancel("c", "qu", "intruder").await.expect("cancel"), None);
    let c = q.cancel("c", "qu", "pc").await.expect("cancel").expect("c");
    assert_eq!(c.status, TicketStatus::Cancelled);
    assert_eq!(q.live_ticket("pc").await.expect("live"), None);
    assert_eq!(status_of(&q, "a").await, TicketStatus::Queued);
    assert_eq!(
        q.confirmed_at("qu", "a").await.expect("read"),
        None,
        "a confirmation goes with its proposal"
    );
    assert_eq!(queued_ids(&q).await, ids(&["a", "b", "d"]));
    assert_eq!(
        q.live_ticket("pa").await.expect("live"),
        Some(("qu".into(), "a".into()))
    );
    let told = tokio::time::timeout(RECV_BOUND, notices.recv())
        .await
        .expect("in time")
        .expect("notice");
    assert_eq!(told, changed(&["a"], None));
    assert!(matches!(
        q.confirm("qu", "a", "pa", "g1", 7).await.expect("confirm"),
        Confirmation::NotProposed(Some(Ticket {
            status: TicketStatus::Queued,
            ..
        }))
    ));
    // The confirmation did not carry over: a new proposal asks again.
    let outcomes = propose(&q, &[proposal("g2", &["a", "b"], &[false, false])], FAR_MS).await;
    assert_eq!(outcomes, [TableOutcome::Proposed]);
    assert_eq!(
        q.confirm("qu", "b", "pb", "g2", 7).await.expect("confirm"),
        Confirmation::Waiting
    );
    // A cancel that comes after the table completed shows the match.
    assert_eq!(
        completed(q.confirm("qu", "a", "pa", "g2", 7).await.expect("confirm")),
        Some(ids(&["a", "b"]))
    );
    let a = q.cancel("a", "qu", "pa").await.expect("cancel").expect("a");
    assert!(matches!(a.status, TicketStatus::Matched { .. }));
    assert_eq!(queued_ids(&q).await, ids(&["d"]));
}

/// A proposal past its deadline is taken down with every ticket back at its place; one not
/// yet due stays.
pub async fn queue_expired_proposal_requeues_every_ticket(backend: Backend) {
    let q = QueueStore::new(backend);
    for (i, id) in ["a", "b", "c", "d"].iter().enumerate() {
        enqueue(&q, "qu", id, &format!("p{id}"), i as u64 + 1).await;
    }
    let outcomes = propose(
        &q,
        &[
            proposal("g1", &["b", "a"], &[false, true]),
            proposal("g2", &["d", "c"], &[false, false]),
        ],
        1_000,
    )
    .await;
    assert_eq!(outcomes, [TableOutcome::Proposed, TableOutcome::Proposed]);
    assert!(queued_ids(&q).await.is_empty());
    assert_eq!(q.queues().await.expect("queues"), ["qu"]);
    assert!(
        q.expire_proposals("qu", 999)
            .await
            .expect("expire")
            .is_empty()
    );
    assert_eq!(
        q.confirm("qu", "d", "pd", "g2", 7).await.expect("confirm"),
        Confirmation::Waiting
    );
    let mut requeued = q.expire_proposals("qu", 1_001).await.expect("expire");
    requeued.sort();
    assert_eq!(requeued, ids(&["a", "b", "c", "d"]));
    assert_eq!(queued_ids(&q).await, ids(&["a", "b", "c", "d"]));
    assert!(
        q.expire_proposals("qu", 2_000)
            .await
            .expect("expire")
            .is_empty()
    );
    assert!(matches!(
        q.confirm("qu", "b", "pb", "g1", 7).await.expect("confirm"),
        Confirmation::NotProposed(Some(Ticket {
            status: TicketStatus::Queued,
            ..
        }))
    ));
    assert!(q.take("qu", &ids(&["a", "b"]), "g3").await.expect("take"));
    assert!(q.take("qu", &ids(&["c", "d"]), "g4").await.expect("take"));
    assert!(q.queues().await.expect("queues").is_empty());
}

/// Confirmations of every seat racing a cancel of one seat, table by table: each table ends
/// either matched whole (the cancel shows the match) or with that seat cancelled and the
/// other queued, never a ticket matched alone or in two games.
pub async fn queue_concurrent_confirms_and_cancels_seat_nobody_twice(backend: Backend) {
    let q = QueueStore::new(backend);
    let tables = 8usize;
    for i in 0..2 * tables {
        enqueue(&q, "qu", &format!("t{i}"), &format!("p{i}"), i as u64).await;
    }
    let proposals: Vec<TableProposal> = (0..tables)
        .map(|t| TableProposal {
            claim: TableClaim {
                game_id: format!("g{t}"),
                ticket_ids: vec![format!("t{}", 2 * t), format!("t{}", 2 * t + 1)],
            },
            confirmed: vec![SeatConfirmation::Pending; 2],
        })
        .collect();
    let outcomes = propose(&q, &proposals, FAR_MS).await;
    assert!(outcomes.iter().all(|o| *o == TableOutcome::Proposed));
    join_all((0..tables).map(|t| {
        let q = q.clone();
        async move {
            let (first, second) = (format!("t{}", 2 * t), format!("t{}", 2 * t + 1));
            let game = format!("g{t}");
            let (p0, p1) = (format!("p{}", 2 * t), format!("p{}", 2 * t + 1));
            let (a, b, c) = tokio::join!(
                q.confirm("qu", &first, &p0, &game, 7),
                q.confirm("qu", &second, &p1, &game, 7),
                q.cancel(&second, "qu", &p1),
            );
            a.expect("confirm");
            b.expect("confirm");
            c.expect("cancel");
        }
    }))
    .await;
    for t in 0..tables {
        let first = status_of(&q, &format!("t{}", 2 * t)).await;
        let second = status_of(&q, &format!("t{}", 2 * t + 1)).await;
        match (&first, &second) {
            (
                TicketStatus::Matched { game_id: g1, .. },
                TicketStatus::Matched { game_id: g2, .. },
            ) => assert!(g1 == g2 && *g1 == format!("g{t}")),
            (TicketStatus::Queued, TicketStatus::Cancelled) => {}
            other => panic!("table {t}: {other:?}"),
        }
    }
}

/// Cancel works only for the owner, only while queued; it shows a match that came first.
pub async fn queue_cancel(backend: Backend) {
    let q = QueueStore::new(backend);
    enqueue(&q, "qu", "a", "pa", 1).await;
    enqueue(&q, "qu", "b", "pb", 2).await;
    enqueue(&q, "qu", "c", "pc", 3).await;
    assert_eq!(q.cancel("a", "qu", "intruder").await.expect("cancel"), None);
    assert_eq!(q.cancel("zz", "qu", "pa").await.expect("cancel"), None);
    let a = q.cancel("a", "qu", "pa").await.expect("cancel").expect("a");
    assert_eq!(a.status, TicketStatus::Cancelled);
    assert_eq!(q.live_ticket("pa").await.expect("live"), None);
    // Cancelled tickets are never matched.
    assert!(!q.take("qu", &ids(&["a", "b"]), "g").await.expect("take"));
    assert!(q.take("qu", &ids(&["b", "c"]), "g").await.expect("take"));
    let b = q.cancel("b", "qu", "pb").await.expect("cancel").expect("b");
    assert_eq!(
        b.status,
        TicketStatus::Matched {
            game_id: "g".into(),
            seat: 0,
            table: ids(&["b", "c"]),
        }
    );
    let again = q.cancel("a", "qu", "pa").await.expect("cancel").expect("a");
    assert_eq!(again.status, TicketStatus::Cancelled);
    assert!(q.queues().await.expect("queues").is_empty());
    assert_eq!(
        enqueue(&q, "qu", "a2", "pa", 4).await,
        EnqueueOutcome::Queued
    );
}
