-- Schema version 6: the z/OS log and statistics (SMF 115 class 5 queue records and the
-- log manager's figures).
--
-- The log of each z/OS queue manager: where it stands (the latest RBA, the active data
-- set being written and the RBA it began at), the restart RBA, how many archive data
-- sets the offloads made, and the log manager's counters of the statistics interval
-- running now (i_*, zeroed when an interval's record is written). The engine adds to
-- them in groups (mqtool/engine/zos/log.py), never per message.
CREATE TABLE zos_log (
    system          TEXT PRIMARY KEY,
    rba             INTEGER NOT NULL DEFAULT 0,
    restart_rba     INTEGER NOT NULL DEFAULT 0,
    dataset         INTEGER NOT NULL DEFAULT 1,
    ds_start        INTEGER NOT NULL DEFAULT 0,
    ds_opened       REAL,
    archives        INTEGER NOT NULL DEFAULT 0,
    since_checkpoint INTEGER NOT NULL DEFAULT 0,
    -- log manager counters of the interval running now
    i_records       INTEGER NOT NULL DEFAULT 0,
    i_writes        INTEGER NOT NULL DEFAULT 0,
    i_pages         INTEGER NOT NULL DEFAULT 0,
    i_original      INTEGER NOT NULL DEFAULT 0,
    i_written       INTEGER NOT NULL DEFAULT 0,
    i_comp_requests INTEGER NOT NULL DEFAULT 0,
    i_comp_original INTEGER NOT NULL DEFAULT 0,
    i_comp_written  INTEGER NOT NULL DEFAULT 0,
    i_sync          INTEGER NOT NULL DEFAULT 0,
    i_async         INTEGER NOT NULL DEFAULT 0,
    i_switch_async  INTEGER NOT NULL DEFAULT 0,
    i_new_logs      INTEGER NOT NULL DEFAULT 0,
    i_zhw_capable   INTEGER NOT NULL DEFAULT 0,
    i_zhw_enabled   INTEGER NOT NULL DEFAULT 0,
    i_zhl_capable   INTEGER NOT NULL DEFAULT 0,
    i_zhl_enabled   INTEGER NOT NULL DEFAULT 0,
    i_offloads      INTEGER NOT NULL DEFAULT 0,
    i_full_waits    INTEGER NOT NULL DEFAULT 0,
    i_checkpoints   INTEGER NOT NULL DEFAULT 0
);

-- Stores made before this version kept the log position in the queue manager's status.
INSERT INTO zos_log (system, rba, restart_rba, dataset, ds_start)
SELECT o.system,
       coalesce(json_extract(o.status, '$.log.rba'), 0),
       coalesce(json_extract(o.status, '$.log.restart_rba'), 0),
       coalesce(json_extract(o.status, '$.log.dataset'), 1),
       coalesce(json_extract(o.status, '$.log.rba'), 0) - coalesce(json_extract(o.status, '$.log.used'), 0)
FROM objects o JOIN systems s ON s.name = o.system
WHERE o.type = 'QMGR' AND s.platform = 'zos';

-- Full active log data sets waiting for (or in) offload to archive; `started` is when
-- their offload task began (NULL: waiting for one of the MAXCNOFF tasks).
CREATE TABLE zos_offload (
    system    TEXT NOT NULL,
    start_rba INTEGER NOT NULL,
    end_rba   INTEGER NOT NULL,
    dataset   INTEGER NOT NULL,
    opened    REAL NOT NULL,
    filled    REAL NOT NULL,
    started   REAL,
    PRIMARY KEY (system, start_rba)
);

-- When the statistics intervals running now began: queue statistics (class 5) and the
-- log manager's (class 1 or 3); NULL while that kind is not collected.
CREATE TABLE zos_stats_interval (
    system      TEXT PRIMARY KEY,
    queue_start REAL,
    log_start   REAL
);

-- The statistics interval running now, per local queue with statistics on: what its
-- handles did (added in groups), by persistence, with the failures by reason code as
-- JSON ({"2053": 3}); depth_hi/depth_lo are the interval's high and low depth.
CREATE TABLE zos_queue_stats (
    system         TEXT NOT NULL,
    queue          TEXT NOT NULL,
    puts           INTEGER NOT NULL DEFAULT 0,
    puts_p         INTEGER NOT NULL DEFAULT 0,
    put_bytes      INTEGER NOT NULL DEFAULT 0,
    put_bytes_p    INTEGER NOT NULL DEFAULT 0,
    put1s          INTEGER NOT NULL DEFAULT 0,
    put1s_p        INTEGER NOT NULL DEFAULT 0,
    put1_bytes     INTEGER NOT NULL DEFAULT 0,
    put1_bytes_p   INTEGER NOT NULL DEFAULT 0,
    gets           INTEGER NOT NULL DEFAULT 0,
    gets_p         INTEGER NOT NULL DEFAULT 0,
    get_bytes      INTEGER NOT NULL DEFAULT 0,
    get_bytes_p    INTEGER NOT NULL DEFAULT 0,
    browses        INTEGER NOT NULL DEFAULT 0,
    browses_p      INTEGER NOT NULL DEFAULT 0,
    browse_bytes   INTEGER NOT NULL DEFAULT 0,
    browse_bytes_p INTEGER NOT NULL DEFAULT 0,
    streamed       INTEGER NOT NULL DEFAULT 0,
    expired        INTEGER NOT NULL DEFAULT 0,
    opens          INTEGER NOT NULL DEFAULT 0,
    closes         INTEGER NOT NULL DEFAULT 0,
    rolled_puts    INTEGER NOT NULL DEFAULT 0,
    rolled_gets    INTEGER NOT NULL DEFAULT 0,
    size_min       INTEGER,
    size_max       INTEGER,
    depth_hi       INTEGER,
    depth_lo       INTEGER,
    put_fails      TEXT NOT NULL DEFAULT '{}',
    get_fails      TEXT NOT NULL DEFAULT '{}',
    browse_fails   TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (system, queue)
);

-- The records written at each interval's end (what SMF would hold): one per queue with
-- statistics on (SMF 115 subtype 216, QQST) and one of the log manager (QJST), the
-- figures as JSON. They outlive the queues they describe; mqtool smf reads them.
CREATE TABLE zos_queue_records (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    system TEXT NOT NULL,
    queue  TEXT NOT NULL,
    start  REAL NOT NULL,
    end    REAL NOT NULL,
    data   TEXT NOT NULL
);
CREATE INDEX zos_queue_records_by_system ON zos_queue_records (system, end, queue);

CREATE TABLE zos_log_records (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    system TEXT NOT NULL,
    start  REAL NOT NULL,
    end    REAL NOT NULL,
    data   TEXT NOT NULL
);
CREATE INDEX zos_log_records_by_system ON zos_log_records (system, end);

CREATE TRIGGER zos_queue_stats_queue_deleted AFTER DELETE ON objects WHEN old.type = 'QLOCAL'
BEGIN
    DELETE FROM zos_queue_stats WHERE system = old.system AND queue = old.name;
END;

CREATE TRIGGER zos_log_system_removed AFTER DELETE ON systems
BEGIN
    DELETE FROM zos_log WHERE system = old.name;
    DELETE FROM zos_offload WHERE system = old.name;
    DELETE FROM zos_stats_interval WHERE system = old.name;
    DELETE FROM zos_queue_stats WHERE system = old.name;
    DELETE FROM zos_queue_records WHERE system = old.name;
    DELETE FROM zos_log_records WHERE system = old.name;
END;
