"""What the channel initiator of a queue manager reports (DISPLAY CHINIT on z/OS,
ZMQSC DISPLAY LISTENER on z/TPF): its channels by state, its limits, its listeners and
its storage.

Storage is a model, from seed 002 (IBM MQ for z/OS 9.4 performance report): the
channel initiator starts with 56 MB of 31-bit storage used of 1501 MB (its CSQX004I
example), and each running message channel holds a footprint that depends on the size
of its messages: 90 KB for 1 KB messages, 100 KB for 32 KB, 109 KB for 64 KB, 1127 KB
for 4 MB (its table), in between by straight lines. Above the bar, 1 MB used of a
MEMLIMIT of 1 GB, as in the seed's example (MCA channels keep their buffers below).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqtool.engine.channels.listeners import LISTENING, RETRYING, configured, statuses
from mqtool.engine.channels.partner import platform_of, queue_manager
from mqtool.engine.channels.status import BINDING, INACTIVE, RUNNING, STOPPED, ChannelStatus
from mqtool.state import SystemRecord, Transaction

LOCAL_TOTAL_MB = 1501
LOCAL_BASE_MB = 56
ABOVE_TOTAL_MB = 1024
ABOVE_BASE_MB = 1
# (message size, footprint) in KB, seed 002's table of MCA channels.
FOOTPRINTS = ((1, 90), (32, 100), (64, 109), (4096, 1127))
# The z/OS queue manager attributes that size the channel initiator, IBM's defaults.
LIMITS = {"MAXCHL": 200, "ACTCHL": 200, "TCPCHL": 200, "LU62CHL": 200, "CHIADAPS": 8, "CHIDISPS": 5, "SSLTASKS": 0}
TCPNAME = "TCPIP"
STORAGE_CSECT = "CSQXSPRM"  # the module of CSQX004I, as seed 002 quotes it


def footprint_kb(largest: int) -> int:
    """The 31-bit storage a running channel holds, by the longest message it moved."""
    size = max(1.0, largest / 1024)
    previous = FOOTPRINTS[0]
    if size <= previous[0]:
        return previous[1]
    for point in FOOTPRINTS[1:]:
        if size <= point[0]:
            share = (size - previous[0]) / (point[0] - previous[0])
            return round(previous[1] + share * (point[1] - previous[1]))
        previous = point
    return FOOTPRINTS[-1][1]


@dataclass
class ListenerLine:
    address: str  # the configured host
    port: int  # the port listened on (a PORT(0) listener: the one its loop got, else 0)
    state: str  # LISTENING, RETRYING, or "" (started, but no loop holds its socket)
    error: str = ""
    counts: dict[str, int] = field(default_factory=dict)  # connections, channels, refused, blocked, dropped


@dataclass
class Report:
    current: int = 0
    active: int = 0
    starting: int = 0
    stopped: int = 0
    retrying: int = 0
    used_mb: int = LOCAL_BASE_MB
    free_mb: int = LOCAL_TOTAL_MB - LOCAL_BASE_MB
    above_used_mb: int = ABOVE_BASE_MB
    above_free_mb: int = ABOVE_TOTAL_MB - ABOVE_BASE_MB
    limits: dict[str, int] = field(default_factory=lambda: dict(LIMITS))
    listeners: list[ListenerLine] = field(default_factory=list)


def report(tx: Transaction, system: SystemRecord) -> Report:
    result = Report()
    manager = queue_manager(tx, system)
    if manager is not None:
        for key in result.limits:
            try:
                result.limits[key] = int(manager.attrs.get(key, result.limits[key]))
            except (TypeError, ValueError):
                pass
    held_kb = 0
    for record in tx.objects(system.name, platform_of(system).channel_type):
        if record.attrs.get("CHLTYPE") == "SVRCONN":
            continue
        status = ChannelStatus.load(record.status)
        state = status.state
        if state in ("", INACTIVE):
            continue
        result.current += 1
        if state == RUNNING:
            result.active += 1
            held_kb += footprint_kb(max(status.total.largest, status.batch.largest))
        elif state == BINDING:
            result.starting += 1
        elif state == STOPPED:
            result.stopped += 1
        else:
            result.retrying += 1
    used = LOCAL_BASE_MB + round(held_kb / 1024)
    result.used_mb = used
    result.free_mb = max(0, LOCAL_TOTAL_MB - used)
    found = statuses(tx, system.name)
    from mqtool.engine.http.records import Owner, owner_alive

    for address in configured(system):
        held = found.get(str(address))
        live = held is not None and owner_alive(Owner.from_dict(held.owner))
        state = held.state if held is not None and live else ""
        port = address.port or (held.port if held is not None and state == LISTENING else 0)
        error = held.error if held is not None and state == RETRYING else ""
        counts = {}
        if held is not None:
            counts = {"connections": held.connections, "channels": held.channels, "refused": held.refused,
                      "blocked": held.blocked, "dropped": held.dropped}  # fmt: skip
        result.listeners.append(ListenerLine(address.host, port, state, error, counts))
    return result
