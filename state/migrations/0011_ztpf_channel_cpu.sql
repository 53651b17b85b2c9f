-- Schema version 8 (bread-ztpf): the processor of a z/TPF channel definition. ZMQSC
-- DEFINE CHL now stores CPU (the processor the definition is for, or ALL), defaulting to
-- the processor where it is defined; channels defined before this version get that
-- default, their system's processor id (B when the system has none set). Nothing else
-- changes.
UPDATE objects SET attrs = json_set(attrs, '$.CPU', coalesce((
    SELECT upper(json_extract(s.attrs, '$.processor')) FROM systems s WHERE s.name = objects.system
), 'B'))
WHERE type = 'CHL' AND json_extract(attrs, '$.CPU') IS NULL
  AND system IN (SELECT name FROM systems WHERE platform = 'ztpf');
