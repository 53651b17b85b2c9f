-- Schema version 5: the z/OS storage model.
--
-- A z/OS queue's messages hold pages of its page set: the engine stores a message's
-- pages in messages.swbs (the column of a message's storage units: SWBs on z/TPF,
-- pages on z/OS), so the head row's held_swbs is the pages the queue holds.
-- The head row also keeps when the queue was last put to and got from (DISPLAY QSTATUS
-- LPUTDATE/LPUTTIME, LGETDATE/LGETTIME); NULL on messages.
ALTER TABLE messages ADD COLUMN last_put REAL;
ALTER TABLE messages ADD COLUMN last_get REAL;

-- The queue handles open now, with the process that holds each (DISPLAY QSTATUS counts
-- the handles of live processes as IPPROCS and OPPROCS; a process killed with its
-- handles open leaves rows that no live process holds, which are not counted and are
-- removed at the next open).
CREATE TABLE open_handles (
    system  TEXT NOT NULL,
    queue   TEXT NOT NULL,
    handle  INTEGER NOT NULL,
    pid     INTEGER NOT NULL,
    input   INTEGER NOT NULL,
    output  INTEGER NOT NULL,
    opened  REAL NOT NULL,
    PRIMARY KEY (system, handle)
);
CREATE INDEX open_handles_by_queue ON open_handles (system, queue);

CREATE TRIGGER open_handles_queue_deleted AFTER DELETE ON objects WHEN old.type = 'QLOCAL'
BEGIN
    DELETE FROM open_handles WHERE system = old.system AND queue = old.name;
END;

CREATE TRIGGER open_handles_system_removed AFTER DELETE ON systems
BEGIN
    DELETE FROM open_handles WHERE system = old.name;
END;
