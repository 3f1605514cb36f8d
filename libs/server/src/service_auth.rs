//! Service credentials: an internal server serves only callers that prove they are part of
//! the same Ludus deployment, not anybody who reaches its port (a local process in the
//! all-in-one, any pod in a cluster whose NetworkPolicy is missing or wrong).
//!
//! Every process of a deployment shares one secret (`LUDUS_INTERNAL_SECRET`, distinct from the
//! players' token secret). A process signs a short-lived credential with it (HS256, audience
//! `ludus-internal`, subject = the calling service, ten minutes, renewed two minutes before it
//! expires) and the client interceptor ([`crate::TraceContext`]) sends it in the
//! [`HEADER`] metadata of every internal call; [`ServiceAuthLayer`] on every internal server
//! refuses a `ludus.v1` call without a valid one (UNAUTHENTICATED). Health and reflection stay
//! open: probes do not carry credentials. The public gateway requires none: players
//! authenticate with their own tokens there.
//!
//! The secret is installed once per process ([`install`]); every binary requires it, and the
//! all-in-one binary draws a random one per start.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use ludus_clock::Clock;
use serde::{Deserialize, Serialize};
use tonic::Status;

/// The metadata key the credential travels in.
pub const HEADER: &str = "x-ludus-service";
/// The audience of service credentials: a player's access token (another secret, another
/// audience) can never pass for one.
const AUDIENCE: &str = "ludus-internal";
/// How long a credential is valid.
const LIFETIME: Duration = Duration::from_secs(600);
/// A credential is renewed when it has less than this left.
const RENEW_BEFORE: Duration = Duration::from_secs(120);
/// The shortest secret accepted.
pub const MIN_SECRET_BYTES: usize = 32;

/// The flag every binary takes (flattened into its own).
#[derive(Clone, Debug, clap::Args)]
pub struct ServiceAuthFlags {
    /// The secret internal calls are signed with: the same for every service of one
    /// deployment, at least 32 bytes, distinct from the token secret.
    #[arg(long, env = "LUDUS_INTERNAL_SECRET", hide_env_values = true)]
    pub internal_secret: String,
}

#[derive(Serialize, Deserialize)]
struct Claims {
    sub: String,
    aud: String,
    exp: u64,
}

struct Key {
    secret: Vec<u8>,
    service: String,
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    /// The credential this process sends, and when it expires (unix seconds).
    minted: Mutex<Option<(String, u64)>>,
    /// The last credential this process verified, and when it expires: callers reuse one
    /// credential for minutes, so a call carrying it skips the HMAC and JSON decoding.
    verified: Mutex<Option<(String, u64)>>,
}

static KEY: OnceLock<Key> = OnceLock::new();

/// Unix seconds on the system clock, never a test's manual one: a credential proves a live
/// process of the deployment to every other (each process holds one key for all it serves, and
/// the signing library checks `exp` against the system clock too), so moving a test's game
/// time must neither expire it nor keep it alive.
fn now_s() -> u64 {
    Clock::system().now_ms() / 1000
}

/// Installs this process's secret; `service` names it in the credentials it sends. Installing
/// the same secret again is fine (tests start many systems in one process); another secret is
/// an error, since calls signed with one would be refused by servers checking the other.
pub fn install(secret: &[u8], service: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        secret.len() >= MIN_SECRET_BYTES,
        "the internal secret must be at least {MIN_SECRET_BYTES} bytes"
    );
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_audience(&[AUDIENCE]);
    validation.set_required_spec_claims(&["exp", "sub", "aud"]);
    validation.leeway = 5;
    let encoding = EncodingKey::from_secret(secret)?;
    let decoding = DecodingKey::from_secret(secret)?;
    let key = KEY.get_or_init(|| Key {
        secret: secret.to_vec(),
        service: service.to_owned(),
        encoding,
        decoding,
        validation,
        minted: Mutex::new(None),
        verified: Mutex::new(None),
    });
    anyhow::ensure!(
        key.secret == secret,
        "another internal secret is already installed in this process"
    );
    Ok(())
}

/// Whether this process has a secret (and so signs its calls and checks incoming ones).
pub fn installed() -> bool {
    KEY.get().is_some()
}

/// The credential to send with an internal call, when a secret is installed.
pub fn credential() -> Option<String> {
    let key = KEY.get()?;
    let now = now_s();
    let mut minted = key.minted.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((token, expires)) = minted.as_ref()
        && now + RENEW_BEFORE.as_secs() < *expires
    {
        return Some(token.clone());
    }
    let expires = now + LIFETIME.as_secs();
    let claims = Claims {
        sub: key.service.clone(),
        aud: AUDIENCE.to_owned(),
        exp: expires,
    };
    match jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &key.encoding) {
        Ok(token) => {
            *minted = Some((token.clone(), expires));
            Some(token)
        }
        Err(error) => {
            tracing::error!(%error, "could not sign a service credential");
            None
        }
    }
}

/// Checks the credential a call carries.
fn verify(credential: Option<&str>) -> Result<(), Status> {
    let Some(key) = KEY.get() else {
        return Ok(());
    };
    let credential = credential.ok_or_else(|| {
        Status::unauthenticated(format!(
            "internal call without a service credential ({HEADER}): this port serves Ludus \
             services only"
        ))
    })?;
    let now = now_s();
    let mut verified = key.verified.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((known, expires)) = verified.as_ref()
        && known == credential
        && now < *expires
    {
        return Ok(());
    }
    let claims = jsonwebtoken::decode::<Claims>(credential, &key.decoding, &key.validation)
        .map_err(|e| Status::unauthenticated(format!("service credential refused: {e}")))?
        .claims;
    *verified = Some((credential.to_owned(), claims.exp));
    Ok(())
}

/// Refusals counted ([`REFUSED_METRIC`]) and logged at most one line a second: anybody who
/// reaches an internal port can send refused calls as fast as the port answers them, and one
/// line each filled a pod's log at about 1 MB/s.
fn note_refusal(path: &str, message: &str) {
    static REFUSED: LazyLock<opentelemetry::metrics::Counter<u64>> = LazyLock::new(|| {
        ludus_telemetry::metrics::meter()
            .u64_counter(REFUSED_METRIC)
            .with_description("internal calls refused for a missing or invalid service credential")
            .build()
    });
    static LOG: RefusalLog = RefusalLog::new();
    REFUSED.add(1, &[]);
    if let Some(suppressed) = LOG.admit(now_s()) {
        // The path comes from the caller: a bounded slice of it.
        let path: String = path.chars().take(120).collect();
        tracing::warn!(path, message, suppressed, "internal call refused");
    }
}

/// The counter of refused internal calls.
pub const REFUSED_METRIC: &str = "ludus.service_auth.refused";

/// One log line per second of refusals; the line says how many went unlogged before it.
#[derive(Debug)]
struct RefusalLog {
    /// The Unix second of the last line written.
    last_s: AtomicU64,
    /// Refusals not logged since that line.
    suppressed: AtomicU64,
}

impl RefusalLog {
    const fn new() -> Self {
        RefusalLog {
            last_s: AtomicU64::new(0),
            suppressed: AtomicU64::new(0),
        }
    }

    /// `Some(refusals not logged since the last line)` when this refusal gets a line.
    fn admit(&self, now_s: u64) -> Option<u64> {
        let last = self.last_s.load(Ordering::Relaxed);
        if now_s > last
            && self
                .last_s
                .compare_exchange(last, now_s, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            return Some(self.suppressed.swap(0, Ordering::Relaxed));
        }
        self.suppressed.fetch_add(1, Ordering::Relaxed);
        None
    }
}

/// Refuses `ludus.v1` calls without a valid service credential (see the module docs); health
/// and reflection pass. Does nothing in a process with no secret installed.
#[derive(Clone, Copy, Debug)]
pub struct ServiceAuthLayer {
    required: bool,
}

impl ServiceAuthLayer {
    /// Checks credentials when `required` (internal servers), passes everything otherwise
    /// (the public gateway).
    pub fn new(required: bool) -> Self {
        ServiceAuthLayer { required }
    }
}

impl<S> tower::Layer<S> for ServiceAuthLayer {
    type Service = ServiceAuth<S>;
    fn layer(&self, inner: S) -> ServiceAuth<S> {
        ServiceAuth {
            inner,
            required: self.required,
        }
    }
}

/// The service made by [`ServiceAuthLayer`].
#[derive(Clone, Debug)]
pub struct ServiceAuth<S> {
    inner: S,
    required: bool,
}

impl<S, B> tower::Service<http::Request<B>> for ServiceAuth<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        if self.required && request.uri().path().starts_with("/ludus.v1.") {
            let credential = request
                .headers()
                .get(HEADER)
                .and_then(|value| value.to_str().ok());
            if let Err(status) = verify(credential) {
                note_refusal(request.uri().path(), status.message());
                return Box::pin(std::future::ready(Ok(status.into_http())));
            }
        }
        Box::pin(self.inner.call(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_logged_once_a_second_with_the_count_left_out() {
        let log = RefusalLog::new();
        assert_eq!(log.admit(100), Some(0));
        for _ in 0..2_000 {
            assert_eq!(log.admit(100), None, "the same second");
        }
        assert_eq!(log.admit(101), Some(2_000), "the next line counts them");
        assert_eq!(log.admit(101), None);
        assert_eq!(
            log.admit(99),
            None,
            "a clock stepping back writes no extra line"
        );
        assert_eq!(log.admit(102), Some(2));
    }

    #[test]
    fn a_credential_verifies_and_forgeries_do_not() {
        install(b"unit tests internal secret, 32+ bytes", "unit").expect("install");
        assert!(
            install(b"another internal secret of 32+ bytes", "unit").is_err(),
            "one secret per process"
        );
        let credential = credential().expect("signed");
        assert_eq!(
            credential,
            super::credential().expect("cached"),
            "reused until renewal"
        );
        assert!(verify(Some(&credential)).is_ok());
        assert!(verify(Some(&credential)).is_ok(), "again, from the cache");
        assert!(verify(None).is_err());
        assert!(verify(Some("not-a-token")).is_err());
        // Signed with another secret.
        let forged = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &Claims {
                sub: "mallory".into(),
                aud: AUDIENCE.into(),
                exp: now_s() + 60,
            },
            &EncodingKey::from_secret(b"a secret nobody in Ludus was given").expect("key"),
        )
        .expect("encode");
        assert!(verify(Some(&forged)).is_err());
        // The right secret but the players' audience (an access token is not a credential).
        let wrong_audience = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &Claims {
                sub: "player".into(),
                aud: "ludus".into(),
                exp: now_s() + 60,
            },
            &EncodingKey::from_secret(b"unit tests internal secret, 32+ bytes").expect("key"),
        )
        .expect("encode");
        assert!(verify(Some(&wrong_audience)).is_err());
    }
}

/// The flags every service binary shares, flattened into each one's own
/// (`#[command(flatten)] service: ServiceFlags`): telemetry, the internal secret and TLS.
#[derive(Clone, Debug, clap::Args)]
pub struct ServiceFlags {
    #[command(flatten)]
    pub telemetry: ludus_telemetry::TelemetryFlags,
    #[command(flatten)]
    pub service_auth: ServiceAuthFlags,
    #[command(flatten)]
    pub tls: crate::tls::TlsFlags,
}

impl ServiceFlags {
    /// Sets up tracing and metrics for `service` and installs its internal secret and TLS
    /// ([`crate::tls::TlsFlags::install`]): the first thing every service binary does. Keep
    /// the guard for the life of the process.
    pub fn start(&self, service: &str) -> anyhow::Result<ludus_telemetry::TelemetryGuard> {
        let telemetry = ludus_telemetry::init(service, &self.telemetry)?;
        install(self.service_auth.internal_secret.as_bytes(), service)?;
        self.tls.install()?;
        Ok(telemetry)
    }
}
