-- Schema version 7: channel security (issue 17) on the z/OS queue managers a store
-- already holds. As IBM MQ does for a queue manager migrated from before channel
-- authentication records existed, they keep running as before: QMGR CHLAUTH(DISABLED)
-- and no back-stop records (a queue manager created from now on gets CHLAUTH(ENABLED)
-- and IBM's three default records, commands/zos/builtin.py). They get the system
-- default object of DEFINE AUTHINFO, with the attributes builtin.py gives it (a test
-- compares the two). The other new attributes need no migration: a keyword absent from
-- a stored record takes its keyword-table default when read (state/README.md).
UPDATE objects
SET attrs = json_set(attrs, '$.CHLAUTH', 'DISABLED')
WHERE type = 'QMGR'
  AND json_extract(attrs, '$.CHLAUTH') IS NULL
  AND system IN (SELECT name FROM systems WHERE platform = 'zos');

INSERT OR IGNORE INTO objects (system, type, name, attrs, status, created, altered)
SELECT system, 'AUTHINFO', 'SYSTEM.DEFAULT.AUTHINFO.IDPWOS',
       '{"ADOPTCTX":"NO","AUTHTYPE":"IDPWOS","CHCKCLNT":"REQUIRED","CHCKLOCL":"OPTIONAL","CONNAME":"","DESCR":"","FAILDLAY":1,"LDAPUSER":"","QSGDISP":"QMGR"}',
       '{}', created, created
FROM objects
WHERE type = 'QMGR'
  AND system IN (SELECT name FROM systems WHERE platform = 'zos');
