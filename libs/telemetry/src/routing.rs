//! Several services in one process, each with its own `service.name`: the all-in-one binary
//! runs every Ludus service on one tracing subscriber and one OpenTelemetry layer, yet its
//! game-state spans must say `ludus-game-state` and its gateway spans `ludus-gateway`.
//!
//! Why a routing processor and not one layer per service: tracing-opentelemetry keeps its
//! per-span state (`OtelData`) in the span's extensions, keyed by type, so two layers of the
//! same type on one registry overwrite each other's state for every span both see; per-layer
//! filters cannot choose a layer per span instance either (a store span belongs to whichever
//! service called the store). So there is one layer and one tracer provider, and a
//! [`ServiceRouter`] span processor hands each finished span to the batch processor (and
//! exporter) of its service, each of which exports with its service's resource.
//!
//! Which service a span belongs to, in order:
//! 1. a server's span carries [`ServiceOf`] in its parent context (set by
//!    [`crate::propagation::server_span`] from the gRPC service it serves);
//! 2. else the service of its local parent span (a store span under game-state's
//!    `apply_action`), remembered from the parent's start;
//! 3. else the crate that made it (`ludus_timers::worker` -> `timers`), for the roots of
//!    background work: a timer's firing, the gateway's fan-out;
//! 4. else the process's own resource (the fallback route).

use std::{collections::HashMap, sync::Arc, sync::Mutex, time::Duration};

use opentelemetry::{
    Context,
    trace::{Span as _, SpanId, TraceContextExt},
};
use opentelemetry_sdk::{
    Resource,
    error::{OTelSdkError, OTelSdkResult},
    trace::{Span, SpanData, SpanProcessor},
};

/// The service whose server started a span: put into the server span's parent context, and
/// inherited from there by every span the request makes in this process.
#[derive(Clone, Debug)]
pub struct ServiceOf(pub Arc<str>);

/// The service label of a gRPC service: `ludus.v1.GameState` -> `game-state`, the name each
/// service's own binary reports. Services outside `ludus.v1` (health, reflection) have none:
/// their spans go by their parent or crate.
pub fn service_label(grpc_service: &str) -> Option<String> {
    let name = grpc_service.strip_prefix("ludus.v1.")?;
    let mut label = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                label.push('-');
            }
            label.push(c.to_ascii_lowercase());
        } else {
            label.push(c);
        }
    }
    Some(label)
}

/// The service label of the crate a span was made in: `ludus_game_state::service` ->
/// `game-state`. Shared crates (store, telemetry, proto) name no service.
fn crate_label(module: &str) -> Option<String> {
    let krate = module.split("::").next()?;
    let name = krate.strip_prefix("ludus_")?;
    match name {
        "store" | "telemetry" | "proto" => None,
        _ => Some(name.replace('_', "-")),
    }
}

/// Index of the fallback route in [`ServiceRouter::live`].
const FALLBACK: usize = usize::MAX;

/// A span processor that forwards each span to the processor of its service (see the module
/// docs), or to the fallback.
#[derive(Debug)]
pub struct ServiceRouter<P> {
    routes: Vec<(String, P)>,
    fallback: P,
    /// Spans started and not ended yet, with their route: how children find their parent's.
    live: Mutex<HashMap<SpanId, usize>>,
}

impl<P: SpanProcessor> ServiceRouter<P> {
    /// Routes spans of each `(label, processor)` service to its processor (which keeps the
    /// resource it was given: the provider's resource reaches only `fallback`).
    pub fn new(routes: Vec<(String, P)>, fallback: P) -> Self {
        ServiceRouter {
            routes,
            fallback,
            live: Mutex::new(HashMap::new()),
        }
    }

    fn index(&self, label: &str) -> Option<usize> {
        self.routes.iter().position(|(name, _)| name == label)
    }

    fn route(&self, span: &Span, cx: &Context) -> usize {
        if let Some(ServiceOf(label)) = cx.get::<ServiceOf>()
            && let Some(index) = self.index(label)
        {
            return index;
        }
        let parent = cx.span();
        let parent = parent.span_context();
        if parent.is_valid()
            && !parent.is_remote()
            && let Some(&index) = self.lock().get(&parent.span_id())
        {
            return index;
        }
        // A root of background work: its crate says whose it is. Copying the span's data is
        // the only way to read its attributes here; roots are few.
        span.exported_data()
            .and_then(|data| {
                data.attributes
                    .iter()
                    .find(|kv| kv.key.as_str() == "code.module.name")
                    .and_then(|kv| crate_label(kv.value.as_str().as_ref()))
            })
            .and_then(|label| self.index(&label))
            .unwrap_or(FALLBACK)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SpanId, usize>> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn processor(&self, index: usize) -> &P {
        self.routes
            .get(index)
            .map_or(&self.fallback, |(_, processor)| processor)
    }

    fn each(&self, mut f: impl FnMut(&P) -> OTelSdkResult) -> OTelSdkResult {
        let mut failures = Vec::new();
        for processor in self.routes.iter().map(|(_, p)| p).chain([&self.fallback]) {
            if let Err(error) = f(processor) {
                failures.push(error.to_string());
            }
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(OTelSdkError::InternalFailure(failures.join("; ")))
        }
    }
}

impl<P: SpanProcessor> SpanProcessor for ServiceRouter<P> {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        let index = self.route(span, cx);
        self.lock().insert(span.span_context().span_id(), index);
        self.processor(index).on_start(span, cx);
    }

    fn on_end(&self, span: SpanData) {
        let index = self
            .lock()
            .remove(&span.span_context.span_id())
            .unwrap_or(FALLBACK);
        self.processor(index).on_end(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.each(|p| p.force_flush())
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.each(|p| p.shutdown_with_timeout(timeout))
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.fallback.set_resource(resource);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_services_and_crates_name_the_same_services() {
        for (grpc, module, label) in [
            (
                "ludus.v1.GameState",
                "ludus_game_state::service",
                "game-state",
            ),
            ("ludus.v1.Gateway", "ludus_gateway::fanout", "gateway"),
            ("ludus.v1.Timers", "ludus_timers::worker", "timers"),
            ("ludus.v1.Matchmaking", "ludus_matchmaking", "matchmaking"),
            ("ludus.v1.Rooms", "ludus_rooms::service", "rooms"),
            ("ludus.v1.Bots", "ludus_bots::service", "bots"),
        ] {
            assert_eq!(service_label(grpc).as_deref(), Some(label), "{grpc}");
            assert_eq!(crate_label(module).as_deref(), Some(label), "{module}");
        }
        assert_eq!(service_label("grpc.health.v1.Health"), None);
        assert_eq!(crate_label("ludus_store::game"), None);
        assert_eq!(crate_label("tonic::transport"), None);
    }
}
