-- Schema version 7: indexes on the attributes that name other objects.
--
-- The rules of DEFINE, ALTER and DELETE ask "which objects name this one?" (the queues
-- that stream to a queue, the aliases that resolve to it, the definitions that name a
-- transmission queue, the queues of a storage class, the storage classes of a page
-- set, the local queues above a new MAXMSGL). Attributes stay JSON (state/README.md);
-- each of these is indexed by its value, so the answer costs the same with 100 objects
-- as with 100,000. Transaction.objects_where (state/store.py) reads through them: the
-- expression in a query must be written exactly as here for SQLite to use the index.
CREATE INDEX objects_by_streamq ON objects (system, json_extract(attrs, '$.STREAMQ'));
CREATE INDEX objects_by_target ON objects (system, json_extract(attrs, '$.TARGET'));
CREATE INDEX objects_by_targq ON objects (system, json_extract(attrs, '$.TARGQ'));
CREATE INDEX objects_by_xmitq ON objects (system, json_extract(attrs, '$.XMITQ'));
CREATE INDEX objects_by_stgclass ON objects (system, json_extract(attrs, '$.STGCLASS'));
CREATE INDEX objects_by_psid ON objects (system, json_extract(attrs, '$.PSID'));
CREATE INDEX objects_by_maxmsgl ON objects (system, json_extract(attrs, '$.MAXMSGL'));
