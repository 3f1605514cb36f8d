//! The only I/O of the accounts service: accounts, sessions and refresh tokens in SQL, on
//! SQLite (a file, the all-in-one default) or PostgreSQL (production), through one code path.
//!
//! Every query is portable SQL with `$n` parameters (both drivers accept them), built at run
//! time with sqlx's query API, so building needs no live database. Migrations are embedded
//! (`migrations/`) and run at connect. Multi-step changes (rotating a refresh token, detecting
//! its reuse) run in one transaction; a unique key decides a race between two registrations.

use std::{collections::HashSet, fmt, str::FromStr, time::Duration};

use sqlx::{
    PgPool, SqlitePool,
    postgres::PgPoolOptions,
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions},
};

use ludus_proto::archive_record::ArchivedGameHead;
use ludus_proto::pb;
use prost::Message as _;

use crate::archive::{self, PageCursor, SeatResult};
use crate::model::{Account, TokenDigest, Username};

/// The embedded migrations (the same files for both databases).
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// How long a query waits for a pooled connection before the call fails UNAVAILABLE: a
/// database outage answers quickly instead of holding sign-ins open.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);
/// Connections per process.
pub const MAX_CONNECTIONS: u32 = 8;
/// Rows one archive INSERT carries at most: 6 parameters a game row, 5 a seat row, well under
/// SQLite's 32,766 and Postgres' 65,535 bound parameters a statement.
pub(crate) const ARCHIVE_ROWS_PER_STATEMENT: usize = 500;

/// What the store can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("username taken")]
    UsernameTaken,
    #[error("player {0} already has an account")]
    PlayerTaken(String),
    /// The database could not be reached or refused the query.
    #[error("database: {0}")]
    Unavailable(#[source] sqlx::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        StoreError::Unavailable(error)
    }
}

/// An account with its password hash, for checking a sign-in.
#[derive(Clone)]
pub struct Credentials {
    pub account: Account,
    /// Argon2id PHC string.
    pub password_hash: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("account", &self.account)
            .finish_non_exhaustive()
    }
}

/// A new session: its family and first refresh token.
#[derive(Clone, Debug)]
pub struct NewSession {
    pub family_id: String,
    pub token: TokenDigest,
    pub now_ms: i64,
    pub expires_at_ms: i64,
}

/// What presenting a refresh token did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rotation {
    /// Spent; the new token is stored in the same family.
    Rotated { player_id: String },
    /// No such token: nothing changed.
    Unknown,
    /// Past its expiry: nothing changed.
    Expired,
    /// Its family was revoked before: nothing changed.
    Revoked,
    /// It had been spent already: the family is now revoked.
    Reused,
}

#[derive(Clone)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to whichever pool the store has: the one code path for
/// both databases (the body is compiled once per driver).
macro_rules! with_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.pool {
            Pool::Sqlite($pool) => $body,
            Pool::Postgres($pool) => $body,
        }
    };
}

/// Inserts a session and its first refresh token inside the transaction `$tx` (a macro, so
/// the one body serves both drivers' transaction types).
macro_rules! insert_session {
    ($tx:expr, $player_id:expr, $session:expr) => {{
        let session: &NewSession = $session;
        sqlx::query(
            "INSERT INTO sessions (family_id, player_id, created_at_ms) VALUES ($1, $2, $3)",
        )
        .bind(&session.family_id)
        .bind($player_id)
        .bind(session.now_ms)
        .execute(&mut *$tx)
        .await?;
        sqlx::query(
            "INSERT INTO refresh_tokens (token_digest, family_id, issued_at_ms, expires_at_ms) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(session.token.as_str())
        .bind(&session.family_id)
        .bind(session.now_ms)
        .bind(session.expires_at_ms)
        .execute(&mut *$tx)
        .await?;
    }};
}

/// Revokes a family inside the transaction `$tx`.
macro_rules! revoke {
    ($tx:expr, $family_id:expr, $now_ms:expr) => {{
        sqlx::query(
            "UPDATE sessions SET revoked_at_ms = $1 WHERE family_id = $2 AND revoked_at_ms IS NULL",
        )
        .bind($now_ms)
        .bind($family_id)
        .execute(&mut *$tx)
        .await?;
    }};
}

/// Opens a write transaction. On SQLite it is `BEGIN IMMEDIATE`, which takes the write lock
/// up front: a deferred transaction that reads and then writes fails at once (SQLITE_BUSY)
/// when another writer got in between, instead of waiting its turn. PostgreSQL's default
/// (read committed, row locks on UPDATE) already serialises the compare-and-set.
trait BeginWrite {
    type Db: sqlx::Database;
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, Self::Db>, sqlx::Error>;
}

impl BeginWrite for SqlitePool {
    type Db = sqlx::Sqlite;
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, sqlx::Error> {
        self.begin_with("BEGIN IMMEDIATE").await
    }
}

impl BeginWrite for PgPool {
    type Db = sqlx::Postgres;
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
        self.begin().await
    }
}

/// One seat of an archived game: seat number, player, result.
pub type SeatRow = (u32, String, SeatResult);

/// A game for [`AccountStore::record_games`]: its head (the indexed columns), its record
/// (an encoded `ArchivedGame`, stored as it is) and its seats' rows.
pub type GameToArchive<'a> = (&'a ArchivedGameHead, &'a [u8], &'a [SeatRow]);

/// Accounts, sessions and refresh tokens in SQL.
#[derive(Clone)]
pub struct AccountStore {
    pool: Pool,
}

impl fmt::Debug for AccountStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the URL: it may hold a password.
        f.debug_struct("AccountStore")
            .field("database", &self.database())
            .finish()
    }
}

type AccountRow = (String, String, String, i64);
/// A refresh token joined with its session: family, player, expires at, used at, revoked at.
type TokenRow = (String, String, i64, Option<i64>, Option<i64>);

fn account_from_row((player_id, username, display_name, created_at_ms): AccountRow) -> Account {
    Account {
        player_id,
        // Stored only after passing the policy; a row edited by hand to break it is still
        // shown rather than hidden.
        username: Username::parse(&username).unwrap_or_else(|_| Username::trusted(username)),
        display_name,
        created_at_ms,
    }
}

impl AccountStore {
    /// Connects to `url` (`sqlite://path/to/file.db` or `postgres://...`), creating a SQLite
    /// file when missing, and runs the migrations.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let pool = if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                // Readers never wait for the writer.
                .journal_mode(SqliteJournalMode::Wal)
                .busy_timeout(Duration::from_secs(5))
                .foreign_keys(true);
            Pool::Sqlite(
                SqlitePoolOptions::new()
                    .max_connections(MAX_CONNECTIONS)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .connect_with(options)
                    .await?,
            )
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Pool::Postgres(
                PgPoolOptions::new()
                    .max_connections(MAX_CONNECTIONS)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .connect(url)
                    .await?,
            )
        } else {
            return Err(StoreError::Unavailable(sqlx::Error::Configuration(
                "database URL must start with sqlite: or postgres:".into(),
            )));
        };
        let store = AccountStore { pool };
        with_pool!(store, pool => MIGRATOR.run(pool).await.map_err(|e| StoreError::Unavailable(e.into()))?);
        Ok(store)
    }

    /// `sqlite` or `postgres`.
    pub fn database(&self) -> &'static str {
        match self.pool {
            Pool::Sqlite(_) => "sqlite",
            Pool::Postgres(_) => "postgres",
        }
    }

    /// Answers when the database does (readiness).
    pub async fn ping(&self) -> Result<(), StoreError> {
        with_pool!(self, pool => {
            sqlx::query("SELECT 1").execute(pool).await?;
        });
        Ok(())
    }

    /// Stores a new account and opens its first session, all or nothing. A taken username or
    /// player id (a guest upgraded twice) fails and stores nothing.
    pub async fn create_account(
        &self,
        account: &Account,
        password_hash: &str,
        session: &NewSession,
    ) -> Result<(), StoreError> {
        let inserted: Result<(), sqlx::Error> = with_pool!(self, pool => async {
            let mut tx = pool.begin_write().await?;
            sqlx::query(
                "INSERT INTO accounts (player_id, username, display_name, password_hash, created_at_ms) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(&account.player_id)
            .bind(account.username.as_str())
            .bind(&account.display_name)
            .bind(password_hash)
            .bind(account.created_at_ms)
            .execute(&mut *tx)
            .await?;
            insert_session!(tx, &account.player_id, session);
            tx.commit().await
        }.await);
        match inserted {
            Ok(()) => Ok(()),
            Err(sqlx::Error::Database(error)) if error.is_unique_violation() => {
                // Which key clashed: PostgreSQL names the constraint, SQLite the column.
                let detail = format!(
                    "{} {}",
                    error.constraint().unwrap_or_default(),
                    error.message()
                );
                if detail.contains("username") {
                    Err(StoreError::UsernameTaken)
                } else {
                    Err(StoreError::PlayerTaken(account.player_id.clone()))
                }
            }
            Err(error) => Err(error.into()),
        }
    }

    /// The account and password hash of `username`, if registered.
    pub async fn credentials(
        &self,
        username: &Username,
    ) -> Result<Option<Credentials>, StoreError> {
        let row: Option<(String, String, String, i64, String)> = with_pool!(self, pool => {
            sqlx::query_as(
                "SELECT player_id, username, display_name, created_at_ms, password_hash \
                 FROM accounts WHERE username = $1",
            )
            .bind(username.as_str())
            .fetch_optional(pool)
            .await?
        });
        Ok(row.map(
            |(player_id, username, display_name, created_at_ms, password_hash)| Credentials {
                account: account_from_row((player_id, username, display_name, created_at_ms)),
                password_hash,
            },
        ))
    }

    /// The account playing as `player_id`, if any.
    pub async fn account(&self, player_id: &str) -> Result<Option<Account>, StoreError> {
        let row: Option<AccountRow> = with_pool!(self, pool => {
            sqlx::query_as(
                "SELECT player_id, username, display_name, created_at_ms FROM accounts WHERE player_id = $1",
            )
            .bind(player_id)
            .fetch_optional(pool)
            .await?
        });
        Ok(row.map(account_from_row))
    }

    /// Sets the display name; the updated account, or `None` when there is no such account.
    pub async fn set_display_name(
        &self,
        player_id: &str,
        display_name: &str,
    ) -> Result<Option<Account>, StoreError> {
        let updated = with_pool!(self, pool => {
            sqlx::query("UPDATE accounts SET display_name = $1 WHERE player_id = $2")
                .bind(display_name)
                .bind(player_id)
                .execute(pool)
                .await?
                .rows_affected()
        });
        if updated == 0 {
            return Ok(None);
        }
        self.account(player_id).await
    }

    /// Opens a session (a sign-in) for an existing account.
    pub async fn open_session(
        &self,
        player_id: &str,
        session: &NewSession,
    ) -> Result<(), StoreError> {
        with_pool!(self, pool => {
            let mut tx = pool.begin_write().await?;
            insert_session!(tx, player_id, session);
            tx.commit().await?;
        });
        Ok(())
    }

    /// Trades `presented` for `next` (same family) if it is live; a second presentation of a
    /// spent token revokes its family. One transaction: of two concurrent presentations of
    /// one token, exactly one rotates and the other is reuse.
    pub async fn rotate(
        &self,
        presented: &TokenDigest,
        next: &TokenDigest,
        now_ms: i64,
        expires_at_ms: i64,
    ) -> Result<Rotation, StoreError> {
        let rotation = with_pool!(self, pool => {
            let mut tx = pool.begin_write().await?;
            let row: Option<TokenRow> = sqlx::query_as(
                "SELECT t.family_id, s.player_id, t.expires_at_ms, t.used_at_ms, s.revoked_at_ms \
                 FROM refresh_tokens t JOIN sessions s ON s.family_id = t.family_id \
                 WHERE t.token_digest = $1",
            )
            .bind(presented.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            let Some((family_id, player_id, expires_at_ms_then, used_at_ms, revoked_at_ms)) = row else {
                return Ok(Rotation::Unknown);
            };
            if revoked_at_ms.is_some() {
                return Ok(Rotation::Revoked);
            }
            if expires_at_ms_then <= now_ms {
                return Ok(Rotation::Expired);
            }
            // Compare-and-set on `used_at_ms`: only one presentation can spend the token.
            let spent = if used_at_ms.is_none() {
                sqlx::query(
                    "UPDATE refresh_tokens SET used_at_ms = $1 WHERE token_digest = $2 AND used_at_ms IS NULL",
                )
                .bind(now_ms)
                .bind(presented.as_str())
                .execute(&mut *tx)
                .await?
                .rows_affected()
                    == 1
            } else {
                false
            };
            if !spent {
                revoke!(tx, &family_id, now_ms);
                tx.commit().await?;
                return Ok(Rotation::Reused);
            }
            sqlx::query(
                "INSERT INTO refresh_tokens (token_digest, family_id, issued_at_ms, expires_at_ms) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(next.as_str())
            .bind(&family_id)
            .bind(now_ms)
            .bind(expires_at_ms)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Rotation::Rotated { player_id }
        });
        Ok(rotation)
    }

    /// Revokes the family of `token` (sign-out); the player it belonged to, or `None` for an
    /// unknown token. Revoking twice is harmless.
    pub async fn revoke_family_of(
        &self,
        token: &TokenDigest,
        now_ms: i64,
    ) -> Result<Option<String>, StoreError> {
        let player = with_pool!(self, pool => {
            let mut tx = pool.begin_write().await?;
            let row: Option<(String, String)> = sqlx::query_as(
                "SELECT t.family_id, s.player_id FROM refresh_tokens t \
                 JOIN sessions s ON s.family_id = t.family_id WHERE t.token_digest = $1",
            )
            .bind(token.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            match row {
                Some((family_id, player_id)) => {
                    revoke!(tx, &family_id, now_ms);
                    tx.commit().await?;
                    Some(player_id)
                }
                None => None,
            }
        });
        Ok(player)
    }

    /// Archives a finished game: its record and one row per seat, all or nothing. A game
    /// archived before is left as it is (`INSERT ... ON CONFLICT DO NOTHING`): at-least-once
    /// delivery stores it once. Returns whether it was stored just now.
    pub async fn record_game(
        &self,
        game: &pb::ArchivedGame,
        seats: &[(u32, String, SeatResult)],
    ) -> Result<bool, StoreError> {
        let record = game.encode_to_vec();
        let head = archive::head_of(game);
        let stored = self.record_games(&[(&head, &record, seats)]).await?;
        Ok(stored.first().copied().unwrap_or(false))
    }

    /// Archives finished games as [`Self::record_game`] does each, in **one** transaction
    /// (one commit, so one log flush, for a batch of game ends: ARCHITECTURE.md, "The
    /// archive"): all of them or, on a failure, none. Returns, per game in order, whether it
    /// was stored just now.
    pub async fn record_games(&self, games: &[GameToArchive<'_>]) -> Result<Vec<bool>, StoreError> {
        let records: Vec<String> = games
            .iter()
            .map(|(_, record, _)| archive::stored_record(record))
            .collect();
        let stored: Result<Vec<bool>, sqlx::Error> = with_pool!(self, pool => async {
            let mut tx = pool.begin_write().await?;
            // Every game of a chunk in one INSERT, and every seat row of the games it stored in
            // one more: each statement is a hand-off to the database's connection (SQLite's
            // worker thread, a Postgres round trip), and three of them per game had made
            // accounts the dearest part of a burst of game ends (BENCHMARKS.md, "Game ends in
            // bulk").
            let mut inserted: HashSet<String> = HashSet::new();
            let chunks = games
                .chunks(ARCHIVE_ROWS_PER_STATEMENT)
                .zip(records.chunks(ARCHIVE_ROWS_PER_STATEMENT));
            for (chunk, chunk_records) in chunks {
                let mut insert = sqlx::QueryBuilder::new(
                    "INSERT INTO archived_games \
                     (game_id, ruleset, casual, started_at_ms, ended_at_ms, record) ",
                );
                insert.push_values(chunk.iter().zip(chunk_records), |mut row, ((game, _, _), record)| {
                    row.push_bind(game.game_id.as_str())
                        .push_bind(game.ruleset.as_str())
                        .push_bind(game.casual)
                        .push_bind(game.started_at_unix_ms)
                        .push_bind(game.ended_at_unix_ms)
                        .push_bind(record.as_str());
                });
                insert.push(" ON CONFLICT (game_id) DO NOTHING RETURNING game_id");
                let ids: Vec<(String,)> = insert.build_query_as().fetch_all(&mut *tx).await?;
                inserted.extend(ids.into_iter().map(|(id,)| id));
            }
            // A game named twice in one batch is stored by its first entry only.
            let newly: Vec<bool> = games
                .iter()
                .map(|(game, _, _)| inserted.remove(&game.game_id))
                .collect();
            let seat_rows: Vec<(&ArchivedGameHead, &SeatRow)> = games
                .iter()
                .zip(&newly)
                .filter(|(_, new)| **new)
                .flat_map(|((game, _, seats), _)| seats.iter().map(move |seat| (*game, seat)))
                .collect();
            for chunk in seat_rows.chunks(ARCHIVE_ROWS_PER_STATEMENT) {
                let mut insert = sqlx::QueryBuilder::new(
                    "INSERT INTO archived_game_players \
                     (game_id, seat, player_id, result, ended_at_ms) ",
                );
                insert.push_values(chunk, |mut row, (game, (seat, player_id, result))| {
                    row.push_bind(game.game_id.as_str())
                        .push_bind(i64::from(*seat))
                        .push_bind(player_id.as_str())
                        .push_bind(result.as_str())
                        .push_bind(game.ended_at_unix_ms);
                });
                insert.build().execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(newly)
        }.await);
        Ok(stored?)
    }

    /// A player's archived games, newest first, after `cursor` (exclusive), at most `limit`.
    pub async fn player_games(
        &self,
        player_id: &str,
        cursor: Option<&PageCursor>,
        limit: u32,
    ) -> Result<Vec<(PageCursor, String)>, StoreError> {
        // Without a cursor, start after every possible game.
        let (ended, game_id) = cursor.map_or((i64::MAX, String::new()), |c| {
            (c.ended_at_ms, c.game_id.clone())
        });
        let rows: Vec<(i64, String, String)> = with_pool!(self, pool => {
            sqlx::query_as(
                "SELECT p.ended_at_ms, p.game_id, g.record \
                 FROM archived_game_players p JOIN archived_games g ON g.game_id = p.game_id \
                 WHERE p.player_id = $1 \
                   AND (p.ended_at_ms < $2 OR (p.ended_at_ms = $2 AND ($3 = '' OR p.game_id < $3))) \
                 ORDER BY p.ended_at_ms DESC, p.game_id DESC LIMIT $4",
            )
            .bind(player_id)
            .bind(ended)
            .bind(&game_id)
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await?
        });
        Ok(rows
            .into_iter()
            .map(|(ended_at_ms, game_id, record)| {
                (
                    PageCursor {
                        ended_at_ms,
                        game_id,
                    },
                    record,
                )
            })
            .collect())
    }

    /// One archived game's stored record.
    pub async fn archived_game(&self, game_id: &str) -> Result<Option<String>, StoreError> {
        let row: Option<(String,)> = with_pool!(self, pool => {
            sqlx::query_as("SELECT record FROM archived_games WHERE game_id = $1")
                .bind(game_id)
                .fetch_optional(pool)
                .await?
        });
        Ok(row.map(|(record,)| record))
    }

    /// A player's archived games counted by result: (played, won, drawn).
    pub async fn game_counts(&self, player_id: &str) -> Result<(u32, u32, u32), StoreError> {
        let rows: Vec<(String, i64)> = with_pool!(self, pool => {
            sqlx::query_as(
                "SELECT result, COUNT(*) FROM archived_game_players WHERE player_id = $1 \
                 GROUP BY result",
            )
            .bind(player_id)
            .fetch_all(pool)
            .await?
        });
        let count = |n: i64| u32::try_from(n).unwrap_or(u32::MAX);
        let (mut played, mut won, mut drawn) = (0u32, 0u32, 0u32);
        for (result, n) in rows {
            played = played.saturating_add(count(n));
            match result.as_str() {
                "won" => won = won.saturating_add(count(n)),
                "drawn" => drawn = drawn.saturating_add(count(n)),
                _ => {}
            }
        }
        Ok((played, won, drawn))
    }
}
