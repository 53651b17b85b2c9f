"""DISPLAY CMDSERV, START CMDSERV, STOP CMDSERV: the command server, which takes the
commands put to SYSTEM.COMMAND.INPUT. In mqtool those are the MQSC commands of the REST
API (`mqtool serve`, IBM's mqweb passes them to the command server the same way), so a
stopped command server refuses them (mqtool/rest/api.py) while the console (the shell,
`mqtool cmd` and `run`) goes on. The state is in the queue manager's status
(`cmdserv`: STOPPED, else running) and START QMGR starts the command server again.

DISPLAY CMDSERV shows WAITING at the console (the command server waits for messages)
and RUNNING through the REST API (it is processing that very command)."""

from __future__ import annotations

from typing import Any

from mqtool.response import NO_CSECT, Response

from . import manager, refuse, reply

STOPPED = "STOPPED"


def running(record: Any) -> bool:
    """Whether a queue manager's command server runs (its QMGR record)."""
    return record.status.get("cmdserv") != STOPPED


def handle(ctx: Any, req: Any) -> Response:
    record = manager(ctx.tx, ctx.system, ctx.now)
    verb = req.verb.name
    if verb == "DISPLAY":
        result = reply(req)
        if not running(record):
            msg_id = "CSQN015I"
        elif getattr(ctx.session, "via_command_server", False):
            msg_id = "CSQN013I"
        else:
            msg_id = "CSQN014I"
        result.add(msg_id, csect=NO_CSECT)
        return result
    if verb == "START":
        if running(record):
            return _no_csect(refuse(req, "CSQN002I"))
        record.status.pop("cmdserv", None)
        ctx.tx.put_status(record)
        result = reply(req)
        result.add("CSQN001I", csect=NO_CSECT)
        return result
    if not running(record):
        return _no_csect(refuse(req, "CSQN006I"))
    record.status["cmdserv"] = STOPPED
    ctx.tx.put_status(record)
    result = reply(req)
    result.add("CSQN005I", csect=NO_CSECT)
    return result


def _no_csect(result: Response) -> Response:
    result.messages[0].csect = NO_CSECT
    return result
