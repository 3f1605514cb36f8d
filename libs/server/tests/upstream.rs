//! The upstream-call policy (`ludus_server::upstream`) against real tonic servers on
//! loopback: connections the server rotates under live calls, a server that is not there, and
//! one that drops every connection it takes.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ludus_proto::error_details::{DOMAIN_TRANSPORT, StatusExt as _, reason};
use ludus_proto::pb::{
    self,
    timers_client::TimersClient,
    timers_server::{Timers, TimersServer},
};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::{Code, Request, Response, Status};

/// How long a rotated connection's calls get to finish (the internal servers give 10 s).
const GRACE: Duration = Duration::from_millis(50);
/// How long a connection lives (the internal servers: 5 minutes).
const AGE: Duration = Duration::from_millis(100);
/// Longer than [`AGE`] + [`GRACE`]: a call this slow outlives its connection.
const SLOW_CALL: Duration = Duration::from_millis(200);

/// Counts the timers it arms; the first Arm of a key starting `slow-` takes [`SLOW_CALL`]
/// (a call that outlives its connection), a second try of it is quick.
#[derive(Default)]
struct CountingTimers {
    armed: Arc<AtomicUsize>,
    seen: std::sync::Mutex<std::collections::HashSet<String>>,
}

#[tonic::async_trait]
impl Timers for CountingTimers {
    async fn arm(
        &self,
        request: Request<pb::ArmTimerRequest>,
    ) -> Result<Response<pb::ArmTimerResponse>, Status> {
        let key = request.into_inner().key;
        self.armed.fetch_add(1, Ordering::Relaxed);
        let first = self.seen.lock().expect("keys").insert(key.clone());
        if first && key.starts_with("slow-") {
            tokio::time::sleep(SLOW_CALL).await;
        }
        Ok(Response::new(pb::ArmTimerResponse {}))
    }

    async fn cancel(
        &self,
        _: Request<pb::CancelTimerRequest>,
    ) -> Result<Response<pb::CancelTimerResponse>, Status> {
        Err(Status::not_found("no such timer"))
    }
}

/// A Timers server that asks every client connection to go away after [`AGE`] (the internal
/// servers' `max_connection_age`, shortened so that rotations meet live calls all the time).
async fn rotating_server() -> (String, Arc<AtomicUsize>, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let timers = CountingTimers::default();
    let armed = timers.armed.clone();
    let stop = CancellationToken::new();
    let serving = tonic::transport::Server::builder()
        .max_connection_age(AGE)
        .max_connection_age_grace(GRACE)
        .add_service(TimersServer::new(timers))
        .serve_with_incoming_shutdown(
            tonic::transport::server::TcpIncoming::from(listener),
            stop.clone().cancelled_owned(),
        );
    tokio::spawn(serving);
    (format!("http://{address}"), armed, stop)
}

/// `callers` tasks each making `calls` Arm calls one after another (every eighth one slow,
/// `run` telling their keys apart); the calls that failed.
async fn arm_concurrently<T>(
    client: TimersClient<T>,
    run: &str,
    callers: usize,
    calls: usize,
) -> Vec<Status>
where
    T: tonic::client::GrpcService<tonic::body::Body> + Clone + Send + 'static,
    T::Future: Send,
    T::ResponseBody: tonic::codegen::Body<Data = tonic::codegen::Bytes> + Send + 'static,
    <T::ResponseBody as tonic::codegen::Body>::Error: Into<tonic::codegen::StdError> + Send,
    T::Error: Into<tonic::codegen::StdError>,
{
    let tasks: Vec<_> = (0..callers)
        .map(|caller| {
            let mut client = client.clone();
            let run = run.to_owned();
            tokio::spawn(async move {
                let mut failed = Vec::new();
                for call in 0..calls {
                    let speed = if call % 8 == 0 { "slow" } else { "quick" };
                    let key = format!("{speed}-{run}-{caller}-{call}");
                    let request = pb::ArmTimerRequest {
                        key,
                        ..Default::default()
                    };
                    if let Err(status) = client.arm(request).await {
                        failed.push(status);
                    }
                }
                failed
            })
        })
        .collect();
    let mut failed = Vec::new();
    for task in tasks {
        failed.extend(task.await.expect("caller"));
    }
    failed
}

const CALLERS: usize = 8;
const CALLS: usize = 40;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_racing_the_server_s_connection_rotation_all_answer() {
    let (url, armed, stop) = rotating_server().await;

    // The plain channel first, to show what the policy is for: a call still in flight when
    // its rotated connection's grace ends gets UNKNOWN "transport error" (or CANCELLED), what
    // the gateway forwarded to clients on a busy machine, where calls run long.
    let plain = tonic::transport::Endpoint::from_shared(url.clone())
        .expect("uri")
        .connect_lazy();
    let plain_failures = arm_concurrently(TimersClient::new(plain), "plain", CALLERS, CALLS).await;
    let plain_codes: Vec<Code> = plain_failures.iter().map(Status::code).collect();
    eprintln!(
        "plain channel: {} of {} calls failed: {plain_codes:?}",
        plain_failures.len(),
        CALLERS * CALLS
    );
    assert!(
        plain_codes.contains(&Code::Unknown),
        "the scenario no longer breaks calls, so it tests nothing: {plain_codes:?}"
    );

    let before = armed.load(Ordering::Relaxed);
    let channel = ludus_server::traced_channel(&url).expect("channel");
    let failed = arm_concurrently(TimersClient::new(channel), "policy", CALLERS, CALLS).await;
    assert!(
        failed.is_empty(),
        "every call answers through connection rotations: {failed:?}"
    );
    // Arm is idempotent (a timer replaces one of its key), so a call may have been applied
    // twice; none was lost.
    assert!(armed.load(Ordering::Relaxed) - before >= CALLERS * CALLS);
    stop.cancel();
}

/// The `ErrorInfo` of a refusal.
fn error_info(status: &Status) -> ludus_proto::error_details::ErrorInfo {
    status
        .get_error_details()
        .error_info()
        .cloned()
        .unwrap_or_else(|| panic!("an ErrorInfo: {status:?}"))
}

#[tokio::test]
async fn a_service_that_is_not_there_is_unavailable_and_named() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    drop(listener);
    let channel = ludus_server::traced_channel(&format!("http://{address}")).expect("channel");
    let refused = TimersClient::new(channel)
        .arm(pb::ArmTimerRequest::default())
        .await
        .expect_err("nobody listens");
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    let info = error_info(&refused);
    assert_eq!(info.domain, DOMAIN_TRANSPORT);
    assert_eq!(info.reason, reason::UPSTREAM_UNAVAILABLE);
    assert_eq!(info.metadata["upstream"], "/ludus.v1.Timers/Arm");
    assert_eq!(
        info.metadata["maybe_applied"], "false",
        "a connection never made carried nothing"
    );
}

/// A peer that accepts connections and drops each after reading its first bytes: the request
/// may have arrived, nothing answers.
async fn dropping_peer() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let accepted = Arc::new(AtomicUsize::new(0));
    let counted = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::Relaxed);
            let mut first = [0u8; 64];
            let _ = tokio::io::AsyncReadExt::read(&mut socket, &mut first).await;
            drop(socket);
        }
    });
    (format!("http://{address}"), accepted)
}

#[tokio::test]
async fn a_connection_that_breaks_is_unavailable_and_retried_only_where_the_method_allows() {
    let (url, accepted) = dropping_peer().await;
    let channel = ludus_server::traced_channel(&url).expect("channel");

    // Arm is IDEMPOTENT in timers.proto: sent again on new connections, then UNAVAILABLE.
    let refused = TimersClient::new(channel.clone())
        .arm(pb::ArmTimerRequest::default())
        .await
        .expect_err("nothing answers");
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    assert_eq!(error_info(&refused).reason, reason::UPSTREAM_UNAVAILABLE);
    let tries = accepted.load(Ordering::Relaxed);
    assert!(
        tries >= 2,
        "an idempotent call is tried again: {tries} connection(s)"
    );
    assert!(
        u32::try_from(tries).expect("small") <= ludus_server::upstream::MAX_ATTEMPTS,
        "{tries} connections for one call"
    );

    // Health's Check has no idempotency level: a try that may have arrived is not repeated.
    let before = accepted.load(Ordering::Relaxed);
    let refused = tonic_health::pb::health_client::HealthClient::new(channel)
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await
        .expect_err("nothing answers");
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    let info = error_info(&refused);
    assert_eq!(info.metadata["maybe_applied"], "true", "{refused:?}");
    assert!(
        refused.message().contains("may have been applied"),
        "{refused:?}"
    );
    assert_eq!(accepted.load(Ordering::Relaxed) - before, 1, "one try only");
}
