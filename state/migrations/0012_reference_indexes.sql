-- Schema version 7: indexes on the attributes that name other objects.
--
-- The rules of DEFINE, ALTER and DELETE ask "which objects name this one?" (the queues
-- that stream to a queue, the aliases that resolve to it, the definitions that name a
-- transmission queue, the queues of a storage class, the storage classes of a page
-- set, the z/TPF local queues above a new queue manager MAXMSGL). Attributes stay JSON
-- (state/README.md); each of these is indexed by its value, so the answer costs the
-- same with 100 objects as with 100,000. Each index is partial: it holds only the object
-- types that have the attribute, so that a definition pays only for the indexes of its
-- own type (the WHERE tests the type, which costs nothing, not the JSON). Transaction.
-- objects_where (state/store.py) reads through them, with the expression and the WHERE
-- of each written exactly as here (REFERENCE_ATTRIBUTES), which SQLite needs to use a
-- partial index. A new object type with such an attribute needs its index in a new
-- migration.
CREATE INDEX objects_by_streamq ON objects (system, json_extract(attrs, '$.STREAMQ'))
    WHERE type IN ('QLOCAL', 'QMODEL');
CREATE INDEX objects_by_target ON objects (system, json_extract(attrs, '$.TARGET'))
    WHERE type = 'QALIAS';
CREATE INDEX objects_by_targq ON objects (system, json_extract(attrs, '$.TARGQ'))
    WHERE type = 'QA';
CREATE INDEX objects_by_xmitq ON objects (system, json_extract(attrs, '$.XMITQ'))
    WHERE type IN ('QR', 'CHL', 'QREMOTE', 'CHANNEL');
CREATE INDEX objects_by_stgclass ON objects (system, json_extract(attrs, '$.STGCLASS'))
    WHERE type IN ('QLOCAL', 'QMODEL');
CREATE INDEX objects_by_psid ON objects (system, json_extract(attrs, '$.PSID'))
    WHERE type = 'STGCLASS';
CREATE INDEX objects_by_maxmsgl ON objects (system, json_extract(attrs, '$.MAXMSGL'))
    WHERE type = 'QL';
