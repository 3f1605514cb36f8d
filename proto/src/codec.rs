//! The gateway's gRPC codec: prost's, with a small encode buffer.
//!
//! tonic allocates a response body's encode buffer up front, when the body is created, and a
//! `Subscribe` stream keeps its body (and so the buffer) for the whole game. With prost's
//! default 8 KiB that buffer was most of an idle stream's memory on the gateway; events and
//! responses are far smaller. A message larger than the buffer still goes out whole: tonic
//! grows the buffer to fit it (`BytesMut::reserve`).
//!
//! Only the gateway service uses this codec (see `build.rs`); the internal services keep
//! prost's defaults.

use std::marker::PhantomData;

use prost::Message;
use tonic::codec::{BufferSettings, Codec};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// Bytes allocated up front for each gateway response body (tonic's default is 8 KiB). One
/// KiB holds a typical event or unary response without growing.
pub const ENCODE_BUFFER: usize = 1024;

/// How much encoded data a streaming response collects before it yields to the transport:
/// tonic's default.
const YIELD_THRESHOLD: usize = 32 * 1024;

/// [`ProstCodec`] with an [`ENCODE_BUFFER`] encode buffer. Decoding keeps prost's defaults:
/// a decode buffer lives only while a message is read, and the gateway's clients (tests,
/// loadgen, terminal) then read responses exactly as before.
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
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ProstDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(BufferSettings::new(ENCODE_BUFFER, YIELD_THRESHOLD))
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstCodec::<T, U>::raw_decoder(BufferSettings::default())
    }
}
