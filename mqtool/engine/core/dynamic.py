"""Dynamic queues: an MQOPEN of a model queue (a platform's `StorageModel.model_type`)
makes a local queue from the model's attributes, named by the opener's DynamicQName
(a full name, or a prefix ending in `*` that the queue manager completes), as IBM MQ
does.

- The generated part on z/OS: 16 hexadecimal digits, the queue manager's TOD clock
  plus the handle's number in the store, so two queues opened in the same instant
  differ and a frozen clock gives the same names on every run (IBM documents only
  that the name is unique; the form is inferred). DynamicQName defaults to `CSQ.*`.
- DEFTYPE(TEMPDYN): the queue holds no persistent messages (2048) and is deleted,
  with its messages, when the handle that made it closes. A handle whose process ends
  without closing (kill -9) leaves it: the queue manager deletes such queues the next
  time any dynamic queue is made, and when it starts (START QMGR), as z/OS deletes
  temporary dynamic queues at restart.
- DEFTYPE(PERMDYN): the queue stays until DELETE QLOCAL.
- DEFTYPE(SHAREDYN): a shared queue of a queue-sharing group; mqtool's queue managers
  are in none, so the MQOPEN fails with 2345 (MQRC_CF_NOT_AVAILABLE, inferred).

The queue keeps DEFTYPE (DISPLAY QUEUE shows it) and, while it is temporary, the
process that owns it (`status.owner`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from mqtool.engine.core.reasons import (
    CF_NOT_AVAILABLE,
    OBJECT_ALREADY_EXISTS,
    OBJECT_NAME_ERROR,
    PERSISTENT_NOT_ALLOWED,
    MQError,
)
from mqtool.processes import alive
from mqtool.state import ObjectRecord
from mqtool.state import messages as runs
from mqtool.state.store import PRIMARY_KEY_INDEX

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.engine.core.model import StorageModel
    from mqtool.state import Transaction

DEFAULT_DYNAMIC_NAME = "CSQ.*"
NAME_MAX = 48
__all__ = ["PERSISTENT_NOT_ALLOWED", "create", "delete", "dynamic_name", "remove_orphans", "temporary"]
# Attributes of a model that describe the model itself, not the queue made from it.
NOT_COPIED = ("DEFTYPE",)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%")


def dynamic_name(pattern: str, clock: Clock, number: int) -> str:
    """The name a DynamicQName gives: the pattern as it is, or its prefix before a final
    `*` and 16 hexadecimal digits. MQError 2152 for a name MQ would not take."""
    text = pattern.strip()
    if text.endswith("*"):
        prefix = text[:-1]
        unique = f"{(clock.tod() + number) & 0xFFFFFFFFFFFFFFFF:016X}"
        text = (prefix + unique)[:NAME_MAX] if len(prefix) <= NAME_MAX - 16 else ""
    if not text or len(text) > NAME_MAX or not set(text) <= _NAME_CHARS:
        raise MQError(
            OBJECT_NAME_ERROR, f"dynamic queue name {pattern!r}: a name or a prefix ending in * (A-Z a-z 0-9 . / _ %)"
        )
    return text


def create(
    tx: Transaction, model: StorageModel, system: str, template: ObjectRecord, pattern: str, clock: Clock, number: int
) -> ObjectRecord:
    """Makes the dynamic queue of an MQOPEN of model queue `template` (in `tx`)."""
    deftype = str(template.attrs.get("DEFTYPE", "TEMPDYN"))
    if deftype == "SHAREDYN":
        raise MQError(
            CF_NOT_AVAILABLE,
            f"{template.name} has DEFTYPE(SHAREDYN): a shared queue needs a queue-sharing group, and "
            f"{system} is in none",
        )
    remove_orphans(tx, model, system)
    name = dynamic_name(pattern, clock, number)
    if tx.find_object(system, (*model.queue_types, model.model_type), name) is not None:
        raise MQError(OBJECT_ALREADY_EXISTS, f"a queue named {name} exists")
    attrs = {key: value for key, value in template.attrs.items() if key not in NOT_COPIED}
    attrs["DEFTYPE"] = deftype
    now = clock.timestamp()
    status = {"owner": os.getpid(), "model": template.name} if deftype == "TEMPDYN" else {"model": template.name}
    record = ObjectRecord(system, model.local_type, name, attrs, status, now, now)
    tx.put_object(record)
    return record


def temporary(record: ObjectRecord) -> bool:
    return record.attrs.get("DEFTYPE") == "TEMPDYN"


def delete(tx: Transaction, model: StorageModel, system: str, name: str) -> None:
    """Deletes a temporary dynamic queue with its messages."""
    runs.clear(tx.conn, system, name)
    tx.delete_object(system, model.local_type, name)


def remove_orphans(tx: Transaction, model: StorageModel, system: str) -> int:
    """Deletes the temporary dynamic queues whose owning process has ended; how many."""
    if not model.model_type:
        return 0
    rows = tx.conn.execute(
        "SELECT name, json_extract(status, '$.owner') FROM objects INDEXED BY "
        + PRIMARY_KEY_INDEX
        + " WHERE system = ? AND type = ? "
        "AND json_extract(attrs, '$.DEFTYPE') = 'TEMPDYN'",
        (system, model.local_type),
    ).fetchall()
    gone = [str(name) for name, owner in rows if owner is None or not alive(int(owner))]
    for name in gone:
        delete(tx, model, system, name)
    return len(gone)
