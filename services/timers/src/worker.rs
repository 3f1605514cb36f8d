//! The claim-and-fire loop: claim due timers atomically, call their owner, delete them once
//! the owner answered.

use std::{
    sync::Arc,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use ludus_proto::pb::{self, game_state_client::GameStateClient, timer_action::Action};
use ludus_store::{DueTimer, TimerStore};
use ludus_telemetry::Traced;
use prost::Message;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tonic::Code;

use crate::CLAIM_BATCH;

/// One replica's worker.
#[derive(Clone, Debug)]
pub struct Worker {
    pub store: TimerStore,
    pub game_state: GameStateClient<Traced>,
    pub visibility: Duration,
    pub poll: Duration,
    pub wake: Arc<Notify>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Runs until `stop` is cancelled.
pub async fn run(worker: Worker, stop: CancellationToken) {
    let visibility_ms = u64::try_from(worker.visibility.as_millis()).unwrap_or(u64::MAX);
    loop {
        let claimed = match worker
            .store
            .claim_due(now_ms(), visibility_ms, CLAIM_BATCH)
            .await
        {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(%error, "could not claim timers; retrying");
                Vec::new()
            }
        };
        let full_batch = claimed.len() == CLAIM_BATCH;
        let fired: Vec<_> = claimed
            .into_iter()
            .map(|timer| tokio::spawn(fire(worker.clone(), timer)))
            .collect();
        for handle in fired {
            let _ = handle.await;
        }
        if full_batch {
            continue;
        }
        let sleep = match worker.store.next_due().await {
            Ok(Some(due)) => Duration::from_millis(due.saturating_sub(now_ms())).min(worker.poll),
            _ => worker.poll,
        };
        tokio::select! {
            () = stop.cancelled() => return,
            () = worker.wake.notified() => {}
            () = tokio::time::sleep(sleep) => {}
        }
    }
}

/// Calls the owner of one claimed timer and acknowledges it when the owner answered.
#[tracing::instrument(skip_all, fields(key = %timer.key))]
async fn fire(worker: Worker, timer: DueTimer) {
    let action = match pb::TimerAction::decode(timer.payload.as_slice()) {
        Ok(pb::TimerAction {
            action: Some(action),
        }) => action,
        _ => {
            // Nothing can ever fire it: drop it rather than retry forever.
            tracing::error!("unreadable timer payload; deleting the timer");
            let _ = worker.store.ack(&timer.key, timer.claim_ms).await;
            return;
        }
    };
    let mut game_state = worker.game_state.clone();
    let result = match action {
        Action::ExpireTurn(expire) => game_state
            .expire_turn(pb::ExpireTurnRequest {
                game_id: expire.game_id,
                turn_seq: expire.turn_seq,
            })
            .await
            .map(drop),
        Action::ExpireAbsence(expire) => game_state
            .expire_absence(pb::ExpireAbsenceRequest {
                game_id: expire.game_id,
                seat: expire.seat,
                token: expire.token,
            })
            .await
            .map(drop),
        Action::ReportOutcome(report) => game_state
            .report_outcome(pb::ReportOutcomeRequest {
                game_id: report.game_id,
            })
            .await
            .map(drop),
    };
    match result {
        Ok(()) => {}
        // A permanent answer: firing again would get the same one.
        Err(status)
            if matches!(
                status.code(),
                Code::NotFound | Code::InvalidArgument | Code::FailedPrecondition
            ) =>
        {
            tracing::warn!(code = ?status.code(), message = status.message(), "owner refused the timer; deleting it");
        }
        Err(status) => {
            tracing::warn!(code = ?status.code(), message = status.message(), "owner failed; the timer fires again after the visibility timeout");
            return;
        }
    }
    if let Err(error) = worker.store.ack(&timer.key, timer.claim_ms).await {
        tracing::warn!(%error, "could not delete a fired timer; it will fire again");
    }
}
