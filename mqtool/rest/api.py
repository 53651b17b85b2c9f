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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqtool import messages, tables
from mqtool.clock import Clock
from mqtool.render.json import command_json, outcome_json

JSON_TYPE = "application/json;charset=utf-8"
TEXT_TYPE = "text/plain;charset=utf-8"
BINARY_TYPE = "application/octet-stream"
CSRF_HEADER = "ibm-mq-rest-csrf-token"
# Content types the messaging API takes for a put (IBM's list), and mqtool's binary one.
MESSAGE_TYPES = ("text/plain", "text/html", "text/xml", "application/json", "application/xml", BINARY_TYPE)
MAX_WAIT_MS = 2**31 - 1
# What each error id tells the caller to do (IBM's "Response" of the message).
ACTIONS: dict[str, str] = {
    "MQWB0000E": "Use the message to resolve the problem if possible; report it with the state file if not.",
    "MQWB0009E": "Resubmit the request with a valid queue manager name.",
    "MQWB0100E": "Resubmit the request with the correct CSRF header.",
    "MQWB0103E": "Obtain the necessary authorization to perform the operation and resubmit the request.",
    "MQWB0104E": "Resubmit the request with the credentials of a user of the REST configuration.",
    "MQWB0116E": "Resubmit the request using a valid URI.",
    "MQWB0300E": "Resubmit the request, correcting any issues.",
    "MQWB0302E": "Resubmit the request using a valid header value.",
    "MQWB0303E": "Resubmit the request, correcting any issues.",
    "MQWB0305E": "Resubmit the request, correcting any issues.",
    "MQWB0306E": "Resubmit the request, correcting any issues.",
    "MQT0360E": "Resubmit the request with a JSON object as its body.",
    "MQT0361E": "Resubmit the request with a JSON object as its body.",
    "MQT0362E": "Resubmit the request with the fields runCommand or runCommandJSON take.",
    "MQT0363E": "Resubmit the request with one of the allowed methods.",
    "MQT0364E": "Resubmit the request with the name of a queue of the queue manager.",
    "MQT0365E": "Resubmit the request with a smaller body.",
    "MQT0464E": "Start the command server (START CMDSERV at the console) and resubmit the request.",
}
_PLAIN_NAME = re.compile(r"[A-Z0-9./_%*]+")
_HEX_ID = re.compile(r"[0-9A-Fa-f]{48}")


@dataclass
class Reply:
    """An answer: status, headers (besides Content-Length) and body. `valid_until`: the
    answer of a command that changes nothing stays true until this instant of the clock
    unless the store changes (see server.AnswerCache); None for any other answer."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    valid_until: float | None = None


class RestError(Exception):
    """A request answered with IBM's error JSON (the arguments are error_reply's)."""

    def __init__(self, status: int, msg_id: str, **arguments: Any) -> None:
        super().__init__(msg_id)
        self.status = status
        self.msg_id = msg_id
        self._reply = error_reply(status, msg_id, **arguments)

    def reply(self) -> Reply:
        return self._reply


def error_reply(
    status: int,
    msg_id: str,
    completion: int = 0,
    reason: int = 0,
    headers: list[tuple[str, str]] | None = None,
    explanation: str | None = None,
    **fields: Any,
) -> Reply:
    """IBM's error JSON (keys in the order mqweb writes them) for one message id."""
    item = {
        "action": ACTIONS[msg_id],
        "completionCode": completion,
        "explanation": explanation or messages.CATALOGUE[msg_id].meaning,
        "message": f"{msg_id}: {messages.text(msg_id, fields)}",
        "msgId": msg_id,
        "reasonCode": reason,
        "type": "rest",
    }
    return json_reply(status, {"error": [item]}, headers)


def json_reply(status: int, document: Any, headers: list[tuple[str, str]] | None = None) -> Reply:
    body = json.dumps(document, separators=(",", ":")).encode("utf-8")
    return Reply(status, [("Content-Type", JSON_TYPE), *(headers or [])], body)


# ------------------------------------------------------------------- commands
def parse_body(body: bytes) -> dict[str, Any]:
    """The JSON object of a POST to the mqsc resource; RestError 400 otherwise."""
    try:
        document = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RestError(400, "MQT0360E", problem=f"not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise RestError(400, "MQT0360E", problem=f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise RestError(400, "MQT0360E", problem="nested too deeply") from None
    if not isinstance(document, dict):
        kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
        kind = kinds.get(type(document), "a number")
        raise RestError(400, "MQT0361E", kind=kind)
    return document


def _field(document: dict[str, Any], name: str, kind: type, required: bool = False) -> Any:
    value = document.get(name)
    if value is None:
        if required:
            raise RestError(400, "MQT0362E", field=name, problem="is missing")
        return None
    if isinstance(value, bool) or not isinstance(value, kind):
        names: dict[type, str] = {str: "a string", dict: "an object", list: "an array"}
        wanted = names[kind]
        raise RestError(400, "MQT0362E", field=name, problem=f"must be {wanted}")
    return value


def _words(document: dict[str, Any]) -> tuple[str, str, str | None]:
    """The command, qualifier and name of a runCommandJSON body: a verb and an object
    type are one word each; a name has no control character (it is quoted for MQSC)."""
    found = []
    for field_name in ("command", "qualifier"):
        word = _field(document, field_name, str, required=True).strip()
        if not re.fullmatch(r"[A-Za-z]{1,16}", word):
            raise RestError(400, "MQT0362E", field=field_name, problem=f"{word!r} is not one word of letters")
        found.append(word)
    name = _field(document, "name", str)
    if name is not None and (len(name) > 48 or not name.isprintable()):
        raise RestError(400, "MQT0362E", field="name", problem="must be up to 48 printable characters")
    return found[0], found[1], name or None


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _mqsc_value(value: Any, spec: tables.KeywordSpec | None) -> str:
    """A runCommandJSON parameter value as MQSC writes it: text quoted, names quoted
    unless plain upper case, keywords and numbers as they are, lists with commas."""
    if isinstance(value, list):
        return ",".join(_mqsc_value(item, spec) for item in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        problem = f"value {value!r} is not a string, number or array"
        raise RestError(400, "MQT0362E", field="parameters", problem=problem)
    kind = spec.type if spec is not None else "text"
    if kind in ("text", "conname") or (kind in ("name", "filter") and not _PLAIN_NAME.fullmatch(value)):
        return _quote(value)
    if not re.fullmatch(r"[A-Za-z0-9./_%*+-]+", value):
        return _quote(value)
    return value


def mqsc_line(document: dict[str, Any]) -> tuple[str, str | None]:
    """The MQSC command of a runCommandJSON body and its WHERE filter (None: none).
    `where` may be a field of the body or of `parameters` (pymqrest sends it there)."""
    command, qualifier, name = _words(document)
    parameters = _field(document, "parameters", dict) or {}
    wanted = _field(document, "responseParameters", list)
    where = _field(document, "where", str)
    table = tables.load("zos")
    obj = table.object(qualifier)
    words = [command.upper(), qualifier.upper()]
    if name is not None:
        words[-1] += f"({name if _PLAIN_NAME.fullmatch(name) else _quote(name)})"
    for key, value in parameters.items():
        if key.lower() == "where":
            if not isinstance(value, str):
                raise RestError(400, "MQT0362E", field="parameters.where", problem="must be a string")
            where = value
            continue
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]{0,15}", key):
            raise RestError(400, "MQT0362E", field="parameters", problem=f"has a key {key!r} that is no attribute name")
        spec = table.keyword(obj, key) if obj is not None else None
        keyword = key.upper()
        flag = spec is not None and spec.type == "flag"
        if value is None or value == "" or value is True or (flag and str(value).lower() == "yes"):
            words.append(keyword)
        elif value is False or (flag and str(value).lower() == "no"):
            words.append(spec.negation if spec is not None and spec.negation else f"NO{keyword}")
        else:
            words.append(f"{keyword}({_mqsc_value(value, spec)})")
    if wanted is not None:
        if not all(isinstance(item, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9]{0,15}", item) for item in wanted):
            raise RestError(400, "MQT0362E", field="responseParameters", problem="must be an array of attribute names")
        if command.upper() in ("DISPLAY", "DIS"):
            words += ["ALL"] if any(item.lower() == "all" for item in wanted) else [item.upper() for item in wanted]
    return " ".join(words), where


def ztpf_line(document: dict[str, Any]) -> str:
    """A runCommandJSON body for a z/TPF queue manager as a ZMQSC (or, for the
    qualifier SERVER, ZHTPS) command: `ZMQSC DISPLAY QL-NAME KEYWORD-value` (mqtool's extension)."""
    command, qualifier, name = _words(document)
    command, qualifier = command.upper(), qualifier.upper()
    parameters = _field(document, "parameters", dict) or {}
    if name is not None and not re.fullmatch(r"[A-Za-z0-9.%_*#@$-]+", name):
        raise RestError(400, "MQT0362E", field="name", problem="is not a z/TPF name (letters, digits, . % _ * # @ $ -)")
    if _field(document, "where", str) is not None:
        raise RestError(400, "MQT0362E", field="where", problem="applies to MQSC (z/OS) DISPLAY commands only")
    prefix = "ZHTPS" if qualifier == "SERVER" else "ZMQSC"
    words = [prefix, command, qualifier + (f"-{name}" if name else "")]
    for key, value in parameters.items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]{0,15}", key):
            raise RestError(400, "MQT0362E", field="parameters", problem=f"has a key {key!r} that is no keyword")
        if value is None or value == "" or value is True:
            words.append(key.upper())
        elif isinstance(value, (str, int)) and not isinstance(value, bool):
            words.append(f"{key.upper()}-{value}")
        elif isinstance(value, list) and all(isinstance(item, (str, int)) for item in value):
            words.append(f"{key.upper()}-{','.join(str(item) for item in value)}")
        else:
            raise RestError(400, "MQT0362E", field="parameters", problem=f"value of {key} is not a string or number")
    return " ".join(words)


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

    def _command_server(self, system: Any, qmgr: str) -> None:
        """RestError 503 while a z/OS queue manager's command server is stopped (STOP
        CMDSERV): the REST API's MQSC commands go through it."""
        if system.platform != "zos":
            return
        with self.session.store.transaction(write=False) as tx:
            record = tx.get_object(system.name, "QMGR", system.name)
        if record is not None and record.status.get("cmdserv") == "STOPPED":
            raise RestError(503, "MQT0464E", completion=2, reason=2322, qmgr=qmgr)

    # -- queue managers ---------------------------------------------------------
    def managers(self) -> dict[str, Any]:
        """Queue manager name -> (system record, QMGR object), read again only when
        the store's systems may have changed."""
        session = self.session
        systems = session.systems()
        generation = session.store.generation()
        if generation != self._managers_generation:
            found: dict[str, Any] = {}
            with session.store.transaction(write=False) as tx:
                for system in systems:
                    for qmgr in tx.objects(system.name, "QMGR"):
                        found.setdefault(qmgr.name, (system, qmgr))
            self._managers, self._managers_generation = found, generation
        return self._managers

    def manager(self, name: str) -> Any:
        found = self.managers().get(name)
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
    def mqsc(self, qmgr: str, body: bytes, read_only: bool, user: str = "") -> Reply:
        """POST /admin/action/qmgr/{qmgr}/mqsc. `read_only`: the caller may only
        display (MQWebAdminRO); `user`: the REST user, whose session is a connection."""
        system, _ = self.manager(qmgr)
        if user:
            self.connected(system, user)
        self._command_server(system, qmgr)
        document = parse_body(body)
        kind = _field(document, "type", str, required=True)
        if kind not in ("runCommand", "runCommandJSON"):
            raise RestError(400, "MQT0362E", field="type", problem=f"{kind!r} is not runCommand or runCommandJSON")
        session = self.session
        session.current = system.name
        if kind == "runCommand":
            parameters = _field(document, "parameters", dict, required=True)
            line = _field(parameters, "command", str, required=True)
            if not line.strip():
                raise RestError(400, "MQT0362E", field="parameters.command", problem="is empty")
            if not line.isprintable():
                raise RestError(400, "MQT0362E", field="parameters.command", problem="must be one line of text")
            reads_only = self._check_read_only(read_only, line, system)
            outcome = _directive_refused(line) or session.execute(line)
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
            if system.platform == "zos":
                line, where = mqsc_line(document)
            else:
                line, where = ztpf_line(document), None
            reads_only = self._check_read_only(read_only, line, system)
            result = command_json(session, line, where)
            reply = json_reply(200, {"commandResponse": result["commandResponse"], **_overall(result)})
        if reads_only:
            reply.valid_until = self._valid_until()
        return reply

    def _check_read_only(self, read_only: bool, line: str, system: Any) -> bool:
        """Whether the command only reads; RestError 403 when it does not and the
        caller may only read."""
        reads_only = _displays_only(line, self.session.systems())
        if read_only and not reads_only:
            raise RestError(403, "MQWB0103E", action="run", target=f"'{line.strip()[:80]}' on {system.name}")
        return reads_only

    def _valid_until(self) -> float:
        """How long a display stays what it is while the store does not change: to the
        end of the clock's second (displays show times to the second, and MSGAGE and
        the like count from now), or to the next timer falling due if that is sooner."""
        with self.session.store.transaction(write=False) as tx:
            due = tx.conn.execute("SELECT min(due) FROM timers").fetchone()[0]
        now = self.clock.timestamp()
        end = math.floor(now) + 1.0
        return end if due is None else min(end, float(due))

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


def _displays_only(line: str, systems: list[Any]) -> bool:
    """Whether a command line only reads (a DISPLAY, or another verb that writes
    nothing): what MQWebAdminRO may run."""
    from mqtool.session import _match_cpf

    words = line.split()
    if not words:
        return True
    first = words[0].upper()
    if first in ("ZMQSC", "ZHTPS", "ZHTTPS"):
        dialect = "ztpf_mq" if first == "ZMQSC" else "ztpf_http"
        verb = tables.load(dialect).verb(words[1].split("-")[0]) if len(words) > 1 else None
    else:
        rest = _match_cpf(line, systems)[1].split()
        verb = tables.load("zos").verb(rest[0].split("(")[0]) if rest else None
    return verb is not None and not verb.writes
