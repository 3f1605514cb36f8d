//! Ticket notices: one subscription per replica to the store's settled-ticket notices wakes
//! this replica's watches of those tickets, so a waiting ticket costs Redis nothing until it
//! settles (a watch used to re-read its ticket every 50 ms: 20 reads a second per waiting
//! player).
//!
//! A notice is a hint, never the truth: the woken watch re-reads its ticket. The matcher
//! publishes a table's tickets only after `CreateGame` succeeded, so a notice also tells the
//! watch that the game exists. A missed notice (Redis reconnect, a matcher that died before
//! publishing) costs latency only: a lag wakes every watch, and each watch still re-reads its
//! ticket every [`WATCH_FALLBACK_POLL`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use ludus_proto::pb;
use ludus_store::{FeedError, QueueStore, SettledSubscription, TicketNotice, TicketProposal};
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;
use tonic::Status;

/// How often a watch re-reads its ticket when no notice woke it: the bound on a missed
/// notice's cost, and how soon a watch finishes a game whose matcher died.
pub const WATCH_FALLBACK_POLL: Duration = Duration::from_secs(1);

/// Wait before subscribing again after the notice subscription closed.
const RESUBSCRIBE_DELAY: Duration = Duration::from_millis(200);

/// This replica's watched tickets, woken by notices.
#[derive(Clone, Debug, Default)]
pub struct TicketNotices {
    inner: Arc<Inner>,
}

/// ticket id -> its open watches (registration id, waiter).
type Watches = HashMap<String, Vec<(u64, Arc<Waiter>)>>;

#[derive(Debug, Default)]
struct Inner {
    watches: Mutex<Watches>,
    next_id: AtomicU64,
}

/// What a watch sends its stream (the gateway's QueueAndWatch or WatchTicket stream).
pub type WatchSender = mpsc::Sender<WatchItem>;

/// One item of a watch's stream.
type WatchItem = Result<pb::TicketUpdate, Status>;

#[derive(Debug, Default)]
struct Waiter {
    /// The watch's stream, once it has one: open while the caller holds it, which for a
    /// caller that confirms presence is exactly while its player waits.
    stream: OnceLock<mpsc::WeakSender<WatchItem>>,
    notify: Notify,
    /// A notice named this ticket: if it is matched, its game exists.
    game_created: AtomicBool,
    /// The latest proposal a notice named for this ticket, not yet taken.
    proposed_into: Mutex<Option<TicketProposal>>,
    /// The table this replica's matcher seated the ticket at, its game created, not yet
    /// taken ([`TicketNotices::matched`]).
    matched_into: Mutex<Option<TicketProposal>>,
}

/// One watch's place in [`TicketNotices`]; dropping it unregisters the watch.
#[derive(Debug)]
pub struct Registration {
    notices: TicketNotices,
    ticket_id: String,
    id: u64,
    waiter: Arc<Waiter>,
}

impl Registration {
    /// Completes at the next notice for this ticket (or a lag), or at once if one came since
    /// the last call: a notice between a read and this wait is not lost.
    pub async fn notified(&self) {
        self.waiter.notify.notified().await;
    }

    /// Says which stream the watch sends to: while it is open, the ticket's player counts as
    /// present for this replica's matcher ([`TicketNotices::present`]).
    pub fn sends_to(&self, stream: &WatchSender) {
        let _ = self.waiter.stream.set(stream.downgrade());
    }

    /// The table this replica's matcher seated the ticket at since the last call, its game
    /// created: what re-reading the ticket would say, known without the read.
    pub fn take_match(&self) -> Option<TicketProposal> {
        self.waiter
            .matched_into
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Whether a notice named this ticket: a matched ticket's game then exists.
    pub fn game_created(&self) -> bool {
        self.waiter.game_created.load(Ordering::Acquire)
    }

    /// The proposal a notice named for this ticket since the last call, if any: a hint,
    /// which a confirmation checks against the store.
    pub fn take_proposal(&self) -> Option<TicketProposal> {
        self.waiter
            .proposed_into
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut watches = self.notices.lock();
        if let Some(list) = watches.get_mut(&self.ticket_id) {
            list.retain(|(id, _)| *id != self.id);
            if list.is_empty() {
                watches.remove(&self.ticket_id);
            }
        }
    }
}

impl TicketNotices {
    fn lock(&self) -> std::sync::MutexGuard<'_, Watches> {
        // A poisoned lock only means a holder panicked: the map is still consistent.
        self.inner
            .watches
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a watch of `ticket_id`. Register before reading the ticket, so that a notice
    /// published after the read wakes the watch.
    pub fn register(&self, ticket_id: &str) -> Registration {
        let waiter = Arc::new(Waiter::default());
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        self.lock()
            .entry(ticket_id.to_owned())
            .or_default()
            .push((id, waiter.clone()));
        Registration {
            notices: self.clone(),
            ticket_id: ticket_id.to_owned(),
            id,
            waiter,
        }
    }

    /// Whether a watch of `ticket_id` on this replica has its stream open: what the watch's
    /// confirmation of a proposed seat checks ([`crate::matcher::Matcher::confirm`]), so the
    /// matcher counts such a seat as confirmed when it proposes the table, and a table of
    /// seats all watched here is matched without a confirmation round (ARCHITECTURE.md,
    /// Matchmaking).
    pub fn present(&self, ticket_id: &str) -> bool {
        self.lock().get(ticket_id).is_some_and(|watches| {
            watches.iter().any(|(_, waiter)| {
                waiter
                    .stream
                    .get()
                    .and_then(mpsc::WeakSender::upgrade)
                    .is_some_and(|stream| !stream.is_closed())
            })
        })
    }

    /// Tells this replica's watches of `ticket_id` that their ticket is matched into
    /// `table`, whose game now exists, and wakes them: the matcher that claimed the table
    /// knows what the watch would re-read, and the watch need not wait for the settled notice
    /// to come back from the store (which still reaches the other replicas' watches).
    pub fn matched(&self, ticket_id: &str, table: &TicketProposal) {
        for (_, waiter) in self.lock().get(ticket_id).into_iter().flatten() {
            *waiter
                .matched_into
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(table.clone());
            waiter.game_created.store(true, Ordering::Release);
            waiter.notify.notify_one();
        }
    }

    /// How many watches are registered (for tests).
    pub fn watching(&self) -> usize {
        self.lock().values().map(Vec::len).sum()
    }

    fn wake(&self, notice: &TicketNotice) {
        let watches = self.lock();
        for id in &notice.settled {
            for (_, waiter) in watches.get(id).into_iter().flatten() {
                waiter.game_created.store(true, Ordering::Release);
                waiter.notify.notify_one();
            }
        }
        // Proposed or back in the queue: nothing said about a game.
        for change in &notice.changed {
            for (_, waiter) in watches.get(&change.ticket_id).into_iter().flatten() {
                *waiter
                    .proposed_into
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = change.proposed_into.clone();
                waiter.notify.notify_one();
            }
        }
    }

    fn wake_all(&self) {
        for (_, waiter) in self.lock().values().flatten() {
            waiter.notify.notify_one();
        }
    }

    /// Routes notices from `subscription` until `stop` is cancelled; subscribes again if the
    /// subscription closes (waking every watch, since notices may have been missed).
    pub async fn run(
        self,
        queues: QueueStore,
        mut subscription: SettledSubscription,
        stop: CancellationToken,
    ) {
        loop {
            let notice = tokio::select! {
                () = stop.cancelled() => return,
                notice = subscription.recv() => notice,
            };
            match notice {
                Ok(notice) => self.wake(&notice),
                Err(FeedError::Lagged(_)) => self.wake_all(),
                Err(FeedError::Closed) => {
                    self.wake_all();
                    loop {
                        tokio::select! {
                            () = stop.cancelled() => return,
                            () = tokio::time::sleep(RESUBSCRIBE_DELAY) => {}
                        }
                        match queues.subscribe_settled().await {
                            Ok(fresh) => {
                                subscription = fresh;
                                self.wake_all();
                                break;
                            }
                            Err(error) => {
                                tracing::warn!(%error, "ticket notices unavailable; watches poll");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ludus_store::TicketChange;

    #[tokio::test]
    async fn a_notice_before_the_wait_is_kept_and_marks_the_game_created() {
        let notices = TicketNotices::default();
        let watch = notices.register("t1");
        let other = notices.register("t2");
        notices.wake(&TicketNotice {
            settled: vec!["t1".to_owned()],
            changed: Vec::new(),
        });
        // The permit is stored: this completes at once.
        watch.notified().await;
        assert!(watch.game_created());
        assert!(!other.game_created());
    }

    #[tokio::test]
    async fn a_player_is_present_while_a_watch_of_their_ticket_has_its_stream_open() {
        let notices = TicketNotices::default();
        let watch = notices.register("t1");
        assert!(
            !notices.present("t1"),
            "a watch with no stream yet is nobody's presence"
        );
        let (stream, receiver) = mpsc::channel(1);
        watch.sends_to(&stream);
        assert!(notices.present("t1"));
        assert!(!notices.present("t2"), "another ticket");
        drop(receiver);
        assert!(!notices.present("t1"), "the caller closed the stream");

        let again = notices.register("t1");
        let (stream, _receiver) = mpsc::channel(1);
        again.sends_to(&stream);
        assert!(notices.present("t1"), "a second watch, its stream open");
        drop(stream);
        assert!(!notices.present("t1"), "the watch ended");
        drop((watch, again));
        assert!(!notices.present("t1"), "unregistered");
    }

    #[tokio::test]
    async fn the_matcher_hands_its_watches_the_table_and_wakes_them() {
        let notices = TicketNotices::default();
        let watch = notices.register("t1");
        let other = notices.register("t2");
        let table = TicketProposal {
            game_id: "g".to_owned(),
            seat: 0,
            table: vec!["t1".to_owned(), "t3".to_owned()],
        };
        notices.matched("t1", &table);
        assert!(
            futures::FutureExt::now_or_never(watch.notified()).is_some(),
            "the watch is woken"
        );
        assert!(watch.game_created(), "the matcher created the game first");
        assert_eq!(watch.take_match(), Some(table));
        assert_eq!(watch.take_match(), None, "taken once");
        assert_eq!(other.take_match(), None);
        assert!(!other.game_created());
    }

    #[tokio::test]
    async fn a_change_wakes_its_watch_without_claiming_a_game() {
        let notices = TicketNotices::default();
        let watch = notices.register("t1");
        notices.wake(&TicketNotice {
            settled: Vec::new(),
            changed: vec![TicketChange {
                ticket_id: "t1".to_owned(),
                proposed_into: Some(TicketProposal {
                    game_id: "g".to_owned(),
                    seat: 1,
                    table: vec!["t0".to_owned(), "t1".to_owned()],
                }),
            }],
        });
        watch.notified().await;
        assert!(!watch.game_created());
        assert_eq!(watch.take_proposal().map(|p| p.seat), Some(1));
        assert_eq!(watch.take_proposal(), None, "taken once");
    }

    #[tokio::test]
    async fn a_lag_wakes_every_watch_without_claiming_a_game() {
        let notices = TicketNotices::default();
        let a = notices.register("t1");
        let b = notices.register("t2");
        notices.wake_all();
        a.notified().await;
        b.notified().await;
        assert!(!a.game_created() && !b.game_created());
    }

    #[test]
    fn dropping_a_registration_unregisters_it() {
        let notices = TicketNotices::default();
        let a = notices.register("t1");
        let b = notices.register("t1");
        assert_eq!(notices.watching(), 2);
        drop(a);
        assert_eq!(notices.watching(), 1);
        drop(b);
        assert_eq!(notices.watching(), 0);
    }
}
