//! The claim-and-fire loop: claim due timers atomically, call their owner, delete them once
//! the owner answered.

use std::{
    sync::{
        Arc, LazyLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use ludus_proto::pb::{
    self, bots_client::BotsClient, game_state_client::GameStateClient, rooms_client::RoomsClient,
    timer_action::Action,
};
use ludus_server::Traced;
use ludus_store::{Clock, DueTimer, TimerStore};
use opentelemetry::{
    KeyValue,
    metrics::{Counter, Histogram, Meter},
};
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
    /// The owner of room countdowns; `None` when no rooms service is configured.
    pub rooms: Option<RoomsClient<Traced>>,
    /// The owners of computer turns.
    pub bots: BotReplicas,
    pub visibility: Duration,
    pub poll: Duration,
    pub wake: Arc<Notify>,
    /// What "due" is measured against (Unix ms; tests move a manual one).
    pub clock: Clock,
}

/// The bots replicas a bot turn is offered to.
#[derive(Clone, Debug, Default)]
pub struct BotReplicas {
    clients: Vec<BotsClient<Traced>>,
    /// Where the next turn starts, so turns spread over the replicas.
    next: Arc<AtomicUsize>,
}

impl BotReplicas {
    pub fn new(clients: Vec<BotsClient<Traced>>) -> Self {
        BotReplicas {
            clients,
            next: Arc::default(),
        }
    }

    /// Offers the turn to one replica after another, starting with the next in turn, until
    /// one answers: a replica that is down (UNAVAILABLE, a reset stream, no answer within
    /// `patience`) passes the turn on. When none answers the last failure is returned and
    /// the timer fires again after its visibility timeout.
    async fn take_turn(
        &self,
        request: pb::TakeBotTurnRequest,
        patience: Duration,
    ) -> Result<(), tonic::Status> {
        if self.clients.is_empty() {
            return Err(tonic::Status::unavailable(
                "a computer turn came due and no bots service is configured (--bots-url)",
            ));
        }
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let mut last = None;
        for i in 0..self.clients.len() {
            let mut client = self.clients[(start + i) % self.clients.len()].clone();
            let answer = tokio::time::timeout(patience, client.take_turn(request.clone()))
                .await
                .unwrap_or_else(|_| {
                    Err(tonic::Status::deadline_exceeded(
                        "the bots replica did not answer in time",
                    ))
                });
            match answer {
                Ok(_) => return Ok(()),
                Err(status)
                    if matches!(
                        status.code(),
                        Code::Unavailable
                            | Code::Unknown
                            | Code::Cancelled
                            | Code::DeadlineExceeded
                    ) =>
                {
                    tracing::warn!(code = ?status.code(), message = status.message(), "a bots replica failed; offering the turn to the next");
                    last = Some(status);
                }
                Err(status) => return Err(status),
            }
        }
        Err(last.unwrap_or_else(|| tonic::Status::unavailable("no bots replica answered")))
    }
}

/// Made on first use, after `main` installed the meter provider (see
/// `ludus_telemetry::metrics`).
static METRICS: LazyLock<TimerMetrics> =
    LazyLock::new(|| TimerMetrics::new(&ludus_telemetry::metrics::meter()));

/// `ludus.timers.fired` and `ludus.timers.lateness`.
#[derive(Debug)]
struct TimerMetrics {
    fired: Counter<u64>,
    lateness: Histogram<u64>,
}

/// The `action` of a payload nothing can decode.
const UNREADABLE: &str = "unreadable";

impl TimerMetrics {
    fn new(meter: &Meter) -> Self {
        TimerMetrics {
            fired: meter
                .u64_counter("ludus.timers.fired")
                .with_unit("{timer}")
                .with_description(
                    "Timers fired, by action and by the owner's answer (ok, refused: deleted, \
                     retry: fires again after the visibility timeout)",
                )
                .build(),
            lateness: meter
                .u64_histogram("ludus.timers.lateness")
                .with_unit("ms")
                .with_description(
                    "From a claimed timer's due time (or expired earlier claim) to its firing",
                )
                .build(),
        }
    }

    /// One firing of an `action` timer, `late_ms` after it came due, and what came of it.
    fn fired(&self, action: &'static str, late_ms: u64, outcome: Fired) {
        let action = KeyValue::new("action", action);
        self.lateness.record(late_ms, std::slice::from_ref(&action));
        self.fired
            .add(1, &[action, KeyValue::new("outcome", outcome.name())]);
    }
}

/// What came of firing a timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fired {
    /// The owner answered: the timer is deleted.
    Ok,
    /// A permanent refusal (firing again would get the same one): the timer is deleted.
    Refused,
    /// A failure that may pass: the timer fires again after the visibility timeout.
    Retry,
}

impl Fired {
    fn of(result: &Result<(), tonic::Status>) -> Self {
        match result {
            Ok(()) => Fired::Ok,
            Err(status)
                if matches!(
                    status.code(),
                    Code::NotFound | Code::InvalidArgument | Code::FailedPrecondition
                ) =>
            {
                Fired::Refused
            }
            Err(_) => Fired::Retry,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Fired::Ok => "ok",
            Fired::Refused => "refused",
            Fired::Retry => "retry",
        }
    }
}

fn action_name(action: &Action) -> &'static str {
    match action {
        Action::ExpireTurn(_) => "expire_turn",
        Action::ExpireAbsence(_) => "expire_absence",
        Action::ReportOutcome(_) => "report_outcome",
        Action::RoomCountdown(_) => "room_countdown",
        Action::TakeBotTurn(_) => "take_bot_turn",
        Action::RoomMember(_) => "room_member",
    }
}

/// Runs until `stop` is cancelled.
pub async fn run(worker: Worker, stop: CancellationToken) {
    let visibility_ms = u64::try_from(worker.visibility.as_millis()).unwrap_or(u64::MAX);
    loop {
        let claimed = match worker
            .store
            .claim_due(worker.clock.now_ms(), visibility_ms, CLAIM_BATCH)
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
            Ok(Some(due)) => {
                Duration::from_millis(due.saturating_sub(worker.clock.now_ms())).min(worker.poll)
            }
            _ => worker.poll,
        };
        tokio::select! {
            () = stop.cancelled() => return,
            () = worker.wake.notified() => {}
            () = worker.clock.advanced() => {}
            () = tokio::time::sleep(sleep) => {}
        }
    }
}

/// Calls the owner of one claimed timer and acknowledges it when the owner answered.
#[tracing::instrument(skip_all, fields(key = %timer.key))]
async fn fire(worker: Worker, timer: DueTimer) {
    let late_ms = worker.clock.now_ms().saturating_sub(timer.due_ms);
    let action = match pb::TimerAction::decode(timer.payload.as_slice()) {
        Ok(pb::TimerAction {
            action: Some(action),
            traceparent,
        }) => {
            // This firing is a trace of its own (it runs long after the armer's ended),
            // linked to the work that armed it: the move whose turn ran out, the final move.
            ludus_server::propagation::link_to(&tracing::Span::current(), &traceparent);
            action
        }
        _ => {
            // Nothing can ever fire it: drop it rather than retry forever.
            tracing::error!("unreadable timer payload; deleting the timer");
            METRICS.fired(UNREADABLE, late_ms, Fired::Refused);
            let _ = worker.store.ack(&timer.key, timer.claim_ms).await;
            return;
        }
    };
    let name = action_name(&action);
    let mut game_state = worker.game_state.clone();
    let result = match action {
        Action::ExpireTurn(request) => game_state.expire_turn(request).await.map(drop),
        Action::ExpireAbsence(request) => game_state.expire_absence(request).await.map(drop),
        Action::ReportOutcome(request) => game_state.report_outcome(request).await.map(drop),
        Action::RoomCountdown(request) => match worker.rooms.clone() {
            Some(mut rooms) => rooms.fire_countdown(request).await.map(drop),
            None => Err(no_rooms("a room countdown")),
        },
        Action::RoomMember(request) => match worker.rooms.clone() {
            Some(mut rooms) => rooms.expire_room_member(request).await.map(drop),
            None => Err(no_rooms("a room member's presence lease")),
        },
        // A think is bounded by the bots' deadline; a replica that takes longer than the
        // visibility timeout is treated as dead (the timer is visible again by then anyway).
        Action::TakeBotTurn(request) => worker.bots.take_turn(request, worker.visibility).await,
    };
    let fired = Fired::of(&result);
    METRICS.fired(name, late_ms, fired);
    if let Err(status) = result {
        if fired == Fired::Retry {
            tracing::warn!(code = ?status.code(), message = status.message(), "owner failed; the timer fires again after the visibility timeout");
            return;
        }
        // A permanent answer: firing again would get the same one.
        tracing::warn!(code = ?status.code(), message = status.message(), "owner refused the timer; deleting it");
    }
    if let Err(error) = worker.store.ack(&timer.key, timer.claim_ms).await {
        tracing::warn!(%error, "could not delete a fired timer; it will fire again");
    }
}

/// A rooms timer came due in a timers replica started without `--rooms-url`.
fn no_rooms(what: &str) -> tonic::Status {
    tonic::Status::failed_precondition(format!(
        "{what} came due and no rooms service is configured (--rooms-url)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ludus_telemetry::testing::{MetricsRecorder, attrs};
    use tonic::Status;

    #[test]
    fn owners_answers_are_classified() {
        assert_eq!(Fired::of(&Ok(())), Fired::Ok);
        assert_eq!(Fired::of(&Err(Status::not_found("gone"))), Fired::Refused);
        assert_eq!(
            Fired::of(&Err(Status::failed_precondition("still being played"))),
            Fired::Refused
        );
        assert_eq!(Fired::of(&Err(Status::unavailable("down"))), Fired::Retry);
        assert_eq!(Fired::of(&Err(Status::aborted("busy"))), Fired::Retry);
    }

    #[test]
    fn firings_are_counted_by_action_and_outcome_with_their_lateness() {
        let recorder = MetricsRecorder::new();
        let metrics = TimerMetrics::new(&recorder.meter());
        metrics.fired("expire_turn", 5, Fired::Ok);
        metrics.fired("expire_turn", 15, Fired::Ok);
        metrics.fired("expire_turn", 7, Fired::Retry);
        metrics.fired("report_outcome", 1, Fired::Refused);
        metrics.fired(UNREADABLE, 0, Fired::Refused);

        let fired = |action: &str, outcome: &str| {
            recorder
                .named("ludus.timers.fired")
                .into_iter()
                .find(|p| p.attributes == attrs(&[("action", action), ("outcome", outcome)]))
                .map(|p| p.value)
        };
        assert_eq!(fired("expire_turn", "ok"), Some(2.0));
        assert_eq!(fired("expire_turn", "retry"), Some(1.0));
        assert_eq!(fired("report_outcome", "refused"), Some(1.0));
        assert_eq!(fired("unreadable", "refused"), Some(1.0));
        assert_eq!(fired("expire_absence", "ok"), None);
        assert_eq!(recorder.named("ludus.timers.fired").len(), 4);

        let lateness = recorder.named("ludus.timers.lateness");
        let turn = lateness
            .iter()
            .find(|p| p.attributes == attrs(&[("action", "expire_turn")]))
            .expect("expire_turn lateness");
        assert_eq!((turn.count, turn.value), (Some(3), 27.0));
        assert_eq!(lateness.len(), 3);
    }
}
