//! The timers ([`crate::TimerStore`]): arm, cancel, claim in order with a visibility, ack only under one's own claim, every timer claimed once under racing claimants.

use std::collections::HashSet;

use futures::future::join_all;

use super::RACERS;
use crate::{Backend, DueTimer, TimerStore};

/// Claims up to `limit` timers due by `now_ms`, hidden from other claimants for
/// `visibility_ms`; the store must answer.
async fn claim(
    timers: &TimerStore,
    now_ms: u64,
    visibility_ms: u64,
    limit: usize,
) -> Vec<DueTimer> {
    timers
        .claim_due(now_ms, visibility_ms, limit)
        .await
        .expect("claim")
}

/// Armed timers, and those due by a time (the backlog gauge).
pub async fn timer_counts_armed_and_due(backend: Backend) {
    let timers = TimerStore::new(backend);
    assert_eq!(timers.counts(1_000).await.expect("counts"), (0, 0));
    for (key, due) in [("a", 100), ("b", 1_000), ("c", 5_000)] {
        timers.arm(key, b"p", due).await.expect("arm");
    }
    assert_eq!(timers.counts(999).await.expect("counts"), (3, 1));
    assert_eq!(
        timers.counts(1_000).await.expect("counts"),
        (3, 2),
        "due at now counts"
    );
    timers.cancel("a").await.expect("cancel");
    assert_eq!(timers.counts(10_000).await.expect("counts"), (2, 2));
}

/// Arm, re-arm, get, next_due and cancel.
pub async fn timer_arm_get_cancel(backend: Backend) {
    let timers = TimerStore::new(backend);
    assert_eq!(timers.get("t").await.expect("get"), None);
    assert_eq!(timers.next_due().await.expect("next"), None);
    timers
        .arm("t", b"p1", 1_700_000_000_100)
        .await
        .expect("arm");
    assert_eq!(
        timers.get("t").await.expect("get"),
        Some((1_700_000_000_100, b"p1".to_vec()))
    );
    timers
        .arm("t", b"p2", 1_700_000_000_200)
        .await
        .expect("re-arm");
    timers.arm("u", b"", 1_700_000_000_300).await.expect("arm");
    assert_eq!(
        timers.get("t").await.expect("get"),
        Some((1_700_000_000_200, b"p2".to_vec()))
    );
    assert_eq!(
        timers.next_due().await.expect("next"),
        Some(1_700_000_000_200)
    );
    assert!(timers.cancel("t").await.expect("cancel"));
    assert!(!timers.cancel("t").await.expect("cancel again"));
    assert_eq!(timers.get("t").await.expect("get"), None);
    assert_eq!(
        timers.get("u").await.expect("get"),
        Some((1_700_000_000_300, Vec::new()))
    );
    assert_eq!(
        timers.next_due().await.expect("next"),
        Some(1_700_000_000_300)
    );
}

/// Claims take due timers earliest first up to the limit; ack deletes under the claim only.
pub async fn timer_claim_order_limit_and_ack(backend: Backend) {
    let timers = TimerStore::new(backend);
    for (key, due) in [("c", 300), ("a", 100), ("b", 200), ("d", 400)] {
        timers.arm(key, key.as_bytes(), due).await.expect("arm");
    }
    assert!(claim(&timers, 99, 1000, 10).await.is_empty());
    let claimed = claim(&timers, 350, 1000, 2).await;
    let keys: Vec<_> = claimed
        .iter()
        .map(|t| (t.key.as_str(), t.due_ms, t.claim_ms))
        .collect();
    assert_eq!(keys, vec![("a", 100, 1350), ("b", 200, 1350)]);
    assert_eq!(claimed[0].payload, b"a");
    let rest = claim(&timers, 350, 1000, 10).await;
    assert_eq!(
        rest.iter().map(|t| t.key.as_str()).collect::<Vec<_>>(),
        vec!["c"]
    );
    assert!(claim(&timers, 350, 1000, 10).await.is_empty());
    assert_eq!(
        timers.get("a").await.expect("get"),
        Some((1350, b"a".to_vec()))
    );
    assert_eq!(timers.next_due().await.expect("next"), Some(400));
    assert!(!timers.ack("a", 1349).await.expect("ack wrong claim"));
    assert!(timers.ack("a", 1350).await.expect("ack"));
    assert!(!timers.ack("a", 1350).await.expect("ack twice"));
    assert!(!timers.ack("zz", 1350).await.expect("ack unknown"));
    assert_eq!(timers.get("a").await.expect("get"), None);
    assert!(claim(&timers, 350, 1000, 0).await.is_empty());
}

/// A claim that is never acked comes due again at its claim deadline, for a new claimant.
pub async fn timer_unacked_claim_comes_due_again(backend: Backend) {
    let timers = TimerStore::new(backend);
    timers.arm("t", b"p", 100).await.expect("arm");
    let first = claim(&timers, 100, 50, 10).await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].claim_ms, 150);
    assert!(claim(&timers, 149, 50, 10).await.is_empty());
    let again = claim(&timers, 150, 50, 10).await;
    assert_eq!(again.len(), 1);
    assert_eq!(
        (again[0].due_ms, again[0].claim_ms, &again[0].payload[..]),
        (150, 200, &b"p"[..])
    );
    // The crashed worker's late ack must not delete the new claim.
    assert!(!timers.ack("t", 150).await.expect("stale ack"));
    assert!(timers.ack("t", 200).await.expect("ack"));
}

/// Re-arming a claimed timer replaces it: the old claim's ack deletes nothing.
pub async fn timer_rearm_during_claim_defeats_ack(backend: Backend) {
    let timers = TimerStore::new(backend);
    timers.arm("t", b"turn 3", 100).await.expect("arm");
    let claimed = claim(&timers, 100, 1000, 10).await;
    timers.arm("t", b"turn 4", 5000).await.expect("re-arm");
    assert!(!timers.ack("t", claimed[0].claim_ms).await.expect("ack"));
    assert_eq!(
        timers.get("t").await.expect("get"),
        Some((5000, b"turn 4".to_vec()))
    );
}

/// Concurrent claimants never take the same timer.
pub async fn timer_concurrent_claims_take_each_once(backend: Backend) {
    let timers = TimerStore::new(backend);
    let n = 50;
    for i in 0..n {
        timers
            .arm(&format!("t{i}"), b"p", 10 + i)
            .await
            .expect("arm");
    }
    let claims = join_all((0..RACERS).map(|_| {
        let timers = timers.clone();
        async move { timers.claim_due(1000, 60_000, 5).await }
    }))
    .await;
    let mut seen = HashSet::new();
    for claim in claims {
        for t in claim.expect("claim") {
            assert!(seen.insert(t.key.clone()), "timer {} claimed twice", t.key);
        }
    }
    assert_eq!(seen.len(), n as usize);
}
