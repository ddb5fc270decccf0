-- rollcall's event log, version 1. Plain SQL: tables, primary keys, a
-- foreign key, and transactions; nothing only PostgreSQL has, so that an
-- engine speaking its protocol (CockroachDB, YugabyteDB) can hold it.
-- Applied by `rollcall store migrate --store URL`, in one transaction.

-- A game: its canonical header line and its head. A game being created
-- is not yet visible: every reader asks for visible games only, and the
-- commit that makes one visible is one UPDATE.
CREATE TABLE rollcall_games (
    game    TEXT    NOT NULL PRIMARY KEY,
    header  BYTEA   NOT NULL,
    seq     BIGINT  NOT NULL CHECK (seq >= 0),
    hash    BYTEA   NOT NULL,
    visible BOOLEAN NOT NULL
);

-- The events: each the canonical line of the record, byte for byte, with
-- its seq and hash. One event per (game, seq): no fork and no duplicate,
-- whatever the isolation level.
CREATE TABLE rollcall_events (
    game TEXT   NOT NULL REFERENCES rollcall_games (game),
    seq  BIGINT NOT NULL CHECK (seq >= 1),
    hash BYTEA  NOT NULL,
    line BYTEA  NOT NULL,
    PRIMARY KEY (game, seq)
);

-- Small values the commands keep beside the games (which side a store
-- plays, a game waiting for its shares, a token's hash, a fork kept as
-- evidence).
CREATE TABLE rollcall_notes (
    key   TEXT  NOT NULL PRIMARY KEY,
    value BYTEA NOT NULL
);

-- A dice server's secrets (its key, each game's chain), written once and
-- never listed: no route of the server reads this table but to draw dice.
CREATE TABLE rollcall_secrets (
    key   TEXT  NOT NULL PRIMARY KEY,
    value BYTEA NOT NULL
);
