//! The Ludus gRPC contract: every message and service of `proto/ludus/v1`, generated at build
//! time with protox and tonic-prost-build (no system `protoc`).
//!
//! # Layout
//! - [`pb`]: the generated messages, clients and servers (package `ludus.v1`).
//! - `redacted`: `Debug` for the messages that carry passwords or refresh tokens, which
//!   prints every field but the secrets.
//! - [`FILE_DESCRIPTOR_SET`]: the encoded descriptors, for gRPC reflection.
//! - [`archive_record`]: `Accounts.RecordGames`' request as its two ends use it, each
//!   finished game an encoded record neither decodes whole.
//! - [`codec`]: the gateway service's codec (a small encode buffer per response body,
//!   events sent as encoded once).
//! - [`ids`]: the one policy for ids, rule set names and display names every service applies
//!   on receipt.
//! - [`error_details`]: the rich error details (`ErrorInfo`, `BadRequest`) every refusal
//!   carries, and the stable reasons.
//!
//! Prost types stop at service boundaries: each service converts them to its own domain types
//! on receipt.
//!
//! # Features
//! `grpc` (default) adds the clients and servers, [`codec`], [`archive_record`], and
//! everything that builds a `tonic::Status`. Without it the crate is the messages, [`ids`]
//! and the message conventions of [`error_details`], and builds for wasm32-unknown-unknown
//! (the offline client).
#![forbid(unsafe_code)]

#[cfg(feature = "grpc")]
pub mod archive_record;
#[cfg(feature = "grpc")]
pub mod codec;
pub mod error_details;
pub mod ids;

/// Generated code for package `ludus.v1`: the messages, and with `grpc` the services.
#[allow(missing_docs, clippy::all, missing_debug_implementations)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/ludus.v1.rs"));
}

mod redacted;

impl pb::Action {
    /// An action in the game's standard notation (`H8`, `e3h`, `24/18 13/11`), which every
    /// game reads; the structured form is the other choice.
    pub fn notation(text: impl Into<String>) -> pb::Action {
        pb::Action {
            action: Some(pb::action::Action::Notation(text.into())),
        }
    }
}

/// The encoded `FileDescriptorSet` of every Ludus proto file, for tonic-reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/ludus_descriptor.bin"));
