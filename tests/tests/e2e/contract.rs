//! The mobile contract (MOBILE.md): an app generated from the last *released* protos
//! (`proto/released/`, see its README) still plays against the current server, in the call
//! order the guide gives: guest sign-in, quick match, a game stream, moves with their seq and
//! action id, a retried move, a stale seq refused, a stream closed by the OS and resumed after
//! the last seq seen, and the end of the game closing every stream. `buf breaking` (run by
//! scripts/test.sh) checks the same promise statically; this test checks it on the wire.

use ludus_tests::{Ludus, patience, python_with_grpc};

#[tokio::test]
async fn an_app_built_from_the_released_protos_plays_resumes_and_finishes_a_quick_match() {
    let Some(python) = python_with_grpc() else {
        return;
    };
    let ludus = Ludus::start().await;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let timeout = patience();
    let output = tokio::time::timeout(
        timeout * 6,
        tokio::process::Command::new(&python)
            .arg(root.join("python/app_client.py"))
            .arg(root.join("../proto/released"))
            .arg(format!("127.0.0.1:{}", ludus.gateway.port()))
            .env("LUDUS_APP_TIMEOUT", timeout.as_secs().to_string())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the app client finishes")
    .expect("run the app client");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the app built from the released protos failed against this server ({}); it needs \
         grpcio and grpcio-tools (scripts/test.sh installs them and sets LUDUS_PYTHON):\n{stderr}",
        output.status
    );
    let report: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim())
            .expect("one JSON line");
    // Both apps saw the game from event 1 with no gap (the client checks each step); the one
    // that went to the background saw everything too, through its resumed stream.
    let seen = report["seen"].as_object().expect("the seqs each app saw");
    assert_eq!(seen.len(), 2);
    for (player, seqs) in seen {
        let seqs: Vec<u64> = seqs
            .as_array()
            .expect("seqs")
            .iter()
            .filter_map(|seq| seq.as_u64())
            .collect();
        assert_eq!(
            seqs,
            (1..=seqs.len() as u64).collect::<Vec<_>>(),
            "{player} saw a gap or a duplicate"
        );
        assert!(seqs.len() >= 5, "{player} saw only {seqs:?}");
    }
    ludus.shutdown().await;
}
