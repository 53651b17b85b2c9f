"""The z/TPF MQI channel directory (ZMQID): the client channel definitions a TPF
application's MQCONN to a remote queue manager uses, at most 50. Lexing as ZMQSC does
(`ZMQID VERB CHannel-name KEYWORD-value ...`), errors with MQID ids, and what the verb
modules share: the directory entries are objects of type CHANNEL of the z/TPF system,
independent of its queue manager (the MQI client needs none)."""

from __future__ import annotations

import re
from typing import Any

from mqtool.commands import ztpf_mq
from mqtool.commands.ztpf_mq import failure, response
from mqtool.parse.command import Command, LexError
from mqtool.response import SYNTAX, Response
from mqtool.state import SystemRecord
from mqtool.tables import Table, ValidationError, load

DIALECT = "ztpf_mqid"
TYPE = "CHANNEL"  # the object type of a directory entry in the store
LIMIT = 50  # entries the MQI channel directory holds (TPF)
SYNTAX_IDS = {
    "unknown_verb": "MQID0031E",
    "unknown_object": "MQID0032E",
    "unknown_keyword": "MQID0033E",
    "bad_value": "MQID0034E",
    "duplicate": "MQID0035E",
    "missing": "MQID0036E",
    "missing_name": "MQID0037E",
    "bad_name": "MQID0038E",
    "not_alterable": "MQID0040E",
    "other": "MQID0039E",
}
# TCP: a host name or dotted address, a port other than 1414 in parentheses; APPC: an LU
# name, or netid.luname, of 1-8 letters, digits and @ # $ each.
_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-]*(\(([0-9]{1,5})\))?$")
_LU = re.compile(r"^([A-Z0-9@#$]{1,8}\.)?[A-Z0-9@#$]{1,8}$")
APPC_ONLY = ("MODE", "TPNAME")
__all__ = ["SYNTAX", "failure", "response"]  # for the verb modules


def lex(text: str) -> Command:
    return ztpf_mq.lex(text, DIALECT)


def lex_error(error: LexError, text: str) -> Response:
    if error.kind == "quote":
        return failure("MQID0041E", SYNTAX, token=error.token)
    if error.kind == "empty":
        verbs = ", ".join(load(DIALECT).verbs)
        return failure("MQID0031E", SYNTAX, verb="(NONE)", allowed=verbs)
    return failure("MQID0042E", SYNTAX, token=error.token)


def validation_error(error: ValidationError, command: Command, table: Table) -> Response:
    return ztpf_mq.validation_error(error, command, table, SYNTAX_IDS)


def wrong_system(target: SystemRecord | None, systems: list[SystemRecord], text: str) -> Response:
    return ztpf_mq.wrong_system(target, systems, text, "MQID0025E")


def name_problem(name: str) -> str:
    """Why a channel name breaks the rule the table cannot say ("" when it keeps it)."""
    if name.startswith(".") or name.endswith("."):
        return "IT BEGINS OR ENDS WITH A PERIOD"
    if ".." in name:
        return "IT HOLDS TWO PERIODS IN A ROW"
    return ""


def connection_problem(attrs: dict[str, Any]) -> Response | None:
    """MQID0005E or MQID0006E when the connection or the APPC keywords do not suit the
    transport; None when they do."""
    trptype = str(attrs.get("TRPTYPE", "TCP"))
    value = str(attrs.get("CONNECTION", ""))
    if trptype == "TCP":
        match = _HOST.match(value)
        if match is None or (match.group(2) is not None and not 1 <= int(match.group(2)) <= 65535):
            return failure("MQID0005E", value=value, trptype=trptype, allowed="HOST OR ADDRESS, (PORT 1-65535)")
        for keyword in APPC_ONLY:
            if attrs.get(keyword):
                return failure("MQID0006E", SYNTAX, keyword=keyword, trptype=trptype)
    elif not _LU.match(value.upper()):
        return failure("MQID0005E", value=value, trptype=trptype, allowed="LUNAME OR NETID.LUNAME (1-8 EACH)")
    return None
