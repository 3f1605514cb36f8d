//! Compiles `proto/ludus/v1/*.proto` with protox (no system `protoc` needed) and writes the
//! descriptor set next to the generated code for gRPC reflection. The services' clients and
//! servers are generated only with the `grpc` feature; without it the output is the messages
//! alone, which need nothing but prost.
use std::{env, fs, path::PathBuf};

/// Messages holding a password, a refresh token or a bearer token; keep in step with `src/redacted.rs`.
const SECRET_MESSAGES: &[&str] = &[
    "CreateAccountRequest",
    "AccountsSignInRequest",
    "AccountSessionGrant",
    "AccountsRefreshRequest",
    "AccountsSignOutRequest",
    "RegisterRequest",
    "SignInRequest",
    "AccountSession",
    "RefreshRequest",
    "SignOutRequest",
    "UpgradeGuestRequest",
    "SignInGuestResponse",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = PathBuf::from("ludus/v1");
    let mut files: Vec<PathBuf> = fs::read_dir(&proto_dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "proto"))
        .collect();
    files.sort();
    // compile_fds does not emit these itself.
    println!("cargo:rerun-if-changed=ludus/v1");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
    }

    let fds = protox::compile(&files, ["."])?;
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(
        out_dir.join("ludus_descriptor.bin"),
        prost::Message::encode_to_vec(&fds),
    )?;
    let mut config = prost_build::Config::new();
    // Messages that carry a password or a refresh token get a redacting Debug
    // (`src/redacted.rs`) instead of the derived one, so no log line can print a secret.
    config.skip_debug(
        SECRET_MESSAGES
            .iter()
            .map(|name| format!(".ludus.v1.{name}")),
    );
    #[cfg(feature = "grpc")]
    config.service_generator(Box::new(PerServiceCodec {
        gateway_server: tonic_prost_build::configure()
            .build_client(false)
            .codec_path("crate::codec::GatewayCodec")
            .service_generator(),
        gateway_client: tonic_prost_build::configure()
            .build_server(false)
            .service_generator(),
        internal: tonic_prost_build::configure().service_generator(),
    }));
    config.compile_fds(fds)?;
    Ok(())
}

/// Generates the public `ludus.v1.Gateway` server with the gateway's codec (`src/codec.rs`:
/// a small encode buffer, because the gateway holds one response body per open event stream,
/// and events written as the store holds them) and everything else (the gateway's client,
/// every internal service) with prost's default codec. tonic-prost-build's own `codec_path`
/// applies to every service it generates, hence one generator each.
#[cfg(feature = "grpc")]
struct PerServiceCodec {
    gateway_server: Box<dyn prost_build::ServiceGenerator>,
    gateway_client: Box<dyn prost_build::ServiceGenerator>,
    internal: Box<dyn prost_build::ServiceGenerator>,
}

#[cfg(feature = "grpc")]
impl prost_build::ServiceGenerator for PerServiceCodec {
    fn generate(&mut self, service: prost_build::Service, buf: &mut String) {
        if service.package == "ludus.v1" && service.proto_name == "Gateway" {
            self.gateway_client.generate(service.clone(), buf);
            self.gateway_server
                .generate(with_encoded_events(service), buf);
        } else if service.package == "ludus.v1" && service.proto_name == "Accounts" {
            self.internal.generate(with_encoded_records(service), buf);
        } else {
            self.internal.generate(service, buf);
        }
    }

    fn finalize(&mut self, buf: &mut String) {
        self.internal.finalize(buf);
        self.gateway_client.finalize(buf);
        self.gateway_server.finalize(buf);
    }

    fn finalize_package(&mut self, package: &str, buf: &mut String) {
        self.internal.finalize_package(package, buf);
        self.gateway_client.finalize_package(package, buf);
        self.gateway_server.finalize_package(package, buf);
    }
}

/// The gateway server's `Subscribe` streams `codec::EncodedEvent`s: `GameEvent`s already
/// encoded (by game-state, for the store), sent as they are instead of decoded and re-encoded
/// for each subscriber. Only the server's Rust type changes; the wire, the descriptors and the
/// client keep `GameEvent`.
/// `SubscribeRoom` likewise streams `RoomEvent`s as the rooms service encoded them, and
/// `SubmitAction` answers a `codec::SubmitActionReply`: its event as game-state encoded it for
/// the log, when game-state runs in the same process.
#[cfg(feature = "grpc")]
fn with_encoded_events(mut service: prost_build::Service) -> prost_build::Service {
    for method in &mut service.methods {
        if method.proto_name == "SubmitAction" {
            assert_eq!(method.output_proto_type, ".ludus.v1.SubmitActionResponse");
            method.output_type = "crate::codec::SubmitActionReply".to_owned();
            continue;
        }
        let streamed = match method.proto_name.as_str() {
            "Subscribe" => ".ludus.v1.GameEvent",
            "SubscribeRoom" => ".ludus.v1.RoomEvent",
            _ => continue,
        };
        assert_eq!(
            method.output_proto_type, streamed,
            "{} streams {streamed}",
            method.proto_name
        );
        method.output_type = "crate::codec::EncodedEvent".to_owned();
    }
    service
}

/// `Accounts.RecordGames` takes `archive_record::RecordGamesRequest`: each finished game as
/// an encoded `ArchivedGame`, built by game-state from the stored events and stored by
/// accounts as it came (`src/archive_record.rs`). The client and server of this process
/// change; the wire, the descriptors and `pb::RecordGamesRequest` stay.
#[cfg(feature = "grpc")]
fn with_encoded_records(mut service: prost_build::Service) -> prost_build::Service {
    for method in &mut service.methods {
        if method.proto_name == "RecordGames" {
            assert_eq!(method.input_proto_type, ".ludus.v1.RecordGamesRequest");
            method.input_type = "crate::archive_record::RecordGamesRequest".to_owned();
        }
    }
    service
}
