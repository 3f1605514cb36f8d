//! [`RatingStore`]: ratings per rule set, leaderboards, and the per-game marker that makes
//! recording a game's result idempotent.

use std::collections::HashMap;
use std::sync::LazyLock;

use redis::Script;
use tracing::Instrument;

use crate::backend::memory::lock;
use crate::backend::redis::parse_u64;
use crate::backend::{Backend, Kind, StoreError};

/// A player's rating in one rule set.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingEntry {
    /// The player.
    pub player_id: String,
    /// The name shown on leaderboards.
    pub display_name: String,
    /// The rating.
    pub rating: f64,
    /// Rated games played.
    pub games: u32,
    /// Bumped by every write; pass it back as [`RatingUpdate::expected_version`].
    pub version: u64,
}

/// What [`RatingStore::record`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordOutcome {
    /// Every update was written.
    Recorded,
    /// The game was recorded before: nothing written.
    AlreadyRecorded,
    /// Some player's version changed since it was read: nothing written; re-read and retry.
    Conflict,
}

/// One player's new rating, conditional on the version it was computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingUpdate {
    /// The player.
    pub player_id: String,
    /// The name to show.
    pub display_name: String,
    /// The version read (0 = the player had no rating).
    pub expected_version: u64,
    /// The new rating; must be finite.
    pub rating: f64,
    /// The new number of rated games.
    pub games: u32,
}

/// Ratings and leaderboards. See the crate docs for the Redis keys.
#[derive(Debug, Clone)]
pub struct RatingStore {
    backend: Backend,
}

#[derive(Default)]
pub(crate) struct RatingsMem {
    /// ruleset -> player -> entry.
    players: HashMap<String, HashMap<String, RatingEntry>>,
    /// game id -> result bytes.
    results: HashMap<String, Vec<u8>>,
}

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

/// KEYS: game marker, board, player hashes... ARGV: result, then per player: expected
/// version, name, rating, games, board member, board score. Returns 0 recorded, 1 already
/// recorded, 2 conflict.
static RECORD: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
local n = #KEYS - 2
for i = 1, n do
  local v = tonumber(redis.call('HGET', KEYS[2 + i], 'version') or '0')
  if v ~= tonumber(ARGV[2 + (i - 1) * 6]) then return 2 end
end
for i = 1, n do
  local b = 2 + (i - 1) * 6
  local key = KEYS[2 + i]
  local old = redis.call('HGET', key, 'member')
  if old then redis.call('ZREM', KEYS[2], old) end
  redis.call('HSET', key, 'name', ARGV[b + 1], 'rating', ARGV[b + 2], 'games', ARGV[b + 3],
    'version', tonumber(ARGV[b]) + 1, 'member', ARGV[b + 4])
  redis.call('ZADD', KEYS[2], ARGV[b + 5], ARGV[b + 4])
end
redis.call('SET', KEYS[1], ARGV[1])
return 0
",
    )
});

/// The leaderboard member: zero-padded games then id, so that among equal ratings (equal
/// scores, ordered by member bytes) fewer games come first, then the player id.
fn board_member(games: u32, player_id: &str) -> String {
    format!("{games:010}:{player_id}")
}

impl RatingStore {
    /// A rating store over `backend`.
    pub fn new(backend: Backend) -> Self {
        RatingStore { backend }
    }

    /// The players' entries in `ruleset`, in the order asked; missing players are `None`.
    pub async fn get(
        &self,
        ruleset: &str,
        player_ids: &[String],
    ) -> Result<Vec<Option<RatingEntry>>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
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
            Kind::Memory(m) => {
                let ratings = lock(&m.ratings);
                let board = ratings.players.get(ruleset);
                Ok(player_ids
                    .iter()
                    .map(|p| board.and_then(|b| b.get(p)).cloned())
                    .collect())
            }
        }
    }

    /// Atomically: `AlreadyRecorded` if the game was recorded before; `Conflict` if any
    /// player's version is not its `expected_version` (0 = absent); else writes every update
    /// (version + 1), updates the leaderboard and stores `result` as the game's marker.
    /// Player ids must be distinct; ratings must be finite.
    pub async fn record(
        &self,
        ruleset: &str,
        game_id: &str,
        updates: &[RatingUpdate],
        result: &[u8],
    ) -> Result<RecordOutcome, StoreError> {
        if let Some(u) = updates.iter().find(|u| !u.rating.is_finite()) {
            return Err(StoreError::Corrupt(format!(
                "rating of {} is not finite",
                u.player_id
            )));
        }
        match &self.backend.kind {
            Kind::Redis(r) => {
                let k = &r.keys;
                let mut inv = RECORD.prepare_invoke();
                inv.key(k.rating_game(game_id)).key(k.rating_board(ruleset));
                inv.arg(result);
                for u in updates {
                    inv.key(k.rating_player(ruleset, &u.player_id));
                    inv.arg(u.expected_version)
                        .arg(&u.display_name)
                        // `{}` prints the shortest string that parses back to the same f64.
                        .arg(u.rating.to_string())
                        .arg(u.games)
                        .arg(board_member(u.games, &u.player_id))
                        // Ascending scores of -rating give highest ratings first.
                        .arg((-u.rating).to_string());
                }
                let outcome: i64 = inv
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA record", "record"))
                    .await?;
                match outcome {
                    0 => Ok(RecordOutcome::Recorded),
                    1 => Ok(RecordOutcome::AlreadyRecorded),
                    2 => Ok(RecordOutcome::Conflict),
                    _ => Err(StoreError::Corrupt("bad record script reply".into())),
                }
            }
            Kind::Memory(m) => {
                let mut ratings = lock(&m.ratings);
                if ratings.results.contains_key(game_id) {
                    return Ok(RecordOutcome::AlreadyRecorded);
                }
                let board = ratings.players.entry(ruleset.to_owned()).or_default();
                let conflict = updates.iter().any(|u| {
                    board.get(&u.player_id).map_or(0, |e| e.version) != u.expected_version
                });
                if conflict {
                    return Ok(RecordOutcome::Conflict);
                }
                for u in updates {
                    board.insert(
                        u.player_id.clone(),
                        RatingEntry {
                            player_id: u.player_id.clone(),
                            display_name: u.display_name.clone(),
                            rating: u.rating,
                            games: u.games,
                            version: u.expected_version + 1,
                        },
                    );
                }
                ratings.results.insert(game_id.to_owned(), result.to_vec());
                Ok(RecordOutcome::Recorded)
            }
        }
    }

    /// Marks a game as handled without rating changes (e.g. cancelled), storing `result`.
    /// False (nothing written) if the game was already recorded, rated or not.
    pub async fn record_unrated(&self, game_id: &str, result: &[u8]) -> Result<bool, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let set: Option<String> = redis::cmd("SET")
                    .arg(r.keys.rating_game(game_id))
                    .arg(result)
                    .arg("NX")
                    .query_async(&mut r.conn.clone())
                    .instrument(r.command("SET"))
                    .await?;
                Ok(set.is_some())
            }
            Kind::Memory(m) => {
                let mut ratings = lock(&m.ratings);
                if ratings.results.contains_key(game_id) {
                    return Ok(false);
                }
                ratings.results.insert(game_id.to_owned(), result.to_vec());
                Ok(true)
            }
        }
    }

    /// The result stored when the game was recorded, if it was.
    pub async fn result(&self, game_id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => Ok(redis::cmd("GET")
                .arg(r.keys.rating_game(game_id))
                .query_async(&mut r.conn.clone())
                .instrument(r.command("GET"))
                .await?),
            Kind::Memory(m) => Ok(lock(&m.ratings).results.get(game_id).cloned()),
        }
    }

    /// A player's 0-based place on the leaderboard ([`RatingStore::top`]'s order), in one
    /// call; `None` for a player without a rating in this pool.
    pub async fn rank(&self, ruleset: &str, player_id: &str) -> Result<Option<u64>, StoreError> {
        match &self.backend.kind {
            Kind::Redis(r) => {
                let place: i64 = RANK
                    .key(r.keys.rating_board(ruleset))
                    .key(r.keys.rating_player(ruleset, player_id))
                    .invoke_async(&mut r.conn.clone())
                    .instrument(r.script("EVALSHA rank", "rank"))
                    .await?;
                Ok(u64::try_from(place).ok())
            }
            Kind::Memory(m) => {
                let ratings = lock(&m.ratings);
                let Some(board) = ratings.players.get(ruleset) else {
                    return Ok(None);
                };
                let Some(me) = board.get(player_id) else {
                    return Ok(None);
                };
                // Everyone ahead of the player in `top`'s order.
                let ahead = board
                    .values()
                    .filter(|e| {
                        e.rating
                            .total_cmp(&me.rating)
                            .reverse()
                            .then(e.games.cmp(&me.games))
                            .then(e.player_id.cmp(&me.player_id))
                            .is_lt()
                    })
                    .count();
                Ok(Some(ahead as u64))
            }
        }
    }

    /// The leaderboard of `ruleset`: highest rating first, ties by fewer games, then player
    /// id; at most `n` entries from `offset`.
    pub async fn top(
        &self,
        ruleset: &str,
        offset: usize,
        n: usize,
    ) -> Result<Vec<RatingEntry>, StoreError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        match &self.backend.kind {
            Kind::Redis(r) => {
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
            Kind::Memory(m) => {
                let ratings = lock(&m.ratings);
                let Some(board) = ratings.players.get(ruleset) else {
                    return Ok(Vec::new());
                };
                let mut all: Vec<&RatingEntry> = board.values().collect();
                all.sort_by(|a, b| {
                    b.rating
                        .total_cmp(&a.rating)
                        .then(a.games.cmp(&b.games))
                        .then(a.player_id.cmp(&b.player_id))
                });
                Ok(all.into_iter().skip(offset).take(n).cloned().collect())
            }
        }
    }
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
