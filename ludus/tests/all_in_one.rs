//! The `ludus` binary itself, started as a newcomer starts it (in-memory store), passes the
//! play-to-win scenario through its gateway.

use std::{
    process::{Child, Command, Stdio},
    time::Duration,
};

use ludus_proto::pb;
use ludus_tests::{caro_settings, patience, sign_in};

/// Kills the server when the test ends, pass or fail.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    ludus_tests::free_port()
}

#[tokio::test]
async fn the_all_in_one_binary_with_the_memory_store_plays_a_game_to_a_win() {
    let port = free_port();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
    // Accounts go to a SQLite file in the data directory, created when missing.
    let scratch = tempfile::tempdir().expect("temp dir");
    let data_dir = scratch.path().join("ludus-data");
    let _server = Server(
        Command::new(env!("CARGO_BIN_EXE_ludus"))
            .args(["serve", "--listen", &addr.to_string()])
            .arg("--data-dir")
            .arg(&data_dir)
            .env_remove("LUDUS_DATA_DIR")
            .env_remove("LUDUS_DATABASE_URL")
            .env_remove("LUDUS_REDIS_URL")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start ludus"),
    );
    // Wait until the gateway answers.
    tokio::time::timeout(patience(), async {
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("ludus starts");
    assert!(
        data_dir.join("accounts.db").exists(),
        "the accounts database is created in the data directory"
    );

    let mut ann = sign_in(addr, "ann").await;
    let mut bob = sign_in(addr, "bob").await;
    let ((game, seat_a), (game_b, _)) = tokio::join!(
        ann.find_match(caro_settings()),
        bob.find_match(caro_settings())
    );
    assert_eq!(game, game_b);
    let (mut x, mut o) = if seat_a == 0 { (ann, bob) } else { (bob, ann) };
    let mut watcher = sign_in(addr, "carol").await;
    let mut stream = watcher.subscribe(&game, 0).await;
    for (xc, oc) in [("D8", "A1"), ("E8", "C1"), ("F8", "E1"), ("G8", "G1")] {
        x.play(&game, xc).await.expect("x");
        o.play(&game, oc).await.expect("o");
    }
    let last = x.play(&game, "H8").await.expect("winning move");
    let outcome = last.outcome.expect("outcome");
    assert_eq!(outcome.winners, [0]);
    assert_eq!(outcome.rule, "C7");
    let seen = ludus_tests::events_until_finished(&mut stream).await;
    assert_eq!(seen.len(), 10, "the spectator saw every event");
    assert_eq!(
        seen.last().map(|e| e.status),
        Some(pb::GameStatus::Finished as i32)
    );
}
