//! Calls whose request body is whatever bytes a test chooses, and whose answer is read as
//! bytes: what a stranger's client can put on the wire, beyond any generated client's types.

use bytes::{Buf, BufMut, Bytes};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::metadata::MetadataValue;
use tonic::transport::Channel;
use tonic::{Request, Status, Streaming};

/// Sends the given bytes as the body of a call and reads each answer as bytes.
#[derive(Debug, Default, Clone, Copy)]
pub struct RawCodec;

/// [`RawCodec`]'s encoder: the bytes as they are.
#[derive(Debug)]
pub struct RawEncoder;

/// [`RawCodec`]'s decoder: the message bytes as they are.
#[derive(Debug)]
pub struct RawDecoder;

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

/// A request carrying `body`, with `authorization` set to `authorization` when given (a value
/// that is not a valid header value is sent as no header at all: no client can send it).
fn request(body: Bytes, authorization: Option<&str>) -> Request<Bytes> {
    let mut request = Request::new(body);
    if let Some(value) = authorization.and_then(|v| MetadataValue::try_from(v).ok()) {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// A client on `channel` once it is ready, and `path` (`/package.Service/Method`) parsed.
async fn ready(
    channel: Channel,
    path: &str,
) -> Result<(tonic::client::Grpc<Channel>, http::uri::PathAndQuery), Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(format!("channel not ready: {e}")))?;
    let path = http::uri::PathAndQuery::try_from(path)
        .map_err(|e| Status::invalid_argument(format!("path: {e}")))?;
    Ok((grpc, path))
}

/// A unary call of `path` with `body`.
pub async fn unary(
    channel: Channel,
    path: &str,
    body: Bytes,
    authorization: Option<&str>,
) -> Result<Bytes, Status> {
    let (mut grpc, path) = ready(channel, path).await?;
    grpc.unary(request(body, authorization), path, RawCodec)
        .await
        .map(tonic::Response::into_inner)
}

/// A server-streaming call of `path` with `body`: the stream once the server answered.
pub async fn server_streaming(
    channel: Channel,
    path: &str,
    body: Bytes,
    authorization: Option<&str>,
) -> Result<Streaming<Bytes>, Status> {
    let (mut grpc, path) = ready(channel, path).await?;
    grpc.server_streaming(request(body, authorization), path, RawCodec)
        .await
        .map(tonic::Response::into_inner)
}
