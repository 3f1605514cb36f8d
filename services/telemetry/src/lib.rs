//! What every Ludus server shares: logs and traces, trace context across gRPC hops, and the
//! server plumbing (health, reflection, graceful shutdown).
//!
//! # Layout
//! - [`init`]: `tracing` subscriber (plain or JSON logs) plus OpenTelemetry export over OTLP
//!   when an endpoint is configured, and [`TelemetryFlags`], the flags for both that every
//!   binary flattens into its own.
//! - [`metrics`]: the shared `ludus` meter and the `rpc.server.duration` histogram layer
//!   every server records (metrics are exported with traces when an endpoint is set).
//! - [`propagation`]: the client interceptor that injects the current span's trace context
//!   into outgoing metadata, and the server `trace_fn` that continues it, so one move is one
//!   trace from the gateway to Redis.
//! - [`routing`]: one `service.name` per service inside the all-in-one process.
//! - [`upstream`]: the policy of every call to another Ludus service: a broken transport is
//!   retried where the method's idempotency allows, and answered UNAVAILABLE, never UNKNOWN.
//! - [`service_auth`]: the service credential every internal call carries and every internal
//!   server checks.
//! - [`tls`]: TLS for servers (a certificate reloaded from its files) and for internal
//!   clients dialing `https://` (a CA file).
//! - [`server`]: a tonic server builder with tracing, gRPC health and reflection (v1 and
//!   v1alpha, for grpcurl), and the shutdown sequence (NOT_SERVING, then drain).
#![forbid(unsafe_code)]

pub mod init;
pub mod metrics;
pub mod propagation;
pub mod routing;
pub mod server;
pub mod service_auth;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tls;
pub mod upstream;

pub use init::{TRACE_ONLY_TARGET, TelemetryFlags, TelemetryGuard, init, init_system};
/// The allocator every Ludus binary declares (`#[global_allocator]`): mimalloc's per-thread
/// free lists instead of glibc's arenas for the many small, short-lived allocations of each
/// gRPC message (measured in BENCHMARKS.md, "the allocator").
pub use mimalloc::MiMalloc as Allocator;
pub use propagation::{TraceContext, Traced, traced_channel};
pub use server::{
    GrpcService, ServingGuard, listen, serve, serve_while_ready, serve_with, shutdown_signal,
};
pub use tls::ServerTls;
