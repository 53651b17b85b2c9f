"""ZHTPS START SERVER-name: reads and checks NAME.conf, records the options in force,
marks the server started and its statistics reset; a running loop then listens."""

from __future__ import annotations

from mqtool.engine.http.config import ServerOptions
from mqtool.engine.http.records import HTTPSERVER, STARTED, ServerStatus, conf_path, options_to_attrs, service_alive
from mqtool.engine.http.records import shown_path as shown
from mqtool.engine.http.stats import HttpStats
from mqtool.response import Response
from mqtool.session import Context
from mqtool.state import ObjectRecord, Transaction
from mqtool.validate import Request

from . import failure, read_options, response, server_record, state_dir, warn_descriptors

_WILDCARDS = ("0.0.0.0", "::")


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    name, system, tx = req.name, ctx.system.name, ctx.tx
    folder = state_dir(ctx.session)
    record = server_record(tx, system, name)
    status = ServerStatus.of(record)
    if status.state == STARTED:
        return failure("HTTPS0102E", name=name)
    path = conf_path(folder, system, name)
    if not path.exists():
        return failure("HTTPS0104E", name=name, file=shown(folder, system, path))
    options = read_options(folder, system, name)
    if isinstance(options, str):
        return failure("HTTPS0101E", name=name, error=options)
    clash = port_user(tx, options, (system, name))
    if clash is not None:
        other_system, other = clash
        return failure("HTTPS0107E", name=name, ip=options.ip, port=options.port, other=other, system=other_system)
    now = ctx.now
    status.state = STARTED
    status.start_generation += 1
    status.options_generation += 1
    status.started = now
    status.refreshed = now
    status.listen_error = ""
    stats = HttpStats()
    stats.active = status.statistics().active  # an old listener may still be closing
    status.stats = stats.to_dict()
    status.reset_generation += 1
    status.reset_tod = ctx.clock.tod()
    created = record.created if record is not None else now
    tx.put_object(ObjectRecord(system, HTTPSERVER, name, options_to_attrs(options), status.to_dict(), created, now))
    result = response()
    result.add("HTTPS0001I", name=name, port=options.port)
    warn_descriptors(result, name, options)
    if not service_alive(tx):
        result.add("HTTPS0006I", name=name)
    return result


def port_user(tx: Transaction, options: ServerOptions, me: tuple[str, str]) -> tuple[str, str] | None:
    """The started server (system, name) of any system that uses the same IP and
    PORT, which would keep this one from listening; PORT-0 never clashes."""
    if options.port == 0:
        return None
    for system in tx.systems():
        if system.platform != "ztpf":
            continue
        for record in tx.objects(system.name, HTTPSERVER):
            if (record.system, record.name) == me or ServerStatus.of(record).state != STARTED:
                continue
            if int(record.attrs.get("PORT", 0)) != options.port:
                continue
            ip = str(record.attrs.get("IP", ""))
            if ip == options.ip or ip in _WILDCARDS or options.ip in _WILDCARDS:
                return (record.system, record.name)
    return None
