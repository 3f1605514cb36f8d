//! OpenTelemetry metrics: the shared meter, and the RPC duration histogram every server
//! records.
//!
//! Instruments come from [`meter`]. The global meter provider is not late-binding: an
//! instrument made before [`crate::init`] installs the exporting provider stays a no-op
//! forever. So services make their instruments on first use (a `LazyLock`) or when a server
//! starts, both after `init` in `main`. Without an OTLP endpoint the global provider is the
//! no-op one and every instrument records nothing.

use std::{
    future::Future,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    task::{Context, Poll},
    time::Instant,
};

use opentelemetry::{
    KeyValue,
    metrics::{Histogram, Meter},
};

/// The instrumentation scope of every Ludus instrument.
pub const METER_NAME: &str = "ludus";

/// `rpc.server.duration`, per the OpenTelemetry semantic conventions for RPC.
pub const RPC_SERVER_DURATION: &str = "rpc.server.duration";

/// Stands in for a service or method name a client made up (semantic-conventions style),
/// so a client cannot create unbounded attribute values.
pub const OTHER: &str = "_OTHER";

static ENABLED: AtomicBool = AtomicBool::new(false);

/// The meter every Ludus instrument comes from (the global provider's, see the module docs).
pub fn meter() -> Meter {
    opentelemetry::global::meter(METER_NAME)
}

/// Whether [`crate::init`] installed an exporting meter provider. Work done only to feed an
/// instrument (e.g. polling the store for a gauge) is skipped when it is not.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

pub(crate) fn set_enabled() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// A tower layer that records [`RPC_SERVER_DURATION`] (milliseconds) for every call, with
/// `rpc.system = grpc`, `rpc.service`, `rpc.method` and `rpc.grpc.status_code`.
///
/// The duration runs until the response headers: for a unary RPC tonic builds them only once
/// the handler has returned, so that is the handler's time. For a server-streaming RPC it is
/// the time to open the stream (the handler returning the stream), not the stream's
/// lifetime, which the client decides. The status code is the one in the response headers
/// (trailers-only responses: every error a handler returns); a call without one is counted
/// as OK, so a stream that fails after it opened is counted by its opening.
#[derive(Clone, Debug)]
pub struct RpcMetricsLayer {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    duration: Histogram<f64>,
    /// The services this server routes; any other path is recorded as [`OTHER`].
    services: Vec<&'static str>,
}

impl RpcMetricsLayer {
    /// A layer recording into `meter`'s [`RPC_SERVER_DURATION`], for a server that routes
    /// `services` (fully qualified names, e.g. `ludus.v1.GameState`).
    pub fn new(meter: &Meter, services: Vec<&'static str>) -> Self {
        let duration = meter
            .f64_histogram(RPC_SERVER_DURATION)
            .with_unit("ms")
            .with_description("Duration of inbound RPCs, to the response headers")
            .build();
        RpcMetricsLayer {
            shared: Arc::new(Shared { duration, services }),
        }
    }
}

impl<S> tower::Layer<S> for RpcMetricsLayer {
    type Service = RpcMetrics<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RpcMetrics {
            inner,
            shared: self.shared.clone(),
        }
    }
}

/// The service made by [`RpcMetricsLayer`].
#[derive(Clone, Debug)]
pub struct RpcMetrics<S> {
    inner: S,
    shared: Arc<Shared>,
}

/// gRPC status code UNIMPLEMENTED: what tonic answers for a method it does not route.
const UNIMPLEMENTED: i64 = 12;
/// gRPC status code UNKNOWN, for a call that produced no response at all.
const UNKNOWN: i64 = 2;

impl<S, B, R> tower::Service<http::Request<B>> for RpcMetrics<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    S::Error: 'static,
    R: 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let (service, method) = rpc_name(request.uri().path());
        let service = self
            .shared
            .services
            .iter()
            .copied()
            .find(|known| *known == service);
        let method = method.to_owned();
        let shared = self.shared.clone();
        let start = Instant::now();
        let response = self.inner.call(request);
        Box::pin(async move {
            let result = response.await;
            let code = match &result {
                Ok(response) => status_code(response.headers()),
                Err(_) => UNKNOWN,
            };
            // An unknown service, or an unknown method of a known one (tonic answers
            // UNIMPLEMENTED), is a name the client chose: record it as _OTHER.
            let (service, method) = match service {
                Some(service) if code != UNIMPLEMENTED => (service, method),
                Some(service) => (service, OTHER.to_owned()),
                None => (OTHER, OTHER.to_owned()),
            };
            shared.duration.record(
                start.elapsed().as_secs_f64() * 1_000.0,
                &[
                    KeyValue::new("rpc.system", "grpc"),
                    KeyValue::new("rpc.service", service),
                    KeyValue::new("rpc.method", method),
                    KeyValue::new("rpc.grpc.status_code", code),
                ],
            );
            result
        })
    }
}

/// `/pkg.Service/Method` -> (`pkg.Service`, `Method`); anything else has no known service.
fn rpc_name(path: &str) -> (&str, &str) {
    path.strip_prefix('/')
        .and_then(|rest| rest.split_once('/'))
        .unwrap_or(("", ""))
}

/// The `grpc-status` of a trailers-only response; 0 (OK) when the status comes later, in the
/// trailers.
fn status_code(headers: &http::HeaderMap) -> i64 {
    headers
        .get("grpc-status")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_the_path() {
        assert_eq!(
            rpc_name("/ludus.v1.GameState/ApplyAction"),
            ("ludus.v1.GameState", "ApplyAction")
        );
        assert_eq!(rpc_name("/"), ("", ""));
        assert_eq!(rpc_name("no-slash"), ("", ""));
    }

    #[test]
    fn status_comes_from_trailers_only_headers() {
        let mut headers = http::HeaderMap::new();
        assert_eq!(status_code(&headers), 0);
        headers.insert("grpc-status", http::HeaderValue::from_static("5"));
        assert_eq!(status_code(&headers), 5);
    }
}
