//! One move traced end to end and exported over OTLP/gRPC to a real receiver: the
//! `opentelemetry-proto` collector services (traces and metrics) on a free loopback port,
//! the whole system (`Ludus`, on a real redis-server) exporting to it as the all-in-one
//! does (`init_system`, one `service.name` per service). A Caro move through the gateway
//! with a subscriber, then a resignation whose outcome timer fires: the test asserts the
//! span tree gateway → game-state → store (Redis) → publish, the fan-out span linked to the
//! move, the timer firing linked to the resignation, the services' names, and that metrics
//! arrive; and prints the move's tree with each span's duration.
//!
//! Its own test binary: telemetry is installed once per process.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{Arc, Mutex},
    time::Duration,
};

use ludus_tests::{Ludus, caro_settings, next_event, patience};
use opentelemetry_proto::tonic::{
    collector::{
        metrics::v1::{
            ExportMetricsServiceRequest, ExportMetricsServiceResponse,
            metrics_service_server::{MetricsService, MetricsServiceServer},
        },
        trace::v1::{
            ExportTraceServiceRequest, ExportTraceServiceResponse,
            trace_service_server::{TraceService, TraceServiceServer},
        },
    },
    common::v1::{AnyValue, KeyValue, any_value},
    trace::v1::Span,
};
use tonic::{Request, Response, Status};

/// A span as received, with the `service.name` of the resource it came with.
#[derive(Clone, Debug)]
struct Received {
    service: String,
    span: Span,
}

/// What the receiver was sent.
#[derive(Clone, Debug, Default)]
struct Collected {
    spans: Vec<Received>,
    /// Metric names, by the `service.name` that exported them.
    metrics: BTreeMap<String, BTreeSet<String>>,
}

#[derive(Clone, Debug, Default)]
struct Receiver(Arc<Mutex<Collected>>);

impl Receiver {
    fn lock(&self) -> std::sync::MutexGuard<'_, Collected> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn text(value: Option<&AnyValue>) -> Option<String> {
    match value?.value.as_ref()? {
        any_value::Value::StringValue(s) => Some(s.clone()),
        any_value::Value::IntValue(i) => Some(i.to_string()),
        any_value::Value::BoolValue(b) => Some(b.to_string()),
        any_value::Value::DoubleValue(d) => Some(d.to_string()),
        _ => None,
    }
}

fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| text(kv.value.as_ref()))
}

fn service_name(resource: Option<&opentelemetry_proto::tonic::resource::v1::Resource>) -> String {
    resource
        .and_then(|r| attribute(&r.attributes, "service.name"))
        .unwrap_or_default()
}

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let mut collected = self.lock();
        for resource_spans in request.into_inner().resource_spans {
            let service = service_name(resource_spans.resource.as_ref());
            for scope in resource_spans.scope_spans {
                for span in scope.spans {
                    collected.spans.push(Received {
                        service: service.clone(),
                        span,
                    });
                }
            }
        }
        Ok(Response::new(ExportTraceServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl MetricsService for Receiver {
    async fn export(
        &self,
        request: Request<ExportMetricsServiceRequest>,
    ) -> Result<Response<ExportMetricsServiceResponse>, Status> {
        let mut collected = self.lock();
        for resource_metrics in request.into_inner().resource_metrics {
            let service = service_name(resource_metrics.resource.as_ref());
            let names = collected.metrics.entry(service).or_default();
            for scope in resource_metrics.scope_metrics {
                names.extend(scope.metrics.into_iter().map(|metric| metric.name));
            }
        }
        Ok(Response::new(ExportMetricsServiceResponse::default()))
    }
}

/// Starts the receiver on a free loopback port; returns its endpoint.
async fn start_receiver(receiver: Receiver) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(receiver.clone()))
            .add_service(MetricsServiceServer::new(receiver))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    format!("http://{address}")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// (trace id, span id) of a `traceparent`.
fn ids_of(traceparent: &str) -> (String, String) {
    let parts: Vec<&str> = traceparent.split('-').collect();
    assert_eq!(parts.len(), 4, "a W3C traceparent: {traceparent:?}");
    (parts[1].to_owned(), parts[2].to_owned())
}

fn label(received: &Received) -> String {
    let span = &received.span;
    let detail = attribute(&span.attributes, "rpc.method")
        .map(|method| format!(" {method}"))
        .unwrap_or_default();
    format!("{}{detail} [{}]", span.name, received.service)
}

fn duration(span: &Span) -> Duration {
    Duration::from_nanos(
        span.end_time_unix_nano
            .saturating_sub(span.start_time_unix_nano),
    )
}

/// The tree under `root` in `spans`, one line per span with its duration, children by start.
fn draw(spans: &[Received], root: &Received, depth: usize, out: &mut String) {
    out.push_str(&format!(
        "{}{} {:.3} ms\n",
        "  ".repeat(depth),
        label(root),
        duration(&root.span).as_secs_f64() * 1e3
    ));
    let mut children: Vec<&Received> = spans
        .iter()
        .filter(|s| s.span.parent_span_id == root.span.span_id)
        .collect();
    children.sort_by_key(|s| s.span.start_time_unix_nano);
    for child in children {
        draw(spans, child, depth + 1, out);
    }
}

/// The chain of ancestors of `span` within `spans`, nearest first.
fn ancestors<'a>(spans: &'a [Received], span: &'a Received) -> Vec<&'a Received> {
    let mut chain = Vec::new();
    let mut current = span;
    while let Some(parent) = spans.iter().find(|s| {
        !current.span.parent_span_id.is_empty() && s.span.span_id == current.span.parent_span_id
    }) {
        chain.push(parent);
        current = parent;
    }
    chain
}

/// Flushes the exporters until `done` holds for what arrived, for at most the test's
/// [`patience`] (20 s on an idle machine): spans end (and reach the batch processors) a little
/// after the responses that the test awaited, and the timer a move armed fires when the timers
/// worker gets the CPU.
async fn wait_for(
    guard: &ludus_telemetry::TelemetryGuard,
    receiver: &Receiver,
    what: &str,
    done: impl Fn(&Collected) -> bool,
) {
    let patience = patience();
    let deadline = tokio::time::Instant::now() + patience;
    while tokio::time::Instant::now() < deadline {
        // Flushing blocks until the batch processors' threads exported over the runtime.
        tokio::task::block_in_place(|| guard.flush());
        if done(&receiver.lock()) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("{what}: not exported within {patience:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_move_is_one_trace_from_the_gateway_to_redis_and_its_fan_out_links_to_it() {
    let receiver = Receiver::default();
    let endpoint = start_receiver(receiver.clone()).await;
    let guard = ludus_telemetry::init_system(
        "ludus",
        ludus::SERVICES,
        &ludus_telemetry::TelemetryFlags {
            otlp_endpoint: Some(endpoint),
            json_logs: false,
        },
    )
    .expect("telemetry");

    let ludus = Ludus::start().await;
    assert!(ludus.on_redis(), "store spans need the real Redis");
    let [mut ann, mut bob] = ludus.players(["ann", "bob"]).await;
    let game = ludus.create_game("", caro_settings(), &[&ann, &bob]).await;
    let game_id = game.game_id.clone();
    // The call returns before the stream has joined the live feed, and an event committed
    // before that reaches it from the log, with no fan-out span. A stream joins before it
    // reads the log: so it resumes one event back, and once that event (read from the log)
    // has arrived, the move's will come live.
    let mut watching = bob.subscribe(&game_id, game.seq - 1).await;
    assert_eq!(next_event(&mut watching).await.seq, game.seq);

    let moved = ann.play(&game_id, "H8").await.expect("a legal move");
    let delivered = next_event(&mut watching).await;
    assert_eq!(delivered.seq, moved.seq);
    assert!(
        !moved.traceparent.is_empty(),
        "a traced server puts the move's traceparent in its event"
    );
    assert_eq!(
        delivered.traceparent, moved.traceparent,
        "subscribers get the same traceparent"
    );
    let (move_trace, move_span) = ids_of(&moved.traceparent);

    // The resignation finishes the game and arms its outcome timer; the firing reports the
    // result (to ratings) in a trace of its own, linked to the resignation's.
    let resigned = bob.resign(&game_id).await.expect("resign");
    let (resign_trace, _) = ids_of(&resigned.traceparent);
    assert_ne!(resign_trace, move_trace, "every call is a trace of its own");

    let links_to =
        |span: &Span, trace: &str| span.links.iter().any(|link| hex(&link.trace_id) == trace);
    wait_for(
        &guard,
        &receiver,
        "the move, its fan-out and the timer",
        |c| {
            let spans = &c.spans;
            let in_move = |name: &str| {
                spans
                    .iter()
                    .any(|s| hex(&s.span.trace_id) == move_trace && s.span.name == name)
            };
            in_move("publish")
                && in_move("submit_action")
                && spans
                    .iter()
                    .filter(|s| hex(&s.span.trace_id) == move_trace)
                    .any(|s| s.span.parent_span_id.is_empty())
                && spans
                    .iter()
                    .any(|s| s.span.name == "fan-out" && links_to(&s.span, &move_trace))
                && spans
                    .iter()
                    .any(|s| s.span.name == "fire" && links_to(&s.span, &resign_trace))
        },
    )
    .await;

    let spans = receiver.lock().spans.clone();
    let trace: Vec<Received> = spans
        .iter()
        .filter(|s| hex(&s.span.trace_id) == move_trace)
        .cloned()
        .collect();
    let root = trace
        .iter()
        .find(|s| s.span.parent_span_id.is_empty())
        .expect("the move's root span");
    let mut drawn = String::new();
    draw(&trace, root, 0, &mut drawn);
    let fan_out = spans
        .iter()
        .find(|s| s.span.name == "fan-out" && links_to(&s.span, &move_trace))
        .expect("the fan-out span");
    drawn.push_str(&format!(
        "{} {:.3} ms, linked to span {move_span} of trace {move_trace}\n",
        label(fan_out),
        duration(&fan_out.span).as_secs_f64() * 1e3
    ));
    println!("one move's spans as exported:\n{drawn}");

    // The root is the gateway's server span for SubmitAction.
    assert_eq!(root.service, "ludus-gateway", "{drawn}");
    assert_eq!(
        attribute(&root.span.attributes, "rpc.method").as_deref(),
        Some("/ludus.v1.Gateway/SubmitAction"),
        "{drawn}"
    );
    // The commit: a Redis span of game-state, with the publish beneath it, under the
    // game-state server span, under the gateway.
    let commit = trace
        .iter()
        .find(|s| {
            attribute(&s.span.attributes, "db.stored_procedure.name").as_deref() == Some("commit")
        })
        .expect("the commit script's span");
    assert_eq!(commit.service, "ludus-game-state", "{drawn}");
    for (key, value) in [
        ("db.system.name", "redis"),
        ("db.operation.name", "EVALSHA"),
        ("server.address", "127.0.0.1"),
    ] {
        assert_eq!(
            attribute(&commit.span.attributes, key).as_deref(),
            Some(value),
            "{key}: {drawn}"
        );
    }
    assert!(attribute(&commit.span.attributes, "server.port").is_some());
    let publish = trace
        .iter()
        .find(|s| s.span.name == "publish")
        .expect("the publish span");
    assert_eq!(publish.span.parent_span_id, commit.span.span_id, "{drawn}");
    assert_eq!(publish.service, "ludus-game-state");
    let chain: Vec<String> = ancestors(&trace, commit)
        .iter()
        .map(|s| format!("{} {}", s.service, s.span.name))
        .collect();
    assert!(
        chain.contains(&"ludus-game-state grpc".to_owned())
            && chain.contains(&"ludus-gateway submit_action".to_owned())
            && chain.last() == Some(&"ludus-gateway grpc".to_owned()),
        "commit under game-state's server span under the gateway: {chain:?}\n{drawn}"
    );
    // The read before it (the game's first move: no cached copy): one round trip, the read
    // script, a Redis span too.
    assert!(
        trace.iter().any(|s| {
            attribute(&s.span.attributes, "db.stored_procedure.name").as_deref() == Some("read")
                && s.service == "ludus-game-state"
        }),
        "{drawn}"
    );
    // The event's traceparent names a span of the move's trace, in game-state.
    let named = trace
        .iter()
        .find(|s| hex(&s.span.span_id) == move_span)
        .expect("the traceparent names a span of the move");
    assert_eq!(named.service, "ludus-game-state");
    // No span of the move is left under the process's bare name.
    let services: BTreeSet<&str> = trace.iter().map(|s| s.service.as_str()).collect();
    assert_eq!(
        services,
        BTreeSet::from(["ludus-gateway", "ludus-game-state"]),
        "{drawn}"
    );
    // Keys and values stay out of spans: no attribute holds the game's id.
    for span in &trace {
        for kv in &span.span.attributes {
            let value = text(kv.value.as_ref()).unwrap_or_default();
            if span.span.name != "submit_action" && span.span.name != "apply_action" {
                assert!(
                    !value.contains(&game_id),
                    "{} carries the game id in {}",
                    span.span.name,
                    kv.key
                );
            }
        }
    }

    // The fan-out: a gateway span of its own trace, linked to the move.
    assert_eq!(fan_out.service, "ludus-gateway");
    assert_ne!(hex(&fan_out.span.trace_id), move_trace);
    assert!(
        fan_out
            .span
            .links
            .iter()
            .any(|link| hex(&link.span_id) == move_span),
        "linked to the span the event names"
    );
    assert_eq!(
        attribute(&fan_out.span.attributes, "ludus.subscribers").as_deref(),
        Some("1")
    );

    // The timer firing: a timers span linked to the resignation; game-state's ReportOutcome
    // is in its trace. The game end is written (archive, then ratings) by game-state's batch
    // task, a trace of its own whose root links to the firing's trace.
    let fire = spans
        .iter()
        .find(|s| s.span.name == "fire" && links_to(&s.span, &resign_trace))
        .expect("the outcome timer's firing");
    assert_eq!(fire.service, "ludus-timers");
    let fire_trace = hex(&fire.span.trace_id);
    let batch_of_fire = |c: &Collected| {
        c.spans
            .iter()
            .find(|s| s.span.name == "game_ends" && links_to(&s.span, &fire_trace))
            .cloned()
    };
    wait_for(&guard, &receiver, "the outcome report to ratings", |c| {
        batch_of_fire(c).is_some_and(|batch| {
            c.spans
                .iter()
                .any(|s| s.span.trace_id == batch.span.trace_id && s.service == "ludus-ratings")
        })
    })
    .await;

    let collected = receiver.lock().clone();
    let batch = batch_of_fire(&collected).expect("the game-end batch");
    assert_eq!(batch.service, "ludus-game-state");
    let in_trace = |trace: &[u8]| -> Vec<Received> {
        collected
            .spans
            .iter()
            .filter(|s| s.span.trace_id == trace)
            .cloned()
            .collect()
    };
    let fire_spans = in_trace(&fire.span.trace_id);
    assert!(
        fire_spans.iter().any(|s| s.service == "ludus-game-state"
            && attribute(&s.span.attributes, "rpc.method").as_deref()
                == Some("/ludus.v1.GameState/ReportOutcome")),
        "the firing calls game-state's ReportOutcome"
    );
    let mut drawn = String::new();
    draw(&fire_spans, fire, 0, &mut drawn);
    draw(&in_trace(&batch.span.trace_id), &batch, 0, &mut drawn);
    println!(
        "the outcome timer's firing, linked to the resignation's trace {resign_trace}, \
         and the game-end batch linked to the firing:\n{drawn}"
    );

    // Metrics arrive too, under the process's name.
    wait_for(&guard, &receiver, "metrics", |c| {
        c.metrics.get("ludus").is_some_and(|names| {
            names.contains("rpc.server.duration") && names.contains("ludus.moves")
        })
    })
    .await;

    ludus.shutdown().await;
    drop(guard);
}
