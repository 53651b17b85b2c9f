-- Schema version 19: a new local queue's number is given in the INSERT of its
-- definition (issue 19, third round). Before, the trigger that makes the queue's head
-- row first UPDATEd the row just inserted with its number (a second search of `objects`
-- and a second write of its row) and then read that row back for the head row's id.
-- Transaction.put_object (state/store.py) now gives `qkey` in the INSERT of a QL or
-- QLOCAL: the number after the highest head row's (the largest row id of `messages`),
-- or NULL when the numbers have run out. The head row is made from `new.qkey`.
--
-- A definition inserted without a number (by an older mqtool, by hand, or after the
-- numbers ran out) is numbered by the trigger as before: the first free number.
-- The head row's columns are those of the `messages` table (migration 0017).

DROP TRIGGER engine_queue_defined;

-- A new local queue: its number when the INSERT gave none (as migration 0017 gave it; the
-- UPDATE does nothing when new.qkey is set), then its head row.
CREATE TRIGGER engine_queue_defined AFTER INSERT ON objects WHEN new.type IN ('QL', 'QLOCAL')
BEGIN
    UPDATE objects SET qkey = (
        SELECT CASE WHEN coalesce(max(id) >> 44, 0) < 524287 THEN coalesce(max(id) >> 44, 0) + 1
                    ELSE (SELECT min(f.qkey) + 1 FROM objects f
                          WHERE f.qkey IS NOT NULL
                            AND f.qkey + 1 NOT IN (SELECT qkey FROM objects WHERE qkey IS NOT NULL)) END
        FROM messages)
    WHERE new.qkey IS NULL AND system = new.system AND type = new.type AND name = new.name AND qkey IS NULL;
    INSERT OR IGNORE INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time,
                                    original_length, stored_length, payload, depth, held_swbs, compressed, next_seq,
                                    sweep_mark, ckpt_mark, hi_warned)
    VALUES (coalesce(new.qkey, (SELECT qkey FROM objects WHERE system = new.system AND type = new.type
                                                          AND name = new.name)) << 44,
            '', new.name, 0, x'', x'', 0, 0, 0, 0, x'', 0, 0, 0, 1, 0, 0, 0);
END;

-- A z/TPF local queue whose MAXMSGL is 4194304 (the queue manager's default, which its
-- queues inherit) is no longer in the index of MAXMSGL, so that a DEFINE that takes it
-- writes one page fewer. The rule that needs the index (ALTER QMGR MAXMSGL may not go
-- below a local queue's) reads the queues above the new value through the index, and,
-- when the new value is below 4194304, the first queue at 4194304 by name
-- (commands/ztpf_mq/rules.py).
DROP INDEX objects_by_maxmsgl;
CREATE INDEX objects_by_maxmsgl ON objects (system, json_extract(attrs, '$.MAXMSGL'))
    WHERE type = 'QL' AND json_extract(attrs, '$.MAXMSGL') <> 4194304;

-- A z/OS queue without a streaming queue (STREAMQ blank, the default) is no longer in the
-- index of STREAMQ: the rules only ever ask which queues stream to a named queue, never
-- which stream to none. A DEFINE QLOCAL that takes the default writes one page fewer.
DROP INDEX objects_by_streamq;
CREATE INDEX objects_by_streamq ON objects (system, json_extract(attrs, '$.STREAMQ'))
    WHERE type IN ('QLOCAL', 'QMODEL') AND json_extract(attrs, '$.STREAMQ') <> '';
