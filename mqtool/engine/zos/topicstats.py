"""Statistics of a z/OS queue manager's publish/subscribe: the topic manager's record
(SMF 115 subtype 2, QTST) and the publish/subscribe counts of the message manager's
(QMST: MQSUB, MQSUBRQ, publications), collected while a STAT trace runs class 1, one
record per statistics interval (STATIME) beside the log manager's.

Each publication and each subscription made, resumed or ended adds to the interval's
row of `zos_topic_stats` in its own transaction (one statement), so a publication that
backs out counts nothing. The figures, with IBM's field names:

- QTSTSTOT subscription requests (MQSUB, create or resume, and DEFINE SUB), QTSTSDUR
  those for durable subscriptions; QTSTSHIG/QTSTSLOW the most and fewest subscriptions
  of each type (API, ADMIN, PROXY) during the interval; QTSTSEXP subscriptions that
  expired;
- QTSTTMSG messages put to subscribers' queues (publications' copies and retained
  publications delivered to new subscriptions); QTSTSPHW the most subscriptions one
  publication matched; QTSTPTOT publication requests by type (API: MQPUT to a topic,
  `mqtool put --topic`, `.put topic=`, the REST API's publish; ADMIN and PROXY: none
  here); QTSTPTHI/QTSTPTLO the most and fewest copies one publication put (inferred:
  IBM names them "total publish high/low water mark" only); QTSTPNOS publications that
  reached no subscriber; QTSTETHW/QTSTETTO the longest and the total time publications
  took (zero with a frozen clock);
- QMSTSUB MQSUB calls, QMSTSUBR MQSUBRQ calls (mqtool has none), QMSTPUBS publications.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mqtool.engine.core import topics

if TYPE_CHECKING:
    from mqtool.engine.core.model import TopicEvent
    from mqtool.state import Transaction

TOPIC_CLASS = 1  # TRACE(STAT) CLASS(1): SMF 115 subtypes 1 and 2
TYPES = ("API", "ADMIN", "PROXY")

_PUBLISHED = (
    "INSERT INTO zos_topic_stats (system, messages, single_high, pubs_api, pub_high, pub_low, no_subscriber, "
    "elapsed_high, elapsed_total, publications) VALUES (:system, :delivered, :matched, 1, :delivered, :delivered, "
    ":none, :elapsed, :elapsed, 1) ON CONFLICT(system) DO UPDATE SET messages = messages + :delivered, "
    "single_high = max(single_high, :matched), pubs_api = pubs_api + 1, "
    "pub_high = max(coalesce(pub_high, :delivered), :delivered), pub_low = min(coalesce(pub_low, :delivered), "
    ":delivered), no_subscriber = no_subscriber + :none, elapsed_high = max(elapsed_high, :elapsed), "
    "elapsed_total = elapsed_total + :elapsed, publications = publications + 1"
)
_ENSURE = "INSERT INTO zos_topic_stats (system) VALUES (?) ON CONFLICT(system) DO NOTHING"
_SUBSCRIBED = (
    "UPDATE zos_topic_stats SET sub_requests = sub_requests + :request, durable_requests = durable_requests + "
    ":durable, expired = expired + :expired, messages = messages + :delivered, mqsub = mqsub + :mqsub, "
    "high_api = max(high_api, :api), high_admin = max(high_admin, :admin), low_api = min(low_api, :api), "
    "low_admin = min(low_admin, :admin) WHERE system = :system"
)


def counts(tx: Transaction, system: str) -> dict[str, int]:
    """The subscriptions of the queue manager now, by type."""
    found = dict.fromkeys(TYPES, 0)
    for subtype, count in tx.conn.execute(
        "SELECT coalesce(json_extract(status, '$.subtype'), 'ADMIN'), count(*) FROM objects "
        "WHERE system = ? AND type = 'SUB' AND name != ? GROUP BY 1",
        (system, topics.DEFAULT_SUB),
    ):
        found[str(subtype)] = int(count)
    return found


def event(tx: Transaction, system: str, classes: set[int], happened: TopicEvent) -> None:
    """Counts what publish/subscribe did (`StorageModel.topic_event` of z/OS), while the
    STAT classes collected (`classes`) include class 1."""
    if TOPIC_CLASS not in classes:
        return
    if happened.kind == "publish":
        tx.conn.execute(
            _PUBLISHED,
            {"system": system, "delivered": happened.delivered, "matched": happened.matched,
             "none": int(happened.delivered == 0), "elapsed": happened.elapsed},
        )  # fmt: skip
        return
    now = counts(tx, system)
    made = happened.kind in ("subscribe", "resume")
    params = {
        "system": system,
        "request": int(made),
        "durable": int(made and happened.durable),
        "expired": int(happened.kind == "expire"),
        "delivered": happened.delivered,
        "mqsub": int(made and happened.subtype == "API"),
        "api": now["API"],
        "admin": now["ADMIN"],
    }
    tx.conn.execute(_ENSURE, (system,))
    tx.conn.execute(_SUBSCRIBED, params)


def start(tx: Transaction, system: str) -> None:
    """A new interval: the counters start from nothing, the high and low numbers of
    subscriptions from the numbers now."""
    now = counts(tx, system)
    tx.conn.execute("DELETE FROM zos_topic_stats WHERE system = ?", (system,))
    tx.conn.execute(
        "INSERT INTO zos_topic_stats (system, high_api, high_admin, low_api, low_admin) VALUES (?, ?, ?, ?, ?)",
        (system, now["API"], now["ADMIN"], now["API"], now["ADMIN"]),
    )


def figures(tx: Transaction, system: str) -> dict[str, Any]:
    """The interval's figures, by IBM's field names (an array field as one key per type)."""
    cursor = tx.conn.execute("SELECT * FROM zos_topic_stats WHERE system = ?", (system,))
    columns = [d[0] for d in cursor.description]
    found = cursor.fetchone()
    row: dict[str, Any] = dict(zip(columns, found, strict=True)) if found is not None else {}
    now = counts(tx, system)
    high = {"API": max(now["API"], int(row.get("high_api") or 0)), "ADMIN": max(now["ADMIN"],
            int(row.get("high_admin") or 0)), "PROXY": 0}  # fmt: skip
    low = {"API": min(now["API"], int(row.get("low_api", now["API"]))),
           "ADMIN": min(now["ADMIN"], int(row.get("low_admin", now["ADMIN"]))), "PROXY": 0}  # fmt: skip
    return {
        "QTSTSTOT": int(row.get("sub_requests") or 0),
        "QTSTSDUR": int(row.get("durable_requests") or 0),
        **{f"QTSTSHIG_{kind}": high[kind] for kind in TYPES},
        **{f"QTSTSLOW_{kind}": low[kind] for kind in TYPES},
        "QTSTSEXP": int(row.get("expired") or 0),
        "QTSTTMSG": int(row.get("messages") or 0),
        "QTSTSPHW": int(row.get("single_high") or 0),
        "QTSTPTOT_API": int(row.get("pubs_api") or 0),
        "QTSTPTOT_ADMIN": 0,
        "QTSTPTOT_PROXY": 0,
        "QTSTPTHI": int(row.get("pub_high") or 0),
        "QTSTPTLO": int(row.get("pub_low") or 0),
        "QTSTPNOS": int(row.get("no_subscriber") or 0),
        "QTSTETHW": round(float(row.get("elapsed_high") or 0.0), 6),
        "QTSTETTO": round(float(row.get("elapsed_total") or 0.0), 6),
        "QMSTSUB": int(row.get("mqsub") or 0),
        "QMSTSUBR": int(row.get("mqsubrq") or 0),
        "QMSTPUBS": int(row.get("publications") or 0),
    }


def write_record(tx: Transaction, system: str, start_time: float, end: float) -> None:
    """The topic manager's record for the interval start..end; a new interval begins."""
    data = figures(tx, system)
    tx.conn.execute(
        "INSERT INTO zos_topic_records (system, start, end, data) VALUES (?, ?, ?, ?)",
        (system, start_time, end, json.dumps(data, separators=(",", ":"))),
    )
    start(tx, system)  # old records go by the system's retention (stats.py, mqtool smf purge)


# -- intervals (called by stats.py when the STAT classes change and at each interval's end) ------


def _started(tx: Transaction, system: str) -> float | None:
    row = tx.conn.execute("SELECT topic_start FROM zos_stats_interval WHERE system = ?", (system,)).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def _set_started(tx: Transaction, system: str, when: float | None) -> None:
    tx.conn.execute(
        "INSERT INTO zos_stats_interval (system, topic_start) VALUES (?, ?) "
        "ON CONFLICT(system) DO UPDATE SET topic_start = excluded.topic_start",
        (system, when),
    )


def collection_changed(tx: Transaction, system: str, before: set[int], after: set[int], now: float) -> None:
    """The STAT classes went from `before` to `after`: class 1 stopping writes the partial
    interval's record; class 1 starting begins an interval now."""
    was, is_on = TOPIC_CLASS in before, TOPIC_CLASS in after
    if was and not is_on:
        started = _started(tx, system)
        write_record(tx, system, now if started is None else started, now)
        _set_started(tx, system, None)
    elif is_on and not was:
        start(tx, system)
        _set_started(tx, system, now)


def end_interval(tx: Transaction, system: str, classes: set[int], end: float) -> None:
    """The statistics interval ends at `end`: the topic manager's record, while class 1 runs."""
    if TOPIC_CLASS not in classes:
        return
    started = _started(tx, system)
    write_record(tx, system, end if started is None else started, end)
    _set_started(tx, system, end)
