//! Calls to a server of this same process, without a socket.
//!
//! The all-in-one binary runs every service in one process, each on its own loopback port,
//! and they call each other by those ports' URLs exactly as in a cluster. Over loopback each
//! such call still costs a client and a server HTTP/2 stack (HPACK, frames, flow control) and
//! a socket write and wake-up on each side: in the all-in-one, the gateway's call to
//! game-state was about a third of a move's CPU (BENCHMARKS.md, "A call to a server of the
//! same process").
//!
//! So every plain-text server [`crate::serve`] starts also registers here, under the address
//! it listens on, the same stack its port serves (the trace span continued from the caller's
//! metadata, `grpc-timeout`, the RPC metrics, the service-credential check, the routes). A
//! channel whose URL names such an address ([`crate::traced_channel`]) hands each call to
//! that stack as an in-memory HTTP request: the messages are still encoded and decoded, the
//! credential still checked, one trace still spans both services; only HTTP/2 and the socket
//! are gone. The port stays open for everyone else (tests, tools, other processes).
//!
//! A server leaves the registry when its shutdown starts: later calls take the port, which
//! refuses them as it would any caller, so a stopped service looks the same either way.
//! There is no transport to break in between, so the upstream-call policy's retries
//! ([`crate::upstream`]) never apply to a local call; a handler's own status passes as is.
//! [`set_enabled`]`(false)` turns the shortcut off for this process (`ludus serve
//! --internal-calls loopback`), to measure it or to debug the wire path.
//!
//! # Typed calls on the hot path
//!
//! The stack still costs a move the encoding and decoding of both messages (game-state's
//! answer carries the event with its board view), an HTTP request and response with their
//! headers, the credential check, the metrics and the routing: about a fifth of the
//! all-in-one's CPU per move (BENCHMARKS.md, "Typed calls in one process"). So a service
//! may also [`offer`] its handlers themselves, as the trait object of its generated server
//! trait, under the address it listens on; a caller holding a [`Local`] for that address
//! calls the handler with the message as it is. What such a call skips is what exists only
//! between processes: the encoding, the service credential (the caller is this process),
//! the port's server span (the handler's own span is a child of the caller's, in the same
//! trace) and the callee's `rpc.server.duration` (the caller's public call has its own).
//! Offers follow the same rules as the stacks: plain-text addresses only, taken out when the
//! server's shutdown starts, and none while local calls are off.

use std::any::Any;
use std::collections::HashMap;
use std::convert::Infallible;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, PoisonError, RwLock};
use std::time::Duration;

use futures::future::BoxFuture;
use tonic::body::Body;
use tower::util::BoxCloneSyncService;
use tower::{Service, ServiceExt as _};
use tracing::Instrument as _;

/// A server's whole stack, as a call from this process reaches it.
pub(crate) type LocalStack =
    BoxCloneSyncService<http::Request<Body>, http::Response<Body>, Infallible>;

/// Whether calls to a registered address skip the socket (the default).
static ENABLED: AtomicBool = AtomicBool::new(true);

/// The servers of this process, by the address they listen on, each with the number of its
/// registration (so that a stopping server removes its own entry, never a newer server's on
/// a reused port).
static SERVERS: LazyLock<RwLock<HashMap<SocketAddr, (u64, LocalStack)>>> =
    LazyLock::new(Default::default);

/// Numbers the registrations.
static NEXT_REGISTRATION: AtomicU64 = AtomicU64::new(0);

/// How the services of one process call each other (`ludus serve --internal-calls`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum InternalCalls {
    /// In memory, straight to the other service's stack.
    #[default]
    InProcess,
    /// Over the other service's loopback port, as between processes.
    Loopback,
}

/// The flag of the binaries that run several services in one process.
#[derive(Clone, Copy, Debug, Default, clap::Args)]
pub struct InternalCallsFlags {
    /// How the services of this process call each other: `in-process` (in memory, without
    /// HTTP/2 or a socket) or `loopback` (over their ports, as between processes: to measure
    /// the difference or to debug the wire path).
    #[arg(long, env = "LUDUS_INTERNAL_CALLS", value_enum, default_value_t)]
    pub internal_calls: InternalCalls,
}

impl InternalCallsFlags {
    /// Sets this process's way ([`set_enabled`]).
    pub fn apply(self) {
        set_enabled(self.internal_calls == InternalCalls::InProcess);
    }
}

/// Turns local calls on or off for the whole process (on unless turned off); calls already
/// under way finish the way they started.
pub fn set_enabled(enabled: bool) {
    ENABLED.store(enabled, Ordering::Relaxed);
}

/// Whether local calls are on ([`set_enabled`]).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// A server's entry in the registry, taken out when this is dropped (the server returned,
/// however it ended).
#[derive(Debug)]
pub(crate) struct Registration(Entry);

/// Names one registration, to take it out early (when the server's shutdown starts).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    address: SocketAddr,
    number: u64,
}

impl Registration {
    /// Registers `stack` as the server listening on `address`.
    pub(crate) fn new(address: SocketAddr, stack: LocalStack) -> Registration {
        let number = NEXT_REGISTRATION.fetch_add(1, Ordering::Relaxed);
        SERVERS
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(address, (number, stack));
        Registration(Entry { address, number })
    }

    /// The entry, for whoever takes it out first.
    pub(crate) fn entry(&self) -> Entry {
        self.0
    }
}

impl Entry {
    /// Takes the entry out, if it is still there (a newer server on the same port keeps its
    /// own).
    pub(crate) fn remove(self) {
        let mut servers = SERVERS.write().unwrap_or_else(PoisonError::into_inner);
        if servers
            .get(&self.address)
            .is_some_and(|(number, _)| *number == self.number)
        {
            servers.remove(&self.address);
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.0.remove();
    }
}

/// What a service of this process offers under the address its server listens on: the number
/// of its offer (as in [`SERVERS`]), its handlers as an `Arc<T>` of the trait object they were
/// offered as, and the service's label for its spans.
struct Offering {
    number: u64,
    handlers: Box<dyn Any + Send + Sync>,
    label: Option<Arc<str>>,
}

/// The handlers services of this process offer, by the address their server listens on.
static OFFERS: LazyLock<RwLock<HashMap<SocketAddr, Offering>>> = LazyLock::new(Default::default);

/// Offers `handlers` of the gRPC service `grpc_service` (e.g. `ludus.v1.GameState`, offered as
/// `Arc<dyn pb::game_state_server::GameState>`) to callers of this process as the service
/// listening on `address`, until the returned [`Offer`] is dropped: drop it when the server's
/// shutdown starts, as the stack's registration is.
#[must_use = "the offer is taken back when this is dropped"]
pub fn offer<T: ?Sized + Send + Sync + 'static>(
    address: SocketAddr,
    grpc_service: &str,
    handlers: Arc<T>,
) -> Offer {
    let number = NEXT_REGISTRATION.fetch_add(1, Ordering::Relaxed);
    let offering = Offering {
        number,
        handlers: Box::new(handlers),
        label: ludus_telemetry::routing::service_label(grpc_service).map(Into::into),
    };
    OFFERS
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(address, offering);
    Offer { address, number }
}

/// An offer of [`offer`], taken back when dropped (a newer offer on the same port stays).
#[derive(Debug)]
pub struct Offer {
    address: SocketAddr,
    number: u64,
}

impl Drop for Offer {
    fn drop(&mut self) {
        let mut offers = OFFERS.write().unwrap_or_else(PoisonError::into_inner);
        if offers
            .get(&self.address)
            .is_some_and(|offering| offering.number == self.number)
        {
            offers.remove(&self.address);
        }
    }
}

/// The handlers of type `T` offered under the address a service URL names, when that service
/// runs in this process: a client holds one next to its gRPC client and calls the handlers
/// when [`Local::get`] finds them, the port otherwise.
pub struct Local<T: ?Sized> {
    address: Option<SocketAddr>,
    of: PhantomData<fn() -> Arc<T>>,
}

impl<T: ?Sized> Clone for Local<T> {
    fn clone(&self) -> Self {
        Local {
            address: self.address,
            of: PhantomData,
        }
    }
}

impl<T: ?Sized> std::fmt::Debug for Local<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Local")
            .field("address", &self.address)
            .finish()
    }
}

impl<T: ?Sized + Send + Sync + 'static> Local<T> {
    /// The handlers behind `url`, if it is a plain `http://` address and port (anything else
    /// is never in this process).
    pub fn at(url: &str) -> Local<T> {
        let address = url
            .parse::<http::Uri>()
            .ok()
            .and_then(|uri| address_of(&uri));
        Local {
            address,
            of: PhantomData,
        }
    }

    /// The handlers, while their server runs in this process and local calls are on.
    pub fn get(&self) -> Option<Offered<T>> {
        let address = self.address?;
        if !enabled() {
            return None;
        }
        let offers = OFFERS.read().unwrap_or_else(PoisonError::into_inner);
        let offering = offers.get(&address)?;
        Some(Offered {
            handlers: offering.handlers.downcast_ref::<Arc<T>>()?.clone(),
            label: offering.label.clone(),
        })
    }
}

/// Handlers found by [`Local::get`].
pub struct Offered<T: ?Sized> {
    /// The service's handlers, to call with a `tonic::Request` of the message.
    pub handlers: Arc<T>,
    label: Option<Arc<str>>,
}

impl<T: ?Sized> std::fmt::Debug for Offered<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offered")
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

impl<T: ?Sized> Offered<T> {
    /// The span to call the handlers in: the server span the service's port would open for
    /// `path` (`/ludus.v1.GameState/ApplyAction`), under the caller's span, exported under
    /// the service's name.
    pub fn span(&self, path: &str) -> tracing::Span {
        crate::propagation::in_process_server_span(path, self.label.as_ref())
    }
}

/// The stack of the server of this process that listens on `address`, if any and if local
/// calls are on.
pub(crate) fn server_at(address: SocketAddr) -> Option<LocalStack> {
    if !enabled() {
        return None;
    }
    SERVERS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&address)
        .map(|(_, stack)| stack.clone())
}

/// The address a plain `http://` URL names, when it is an IP address and port (what the
/// all-in-one's services are given); anything else is never local.
pub(crate) fn address_of(uri: &http::Uri) -> Option<SocketAddr> {
    if uri.scheme_str() != Some("http") {
        return None;
    }
    uri.authority()?.as_str().parse().ok()
}

/// Sends `request` to `stack` and answers as the port would (a handler's status in the
/// response, never an error).
pub(crate) async fn call(stack: LocalStack, request: http::Request<Body>) -> http::Response<Body> {
    match stack.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// What the port does around the routed services that tonic's server adds per connection,
/// done here for a local call: the server span (continued from the caller's trace context)
/// around the call, and the caller's `grpc-timeout` (DEADLINE_EXCEEDED when it passes).
#[derive(Clone)]
pub(crate) struct AsOnThePort<S> {
    pub(crate) inner: S,
    pub(crate) span: SpanFor,
}

/// Makes the server span of a call from its head (what the port's `trace_fn` does).
pub(crate) type SpanFor = std::sync::Arc<dyn Fn(&http::Request<()>) -> tracing::Span + Send + Sync>;

impl<S> Service<http::Request<Body>> for AsOnThePort<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<http::Response<Body>, Infallible>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let (parts, body) = request.into_parts();
        let bodyless = http::Request::from_parts(parts, ());
        let span = (self.span)(&bodyless);
        let timeout = grpc_timeout(bodyless.headers());
        let (parts, ()) = bodyless.into_parts();
        let answer = self.inner.call(http::Request::from_parts(parts, body));
        Box::pin(
            async move {
                let Some(timeout) = timeout else {
                    return answer.await;
                };
                match tokio::time::timeout(timeout, answer).await {
                    Ok(answer) => answer,
                    Err(_) => Ok(tonic::Status::deadline_exceeded(format!(
                        "the caller's deadline ({timeout:?}) passed before the answer"
                    ))
                    .into_http()),
                }
            }
            .instrument(span),
        )
    }
}

/// A `grpc-timeout` header's duration (the gRPC over HTTP/2 spec: up to 8 digits and a unit).
fn grpc_timeout(headers: &http::HeaderMap) -> Option<Duration> {
    let value = headers.get("grpc-timeout")?.to_str().ok()?;
    if value.len() < 2 || value.len() > 9 {
        return None;
    }
    let (digits, unit) = value.split_at(value.len() - 1);
    let amount: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(amount.saturating_mul(3600)),
        "M" => Duration::from_secs(amount.saturating_mul(60)),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_timeouts_are_read_in_every_unit_and_nonsense_is_ignored() {
        let timeout = |value: &str| {
            let mut headers = http::HeaderMap::new();
            headers.insert("grpc-timeout", value.parse().expect("header value"));
            grpc_timeout(&headers)
        };
        assert_eq!(timeout("2H"), Some(Duration::from_secs(7200)));
        assert_eq!(timeout("3M"), Some(Duration::from_secs(180)));
        assert_eq!(timeout("5S"), Some(Duration::from_secs(5)));
        assert_eq!(timeout("250m"), Some(Duration::from_millis(250)));
        assert_eq!(
            timeout("99999999u"),
            Some(Duration::from_micros(99_999_999))
        );
        assert_eq!(timeout("7n"), Some(Duration::from_nanos(7)));
        assert_eq!(timeout("100"), None, "no unit");
        assert_eq!(timeout("m"), None, "no digits");
        assert_eq!(timeout("123456789S"), None, "more than 8 digits");
        assert_eq!(timeout("5x"), None, "no such unit");
    }

    #[test]
    fn only_plain_urls_naming_an_ip_and_port_can_be_local() {
        let address = |url: &str| address_of(&url.parse().expect("uri"));
        assert_eq!(
            address("http://127.0.0.1:5051"),
            Some(SocketAddr::from(([127, 0, 0, 1], 5051)))
        );
        assert_eq!(
            address("https://127.0.0.1:5051"),
            None,
            "TLS goes over the wire"
        );
        assert_eq!(
            address("http://localhost:5051"),
            None,
            "a name is not resolved"
        );
        assert_eq!(address("http://game-state:50051"), None);
    }
}
