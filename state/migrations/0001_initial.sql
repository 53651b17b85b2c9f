-- Schema version 1: the complex, object definitions, messages, console, timers.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE systems (
    name     TEXT PRIMARY KEY,
    platform TEXT NOT NULL CHECK (platform IN ('ztpf', 'zos')),
    position INTEGER NOT NULL,
    attrs    TEXT NOT NULL DEFAULT '{}'
);

-- One row per defined object; attributes (operator keywords) and run-time status as JSON.
CREATE TABLE objects (
    system  TEXT NOT NULL REFERENCES systems(name) ON DELETE CASCADE,
    type    TEXT NOT NULL,
    name    TEXT NOT NULL,
    attrs   TEXT NOT NULL DEFAULT '{}',
    status  TEXT NOT NULL DEFAULT '{}',
    created REAL NOT NULL,
    altered REAL NOT NULL,
    PRIMARY KEY (system, type, name)
);

CREATE TABLE messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    system          TEXT NOT NULL,
    queue           TEXT NOT NULL,
    priority        INTEGER NOT NULL,
    msgid           BLOB NOT NULL,
    correlid        BLOB NOT NULL,
    persistent      INTEGER NOT NULL,
    put_time        REAL NOT NULL,
    expiry          REAL,
    original_length INTEGER NOT NULL,
    stored_length   INTEGER NOT NULL,
    codec           TEXT NOT NULL DEFAULT '',
    swept           INTEGER NOT NULL DEFAULT 0,
    header          TEXT NOT NULL DEFAULT '{}',
    payload         BLOB NOT NULL
);
CREATE INDEX messages_order ON messages (system, queue, priority DESC, id);

CREATE TABLE console (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    system TEXT NOT NULL,
    time   REAL NOT NULL,
    text   TEXT NOT NULL
);

CREATE TABLE timers (
    system TEXT NOT NULL,
    name   TEXT NOT NULL,
    due    REAL NOT NULL,
    PRIMARY KEY (system, name)
);
