//! [`StreamLeases`](super::StreamLeases) on Redis: the holders' zset (scored by lease end)
//! and one streams hash per holder.

use std::sync::LazyLock;

use redis::Script;

use super::HeldStream;
use crate::backend::StoreError;
use crate::backend::redis::RedisBackend;

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

pub(super) async fn renew(
    r: &RedisBackend,
    holder: &str,
    until_ms: u64,
) -> Result<bool, StoreError> {
    let added: u64 = redis::cmd("ZADD")
        .arg(r.keys.lease_holders())
        .arg(until_ms)
        .arg(holder)
        .query_async(&mut r.conn.clone())
        .await?;
    Ok(added == 1)
}

pub(super) async fn hold(
    r: &RedisBackend,
    holder: &str,
    game_id: &str,
    player_id: &str,
) -> Result<(), StoreError> {
    redis::cmd("HINCRBY")
        .arg(r.keys.lease_streams(holder))
        .arg(field(game_id, player_id))
        .arg(1)
        .query_async::<()>(&mut r.conn.clone())
        .await?;
    Ok(())
}

pub(super) async fn release(
    r: &RedisBackend,
    holder: &str,
    game_id: &str,
    player_id: &str,
) -> Result<(), StoreError> {
    let mut invocation = RELEASE.prepare_invoke();
    invocation
        .key(r.keys.lease_streams(holder))
        .arg(field(game_id, player_id));
    invocation.invoke_async::<i64>(&mut r.conn.clone()).await?;
    Ok(())
}

pub(super) async fn lapsed(
    r: &RedisBackend,
    now_ms: u64,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    Ok(redis::cmd("ZRANGEBYSCORE")
        .arg(r.keys.lease_holders())
        .arg("-inf")
        .arg(now_ms)
        .arg("LIMIT")
        .arg(0)
        .arg(limit)
        .query_async(&mut r.conn.clone())
        .await?)
}

pub(super) async fn take_lapsed(
    r: &RedisBackend,
    holder: &str,
    now_ms: u64,
) -> Result<Option<Vec<HeldStream>>, StoreError> {
    let mut invocation = TAKE_LAPSED.prepare_invoke();
    invocation
        .key(r.keys.lease_holders())
        .key(r.keys.lease_streams(holder))
        .arg(holder)
        .arg(now_ms);
    let taken: Option<Vec<(String, u64)>> = invocation.invoke_async(&mut r.conn.clone()).await?;
    taken
        .map(|pairs| pairs.into_iter().map(held_stream).collect())
        .transpose()
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
