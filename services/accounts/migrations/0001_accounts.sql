-- Accounts and their sessions. Portable SQL: the same file runs on SQLite and PostgreSQL.
-- Times are Unix milliseconds (BIGINT) so both databases store and compare them alike.

CREATE TABLE accounts (
    -- The player id the account plays under: `a-<ULID>` for a new player, or the `g-<ULID>`
    -- of the guest it was upgraded from (its live games and ratings stay).
    player_id TEXT PRIMARY KEY,
    -- Lower case, 3-24 of [a-z0-9_]: unique regardless of the case typed.
    username TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    -- Argon2id PHC string (algorithm, parameters, salt, hash).
    password_hash TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);

-- One row per sign-in: the family every refresh token rotated from it belongs to.
CREATE TABLE sessions (
    family_id TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES accounts (player_id),
    created_at_ms BIGINT NOT NULL,
    -- Set by sign-out or by reuse detection: every token of the family is refused after it.
    revoked_at_ms BIGINT
);

CREATE INDEX sessions_by_player ON sessions (player_id);

-- Refresh tokens, stored only as the SHA-256 digest of the 256 random bits handed out.
CREATE TABLE refresh_tokens (
    token_digest TEXT PRIMARY KEY,
    family_id TEXT NOT NULL REFERENCES sessions (family_id),
    issued_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    -- Set when the token is traded in; a second presentation revokes the family.
    used_at_ms BIGINT
);

CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
