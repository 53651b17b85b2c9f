"""What the sending and the receiving side of the channel agent share, whichever
transport carries their batches: one end of a channel as read in a transaction (`End`),
the work of one step (`Work`), a batch that cannot complete (`BatchFailed`), and the
console messages of channel events in each platform's style (`MESSAGES`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mqtool.clock import Clock
from mqtool.engine.channels.partner import Platform, platform_of, queue_manager
from mqtool.engine.channels.status import ChannelStatus
from mqtool.engine.console import console
from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.reasons import NAMES
from mqtool.engine.platforms import open_queue
from mqtool.state import ObjectRecord, SystemRecord, Transaction

if TYPE_CHECKING:
    from mqtool.state import Store

MQRC_OBJECT_IN_USE = 2042
MQRC_UNKNOWN_REMOTE_Q_MGR = 2087
# Reason names the core's table does not hold (only channels give these reasons).
_MORE_NAMES = {MQRC_OBJECT_IN_USE: "MQRC_OBJECT_IN_USE", MQRC_UNKNOWN_REMOTE_Q_MGR: "MQRC_UNKNOWN_REMOTE_Q_MGR"}
CSECT = "CSQXRCTL"  # the channel initiator module named in z/OS console messages (mqtool's choice)
SENDING = ("SDR", "SVR")  # channel types that send the messages of a transmission queue
RECEIVING = ("RCVR", "RQSTR")  # channel types that put what arrives

# Console messages: event -> (z/TPF id, z/OS id).
MESSAGES: dict[str, tuple[str, str]] = {
    "started": ("MQSC0301I", "CSQX500I"),
    "receiving": ("MQSC0302I", "CSQX500I"),
    "stopped": ("MQSC0303I", "CSQX501I"),
    "ended": ("MQSC0304I", "CSQX501I"),
    "no_listener": ("MQSC0310W", "MQT0510E"),
    "bad_conname": ("MQSC0325W", "CSQX205E"),
    "partner_stopped": ("MQSC0311W", "MQT0511E"),
    "partner_chinit": ("MQSC0312W", "MQT0512E"),
    "remote_undefined": ("MQSC0313W", "CSQX520E"),
    "remote_stopped": ("MQSC0314W", "CSQX558E"),
    "remote_busy": ("MQSC0315W", "MQT0513E"),
    "remote_type": ("MQSC0316W", "MQT0514E"),
    "remote_ended": ("MQSC0324W", "MQT0523E"),
    "xmitq": ("MQSC0317W", "MQT0515E"),
    "own_stopped": ("MQSC0318W", "MQT0516E"),
    "batch": ("MQSC0319E", "MQT0517E"),
    "deadq": ("MQSC0320E", "MQT0518E"),
    "sequence": ("MQSC0321E", "CSQX526E"),
    "resolved": ("MQSC0322I", "MQT0519I"),
    "dead_letter": ("MQSC0323W", "CSQX548E"),
    "chinit_started": ("", "CSQX022I"),
    "chinit_stopped": ("", "MQT0509I"),
    # net-transport: the TCP transport
    "connect": ("MQSC0340W", "CSQX202E"),
    "lost": ("MQSC0341W", "CSQX209E"),
    "timeout": ("MQSC0342W", "CSQX259E"),
    "peer": ("MQSC0343E", "MQT0540E"),
    "version": ("MQSC0344E", "MQT0541E"),
    "protocol": ("MQSC0345E", "MQT0542E"),
    "refused_in": ("MQSC0346W", "MQT0543E"),
    "waiting": ("MQSC0347I", "MQT0544I"),
    "discint": ("MQSC0348I", "CSQX501I"),
    "exhausted": ("MQSC0349E", "MQT0545E"),
    "tls": ("MQSC0350E", "CSQX638E"),
    "callback": ("MQSC0352I", "MQT0547I"),
    "blocked": ("MQSC0354W", "CSQX558E"),
}


class BatchFailed(Exception):
    """A batch that cannot complete; it is rolled back and the channel retries."""

    def __init__(self, cause: str, **fields: Any) -> None:
        super().__init__(cause, fields)
        self.cause = cause
        self.fields = fields


@dataclass
class End:
    """One end of a channel as read in the current transaction."""

    system: SystemRecord
    record: ObjectRecord
    status: ChannelStatus

    @classmethod
    def of(cls, system: SystemRecord, record: ObjectRecord) -> End:
        return cls(system, record, ChannelStatus.load(record.status))

    @property
    def platform(self) -> Platform:
        return platform_of(self.system)

    @property
    def chltype(self) -> str:
        return str(self.record.attrs.get("CHLTYPE", ""))

    @property
    def name(self) -> str:
        return self.record.name

    def save(self, tx: Transaction) -> None:
        self.status.store(self.record.status, self.chltype)
        tx.put_status(self.record)

    def say(self, tx: Transaction, when: float, event: str, **fields: Any) -> None:
        """The console message of an event, in the platform's style."""
        say(tx, self.system, self.name, when, event, **fields)


@dataclass
class Work:
    """What a step needs: the transaction, the clock, and the handles it opened (they
    hear of a rollback)."""

    store: Store
    clock: Clock
    tx: Transaction
    now: float
    handles: list[QueueHandle] = field(default_factory=list)

    def open(self, system: str, queue: str, platform: str, purpose: str) -> QueueHandle:
        handle = open_queue(self.store, self.clock, system, queue, platform)
        handle.open(self.tx, purpose)
        self.handles.append(handle)
        return handle

    def close_all(self) -> None:
        for handle in self.handles:
            handle.close(self.tx)
        self.handles.clear()

    def rolled_back(self) -> None:
        for handle in self.handles:
            handle.rolled_back(self.tx)
        self.handles.clear()


def say(tx: Transaction, system: SystemRecord, name: str, when: float, event: str, **fields: Any) -> None:
    """The console message of a channel event (of channel `name`, defined or not), in
    the platform's style."""
    ztpf_id, zos_id = MESSAGES[event]
    msg_id = zos_id if system.platform == "zos" else ztpf_id
    if msg_id:
        console(tx, system, when, msg_id, CSECT if system.platform == "zos" else "", name=name, **fields)


def rcname(reason: int) -> str:
    return NAMES.get(reason) or _MORE_NAMES.get(reason, "MQRC_UNKNOWN")


def int_value(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def qmgr_name(tx: Transaction, system: SystemRecord) -> str:
    manager = queue_manager(tx, system)
    return manager.name if manager is not None else system.name


def maxmsgl(tx: Transaction, end: End) -> int:
    """A channel end's MAXMSGL; 0 (z/OS) means its queue manager's."""
    value = int_value(end.record.attrs.get("MAXMSGL"), 0)
    if value:
        return value
    manager = queue_manager(tx, end.system)
    return int_value(manager.attrs.get("MAXMSGL") if manager is not None else None, 4194304)
