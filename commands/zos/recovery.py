"""The recovery and resynchronization commands of a queue manager that has none of the
subsystems they serve: RECOVER BSDS (its bootstrap data sets never fail), RESOLVE
INDOUBT (it keeps no unit of recovery of CICS, IMS or RRS, so none is ever in doubt),
RESET TPIPE (it has no IMS bridge) and RESET QMGR TYPE(PUBSUB) (it makes no
publish/subscribe hierarchy). Each checks the command as z/OS does, then answers as such
a queue manager would; none changes anything but RESET QMGR's own answer."""

from __future__ import annotations

import re
from typing import Any

from mqtool.engine.zos.log import current_log
from mqtool.response import NO_CSECT, Response

from . import active_only, command_words, manager, not_in_group, refuse, reply, syntax, value_text

HEX = re.compile(r"^[0-9A-Fa-f]{1,8}$")
NID = re.compile(r"^[A-Za-z0-9#@$]{1,8}\.[0-9A-Fa-f]{1,16}$")  # origin-node.unit-of-recovery-number


@active_only
def recover_bsds(ctx: Any, req: Any) -> Response:
    """RECOVER BSDS: dual BSDS mode is never lost here; with a single BSDS there is no
    second one to reestablish."""
    values = current_log(ctx.system, manager(ctx.tx, ctx.system, ctx.now))
    if str(values.get("TWOBSDS", "YES")).upper() != "YES":
        return refuse(req, "MQT0484E")
    result = reply(req)
    result.add("MQT0485I")
    return result


@active_only
def resolve_indoubt(ctx: Any, req: Any) -> Response:
    """RESOLVE INDOUBT(connection) ACTION(COMMIT|BACKOUT) NID(*|nid,...) [QMNAME(q)]."""
    for keyword, what in (("ACTION", "ACTION(COMMIT|BACKOUT)"), ("NID", "NID(* or network ids)")):
        if not req.has(keyword):
            return syntax(req, "CSQ9031E", keyword="RESOLVE INDOUBT", what=what)
    nids = [str(n) for n in req.get("NID") or []]
    if "*" in nids and len(nids) > 1:
        return syntax(req, "CSQ9030E", keyword="NID", value=",".join(nids), allowed="* alone, or network ids")
    for nid in nids:
        if nid != "*" and not NID.match(nid):
            allowed = "* or origin-node.number (1-8 characters, a dot, up to 16 hex digits)"
            return syntax(req, "CSQ9030E", keyword="NID", value=nid, allowed=allowed)
    if req.has("QMNAME") and str(req.get("QMNAME")) != ctx.system.name:
        return not_in_group(ctx, req, f"{command_words(req)} QMNAME({req.get('QMNAME')})")
    result = reply(req)
    if nids == ["*"]:
        result.add("CSQV420I", csect=NO_CSECT)
        return result
    return refuse(req, "MQT0488E", nid=nids[0], conn=req.name)


@active_only
def reset_tpipe(ctx: Any, req: Any) -> Response:
    """RESET TPIPE(name) XCFMNAME(member) [XCFGNAME] [ACTION] [SENDSEQ] [RCVSEQ]: the
    queue manager is connected to no XCF member, so the command fails (IBM)."""
    if not req.has("XCFMNAME"):
        return syntax(req, "CSQ9031E", keyword="RESET TPIPE", what="XCFMNAME(member)")
    for keyword in ("SENDSEQ", "RCVSEQ"):
        if req.has(keyword) and not HEX.match(str(req.get(keyword))):
            return syntax(req, "CSQ9030E", keyword=keyword, value=value_text(req.get(keyword)),
                          allowed="1-8 hexadecimal digits")  # fmt: skip
    return refuse(req, "MQT0463E", command=command_words(req))


@active_only
def reset_qmgr(ctx: Any, req: Any) -> Response:
    """RESET QMGR TYPE(PUBSUB) CHILD(name) | PARENT(name): z/OS takes no other type
    (ADVANCELOG, STATISTICS, ARCHLOG and REDUCELOG are other platforms')."""
    kind = req.get("TYPE")
    if kind is None:
        return syntax(req, "CSQ9031E", keyword="RESET QMGR", what="TYPE(PUBSUB)")
    if kind != "PUBSUB":
        return syntax(req, "CSQ9030E", keyword="TYPE", value=kind, allowed="PUBSUB (the only type z/OS takes)")
    given = [key for key in ("CHILD", "PARENT") if req.has(key)]
    if len(given) != 1:
        return syntax(req, "CSQ9031E", keyword="RESET QMGR TYPE(PUBSUB)", what="one of CHILD(name), PARENT(name)")
    name = str(req.get(given[0]))
    record = manager(ctx.tx, ctx.system, ctx.now)
    if given[0] == "CHILD" or name != str(record.attrs.get("PARENT") or ""):
        relation = "A CHILD" if given[0] == "CHILD" else "THE PARENT"
        return refuse(req, "MQT0486E", name=name, relation=relation, qmgr=ctx.system.name)
    result = reply(req)
    result.add("MQT0487I", name=name)
    return result
