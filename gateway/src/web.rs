//! Browsers: grpc-web on the gateway's own port.
//!
//! A browser cannot speak native gRPC (it has no access to HTTP/2 trailers), so the gateway
//! also accepts grpc-web (`application/grpc-web` and `application/grpc-web-text`, unary and
//! server-streaming calls) over HTTP/1.1 or HTTP/2, translated by `tonic-web` into ordinary
//! gRPC calls of the same service. Native gRPC requests pass through untouched.
//!
//! A page served from another origin may call the gateway only when that origin is listed
//! (`--cors-origin`): tower-http's CORS layer answers preflights and adds the
//! `Access-Control-*` headers; with no origin listed, browsers refuse every cross-origin call.
//! Credentials are a bearer token in a header, never a cookie, so no origin gets
//! `Access-Control-Allow-Credentials`.

use std::{
    convert::Infallible,
    task::{Context, Poll},
    time::Duration,
};

use http::{HeaderName, HeaderValue, Method};
use tonic::{body::Body, server::NamedService};
use tonic_web::{GrpcWebLayer, GrpcWebService};
use tower::{Layer, Service};
use tower_http::cors::{AllowOrigin, Cors, CorsLayer};

/// How long a browser may cache a preflight answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// Request headers a grpc-web client sends (connect-web and grpc-web's own client).
const ALLOWED_REQUEST_HEADERS: [&str; 6] = [
    "content-type",
    "authorization",
    "x-grpc-web",
    "x-user-agent",
    "grpc-timeout",
    "traceparent",
];

/// Response headers a page must be able to read: the call's status lives in them when an
/// error comes before any message ("trailers-only").
const EXPOSED_RESPONSE_HEADERS: [&str; 3] =
    ["grpc-status", "grpc-message", "grpc-status-details-bin"];

/// A `--cors-origin` value that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OriginError {
    #[error(
        "--cors-origin {0:?}: an origin is scheme://host[:port] (e.g. http://localhost:8080), with no path"
    )]
    Malformed(String),
    #[error("--cors-origin \"*\": list the pages' origins explicitly")]
    Wildcard,
}

/// Checks one browser origin as given on the command line.
pub fn parse_origin(origin: &str) -> Result<HeaderValue, OriginError> {
    if origin == "*" {
        return Err(OriginError::Wildcard);
    }
    let malformed = || OriginError::Malformed(origin.to_owned());
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .ok_or_else(malformed)?;
    if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
        return Err(malformed());
    }
    HeaderValue::from_str(origin).map_err(|_| malformed())
}

/// The CORS policy for the listed origins.
pub fn cors_layer(origins: Vec<HeaderValue>) -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_methods([Method::POST])
        .allow_headers(ALLOWED_REQUEST_HEADERS.map(HeaderName::from_static))
        .expose_headers(EXPOSED_RESPONSE_HEADERS.map(HeaderName::from_static))
        .max_age(PREFLIGHT_MAX_AGE)
}

/// A gRPC service that browsers can call too: CORS in front of the grpc-web translation in
/// front of `S`. Registered under `S`'s name, so only `S`'s paths reach it.
#[derive(Clone, Debug)]
pub struct WebEnabled<S> {
    inner: Cors<GrpcWebService<S>>,
}

impl<S> WebEnabled<S> {
    /// Wraps `service`, letting pages from `origins` call it.
    pub fn new(service: S, origins: Vec<HeaderValue>) -> WebEnabled<S> {
        WebEnabled {
            inner: cors_layer(origins).layer(GrpcWebLayer::new().layer(service)),
        }
    }
}

impl<S: NamedService> NamedService for WebEnabled<S> {
    const NAME: &'static str = S::NAME;
}

impl<S> Service<http::Request<Body>> for WebEnabled<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = <Cors<GrpcWebService<S>> as Service<http::Request<Body>>>::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Service::<http::Request<Body>>::poll_ready(&mut self.inner, cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        self.inner.call(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        for good in [
            "http://localhost:8080",
            "https://play.example.org",
            "http://127.0.0.1:8080",
            "http://[::1]:8080",
        ] {
            assert!(parse_origin(good).is_ok(), "{good}");
        }
        for bad in [
            "localhost:8080",
            "http://",
            "http://host/path",
            "https://host:8080/",
            "ftp://host",
            "http://user@host",
        ] {
            assert!(
                matches!(parse_origin(bad), Err(OriginError::Malformed(_))),
                "{bad}"
            );
        }
        assert!(matches!(parse_origin("*"), Err(OriginError::Wildcard)));
    }
}
