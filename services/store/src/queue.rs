//! [`QueueStore`]: matchmaking tickets. Any number of matchmaker replicas may race: `take`
//! matches a set of tickets all-or-nothing, so a ticket is matched at most once, and a player
//! holds at most one queued ticket across all queues.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use redis::Script;

use crate::backend::{Backend, Kind, StoreError, lock, parse_u64};

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

/// KEYS: player index, queue zset, ticket hash, queues set. ARGV: ticket id, queue, player,
/// payload, created. Returns {'1'} queued or {'0', existing ticket id}.
static ENQUEUE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local live = redis.call('HGET', KEYS[1], 'ticket')
if live then return {'0', live} end
if redis.call('EXISTS', KEYS[3]) == 1 then return {'0', ARGV[1]} end
redis.call('HSET', KEYS[3], 'queue', ARGV[2], 'player', ARGV[3], 'payload', ARGV[4],
  'created', ARGV[5], 'status', 'queued')
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[2])
redis.call('HSET', KEYS[1], 'queue', ARGV[2], 'ticket', ARGV[1])
return {'1'}
",
    )
});

/// KEYS: queue zset, queues set, ticket hashes... ARGV: game id, queue, player key prefix,
/// ttl, ticket ids..., then the ticket ids joined by commas (each ticket's `table`).
/// The player index keys are derived here from the tickets; they share the
/// `{mm}` hash tag, so this stays on one cluster slot.
static TAKE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local n = #KEYS - 2
for i = 1, n do
  if redis.call('HGET', KEYS[2 + i], 'status') ~= 'queued' then return 0 end
  if not redis.call('ZSCORE', KEYS[1], ARGV[4 + i]) then return 0 end
end
for i = 1, n do
  local t = KEYS[2 + i]
  redis.call('HSET', t, 'status', 'matched', 'game', ARGV[1], 'seat', i - 1, 'table', ARGV[5 + n])
  redis.call('EXPIRE', t, ARGV[4])
  redis.call('ZREM', KEYS[1], ARGV[4 + i])
  local pkey = ARGV[3] .. redis.call('HGET', t, 'player')
  if redis.call('HGET', pkey, 'ticket') == ARGV[4 + i] then redis.call('DEL', pkey) end
end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[2]) end
return 1
",
    )
});

/// KEYS: ticket hash, queue zset, player index, queues set. ARGV: ticket id, player, queue,
/// ttl. Returns the ticket's fields after the call, or {} if not found or not the player's.
static CANCEL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HGET', KEYS[1], 'player') ~= ARGV[2] then return {} end
if redis.call('HGET', KEYS[1], 'status') == 'queued' then
  redis.call('HSET', KEYS[1], 'status', 'cancelled')
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('ZREM', KEYS[2], ARGV[1])
  if redis.call('HGET', KEYS[3], 'ticket') == ARGV[1] then redis.call('DEL', KEYS[3]) end
  if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('SREM', KEYS[4], ARGV[3]) end
end
return redis.call('HGETALL', KEYS[1])
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
            Kind::Redis(r) => {
                let k = &r.keys;
                let reply: Vec<String> = ENQUEUE
                    .key(k.mm_player(&ticket.player_id))
                    .key(k.mm_queue(&ticket.queue))
                    .key(k.mm_ticket(&ticket.queue, &ticket.ticket_id))
                    .key(k.mm_queues())
                    .arg(&ticket.ticket_id)
                    .arg(&ticket.queue)
                    .arg(&ticket.player_id)
                    .arg(&ticket.payload)
                    .arg(ticket.created_ms)
                    .invoke_async(&mut r.conn.clone())
                    .await?;
                match reply.as_slice() {
                    [ok] if ok == "1" => Ok(EnqueueOutcome::Queued),
                    [no, id] if no == "0" => Ok(EnqueueOutcome::AlreadyQueued {
                        ticket_id: id.clone(),
                    }),
                    _ => Err(StoreError::Corrupt("bad enqueue script reply".into())),
                }
            }
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
                    .await?;
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                let mut pipe = redis::pipe();
                for id in &ids {
                    pipe.cmd("HGETALL").arg(r.keys.mm_ticket(queue, id));
                }
                let fields: Vec<HashMap<String, Vec<u8>>> = pipe.query_async(&mut conn).await?;
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

    /// Names of the queues that hold queued tickets, sorted.
    pub async fn queues(&self) -> Result<Vec<String>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let mut names: Vec<String> = redis::cmd("SMEMBERS")
                    .arg(r.keys.mm_queues())
                    .query_async(&mut r.conn.clone())
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
        let mut seen = std::collections::HashSet::new();
        if ticket_ids.is_empty() || !ticket_ids.iter().all(|id| seen.insert(id)) {
            return Ok(false);
        }
        match &self.backend.kind {
            Kind::Redis(r) => {
                let k = &r.keys;
                let mut inv = TAKE.prepare_invoke();
                inv.key(k.mm_queue(queue)).key(k.mm_queues());
                for id in ticket_ids {
                    inv.key(k.mm_ticket(queue, id));
                }
                inv.arg(game_id)
                    .arg(queue)
                    .arg(k.mm_player(""))
                    .arg(FINISHED_TICKET_TTL_SECS);
                for id in ticket_ids {
                    inv.arg(id);
                }
                // Ticket ids are `[A-Za-z0-9_-]`, so a comma separates them safely.
                inv.arg(ticket_ids.join(","));
                let taken: i64 = inv.invoke_async(&mut r.conn.clone()).await?;
                Ok(taken == 1)
            }
            Kind::Memory(m) => {
                let mut q = lock(&m.queues);
                let all_queued = ticket_ids.iter().all(|id| {
                    q.tickets
                        .get(&(queue.to_owned(), id.clone()))
                        .is_some_and(|t| t.status == TicketStatus::Queued)
                });
                if !all_queued {
                    return Ok(false);
                }
                for (seat, id) in ticket_ids.iter().enumerate() {
                    let status = TicketStatus::Matched {
                        game_id: game_id.to_owned(),
                        seat: u32::try_from(seat).unwrap_or(u32::MAX),
                        table: ticket_ids.to_vec(),
                    };
                    q.finish(queue, id, status);
                }
                Ok(true)
            }
        }
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
                    .key(k.mm_player(player_id))
                    .key(k.mm_queues())
                    .arg(ticket_id)
                    .arg(player_id)
                    .arg(queue)
                    .arg(FINISHED_TICKET_TTL_SECS)
                    .invoke_async(&mut r.conn.clone())
                    .await?;
                if flat.is_empty() {
                    return Ok(None);
                }
                let fields = flat
                    .chunks(2)
                    .filter_map(|c| match c {
                        [k, v] => Some((String::from_utf8_lossy(k).into_owned(), v.clone())),
                        _ => None,
                    })
                    .collect();
                parse_ticket(queue, ticket_id.to_owned(), fields).map(Some)
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
                let [queue, ticket]: [Option<String>; 2] = redis::cmd("HMGET")
                    .arg(r.keys.mm_player(player_id))
                    .arg("queue")
                    .arg("ticket")
                    .query_async(&mut r.conn.clone())
                    .await?;
                Ok(queue.zip(ticket))
            }
            Kind::Memory(m) => Ok(lock(&m.queues).players.get(player_id).cloned()),
        }
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
