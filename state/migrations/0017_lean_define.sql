-- Schema version 17: a DEFINE writes the fewest pages (issue 19). Before, the triggers on
-- `objects` wrote four more tables for a new local queue (queue_stats, queue_marks with
-- its index of names, zos_qstats; each table with a second B-tree for its key) and
-- engine_config: a z/TPF DEFINE QL wrote about 9 pages, a z/OS DEFINE QLOCAL 11.
--
-- * `objects` carries `qkey`, the local queue's number (state/messages.py), given by the
--   trigger that makes the queue's head row: the number after the highest head row's
--   (the largest row id of `messages`), or the first free one when the numbers have run
--   out. (Keying `objects` by its primary key alone, WITHOUT ROWID, would save one more
--   page, but a z/OS definition of 2 KB would then overflow a 4 KB page, and counting a
--   system's definitions would read every definition whole.)
-- * `queue_marks` is no longer a table: its checkpoint mark and high-depth warning are
--   columns of the queue's head row (`messages` at qkey << 44), and the view of that
--   name joins them to `objects`. `queue_figures` reads the same way.
-- * The rows of `queue_stats` (z/TPF STAT) and `zos_qstats` (z/OS RESET QSTATS) are
--   derived when absent: a queue nobody has opened has counters of zero and was reset
--   when it was defined (its `objects.created`). z/TPF writes its row when a handle
--   first opens the queue; z/OS when the queue is reset or loses a message without a get.
--
-- Existing data is carried over: every object with its queue number, the marks into the
-- head rows, every counter row.

DROP VIEW queue_figures;
DROP TRIGGER engine_queue_defined;
DROP TRIGGER engine_queue_deleted;
DROP TRIGGER engine_config_system_removed;
DROP TRIGGER zos_qstats_queue_defined;

ALTER TABLE messages ADD COLUMN ckpt_mark INTEGER;
ALTER TABLE messages ADD COLUMN hi_warned INTEGER;
UPDATE messages SET
    ckpt_mark = (SELECT k.ckpt_mark FROM queue_marks k WHERE k.qkey = messages.id >> 44),
    hi_warned = (SELECT k.hi_warned FROM queue_marks k WHERE k.qkey = messages.id >> 44)
WHERE id IN (SELECT qkey << 44 FROM queue_marks);

ALTER TABLE objects ADD COLUMN qkey INTEGER;  -- local queues (QL, QLOCAL): the queue's number
UPDATE objects SET qkey = (SELECT k.qkey FROM queue_marks k WHERE k.system = objects.system AND k.queue = objects.name)
WHERE type IN ('QL', 'QLOCAL');
DROP TABLE queue_marks;

-- A new local queue: its number and its head row (no counter rows: see above).
CREATE TRIGGER engine_queue_defined AFTER INSERT ON objects WHEN new.type IN ('QL', 'QLOCAL')
BEGIN
    UPDATE objects SET qkey = (
        SELECT CASE WHEN coalesce(max(id) >> 44, 0) < 524287 THEN coalesce(max(id) >> 44, 0) + 1
                    ELSE (SELECT min(f.qkey) + 1 FROM objects f
                          WHERE f.qkey IS NOT NULL
                            AND f.qkey + 1 NOT IN (SELECT qkey FROM objects WHERE qkey IS NOT NULL)) END
        FROM messages)
    WHERE system = new.system AND type = new.type AND name = new.name AND qkey IS NULL;
    INSERT OR IGNORE INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time,
                                    original_length, stored_length, payload, depth, held_swbs, compressed, next_seq,
                                    sweep_mark, ckpt_mark, hi_warned)
    SELECT qkey << 44, '', new.name, 0, x'', x'', 0, 0, 0, 0, x'', 0, 0, 0, 1, 0, 0, 0
    FROM objects WHERE system = new.system AND type = new.type AND name = new.name;
END;

CREATE TRIGGER engine_queue_deleted AFTER DELETE ON objects WHEN old.type IN ('QL', 'QLOCAL')
BEGIN
    DELETE FROM messages WHERE id >= old.qkey << 44 AND id < (old.qkey + 1) << 44;
    DELETE FROM queue_stats WHERE system = old.system AND queue = old.name;
END;

CREATE TRIGGER engine_config_system_removed AFTER DELETE ON systems
BEGIN
    UPDATE engine_config SET version = version + 1;
    DELETE FROM messages WHERE id IN (SELECT qkey << 44 FROM objects WHERE system = old.name AND qkey IS NOT NULL);
    DELETE FROM queue_stats WHERE system = old.name;
    DELETE FROM engine_state WHERE system = old.name;
    DELETE FROM sweeps WHERE system = old.name;
END;

CREATE VIEW queue_marks AS
SELECT o.qkey AS qkey, o.system AS system, o.name AS queue,
       coalesce(h.ckpt_mark, 0) AS ckpt_mark, coalesce(h.hi_warned, 0) AS hi_warned
FROM objects o JOIN messages h ON h.id = o.qkey << 44
WHERE o.type IN ('QL', 'QLOCAL') AND o.qkey IS NOT NULL;

CREATE VIEW queue_figures AS
SELECT o.qkey AS qkey, o.system AS system, o.name AS queue, h.depth AS depth, h.held_swbs AS swbs,
       h.compressed AS compressed, h.next_seq AS next_seq, h.sweep_mark AS sweep_mark,
       coalesce(h.ckpt_mark, 0) AS ckpt_mark, coalesce(h.hi_warned, 0) AS hi_warned
FROM objects o JOIN messages h ON h.id = o.qkey << 44
WHERE o.type IN ('QL', 'QLOCAL') AND o.qkey IS NOT NULL;
