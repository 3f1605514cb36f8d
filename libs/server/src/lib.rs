//! The kit every Ludus server and every call between Ludus services is built from.
//!
//! # Layout
//! - [`server`]: a tonic server builder with tracing, metrics, gRPC health and reflection (v1
//!   and v1alpha, for grpcurl), and the shutdown sequence (NOT_SERVING, then drain).
//! - [`propagation`]: the channel to another Ludus service ([`traced_channel`]) with its
//!   client interceptor that injects the current span's trace context into outgoing metadata,
//!   and the server `trace_fn` that continues it, so one move is one trace from the gateway to
//!   Redis.
//! - [`local`]: a call to a server of this same process (the all-in-one) goes to its stack
//!   in memory, without HTTP/2 or a socket.
//! - [`upstream`]: the policy of every call to another Ludus service: a broken transport is
//!   retried where the method's idempotency allows, and answered UNAVAILABLE, never UNKNOWN.
//! - [`service_auth`]: the service credential every internal call carries and every internal
//!   server checks, and [`service_auth::ServiceFlags`], the flags every service binary takes.
//! - [`runtime`]: the tokio runtime every Ludus binary runs on (the scheduling that lets one
//!   event's frames to many streams leave in one write).
//! - [`tls`]: TLS for servers (a certificate reloaded from its files) and for internal
//!   clients dialing `https://` (a CA file).
//!
//! Logs, traces and metrics themselves are `ludus-telemetry`.
#![forbid(unsafe_code)]

pub mod local;
pub mod propagation;
pub mod runtime;
pub mod server;
pub mod service_auth;
pub mod tls;
pub mod upstream;

/// The allocator every Ludus binary declares (`#[global_allocator]`): mimalloc's per-thread
/// free lists instead of glibc's arenas for the many small, short-lived allocations of each
/// gRPC message (measured in BENCHMARKS.md, "the allocator").
pub use mimalloc::MiMalloc as Allocator;
pub use propagation::{TraceContext, Traced, traced_channel};
pub use runtime::runtime;
pub use server::{
    GrpcService, ServingGuard, listen, serve, serve_while_ready, serve_with, shutdown_signal,
};
pub use tls::ServerTls;
