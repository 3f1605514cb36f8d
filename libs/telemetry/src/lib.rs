//! Logs, traces and metrics for every Ludus process.
//!
//! # Layout
//! - [`init`]: `tracing` subscriber (plain or JSON logs) plus OpenTelemetry export over OTLP
//!   when an endpoint is configured, and [`TelemetryFlags`], the flags for both that every
//!   binary flattens into its own.
//! - [`metrics`]: the shared `ludus` meter and the `rpc.server.duration` histogram layer
//!   every server records (metrics are exported with traces when an endpoint is set).
//! - [`routing`]: one `service.name` per service inside the all-in-one process.
//!
//! The server kit built on this (server builder, channels between services, service
//! credentials, TLS) is `ludus-server`.
#![forbid(unsafe_code)]

pub mod init;
pub mod metrics;
pub mod routing;
#[cfg(feature = "testing")]
pub mod testing;

pub use init::{TRACE_ONLY_TARGET, TelemetryFlags, TelemetryGuard, init, init_system};
