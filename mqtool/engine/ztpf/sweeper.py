"""The z/TPF MQ sweeper: when a system's SWBs in use reach SWEEPHI percent of SWBPOOL it
moves in-memory messages to file, oldest first from the memory queues holding the most
SWBs, until usage falls to SWEEPLO percent. Each sweep is recorded (table `sweeps`)."""

from __future__ import annotations

import heapq
import sqlite3
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from mqtool.engine.console import console
from mqtool.engine.ztpf.figures import SwbSettings, file_ios, swb_settings, system_swbs
from mqtool.engine.ztpf.stats import count as count_in
from mqtool.state import SystemRecord, Transaction
from mqtool.state import messages as runs


@dataclass
class SweepOutcome:
    before: int
    after: int
    messages: int = 0
    ios: int = 0
    aborted: bool = False
    queues: dict[str, int] = field(default_factory=dict)  # queue -> messages swept
    blocked: list[str] = field(default_factory=list)  # SWEEP-NO queues that held SWBs


def sweep(tx: Transaction, system: SystemRecord, now: float, settings: SwbSettings | None = None) -> SweepOutcome:
    """One sweep, in the caller's transaction; counts an aborted sweep when the
    messages that may be swept are not enough to get down to SWEEPLO."""
    settings = settings or swb_settings(system)
    conn = tx.conn
    before = system_swbs(tx, system.name)
    outcome = SweepOutcome(before, before)
    need = before - settings.low
    definitions = {record.name: record for record in tx.objects(system.name, "QL")}
    holders = conn.execute(
        "SELECT queue, qkey, sweep_mark FROM queue_figures WHERE system = ? AND swbs > 0 ORDER BY swbs DESC, queue",
        (system.name,),
    ).fetchall()
    blocked: list[str] = []
    for queue, qkey, mark in holders:
        if need <= 0:
            break
        record = definitions.get(queue)
        if record is None or record.attrs.get("COMMON", "NO") == "YES":
            continue
        if record.attrs.get("SWEEP", "YES") == "NO":
            blocked.append(queue)
            continue
        # Messages of a channel batch in flight stay in memory (the channel engine lists them).
        inflight = set(record.status.get("inflight", ())) if record.attrs.get("USAGE") == "XMITQ" else set()
        # Up to the mark everything is on file, so the search starts after it, in put
        # order. The mark advances over the run of messages swept before the first one in
        # flight (no row is rewritten); any swept after that one are marked row by row.
        new_mark, run_swbs, passed_inflight = mark, 0, False
        singles: list[tuple[int]] = []
        count = freed = ios = 0
        cursors = _unswept(tx, qkey, mark)
        try:
            for row_id, swbs, stored in heapq.merge(*cursors, key=_put_order):
                if row_id in inflight:
                    passed_inflight = True
                    continue
                if passed_inflight:
                    singles.append((row_id,))
                else:
                    new_mark = runs.seq_of(row_id)
                    run_swbs += swbs
                count += 1
                freed += swbs
                ios += file_ios(stored)
                need -= swbs
                if need <= 0:
                    break
        finally:
            for cursor in cursors:
                cursor.close()
        if inflight and need > 0:
            blocked.append(queue)
        if not count:
            continue
        if new_mark != mark:
            conn.execute(
                "UPDATE messages SET sweep_mark = ?, held_swbs = held_swbs - ? WHERE id = ?",
                (new_mark, run_swbs, runs.head_id(qkey)),
            )
        if singles:
            conn.executemany("UPDATE messages SET swept = 1 WHERE id = ?", singles)
        count_in(
            conn,
            "UPDATE queue_stats SET swept_msgs = swept_msgs + ?, sweep_ios = sweep_ios + ? "
            "WHERE system = ? AND queue = ?",
            (count, ios, system.name, queue),
            system.name,
            queue,
        )
        outcome.messages += count
        outcome.ios += ios
        outcome.after -= freed
        outcome.queues[queue] = count
    outcome.aborted = outcome.after > settings.low
    outcome.blocked = blocked
    if outcome.aborted:
        count_aborted(tx, system.name, blocked, 1)
    conn.execute("INSERT OR IGNORE INTO engine_state (system) VALUES (?)", (system.name,))
    conn.execute(
        "UPDATE engine_state SET sweeps = sweeps + 1, swept_msgs = swept_msgs + ?, sweep_ios = sweep_ios + ?, "
        "sweep_held = ? WHERE system = ?",
        (outcome.messages, outcome.ios, int(outcome.aborted), system.name),
    )
    conn.execute(
        "INSERT INTO sweeps (system, time, swbs_before, swbs_after, messages, ios, aborted) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (system.name, now, before, outcome.after, outcome.messages, outcome.ios, int(outcome.aborted)),
    )
    if outcome.messages:
        console(
            tx,
            system,
            now,
            "MQSC0201I",
            messages=outcome.messages,
            queues=len(outcome.queues),
            swbs=before - outcome.after,
            ios=outcome.ios,
            after=outcome.after,
            pool=settings.pool,
        )
    if outcome.aborted:
        console(
            tx,
            system,
            now,
            "MQSC0202W",
            after=outcome.after,
            pool=settings.pool,
            sweeplo=settings.sweeplo,
            holders=", ".join(f"QL-{name}" for name in blocked) or "NO QUEUE",
        )
    return outcome


def count_aborted(tx: Transaction, system: str, blocked: list[str], sweeps: int) -> None:
    """`sweeps` aborted sweeps counted on the system and on the SWEEP-NO queues that held
    SWBs (the sweeps themselves counted by the caller, or here for sweeps not made)."""
    tx.conn.execute("INSERT OR IGNORE INTO engine_state (system) VALUES (?)", (system,))
    tx.conn.execute("UPDATE engine_state SET aborted_sweeps = aborted_sweeps + ? WHERE system = ?", (sweeps, system))
    for queue in blocked:
        count_in(
            tx.conn,
            "UPDATE queue_stats SET aborted_sweeps = aborted_sweeps + ? WHERE system = ? AND queue = ?",
            (sweeps, system, queue),
            system,
            queue,
        )


def _unswept(tx: Transaction, qkey: int, mark: int) -> list[sqlite3.Cursor]:
    """A queue's messages put after sequence number `mark` and not swept, as (row id,
    SWBs, stored length): one cursor per priority, each in put order. Row ids are in put
    order only within a priority, so the caller merges them by sequence number."""
    sql = "SELECT id, swbs, stored_length FROM messages WHERE id > ? AND id < ? AND swept = 0 ORDER BY id"
    return [tx.conn.execute(sql, band) for band in runs.bands(qkey, mark)]


def _put_order(row: tuple[int, int, int]) -> int:
    return runs.seq_of(row[0])


def sweeps_between(tx: Transaction, system: str, start: float, end: float) -> list[tuple[float, int, int, int]]:
    """The sweeps of a system in [start, end]: (time, messages, ios, aborted)."""
    rows = tx.conn.execute(
        "SELECT time, messages, ios, aborted FROM sweeps WHERE system = ? AND time >= ? AND time <= ? ORDER BY id",
        (system, start, end),
    ).fetchall()
    return [(float(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]


def set_inflight(tx: Transaction, system: str, xmitq: str, row_ids: list[int]) -> None:
    """Marks the messages of a channel batch in flight on a transmission queue, which the
    sweeper never sweeps; an empty list ends the batch. For the channel engine."""
    record = tx.get_object(system, "QL", xmitq)
    if record is None:
        return
    if row_ids:
        record.status["inflight"] = list(row_ids)
    else:
        record.status.pop("inflight", None)
    tx.put_status(record)


@dataclass(frozen=True)
class SweepForecast:
    """What the sweeper does while messages arrive on one memory queue that nothing gets
    from (a transmission queue whose channel is down), from `forecast`."""

    puts: int  # messages put (including refused ones)
    sweeps: int
    first: float | None  # seconds from the first put to the first sweep
    last: float | None  # seconds from the first put to the last sweep
    swept: int  # messages moved to file
    ios: int  # I/Os of the sweeps
    refused: int  # puts refused with 2053 because the SWB pool had too few free SWBs
    in_use: int  # SWBs in use after the last put

    @property
    def interval(self) -> float | None:
        """Mean seconds between sweeps, as MQT0103I reports it; None below two sweeps."""
        if self.sweeps < 2 or self.first is None or self.last is None:
            return None
        return (self.last - self.first) / (self.sweeps - 1)


def forecast(messages: Iterable[tuple[int, int]], every: float, settings: SwbSettings) -> SweepForecast:
    """The sweeps the engine makes when messages given as (SWBs, file I/Os) are put one
    every `every` seconds (message k at k * every) to one memory queue of a system whose
    other queues hold no SWBs, and nothing gets them: the put that brings the SWBs in use
    to SWEEPHI sweeps the oldest messages to file until SWEEPLO is reached, and a put that
    would need more SWBs than the pool has free is refused (2053), as ZtpfLedger.pack and
    `sweep` do. For mqtool estimate (the seed's "every 11 s against every 4 s")."""
    memory: deque[tuple[int, int]] = deque()
    in_use = puts = sweeps = swept = ios = refused = 0
    first: float | None = None
    last: float | None = None
    high, low, pool = settings.high, settings.low, settings.pool
    for swbs, file_cost in messages:
        puts += 1
        if in_use + swbs > pool:
            refused += 1
            continue
        memory.append((swbs, file_cost))
        in_use += swbs
        if in_use < high:
            continue
        when = (puts - 1) * every
        need = in_use - low
        while need > 0 and memory:
            moved, cost = memory.popleft()
            in_use -= moved
            need -= moved
            swept += 1
            ios += cost
        sweeps += 1
        first = when if first is None else first
        last = when
    return SweepForecast(puts, sweeps, first, last, swept, ios, refused, in_use)
