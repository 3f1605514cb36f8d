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

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use redis::Script;
use tracing::Instrument;

use crate::backend::memory::lock;
use crate::backend::redis::{RedisBackend, parse_u64};
use crate::backend::{Backend, Kind, StoreError};
use crate::feed::memory::hub_key;
use crate::feed::{FeedError, FeedSubscription, Topic, subscribe};
use crate::game::StoredEvent;

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
    /// Per ticket (same order): confirmed from the start (nobody will confirm it: a ticket
    /// queued by a caller that does not confirm presence).
    pub confirmed: Vec<bool>,
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
    /// [`QueueStore::keep_alive`].
    alive: HashMap<(String, String), u64>,
    /// queue -> game id -> (deadline, Unix ms; the table) of its pending proposals.
    proposals: HashMap<String, HashMap<String, (u64, Vec<String>)>>,
    /// (queue, ticket id) -> when its seat was confirmed, see [`QueueStore::confirmed_at`].
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

/// KEYS: ticket hash. ARGV: lease end. Extends a live (queued or proposed) ticket's lease; 1
/// when it is live.
static KEEP_ALIVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'proposed' then return 0 end
redis.call('HSET', KEYS[1], 'alive', ARGV[1])
return 1
",
    )
});

/// KEYS: queue zset, ticket hash. ARGV: ticket id, queue, player, payload, created. Writes
/// the ticket unless one with its id exists: returns {'1'} queued, or {'0', its status}.
static ENQUEUE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local status = redis.call('HGET', KEYS[2], 'status')
if status then return {'0', status} end
redis.call('HSET', KEYS[2], 'queue', ARGV[2], 'player', ARGV[3], 'payload', ARGV[4],
  'created', ARGV[5], 'status', 'queued')
redis.call('ZADD', KEYS[1], ARGV[5], ARGV[1])
return {'1'}
",
    )
});

/// KEYS: ticket hash. ARGV: ttl, queue, player. The ticket's status; a ticket that does not
/// exist is first written as a cancelled tombstone (expiring like a finished ticket), so an
/// enqueue of it still under way writes nothing (see the module docs).
static SETTLE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local status = redis.call('HGET', KEYS[1], 'status')
if status then return status end
redis.call('HSET', KEYS[1], 'queue', ARGV[2], 'player', ARGV[3], 'payload', '',
  'created', 0, 'status', 'cancelled')
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 'cancelled'
",
    )
});

/// KEYS: player index. ARGV: expected queue, expected ticket ('' for none), new queue, new
/// ticket. Compare-and-set; 1 when set.
static MOVE_INDEX: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local cur = redis.call('HMGET', KEYS[1], 'queue', 'ticket')
if (cur[1] or '') ~= ARGV[1] or (cur[2] or '') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'queue', ARGV[3], 'ticket', ARGV[4])
return 1
",
    )
});

/// KEYS: player index. ARGV: queue, ticket. Deletes the index if it names that ticket (which
/// the caller saw final); 1 when deleted.
static RELEASE_INDEX: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local cur = redis.call('HMGET', KEYS[1], 'queue', 'ticket')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
return 1
",
    )
});

/// How many times a cancel reads a proposed ticket again after its proposal was resolved
/// under it (completed: final; or taken down: queued, cancelled by the next look).
const CANCEL_ATTEMPTS: usize = 8;

/// The most expired proposals one [`QueueStore::expire_proposals`] takes down (the next
/// matcher round takes the rest).
const EXPIRE_BATCH: usize = 256;

/// How many times an enqueue re-reads a player's index that another enqueue of the same
/// player moved under it before it gives up (a client racing itself). Each move that beats
/// an enqueue takes the mover out of the race (it goes on to write its ticket or finds it
/// tombstoned), so an enqueue loses at most once per rival: 32 is more than one player's
/// concurrent enqueues ever are.
const ENQUEUE_ATTEMPTS: usize = 32;

/// KEYS: queue zset, proposals zset, proposals hash, then every table's ticket hashes in
/// order. ARGV: ttl, table count, deadline, then per table: game id, n, its n ticket ids, the
/// ids joined by commas, n flags ('1': confirmed from the start). Each table is
/// all-or-nothing on its own. Returns '1' when the queue holds nothing afterwards, neither
/// queued tickets nor proposals (else '0'), then per table '0' (lost), '1' (proposed) or '2'
/// and the players of its n tickets (matched: every flag was '1'). Only the queue's own slot:
/// the players' indexes are released afterwards by the caller.
static PROPOSE_TABLES: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local key = 4
local a = 4
local out = {}
for t = 1, tonumber(ARGV[2]) do
  local game = ARGV[a]
  local n = tonumber(ARGV[a + 1])
  local ids = a + 2
  local csv = ARGV[ids + n]
  local flags = ARGV[ids + n + 1]
  local ok = true
  for i = 0, n - 1 do
    if redis.call('HGET', KEYS[key + i], 'status') ~= 'queued'
      or not redis.call('ZSCORE', KEYS[1], ARGV[ids + i]) then ok = false break end
  end
  if not ok then
    out[#out + 1] = '0'
  elseif not string.find(flags, '0', 1, true) then
    out[#out + 1] = '2'
    for i = 0, n - 1 do
      local tk = KEYS[key + i]
      redis.call('HSET', tk, 'status', 'matched', 'game', game, 'seat', i, 'table', csv)
      redis.call('EXPIRE', tk, ARGV[1])
      redis.call('ZREM', KEYS[1], ARGV[ids + i])
      out[#out + 1] = redis.call('HGET', tk, 'player') or ''
    end
  else
    out[#out + 1] = '1'
    for i = 0, n - 1 do
      local confirmed = '0'
      if string.sub(flags, i + 1, i + 1) == '1' then confirmed = 'start' end
      redis.call('HSET', KEYS[key + i], 'status', 'proposed', 'game', game, 'seat', i,
        'table', csv, 'confirmed', confirmed)
      redis.call('ZREM', KEYS[1], ARGV[ids + i])
    end
    redis.call('ZADD', KEYS[2], ARGV[3], game)
    redis.call('HSET', KEYS[3], game, csv)
  end
  key = key + n
  a = ids + n + 2
end
local empty = '0'
if redis.call('ZCARD', KEYS[1]) == 0 and redis.call('ZCARD', KEYS[2]) == 0 then empty = '1' end
table.insert(out, 1, empty)
return out
",
    )
});

/// KEYS: queue zset, proposals zset, proposals hash, then the table's ticket hashes in seat
/// order. ARGV: ttl, game id, the confirming seat (0-based), the table's ids joined by
/// commas, the confirmation's time (Unix ms). A ticket's `confirmed` is '0' until
/// confirmed, then the time of its first confirmation ('start': from the start); the
/// matched ticket keeps it. Returns {} when that proposal is not pending; else '1' when the
/// queue holds nothing afterwards (else '0'), then '1' (confirmed, others wait) or '2' and,
/// per ticket of the table, its player, payload and created (every ticket now matched).
static CONFIRM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HGET', KEYS[3], ARGV[2]) ~= ARGV[4] then return {} end
local mine = KEYS[4 + tonumber(ARGV[3])]
if redis.call('HGET', mine, 'confirmed') == '0' then
  redis.call('HSET', mine, 'confirmed', ARGV[5])
end
for i = 4, #KEYS do
  if redis.call('HGET', KEYS[i], 'confirmed') == '0' then return {'0', '1'} end
end
local out = {'2'}
for i = 4, #KEYS do
  redis.call('HSET', KEYS[i], 'status', 'matched')
  redis.call('EXPIRE', KEYS[i], ARGV[1])
  local f = redis.call('HMGET', KEYS[i], 'player', 'payload', 'created')
  out[#out + 1] = f[1] or ''
  out[#out + 1] = f[2] or ''
  out[#out + 1] = f[3] or '0'
end
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
local empty = '0'
if redis.call('ZCARD', KEYS[1]) == 0 and redis.call('ZCARD', KEYS[2]) == 0 then empty = '1' end
table.insert(out, 1, empty)
return out
",
    )
});

/// KEYS: queue zset, proposals zset, proposals hash, then the table's ticket hashes in seat
/// order. ARGV: ttl, game id, the table's ids joined by commas, the seat to cancel (0-based,
/// -1 for none), that seat's player, then the table's ids. Takes the pending proposal down:
/// the seat to cancel is cancelled (only if the player owns it), every other ticket goes back
/// to queued with its `created` score. Returns {} when that proposal is not pending (or the
/// player does not own the seat), else {'1'}.
static WITHDRAW: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HGET', KEYS[3], ARGV[2]) ~= ARGV[3] then return {} end
local cancel = tonumber(ARGV[4])
if cancel >= 0 and redis.call('HGET', KEYS[4 + cancel], 'player') ~= ARGV[5] then return {} end
for i = 4, #KEYS do
  local tk = KEYS[i]
  redis.call('HDEL', tk, 'game', 'seat', 'table', 'confirmed')
  if i - 4 == cancel then
    redis.call('HSET', tk, 'status', 'cancelled')
    redis.call('EXPIRE', tk, ARGV[1])
  else
    redis.call('HSET', tk, 'status', 'queued')
    redis.call('ZADD', KEYS[1], redis.call('HGET', tk, 'created'), ARGV[6 + i - 4])
  end
end
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
return {'1'}
",
    )
});

/// KEYS: the queue's lease. ARGV: holder, ttl ms. Takes or renews the lease; 1 if `holder`
/// holds it now.
static LEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
",
    )
});

/// KEYS: ticket hash, queue zset. ARGV: ticket id, player, ttl. Returns {} if not found or
/// not the player's; else '1' when the queue is empty afterwards (else '0'), then the
/// ticket's fields after the call.
static CANCEL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HGET', KEYS[1], 'player') ~= ARGV[2] then return {} end
if redis.call('HGET', KEYS[1], 'status') == 'queued' then
  redis.call('HSET', KEYS[1], 'status', 'cancelled')
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
local out = redis.call('HGETALL', KEYS[1])
local empty = '0'
if redis.call('ZCARD', KEYS[2]) == 0 then empty = '1' end
table.insert(out, 1, empty)
return out
",
    )
});

impl QueueStore {
    /// A queue store over `backend`.
    pub fn new(backend: Backend) -> Self {
        QueueStore { backend }
    }

    /// Queues the ticket (its `status` is ignored: it is stored as Queued). At most one
    /// queued ticket per player across all queues; an existing ticket id is never
    /// overwritten, so a retried enqueue cannot re-queue a matched ticket.
    pub async fn enqueue(&self, ticket: &Ticket) -> Result<EnqueueOutcome, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => enqueue_redis(r, ticket).await,
            Kind::Memory(m) => {
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
                q.players.insert(ticket.player_id.clone(), key);
                Ok(EnqueueOutcome::Queued)
            }
        }
    }

    /// Queued tickets of `queue`, oldest first (ties by id), at most `limit`.
    pub async fn queued(&self, queue: &str, limit: usize) -> Result<Vec<Ticket>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        match &self.backend.kind {
            Kind::Redis(r) => {
                let mut conn = r.conn.clone();
                let ids: Vec<String> = redis::cmd("ZRANGE")
                    .arg(r.keys.mm_queue(queue))
                    .arg(0)
                    .arg(limit - 1)
                    .query_async(&mut conn)
                    .instrument(r.command("ZRANGE"))
                    .await?;
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                let mut pipe = redis::pipe();
                for id in &ids {
                    pipe.cmd("HGETALL").arg(r.keys.mm_ticket(queue, id));
                }
                let fields: Vec<HashMap<String, Vec<u8>>> = pipe
                    .query_async(&mut conn)
                    .instrument(r.command("BATCH HGETALL"))
                    .await?;
                let mut out = Vec::with_capacity(ids.len());
                for (id, f) in ids.into_iter().zip(fields) {
                    // Taken or expired between the two reads: no longer queued.
                    if f.is_empty() {
                        continue;
                    }
                    let t = parse_ticket(queue, id, f)?;
                    if t.status == TicketStatus::Queued {
                        out.push(t);
                    }
                }
                Ok(out)
            }
            Kind::Memory(m) => {
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
        }
    }

    /// Extends the lease of a queued ticket to `until_ms` (Unix ms, system time: it says a
    /// process still waits on the ticket). A watch renews it while its FindMatch stream lives;
    /// the matcher drops a ticket whose lease ran out ([`QueueStore::lease_ends`]) instead of
    /// seating a player nobody waits for (issue 16). `Ok(false)` when the ticket is not live
    /// (queued or proposed).
    pub async fn keep_alive(
        &self,
        queue: &str,
        ticket_id: &str,
        until_ms: u64,
    ) -> Result<bool, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let queued: u64 = KEEP_ALIVE
                    .key(r.keys.mm_ticket(queue, ticket_id))
                    .arg(until_ms)
                    .invoke_async(&mut r.conn.clone())
                    .await?;
                Ok(queued == 1)
            }
            Kind::Memory(m) => {
                let mut q = lock(&m.queues);
                let key = (queue.to_owned(), ticket_id.to_owned());
                let live = q.tickets.get(&key).is_some_and(|t| t.status.is_live());
                if live {
                    q.alive.insert(key, until_ms);
                }
                Ok(live)
            }
        }
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
        match &self.backend.kind {
            Kind::Redis(r) => {
                let mut pipe = redis::pipe();
                for id in ticket_ids {
                    pipe.cmd("HGET")
                        .arg(r.keys.mm_ticket(queue, id))
                        .arg("alive");
                }
                let ends: Vec<Option<Vec<u8>>> = pipe.query_async(&mut r.conn.clone()).await?;
                ends.into_iter()
                    .map(|end| end.map(|b| parse_u64("ticket lease", &b)).transpose())
                    .collect()
            }
            Kind::Memory(m) => {
                let q = lock(&m.queues);
                Ok(ticket_ids
                    .iter()
                    .map(|id| q.alive.get(&(queue.to_owned(), (*id).to_owned())).copied())
                    .collect())
            }
        }
    }

    /// Names of the queues that hold queued tickets or pending proposals, sorted.
    pub async fn queues(&self) -> Result<Vec<String>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let mut names: Vec<String> = redis::cmd("SMEMBERS")
                    .arg(r.keys.mm_queues())
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("SMEMBERS"))
                    .await?;
                names.sort();
                Ok(names)
            }
            Kind::Memory(m) => {
                let q = lock(&m.queues);
                let names: BTreeSet<String> =
                    q.queues.keys().chain(q.proposals.keys()).cloned().collect();
                Ok(names.into_iter().collect())
            }
        }
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
                confirmed: vec![true; claim.ticket_ids.len()],
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
        let outcomes: Vec<TableOutcome> = match &self.backend.kind {
            Kind::Redis(r) => propose_redis(r, queue, &proposals, deadline_ms).await?,
            Kind::Memory(m) => {
                let mut q = lock(&m.queues);
                proposals
                    .iter()
                    .map(|proposal| propose_memory(&mut q, queue, proposal, deadline_ms))
                    .collect()
            }
        };
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
                    .filter(|(_, (_, confirmed))| !**confirmed)
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
        match &self.backend.kind {
            Kind::Redis(r) => {
                let k = &r.keys;
                let mut inv = CONFIRM.prepare_invoke();
                inv.key(k.mm_queue(queue))
                    .key(k.mm_proposals(queue))
                    .key(k.mm_proposal_tables(queue));
                for id in &table {
                    inv.key(k.mm_ticket(queue, id));
                }
                inv.arg(FINISHED_TICKET_TTL_SECS)
                    .arg(game_id)
                    .arg(seat)
                    .arg(table.join(","))
                    .arg(now_ms);
                let reply: Vec<Vec<u8>> = inv
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA confirm", "confirm"))
                    .await?;
                match reply.split_first() {
                    // Taken down or completed since the read: as it stands now.
                    None => Ok(Confirmation::NotProposed(
                        self.ticket(queue, ticket_id).await?,
                    )),
                    Some((_, rest)) if rest.first().map(Vec::as_slice) == Some(b"1") => {
                        Ok(Confirmation::Waiting)
                    }
                    Some((empty, rest)) => {
                        let fields = rest.get(1..).unwrap_or_default();
                        let bad = || StoreError::Corrupt("bad confirm script reply".into());
                        let mut tickets = Vec::with_capacity(table.len());
                        for ((seat, id), f) in (0u32..).zip(&table).zip(fields.chunks(3)) {
                            let [player, payload, created] = f else {
                                return Err(bad());
                            };
                            tickets.push(Ticket {
                                ticket_id: id.clone(),
                                queue: queue.to_owned(),
                                player_id: String::from_utf8(player.clone()).map_err(|_| bad())?,
                                payload: payload.clone(),
                                created_ms: parse_u64("ticket created", created)?,
                                status: TicketStatus::Matched {
                                    game_id: game_id.to_owned(),
                                    seat,
                                    table: table.clone(),
                                },
                            });
                        }
                        if tickets.len() != table.len() {
                            return Err(bad());
                        }
                        let released: Vec<(String, &str)> = tickets
                            .iter()
                            .map(|t| (t.player_id.clone(), t.ticket_id.as_str()))
                            .collect();
                        release_indexes(r, queue, &released).await;
                        if empty.as_slice() == b"1" {
                            forget_queue_if_empty(r, queue).await;
                        }
                        Ok(Confirmation::Complete { tickets })
                    }
                }
            }
            Kind::Memory(m) => {
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
                matched_memory(q, queue, game_id, &table);
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
        }
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
        let requeued = match &self.backend.kind {
            Kind::Redis(r) => {
                let k = &r.keys;
                let games: Vec<String> = redis::cmd("ZRANGEBYSCORE")
                    .arg(k.mm_proposals(queue))
                    .arg("-inf")
                    .arg(format!("({now_ms}"))
                    .arg("LIMIT")
                    .arg(0)
                    .arg(EXPIRE_BATCH)
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("ZRANGEBYSCORE"))
                    .await?;
                let mut requeued = Vec::new();
                for game in games {
                    let csv: Option<String> = redis::cmd("HGET")
                        .arg(k.mm_proposal_tables(queue))
                        .arg(&game)
                        .query_async(&mut r.conn.clone())
                        .instrument(r.command("HGET"))
                        .await?;
                    let Some(csv) = csv else {
                        // Completed or taken down since the read.
                        continue;
                    };
                    let table: Vec<String> = csv.split(',').map(str::to_owned).collect();
                    if withdraw_redis(r, queue, &game, &table, None).await? {
                        requeued.extend(table);
                    }
                }
                requeued
            }
            Kind::Memory(m) => {
                let mut q = lock(&m.queues);
                let expired: Vec<String> = q
                    .proposals
                    .get(queue)
                    .into_iter()
                    .flatten()
                    .filter(|(_, (deadline, _))| *deadline < now_ms)
                    .map(|(game, _)| game.clone())
                    .collect();
                expired
                    .iter()
                    .filter_map(|game| q.withdraw(queue, game, None))
                    .flatten()
                    .collect()
            }
        };
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
        match &self.backend.kind {
            Kind::Redis(r) => {
                let held: i64 = LEASE
                    .key(r.keys.mm_lease(queue))
                    .arg(holder)
                    .arg(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1))
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA lease", "lease"))
                    .await?;
                Ok(held == 1)
            }
            Kind::Memory(m) => {
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
        }
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
        match &self.backend.kind {
            Kind::Redis(r) => {
                // The feed's `<seq>:<bytes>` framing, seq unused.
                let mut message = b"0:".to_vec();
                message.extend_from_slice(payload.as_bytes());
                let command = r.publish.command();
                let _: i64 = redis::cmd(command)
                    .arg(r.keys.mm_settled())
                    .arg(message)
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command(command))
                    .await?;
                Ok(())
            }
            Kind::Memory(m) => {
                m.hub.publish(
                    &hub_key(Topic::Tickets),
                    StoredEvent {
                        seq: 0,
                        payload: payload.into_bytes(),
                    },
                );
                Ok(())
            }
        }
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
        match &self.backend.kind {
            Kind::Redis(r) => {
                // A proposal resolved between the read and its withdrawal is read again;
                // each round is lost only to a step of the ticket towards final.
                for _ in 0..CANCEL_ATTEMPTS {
                    let Some(ticket) = cancel_redis(r, queue, ticket_id, player_id).await? else {
                        return Ok(None);
                    };
                    let TicketStatus::Proposed {
                        game_id,
                        seat,
                        table,
                        ..
                    } = &ticket.status
                    else {
                        return Ok(Some(ticket));
                    };
                    let cancel = (*seat, player_id);
                    if withdraw_redis(r, queue, game_id, table, Some(cancel)).await? {
                        release_indexes(r, queue, &[(player_id.to_owned(), ticket_id)]).await;
                        let others: Vec<String> = table
                            .iter()
                            .filter(|id| *id != ticket_id)
                            .cloned()
                            .collect();
                        self.tell_changed(queue, &others).await;
                        return self.ticket(queue, ticket_id).await;
                    }
                }
                Err(StoreError::Unavailable(format!(
                    "ticket {ticket_id} changed {CANCEL_ATTEMPTS} times during one cancel; retry"
                )))
            }
            Kind::Memory(m) => {
                let (after, requeued) = {
                    let mut q = lock(&m.queues);
                    let key = (queue.to_owned(), ticket_id.to_owned());
                    let status = match q.tickets.get(&key) {
                        Some(t) if t.player_id == player_id => t.status.clone(),
                        _ => return Ok(None),
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
                self.tell_changed(queue, &requeued).await;
                Ok(after)
            }
        }
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
        match &self.backend.kind {
            Kind::Redis(r) => {
                let at: Option<Vec<u8>> = redis::cmd("HGET")
                    .arg(r.keys.mm_ticket(queue, ticket_id))
                    .arg("confirmed")
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("HGET"))
                    .await?;
                // '0' (not yet) and 'start' are not times.
                Ok(at
                    .and_then(|at| parse_u64("ticket confirmed", &at).ok())
                    .filter(|&ms| ms > 0))
            }
            Kind::Memory(m) => Ok(lock(&m.queues)
                .confirmed_at
                .get(&(queue.to_owned(), ticket_id.to_owned()))
                .copied()),
        }
    }

    /// The ticket, if it exists (finished tickets expire after an hour on Redis).
    pub async fn ticket(&self, queue: &str, ticket_id: &str) -> Result<Option<Ticket>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let fields: HashMap<String, Vec<u8>> = redis::cmd("HGETALL")
                    .arg(r.keys.mm_ticket(queue, ticket_id))
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("HGETALL"))
                    .await?;
                if fields.is_empty() {
                    return Ok(None);
                }
                parse_ticket(queue, ticket_id.to_owned(), fields).map(Some)
            }
            Kind::Memory(m) => Ok(lock(&m.queues)
                .tickets
                .get(&(queue.to_owned(), ticket_id.to_owned()))
                .cloned()),
        }
    }

    /// The player's live (queued or proposed) ticket, if any: (queue, ticket id).
    pub async fn live_ticket(
        &self,
        player_id: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let Some((queue, ticket)) = read_index(r, player_id).await? else {
                    return Ok(None);
                };
                // The index may outlive its ticket (see the module docs): only a queued
                // ticket is live.
                let status: Option<Vec<u8>> = redis::cmd("HGET")
                    .arg(r.keys.mm_ticket(&queue, &ticket))
                    .arg("status")
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("HGET"))
                    .await?;
                let live = matches!(status.as_deref(), Some(b"queued" | b"proposed"));
                Ok(live.then_some((queue, ticket)))
            }
            Kind::Memory(m) => Ok(lock(&m.queues).players.get(player_id).cloned()),
        }
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

fn parse_ticket(
    queue: &str,
    ticket_id: String,
    mut f: HashMap<String, Vec<u8>>,
) -> Result<Ticket, StoreError> {
    let mut take = |name: &str| {
        f.remove(name)
            .ok_or_else(|| StoreError::Corrupt(format!("ticket {ticket_id} has no {name}")))
    };
    let text = |b: Vec<u8>| {
        String::from_utf8(b).map_err(|_| StoreError::Corrupt("ticket field not utf-8".into()))
    };
    let player_id = text(take("player")?)?;
    let payload = take("payload")?;
    let created_ms = parse_u64("ticket created", &take("created")?)?;
    let status = match take("status")?.as_slice() {
        b"queued" => TicketStatus::Queued,
        b"cancelled" => TicketStatus::Cancelled,
        b"matched" => TicketStatus::Matched {
            game_id: text(take("game")?)?,
            seat: u32::try_from(parse_u64("ticket seat", &take("seat")?)?)
                .map_err(|_| StoreError::Corrupt("ticket seat too large".into()))?,
            table: text(take("table")?)?
                .split(',')
                .map(str::to_owned)
                .collect(),
        },
        b"proposed" => TicketStatus::Proposed {
            game_id: text(take("game")?)?,
            seat: u32::try_from(parse_u64("ticket seat", &take("seat")?)?)
                .map_err(|_| StoreError::Corrupt("ticket seat too large".into()))?,
            table: text(take("table")?)?
                .split(',')
                .map(str::to_owned)
                .collect(),
            confirmed: take("confirmed").is_ok_and(|c| c != b"0"),
        },
        _ => return Err(StoreError::Corrupt("unknown ticket status".into())),
    };
    Ok(Ticket {
        ticket_id,
        queue: queue.to_owned(),
        player_id,
        payload,
        created_ms,
        status,
    })
}

/// The queue and ticket a player's index names, if any.
async fn read_index(
    r: &RedisBackend,
    player_id: &str,
) -> Result<Option<(String, String)>, StoreError> {
    let [queue, ticket]: [Option<String>; 2] = redis::cmd("HMGET")
        .arg(r.keys.mm_player(player_id))
        .arg("queue")
        .arg("ticket")
        .query_async(&mut r.conn.clone())
        .instrument(r.command("HMGET"))
        .await?;
    Ok(queue.zip(ticket))
}

/// [`QueueStore::enqueue`] on Redis: the two-step protocol of the module docs.
async fn enqueue_redis(r: &RedisBackend, ticket: &Ticket) -> Result<EnqueueOutcome, StoreError> {
    let k = &r.keys;
    let index = k.mm_player(&ticket.player_id);
    let ours = (ticket.queue.as_str(), ticket.ticket_id.as_str());
    for _ in 0..ENQUEUE_ATTEMPTS {
        let current = read_index(r, &ticket.player_id).await?;
        match &current {
            // A retry of this very enqueue: its ticket's own script decides.
            Some((queue, id)) if (queue.as_str(), id.as_str()) == ours => {}
            Some((queue, id)) => {
                let status: String = SETTLE
                    .key(k.mm_ticket(queue, id))
                    .arg(FINISHED_TICKET_TTL_SECS)
                    .arg(queue)
                    .arg(&ticket.player_id)
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA settle", "settle"))
                    .await?;
                if status == "queued" || status == "proposed" {
                    return Ok(EnqueueOutcome::AlreadyQueued {
                        ticket_id: id.clone(),
                    });
                }
            }
            None => {}
        }
        if current.as_ref().map(|(q, id)| (q.as_str(), id.as_str())) != Some(ours) {
            let (queue, id) = current.unwrap_or_default();
            let moved: i64 = MOVE_INDEX
                .key(&index)
                .arg(queue)
                .arg(id)
                .arg(&ticket.queue)
                .arg(&ticket.ticket_id)
                .invoke_async(&mut r.conn.clone())
                .instrument(r.script("EVALSHA move_index", "move_index"))
                .await?;
            if moved == 0 {
                // Another enqueue of this player moved it first: look again.
                continue;
            }
        }
        let reply: Vec<String> = ENQUEUE
            .key(k.mm_queue(&ticket.queue))
            .key(k.mm_ticket(&ticket.queue, &ticket.ticket_id))
            .arg(&ticket.ticket_id)
            .arg(&ticket.queue)
            .arg(&ticket.player_id)
            .arg(&ticket.payload)
            .arg(ticket.created_ms)
            .invoke_async(&mut r.conn.clone())
            .instrument(r.script("EVALSHA enqueue", "enqueue"))
            .await?;
        let (outcome, queued) = match reply.as_slice() {
            [ok] if ok == "1" => (EnqueueOutcome::Queued, true),
            [no, status] if no == "0" => {
                let outcome = EnqueueOutcome::AlreadyQueued {
                    ticket_id: ticket.ticket_id.clone(),
                };
                (outcome, status == "queued" || status == "proposed")
            }
            _ => return Err(StoreError::Corrupt("bad enqueue script reply".into())),
        };
        if queued {
            // After the zset holds the ticket (see `forget_queue_if_empty`); again on a
            // retry, in case the first attempt failed right here.
            redis::cmd("SADD")
                .arg(k.mm_queues())
                .arg(&ticket.queue)
                .query_async::<()>(&mut r.conn.clone())
                .instrument(r.command("SADD"))
                .await?;
        } else {
            // A retried enqueue of a finished ticket: the index must not name it.
            release_indexes(r, &ticket.queue, &[(ticket.player_id.clone(), ours.1)]).await;
        }
        return Ok(outcome);
    }
    Err(StoreError::Unavailable(format!(
        "player {}'s ticket changed {ENQUEUE_ATTEMPTS} times during one enqueue; retry",
        ticket.player_id
    )))
}

/// [`QueueStore::cancel`] of a queued ticket on Redis (one script): the ticket as it stands
/// after it (a proposed ticket is left to the caller), `None` if not found or not the
/// player's.
async fn cancel_redis(
    r: &RedisBackend,
    queue: &str,
    ticket_id: &str,
    player_id: &str,
) -> Result<Option<Ticket>, StoreError> {
    let k = &r.keys;
    let flat: Vec<Vec<u8>> = CANCEL
        .key(k.mm_ticket(queue, ticket_id))
        .key(k.mm_queue(queue))
        .arg(ticket_id)
        .arg(player_id)
        .arg(FINISHED_TICKET_TTL_SECS)
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA cancel", "cancel"))
        .await?;
    let Some((empty, fields)) = flat.split_first() else {
        return Ok(None);
    };
    let fields = fields
        .chunks(2)
        .filter_map(|c| match c {
            [k, v] => Some((String::from_utf8_lossy(k).into_owned(), v.clone())),
            _ => None,
        })
        .collect();
    let ticket = parse_ticket(queue, ticket_id.to_owned(), fields)?;
    if !ticket.status.is_live() {
        // Cancelled or matched: final either way, so the index may go.
        release_indexes(r, queue, &[(player_id.to_owned(), ticket_id)]).await;
    }
    if empty.as_slice() == b"1" {
        forget_queue_if_empty(r, queue).await;
    }
    Ok(Some(ticket))
}

/// [`QueueStore::propose_tables`] on Redis: one script for every table.
async fn propose_redis(
    r: &RedisBackend,
    queue: &str,
    proposals: &[&TableProposal],
    deadline_ms: u64,
) -> Result<Vec<TableOutcome>, StoreError> {
    let k = &r.keys;
    let mut inv = PROPOSE_TABLES.prepare_invoke();
    inv.key(k.mm_queue(queue))
        .key(k.mm_proposals(queue))
        .key(k.mm_proposal_tables(queue));
    inv.arg(FINISHED_TICKET_TTL_SECS)
        .arg(proposals.len())
        .arg(deadline_ms);
    for proposal in proposals {
        let claim = &proposal.claim;
        inv.arg(&claim.game_id).arg(claim.ticket_ids.len());
        for id in &claim.ticket_ids {
            inv.key(k.mm_ticket(queue, id));
            inv.arg(id);
        }
        // Ticket ids are `[A-Za-z0-9_-]`, so a comma separates them safely.
        inv.arg(claim.ticket_ids.join(","));
        let flags: String = proposal
            .confirmed
            .iter()
            .map(|&c| if c { '1' } else { '0' })
            .collect();
        inv.arg(flags);
    }
    let reply: Vec<String> = inv
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA propose_tables", "propose_tables"))
        .await?;
    let bad = || StoreError::Corrupt("bad propose script reply".into());
    let mut reply = reply.into_iter();
    let empty = reply.next().ok_or_else(bad)? == "1";
    let mut outcomes = Vec::with_capacity(proposals.len());
    let mut released = Vec::new();
    for proposal in proposals {
        let outcome = match reply.next().ok_or_else(bad)?.as_str() {
            "0" => TableOutcome::Lost,
            "1" => TableOutcome::Proposed,
            _ => {
                for id in &proposal.claim.ticket_ids {
                    released.push((reply.next().ok_or_else(bad)?, id.as_str()));
                }
                TableOutcome::Matched
            }
        };
        outcomes.push(outcome);
    }
    // The take is done: what follows only tidies up, and a failure there must not make the
    // caller believe the tables were not taken.
    release_indexes(r, queue, &released).await;
    if empty {
        forget_queue_if_empty(r, queue).await;
    }
    Ok(outcomes)
}

/// [`QueueStore::propose_tables`] of one table in memory.
fn propose_memory(
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
    if proposal.confirmed.iter().all(|&c| c) {
        matched_memory(q, queue, &claim.game_id, &claim.ticket_ids);
        return TableOutcome::Matched;
    }
    for ((seat, id), &confirmed) in claim.ticket_ids.iter().enumerate().zip(&proposal.confirmed) {
        let status = TicketStatus::Proposed {
            game_id: claim.game_id.clone(),
            seat: u32::try_from(seat).unwrap_or(u32::MAX),
            table: claim.ticket_ids.clone(),
            confirmed,
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
fn matched_memory(q: &mut QueuesMem, queue: &str, game_id: &str, table: &[String]) {
    for (seat, id) in table.iter().enumerate() {
        let status = TicketStatus::Matched {
            game_id: game_id.to_owned(),
            seat: u32::try_from(seat).unwrap_or(u32::MAX),
            table: table.to_vec(),
        };
        q.finish(queue, id, status);
    }
}

/// Takes the pending proposal of `game_id` (its `table`) down on Redis, cancelling the seat
/// `cancel` names if it is that player's: false when the proposal is not pending (completed
/// or taken down meanwhile) or the seat is not the player's.
async fn withdraw_redis(
    r: &RedisBackend,
    queue: &str,
    game_id: &str,
    table: &[String],
    cancel: Option<(u32, &str)>,
) -> Result<bool, StoreError> {
    let k = &r.keys;
    let mut inv = WITHDRAW.prepare_invoke();
    inv.key(k.mm_queue(queue))
        .key(k.mm_proposals(queue))
        .key(k.mm_proposal_tables(queue));
    for id in table {
        inv.key(k.mm_ticket(queue, id));
    }
    let (seat, player) = cancel.map_or((-1, ""), |(seat, player)| (i64::from(seat), player));
    inv.arg(FINISHED_TICKET_TTL_SECS)
        .arg(game_id)
        .arg(table.join(","))
        .arg(seat)
        .arg(player);
    for id in table {
        inv.arg(id);
    }
    let reply: Vec<String> = inv
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA withdraw", "withdraw"))
        .await?;
    Ok(!reply.is_empty())
}

/// Deletes each (player, ticket) index entry that still names that ticket of `queue`, which
/// the caller saw final. Best effort (logged): an index left behind names a final ticket,
/// which every reader checks.
async fn release_indexes(r: &RedisBackend, queue: &str, released: &[(String, &str)]) {
    let results = futures::future::join_all(released.iter().map(|(player, id)| async move {
        RELEASE_INDEX
            .key(r.keys.mm_player(player))
            .arg(queue)
            .arg(*id)
            .invoke_async::<i64>(&mut r.conn.clone())
            .instrument(r.script("EVALSHA release_index", "release_index"))
            .await
    }))
    .await;
    if let Some(error) = results.into_iter().find_map(Result::err) {
        tracing::warn!(%error, queue, "could not release finished tickets' player indexes");
    }
}

/// Takes an emptied queue's name out of the queue set, then puts it back if a ticket arrived
/// (or a proposal is pending) meanwhile (an enqueue adds the name only after its ticket is in the zset, so either that
/// add comes after this removal or the second look sees the ticket). Best effort (logged).
async fn forget_queue_if_empty(r: &RedisBackend, queue: &str) {
    let outcome: Result<(), redis::RedisError> = async {
        let mut conn = r.conn.clone();
        redis::cmd("SREM")
            .arg(r.keys.mm_queues())
            .arg(queue)
            .query_async::<()>(&mut conn)
            .instrument(r.command("SREM"))
            .await?;
        let left: u64 = redis::cmd("ZCARD")
            .arg(r.keys.mm_queue(queue))
            .query_async(&mut conn)
            .instrument(r.command("ZCARD"))
            .await?;
        // A pending proposal keeps the queue listed: its matcher has to see it expire.
        let proposed: u64 = redis::cmd("ZCARD")
            .arg(r.keys.mm_proposals(queue))
            .query_async(&mut conn)
            .instrument(r.command("ZCARD"))
            .await?;
        if left + proposed > 0 {
            redis::cmd("SADD")
                .arg(r.keys.mm_queues())
                .arg(queue)
                .query_async::<()>(&mut conn)
                .instrument(r.command("SADD"))
                .await?;
        }
        Ok(())
    }
    .await;
    if let Err(error) = outcome {
        tracing::warn!(%error, queue, "could not update the queue set");
    }
}
