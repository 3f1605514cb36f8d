//! [`QueueStore`]: matchmaking tickets. Any number of matchmaker replicas may race: `take`
//! matches a set of tickets all-or-nothing, so a ticket is matched at most once, and a player
//! holds at most one queued ticket across all queues.
//!
//! # Keys on a Redis Cluster
//! Each queue is its own hash tag (`{mm:QUEUE}`: its zset, tickets and matching lease), so
//! queues spread over the masters and every queue script touches one slot. A player's live
//! ticket index is in the player's own slot (`{mm-player:PID}`), so no script can check it
//! and write a ticket at once. [`QueueStore::enqueue`] keeps one queued ticket per player
//! with a two-step protocol instead:
//!
//! 1. The index is moved to the new ticket only by compare-and-set, and only away from a
//!    ticket that is final (matched or cancelled; a ticket never returns to queued). A ticket
//!    the index names that does not exist (its enqueue crashed, or is still under way) is
//!    first made final: a cancelled tombstone is written under its id, where it would be.
//! 2. Only then is the ticket written, by a script that writes nothing when a ticket with
//!    that id exists: an enqueue whose ticket was tombstoned meanwhile writes nothing.
//!
//! The first compare-and-set guesses that the index is empty (a player with no ticket, or
//! whose last one was matched or cancelled and released: most enqueues) instead of reading
//! it; a wrong guess moves nothing, and the enqueue then reads the index and goes on as
//! above.
//!
//! So a ticket becomes queued only while the index names it, and the index leaves it only
//! once it is final: two queued tickets of one player cannot exist at once. The index is
//! deleted (compare-and-delete) after its ticket is matched or cancelled; one left behind by
//! a crash names a final ticket, which the next enqueue replaces, and
//! [`QueueStore::live_ticket`] checks the ticket's status rather than trust it.
//!
//! The set of queue names (`{mm}:queues`) is its own slot too: an enqueue adds the name after
//! its ticket is in the zset, and a take or cancel that empties a queue removes the name,
//! then looks at the zset again and adds the name back if a ticket arrived meanwhile, so a
//! queue holding tickets is never left out. A queue with a proposal pending counts as holding
//! tickets (its matcher must see the proposal expire).
//!
//! # Proposals (the confirm step)
//! [`QueueStore::propose_tables`] takes a table's tickets out of the queue as a *proposal*
//! (`proposed`, with the game, seat and table, and a deadline in `{mm:QUEUE}:proposals`)
//! instead of matching them, unless every ticket counts as confirmed from the start. Each
//! ticket is then confirmed by whoever holds its player's stream
//! ([`QueueStore::confirm`]); the confirmation that completes the table turns every ticket
//! `matched`, in the same script. A proposed ticket that is cancelled takes the proposal
//! down with it: the others go back to queued with their `created` score, so at the front of
//! their queue with their waiting time kept; a proposal past its deadline goes down the same
//! way ([`QueueStore::expire_proposals`]) with every ticket requeued. Everything a proposal
//! touches is in its queue's slot; a proposed ticket is live for its player (the index keeps
//! naming it), and out of the queue's zset, so it is in one proposal at most.

//!
//! This file holds the public types and one dispatch per call; the keys, scripts and
//! protocols on Redis are in `redis.rs`, the in-memory model in `memory.rs`.

use std::time::Duration;

use crate::backend::{Backend, StoreError, dispatch};
use crate::feed::{FeedError, FeedSubscription, Topic, subscribe};

mod memory;
mod redis;

pub(crate) use memory::QueuesMem;

/// One table to claim with [`QueueStore::take_tables`]: its game and its tickets in seat
/// order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableClaim {
    /// The game the table will play, chosen before the claim.
    pub game_id: String,
    /// The tickets, in seat order.
    pub ticket_ids: Vec<String>,
}

/// One table to propose with [`QueueStore::propose_tables`]: a [`TableClaim`] whose tickets
/// may each count as confirmed from the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableProposal {
    /// The game and the tickets in seat order.
    pub claim: TableClaim,
    /// Per ticket (same order): whether its seat waits for [`QueueStore::confirm`].
    pub confirmed: Vec<SeatConfirmation>,
}

/// How a seat of a proposed table stands when the table is proposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatConfirmation {
    /// Waits for [`QueueStore::confirm`].
    Pending,
    /// Counts as confirmed, and nobody will confirm it: a ticket queued by a caller that does
    /// not confirm presence ([`QueueStore::confirmed_at`] says `None`).
    FromStart,
    /// Confirmed by the proposer itself, which saw its player present at this time (Unix
    /// ms): what [`QueueStore::confirm`] at that time would have recorded.
    PresentAt(u64),
}

impl SeatConfirmation {
    /// Whether the seat counts as confirmed.
    pub fn confirmed(self) -> bool {
        self != SeatConfirmation::Pending
    }
}

/// What [`QueueStore::propose_tables`] did with one table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableOutcome {
    /// Not taken: a ticket was no longer queued (nothing changed).
    Lost,
    /// Proposed: its tickets wait for their confirmations.
    Proposed,
    /// Every ticket counted as confirmed: matched at once.
    Matched,
}

/// What [`QueueStore::confirm`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmation {
    /// Confirmed; other seats of the table are still to confirm.
    Waiting,
    /// This confirmation completed the table: every ticket of it is now matched. The caller
    /// creates the game.
    Complete {
        /// The table's tickets in seat order, as they now stand (matched).
        tickets: Vec<Ticket>,
    },
    /// The ticket is not (or no longer) proposed into that game: it as it now stands, if it
    /// exists and is the player's.
    NotProposed(Option<Ticket>),
}

/// How long a matched or cancelled ticket stays readable.
pub const FINISHED_TICKET_TTL_SECS: u64 = 3600;

/// A matchmaking ticket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    /// Unique id (per queue) chosen by the caller.
    pub ticket_id: String,
    /// The queue, e.g. one per (game, rule set).
    pub queue: String,
    /// Who is waiting.
    pub player_id: String,
    /// Opaque data for the matcher (JSON: name, rating).
    pub payload: Vec<u8>,
    /// When it was queued (Unix ms); queues are served oldest first.
    pub created_ms: u64,
    /// Where it stands.
    pub status: TicketStatus,
}

/// Where a ticket stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TicketStatus {
    /// Waiting in its queue.
    Queued,
    /// Matched into a game at a seat.
    Matched {
        /// The game it was matched into.
        game_id: String,
        /// Its seat: its position in the slice given to [`QueueStore::take`].
        seat: u32,
        /// Every ticket of the game in seat order (the slice given to [`QueueStore::take`]),
        /// so whoever reads one ticket can finish setting the game up if the matcher could
        /// not.
        table: Vec<String>,
    },
    /// Taken out of the queue into a proposed table (see the module docs), waiting for every
    /// seat's confirmation; goes on to Matched, or back to Queued (Cancelled if cancelled).
    Proposed {
        /// The game the table would play.
        game_id: String,
        /// Its seat at that table.
        seat: u32,
        /// Every ticket of the table in seat order.
        table: Vec<String>,
        /// Whether its own confirmation is in.
        confirmed: bool,
    },
    /// Cancelled by its player before it was matched.
    Cancelled,
}

impl TicketProposal {
    /// `ticket` as proposed into this table, its seat not confirmed yet (what a
    /// [`TicketChange`] says of it), for [`QueueStore::confirm_read`].
    pub fn of(&self, ticket: &Ticket) -> Ticket {
        Ticket {
            status: TicketStatus::Proposed {
                game_id: self.game_id.clone(),
                seat: self.seat,
                table: self.table.clone(),
                confirmed: false,
            },
            ..ticket.clone()
        }
    }
}

impl TicketStatus {
    /// Queued or proposed: the ticket may still become a game, and is its player's one live
    /// ticket.
    pub fn is_live(&self) -> bool {
        matches!(self, TicketStatus::Queued | TicketStatus::Proposed { .. })
    }
}

/// What [`QueueStore::enqueue`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnqueueOutcome {
    /// The ticket is queued.
    Queued,
    /// Nothing written: the player already holds this queued ticket (or, after a retried
    /// enqueue, a ticket with this id exists already; read it with [`QueueStore::ticket`]).
    AlreadyQueued {
        /// The existing ticket.
        ticket_id: String,
    },
}

/// Matchmaking queues. See the crate docs for the Redis keys.
#[derive(Debug, Clone)]
pub struct QueueStore {
    backend: Backend,
}

impl QueueStore {
    /// A queue store over `backend`.
    pub fn new(backend: Backend) -> Self {
        QueueStore { backend }
    }

    /// Queues the ticket (its `status` is ignored: it is stored as Queued). At most one
    /// queued ticket per player across all queues; an existing ticket id is never
    /// overwritten, so a retried enqueue cannot re-queue a matched ticket.
    pub async fn enqueue(&self, ticket: &Ticket) -> Result<EnqueueOutcome, StoreError> {
        dispatch!(self.backend, enqueue(ticket, None))
    }

    /// [`QueueStore::enqueue`] with the ticket's lease running to `alive_until_ms` from the
    /// start: what [`QueueStore::keep_alive`] right after it would do, in the same write (one
    /// round trip fewer per ticket). An `AlreadyQueued` outcome writes no lease: renew the
    /// existing ticket's with `keep_alive`.
    pub async fn enqueue_leased(
        &self,
        ticket: &Ticket,
        alive_until_ms: u64,
    ) -> Result<EnqueueOutcome, StoreError> {
        dispatch!(self.backend, enqueue(ticket, Some(alive_until_ms)))
    }

    /// Queued tickets of `queue`, oldest first (ties by id), at most `limit`.
    pub async fn queued(&self, queue: &str, limit: usize) -> Result<Vec<Ticket>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        dispatch!(self.backend, queued(queue, limit))
    }

    /// Extends the lease of a queued ticket to `until_ms` (Unix ms, system time: it says a
    /// process still waits on the ticket). A watch renews it while its FindMatch stream lives;
    /// the matcher drops a ticket whose lease ran out ([`QueueStore::lease_ends`]) instead of
    /// seating a player nobody waits for (ARCHITECTURE.md, "Matchmaking"). `Ok(false)` when the ticket is not live
    /// (queued or proposed).
    pub async fn keep_alive(
        &self,
        queue: &str,
        ticket_id: &str,
        until_ms: u64,
    ) -> Result<bool, StoreError> {
        dispatch!(self.backend, keep_alive(queue, ticket_id, until_ms))
    }

    /// The lease end of each of `ticket_ids` (in `queue`), in order: `None` for a ticket that
    /// never had one (queued before leases existed: never dropped for it).
    pub async fn lease_ends(
        &self,
        queue: &str,
        ticket_ids: &[&str],
    ) -> Result<Vec<Option<u64>>, StoreError> {
        if ticket_ids.is_empty() {
            return Ok(Vec::new());
        }
        dispatch!(self.backend, lease_ends(queue, ticket_ids))
    }

    /// Names of the queues that hold queued tickets or pending proposals, sorted.
    pub async fn queues(&self) -> Result<Vec<String>, StoreError> {
        dispatch!(self.backend, queues())
    }

    /// Atomically: if every ticket is still queued in `queue`, marks each Matched into
    /// `game_id` at its position in `ticket_ids` (the seat), removes them from the queue and
    /// clears their players' live tickets, and returns true; otherwise changes nothing and
    /// returns false (also for an empty list or a repeated id).
    pub async fn take(
        &self,
        queue: &str,
        ticket_ids: &[String],
        game_id: &str,
    ) -> Result<bool, StoreError> {
        let claim = TableClaim {
            game_id: game_id.to_owned(),
            ticket_ids: ticket_ids.to_vec(),
        };
        Ok(self.take_tables(queue, &[claim]).await?.first() == Some(&true))
    }

    /// [`QueueStore::take`] for many tables in one atomic step (one round trip): each table
    /// is taken all-or-nothing on its own, in order, so a ticket is matched at most once even
    /// if it appears in two claims. Returns whether each table was taken. (A proposal whose
    /// every ticket counts as confirmed: see [`QueueStore::propose_tables`].)
    pub async fn take_tables(
        &self,
        queue: &str,
        tables: &[TableClaim],
    ) -> Result<Vec<bool>, StoreError> {
        let proposals: Vec<TableProposal> = tables
            .iter()
            .map(|claim| TableProposal {
                claim: claim.clone(),
                confirmed: vec![SeatConfirmation::FromStart; claim.ticket_ids.len()],
            })
            .collect();
        let outcomes = self.propose_tables(queue, &proposals, 0).await?;
        Ok(outcomes
            .into_iter()
            .map(|outcome| outcome == TableOutcome::Matched)
            .collect())
    }

    /// Takes each table's tickets out of `queue` in one atomic step (one round trip), each
    /// table all-or-nothing on its own, in order (a ticket is in one table at most, even if it
    /// appears in two): a table whose every ticket counts as confirmed is matched at once;
    /// any other is proposed until `deadline_ms` (Unix ms), its tickets waiting for
    /// [`QueueStore::confirm`] (see the module docs). Watches of proposed tickets are told
    /// ([`QueueStore::publish_changed`], best effort).
    pub async fn propose_tables(
        &self,
        queue: &str,
        tables: &[TableProposal],
        deadline_ms: u64,
    ) -> Result<Vec<TableOutcome>, StoreError> {
        // An empty table, a repeated id within one table or a flag per ticket missing is
        // refused without a look.
        let well_formed: Vec<bool> = tables
            .iter()
            .map(|t| {
                let ids = &t.claim.ticket_ids;
                let mut seen = std::collections::HashSet::new();
                !ids.is_empty()
                    && t.confirmed.len() == ids.len()
                    && ids.iter().all(|id| seen.insert(id))
            })
            .collect();
        let proposals: Vec<&TableProposal> = tables
            .iter()
            .zip(&well_formed)
            .filter_map(|(t, ok)| ok.then_some(t))
            .collect();
        if proposals.is_empty() {
            return Ok(vec![TableOutcome::Lost; tables.len()]);
        }
        let outcomes = dispatch!(self.backend, propose_tables(queue, &proposals, deadline_ms))?;
        // Each seat that waits for its confirmation is told its proposal, so its watch can
        // ask for it without reading the ticket; a seat confirmed from the start has nothing
        // to hear until its table is a game.
        let proposed: Vec<TicketChange> = proposals
            .iter()
            .zip(&outcomes)
            .filter(|(_, outcome)| **outcome == TableOutcome::Proposed)
            .flat_map(|(proposal, _)| {
                let claim = &proposal.claim;
                (0u32..)
                    .zip(claim.ticket_ids.iter().zip(&proposal.confirmed))
                    .filter(|(_, (_, confirmed))| !confirmed.confirmed())
                    .map(|(seat, (id, _))| TicketChange {
                        ticket_id: id.clone(),
                        proposed_into: Some(TicketProposal {
                            game_id: claim.game_id.clone(),
                            seat,
                            table: claim.ticket_ids.clone(),
                        }),
                    })
            })
            .collect();
        self.tell(queue, &proposed).await;
        let mut outcomes = outcomes.into_iter();
        Ok(well_formed
            .into_iter()
            .map(|ok| {
                if ok {
                    outcomes.next().unwrap_or(TableOutcome::Lost)
                } else {
                    TableOutcome::Lost
                }
            })
            .collect())
    }

    /// Confirms `ticket_id`'s seat in the pending proposal of `game_id` (its player is
    /// there to take the game) at `now_ms` (Unix ms; kept, see
    /// [`QueueStore::confirmed_at`]). The confirmation that completes the table matches every
    /// ticket of it, atomically. A ticket not proposed into that game (the proposal was taken
    /// down, completed or never was) changes nothing and is returned as it stands.
    pub async fn confirm(
        &self,
        queue: &str,
        ticket_id: &str,
        player_id: &str,
        game_id: &str,
        now_ms: u64,
    ) -> Result<Confirmation, StoreError> {
        let Some(ticket) = self.ticket(queue, ticket_id).await? else {
            return Ok(Confirmation::NotProposed(None));
        };
        if ticket.player_id != player_id {
            return Ok(Confirmation::NotProposed(None));
        }
        self.confirm_read(&ticket, game_id, now_ms).await
    }

    /// [`QueueStore::confirm`] of a ticket the caller has just read (and checked is its
    /// player's): one round trip fewer. The script checks the proposal again, so a ticket
    /// read before its proposal was taken down changes nothing.
    pub async fn confirm_read(
        &self,
        ticket: &Ticket,
        game_id: &str,
        now_ms: u64,
    ) -> Result<Confirmation, StoreError> {
        let (queue, ticket_id) = (ticket.queue.as_str(), ticket.ticket_id.as_str());
        let (seat, table) = match &ticket.status {
            TicketStatus::Proposed {
                game_id: proposed,
                seat,
                table,
                ..
            } if proposed == game_id => (*seat, table.clone()),
            _ => return Ok(Confirmation::NotProposed(Some(ticket.clone()))),
        };
        dispatch!(
            self.backend,
            confirm_seat(queue, ticket_id, seat, table, game_id, now_ms)
        )
    }

    /// Takes down every proposal of `queue` whose deadline (Unix ms) is before `now_ms`:
    /// nobody confirmed all of it in time (a player's gateway died, or a confirmation was
    /// lost with a replica). Every ticket of such a table goes back to queued at its own
    /// place, waiting time kept; a ticket nobody waits on is then dropped when its lease
    /// lapses. Returns the requeued ids (their watches are told, best effort).
    pub async fn expire_proposals(
        &self,
        queue: &str,
        now_ms: u64,
    ) -> Result<Vec<String>, StoreError> {
        let requeued = dispatch!(self.backend, expire_proposals(queue, now_ms))?;
        self.tell_changed(queue, &requeued).await;
        Ok(requeued)
    }

    /// Tells watches that these tickets changed (back in the queue).
    async fn tell_changed(&self, queue: &str, ticket_ids: &[String]) {
        let changes: Vec<TicketChange> = ticket_ids
            .iter()
            .map(|id| TicketChange {
                ticket_id: id.clone(),
                proposed_into: None,
            })
            .collect();
        self.tell(queue, &changes).await;
    }

    /// Tells watches of these changes ([`QueueStore::publish_changed`]); a failure is
    /// logged: watches re-read their tickets on their own within a second.
    async fn tell(&self, queue: &str, changes: &[TicketChange]) {
        if let Err(error) = self.publish_changed(changes).await {
            tracing::warn!(%error, queue, "ticket change notice not sent; watches see it when they poll");
        }
    }

    /// Takes or renews `holder`'s lease on matching `queue` for `ttl`; false while another
    /// holder's lease runs. The lease only spares replicas from racing for the same tickets:
    /// `take` alone keeps a ticket out of two games, so a lease that lapses mid-round (or two
    /// holders after a clock jump) wastes work and never matches a ticket twice.
    pub async fn lease_queue(
        &self,
        queue: &str,
        holder: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        dispatch!(self.backend, lease_queue(queue, holder, ttl))
    }

    /// Tells every replica's ticket watches that these tickets settled (their game exists, or
    /// they were cancelled), so a watch re-reads its ticket now instead of at its next poll.
    /// A notice is only a hint: a lost one delays an announcement, never changes it.
    pub async fn publish_settled(&self, ticket_ids: &[String]) -> Result<(), StoreError> {
        self.publish_notice(ticket_ids.join(",")).await
    }

    /// Tells every replica's ticket watches that these tickets changed without settling
    /// (proposed, or back to queued), so a watch re-reads its ticket now, or, told the
    /// proposal, asks for its confirmation at once. Unlike [`QueueStore::publish_settled`] it
    /// says nothing about a game existing. Each change goes out marked with
    /// [`CHANGED_MARK`], which no ticket id contains: a replica that knows only settled
    /// notices finds no watch under the marked id and ignores it.
    pub async fn publish_changed(&self, changes: &[TicketChange]) -> Result<(), StoreError> {
        let marked: Vec<String> = changes
            .iter()
            .map(|change| match &change.proposed_into {
                // Game ids and ticket ids are `[A-Za-z0-9_-]`: ':', '+' and ',' separate them.
                Some(p) => format!(
                    "{CHANGED_MARK}{}:{}:{}:{}",
                    change.ticket_id,
                    p.game_id,
                    p.seat,
                    p.table.join("+")
                ),
                None => format!("{CHANGED_MARK}{}", change.ticket_id),
            })
            .collect();
        self.publish_notice(marked.join(",")).await
    }

    async fn publish_notice(&self, payload: String) -> Result<(), StoreError> {
        if payload.is_empty() {
            return Ok(());
        }
        dispatch!(self.backend, publish_notice(payload))
    }

    /// Subscribes to [`QueueStore::publish_settled`] notices of every replica. When this
    /// returns the subscription is active.
    pub async fn subscribe_settled(&self) -> Result<SettledSubscription, StoreError> {
        Ok(SettledSubscription {
            inner: subscribe(&self.backend, Topic::Tickets).await?,
        })
    }

    /// Cancels the ticket if it is still queued. `None` if there is no such ticket or it is
    /// not `player_id`'s; otherwise the ticket as it now stands (Matched if a match won).
    pub async fn cancel(
        &self,
        ticket_id: &str,
        queue: &str,
        player_id: &str,
    ) -> Result<Option<Ticket>, StoreError> {
        let (after, requeued) = self.cancel_ticket(ticket_id, queue, player_id).await?;
        self.tell_changed(queue, &requeued).await;
        Ok(after)
    }

    /// [`QueueStore::cancel`]: the ticket as it now stands, and the tickets whose proposal
    /// its cancel took down (back in the queue: their watches are told).
    async fn cancel_ticket(
        &self,
        ticket_id: &str,
        queue: &str,
        player_id: &str,
    ) -> Result<(Option<Ticket>, Vec<String>), StoreError> {
        dispatch!(self.backend, cancel_ticket(ticket_id, queue, player_id))
    }

    /// When the ticket's seat was confirmed (Unix ms, as [`QueueStore::confirm`] was given
    /// it), if a confirmation of its current or last proposal came in; `None` for a ticket
    /// never confirmed, or confirmed from the start. A matched ticket keeps it: whoever
    /// checks that only present players were seated compares it with when a player left.
    pub async fn confirmed_at(
        &self,
        queue: &str,
        ticket_id: &str,
    ) -> Result<Option<u64>, StoreError> {
        dispatch!(self.backend, confirmed_at(queue, ticket_id))
    }

    /// The ticket, if it exists (finished tickets expire after an hour on Redis).
    pub async fn ticket(&self, queue: &str, ticket_id: &str) -> Result<Option<Ticket>, StoreError> {
        dispatch!(self.backend, ticket(queue, ticket_id))
    }

    /// The ticket and where its lease ends ([`QueueStore::lease_ends`]), if it exists: one
    /// read, for a watch that renews the lease only when it is not fresh already.
    pub async fn ticket_and_lease(
        &self,
        queue: &str,
        ticket_id: &str,
    ) -> Result<Option<(Ticket, Option<u64>)>, StoreError> {
        dispatch!(self.backend, ticket_and_lease(queue, ticket_id))
    }

    /// The player's live (queued or proposed) ticket, if any: (queue, ticket id).
    pub async fn live_ticket(
        &self,
        player_id: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        dispatch!(self.backend, live_ticket(player_id))
    }
}

/// Marks a ticket id in a notice of [`QueueStore::publish_changed`].
pub const CHANGED_MARK: char = '~';

/// Notices of settled and changed tickets from every replica.
#[derive(Debug)]
pub struct SettledSubscription {
    inner: FeedSubscription,
}

/// One notice of [`SettledSubscription`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TicketNotice {
    /// Tickets that settled ([`QueueStore::publish_settled`]): a matched one's game exists.
    pub settled: Vec<String>,
    /// Tickets that changed without settling ([`QueueStore::publish_changed`]).
    pub changed: Vec<TicketChange>,
}

/// A ticket that changed without settling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketChange {
    /// The ticket.
    pub ticket_id: String,
    /// Proposed, its confirmation awaited; `None`: back in the queue (or anything else:
    /// read it).
    pub proposed_into: Option<TicketProposal>,
}

/// The table a ticket was proposed into, as a [`TicketChange`] tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketProposal {
    /// The game the table would play.
    pub game_id: String,
    /// The ticket's seat.
    pub seat: u32,
    /// Every ticket of the table in seat order.
    pub table: Vec<String>,
}

impl SettledSubscription {
    /// The next notice. [`FeedError::Lagged`] means notices may have been missed: re-read
    /// every watched ticket.
    pub async fn recv(&mut self) -> Result<TicketNotice, FeedError> {
        let notice = self.inner.recv().await?;
        let mut out = TicketNotice::default();
        for id in String::from_utf8_lossy(&notice.payload).split(',') {
            match id.strip_prefix(CHANGED_MARK).map(|c| c.split(':')) {
                Some(mut parts) => {
                    let ticket_id = parts.next().unwrap_or_default().to_owned();
                    let game_id = parts.next();
                    let seat = parts.next().and_then(|seat| seat.parse().ok());
                    let table = parts.next();
                    let proposed_into =
                        game_id
                            .zip(seat)
                            .zip(table)
                            .map(|((game_id, seat), table)| TicketProposal {
                                game_id: game_id.to_owned(),
                                seat,
                                table: table.split('+').map(str::to_owned).collect(),
                            });
                    if !ticket_id.is_empty() {
                        out.changed.push(TicketChange {
                            ticket_id,
                            proposed_into,
                        });
                    }
                }
                None if !id.is_empty() => out.settled.push(id.to_owned()),
                None => {}
            }
        }
        Ok(out)
    }
}
