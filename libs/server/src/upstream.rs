//! One policy for every call a Ludus process makes to another Ludus service: the gateway to
//! game-state, matchmaking, ratings, accounts and rooms; timers to game-state, rooms and bots;
//! game-state to accounts, ratings and rooms; bots and rooms to game-state.
//!
//! A broken connection is not an answer. Without this layer, tonic hands the caller whatever
//! hyper saw: UNKNOWN "transport error" for a request sent into a connection the server had
//! just closed (its `max_connection_age` GOAWAY racing the call), INTERNAL "h2 protocol error"
//! for a reset stream. The gateway forwarded those to clients, and the API contract tells a
//! client to retry neither (ARCHITECTURE.md, "Error codes"). Here:
//!
//! - A request the server never processed (no connection could be made, or the server's GOAWAY
//!   refused the stream) is sent again on a fresh connection, whatever the method.
//! - A request that may have been processed is sent again only when the method says it is safe
//!   (`option idempotency_level` in `proto/ludus/v1/*.proto`, read from the descriptor set:
//!   reads, and writes keyed by an id such as ApplyAction's `action_id` or Enqueue's
//!   `request_id`).
//! - Retries stop after [`MAX_ATTEMPTS`] or [`RETRY_BUDGET`]; what is still broken then becomes
//!   UNAVAILABLE with `ErrorInfo { reason: UPSTREAM_UNAVAILABLE, domain: ludus.transport }` and
//!   metadata naming the upstream method and whether the request may have been applied.
//!
//! Unary answers are read whole before they are handed on, so a connection that breaks
//! halfway through an answer is retried like one that broke before it. A streamed answer is
//! handed on as it comes; a break in it becomes the same UNAVAILABLE, which the stream's reader
//! resumes from (the gateway re-watches a ticket; a client resumes a game from its last seq).
//!
//! Errors that the upstream answered itself (a gRPC status in its trailers, whatever the code)
//! pass through untouched: this layer only speaks for the transport.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use http_body_util::BodyExt as _;
use ludus_proto::error_details::{self, reason};
use opentelemetry::KeyValue;
use opentelemetry::metrics::Counter;
use prost::Message as _;
use prost_types::method_options::IdempotencyLevel;
use tonic::body::Body;
use tonic::transport::Channel;
use tonic::{Code, Status};
use tower::{Service, ServiceExt as _};

/// How many times one call is sent at most (the first try included).
pub const MAX_ATTEMPTS: u32 = 4;

/// How long a call keeps retrying a broken transport before it answers UNAVAILABLE. Long
/// enough to reconnect to a replica that is up (a starved process answers late, not never),
/// short against a client's own deadline.
pub const RETRY_BUDGET: Duration = Duration::from_secs(3);

/// The pause before the second try; doubled for each later one.
const FIRST_BACKOFF: Duration = Duration::from_millis(20);

/// What a method allows, from its descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MethodPolicy {
    /// Safe to send again even if the first try may have been applied.
    idempotent: bool,
    /// The answer is a stream: it is handed on as it comes, never read whole first.
    streaming_answer: bool,
    /// The request is a stream: it cannot be kept to send again.
    streaming_request: bool,
}

/// Every Ludus method's policy, by HTTP/2 path (`/ludus.v1.GameState/GetSnapshot`).
static POLICIES: LazyLock<HashMap<String, MethodPolicy>> = LazyLock::new(|| {
    let Ok(set) = prost_types::FileDescriptorSet::decode(ludus_proto::FILE_DESCRIPTOR_SET) else {
        return HashMap::new();
    };
    let mut policies = HashMap::new();
    for file in set.file {
        let package = file.package().to_owned();
        for service in &file.service {
            for method in &service.method {
                let level = method
                    .options
                    .as_ref()
                    .map_or(IdempotencyLevel::IdempotencyUnknown, |o| {
                        o.idempotency_level()
                    });
                let path = format!("/{package}.{}/{}", service.name(), method.name());
                policies.insert(
                    path,
                    MethodPolicy {
                        idempotent: level != IdempotencyLevel::IdempotencyUnknown,
                        streaming_answer: method.server_streaming(),
                        streaming_request: method.client_streaming(),
                    },
                );
            }
        }
    }
    policies
});

fn policy(path: &str) -> MethodPolicy {
    POLICIES.get(path).copied().unwrap_or_default()
}

/// A channel to one Ludus service with the upstream-call policy (see the module docs).
#[derive(Clone, Debug)]
pub struct Upstream {
    inner: Channel,
    counters: Arc<Counters>,
    /// The address the channel dials, when a server of this process may be listening there
    /// (see [`crate::local`]).
    local: Option<std::net::SocketAddr>,
}

#[derive(Debug)]
struct Counters {
    /// Tries sent again after a broken transport.
    retries: Counter<u64>,
    /// Calls answered UNAVAILABLE because the transport stayed broken.
    unavailable: Counter<u64>,
}

impl Upstream {
    /// `inner` with the policy.
    pub fn new(inner: Channel) -> Self {
        let meter = ludus_telemetry::metrics::meter();
        Upstream {
            inner,
            counters: Arc::new(Counters {
                retries: meter
                    .u64_counter("ludus.upstream.retries")
                    .with_description("calls to another Ludus service sent again after the connection broke")
                    .build(),
                unavailable: meter
                    .u64_counter("ludus.upstream.unavailable")
                    .with_description("calls to another Ludus service answered UNAVAILABLE because the connection stayed broken")
                    .build(),
            }),
            local: None,
        }
    }

    /// Calls go to the server of this process listening at `uri`'s address, when there is one
    /// ([`crate::local`]); over `inner` otherwise.
    pub fn local_first(mut self, uri: &http::Uri) -> Self {
        self.local = crate::local::address_of(uri);
        self
    }
}

/// How a try failed, as far as the caller can know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Broken {
    /// The server never saw the request: safe to send again whatever the method.
    NotProcessed,
    /// The request may have been applied.
    MaybeProcessed,
}

/// What a failed send says about the request. A GOAWAY's refusal of a stream above its last
/// stream id, and a request hyper cancelled before writing it, were never processed (RFC 9113
/// §6.8); a connection that could not be made carried nothing. Anything else may have been.
fn classify(error: &(dyn std::error::Error + 'static)) -> Broken {
    let mut source = Some(error);
    while let Some(error) = source {
        if let Some(h2) = error.downcast_ref::<h2::Error>() {
            let refused = h2.reason() == Some(h2::Reason::REFUSED_STREAM);
            let graceful_goaway = h2.is_go_away() && h2.reason() == Some(h2::Reason::NO_ERROR);
            if refused || graceful_goaway {
                return Broken::NotProcessed;
            }
        }
        if let Some(hyper) = error.downcast_ref::<hyper::Error>()
            && hyper.is_canceled()
        {
            return Broken::NotProcessed;
        }
        if error.downcast_ref::<tonic::ConnectError>().is_some() {
            return Broken::NotProcessed;
        }
        source = error.source();
    }
    Broken::MaybeProcessed
}

/// The UNAVAILABLE a caller gets for a transport that stayed broken.
fn unavailable(path: &str, broken: Broken, cause: &dyn std::fmt::Display) -> Status {
    let applied = broken == Broken::MaybeProcessed;
    let message = if applied {
        format!(
            "{path} is unreachable ({cause}); the request may have been applied: read the \
             current state before sending it again"
        )
    } else {
        format!("{path} is unreachable ({cause}): try again")
    };
    error_details::refusal(
        Code::Unavailable,
        message,
        error_details::DOMAIN_TRANSPORT,
        reason::UPSTREAM_UNAVAILABLE,
        &[
            (error_details::META_UPSTREAM, path.to_owned()),
            (error_details::META_MAYBE_APPLIED, applied.to_string()),
        ],
    )
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl Service<http::Request<Body>> for Upstream {
    type Response = http::Response<Body>;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Self::Response, Self::Error>>;

    // Readiness is awaited per try inside `call`, on a clone: a try that finds the connection
    // gone must be able to wait for a new one.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        if let Some(server) = self.local.and_then(crate::local::server_at) {
            return Box::pin(async move { Ok(crate::local::call(server, request).await) });
        }
        let channel = self.inner.clone();
        let counters = self.counters.clone();
        Box::pin(async move {
            let path = request.uri().path().to_owned();
            let policy = policy(&path);
            if policy.streaming_request {
                // Nothing to keep for a second try: one try, its breakage named.
                return send_once(channel, request, &path).await;
            }
            let (parts, body) = request.into_parts();
            let body = body.collect().await?.to_bytes();
            let deadline = tokio::time::Instant::now() + RETRY_BUDGET;
            let mut backoff = FIRST_BACKOFF;
            let mut attempt = 0;
            loop {
                attempt += 1;
                let request = rebuild(&parts, body.clone());
                let (broken, cause) = match try_once(channel.clone(), request, policy).await {
                    Ok(response) => return Ok(response),
                    Err(failure) => failure,
                };
                let may_retry = broken == Broken::NotProcessed || policy.idempotent;
                let time_left = tokio::time::Instant::now() + backoff < deadline;
                if !may_retry || !time_left || attempt == MAX_ATTEMPTS {
                    counters
                        .unavailable
                        .add(1, &[KeyValue::new("rpc.method", path.clone())]);
                    tracing::warn!(upstream = %path, attempts = attempt, error = %cause, "upstream unreachable");
                    return Err(unavailable(&path, broken, &cause).into());
                }
                counters
                    .retries
                    .add(1, &[KeyValue::new("rpc.method", path.clone())]);
                tracing::info!(upstream = %path, attempt, error = %cause, "upstream broke: sending again");
                tokio::time::sleep(backoff).await;
                backoff *= 2;
            }
        })
    }
}

/// A request like the first, with `body`.
fn rebuild(parts: &http::request::Parts, body: Bytes) -> http::Request<Body> {
    let mut request = http::Request::new(Body::new(http_body_util::Full::new(body)));
    *request.method_mut() = parts.method.clone();
    *request.uri_mut() = parts.uri.clone();
    *request.version_mut() = parts.version;
    *request.headers_mut() = parts.headers.clone();
    *request.extensions_mut() = parts.extensions.clone();
    request
}

/// One try: the answer, read whole for a unary method, or how the transport broke.
async fn try_once(
    mut channel: Channel,
    request: http::Request<Body>,
    policy: MethodPolicy,
) -> Result<http::Response<Body>, (Broken, String)> {
    let sent = match channel.ready().await {
        Ok(ready) => ready.call(request).await,
        Err(error) => Err(error),
    };
    let response = sent.map_err(|error| (classify(&error), error.to_string()))?;
    if policy.streaming_answer {
        return Ok(response.map(|body| Body::new(body.map_err(stream_broken))));
    }
    let (parts, body) = response.into_parts();
    match body.collect().await {
        Ok(collected) => Ok(http::Response::from_parts(parts, Body::new(collected))),
        Err(status) => Err((Broken::MaybeProcessed, status.message().to_owned())),
    }
}

/// A streamed answer that broke halfway: whatever it was read so far stands, the rest is
/// UNAVAILABLE for its reader to resume.
fn stream_broken(status: Status) -> Status {
    // A status the body carries on purpose (tonic's own decoding limits) is kept.
    if matches!(
        status.code(),
        Code::Unknown | Code::Internal | Code::Cancelled | Code::Unavailable
    ) {
        return error_details::refusal(
            Code::Unavailable,
            format!("the stream broke ({}): resume it", status.message()),
            error_details::DOMAIN_TRANSPORT,
            reason::UPSTREAM_UNAVAILABLE,
            &[],
        );
    }
    status
}

/// A method whose request streams: sent once, a broken transport named UNAVAILABLE.
async fn send_once(
    channel: Channel,
    request: http::Request<Body>,
    path: &str,
) -> Result<http::Response<Body>, BoxError> {
    try_once(
        channel,
        request,
        MethodPolicy {
            streaming_answer: true,
            ..MethodPolicy::default()
        },
    )
    .await
    .map_err(|(broken, cause)| unavailable(path, broken, &cause).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_come_from_the_protos_idempotency_levels() {
        let get = policy("/ludus.v1.GameState/GetSnapshot");
        assert!(get.idempotent && !get.streaming_answer, "{get:?}");
        let apply = policy("/ludus.v1.GameState/ApplyAction");
        assert!(
            apply.idempotent,
            "ApplyAction is idempotent by action_id: {apply:?}"
        );
        let resign = policy("/ludus.v1.GameState/Resign");
        assert!(!resign.idempotent, "{resign:?}");
        let watch = policy("/ludus.v1.Matchmaking/WatchTicket");
        assert!(watch.idempotent && watch.streaming_answer, "{watch:?}");
        let refresh = policy("/ludus.v1.Accounts/Refresh");
        assert!(
            !refresh.idempotent,
            "a refresh token is single use: a second try revokes its family"
        );
        assert_eq!(policy("/no.Such/Method"), MethodPolicy::default());
    }

    #[test]
    fn a_status_for_a_broken_transport_is_retryable_and_says_whether_it_may_have_applied() {
        let status = unavailable("/ludus.v1.Rooms/Command", Broken::MaybeProcessed, &"reset");
        assert_eq!(status.code(), Code::Unavailable);
        assert!(
            status.message().contains("may have been applied"),
            "{status:?}"
        );
        let status = unavailable("/ludus.v1.Rooms/GetRoom", Broken::NotProcessed, &"refused");
        assert!(
            !status.message().contains("may have been applied"),
            "{status:?}"
        );
    }
}
