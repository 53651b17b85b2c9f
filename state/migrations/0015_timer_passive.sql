-- Schema version 7: a timer whose next run can only repeat what its last run found (a
-- sender channel retrying for a reason that only a command or another timer's work can
-- change) is passive: catching up over a gap, the other timers do not stop their jumps
-- at its runs (mqtool/engine/timers.py, quiet_until). Any schedule makes it active again.
ALTER TABLE timers ADD COLUMN passive INTEGER NOT NULL DEFAULT 0;
