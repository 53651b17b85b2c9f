-- Schema version 4: every message carries a checksum of its payload.
--
-- messages.checksum is the CRC-32 of the payload as stored (compressed or not), written
-- by every put and checked by every get and browse, so a payload changed on disk (a
-- flipped byte) is refused with MQRC 2195 and stays on its queue instead of being
-- delivered. NULL means not checked: head rows, and messages written by a writer that
-- gives none. The messages already stored get theirs now (mqtool_checksum is the same
-- function, state.store.payload_checksum, registered by the store before it migrates).

ALTER TABLE messages ADD COLUMN checksum INTEGER;
UPDATE messages SET checksum = mqtool_checksum(payload) WHERE system != '';
