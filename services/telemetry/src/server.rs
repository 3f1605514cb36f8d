//! The server plumbing every Ludus gRPC server shares.

use std::{future::Future, time::Duration};

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tokio_util::sync::CancellationToken;
use tonic::server::NamedService;
use tonic_health::server::HealthReporter;

use crate::metrics::RpcMetricsLayer;
use crate::propagation::server_span;

/// Largest request a Ludus server decodes (4 MiB is tonic's default too); larger ones get
/// RESOURCE_EXHAUSTED before any handler runs.
pub const MAX_DECODING_MESSAGE_SIZE: usize = 4 * 1024 * 1024;

/// How long in-flight calls get to finish after shutdown starts.
pub const DRAIN_GRACE: Duration = Duration::from_secs(10);

/// Health state of one server: flips every registered service to NOT_SERVING on shutdown.
#[derive(Clone)]
pub struct ServingGuard {
    reporter: HealthReporter,
    names: Vec<&'static str>,
}

impl std::fmt::Debug for ServingGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServingGuard")
            .field("names", &self.names)
            .finish()
    }
}

impl ServingGuard {
    async fn set(&self, serving: bool) {
        let status = if serving {
            tonic_health::ServingStatus::Serving
        } else {
            tonic_health::ServingStatus::NotServing
        };
        self.reporter.set_service_status("", status).await;
        for name in &self.names {
            self.reporter.set_service_status(*name, status).await;
        }
    }
}

/// How long an internal client connection lives before the server asks it to reconnect.
/// Behind a Kubernetes ClusterIP Service an HTTP/2 connection sticks to one pod; rotating
/// connections spreads callers over new replicas within minutes, without a mesh.
pub const INTERNAL_CONNECTION_AGE: Duration = Duration::from_secs(300);

/// Serves an internal `service` (see [`serve_with`]), rotating client connections every
/// [`INTERNAL_CONNECTION_AGE`].
pub async fn serve<S>(
    service: S,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()>
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = std::convert::Infallible,
        > + NamedService
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    serve_with(service, Some(INTERNAL_CONNECTION_AGE), listener, shutdown).await
}

/// Serves `service` on `listener` with tracing, the `rpc.server.duration` histogram
/// ([`RpcMetricsLayer`]), health (overall and per service) and reflection, until `shutdown` completes; then reports NOT_SERVING and drains for at most
/// [`DRAIN_GRACE`]. `connection_age` bounds how long one client connection lives (`None` for
/// the public gateway, whose clients hold long event streams).
pub async fn serve_with<S>(
    service: S,
    connection_age: Option<Duration>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()>
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = std::convert::Infallible,
        > + NamedService
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let (reporter, health_service) = tonic_health::server::health_reporter();
    let guard = ServingGuard {
        reporter,
        names: vec![S::NAME],
    };
    guard.set(true).await;

    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(ludus_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(ludus_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;

    // Made here, after `init` installed the meter provider (see `crate::metrics`).
    let rpc_metrics = RpcMetricsLayer::new(
        &crate::metrics::meter(),
        vec![
            S::NAME,
            name_of(&health_service),
            name_of(&reflection_v1),
            name_of(&reflection_v1alpha),
        ],
    );

    let mut builder = tonic::transport::Server::builder();
    if let Some(age) = connection_age {
        // In-flight calls get the drain grace to finish on the old connection.
        builder = builder
            .max_connection_age(age)
            .max_connection_age_grace(DRAIN_GRACE);
    }
    let router = builder
        .layer(rpc_metrics)
        .trace_fn(server_span)
        .tcp_nodelay(true)
        // grpc-web from browsers arrives over HTTP/1.1 too (the gateway translates it; see
        // `ludus_gateway::web`); HTTP/2 connections are served exactly as before.
        .accept_http1(true)
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(service);

    let draining = CancellationToken::new();
    let guard_for_shutdown = guard.clone();
    let name = S::NAME;
    let start_draining = draining.clone();
    tokio::spawn(async move {
        shutdown.await;
        tracing::info!(service = name, "shutting down: not serving, draining");
        guard_for_shutdown.set(false).await;
        start_draining.cancel();
    });

    let incoming = TcpListenerStream::new(listener);
    let serving = router.serve_with_incoming_shutdown(incoming, draining.clone().cancelled_owned());
    tokio::pin!(serving);
    tokio::select! {
        result = &mut serving => return Ok(result?),
        () = draining.cancelled() => {}
    }
    // Long-lived streams may hold the drain open: give in-flight calls a deadline.
    match tokio::time::timeout(DRAIN_GRACE, serving).await {
        Ok(result) => result?,
        Err(_) => tracing::warn!(
            service = name,
            "drain did not finish within the grace period"
        ),
    }
    Ok(())
}

fn name_of<T: NamedService>(_: &T) -> &'static str {
    T::NAME
}

/// Completes on Ctrl-C or SIGTERM (what Kubernetes sends before it kills a pod).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
