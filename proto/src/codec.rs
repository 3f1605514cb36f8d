//! The gateway's gRPC codec: prost's, with a small encode buffer, and events encoded once for
//! every subscriber.
//!
//! tonic allocates a response body's encode buffer up front, when the body is created, and a
//! `Subscribe` stream keeps its body (and so the buffer) for the whole game. With prost's
//! default 8 KiB that buffer was most of an idle stream's memory on the gateway; events and
//! responses are far smaller. A message larger than the buffer still goes out whole: tonic
//! grows the buffer to fit it (`BytesMut::reserve`).
//!
//! `Subscribe` streams send [`EncodedEvent`]s: a `GameEvent` as the store holds it, written
//! to the wire as it is, so one live event fanned out to many subscribers is not decoded and
//! re-encoded for each. Clients see the same bytes (`build.rs` keeps `GameEvent` as the
//! method's type for the client and the descriptors). `SubscribeRoom` streams `RoomEvent`s
//! the same way.
//!
//! Only the gateway service uses this codec (see `build.rs`); the internal services keep
//! prost's defaults.

use std::marker::PhantomData;

use bytes::{BufMut, Bytes};
use prost::Message;
use tonic::Code;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

use crate::error_details::{self, DOMAIN_GATEWAY, reason};
use crate::pb;

/// Bytes allocated up front for each gateway response body (tonic's default is 8 KiB). One
/// KiB holds a typical event or unary response without growing.
pub const ENCODE_BUFFER: usize = 1024;

/// How much encoded data a streaming response collects before it yields to the transport:
/// tonic's default.
const YIELD_THRESHOLD: usize = 32 * 1024;

/// A message the gateway sends: any prost message, or an [`EncodedEvent`].
pub trait GatewayMessage: Send + 'static {
    /// Writes the message's encoding (without gRPC's length prefix) to `buf`.
    fn encode_to(self, buf: &mut EncodeBuf<'_>) -> Result<(), Status>;
}

impl<M: Message + Send + 'static> GatewayMessage for M {
    fn encode_to(self, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        // An `EncodeBuf` grows as needed, so this only fails on a broken invariant.
        self.encode(buf)
            .map_err(|e| Status::internal(format!("encoding a response: {e}")))
    }
}

/// A `GameEvent` (or, for `SubscribeRoom`, a `RoomEvent`), encoded. Cloning shares the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedEvent(Bytes);

impl EncodedEvent {
    /// Encodes `event`.
    pub fn encode(event: &pb::GameEvent) -> Self {
        EncodedEvent(event.encode_to_vec().into())
    }

    /// `bytes` already holding a `GameEvent`'s encoding (the store's payload of a live
    /// event, written by game-state with the same contract); they are sent as they are.
    pub fn from_encoded(bytes: Bytes) -> Self {
        EncodedEvent(bytes)
    }

    /// The encoding.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl GatewayMessage for EncodedEvent {
    fn encode_to(self, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.put_slice(&self.0);
        Ok(())
    }
}

/// The gateway service's codec: an [`ENCODE_BUFFER`] encode buffer, any [`GatewayMessage`]
/// out. Decoding is prost's with the default buffer (it lives only while a request is read),
/// except that a body that is not the message answers INVALID_ARGUMENT, not prost codec's
/// INTERNAL: it is the client's mistake, and the contract says so.
#[derive(Debug, Clone)]
pub struct GatewayCodec<T, U> {
    _pd: PhantomData<(T, U)>,
}

impl<T, U> Default for GatewayCodec<T, U> {
    fn default() -> Self {
        GatewayCodec { _pd: PhantomData }
    }
}

impl<T, U> Codec for GatewayCodec<T, U>
where
    T: GatewayMessage,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = GatewayEncoder<T>;
    type Decoder = GatewayDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        GatewayEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        GatewayDecoder(PhantomData)
    }
}

/// Reads a request; a body that does not decode (truncated, a wrong wire type, invalid UTF-8
/// in a string) is INVALID_ARGUMENT with reason `MALFORMED_REQUEST`.
#[derive(Debug, Clone)]
pub struct GatewayDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for GatewayDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf).map(Some).map_err(|e| {
            error_details::refusal(
                Code::InvalidArgument,
                format!("request body: not a valid protobuf message of this call: {e}"),
                DOMAIN_GATEWAY,
                reason::MALFORMED_REQUEST,
                &[],
            )
        })
    }
}

/// `SubmitAction`'s answer: a `SubmitActionResponse`, with its event already encoded when
/// game-state handed over the bytes it wrote to the log (a call in the same process; see
/// `ludus_server::local`), so the move's event and its board view are not encoded twice.
/// Clients see the same bytes either way (`build.rs` keeps `SubmitActionResponse` for the
/// client and the descriptors).
#[derive(Debug, Clone, PartialEq)]
// Built once per call and moved into the encoder: boxing the message would cost an
// allocation per answer to save a copy of a few hundred bytes.
#[allow(clippy::large_enum_variant)]
pub enum SubmitActionReply {
    /// The answer as a message.
    Message(pb::SubmitActionResponse),
    /// The answer with its event encoded: `SubmitActionResponse { event, duplicate }`.
    Encoded {
        event: EncodedEvent,
        duplicate: bool,
    },
}

impl SubmitActionReply {
    /// Writes the answer's encoding to `buf`.
    fn write(self, buf: &mut impl BufMut) {
        match self {
            // A message's encoding only fails on a buffer too small; `buf` grows.
            SubmitActionReply::Message(message) => message.encode_raw(buf),
            SubmitActionReply::Encoded { event, duplicate } => {
                // `GameEvent event = 1` (a message field is its length and bytes), then
                // `bool duplicate = 2` when set, as prost writes them.
                let bytes = event.as_bytes();
                prost::encoding::encode_key(1, prost::encoding::WireType::LengthDelimited, buf);
                prost::encoding::encode_varint(bytes.len() as u64, buf);
                buf.put_slice(bytes);
                if duplicate {
                    prost::encoding::bool::encode(2, &duplicate, buf);
                }
            }
        }
    }
}

impl GatewayMessage for SubmitActionReply {
    fn encode_to(self, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        self.write(buf);
        Ok(())
    }
}

/// Writes [`GatewayMessage`]s with the gateway's buffer settings.
#[derive(Debug, Clone)]
pub struct GatewayEncoder<T>(PhantomData<T>);

impl<T: GatewayMessage> Encoder for GatewayEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        item.encode_to(buf)
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::new(ENCODE_BUFFER, YIELD_THRESHOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_encoded_event_is_the_event_s_encoding() {
        let event = pb::GameEvent {
            game_id: "g1".into(),
            seq: 7,
            status: pb::GameStatus::Finished as i32,
            ..Default::default()
        };
        let encoded = EncodedEvent::encode(&event);
        assert_eq!(encoded.as_bytes(), event.encode_to_vec().as_slice());
        let back = pb::GameEvent::decode(encoded.as_bytes()).expect("decodes");
        assert_eq!(back, event);
    }

    /// What a reply writes, as a client reads it.
    fn written(reply: SubmitActionReply) -> Vec<u8> {
        let mut bytes = Vec::new();
        reply.write(&mut bytes);
        bytes
    }

    #[test]
    fn a_reply_with_its_event_encoded_is_the_reply_s_encoding() {
        let event = pb::GameEvent {
            game_id: "g1".into(),
            seq: 300,
            view: Some(pb::GameView {
                view: Some(pb::game_view::View::Caro(pb::CaroView {
                    board_size: 15,
                    cells: vec![0; 225],
                    ..Default::default()
                })),
            }),
            ..Default::default()
        };
        for duplicate in [false, true] {
            let message = pb::SubmitActionResponse {
                event: Some(event.clone()),
                duplicate,
            };
            let encoded = SubmitActionReply::Encoded {
                event: EncodedEvent::encode(&event),
                duplicate,
            };
            assert_eq!(written(encoded), message.encode_to_vec(), "{duplicate}");
            assert_eq!(
                written(SubmitActionReply::Message(message.clone())),
                message.encode_to_vec()
            );
        }
    }
}
