"""The z/TPF MQ timers: the 5-second MQ monitor (closes the statistics interval, rates,
QDEPTHHI warnings, the sweeper check) and the 5-second checkpoint of persistent
memory-queue messages. Both catch up over an idle gap in O(1): once an interval with
no activity has been closed, every later one up to now is empty too, so they jump."""

from __future__ import annotations

from mqtool.engine.console import console
from mqtool.engine.timers import TickContext, next_mark, timer
from mqtool.engine.ztpf.figures import (
    CHECKPOINT_TIMER,
    INTERVAL,
    MONITOR_TIMER,
    checkpoint_ios,
    qdepthhi_threshold,
    swb_settings,
    system_swbs,
)
from mqtool.engine.ztpf.stats import count as count_in
from mqtool.engine.ztpf.sweeper import SweepOutcome, count_aborted, sweep
from mqtool.engine.ztpf.warnings import warn_qdepthhi
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.state import messages as runs

# The counters of a statistics interval; the monitor copies i_X to l_X and zeroes i_X.
INTERVAL_COUNTERS = ("puts", "stored", "comp", "comp_orig", "comp_stored", "comp_us", "decomp", "gets", "swept_search")
_ACTIVITY = " OR ".join(f"i_{name} != 0" for name in INTERVAL_COUNTERS)
_LAST = " OR ".join(f"l_{name} != 0" for name in INTERVAL_COUNTERS)
_CLOSE = (
    "UPDATE queue_stats SET "
    + ", ".join(f"l_{name} = i_{name}, i_{name} = 0" for name in INTERVAL_COUNTERS)
    + f", get_rate_high = max(get_rate_high, i_gets / {int(INTERVAL)})"
    + f", swept_rate_high = max(swept_rate_high, i_swept_search / {int(INTERVAL)})"
    + " WHERE system = ?"
)


def next_due(due: float, now: float, idle: bool) -> float:
    """The next run: 5 s on; or, when nothing can have changed, the first 5-second mark
    after `now` (the runs in between would find the same nothing)."""
    return next_mark(due, INTERVAL, now if idle else due)


def qmgr_of(tx: Transaction, system: str) -> ObjectRecord | None:
    found = tx.objects(system, "QMGR")
    return found[0] if found else None


@timer(MONITOR_TIMER, observer=True)
def run_monitor(context: TickContext, tx: Transaction, system: SystemRecord, due: float) -> float | None:
    if system.platform != "ztpf":
        return None
    manager = qmgr_of(tx, system.name)
    if manager is None:
        return None  # DEFINE QMGR schedules it again
    conn = tx.conn
    active = conn.execute(f"SELECT count(*) FROM queue_stats WHERE system = ? AND ({_ACTIVITY})", (system.name,))
    activity = active.fetchone()[0] > 0
    shown = conn.execute(f"SELECT count(*) FROM queue_stats WHERE system = ? AND ({_LAST})", (system.name,))
    if activity or shown.fetchone()[0] > 0:
        conn.execute(_CLOSE, (system.name,))
    changed = activity
    if manager.status.get("state", "STARTED") == "STARTED":
        changed = _qdepthhi(tx, system, due) or changed
        swept = _sweeper_check(tx, system, due)
        if isinstance(swept, SweepOutcome) and swept.aborted and not swept.messages and not changed:
            # A sweep that could move nothing: every check until something else acts
            # would abort the same way. They are counted, not made (nor said again).
            following = next_due(due, min(context.now, context.quiet_until(tx, system.name, MONITOR_TIMER)), True)
            skipped = round((following - due) / INTERVAL) - 1
            if skipped > 0:
                count_aborted(tx, system.name, swept.blocked, skipped)
                tx.conn.execute("UPDATE engine_state SET sweeps = sweeps + ? WHERE system = ?", (skipped, system.name))
            return following
        changed = bool(swept) or changed
    return next_due(due, max(due, context.now), idle=not changed)


def _qdepthhi(tx: Transaction, system: SystemRecord, when: float) -> bool:
    """Warns of queues at or above QDEPTHHI that have not been warned of; re-arms the
    warning of queues that fell below. Returns whether anything was said."""
    said = False
    rows = tx.conn.execute(
        "SELECT queue, depth, hi_warned FROM queue_figures WHERE system = ?", (system.name,)
    ).fetchall()
    definitions: dict[str, tuple[int, int]] | None = None
    for queue, depth, warned in rows:
        if not depth and not warned:
            continue
        if definitions is None:
            definitions = {
                record.name: (int(record.attrs.get("MAXDEPTH", 0)), int(record.attrs.get("QDEPTHHI", 0)))
                for record in tx.objects(system.name, "QL")
                if record.attrs.get("COMMON", "NO") != "YES"
            }
        maxdepth, percent = definitions.get(queue, (0, 0))
        threshold = qdepthhi_threshold(maxdepth, percent)
        if threshold and depth >= threshold and not warned:
            warn_qdepthhi(tx, system, queue, depth, maxdepth, percent, when)
            said = True
        elif warned and (not threshold or depth < threshold):
            tx.conn.execute(
                "UPDATE messages SET hi_warned = 0 WHERE id = (SELECT qkey << 44 FROM queue_marks "
                "WHERE system = ? AND queue = ?)",
                (system.name, queue),
            )
            if threshold:
                console(tx, system, when, "MQSC0205I", queue=queue, depth=depth, percent=percent, maxdepth=maxdepth)
            said = True
    return said


def _sweeper_check(tx: Transaction, system: SystemRecord, when: float) -> SweepOutcome | bool:
    """Runs the sweeper when SWBs in use are at SWEEPHI (also after a sweep that could not
    reach SWEEPLO, which holds put-time sweeps until this retry): its outcome; else
    whether anything changed."""
    settings = swb_settings(system)
    in_use = system_swbs(tx, system.name)
    row = tx.conn.execute("SELECT sweep_held, swb_short FROM engine_state WHERE system = ?", (system.name,)).fetchone()
    held, short = (row[0], row[1]) if row is not None else (0, 0)
    if in_use >= settings.high and in_use > 0:
        return sweep(tx, system, when, settings)
    if held or (short and in_use < settings.high):
        tx.conn.execute("UPDATE engine_state SET sweep_held = 0, swb_short = 0 WHERE system = ?", (system.name,))
        return True
    return False


@timer(CHECKPOINT_TIMER, observer=True)
def run_checkpoint(context: TickContext, tx: Transaction, system: SystemRecord, due: float) -> float | None:
    """Writes the persistent messages of memory queues put since the last checkpoint:
    ceil(stored bytes / 4096) I/Os per queue; its measured duration feeds Checkpoint
    High/Last of the queues written (zero with a frozen clock)."""
    if system.platform != "ztpf":
        return None
    manager = qmgr_of(tx, system.name)
    if manager is None:
        return None
    conn = tx.conn
    conn.execute("INSERT OR IGNORE INTO engine_state (system) VALUES (?)", (system.name,))
    # Queues with messages put since the last checkpoint (sequence numbers past its mark).
    behind = conn.execute(
        "SELECT queue, qkey, max(ckpt_mark, sweep_mark), next_seq - 1 FROM queue_figures "
        "WHERE system = ? AND next_seq - 1 > ckpt_mark",
        (system.name,),
    ).fetchall()
    if behind:
        clock = context.clock
        started = clock.perf()
        memory = {record.name for record in tx.objects(system.name, "QL") if record.attrs.get("COMMON", "NO") != "YES"}
        ios: dict[str, int] = {}
        for queue, qkey, mark, _top in behind:
            if queue not in memory:
                continue
            size = sum(
                conn.execute(
                    "SELECT coalesce(sum(stored_length), 0) FROM messages "
                    "WHERE id > ? AND id < ? AND persistent != 0 AND swept = 0",
                    band,
                ).fetchone()[0]
                for band in runs.bands(qkey, mark)
            )
            if size:
                ios[queue] = checkpoint_ios(int(size))
        duration = max(0.0, clock.perf() - started)
        conn.executemany(
            "UPDATE messages SET ckpt_mark = ? WHERE id = ?", [(top, runs.head_id(qkey)) for _, qkey, _, top in behind]
        )
        for queue, count in ios.items():
            count_in(
                conn,
                "UPDATE queue_stats SET ckpt_ios = ckpt_ios + ?, ckpt_last = ?, ckpt_high = max(ckpt_high, ?) "
                "WHERE system = ? AND queue = ?",
                (count, duration, duration, system.name, queue),
                system.name,
                queue,
            )
        conn.execute(
            "UPDATE engine_state SET checkpoints = checkpoints + ?, ckpt_ios = ckpt_ios + ?, "
            "ckpt_last = ?, ckpt_high = max(ckpt_high, ?) WHERE system = ?",
            (1 if ios else 0, sum(ios.values()), duration, duration, system.name),
        )
    # Nothing can change while the timers catch up, so the next run is the next mark after now.
    return next_due(due, max(due, context.now), idle=True)
