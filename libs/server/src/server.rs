//! The server plumbing every Ludus gRPC server shares.

use std::{convert::Infallible, future::Future, time::Duration};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_stream::StreamExt as _;
use tokio_util::sync::CancellationToken;
use tonic::{
    server::NamedService,
    transport::server::{Connected, TcpConnectInfo, TcpIncoming},
};
use tonic_health::server::HealthReporter;

use crate::propagation::server_span;
use crate::service_auth::ServiceAuthLayer;
use crate::tls::ServerTls;
use ludus_telemetry::metrics::RpcMetricsLayer;

/// Largest request a Ludus server decodes (4 MiB is tonic's default too); larger ones get
/// RESOURCE_EXHAUSTED before any handler runs.
pub const MAX_DECODING_MESSAGE_SIZE: usize = 4 * 1024 * 1024;

/// Largest header block a Ludus server reads (HTTP/2 `SETTINGS_MAX_HEADER_LIST_SIZE`).
/// hyper's default, 16 KiB, answered a 20 KB authorization header with HTTP 431 (clients saw
/// UNKNOWN) and a 64 KB one with a GOAWAY that dropped every call on the connection; at
/// 128 KiB such headers reach the handler, which refuses them with a gRPC status.
pub const MAX_HEADER_LIST_BYTES: u32 = 128 * 1024;

/// How long in-flight calls get to finish after shutdown starts.
pub const DRAIN_GRACE: Duration = Duration::from_secs(10);

/// Health state of one server: SERVING while it runs and its store answers; every registered
/// service flips to NOT_SERVING on shutdown, for good.
#[derive(Clone)]
pub struct ServingGuard {
    reporter: HealthReporter,
    names: Vec<&'static str>,
    /// Set once shutdown starts; held while a status is written, so a late "store is back"
    /// cannot turn a draining server SERVING again.
    stopped: std::sync::Arc<tokio::sync::Mutex<bool>>,
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
        let stopped = self.stopped.lock().await;
        self.write(serving && !*stopped).await;
    }

    async fn stop(&self) {
        let mut stopped = self.stopped.lock().await;
        *stopped = true;
        self.write(false).await;
    }

    async fn write(&self, serving: bool) {
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

/// Binds `address` and logs where `service` listens: how every binary opens its port before
/// handing it to its `run`.
pub async fn listen(service: &str, address: &str) -> anyhow::Result<TcpListener> {
    let listener = TcpListener::bind(address).await?;
    tracing::info!(address = %listener.local_addr()?, "{service} listening");
    Ok(listener)
}

/// What a tonic service takes in and gives back.
type HttpRequest = http::Request<tonic::body::Body>;
type HttpResponse = http::Response<tonic::body::Body>;

/// A tonic service as [`serve`] and [`serve_with`] take it: what a generated `FooServer::new`
/// returns.
pub trait GrpcService:
    tower::Service<HttpRequest, Response = HttpResponse, Error = Infallible, Future: Send + 'static>
    + NamedService
{
}

impl<S> GrpcService for S where
    S: tower::Service<
            HttpRequest,
            Response = HttpResponse,
            Error = Infallible,
            Future: Send + 'static,
        > + NamedService
{
}

/// Serves an internal `service` (see [`serve_with`]), rotating client connections every
/// [`INTERNAL_CONNECTION_AGE`], over TLS when this process has a server certificate
/// ([`crate::tls::process_server`]).
pub async fn serve<S>(
    service: S,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()>
where
    S: GrpcService + Clone + Send + Sync + 'static,
{
    serve_with(
        service,
        Some(INTERNAL_CONNECTION_AGE),
        crate::tls::process_server(),
        listener,
        shutdown,
    )
    .await
}

/// The standard health service every server also serves.
const HEALTH_SERVICE: &str = "grpc.health.v1.Health";

/// Serves `service` on `listener` with tracing, the `rpc.server.duration` histogram
/// ([`RpcMetricsLayer`]), health (overall and per service) and reflection, until `shutdown` completes; then reports NOT_SERVING and drains for at most
/// [`DRAIN_GRACE`]. `connection_age` bounds how long one client connection lives (`None` for
/// the public gateway, whose clients hold long event streams). With `tls` the port serves TLS
/// only, gRPC and grpc-web alike, with the certificate reloaded as its files change (see
/// [`crate::tls`]); without it, plain h2c.
pub async fn serve_with<S>(
    service: S,
    connection_age: Option<Duration>,
    tls: Option<ServerTls>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()>
where
    S: GrpcService + Clone + Send + Sync + 'static,
{
    let (_always, ready) = tokio::sync::watch::channel(true);
    serve_ready(service, connection_age, tls, listener, shutdown, ready).await
}

/// Serves an internal `service` like [`serve`], reporting NOT_SERVING while `ready` holds
/// `false` (its store is unreachable: a readiness probe then sends callers elsewhere) and
/// SERVING again when it turns `true`. TLS as in [`serve`].
pub async fn serve_while_ready<S>(
    service: S,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    ready: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<()>
where
    S: GrpcService + Clone + Send + Sync + 'static,
{
    serve_ready(
        service,
        Some(INTERNAL_CONNECTION_AGE),
        crate::tls::process_server(),
        listener,
        shutdown,
        ready,
    )
    .await
}

async fn serve_ready<S>(
    service: S,
    connection_age: Option<Duration>,
    tls: Option<ServerTls>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    mut ready: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<()>
where
    S: GrpcService + Clone + Send + Sync + 'static,
{
    let (reporter, health_service) = tonic_health::server::health_reporter();
    let guard = ServingGuard {
        reporter,
        names: vec![S::NAME],
        stopped: Default::default(),
    };
    let serving = *ready.borrow_and_update();
    guard.set(serving).await;
    let following = guard.clone();
    let follow_readiness = tokio::spawn(async move {
        while ready.changed().await.is_ok() {
            let serving = *ready.borrow_and_update();
            following.set(serving).await;
        }
    });
    let _stop_following = AbortOnDrop(follow_readiness);

    // Reflection advertises what this server serves, not every service in the descriptors: the
    // public gateway must not list the internal services it does not route (ARCHITECTURE.md, "Security").
    // The same listing under both reflection versions: clients differ in which one they ask.
    // Asked by symbol, reflection answers from the descriptors it holds whatever the listing
    // says, so it holds only this server's service: the gateway's port does not describe
    // game-state's or accounts' internal calls.
    let descriptors = descriptors_serving(ludus_proto::FILE_DESCRIPTOR_SET, S::NAME)?;
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_file_descriptor_set(descriptors.clone())
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .with_service_name(S::NAME)
            .with_service_name(HEALTH_SERVICE)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;

    // Made here, after `init` installed the meter provider (see `ludus_telemetry::metrics`).
    let rpc_metrics = RpcMetricsLayer::new(
        &ludus_telemetry::metrics::meter(),
        vec![
            S::NAME,
            name_of(&health_service),
            name_of(&reflection_v1),
            name_of(&reflection_v1alpha),
        ],
    );

    // The service label this server's spans are exported under (see `ludus_telemetry::routing`).
    let label: Option<std::sync::Arc<str>> =
        ludus_telemetry::routing::service_label(S::NAME).map(Into::into);
    // Internal servers (those that rotate connections) serve Ludus services only; the public
    // gateway (no rotation) authenticates players itself.
    let service_auth = ServiceAuthLayer::new(connection_age.is_some());
    // The same stack for callers in this process, without the socket (see `crate::local`).
    // Plain-text ports only: a TLS port's callers dial it by a name its certificate holds.
    let local = match (&tls, listener.local_addr()) {
        (None, Ok(address)) => {
            let routes = tonic::service::Routes::new(health_service.clone())
                .add_service(reflection_v1.clone())
                .add_service(reflection_v1alpha.clone())
                .add_service(service.clone())
                .prepare();
            let stack = tower::ServiceBuilder::new()
                .layer(rpc_metrics.clone())
                .layer(service_auth)
                .service(routes);
            let label = label.clone();
            let span: crate::local::SpanFor =
                std::sync::Arc::new(move |request| server_span(request, label.as_ref()));
            let stack = crate::local::AsOnThePort { inner: stack, span };
            Some(crate::local::Registration::new(
                address,
                tower::util::BoxCloneSyncService::new(stack),
            ))
        }
        _ => None,
    };
    let mut builder = tonic::transport::Server::builder();
    if let Some(age) = connection_age {
        // In-flight calls get the drain grace to finish on the old connection.
        builder = builder
            .max_connection_age(age)
            .max_connection_age_grace(DRAIN_GRACE);
    }
    let router = builder
        .layer(rpc_metrics)
        .layer(service_auth)
        .trace_fn(move |request| server_span(request, label.as_ref()))
        // grpc-web from browsers arrives over HTTP/1.1 too (the gateway translates it; see
        // `ludus_gateway::web`); HTTP/2 connections are served exactly as before.
        .accept_http1(true)
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_max_header_list_size(MAX_HEADER_LIST_BYTES)
        .add_service(health_service.clone())
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(service);

    let draining = CancellationToken::new();
    let guard_for_shutdown = guard.clone();
    let name = S::NAME;
    let start_draining = draining.clone();
    // The registration is dropped (taken out) when this function returns, however the
    // server ended; the shutdown task only takes it out earlier.
    let local_entry = local.as_ref().map(crate::local::Registration::entry);
    tokio::spawn(async move {
        shutdown.await;
        // Calls from this process take the port from now on, which refuses new ones.
        if let Some(entry) = local_entry {
            entry.remove();
        }
        tracing::info!(service = name, "shutting down: not serving, draining");
        guard_for_shutdown.stop().await;
        start_draining.cancel();
    });

    // The plain health port for probes that speak no TLS (`--health-listen`).
    let _health_port = match crate::tls::health_listen() {
        Some(address) => {
            let listener = listen("health", address).await?;
            let health_only = tonic::transport::Server::builder()
                .add_service(health_service.clone())
                .serve_with_incoming_shutdown(
                    accept_with_nodelay(listener),
                    draining.clone().cancelled_owned(),
                );
            let serving = tokio::spawn(async move {
                if let Err(error) = health_only.await {
                    tracing::warn!(%error, "the health port stopped");
                }
            });
            Some(AbortOnDrop(serving))
        }
        None => None,
    };
    let (incoming, _stop_accepting) = match tls {
        Some(tls) => {
            let (incoming, accepting) = accept_tls(listener, tls.clone());
            let reloading = tokio::spawn(tls.watch());
            (
                incoming,
                Some((AbortOnDrop(accepting), AbortOnDrop(reloading))),
            )
        }
        None => (accept_plain(listener), None),
    };
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

/// The connections `listener` accepts, each with `TCP_NODELAY` set.
///
/// `Server::builder().tcp_nodelay(true)` reaches only sockets tonic binds itself: a server
/// started with `serve_with_incoming*` keeps Nagle's algorithm on every accepted socket unless
/// the incoming stream sets it. With Nagle on, h2 writes a reply's trailers after a DATA frame
/// over ~256 bytes as a second small segment, which waits for the peer's delayed ACK (~40 ms
/// on Linux): every such call took 40+ ms instead of well under one.
pub fn accept_with_nodelay(listener: TcpListener) -> TcpIncoming {
    TcpIncoming::from(listener).with_nodelay(Some(true))
}

/// What a server reads connections from: plain TCP or TLS, one stream type for both.
type Incoming = std::pin::Pin<
    Box<dyn tokio_stream::Stream<Item = Result<Conn, std::io::Error>> + Send + 'static>,
>;

fn accept_plain(listener: TcpListener) -> Incoming {
    Box::pin(accept_with_nodelay(listener).map(|accepted| accepted.map(Conn::Plain)))
}

/// TLS connections from `listener`: each handshake runs on a task of its own (bounded by
/// [`crate::tls::HANDSHAKE_TIMEOUT`]), so a slow or silent client never holds up the next
/// one; failed handshakes are logged at debug level (scanners would fill the log otherwise).
/// The returned task accepts until aborted.
fn accept_tls(listener: TcpListener, tls: ServerTls) -> (Incoming, tokio::task::JoinHandle<()>) {
    let (sender, receiver) = tokio::sync::mpsc::channel(64);
    let acceptor = tls.acceptor();
    let accepting = tokio::spawn(async move {
        let mut tcp = accept_with_nodelay(listener);
        while let Some(accepted) = tcp.next().await {
            let stream = match accepted {
                Ok(stream) => stream,
                Err(error) => {
                    // As for plain TCP: the server skips it and goes on accepting.
                    if sender.send(Err(error)).await.is_err() {
                        return;
                    }
                    continue;
                }
            };
            let (acceptor, sender) = (acceptor.clone(), sender.clone());
            tokio::spawn(async move {
                let peer = stream.peer_addr().ok();
                match tokio::time::timeout(crate::tls::HANDSHAKE_TIMEOUT, acceptor.accept(stream))
                    .await
                {
                    Ok(Ok(tls)) => {
                        let _ = sender.send(Ok(Conn::Tls(Box::new(tls)))).await;
                    }
                    Ok(Err(error)) => tracing::debug!(?peer, %error, "TLS handshake failed"),
                    Err(_) => tracing::debug!(?peer, "TLS handshake timed out"),
                }
            });
        }
    });
    let incoming = tokio_stream::wrappers::ReceiverStream::new(receiver);
    (Box::pin(incoming), accepting)
}

/// One accepted connection, plain or TLS.
enum Conn {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

impl Connected for Conn {
    // The TCP peer either way: what handlers read (`remote_addr`) does not change with TLS.
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        match self {
            Conn::Plain(stream) => stream.connect_info(),
            Conn::Tls(stream) => stream.get_ref().0.connect_info(),
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(stream) => std::pin::Pin::new(stream).poll_read(cx, buf),
            Conn::Tls(stream) => std::pin::Pin::new(stream.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(stream) => std::pin::Pin::new(stream).poll_write(cx, buf),
            Conn::Tls(stream) => std::pin::Pin::new(stream.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(stream) => std::pin::Pin::new(stream).poll_write_vectored(cx, bufs),
            Conn::Tls(stream) => std::pin::Pin::new(stream.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    /// No, although TCP and TLS both take vectored writes: h2 decides from this how it
    /// buffers DATA frames. With vectored writes it keeps any frame of 256 bytes or more apart
    /// and writes it (with whatever was buffered before it) before it takes the next frame:
    /// one `writev` per frame, and a game event is 350-550 bytes, so an event fanned out to a
    /// thousand streams was a thousand writes. Without, frames under 1 KiB are copied into
    /// its 16 KiB write buffer and go out together (BENCHMARKS.md, "One write per
    /// connection"); a larger frame is written as two `write`s instead of one `writev`.
    fn is_write_vectored(&self) -> bool {
        false
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(stream) => std::pin::Pin::new(stream).poll_flush(cx),
            Conn::Tls(stream) => std::pin::Pin::new(stream.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(stream) => std::pin::Pin::new(stream).poll_shutdown(cx),
            Conn::Tls(stream) => std::pin::Pin::new(stream.as_mut()).poll_shutdown(cx),
        }
    }
}

/// Aborts a helper task when the server it follows stops.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
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

/// The encoded descriptor set `encoded` with every service but `service` (a full name,
/// `ludus.v1.Gateway`) taken out of its files; the messages stay (a served call's messages
/// must resolve).
pub fn descriptors_serving(
    encoded: &[u8],
    service: &str,
) -> Result<prost_types::FileDescriptorSet, prost::DecodeError> {
    use prost::Message;
    let mut set = prost_types::FileDescriptorSet::decode(encoded)?;
    for file in &mut set.file {
        let package = file.package().to_owned();
        file.service
            .retain(|s| format!("{package}.{}", s.name()) == service);
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use tokio_stream::StreamExt;

    use super::*;

    /// The regression guard for the 40 ms stall: every connection a Ludus server accepts (they
    /// all go through [`serve_with`], which accepts through [`accept_with_nodelay`]) has
    /// `TCP_NODELAY` set. Asserts the socket option, not a time.
    #[tokio::test]
    async fn accepted_sockets_have_nodelay_set() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let mut incoming = accept_with_nodelay(listener);
        let client = tokio::net::TcpStream::connect(address);
        let (client, accepted) = tokio::join!(client, incoming.next());
        let _client = client.expect("connect");
        let accepted = accepted.expect("a connection").expect("accepted");
        assert!(
            accepted.nodelay().expect("read TCP_NODELAY"),
            "Nagle stays on for accepted sockets: h2 trailers would wait for a delayed ACK"
        );
    }
}
