//! [`QueueStore`](super::QueueStore) on Redis: each queue under its own hash tag (its zset,
//! tickets, proposals and matching lease), the player's index in the player's own slot, and
//! the scripts and two-step protocols of the module docs of `queue`.

use std::collections::HashMap;
use std::sync::LazyLock;
use std::time::Duration;

use redis::Script;
use tracing::Instrument;

use super::{
    Confirmation, EnqueueOutcome, FINISHED_TICKET_TTL_SECS, SeatConfirmation, TableOutcome,
    TableProposal, Ticket, TicketStatus,
};
use crate::backend::StoreError;
use crate::backend::redis::{RedisBackend, parse_u64};

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

/// KEYS: queue zset, ticket hash. ARGV: ticket id, queue, player, payload, created, lease end
/// ('' for none). Writes the ticket unless one with its id exists: returns {'1'} queued, or
/// {'0', its status}.
static ENQUEUE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local status = redis.call('HGET', KEYS[2], 'status')
if status then return {'0', status} end
redis.call('HSET', KEYS[2], 'queue', ARGV[2], 'player', ARGV[3], 'payload', ARGV[4],
  'created', ARGV[5], 'status', 'queued')
if ARGV[6] ~= '' then redis.call('HSET', KEYS[2], 'alive', ARGV[6]) end
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

/// The most expired proposals one [`super::QueueStore::expire_proposals`] takes down (the next
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
/// ids joined by commas, then per ticket its `confirmed` ('0': waits for its confirmation,
/// 'start': confirmed from the start, else the time its proposer saw it confirmed). Each
/// table is all-or-nothing on its own. Returns '1' when the queue holds nothing afterwards,
/// neither queued tickets nor proposals (else '0'), then per table '0' (lost), '1' (proposed)
/// or '2' and the players of its n tickets (matched: no ticket waits; one confirmed at a time
/// keeps that time, as a confirmation's does). Only the queue's own slot: the players'
/// indexes are released afterwards by the caller.
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
  local confirmed = ids + n + 1
  local ok = true
  local waits = false
  for i = 0, n - 1 do
    if redis.call('HGET', KEYS[key + i], 'status') ~= 'queued'
      or not redis.call('ZSCORE', KEYS[1], ARGV[ids + i]) then ok = false break end
    if ARGV[confirmed + i] == '0' then waits = true end
  end
  if not ok then
    out[#out + 1] = '0'
  elseif not waits then
    out[#out + 1] = '2'
    for i = 0, n - 1 do
      local tk = KEYS[key + i]
      redis.call('HSET', tk, 'status', 'matched', 'game', game, 'seat', i, 'table', csv)
      if ARGV[confirmed + i] ~= 'start' then
        redis.call('HSET', tk, 'confirmed', ARGV[confirmed + i])
      end
      redis.call('EXPIRE', tk, ARGV[1])
      redis.call('ZREM', KEYS[1], ARGV[ids + i])
      out[#out + 1] = redis.call('HGET', tk, 'player') or ''
    end
  else
    out[#out + 1] = '1'
    for i = 0, n - 1 do
      redis.call('HSET', KEYS[key + i], 'status', 'proposed', 'game', game, 'seat', i,
        'table', csv, 'confirmed', ARGV[confirmed + i])
      redis.call('ZREM', KEYS[1], ARGV[ids + i])
    end
    redis.call('ZADD', KEYS[2], ARGV[3], game)
    redis.call('HSET', KEYS[3], game, csv)
  end
  key = key + n
  a = confirmed + n
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

pub(super) async fn queued(
    r: &RedisBackend,
    queue: &str,
    limit: usize,
) -> Result<Vec<Ticket>, StoreError> {
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

pub(super) async fn keep_alive(
    r: &RedisBackend,
    queue: &str,
    ticket_id: &str,
    until_ms: u64,
) -> Result<bool, StoreError> {
    let queued: u64 = KEEP_ALIVE
        .key(r.keys.mm_ticket(queue, ticket_id))
        .arg(until_ms)
        .invoke_async(&mut r.conn.clone())
        .await?;
    Ok(queued == 1)
}

pub(super) async fn lease_ends(
    r: &RedisBackend,
    queue: &str,
    ticket_ids: &[&str],
) -> Result<Vec<Option<u64>>, StoreError> {
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

pub(super) async fn queues(r: &RedisBackend) -> Result<Vec<String>, StoreError> {
    let mut names: Vec<String> = r.query("SMEMBERS", r.keys.mm_queues()).await?;
    names.sort();
    Ok(names)
}

pub(super) async fn confirm_seat(
    r: &RedisBackend,
    queue: &str,
    ticket_id: &str,
    seat: u32,
    table: Vec<String>,
    game_id: &str,
    now_ms: u64,
) -> Result<Confirmation, StoreError> {
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
            ticket(r, queue, ticket_id).await?,
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

pub(super) async fn lease_queue(
    r: &RedisBackend,
    queue: &str,
    holder: &str,
    ttl: Duration,
) -> Result<bool, StoreError> {
    let held: i64 = LEASE
        .key(r.keys.mm_lease(queue))
        .arg(holder)
        .arg(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1))
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA lease", "lease"))
        .await?;
    Ok(held == 1)
}

pub(super) async fn publish_notice(r: &RedisBackend, payload: String) -> Result<(), StoreError> {
    // The feed's `<seq>:<bytes>` framing, seq unused.
    let mut message = b"0:".to_vec();
    message.extend_from_slice(payload.as_bytes());
    let command = r.publish.command();
    let _: i64 = r.query(command, (r.keys.mm_settled(), message)).await?;
    Ok(())
}

pub(super) async fn cancel_ticket(
    r: &RedisBackend,
    ticket_id: &str,
    queue: &str,
    player_id: &str,
) -> Result<(Option<Ticket>, Vec<String>), StoreError> {
    // A proposal resolved between the read and its withdrawal is read again;
    // each round is lost only to a step of the ticket towards final.
    for _ in 0..CANCEL_ATTEMPTS {
        let Some(ticket) = cancel_queued(r, queue, ticket_id, player_id).await? else {
            return Ok((None, Vec::new()));
        };
        let TicketStatus::Proposed {
            game_id,
            seat,
            table,
            ..
        } = &ticket.status
        else {
            return Ok((Some(ticket), Vec::new()));
        };
        let cancel = (*seat, player_id);
        if withdraw(r, queue, game_id, table, Some(cancel)).await? {
            release_indexes(r, queue, &[(player_id.to_owned(), ticket_id)]).await;
            let others: Vec<String> = table
                .iter()
                .filter(|id| *id != ticket_id)
                .cloned()
                .collect();
            return Ok((self::ticket(r, queue, ticket_id).await?, others));
        }
    }
    Err(StoreError::Unavailable(format!(
        "ticket {ticket_id} changed {CANCEL_ATTEMPTS} times during one cancel; retry"
    )))
}

pub(super) async fn confirmed_at(
    r: &RedisBackend,
    queue: &str,
    ticket_id: &str,
) -> Result<Option<u64>, StoreError> {
    let at: Option<Vec<u8>> = r
        .query("HGET", (r.keys.mm_ticket(queue, ticket_id), "confirmed"))
        .await?;
    // '0' (not yet) and 'start' are not times.
    Ok(at
        .and_then(|at| parse_u64("ticket confirmed", &at).ok())
        .filter(|&ms| ms > 0))
}

pub(super) async fn ticket(
    r: &RedisBackend,
    queue: &str,
    ticket_id: &str,
) -> Result<Option<Ticket>, StoreError> {
    Ok(ticket_and_lease(r, queue, ticket_id)
        .await?
        .map(|(ticket, _)| ticket))
}

pub(super) async fn ticket_and_lease(
    r: &RedisBackend,
    queue: &str,
    ticket_id: &str,
) -> Result<Option<(Ticket, Option<u64>)>, StoreError> {
    let mut fields: HashMap<String, Vec<u8>> = r
        .query("HGETALL", r.keys.mm_ticket(queue, ticket_id))
        .await?;
    if fields.is_empty() {
        return Ok(None);
    }
    let lease = fields
        .remove("alive")
        .map(|end| parse_u64("ticket lease", &end))
        .transpose()?;
    Ok(Some((
        parse_ticket(queue, ticket_id.to_owned(), fields)?,
        lease,
    )))
}

pub(super) async fn live_ticket(
    r: &RedisBackend,
    player_id: &str,
) -> Result<Option<(String, String)>, StoreError> {
    let Some((queue, ticket)) = read_index(r, player_id).await? else {
        return Ok(None);
    };
    // The index may outlive its ticket (see the module docs): only a queued
    // ticket is live.
    let status: Option<Vec<u8>> = r
        .query("HGET", (r.keys.mm_ticket(&queue, &ticket), "status"))
        .await?;
    let live = matches!(status.as_deref(), Some(b"queued" | b"proposed"));
    Ok(live.then_some((queue, ticket)))
}

/// The proposals of `queue` past their deadline, each taken down by its own script.
pub(super) async fn expire_proposals(
    r: &RedisBackend,
    queue: &str,
    now_ms: u64,
) -> Result<Vec<String>, StoreError> {
    let k = &r.keys;
    let games: Vec<String> = r
        .query(
            "ZRANGEBYSCORE",
            (
                k.mm_proposals(queue),
                "-inf",
                format!("({now_ms}"),
                "LIMIT",
                0,
                EXPIRE_BATCH,
            ),
        )
        .await?;
    let mut requeued = Vec::new();
    for game in games {
        let csv: Option<String> = r
            .query("HGET", (k.mm_proposal_tables(queue), &game))
            .await?;
        let Some(csv) = csv else {
            // Completed or taken down since the read.
            continue;
        };
        let table: Vec<String> = csv.split(',').map(str::to_owned).collect();
        if withdraw(r, queue, &game, &table, None).await? {
            requeued.extend(table);
        }
    }
    Ok(requeued)
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
    let [queue, ticket]: [Option<String>; 2] = r
        .query("HMGET", (r.keys.mm_player(player_id), "queue", "ticket"))
        .await?;
    Ok(queue.zip(ticket))
}

/// [`super::QueueStore::enqueue`] on Redis: the two-step protocol of the module docs.
pub(super) async fn enqueue(
    r: &RedisBackend,
    ticket: &Ticket,
    alive_until_ms: Option<u64>,
) -> Result<EnqueueOutcome, StoreError> {
    let k = &r.keys;
    let index = k.mm_player(&ticket.player_id);
    let ours = (ticket.queue.as_str(), ticket.ticket_id.as_str());
    // First guess an empty index (most enqueues): the compare-and-set checks the guess, and a
    // wrong one costs the read it skipped (module docs of `queue`).
    let mut guess_empty = true;
    for _ in 0..ENQUEUE_ATTEMPTS {
        let current = if std::mem::take(&mut guess_empty) {
            None
        } else {
            read_index(r, &ticket.player_id).await?
        };
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
                // The index was not empty after all, or another enqueue of this player moved
                // it first: look again.
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
            .arg(alive_until_ms.map_or(String::new(), |until| until.to_string()))
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
            r.query::<()>("SADD", (k.mm_queues(), &ticket.queue))
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

/// [`super::QueueStore::cancel`] of a queued ticket on Redis (one script): the ticket as it stands
/// after it (a proposed ticket is left to the caller), `None` if not found or not the
/// player's.
async fn cancel_queued(
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

/// [`super::QueueStore::propose_tables`] on Redis: one script for every table.
pub(super) async fn propose_tables(
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
        for seat in &proposal.confirmed {
            match seat {
                SeatConfirmation::Pending => inv.arg("0"),
                SeatConfirmation::FromStart => inv.arg("start"),
                SeatConfirmation::PresentAt(ms) => inv.arg((*ms).max(1)),
            };
        }
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

/// Takes the pending proposal of `game_id` (its `table`) down on Redis, cancelling the seat
/// `cancel` names if it is that player's: false when the proposal is not pending (completed
/// or taken down meanwhile) or the seat is not the player's.
async fn withdraw(
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
    let outcome: Result<(), StoreError> = async {
        r.query::<()>("SREM", (r.keys.mm_queues(), queue)).await?;
        let left: u64 = r.query("ZCARD", r.keys.mm_queue(queue)).await?;
        // A pending proposal keeps the queue listed: its matcher has to see it expire.
        let proposed: u64 = r.query("ZCARD", r.keys.mm_proposals(queue)).await?;
        if left + proposed > 0 {
            r.query::<()>("SADD", (r.keys.mm_queues(), queue)).await?;
        }
        Ok(())
    }
    .await;
    if let Err(error) = outcome {
        tracing::warn!(%error, queue, "could not update the queue set");
    }
}
