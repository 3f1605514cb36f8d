//! Calls to a server of this same process (`ludus_server::local`): they reach its handler
//! without a socket, through the same checks as its port, and take the port again once the
//! server stops or the process turns them off.
//!
//! One test function: whether local calls are on is a switch of the whole process.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ludus_proto::pb::{
    self,
    timers_client::TimersClient,
    timers_server::{Timers, TimersServer},
};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::{Code, Request, Response, Status};

/// Records, for every Arm it answers, the peer the port saw (none for a call in memory). Arm
/// of the key `slow` says it started and then waits to be let go; Cancel takes longer than
/// any caller waits.
#[derive(Default)]
struct RecordingTimers {
    peers: Arc<Mutex<Vec<Option<SocketAddr>>>>,
    slow_started: Arc<tokio::sync::Notify>,
    let_slow_go: Arc<tokio::sync::Notify>,
}

#[tonic::async_trait]
impl Timers for RecordingTimers {
    async fn arm(
        &self,
        request: Request<pb::ArmTimerRequest>,
    ) -> Result<Response<pb::ArmTimerResponse>, Status> {
        self.peers
            .lock()
            .expect("peers")
            .push(request.remote_addr());
        if request.get_ref().key == "slow" {
            self.slow_started.notify_one();
            self.let_slow_go.notified().await;
        }
        Ok(Response::new(pb::ArmTimerResponse {}))
    }

    async fn cancel(
        &self,
        _: Request<pb::CancelTimerRequest>,
    ) -> Result<Response<pb::CancelTimerResponse>, Status> {
        tokio::time::sleep(Duration::from_secs(30)).await;
        Err(Status::not_found("no such timer"))
    }
}

fn arm(key: &str) -> pb::ArmTimerRequest {
    pb::ArmTimerRequest {
        key: key.to_owned(),
        ..Default::default()
    }
}

/// A client with the upstream policy but no interceptor: its calls carry no credential.
fn uncredentialed(url: &str) -> TimersClient<ludus_server::upstream::Upstream> {
    let uri: http::Uri = url.parse().expect("uri");
    let channel = tonic::transport::Endpoint::from(uri.clone()).connect_lazy();
    TimersClient::new(ludus_server::upstream::Upstream::new(channel).local_first(&uri))
}

#[tokio::test]
async fn a_call_to_a_server_of_this_process_skips_the_socket_but_not_its_checks() {
    ludus_server::service_auth::install(&[7; 32], "tests").expect("secret");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let timers = RecordingTimers::default();
    let peers = timers.peers.clone();
    let (slow_started, let_slow_go) = (timers.slow_started.clone(), timers.let_slow_go.clone());
    let stop = CancellationToken::new();
    let serving = tokio::spawn(ludus_server::serve(
        TimersServer::new(timers),
        listener,
        stop.clone().cancelled_owned(),
    ));
    // The server registers before it serves: wait until its port answers.
    let mut client = TimersClient::new(ludus_server::traced_channel(&url).expect("channel"));
    let mut port_client = {
        let endpoint = tonic::transport::Endpoint::from_shared(url.clone()).expect("endpoint");
        TimersClient::with_interceptor(endpoint.connect_lazy(), ludus_server::TraceContext)
    };
    for _ in 0..100 {
        if port_client.arm(arm("warm-up")).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let over_the_port = peers.lock().expect("peers").pop().flatten();
    assert!(
        over_the_port.is_some(),
        "a plain tonic channel used the port"
    );

    client.arm(arm("first")).await.expect("armed in memory");
    assert_eq!(
        peers.lock().expect("peers").pop(),
        Some(None),
        "the call reached the handler without a socket (no peer address)"
    );

    // The port's checks hold in memory too: no credential, no call (ARCHITECTURE.md,
    // "Security": internal servers do not trust a caller for reaching them).
    let refused = uncredentialed(&url)
        .arm(arm("sneaky"))
        .await
        .expect_err("no credential");
    assert_eq!(refused.code(), Code::Unauthenticated, "{refused:?}");
    assert!(
        peers.lock().expect("peers").is_empty(),
        "the handler never ran"
    );

    // A caller's deadline holds in memory as on the port.
    let mut late = Request::new(pb::CancelTimerRequest::default());
    late.set_timeout(Duration::from_millis(100));
    let expired = client.cancel(late).await.expect_err("deadline");
    assert_eq!(expired.code(), Code::DeadlineExceeded, "{expired:?}");

    // Turned off for the process: the same channel takes the port.
    ludus_server::local::set_enabled(false);
    client.arm(arm("wire")).await.expect("armed over the port");
    let peer = peers.lock().expect("peers").pop().flatten();
    assert!(peer.is_some(), "over the port: {peer:?}");
    ludus_server::local::set_enabled(true);

    // A call under way in memory when shutdown starts finishes; once the server has stopped,
    // the next call takes the port, which is closed: UNAVAILABLE, as from another process.
    let slow = tokio::spawn({
        let mut client = client.clone();
        async move { client.arm(arm("slow")).await }
    });
    slow_started.notified().await;
    stop.cancel();
    serving.await.expect("no panic").expect("served");
    let_slow_go.notify_one();
    slow.await
        .expect("no panic")
        .expect("the call under way finished");
    assert_eq!(peers.lock().expect("peers").pop(), Some(None), "in memory");
    let after = client.arm(arm("late")).await.expect_err("stopped");
    assert_eq!(after.code(), Code::Unavailable, "{after:?}");
    assert!(
        peers.lock().expect("peers").is_empty(),
        "nothing reached the handler"
    );
}
