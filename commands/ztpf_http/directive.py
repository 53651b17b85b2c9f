"""The `.http` and `.httpconf` directives: one real HTTP request to a started server
of the current z/TPF system, and writing a server's NAME.conf from a script.

`.http` goes to the loop that listens for the server (`mqtool serve`, a shell)
when one does, and asks it to store its statistics at once; when none does, the
request is served in-process by the same HttpServer on 127.0.0.1 and an
OS-chosen port, and its statistics go into the store before the reply is
printed. Either way `ZHTPS STATS` on the next line shows the request.
"""

from __future__ import annotations

import http.client
import time
from typing import TYPE_CHECKING

from mqtool.complex import PLATFORM_NAMES
from mqtool.engine.http.client import Reply, check_request, decode_body, request, serve_once
from mqtool.engine.http.config import ConfigError, parse_options
from mqtool.engine.http.records import (
    HTTPSERVER,
    STARTED,
    Owner,
    ServerStatus,
    absorb_delta,
    conf_path,
    options_from_attrs,
    shown_path,
)
from mqtool.response import FAILED, Response
from mqtool.tables import check_name, load

from . import DIALECT, DRAIN_POLL_SECONDS, DRAIN_POLLS, read_status, state_dir, store_counts_now

if TYPE_CHECKING:
    from mqtool.parse.command import Directive
    from mqtool.session import Session
    from mqtool.state import SystemRecord

__all__ = ["do_http", "do_httpconf"]

HTTP_USAGE = ".http SERVER PATH [accept-encoding='...'] [http=1.0] [method=GET]"
HTTPCONF_USAGE = ".httpconf NAME 'KEYWORD-value' ..."


def _usage(name: str, reason: str) -> Response:
    from mqtool.directives import usage_error
    from mqtool.parse.command import Directive

    return usage_error(Directive(text="", name=name), reason)


def _ztpf(name: str, current: SystemRecord | None) -> Response | None:
    if current is None:
        response = Response(status=FAILED)
        response.add("MQT0007E", platform="z/TPF")
        return response
    if current.platform != "ztpf":
        response = Response(status=FAILED)
        response.add("MQT0205E", name=name, system=current.name, platform=PLATFORM_NAMES[current.platform])
        return response
    return None


def _server_name(text: str) -> str | None:
    rule = load(DIALECT).objects["SERVER"].name_rule
    assert rule is not None
    return None if check_name(rule, text, generic_ok=False) else text


def do_http(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    if len(directive.args) != 2:
        return _usage("http", "usage: " + HTTP_USAGE)
    wrong = _ztpf("http", current)
    if wrong is not None:
        return wrong
    assert current is not None
    typed, path = directive.args
    method = directive.options.get("method", "GET").upper()
    version = directive.options.get("http", "1.1")
    accept = directive.options.get("accept-encoding")
    reason = check_request(method, path, accept, version)
    if reason is not None:
        return _usage("http", reason)
    if _server_name(typed) is None:
        return _usage("http", f"{typed} is not a server name (1-10 letters and digits)")
    with session.store.transaction(write=False) as tx:
        system = tx.get_system(current.name) or current
        record = tx.get_object(system.name, HTTPSERVER, typed) or tx.get_object(system.name, HTTPSERVER, typed.upper())
    name = record.name if record is not None else typed.upper()
    status = ServerStatus.of(record)
    if record is None or status.state != STARTED:
        response = Response(status=FAILED)
        response.add("MQT0202E", server=name, system=system.name)
        return response

    def exchange(ip: str, port: int) -> Reply:
        return request(ip, port, method, path, accept, version)

    try:
        owner = _listening_owner(session, system.name, name, status)
        if owner is not None and owner.port is not None:
            reply = exchange(owner.ip, owner.port)
            store_counts_now(session, system.name, name)
        else:
            options = options_from_attrs(name, record.attrs)
            reply, stats = serve_once(options, system.has_accelerator, session.clock.perf, exchange)
            with session.store.transaction() as tx:
                absorb_delta(tx, system.name, name, stats, status.reset_generation)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        response = Response(status=FAILED)
        text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        response.add("MQT0203E", server=name, reason=text)
        return response
    response = Response()
    try:
        decoded = b"" if method == "HEAD" else decode_body(reply)
    except ValueError as exc:
        response.status = FAILED
        response.add("MQT0204E", server=name, status=reply.status, reason=str(exc))
        return response
    response.add(
        "MQT0201I",
        server=name,
        method=method,
        path=path,
        version=version,
        status=reply.status,
        reason=reply.reason,
        coding=reply.header("Content-Encoding") or "none",
        length=reply.header("Content-Length") or len(reply.body),
        decoded=len(decoded),
    )
    return response


def _listening_owner(session: Session, system: str, name: str, status: ServerStatus) -> Owner | None:
    """The live loop listening for the server; waits while it is opening the
    listener. None when no loop holds the server (serve in-process then)."""
    for _ in range(DRAIN_POLLS):
        owner = status.live_owner()
        if owner is None or owner.port is not None:
            return owner
        time.sleep(DRAIN_POLL_SECONDS)
        status = read_status(session, system, name)
        if status.state != STARTED:
            return None
    return None


def do_httpconf(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    if len(directive.args) < 2:
        return _usage("httpconf", "usage: " + HTTPCONF_USAGE + " (each argument is one line of the file)")
    wrong = _ztpf("httpconf", current)
    if wrong is not None:
        return wrong
    assert current is not None
    name = directive.args[0].upper()
    if _server_name(name) is None:
        return _usage("httpconf", f"{directive.args[0]} is not a server name (1-10 letters and digits)")
    folder = state_dir(session)
    path = conf_path(folder, current.name, name)
    text = "\n".join(directive.args[1:]) + "\n"
    shown = shown_path(folder, current.name, path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        response = Response(status=FAILED)
        response.add("MQT0207E", file=shown, reason=exc.strerror or type(exc).__name__)
        return response
    try:
        docroot = parse_options(text, path, name).docroot
    except ConfigError:
        docroot = path.parent / "www" / name  # a broken file on purpose: START reports it
    try:
        docroot.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # an absolute DOCROOT elsewhere is the operator's to create
    response = Response()
    count = len(directive.args) - 1
    response.add("MQT0206I", file=shown, system=current.name, lines=f"{count} line{'' if count == 1 else 's'}")
    return response
