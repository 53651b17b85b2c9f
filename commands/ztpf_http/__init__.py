"""z/TPF HTTP server (ZHTPS, also spelled ZHTTPS): lexing, error messages in the
HTTPS style, and what the verb modules share (files, records, times, framing)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mqtool.commands.ztpf_mq import failure, response  # the one z/TPF console framing
from mqtool.complex import PLATFORM_NAMES
from mqtool.engine.http.config import ConfigError, ServerOptions, connection_bound, descriptor_limit, load_options
from mqtool.engine.http.records import HTTPSERVER, ServerStatus, conf_folder, conf_path, shown_path
from mqtool.parse import ztpf
from mqtool.parse.command import Command, LexError
from mqtool.response import FAILED, SYNTAX, Response
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.tables import Table, ValidationError, load

DIALECT = "ztpf_http"
COMMAND = "ZHTPS"  # what responses print, whichever spelling was typed
#: How long `.http` and STATS wait for a serving loop (opening a listener, storing
#: its counts): DRAIN_POLLS polls of DRAIN_POLL_SECONDS, 10 s, longer than the
#: slowest `mqtool serve --interval` (5 s). No clock is read, so frozen clocks work.
DRAIN_POLLS = 400
DRAIN_POLL_SECONDS = 0.025

__all__ = [
    "COMMAND",
    "DIALECT",
    "DRAIN_POLLS",
    "DRAIN_POLL_SECONDS",
    "bootstrap",
    "config_error",
    "failure",
    "lex",
    "lex_error",
    "local_time",
    "read_options",
    "read_status",
    "response",
    "state_dir",
    "store_counts_now",
    "validation_error",
    "warn_descriptors",
    "wrong_system",
]


def lex(text: str) -> Command:
    return ztpf.lex(text, DIALECT)


def lex_error(error: LexError, text: str) -> Response:
    if error.kind == "quote":
        return failure("HTTPS0207E", SYNTAX, token=error.token)
    if error.kind == "empty":
        return failure("HTTPS0201E", SYNTAX, verb="(NONE)", allowed=", ".join(load(DIALECT).verbs))
    return failure("HTTPS0208E", SYNTAX, token=error.token)


def _object_forms(table: Table, verb: str) -> str:
    spec = table.verb(verb)
    forms = ["SERVER-name", "S-name"]
    if spec is not None and "ALL" in spec.objects:
        return ", ".join(forms) + " OR ALL"
    return " OR ".join(forms)


def _keywords_for(table: Table, verb: str) -> str:
    names = [k.name for k in table.objects["SERVER"].keywords.values() if verb in k.verbs]
    return ", ".join(names) if names else "NONE"


def validation_error(error: ValidationError, command: Command, table: Table) -> Response:
    verb_spec = table.verb(command.verb)
    verb = verb_spec.name if verb_spec else command.verb
    if error.kind == "unknown_verb":
        return failure("HTTPS0201E", SYNTAX, verb=error.keyword, allowed=error.allowed)
    if error.kind == "unknown_object":
        if not error.keyword:
            return failure("HTTPS0205E", SYNTAX, command=COMMAND, verb=verb, forms=_object_forms(table, verb))
        return failure("HTTPS0202E", SYNTAX, object=error.keyword, verb=verb, forms=_object_forms(table, verb))
    if error.kind == "missing_name":
        return failure("HTTPS0205E", SYNTAX, command=COMMAND, verb=verb, forms=_object_forms(table, verb))
    if error.kind == "bad_name":
        return failure("HTTPS0206E", SYNTAX, name=error.value, reason=error.detail.upper())
    if error.kind == "duplicate":
        return failure("HTTPS0204E", SYNTAX, keyword=error.keyword)
    if error.kind == "bad_value":
        return failure("HTTPS0209E", SYNTAX, keyword=error.keyword)
    return failure("HTTPS0203E", SYNTAX, keyword=error.keyword, verb=verb, allowed=_keywords_for(table, verb))


def wrong_system(target: SystemRecord | None, systems: list[SystemRecord], text: str) -> Response:
    result = Response(status=FAILED)
    if target is None:
        result.add("MQT0007E", platform="z/TPF")
    else:
        # The current system is z/OS: answer in the plain tool framing, naming a way out.
        result.add("HTTPS0210E", system=target.name, platform=PLATFORM_NAMES[target.platform].upper())
    return result


def bootstrap(tx: Transaction, system: SystemRecord, now: float) -> None:
    """A new z/TPF system gets its empty etc/tpf_httpserver folder, where
    `mqtool http init` and operators put NAME.conf files."""
    try:
        conf_folder(tx.store.path.parent, system.name).mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # a read-only state directory still holds a usable store


# -- shared by the verb modules ----------------------------------------------------


def state_dir(session: Any) -> Path:
    """The state directory of the session's store (systems/<name>/etc/... lives there)."""
    return Path(session.store.path).parent


def config_error(folder: Path, system: str, error: ConfigError) -> str:
    """A ConfigError's text with the file named as the z/TPF system sees it."""
    text = error.message
    if error.path is not None:
        real = str(error.path)
        if text.startswith(real):
            text = shown_path(folder, system, error.path) + text[len(real) :]
    return text


def read_options(folder: Path, system: str, name: str) -> ServerOptions | str:
    """NAME.conf of the system, validated; the error text when it cannot be used."""
    try:
        return load_options(conf_path(folder, system, name), name)
    except ConfigError as exc:
        return config_error(folder, system, exc)


def warn_descriptors(result: Response, name: str, options: ServerOptions) -> None:
    """HTTPS0300W when this process's file descriptor limit allows fewer
    connections than MAXCONN (a serving loop checks its own limit again)."""
    limit = descriptor_limit()
    effective = connection_bound(options.maxconn, limit)
    if effective < options.maxconn:
        result.add("HTTPS0300W", name=name, maxconn=options.maxconn, limit=limit, effective=effective)


def read_status(session: Any, system: str, name: str) -> ServerStatus:
    """The server's run state as the store has it now (a transaction of its own)."""
    with session.store.transaction(write=False) as tx:
        return ServerStatus.of(tx.get_object(system, HTTPSERVER, name))


def store_counts_now(session: Any, system: str, name: str) -> bool:
    """Has the loop that listens for the server store the counts it holds in
    memory, and waits until it has (what `.http` and ZHTPS STATS need to show
    every response completed before them). Runs outside any transaction: the
    loop needs the store's write lock to answer. Returns False when a live loop
    did not answer within DRAIN_POLLS polls; True when it did, or when no loop
    holds the server (the store then has every count)."""
    if read_status(session, system, name).live_owner() is None:
        return True  # without taking the write lock
    with session.store.transaction() as tx:
        record = tx.get_object(system, HTTPSERVER, name)
        status = ServerStatus.of(record)
        if record is None or status.live_owner() is None:
            return True
        status.drain_request += 1
        wanted = status.drain_request
        record.status = status.to_dict()
        tx.put_status(record)
    for _ in range(DRAIN_POLLS):
        owner = read_status(session, system, name).live_owner()
        if owner is None or owner.drained >= wanted:
            return True
        time.sleep(DRAIN_POLL_SECONDS)
    return False


def server_record(tx: Transaction, system: str, name: str) -> ObjectRecord | None:
    return tx.get_object(system, HTTPSERVER, name)


def local_time(timestamp: float | None, offset: Any) -> str:
    """`2021-03-09 10:41:22` at the system's display offset; NONE when never."""
    if timestamp is None:
        return "NONE"
    moment = datetime.fromtimestamp(timestamp, UTC) + offset
    return f"{moment:%Y-%m-%d %H:%M:%S}"
