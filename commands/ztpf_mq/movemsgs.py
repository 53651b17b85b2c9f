"""ZMQSC MOVEMSGS Q-name CPU-x [FORCE]: moves the messages of a normal local memory queue
of a deactivated processor (CPU-x: another z/TPF system of the complex with this queue
manager and subsystem, its queue manager stopped) to the same queue on this processor,
in one unit of work (mqtool/engine/ztpf/move.py). Not for transmission queues nor
common queues. Without FORCE the move is all or nothing; with FORCE what can move
moves and the rest stays, with the reason."""

from __future__ import annotations

import re

from mqtool.engine.ztpf.move import NotMoved, move_messages
from mqtool.response import SYNTAX, Response
from mqtool.session import Context
from mqtool.state import SystemRecord, Transaction
from mqtool.validate import Request

from . import failure, find_queue, processor_id, processors, qmgr, response

_PROCESSOR = re.compile(r"^[A-Z0-9]$")


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    tx, system, queue = ctx.tx, ctx.system, req.name
    manager = qmgr(tx, system)
    if manager is None:
        return failure("MQSC0010E")
    cpu = str(req.get("CPU", "")).upper()
    if not cpu:
        return failure("MQSC0016E", SYNTAX, keyword="CPU", detail="FOR MOVEMSGS")
    if not _PROCESSOR.match(cpu):
        return failure("MQSC0014E", SYNTAX, value=cpu, keyword="CPU", allowed="A PROCESSOR ID (1 LETTER OR DIGIT)")
    here = processor_id(system)
    if cpu == here:
        return failure("MQSC0417E", cpu=cpu)
    source = next((pair for pair in processors(tx, system, manager.name) if processor_id(pair[0]) == cpu), None)
    if source is None:
        return failure("MQSC0413E", cpu=cpu, qmgr=manager.name)
    source_system, source_manager = source
    if source_manager.status.get("state", "STARTED") == "STARTED":
        return failure("MQSC0414E", cpu=cpu, system=source_system.name, qmgr=source_manager.name)
    for owner, owner_cpu in ((source_system, cpu), (system, here)):
        kind = _kind(tx, owner, queue)
        if kind:
            return failure("MQSC0415E", queue=queue, cpu=owner_cpu, actual=kind)
    try:
        moved = move_messages(
            ctx.session.store, ctx.clock, tx, source_system.name, system.name, queue, bool(req.get("FORCE"))
        )
    except NotMoved as refused:
        return failure("MQSC0416E", reason=refused.reason)
    result = response()
    if moved.left:
        result.add(
            "MQSC0412W", moved=moved.moved, queue=queue, cpu=cpu, here=here, left=moved.left, reason=moved.reason
        )
    else:
        result.add("MQSC0411I", moved=moved.moved, queue=queue, cpu=cpu, here=here)
    return result


def _kind(tx: Transaction, system: SystemRecord, queue: str) -> str:
    """What the queue is on `system` when it is not a normal local memory queue ("" when it is)."""
    record = find_queue(tx, system, queue)
    if record is None:
        return "NOT DEFINED"
    if record.type != "QL":
        return f"A {record.type}"
    if record.attrs.get("USAGE") == "XMITQ":
        return "A TRANSMISSION QUEUE (USAGE-XMITQ)"
    if record.attrs.get("COMMON") == "YES":
        return "A PROCESSOR SHARED QUEUE (COMMON-YES)"
    return ""
