//! Players who leave FindMatch are never seated (ARCHITECTURE.md, "Matchmaking"): whenever the stream goes, even
//! while Enqueue is still in flight, the ticket goes with it.

use std::time::Duration;

use ludus_proto::pb;
use ludus_rules::{RandomSource, SplitMix64};
use ludus_tests::{Ludus, patience};

/// A four-player Quoridor queue: one leaver at a time never fills a table, so a ticket that
/// stays behind is a ticket nobody cancelled, not one that was matched.
fn four_player_quoridor() -> pb::GameSettings {
    pb::GameSettings {
        options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
            players: 4,
            ..Default::default()
        })),
        turn_time_ms: 0,
    }
}

#[tokio::test]
async fn a_player_who_leaves_find_match_at_any_moment_leaves_no_ticket_behind() {
    let ludus = Ludus::start().await;
    let mut jitter = SplitMix64(16);
    for i in 0..40 {
        let mut leaver = ludus.player(&format!("leaver{i}")).await;
        // Gone after 0-3 ms: before the call arrives, while Enqueue or WatchTicket is in
        // flight, or once the stream is open.
        let stayed = Duration::from_micros(u64::from(jitter.below(3_000)));
        let _ = tokio::time::timeout(
            stayed,
            leaver.client.find_match(pb::FindMatchRequest {
                settings: Some(four_player_quoridor()),
                ranking: pb::MatchRanking::Default as i32,
            }),
        )
        .await;
        let gone = async {
            while ludus.live_ticket(&leaver).await.is_some() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::time::timeout(patience(), gone)
            .await
            .unwrap_or_else(|_| {
                panic!("leaver {i} (left after {stayed:?}) still has a queued ticket")
            });
    }
    ludus.shutdown().await;
}

#[tokio::test]
async fn a_seated_player_flapping_subscribe_cannot_flood_the_game_log() {
    let ludus = Ludus::start().await;
    let (game, mut x, _o) =
        ludus_tests::quick_match_pair(&ludus, ["xan", "olu"], ludus_tests::caro_settings()).await;
    let before = x.game(&game).await.seq;
    let mut refused = 0;
    for _ in 0..30 {
        let opened = x
            .client
            .subscribe(pb::SubscribeRequest {
                game_id: game.clone(),
                after_seq: before,
            })
            .await;
        match opened {
            Ok(stream) => drop(stream),
            Err(status) => {
                assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}");
                refused += 1;
            }
        }
    }
    // Regression: 150 flaps added 299 presence events, each sent to every watcher.
    assert!(
        refused >= 30 - 12,
        "only a dozen opens a minute get through: {refused}"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    let grew = x.game(&game).await.seq - before;
    assert!(grew <= 2 * 12, "the log grew by {grew} presence events");
    // Spectators are not seated: their streams log nothing and are not limited this way.
    let mut watcher = ludus.player("watcher").await;
    for _ in 0..20 {
        drop(watcher.subscribe(&game, 0).await);
    }
    ludus.shutdown().await;
}

/// The first update of a FindMatch stream.
async fn first_update(player: &mut ludus_tests::Player) -> pb::FindMatchUpdate {
    let mut updates = player
        .queue(ludus_tests::caro_settings(), pb::MatchRanking::Default)
        .await
        .expect("find match");
    tokio::time::timeout(patience(), tokio_stream::StreamExt::next(&mut updates))
        .await
        .expect("an update in time")
        .expect("the stream is open")
        .expect("an update")
}

/// A client whose FindMatch stream broke after its ticket was matched (the soak saw a
/// gateway answer a retryable error then) asks again: it must land in the game its opponent
/// already sits in, not queue a ticket nobody meets while the opponent's clock runs (ARCHITECTURE.md, "Matchmaking").
/// Once that game is over, FindMatch queues a ticket as usual.
#[tokio::test]
async fn find_match_again_after_a_match_lands_in_the_game_in_progress() {
    let ludus = Ludus::start().await;
    let [mut x, mut o] = ludus.players(["xavier", "olga"]).await;
    let (x_updates, o_updates) = tokio::join!(
        x.queue(ludus_tests::caro_settings(), pb::MatchRanking::Default),
        o.queue(ludus_tests::caro_settings(), pb::MatchRanking::Default),
    );
    let ((game_id, x_seat), (o_game, _)) = tokio::join!(
        ludus_tests::matched(x_updates.expect("x queues")),
        ludus_tests::matched(o_updates.expect("o queues")),
    );
    assert_eq!(game_id, o_game);

    let again = first_update(&mut x).await;
    assert_eq!(again.state, pb::TicketState::Matched as i32, "{again:?}");
    assert_eq!(
        again.game_id, game_id,
        "the game in progress, not a new one"
    );
    assert_eq!(again.seat, x_seat);
    assert!(
        again.ticket_id.is_empty(),
        "no ticket was queued: {again:?}"
    );
    assert!(ludus.live_ticket(&x).await.is_none(), "nothing left queued");

    x.resign(&game_id).await.expect("resign");
    let after = first_update(&mut x).await;
    assert_eq!(after.state, pb::TicketState::Queued as i32, "{after:?}");
    assert!(!after.ticket_id.is_empty());
    ludus.shutdown().await;
}
