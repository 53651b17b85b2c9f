-- Schema version 7: what the everyday z/OS commands need (issue 18 item 4).
--
-- RESET QSTATS: a local queue's performance data since its last reset. A queue's head
-- row (its `messages` row at qkey << 44) gains `hi_depth`, the highest depth since the
-- reset, which the z/OS engine raises with the statement each put already makes on the
-- head row (last_put), and `qtime_short`/`qtime_long`, the queue's QTIME averages
-- (microseconds) that each destructive get moves (the statistics records show them).
-- zos_qstats holds each queue's baseline: when it was last reset, the put sequence and
-- depth then, and the messages that left since without a get (CLEAR QLOCAL, expiry).
-- MSGSIN and MSGSOUT follow from these and the head row, so a put or get costs no
-- extra statement:
--   MSGSIN  = (next_seq - 1) - seq_base
--   MSGSOUT = MSGSIN - (depth - depth_base) - removed
ALTER TABLE messages ADD COLUMN hi_depth INTEGER;
ALTER TABLE messages ADD COLUMN qtime_short REAL;
ALTER TABLE messages ADD COLUMN qtime_long REAL;

-- The queue statistics (QQST) count failed MQPUT1s apart from failed MQPUTs (their
-- reason codes, as put_fails holds those of MQPUTs).
ALTER TABLE zos_queue_stats ADD COLUMN put1_fails TEXT NOT NULL DEFAULT '{}';

-- MQSMF's LOG report shows the log manager's raw counters (QJST): the interval's
-- write requests of one page (the rest are of several), waits for an output buffer
-- (a record longer than OUTBUFF), writes the WRTHRSH threshold started, zHyperLink
-- synchronous and asynchronous writes of one page and the pages written
-- asynchronously, BSDS requests and the log CIs offloaded.
ALTER TABLE zos_log ADD COLUMN i_one_writes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE zos_log ADD COLUMN i_buffer_waits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE zos_log ADD COLUMN i_threshold_writes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE zos_log ADD COLUMN i_sync_one INTEGER NOT NULL DEFAULT 0;
ALTER TABLE zos_log ADD COLUMN i_async_one INTEGER NOT NULL DEFAULT 0;
ALTER TABLE zos_log ADD COLUMN i_switch_one INTEGER NOT NULL DEFAULT 0;
ALTER TABLE zos_log ADD COLUMN i_async_pages INTEGER NOT NULL DEFAULT 0;
ALTER TABLE zos_log ADD COLUMN i_bsds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE zos_log ADD COLUMN i_cis_offloaded INTEGER NOT NULL DEFAULT 0;

CREATE TABLE zos_qstats (
    system      TEXT NOT NULL,
    queue       TEXT NOT NULL,
    reset_time  REAL NOT NULL,
    seq_base    INTEGER NOT NULL DEFAULT 0,
    depth_base  INTEGER NOT NULL DEFAULT 0,
    removed     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (system, queue)
);

-- The local queues there are: their figures count from their DEFINE.
INSERT INTO zos_qstats (system, queue, reset_time)
SELECT system, name, created FROM objects WHERE type = 'QLOCAL';

CREATE TRIGGER zos_qstats_queue_defined AFTER INSERT ON objects WHEN new.type = 'QLOCAL'
BEGIN
    INSERT OR REPLACE INTO zos_qstats (system, queue, reset_time) VALUES (new.system, new.name, new.created);
END;

CREATE TRIGGER zos_qstats_queue_deleted AFTER DELETE ON objects WHEN old.type = 'QLOCAL'
BEGIN
    DELETE FROM zos_qstats WHERE system = old.system AND queue = old.name;
END;

-- DISPLAY CONN and DISPLAY THREAD: the connections of live processes to a z/OS queue
-- manager. A process registers itself (the shell, mqtool serve's REST sessions) or is
-- registered by its first open queue (`implicit`: shown while it holds open handles).
-- A row is keyed by the process id and the process's start time (so a reused pid is
-- not taken for the process that registered); rows of processes that have ended are
-- left out when read and removed by the next registration. Running channels are
-- connections of the channel initiator, read from the channels' status.
CREATE TABLE connections (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    system    TEXT NOT NULL,
    pid       INTEGER NOT NULL,
    pstart    TEXT NOT NULL DEFAULT '',
    implicit  INTEGER NOT NULL DEFAULT 0,
    appltype  TEXT NOT NULL,
    appltag   TEXT NOT NULL,
    userid    TEXT NOT NULL DEFAULT '',
    started   REAL NOT NULL
);
CREATE INDEX connections_by_system ON connections (system, pid);

CREATE TRIGGER everyday_system_removed AFTER DELETE ON systems
BEGIN
    DELETE FROM zos_qstats WHERE system = old.name;
    DELETE FROM connections WHERE system = old.name;
END;
