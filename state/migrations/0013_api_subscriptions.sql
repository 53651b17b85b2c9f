-- Schema version 8: subscriptions that applications make (MQSUB: `mqtool get --topic`,
-- `.subscribe`), beside those DEFINE SUB makes. They are SUB objects like the others
-- (status.subtype API, status.durable NO or YES); this table says which process holds
-- each one open now: its process id, when that process started (so a reused process id
-- is not taken for it) and the connection number DISPLAY SBSTATUS shows in ACTCONN.
-- A non-durable subscription whose holder has ended (kill -9, a power loss) is removed
-- with its managed queue by the next command that looks (mqtool/engine/core/
-- subscriptions.py); a durable one is only let go.
CREATE TABLE sub_owners (
    system  TEXT NOT NULL,
    name    TEXT NOT NULL,
    pid     INTEGER NOT NULL,
    pstart  TEXT NOT NULL,
    conn    INTEGER NOT NULL,
    since   REAL NOT NULL,
    PRIMARY KEY (system, name)
);

CREATE TRIGGER sub_owners_sub_deleted AFTER DELETE ON objects WHEN old.type = 'SUB'
BEGIN
    DELETE FROM sub_owners WHERE system = old.system AND name = old.name;
END;

CREATE TRIGGER sub_owners_system_removed AFTER DELETE ON systems
BEGIN
    DELETE FROM sub_owners WHERE system = old.name;
END;
