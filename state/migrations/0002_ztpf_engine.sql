-- Schema version 2: the z/TPF MQ message engine.
--
-- queue_stats holds, per local queue, the figures that displays read (depth, SWBs held,
-- messages stored compressed) and the counters of the STAT display. The figures and the
-- put counters are kept by triggers on `messages`, so every writer (puts, CLEAR, DELETE,
-- START QMGR, a channel moving messages) keeps them right without extra statements.
-- Column families: t_ since the statistics reset, i_ the statistics interval running now,
-- l_ the last completed interval (the 5-second monitor closes it).
-- The sweeper moves a queue's messages to file oldest first, so "on file" is mostly a
-- mark: messages with id <= sweep_mark are on file (no row is rewritten); messages.swept
-- marks only those swept past a channel batch in flight, which stays in memory.

-- SWBs the message occupies while it is in memory (0 on a common queue).
ALTER TABLE messages ADD COLUMN swbs INTEGER NOT NULL DEFAULT 0;

CREATE TABLE queue_stats (
    system          TEXT NOT NULL,
    queue           TEXT NOT NULL,
    reset_time      REAL NOT NULL DEFAULT 0,
    depth           INTEGER NOT NULL DEFAULT 0,
    swbs            INTEGER NOT NULL DEFAULT 0,
    compressed      INTEGER NOT NULL DEFAULT 0,
    sweep_mark      INTEGER NOT NULL DEFAULT 0,
    hi_warned       INTEGER NOT NULL DEFAULT 0,
    opens           INTEGER NOT NULL DEFAULT 0,
    closes          INTEGER NOT NULL DEFAULT 0,
    aborted_sweeps  INTEGER NOT NULL DEFAULT 0,
    swept_msgs      INTEGER NOT NULL DEFAULT 0,
    sweep_ios       INTEGER NOT NULL DEFAULT 0,
    read_ios        INTEGER NOT NULL DEFAULT 0,
    expired         INTEGER NOT NULL DEFAULT 0,
    ckpt_high       REAL NOT NULL DEFAULT 0,
    ckpt_last       REAL NOT NULL DEFAULT 0,
    ckpt_ios        INTEGER NOT NULL DEFAULT 0,
    get_rate_high   INTEGER NOT NULL DEFAULT 0,
    swept_rate_high INTEGER NOT NULL DEFAULT 0,
    t_put_p         INTEGER NOT NULL DEFAULT 0,
    t_put_p_bytes   INTEGER NOT NULL DEFAULT 0,
    t_put_np        INTEGER NOT NULL DEFAULT 0,
    t_put_np_bytes  INTEGER NOT NULL DEFAULT 0,
    t_stored        INTEGER NOT NULL DEFAULT 0,
    t_comp          INTEGER NOT NULL DEFAULT 0,
    t_comp_orig     INTEGER NOT NULL DEFAULT 0,
    t_comp_stored   INTEGER NOT NULL DEFAULT 0,
    t_comp_us       INTEGER NOT NULL DEFAULT 0,
    t_decomp        INTEGER NOT NULL DEFAULT 0,
    t_decomp_hw     INTEGER NOT NULL DEFAULT 0,
    t_decomp_sw     INTEGER NOT NULL DEFAULT 0,
    t_gets          INTEGER NOT NULL DEFAULT 0,
    t_swept_search  INTEGER NOT NULL DEFAULT 0,
    i_puts          INTEGER NOT NULL DEFAULT 0,
    i_stored        INTEGER NOT NULL DEFAULT 0,
    i_comp          INTEGER NOT NULL DEFAULT 0,
    i_comp_orig     INTEGER NOT NULL DEFAULT 0,
    i_comp_stored   INTEGER NOT NULL DEFAULT 0,
    i_comp_us       INTEGER NOT NULL DEFAULT 0,
    i_decomp        INTEGER NOT NULL DEFAULT 0,
    i_gets          INTEGER NOT NULL DEFAULT 0,
    i_swept_search  INTEGER NOT NULL DEFAULT 0,
    l_puts          INTEGER NOT NULL DEFAULT 0,
    l_stored        INTEGER NOT NULL DEFAULT 0,
    l_comp          INTEGER NOT NULL DEFAULT 0,
    l_comp_orig     INTEGER NOT NULL DEFAULT 0,
    l_comp_stored   INTEGER NOT NULL DEFAULT 0,
    l_comp_us       INTEGER NOT NULL DEFAULT 0,
    l_decomp        INTEGER NOT NULL DEFAULT 0,
    l_gets          INTEGER NOT NULL DEFAULT 0,
    l_swept_search  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (system, queue)
);

-- Per z/TPF system: sweeper, checkpoint and SWB-pool figures.
CREATE TABLE engine_state (
    system          TEXT PRIMARY KEY,
    sweeps          INTEGER NOT NULL DEFAULT 0,
    aborted_sweeps  INTEGER NOT NULL DEFAULT 0,
    swept_msgs      INTEGER NOT NULL DEFAULT 0,
    sweep_ios       INTEGER NOT NULL DEFAULT 0,
    read_ios        INTEGER NOT NULL DEFAULT 0,
    sweep_held      INTEGER NOT NULL DEFAULT 0,
    swb_short       INTEGER NOT NULL DEFAULT 0,
    checkpoints     INTEGER NOT NULL DEFAULT 0,
    ckpt_ios        INTEGER NOT NULL DEFAULT 0,
    ckpt_mark       INTEGER NOT NULL DEFAULT 0,
    ckpt_high       REAL NOT NULL DEFAULT 0,
    ckpt_last       REAL NOT NULL DEFAULT 0
);

-- One row per sweep, so a scenario can measure the interval between sweeps.
CREATE TABLE sweeps (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    system      TEXT NOT NULL,
    time        REAL NOT NULL,
    swbs_before INTEGER NOT NULL,
    swbs_after  INTEGER NOT NULL,
    messages    INTEGER NOT NULL,
    ios         INTEGER NOT NULL,
    aborted     INTEGER NOT NULL
);
CREATE INDEX sweeps_by_system ON sweeps (system, time);

-- Bumped whenever a definition, a queue manager's state or a system changes, so an
-- open queue re-reads its definitions only when they may have changed.
-- `handles` numbers every open queue handle; a message id is made of the handle's
-- number and a count within it, so a put needs no shared counter.
CREATE TABLE engine_config (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL,
    handles INTEGER NOT NULL DEFAULT 0
);
INSERT INTO engine_config (id, version, handles) VALUES (1, 0, 0);

CREATE TRIGGER engine_config_object_added AFTER INSERT ON objects
BEGIN
    UPDATE engine_config SET version = version + 1;
END;

CREATE TRIGGER engine_config_object_removed AFTER DELETE ON objects
BEGIN
    UPDATE engine_config SET version = version + 1;
END;

CREATE TRIGGER engine_config_object_altered AFTER UPDATE OF attrs ON objects
BEGIN
    UPDATE engine_config SET version = version + 1;
END;

CREATE TRIGGER engine_config_qmgr_state AFTER UPDATE OF status ON objects WHEN new.type = 'QMGR'
BEGIN
    UPDATE engine_config SET version = version + 1;
END;

CREATE TRIGGER engine_config_system_added AFTER INSERT ON systems
BEGIN
    UPDATE engine_config SET version = version + 1;
END;

CREATE TRIGGER engine_config_system_altered AFTER UPDATE ON systems
BEGIN
    UPDATE engine_config SET version = version + 1;
END;

CREATE TRIGGER engine_config_system_removed AFTER DELETE ON systems
BEGIN
    UPDATE engine_config SET version = version + 1;
    DELETE FROM queue_stats WHERE system = old.name;
    DELETE FROM engine_state WHERE system = old.name;
    DELETE FROM sweeps WHERE system = old.name;
END;

-- A local queue gets its statistics row when it is defined (statistics start then) and
-- loses it when it is deleted; ALTER (an upsert's update) leaves it alone.
CREATE TRIGGER engine_queue_defined AFTER INSERT ON objects WHEN new.type = 'QL'
BEGIN
    INSERT OR REPLACE INTO queue_stats (system, queue, reset_time, depth, swbs, compressed)
    SELECT new.system, new.name, new.created, count(*),
           coalesce(sum(CASE WHEN swept = 0 THEN swbs ELSE 0 END), 0),
           coalesce(sum(codec != ''), 0)
    FROM messages WHERE system = new.system AND queue = new.name;
END;

CREATE TRIGGER engine_queue_deleted AFTER DELETE ON objects WHEN old.type = 'QL'
BEGIN
    DELETE FROM queue_stats WHERE system = old.system AND queue = old.name;
END;

-- A z/TPF queue manager runs the MQ monitor and the checkpoint every 5 seconds from
-- the moment it is defined.
CREATE TRIGGER engine_qmgr_timers AFTER INSERT ON objects
WHEN new.type = 'QMGR' AND (SELECT platform FROM systems WHERE name = new.system) = 'ztpf'
BEGIN
    INSERT OR IGNORE INTO engine_state (system) VALUES (new.system);
    INSERT INTO timers (system, name, due) VALUES (new.system, 'ztpf-mq-monitor', new.created + 5)
        ON CONFLICT (system, name) DO UPDATE SET due = min(due, excluded.due);
    INSERT INTO timers (system, name, due) VALUES (new.system, 'ztpf-mq-checkpoint', new.created + 5)
        ON CONFLICT (system, name) DO UPDATE SET due = min(due, excluded.due);
END;

-- Every message put (by any path) counts in its queue's figures and put statistics.
CREATE TRIGGER engine_message_put AFTER INSERT ON messages
BEGIN
    UPDATE queue_stats SET
        depth = depth + 1,
        swbs = swbs + CASE WHEN new.swept = 0 AND new.id > sweep_mark THEN new.swbs ELSE 0 END,
        compressed = compressed + (new.codec != ''),
        t_put_p = t_put_p + (new.persistent != 0),
        t_put_p_bytes = t_put_p_bytes + CASE WHEN new.persistent != 0 THEN new.original_length ELSE 0 END,
        t_put_np = t_put_np + (new.persistent = 0),
        t_put_np_bytes = t_put_np_bytes + CASE WHEN new.persistent = 0 THEN new.original_length ELSE 0 END,
        t_stored = t_stored + new.stored_length,
        t_comp = t_comp + (new.codec != ''),
        t_comp_orig = t_comp_orig + CASE WHEN new.codec != '' THEN new.original_length ELSE 0 END,
        t_comp_stored = t_comp_stored + CASE WHEN new.codec != '' THEN new.stored_length ELSE 0 END,
        i_puts = i_puts + 1,
        i_stored = i_stored + new.stored_length,
        i_comp = i_comp + (new.codec != ''),
        i_comp_orig = i_comp_orig + CASE WHEN new.codec != '' THEN new.original_length ELSE 0 END,
        i_comp_stored = i_comp_stored + CASE WHEN new.codec != '' THEN new.stored_length ELSE 0 END
    WHERE system = new.system AND queue = new.queue;
END;

CREATE TRIGGER engine_message_removed AFTER DELETE ON messages
BEGIN
    UPDATE queue_stats SET
        depth = depth - 1,
        swbs = swbs - CASE WHEN old.swept = 0 AND old.id > sweep_mark THEN old.swbs ELSE 0 END,
        compressed = compressed - (old.codec != '')
    WHERE system = old.system AND queue = old.queue;
END;

CREATE TRIGGER engine_message_swept AFTER UPDATE OF swept ON messages WHEN (old.swept = 0) != (new.swept = 0)
BEGIN
    UPDATE queue_stats SET
        swbs = swbs + CASE WHEN new.id <= sweep_mark THEN 0 WHEN new.swept = 0 THEN new.swbs ELSE -new.swbs END
    WHERE system = new.system AND queue = new.queue;
END;

CREATE TRIGGER engine_message_moved AFTER UPDATE OF system, queue ON messages
WHEN old.system != new.system OR old.queue != new.queue
BEGIN
    UPDATE queue_stats SET
        depth = depth - 1,
        swbs = swbs - CASE WHEN old.swept = 0 AND old.id > sweep_mark THEN old.swbs ELSE 0 END,
        compressed = compressed - (old.codec != '')
    WHERE system = old.system AND queue = old.queue;
    UPDATE queue_stats SET
        depth = depth + 1,
        swbs = swbs + CASE WHEN new.swept = 0 AND new.id > sweep_mark THEN new.swbs ELSE 0 END,
        compressed = compressed + (new.codec != '')
    WHERE system = new.system AND queue = new.queue;
END;

-- Stores made before this version: rows for the queues and queue managers they hold.
INSERT OR IGNORE INTO queue_stats (system, queue, reset_time, depth, swbs, compressed)
SELECT o.system, o.name, o.created,
       (SELECT count(*) FROM messages m WHERE m.system = o.system AND m.queue = o.name),
       0,
       (SELECT count(*) FROM messages m WHERE m.system = o.system AND m.queue = o.name AND m.codec != '')
FROM objects o WHERE o.type = 'QL';

INSERT OR IGNORE INTO engine_state (system)
SELECT o.system FROM objects o JOIN systems s ON s.name = o.system WHERE o.type = 'QMGR' AND s.platform = 'ztpf';

INSERT OR IGNORE INTO timers (system, name, due)
SELECT o.system, 'ztpf-mq-monitor', o.created + 5 FROM objects o JOIN systems s ON s.name = o.system
WHERE o.type = 'QMGR' AND s.platform = 'ztpf';

INSERT OR IGNORE INTO timers (system, name, due)
SELECT o.system, 'ztpf-mq-checkpoint', o.created + 5 FROM objects o JOIN systems s ON s.name = o.system
WHERE o.type = 'QMGR' AND s.platform = 'ztpf';
