//! Compiles `proto/ludus/v1/*.proto` with protox (no system `protoc` needed) and writes the
//! descriptor set next to the generated code for gRPC reflection.
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
    let mut config = tonic_prost_build::Config::new();
    // Messages that carry a password or a refresh token get a redacting Debug
    // (`src/redacted.rs`) instead of the derived one, so no log line can print a secret.
    config.skip_debug(
        SECRET_MESSAGES
            .iter()
            .map(|name| format!(".ludus.v1.{name}")),
    );
    config.service_generator(Box::new(PerServiceCodec {
        gateway: tonic_prost_build::configure()
            .codec_path("crate::codec::GatewayCodec")
            .service_generator(),
        internal: tonic_prost_build::configure().service_generator(),
    }));
    config.compile_fds(fds)?;
    Ok(())
}

/// Generates the public `ludus.v1.Gateway` service (client and server) with the gateway's
/// codec (`src/codec.rs`: a small encode buffer, because the gateway holds one response body
/// per open event stream) and every internal service with prost's default codec.
/// tonic-prost-build's own `codec_path` applies to every service it generates, hence two
/// generators.
struct PerServiceCodec {
    gateway: Box<dyn prost_build::ServiceGenerator>,
    internal: Box<dyn prost_build::ServiceGenerator>,
}

impl prost_build::ServiceGenerator for PerServiceCodec {
    fn generate(&mut self, service: prost_build::Service, buf: &mut String) {
        if service.package == "ludus.v1" && service.proto_name == "Gateway" {
            self.gateway.generate(service, buf);
        } else {
            self.internal.generate(service, buf);
        }
    }

    fn finalize(&mut self, buf: &mut String) {
        self.internal.finalize(buf);
        self.gateway.finalize(buf);
    }

    fn finalize_package(&mut self, package: &str, buf: &mut String) {
        self.internal.finalize_package(package, buf);
        self.gateway.finalize_package(package, buf);
    }
}
