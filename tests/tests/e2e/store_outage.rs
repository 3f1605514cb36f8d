//! A Redis outage as clients and operators see it (ARCHITECTURE.md, "Errors"): calls fail fast with UNAVAILABLE
//! (retry) inside a client's deadline instead of hanging past it, the services that need the
//! store report NOT_SERVING while it is gone, and play resumes when it is back.

use std::time::Duration;

use ludus_proto::pb;
use ludus_tests::{Ludus, caro_settings, patience, quick_match_pair};
use tonic::Code;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// What a mobile client gives a call.
const CLIENT_DEADLINE: Duration = Duration::from_secs(5);

async fn game_state_health(ludus: &Ludus) -> ServingStatus {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", ludus.game_state))
        .expect("uri")
        .connect()
        .await
        .expect("game-state listens");
    let answer = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: "ludus.v1.GameState".into(),
        })
        .await
        .expect("health answers")
        .into_inner();
    ServingStatus::try_from(answer.status).expect("a known status")
}

async fn health_becomes(ludus: &Ludus, wanted: ServingStatus) {
    tokio::time::timeout(patience(), async {
        while game_state_health(ludus).await != wanted {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("game-state health never became {wanted:?}"));
}

#[tokio::test]
async fn a_redis_outage_is_unavailable_within_the_client_deadline_and_not_serving_until_it_returns()
{
    let mut ludus = Ludus::start().await;
    let (game, mut x, _o) = quick_match_pair(&ludus, ["xan", "olu"], caro_settings()).await;
    x.play(&game, "H8").await.expect("a move while Redis is up");
    health_becomes(&ludus, ServingStatus::Serving).await;

    let port = ludus.kill_redis();
    // The first call finds the connection broken and starts a reconnection; the next ones
    // arrive while it runs (with the client's default backoff they waited 8-9 s for it).
    for _ in 0..3 {
        let mut request = tonic::Request::new(pb::GetGameRequest {
            game_id: game.clone(),
        });
        request.set_timeout(CLIENT_DEADLINE);
        let err = x
            .client
            .get_game(request)
            .await
            .expect_err("the store is down");
        // Not DEADLINE_EXCEEDED: the client hears "retry" while it is still listening.
        assert_eq!(err.code(), Code::Unavailable, "{err:?}");
    }
    health_becomes(&ludus, ServingStatus::NotServing).await;

    // An empty Redis comes back on the same port: the services reconnect by themselves.
    ludus.restart_redis(port);
    health_becomes(&ludus, ServingStatus::Serving).await;
    let (game, mut x, mut o) = quick_match_pair(&ludus, ["xia", "oma"], caro_settings()).await;
    x.play(&game, "H8").await.expect("play resumes");
    o.play(&game, "H9").await.expect("play resumes");
    ludus.shutdown().await;
}
