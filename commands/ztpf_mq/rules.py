"""Rules between attributes that the keyword table cannot say alone (checked at DEFINE and ALTER)."""

from __future__ import annotations

from typing import Any

from mqtool.response import SYNTAX, Response
from mqtool.state import SystemRecord, Transaction

from . import QUEUE_TYPES, failure, find_queue, qmgr

RECEIVING = ("RCVR", "SVRCONN")


def check(
    tx: Transaction, system: SystemRecord, obj: str, name: str, attrs: dict[str, Any], given: list[str]
) -> Response | None:
    """Returns an error response when the merged attributes `attrs` break a rule."""
    if obj == "QL":
        manager = qmgr(tx, system)
        limit = int(manager.attrs.get("MAXMSGL", 4194304)) if manager else 104857600
        if int(attrs.get("MAXMSGL", 0)) > limit:
            return failure("MQSC0014E", SYNTAX, value=attrs["MAXMSGL"], keyword="MAXMSGL", allowed=f"1-{limit}")
        if attrs.get("COMMON") == "YES" and int(attrs.get("QDEPTHHI", 0)) > 0:
            return failure("MQSC0022E", SYNTAX, keyword="QDEPTHHI", detail="FOR COMMON-YES QUEUES")
    elif obj == "QA":
        target = str(attrs.get("TARGQ", ""))
        if target == name:
            return failure("MQSC0030E", SYNTAX, keyword="TARGQ", value=target, other="QA-" + name)
        record = find_queue(tx, system, target)
        if record is not None and record.type == "QA":
            return failure("MQSC0030E", SYNTAX, keyword="TARGQ", value=target, other="QA-" + target + " (AN ALIAS)")
    elif obj == "CHL":
        chltype = attrs.get("CHLTYPE")
        for keyword in ("CONNAME", "XMITQ"):
            if chltype != "SDR" and keyword in given:
                return failure("MQSC0022E", SYNTAX, keyword=keyword, detail=f"FOR CHLTYPE-{chltype}")
            if chltype == "SDR" and not attrs.get(keyword):
                return failure("MQSC0016E", SYNTAX, keyword=keyword, detail="FOR CHLTYPE-SDR")
        compmsg = list(attrs.get("COMPMSG") or ["NONE"])
        for alone in ("NONE", "ANY"):
            if alone in compmsg and len(compmsg) > 1:
                return failure(
                    "MQSC0014E", SYNTAX, value=",".join(compmsg), keyword="COMPMSG", allowed=f"{alone} ALONE"
                )
        if "ANY" in compmsg and chltype not in RECEIVING:
            return failure("MQSC0022E", SYNTAX, keyword="COMPMSG-ANY", detail=f"FOR CHLTYPE-{chltype}")
        xmitq = attrs.get("XMITQ")
        if chltype == "SDR" and xmitq:
            queue = find_queue(tx, system, str(xmitq))
            if queue is not None and (queue.type != "QL" or queue.attrs.get("USAGE") != "XMITQ"):
                return failure("MQSC0031E", name=xmitq)
    return None


def name_taken(tx: Transaction, system: SystemRecord, obj: str, name: str) -> Response | None:
    """Queue names are unique across QL, QA and QR."""
    if obj not in QUEUE_TYPES:
        return None
    existing = find_queue(tx, system, name)
    if existing is not None and existing.type != obj:
        return failure("MQSC0032E", name=name, object=existing.type)
    return None
