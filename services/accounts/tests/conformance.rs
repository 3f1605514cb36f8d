//! The store conformance suite on both databases: SQLite in a temp file, and a real
//! PostgreSQL started by the test itself.

use ludus_accounts::{
    AccountStore, conformance,
    testing::{PostgresServer, SqliteFile},
};

/// Runs the whole suite on the store at `url`, after checking which database answered.
async fn suite_passes_on(url: &str, database: &str) {
    let store = AccountStore::connect(url).await.expect("connect");
    assert_eq!(store.database(), database);
    conformance::run_all(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_passes_the_conformance_suite() {
    let file = SqliteFile::new().expect("temp dir");
    suite_passes_on(&file.url(), "sqlite").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_passes_the_conformance_suite() {
    let server = PostgresServer::start().expect("postgres");
    suite_passes_on(&server.url(), "postgres").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrations_run_once_on_a_reopened_database() {
    let file = SqliteFile::new().expect("temp dir");
    AccountStore::connect(&file.url())
        .await
        .expect("first open");
    let again = AccountStore::connect(&file.url())
        .await
        .expect("second open");
    again.ping().await.expect("usable");
}
