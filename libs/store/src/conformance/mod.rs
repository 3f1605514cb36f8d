//! The behaviour every backend must show. Each property is a `pub async fn` taking a fresh,
//! empty [`Backend`] and panicking on a violation; [`run_all`] runs them all.
//!
//! Memory: `ludus_store::conformance_tests!(async { Backend::memory() })` expands into one
//! `#[tokio::test]` per property. Redis: start a [`crate::testing::RedisServer`] and call
//! [`run_all`] with a closure that returns a backend with a fresh key prefix (see
//! `tests/redis_conformance.rs`).
//!
//! Panicking is the point here, so `expect` is used on every store call.

use std::future::Future;
use std::time::Duration;

use crate::{
    Backend, Commit, CommitRefusal, Committed, FeedError, FeedSubscription, GameStore, StoredEvent,
};

mod feed;
mod game;
mod lease;
mod queue;
mod rating;
mod room;
mod timer;

pub use feed::*;
pub use game::*;
pub use lease::*;
pub use queue::*;
pub use rating::*;
pub use room::*;
pub use timer::*;

/// A bound on waiting for a live event, so a broken feed fails instead of hanging.
const RECV_BOUND: Duration = Duration::from_secs(5);
/// How many callers race in the concurrency properties.
const RACERS: usize = 16;

macro_rules! properties {
    ($($name:ident),* $(,)?) => {
        /// The property names, in the order [`run_all`] runs them.
        pub const NAMES: &[&str] = &[$(stringify!($name)),*];

        /// Runs every property, each on a fresh backend from `fresh`.
        pub async fn run_all<F, Fut>(mut fresh: F)
        where
            F: FnMut() -> Fut,
            Fut: Future<Output = Backend>,
        {
            $( $name(fresh().await).await; )*
        }

        /// Expands into one `#[tokio::test]` per conformance property; `$fresh` is an
        /// expression evaluated per test to a future of a fresh [`Backend`].
        #[macro_export]
        macro_rules! conformance_tests {
            ($fresh:expr) => {
                $(
                    #[tokio::test]
                    async fn $name() {
                        $crate::conformance::$name($fresh.await).await;
                    }
                )*
            };
        }
    };
}

properties!(
    room_codes_are_unique_among_live_rooms,
    room_commits_compare_and_set_and_publish,
    room_log_is_apart_from_a_game_with_the_same_id,
    room_lobby_lists_public_rooms,
    room_empty_room_expires_unless_kept,
    game_create_and_load,
    game_commit_compare_and_set,
    game_duplicate_action_returns_original_seq,
    game_concurrent_commits_one_wins,
    game_commit_writes_its_timers,
    game_versions_name_one_state,
    game_events_after_order_and_limit,
    game_live_set,
    game_presence_counts,
    stream_leases_lapse_and_are_taken_once,
    game_finish_forgets_the_game_after_its_retention,
    game_player_index,
    feed_subscribers_share_one_channel,
    feed_event_right_after_subscribe_is_received,
    feed_games_are_separate,
    feed_lagging_subscriber_sees_lagged,
    feed_resubscribe_after_drop,
    timer_arm_get_cancel,
    timer_counts_armed_and_due,
    timer_claim_order_limit_and_ack,
    timer_unacked_claim_comes_due_again,
    timer_rearm_during_claim_defeats_ack,
    timer_concurrent_claims_take_each_once,
    queue_enqueue_and_list,
    queue_one_live_ticket_per_player,
    queue_enqueue_leased_writes_the_lease_with_the_ticket,
    queue_concurrent_enqueues_of_one_player_queue_one,
    queue_take_all_or_nothing,
    queue_concurrent_overlapping_takes,
    queue_take_tables_each_table_alone,
    queue_concurrent_batched_takes_never_match_twice,
    queue_lease_is_exclusive_until_it_lapses,
    queue_settled_notices_reach_subscribers,
    queue_cancel,
    queue_proposal_matches_once_every_seat_confirmed,
    queue_cancelled_proposal_sends_the_others_to_the_front,
    queue_expired_proposal_requeues_every_ticket,
    queue_seats_seen_present_are_confirmed_at_that_time,
    queue_concurrent_confirms_and_cancels_seat_nobody_twice,
    rating_record_and_get,
    rating_record_twice_is_already_recorded,
    rating_version_conflict,
    rating_unrated_and_results,
    rating_top_order_and_paging,
    rating_batch_records_in_order_and_stops,
);

/// Runs every property on one Redis (a node or a cluster), each on the backend `connect`
/// gives for its own key prefix (`c0:`, `c1:`, …), and checks that every property ran.
pub async fn run_all_prefixed<F, Fut>(mut connect: F)
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Backend>,
{
    let mut next = 0;
    run_all(|| {
        let prefix = format!("c{next}:");
        next += 1;
        connect(prefix)
    })
    .await;
    assert_eq!(next, NAMES.len());
}

fn commit<'a>(expected_seq: u64, action_id: Option<&'a str>, body: &'a [u8]) -> Commit<'a> {
    Commit {
        expected_seq,
        action_id,
        state: body,
        event: body,
        version: None,
        expected_version: None,
    }
}

/// Commits `body` (as state and event) to game `id` at `expected_seq`: the store answers,
/// and the answer may be a refusal.
async fn try_commit(
    games: &GameStore,
    id: &str,
    expected_seq: u64,
    action_id: Option<&str>,
    body: &[u8],
) -> Result<Committed, CommitRefusal> {
    games
        .commit(id, commit(expected_seq, action_id, body))
        .await
        .expect("commit")
}

/// [`try_commit`] where the commit must land.
async fn commit_lands(
    games: &GameStore,
    id: &str,
    expected_seq: u64,
    action_id: Option<&str>,
    body: &[u8],
) -> Committed {
    try_commit(games, id, expected_seq, action_id, body)
        .await
        .expect("the commit lands")
}

async fn recv(sub: &mut FeedSubscription) -> Result<StoredEvent, FeedError> {
    tokio::time::timeout(RECV_BOUND, sub.recv())
        .await
        .expect("no live event within the bound")
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}
