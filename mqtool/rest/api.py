"""The requests of the MQ REST API stand-in and their answers, independent of sockets:
`RestApi` runs in the one thread that owns the store connection and a session (the
server hands every request to it), and answers as IBM mqweb does:

- `GET /admin/qmgr[/{qmgr}]`: `{"qmgr": [{"name": ..., "state": "running"|"ended"}]}`;
- `POST /admin/action/qmgr/{qmgr}/mqsc`: `runCommand` (the command's text response
  lines) and `runCommandJSON` (the JSON of mqtool.render.json);
- `POST|DELETE|GET /messaging/qmgr/{qmgr}/queue/{queue}/message`: put, destructive
  get, browse, with the `ibm-mq-md-*` headers;
- errors as IBM's error JSON: `{"error": [{"action", "completionCode", "explanation",
  "message", "msgId", "reasonCode", "type"}]}`.

The queue manager name of the URL selects the system: a z/OS system by its queue
manager (the system's name), a z/TPF system by its queue manager's name; z/TPF
commands (ZMQSC, ZHTPS) in runCommand are mqtool's extension.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqtool import messages
from mqtool.clock import Clock
from mqtool.render.json import outcome_json, response_json
from mqtool.response import FAILED, NO_CSECT, SYNTAX, Response

from . import authority
from .build import build, field
from .display import display_body
from .reply import (
    BINARY_TYPE,
    JSON_TYPE,
    MAX_WAIT_MS,
    MESSAGE_TYPES,
    TEXT_TYPE,
    Reply,
    RestError,
    json_reply,
)

if TYPE_CHECKING:
    from .config import RestUser

_HEX_ID = re.compile(r"[0-9A-Fa-f]{48}")

# ------------------------------------------------------------------- commands
#: JSON numbers of more digits (or a longer exponent form) than this are refused; far
#: more than any attribute takes, far less than Python's own 4,300-digit limit.
MAX_NUMBER_TEXT = 64
#: JSON nesting deeper than this is refused (a runCommandJSON body needs 3 levels).
MAX_DEPTH = 32


class _BadJson(ValueError):
    """A JSON text the body parser refuses, with what is wrong."""


def _number(text: str) -> Any:
    if len(text) > MAX_NUMBER_TEXT:
        raise _BadJson(f"a number of more than {MAX_NUMBER_TEXT} characters")
    return int(text) if text.lstrip("-").isdigit() else float(text)


def _constant(text: str) -> Any:
    raise _BadJson(f"{text} is not a JSON value")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise _BadJson(f"the key {key[:40]!r} is given twice")
        document[key] = value
    return document


def _depth(text: str) -> int:
    """How deeply arrays and objects nest in a JSON text (brackets inside strings are
    not counted): checked before parsing, so a deep text costs no recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
        elif char in "]}":
            depth -= 1
    return deepest


# json.loads with these arguments makes a decoder (and its scanner) for every call.
_DECODER = json.JSONDecoder(parse_int=_number, parse_float=_number, parse_constant=_constant, object_pairs_hook=_unique)


def parse_body(body: bytes) -> dict[str, Any]:
    """The JSON object of a POST to the mqsc resource; RestError 400 otherwise. Every
    malformed body is refused here: not UTF-8, not JSON, nested more than MAX_DEPTH,
    a number of more than MAX_NUMBER_TEXT characters, NaN or Infinity, a key given twice
    in one object, a top level that is not an object."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RestError(400, "MQT0360E", problem=f"not UTF-8 (byte {exc.start})") from None
    # Nesting cannot go deeper than the text has opening brackets: only a text with more
    # than MAX_DEPTH of them (counted in C, far faster) needs the character walk.
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(text) > MAX_DEPTH:
        raise RestError(400, "MQT0360E", problem=f"nested more than {MAX_DEPTH} levels deep")
    try:
        if text.startswith("\ufeff"):  # as json.loads refuses it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        document = _DECODER.decode(text)
    except _BadJson as exc:
        raise RestError(400, "MQT0360E", problem=str(exc)) from None
    except json.JSONDecodeError as exc:
        raise RestError(400, "MQT0360E", problem=f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise RestError(400, "MQT0360E", problem=type(exc).__name__) from None
    if not isinstance(document, dict):
        kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
        kind = kinds.get(type(document), "a number")
        raise RestError(400, "MQT0361E", kind=kind)
    return document


def zos_text(outcome: Any, document: dict[str, Any]) -> list[str]:
    """runCommand's text on z/OS: the command server's CSQN205I count line, then the
    reply lines (mqtool gives a display block one line per attribute, as the console)."""
    failed = document["overallCompletionCode"] != 0
    lines = [line for line in outcome.lines if line]
    count = len(lines) + 1
    code, reason = ("0000000C", "00000008") if failed else ("00000000", "00000000")
    return [messages.line("CSQN205I", count=count, code=code, reason=reason), *lines]


# ----------------------------------------------------------------- messaging
def parse_message_id(text: str, version: int, header: str) -> bytes:
    """A message or correlation id as the messaging API takes it: 48 hex digits (v1,
    v2); in v3 `ID:` and 48 hex digits, or an application's text of up to 24 bytes."""
    if version >= 3:
        if text.startswith("ID:") and _HEX_ID.fullmatch(text[3:]):
            return bytes.fromhex(text[3:])
        raw = text.encode("utf-8")
        if 0 < len(raw) <= 24 and not text.startswith("ID:"):
            return raw.ljust(24, b"\0")
    elif _HEX_ID.fullmatch(text):
        return bytes.fromhex(text)
    raise RestError(400, "MQWB0302E", header=header, value=text)


def format_message_id(value: bytes, version: int) -> str:
    return ("ID:" if version >= 3 else "") + value.hex()


def put_options(headers: dict[str, str], version: int) -> Any:
    """The put options of a messaging POST from its ibm-mq-md-* headers."""
    from mqtool.engine.core.message import NO_ID, PutOptions

    options = PutOptions(persistent=None, priority=None, correlid=NO_ID)
    persistence = headers.get("ibm-mq-md-persistence")
    if persistence is not None:
        value = persistence.strip().lower()
        if value not in ("persistent", "nonpersistent"):
            raise RestError(400, "MQWB0302E", header="ibm-mq-md-persistence", value=persistence)
        options.persistent = value == "persistent"
    expiry = headers.get("ibm-mq-md-expiry")
    if expiry is not None:
        value = expiry.strip().lower()
        if value != "unlimited":
            if not value.isascii() or not value.isdigit() or len(value) > 10 or int(value) > MAX_WAIT_MS:
                raise RestError(400, "MQWB0302E", header="ibm-mq-md-expiry", value=expiry)
            options.expiry = int(value) / 1000
    correlation = headers.get("ibm-mq-md-correlationid")
    if correlation is not None:
        options.correlid = parse_message_id(correlation.strip(), version, "ibm-mq-md-correlationId")
    priority = headers.get("ibm-mq-md-priority")
    if priority is not None and version >= 3:  # a REST API V3 header
        value = priority.strip()
        if not (value.isascii() and value.isdigit() and int(value) <= 9):
            raise RestError(400, "MQWB0302E", header="ibm-mq-md-priority", value=priority)
        options.priority = int(value)
    return options


def message_type(headers: dict[str, str]) -> str:
    """The media type of a put's body (IBM's text types, and mqtool's binary one)."""
    raw = headers.get("content-type", "text/plain")
    media, _, rest = raw.partition(";")
    media = media.strip().lower()
    if media not in MESSAGE_TYPES:
        raise RestError(415, "MQWB0306E")
    for parameter in rest.split(";"):
        key, _, value = parameter.partition("=")
        if key.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            raise RestError(415, "MQWB0305E", charset=value.strip())
    return media


def message_headers(message: Any, version: int, now: float) -> list[tuple[str, str]]:
    """The ibm-mq-md-* response headers of a message got or browsed."""
    if message.expiry is None:
        expiry = "unlimited"
    else:
        expiry = str(max(0, round((message.expiry - now) * 1000)))
    try:
        message.payload.decode("utf-8")
        content = TEXT_TYPE
    except UnicodeDecodeError:
        content = BINARY_TYPE
    headers = [
        ("Content-Type", content),
        ("ibm-mq-md-messageId", format_message_id(message.msgid, version)),
        ("ibm-mq-md-persistence", "persistent" if message.persistent else "nonPersistent"),
        ("ibm-mq-md-expiry", expiry),
    ]
    if any(message.correlid):
        headers.append(("ibm-mq-md-correlationId", format_message_id(message.correlid, version)))
    if version >= 3:
        headers.append(("ibm-mq-md-priority", str(message.priority)))
    return headers


# ------------------------------------------------------------------ the thread
@dataclass
class Got:
    """A message got (or browsed) and committed, with what can put it back."""

    reply: Reply
    handle: Any = None
    message: Any = None


class RestApi:
    """Answers requests against the store of `state_dir`; every method runs in the one
    thread that created the first of them (it owns the store connection)."""

    def __init__(self, state_dir: Path, clock: Clock, host: str = "127.0.0.1") -> None:
        self.state_dir = Path(state_dir)
        self.clock = clock
        self.host = host
        self._session: Any = None
        self._managers: dict[str, Any] = {}
        self._managers_generation: tuple[int, int] | None = None
        # z/OS system -> (what the store was when read, whether its command server is stopped)
        self._cmdserv: dict[str, tuple[tuple[Any, int], bool]] = {}
        self._connections: dict[tuple[str, str], int] = {}  # (z/OS system, REST user) -> DISPLAY CONN's row

    @property
    def session(self) -> Any:
        if self._session is None:
            from mqtool.complex import ensure_complex
            from mqtool.session import Session
            from mqtool.state import Store

            store = Store.open(self.state_dir)
            ensure_complex(store, self.clock.timestamp())
            self._session = Session(store, self.clock)
            self._session.pinned = True  # the queue manager in the URL, and no other
            self._session.via_command_server = True  # z/OS: MQSC commands go through the command server
        return self._session

    def close(self) -> None:
        if self._session is not None:
            self._disconnect()
            self._session.store.close()
            self._session = None

    def connected(self, system: Any, user: str) -> None:
        """A REST user's session with a z/OS queue manager is one of its connections
        (DISPLAY CONN, DISPLAY THREAD) while the server runs."""
        key = (system.name, user)
        if system.platform != "zos" or key in self._connections:
            return
        from mqtool.engine.zos import connections

        with self.session.store.transaction() as tx:
            conn_id = connections.connect(
                tx, system.name, self.clock.timestamp(), connections.REST, "mqtool serve REST", user
            )
        self._connections[key] = conn_id

    def _disconnect(self) -> None:
        from mqtool.engine.zos import connections
        from mqtool.state import StoreError

        try:
            with self._session.store.transaction() as tx:
                for conn_id in self._connections.values():
                    connections.disconnect(tx, conn_id)
        except StoreError:
            pass  # the rows of a process that has ended are left out when read anyway
        self._connections.clear()

    def _command_server(self, system: Any, qmgr: str, generation: tuple[int, int]) -> None:
        """RestError 503 while a z/OS queue manager's command server is stopped (STOP
        CMDSERV): the REST API's MQSC commands go through it. Read again only when the
        store may have changed: another connection committed (`generation`, read before
        this call) or this one wrote a row (sqlite3's total_changes counts every row
        written, by triggers too, committed or not)."""
        if system.platform != "zos":
            return
        store = self.session.store
        seen = (generation, store.conn.total_changes)
        known = self._cmdserv.get(system.name)
        if known is not None and known[0] == seen:
            stopped = known[1]
        else:
            with store.transaction(write=False) as tx:
                record = tx.get_object(system.name, "QMGR", system.name)
            stopped = record is not None and record.status.get("cmdserv") == "STOPPED"
            self._cmdserv[system.name] = (seen, stopped)
        if stopped:
            raise RestError(503, "MQT0464E", completion=2, reason=2322, qmgr=qmgr)

    # -- queue managers ---------------------------------------------------------
    def managers(self, generation: tuple[int, int] | None = None) -> dict[str, Any]:
        """Queue manager name -> (system record, QMGR object), read again only when
        the store's systems may have changed (`generation`: the store's, just read)."""
        session = self.session
        if generation is None:
            generation = session.store.generation()
        if generation != self._managers_generation:
            found: dict[str, Any] = {}
            systems = session.systems(generation)
            with session.store.transaction(write=False) as tx:
                for system in systems:
                    for qmgr in tx.objects(system.name, "QMGR"):
                        found.setdefault(qmgr.name, (system, qmgr))
            self._managers, self._managers_generation = found, generation
        return self._managers

    def manager(self, name: str, generation: tuple[int, int] | None = None) -> Any:
        found = self.managers(generation).get(name)
        if found is None:
            raise RestError(404, "MQWB0009E", completion=2, reason=2058, qmgr=name)
        return found

    def qmgr(self, name: str | None) -> Reply:
        """GET /admin/qmgr[/name]: each queue manager's name and state."""
        self.session.tick()
        self._managers_generation = None  # the state may have changed without a systems change
        if name is not None:
            chosen = [self.manager(name)]
        else:
            chosen = sorted(self.managers().values(), key=lambda pair: pair[1].name)
        items = []
        with self.session.store.transaction(write=False) as tx:
            for system, qmgr in chosen:
                current = tx.get_object(system.name, "QMGR", qmgr.name) or qmgr
                running = current.status.get("state", "STARTED") == "STARTED"
                items.append({"name": qmgr.name, "state": "running" if running else "ended"})
        return json_reply(200, {"qmgr": items})

    # -- mqsc -------------------------------------------------------------------
    def mqsc(self, qmgr: str, body: bytes, user: RestUser) -> Reply:
        """POST /admin/action/qmgr/{qmgr}/mqsc as `user`: runCommand runs the line as
        typed; runCommandJSON runs the command built from the document (build.py), so
        that no value of it is read as syntax. mqtool.rest.authority decides whether the
        user may run it: 403 (MQWB0103E), or the queue manager's 2035 answer."""
        generation = self._generation()
        system, _ = self.manager(qmgr, generation)
        self.connected(system, user.name)
        self._command_server(system, qmgr, generation)
        document = parse_body(body)
        kind = field(document, "type", str, required=True)
        if kind not in ("runCommand", "runCommandJSON"):
            raise RestError(400, "MQT0362E", field="type", problem=f"{kind[:40]!r} is not runCommand or runCommandJSON")
        session = self.session
        session.current = system.name
        if kind == "runCommand":
            parameters = field(document, "parameters", dict, required=True)
            line = field(parameters, "command", str, required=True)
            if not line.strip():
                raise RestError(400, "MQT0362E", field="parameters.command", problem="is empty")
            if not line.isprintable():
                raise RestError(400, "MQT0362E", field="parameters.command", problem="must be one line of text")
            verb = authority.verb_of_line(line, session.systems())
            self._reads_only(verb, None)
            outcome = self._authorized(user, verb, system, line) or _directive_refused(line) or session.execute(line)
            result = outcome_json(session, outcome)
            text = zos_text(outcome, result) if system.platform == "zos" else list(outcome.lines)
            codes = result["commandResponse"][0] if result["commandResponse"] else {"completionCode": 0}
            item = {
                "completionCode": codes["completionCode"],
                "reasonCode": codes.get("reasonCode", 0),
                "text": text,
            }
            reply = json_reply(200, {"commandResponse": [item], **_overall(result)})
        else:
            built = build(document, system.platform)
            command = built.command
            direct: bytes | None = None
            verb = authority.verb_of_command(built.dialect, command.verb, command.object)
            self._reads_only(verb, command.name)
            refused = self._authorized(user, verb, system, command.text)
            if refused is not None:
                result = outcome_json(session, refused)
            elif built.refusal is not None:
                response = Response(status=SYNTAX)
                response.add("MQT0301E", command=built.refusal)
                result = response_json(response, None)
            else:
                outcome = session.execute_command(command, lines=False)
                if outcome.response is not None and outcome.system == system.name:
                    # A display's body straight from its blocks (display.py), else
                    # outcome_json without reading the systems.
                    direct = display_body(outcome.response)
                    result = {} if direct is not None else response_json(outcome.response, system)
                else:
                    result = outcome_json(session, outcome)
            if direct is not None:
                reply = Reply(200, [("Content-Type", JSON_TYPE)], direct)
            else:
                reply = json_reply(200, {"commandResponse": result["commandResponse"], **_overall(result)})
        if verb.name is not None and not verb.writes:
            reply.valid_until = self._valid_until()
        return reply

    def _generation(self) -> tuple[int, int]:
        """The store's generation at the start of a request."""
        return self.session.store.generation()

    def _reads_only(self, verb: Any, name: str | None) -> None:
        """Where a command of `verb` on the object `name` (None: a typed line, or no
        object name) may run: anywhere here (the store thread runs every command);
        reader.ReadingApi refuses all but short reading ones."""

    def _authorized(self, user: RestUser, verb: Any, system: Any, shown: str) -> Any:
        """None when `user` may run a command of `verb`; the queue manager's answer to a
        command its user may not issue (an Outcome: 2035) when the user's grants do not
        cover it; RestError 403 (MQWB0103E) when the user's roles do not allow it at all."""
        decision = authority.decide(user, verb)
        if decision == authority.RUN:
            return None
        if decision == authority.FORBIDDEN:
            raise RestError(403, "MQWB0103E", action="run", target=f"'{shown.strip()[:80]}' on {system.name}")
        return self.session.outcome(_not_authorized(verb, system, user.name), system)

    def _valid_until(self) -> float:
        """How long a display stays what it is while the store does not change: to the
        end of the clock's second (displays show times to the second, and MSGAGE and
        the like count from now), or to the next timer falling due if that is sooner."""
        due = self.session.next_timer_due()  # as the command's own tick found it
        if due is None:
            with self.session.store.transaction(write=False) as tx:
                due = tx.conn.execute("SELECT min(due) FROM timers").fetchone()[0]
        now = self.clock.timestamp()
        end = math.floor(now) + 1.0
        return end if due is None else min(end, float(due))

    def console(self, msg_id: str, fields: dict[str, Any]) -> None:
        """Records one of the listener's console lines (mqtool.rest.console)."""
        from .console import record

        record(self.session.store, self.clock, msg_id, **fields)

    # -- messaging ----------------------------------------------------------------
    def _queue(self, qmgr: str, queue: str) -> Any:
        from mqtool.engine.platforms import open_queue

        system, _ = self.manager(qmgr)
        self.session.tick()
        return open_queue(self.session.store, self.clock, system.name, queue, system.platform)

    def put(self, qmgr: str, queue: str, version: int, headers: dict[str, str], body: bytes, user: str = "") -> Reply:
        """POST .../message: one message put and committed before the answer."""
        from mqtool.engine.core.streams import put_stream

        if user:
            self.connected(self.manager(qmgr)[0], user)
        message_type(headers)
        options = put_options(headers, version)
        handle = self._queue(qmgr, queue)
        handle.put1 = True  # one message per request: an MQPUT1, as mqweb's puts are (inferred)
        committed: list[Any] = []
        result = put_stream(handle, [(body, options)], committed.extend)
        if result.error is not None:
            raise _refusal(result.error, qmgr, queue, self.host)
        return Reply(201, [("ibm-mq-md-messageId", format_message_id(committed[0].msgid, version))])

    def get(
        self, qmgr: str, queue: str, version: int, query: dict[str, str], browse: bool, user: str = ""
    ) -> Got | None:
        """DELETE (get) or GET (browse) .../message: the first matching message, its
        get committed before the answer; None when there is none (yet)."""
        from mqtool.engine.core.message import Selector
        from mqtool.engine.core.reasons import MQError

        if user:
            self.connected(self.manager(qmgr)[0], user)
        selector = Selector(
            parse_message_id(query["messageId"], version, "messageId") if "messageId" in query else None,
            parse_message_id(query["correlationId"], version, "correlationId") if "correlationId" in query else None,
        )
        handle = self._queue(qmgr, queue)
        store = self.session.store
        try:
            with store.transaction() as tx:
                handle.open(tx, "browse" if browse else "get")
                try:
                    message = handle.get(tx, selector, browse)
                except BaseException:
                    handle.rolled_back(tx)
                    raise
                handle.close(tx)
        except MQError as error:
            raise _refusal(error, qmgr, queue, self.host) from None
        if message is None:
            return None
        headers = message_headers(message, version, self.clock.timestamp())
        return Got(Reply(200, headers, message.payload), None if browse else handle, message)

    def restore(self, got: Got) -> None:
        """Puts back a got message that could not be delivered (the client left)."""
        if got.handle is None:
            return
        with self.session.store.transaction() as tx:
            got.handle.open(tx, "get")
            got.handle.restore(tx, [got.message])
            got.handle.close(tx)


def _directive_refused(line: str) -> Any:
    """mqtool's directives (.system, .advance, .put file=...) act on the session and the
    machine, not on a queue manager: through the REST API a line starting with a dot is
    an unknown command, as any other word that is no command is."""
    from mqtool.response import SYNTAX, Response
    from mqtool.session import Outcome

    first = line.split()[0]
    if not first.startswith("."):
        return None
    response = Response(status=SYNTAX)
    response.add("MQT0001E", word=first)
    return Outcome(lines=[messages.line("MQT0001E", word=first)], status=SYNTAX, response=response)


def _not_authorized(verb: Any, system: Any, user: str) -> Response:
    """The queue manager's answer to a command its user may not issue (MQRC 2035): on
    z/OS CSQ9016E and CSQ9023E, as the command preprocessor answers when the command's
    security profile refuses the user; on z/TPF mqtool's MQT0367E (z/TPF MQ has no
    command security of its own to imitate)."""
    verb_name = verb.shown
    if system.platform == "zos":
        from mqtool.commands.zos import PARSER_CSECT, table

        words = verb_name
        if verb.object:
            obj = table().object(verb.object)
            words += f" {obj.full if obj is not None else verb.object.upper()}"
        response = Response(status=FAILED, framing="zos", verb_words=words, csect=PARSER_CSECT)
        response.add("CSQ9016E", csect=NO_CSECT, verb=verb_name)
        return response
    from .build import COMMAND_WORDS

    prefix = COMMAND_WORDS.get(verb.dialect, "ZMQSC")
    response = Response(status=FAILED, framing="ztpf")
    response.add("MQT0367E", command=f"{prefix} {verb_name}", user=user)
    return response


def _overall(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "overallCompletionCode": result["overallCompletionCode"],
        "overallReasonCode": result["overallReasonCode"],
    }


def _refusal(error: Any, qmgr: str, queue: str, host: str) -> RestError:
    from mqtool.engine.core.reasons import Q_MGR_NOT_AVAILABLE, UNKNOWN_OBJECT_NAME

    if error.reason == UNKNOWN_OBJECT_NAME:
        return RestError(404, "MQT0364E", completion=2, reason=error.reason, queue=queue, qmgr=qmgr)
    if error.reason == Q_MGR_NOT_AVAILABLE:
        return RestError(503, "MQWB0300E", completion=2, reason=error.reason, qmgr=qmgr, host=host)
    return RestError(500, "MQWB0303E", completion=2, reason=error.reason, explanation=str(error))
