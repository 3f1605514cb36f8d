//! TLS at the public gateway (ARCHITECTURE.md, TLS): a certificate the test makes with its own
//! CA (`TestCa`, rcgen), clients that trust only that CA playing over it (a tonic client,
//! grpc-web over HTTP/1.1, and a Python grpcio client), the refusals that show the port
//! speaks nothing but verified TLS, and a renewed certificate taken up without dropping the
//! connections already open.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes};
use http::{Method, Request, StatusCode, Version, header};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use ludus_proto::pb::{self, game_state_client::GameStateClient};
use ludus_server::ServerTls;
use ludus_store::testing::{TestCa, TlsFiles};
use ludus_tests::{Ludus, PATIENCE, Player, WEB_ORIGIN, caro_settings, connect_internal};
use prost::Message;
use rustls::pki_types::pem::PemObject as _;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

/// How often the test gateway rereads its certificate files (production: every 30 s).
const RELOAD_EVERY: Duration = Duration::from_millis(100);

/// A gateway certificate from `files`, reread every [`RELOAD_EVERY`].
fn gateway_tls(files: &TlsFiles) -> ServerTls {
    ServerTls::from_files(&files.cert, &files.key)
        .expect("the test certificate loads")
        .reloading_every(RELOAD_EVERY)
}

/// A fresh connection to the gateway over TLS, trusting `ca` only; the error when the
/// handshake (or the connection) fails.
async fn tls_channel(gateway: SocketAddr, ca: &str) -> Result<Channel, tonic::transport::Error> {
    Endpoint::from_shared(format!("https://localhost:{}", gateway.port()))?
        .tls_config(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca)))?
        .connect_timeout(PATIENCE)
        .connect()
        .await
}

/// A guest signed in over a fresh TLS connection trusting `ca`.
async fn tls_player(gateway: SocketAddr, ca: &str, name: &str) -> Player {
    let channel = tls_channel(gateway, ca).await.expect("TLS connection");
    ludus_tests::sign_in_over(channel, name)
        .await
        .expect("sign in over TLS")
}

/// Two guests on TLS connections trusting `ca`, quick-matched into one Caro game: the game and
/// the players by seat.
async fn tls_pair(ludus: &Ludus, ca: &str) -> (String, Player, Player) {
    let mut ana = tls_player(ludus.gateway, ca, "ana").await;
    let mut ben = tls_player(ludus.gateway, ca, "ben").await;
    let ((game, ana_seat), (_, _)) = tokio::join!(
        ana.find_match(caro_settings()),
        ben.find_match(caro_settings())
    );
    match ana_seat {
        0 => (game, ana, ben),
        _ => (game, ben, ana),
    }
}

#[tokio::test]
async fn a_client_trusting_the_tests_ca_plays_over_tls_and_others_are_refused() {
    let ca = TestCa::new();
    let files = ca.server_files().expect("certificate files");
    let ludus = Ludus::start_with_gateway_tls(gateway_tls(&files)).await;

    let (game, mut x, mut o) = tls_pair(&ludus, ca.pem()).await;
    let played = x.play(&game, "H8").await.expect("X plays over TLS");
    assert!(matches!(
        played.kind,
        Some(pb::game_event::Kind::ActionApplied(_))
    ));
    o.play(&game, "H9").await.expect("O answers over TLS");
    assert_eq!(x.game(&game).await.seq, played.seq + 1, "both moves landed");

    // A client that trusts another CA stops at the handshake.
    let stranger = TestCa::new();
    let untrusted = match tls_channel(ludus.gateway, stranger.pem()).await {
        Err(error) => format!("{error:?}"),
        Ok(channel) => match ludus_tests::sign_in_over(channel, "eve").await {
            Err(status) => format!("{status:?}"),
            Ok(_) => panic!("a certificate from an unknown CA was accepted"),
        },
    };
    assert!(
        untrusted.to_lowercase().contains("certificate")
            || untrusted.to_lowercase().contains("issuer"),
        "refused for its certificate: {untrusted}"
    );
    // Plain h2c to the TLS port gets no gRPC answer.
    let plain = Endpoint::from_shared(format!("http://{}", ludus.gateway))
        .expect("uri")
        .connect_timeout(PATIENCE)
        .connect_lazy();
    let refused = ludus_tests::sign_in_over(plain, "mallory").await;
    assert!(refused.is_err(), "plain h2c was served on the TLS port");
    ludus.shutdown().await;
}

#[tokio::test]
async fn grpc_web_over_http1_is_served_on_the_same_tls_port() {
    let ca = TestCa::new();
    let files = ca.server_files().expect("certificate files");
    let ludus = Ludus::start_with_gateway_tls(gateway_tls(&files)).await;

    // A browser's fetch over HTTP/1.1 (ALPN `http/1.1`), trusting the test CA.
    let mut roots = rustls::RootCertStore::empty();
    for certificate in rustls::pki_types::CertificateDer::pem_slice_iter(ca.pem().as_bytes()) {
        roots
            .add(certificate.expect("CA PEM"))
            .expect("a trust anchor");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let tcp = tokio::net::TcpStream::connect(ludus.gateway)
        .await
        .expect("connect");
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .expect("TLS handshake");
    assert_eq!(
        tls.get_ref().1.alpn_protocol(),
        Some(&b"http/1.1"[..]),
        "the gateway offers HTTP/1.1 for grpc-web"
    );
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .expect("HTTP/1.1 handshake");
    tokio::spawn(connection);

    let message = pb::SignInGuestRequest {
        display_name: "web".into(),
    }
    .encode_to_vec();
    let mut frame = vec![0u8];
    frame.extend_from_slice(&u32::try_from(message.len()).expect("small").to_be_bytes());
    frame.extend_from_slice(&message);
    let request = Request::builder()
        .method(Method::POST)
        .uri("/ludus.v1.Gateway/SignInGuest")
        .version(Version::HTTP_11)
        .header(header::HOST, format!("localhost:{}", ludus.gateway.port()))
        .header(header::CONTENT_TYPE, "application/grpc-web+proto")
        .header("x-grpc-web", "1")
        .header(header::ORIGIN, WEB_ORIGIN)
        .body(Full::new(Bytes::from(frame)))
        .expect("request");
    let response = tokio::time::timeout(PATIENCE, sender.send_request(request))
        .await
        .expect("answered in time")
        .expect("an HTTP answer");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response
            .headers()
            .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .and_then(|v| v.to_str().ok()),
        Some(WEB_ORIGIN),
        "CORS as over plain HTTP"
    );
    let mut body = tokio::time::timeout(PATIENCE, response.into_body().collect())
        .await
        .expect("the body ends in time")
        .expect("a body")
        .to_bytes();
    assert_eq!(body.get_u8(), 0, "a message frame first");
    let length = body.get_u32() as usize;
    let session = pb::SignInGuestResponse::decode(body.split_to(length)).expect("decodes");
    assert!(!session.token.is_empty() && !session.player_id.is_empty());
    assert_eq!(body.get_u8(), 0x80, "then the trailers frame");
    let length = body.get_u32() as usize;
    let trailers = String::from_utf8_lossy(&body.split_to(length)).to_string();
    assert!(trailers.contains("grpc-status:0"), "{trailers}");
    ludus.shutdown().await;
}

#[tokio::test]
async fn a_renewed_certificate_reaches_new_connections_while_open_ones_play_on() {
    let old_ca = TestCa::new();
    let files = old_ca.server_files().expect("certificate files");
    let ludus = Ludus::start_with_gateway_tls(gateway_tls(&files)).await;
    // A game on connections made with the first certificate.
    let (game, mut x, mut o) = tls_pair(&ludus, old_ca.pem()).await;
    x.play(&game, "H8").await.expect("X plays");

    // The files are replaced by a certificate from another CA (a renewal, or a move to
    // another issuer), each file swapped in whole as a Secret volume does.
    let new_ca = TestCa::new();
    new_ca.reissue(&files).expect("swap the files");
    let reloaded = tokio::time::timeout(PATIENCE, async {
        loop {
            if tls_channel(ludus.gateway, new_ca.pem()).await.is_ok() {
                return;
            }
            tokio::time::sleep(RELOAD_EVERY).await;
        }
    })
    .await;
    assert!(
        reloaded.is_ok(),
        "a new connection never got the new certificate"
    );
    // New connections now get the new certificate only.
    assert!(
        tls_channel(ludus.gateway, old_ca.pem()).await.is_err(),
        "a new connection still got the old certificate"
    );
    let mut spectator = tls_player(ludus.gateway, new_ca.pem(), "cy").await;
    // The connections opened before the swap were not dropped: the game goes on over them.
    o.play(&game, "H9")
        .await
        .expect("O plays on its old connection");
    x.play(&game, "G8")
        .await
        .expect("X plays on its old connection");
    assert_eq!(spectator.game(&game).await.seq, x.game(&game).await.seq);

    // A replacement that is not a certificate is refused and the last good one stays.
    std::fs::write(&files.cert, "not a certificate").expect("write");
    tokio::time::sleep(RELOAD_EVERY * 5).await;
    tls_player(ludus.gateway, new_ca.pem(), "dee").await;
    ludus.shutdown().await;
}

#[tokio::test]
async fn a_python_grpcio_client_connects_with_the_tests_ca_and_plays_a_move() {
    let Some(python) = ludus_tests::python_with_grpc() else {
        return;
    };
    let ca = TestCa::new();
    let files = ca.server_files().expect("certificate files");
    let ludus = Ludus::start_with_gateway_tls(gateway_tls(&files)).await;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = tokio::time::timeout(
        PATIENCE * 6,
        tokio::process::Command::new(&python)
            .arg(root.join("python/tls_client.py"))
            .arg(root.join("../proto"))
            .arg(format!("localhost:{}", ludus.gateway.port()))
            .arg(&files.ca)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the Python client finishes")
    .expect("run the Python client");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed ({}); it needs grpcio and grpcio-tools (scripts/test.sh \
         installs them and sets LUDUS_PYTHON):\n{stderr}",
        output.status
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    let game_id = report["game_id"].as_str().expect("game id");
    let seq = report["seq"].as_u64().expect("seq");

    // The move is in the game's log, as the Python player's.
    let mut internal = GameStateClient::new(connect_internal(ludus.game_state).await);
    let events = internal
        .read_events(pb::ReadEventsRequest {
            game_id: game_id.to_owned(),
            after_seq: 0,
            limit: 0,
        })
        .await
        .expect("read events")
        .into_inner()
        .events;
    let started = events
        .iter()
        .find_map(|e| match &e.kind {
            Some(pb::game_event::Kind::Started(started)) => Some(started.clone()),
            _ => None,
        })
        .expect("the game started");
    let python_seat = started
        .seats
        .iter()
        .position(|seat| seat.player_id == report["player_id"].as_str().unwrap_or_default())
        .expect("the Python player is seated");
    let applied = events
        .iter()
        .find(|e| e.seq == seq)
        .and_then(|e| match &e.kind {
            Some(pb::game_event::Kind::ActionApplied(applied)) => Some(applied.clone()),
            _ => None,
        })
        .expect("the Python client's move is in the log");
    assert_eq!(applied.notation, "H8");
    assert_eq!(applied.seat as usize, python_seat);
    ludus.shutdown().await;
}
