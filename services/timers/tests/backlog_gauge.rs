//! `ludus.timers.armed` / `ludus.timers.due`: the counts of the last refresh, never a store
//! read from the callback.

use ludus_store::{Backend, TimerStore};
use ludus_telemetry::testing::MetricsRecorder;
use ludus_timers::backlog::Backlog;

fn value(recorder: &MetricsRecorder, name: &str) -> Option<f64> {
    let points = recorder.named(name);
    assert!(points.len() <= 1, "{points:?}");
    points.first().map(|point| {
        assert!(point.attributes.is_empty(), "{point:?}");
        point.value
    })
}

#[tokio::test]
async fn the_gauges_report_armed_and_due_timers_as_of_the_last_refresh() {
    let recorder = MetricsRecorder::new();
    let store = TimerStore::new(Backend::memory());
    let backlog = Backlog::default();
    backlog.observe(&recorder.meter());
    assert_eq!(value(&recorder, "ludus.timers.armed"), Some(0.0));
    assert_eq!(value(&recorder, "ludus.timers.due"), Some(0.0));

    for (key, due) in [("t1", 100), ("t2", 200), ("t3", 9_000)] {
        store.arm(key, b"payload", due).await.expect("arm");
    }
    // Not refreshed yet: the callback never reads the store itself.
    assert_eq!(value(&recorder, "ludus.timers.armed"), Some(0.0));

    backlog.refresh(&store, 1_000).await.expect("refresh");
    assert_eq!(value(&recorder, "ludus.timers.armed"), Some(3.0));
    assert_eq!(
        value(&recorder, "ludus.timers.due"),
        Some(2.0),
        "two overdue at 1 s"
    );

    store.cancel("t1").await.expect("cancel");
    backlog.refresh(&store, 10_000).await.expect("refresh");
    assert_eq!(value(&recorder, "ludus.timers.armed"), Some(2.0));
    assert_eq!(value(&recorder, "ludus.timers.due"), Some(2.0));
}
