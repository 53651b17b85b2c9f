-- Schema version 3: each local queue's messages are one run of the messages B-tree,
-- headed by the queue's head row.
--
-- A message's row id is qkey << 44 | (9 - priority) << 40 | seq (state/messages.py):
-- the queue's number, the priority and the queue's put sequence. Row id order is get
-- order, so `messages` needs no index and no AUTOINCREMENT.
--
-- The row at qkey << 44 (just before the queue's messages) is the queue's head row: its
-- system is '' (so no query for a system's messages meets it), and its columns depth,
-- held_swbs, compressed and next_seq (NULL on messages) carry what changes with every
-- message, with the sweeper's mark they depend on (a sequence number: messages with seq
-- <= sweep_mark are on file). Triggers keep them, so a durable put or get of a short
-- queue rewrites one page of the table. queue_marks holds what changes seldom: the
-- queue's name and number, the checkpoint's mark and the QDEPTHHI warning. The view queue_figures joins the two
-- for readers. queue_stats keeps the counters of the STAT display; the engine writes the
-- put and get counters in groups (mqtool/engine/queue.py), not per message.

CREATE TABLE queue_marks (
    qkey       INTEGER PRIMARY KEY CHECK (qkey BETWEEN 1 AND 524287),
    system     TEXT NOT NULL,
    queue      TEXT NOT NULL,
    ckpt_mark  INTEGER NOT NULL DEFAULT 0,
    hi_warned  INTEGER NOT NULL DEFAULT 0,
    UNIQUE (system, queue)
);

-- Every local queue of either platform, and any queue name still holding messages.
INSERT INTO queue_marks (qkey, system, queue)
SELECT row_number() OVER (ORDER BY system, queue), system, queue FROM (
    SELECT system, name AS queue FROM objects WHERE type IN ('QL', 'QLOCAL')
    UNION
    SELECT system, queue FROM messages
);

-- Old row id -> queue number and put sequence (old id order is put order).
CREATE TEMP TABLE message_ids AS
SELECT m.id AS old_id, f.qkey AS qkey,
       row_number() OVER (PARTITION BY f.qkey ORDER BY m.id) AS seq,
       max(0, min(9, m.priority)) AS priority,
       0 AS new_id
FROM messages m JOIN queue_marks f ON f.system = m.system AND f.queue = m.queue;
UPDATE temp.message_ids SET new_id = (qkey << 44) | ((9 - priority) << 40) | seq;  -- (<< and | bind alike in SQL)

-- Triggers that read the tables rebuilt below go first (they come back further down).
DROP TRIGGER engine_queue_defined;
DROP TRIGGER engine_queue_deleted;
DROP TRIGGER engine_config_system_removed;

CREATE TABLE messages_by_queue (
    id              INTEGER PRIMARY KEY,
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
    payload         BLOB NOT NULL,
    swbs            INTEGER NOT NULL DEFAULT 0,
    depth           INTEGER,  -- this and the next three: head rows only
    held_swbs       INTEGER,
    compressed      INTEGER,
    next_seq        INTEGER,
    sweep_mark      INTEGER
);
INSERT INTO messages_by_queue (id, system, queue, priority, msgid, correlid, persistent, put_time, expiry,
                               original_length, stored_length, codec, swept, header, payload, swbs)
SELECT i.new_id, m.system, m.queue, m.priority, m.msgid, m.correlid, m.persistent, m.put_time, m.expiry,
       m.original_length, m.stored_length, m.codec, m.swept, m.header, m.payload, m.swbs
FROM messages m JOIN temp.message_ids i ON i.old_id = m.id
ORDER BY i.new_id;

-- The marks were row ids; now they are sequence numbers of each queue.
UPDATE queue_marks SET
    ckpt_mark = coalesce((
        SELECT max(i.seq) FROM temp.message_ids i JOIN engine_state e ON e.system = queue_marks.system
        WHERE i.qkey = queue_marks.qkey AND i.old_id <= e.ckpt_mark), 0),
    hi_warned = coalesce((
        SELECT s.hi_warned FROM queue_stats s WHERE s.system = queue_marks.system AND s.queue = queue_marks.queue
    ), 0);

-- Head rows, with the figures of the messages behind them.
INSERT INTO messages_by_queue (id, system, queue, priority, msgid, correlid, persistent, put_time,
                               original_length, stored_length, payload, depth, compressed, next_seq, sweep_mark)
SELECT k.qkey << 44, '', k.queue, 0, x'', x'', 0, 0, 0, 0, x'',
       (SELECT count(*) FROM messages_by_queue m WHERE m.id > k.qkey << 44 AND m.id < (k.qkey + 1) << 44),
       (SELECT count(*) FROM messages_by_queue m
        WHERE m.id > k.qkey << 44 AND m.id < (k.qkey + 1) << 44 AND m.codec != ''),
       1 + coalesce((SELECT max(i.seq) FROM temp.message_ids i WHERE i.qkey = k.qkey), 0),
       coalesce((SELECT max(i.seq) FROM temp.message_ids i JOIN queue_stats s
                     ON s.system = k.system AND s.queue = k.queue
                 WHERE i.qkey = k.qkey AND i.old_id <= s.sweep_mark), 0)
FROM queue_marks k;
UPDATE messages_by_queue SET held_swbs = (
    SELECT coalesce(sum(m.swbs), 0) FROM messages_by_queue m
    WHERE m.id > messages_by_queue.id AND m.id < messages_by_queue.id + (1 << 44) AND m.swept = 0
      AND (m.id & 1099511627775) > messages_by_queue.sweep_mark)
WHERE system = '';

-- Channel batches in flight list row ids.
UPDATE objects SET status = json_set(status, '$.inflight', json((
    SELECT json_group_array(new_id) FROM (
        SELECT i.new_id FROM json_each(objects.status, '$.inflight') j JOIN temp.message_ids i ON i.old_id = j.value
        ORDER BY j.key
    )
)))
WHERE json_type(status, '$.inflight') = 'array';

DROP TABLE messages;  -- with its index and its triggers
ALTER TABLE messages_by_queue RENAME TO messages;
DROP TABLE temp.message_ids;

ALTER TABLE queue_stats DROP COLUMN depth;
ALTER TABLE queue_stats DROP COLUMN swbs;
ALTER TABLE queue_stats DROP COLUMN compressed;
ALTER TABLE queue_stats DROP COLUMN sweep_mark;
ALTER TABLE queue_stats DROP COLUMN hi_warned;
ALTER TABLE engine_state DROP COLUMN ckpt_mark;

-- A local queue's figures, for readers.
CREATE VIEW queue_figures AS
SELECT k.qkey, k.system, k.queue, h.depth, h.held_swbs AS swbs, h.compressed, h.next_seq,
       h.sweep_mark, k.ckpt_mark, k.hi_warned
FROM queue_marks k JOIN messages h ON h.id = k.qkey << 44;

-- A local queue gets its number (the lowest unused above the highest, else the lowest
-- free one), its head row and, on z/TPF, its statistics row when it is defined; its
-- messages and rows go with it. ALTER (an upsert's update) fires neither trigger.
CREATE TRIGGER engine_queue_defined AFTER INSERT ON objects WHEN new.type IN ('QL', 'QLOCAL')
BEGIN
    INSERT OR REPLACE INTO queue_stats (system, queue, reset_time)
    SELECT new.system, new.name, new.created WHERE new.type = 'QL';
    INSERT OR IGNORE INTO queue_marks (qkey, system, queue)
    SELECT CASE WHEN coalesce(max(qkey), 0) < 524287 THEN coalesce(max(qkey), 0) + 1
                ELSE (SELECT min(f.qkey) + 1 FROM queue_marks f
                      WHERE f.qkey + 1 NOT IN (SELECT qkey FROM queue_marks)) END,
           new.system, new.name
    FROM queue_marks;
    INSERT OR IGNORE INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time,
                                    original_length, stored_length, payload, depth, held_swbs, compressed, next_seq,
                                    sweep_mark)
    SELECT qkey << 44, '', new.name, 0, x'', x'', 0, 0, 0, 0, x'', 0, 0, 0, 1, 0
    FROM queue_marks WHERE system = new.system AND queue = new.name;
END;

CREATE TRIGGER engine_queue_deleted AFTER DELETE ON objects WHEN old.type IN ('QL', 'QLOCAL')
BEGIN
    DELETE FROM messages
    WHERE id >= (SELECT qkey << 44 FROM queue_marks WHERE system = old.system AND queue = old.name)
      AND id < (SELECT (qkey + 1) << 44 FROM queue_marks WHERE system = old.system AND queue = old.name);
    DELETE FROM queue_marks WHERE system = old.system AND queue = old.name;
    DELETE FROM queue_stats WHERE system = old.system AND queue = old.name;
END;

CREATE TRIGGER engine_config_system_removed AFTER DELETE ON systems
BEGIN
    UPDATE engine_config SET version = version + 1;
    DELETE FROM messages WHERE id IN (SELECT qkey << 44 FROM queue_marks WHERE system = old.name);
    DELETE FROM queue_marks WHERE system = old.name;
    DELETE FROM queue_stats WHERE system = old.name;
    DELETE FROM engine_state WHERE system = old.name;
    DELETE FROM sweeps WHERE system = old.name;
END;

-- The head row's figures follow every message put, got, removed or swept, by any path.
CREATE TRIGGER engine_message_put AFTER INSERT ON messages WHEN new.system != ''
BEGIN
    UPDATE messages SET
        depth = depth + 1,
        held_swbs = held_swbs + CASE WHEN new.swept = 0 AND (new.id & 1099511627775) > sweep_mark
            THEN new.swbs ELSE 0 END,
        compressed = compressed + (new.codec != ''),
        next_seq = max(next_seq, (new.id & 1099511627775) + 1)
    WHERE id = (new.id >> 44) << 44;
END;

CREATE TRIGGER engine_message_removed AFTER DELETE ON messages WHEN old.system != ''
BEGIN
    UPDATE messages SET
        depth = depth - 1,
        held_swbs = held_swbs - CASE WHEN old.swept = 0 AND (old.id & 1099511627775) > sweep_mark
            THEN old.swbs ELSE 0 END,
        compressed = compressed - (old.codec != '')
    WHERE id = (old.id >> 44) << 44;
END;

CREATE TRIGGER engine_message_swept AFTER UPDATE OF swept ON messages
WHEN new.system != '' AND (old.swept = 0) != (new.swept = 0)
BEGIN
    UPDATE messages SET
        held_swbs = held_swbs + CASE
            WHEN (new.id & 1099511627775) <= sweep_mark THEN 0
            WHEN new.swept = 0 THEN new.swbs ELSE -new.swbs END
    WHERE id = (new.id >> 44) << 44;
END;
