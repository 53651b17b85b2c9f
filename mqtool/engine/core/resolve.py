"""Name resolution: an opened queue name to the local queue that holds its messages
(an alias to its target, a remote definition to its transmission queue with a
transmission header), with what the path allows (put, get), the limits in force, and
the expiry cap (the lowest CAPEXPRY along the path)."""

from __future__ import annotations

import json
import re
from typing import Any

from mqtool.engine.core import triggers
from mqtool.engine.core.message import Resolved
from mqtool.engine.core.model import StorageModel
from mqtool.engine.core.reasons import (
    GET_INHIBITED,
    OPTION_NOT_VALID_FOR_TYPE,
    PUT_INHIBITED,
    Q_MGR_NOT_AVAILABLE,
    UNEXPECTED_ERROR,
    UNKNOWN_ALIAS_BASE_Q,
    UNKNOWN_OBJECT_NAME,
    UNKNOWN_XMIT_Q,
    XMIT_Q_USAGE_ERROR,
    MQError,
)
from mqtool.state import ObjectRecord, Transaction
from mqtool.state import messages as runs

DEFAULT_MAXMSGL = 4194304
_CUSTOM_CAPEXPRY = re.compile(r"\bCAPEXPRY\s*\(\s*(\d+)\s*\)", re.IGNORECASE)


def capexpry(record: ObjectRecord) -> float | None:
    """A queue's expiry cap in seconds: CAPEXPRY (tenths of a second, NOLIMIT for none),
    or `CAPEXPRY(n)` inside CUSTOM as IBM documents it for earlier releases."""
    value = record.attrs.get("CAPEXPRY")
    if value is not None and str(value).upper() != "NOLIMIT":
        try:
            return int(value) / 10
        except (TypeError, ValueError):
            pass
    custom = record.attrs.get("CUSTOM")
    if custom:
        found = _CUSTOM_CAPEXPRY.search(str(custom))
        if found:
            return int(found.group(1)) / 10
    return None


def _enabled(record: ObjectRecord, keyword: str) -> bool:
    return record.attrs.get(keyword, "ENABLED") != "DISABLED"


def resolve(tx: Transaction, system_name: str, queue: str, model: StorageModel) -> Resolved:
    """Resolves a queue name of a system to the local queue that holds its messages.
    MQError when it cannot be (2059, 2085, 2082, 2196, 2198)."""
    system = tx.get_system(system_name)
    manager = model.queue_manager(tx, system) if system is not None else None
    if system is None or manager is None:
        raise MQError(Q_MGR_NOT_AVAILABLE, f"system {system_name} has no queue manager")
    types = model.queue_types
    opened = tx.find_object(system_name, types, queue)
    if opened is None:
        raise MQError(UNKNOWN_OBJECT_NAME, f"no queue named {queue}")
    path = [opened]
    target = opened
    if target.type == model.alias_type:
        base_name = str(target.attrs.get(model.alias_target, "") or "")
        base = tx.find_object(system_name, types, base_name)
        if base is None:
            raise MQError(
                UNKNOWN_ALIAS_BASE_Q,
                f"{model.object_name(target.type, queue)} resolves to {base_name or '(blank)'}, not defined",
            )
        path.append(base)
        target = base
    header = "{}"
    get_error = 0
    if target.type == model.remote_type:
        xmitq_name = str(target.attrs.get("XMITQ") or target.attrs.get("RQMNAME") or "")
        xmitq = tx.get_object(system_name, model.local_type, xmitq_name)
        if xmitq is None:
            raise MQError(
                UNKNOWN_XMIT_Q,
                f"transmission queue {xmitq_name or '(blank)'} of {model.object_name(target.type, target.name)}",
            )
        if xmitq.attrs.get("USAGE") != "XMITQ":
            raise MQError(
                XMIT_Q_USAGE_ERROR,
                f"{model.object_name(xmitq.type, xmitq_name)} is not {model.keyword_value('USAGE', 'XMITQ')}",
            )
        header = json.dumps(
            {
                "rname": str(target.attrs.get("RNAME", "")),
                "rqmname": str(target.attrs.get("RQMNAME", "")),
                "qmgr": manager.name,
            },
            sort_keys=True,
            separators=(",", ":"),
        )
        # A remote queue is for putting only.
        get_error = OPTION_NOT_VALID_FOR_TYPE
        path.append(xmitq)
        target = xmitq
    elif target.type != model.local_type:
        raise MQError(UNKNOWN_OBJECT_NAME, f"{target.name} is a {target.type}, which holds no messages")
    local = target
    put_error = 0
    blocked = {"put": "", "get": ""}  # the queue of the path that inhibits each
    caps = []
    for record in path:
        if record.type != model.remote_type:
            if not _enabled(record, "PUT") and not put_error:
                put_error, blocked["put"] = PUT_INHIBITED, record.name
            if not _enabled(record, "GET") and not get_error:
                get_error, blocked["get"] = GET_INHIBITED, record.name
        cap = capexpry(record)
        if cap is not None:
            caps.append(cap)
    if manager.status.get("state", "STARTED") != "STARTED":
        put_error = get_error = Q_MGR_NOT_AVAILABLE
    attrs = local.attrs
    qkey = runs.queue_key(tx.conn, system_name, local.name)
    if qkey is None:
        raise MQError(UNEXPECTED_ERROR, f"local queue {local.name} has no row in queue_figures")
    qmgr_maxmsgl = int(manager.attrs.get("MAXMSGL", DEFAULT_MAXMSGL))
    return Resolved(
        system=system,
        qmgr=manager,
        opened=opened,
        local=local,
        path=path,
        header=header,
        put_error=put_error,
        get_error=get_error,
        default_persistent=opened.attrs.get("DEFPSIST", "NO") == "YES",
        default_priority=int(opened.attrs.get("DEFPRTY", 0)),
        maxmsgl=int(attrs.get("MAXMSGL", qmgr_maxmsgl)),
        qmgr_maxmsgl=qmgr_maxmsgl,
        maxdepth=depth_limit(model, attrs),
        capexpry=min(caps) if caps else None,
        qkey=qkey,
        space=model.space(tx, system, manager, local),
        blocked=blocked,
        trigger=triggers.settings(tx, model, system_name, manager, local),
        temporary=attrs.get("DEFTYPE") == "TEMPDYN",
    )


def depth_limit(model: StorageModel, attrs: dict[str, Any]) -> int | None:
    """The most messages the local queue may hold, None for no limit: z/TPF's MAXDEPTH 0
    is no limit, z/OS's MAXDEPTH(0) lets no message be put (2053)."""
    maxdepth = int(attrs.get("MAXDEPTH", 0))
    return None if maxdepth == model.unlimited_depth else maxdepth


def why_not(model: StorageModel, resolved: Resolved, queue: str, what: str) -> str:
    """The detail of a refused put or get."""
    if resolved.put_error == Q_MGR_NOT_AVAILABLE:
        return f"queue manager {resolved.qmgr.name} is stopped"
    if what == "get" and resolved.get_error == OPTION_NOT_VALID_FOR_TYPE:
        return f"{queue} is a remote queue definition ({resolved.opened.type}): messages cannot be got from it"
    inhibited = resolved.blocked.get(what) or queue
    return f"{model.keyword_value(what.upper(), 'DISABLED')} on {inhibited}"
