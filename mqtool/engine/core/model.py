"""How a platform plugs into the message core: a `StorageModel` (one per platform:
its object types, what a resolution needs to know, and a `Ledger` per open handle) and
the registry the models enter themselves in.

A `Ledger` is the platform's side of one open queue handle: it decides what a message
costs to store (SWBs on a z/TPF memory queue, pages of a z/OS page set), whether it
fits (2053 for an exhausted SWB pool, 2192 for a full page set), how the payload is
stored (z/TPF queue compression), and which figures move when a message is put, got,
browsed or expires (statistics, the log, warnings). The core calls it at fixed points
of a put and a get, always inside the caller's transaction; the base class does
nothing at each point, so a model overrides only what its platform does.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from mqtool.engine.core.message import Message, PutResult, Resolved

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.state import ObjectRecord, Store, SystemRecord, Transaction


class Handle(Protocol):
    """What a ledger may use of the open handle it keeps accounts for."""

    store: Store
    clock: Clock
    system_name: str
    queue_name: str
    number: int  # the handle's number in the store, once opened
    syncpoint: bool  # its puts and gets are in a unit of work spanning the transaction
    put1: bool  # each put is an MQPUT1 (open, put and close in one call), not an MQPUT

    @property
    def depth(self) -> int: ...

    @property
    def cursor(self) -> sqlite3.Cursor: ...


class Ledger:
    """The platform's accounting for one open handle (see the module docstring)."""

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.internal = False  # the queue manager's own handle (a trigger message's, a streamed copy's)

    def make_internal(self) -> None:
        """Marks the handle as the queue manager's own: not an application's open handle."""
        self.internal = True

    # -- figures read once per transaction ------------------------------------------
    def sync_columns(self, resolved: Resolved) -> tuple[str, dict[str, Any]]:
        """The platform's live figures, read with the core's own at the start of each
        transaction: SQL column expressions (each after a comma; `f` is the queue's head row
        in messages, `:qkey` its number) and their named parameters."""
        return "", {}

    def synced(self, row: tuple[Any, ...]) -> None:
        """The values of `sync_columns`, in order."""

    # -- open and close -------------------------------------------------------------
    def opened(self, tx: Transaction, resolved: Resolved, purpose: str) -> None:
        """MQOPEN for `put` or `get`."""

    def closed(self, tx: Transaction, resolved: Resolved | None) -> None:
        """MQCLOSE."""

    # -- put ----------------------------------------------------------------------------
    def pack(self, tx: Transaction, resolved: Resolved, payload: bytes, persistent: bool) -> tuple[bytes, str, int]:
        """How the message is stored and what it costs: (stored bytes, codec ("" when
        stored as given), storage units it occupies); MQError when it does not fit."""
        return payload, "", 0

    def put_done(self, tx: Transaction, resolved: Resolved, result: PutResult, now: float) -> None:
        """The message is stored (in `tx`, not yet committed). An MQError raised here
        refuses the put: the core takes the message back out (a copy that had to
        succeed, such as a MUSTDUP stream, failed)."""

    # -- get ----------------------------------------------------------------------------
    def got(self, tx: Transaction, resolved: Resolved, message: Message, browse: bool) -> None:
        """A message got (removed in `tx`) or browsed."""

    def expired(self, tx: Transaction, resolved: Resolved, units: int, swept: bool) -> None:
        """An expired message a get passed over was removed."""

    def missed(self, tx: Transaction, resolved: Resolved, browse: bool) -> None:
        """A get or browse found no message (MQRC 2033)."""

    def refused(self, tx: Transaction, resolved: Resolved | None, operation: str, reason: int) -> None:
        """A `put`, `get` or `browse` failed with MQRC `reason` (2033 is `missed`)."""

    # -- transactions -------------------------------------------------------------------
    def rolled_back(self, tx: Transaction) -> None:
        """Transaction `tx` rolled back: what the handle did in it did not happen."""

    def restored(self, tx: Transaction, messages: list[Message]) -> None:
        """Got messages were put back in their places (their gets did not happen)."""

    def committed_units(self) -> int:
        """Messages of the current unit of work (for MAXUMSGS-like limits)."""
        return 0


@dataclass(frozen=True)
class TopicEvent:
    """What publish/subscribe did, for the platform's statistics (`StorageModel.topic_event`):
    a publication (`publish`: the subscriptions it `matched`, the copies `delivered`, the
    `elapsed` seconds), a subscription made (`subscribe`, with the retained publications
    `delivered` to it), resumed (`resume`), ended (`remove`) or expired (`expire`)."""

    kind: str
    subtype: str = "API"  # API (an application's MQSUB or MQPUT) or ADMIN (a command)
    durable: bool = False
    matched: int = 0
    delivered: int = 0
    elapsed: float = 0.0


class StorageModel:
    """A platform's storage model. Subclasses name their object types and make ledgers."""

    platform: ClassVar[str] = ""
    local_type: ClassVar[str] = ""
    alias_type: ClassVar[str] = ""
    remote_type: ClassVar[str] = ""
    alias_target: ClassVar[str] = ""  # the alias keyword naming its target queue
    process_type: ClassVar[str] = ""  # the process definitions' object type; "" = no triggering
    model_type: ClassVar[str] = ""  # the model queues' object type; "" = no dynamic queues
    msgid_prefix: ClassVar[bytes] = b""  # first 4 bytes of the message ids it makes
    pubsub: ClassVar[bool] = False  # the platform's queue managers publish and subscribe (core/pubsub.py)
    unlimited_depth: ClassVar[int | None] = None  # the MAXDEPTH that means no limit (z/TPF's 0); None: all limit

    @property
    def queue_types(self) -> tuple[str, ...]:
        """Object types a queue name may be (names are unique across them)."""
        return (self.local_type, self.alias_type, self.remote_type)

    def object_name(self, type_: str, name: str) -> str:
        """An object as the platform's operators write it (`QA-X`, `QALIAS(X)`)."""
        return f"{type_}({name})"

    def keyword_value(self, keyword: str, value: str) -> str:
        """A keyword and value as the platform's commands write them (`PUT(DISABLED)`)."""
        return f"{keyword}({value})"

    def queue_manager(self, tx: Transaction, system: SystemRecord) -> ObjectRecord | None:
        found = tx.objects(system.name, "QMGR")
        return found[0] if found else None

    def space(self, tx: Transaction, system: SystemRecord, qmgr: ObjectRecord, local: ObjectRecord) -> Any:
        """What the platform needs to know of a resolution's local queue (its settings),
        read once per resolution and kept in `Resolved.space`."""
        return None

    def ledger(self, handle: Handle) -> Ledger:
        return Ledger(handle)

    def updates_held(self, qmgr: ObjectRecord, what: str) -> Exception | None:
        """The refusal of the update `what` (an MQI call: 'MQSUB') while the platform
        holds updates (z/OS's SUSPEND QMGR LOG), None when it does not: a publication
        asks before it delivers a copy, a subscription before it is made or resumed (a
        queue's put and get ask their ledger)."""
        return None

    def topic_event(self, tx: Transaction, system: str, qmgr: ObjectRecord, event: TopicEvent) -> None:
        """Publish/subscribe did something on `system` (in `tx`): the platform counts it
        where it keeps statistics. The base class counts nothing."""


_MODELS: dict[str, StorageModel] = {}


def register(model: StorageModel) -> StorageModel:
    """Enters a platform's model (each platform package does so when imported)."""
    _MODELS[model.platform] = model
    return model


def model_for(platform: str) -> StorageModel:
    """The registered model of a platform; LookupError when none is."""
    try:
        return _MODELS[platform]
    except KeyError:
        raise LookupError(f"no storage model for platform {platform!r}") from None
