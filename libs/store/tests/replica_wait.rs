//! The replica wait (`Backend::waiting_for_replicas`, Redis `WAIT` after the commit) on a
//! local Redis Cluster with one replica per master (`testing::RedisCluster`): a commit is
//! answered once the replica of the game's master has it; while that replica does not answer,
//! the move is refused UNAVAILABLE (it is on the master, unconfirmed), a retry with the same
//! action id is refused the same way, and once the replica is back the retry gets the
//! original seq. A refusal that wrote nothing (a stale seq) is answered as it is.

use std::time::{Duration, Instant};

use ludus_store::testing::RedisCluster;
use ludus_store::{Backend, Commit, CommitRefusal, Committed, GameStore, ReplicaWait, StoreError};

const WAIT: ReplicaWait = ReplicaWait {
    replicas: 1,
    timeout: Duration::from_millis(300),
};

fn commit<'a>(expected_seq: u64, action_id: &'a str) -> Commit<'a> {
    Commit {
        expected_seq,
        action_id: Some(action_id),
        state: b"state",
        event: b"event",
        version: None,
        expected_version: None,
    }
}

/// The index of the master holding game `id` (no key prefix), and of its replica.
fn master_and_replica(cluster: &RedisCluster, id: &str) -> (usize, usize) {
    let key = format!("ludus:game:{{{id}}}:state");
    let nodes = cluster.nodes_seen_by(0).expect("cluster nodes");
    let master = nodes
        .iter()
        .filter(|n| n.master && n.slot_ranges > 0)
        .map(|n| n.index)
        .find(|&m| cluster.cli(m, &["exists", &key]).expect("exists").trim() == "1")
        .expect("a master holds the game");
    let replica = nodes
        .iter()
        .find(|n| n.replica_of == Some(master))
        .expect("the master has a replica")
        .index;
    (master, replica)
}

fn unconfirmed(result: Result<Result<Committed, CommitRefusal>, StoreError>) -> String {
    match result {
        Err(StoreError::Unavailable(message)) if message.contains("not acknowledged") => message,
        other => panic!("expected an unconfirmed refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_waits_for_the_replica_and_a_retry_is_answered_once_it_has_it() {
    let cluster =
        RedisCluster::start_with_replicas(Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
    let backend = Backend::redis(&cluster.url())
        .await
        .expect("connect")
        .waiting_for_replicas(WAIT)
        .await
        .expect("wait pool");
    assert_eq!(backend.replica_wait(), Some(WAIT));
    let games = GameStore::new(backend);
    assert!(
        games
            .create("g", b"meta", b"state", b"start")
            .await
            .expect("create")
    );
    assert_eq!(
        games.commit("g", commit(1, "a1")).await.expect("commit"),
        Ok(Committed { seq: 2 })
    );
    assert_eq!(
        games.confirm_action("g", "a1", 2).await.expect("confirm"),
        2
    );

    let (_, replica) = master_and_replica(&cluster, "g");
    cluster.pause(replica, true).expect("SIGSTOP the replica");
    let started = Instant::now();
    let message = unconfirmed(games.commit("g", commit(2, "a2")).await);
    assert!(
        started.elapsed() >= WAIT.timeout,
        "refused before the wait ran out: {message}"
    );
    assert!(message.contains("0 of 1 replicas"), "{message}");
    // The move is on the master: the retry finds its id, and is refused until a replica has it.
    unconfirmed(games.commit("g", commit(2, "a2")).await);
    assert!(matches!(
        games.confirm_action("g", "a2", 3).await,
        Err(StoreError::Unavailable(_))
    ));
    // A stale seq wrote nothing and acknowledges no move: its answer stands whatever the
    // replicas say.
    assert_eq!(
        games.commit("g", commit(1, "a3")).await.expect("stale"),
        Err(CommitRefusal::StaleSeq { current: 3 })
    );

    cluster.pause(replica, false).expect("SIGCONT the replica");
    assert_eq!(
        games.commit("g", commit(2, "a2")).await.expect("retry"),
        Err(CommitRefusal::DuplicateAction { seq: 3 })
    );
    assert_eq!(
        games.confirm_action("g", "a2", 3).await.expect("confirm"),
        3
    );
    // A mark that is not there (a failover lost the commit) is not confirmed.
    assert!(matches!(
        games.confirm_action("g", "never", 4).await,
        Err(StoreError::Unavailable(_))
    ));

    // Without a wait the same pause changes nothing: the master's answer is the answer.
    let plain = GameStore::new(Backend::redis(&cluster.url()).await.expect("connect"));
    cluster.pause(replica, true).expect("SIGSTOP the replica");
    let started = Instant::now();
    let outcome = plain.commit("g", commit(3, "a4")).await;
    cluster.pause(replica, false).expect("SIGCONT the replica");
    assert_eq!(outcome.expect("commit"), Ok(Committed { seq: 4 }));
    assert!(
        started.elapsed() < WAIT.timeout,
        "a commit without a wait waited"
    );
    assert_eq!(
        plain.confirm_action("g", "a4", 4).await.expect("no wait"),
        4
    );
}

#[tokio::test]
async fn a_wait_needs_redis_a_replica_and_a_bounded_timeout() {
    assert!(Backend::memory().waiting_for_replicas(WAIT).await.is_err());
    let cluster = RedisCluster::start().unwrap_or_else(|e| panic!("{e}"));
    let backend = Backend::redis(&cluster.url()).await.expect("connect");
    for bad in [
        ReplicaWait {
            replicas: 0,
            ..WAIT
        },
        ReplicaWait {
            timeout: Duration::ZERO,
            ..WAIT
        },
        ReplicaWait {
            timeout: ReplicaWait::MAX_TIMEOUT + Duration::from_millis(1),
            ..WAIT
        },
    ] {
        assert!(
            backend.clone().waiting_for_replicas(bad).await.is_err(),
            "{bad:?}"
        );
    }
    assert_eq!(backend.replica_wait(), None);
}
