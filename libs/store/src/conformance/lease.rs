//! The gateways' stream leases ([`crate::StreamLeases`]).

use crate::{Backend, HeldStream, StreamLeases};

/// A holder's streams are counted per (game, player); a lease that ran out is taken once, with
/// its streams, and a renewal afterwards reports the holder as new (ARCHITECTURE.md, "Disconnection (presence)").
pub async fn stream_leases_lapse_and_are_taken_once(backend: Backend) {
    let leases = StreamLeases::new(backend);
    assert!(
        leases.renew("gw1", 1_000).await.expect("renew"),
        "new holder"
    );
    assert!(
        !leases.renew("gw1", 2_000).await.expect("renew"),
        "known holder"
    );
    assert!(leases.renew("gw2", 5_000).await.expect("renew"));
    for _ in 0..2 {
        leases.hold("gw1", "g", "ann").await.expect("hold");
    }
    leases.hold("gw1", "g", "bob").await.expect("hold");
    leases.hold("gw1", "h", "ann").await.expect("hold");
    leases.release("gw1", "h", "ann").await.expect("release");
    leases.hold("gw2", "g", "cid").await.expect("hold");
    assert!(leases.lapsed(1_999, 10).await.expect("lapsed").is_empty());
    assert_eq!(leases.lapsed(2_000, 10).await.expect("lapsed"), vec!["gw1"]);
    assert_eq!(
        leases.take_lapsed("gw2", 2_000).await.expect("take"),
        None,
        "a live lease is not taken"
    );
    let mut taken = leases
        .take_lapsed("gw1", 2_000)
        .await
        .expect("take")
        .expect("a lapsed lease is taken");
    taken.sort_by(|a, b| (&a.game_id, &a.player_id).cmp(&(&b.game_id, &b.player_id)));
    let held = |game: &str, player: &str, streams| HeldStream {
        game_id: game.into(),
        player_id: player.into(),
        streams,
    };
    assert_eq!(taken, vec![held("g", "ann", 2), held("g", "bob", 1)]);
    assert_eq!(
        leases.take_lapsed("gw1", 2_000).await.expect("take"),
        None,
        "taken once"
    );
    assert!(leases.lapsed(3_000, 10).await.expect("lapsed").is_empty());
    assert!(
        leases.renew("gw1", 9_000).await.expect("renew"),
        "a holder whose lease was taken is told so"
    );
}
