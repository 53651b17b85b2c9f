"""The JSON renderer: a command's Response as IBM MQ's runCommandJSON response body
(`commandResponse[]` with `completionCode`, `reasonCode` and `parameters` or `message`,
then `overallCompletionCode` and `overallReasonCode`), the second renderer beside the
console text. `mqtool cmd|run --format json` print it; a REST server calls
`command_json(session, line, where=...)`.

What IBM's response looks like (IBM MQ REST API, "POST - JSON formatted command", and
responses captured from IBM's container by public clients): one `commandResponse` item
per object a DISPLAY found, its attributes in `parameters` under the lower-case MQSC
names (`queue`, `curdepth`, `maxdepth`), numbers as JSON numbers and list attributes
as JSON arrays; a failed command is one item with completion code 2, a reason code
(2085 MQRC_UNKNOWN_OBJECT_NAME for an object that does not exist) and the console
messages in a `message` array, and the overall codes are then 2 and 3008
(MQRCCF_COMMAND_FAILED).

A DISPLAY that finds nothing is no failure: on z/OS it answers CSQM297I NO ... FOUND
MATCHING REQUEST CRITERIA and CSQ9022I NORMAL COMPLETION, for a generic and for a
specific name alike, and the command server returns RETURN=00000000 REASON=00000000
(as the Zowe MQ plug-in's z/OS test data shows), so the REST API answers completion
code 0; runCommandJSON then has no object to give: an empty `commandResponse` and the
overall codes 0 and 0, which is what clients take for "none" (pymqrest's channel
`*_sync` helpers read an empty DISPLAY CHSTATUS as a stopped channel). z/TPF's
MQSC0003I and the HTTP server's HTTPS0005I answer the same way; a specific z/TPF name
that does not exist stays the error MQSC0018E (2085), as the z/TPF console says it.

z/TPF displays get the same envelope with their own names: `ZMQSC DISPLAY` blocks as
their display keywords in lower case (`queue`, `compsize`, `curdepth`, `swbs`), the
statistics displays (`QL-name STAT`, `ZHTPS STATS`) as the fields of their message
(`depth`, `persistent_size`, `hwmark` ...); names with blanks (`LAST REFRESH`) take an
underscore (`last_refresh`). mqtool-cmd(1) lists them.
"""

from __future__ import annotations

from typing import Any

from mqtool import messages, tables
from mqtool.render import _value, render_zos
from mqtool.response import OK, SYNTAX, Message, Response
from mqtool.state import SystemRecord

# MQ completion codes (MQCC_*) and the overall reason of a command that failed.
MQCC_OK = 0
MQCC_FAILED = 2
MQRCCF_COMMAND_FAILED = 3008

# Reason codes of failures that IBM names (MQRC_*/MQRCCF_*); other failures are 3008.
REASONS: dict[str, int] = {
    # not found: MQRC_UNKNOWN_OBJECT_NAME
    "CSQM125I": 2085,
    "MQSC0018E": 2085,
    "HTTPS0104E": 2085,
    "MQID0002E": 2085,
    # MQRCCF_OBJECT_ALREADY_EXISTS
    "CSQM095I": 4001,
    "MQSC0017E": 4001,
    "MQSC0028E": 4001,
    "MQID0003E": 4001,
    # MQRCCF_OBJECT_WRONG_TYPE
    "CSQM110I": 4002,
    "MQSC0032E": 4002,
    # MQRCCF_OBJECT_OPEN (in use: referenced, or a running channel)
    "CSQM101I": 4004,
    "MQSC0029E": 4004,
    "MQSC0023E": 4004,
    # MQRC_Q_NOT_EMPTY
    "CSQM127I": 2055,
    "MQSC0019E": 2055,
    # MQRC_NOT_AUTHORIZED: the REST API's command authority (mqtool.rest.authority)
    "CSQ9016E": 2035,
    "MQT0367E": 2035,
    # the everyday commands (bread-commands): MQRCCF_Q_MGR_NOT_IN_QSG, MQRCCF_EVENTS_DISABLED,
    # MOVE QLOCAL's target not empty (MQRC_Q_NOT_EMPTY) or too small (MQRC_Q_FULL)
    "MQT0450E": 3212,
    "MQT0455E": 3224,
    "MQT0462E": 3224,
    "MQT0457E": 2055,
    "MQT0458E": 2053,
}
# A DISPLAY that matched nothing: a normal completion with no object (an empty
# commandResponse), as z/OS answers it.
NOTHING_FOUND = ("CSQM297I", "MQSC0003I", "HTTPS0005I", "MQID0014I")
# Messages whose attributes are one object each (z/OS), or several objects one after
# the other, each starting with the same title keyword (z/TPF displays).
ONE_OBJECT = ("CSQM201I",)
OBJECT_RUNS = ("MQSC0002I", "HTTPS0004I", "MQSC0355I", "MQID0012I", "MQID0013I")
# Messages whose fields are the figures of one object (the statistics displays).
FIGURES = ("MQSC0251I", "HTTPS0011I")
# The status displays name their object by the queue or channel it is the status of:
# `queue` and `channel` in runCommandJSON, as IBM's REST API gives them and its clients
# read them (pymqrest maps QUEUE and CHANNEL for qstatus and chstatus), where the z/OS
# console titles the block QSTATUS(name), CHSTATUS(name), QSTATS(name). Inferred for
# z/OS: mqtool-rest(7), NAMES IN runCommandJSON.
STATUS_NAMES: dict[str, dict[str, str]] = {
    "QSTATUS": {"QSTATUS": "QUEUE"},
    "CHSTATUS": {"CHSTATUS": "CHANNEL"},
    "QSTATS": {"QSTATS": "QUEUE"},
}
# Messages that only count or frame a display: the items say it already.
FRAMING = ("CSQM293I",)


def parameter_name(keyword: str) -> str:
    """An attribute's name in `parameters`: lower case, as IBM returns them."""
    name = _PARAMETER_NAMES.get(keyword)
    if name is None:
        name = keyword.strip().lower().replace(" ", "_")
        if len(_PARAMETER_NAMES) < _PARAMETER_NAMES_KEPT:  # the tables' keywords, and a few more
            _PARAMETER_NAMES[keyword] = name
    return name


# parameter_name's answers, kept: every display block names the same few hundred keywords.
_PARAMETER_NAMES: dict[str, str] = {}
_PARAMETER_NAMES_KEPT = 4096


def command_json(session: Any, line: str, where: str | None = None) -> dict[str, Any]:
    """Runs one command line in `session` (one store transaction, as `mqtool cmd`
    does) and returns its runCommandJSON response. `where` is a filter as
    runCommandJSON's `where` takes it (`curdepth gt 0`): it is added to an MQSC
    DISPLAY as WHERE(...)."""
    text = line.strip()
    if where is not None and where.strip():
        if not is_mqsc_display(session, text):
            response = Response(status=SYNTAX)
            response.add("MQT0301E", command=text or "(none)")
            return response_json(response, None)
        text = f"{text} WHERE({where.strip()})"
    outcome = session.execute(text)
    return outcome_json(session, outcome)


def is_mqsc_display(session: Any, line: str) -> bool:
    """Whether `line` is an MQSC DISPLAY (with or without a CPF): the commands that take WHERE."""
    from mqtool.session import _match_cpf

    _system, rest = _match_cpf(line, session.systems())
    words = rest.split(None, 1)
    verb = tables.load("zos").verb(words[0].split("(")[0]) if words else None
    return verb is not None and verb.name == "DISPLAY"


def outcome_json(session: Any, outcome: Any) -> dict[str, Any]:
    """The runCommandJSON response of a line the session has executed."""
    if outcome.response is None:
        # A line that printed nothing (a comment, END): an empty success.
        return envelope([])
    system = next((s for s in session.systems() if s.name == outcome.system), None)
    return response_json(outcome.response, system)


def envelope(items: list[dict[str, Any]]) -> dict[str, Any]:
    failed = any(item["completionCode"] != MQCC_OK for item in items)
    return {
        "commandResponse": items,
        "overallCompletionCode": MQCC_FAILED if failed else MQCC_OK,
        "overallReasonCode": MQRCCF_COMMAND_FAILED if failed else 0,
    }


def response_json(response: Response, system: SystemRecord | None) -> dict[str, Any]:
    """One handler Response as a runCommandJSON response body."""
    items: list[dict[str, Any]] = []
    for message in response.messages:
        if message.id in ONE_OBJECT and message.fields.get("nested"):
            _nest(items, message)
        elif message.id in ONE_OBJECT:
            items.append(_item(_zos_parameters(message)))
        elif message.id in OBJECT_RUNS:
            items.extend(_item(parameters) for parameters in _runs(message))
        elif message.id in FIGURES:
            items.append(_item({parameter_name(k): json_value(v) for k, v in message.fields.items()}))
    if items and response.ok:
        return envelope(items)
    if response.ok and any(m.id in NOTHING_FOUND for m in response.messages):
        return envelope([])
    ok = response.status == OK
    reason = next((REASONS[m.id] for m in response.messages if m.id in REASONS), MQRCCF_COMMAND_FAILED)
    item: dict[str, Any] = {
        "completionCode": MQCC_OK if ok else MQCC_FAILED,
        "reasonCode": 0 if ok else reason,
        "message": message_lines(response, system),
    }
    return envelope([item])


def _nest(items: list[dict[str, Any]], message: Message) -> None:
    """A block that belongs inside its parent's item (DISPLAY CONN TYPE(HANDLE): each
    open queue of a connection), as IBM's runCommandJSON gives them: the parent's
    attributes (`conn`, `extconn`, `type`) and an `objects` array of the handles. The
    parent is the item before when it is the same connection, else a new one."""
    parent: dict[str, Any] = dict(message.fields["nested"])
    own = {key: value for key, value in _zos_parameters(message).items() if key not in parent}
    last = items[-1]["parameters"] if items else None
    if last is None or last.get("conn") != parent.get("conn"):
        last = parent
        items.append(_item(last))
    last.setdefault("objects", []).append(own)


def _item(parameters: dict[str, Any]) -> dict[str, Any]:
    return {"completionCode": MQCC_OK, "reasonCode": 0, "parameters": parameters}


def message_lines(response: Response, system: SystemRecord | None) -> list[str]:
    """The console lines of a response without the z/TPF console header and framing
    (the time stamp, the trailing +, END OF DISPLAY): what IBM puts in `message`."""
    if response.framing == "zos" and system is not None:
        return [line for line in render_zos(response, system) if line]
    out: list[str] = []
    for message in response.messages:
        if message.id in FRAMING:
            continue
        if message.id == messages.ECHO:
            out.append(messages.text(message.id, message.fields))
        elif message.id:
            out.extend(f"{message.id} {messages.text(message.id, message.fields)}".split("\n"))
        out.extend(f"{key} {_value(value)}".rstrip() for key, value in message.attrs)
        out.extend(message.lines)
    return out


def json_value(value: Any) -> Any:
    """A z/TPF value as JSON: numbers and lists as they are, YES/NO flags as words."""
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, tuple):
        return list(value)
    return value


def _runs(message: Message) -> list[dict[str, Any]]:
    """The objects of a z/TPF display: its attribute lines, split where the title
    keyword (QUEUE, CHANNEL, SERVER ...) comes again."""
    objects: list[dict[str, Any]] = []
    title = message.attrs[0][0] if message.attrs else ""
    for key, value in message.attrs:
        if key == title or not objects:
            objects.append({})
        objects[-1][parameter_name(key)] = json_value(value)
    return objects


def _zos_parameters(message: Message) -> dict[str, Any]:
    """One z/OS display block: its KEYWORD(value) lines typed by the z/OS keyword table
    (numbers, lists; a blank value is ""). Flag lines without a value (CURRENT) are left out."""
    table = tables.load("zos")
    wanted = str(message.fields.get("objtype", ""))
    if wanted == "QUEUE":
        # DISPLAY QUEUE: each queue has the attributes of its own type.
        wanted = next((str(v) for k, v in message.attrs if k == "TYPE"), wanted)
    spec = table.object(wanted)
    plan = _zos_plan(table, wanted)
    out: dict[str, Any] = {}
    for key, value in message.attrs:
        if value is None:
            # A switch shown as its word (TRIGGER, NOTRIGGER): "yes" or "no", as the
            # REST API takes it in a request; other bare words (CURRENT) are left out.
            switch = table.keyword(spec, key) if spec is not None else None
            if switch is not None and switch.type == "switch":
                out[parameter_name(switch.name)] = "yes" if key == switch.name else "no"
            continue
        found = plan.get(key)
        if found is None:
            keyword = spec.keywords.get(key) if spec is not None else None
            name = parameter_name(STATUS_NAMES.get(wanted, {}).get(key, key))
            found = plan[key] = (name, None if keyword is None else keyword.type)
        name, kind = found
        if isinstance(value, str):
            text = str(value).strip()
            if kind == "int" and text.isdigit():
                out[name] = int(text)
            elif kind == "list" or kind == "names":
                out[name] = [item.strip() for item in text.split(",") if item.strip()]
            else:
                out[name] = text
        else:
            out[name] = json_value(value)
    return out


# Per keyword table and object type: each display keyword's parameter name and value
# type (what _zos_parameters looks up for every line of every block), found once.
_ZOS_PLANS: dict[tuple[int, str], dict[str, tuple[str, str | None]]] = {}
_ZOS_PLANS_TABLE: list[tables.Table] = []


def _zos_plan(table: tables.Table, wanted: str) -> dict[str, tuple[str, str | None]]:
    if not _ZOS_PLANS_TABLE or _ZOS_PLANS_TABLE[0] is not table:  # another table: start again
        _ZOS_PLANS.clear()
        _ZOS_PLANS_TABLE[:] = [table]
    plan = _ZOS_PLANS.get((id(table), wanted))
    if plan is None:
        plan = _ZOS_PLANS[(id(table), wanted)] = {}
    return plan


__all__ = ["command_json", "envelope", "outcome_json", "parameter_name", "response_json"]
