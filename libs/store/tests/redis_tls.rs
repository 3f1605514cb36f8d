//! The store over TLS (`rediss://` and `rediss+cluster://`): a `redis-server` (and a
//! three-master cluster) started with TLS on certificates from a throwaway CA, the whole
//! conformance suite through it, and the refusals that show the connection really is TLS with
//! a verified certificate. `redis-server` and `redis-cli` must be on PATH (Debian's are built
//! with TLS); these tests fail rather than skip.

use ludus_store::testing::{RedisCluster, RedisServer, TestCa};
use ludus_store::{Backend, RedisOptions, conformance};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_works_over_rediss_on_one_node() {
    let ca = TestCa::new();
    let server = RedisServer::start_tls(&ca).unwrap_or_else(|e| panic!("{e}"));
    assert!(server.url().starts_with("rediss://"), "{}", server.url());
    conformance::run_all_prefixed(|prefix| {
        let server = &server;
        async move { server.backend(&prefix).await.expect("connect over TLS") }
    })
    .await;

    // The live-event feed (its own RESP3 connection) goes over TLS too.
    let backend = server.backend("feed:").await.expect("connect over TLS");
    let (games, _feed, mut sub) = conformance::subscribed_game(backend).await;
    conformance::commit_reaches_restored_subscription(&games, &mut sub).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rediss_refuses_a_server_whose_certificate_it_cannot_verify() {
    let ca = TestCa::new();
    let server = RedisServer::start_tls(&ca).unwrap_or_else(|e| panic!("{e}"));
    let url = server.url();
    let with_ca = |ca: Option<&str>| RedisOptions {
        prefix: String::new(),
        ca_pem: ca.map(|pem| pem.as_bytes().to_vec()),
    };
    // No CA file: the public web PKI, which never signed the test CA.
    assert!(
        Backend::redis_with(&url, with_ca(None)).await.is_err(),
        "a private CA's certificate passed with the webpki roots alone"
    );
    // Another private CA.
    let stranger = TestCa::new();
    assert!(
        Backend::redis_with(&url, with_ca(Some(stranger.pem())))
            .await
            .is_err(),
        "a certificate from another CA passed"
    );
    // Plain RESP to the TLS port gets no answer a client accepts.
    let plain = url.replacen("rediss://", "redis://", 1);
    assert!(
        Backend::redis(&plain).await.is_err(),
        "plain RESP talked to the TLS port"
    );
    // A CA file with a plain URL is a configuration mistake, said at once.
    let on_plain = Backend::redis_with(&plain, with_ca(Some(ca.pem()))).await;
    assert!(on_plain.is_err(), "a CA file silently ignored on redis://");
    // And the right CA connects.
    Backend::redis_with(&url, with_ca(Some(ca.pem())))
        .await
        .expect("the test CA verifies its own server");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_works_over_rediss_on_a_cluster() {
    let ca = TestCa::new();
    let cluster = RedisCluster::start_tls(&ca).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        cluster.url().starts_with("rediss+cluster://"),
        "{}",
        cluster.url()
    );
    conformance::run_all_prefixed(|prefix| {
        let cluster = &cluster;
        async move {
            let backend = cluster.backend(&prefix).await.expect("connect over TLS");
            assert!(backend.is_redis_cluster());
            backend
        }
    })
    .await;
    // Sharded pub/sub over TLS, through the cluster's own connections.
    let backend = cluster.backend("feed:").await.expect("connect over TLS");
    let (games, _feed, mut sub) = conformance::subscribed_game(backend).await;
    conformance::commit_reaches_restored_subscription(&games, &mut sub).await;
    // Without the CA the cluster's certificates are refused.
    let untrusted = RedisOptions {
        prefix: String::new(),
        ca_pem: None,
    };
    assert!(
        Backend::redis_with(&cluster.url(), untrusted)
            .await
            .is_err(),
        "a cluster node's private certificate passed with the webpki roots alone"
    );
}
