//! The browser path: grpc-web spoken by hand over HTTP/1.1 to the gateway's own port (what a
//! browser's fetch does), next to native gRPC clients on the same port, and the CORS answers a
//! browser needs before it may call. Rule ids refer to shared/rules/caro.md.

use std::net::SocketAddr;

use base64::Engine;
use bytes::{Buf, Bytes};
use http::{HeaderMap, Method, Request, StatusCode, Version, header};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use ludus_proto::pb;
use ludus_tests::{Ludus, WEB_ORIGIN, caro_settings, patience};
use prost::Message;
use tokio::net::TcpStream;

/// The two grpc-web wire formats.
#[derive(Clone, Copy, Debug)]
enum Format {
    /// `application/grpc-web+proto`: length-prefixed frames as bytes.
    Binary,
    /// `application/grpc-web-text`: the same frames, base64.
    Text,
}

impl Format {
    fn content_type(self) -> &'static str {
        match self {
            Format::Binary => "application/grpc-web+proto",
            Format::Text => "application/grpc-web-text",
        }
    }
}

/// One grpc-web call's answer.
#[derive(Debug)]
struct Reply {
    http_status: StatusCode,
    headers: HeaderMap,
    messages: Vec<Bytes>,
    /// grpc-status, from the trailer frame or (trailers-only) the headers.
    grpc_status: i32,
    grpc_message: String,
}

impl Reply {
    fn single<M: Message + Default>(&self) -> M {
        assert_eq!(self.grpc_status, 0, "{}", self.grpc_message);
        assert_eq!(self.messages.len(), 1, "a unary call answers one message");
        M::decode(self.messages[0].clone()).expect("decodes")
    }

    fn all<M: Message + Default>(&self) -> Vec<M> {
        self.messages
            .iter()
            .map(|m| M::decode(m.clone()).expect("decodes"))
            .collect()
    }
}

/// Calls `method` of the gateway with grpc-web over a fresh HTTP/1.1 connection and reads the
/// whole answer (a server stream is read until it ends).
async fn call(
    gateway: SocketAddr,
    method: &str,
    format: Format,
    token: Option<&str>,
    request: &impl Message,
) -> Reply {
    let mut frame = vec![0u8];
    let encoded = request.encode_to_vec();
    frame.extend_from_slice(&u32::try_from(encoded.len()).expect("small").to_be_bytes());
    frame.extend_from_slice(&encoded);
    let body = match format {
        Format::Binary => frame,
        Format::Text => base64::engine::general_purpose::STANDARD
            .encode(&frame)
            .into_bytes(),
    };
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(format!("/ludus.v1.Gateway/{method}"))
        .version(Version::HTTP_11)
        .header(header::HOST, gateway.to_string())
        .header(header::CONTENT_TYPE, format.content_type())
        .header(header::ACCEPT, format.content_type())
        .header("x-grpc-web", "1")
        .header(header::ORIGIN, WEB_ORIGIN);
    if let Some(token) = token {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let request = builder.body(Full::new(Bytes::from(body))).expect("request");

    let response = send_http1(gateway, request).await;
    assert_eq!(
        response.version(),
        Version::HTTP_11,
        "HTTP/1.1, as browsers without TLS"
    );
    let (parts, body) = response.into_parts();
    let body = tokio::time::timeout(patience(), body.collect())
        .await
        .expect("the body ends in time")
        .expect("a body")
        .to_bytes();
    let frames = match format {
        Format::Binary => body,
        Format::Text => decode_text(&body),
    };
    let mut reply = Reply {
        http_status: parts.status,
        messages: Vec::new(),
        grpc_status: header_status(&parts.headers).unwrap_or(-1),
        grpc_message: header_text(&parts.headers, "grpc-message"),
        headers: parts.headers,
    };
    let mut frames = frames;
    while frames.has_remaining() {
        let flags = frames.get_u8();
        let length = frames.get_u32() as usize;
        let payload = frames.split_to(length);
        if flags & 0x80 == 0 {
            reply.messages.push(payload);
        } else {
            for line in String::from_utf8_lossy(&payload).split("\r\n") {
                if let Some((name, value)) = line.split_once(':') {
                    match name.trim() {
                        "grpc-status" => reply.grpc_status = value.trim().parse().unwrap_or(-1),
                        "grpc-message" => reply.grpc_message = percent_decode(value.trim()),
                        _ => {}
                    }
                }
            }
        }
    }
    reply
}

/// grpc-web-text bodies are base64 chunks, each padded on its own: decode 4 characters at a
/// time.
fn decode_text(text: &[u8]) -> Bytes {
    let clean: Vec<u8> = text
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::new();
    for quad in clean.chunks(4) {
        out.extend(
            base64::engine::general_purpose::STANDARD
                .decode(quad)
                .expect("base64"),
        );
    }
    Bytes::from(out)
}

fn header_status(headers: &HeaderMap) -> Option<i32> {
    headers.get("grpc-status")?.to_str().ok()?.parse().ok()
}

fn header_text(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(percent_decode)
        .unwrap_or_default()
}

/// grpc-message is percent-encoded UTF-8.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A browser's guest session.
struct WebPlayer {
    gateway: SocketAddr,
    token: String,
    actions: u32,
}

impl WebPlayer {
    async fn sign_in(gateway: SocketAddr, name: &str) -> WebPlayer {
        let session: pb::SignInGuestResponse = call(
            gateway,
            "SignInGuest",
            Format::Binary,
            None,
            &pb::SignInGuestRequest {
                display_name: name.to_owned(),
            },
        )
        .await
        .single();
        assert!(!session.token.is_empty() && !session.player_id.is_empty());
        WebPlayer {
            gateway,
            token: session.token,
            actions: 0,
        }
    }

    async fn game(&self, game_id: &str) -> pb::GameSnapshot {
        let reply = call(
            self.gateway,
            "GetGame",
            Format::Text,
            Some(&self.token),
            &pb::GetGameRequest {
                game_id: game_id.to_owned(),
            },
        )
        .await;
        reply
            .single::<pb::GetGameResponse>()
            .game
            .expect("snapshot")
    }

    /// Plays `notation` at the current seq; the raw reply (refusals included).
    async fn play(&mut self, game_id: &str, notation: &str) -> Reply {
        let seq = self.game(game_id).await.seq;
        self.actions += 1;
        call(
            self.gateway,
            "SubmitAction",
            Format::Binary,
            Some(&self.token),
            &pb::SubmitActionRequest {
                game_id: game_id.to_owned(),
                expected_seq: seq,
                action_id: format!("web-{}", self.actions),
                action: Some(pb::Action::notation(notation)),
            },
        )
        .await
    }
}

#[tokio::test]
async fn a_browser_quick_matches_plays_and_watches_over_grpc_web_beside_a_native_client() {
    let ludus = Ludus::start_in_memory().await;
    let gateway = ludus.gateway;
    let mut web = WebPlayer::sign_in(gateway, "wendy").await;
    let mut native = ludus.player("nate").await;

    // FindMatch is a server stream: over grpc-web-text it ends with the matched update.
    let find_request = pb::FindMatchRequest {
        settings: Some(caro_settings()),
        ranking: pb::MatchRanking::Default as i32,
    };
    let find = call(
        gateway,
        "FindMatch",
        Format::Text,
        Some(&web.token),
        &find_request,
    );
    let (web_updates, (game, native_seat)) = tokio::join!(find, native.find_match(caro_settings()));
    assert_eq!(web_updates.grpc_status, 0, "{}", web_updates.grpc_message);
    let last: pb::FindMatchUpdate = web_updates.all().pop().expect("updates");
    assert_eq!(last.state, pb::TicketState::Matched as i32);
    assert_eq!(
        last.game_id, game,
        "the browser and the native app share one game"
    );
    assert_ne!(last.seat, native_seat, "C9: one X, one O");
    let web_is_x = last.seat == 0;

    // A spectator's Subscribe over grpc-web-text, opened before the game ends: the stream
    // carries the log, then live events, then ends after the finishing event.
    let watcher = WebPlayer::sign_in(gateway, "walt").await;
    let watch = tokio::spawn({
        let (token, game) = (watcher.token.clone(), game.clone());
        async move {
            call(
                gateway,
                "Subscribe",
                Format::Text,
                Some(&token),
                &pb::SubscribeRequest {
                    game_id: game,
                    after_seq: 0,
                },
            )
            .await
        }
    });

    // X plays D8..H8, O answers on row 1 (C7: five in a row wins).
    let x_moves = ["D8", "E8", "F8", "G8", "H8"];
    let o_moves = ["A1", "C1", "E1", "G1"];
    for turn in 0..9 {
        let (cell, x_to_move) = if turn % 2 == 0 {
            (x_moves[turn / 2], true)
        } else {
            (o_moves[turn / 2], false)
        };
        if x_to_move == web_is_x {
            let reply = web.play(&game, cell).await;
            assert_eq!(reply.grpc_status, 0, "{}", reply.grpc_message);
            let accepted: pb::SubmitActionResponse = reply.single();
            assert_eq!(
                accepted
                    .event
                    .and_then(|e| e.kind)
                    .map(|k| matches!(k, pb::game_event::Kind::ActionApplied(_))),
                Some(true)
            );
        } else {
            if turn == 2 || turn == 3 {
                // Not the browser's turn (C2); then, on its turn, an occupied cell (C3).
                let refused = web.play(&game, "J10").await;
                assert_eq!(refused.grpc_status, tonic::Code::FailedPrecondition as i32);
            }
            native.play(&game, cell).await.expect("native move");
            if turn == 2 || turn == 3 {
                let refused = web.play(&game, "D8").await;
                assert_eq!(
                    refused.grpc_status,
                    tonic::Code::FailedPrecondition as i32,
                    "{}",
                    refused.grpc_message
                );
                assert!(
                    refused.grpc_message.starts_with("C3"),
                    "the refusal names its rule, as the page shows it: {:?}",
                    refused.grpc_message
                );
                assert!(refused.messages.is_empty());
            }
        }
    }

    let watched = tokio::time::timeout(patience(), watch)
        .await
        .expect("the watch stream ends with the game")
        .expect("watch task");
    assert_eq!(watched.http_status, StatusCode::OK);
    assert_eq!(watched.grpc_status, 0, "{}", watched.grpc_message);
    let events: Vec<pb::GameEvent> = watched.all();
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (1..=10).collect::<Vec<u64>>(),
        "started + nine moves, no gap, no duplicate"
    );
    let last = events.last().expect("events");
    assert_eq!(last.status, pb::GameStatus::Finished as i32);
    assert_eq!(last.outcome.as_ref().map(|o| o.rule.as_str()), Some("C7"));
    // The watcher's snapshot agrees, and the native player saw the same game.
    assert_eq!(watcher.game(&game).await.seq, 10);
    assert_eq!(native.game(&game).await.seq, 10);

    // Errors with no message at all come "trailers-only", in the HTTP headers.
    let refused = call(
        gateway,
        "GetGame",
        Format::Binary,
        Some("not-a-token"),
        &pb::GetGameRequest {
            game_id: game.clone(),
        },
    )
    .await;
    assert_eq!(refused.grpc_status, tonic::Code::Unauthenticated as i32);
    assert!(refused.messages.is_empty());
    assert_eq!(
        refused
            .headers
            .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .and_then(|v| v.to_str().ok()),
        Some(WEB_ORIGIN),
        "the listed origin may read the answer"
    );
    let exposed = refused
        .headers
        .get(header::ACCESS_CONTROL_EXPOSE_HEADERS)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        exposed.contains("grpc-status") && exposed.contains("grpc-message"),
        "a page reads the status of a trailers-only answer: {exposed:?}"
    );
    ludus.shutdown().await;
}

/// Sends one request over a fresh HTTP/1.1 connection, as a browser without TLS does.
async fn send_http1(
    gateway: SocketAddr,
    request: Request<Full<Bytes>>,
) -> http::Response<hyper::body::Incoming> {
    let stream = TcpStream::connect(gateway).await.expect("connect");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("HTTP/1.1 handshake");
    tokio::spawn(connection);
    tokio::time::timeout(patience(), sender.send_request(request))
        .await
        .expect("answered in time")
        .expect("an HTTP answer")
}

/// A browser's preflight, answered without reaching the service.
async fn preflight(gateway: SocketAddr, origin: &str) -> http::response::Parts {
    let request = Request::builder()
        .method(Method::OPTIONS)
        .uri("/ludus.v1.Gateway/SubmitAction")
        .header(header::HOST, gateway.to_string())
        .header(header::ORIGIN, origin)
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(
            header::ACCESS_CONTROL_REQUEST_HEADERS,
            "authorization,content-type,x-grpc-web,x-user-agent",
        )
        .body(Full::new(Bytes::new()))
        .expect("request");
    send_http1(gateway, request).await.into_parts().0
}

#[tokio::test]
async fn cors_preflight_admits_the_configured_origin_only() {
    let ludus = Ludus::start_in_memory().await;

    let admitted = preflight(ludus.gateway, WEB_ORIGIN).await;
    assert!(admitted.status.is_success(), "{:?}", admitted.status);
    let value = |name: header::HeaderName| {
        admitted
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    assert_eq!(value(header::ACCESS_CONTROL_ALLOW_ORIGIN), WEB_ORIGIN);
    assert!(value(header::ACCESS_CONTROL_ALLOW_METHODS).contains("post"));
    let allowed = value(header::ACCESS_CONTROL_ALLOW_HEADERS);
    for needed in [
        "authorization",
        "content-type",
        "x-grpc-web",
        "x-user-agent",
    ] {
        assert!(allowed.contains(needed), "{needed} in {allowed:?}");
    }
    assert!(
        admitted
            .headers
            .get(header::ACCESS_CONTROL_ALLOW_CREDENTIALS)
            .is_none(),
        "tokens travel in a header, never as cookies"
    );

    let refused = preflight(ludus.gateway, "http://evil.example").await;
    assert!(
        refused
            .headers
            .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .is_none(),
        "an unlisted origin gets no CORS grant, so the browser blocks the call"
    );

    // Native gRPC on the same port is unaffected.
    let mut native = ludus.player("nina").await;
    let live = native
        .client
        .list_live_games(pb::ListLiveGamesRequest { limit: 5 })
        .await
        .expect("native call");
    assert!(live.into_inner().games.is_empty());
    ludus.shutdown().await;
}
