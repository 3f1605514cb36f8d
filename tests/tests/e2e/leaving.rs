//! Players who leave FindMatch are never seated (issue 16): whenever the stream goes, even
//! while Enqueue is still in flight, the ticket goes with it.

use std::time::Duration;

use ludus_proto::pb;
use ludus_rules::{RandomSource, SplitMix64};
use ludus_tests::{Ludus, PATIENCE};

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
        let patience = Duration::from_micros(u64::from(jitter.below(3_000)));
        let _ = tokio::time::timeout(
            patience,
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
        tokio::time::timeout(PATIENCE, gone)
            .await
            .unwrap_or_else(|_| {
                panic!("leaver {i} (left after {patience:?}) still has a queued ticket")
            });
    }
    ludus.shutdown().await;
}
