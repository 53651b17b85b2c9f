"""The message channel agents: a sender channel moves the messages of its transmission
queue to the queue manager its CONNAME names, where the receiver channel of the same
name puts each one to the queue its transmission header names.

Both ends live in one store, but the protocol is MQ's: at start the sender binds
(finds its partner, negotiates the compression technique, the batch size and the
largest message, resolves a batch left in doubt and checks the sequence numbers), then
moves batches, each in two transactions:

1. send and receive: the batch is read from the transmission queue (its messages stay
   there, marked in flight), compressed as negotiated, inflated on the receiving side
   within its declared length and put to the destination queues (or the partner's
   dead-letter queue); the receiver records the batch's last sequence number and its
   logical unit of work id (LUWID), the sender records the batch as in doubt. Commit.
2. confirm: the sender sees the receiver holds the batch's LUWID and removes the
   messages from its transmission queue; its sequence number moves on; and the next
   batch, if there is one, is sent in the same transaction (its step 1). Commit.

A process killed between the two leaves the batch in doubt: whoever drives the channel
next (any process that ticks) asks the receiver and commits (the receiver has the
batch) or backs out (it has not), so no message is lost or duplicated. An operator can
do the same with RESOLVE CHANNEL, and RESET the sequence numbers.

Everything here runs from `tick`: one timer per system (`mq-channels`) takes one step
of each of the system's sender channels per run (bind, send a batch, or confirm one
and send the next) in the tick's transaction; a failing step (corrupt compressed data,
a dead-letter queue that refuses) rolls the run back and sends its channel to
RETRYING, and the others step again at once. The compression and inflation of a
batch's messages run in chunks beside the store work, in a helper process or a thread
(offload.py). Commands call
`start`, `stop`, `reset`, `resolve`, `start_chinit` and `stop_chinit` inside their own
transaction.
"""

from __future__ import annotations

import json
import math
import os
import signal
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mqtool.clock import Clock
from mqtool.engine.channels import deadletter, offload, wire
from mqtool.engine.channels.conname import ConnameError
from mqtool.engine.channels.conname import parse as parse_conname
from mqtool.engine.channels.partner import (
    Platform,
    chinit_active,
    deadq,
    listening,
    platform_of,
    queue_manager,
    started,
)
from mqtool.engine.channels.status import (
    ACTIVE_STATES,
    BINDING,
    INACTIVE,
    RETRYING,
    RUNNING,
    STOPPED,
    ChannelStatus,
    InDoubt,
    Totals,
    next_seq,
)
from mqtool.engine.console import console
from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.message import PutOptions
from mqtool.engine.core.reasons import (
    GET_INHIBITED,
    MSG_TOO_BIG_FOR_CHANNEL,
    NAMES,
    UNKNOWN_OBJECT_NAME,
    MQError,
)
from mqtool.engine.platforms import open_queue
from mqtool.engine.timers import TickContext, Wake, schedule, timer
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.state import messages as runs

if TYPE_CHECKING:
    from mqtool.state import Store

CHANNEL_TIMER = "mq-channels"
POLL = 0.25  # seconds between looks at an idle running channel's transmission queue
# Retry schedule of a channel that cannot run: MQ's defaults SHORTRTY(10) SHORTTMR(60)
# LONGTMR(1200) (LONGRTY 999999999 never runs out); mqtool has no keywords for them.
SHORT_RETRIES = 10
SHORT_INTERVAL = 60.0
LONG_INTERVAL = 1200.0
MQRC_OBJECT_IN_USE = 2042
MQRC_UNKNOWN_REMOTE_Q_MGR = 2087
# Reason names the core's table does not hold (only channels give these reasons).
_MORE_NAMES = {MQRC_OBJECT_IN_USE: "MQRC_OBJECT_IN_USE", MQRC_UNKNOWN_REMOTE_Q_MGR: "MQRC_UNKNOWN_REMOTE_Q_MGR"}
CSECT = "CSQXRCTL"  # the channel initiator module named in z/OS console messages (mqtool's choice)
CRASH_VARIABLE = "MQTOOL_TEST_CHANNEL_CRASH"  # tests only: "send" or "confirm" (see _test_crash)

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
}


class Refused(Exception):
    """A channel command that the channel's state does not allow; `kind` says why:
    active (the channel is running or binding), chinit (the z/OS channel initiator is not
    active), not_in_doubt, chltype (not for this channel type), chinit_active,
    chinit_inactive, get_inhibited (RESOLVE COMMIT while the transmission queue is
    GET-DISABLED)."""

    def __init__(self, kind: str, state: str = "") -> None:
        super().__init__(kind, state)
        self.kind = kind
        self.state = state


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
        ztpf_id, zos_id = MESSAGES[event]
        msg_id = zos_id if self.system.platform == "zos" else ztpf_id
        if msg_id:
            console(
                tx, self.system, when, msg_id, CSECT if self.system.platform == "zos" else "", name=self.name, **fields
            )


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


# Batches this process sent and has not confirmed yet: an in-doubt batch that is not
# among them was left by a process that ended (the confirm is then a resynchronisation).
_SENT_HERE: set[tuple[str, str, str, str]] = set()


# -- commands ---------------------------------------------------------------------------


def start(tx: Transaction, system: SystemRecord, record: ObjectRecord, now: float) -> None:
    """START: a sender binds at the next tick (BINDING; a retrying one retries now); a
    receiver or server-connection channel that was stopped accepts partners again."""
    end = End.of(system, record)
    status = end.status
    if system.platform == "zos" and not chinit_active(system, queue_manager(tx, system)):
        raise Refused("chinit")
    if end.chltype != "SDR":
        if status.state == STOPPED:
            status.state = INACTIVE
            end.save(tx)
        return
    if status.state in (RUNNING, BINDING):
        raise Refused("active", status.state)
    status.state = BINDING
    status.retries = 0
    status.restart = False
    end.save(tx)
    schedule(tx, system.name, CHANNEL_TIMER, now)


def stop(store: Store, clock: Clock, tx: Transaction, system: SystemRecord, record: ObjectRecord) -> None:
    """STOP: the channel ends and stays STOPPED until START (a sender's messages stay on
    its transmission queue; a batch in doubt is confirmed first when the partner can
    say whether it has it)."""
    if system.platform == "zos" and not chinit_active(system, queue_manager(tx, system)):
        raise Refused("chinit")
    work = Work(store, clock, tx, clock.timestamp())
    end = End.of(system, record)
    _end_channel(work, end, STOPPED)


def reset(tx: Transaction, system: SystemRecord, record: ObjectRecord, seqnum: int) -> None:
    """RESET SEQNUM: the channel's sequence number becomes `seqnum` (at once when the
    channel is not running, else at its next start); a sender tells its receiver at the
    next start."""
    if system.platform == "zos" and not chinit_active(system, queue_manager(tx, system)):
        raise Refused("chinit")
    end = End.of(system, record)
    if end.chltype == "SVRCONN":
        raise Refused("chltype")
    status = end.status
    if status.state in (RUNNING, BINDING):
        raise Refused("active", status.state)
    status.seq = seqnum
    status.reset = end.chltype == "SDR"
    status.saved = True
    end.save(tx)


def resolve(
    store: Store, clock: Clock, tx: Transaction, system: SystemRecord, record: ObjectRecord, commit: bool
) -> int:
    """RESOLVE ACTION(COMMIT|BACKOUT) of a stopped (or inactive) sender's batch in doubt:
    COMMIT removes its messages from the transmission queue (the receiver has them),
    BACKOUT leaves them to be sent again. Returns how many messages the batch held."""
    if system.platform == "zos" and not chinit_active(system, queue_manager(tx, system)):
        raise Refused("chinit")
    end = End.of(system, record)
    if end.chltype != "SDR":
        raise Refused("chltype")
    if end.status.state in ACTIVE_STATES:
        # A retrying channel resolves its batch itself when it binds.
        raise Refused("active", end.status.state)
    indoubt = end.status.indoubt
    if indoubt is None:
        raise Refused("not_in_doubt")
    work = Work(store, clock, tx, clock.timestamp())
    if commit and _get_inhibited(work, end):
        raise Refused("get_inhibited")
    _settle(work, end, commit)
    work.close_all()
    end.save(tx)
    return indoubt.count


def start_chinit(tx: Transaction, system: SystemRecord, now: float) -> None:
    """START CHINIT (z/OS): channels that were running when it stopped start again."""
    manager = queue_manager(tx, system)
    assert manager is not None
    if chinit_active(system, manager):
        raise Refused("chinit_active")
    manager.status["chinit"] = "ACTIVE"
    tx.put_status(manager)
    console(tx, system, now, "CSQX001I", CSECT)
    for record in tx.objects(system.name, "CHANNEL"):
        end = End.of(system, record)
        if end.status.restart:
            end.status.restart = False
            end.status.state = BINDING
            end.status.retries = 0
            end.save(tx)
            schedule(tx, system.name, CHANNEL_TIMER, now)
    End(system, manager, ChannelStatus()).say(tx, now, "chinit_started")


def stop_chinit(store: Store, clock: Clock, tx: Transaction, system: SystemRecord) -> None:
    """STOP CHINIT (z/OS): every channel ends (INACTIVE); the senders that were active
    start again with the next START CHINIT."""
    manager = queue_manager(tx, system)
    assert manager is not None
    if not chinit_active(system, manager):
        raise Refused("chinit_inactive")
    work = Work(store, clock, tx, clock.timestamp())
    for record in tx.objects(system.name, "CHANNEL"):
        end = End.of(system, record)
        if end.status.state in ACTIVE_STATES:
            restart = end.chltype == "SDR"
            _end_channel(work, end, INACTIVE)
            if restart:
                end.status.restart = True
                end.save(tx)
    manager.status["chinit"] = "INACTIVE"
    tx.put_status(manager)
    End(system, manager, ChannelStatus()).say(tx, work.now, "chinit_stopped")


def deleted(tx: Transaction, system: SystemRecord, record: ObjectRecord) -> None:
    """DELETE of a stopped channel: a batch it held in doubt is forgotten, its messages
    stay on the transmission queue (a later channel sends them again)."""
    end = End.of(system, record)
    if end.chltype == "SDR" and end.status.indoubt is not None:
        _mark_in_flight(tx, end, [])


def _end_channel(work: Work, end: End, state: str) -> None:
    """Ends one end of a channel (STOP, STOP CHINIT) and tells the other end."""
    tx, now = work.tx, work.now
    status = end.status
    was = status.state
    if end.chltype == "SDR":
        partner = _partner(work, end)
        indoubt = status.indoubt
        if indoubt is not None and isinstance(partner, End) and not _get_inhibited(work, end):
            mine = _sent_key(work, end, indoubt.luwid) in _SENT_HERE
            committed = _settle(work, end, partner.status.luwid == indoubt.luwid)
            work.close_all()
            if not mine:
                _announce_resolution(work, end, partner, indoubt, committed)
        receiver = _receiver_of(work, end)
        if receiver is not None:
            _release(work, end, receiver)
    else:
        status.bound = ""
    status.state = state
    end.save(tx)
    if was in ACTIVE_STATES:
        end.say(tx, now, "stopped")


# -- the timer --------------------------------------------------------------------------


@timer(CHANNEL_TIMER)
def run_channels(context: TickContext, tx: Transaction, system: SystemRecord, due: float) -> float | Wake | None:
    """One step of each of the system's sender channels that has something to do;
    returns when the next step is due (at once while a channel has work)."""
    platform = platform_of(system)
    # Events are stamped with the time the step was due (a catch-up reports them when
    # they happened, as the other timers do); an idle channel looks again a poll after
    # the instant the tick catches up to, so a long .advance costs one look.
    now = due
    wakes: list[float] = []  # of channels that wait (retrying, idle): they repeat what they found
    acting: list[float] = []  # of channels with work (binding, sending)
    again: list[End] = []  # retried and failed as before: the same until something else acts
    for record in tx.objects(system.name, platform.channel_type):
        if record.attrs.get("CHLTYPE") != "SDR":
            continue
        end = End.of(system, record)
        state = end.status.state
        if state not in ACTIVE_STATES:
            continue
        if state == RETRYING and end.status.retry_at > now:
            wakes.append(end.status.retry_at)
            continue
        cause = end.status.reason
        work = Work(context.store, context.clock, tx, now)
        try:
            busy = _step(work, end)
            work.close_all()
        except Exception as error:  # a channel error is never a crash of the process that ticks
            _fail(work, end, error)
            return due  # the channels stepped before it step again at once
        status = end.status
        if status.state == RETRYING and state == RETRYING and status.reason == cause:
            again.append(end)
        elif status.state == RETRYING:
            wakes.append(status.retry_at)
        elif status.state == BINDING or (status.state == RUNNING and busy):
            acting.append(due)
        elif status.state == RUNNING:
            wakes.append(max(due, context.now) + POLL)
    if again:
        # Catching up over a gap: the attempts until anything else can act would fail
        # the same way, so they are counted, not made (one run, not one per attempt).
        until = min([context.quiet_until(tx, system.name, CHANNEL_TIMER), *acting])
        for end in again:
            if _skip_retries(end.status, until):
                end.save(tx)
            wakes.append(end.status.retry_at)
    if not (wakes or acting):
        return None
    # Only channels with work can change what another timer sees (see timers.quiet_until).
    return Wake(min(wakes + acting), passive=not acting)


def _skip_retries(status: ChannelStatus, until: float) -> bool:
    """Counts the retries due up to `until` as made and failed (the short ones one by
    one, the long ones at once), as _retry would; whether there were any."""
    skipped = False
    while status.retry_at <= until:
        skipped = True
        if status.retries >= SHORT_RETRIES:
            attempts = math.floor((until - status.retry_at) / LONG_INTERVAL) + 1
            status.retries += attempts
            status.retry_at += attempts * LONG_INTERVAL
            break
        status.retries += 1
        status.retry_at += SHORT_INTERVAL if status.retries <= SHORT_RETRIES else LONG_INTERVAL
    return skipped


def _fail(work: Work, end: End, error: Exception) -> None:
    """A step failed (a batch that cannot complete, or anything unexpected): the run's
    transaction is rolled back whole and begun again, and the channel retries. A
    savepoint around each step would roll back less, but SQLite would copy every page a
    batch touches to its statement journal first, which doubles the cost of a batch."""
    tx = work.tx
    tx.conn.execute("ROLLBACK")
    tx.conn.execute("BEGIN IMMEDIATE")
    work.rolled_back()
    fresh = tx.get_object(end.system.name, end.record.type, end.name)
    if fresh is None:
        return
    end.record, end.status = fresh, ChannelStatus.load(fresh.status)
    if isinstance(error, BatchFailed):
        _retry(work, end, error.cause, **error.fields)
    else:
        _retry(work, end, "batch", detail=f"{type(error).__name__}: {error}")


def _step(work: Work, end: End) -> bool:
    status = end.status
    manager = queue_manager(work.tx, end.system)
    if not chinit_active(end.system, manager):
        _retry(work, end, "own_stopped", qmgr=manager.name if manager else end.system.name)
        return False
    if status.state in (BINDING, RETRYING):
        return _bind(work, end)
    partner = _partner(work, end)
    if not isinstance(partner, End):
        cause, fields = partner
        _retry(work, end, cause, **fields)
        return False
    indoubt = status.indoubt
    if indoubt is None:
        return _send(work, end, partner)
    _test_crash("confirm")
    mine = _sent_key(work, end, indoubt.luwid) in _SENT_HERE
    removals: list[Iterator[None]] = []
    committed = _settle(work, end, partner.status.luwid == indoubt.luwid, removals)
    if not mine:
        _announce_resolution(work, end, partner, indoubt, committed)
    end.save(work.tx)
    if committed:
        # The confirmation of one batch and the next batch share a transaction, as MQ
        # pipelines them: one commit per batch. A confirmed message is removed as each
        # new one is put, so the pages it frees are the ones the new one fills.
        _send(work, end, partner, removals[0] if removals else None, set(indoubt.rows))
    for removal in removals:
        for _ in removal:
            pass
    return True


# -- binding ----------------------------------------------------------------------------


def _partner(work: Work, end: End) -> End | tuple[str, dict[str, Any]]:
    """The receiving end a sender can talk to now, or why not (a retry cause and its
    message's fields)."""
    tx = work.tx
    conname = str(end.record.attrs.get("CONNAME", "")) if end.status.state != RUNNING else end.status.conname
    try:
        addresses = parse_conname(conname)  # IBM reads CONNAME when the channel starts, not at DEFINE
    except ConnameError:
        return "bad_conname", {"conname": conname}
    found = listening(tx, addresses)
    if found is None:
        return "no_listener", {"conname": conname}
    system = found[0]
    manager = queue_manager(tx, system)
    qmgr = manager.name if manager is not None else system.name
    fields: dict[str, Any] = {"conname": conname, "qmgr": qmgr}
    if not started(manager):
        return "partner_stopped", fields
    if not chinit_active(system, manager):
        return "partner_chinit", fields
    record = tx.get_object(system.name, platform_of(system).channel_type, end.name)
    if record is None:
        return "remote_undefined", fields
    partner = End.of(system, record)
    if partner.chltype != "RCVR":
        return "remote_type", fields | {"chltype": partner.chltype}
    if partner.status.state == STOPPED:
        return "remote_stopped", fields
    if partner.status.bound and partner.status.bound != end.system.name and partner.status.state == RUNNING:
        return "remote_busy", fields | {"other": partner.status.bound}
    if end.status.state == RUNNING and (partner.status.state != RUNNING or partner.status.bound != end.system.name):
        # The receiver ended (its channel initiator stopped): the session is gone.
        return "remote_ended", fields
    return partner


def _receiver_of(work: Work, end: End) -> End | None:
    """The receiver a running sender is bound to, whatever its state now."""
    system = work.tx.get_system(end.status.partner) if end.status.partner else None
    if system is None:
        return None
    record = work.tx.get_object(system.name, platform_of(system).channel_type, end.name)
    return End.of(system, record) if record is not None else None


def _release(work: Work, end: End, partner: End) -> None:
    """The sender ended: its receiver, if still bound to it, is no longer active."""
    if partner.status.bound != end.system.name:
        return
    partner.status.bound = ""
    if partner.status.state == RUNNING:
        partner.status.state = INACTIVE
        partner.say(work.tx, work.now, "ended", qmgr=_qmgr_name(work.tx, end.system))
    partner.save(work.tx)


def _bind(work: Work, end: End) -> bool:
    """Starts a sender: partner, transmission queue, in-doubt batch, sequence numbers,
    negotiation. RUNNING, RETRYING, or STOPPED on a sequence number error."""
    tx, now = work.tx, work.now
    status, attrs = end.status, end.record.attrs
    partner = _partner(work, end)
    if not isinstance(partner, End):
        cause, fields = partner
        _retry(work, end, cause, **fields)
        return False
    xmitq = str(attrs.get("XMITQ", ""))
    problem = _xmitq_problem(work, end, xmitq)
    if problem:
        _retry(work, end, "xmitq", queue=xmitq, reason=problem, rcname=_rcname(problem))
        return False
    status.xmitq = xmitq
    receiver = partner.status
    indoubt = status.indoubt
    if indoubt is not None:
        committed = _settle(work, end, receiver.luwid == indoubt.luwid)
        _announce_resolution(work, end, partner, indoubt, committed)
    if status.reset:
        receiver.seq = status.seq
        status.reset = False
    elif receiver.seq != status.seq:
        status.state = STOPPED
        status.reason = "sequence"
        end.say(tx, now, "sequence", sent=next_seq(status.seq), expected=next_seq(receiver.seq))
        end.save(tx)
        partner.save(tx)
        return False
    manager = queue_manager(tx, partner.system)
    status.partner = partner.system.name
    status.rqmname = manager.name if manager is not None else partner.system.name
    status.conname = str(attrs.get("CONNAME", ""))
    compmsg = attrs.get("COMPMSG") or ["NONE"]
    status.technique = wire.negotiate(compmsg, partner.record.attrs.get("COMPMSG") or ["NONE"], partner.system.platform)
    status.last_technique = "NONE"
    status.batchsz = min(_int(attrs.get("BATCHSZ"), 50), _int(partner.record.attrs.get("BATCHSZ"), 50))
    status.maxmsgl = min(_maxmsgl(tx, end), _maxmsgl(tx, partner))
    queue = tx.get_object(end.system.name, end.platform.local_type, xmitq)
    status.compsize = _int(queue.attrs.get("COMPSIZE") if queue is not None else 0, 0)
    status.state = RUNNING
    status.started = now
    status.retries = 0
    status.reason = ""
    status.total = Totals()
    status.batch = Totals()
    receiver.state = RUNNING
    receiver.bound = end.system.name
    receiver.partner = end.system.name
    receiver.rqmname = _qmgr_name(tx, end.system)
    receiver.conname = status.conname
    receiver.technique = status.technique
    receiver.last_technique = "NONE"
    receiver.batchsz = status.batchsz
    receiver.maxmsgl = status.maxmsgl
    receiver.started = now
    receiver.total = Totals()
    receiver.batch = Totals()
    end.say(tx, now, "started", qmgr=status.rqmname, conname=status.conname, technique=status.technique,
            batchsz=status.batchsz)  # fmt: skip
    partner.say(tx, now, "receiving", qmgr=receiver.rqmname, technique=receiver.technique)
    end.save(tx)
    partner.save(tx)
    return True


def _xmitq_problem(work: Work, end: End, xmitq: str) -> int:
    """The reason code that keeps a sender from its transmission queue; 0 when none."""
    tx = work.tx
    queue = tx.get_object(end.system.name, end.platform.local_type, xmitq)
    if queue is None or queue.attrs.get("USAGE") != "XMITQ":
        return UNKNOWN_OBJECT_NAME
    if queue.attrs.get("GET", "ENABLED") == "DISABLED":
        return GET_INHIBITED
    for other in tx.objects(end.system.name, end.platform.channel_type):
        if other.name == end.name or other.attrs.get("CHLTYPE") != "SDR":
            continue
        theirs = ChannelStatus.load(other.status)
        if theirs.state in (RUNNING, BINDING) and theirs.xmitq == xmitq:
            return MQRC_OBJECT_IN_USE
    return 0


def _get_inhibited(work: Work, end: End) -> bool:
    """Whether the sender's transmission queue is GET-DISABLED: a batch in doubt cannot be
    removed from it then, and stays in doubt."""
    xmitq = end.status.xmitq or str(end.record.attrs.get("XMITQ", ""))
    queue = work.tx.get_object(end.system.name, end.platform.local_type, xmitq)
    return queue is not None and queue.attrs.get("GET", "ENABLED") == "DISABLED"


def _maxmsgl(tx: Transaction, end: End) -> int:
    """A channel end's MAXMSGL; 0 (z/OS) means its queue manager's."""
    value = _int(end.record.attrs.get("MAXMSGL"), 0)
    if value:
        return value
    manager = queue_manager(tx, end.system)
    return _int(manager.attrs.get("MAXMSGL") if manager is not None else None, 4194304)


def _qmgr_name(tx: Transaction, system: SystemRecord) -> str:
    manager = queue_manager(tx, system)
    return manager.name if manager is not None else system.name


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _retry(work: Work, end: End, cause: str, **fields: Any) -> None:
    """The channel cannot run now: RETRYING, next attempt after the retry interval. The
    console hears of it when the channel starts retrying or the cause changes."""
    tx, now = work.tx, work.now
    status = end.status
    was = status.state
    partner = _receiver_of(work, end) if was == RUNNING else None
    if partner is not None:
        _release(work, end, partner)
    status.retries += 1
    interval = SHORT_INTERVAL if status.retries <= SHORT_RETRIES else LONG_INTERVAL
    status.retry_at = now + interval
    status.state = RETRYING
    if was != RETRYING or status.reason != cause:
        fields.setdefault("qmgr", status.rqmname)
        fields.setdefault("conname", status.conname or str(end.record.attrs.get("CONNAME", "")))
        end.say(tx, now, cause, seconds=int(interval), **fields)
    status.reason = cause
    end.save(tx)


# -- a batch ----------------------------------------------------------------------------

# The batch's row ids first (no message data read), then each message as it is sent:
# its data is read right before it is put, as a get reads it.
_BATCH = (
    "SELECT id, max(original_length, stored_length) FROM messages "
    "WHERE id > ? AND id < ? AND (expiry IS NULL OR expiry > ?) ORDER BY id LIMIT ?"
)
_MESSAGE = (
    "SELECT priority, msgid, correlid, persistent, expiry, original_length, codec, header, payload "
    "FROM messages WHERE id = ?"
)


@dataclass
class _Receiving:
    """The receiving end's side of one batch: the destination queues it opened and what
    it counted."""

    partner: End
    qmgr: str
    deadq: str
    handles: dict[str, QueueHandle | MQError] = field(default_factory=dict)
    headers: dict[str, dict[str, Any]] = field(default_factory=dict)  # transmission header text -> fields
    totals: Totals = field(default_factory=Totals)
    dead: dict[tuple[str, int], int] = field(default_factory=dict)  # (queue, reason) -> messages


def _send(
    work: Work, end: End, partner: End, removal: Iterator[None] | None = None, confirmed: set[int] | None = None
) -> bool:
    """Transaction 1 of a batch: up to BATCHSZ messages read from the transmission queue
    (they stay there, in flight), sent, received and put; the receiver records the
    batch, the sender holds it in doubt. False when there was nothing to send. With
    `removal`, the confirmed batch's messages (row ids `confirmed`) are still on the
    queue: they are not sent again, and one is removed before each message is put."""
    tx, now, clock = work.tx, work.now, work.clock
    status = end.status
    problem = _xmitq_problem(work, end, status.xmitq)
    if problem:
        raise BatchFailed("xmitq", queue=status.xmitq, reason=problem, rcname=_rcname(problem))
    qkey = runs.queue_key(tx.conn, end.system.name, status.xmitq)
    if qkey is None:
        return False
    low, high = runs.span(qkey)
    batchsz = max(1, status.batchsz)
    confirmed = confirmed or set()
    found = tx.conn.execute(_BATCH, (low, high, clock.timestamp(), batchsz + len(confirmed))).fetchall()
    chosen = [row for row in found if row[0] not in confirmed][:batchsz]
    row_ids = [int(row[0]) for row in chosen]
    if not row_ids:
        return False
    manager = queue_manager(tx, partner.system)
    assert manager is not None
    batch = _Batch(work, end, _Receiving(partner, manager.name, deadq(partner.system, manager)), removal)
    read = tx.conn.cursor()
    # The sender's compression and the receiver's inflation of the next chunk run beside
    # the store work of this one; chunks grow from FIRST_CHUNK so that the first
    # deliveries wait little.
    carrier = offload.Carrier(clock.frozen_at is not None, sum(int(row[1]) for row in chosen))
    try:
        ahead: deque[tuple[list[_Message], offload.Pending]] = deque()
        chunk: list[_Message] = []
        chunk_bytes = 0
        limit = FIRST_CHUNK
        for row_id in row_ids:
            # fetchall, not fetchone: the statement ends, so the writes that follow need
            # not keep a reading cursor's place in the table.
            (row,) = read.execute(_MESSAGE, (row_id,)).fetchall()
            message = _prepare(work, batch.receiving, row_id, row)
            chunk.append(message)
            chunk_bytes += max(message.length, len(message.payload))
            if len(chunk) >= limit or chunk_bytes >= offload.SLOT_BYTES // 2:
                ahead.append((chunk, carrier.start(_jobs(end, chunk))))
                chunk, chunk_bytes, limit = [], 0, min(CHUNK_MESSAGES, limit * 2)
                while len(ahead) > AHEAD_CHUNKS:
                    batch.deliver(*ahead.popleft())
        if chunk:
            ahead.append((chunk, carrier.start(_jobs(end, chunk))))
        while ahead:
            batch.deliver(*ahead.popleft())
    finally:
        carrier.close()
    sent, receiving = batch.sent, batch.receiving
    seq = next_seq(status.seq, len(row_ids))
    status.luw += 1
    luwid = f"{int(end.record.created) & 0xFFFFFFFF:08X}{status.luw & 0xFFFFFFFF:08X}"
    status.indoubt = InDoubt(
        luwid=luwid, first=next_seq(status.seq), last=seq, rows=row_ids, count=sent.msgs,
        before=sent.before, wire=sent.wire, compressed=sent.compressed, comp_before=sent.comp_before,
        comp_us=sent.comp_us, stored=sent.stored, inflated=sent.inflated, last_technique=batch.last_technique,
    )  # fmt: skip
    status.saved = True
    _mark_in_flight(tx, end, row_ids)
    receiver = partner.status
    receiver.seq = seq
    receiver.luwid = luwid
    receiver.last_technique = batch.last_technique
    receiver.last_message = now
    receiver.saved = True
    totals = receiving.totals
    totals.batches = 1
    receiver.batch = totals
    receiver.total.add(totals)
    for (queue, reason), count in sorted(receiving.dead.items()):
        partner.say(tx, now, "dead_letter", queue=queue, deadq=receiving.deadq, reason=reason,
                    rcname=_rcname(reason), count=count, qmgr=receiving.qmgr)  # fmt: skip
    partner.save(tx)
    end.save(tx)
    _SENT_HERE.add(_sent_key(work, end, luwid))
    return True


# Chunks of messages whose wire work (offload.py) runs ahead of their delivery: up to
# CHUNK_MESSAGES messages, ended once they reach half a helper slot of bytes (so that a
# message up to half a slot long still fits), AHEAD_CHUNKS of them under way while one
# is delivered.
FIRST_CHUNK = 4
CHUNK_MESSAGES = 32
AHEAD_CHUNKS = 1


@dataclass
class _Message:
    """One message of a batch as read from the transmission queue, with what its
    receiver decided before anything was inflated."""

    row_id: int
    options: PutOptions
    length: int
    codec: str  # as stored on the transmission queue
    payload: bytes  # as stored
    destination: str
    rqmname: str
    handle: QueueHandle | None
    reason: int  # why it cannot be delivered (0: it can, as far as the length says)
    inflate: bool  # may be inflated: for its destination, or for the dead-letter queue


def _prepare(work: Work, receiving: _Receiving, row_id: int, row: tuple[Any, ...]) -> _Message:
    """The receiving side's checks of one message, on its declared length: its
    destination (opened once per batch), and whether it may be inflated at all."""
    priority, msgid, correlid, persistent, expiry, length, codec, header_text, payload = row
    header = receiving.headers.get(header_text)
    if header is None:
        # The messages of a batch mostly share their transmission header: read once.
        header = receiving.headers[header_text] = json.loads(header_text) if header_text else {}
    options = PutOptions(
        persistent=bool(persistent),
        priority=int(priority),
        msgid=bytes(msgid),
        correlid=bytes(correlid),
        expiry=None if expiry is None else max(0.0, float(expiry) - work.clock.timestamp()),
    )
    partner = receiving.partner
    destination = str(header.get("rname") or "")
    rqmname = str(header.get("rqmname") or receiving.qmgr)
    reason = 0
    handle: QueueHandle | None = None
    if rqmname != receiving.qmgr:
        reason = MQRC_UNKNOWN_REMOTE_Q_MGR
    elif not destination:
        reason = UNKNOWN_OBJECT_NAME
    else:
        opened = receiving.handles.get(destination)
        if opened is None:
            try:
                opened = work.open(partner.system.name, destination, partner.system.platform, "put")
            except MQError as error:
                opened = error
            receiving.handles[destination] = opened
        if isinstance(opened, MQError):
            reason = opened.reason
        else:
            handle = opened
            resolved = handle.resolved
            assert resolved is not None
            limit = min(resolved.maxmsgl, resolved.qmgr_maxmsgl, partner.status.maxmsgl or length)
            if length > limit:
                reason = MSG_TOO_BIG_FOR_CHANNEL
    inflate = reason == 0 or length + deadletter.LENGTH <= _deadq_limit(work, receiving)
    return _Message(int(row_id), options, int(length), str(codec), bytes(payload), destination, rqmname, handle,
                    reason, inflate)  # fmt: skip


def _jobs(end: End, chunk: list[_Message]) -> list[offload.Job]:
    status = end.status
    jobs = []
    for message in chunk:
        technique = _technique_for(end.system, status.technique, message.codec)
        jobs.append(offload.Job(message.payload, message.codec, message.length, technique, status.compsize,
                                message.inflate))  # fmt: skip
    return jobs


class _Batch:
    """The delivery of one batch's messages, in order, and what both ends count."""

    def __init__(self, work: Work, end: End, receiving: _Receiving, removal: Iterator[None] | None) -> None:
        self.work = work
        self.end = end
        self.receiving = receiving
        self.removal = removal
        self.sent = Totals()
        self.last_technique = end.status.last_technique

    def deliver(self, chunk: list[_Message], pending: offload.Pending) -> None:
        """Delivers a chunk's messages in order, once its wire work is done."""
        for message, result in zip(chunk, pending.result(), strict=True):
            if isinstance(result, wire.CarryError):
                where = f"message on {self.end.status.xmitq} does not inflate" if result.side == "send" else (
                    "message data received does not inflate")  # fmt: skip
                raise BatchFailed("batch", detail=f"{where}: {result.error}")
            self._deliver(message, result)

    def _deliver(self, message: _Message, done: wire.Carried) -> None:
        sent = self.sent
        length = message.length
        sent.msgs += 1
        sent.before += length
        sent.wire += done.wire_length
        if done.codec:
            sent.compressed += 1
            sent.comp_before += length
            sent.comp_wire += done.wire_length
            sent.stored += 0 if done.compressed_now else 1
            if done.compressed_now:
                sent.comp_us += done.send_us
        if done.inflated:
            sent.inflated += 1
        self.last_technique = done.codec or wire.NONE
        if self.removal is not None:
            next(self.removal, None)
        self._receive(message, done)
        _test_crash("send")

    def _receive(self, message: _Message, done: wire.Carried) -> None:
        """The receiving side of one message: put, or to the dead-letter queue."""
        receiving, work = self.receiving, self.work
        totals = receiving.totals
        totals.msgs += 1
        totals.before += message.length
        totals.wire += done.wire_length
        if done.codec and done.original is not None:
            totals.compressed += 1
            totals.comp_before += message.length
            totals.comp_wire += done.wire_length
            totals.comp_us += done.receive_us
            if _hardware(receiving.partner.system, done.codec):
                totals.hardware += 1
            else:
                totals.software += 1
        original = done.original if done.original is not None else b""
        reason = message.reason
        if message.handle is not None and reason == 0:
            try:
                message.handle.put(work.tx, original, message.options)
                return
            except MQError as error:
                reason = error.reason
        _dead_letter(work, self.end, receiving, message.destination or "(blank)", message.rqmname, reason, original,
                     message.length, message.options)  # fmt: skip
        totals.dead += 1


def _technique_for(system: SystemRecord, negotiated: str, stored_codec: str) -> str:
    """The technique one message is sent with: the negotiated one. A z/TPF channel
    compresses only with the zEDC accelerator (seed 000), so on an older CPU it sends a
    message uncompressed, unless it is stored compressed in the zlib format and can go
    as it is; z/OS compresses in software when it has no accelerator."""
    if negotiated == wire.NONE or system.platform == "zos" or system.has_accelerator:
        return negotiated
    if stored_codec in wire.ZLIB_STORED and negotiated in wire.ZLIB_TECHNIQUES:
        return negotiated
    return wire.NONE


def _hardware(system: SystemRecord, codec: str) -> bool:
    """Whether a receiver inflates with the accelerator: z/TPF for every zlib technique
    (z15 or later), z/OS for ZLIBFAST only (IBM: only ZLIBFAST can use zEDC)."""
    if not system.has_accelerator or codec == "RLE":
        return False
    return system.platform != "zos" or codec == "ZLIBFAST"


def _deadq_limit(work: Work, receiving: _Receiving) -> int:
    """The largest message the partner's dead-letter queue takes (0: there is none)."""
    handle = _deadq_handle(work, receiving)
    if isinstance(handle, MQError):
        return 0
    resolved = handle.resolved
    assert resolved is not None
    return min(resolved.maxmsgl, resolved.qmgr_maxmsgl)


def _deadq_handle(work: Work, receiving: _Receiving) -> QueueHandle | MQError:
    key = "\0deadq"
    handle = receiving.handles.get(key)
    if handle is None:
        if not receiving.deadq:
            handle = MQError(UNKNOWN_OBJECT_NAME, "no DEADQ")
        else:
            try:
                handle = work.open(receiving.partner.system.name, receiving.deadq, receiving.partner.system.platform,
                                   "put")  # fmt: skip
            except MQError as error:
                handle = error
        receiving.handles[key] = handle
    return handle


def _dead_letter(
    work: Work, end: End, receiving: _Receiving, queue: str, qmgr: str, reason: int, original: bytes, length: int,
    options: PutOptions,
) -> None:  # fmt: skip
    """Puts an undeliverable message to the partner's dead-letter queue behind a dead-letter
    header; a dead-letter queue that is missing or refuses fails the batch."""
    handle = _deadq_handle(work, receiving)
    failure = {"queue": queue, "deadq": receiving.deadq or "(none)", "qmgr": receiving.qmgr}
    if isinstance(handle, MQError):
        raise BatchFailed("deadq", reason=handle.reason, rcname=_rcname(handle.reason), **failure)
    if len(original) != length:
        # Too long even for the dead-letter queue: it was never inflated.
        raise BatchFailed("deadq", reason=MSG_TOO_BIG_FOR_CHANNEL, rcname=_rcname(MSG_TOO_BIG_FOR_CHANNEL), **failure)
    header = deadletter.build(deadletter.DeadLetterHeader(reason, queue, qmgr, end.name, work.clock.timestamp()))
    try:
        handle.put(work.tx, header + original, options)
    except MQError as error:
        raise BatchFailed("deadq", reason=error.reason, rcname=_rcname(error.reason), **failure) from None
    key = (queue, reason)
    receiving.dead[key] = receiving.dead.get(key, 0) + 1


# -- confirm, in-doubt ----------------------------------------------------------------------


def _settle(work: Work, end: End, commit: bool, deferred: list[Iterator[None]] | None = None) -> bool:
    """Ends a sender's batch in doubt: commit removes its messages from the transmission
    queue and moves the sequence number on; backout leaves them to be sent again.
    With `deferred`, the removal is appended there for the caller to run (in the same
    transaction). Returns `commit`."""
    status = end.status
    indoubt = status.indoubt
    assert indoubt is not None
    tx = work.tx
    if commit:
        removal = _removal(work, end, indoubt.rows)
        if deferred is None:
            for _ in removal:
                pass
        else:
            deferred.append(removal)
        status.seq = indoubt.last
        status.luwid = indoubt.luwid
        status.last_technique = indoubt.last_technique
        status.last_message = work.now
        status.saved = True
        batch = Totals(
            msgs=indoubt.count, batches=1, before=indoubt.before, wire=indoubt.wire, compressed=indoubt.compressed,
            comp_before=indoubt.comp_before, comp_us=indoubt.comp_us, stored=indoubt.stored, inflated=indoubt.inflated,
        )  # fmt: skip
        status.batch = batch
        status.total.add(batch)
    status.indoubt = None
    _SENT_HERE.discard(_sent_key(work, end, indoubt.luwid))
    _mark_in_flight(tx, end, [])
    return commit


def _removal(work: Work, end: End, rows: list[int]) -> Iterator[None]:
    """Takes the messages of a confirmed batch off the transmission queue, by row id,
    one per step, with the queue's own remove (its figures and statistics move as for a
    get of the message as stored; the data the channel sent is not read again, and a
    message the sender had to inflate counts in the channel's Inflated To Send)."""
    xmitq = end.status.xmitq or str(end.record.attrs.get("XMITQ", ""))
    try:
        handle = work.open(end.system.name, xmitq, end.system.platform, "get")
    except MQError:
        return  # the queue is gone, and its messages with it
    for row_id in sorted(rows):
        # Gone meanwhile (CLEAR, an application's get): nothing of the channel's to remove.
        handle.remove(work.tx, row_id)
        yield


def _mark_in_flight(tx: Transaction, end: End, rows: list[int]) -> None:
    """Messages of a batch in flight stay in memory: the z/TPF sweeper leaves them."""
    if end.system.platform == "ztpf":
        from mqtool.engine.ztpf.sweeper import set_inflight

        set_inflight(tx, end.system.name, end.status.xmitq, rows)


def _announce_resolution(work: Work, end: End, partner: End, indoubt: InDoubt, committed: bool) -> None:
    """A batch left in doubt (by a process that ended, or a channel that stopped) was
    resolved with the partner."""
    end.say(work.tx, work.now, "resolved", first=indoubt.first, last=indoubt.last, count=indoubt.count,
            qmgr=_qmgr_name(work.tx, partner.system), action="COMMITTED" if committed else "BACKED OUT")  # fmt: skip


def _sent_key(work: Work, end: End, luwid: str) -> tuple[str, str, str, str]:
    return (str(work.store.path), end.system.name, end.name, luwid)


def _rcname(reason: int) -> str:
    return NAMES.get(reason) or _MORE_NAMES.get(reason, "MQRC_UNKNOWN")


_CRASH_AT = os.environ.get(CRASH_VARIABLE, "")


def _test_crash(point: str) -> None:
    """Tests only: kill this process at a point of the protocol (`send`: inside the
    first transaction, before it commits; `confirm`: after the first transaction
    committed, before the second), to prove nothing is lost or duplicated. The variable
    is read when the process starts."""
    if point == _CRASH_AT:
        os.kill(os.getpid(), signal.SIGKILL)
