//! A page of the event log says whether more may follow, so a reader (the gateway's resumable
//! streams) pages on without knowing game-state's page size.

mod support;

use ludus_proto::pb;
use support::{player, service_with_caro_game};

#[tokio::test]
async fn a_page_cut_at_its_limit_says_more_may_follow_and_the_last_page_says_none() {
    let service = service_with_caro_game("g1").await;
    service.offer_draw(player("g1", "x")).await.expect("offer");
    let read = |after_seq, limit| {
        service.read_events(pb::ReadEventsRequest {
            game_id: "g1".to_owned(),
            after_seq,
            limit,
        })
    };
    let first = read(0, 1).await.expect("first page");
    assert_eq!(first.events.len(), 1);
    assert!(first.more, "a page cut at its limit");
    let rest = read(first.events[0].seq, 0).await.expect("the rest");
    assert!(!rest.events.is_empty(), "the draw offer follows");
    assert!(!rest.more, "the log ended inside the page");
    assert_eq!(rest.events.last().map(|e| e.seq), Some(rest.last_seq));
}

/// A snapshot without its position (what the gateway asks before opening a stream) still
/// names the game's seq, status and the viewer's seat, and leaves out the view and the legal
/// actions a seated player to move would get (C1, C2, C3: X first, any of 225 empty cells).
#[tokio::test]
async fn a_snapshot_without_its_position_keeps_the_seq_status_and_seat() {
    let service = service_with_caro_game("g1").await;
    let snapshot = |omit_position| {
        service.get_snapshot(pb::GetSnapshotRequest {
            game_id: "g1".to_owned(),
            viewer_player_id: "x".to_owned(),
            omit_position,
        })
    };
    let full = snapshot(false).await.expect("full snapshot");
    assert_eq!(
        full.legal_actions.len(),
        225,
        "X to move on an empty 15x15 board"
    );
    assert!(full.view.is_some());
    let brief = snapshot(true).await.expect("snapshot without the position");
    assert!(
        brief.view.is_none() && brief.legal_actions.is_empty(),
        "{brief:?}"
    );
    assert_eq!(
        (brief.seq, brief.status, brief.your_seat, brief.game_id),
        (full.seq, full.status, full.your_seat, full.game_id)
    );
    assert_eq!(brief.seats, full.seats);
}
