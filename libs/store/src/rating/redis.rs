//! [`RatingStore`](super::RatingStore) on Redis: a leaderboard zset and a hash per player
//! for each rule set, a marker per recorded game, all under the `{rating}` tag.

use std::collections::HashMap;
use std::sync::LazyLock;

use redis::Script;
use tracing::Instrument;

use super::{RatedGame, RatingEntry, RatingUpdate, RecordOutcome};
use crate::backend::StoreError;
use crate::backend::redis::{RedisBackend, parse_u64};

/// KEYS: board, player hash. Returns the player's 0-based place, or -1 when unrated. The
/// member is stored on the player hash; both keys share the `{rating}` tag.
static RANK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local member = redis.call('HGET', KEYS[2], 'member')
if not member then return -1 end
local place = redis.call('ZRANK', KEYS[1], member)
if not place then return -1 end
return place
",
    )
});

/// Records games in order, each atomically, and stops at the first that is not recorded.
/// KEYS, per game: its marker, its board, its player hashes. ARGV[1]: the number of games,
/// then per game: its number of players n, its result, then per player: expected version,
/// name, rating, games, board member, board score. Returns {games recorded, outcome of the
/// game that stopped it: 1 already recorded, 2 conflict; 0 when all were recorded}.
static RECORD_IN_ORDER: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local k, a = 1, 2
for g = 1, tonumber(ARGV[1]) do
  local n = tonumber(ARGV[a])
  local marker, board = KEYS[k], KEYS[k + 1]
  if redis.call('EXISTS', marker) == 1 then return {g - 1, 1} end
  for i = 1, n do
    local v = tonumber(redis.call('HGET', KEYS[k + 1 + i], 'version') or '0')
    if v ~= tonumber(ARGV[a + 2 + (i - 1) * 6]) then return {g - 1, 2} end
  end
  for i = 1, n do
    local b = a + 2 + (i - 1) * 6
    local key = KEYS[k + 1 + i]
    local old = redis.call('HGET', key, 'member')
    if old then redis.call('ZREM', board, old) end
    redis.call('HSET', key, 'name', ARGV[b + 1], 'rating', ARGV[b + 2], 'games', ARGV[b + 3],
      'version', tonumber(ARGV[b]) + 1, 'member', ARGV[b + 4])
    redis.call('ZADD', board, ARGV[b + 5], ARGV[b + 4])
  end
  redis.call('SET', marker, ARGV[a + 1])
  k = k + 2 + n
  a = a + 2 + 6 * n
end
return {tonumber(ARGV[1]), 0}
",
    )
});

/// The most games one run of [`RECORD_IN_ORDER`] records: Redis serves nobody else while a
/// script runs, and a game's record is a dozen commands, so a batch of game ends is written
/// in steps that each hold Redis for well under a millisecond.
const GAMES_PER_SCRIPT: usize = 32;

/// The leaderboard member: zero-padded games then id, so that among equal ratings (equal
/// scores, ordered by member bytes) fewer games come first, then the player id.
fn board_member(games: u32, player_id: &str) -> String {
    format!("{games:010}:{player_id}")
}

pub(super) async fn get(
    r: &RedisBackend,
    ruleset: &str,
    player_ids: &[String],
) -> Result<Vec<Option<RatingEntry>>, StoreError> {
    if player_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut pipe = redis::pipe();
    for p in player_ids {
        pipe.cmd("HGETALL").arg(r.keys.rating_player(ruleset, p));
    }
    let all: Vec<HashMap<String, Vec<u8>>> = pipe
        .query_async(&mut r.conn.clone())
        .instrument(r.command("BATCH HGETALL"))
        .await?;
    player_ids
        .iter()
        .zip(all)
        .map(|(p, f)| {
            if f.is_empty() {
                Ok(None)
            } else {
                parse_entry(p, f).map(Some)
            }
        })
        .collect()
}

pub(super) async fn record(
    r: &RedisBackend,
    ruleset: &str,
    game_id: &str,
    updates: &[RatingUpdate],
    result: &[u8],
) -> Result<RecordOutcome, StoreError> {
    let game = Game {
        ruleset,
        game_id,
        updates,
        result,
    };
    // `record_run` checked that a run not stopped recorded every game: this one.
    let (_, stopped) = record_run(r, std::slice::from_ref(&game)).await?;
    Ok(stopped.unwrap_or(RecordOutcome::Recorded))
}

pub(super) async fn record_in_order(
    r: &RedisBackend,
    games: &[RatedGame],
) -> Result<(usize, Option<RecordOutcome>), StoreError> {
    let games: Vec<Game<'_>> = games
        .iter()
        .map(|g| Game {
            ruleset: &g.ruleset,
            game_id: &g.game_id,
            updates: &g.updates,
            result: &g.result,
        })
        .collect();
    let mut recorded = 0;
    for chunk in games.chunks(GAMES_PER_SCRIPT) {
        let (done, stopped) = record_run(r, chunk).await?;
        recorded += done;
        if stopped.is_some() {
            return Ok((recorded, stopped));
        }
    }
    Ok((recorded, None))
}

/// A game to record, borrowed.
struct Game<'a> {
    ruleset: &'a str,
    game_id: &'a str,
    updates: &'a [RatingUpdate],
    result: &'a [u8],
}

/// One run of [`RECORD_IN_ORDER`] over `games`.
async fn record_run(
    r: &RedisBackend,
    games: &[Game<'_>],
) -> Result<(usize, Option<RecordOutcome>), StoreError> {
    let k = &r.keys;
    let mut inv = RECORD_IN_ORDER.prepare_invoke();
    inv.arg(games.len());
    for g in games {
        inv.key(k.rating_game(g.game_id))
            .key(k.rating_board(g.ruleset));
        inv.arg(g.updates.len()).arg(g.result);
        for u in g.updates {
            inv.key(k.rating_player(g.ruleset, &u.player_id));
            inv.arg(u.expected_version)
                .arg(&u.display_name)
                // `{}` prints the shortest string that parses back to the same f64.
                .arg(u.rating.to_string())
                .arg(u.games)
                .arg(board_member(u.games, &u.player_id))
                // Ascending scores of -rating give highest ratings first.
                .arg((-u.rating).to_string());
        }
    }
    let (recorded, outcome): (usize, i64) = inv
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA record", "record"))
        .await?;
    let stopped = match outcome {
        0 => None,
        1 => Some(RecordOutcome::AlreadyRecorded),
        2 => Some(RecordOutcome::Conflict),
        _ => return Err(StoreError::Corrupt("bad record script reply".into())),
    };
    // A run not stopped recorded every game; a stopped one names the game it stopped at.
    let complete = recorded == games.len();
    if recorded > games.len() || stopped.is_none() != complete {
        return Err(StoreError::Corrupt("bad record script reply".into()));
    }
    Ok((recorded, stopped))
}

pub(super) async fn record_unrated(
    r: &RedisBackend,
    game_id: &str,
    result: &[u8],
) -> Result<bool, StoreError> {
    let set: Option<String> = r
        .query("SET", (r.keys.rating_game(game_id), result, "NX"))
        .await?;
    Ok(set.is_some())
}

pub(super) async fn result(r: &RedisBackend, game_id: &str) -> Result<Option<Vec<u8>>, StoreError> {
    r.query("GET", r.keys.rating_game(game_id)).await
}

pub(super) async fn results(
    r: &RedisBackend,
    game_ids: &[String],
) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
    // Every marker is under the `{rating}` tag: one slot, so one MGET on a cluster too.
    let keys: Vec<String> = game_ids.iter().map(|g| r.keys.rating_game(g)).collect();
    let found: Vec<Option<Vec<u8>>> = r.query("MGET", keys).await?;
    if found.len() != game_ids.len() {
        return Err(StoreError::Corrupt(
            "MGET answered a different count".into(),
        ));
    }
    Ok(found)
}

pub(super) async fn rank(
    r: &RedisBackend,
    ruleset: &str,
    player_id: &str,
) -> Result<Option<u64>, StoreError> {
    let place: i64 = RANK
        .key(r.keys.rating_board(ruleset))
        .key(r.keys.rating_player(ruleset, player_id))
        .invoke_async(&mut r.conn.clone())
        .instrument(r.script("EVALSHA rank", "rank"))
        .await?;
    Ok(u64::try_from(place).ok())
}

pub(super) async fn top(
    r: &RedisBackend,
    ruleset: &str,
    offset: usize,
    n: usize,
) -> Result<Vec<RatingEntry>, StoreError> {
    let mut conn = r.conn.clone();
    let members: Vec<String> = redis::cmd("ZRANGE")
        .arg(r.keys.rating_board(ruleset))
        .arg(offset)
        .arg(offset + n - 1)
        .query_async(&mut conn)
        .instrument(r.command("ZRANGE"))
        .await?;
    let ids: Vec<&str> = members
        .iter()
        .map(|m| {
            m.get(11..)
                .ok_or_else(|| StoreError::Corrupt("bad leaderboard member".into()))
        })
        .collect::<Result<_, _>>()?;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut pipe = redis::pipe();
    for id in &ids {
        pipe.cmd("HGETALL").arg(r.keys.rating_player(ruleset, id));
    }
    let all: Vec<HashMap<String, Vec<u8>>> = pipe
        .query_async(&mut conn)
        .instrument(r.command("BATCH HGETALL"))
        .await?;
    ids.iter()
        .zip(all)
        // Empty: the player was rewritten between the two reads; skip, not fail.
        .filter(|(_, f)| !f.is_empty())
        .map(|(id, f)| parse_entry(id, f))
        .collect()
}

fn parse_entry(
    player_id: &str,
    mut f: HashMap<String, Vec<u8>>,
) -> Result<RatingEntry, StoreError> {
    let mut take = |name: &str| {
        f.remove(name)
            .ok_or_else(|| StoreError::Corrupt(format!("rating of {player_id} has no {name}")))
    };
    let display_name = String::from_utf8(take("name")?)
        .map_err(|_| StoreError::Corrupt("display name not utf-8".into()))?;
    let rating = std::str::from_utf8(&take("rating")?)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .ok_or_else(|| StoreError::Corrupt(format!("rating of {player_id} is not a number")))?;
    let games = u32::try_from(parse_u64("games", &take("games")?)?)
        .map_err(|_| StoreError::Corrupt("games too large".into()))?;
    let version = parse_u64("rating version", &take("version")?)?;
    Ok(RatingEntry {
        player_id: player_id.to_owned(),
        display_name,
        rating,
        games,
        version,
    })
}
