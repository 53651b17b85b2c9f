"""Triggering: the conditions under which a queue manager writes a trigger message (an
MQTM, mqtm.py) to a local queue's initiation queue, for every platform whose storage
model names a process object type (`StorageModel.process_type`).

IBM's conditions for a trigger event, as implemented here:

- a message is put with a priority of at least TRIGMPRI; the messages of at least that
  priority on the queue were, before it: none (TRIGTYPE FIRST), any number (EVERY), or
  TRIGDPTH - 1 (DEPTH); committed and uncommitted messages count alike;
- FIRST and DEPTH: no handle has the queue open for input;
- the queue has TRIGGER and a TRIGTYPE other than NONE, and it is not get-inhibited;
- PROCESS names a process definition that exists (a transmission queue may leave it
  blank: the channel initiator reads TRIGDATA);
- INITQ names a local queue other than this one, with USAGE(NORMAL), neither put- nor
  get-inhibited, that a trigger monitor holds open for input;
- FIRST also fires on a queue that is not empty when TRIGINT (the queue manager's
  trigger interval) has passed since the queue's last trigger message (mqtool counts a
  queue that never triggered from its last DEFINE or ALTER);
- the same conditions, depth apart, are looked at again when the last input handle of
  a FIRST or DEPTH queue closes with messages left (at least 1, or TRIGDPTH), when a
  trigger monitor opens the initiation queue for input (once per queue it serves), and
  when an operator re-arms a queue (ALTER of its trigger attributes or GET);
- DEPTH turns TRIGGER off when it fires (the application re-arms it).

A trigger message is non-persistent, of the initiation queue's default priority, and is
put in the transaction (unit of work) of the message that caused it. When it cannot be
put to the initiation queue it goes to the dead-letter queue; when that fails too it is
lost, as on MQ.

What a put costs: the definitions a trigger needs (the settings, the process, the
initiation queue's static conditions) are read once per resolution and kept in
`Resolved.trigger`; a queue without TRIGGER (or whose static conditions fail) has None
there and pays one comparison. A FIRST queue that is not empty pays a comparison with
the trigger interval; only a put that meets the depth condition asks the store whether
handles are open.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mqtool.engine.core import mqtm
from mqtool.engine.core.opens import live_handles, open_for_input
from mqtool.engine.core.reasons import MQError
from mqtool.state import messages as runs
from mqtool.state.store import PRIMARY_KEY_INDEX

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.engine.core.message import Resolved
    from mqtool.engine.core.model import StorageModel
    from mqtool.state import ObjectRecord, Transaction

FIRST, EVERY, DEPTH = "FIRST", "EVERY", "DEPTH"
DEFAULT_TRIGINT_MS = 999_999_999
# The header of a trigger message: its MQMD Format, code page and encoding.
HEADER = json.dumps(
    {"ccsid": mqtm.ZOS_CCSID, "encoding": mqtm.ZOS_ENCODING, "format": mqtm.MQFMT_TRIGGER},
    sort_keys=True,
    separators=(",", ":"),
)


class Engine(Protocol):
    """What triggering uses of the open handle it works for (a QueueHandle): the clock,
    the platform's model, the system, a new handle on another queue of the system, and
    the resolution of a queue name."""

    clock: Clock
    model: StorageModel
    system_name: str

    def sibling(self, queue: str) -> Any: ...

    def resolve_queue(self, tx: Transaction, queue: str) -> Resolved: ...


@dataclass
class TriggerSettings:
    """A triggered queue's settings whose static conditions hold, read once per resolution."""

    queue: str
    trigtype: str
    depth: int
    mpri: int
    initq: str
    message: mqtm.TriggerMessage
    interval: float  # TRIGINT in seconds
    last: float  # when the queue last triggered (as this handle knows it), else its last change


def _enabled(record: ObjectRecord, keyword: str) -> bool:
    return record.attrs.get(keyword, "ENABLED") != "DISABLED"


def settings(
    tx: Transaction, model: StorageModel, system: str, qmgr: ObjectRecord, local: ObjectRecord
) -> TriggerSettings | None:
    """The trigger settings of a local queue, or None when it cannot trigger whatever is
    put (no TRIGGER, TRIGTYPE(NONE), get-inhibited, or a process or initiation queue
    that does not meet the conditions)."""
    attrs = local.attrs
    if not model.process_type or attrs.get("TRIGGER") != "YES":
        return None
    trigtype = str(attrs.get("TRIGTYPE", FIRST))
    if trigtype not in (FIRST, EVERY, DEPTH) or not _enabled(local, "GET"):
        return None
    initq_name = str(attrs.get("INITQ") or "")
    if not initq_name or initq_name == local.name:
        return None
    initq = tx.get_object(system, model.local_type, initq_name)
    if initq is None or initq.attrs.get("USAGE", "NORMAL") != "NORMAL":
        return None
    if not (_enabled(initq, "PUT") and _enabled(initq, "GET")):
        return None
    process_name = str(attrs.get("PROCESS") or "")
    process = tx.get_object(system, model.process_type, process_name) if process_name else None
    if process is None and (process_name or attrs.get("USAGE") != "XMITQ"):
        return None
    pattrs = process.attrs if process is not None else {}
    message = mqtm.TriggerMessage(
        qname=local.name,
        process=process_name,
        trigger_data=str(attrs.get("TRIGDATA") or ""),
        appl_type=mqtm.appl_type(pattrs.get("APPLTYPE", "CICS")),
        appl_id=str(pattrs.get("APPLICID") or ""),
        env_data=str(pattrs.get("ENVRDATA") or ""),
        user_data=str(pattrs.get("USERDATA") or ""),
    )
    trigint = qmgr.attrs.get("TRIGINT", DEFAULT_TRIGINT_MS)
    return TriggerSettings(
        queue=local.name,
        trigtype=trigtype,
        depth=int(attrs.get("TRIGDPTH", 1)),
        mpri=int(attrs.get("TRIGMPRI", 0)),
        initq=initq_name,
        message=message,
        interval=int(trigint) / 1000,
        last=float(local.status.get("last_trigger", local.altered)),
    )


def qualifying(tx: Transaction, resolved: Resolved, mpri: int) -> int:
    """Messages on the queue of priority `mpri` or higher (all of them for 0)."""
    if mpri <= 0:
        return runs.depth(tx.conn, resolved.system.name, resolved.local_name)
    high = resolved.low | (10 - mpri) << runs.PRIORITY_SHIFT
    row = tx.conn.execute("SELECT count(*) FROM messages WHERE id > ? AND id < ?", (resolved.low, high)).fetchone()
    return int(row[0])


def after_put(tx: Transaction, handle: Engine, resolved: Resolved, priority: int, depth_before: int) -> bool:
    """A message of `priority` was put (in `tx`) on a queue with trigger settings, which
    held `depth_before` messages before it: writes a trigger message when IBM's
    conditions are met. True when one was written (the queue's definitions may have
    changed: DEPTH turns TRIGGER off)."""
    found: TriggerSettings = resolved.trigger
    if priority < found.mpri:
        return False
    if found.trigtype != EVERY:
        before = depth_before if found.mpri == 0 else qualifying(tx, resolved, found.mpri) - 1
        if found.trigtype == DEPTH:
            if before != found.depth - 1:
                return False
        elif before != 0 and not _interval_passed(tx, handle, found):
            return False
        if open_for_input(tx, resolved.system.name, resolved.local_name):
            return False
    return _fire(tx, handle, found)


def _interval_passed(tx: Transaction, handle: Engine, found: TriggerSettings) -> bool:
    """FIRST on a queue that is not empty: whether TRIGINT has passed since the queue's
    last trigger message. The time this handle knows is never later than the true one,
    so only when it says "passed" is the store asked."""
    now = handle.clock.timestamp()
    if now < found.last + found.interval:
        return False
    record = tx.get_object(handle.system_name, handle.model.local_type, found.queue)
    if record is not None:
        found.last = float(record.status.get("last_trigger", record.altered))
    return now >= found.last + found.interval


def _fire(tx: Transaction, engine: Engine, found: TriggerSettings) -> bool:
    """Writes the trigger message when a trigger monitor holds the initiation queue open
    for input; records the time on the queue; DEPTH turns TRIGGER off."""
    system, clock, model = engine.system_name, engine.clock, engine.model
    if not open_for_input(tx, system, found.initq):
        return False
    from mqtool.engine.core.message import PutOptions

    payload = mqtm.pack(found.message)
    options = PutOptions(persistent=False, priority=None, header=HEADER)
    try:
        _put_internal(tx, engine.sibling(found.initq), payload, options)
    except MQError as refused:
        # To the dead-letter queue behind an MQDLH that says why (the initiation queue's
        # reason code) and where it was going.
        from mqtool.engine.channels.deadletter import DeadLetterHeader, build

        record = tx.get_system(system)
        qmgr = model.queue_manager(tx, record) if record is not None else None
        deadq = str(qmgr.attrs.get("DEADQ") or "") if qmgr is not None else ""
        header = DeadLetterHeader(refused.reason, found.initq, system, "queue manager trigger", clock.timestamp())
        try:
            if deadq:
                dead = PutOptions(persistent=False, priority=None)
                _put_internal(tx, engine.sibling(deadq), build(header) + payload, dead)
        except MQError:
            pass  # lost, as a trigger message that neither queue takes is on MQ
    now = clock.timestamp()
    found.last = now
    queue = tx.get_object(system, model.local_type, found.queue)
    if queue is not None:
        queue.status["last_trigger"] = now
        if found.trigtype == DEPTH:
            queue.attrs["TRIGGER"] = "NO"
            tx.put_object(queue)
        else:
            tx.put_status(queue)
    return True


def _put_internal(tx: Transaction, handle: Any, payload: bytes, options: Any) -> None:
    """A put by the queue manager itself: not counted as an application's handle."""
    handle.ledger.make_internal()
    handle.open(tx)
    try:
        handle.put(tx, payload, options)
    finally:
        handle.close(tx)


def look_again(tx: Transaction, engine: Engine, queue: str) -> bool:
    """Looks at a FIRST or DEPTH queue's conditions outside a put (its last input handle
    closed, its initiation queue was opened for input, an operator re-armed it): a
    trigger message when at least 1 (FIRST) or TRIGDPTH (DEPTH) messages of sufficient
    priority are on it and the other conditions hold. True when one was written."""
    try:
        resolved = engine.resolve_queue(tx, queue)
    except MQError:
        return False
    found: TriggerSettings | None = resolved.trigger
    if found is None or found.trigtype == EVERY or resolved.local_name != queue:
        return False
    count = qualifying(tx, resolved, found.mpri)
    if count < (found.depth if found.trigtype == DEPTH else 1):
        return False
    if open_for_input(tx, engine.system_name, queue):
        return False
    return _fire(tx, engine, found)


def initq_opened(tx: Transaction, engine: Engine, initq: str) -> int:
    """A handle opened `initq` for input, the first to (a trigger monitor starting): one
    trigger message for each FIRST or DEPTH queue it serves whose conditions hold. How
    many were written."""
    model, system = engine.model, engine.system_name
    if not model.process_type or live_handles(tx, system, initq)[0] != 1:
        return 0
    rows = tx.conn.execute(
        "SELECT name FROM objects INDEXED BY "
        + PRIMARY_KEY_INDEX
        + " WHERE system = ? AND type = ? AND json_extract(attrs, '$.INITQ') = ? "
        "AND json_extract(attrs, '$.TRIGGER') = 'YES' ORDER BY name",
        (system, model.local_type, initq),
    ).fetchall()
    return sum(look_again(tx, engine, str(name)) for (name,) in rows)
