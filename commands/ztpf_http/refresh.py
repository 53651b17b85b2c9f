"""ZHTPS REFRESH SERVER-name: re-reads NAME.conf; the new options apply to the
connections accepted from now on, while open ones keep theirs (the seed's rule)."""

from __future__ import annotations

from mqtool.engine.http.records import STARTED, ServerStatus, options_to_attrs, service_alive
from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, read_options, response, server_record, state_dir, warn_descriptors
from .start import port_user


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    name, system = req.name, ctx.system.name
    record = server_record(ctx.tx, system, name)
    status = ServerStatus.of(record)
    if record is None or status.state != STARTED:
        return failure("HTTPS0103E", name=name)
    options = read_options(state_dir(ctx.session), system, name)
    if isinstance(options, str):
        return failure("HTTPS0105E", name=name, error=options)
    old_place = (record.attrs.get("IP"), record.attrs.get("PORT"))
    new_place = (options.ip, options.port)
    clash = port_user(ctx.tx, options, (system, name)) if new_place != old_place else None
    if clash is not None:
        return failure("HTTPS0108E", name=name, ip=options.ip, port=options.port, other=clash[1], system=clash[0])
    status.options_generation += 1
    status.refreshed = ctx.now
    record.attrs = options_to_attrs(options)
    record.status = status.to_dict()
    record.altered = ctx.now
    ctx.tx.put_object(record)
    result = response()
    result.add("HTTPS0003I", name=name)
    warn_descriptors(result, name, options)
    if new_place != old_place:
        # A listener is not moved under its open connections (mqtool's choice).
        result.add("HTTPS0007W", name=name, ip=options.ip, port=options.port)
    if not service_alive(ctx.tx):
        result.add("HTTPS0006I", name=name)
    return result
