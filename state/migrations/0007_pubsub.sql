-- Schema version 7: publish/subscribe. Topic objects and subscriptions are objects
-- (types TOPIC and SUB); what the engine keeps besides them is here.
--
-- The retained publication of each topic string (MQPMO_RETAIN): the last one published
-- with retain replaces the one before; a new subscription receives those it matches;
-- CLEAR TOPICSTR CLRTYPE(RETAINED) removes one.
CREATE TABLE retained_pubs (
    system      TEXT NOT NULL,
    topic       TEXT NOT NULL,
    msgid       BLOB NOT NULL,
    correlid    BLOB NOT NULL,
    priority    INTEGER NOT NULL,
    persistent  INTEGER NOT NULL,
    put_time    REAL NOT NULL,
    expiry      REAL,
    payload     BLOB NOT NULL,
    PRIMARY KEY (system, topic)
);

-- Figures of DISPLAY TPSTATUS and SBSTATUS: per topic string its publications (kind
-- PUB), per subscription the messages delivered to it (kind SUB), with the time of the
-- last. Written in the publication's own transaction, never in the objects table, so a
-- publication does not make every open handle read its definitions again.
CREATE TABLE pubsub_status (
    system  TEXT NOT NULL,
    kind    TEXT NOT NULL,
    name    TEXT NOT NULL,
    count   INTEGER NOT NULL DEFAULT 0,
    last    REAL NOT NULL,
    PRIMARY KEY (system, kind, name)
);

CREATE TRIGGER pubsub_sub_deleted AFTER DELETE ON objects WHEN old.type = 'SUB'
BEGIN
    DELETE FROM pubsub_status WHERE system = old.system AND kind = 'SUB' AND name = old.name;
END;

CREATE TRIGGER pubsub_system_removed AFTER DELETE ON systems
BEGIN
    DELETE FROM retained_pubs WHERE system = old.name;
    DELETE FROM pubsub_status WHERE system = old.name;
END;
