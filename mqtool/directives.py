"""Directives: lines starting with `.` that drive the session and the engine
(`.system`, `.echo`, `.help`, `.advance`, `.put`, `.get`, `.http`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from mqtool import tables
from mqtool.clock import ClockError, parse_duration
from mqtool.complex import PLATFORM_NAMES
from mqtool.messages import ECHO
from mqtool.parse.command import Directive, LexError
from mqtool.parse.directive import lex
from mqtool.response import FAILED, SYNTAX, Response

if TYPE_CHECKING:
    from mqtool.session import Session
    from mqtool.state import SystemRecord


class DirectiveSpec(NamedTuple):
    target: str  # "module:function", imported when the directive runs
    usage: str
    help: str
    options: tuple[str, ...] = ()
    # "module:function" that reads the directive's arguments, raising ValueError with the
    # reason when they are wrong; the handler calls the same function, so a check
    # (`mqtool run -v`) refuses exactly what the run refuses. "": no arguments to read.
    arguments: str = ""


DIRECTIVES: dict[str, DirectiveSpec] = {
    "system": DirectiveSpec("mqtool.directives:do_system", ".system NAME", "switch the current system"),
    "echo": DirectiveSpec("mqtool.directives:do_echo", ".echo TEXT", "print TEXT (for readable transcripts)"),
    "help": DirectiveSpec("mqtool.directives:do_help", ".help [TOPIC]", "directives and dialects; .help ZMQSC DEFINE"),
    "advance": DirectiveSpec(
        "mqtool.directives:do_advance",
        ".advance DURATION",
        "move the clock forward (5s, 2m, 1h) and run every timer that falls due",
        arguments="mqtool.directives:parse_advance",
    ),
    "put": DirectiveSpec(
        "mqtool.workload:do_put",
        ".put QUEUE|topic=STRING [count=N] [size=N] [pattern=xml] [persistent=yes] [seed=N] [file=PATH] [data='text']",
        "put messages, or publish them on a z/OS topic string (also priority=N msgid= correlid= expiry=30s "
        "every=10ms syncpoint=yes retain=yes dynamic=NAME* put1=yes); prints a summary",
        (
            "count",
            "size",
            "pattern",
            "persistent",
            "seed",
            "file",
            "data",
            "priority",
            "msgid",
            "correlid",
            "expiry",
            "every",
            "syncpoint",
            "topic",
            "retain",
            "dynamic",
            "put1",
        ),
        arguments="mqtool.workload:parse_put",
    ),
    "get": DirectiveSpec(
        "mqtool.workload:do_get",
        ".get QUEUE|topic=STRING [count=N|all] [browse=yes]",
        "get (or browse) messages, or the publications of the session's subscription on a z/OS topic string "
        "(also msgid= correlid= syncpoint=no dynamic=NAME*); prints a one-line summary per message",
        ("count", "browse", "msgid", "correlid", "syncpoint", "dynamic", "topic"),
        arguments="mqtool.workload:parse_get",
    ),
    "open": DirectiveSpec(
        "mqtool.workload:do_open",
        ".open QUEUE [input|output] [dynamic=NAME*]",
        "MQOPEN a queue and keep it open until .close (input: as a trigger monitor holds its initiation queue); "
        "a model queue makes a dynamic queue",
        ("dynamic",),
        arguments="mqtool.workload:parse_open",
    ),
    "close": DirectiveSpec(
        "mqtool.workload:do_close",
        ".close QUEUE",
        "MQCLOSE a queue that .open holds (a temporary dynamic queue is deleted)",
        arguments="mqtool.workload:parse_close",
    ),
    "subscribe": DirectiveSpec(
        "mqtool.subscribing:do_subscribe",
        ".subscribe topic=STRING [name=NAME] [durable=yes] [new=yes] [selector='...']",
        "subscribe to a z/OS topic string as an application does (MQSUB, managed queue); the session holds it "
        "until .unsubscribe or its end",
        ("topic", "name", "durable", "new", "selector"),
        arguments="mqtool.subscribing:parse_subscribe",
    ),
    "unsubscribe": DirectiveSpec(
        "mqtool.subscribing:do_unsubscribe",
        ".unsubscribe topic=STRING|name=NAME [remove=yes]",
        "close a subscription the session holds: a non-durable one ends; a durable one stays unless remove=yes",
        ("topic", "name", "remove"),
        arguments="mqtool.subscribing:parse_unsubscribe",
    ),
    "console": DirectiveSpec(
        "mqtool.workload:do_console",
        ".console [all]",
        "print the unsolicited console messages raised since the last .console (all: every one)",
        arguments="mqtool.workload:parse_console",
    ),
    "http": DirectiveSpec(
        "mqtool.commands.ztpf_http.directive:do_http",
        ".http SERVER PATH [accept-encoding='...'] [http=1.0] [method=GET]",
        "make a real HTTP request to a started server; print status, Content-Encoding and sizes",
        ("accept-encoding", "http", "method"),
    ),
    "httpconf": DirectiveSpec(
        "mqtool.commands.ztpf_http.directive:do_httpconf",
        ".httpconf NAME 'KEYWORD-value' ...",
        "write etc/tpf_httpserver/NAME.conf of the current z/TPF system, one argument per line",
    ),
}

Handler = Callable[["Session", Directive, "SystemRecord | None"], Response]


def run(session: Session, line: str, current: SystemRecord | None, check_only: bool) -> Response | None:
    """Runs (or with `check_only` checks) one directive line; None when a check passed
    and there is nothing to print. The session renders the response."""
    if line.split()[0].lower() == ".echo":
        # .echo prints its text as given: apostrophes and key=value are not syntax there.
        if check_only:
            return None
        return do_echo(session, Directive(text=line, name="echo"), current)
    try:
        directive = lex(line)
    except LexError as error:
        response = Response(status=SYNTAX)
        if error.kind == "quote":
            response.add("MQT0008E", token=error.token)
        elif error.kind == "repeat":
            response.add("MQT0003E", name=line.split()[0][1:], reason=f"option {error.token} given twice")
        else:
            response.add("MQT0002E", name=error.token.lstrip("."))
        return response
    spec = DIRECTIVES.get(directive.name)
    if spec is None:
        response = Response(status=SYNTAX)
        response.add("MQT0002E", name=directive.name)
        return response
    unknown = [key for key in directive.options if key not in spec.options]
    if unknown:
        response = Response(status=SYNTAX)
        allowed = ", ".join(spec.options) or "none"
        response.add("MQT0003E", name=directive.name, reason=f"unknown option {unknown[0]} (options: {allowed})")
        return response
    # A syntax check (`run -v`) reads the arguments as the run does, and still follows
    # .system, which changes only the session, so that the commands after it are checked
    # against the system they would run on.
    if check_only and directive.name != "system":
        if spec.arguments:
            try:
                _load(spec.arguments)(directive)
            except ValueError as error:
                return usage_error(directive, str(error))
        return None
    handler: Handler = _load(spec.target)
    return handler(session, directive, current)


def _load(target: str) -> Callable[..., Any]:
    """The function named by "module:function", its module imported on first use."""
    module_name, function_name = target.split(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module_name), function_name)
    return function


def engine_system(session: Session, directive: Directive, current: SystemRecord | None) -> SystemRecord | Response:
    """The current system, when it has a queue manager the engine runs (z/TPF or z/OS);
    else the refusal of a directive that needs one."""
    from mqtool.engine.platforms import PLATFORMS

    if current is None or current.platform not in PLATFORMS:
        response = Response(status=FAILED)
        response.add("MQT0003E", name=directive.name, reason="needs a current system; .system NAME chooses one")
        return response
    return current


def usage_error(directive: Directive, reason: str) -> Response:
    response = Response(status=SYNTAX)
    response.add("MQT0003E", name=directive.name, reason=reason)
    return response


def do_system(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    if len(directive.args) != 1:
        return usage_error(directive, "usage: " + DIRECTIVES["system"].usage)
    wanted = directive.args[0].upper()
    systems = session.systems()
    for system in systems:
        if system.name.upper() == wanted:
            session.current = system.name
            response = Response()
            response.add("MQT0004I", system=system.name, platform=PLATFORM_NAMES[system.platform])
            return response
    response = Response(status=FAILED)
    response.add("MQT0005E", system=wanted, known=", ".join(s.name for s in systems) or "none")
    return response


def do_echo(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    text = directive.text.strip()[len(".echo") :].strip()
    response = Response()
    response.add(ECHO, text=text)
    return response


ADVANCE_UNITS = "a number with a unit, ms, s, m, h or d, in one word (5s, 2m, 1h, 250ms; a bare number is seconds)"


def parse_advance(directive: Directive) -> float:
    """The seconds of `.advance DURATION` (ClockError saying the units when it is not
    one); for the run and for its check."""
    if len(directive.args) != 1:
        typed = " ".join(directive.args)
        raise ClockError(f"usage: .advance DURATION, {ADVANCE_UNITS}" + (f" (not {typed!r})" if typed else ""))
    text = directive.args[0]
    try:
        return parse_duration(text)
    except ClockError as error:
        if "too long" in str(error):
            raise
        raise ClockError(f"not a duration: {text!r}; give {ADVANCE_UNITS}") from None


def do_advance(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    try:
        seconds = parse_advance(directive)
        session.clock.advance(seconds)
    except ClockError as error:
        return usage_error(directive, str(error))
    runs = session.tick()
    response = Response()
    now = session.clock.now()
    response.add("MQT0006I", seconds=f"{seconds:g}", time=f"{now:%Y-%m-%dT%H:%M:%S}Z", timers=runs)
    return response


def help_lines(topic: list[str]) -> list[str]:
    """The text of `.help` for a topic: nothing, a dialect, a dialect and verb, or + object."""
    words = [word.upper() for word in topic]
    if not words:
        lines = ["Dialects:"]
        lines.append("  ZMQSC VERB OBJ-name KEYWORD-value ...      z/TPF MQ (current z/TPF system)")
        lines.append("  ZMQID VERB CH-name KEYWORD-value ...       z/TPF MQI channel directory (MQI client)")
        lines.append("  ZHTPS VERB SERVER-name ...                 z/TPF HTTP server (also ZHTTPS)")
        lines.append("  [CPF] VERB OBJTYPE(name) KEYWORD(value)    MQSC for IBM MQ for z/OS")
        lines.append("Directives:")
        for entry in DIRECTIVES.values():
            lines.append(f"  {entry.usage:<44} {entry.help}")
        lines.append("END, EXIT or QUIT leaves. .help ZMQSC, .help ZMQSC DEFINE, .help MQSC DEFINE QLOCAL")
        return lines
    dialects = {"ZMQSC": "ztpf_mq", "ZMQID": "ztpf_mqid", "ZHTPS": "ztpf_http", "ZHTTPS": "ztpf_http", "MQSC": "zos"}
    dialect = (dialects | {"ZOS": "zos"}).get(words[0])
    if words[0].startswith(".") or words[0].lower() in DIRECTIVES:
        name = words[0].lstrip(".").lower()
        found = DIRECTIVES.get(name)
        if found is None:
            return [f"No directive .{name}."]
        return [found.usage, "  " + found.help] + ([f"  options: {', '.join(found.options)}"] if found.options else [])
    if dialect is None:
        return [f"No help for {' '.join(words)}: try .help, .help ZMQSC, .help ZMQID, .help ZHTPS or .help MQSC."]
    table = tables.load(dialect)
    prefix = table.command or "MQSC"
    if len(words) == 1:
        lines = [f"{prefix} verbs:"]
        for each in table.verbs.values():
            also = f" ({', '.join(each.abbrev)})" if each.abbrev else ""
            lines.append(f"  {each.name + also:<24} {each.help}")
        return lines
    verb = table.verb(words[1])
    if verb is None:
        return [f"{prefix} has no verb {words[1]}; verbs: {', '.join(table.verbs)}."]
    objects = [table.objects[name] for name in verb.objects]
    if len(words) > 2:
        obj = table.object(words[2])
        if obj is None or obj.name not in verb.objects:
            return [f"{prefix} {verb.name} has no object {words[2]}; objects: {', '.join(verb.objects)}."]
        objects = [obj]
    lines = [f"{prefix} {verb.name}: {verb.help}"]
    for obj in objects:
        also = f" (also {', '.join(obj.aliases)})" if obj.aliases else ""
        lines.append(f"  {obj.name}{also}: {obj.help}")
        for keyword in obj.keywords.values():
            if verb.name in keyword.verbs:
                default = "" if keyword.default is None else f" [{keyword.describe_default()}]"
                lines.append(f"    {keyword.name:<10} {keyword.describe_values()}{default}: {keyword.help}")
    return lines


def do_help(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    response = Response()
    for line in help_lines(directive.args):
        response.add(ECHO, text=line)
    return response
