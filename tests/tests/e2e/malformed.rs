//! Request bodies that are not the call's message: the client's mistake, answered
//! INVALID_ARGUMENT with reason MALFORMED_REQUEST, never INTERNAL (issue 16), and the gateway
//! keeps serving.

use bytes::{Buf, BufMut, Bytes};
use ludus_proto::error_details::StatusExt;
use ludus_tests::Ludus;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::{Code, Status};

/// Sends the given bytes as the body of a call and reads the answer as bytes.
#[derive(Default)]
struct RawCodec;

struct RawEncoder;
struct RawDecoder;

impl Encoder for RawEncoder {
    type Item = Bytes;
    type Error = Status;
    fn encode(&mut self, item: Bytes, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.put(item);
        Ok(())
    }
}

impl Decoder for RawDecoder {
    type Item = Bytes;
    type Error = Status;
    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(buf.copy_to_bytes(buf.remaining())))
    }
}

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;
    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }
    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

async fn raw_call(ludus: &Ludus, path: &'static str, body: &'static [u8]) -> Result<Bytes, Status> {
    let mut grpc = tonic::client::Grpc::new(ludus.channel().await);
    grpc.ready().await.expect("gateway ready");
    grpc.unary(
        tonic::Request::new(Bytes::from_static(body)),
        http::uri::PathAndQuery::from_static(path),
        RawCodec,
    )
    .await
    .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn an_undecodable_body_is_invalid_argument_not_internal() {
    let ludus = Ludus::start().await;
    let cases: [(&str, &[u8]); 3] = [
        // Field 1 (game_id, a string) says 5 bytes follow; 2 do.
        ("truncated", &[0x0a, 0x05, b'a', b'b']),
        // Field 1 as a string of invalid UTF-8.
        ("invalid UTF-8", &[0x0a, 0x02, 0xff, 0xfe]),
        // Wire type 7 does not exist.
        ("unknown wire type", &[0x0f, 0x00]),
    ];
    for (what, body) in cases {
        let err = raw_call(&ludus, "/ludus.v1.Gateway/GetGame", body)
            .await
            .expect_err(what);
        assert_eq!(err.code(), Code::InvalidArgument, "{what}: {err:?}");
        assert!(
            err.message().starts_with("request body: "),
            "{what}: {}",
            err.message()
        );
        let info = err
            .get_error_details()
            .error_info()
            .cloned()
            .expect("ErrorInfo");
        assert_eq!(info.reason, "MALFORMED_REQUEST", "{what}");
    }
    // Still serving: a well-formed call is judged on its merits (no token: UNAUTHENTICATED).
    let err = raw_call(&ludus, "/ludus.v1.Gateway/GetGame", &[0x0a, 0x01, b'g'])
        .await
        .expect_err("no token");
    assert_eq!(err.code(), Code::Unauthenticated);
    ludus.shutdown().await;
}
