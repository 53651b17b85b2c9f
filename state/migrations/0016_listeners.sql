-- Schema version 8: the run-time status of the TCP listeners of the channel initiator
-- (mqtool/engine/channels/listeners.py). A system's listeners themselves are its
-- `listener` setting (the addresses START LISTENER and `mqtool system alter --listener`
-- give); this table holds what a serving loop found when it opened them: the loop that
-- owns each one, the port it got (PORT 0), whether it listens or retries and why, and
-- the counts DISPLAY CHINIT and DISPLAY LISTENER show. Nothing here is configuration:
-- a row may be dropped at any time and is written again by the next loop.
CREATE TABLE listener_status (
    system  TEXT NOT NULL REFERENCES systems(name) ON DELETE CASCADE,
    address TEXT NOT NULL,
    status  TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (system, address)
);
