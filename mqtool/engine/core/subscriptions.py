"""Subscriptions as an application makes them (MQSUB, and MQCLOSE of its subscription
handle), and what every subscription shares with them: its SUBID, its managed
destination queue made from the topic's model queue, the process that holds it open,
and the clean-up after a holder that ended without closing.

- `subscribe` is MQSUB with MQSO_MANAGED: a non-durable subscription (the default; its
  queue is made from the topic node's MNDURMDL, named SYSTEM.MANAGED.NDURABLE. and 16
  hex digits) or, with a name, a durable one (MDURMDL, SYSTEM.MANAGED.DURABLE.), created
  or resumed (MQSO_CREATE | MQSO_RESUME). A new subscription gets the retained
  publications it matches unless `new_only` (MQSO_NEW_PUBLICATIONS_ONLY); if they cannot
  be put the subscription is not made (2526). It is a SUB object like those DEFINE SUB
  makes (status.subtype API, status.durable NO or YES), so DISPLAY SUB and SBSTATUS
  show it and every publication reaches it.
- `close` is MQCLOSE of the subscription handle: a non-durable subscription ends, its
  queue and the messages on it with it; a durable one stays (MQCO_REMOVE_SUB: `remove`).
- The holder of each subscription is a row of `sub_owners`: process id, the process's
  start time and a connection number. `reap` finds the rows of processes that have
  ended (kill -9, a crash) and does what the queue manager does when a connection
  fails: non-durable subscriptions are removed with their queues, durable ones let go.
  Every command calls it first (`Session.tick`, and the real-time loop's tick), so a
  dead subscriber's subscription is gone before the next command looks.
- `make_queue` is the one place that makes a local queue from a model queue for the
  queue manager (managed subscription queues; MQOPEN of a model queue can share it).

Reason codes are IBM's: 2425 topic string, 2428 no subscription, 2429 in use, 2432
already exists, 2436 durability not allowed, 2440 subscription name, 2459 selector, 2503
subscriptions inhibited, 2510 topic not alterable (a resume naming another topic string),
2522 invalid destination (the model queue), 2523 invalid subscription, 2526 retained
publication not delivered, 2531 publish/subscribe disabled, 2059 queue manager stopped.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqtool import processes
from mqtool.engine.core import topics
from mqtool.engine.core.model import TopicEvent
from mqtool.engine.core.reasons import (
    DURABILITY_NOT_ALLOWED,
    INVALID_DESTINATION,
    INVALID_SUBSCRIPTION,
    NO_SUBSCRIPTION,
    PUBSUB_INHIBITED,
    Q_MGR_NOT_AVAILABLE,
    RETAINED_NOT_DELIVERED,
    SELECTOR_SYNTAX_ERROR,
    SUB_ALREADY_EXISTS,
    SUB_INHIBITED,
    SUB_NAME_ERROR,
    SUBSCRIPTION_IN_USE,
    TOPIC_NOT_ALTERABLE,
    TOPIC_STRING_ERROR,
    MQError,
)
from mqtool.engine.core.selector import SelectorError, compile_selector
from mqtool.engine.timers import TickContext, schedule, timer
from mqtool.state import ObjectRecord
from mqtool.state import messages as runs

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.engine.core.model import StorageModel
    from mqtool.state import Store, SystemRecord, Transaction

EXPIRY_TIMER = "pubsub.expiry"  # subscriptions whose EXPIRY passes end (run_expiry)
MANAGED_DURABLE = "SYSTEM.MANAGED.DURABLE."
MANAGED_NDURABLE = "SYSTEM.MANAGED.NDURABLE."
MANAGED = "SYSTEM.MANAGED."
API_NAME = "API."  # a non-durable subscription made without a name: API. and its SUBID's last 16 hex digits
NAME_MAX = 10240  # MQ_SUB_NAME_LENGTH
SELECTOR_MAX = 10240  # MQ_SELECTOR_LENGTH, as DEFINE SUB's SELECTOR
NO_CONNECTION = "0" * 48  # ACTCONN of a subscription no connection holds
_CONN_MARK = "D4D8E3D3"  # "MQTL" in EBCDIC: the connections of mqtool's processes
# The connection number of this process per store and system (one connection holds all
# of a process's subscriptions there, as one MQCONN would).
_CONNECTIONS: weakref.WeakKeyDictionary[Store, dict[tuple[str, int], int]] = weakref.WeakKeyDictionary()


# -- holders ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Owner:
    """A process that holds subscriptions open."""

    pid: int
    pstart: str

    @classmethod
    def me(cls) -> Owner:
        return cls(os.getpid(), processes.my_start())

    def alive(self) -> bool:
        return processes.alive(self.pid, self.pstart)


def _connection(tx: Transaction, system: str) -> int:
    """This process's connection number on `system` (a number of the store, so the same
    on every run with a frozen clock)."""
    known = _CONNECTIONS.setdefault(tx.store, {})
    key = (system, os.getpid())
    number = known.get(key)
    if number is None:
        tx.conn.execute("UPDATE engine_config SET handles = handles + 1")
        number = known[key] = int(tx.conn.execute("SELECT handles FROM engine_config").fetchone()[0])
    return number


def connection_id(qmgr: str, number: int) -> str:
    """ACTCONN: the connection's 24-byte identifier as 48 hex digits, "CSQC" and the queue
    manager's name in EBCDIC, then mqtool's mark and the connection number (the form of
    IBM's z/OS connection identifiers; the content is mqtool's)."""
    return ("CSQC" + qmgr[:12].ljust(12)).encode("cp500").hex().upper() + _CONN_MARK + f"{number & 0xFFFFFFFF:08X}"


def holder(tx: Transaction, system: str, name: str) -> int | None:
    """The connection number of the live process holding subscription `name`, else None."""
    row = tx.conn.execute(
        "SELECT pid, pstart, conn FROM sub_owners WHERE system = ? AND name = ?", (system, name)
    ).fetchone()
    if row is None or not Owner(int(row[0]), str(row[1])).alive():
        return None
    return int(row[2])


def _hold(tx: Transaction, system: str, name: str, owner: Owner, now: float) -> int:
    number = _connection(tx, system)
    tx.conn.execute(
        "INSERT OR REPLACE INTO sub_owners (system, name, pid, pstart, conn, since) VALUES (?, ?, ?, ?, ?, ?)",
        (system, name, owner.pid, owner.pstart, number, now),
    )
    return number


# -- the SUBID and the managed queue --------------------------------------------------------


def new_subid(tx: Transaction, system: str) -> str:
    """A SUBID: the queue manager's mark and name and a number kept in the store, 48 hex
    digits, unique in the store and the same on every run."""
    tx.conn.execute("UPDATE engine_config SET handles = handles + 1")
    number = int(tx.conn.execute("SELECT handles FROM engine_config").fetchone()[0])
    name = system.encode("ascii", "replace")[:12].ljust(12, b" ")
    return (b"CSQ " + name + b"SUB " + number.to_bytes(4, "big")).hex().upper()


def governing_node(topic: str, schema: str = "TOPIC") -> str:
    """The node whose attributes govern a (wildcard) subscription: the levels before its
    first wildcard."""
    first = topics.first_wildcard_level(topic, schema)
    if first is None:
        return topic
    return topics.SEPARATOR.join(topics.levels(topic)[:first])


def model_for(tx: Transaction, system: str, node: topics.Node, durable: bool) -> ObjectRecord:
    """The model queue of a managed subscription's queue: the node's MDURMDL (durable; not
    one that makes temporary dynamic queues) or MNDURMDL. MQError 2522 when it is missing."""
    keyword = "MDURMDL" if durable else "MNDURMDL"
    name = str(node.attrs.get(keyword) or "")
    found = tx.get_object(system, "QMODEL", name) if name else None
    if found is None:
        raise MQError(INVALID_DESTINATION, f"the model queue {name or '(blank)'} of {keyword} does not exist")
    if durable and found.attrs.get("DEFTYPE") == "TEMPDYN":
        raise MQError(INVALID_DESTINATION, f"the model queue {name} of MDURMDL makes temporary dynamic queues")
    return found


def make_queue(tx: Transaction, system: str, local_type: str, template: ObjectRecord, name: str, now: float) -> None:
    """Makes local queue `name` from model queue `template` for the queue manager: the
    model's attributes but DEFTYPE, which describes the model itself."""
    attrs = {key: value for key, value in template.attrs.items() if key != "DEFTYPE"}
    tx.put_object(ObjectRecord(system, local_type, name, attrs, {"model": template.name}, now, now))


def managed_queue(tx: Transaction, system: str, local_type: str, template: ObjectRecord, subid: str, durable: bool,
                  now: float) -> str:  # fmt: skip
    """Makes a managed subscription's queue from `template`; its name."""
    name = (MANAGED_DURABLE if durable else MANAGED_NDURABLE) + subid[-16:]
    make_queue(tx, system, local_type, template, name, now)
    return name


def remove(tx: Transaction, system: str, record: ObjectRecord, local_type: str = "QLOCAL") -> None:
    """Removes a subscription, and its managed queue with the messages on it."""
    managed = str(record.status.get("managed") or "")
    if managed:
        runs.clear(tx.conn, system, managed)
        tx.delete_object(system, local_type, managed)
    tx.delete_object(system, "SUB", record.name)


def is_runtime(record: ObjectRecord) -> bool:
    """An object that applications make and that goes with them, not configuration: an
    application's subscription (MQSUB) and a managed subscription's queue. Export and
    apply leave them out."""
    if record.type == "SUB":
        return str(record.status.get("subtype", "ADMIN")) != "ADMIN"
    return record.name.startswith(MANAGED)


# -- MQSUB and MQCLOSE ----------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """What an MQSUB asks for (the fields of MQSD that mqtool uses)."""

    topic: str
    name: str = ""  # SubName: required for a durable subscription
    durable: bool = False
    new_only: bool = False  # MQSO_NEW_PUBLICATIONS_ONLY: no retained publications
    selector: str = ""


@dataclass(frozen=True)
class Subscribed:
    """An open subscription (the subscription handle and the managed queue's handle)."""

    system: str
    name: str
    subid: str
    queue: str  # where its publications arrive
    topic: str
    durable: bool
    resumed: bool  # an existing durable subscription taken up again
    retained: int  # retained publications delivered when it was made
    conn: int


def subscribe(
    tx: Transaction,
    clock: Clock,
    system: str,
    model: StorageModel,
    request: Request,
    owner: Owner | None = None,
) -> Subscribed:
    """MQSUB (see the module docstring), in `tx`; MQError with IBM's reason when refused
    (the caller rolls `tx` back: nothing of it stays)."""
    from mqtool.engine.core.pubsub import deliver_retained, topic_objects

    now = clock.timestamp()
    record_system = tx.get_system(system)
    qmgr = model.queue_manager(tx, record_system) if record_system is not None else None
    if qmgr is None or qmgr.status.get("state", "STARTED") != "STARTED":
        raise MQError(Q_MGR_NOT_AVAILABLE, f"the queue manager of {system} is not running")
    held = model.updates_held(qmgr, "MQSUB")  # a subscription made or resumed is an update
    if held is not None:
        raise held
    if str(qmgr.attrs.get("PSMODE", "ENABLED")) == "DISABLED":
        raise MQError(PUBSUB_INHIBITED, f"publish/subscribe is disabled on {qmgr.name} (PSMODE(DISABLED))")
    try:
        topics.check_topic(request.topic, publishing=False)
    except topics.TopicError as error:
        raise MQError(TOPIC_STRING_ERROR, str(error)) from None
    if len(request.selector) > SELECTOR_MAX:
        raise MQError(SELECTOR_SYNTAX_ERROR, f"the selector is longer than {SELECTOR_MAX} characters")
    if request.selector.strip():
        try:
            compile_selector(request.selector)
        except SelectorError as error:
            raise MQError(error.reason, error.detail) from None
    if len(request.name) > NAME_MAX or (request.durable and not request.name.strip()):
        raise MQError(SUB_NAME_ERROR, "a durable subscription needs a name of 1 to 10240 characters")
    owner = owner or Owner.me()
    existing = tx.get_object(system, "SUB", request.name) if request.name else None
    if existing is not None:
        return _resume(tx, clock, system, model, qmgr, request, owner, existing)
    node = topics.resolve(governing_node(request.topic), topic_objects(tx, system))
    if node.attrs.get("SUB") == "DISABLED":
        raise MQError(SUB_INHIBITED, f"SUB(DISABLED) on the topic string {request.topic!r}")
    if request.durable and node.attrs.get("DURSUB") == "NO":
        raise MQError(DURABILITY_NOT_ALLOWED, f"DURSUB(NO) on the topic string {request.topic!r}")
    template = model_for(tx, system, node, request.durable)
    subid = new_subid(tx, system)
    name = request.name or API_NAME + subid[-16:]
    queue = managed_queue(tx, system, model.local_type, template, subid, request.durable, now)
    default = tx.get_object(system, "SUB", topics.DEFAULT_SUB)
    attrs: dict[str, Any] = dict(default.attrs) if default is not None else {}
    attrs |= {"TOPICSTR": request.topic, "TOPICOBJ": "", "DEST": "", "DESTQMGR": "", "DESTCLAS": "MANAGED",
              "SELECTOR": request.selector, "DESTCORL": "", "EXPIRY": "UNLIMITED", "REQONLY": "NO"}  # fmt: skip
    status = {"subid": subid, "topic": request.topic, "durable": "YES" if request.durable else "NO",
              "subtype": "API", "resumed": now, "expiry_from": now, "managed": queue}  # fmt: skip
    record = ObjectRecord(system, "SUB", name, attrs, status, now, now)
    tx.put_object(record)
    conn = _hold(tx, system, name, owner, now)
    retained = 0
    if not request.new_only:
        try:
            retained = deliver_retained(tx, tx.store, clock, system, model, record)
        except MQError as error:
            raise MQError(RETAINED_NOT_DELIVERED, f"a retained publication cannot be put: {error}") from None
    model.topic_event(tx, system, qmgr, TopicEvent("subscribe", "API", request.durable, delivered=retained))
    return Subscribed(system, name, subid, queue, request.topic, request.durable, False, retained, conn)


def _resume(
    tx: Transaction,
    clock: Clock,
    system: str,
    model: StorageModel,
    qmgr: ObjectRecord,
    request: Request,
    owner: Owner,
    record: ObjectRecord,
) -> Subscribed:
    """MQSO_RESUME of an existing subscription (a durable one; a non-durable one of that
    name is another application's: 2432)."""
    from mqtool.engine.core.pubsub import subscription

    if not request.durable or record.status.get("durable", "YES") != "YES":
        raise MQError(SUB_ALREADY_EXISTS, f"a subscription named {record.name!r} exists")
    if record.name == topics.DEFAULT_SUB or record.status.get("subtype") == "PROXY":
        raise MQError(INVALID_SUBSCRIPTION, f"{record.name} is not a subscription an application may resume")
    sub = subscription(record)
    now = clock.timestamp()
    if sub.expires is not None and sub.expires <= now:
        raise MQError(INVALID_SUBSCRIPTION, f"subscription {record.name!r} has expired")
    if sub.topic != request.topic:
        raise MQError(TOPIC_NOT_ALTERABLE, f"subscription {record.name!r} is on the topic string {sub.topic!r}")
    if holder(tx, system, record.name) is not None:
        raise MQError(SUBSCRIPTION_IN_USE, f"subscription {record.name!r} is held open by another connection")
    if sub.destqmgr and sub.destqmgr != qmgr.name:
        raise MQError(INVALID_DESTINATION, f"subscription {record.name!r} sends to queue manager {sub.destqmgr}")
    if (
        tx.get_object(system, model.local_type, sub.dest) is None
        and tx.find_object(system, model.queue_types, sub.dest) is None
    ):
        raise MQError(INVALID_DESTINATION, f"the destination queue {sub.dest or '(blank)'} does not exist")
    record.status["resumed"] = now
    tx.put_status(record)
    conn = _hold(tx, system, record.name, owner, now)
    subtype = str(record.status.get("subtype", "ADMIN"))
    model.topic_event(tx, system, qmgr, TopicEvent("resume", subtype, True))
    return Subscribed(system, record.name, sub.subid.hex().upper(), sub.dest, sub.topic, True, True, 0, conn)


def close(tx: Transaction, system: str, model: StorageModel, name: str, remove_durable: bool = False) -> bool:
    """MQCLOSE of the subscription handle: a non-durable subscription ends with its queue;
    a durable one is let go, or ended too with `remove_durable` (MQCO_REMOVE_SUB). False
    when there is no such subscription (2428 to an application that asks)."""
    tx.conn.execute("DELETE FROM sub_owners WHERE system = ? AND name = ?", (system, name))
    record = tx.get_object(system, "SUB", name)
    if record is None:
        return False
    if record.status.get("durable", "YES") == "YES" and not remove_durable:
        return True
    end(tx, system, model, record, "remove")
    return True


def end(tx: Transaction, system: str, model: StorageModel, record: ObjectRecord, kind: str = "remove") -> None:
    """A subscription ends (closed, deleted, expired or its holder gone): removed with its
    managed queue, and counted."""
    remove(tx, system, record, model.local_type)
    found = tx.get_system(system)
    qmgr = model.queue_manager(tx, found) if found is not None else None
    if qmgr is not None:
        subtype = str(record.status.get("subtype", "ADMIN"))
        model.topic_event(tx, system, qmgr, TopicEvent(kind, subtype, record.status.get("durable", "YES") == "YES"))


def no_subscription(name: str) -> MQError:
    return MQError(NO_SUBSCRIPTION, f"there is no subscription named {name!r}")


# -- clean-up after a holder that ended -------------------------------------------------------


def reap(store: Store, model_of: Callable[[str], StorageModel]) -> int:
    """Does what the queue manager does for a connection that failed, for every holder of
    subscriptions whose process has ended: its non-durable subscriptions are removed with
    their queues and messages, its durable ones let go. How many it found (engine/tick.py
    calls it only when some process holds a subscription). `model_of` gives a platform's storage model."""
    with store.transaction(write=False) as tx:
        rows = tx.conn.execute("SELECT system, name, pid, pstart FROM sub_owners").fetchall()
    dead = [(str(s), str(n), int(p), str(t)) for s, n, p, t in rows if not Owner(int(p), str(t)).alive()]
    if not dead:
        return 0
    with store.transaction() as tx:
        for system, name, pid, pstart in dead:
            still = tx.conn.execute(
                "SELECT 1 FROM sub_owners WHERE system = ? AND name = ? AND pid = ? AND pstart = ?",
                (system, name, pid, pstart),
            ).fetchone()
            found = tx.get_system(system)
            if still is None or found is None:
                continue
            close(tx, system, model_of(found.platform), name)
    return len(dead)


# -- expiry ---------------------------------------------------------------------------------


def watch_expiry(tx: Transaction, record: ObjectRecord) -> None:
    """A subscription with an EXPIRY: the expiry timer of its system falls due when it
    expires (or earlier, for another)."""
    from mqtool.engine.core.pubsub import subscription

    expires = subscription(record).expires
    if expires is not None:
        schedule(tx, record.system, EXPIRY_TIMER, expires)


@timer(EXPIRY_TIMER)
def run_expiry(context: TickContext, tx: Transaction, system: SystemRecord, due: float) -> float | None:
    """The subscriptions whose EXPIRY has passed at `due` end, with their managed queues
    (counted as expired, QTSTSEXP); the timer is next due at the next expiry."""
    from mqtool.engine.core.model import model_for
    from mqtool.engine.core.pubsub import subscription

    try:
        chosen = model_for(system.platform)
    except LookupError:
        return None
    following: float | None = None
    for record in tx.objects(system.name, "SUB"):
        if record.name == topics.DEFAULT_SUB:
            continue
        expires = subscription(record).expires
        if expires is None:
            continue
        if expires <= due:
            end(tx, system.name, chosen, record, "expire")
        elif following is None or expires < following:
            following = expires
    return following
