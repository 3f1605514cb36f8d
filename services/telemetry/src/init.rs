//! Tracing and OpenTelemetry setup, done once per process.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::{
    Resource, metrics::SdkMeterProvider, propagation::TraceContextPropagator,
    trace::SdkTracerProvider,
};
use tracing_subscriber::{EnvFilter, layer::SubscriberExt, util::SubscriberInitExt};

/// How a process logs and traces.
#[derive(Clone, Debug, Default)]
pub struct TelemetryConfig {
    /// The service name in traces (`game-state`, `gateway`, …).
    pub service_name: String,
    /// OTLP/gRPC endpoint, e.g. `http://otel-collector:4317`; no export when `None`.
    pub otlp_endpoint: Option<String>,
    /// JSON log lines (for log shippers) instead of human-readable ones.
    pub json_logs: bool,
}

/// Flushes and shuts down trace and metric export when dropped: keep it alive in `main`.
#[derive(Debug)]
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
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

/// Installs the global subscriber. Log levels come from `RUST_LOG` (default `info`). Calling it
/// twice (tests) keeps the first subscriber.
pub fn init(config: &TelemetryConfig) -> anyhow::Result<TelemetryGuard> {
    // W3C trace context on every hop, whether or not spans are exported.
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));

    let (provider, meter_provider) = match &config.otlp_endpoint {
        Some(endpoint) => {
            let resource = Resource::builder_empty()
                .with_service_name(config.service_name.clone())
                .build();
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_tonic()
                .with_endpoint(endpoint.clone())
                .build()?;
            let tracer_provider = SdkTracerProvider::builder()
                .with_batch_exporter(exporter)
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
    let otel_layer = provider.as_ref().map(|provider| {
        tracing_opentelemetry::layer().with_tracer(provider.tracer(config.service_name.clone()))
    });
    if let Some(provider) = &provider {
        opentelemetry::global::set_tracer_provider(provider.clone());
    }
    // Without a provider the global meter stays the no-op one: every instrument records
    // nothing and costs next to nothing.
    if let Some(meter_provider) = &meter_provider {
        opentelemetry::global::set_meter_provider(meter_provider.clone());
        crate::metrics::set_enabled();
    }

    let registry = tracing_subscriber::registry().with(filter).with(otel_layer);
    let result = if config.json_logs {
        registry
            .with(tracing_subscriber::fmt::layer().json())
            .try_init()
    } else {
        registry.with(tracing_subscriber::fmt::layer()).try_init()
    };
    if result.is_err() {
        tracing::debug!("a tracing subscriber was already installed");
    }
    Ok(TelemetryGuard {
        provider,
        meter_provider,
    })
}
