//! TLS between services: a binary's `--tls-cert`/`--tls-key`/`--tls-ca` installed for the whole
//! process (as `ServiceFlags::start` does), an internal server built by `ludus_server::serve`
//! serving TLS with them, and an internal client (`traced_channel`) dialing it at an `https://`
//! URL. Its own test binary because it installs process-wide state.

use std::time::Duration;

use ludus_proto::pb::{
    self,
    bots_client::BotsClient,
    bots_server::{Bots, BotsServer},
};
use ludus_server::tls::{ServerTls, TlsFlags};
use ludus_store::testing::TestCa;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status, transport::Endpoint};
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};

/// Answers every turn with an empty action.
struct IdleBots;

#[tonic::async_trait]
impl Bots for IdleBots {
    async fn take_turn(
        &self,
        _: Request<pb::TakeBotTurnRequest>,
    ) -> Result<Response<pb::TakeBotTurnResponse>, Status> {
        Ok(Response::new(pb::TakeBotTurnResponse::default()))
    }
}

#[tokio::test]
async fn internal_servers_serve_tls_and_internal_clients_dial_https_with_the_ca_file() {
    let ca = TestCa::new();
    let files = ca.server_files().expect("certificate files");
    let health_port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        probe.local_addr().expect("address").port()
    };
    TlsFlags {
        tls_cert: Some(files.cert.clone()),
        tls_key: Some(files.key.clone()),
        tls_ca: Some(files.ca.clone()),
        health_listen: Some(format!("127.0.0.1:{health_port}")),
    }
    .install()
    .expect("install the process's TLS");

    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    let stop = CancellationToken::new();
    let server = tokio::spawn(ludus_server::serve(
        BotsServer::new(IdleBots),
        listener,
        stop.clone().cancelled_owned(),
    ));

    // https:// with the installed CA: served.
    let url = format!("https://localhost:{port}");
    let mut bots = BotsClient::new(ludus_server::traced_channel(&url).expect("channel"));
    bots.take_turn(pb::TakeBotTurnRequest::default())
        .await
        .expect("a call over TLS");

    // http:// (h2c) to the same port: refused, no call reaches the service.
    let plain = format!("http://127.0.0.1:{port}");
    let mut plain = BotsClient::new(ludus_server::traced_channel(&plain).expect("channel"));
    plain
        .take_turn(pb::TakeBotTurnRequest::default())
        .await
        .expect_err("h2c is not served on a TLS port");

    // The probes' plain port: health, in h2c, and nothing else.
    let probe = Endpoint::from_shared(format!("http://127.0.0.1:{health_port}"))
        .expect("uri")
        .connect_lazy();
    let answer = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match HealthClient::new(probe.clone())
                .check(HealthCheckRequest::default())
                .await
            {
                Ok(answer) => return answer.into_inner(),
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    })
    .await
    .expect("the health port answers");
    assert_eq!(answer.status(), ServingStatus::Serving);
    BotsClient::new(probe)
        .take_turn(pb::TakeBotTurnRequest::default())
        .await
        .expect_err("only health is served on the plain port");

    // One CA per process, as one internal secret: another one is an error, the same one not.
    let stranger = TestCa::new();
    assert!(ludus_server::tls::install_client_ca(stranger.pem().into()).is_err());
    ludus_server::tls::install_client_ca(ca.pem().into()).expect("the same CA again");

    stop.cancel();
    tokio::time::timeout(Duration::from_secs(20), server)
        .await
        .expect("the server stops")
        .expect("no panic")
        .expect("clean stop");
}

#[test]
fn a_reload_takes_a_new_certificate_and_refuses_an_unusable_one() {
    let ca = TestCa::new();
    let files = ca.server_files().expect("certificate files");
    let tls = ServerTls::from_files(&files.cert, &files.key).expect("load");
    assert!(!tls.reload().expect("same files"), "nothing changed");

    ca.reissue(&files).expect("renew");
    assert!(tls.reload().expect("a renewed certificate"), "taken");

    // A key that does not belong to the certificate (another pair's key).
    let (_, other_key) = ca.issue();
    std::fs::write(&files.key, other_key).expect("write");
    assert!(tls.reload().is_err(), "a mismatched key was taken");
    std::fs::write(&files.cert, "garbage").expect("write");
    assert!(tls.reload().is_err(), "garbage was taken");
    // Reported once: the same unusable contents are not read as a change again.
    assert!(!tls.reload().expect("unchanged garbage"));

    assert!(
        ServerTls::from_files(&files.cert, &files.key).is_err(),
        "a server does not start on unusable files"
    );
    let missing = files.cert.with_extension("missing");
    assert!(ServerTls::from_files(&missing, &files.key).is_err());
}
