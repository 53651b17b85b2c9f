"""ZHTPS DISPLAY SERVER-name|ALL: state, listener, file, the options in force (the
file's current options for a stopped server) and the times of start and refresh."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqtool.engine.http.config import ServerOptions
from mqtool.engine.http.records import (
    HTTPSERVER,
    STARTED,
    STOPPED,
    ServerStatus,
    conf_path,
    config_names,
    options_from_attrs,
    shown_path,
)
from mqtool.response import Response
from mqtool.session import Context, display_offset
from mqtool.state import ObjectRecord
from mqtool.tables import NAME_CHARS
from mqtool.validate import Request

from . import failure, local_time, read_options, response, state_dir


def handle(ctx: Context, req: Request) -> Response:
    assert req.object is not None
    system = ctx.system.name
    folder = state_dir(ctx.session)
    if req.object.name == "ALL":
        if req.name:
            return failure("HTTPS0208E", "syntax", token=f"ALL-{req.name}")
        pattern = "*"
    else:
        assert req.name is not None
        pattern = req.name
    records = {record.name: record for record in ctx.tx.objects(system, HTTPSERVER)}
    known = set(records) | {name for name in config_names(folder, system) if NAME_CHARS["server"].match(name)}
    if pattern.endswith("*"):
        names = sorted(name for name in known if name.startswith(pattern[:-1]))
    elif pattern in known:
        names = [pattern]
    else:
        return failure("HTTPS0104E", name=pattern, file=shown_path(folder, system, conf_path(folder, system, pattern)))
    result = response(display=True)
    if not names:
        result.add("HTTPS0005I", name=pattern, system=system)
        return result
    title = result.add("HTTPS0004I")
    for name in names:
        title.attrs.extend(server_lines(ctx, folder, name, records.get(name)))
    return result


def server_lines(ctx: Context, folder: Path, name: str, record: ObjectRecord | None) -> list[tuple[str, Any]]:
    system = ctx.system
    offset = display_offset(system)
    status = ServerStatus.of(record)
    path = conf_path(folder, system.name, name)
    started = status.state == STARTED
    lines: list[tuple[str, Any]] = [("SERVER", name), ("STATE", STARTED if started else STOPPED)]
    owner = status.live_owner() if record is not None else None
    if owner is not None and owner.port is not None:
        lines.append(("LISTENING", "YES"))
        lines.append(("LISTENER", f"{owner.ip} PORT {owner.port} PID {owner.pid}"))
    else:
        lines.append(("LISTENING", "NO"))
    if started and status.listen_error:
        lines.append(("LISTEN ERROR", status.listen_error))
    options: ServerOptions | str
    if started and record is not None:
        options = options_from_attrs(name, record.attrs)
        lines.append(("FILE", shown_path(folder, system.name, options.path)))
    else:
        # Nothing is in force while stopped: show what START would read now.
        lines.append(("FILE", shown_path(folder, system.name, path)))
        options = read_options(folder, system.name, name) if path.exists() else "the file does not exist"
    if isinstance(options, str):
        lines.append(("ERROR", options))
    else:
        lines += [
            ("PORT", options.port),
            ("IP", options.ip),
            ("DOCROOT", shown_path(folder, system.name, options.docroot)),
            ("MAXCONN", options.maxconn),
            ("TIMEOUT", f"{options.timeout:g}"),
            ("COMP", ",".join(options.comp) or "NONE"),
            ("COMPSIZEHW", options.compsizehw),
            ("COMPSIZESW", options.compsizesw),
        ]
    lines.append(("ACCELERATOR", f"{'YES' if system.has_accelerator else 'NO'} ({system.cpu.upper()})"))
    lines.append(("STARTED", local_time(status.started, offset)))
    if not started and status.stopped is not None:
        lines.append(("STOPPED", local_time(status.stopped, offset)))
    lines.append(("LAST REFRESH", local_time(status.refreshed, offset)))
    return lines
