"""Publish/subscribe: what a queue manager does with a message published on a topic
string, for every platform that has it (z/OS here; z/TPF MQ has no pub/sub).

A publication goes, in the caller's transaction, to the destination queue of every
subscription that matches its topic string (topics.py: wildcards, WILDCARD(BLOCK)),
passes its selector (selector.py) and is not REQONLY: one put per subscription, each
with a message id of its own and the subscription's DESTCORL or SUBID as correlation id.
A destination that refuses the copy sends it to the dead-letter queue under USEDLQ(YES);
otherwise PMSGDLV/NPMSGDLV decide: ALL fails the whole publication (every copy already
put is taken back: a savepoint), ALLDUR fails it when the subscription is durable,
ALLAVAIL goes on without that subscriber. So with the transaction's commit every
subscriber has the message or none has. A retained publication (MQPMO_RETAIN) replaces
the topic node's last one (table retained_pubs); a new subscription gets the retained
publications it matches. The figures DISPLAY TPSTATUS and SBSTATUS show (publications
per topic string, messages per subscription) are in table pubsub_status.

`TopicHandle` is an opened topic with the shape of a `QueueHandle` as the put streams
use it (open, put, close, rolled_back), so `mqtool put --topic`, `.put topic=` and the
REST API's publish share the commit policy of puts.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqtool.engine.core import topics
from mqtool.engine.core.handle import QueueHandle, msgid_prefix
from mqtool.engine.core.message import PutOptions, PutResult, Resolved
from mqtool.engine.core.model import StorageModel, TopicEvent
from mqtool.engine.core.reasons import (
    OPTION_NOT_VALID_FOR_TYPE,
    PUBSUB_INHIBITED,
    PUT_INHIBITED,
    Q_MGR_NOT_AVAILABLE,
    TOPIC_STRING_ERROR,
    UNKNOWN_OBJECT_NAME,
    MQError,
)
from mqtool.engine.core.selector import SelectorError, Test, compile_selector, selects

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.state import ObjectRecord, Store, Transaction

PSMODES = ("ENABLED", "COMPAT", "DISABLED")
_VERSION = "SELECT version FROM engine_config"
_COUNT = (
    "INSERT INTO pubsub_status (system, kind, name, count, last) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT(system, kind, name) DO UPDATE SET count = count + excluded.count, last = excluded.last"
)
_RETAIN = (
    "INSERT OR REPLACE INTO retained_pubs (system, topic, msgid, correlid, priority, persistent, put_time, expiry, "
    "payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


@dataclass(frozen=True)
class Subscription:
    """What delivery needs of one subscription (a SUB object)."""

    name: str
    subid: bytes
    topic: str  # the full topic string (TOPICOBJ's and TOPICSTR combined)
    schema: str  # WSCHEMA: TOPIC or CHAR
    dest: str
    destqmgr: str  # blank: this queue manager
    correlid: bytes  # DESTCORL, else the SUBID
    pubprty: str  # ASPUB, ASQDEF or 0-9
    durable: bool
    reqonly: bool
    expires: float | None  # the subscription's end (EXPIRY), None for never
    selector: Test | None


def subid_bytes(record: ObjectRecord) -> bytes:
    text = str(record.status.get("subid") or "")
    try:
        return bytes.fromhex(text) if text else bytes(24)
    except ValueError:
        return bytes(24)


def correlid_of(record: ObjectRecord) -> bytes:
    """The correlation id of the messages a subscription receives: DESTCORL (48 hex
    digits, or text padded with nulls), else its SUBID."""
    given = str(record.attrs.get("DESTCORL") or "").strip()
    if not given:
        return subid_bytes(record)
    try:
        if len(given) == 48:
            return bytes.fromhex(given)
    except ValueError:
        pass
    return given.encode("utf-8")[:24].ljust(24, b"\0")


def subscription(record: ObjectRecord) -> Subscription:
    """A SUB object as delivery sees it (its selector compiled)."""
    attrs = record.attrs
    text = str(attrs.get("SELECTOR") or "")
    test: Test | None = None
    if text.strip():
        try:
            test = compile_selector(text)
        except SelectorError:
            test = lambda fields: None  # noqa: E731 - refused at DEFINE; selects nothing if stored anyway
    expiry = attrs.get("EXPIRY", "UNLIMITED")
    expires = None
    if str(expiry) != "UNLIMITED":
        start = float(record.status.get("expiry_from", record.altered))
        expires = start + int(expiry) / 10
    return Subscription(
        name=record.name,
        subid=subid_bytes(record),
        topic=str(record.status.get("topic", attrs.get("TOPICSTR", ""))),
        schema=str(attrs.get("WSCHEMA", "TOPIC")),
        dest=str(attrs.get("DEST") or record.status.get("managed") or ""),
        destqmgr=str(attrs.get("DESTQMGR") or ""),
        correlid=correlid_of(record),
        pubprty=str(attrs.get("PUBPRTY", "ASPUB")),
        durable=record.status.get("durable", "YES") == "YES",
        reqonly=attrs.get("REQONLY") == "YES",
        expires=expires,
        selector=test,
    )


@dataclass
class Tree:
    """A queue manager's topic objects and subscriptions, read once per definitions
    version."""

    qmgr: ObjectRecord
    objects: dict[str, tuple[str, dict[str, Any]]]  # topic string -> (name, attributes)
    subscriptions: list[Subscription]
    _nodes: dict[str, topics.Node] = dataclasses.field(default_factory=dict)

    @property
    def psmode(self) -> str:
        return str(self.qmgr.attrs.get("PSMODE", "ENABLED"))

    def node(self, topic: str) -> topics.Node:
        found = self._nodes.get(topic)
        if found is None:
            if len(self._nodes) > 4096:
                self._nodes.clear()
            found = self._nodes[topic] = topics.resolve(topic, self.objects)
        return found

    def matching(self, topic: str, now: float) -> list[Subscription]:
        """The subscriptions a publication on `topic` reaches, in name order."""
        blockers = self.node(topic).blockers
        out = []
        for sub in self.subscriptions:
            if sub.expires is not None and sub.expires <= now:
                continue
            if not topics.matches(sub.topic, topic, sub.schema):
                continue
            if blockers and topics.blocked(sub.topic, topic, sub.schema, blockers):
                continue
            out.append(sub)
        return out


def topic_objects(tx: Transaction, system: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Topic string -> (name, attributes) of a system's topic objects."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for record in tx.objects(system, "TOPIC"):
        topic = str(record.attrs.get("TOPICSTR", ""))
        if record.name == topics.BASE_TOPIC:
            topic = ""
        elif not topic:
            continue  # SYSTEM.DEFAULT.TOPIC: a template, no node of the tree
        found.setdefault(topic, (record.name, dict(record.attrs)))
    return found


def load_tree(tx: Transaction, system: str, qmgr: ObjectRecord) -> Tree:
    subs = [subscription(r) for r in tx.objects(system, "SUB") if r.name != topics.DEFAULT_SUB]
    return Tree(qmgr, topic_objects(tx, system), subs)


class _Routed(QueueHandle):
    """A put to queue `dest` of another queue manager: the transmission queue that leads
    there, with the transmission header naming the destination (MQOD ObjectQMgrName)."""

    def __init__(self, store: Store, clock: Clock, system: str, xmitq: str, model: StorageModel, header: str) -> None:
        super().__init__(store, clock, system, xmitq, model)
        self._header = header

    def _resolve(self, tx: Transaction) -> Resolved:
        resolved = super()._resolve(tx)
        self.resolved = resolved = dataclasses.replace(
            resolved, header=self._header, get_error=OPTION_NOT_VALID_FOR_TYPE
        )
        return resolved


def route_to(tx: Transaction, system: str, qmgr: ObjectRecord, model: StorageModel, destqmgr: str) -> str:
    """The transmission queue that reaches queue manager `destqmgr`, as a put naming it
    resolves: a queue manager alias (a remote queue definition of that name with a blank
    RNAME), a transmission queue of that name, else the default transmission queue.
    MQError 2087-like (2085 here) when there is none."""
    alias = tx.get_object(system, model.remote_type, destqmgr)
    if alias is not None and not str(alias.attrs.get("RNAME") or ""):
        return str(alias.attrs.get("XMITQ") or alias.attrs.get("RQMNAME") or destqmgr)
    local = tx.get_object(system, model.local_type, destqmgr)
    if local is not None and local.attrs.get("USAGE") == "XMITQ":
        return destqmgr
    default = str(qmgr.attrs.get("DEFXMITQ") or "")
    if default:
        return default
    raise MQError(UNKNOWN_OBJECT_NAME, f"no transmission queue leads to queue manager {destqmgr}")


class TopicHandle:
    """An opened topic string of one system, for publishing (MQOPEN of a topic, MQPUT)."""

    def __init__(
        self, store: Store, clock: Clock, system: str, topic: str, model: StorageModel, retain: bool = False
    ) -> None:
        self.store = store
        self.clock = clock
        self.system_name = system
        self.queue_name = topic  # what the put streams report
        self.topic = topic
        self.model = model
        self.retain = retain
        self.syncpoint = False
        self.is_open = False
        self.resolved: Resolved | None = None  # a topic resolves to no queue
        self.number = 0
        self.delivered = 0  # copies put by the last publication
        self.created = None  # a topic opens no dynamic queue (QueueHandle.created)
        self.put1 = False  # a publication is an MQPUT (QueueHandle.put1)
        self._prefix = b""
        self._count = 0
        self._tree: Tree | None = None
        self._version = -1
        self._queues: dict[tuple[str, str], QueueHandle] = {}

    # -- open / close -------------------------------------------------------------
    def _load(self, tx: Transaction) -> Tree:
        version = int(tx.conn.execute(_VERSION).fetchone()[0])
        if self._tree is None or version != self._version:
            qmgr = (
                self.model.queue_manager(tx, tx.get_system(self.system_name))
                if tx.get_system(self.system_name)
                else None
            )
            if qmgr is None:
                raise MQError(Q_MGR_NOT_AVAILABLE, f"system {self.system_name} has no queue manager")
            self._tree = load_tree(tx, self.system_name, qmgr)
            self._version = version
        return self._tree

    def open(self, tx: Transaction, purpose: str = "put") -> None:
        """MQOPEN of the topic for output: the topic string is checked, the queue manager
        must run with PSMODE other than DISABLED, and the node must allow publishing."""
        try:
            topics.check_topic(self.topic, publishing=True)
        except topics.TopicError as error:
            raise MQError(TOPIC_STRING_ERROR, str(error)) from None
        tree = self._load(tx)
        self._check(tree)
        tx.conn.execute("UPDATE engine_config SET handles = handles + 1")
        self.number = int(tx.conn.execute("SELECT handles FROM engine_config").fetchone()[0])
        self._prefix = msgid_prefix(self.model, tree.qmgr.name, self.number)
        self._count = 0
        self.is_open = True

    def _check(self, tree: Tree) -> None:
        if tree.qmgr.status.get("state", "STARTED") != "STARTED":
            raise MQError(Q_MGR_NOT_AVAILABLE, f"queue manager {tree.qmgr.name} is stopped")
        held = self.model.updates_held(tree.qmgr, "MQPUT to a topic")
        if held is not None:
            raise held
        if tree.psmode == "DISABLED":
            raise MQError(PUBSUB_INHIBITED, f"publish/subscribe is disabled on {tree.qmgr.name} (PSMODE(DISABLED))")
        if tree.node(self.topic).attrs.get("PUB") == "DISABLED":
            raise MQError(PUT_INHIBITED, f"PUB(DISABLED) on the topic string {self.topic!r}")

    def close(self, tx: Transaction) -> None:
        for handle in self._queues.values():
            if handle.is_open:
                handle.close(tx)
        self._queues.clear()
        self.is_open = False

    def rolled_back(self, tx: Transaction) -> None:
        for handle in self._queues.values():
            handle.rolled_back(tx)

    # -- put ----------------------------------------------------------------------
    def _destination(self, tx: Transaction, tree: Tree, sub: Subscription) -> QueueHandle:
        key = (sub.dest, sub.destqmgr)
        handle = self._queues.get(key)
        if handle is None:
            if sub.destqmgr and sub.destqmgr != tree.qmgr.name:
                xmitq = route_to(tx, self.system_name, tree.qmgr, self.model, sub.destqmgr)
                header = json.dumps(
                    {"rname": sub.dest, "rqmname": sub.destqmgr, "qmgr": tree.qmgr.name},
                    sort_keys=True,
                    separators=(",", ":"),
                )
                handle = _Routed(self.store, self.clock, self.system_name, xmitq, self.model, header)
            else:
                handle = QueueHandle(self.store, self.clock, self.system_name, sub.dest, self.model)
            self._queues[key] = handle
        if not handle.is_open:
            handle.open(tx)
        return handle

    def put(self, tx: Transaction, payload: bytes, options: PutOptions) -> PutResult:
        """MQPUT to the topic: a copy to every matching subscription's destination (see
        the module docstring), all or none of them; MQError when the publication fails."""
        tree = self._load(tx)
        self._check(tree)
        node = tree.node(self.topic)
        now = self.clock.timestamp()
        persistent = (node.attrs.get("DEFPSIST") == "YES") if options.persistent is None else options.persistent
        priority = int(node.attrs.get("DEFPRTY") or 0) if options.priority is None else options.priority
        expiry = options.expiry
        cap = node.attrs.get("CAPEXPRY", "NOLIMIT")
        if str(cap) not in ("NOLIMIT", "ASPARENT") and (expiry is None or expiry > int(cap) / 10):
            expiry = int(cap) / 10
        self._count += 1
        msgid = options.msgid or self._prefix + self._count.to_bytes(4, "big")
        cursor = tx.conn.cursor()
        cursor.execute("SAVEPOINT publication")
        delivered: list[Subscription] = []
        matching = tree.matching(self.topic, now)
        try:
            for sub in matching:
                if sub.reqonly:
                    continue
                if sub.selector is not None and not selects(sub.selector, priority, persistent, options.correlid):
                    continue
                copy = PutOptions(
                    persistent=persistent,
                    priority=priority
                    if sub.pubprty == "ASPUB"
                    else None
                    if sub.pubprty == "ASQDEF"
                    else int(sub.pubprty),
                    msgid=None,
                    correlid=sub.correlid,
                    expiry=expiry,
                )
                try:
                    self._destination(tx, tree, sub).put(tx, payload, copy)
                except MQError as error:
                    if self._dead_letter(tx, tree, node, sub, payload, copy, error):
                        delivered.append(sub)
                        continue
                    rule = node.attrs.get("PMSGDLV" if persistent else "NPMSGDLV", "ALLAVAIL")
                    if rule == "ALL" or (rule == "ALLDUR" and sub.durable):
                        raise MQError(
                            error.reason, f"subscription {sub.name} ({sub.dest}): {error.detail or error}"
                        ) from None
                    continue
                delivered.append(sub)
        except BaseException:
            cursor.execute("ROLLBACK TO publication")
            cursor.execute("RELEASE publication")
            self.rolled_back(tx)
            raise
        cursor.execute("RELEASE publication")
        if self.retain:
            cursor.execute(
                _RETAIN,
                (self.system_name, self.topic, msgid, options.correlid, priority, int(persistent), now,
                 None if expiry is None else now + expiry, payload),
            )  # fmt: skip
        rows = [(self.system_name, "SUB", sub.name, 1, now) for sub in delivered]
        rows.append((self.system_name, "PUB", self.topic, 1, now))
        cursor.executemany(_COUNT, rows)
        self.delivered = len(delivered)
        event = TopicEvent("publish", matched=len(matching), delivered=len(delivered),
                           elapsed=max(0.0, self.clock.timestamp() - now))  # fmt: skip
        self.model.topic_event(tx, self.system_name, tree.qmgr, event)
        length = len(payload)
        return PutResult(0, msgid, length, length, "", persistent, len(delivered),
                         None if expiry is None else now + expiry, priority, options.correlid)  # fmt: skip

    def _dead_letter(
        self,
        tx: Transaction,
        tree: Tree,
        node: topics.Node,
        sub: Subscription,
        payload: bytes,
        options: PutOptions,
        error: MQError,
    ) -> bool:
        """USEDLQ(YES): the copy a destination refused goes to the dead-letter queue with
        a dead-letter header; False when it cannot (no DEADQ, or it refuses too)."""
        if node.attrs.get("USEDLQ") != "YES":
            return False
        deadq = str(tree.qmgr.attrs.get("DEADQ") or "").strip()
        if not deadq:
            return False
        from mqtool.engine.channels import deadletter

        header = deadletter.DeadLetterHeader(
            error.reason, sub.dest, sub.destqmgr or tree.qmgr.name, "PUBSUB", self.clock.timestamp()
        )
        handle = self._queues.get((deadq, "\0deadq"))
        if handle is None:
            handle = self._queues[(deadq, "\0deadq")] = QueueHandle(
                self.store, self.clock, self.system_name, deadq, self.model
            )
        try:
            if not handle.is_open:
                handle.open(tx)
            handle.put(tx, deadletter.build(header) + payload, options)
        except MQError:
            return False
        return True


def deliver_retained(
    tx: Transaction, store: Store, clock: Clock, system: str, model: StorageModel, record: ObjectRecord
) -> int:
    """A new subscription gets the retained publications it matches (each to its
    destination, in topic order); the number delivered. MQError when one cannot be put."""
    sub = subscription(record)
    rows = tx.conn.execute(
        "SELECT topic, correlid, priority, persistent, expiry, payload FROM retained_pubs WHERE system = ? "
        "ORDER BY topic",
        (system,),
    ).fetchall()
    now = clock.timestamp()
    qmgr = model.queue_manager(tx, tx.get_system(system)) if tx.get_system(system) else None
    if qmgr is None:
        return 0
    blockers_of = topic_objects(tx, system)
    count = 0
    handle: TopicHandle | None = None
    for topic, correlid, priority, persistent, expiry, payload in rows:
        if expiry is not None and expiry <= now:
            continue
        if not topics.matches(sub.topic, topic, sub.schema):
            continue
        node = topics.resolve(topic, blockers_of)
        if node.blockers and topics.blocked(sub.topic, topic, sub.schema, node.blockers):
            continue
        if sub.selector is not None and not selects(sub.selector, priority, bool(persistent), correlid):
            continue
        if handle is None:
            handle = TopicHandle(store, clock, system, topic, model)
            handle._load(tx)
        tree = handle._load(tx)
        options = PutOptions(
            persistent=bool(persistent),
            priority=priority if sub.pubprty == "ASPUB" else None if sub.pubprty == "ASQDEF" else int(sub.pubprty),
            correlid=sub.correlid,
            expiry=None if expiry is None else max(0.0, expiry - now),
        )
        handle._destination(tx, tree, sub).put(tx, payload, options)
        count += 1
    if count:
        tx.conn.execute(_COUNT, (system, "SUB", sub.name, count, now))
    if handle is not None:
        handle.close(tx)
    return count


def retained_topics(tx: Transaction, system: str) -> set[str]:
    return {row[0] for row in tx.conn.execute("SELECT topic FROM retained_pubs WHERE system = ?", (system,))}


def clear_retained(tx: Transaction, system: str, topic: str) -> bool:
    """CLEAR TOPICSTR CLRTYPE(RETAINED): whether there was one to remove."""
    cursor = tx.conn.execute("DELETE FROM retained_pubs WHERE system = ? AND topic = ?", (system, topic))
    return cursor.rowcount > 0


def figures(tx: Transaction, system: str, kind: str) -> dict[str, tuple[int, float]]:
    """The kept figures: name (topic string for PUB, subscription for SUB) -> (count, last)."""
    return {
        str(name): (int(count), float(last))
        for name, count, last in tx.conn.execute(
            "SELECT name, count, last FROM pubsub_status WHERE system = ? AND kind = ?", (system, kind)
        )
    }
