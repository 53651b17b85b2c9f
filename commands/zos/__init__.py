"""IBM MQ for z/OS (MQSC): lexing, CSQ-style error messages, the completion framing
(`CSQ9022I -CSQ1 CSQMxxxx ' VERB OBJTYPE' NORMAL COMPLETION`) and what the verb
modules share.

Objects are stored with their full MQSC type: QMGR, QLOCAL, QMODEL, QALIAS, QREMOTE,
STGCLASS, PSID (name "0".."99") and CHANNEL. The queue manager's run-time state is in
its status: `state` (STARTED or STOPPED), `started` (time of the last start), `log_set`,
`archive_set` and `system_set` (SET LOG / SET ARCHIVE / SET SYSTEM values, dropped at
the next start), `traces` (the active traces, trace.py) and `log_suspended` (the RBA of
a SUSPEND QMGR LOG in force, mqtool/engine/zos/logsuspend.py). The log's position is the
engine's (mqtool/engine/zos/log.py, table zos_log).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from mqtool.parse import mqsc
from mqtool.parse.command import Command, LexError
from mqtool.response import FAILED, OK, SYNTAX, Response
from mqtool.session import display_offset
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.state import messages as runs
from mqtool.tables import ObjectSpec, Table, ValidationError, load

DIALECT = "zos"
QUEUE_TYPES = ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE")
PARSER_CSECT = "CSQ9SCND"  # the command preprocessor: syntax errors
STOPPED_CSECT = "CSQ3EC0X"  # the subsystem interface: commands while the queue manager is down
DETAIL_CSECT = "CSQMDRTC"  # the module that writes CSQM293I and CSQM201I of a DISPLAY

# Reason codes of CSQM090E. X'00D44002' is IBM's (object not found); the others are
# mqtool's choices, documented in mqtool-zos(7).
RC_NOT_FOUND = "00D44002"
RC_EXISTS = "00D44003"
RC_IN_USE = "00D44004"
RC_WRONG_TYPE = "00D44005"
RC_NOT_EMPTY = "00D44006"

Handler = Callable[[Any, Any], Response]


# -- the table ------------------------------------------------------------------------


def table() -> Table:
    return load(DIALECT)


def raw(obj: str) -> dict[str, Any]:
    """The table row of an object: title, identity, store, found, csect."""
    row: dict[str, Any] = table().raw["objects"][obj]
    return row


def csect_for(verb: str, obj: str | None) -> str:
    """The module named in a reply; DISPLAY of objects answers from CSQMDRTS."""
    if obj is not None and obj in table().objects:
        named = (raw(obj).get("csect") or {}).get(verb)
        if named:
            return str(named)
    return "CSQMDRTS" if verb == "DISPLAY" else PARSER_CSECT


def verb_words(command: Command, tbl: Table | None = None) -> str:
    """The full verb and object words echoed in CSQ9022I/CSQ9023E: ' DEFINE QLOCAL'."""
    tbl = tbl or table()
    verb = tbl.verb(command.verb)
    words = [verb.name if verb else command.verb]
    if command.object:
        obj = tbl.object(command.object)
        words.append(obj.full if obj else command.object)
    return " ".join(words)


def response(command: Command, csect: str, status: str = OK) -> Response:
    return Response(status=status, framing="zos", verb_words=verb_words(command), csect=csect)


def failure(command: Command, msg_id: str, status: str = FAILED, csect: str = PARSER_CSECT, **fields: Any) -> Response:
    result = response(command, csect=csect, status=status)
    result.add(msg_id, **fields)
    return result


def reply(req: Any, status: str = OK) -> Response:
    """The response frame of a validated request, with its verb's and object's csect."""
    obj = req.object.name if req.object is not None else None
    return response(req.command, csect_for(req.verb.name, obj), status)


def refuse(req: Any, msg_id: str, code: str | None = None, **fields: Any) -> Response:
    """A command that was understood but cannot be done: the message, CSQM090E with the
    reason code when there is one, then CSQ9023E."""
    result = reply(req, FAILED)
    result.add(msg_id, **fields)
    if code is not None:
        result.add("CSQM090E", code=code)
    return result


def not_found(req: Any, objtype: str, name: str) -> Response:
    return refuse(req, "CSQM125I", RC_NOT_FOUND, objtype=objtype, name=name)


def rule(req: Any, keyword: str, value: Any, reason: str) -> Response:
    """An attribute rule broken (streaming queues, channel compression ...)."""
    return refuse(req, "CSQM181E", keyword=keyword, value=value_text(value), reason=reason)


def syntax(req: Any, msg_id: str, **fields: Any) -> Response:
    """A syntax-class error found after validation (a missing keyword, a conflict)."""
    result = response(req.command, PARSER_CSECT, SYNTAX)
    result.add(msg_id, **fields)
    return result


# -- lexing and validation errors -------------------------------------------------------


def lex(text: str) -> Command:
    return mqsc.lex(text, is_object=takes_object)


def takes_object(verb: str, word: str) -> bool:
    """Whether `word` names an object type that `verb` takes (mqtool's, or one of IBM's
    that mqtool answers as not available): on z/OS the object need not be the second
    word of a command."""
    from .unavailable import objects_of

    tbl = table()
    spec = tbl.verb(verb)
    obj = tbl.object(word)
    if spec is not None and obj is not None and obj.name in spec.objects:
        return True
    return word.upper() in objects_of(verb, tbl)


def lex_error(error: LexError, text: str) -> Response:
    # The verb and object words for the completion line, as far as they can be read.
    words = re.findall(r"[A-Za-z0-9_]+", text)
    command = Command(
        text=text,
        dialect=DIALECT,
        verb=words[0].upper() if words else "",
        object=words[1].upper() if len(words) > 1 and table().verb(words[0]) else None,
    )
    if error.kind == "paren":
        return failure(command, "CSQ9002E", SYNTAX, keyword=error.token)
    if error.kind == "quote":
        return failure(command, "CSQ9003E", SYNTAX, keyword=error.token)
    if error.kind == "empty":
        return failure(command, "CSQ9031E", SYNTAX, keyword=text.strip() or "(blank)", what="a verb")
    return failure(command, "CSQ9001E", SYNTAX, keyword=error.token or text.strip())


def validation_error(error: ValidationError, command: Command, tbl: Table) -> Response:
    def fail(msg_id: str, **fields: Any) -> Response:
        return failure(command, msg_id, SYNTAX, **fields)

    obj = tbl.object(command.object) if command.object else None
    if error.kind == "duplicate":
        return fail("CSQ9000E", keyword=error.keyword)
    if error.kind == "unknown_object" and not error.keyword:
        return fail("CSQ9031E", keyword=command.verb, what=f"an object type: {error.allowed}")
    if error.kind == "missing_name" and obj is not None:
        rule = obj.name_rule
        size = f", up to {rule.max} characters" if rule else ""
        what = f"a name in parentheses{size}"
        if rule is not None and rule.chars in ("digits", "dsname"):  # bread-last: DEFINE MAXSMSGS, DEFINE LOG
            what = {"digits": "a number in parentheses, 1-999999999", "dsname": "a data set name in parentheses"}[
                rule.chars
            ]
        return fail("CSQ9031E", keyword=command.object or obj.name, what=what)
    if error.kind == "missing" and obj is not None:
        spec = obj.keywords[error.keyword]
        verb = tbl.verb(command.verb)
        return fail(
            "CSQ9031E",
            keyword=f"{verb.name if verb else command.verb} {obj.full}",
            what=f"{spec.name}({spec.describe_values()})",
        )
    if error.kind == "bad_value":
        from .unavailable import not_built, value

        known = value(error, command, tbl)  # a value z/OS takes and mqtool does not build yet
        if known is not None:
            return known
        allowed = error.allowed or "a valid value"
        if (verb_words(command, tbl), error.keyword) == ("RESET QMGR", "TYPE"):
            # one TYPE row holds REFRESH QMGR's types and RESET QMGR's (bread-last)
            allowed = "PUBSUB (ADVANCELOG, STATISTICS, ARCHLOG and REDUCELOG are other platforms')"
        if error.allowed == "no value":
            allowed = "no value"
        others = not_built(tbl, obj.name, error.keyword) if obj is not None else []
        if others:
            allowed += f"; {', '.join(others)} are not available in mqtool"
        return fail("CSQ9030E", keyword=error.keyword, value=error.value, allowed=allowed)
    if error.kind == "bad_name" and obj is not None and obj.name_rule is not None:
        allowed = f"a name of 1-{obj.name_rule.max} characters A-Z a-z 0-9 . / _ %"
        if obj.name_rule.chars in ("dsname", "digits"):  # bread-last: DEFINE LOG, DEFINE MAXSMSGS
            allowed = {
                "dsname": "a data set name of 1-44 characters, qualifiers of 1-8 of A-Z 0-9 # @ $ - "
                "(the first not a digit or -) separated by dots",
                "digits": "1-999999999",
            }[obj.name_rule.chars]
        return fail("CSQ9030E", keyword=command.object or error.keyword, value=error.value, allowed=allowed)
    if error.kind in ("unknown_verb", "unknown_object"):
        from .unavailable import answer

        known = answer(command, tbl)  # an IBM command mqtool does not implement
        if known is not None:
            error.suggestion = ""  # recognised: not a misspelling to correct
            return known
    # unknown verb, object or keyword; a keyword that does not apply to this verb
    return fail("CSQ9001E", keyword=error.keyword or command.object or command.verb)


def recognised(word: str) -> bool:
    """Whether a line's first word is an IBM MQ for z/OS verb (one mqtool implements, or
    one it answers as not available)."""
    from .unavailable import recognised as only_recognised

    return table().verb(word) is not None or only_recognised(word)


def wrong_system(target: SystemRecord | None, systems: list[SystemRecord], text: str) -> Response:
    result = Response(status=FAILED)
    cpfs = [str(s.attrs.get("cpf")) for s in systems if s.platform == "zos"]
    if target is None or not cpfs:
        result.add("MQT0007E", platform="z/OS")
        return result
    # Several z/OS systems and none settled by the session (mqtool.session.current_zos).
    result.add("MQT0011E", system=target.name, cpfs=", ".join(cpfs))
    return result


# -- what the verb modules share ---------------------------------------------------------


def manager(tx: Transaction, system: SystemRecord, now: float) -> ObjectRecord:
    """The queue manager object; a system created without its objects gets them now."""
    record = tx.get_object(system.name, "QMGR", system.name)
    if record is None:
        bootstrap(tx, system, now)
        record = tx.get_object(system.name, "QMGR", system.name)
        assert record is not None
    return record


def is_active(tx: Transaction, system: SystemRecord) -> bool:
    """False after STOP QMGR until START QMGR (the engine refuses puts and gets then)."""
    record = tx.get_object(system.name, "QMGR", system.name)
    return record is None or record.status.get("state", "STARTED") != "STOPPED"


def queue_manager_status(ctx: Any) -> dict[str, Any]:
    """The queue manager's status alone (its attributes are many and not read); a system
    created without its objects gets them now (manager())."""
    status = ctx.tx.get_status(ctx.system.name, "QMGR", ctx.system.name)
    if status is None:
        status = manager(ctx.tx, ctx.system, ctx.now).status
    return status


def stopped(ctx: Any, req: Any, status: dict[str, Any] | None = None) -> Response | None:
    """CSQ3106E when the queue manager (its status, read when not given) is stopped: only
    START QMGR is processed."""
    if (status if status is not None else queue_manager_status(ctx)).get("state", "STARTED") != "STOPPED":
        return None
    cpf = ctx.system.attrs.get("cpf", "-" + ctx.system.name)
    result = Response(status=FAILED, framing="zos", csect=STOPPED_CSECT)
    result.add("CSQ3106E", csect=STOPPED_CSECT, command=f"{cpf} {req.command.text.strip()}")
    return result


def command_words(req: Any) -> str:
    """The command as the operator gave it, in full words: 'DISPLAY GROUP'."""
    words = [req.verb.name]
    if req.object is not None:
        words.append(req.object.full + (f"({req.name})" if req.name else ""))
    return " ".join(words)


def not_in_group(ctx: Any, req: Any, command: str | None = None) -> Response:
    """A queue-sharing-group command on a queue manager in no group."""
    return refuse(req, "MQT0450E", command=command or command_words(req), qmgr=ctx.system.name)


def active_only(handle: Handler) -> Handler:
    """Wraps a verb handler: refused with CSQ3106E while the queue manager is stopped, and
    with MQT0492E while SUSPEND QMGR LOG holds the updates it would make."""

    def guarded(ctx: Any, req: Any) -> Response:
        return not_active(ctx, req, queue_manager_status(ctx)) or handle(ctx, req)

    guarded.__doc__ = handle.__doc__
    return guarded


def not_active(ctx: Any, req: Any, status: dict[str, Any]) -> Response | None:
    """The refusal of a command active_only guards, from the queue manager's status (read
    once for every check): CSQ3106E while stopped, MQT0492E while the log is suspended;
    None when it may run. configev.with_events makes the same checks through it."""
    return stopped(ctx, req, status) or log_suspended(ctx, req, status)


def log_suspended(ctx: Any, req: Any, status: dict[str, Any]) -> Response | None:
    """MQT0492E for a command that updates what z/OS logs while the log is suspended (the
    keyword table's `log_suspend` block names them); None for the others. `status`: the
    queue manager's."""
    from mqtool.engine.zos.logsuspend import KEY

    if KEY not in status or not _logged(req.verb.name, req.object.name if req.object is not None else ""):
        return None
    return refuse(req, "MQT0492E", command=command_words(req), qmgr=ctx.system.name)


def _logged(verb: str, obj: str) -> bool:
    rows = table().raw["log_suspend"]
    if obj in (rows["allowed"].get(verb) or ()):
        return False
    refused = rows["refused"].get(verb) or ()
    return "*" in refused or obj in refused


def schedule_expiry(tx: Transaction, system: SystemRecord, interval: Any, now: float) -> None:
    """Starts the expiry scan EXPRYINT seconds from now, or stops it (OFF)."""
    from mqtool.engine.timers import cancel, schedule
    from mqtool.engine.zos.expiry import EXPIRY_TIMER

    cancel(tx, system.name, EXPIRY_TIMER)
    if str(interval) != "OFF":
        schedule(tx, system.name, EXPIRY_TIMER, now + int(interval))


def find_queue(tx: Transaction, system: SystemRecord, name: str) -> ObjectRecord | None:
    """The queue of any type with that name: queue names are unique across types."""
    return tx.find_object(system.name, QUEUE_TYPES, name)


def find_named(
    tx: Transaction, system: SystemRecord, obj: str, name: str, likely_absent: bool = False
) -> ObjectRecord | None:
    """The object of that type, or for a queue type the queue of any type with that name
    (`likely_absent`: a name expected to be new, see Transaction.find_object)."""
    if obj in QUEUE_TYPES:
        return tx.find_object(system.name, QUEUE_TYPES, name, likely_absent)
    return tx.get_object(system.name, obj, name)


def queue_depth(tx: Transaction, system: SystemRecord, queue: str) -> int:
    return runs.depth(tx.conn, system.name, queue)


def local_time(system: SystemRecord, timestamp: float) -> datetime:
    """A store timestamp as the system's local time (its display offset)."""
    return datetime.fromtimestamp(timestamp, UTC) + display_offset(system)


def date_time(system: SystemRecord, timestamp: float) -> tuple[str, str]:
    """MQSC date and time: 2021-03-09 and 15.41.22."""
    local = local_time(system, timestamp)
    return f"{local:%Y-%m-%d}", f"{local:%H.%M.%S}"


def value_text(value: Any) -> str:
    """An attribute value as a display line writes it: blank as one space, lists with commas."""
    if value is None or value == "" or (isinstance(value, (list, tuple)) and not value):
        return " "
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def object_spec(obj: str) -> ObjectSpec:
    return table().objects[obj]


def bootstrap(tx: Transaction, system: SystemRecord, now: float) -> None:
    """A new z/OS queue manager: its queue manager object, page sets, storage classes,
    default objects and dead-letter queue (listed in builtin.py)."""
    from .builtin import define_builtins

    define_builtins(tx, system, now)
