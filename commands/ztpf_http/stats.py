"""ZHTPS STATS SERVER-name [RESET]: the statistics display of the seed; RESET shows
the figures and then clears them, recording the reset TOD. The serving loop is
first asked to store what it counted, so nothing completed before is missing."""

from __future__ import annotations

from mqtool.clock import format_tod_value
from mqtool.engine.http.records import ServerStatus, conf_path, shown_path
from mqtool.response import Response
from mqtool.session import Context, Session, display_offset
from mqtool.state import SystemRecord
from mqtool.validate import Request

from . import failure, response, server_record, state_dir, store_counts_now


def _three(value: float) -> str:
    text = f"{value:.3f}"
    return "0.000" if text == "-0.000" else text


def before_transaction(session: Session, system: SystemRecord, req: Request) -> None:
    """Before the display's transaction: the loop serving the server stores the
    counts it holds, so the display shows every response completed before the
    command (a bounded wait; see store_counts_now)."""
    assert req.name is not None
    store_counts_now(session, system.name, req.name)


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    name, system = req.name, ctx.system.name
    record = server_record(ctx.tx, system, name)
    if record is None:
        folder = state_dir(ctx.session)
        path = conf_path(folder, system, name)
        if path.exists():
            return failure("HTTPS0106E", name=name)
        return failure("HTTPS0104E", name=name, file=shown_path(folder, system, path))
    status = ServerStatus.of(record)
    stats = status.statistics()
    owner = status.live_owner()
    # The stored gauge is only as live as the loop that writes it.
    active = stats.active if owner is not None else 0
    result = response(display=True)
    if owner is not None and owner.drained < status.drain_request:
        # before_transaction asked the loop to store its counts and it did not
        result.add("HTTPS0302W", name=name, pid=owner.pid)
    result.add(
        "HTTPS0011I",
        name=name,
        active=active,
        hwmark=stats.hwmark,
        refused=stats.refused,
        reused=stats.reused,
        timed_out=stats.timed_out,
        url_errors=stats.url_errors,
        ratio=_three(stats.avg_ratio),
        time=_three(stats.avg_time_ms),
        size=int(stats.avg_size),
        hardware=stats.hardware_count,
        software=stats.software_count,
        none=stats.none_count,
        reset=format_tod_value(status.reset_tod, display_offset(ctx.system)),
    )
    if req.get("RESET"):
        status.reset_statistics(ctx.clock.tod())
        record.status = status.to_dict()
        ctx.tx.put_status(record)
        result.add("HTTPS0012I", name=name)
    return result
