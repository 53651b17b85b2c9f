"""ZMQSC MIGRATE BEGIN|COMMIT|FALLBACK [FORCE]: the migration mode of the queue manager
(TPF APAR PJ27023, the queue formats of the turbo enhancements).

BEGIN puts this processor's queue manager in migration mode: its processor-unique
(memory) queues are migrated and get SWEEP-NO, and no queue or channel may be defined,
altered or deleted, nor the database rebuilt, until the mode ends. COMMIT ends it on
every processor of the queue manager, once every active processor has entered BEGIN,
and not while the dead-letter queue holds messages unless FORCE is given. FALLBACK
ends it on this processor and gives the queues back the SWEEP they had before BEGIN.
The state is kept with the queue manager (DISPLAY QMGR, MIGRATION).
"""

from __future__ import annotations

from mqtool.response import SYNTAX, Response
from mqtool.session import Context
from mqtool.state import messages as runs
from mqtool.validate import Request

from . import MIGRATION_ACTIVE, failure, migration, processor_id, processors, qmgr, response

COMMITTED = "COMMITTED"
FALLEN_BACK = "FALLBACK"
_SAVED = "migration_sweep"  # status key: each memory queue's SWEEP before BEGIN


def handle(ctx: Context, req: Request) -> Response:
    assert req.object is not None
    step = req.object.name
    if req.name:
        return failure("MQSC0014E", SYNTAX, value=req.name, keyword=step, allowed="NO VALUE")
    manager = qmgr(ctx.tx, ctx.system)
    if manager is None:
        return failure("MQSC0010E")
    state = migration(manager)
    if step == "BEGIN":
        if state == MIGRATION_ACTIVE:
            return failure("MQSC0407E", qmgr=manager.name)
        return _begin(ctx)
    if state != MIGRATION_ACTIVE:
        return failure("MQSC0406E", qmgr=manager.name)
    return _commit(ctx, bool(req.get("FORCE"))) if step == "COMMIT" else _fallback(ctx)


def _begin(ctx: Context) -> Response:
    tx, system = ctx.tx, ctx.system
    manager = qmgr(tx, system)
    assert manager is not None
    saved: dict[str, str] = {}
    for queue in tx.objects(system.name, "QL"):
        if queue.attrs.get("COMMON", "NO") == "YES":
            continue
        saved[queue.name] = str(queue.attrs.get("SWEEP", "YES"))
        if saved[queue.name] != "NO":
            queue.attrs["SWEEP"] = "NO"
            queue.altered = ctx.now
            tx.put_object(queue)
    manager.status["migration"] = MIGRATION_ACTIVE
    manager.status[_SAVED] = saved
    tx.put_status(manager)
    result = response()
    result.add("MQSC0401I", qmgr=manager.name, queues=len(saved))
    return result


def _commit(ctx: Context, force: bool) -> Response:
    tx, system = ctx.tx, ctx.system
    manager = qmgr(tx, system)
    assert manager is not None
    deadq = str(manager.attrs.get("DEADQ", "DEAD.LETTER.QUEUE"))
    depth = runs.depth(tx.conn, system.name, deadq)
    if depth and not force:
        return failure("MQSC0404E", deadq=deadq, depth=depth)
    complex_ = processors(tx, system, manager.name)
    for other, other_manager in complex_:
        active = other_manager.status.get("state", "STARTED") == "STARTED"
        if active and migration(other_manager) != MIGRATION_ACTIVE:
            return failure("MQSC0408E", cpu=processor_id(other), system=other.name)
    committed = []
    for other, other_manager in complex_:
        if migration(other_manager) == MIGRATION_ACTIVE:
            other_manager.status["migration"] = COMMITTED
            other_manager.status.pop(_SAVED, None)
            tx.put_status(other_manager)
            committed.append(f"CPU-{processor_id(other)}")
    result = response()
    result.add("MQSC0402I", qmgr=manager.name, processors=", ".join(committed))
    return result


def _fallback(ctx: Context) -> Response:
    tx, system = ctx.tx, ctx.system
    manager = qmgr(tx, system)
    assert manager is not None
    saved = manager.status.pop(_SAVED, {}) or {}
    restored = 0
    for name, sweep in sorted(saved.items()):
        queue = tx.get_object(system.name, "QL", name)
        if queue is None:
            continue
        restored += 1
        if queue.attrs.get("SWEEP") != sweep:
            queue.attrs["SWEEP"] = sweep
            queue.altered = ctx.now
            tx.put_object(queue)
    manager.status["migration"] = FALLEN_BACK
    tx.put_status(manager)
    result = response()
    result.add("MQSC0403I", qmgr=manager.name, queues=restored)
    return result
