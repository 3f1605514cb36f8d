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
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        // Messages that carry a password or a refresh token get a redacting Debug
        // (`src/redacted.rs`) instead of the derived one, so no log line can print a secret.
        .skip_debug(
            SECRET_MESSAGES
                .iter()
                .map(|name| format!(".ludus.v1.{name}")),
        )
        .compile_fds(fds)?;
    Ok(())
}
