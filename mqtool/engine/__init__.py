"""The engine: what the commands imply (puts, gets, codecs, SWBs, sweeper, channels,
HTTP, log, expiry), driven by `tick(now)`. It never formats console text."""
