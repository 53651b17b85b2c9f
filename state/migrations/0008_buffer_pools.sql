-- Schema version 7: buffer pools are objects (type BUFFPOOL, named "0".."99") that page
-- sets name; a new z/OS queue manager has buffer pools 0-3 (commands/zos/builtin.py).
-- Stores made before this version get those four for every z/OS queue manager, and one
-- for each buffer pool a page set names, with the keyword table's defaults.
WITH pools(system, number) AS (
    SELECT o.system, v.number
    FROM objects o
    JOIN systems s ON s.name = o.system
    JOIN (SELECT 0 AS number UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) v
    WHERE o.type = 'QMGR' AND s.platform = 'zos'
    UNION
    SELECT p.system, CAST(coalesce(json_extract(p.attrs, '$.BUFFPOOL'), 0) AS INTEGER)
    FROM objects p
    WHERE p.type = 'PSID'
)
INSERT OR IGNORE INTO objects (system, type, name, attrs, status, created, altered)
SELECT pools.system, 'BUFFPOOL', CAST(pools.number AS TEXT),
       '{"BUFFERS":1000,"LOCATION":"BELOW","PAGECLAS":"4KB"}', '{}', q.created, q.created
FROM pools
JOIN objects q ON q.system = pools.system AND q.type = 'QMGR';
