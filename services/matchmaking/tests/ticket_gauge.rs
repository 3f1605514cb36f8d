//! `ludus.matchmaking.tickets`: queued tickets per queue, from the counts of the last refresh.

use ludus_matchmaking::TicketCounts;
use ludus_store::{Backend, QueueStore, Ticket, TicketStatus};
use ludus_telemetry::testing::{MetricsRecorder, attrs};

fn ticket(queue: &str, player: &str, created_ms: u64) -> Ticket {
    Ticket {
        ticket_id: format!("t-{player}"),
        queue: queue.to_owned(),
        player_id: player.to_owned(),
        payload: Vec::new(),
        created_ms,
        status: TicketStatus::Queued,
    }
}

fn gauge(recorder: &MetricsRecorder) -> Vec<(String, f64)> {
    let mut points: Vec<_> = recorder
        .named("ludus.matchmaking.tickets")
        .into_iter()
        .map(|point| {
            let queue = point.attributes.get("queue").cloned().unwrap_or_default();
            assert_eq!(point.attributes, attrs(&[("queue", &queue)]));
            (queue, point.value)
        })
        .collect();
    points.sort_by(|a, b| a.0.cmp(&b.0));
    points
}

#[tokio::test]
async fn the_gauge_reports_each_queues_tickets_as_of_the_last_refresh() {
    let recorder = MetricsRecorder::new();
    let queues = QueueStore::new(Backend::memory());
    let counts = TicketCounts::default();
    counts.observe(&recorder.meter());
    assert_eq!(gauge(&recorder), vec![]);

    for (queue, player, at) in [("caro", "a", 1), ("caro", "b", 2), ("quoridor", "c", 3)] {
        queues
            .enqueue(&ticket(queue, player, at))
            .await
            .expect("enqueue");
    }
    // Nothing counted yet: the callback never reads the store itself.
    assert_eq!(gauge(&recorder), vec![]);

    counts.refresh(&queues).await.expect("refresh");
    assert_eq!(
        gauge(&recorder),
        vec![("caro".to_owned(), 2.0), ("quoridor".to_owned(), 1.0)]
    );

    // An emptied queue reports 0 rather than its last count.
    queues
        .cancel("t-c", "quoridor", "c")
        .await
        .expect("cancel")
        .expect("c's ticket");
    counts.refresh(&queues).await.expect("refresh");
    assert_eq!(
        gauge(&recorder),
        vec![("caro".to_owned(), 2.0), ("quoridor".to_owned(), 0.0)]
    );
}
