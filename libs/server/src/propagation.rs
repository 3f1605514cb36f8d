//! W3C trace context across gRPC hops.

use std::sync::Arc;

use opentelemetry::{
    Context,
    propagation::{Extractor, Injector, TextMapPropagator as _},
    trace::{SpanContext, TraceContextExt as _},
};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tonic::{
    Request, Status,
    metadata::{MetadataKey, MetadataMap, MetadataValue},
    service::interceptor::InterceptedService,
};
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::upstream::Upstream;
use ludus_telemetry::routing::ServiceOf;

/// A client interceptor: puts the current span's trace context into the request metadata, and
/// this process's service credential ([`crate::service_auth`]) when it has one.
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceContext;

impl tonic::service::Interceptor for TraceContext {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        let context = tracing::Span::current().context();
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.inject_context(&context, &mut MetadataInjector(request.metadata_mut()));
        });
        if let Some(credential) = crate::service_auth::credential() {
            MetadataInjector(request.metadata_mut()).set(crate::service_auth::HEADER, credential);
        }
        Ok(request)
    }
}

/// A channel to another Ludus service whose calls carry the caller's trace context, under the
/// upstream-call policy ([`crate::upstream`]: a broken transport is retried where the method
/// allows, and is UNAVAILABLE, never UNKNOWN or INTERNAL).
pub type Traced = InterceptedService<Upstream, TraceContext>;

/// Connects lazily to `uri` (the first call dials; a dependency that is down surfaces as
/// UNAVAILABLE on that call, not as a startup failure) with trace propagation; `https://`
/// URIs over TLS ([`crate::tls::endpoint`]). A server of this same process listening at `uri`
/// is called in memory instead ([`crate::local`]).
pub fn traced_channel(uri: &str) -> Result<Traced, tonic::transport::Error> {
    let endpoint = crate::tls::endpoint(uri)?;
    let address = endpoint.uri().clone();
    let channel = endpoint
        .connect_timeout(std::time::Duration::from_secs(5))
        .tcp_nodelay(true)
        // Error messages can name what a client sent; an answer's headers up to the size
        // servers accept are read, not refused with a protocol error that takes the whole
        // connection (and every call on it) down.
        .http2_max_header_list_size(crate::server::MAX_HEADER_LIST_BYTES)
        .connect_lazy();
    Ok(InterceptedService::new(
        Upstream::new(channel).local_first(&address),
        TraceContext,
    ))
}

struct MetadataInjector<'a>(&'a mut MetadataMap);

impl Injector for MetadataInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(key), Ok(value)) = (
            MetadataKey::from_bytes(key.as_bytes()),
            MetadataValue::try_from(value.as_str()),
        ) {
            self.0.insert(key, value);
        }
    }
}

struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|key| key.as_str()).collect()
    }
}

/// The span of one incoming RPC, continuing the caller's trace when it sent one. `service` is
/// the label of the service this server serves ([`ludus_telemetry::routing::service_label`]): in a
/// process running several, its spans are exported under that service's name.
pub fn server_span(request: &http::Request<()>, service: Option<&Arc<str>>) -> tracing::Span {
    let span = rpc_span(request.uri().path());
    if !span.is_disabled() {
        let caller = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&HeaderExtractor(request.headers()))
        });
        continue_trace(&span, caller, service);
    }
    span
}

/// The span of a call from this process straight to a service's handlers (`path` as
/// `/ludus.v1.GameState/ApplyAction`), as the service's port would open it: under the
/// caller's current span, exported under the service's label.
pub fn in_process_server_span(path: &str, service: Option<&Arc<str>>) -> tracing::Span {
    let span = rpc_span(path);
    if !span.is_disabled() {
        continue_trace(&span, tracing::Span::current().context(), service);
    }
    span
}

/// An RPC's server span, for traces only ([`ludus_telemetry::TRACE_ONLY_TARGET`]): a log line
/// written while serving the call shows the handler's own span (named after the method, with
/// the game or ticket it serves), so this one would only repeat the method; and a process
/// that exports no traces then does not create it. Created for every call, its fields
/// formatted for the log as it opened, it was about a quarter of what info-level spans and
/// logs cost a move (BENCHMARKS.md, "Spans for traces only").
fn rpc_span(path: &str) -> tracing::Span {
    tracing::info_span!(
        target: ludus_telemetry::TRACE_ONLY_TARGET,
        "grpc",
        otel.kind = "server",
        rpc.method = %path
    )
}

fn continue_trace(
    span: &tracing::Span,
    mut parent: opentelemetry::Context,
    service: Option<&Arc<str>>,
) {
    if let Some(service) = service {
        parent = parent.with_value(ServiceOf(service.clone()));
    }
    // Without an OpenTelemetry layer there is nothing to attach to; that is fine.
    let _ = span.set_parent(parent);
}

/// The W3C `traceparent` of the current span (`00-<trace id>-<span id>-<flags>`), what a game
/// event and a timer's payload carry so that the traces that follow (fan-out, a timer firing)
/// can link to the move that caused them; empty when the span is not traced (no exporter).
pub fn current_traceparent() -> String {
    let context = tracing::Span::current().context();
    let span = context.span();
    let span_context = span.span_context();
    if !span_context.is_valid() {
        return String::new();
    }
    format!(
        "00-{}-{}-{:02x}",
        span_context.trace_id(),
        span_context.span_id(),
        span_context.trace_flags().to_u8()
    )
}

/// The span a `traceparent` (as [`current_traceparent`] writes it) names; `None` when it is
/// empty or malformed (it may come from an old event or a hand-made payload).
pub fn span_context_of(traceparent: &str) -> Option<SpanContext> {
    if traceparent.is_empty() {
        return None;
    }
    let context = TraceContextPropagator::new().extract(&OneHeader(traceparent));
    let span_context = context.span().span_context().clone();
    span_context.is_valid().then_some(span_context)
}

/// Links `span` to the span `traceparent` names, when it names one: a trace that a move
/// caused later (its fan-out, its timer) points back at the move.
pub fn link_to(span: &tracing::Span, traceparent: &str) {
    if let Some(span_context) = span_context_of(traceparent) {
        span.add_link(span_context);
    }
}

/// Makes `span` a root of `service`'s work (for a process running several services; see
/// [`ludus_telemetry::routing`]): for background work that no request started.
pub fn root_of(span: &tracing::Span, service: &str) {
    let _ = span.set_parent(Context::new().with_value(ServiceOf(Arc::from(service))));
}

/// A carrier holding only a `traceparent`.
struct OneHeader<'a>(&'a str);

impl Extractor for OneHeader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        (key == "traceparent").then_some(self.0)
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_reads_back_as_the_span_it_names() {
        let parsed = span_context_of("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .expect("valid");
        assert_eq!(
            parsed.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(parsed.span_id().to_string(), "00f067aa0ba902b7");
        assert!(parsed.is_sampled());
        for bad in [
            "",
            "garbage",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        ] {
            assert!(span_context_of(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn an_untraced_span_has_no_traceparent() {
        // No OpenTelemetry layer in this test: nothing to name.
        let span = tracing::info_span!("untraced");
        let _entered = span.enter();
        assert_eq!(current_traceparent(), "");
    }
}
