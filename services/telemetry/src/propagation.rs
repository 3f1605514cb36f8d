//! W3C trace context across gRPC hops.

use opentelemetry::propagation::{Extractor, Injector};
use tonic::{
    Request, Status,
    metadata::{MetadataKey, MetadataMap, MetadataValue},
    service::interceptor::InterceptedService,
    transport::{Channel, Endpoint},
};
use tracing_opentelemetry::OpenTelemetrySpanExt;

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

/// A channel whose calls carry the caller's trace context.
pub type Traced = InterceptedService<Channel, TraceContext>;

/// Connects lazily to `uri` (the first call dials; a dependency that is down surfaces as
/// UNAVAILABLE on that call, not as a startup failure) with trace propagation.
pub fn traced_channel(uri: &str) -> Result<Traced, tonic::transport::Error> {
    let channel = Endpoint::from_shared(uri.to_owned())?
        .connect_timeout(std::time::Duration::from_secs(5))
        .tcp_nodelay(true)
        .connect_lazy();
    Ok(InterceptedService::new(channel, TraceContext))
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

/// The span of one incoming RPC, continuing the caller's trace when it sent one.
pub fn server_span(request: &http::Request<()>) -> tracing::Span {
    let span = tracing::info_span!(
        "grpc",
        otel.kind = "server",
        rpc.method = %request.uri().path(),
    );
    let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&HeaderExtractor(request.headers()))
    });
    // Without an OpenTelemetry layer there is nothing to attach to; that is fine.
    let _ = span.set_parent(parent);
    span
}
