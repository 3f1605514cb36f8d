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
//! queue holding tickets is never left out.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use redis::Script;
use tracing::Instrument;

use crate::backend::{Backend, Kind, RedisBackend, StoreError, lock, parse_u64};
use crate::feed::{FeedError, FeedSubscription, subscribe_channel};
use crate::game::StoredEvent;

/// The memory backend's hub key for ticket notices (game ids never contain braces).
const SETTLED_MEMORY_KEY: &str = "{mm}:settled";

/// One table to claim with [`QueueStore::take_tables`]: its game and its tickets in seat
/// order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableClaim {
    /// The game the table will play, chosen before the claim.
    pub game_id: String,
    /// The tickets, in seat order.
    pub ticket_ids: Vec<String>,
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
    /// Cancelled by its player before it was matched.
    Cancelled,
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
}

impl QueuesMem {
    fn finish(&mut self, queue: &str, ticket_id: &str, status: TicketStatus) {
        let key = (queue.to_owned(), ticket_id.to_owned());
        let Some(t) = self.tickets.get_mut(&key) else {
            return;
        };
        t.status = status;
        let player = t.player_id.clone();
        if let Some(q) = self.queues.get_mut(queue) {
            q.retain(|(_, id)| id != ticket_id);
            if q.is_empty() {
                self.queues.remove(queue);
            }
        }
        if self.players.get(&player) == Some(&key) {
            self.players.remove(&player);
        }
    }
}

/// KEYS: ticket hash. ARGV: lease end. Extends a queued ticket's lease; 1 when it is queued.
static KEEP_ALIVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HGET', KEYS[1], 'status') ~= 'queued' then return 0 end
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

/// How many times an enqueue re-reads a player's index that another enqueue of the same
/// player moved under it before it gives up (a client racing itself). Each move that beats
/// an enqueue takes the mover out of the race (it goes on to write its ticket or finds it
/// tombstoned), so an enqueue loses at most once per rival: 32 is more than one player's
/// concurrent enqueues ever are.
const ENQUEUE_ATTEMPTS: usize = 32;

/// KEYS: queue zset, then every table's ticket hashes in order. ARGV: ttl, table count, then
/// per table: game id, n, its n ticket ids, the ids joined by commas. Each table is
/// all-or-nothing on its own. Returns '1' when the queue is empty afterwards (else '0'), then
/// per table '1' and the players of its n tickets (taken) or '0'. Only the queue's own slot:
/// the players' indexes are released afterwards by the caller.
static TAKE_TABLES: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local key = 2
local a = 3
local out = {}
for t = 1, tonumber(ARGV[2]) do
  local game = ARGV[a]
  local n = tonumber(ARGV[a + 1])
  local ids = a + 2
  local csv = ARGV[ids + n]
  local ok = 1
  for i = 0, n - 1 do
    if redis.call('HGET', KEYS[key + i], 'status') ~= 'queued'
      or not redis.call('ZSCORE', KEYS[1], ARGV[ids + i]) then ok = 0 break end
  end
  out[#out + 1] = tostring(ok)
  if ok == 1 then
    for i = 0, n - 1 do
      local tk = KEYS[key + i]
      redis.call('HSET', tk, 'status', 'matched', 'game', game, 'seat', i, 'table', csv)
      redis.call('EXPIRE', tk, ARGV[1])
      redis.call('ZREM', KEYS[1], ARGV[ids + i])
      out[#out + 1] = redis.call('HGET', tk, 'player') or ''
    end
  end
  key = key + n
  a = ids + n + 1
end
local empty = '0'
if redis.call('ZCARD', KEYS[1]) == 0 then empty = '1' end
table.insert(out, 1, empty)
return out
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
    /// seating a player nobody waits for (issue 16). `Ok(false)` when the ticket is not queued.
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
                let queued = q
                    .tickets
                    .get(&key)
                    .is_some_and(|t| t.status == TicketStatus::Queued);
                if queued {
                    q.alive.insert(key, until_ms);
                }
                Ok(queued)
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

    /// Names of the queues that hold queued tickets, sorted.
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
                let mut names: Vec<String> = lock(&m.queues).queues.keys().cloned().collect();
                names.sort();
                Ok(names)
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
    /// if it appears in two claims. Returns whether each table was taken.
    pub async fn take_tables(
        &self,
        queue: &str,
        tables: &[TableClaim],
    ) -> Result<Vec<bool>, StoreError> {
        // An empty table or a repeated id within one table is refused without a look.
        let well_formed: Vec<bool> = tables
            .iter()
            .map(|t| {
                let mut seen = std::collections::HashSet::new();
                !t.ticket_ids.is_empty() && t.ticket_ids.iter().all(|id| seen.insert(id))
            })
            .collect();
        let claims: Vec<&TableClaim> = tables
            .iter()
            .zip(&well_formed)
            .filter_map(|(t, ok)| ok.then_some(t))
            .collect();
        if claims.is_empty() {
            return Ok(well_formed);
        }
        let taken: Vec<bool> = match &self.backend.kind {
            Kind::Redis(r) => {
                let k = &r.keys;
                let mut inv = TAKE_TABLES.prepare_invoke();
                inv.key(k.mm_queue(queue));
                inv.arg(FINISHED_TICKET_TTL_SECS).arg(claims.len());
                for claim in &claims {
                    inv.arg(&claim.game_id).arg(claim.ticket_ids.len());
                    for id in &claim.ticket_ids {
                        inv.key(k.mm_ticket(queue, id));
                        inv.arg(id);
                    }
                    // Ticket ids are `[A-Za-z0-9_-]`, so a comma separates them safely.
                    inv.arg(claim.ticket_ids.join(","));
                }
                let reply: Vec<String> = inv
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA take_tables", "take_tables"))
                    .await?;
                let bad = || StoreError::Corrupt("bad take script reply".into());
                let mut reply = reply.into_iter();
                let empty = reply.next().ok_or_else(bad)? == "1";
                let mut taken = Vec::with_capacity(claims.len());
                let mut released = Vec::new();
                for claim in &claims {
                    let ok = reply.next().ok_or_else(bad)? == "1";
                    if ok {
                        for id in &claim.ticket_ids {
                            released.push((reply.next().ok_or_else(bad)?, id.as_str()));
                        }
                    }
                    taken.push(ok);
                }
                // The take is done: what follows only tidies up, and a failure there must
                // not make the caller believe the tables were not taken.
                release_indexes(r, queue, &released).await;
                if empty {
                    forget_queue_if_empty(r, queue).await;
                }
                taken
            }
            Kind::Memory(m) => {
                let mut q = lock(&m.queues);
                claims
                    .iter()
                    .map(|claim| {
                        let all_queued = claim.ticket_ids.iter().all(|id| {
                            q.tickets
                                .get(&(queue.to_owned(), id.clone()))
                                .is_some_and(|t| t.status == TicketStatus::Queued)
                        });
                        if all_queued {
                            for (seat, id) in claim.ticket_ids.iter().enumerate() {
                                let status = TicketStatus::Matched {
                                    game_id: claim.game_id.clone(),
                                    seat: u32::try_from(seat).unwrap_or(u32::MAX),
                                    table: claim.ticket_ids.clone(),
                                };
                                q.finish(queue, id, status);
                            }
                        }
                        all_queued
                    })
                    .collect()
            }
        };
        let mut taken = taken.into_iter();
        Ok(well_formed
            .into_iter()
            .map(|ok| ok && taken.next().unwrap_or(false))
            .collect())
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
        if ticket_ids.is_empty() {
            return Ok(());
        }
        let payload = ticket_ids.join(",");
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
                    SETTLED_MEMORY_KEY,
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
        let channel = match &self.backend.kind {
            Kind::Redis(r) => r.keys.mm_settled(),
            Kind::Memory(_) => String::new(),
        };
        Ok(SettledSubscription {
            inner: subscribe_channel(&self.backend, SETTLED_MEMORY_KEY, channel).await?,
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
                // Cancelled or matched: final either way, so the index may go.
                release_indexes(r, queue, &[(player_id.to_owned(), ticket_id)]).await;
                if empty.as_slice() == b"1" {
                    forget_queue_if_empty(r, queue).await;
                }
                Ok(Some(ticket))
            }
            Kind::Memory(m) => {
                let mut q = lock(&m.queues);
                let key = (queue.to_owned(), ticket_id.to_owned());
                match q.tickets.get(&key) {
                    Some(t) if t.player_id == player_id => {
                        if t.status == TicketStatus::Queued {
                            q.finish(queue, ticket_id, TicketStatus::Cancelled);
                        }
                        Ok(q.tickets.get(&key).cloned())
                    }
                    _ => Ok(None),
                }
            }
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

    /// The player's queued ticket, if any: (queue, ticket id).
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
                Ok((status.as_deref() == Some(b"queued")).then_some((queue, ticket)))
            }
            Kind::Memory(m) => Ok(lock(&m.queues).players.get(player_id).cloned()),
        }
    }
}

/// Notices of settled tickets from every replica.
#[derive(Debug)]
pub struct SettledSubscription {
    inner: FeedSubscription,
}

impl SettledSubscription {
    /// The ids of the next notice. [`FeedError::Lagged`] means notices may have been missed:
    /// re-read every watched ticket.
    pub async fn recv(&mut self) -> Result<Vec<String>, FeedError> {
        let notice = self.inner.recv().await?;
        Ok(String::from_utf8_lossy(&notice.payload)
            .split(',')
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
            .collect())
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
                if status == "queued" {
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
                (outcome, status == "queued")
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
/// meanwhile (an enqueue adds the name only after its ticket is in the zset, so either that
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
        if left > 0 {
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
