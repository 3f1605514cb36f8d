//! [`QueueStore`](super::QueueStore) in memory: every queue, ticket, index, lease and
//! proposal in one model under one lock.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use super::{
    Confirmation, EnqueueOutcome, SeatConfirmation, TableOutcome, TableProposal, Ticket,
    TicketStatus,
};
use crate::backend::StoreError;
use crate::backend::memory::{MemoryState, lock};
use crate::feed::Topic;
use crate::feed::memory::hub_key;
use crate::game::StoredEvent;

#[derive(Default)]
pub(crate) struct QueuesMem {
    /// (queue, ticket id) -> ticket. Finished tickets are kept (the memory backend is for
    /// single-process use, where they are few).
    tickets: HashMap<(String, String), Ticket>,
    /// queue -> (created_ms, ticket id) of queued tickets: the Redis zset's order.
    queues: HashMap<String, BTreeSet<(u64, String)>>,
    /// player -> (queue, ticket id) of the live ticket.
    players: HashMap<String, (String, String)>,
    /// queue -> (holder, until) of its matching lease.
    leases: HashMap<String, (String, Instant)>,
    /// (queue, ticket id) -> end of the ticket's lease (Unix ms), see
    /// [`super::QueueStore::keep_alive`].
    alive: HashMap<(String, String), u64>,
    /// queue -> game id -> (deadline, Unix ms; the table) of its pending proposals.
    proposals: HashMap<String, HashMap<String, (u64, Vec<String>)>>,
    /// (queue, ticket id) -> when its seat was confirmed, see [`super::QueueStore::confirmed_at`].
    confirmed_at: HashMap<(String, String), u64>,
}

impl QueuesMem {
    /// Sets the ticket's status and takes it out of its queue; a final status also frees its
    /// player's index.
    fn finish(&mut self, queue: &str, ticket_id: &str, status: TicketStatus) {
        let key = (queue.to_owned(), ticket_id.to_owned());
        let Some(t) = self.tickets.get_mut(&key) else {
            return;
        };
        let live = status.is_live();
        t.status = status;
        let player = t.player_id.clone();
        if let Some(q) = self.queues.get_mut(queue) {
            q.retain(|(_, id)| id != ticket_id);
            if q.is_empty() {
                self.queues.remove(queue);
            }
        }
        if !live && self.players.get(&player) == Some(&key) {
            self.players.remove(&player);
        }
    }

    /// Takes the pending proposal of `game_id` down: the ticket `cancel` names (if any) is
    /// cancelled, every other ticket of the table goes back to queued at its own place.
    /// Returns the requeued ids; `None` if no such proposal is pending.
    fn withdraw(
        &mut self,
        queue: &str,
        game_id: &str,
        cancel: Option<&str>,
    ) -> Option<Vec<String>> {
        let pending = self.proposals.get_mut(queue)?;
        let (_, table) = pending.remove(game_id)?;
        if pending.is_empty() {
            self.proposals.remove(queue);
        }
        let mut requeued = Vec::new();
        for id in table {
            if cancel == Some(id.as_str()) {
                self.finish(queue, &id, TicketStatus::Cancelled);
                continue;
            }
            let key = (queue.to_owned(), id.clone());
            self.confirmed_at.remove(&key);
            if let Some(t) = self.tickets.get_mut(&key) {
                t.status = TicketStatus::Queued;
                let created = t.created_ms;
                self.queues
                    .entry(queue.to_owned())
                    .or_default()
                    .insert((created, id.clone()));
                requeued.push(id);
            }
        }
        Some(requeued)
    }
}

pub(super) fn enqueue(
    m: &MemoryState,
    ticket: &Ticket,
    alive_until_ms: Option<u64>,
) -> Result<EnqueueOutcome, StoreError> {
    let mut q = lock(&m.queues);
    if let Some((_, id)) = q.players.get(&ticket.player_id) {
        return Ok(EnqueueOutcome::AlreadyQueued {
            ticket_id: id.clone(),
        });
    }
    let key = (ticket.queue.clone(), ticket.ticket_id.clone());
    if q.tickets.contains_key(&key) {
        return Ok(EnqueueOutcome::AlreadyQueued {
            ticket_id: ticket.ticket_id.clone(),
        });
    }
    let stored = Ticket {
        status: TicketStatus::Queued,
        ..ticket.clone()
    };
    q.tickets.insert(key.clone(), stored);
    q.queues
        .entry(ticket.queue.clone())
        .or_default()
        .insert((ticket.created_ms, ticket.ticket_id.clone()));
    if let Some(until) = alive_until_ms {
        q.alive.insert(key.clone(), until);
    }
    q.players.insert(ticket.player_id.clone(), key);
    Ok(EnqueueOutcome::Queued)
}

pub(super) fn queued(
    m: &MemoryState,
    queue: &str,
    limit: usize,
) -> Result<Vec<Ticket>, StoreError> {
    let q = lock(&m.queues);
    let Some(ids) = q.queues.get(queue) else {
        return Ok(Vec::new());
    };
    Ok(ids
        .iter()
        .take(limit)
        .filter_map(|(_, id)| q.tickets.get(&(queue.to_owned(), id.clone())).cloned())
        .collect())
}

pub(super) fn keep_alive(
    m: &MemoryState,
    queue: &str,
    ticket_id: &str,
    until_ms: u64,
) -> Result<bool, StoreError> {
    let mut q = lock(&m.queues);
    let key = (queue.to_owned(), ticket_id.to_owned());
    let live = q.tickets.get(&key).is_some_and(|t| t.status.is_live());
    if live {
        q.alive.insert(key, until_ms);
    }
    Ok(live)
}

pub(super) fn lease_ends(
    m: &MemoryState,
    queue: &str,
    ticket_ids: &[&str],
) -> Result<Vec<Option<u64>>, StoreError> {
    let q = lock(&m.queues);
    Ok(ticket_ids
        .iter()
        .map(|id| q.alive.get(&(queue.to_owned(), (*id).to_owned())).copied())
        .collect())
}

pub(super) fn queues(m: &MemoryState) -> Result<Vec<String>, StoreError> {
    let q = lock(&m.queues);
    let names: BTreeSet<String> = q.queues.keys().chain(q.proposals.keys()).cloned().collect();
    Ok(names.into_iter().collect())
}

pub(super) fn confirm_seat(
    m: &MemoryState,
    queue: &str,
    ticket_id: &str,
    // The memory model finds the seat by the ticket id.
    _seat: u32,
    table: Vec<String>,
    game_id: &str,
    now_ms: u64,
) -> Result<Confirmation, StoreError> {
    let mut q = lock(&m.queues);
    let pending = q
        .proposals
        .get(queue)
        .and_then(|p| p.get(game_id))
        .is_some_and(|(_, t)| *t == table);
    if !pending {
        let now = q.tickets.get(&(queue.to_owned(), ticket_id.to_owned()));
        return Ok(Confirmation::NotProposed(now.cloned()));
    }
    let q = &mut *q;
    let key = (queue.to_owned(), ticket_id.to_owned());
    if let Some(t) = q.tickets.get_mut(&key)
        && let TicketStatus::Proposed { confirmed, .. } = &mut t.status
        && !*confirmed
    {
        *confirmed = true;
        q.confirmed_at.insert(key, now_ms);
    }
    let complete = table.iter().all(|id| {
        q.tickets
            .get(&(queue.to_owned(), id.clone()))
            .is_some_and(|t| {
                matches!(
                    t.status,
                    TicketStatus::Proposed {
                        confirmed: true,
                        ..
                    }
                )
            })
    });
    if !complete {
        return Ok(Confirmation::Waiting);
    }
    mark_matched(q, queue, game_id, &table);
    if let Some(pending) = q.proposals.get_mut(queue) {
        pending.remove(game_id);
        if pending.is_empty() {
            q.proposals.remove(queue);
        }
    }
    let tickets = table
        .iter()
        .filter_map(|id| q.tickets.get(&(queue.to_owned(), id.clone())).cloned())
        .collect();
    Ok(Confirmation::Complete { tickets })
}

pub(super) fn lease_queue(
    m: &MemoryState,
    queue: &str,
    holder: &str,
    ttl: Duration,
) -> Result<bool, StoreError> {
    let mut q = lock(&m.queues);
    let now = Instant::now();
    if let Some((current, until)) = q.leases.get(queue)
        && current != holder
        && *until > now
    {
        return Ok(false);
    }
    q.leases
        .insert(queue.to_owned(), (holder.to_owned(), now + ttl));
    Ok(true)
}

pub(super) fn publish_notice(m: &MemoryState, payload: String) -> Result<(), StoreError> {
    m.hub.publish(
        &hub_key(Topic::Tickets),
        StoredEvent {
            seq: 0,
            payload: payload.into_bytes(),
        },
    );
    Ok(())
}

pub(super) fn cancel_ticket(
    m: &MemoryState,
    ticket_id: &str,
    queue: &str,
    player_id: &str,
) -> Result<(Option<Ticket>, Vec<String>), StoreError> {
    let (after, requeued) = {
        let mut q = lock(&m.queues);
        let key = (queue.to_owned(), ticket_id.to_owned());
        let status = match q.tickets.get(&key) {
            Some(t) if t.player_id == player_id => t.status.clone(),
            _ => return Ok((None, Vec::new())),
        };
        let requeued = match status {
            TicketStatus::Queued => {
                q.finish(queue, ticket_id, TicketStatus::Cancelled);
                Vec::new()
            }
            TicketStatus::Proposed { game_id, .. } => q
                .withdraw(queue, &game_id, Some(ticket_id))
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        (q.tickets.get(&key).cloned(), requeued)
    };
    Ok((after, requeued))
}

pub(super) fn confirmed_at(
    m: &MemoryState,
    queue: &str,
    ticket_id: &str,
) -> Result<Option<u64>, StoreError> {
    Ok(lock(&m.queues)
        .confirmed_at
        .get(&(queue.to_owned(), ticket_id.to_owned()))
        .copied())
}

pub(super) fn ticket(
    m: &MemoryState,
    queue: &str,
    ticket_id: &str,
) -> Result<Option<Ticket>, StoreError> {
    Ok(lock(&m.queues)
        .tickets
        .get(&(queue.to_owned(), ticket_id.to_owned()))
        .cloned())
}

pub(super) fn ticket_and_lease(
    m: &MemoryState,
    queue: &str,
    ticket_id: &str,
) -> Result<Option<(Ticket, Option<u64>)>, StoreError> {
    let q = lock(&m.queues);
    let key = (queue.to_owned(), ticket_id.to_owned());
    Ok(q.tickets
        .get(&key)
        .map(|ticket| (ticket.clone(), q.alive.get(&key).copied())))
}

pub(super) fn live_ticket(
    m: &MemoryState,
    player_id: &str,
) -> Result<Option<(String, String)>, StoreError> {
    Ok(lock(&m.queues).players.get(player_id).cloned())
}

pub(super) fn propose_tables(
    m: &MemoryState,
    queue: &str,
    proposals: &[&TableProposal],
    deadline_ms: u64,
) -> Result<Vec<TableOutcome>, StoreError> {
    let mut q = lock(&m.queues);
    Ok(proposals
        .iter()
        .map(|proposal| propose_one(&mut q, queue, proposal, deadline_ms))
        .collect())
}

pub(super) fn expire_proposals(
    m: &MemoryState,
    queue: &str,
    now_ms: u64,
) -> Result<Vec<String>, StoreError> {
    let mut q = lock(&m.queues);
    let expired: Vec<String> = q
        .proposals
        .get(queue)
        .into_iter()
        .flatten()
        .filter(|(_, (deadline, _))| *deadline < now_ms)
        .map(|(game, _)| game.clone())
        .collect();
    Ok(expired
        .iter()
        .filter_map(|game| q.withdraw(queue, game, None))
        .flatten()
        .collect())
}

/// [`super::QueueStore::propose_tables`] of one table in memory.
fn propose_one(
    q: &mut QueuesMem,
    queue: &str,
    proposal: &TableProposal,
    deadline_ms: u64,
) -> TableOutcome {
    let claim = &proposal.claim;
    let all_queued = claim.ticket_ids.iter().all(|id| {
        q.tickets
            .get(&(queue.to_owned(), id.clone()))
            .is_some_and(|t| t.status == TicketStatus::Queued)
    });
    if !all_queued {
        return TableOutcome::Lost;
    }
    // A seat its proposer saw present keeps that time, as a confirmation would.
    for (id, seat) in claim.ticket_ids.iter().zip(&proposal.confirmed) {
        if let SeatConfirmation::PresentAt(ms) = *seat {
            q.confirmed_at
                .insert((queue.to_owned(), id.clone()), ms.max(1));
        }
    }
    if proposal.confirmed.iter().all(|c| c.confirmed()) {
        mark_matched(q, queue, &claim.game_id, &claim.ticket_ids);
        return TableOutcome::Matched;
    }
    for ((seat, id), confirmed) in claim.ticket_ids.iter().enumerate().zip(&proposal.confirmed) {
        let status = TicketStatus::Proposed {
            game_id: claim.game_id.clone(),
            seat: u32::try_from(seat).unwrap_or(u32::MAX),
            table: claim.ticket_ids.clone(),
            confirmed: confirmed.confirmed(),
        };
        q.finish(queue, id, status);
    }
    q.proposals.entry(queue.to_owned()).or_default().insert(
        claim.game_id.clone(),
        (deadline_ms, claim.ticket_ids.clone()),
    );
    TableOutcome::Proposed
}

/// Marks every ticket of `table` matched into `game_id` at its seat, in memory.
fn mark_matched(q: &mut QueuesMem, queue: &str, game_id: &str, table: &[String]) {
    for (seat, id) in table.iter().enumerate() {
        let status = TicketStatus::Matched {
            game_id: game_id.to_owned(),
            seat: u32::try_from(seat).unwrap_or(u32::MAX),
            table: table.to_vec(),
        };
        q.finish(queue, id, status);
    }
}
