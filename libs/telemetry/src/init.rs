//! Tracing and OpenTelemetry setup, done once per process.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::{
    Resource,
    metrics::SdkMeterProvider,
    propagation::TraceContextPropagator,
    trace::{BatchSpanProcessor, SdkTracerProvider, SpanProcessor as _},
};
use tracing_subscriber::{
    EnvFilter,
    filter::{FilterExt, filter_fn},
    layer::{Layer as _, SubscriberExt},
    util::SubscriberInitExt,
};

use crate::routing::ServiceRouter;

/// How a process logs and traces: the flags every Ludus binary takes, flattened into its own
/// (`#[command(flatten)] telemetry: TelemetryFlags`) so the names and environment variables
/// are the same everywhere.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct TelemetryFlags {
    /// OTLP/gRPC endpoint for traces and metrics, e.g. `http://otel-collector:4317`; none
    /// exported when unset.
    #[arg(long, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,
    /// Log JSON lines (for log shippers) instead of human-readable ones.
    #[arg(long, env = "LUDUS_JSON_LOGS")]
    pub json_logs: bool,
}

/// Flushes and shuts down trace and metric export when dropped: keep it alive in `main`.
#[derive(Debug)]
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
}

impl TelemetryGuard {
    /// Exports every finished span and the metrics recorded so far now, rather than at the
    /// next batch or period (tests; shutdown does it too).
    pub fn flush(&self) {
        if let Some(provider) = &self.provider
            && let Err(error) = provider.force_flush()
        {
            eprintln!("trace export did not flush: {error}");
        }
        if let Some(provider) = &self.meter_provider
            && let Err(error) = provider.force_flush()
        {
            eprintln!("metric export did not flush: {error}");
        }
    }
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take()
            && let Err(error) = provider.shutdown()
        {
            eprintln!("trace export did not shut down cleanly: {error}");
        }
        // Shutting down exports what was recorded since the last periodic export.
        if let Some(provider) = self.meter_provider.take()
            && let Err(error) = provider.shutdown()
        {
            eprintln!("metric export did not shut down cleanly: {error}");
        }
    }
}

/// The attribute that tells replicas of one service apart (OpenTelemetry semantic
/// conventions): without it, two replicas' metric series carry the same labels and overwrite
/// each other at the collector.
const SERVICE_INSTANCE_ID: &str = "service.instance.id";

/// The resource every span and metric of this process carries: `service_name` unless
/// `OTEL_SERVICE_NAME` names the service, what `OTEL_RESOURCE_ATTRIBUTES` adds, and a
/// `service.instance.id` unless that variable gives one.
fn resource(service_name: &str) -> Resource {
    let name = std::env::var_os("OTEL_SERVICE_NAME")
        .is_none()
        .then_some(service_name);
    resource_named(name)
}

/// [`resource`] with `service.name` = `name` whatever the environment says (`None`: as the
/// environment says).
fn resource_named(name: Option<&str>) -> Resource {
    // `Resource::builder()` reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
    let from_environment = Resource::builder().build();
    let mut builder = Resource::builder();
    if let Some(name) = name {
        builder = builder.with_service_name(name.to_owned());
    }
    if from_environment
        .get(&opentelemetry::Key::from_static_str(SERVICE_INSTANCE_ID))
        .is_none()
    {
        builder = builder.with_attribute(opentelemetry::KeyValue::new(
            SERVICE_INSTANCE_ID,
            instance_id(std::env::var("HOSTNAME").ok(), std::process::id()),
        ));
    }
    builder.build()
}

/// The `service.name` of service `label` inside the all-in-one process `system`:
/// `ludus-game-state`, or `<OTEL_SERVICE_NAME>-game-state` when that variable names the
/// process.
fn system_service_name(system: &str, label: &str) -> String {
    let system = std::env::var("OTEL_SERVICE_NAME")
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| system.to_owned());
    format!("{system}-{label}")
}

/// This process among its service's replicas: the host's name (a pod's name in Kubernetes,
/// unique among live pods) and the process id (unique on the host).
fn instance_id(hostname: Option<String>, pid: u32) -> String {
    match hostname.filter(|name| !name.is_empty()) {
        Some(name) => format!("{name}-{pid}"),
        None => format!("pid-{pid}"),
    }
}

/// The target of spans that exist only for traces (the store's Redis calls, the gateway's
/// fan-out): logs never show them, so in a process that exports no traces no layer wants
/// them and `tracing` does not even create them (an atomic load per call site, no
/// allocation). Every such span names this target.
pub const TRACE_ONLY_TARGET: &str = "ludus::trace";

/// Installs the global subscriber for `service_name` (`game-state`, `gateway`, … the name in
/// traces). Log levels come from `RUST_LOG` (default `info`). Calling it twice (tests) keeps
/// the first subscriber.
pub fn init(service_name: &str, config: &TelemetryFlags) -> anyhow::Result<TelemetryGuard> {
    install(service_name, &[], config)
}

/// [`init`] for a process running several services (the all-in-one `ludus`): the spans of
/// service `label` (one of `services`, the names each service's own binary reports) carry
/// `service.name` = `<system>-<label>` (`ludus-game-state`), or
/// `<OTEL_SERVICE_NAME>-<label>`; metrics, and spans of no service, carry the process's
/// `system` name. See [`crate::routing`] for how a span's service is found.
pub fn init_system(
    system: &str,
    services: &[&str],
    config: &TelemetryFlags,
) -> anyhow::Result<TelemetryGuard> {
    install(system, services, config)
}

fn install(
    service_name: &str,
    services: &[&str],
    config: &TelemetryFlags,
) -> anyhow::Result<TelemetryGuard> {
    // W3C trace context on every hop, whether or not spans are exported.
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let filter = || EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));

    let (provider, meter_provider) = match &config.otlp_endpoint {
        Some(endpoint) => {
            let resource = resource(service_name);
            // One batch processor (and exporter) per service: a batch is exported with one
            // resource. Sampling follows OTEL_TRACES_SAMPLER (the SDK reads it): every span
            // by default.
            let batch = |service: Option<Resource>| -> anyhow::Result<BatchSpanProcessor> {
                let exporter = opentelemetry_otlp::SpanExporter::builder()
                    .with_tonic()
                    .with_endpoint(endpoint.clone())
                    .build()?;
                let mut processor = BatchSpanProcessor::builder(exporter).build();
                if let Some(service) = service {
                    processor.set_resource(&service);
                }
                Ok(processor)
            };
            let routes = services
                .iter()
                .map(|label| {
                    let name = system_service_name(service_name, label);
                    Ok((
                        (*label).to_owned(),
                        batch(Some(resource_named(Some(&name))))?,
                    ))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let tracer_provider = SdkTracerProvider::builder()
                .with_span_processor(ServiceRouter::new(routes, batch(None)?))
                .with_resource(resource.clone())
                .build();
            // Periodic export, every 60 s unless OTEL_METRIC_EXPORT_INTERVAL (ms) says
            // otherwise.
            let metric_exporter = opentelemetry_otlp::MetricExporter::builder()
                .with_tonic()
                .with_endpoint(endpoint.clone())
                .build()?;
            let meter_provider = SdkMeterProvider::builder()
                .with_periodic_exporter(metric_exporter)
                .with_resource(resource)
                .build();
            (Some(tracer_provider), Some(meter_provider))
        }
        None => (None, None),
    };
    // Each layer has its own filter (boxed: the otel layer is not always there, and an
    // absent `Option` layer would still say yes to every span).
    type Boxed = Box<dyn tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync>;
    let mut layers: Vec<Boxed> = Vec::new();
    if let Some(provider) = &provider {
        layers.push(
            tracing_opentelemetry::layer()
                .with_tracer(provider.tracer(service_name.to_owned()))
                .with_filter(filter())
                .boxed(),
        );
        opentelemetry::global::set_tracer_provider(provider.clone());
    }
    // Without a provider the global meter stays the no-op one: every instrument records
    // nothing and costs next to nothing.
    if let Some(meter_provider) = &meter_provider {
        opentelemetry::global::set_meter_provider(meter_provider.clone());
        crate::metrics::set_enabled();
    }

    // Logs leave out the trace-only spans (see TRACE_ONLY_TARGET).
    let logged = || filter().and(filter_fn(|metadata| metadata.target() != TRACE_ONLY_TARGET));
    layers.push(if config.json_logs {
        tracing_subscriber::fmt::layer()
            .json()
            .with_filter(logged())
            .boxed()
    } else {
        // Colours only for a person at a terminal: a log collector reading a pipe would
        // store the escape codes, and writing them is most of what formatting a span's
        // fields costs (each span's fields are formatted when it opens, logged or not).
        tracing_subscriber::fmt::layer()
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
            .with_filter(logged())
            .boxed()
    });
    let result = tracing_subscriber::registry().with(layers).try_init();
    if result.is_err() {
        tracing::debug!("a tracing subscriber was already installed");
    }
    Ok(TelemetryGuard {
        provider,
        meter_provider,
    })
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::TelemetryFlags;

    #[derive(Debug, Parser)]
    struct Binary {
        #[command(flatten)]
        telemetry: TelemetryFlags,
    }

    #[test]
    fn every_binary_takes_the_same_flags_and_environment_variables() {
        let command = Binary::command();
        let env_of = |id: &str| {
            command
                .get_arguments()
                .find(|arg| arg.get_id() == id)
                .and_then(|arg| arg.get_env())
                .and_then(|env| env.to_str())
                .map(str::to_owned)
        };
        // Deployments set these names: renaming one silently turns export or JSON logs off.
        assert_eq!(
            env_of("otlp_endpoint").as_deref(),
            Some("OTEL_EXPORTER_OTLP_ENDPOINT")
        );
        assert_eq!(env_of("json_logs").as_deref(), Some("LUDUS_JSON_LOGS"));

        let parsed = Binary::try_parse_from([
            "bin",
            "--otlp-endpoint",
            "http://collector:4317",
            "--json-logs",
        ])
        .expect("flags parse");
        assert_eq!(
            parsed.telemetry.otlp_endpoint.as_deref(),
            Some("http://collector:4317")
        );
        assert!(parsed.telemetry.json_logs);
    }
}

#[cfg(test)]
mod filter_tests {
    use super::*;

    /// The store's Redis spans and the gateway's fan-out span are on the move path: with no
    /// exporter they must cost nothing, not even the span's creation.
    #[test]
    fn without_an_exporter_trace_only_spans_are_never_created() {
        let _guard = init("test", &TelemetryFlags::default()).expect("init");
        let logged = tracing::info_span!("logged");
        assert!(!logged.is_disabled(), "logs still see the services' spans");
        let trace_only = tracing::info_span!(target: TRACE_ONLY_TARGET, "redis");
        assert!(trace_only.is_disabled(), "a trace-only span was created");
    }
}

#[cfg(test)]
mod resource_tests {
    use super::*;

    #[test]
    fn each_process_says_which_service_and_which_replica_it_is() {
        let resource = resource("game-state");
        let value = |key: &'static str| {
            resource
                .get(&opentelemetry::Key::from_static_str(key))
                .map(|v| v.to_string())
        };
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            assert_eq!(value("service.name").as_deref(), Some("game-state"));
        }
        let instance = value(SERVICE_INSTANCE_ID).expect("an instance id");
        assert!(
            instance.ends_with(&format!("-{}", std::process::id())),
            "{instance}"
        );
    }

    #[test]
    fn an_instance_id_is_the_pod_and_the_process() {
        assert_eq!(
            instance_id(Some("game-state-7d9f-x2k".into()), 7),
            "game-state-7d9f-x2k-7"
        );
        assert_eq!(instance_id(Some(String::new()), 7), "pid-7");
        assert_eq!(instance_id(None, 42), "pid-42");
    }
}
