//! [`StreamLeases`]: which seated players' event streams each gateway holds, under a lease the
//! gateway renews (issue 16). A gateway that dies stops renewing; another gateway takes its
//! streams once the lease has lapsed and closes them for it (game-state's presence count), so
//! a dead gateway's players are declared disconnected instead of counted connected forever.

use std::collections::HashMap;
use std::sync::LazyLock;

use redis::Script;

use crate::backend::{Backend, Kind, StoreError, lock};

/// One game's stream count of one player on a holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldStream {
    pub game_id: String,
    pub player_id: String,
    /// Open streams of that player on that game held by the holder.
    pub streams: u64,
}

/// (game, player) -> streams, of one holder.
type Streams = HashMap<(String, String), u64>;

/// The memory backend's leases: holder -> (lease end, its streams).
#[derive(Default)]
pub(crate) struct LeasesMem {
    holders: HashMap<String, (u64, Streams)>,
}

/// Field of a held stream in the holder's hash: ids never contain a newline.
fn field(game_id: &str, player_id: &str) -> String {
    format!("{game_id}\n{player_id}")
}

/// KEYS: holder's streams hash. ARGV: field. Decrements, deleting the field at zero.
static RELEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if n <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return n
",
    )
});

/// KEYS: holders zset, holder's streams hash. ARGV: holder, now. When the holder's lease ran
/// out by now: removes the holder and returns (and deletes) its streams; else nil. One caller
/// gets them, however many race.
static TAKE_LAPSED: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local lease_end = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not lease_end or tonumber(lease_end) > tonumber(ARGV[2]) then return false end
redis.call('ZREM', KEYS[1], ARGV[1])
local streams = redis.call('HGETALL', KEYS[2])
redis.call('DEL', KEYS[2])
return streams
",
    )
});

/// Gateways' stream leases. See the crate docs for the keys.
#[derive(Debug, Clone)]
pub struct StreamLeases {
    backend: Backend,
}

impl StreamLeases {
    /// The leases kept in `backend`.
    pub fn new(backend: Backend) -> Self {
        StreamLeases { backend }
    }

    /// Extends `holder`'s lease to `until_ms`. `Ok(true)` when the holder was not registered:
    /// it is new, or its lease lapsed and another holder took its streams (the caller then
    /// registers the streams it still holds again).
    pub async fn renew(&self, holder: &str, until_ms: u64) -> Result<bool, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let added: u64 = redis::cmd("ZADD")
                    .arg(r.keys.lease_holders())
                    .arg(until_ms)
                    .arg(holder)
                    .query_async(&mut r.conn.clone())
                    .await?;
                Ok(added == 1)
            }
            Kind::Memory(m) => {
                let mut leases = lock(&m.leases);
                let entry = leases.holders.entry(holder.to_owned());
                let new = matches!(entry, std::collections::hash_map::Entry::Vacant(_));
                entry.or_default().0 = until_ms;
                Ok(new)
            }
        }
    }

    /// Records one more stream of `player_id` on `game_id` held by `holder`.
    pub async fn hold(
        &self,
        holder: &str,
        game_id: &str,
        player_id: &str,
    ) -> Result<(), StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                redis::cmd("HINCRBY")
                    .arg(r.keys.lease_streams(holder))
                    .arg(field(game_id, player_id))
                    .arg(1)
                    .query_async::<()>(&mut r.conn.clone())
                    .await?;
                Ok(())
            }
            Kind::Memory(m) => {
                let mut leases = lock(&m.leases);
                let streams = &mut leases.holders.entry(holder.to_owned()).or_default().1;
                *streams
                    .entry((game_id.to_owned(), player_id.to_owned()))
                    .or_default() += 1;
                Ok(())
            }
        }
    }

    /// Records one stream of `player_id` on `game_id` fewer held by `holder`.
    pub async fn release(
        &self,
        holder: &str,
        game_id: &str,
        player_id: &str,
    ) -> Result<(), StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let mut invocation = RELEASE.prepare_invoke();
                invocation
                    .key(r.keys.lease_streams(holder))
                    .arg(field(game_id, player_id));
                invocation.invoke_async::<i64>(&mut r.conn.clone()).await?;
                Ok(())
            }
            Kind::Memory(m) => {
                let mut leases = lock(&m.leases);
                if let Some((_, streams)) = leases.holders.get_mut(holder) {
                    let key = (game_id.to_owned(), player_id.to_owned());
                    if let Some(n) = streams.get_mut(&key) {
                        *n = n.saturating_sub(1);
                        if *n == 0 {
                            streams.remove(&key);
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Up to `limit` holders whose lease ran out by `now_ms`.
    pub async fn lapsed(&self, now_ms: u64, limit: usize) -> Result<Vec<String>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => Ok(redis::cmd("ZRANGEBYSCORE")
                .arg(r.keys.lease_holders())
                .arg("-inf")
                .arg(now_ms)
                .arg("LIMIT")
                .arg(0)
                .arg(limit)
                .query_async(&mut r.conn.clone())
                .await?),
            Kind::Memory(m) => {
                let leases = lock(&m.leases);
                let mut lapsed: Vec<String> = leases
                    .holders
                    .iter()
                    .filter(|(_, (until, _))| *until <= now_ms)
                    .map(|(holder, _)| holder.clone())
                    .collect();
                lapsed.sort();
                lapsed.truncate(limit);
                Ok(lapsed)
            }
        }
    }

    /// Takes the streams of `holder` if its lease ran out by `now_ms` (removing the holder):
    /// `None` when it did not, or another caller took them first.
    pub async fn take_lapsed(
        &self,
        holder: &str,
        now_ms: u64,
    ) -> Result<Option<Vec<HeldStream>>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let mut invocation = TAKE_LAPSED.prepare_invoke();
                invocation
                    .key(r.keys.lease_holders())
                    .key(r.keys.lease_streams(holder))
                    .arg(holder)
                    .arg(now_ms);
                let taken: Option<Vec<(String, u64)>> =
                    invocation.invoke_async(&mut r.conn.clone()).await?;
                taken
                    .map(|pairs| pairs.into_iter().map(held_stream).collect())
                    .transpose()
            }
            Kind::Memory(m) => {
                let mut leases = lock(&m.leases);
                match leases.holders.get(holder) {
                    Some((until, _)) if *until <= now_ms => {}
                    _ => return Ok(None),
                }
                let (_, streams) = leases.holders.remove(holder).unwrap_or_default();
                let mut streams: Vec<HeldStream> = streams
                    .into_iter()
                    .map(|((game_id, player_id), streams)| HeldStream {
                        game_id,
                        player_id,
                        streams,
                    })
                    .collect();
                streams.sort_by(|a, b| (&a.game_id, &a.player_id).cmp(&(&b.game_id, &b.player_id)));
                Ok(Some(streams))
            }
        }
    }
}

fn held_stream((field, streams): (String, u64)) -> Result<HeldStream, StoreError> {
    let (game_id, player_id) = field
        .split_once('\n')
        .ok_or_else(|| StoreError::Corrupt(format!("held stream field {field:?}")))?;
    Ok(HeldStream {
        game_id: game_id.to_owned(),
        player_id: player_id.to_owned(),
        streams,
    })
}
