"""Rules between attributes and between objects that the keyword table cannot say
alone, checked at DEFINE and ALTER, and the references that block a DELETE.

References are kept valid both ways: a name that an attribute refers to (TARGQ of an
alias, XMITQ of a remote definition or a sender channel, DEADQ of the queue manager
at ALTER) must exist with the right kind when the command is entered, and an object
that something refers to cannot be deleted. So `mqtool export` can always replay.
"""

from __future__ import annotations

import re
from typing import Any

from mqtool.response import SYNTAX, Response
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.state.store import MAXMSGL_UNINDEXED
from mqtool.validate import Request

from . import QUEUE_TYPES, SYSTEM_QUEUES, failure, find_queue, qmgr

RECEIVING = ("RCVR", "SVRCONN")
# A z/TPF program name (PROCESS of a triggered queue) and a processor id or ALL (CPU of a channel).
_PROGRAM = re.compile(r"^[A-Z][A-Z0-9]{3}$")
_CPU = re.compile(r"^([A-Z0-9]|ALL)$")
LONE_COMPMSG = ("NONE", "ANY")


def check(
    tx: Transaction,
    system: SystemRecord,
    obj: str,
    name: str,
    attrs: dict[str, Any],
    given: list[str],
    manager: ObjectRecord | None = None,
) -> Response | None:
    """Returns an error response when the merged attributes `attrs` break a rule;
    `given` are the keywords typed in this command; `manager`, the queue manager when
    the caller has read it in this transaction (read here otherwise)."""
    if obj == "QMGR":
        return _check_qmgr(tx, system, name, attrs, given)
    if obj == "QL":
        return _check_ql(tx, system, name, attrs, given, manager)
    if obj == "QA":
        return _check_qa(tx, system, name, attrs)
    if obj == "QR":
        return _check_xmitq(tx, system, attrs) if attrs.get("XMITQ") else None
    if obj == "CHL":
        return _check_chl(tx, system, attrs, given)
    return None


def _first_above(tx: Transaction, system: SystemRecord, limit: int) -> tuple[str, Any] | None:
    """The first local queue by name whose MAXMSGL is above `limit`, with that MAXMSGL:
    through the index of MAXMSGL, which leaves out the queues at MAXMSGL_UNINDEXED (read
    apart, when that is above `limit`)."""
    found = [(queue.name, queue.attrs["MAXMSGL"]) for queue in tx.objects_where(
        system.name, "MAXMSGL", limit, ("QL",), above=True)[:1]]  # fmt: skip
    if limit < MAXMSGL_UNINDEXED:
        name = tx.first_at_maxmsgl(system.name, MAXMSGL_UNINDEXED)
        if name is not None:
            found.append((name, MAXMSGL_UNINDEXED))
    return min(found) if found else None


def _check_qmgr(
    tx: Transaction, system: SystemRecord, name: str, attrs: dict[str, Any], given: list[str]
) -> Response | None:
    if "MAXMSGL" in given:
        # The queue manager's MAXMSGL bounds every local queue's (spec section 2).
        limit = int(attrs["MAXMSGL"])
        above = _first_above(tx, system, limit)
        if above is not None:
            return failure("MQSC0038E", value=limit, object="QL", name=above[0], queue_value=above[1])
    if "DEADQ" in given and tx.get_object(system.name, "QMGR", name) is not None:
        deadq = str(attrs["DEADQ"])
        queue = find_queue(tx, system, deadq)
        if queue is None:
            return failure("MQSC0036E", keyword="DEADQ", name=deadq)
        if queue.type != "QL" or queue.attrs.get("USAGE") == "XMITQ":
            return failure("MQSC0039E", keyword="DEADQ", name=deadq, actual=_kind(queue), wanted="A QL-USAGE-NORMAL")
    return None


def _check_ql(
    tx: Transaction,
    system: SystemRecord,
    name: str,
    attrs: dict[str, Any],
    given: list[str],
    manager: ObjectRecord | None,
) -> Response | None:
    if manager is None:
        manager = qmgr(tx, system)
    limit = int(manager.attrs.get("MAXMSGL", 4194304)) if manager else 104857600
    if int(attrs.get("MAXMSGL", 0)) > limit:
        return failure(
            "MQSC0014E", SYNTAX, value=attrs["MAXMSGL"], keyword="MAXMSGL", allowed=f"1-{limit} (QMGR MAXMSGL)"
        )
    if attrs.get("COMMON") == "YES":
        if int(attrs.get("QDEPTHHI", 0)) > 0:
            return failure("MQSC0022E", SYNTAX, keyword="QDEPTHHI", detail="FOR COMMON-YES QUEUES")
        if attrs.get("USAGE") == "XMITQ":
            # TPF: every transmission queue is processor unique (a memory queue).
            return failure("MQSC0030E", SYNTAX, keyword="USAGE", value="XMITQ", other="COMMON-YES")
    program = str(attrs.get("PROCESS") or "")
    if program and not _PROGRAM.match(program):
        return failure(
            "MQSC0014E",
            SYNTAX,
            value=program,
            keyword="PROCESS",
            allowed="A Z/TPF PROGRAM NAME (4 LETTERS OR DIGITS, A LETTER FIRST)",
        )
    if "USAGE" in given:
        wanted = "XMITQ" if attrs["USAGE"] == "NORMAL" else "NORMAL"
        users = [ref for ref, usage in _queue_users(tx, system, name) if usage == wanted]
        if users:
            return failure("MQSC0029E", object="QL", name=name, refs=", ".join(users))
    return None


def _check_qa(tx: Transaction, system: SystemRecord, name: str, attrs: dict[str, Any]) -> Response | None:
    target = str(attrs.get("TARGQ", ""))
    if target == name:
        return failure("MQSC0030E", SYNTAX, keyword="TARGQ", value=target, other="QA-" + name)
    record = find_queue(tx, system, target)
    if record is None:
        return failure("MQSC0036E", keyword="TARGQ", name=target)
    if record.type not in ("QL", "QR"):
        return failure("MQSC0039E", keyword="TARGQ", name=target, actual=_kind(record), wanted="A QL OR QR")
    return None


def _check_xmitq(tx: Transaction, system: SystemRecord, attrs: dict[str, Any]) -> Response | None:
    xmitq = str(attrs["XMITQ"])
    queue = find_queue(tx, system, xmitq)
    if queue is None:
        return failure("MQSC0036E", keyword="XMITQ", name=xmitq)
    if queue.type != "QL" or queue.attrs.get("USAGE") != "XMITQ":
        return failure("MQSC0031E", name=xmitq)
    return None


def _check_chl(tx: Transaction, system: SystemRecord, attrs: dict[str, Any], given: list[str]) -> Response | None:
    chltype = attrs.get("CHLTYPE")
    cpu = str(attrs.get("CPU") or "")
    if "CPU" in given and not _CPU.match(cpu):
        return failure(
            "MQSC0014E", SYNTAX, value=cpu, keyword="CPU", allowed="A PROCESSOR ID (1 LETTER OR DIGIT) OR ALL"
        )
    for keyword in ("CONNAME", "XMITQ"):
        if chltype != "SDR" and keyword in given:
            return failure("MQSC0022E", SYNTAX, keyword=keyword, detail=f"FOR CHLTYPE-{chltype}")
        if chltype == "SDR" and not attrs.get(keyword):
            return failure("MQSC0016E", SYNTAX, keyword=keyword, detail="FOR CHLTYPE-SDR")
    compmsg = list(attrs.get("COMPMSG") or ["NONE"])
    for alone in LONE_COMPMSG:
        if alone in compmsg and len(compmsg) > 1:
            return failure(
                "MQSC0014E", SYNTAX, value=",".join(compmsg), keyword="COMPMSG", allowed=f"{alone} ALONE, NOT IN A LIST"
            )
    if "ANY" in compmsg and chltype not in RECEIVING:
        return failure("MQSC0022E", SYNTAX, keyword="COMPMSG-ANY", detail=f"FOR CHLTYPE-{chltype} (RCVR, SVRCONN ONLY)")
    problem = _check_tls(attrs, given, str(chltype))
    if problem is not None:
        return problem
    if chltype == "SDR":
        return _check_xmitq(tx, system, attrs)
    return None


def _check_tls(attrs: dict[str, Any], given: list[str], chltype: str) -> Response | None:
    """SSLCIPH: one of the ciphers z/TPF names (or blank); SSLCAUTH: receiving channels only."""
    from mqtool.engine.security.cipherspecs import ZTPF_CIPHERS

    cipher = str(attrs.get("SSLCIPH") or "").strip()
    if "SSLCIPH" in given and cipher and cipher.upper() not in ZTPF_CIPHERS:
        return failure("MQSC0014E", SYNTAX, value=cipher, keyword="SSLCIPH", allowed=" ".join(ZTPF_CIPHERS))
    if "SSLCAUTH" in given and chltype not in RECEIVING:
        return failure("MQSC0022E", SYNTAX, keyword="SSLCAUTH", detail=f"FOR CHLTYPE-{chltype} (RCVR, SVRCONN ONLY)")
    return None


def unquoted_parentheses(req: Request) -> Response | None:
    """TPF: a value with parentheses (a CONNAME with a port) must be in quotes."""
    for param in req.command.params:
        values = param.value if isinstance(param.value, list) else [param.value or ""]
        if not param.quoted and any("(" in value or ")" in value for value in values):
            shown = ",".join(values)
            return failure(
                "MQSC0014E", SYNTAX, value=shown, keyword=param.keyword, allowed=f"IN QUOTES: {param.keyword}-'{shown}'"
            )
    return None


def name_taken(tx: Transaction, system: SystemRecord, obj: str, name: str) -> Response | None:
    """The refusal of a DEFINE whose name is taken: by an object of its type (MQSC0017E)
    or, queue names being unique across QL, QA and QR, by a queue of another type
    (MQSC0032E). One look for a queue."""
    types = QUEUE_TYPES if obj in QUEUE_TYPES else (obj,)
    existing = tx.find_object(system.name, types, name, likely_absent=True)
    if existing is None:
        return None
    if existing.type == obj:
        return failure("MQSC0017E", object=obj, name=name)
    return failure("MQSC0032E", name=name, object=existing.type)


def references(tx: Transaction, system: SystemRecord, obj: str, name: str) -> list[str]:
    """The definitions that name this queue: what blocks its DELETE."""
    if obj == "QL":
        return [ref for ref, _ in _queue_users(tx, system, name)]
    if obj == "QR":
        return [f"QA-{alias.name}" for alias in tx.objects_where(system.name, "TARGQ", name, ("QA",))]
    return []


def _queue_users(tx: Transaction, system: SystemRecord, name: str) -> list[tuple[str, str]]:
    """(reference, the USAGE it needs) for every definition that names local queue `name`."""
    found = tx.objects_where(system.name, "TARGQ", name, ("QA",))
    found += tx.objects_where(system.name, "XMITQ", name, ("QR", "CHL"))
    manager = qmgr(tx, system)
    if manager is not None and manager.attrs.get("DEADQ") == name:
        found.append(manager)
    users: list[tuple[str, str]] = []
    for record in sorted(found, key=lambda record: (record.type, record.name)):  # as the store lists objects
        if record.type == "QMGR":
            users.append((f"QMGR-{record.name} (DEADQ)", "NORMAL"))
        else:
            users.append((f"{record.type}-{record.name}", "" if record.type == "QA" else "XMITQ"))
    return users


def system_queue(obj: str, name: str) -> Response | None:
    """The queues DEFINE QMGR created go only with DELETE QMGR."""
    if obj == "QL" and name in SYSTEM_QUEUES:
        return failure("MQSC0037E", name=name)
    return None


def _kind(record: ObjectRecord) -> str:
    if record.type == "QL":
        return f"A QL WITH USAGE-{record.attrs.get('USAGE', 'NORMAL')}"
    return f"A {record.type}"


__all__ = ["check", "name_taken", "references", "system_queue", "unquoted_parentheses"]
