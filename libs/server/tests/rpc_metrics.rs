//! `rpc.server.duration` from a real server built by `ludus_server::serve`. This file is its
//! own test binary because it installs the process-wide meter provider.

use std::time::Duration;

use ludus_proto::pb::{
    self,
    timers_client::TimersClient,
    timers_server::{Timers, TimersServer},
};
use ludus_telemetry::metrics::RPC_SERVER_DURATION;
use ludus_telemetry::testing::{MetricsRecorder, Point, attrs};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status, transport::Channel};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

/// Arm succeeds, Cancel answers NOT_FOUND.
struct FakeTimers;

#[tonic::async_trait]
impl Timers for FakeTimers {
    async fn arm(
        &self,
        _: Request<pb::ArmTimerRequest>,
    ) -> Result<Response<pb::ArmTimerResponse>, Status> {
        Ok(Response::new(pb::ArmTimerResponse {}))
    }

    async fn cancel(
        &self,
        _: Request<pb::CancelTimerRequest>,
    ) -> Result<Response<pb::CancelTimerResponse>, Status> {
        Err(Status::not_found("no such timer"))
    }
}

fn calls(points: &[Point], service: &str, method: &str, code: &str) -> u64 {
    let wanted = attrs(&[
        ("rpc.system", "grpc"),
        ("rpc.service", service),
        ("rpc.method", method),
        ("rpc.grpc.status_code", code),
    ]);
    points
        .iter()
        .filter(|point| point.attributes == wanted)
        .map(|point| point.count.expect("a histogram"))
        .sum()
}

#[tokio::test]
async fn every_server_records_rpc_duration_by_service_method_and_status() {
    let recorder = MetricsRecorder::new();
    // Before `serve`: the server makes its histogram from the global meter when it starts.
    recorder.install_global();

    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let stop = CancellationToken::new();
    let server = tokio::spawn(ludus_server::serve(
        TimersServer::new(FakeTimers),
        listener,
        stop.clone().cancelled_owned(),
    ));
    let channel = Channel::from_shared(format!("http://{address}"))
        .expect("uri")
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .expect("connect");

    let mut timers = TimersClient::new(channel.clone());
    timers
        .arm(pb::ArmTimerRequest::default())
        .await
        .expect("arm");
    timers
        .arm(pb::ArmTimerRequest::default())
        .await
        .expect("arm");
    let refused = timers
        .cancel(pb::CancelTimerRequest::default())
        .await
        .expect_err("cancel is refused");
    assert_eq!(refused.code(), tonic::Code::NotFound);

    let mut health = HealthClient::new(channel.clone());
    health
        .check(HealthCheckRequest::default())
        .await
        .expect("check");
    // Server streaming: recorded when the stream opens (its headers arrive).
    let stream = health
        .watch(HealthCheckRequest::default())
        .await
        .expect("watch");

    // A method the service does not have: the client's name is not recorded.
    let mut raw = tonic::client::Grpc::new(channel);
    raw.ready().await.expect("ready");
    let unknown = raw
        .unary::<pb::ArmTimerRequest, pb::ArmTimerResponse, _>(
            Request::new(pb::ArmTimerRequest::default()),
            http::uri::PathAndQuery::from_static("/ludus.v1.Timers/MadeUp"),
            tonic_prost::ProstCodec::default(),
        )
        .await
        .expect_err("no such method");
    assert_eq!(unknown.code(), tonic::Code::Unimplemented);

    // Each call was recorded before its response headers left the server, so before the
    // client saw them: nothing to wait for.
    let points = recorder.named(RPC_SERVER_DURATION);
    assert_eq!(calls(&points, "ludus.v1.Timers", "Arm", "0"), 2);
    assert_eq!(calls(&points, "ludus.v1.Timers", "Cancel", "5"), 1);
    assert_eq!(calls(&points, "grpc.health.v1.Health", "Check", "0"), 1);
    assert_eq!(calls(&points, "grpc.health.v1.Health", "Watch", "0"), 1);
    assert_eq!(calls(&points, "ludus.v1.Timers", "_OTHER", "12"), 1);
    assert!(
        points
            .iter()
            .all(|point| point.attributes.get("rpc.method").map(String::as_str) != Some("MadeUp")),
        "a made-up method name must not become an attribute value: {points:?}"
    );

    // An open stream would hold the drain open.
    drop(stream);
    stop.cancel();
    server.await.expect("join").expect("serve");
}
