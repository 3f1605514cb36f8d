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
