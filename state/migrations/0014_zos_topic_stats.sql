-- Schema version 9: the z/OS topic manager's statistics (SMF 115 subtype 2, QTST) and
-- the publish/subscribe counts of the message manager's (QMST: MQSUB, MQSUBRQ,
-- publications), collected while a STAT trace runs class 1 (mqtool/engine/zos/
-- topicstats.py).
--
-- The interval running now, per queue manager: written in the transaction of each
-- publication and subscription, so a rolled-back publication counts nothing. API and
-- ADMIN are the subscription types (PROXY: none, no hierarchy or cluster here).
CREATE TABLE zos_topic_stats (
    system          TEXT PRIMARY KEY,
    sub_requests    INTEGER NOT NULL DEFAULT 0,  -- QTSTSTOT
    durable_requests INTEGER NOT NULL DEFAULT 0, -- QTSTSDUR
    high_api        INTEGER NOT NULL DEFAULT 0,  -- QTSTSHIG(API)
    high_admin      INTEGER NOT NULL DEFAULT 0,  -- QTSTSHIG(ADMIN)
    low_api         INTEGER NOT NULL DEFAULT 0,  -- QTSTSLOW(API)
    low_admin       INTEGER NOT NULL DEFAULT 0,  -- QTSTSLOW(ADMIN)
    expired         INTEGER NOT NULL DEFAULT 0,  -- QTSTSEXP
    messages        INTEGER NOT NULL DEFAULT 0,  -- QTSTTMSG
    single_high     INTEGER NOT NULL DEFAULT 0,  -- QTSTSPHW
    pubs_api        INTEGER NOT NULL DEFAULT 0,  -- QTSTPTOT(API)
    pub_high        INTEGER,                     -- QTSTPTHI (NULL: no publication yet)
    pub_low         INTEGER,                     -- QTSTPTLO
    no_subscriber   INTEGER NOT NULL DEFAULT 0,  -- QTSTPNOS
    elapsed_high    REAL NOT NULL DEFAULT 0,     -- QTSTETHW, seconds
    elapsed_total   REAL NOT NULL DEFAULT 0,     -- QTSTETTO, seconds
    mqsub           INTEGER NOT NULL DEFAULT 0,  -- QMSTSUB
    mqsubrq         INTEGER NOT NULL DEFAULT 0,  -- QMSTSUBR
    publications    INTEGER NOT NULL DEFAULT 0   -- QMSTPUBS
);

-- When the topic manager's interval running now began (NULL while not collected).
ALTER TABLE zos_stats_interval ADD COLUMN topic_start REAL;

-- The records written at each interval's end, the figures as JSON; mqtool smf topic
-- reads them.
CREATE TABLE zos_topic_records (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    system TEXT NOT NULL,
    start  REAL NOT NULL,
    end    REAL NOT NULL,
    data   TEXT NOT NULL
);
CREATE INDEX zos_topic_records_by_system ON zos_topic_records (system, end);

CREATE TRIGGER zos_topic_stats_system_removed AFTER DELETE ON systems
BEGIN
    DELETE FROM zos_topic_stats WHERE system = old.name;
    DELETE FROM zos_topic_records WHERE system = old.name;
END;
