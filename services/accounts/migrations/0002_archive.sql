-- The archive of finished games. Portable SQL (SQLite and PostgreSQL); times are Unix ms.

CREATE TABLE archived_games (
    game_id TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    casual BOOLEAN NOT NULL,
    started_at_ms BIGINT NOT NULL,
    ended_at_ms BIGINT NOT NULL,
    -- The whole game (settings, seats, outcome, moves, event log, final snapshot, export):
    -- the protobuf `ludus.v1.ArchivedGame`, hex encoded so that both databases store it as
    -- the same text.
    record TEXT NOT NULL
);

-- One row per seat: who played, and how it went for them.
CREATE TABLE archived_game_players (
    game_id TEXT NOT NULL REFERENCES archived_games (game_id),
    seat INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    -- 'won', 'lost', 'drawn' or 'cancelled'.
    result TEXT NOT NULL,
    ended_at_ms BIGINT NOT NULL,
    PRIMARY KEY (game_id, seat)
);

-- A player's games newest first (ListPlayerGames pages by (ended_at_ms, game_id)).
CREATE INDEX archived_game_players_by_player
    ON archived_game_players (player_id, ended_at_ms, game_id);
