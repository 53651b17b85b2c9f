"""The connections of live processes to a z/OS queue manager (DISPLAY CONN, DISPLAY
THREAD): a registry of rows keyed by process id and the process's start time.

A process registers itself when it becomes a connection an operator should see (the
shell, `mqtool serve`'s REST sessions), and any process is registered by its first
open queue on a queue manager (an `implicit` connection, shown while the process holds
open handles there: a `mqtool get --wait` in progress, a put under way). A running
channel is a connection of the channel initiator, read from the channel's status, not
registered. Rows of processes that have ended (their pid gone, or reused by a process
that started later) are left out when read and removed by the next registration.
"""

from __future__ import annotations

import getpass
import os
import weakref
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqtool import application, processes

if TYPE_CHECKING:
    from mqtool.state import ObjectRecord, Store, Transaction

BATCH = "BATCH"  # a program of the CLI or the shell
REST = "RRSBATCH"  # mqtool serve's REST API (IBM's mqweb connects through RRS)
CHINIT = "CHINIT"  # a running channel
_CONN_PREFIX = "D4D8E3D3"  # "MQTL" in EBCDIC: connections of the registry
_CHANNEL_PREFIX = "C3C8C9D5"  # "CHIN" in EBCDIC: connections of running channels
# The systems of each open store where this process has registered its implicit row.
_REGISTERED: weakref.WeakKeyDictionary[Store, set[str]] = weakref.WeakKeyDictionary()


@dataclass
class Handle:
    """One open queue of a connection."""

    queue: str
    input: bool
    output: bool
    opened: float


@dataclass
class Connection:
    """One connection as DISPLAY CONN shows it."""

    conn: str  # 16 hex digits
    appltype: str
    appltag: str
    userid: str
    pid: int
    started: float
    channel: str = ""
    conname: str = ""
    token: int = 0  # DISPLAY THREAD's TOKEN
    handles: list[Handle] = field(default_factory=list)

    @property
    def asid(self) -> str:
        """The address space id, 4 hex digits: here the low 16 bits of the process id."""
        return f"{self.pid & 0xFFFF:04X}"


def extconn(qmgr: str) -> str:
    """EXTCONN: "CSQC" and the queue manager's name, blank padded to 16 bytes, in EBCDIC
    as 32 hex digits (the form of IBM's examples)."""
    return ("CSQC" + qmgr[:12].ljust(12)).encode("cp500").hex().upper()


def _clean(tx: Transaction, system: str) -> None:
    """Removes the rows of processes that have ended."""
    dead = [
        (int(row_id),)
        for row_id, pid, pstart in tx.conn.execute(
            "SELECT id, pid, pstart FROM connections WHERE system = ?", (system,)
        ).fetchall()
        if not processes.alive(int(pid), str(pstart))
    ]
    if dead:
        tx.conn.executemany("DELETE FROM connections WHERE id = ?", dead)


def connect(
    tx: Transaction, system: str, now: float, appltype: str = BATCH, appltag: str | None = None, userid: str = ""
) -> int:
    """Registers this process as a connection to `system`'s queue manager; its id."""
    _clean(tx, system)
    pid = os.getpid()
    cursor = tx.conn.execute(
        "INSERT INTO connections (system, pid, pstart, implicit, appltype, appltag, userid, started) "
        "VALUES (?, ?, ?, 0, ?, ?, ?, ?)",
        (system, pid, processes.start(pid), appltype, (appltag or application.NAME[0])[:28], userid or _user(), now),
    )
    return int(cursor.lastrowid or 0)


def disconnect(tx: Transaction, conn_id: int) -> None:
    tx.conn.execute("DELETE FROM connections WHERE id = ?", (conn_id,))


def opened(tx: Transaction, system: str, now: float) -> None:
    """A queue opened by this process: it is a connection (once per process and store)."""
    pid = os.getpid()
    known = _REGISTERED.setdefault(tx.store, set())
    if system in known:
        return
    known.add(system)
    found = tx.conn.execute(
        "SELECT 1 FROM connections WHERE system = ? AND pid = ? AND implicit = 1", (system, pid)
    ).fetchone()
    if found is None:
        _clean(tx, system)
        tx.conn.execute(
            "INSERT INTO connections (system, pid, pstart, implicit, appltype, appltag, userid, started) "
            "VALUES (?, ?, ?, 1, ?, ?, ?, ?)",
            (system, pid, processes.start(pid), BATCH, application.NAME[0][:28], _user(), now),
        )


def _user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return ""


def live(tx: Transaction, system: str, qmgr: str) -> list[Connection]:
    """The connections to a queue manager now: registered ones of live processes (an
    implicit one while its process holds open handles there), then running channels;
    each with the handles its process holds."""
    handles: dict[int, list[Handle]] = {}
    for queue, pid, is_input, is_output, when in tx.conn.execute(
        "SELECT queue, pid, input, output, opened FROM open_handles WHERE system = ? ORDER BY handle", (system,)
    ):
        handles.setdefault(int(pid), []).append(Handle(str(queue), bool(is_input), bool(is_output), float(when)))
    found: list[Connection] = []
    shown: set[int] = set()  # pids whose handles a connection shows already
    for row_id, pid, pstart, implicit, appltype, appltag, userid, started in tx.conn.execute(
        "SELECT id, pid, pstart, implicit, appltype, appltag, userid, started FROM connections "
        "WHERE system = ? ORDER BY id",
        (system,),
    ).fetchall():
        pid = int(pid)
        if not processes.alive(pid, str(pstart)) or (implicit and not handles.get(pid)):
            continue
        connection = Connection(
            f"{_CONN_PREFIX}{int(row_id) & 0xFFFFFFFF:08X}", str(appltype), str(appltag), str(userid), pid,
            float(started), token=int(row_id),
        )  # fmt: skip
        if pid not in shown:
            connection.handles = handles.get(pid, [])
            shown.add(pid)
        found.append(connection)
    for channel in _running_channels(tx, system):
        found.append(channel)
    return found


def _running_channels(tx: Transaction, system: str) -> list[Connection]:
    from mqtool.engine.channels.status import ChannelStatus

    records: list[ObjectRecord] = tx.objects(system, "CHANNEL")
    out = []
    for record in records:
        status = record.status
        if str(status.get("state") or "") != "RUNNING":
            continue
        started = ChannelStatus.load(status).started
        crc = zlib.crc32(f"{system}\0{record.name}".encode())
        out.append(
            Connection(
                f"{_CHANNEL_PREFIX}{crc:08X}", CHINIT, f"{system}CHIN"[:28], "", 0,
                started or record.altered, channel=record.name,
                conname=str(status.get("conname") or record.attrs.get("CONNAME", "") or ""),
                token=crc & 0xFFFF,
            )
        )  # fmt: skip
    return out


def connect_everywhere(store: Store, now: float, appltag: str) -> list[int]:
    """Registers this process with every z/OS queue manager of the complex (the shell
    can talk to all of them); the ids, for `disconnect_everywhere`."""
    with store.transaction() as tx:
        return [connect(tx, system.name, now, BATCH, appltag) for system in tx.systems() if system.platform == "zos"]


def disconnect_everywhere(store: Store, ids: list[int]) -> None:
    from mqtool.state import StoreError

    try:
        with store.transaction() as tx:
            for conn_id in ids:
                disconnect(tx, conn_id)
    except StoreError:
        pass  # left out when read once this process has ended
