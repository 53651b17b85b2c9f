"""The message channel agents: a sending channel (SDR, or SVR) moves the messages of its
transmission queue to the queue manager its CONNAME names, where the receiving channel
of the same name (RCVR, or RQSTR) puts each one to the queue its transmission header
names. A requester (RQSTR) starts its server (SVR), which then sends to it, or asks its
sender (SDR) to call it back.

The protocol is MQ's whichever transport carries it: at start the sender binds (finds
its partner, negotiates the compression technique, the batch size, the largest message
and the heartbeat interval, resolves a batch left in doubt and checks the sequence
numbers), then moves batches, each ended by two commits:

1. send and receive: the batch is read from the transmission queue (its messages stay
   there, marked in flight), compressed as negotiated, inflated on the receiving side
   within its declared length and put to the destination queues (or the partner's
   dead-letter queue); the receiver records the batch's last sequence number and its
   logical unit of work id (LUWID), the sender records the batch as in doubt. Commit.
2. confirm: the sender sees the receiver holds the batch's LUWID and removes the
   messages from its transmission queue; its sequence number moves on; and the next
   batch, if there is one, is sent in the same transaction (its step 1). Commit.

A process killed between the two leaves the batch in doubt: whoever drives the channel
next asks the receiver and commits (the receiver has the batch) or backs out (it has
not), so no message is lost or duplicated. An operator can do the same with RESOLVE
CHANNEL, and RESET the sequence numbers.

Two transports carry the batches. In the store (this module): the partner is a system of
the same store (its listener is at the CONNAME), and both ends' work of step 1 is one
transaction. Over TCP (tcp/): the CONNAME is no system of the store; the serving loop
(`mqtool serve`, a shell) connects to the listener there and the receiving store
commits its half when the batch's end arrives, after the sender recorded the batch in
doubt. Both use this module's sending side (`settle`, `retry`, `xmitq_problem` ...) and
receiving.py's receiving side.

The in-store channels run from `tick`: one timer per system (`mq-channels`) takes one
step of each of the system's initiating channels per run (bind, send a batch, or confirm
one and send the next) in the tick's transaction; a failing step (corrupt compressed
data, a dead-letter queue that refuses) rolls the run back and sends its channel to
RETRYING, and the others step again at once. A TCP channel is left to the serving loop.
The compression and inflation of a batch's messages run in chunks beside the store work,
in a helper process or a thread (offload.py); those of the first messages of the next
batch start in the helper while a batch commits (`_look_ahead`). Commands call `start`, `stop`, `reset`,
`resolve`, `start_chinit` and `stop_chinit` inside their own transaction.
"""

from __future__ import annotations

import json
import math
import os
import signal
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zlib_ng.zlib_ng import crc32  # the CRC-32 the store keeps (core/message.py)

from mqtool.clock import Clock
from mqtool.engine.channels import conname as connames
from mqtool.engine.channels import initiator, offload, wire
from mqtool.engine.channels.ends import (
    CSECT,
    MQRC_OBJECT_IN_USE,
    SENDING,
    BatchFailed,
    End,
    Work,
    int_value,
    maxmsgl,
    qmgr_name,
    rcname,
)
from mqtool.engine.channels.partner import chinit_active, listening, platform_of, queue_manager
from mqtool.engine.channels.receiving import Delivery, Receiving, Terms, check, negotiate
from mqtool.engine.channels.receiving import bind as bind_receiver
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
from mqtool.engine.core.message import PutOptions, id_text
from mqtool.engine.core.reasons import GET_INHIBITED, UNKNOWN_OBJECT_NAME, MQError
from mqtool.engine.timers import TickContext, Wake, schedule, timer
from mqtool.engine.zos import logsuspend
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.state import messages as runs

if TYPE_CHECKING:
    from mqtool.state import Store

CHANNEL_TIMER = "mq-channels"
POLL = 0.25  # seconds between looks at an idle running channel's transmission queue
# Retry schedule of a channel that cannot run: its SHORTRTY, SHORTTMR, LONGRTY, LONGTMR
# (MQ's defaults when the channel has none); 0 seconds between retries is taken as 1.
RETRY_DEFAULTS = {"SHORTRTY": 10, "SHORTTMR": 60, "LONGRTY": 999_999_999, "LONGTMR": 1200}
MIN_RETRY_SECONDS = 1.0
DISCINT_DEFAULT = 6000
CRASH_VARIABLE = "MQTOOL_TEST_CHANNEL_CRASH"  # tests only: "send" or "confirm" (see _test_crash)
INITIATING = ("SDR", "SVR", "RQSTR")  # channel types whose START binds a partner


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


# Batches this process sent and has not confirmed yet: an in-doubt batch that is not
# among them was left by a process that ended (the confirm is then a resynchronisation).
_SENT_HERE: set[tuple[str, str, str, str]] = set()


def initiates(record: ObjectRecord) -> bool:
    """Whether START of this channel binds a partner: a sender, a requester, a server
    with a CONNAME (a server without one waits for its requester)."""
    chltype = str(record.attrs.get("CHLTYPE", ""))
    return chltype in ("SDR", "RQSTR") or (chltype == "SVR" and bool(record.attrs.get("CONNAME")))


def over_tcp(tx: Transaction, end: End) -> bool:
    """Whether this initiating end reaches its partner over TCP: its CONNAME names no
    listener of the store (a server started by a requester of the store answers it
    there)."""
    if end.status.requester:
        return False
    conname = str(end.record.attrs.get("CONNAME", ""))
    if not _readable(conname):
        return False  # no connection name: the in-store path says so (bad_conname), no socket
    return listening(tx, conname) is None


def _readable(conname: str) -> bool:
    """Whether a CONNAME is a connection name (IBM reads it when the channel starts, not
    at DEFINE: a template such as <host>(1414) defines, and its channel retries)."""
    try:
        connames.parse_list(conname)
    except connames.ConnameError:
        return False
    return True


# -- commands ---------------------------------------------------------------------------


def start(tx: Transaction, system: SystemRecord, record: ObjectRecord, now: float) -> None:
    """START: a sender, server with a CONNAME or requester binds at the next tick
    (BINDING; a retrying one retries now), or at once in a serving loop over TCP; a
    receiver, a server without CONNAME or a server-connection channel that was stopped
    accepts partners again."""
    end = End.of(system, record)
    status = end.status
    if system.platform == "zos" and not chinit_active(system, queue_manager(tx, system)):
        raise Refused("chinit")
    if not initiates(record):
        if status.state == STOPPED:
            status.state = INACTIVE
            end.save(tx)
        return
    if status.state in (RUNNING, BINDING):
        raise Refused("active", status.state)
    status.state = BINDING
    status.retries = 0
    status.restart = False
    status.requester = ""
    status.waiting = False
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
    status.reset = end.chltype in SENDING
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
    if end.chltype not in SENDING:
        raise Refused("chltype")
    if end.status.state in ACTIVE_STATES:
        # A retrying channel resolves its batch itself when it binds.
        raise Refused("active", end.status.state)
    indoubt = end.status.indoubt
    if indoubt is None:
        raise Refused("not_in_doubt")
    work = Work(store, clock, tx, clock.timestamp())
    if commit and get_inhibited(work, end):
        raise Refused("get_inhibited")
    settle(work, end, commit)
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
    storage = initiator.report(tx, system)
    console(tx, system, now, "CSQX004I", initiator.STORAGE_CSECT, used=storage.used_mb, free=storage.free_mb,
            above_used=storage.above_used_mb, above_free=storage.above_free_mb)  # fmt: skip


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
            restart = initiates(record)
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
    if end.chltype in SENDING and end.status.indoubt is not None:
        mark_in_flight(tx, end, [])


def _end_channel(work: Work, end: End, state: str) -> None:
    """Ends one end of a channel (STOP, STOP CHINIT) and tells the other end (in the
    store at once; over TCP the serving loop that runs it sees the state and closes
    the connection)."""
    tx, now = work.tx, work.now
    status = end.status
    was = status.state
    _LOOKAHEAD.pop(_sent_key(work, end, ""), None)
    if end.chltype in SENDING and status.transport != "TCP":
        partner = _partner(work, end)
        indoubt = status.indoubt
        if indoubt is not None and isinstance(partner, End) and not get_inhibited(work, end):
            mine = _sent_key(work, end, indoubt.luwid) in _SENT_HERE
            committed = settle(work, end, partner.status.luwid == indoubt.luwid)
            work.close_all()
            if not mine:
                announce_resolution(work, end, qmgr_name(tx, partner.system), indoubt, committed)
        receiver = _receiver_of(work, end)
        if receiver is not None:
            _release(work, end, receiver)
    elif end.chltype not in SENDING:
        status.bound = ""
    status.state = state
    end.save(tx)
    if was in ACTIVE_STATES:
        end.say(tx, now, "stopped")


# -- the timer --------------------------------------------------------------------------


@timer(CHANNEL_TIMER)
def run_channels(context: TickContext, tx: Transaction, system: SystemRecord, due: float) -> float | Wake | None:
    """One step of each of the system's initiating channels that has something to do;
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
        if not initiates(record) and not record.status.get("channel", {}).get("requester"):
            continue
        end = End.of(system, record)
        state = end.status.state
        if state not in ACTIVE_STATES:
            continue
        if over_tcp(tx, end):
            _leave_to_the_loop(tx, end, now)
            continue
        if state == RETRYING and end.status.retry_at > now:
            wakes.append(end.status.retry_at)
            continue
        cause = end.status.reason
        work = Work(context.store, context.clock, tx, now)
        try:
            if state == RUNNING and _disconnect_due(tx, end, context.now):
                _disconnect(work, end)
                continue
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
            deadline = disconnect_at(end)
            if deadline is not None:
                wakes.append(max(due, deadline))
    if again:
        # Catching up over a gap: the attempts until anything else can act would fail
        # the same way, so they are counted, not made (one run, not one per attempt).
        until = min([context.quiet_until(tx, system.name, CHANNEL_TIMER), *acting])
        for end in again:
            if _skip_retries(end, until):
                end.save(tx)
            wakes.append(end.status.retry_at)
    if not (wakes or acting):
        return None
    # Only channels with work can change what another timer sees (see timers.quiet_until).
    return Wake(min(wakes + acting), passive=not acting)


def _skip_retries(end: End, until: float) -> bool:
    """Counts the retries due up to `until` as made and failed, as `retry` would (the
    short ones one by one, the long ones at once), but never the last one the channel
    has: that one is made, and stops the channel with its console message; whether any
    were counted."""
    status = end.status
    short, short_seconds, long_, long_seconds = retry_schedule(end)
    allowed = short + long_
    skipped = False
    while status.retry_at <= until and status.retries + 1 < allowed:
        skipped = True
        if status.retries >= short:
            attempts = min(math.floor((until - status.retry_at) / long_seconds) + 1, allowed - 1 - status.retries)
            status.retries += attempts
            status.retry_at += attempts * long_seconds
            break
        status.retries += 1
        status.retry_at += short_seconds if status.retries <= short else long_seconds
    return skipped


def _leave_to_the_loop(tx: Transaction, end: End, now: float) -> None:
    """A TCP channel runs in a serving loop; without one its console hears so, once."""
    from mqtool.engine.http.records import service_alive

    if end.status.waiting or service_alive(tx):
        return
    end.status.waiting = True
    end.save(tx)
    end.say(tx, now, "waiting", conname=str(end.record.attrs.get("CONNAME", "")))


def disconnect_at(end: End) -> float | None:
    """When an idle running sender ends for its DISCINT (None: never)."""
    if end.chltype not in SENDING:
        return None
    seconds = int_value(end.record.attrs.get("DISCINT"), DISCINT_DEFAULT)
    if seconds <= 0:
        return None
    return max(end.status.last_message, end.status.started) + seconds


def _disconnect_due(tx: Transaction, end: End, now: float) -> bool:
    """Whether DISCINT passed with nothing to send: no batch in doubt, and no message
    on the transmission queue that was put before the interval ran out."""
    deadline = disconnect_at(end)
    if deadline is None or now < deadline or end.status.indoubt is not None:
        return False
    qkey = runs.queue_key(tx.conn, end.system.name, end.status.xmitq)
    if qkey is None:
        return True
    low, high = runs.span(qkey)
    row = tx.conn.execute(
        "SELECT 1 FROM messages WHERE id > ? AND id < ? AND put_time <= ? LIMIT 1", (low, high, deadline)
    ).fetchone()
    return row is None


def _disconnect(work: Work, end: End) -> None:
    """DISCINT passed with nothing to send: the channel ends normally (INACTIVE)."""
    deadline = disconnect_at(end)
    when = deadline if deadline is not None else work.now
    receiver = _receiver_of(work, end)
    if receiver is not None:
        _release(work, end, receiver)
    end.status.state = INACTIVE
    end.save(work.tx)
    end.say(work.tx, when, "discint", seconds=int_value(end.record.attrs.get("DISCINT"), DISCINT_DEFAULT))


def _fail(work: Work, end: End, error: Exception) -> None:
    """A step failed (a batch that cannot complete, or anything unexpected): the run's
    transaction is rolled back whole and begun again, and the channel retries. A
    savepoint around each step would roll back less, but SQLite would copy every page a
    batch touches to its statement journal first, which doubles the cost of a batch."""
    tx = work.tx
    _LOOKAHEAD.pop(_sent_key(work, end, ""), None)
    tx.conn.execute("ROLLBACK")
    tx.conn.execute("BEGIN IMMEDIATE")
    work.rolled_back()
    fresh = tx.get_object(end.system.name, end.record.type, end.name)
    if fresh is None:
        return
    end.record, end.status = fresh, ChannelStatus.load(fresh.status)
    if isinstance(error, BatchFailed):
        retry(work, end, error.cause, **error.fields)
    else:
        retry(work, end, "batch", detail=f"{type(error).__name__}: {error}")


def _step(work: Work, end: End) -> bool:
    status = end.status
    manager = queue_manager(work.tx, end.system)
    if not chinit_active(end.system, manager):
        retry(work, end, "own_stopped", qmgr=manager.name if manager else end.system.name)
        return False
    if end.chltype == "RQSTR":
        return _request(work, end)
    if status.state in (BINDING, RETRYING):
        return _bind(work, end)
    partner = _partner(work, end)
    if not isinstance(partner, End):
        cause, fields = partner
        retry(work, end, cause, **fields)
        return False
    if logsuspend.waits(manager, queue_manager(work.tx, partner.system)):
        return False  # SUSPEND QMGR LOG at either end: the channel waits, running, for RESUME
    indoubt = status.indoubt
    if indoubt is None:
        return _send(work, end, partner)
    _test_crash("confirm")
    mine = _sent_key(work, end, indoubt.luwid) in _SENT_HERE
    removals: list[Iterator[None]] = []
    committed = settle(work, end, partner.status.luwid == indoubt.luwid, removals)
    if not mine:
        announce_resolution(work, end, qmgr_name(work.tx, partner.system), indoubt, committed)
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


def _partner_system(work: Work, end: End) -> tuple[SystemRecord | None, str]:
    """The system an in-store initiating end talks to, and the CONNAME it went by."""
    tx = work.tx
    if end.status.requester:
        return tx.get_system(end.status.requester), end.status.conname
    conname = str(end.record.attrs.get("CONNAME", "")) if end.status.state != RUNNING else end.status.conname
    return listening(tx, conname), conname


def _partner(work: Work, end: End) -> End | tuple[str, dict[str, Any]]:
    """The receiving end a sender can talk to now, or why not (a retry cause and its
    message's fields)."""
    tx = work.tx
    system, conname = _partner_system(work, end)
    if system is None:
        return ("no_listener" if _readable(conname) else "bad_conname"), {"conname": conname}
    fields: dict[str, Any] = {"conname": conname, "qmgr": qmgr_name(tx, system)}
    partner = check(tx, system, end.name, end.chltype, fields)
    if not isinstance(partner, End):
        return partner
    if partner.status.bound and partner.status.bound != end.system.name and partner.status.state == RUNNING:
        return "remote_busy", fields | {"other": partner.status.bound}
    if end.status.state == RUNNING and (partner.status.state != RUNNING or partner.status.bound != end.system.name):
        # The receiver ended (its channel initiator stopped): the session is gone.
        return "remote_ended", fields
    return partner


def _receiver_of(work: Work, end: End) -> End | None:
    """The in-store receiver a running sender is bound to, whatever its state now."""
    if end.status.transport == "TCP":
        return None
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
        partner.say(work.tx, work.now, "ended", qmgr=qmgr_name(work.tx, end.system))
    partner.save(work.tx)


def _request(work: Work, end: End) -> bool:
    """A requester starts (in the store): its server starts sending to it, or its
    sender is asked to call it back (it starts and binds by its own CONNAME). Either
    way the requester is bound as a receiver when the other end binds it."""
    tx, now = work.tx, work.now
    system, conname = _partner_system(work, end)
    if system is None:
        retry(work, end, "no_listener" if _readable(conname) else "bad_conname", conname=conname)
        return False
    fields: dict[str, Any] = {"conname": conname, "qmgr": qmgr_name(tx, system)}
    other = check(tx, system, end.name, "RQSTR", fields)
    if not isinstance(other, End):
        cause, found = other
        retry(work, end, cause, **found)
        return False
    if other.status.state in (RUNNING, BINDING):
        retry(work, end, "remote_busy", **fields, other=other.status.partner or other.system.name)
        return False
    end.status.state = INACTIVE
    end.status.retries = 0
    end.save(tx)
    other.status.state = BINDING
    other.status.retries = 0
    if other.chltype == "SVR":
        # The server answers this requester, whatever its own CONNAME says.
        other.status.requester = end.system.name
        other.status.conname = conname_of(end.system)
    else:
        other.status.requester = ""
        end.say(tx, now, "callback", qmgr=fields["qmgr"], conname=conname)
    other.save(tx)
    schedule(tx, system.name, CHANNEL_TIMER, now)
    return True


def conname_of(system: SystemRecord) -> str:
    """How a partner in the store names a system: its first listener's address."""
    from mqtool.engine.channels.listeners import configured

    found = configured(system)
    return str(found[0]) if found else system.name


def _bind(work: Work, end: End) -> bool:
    """Starts a sender: partner, transmission queue, in-doubt batch, sequence numbers,
    negotiation. RUNNING, RETRYING, or STOPPED on a sequence number error."""
    tx, now = work.tx, work.now
    status, attrs = end.status, end.record.attrs
    partner = _partner(work, end)
    if not isinstance(partner, End):
        cause, fields = partner
        retry(work, end, cause, **fields)
        return False
    xmitq = str(attrs.get("XMITQ", ""))
    problem = xmitq_problem(work, end, xmitq)
    if problem:
        retry(work, end, "xmitq", queue=xmitq, reason=problem, rcname=rcname(problem))
        return False
    status.xmitq = xmitq
    if status.removal:
        remove_confirmed(work, end)  # confirmed over TCP before the channel changed its CONNAME
    receiver = partner.status
    indoubt = status.indoubt
    if indoubt is not None:
        committed = settle(work, end, receiver.luwid == indoubt.luwid)
        announce_resolution(work, end, qmgr_name(tx, partner.system), indoubt, committed)
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
    _, conname = _partner_system(work, end)
    terms = negotiate(attrs, maxmsgl(tx, end), partner, maxmsgl(tx, partner))
    running(work, end, terms, qmgr_name(tx, partner.system), conname, partner.system.name)
    bind_receiver(partner, terms, qmgr_name(tx, end.system), conname, end.system.name, now)
    end.say(tx, now, "started", qmgr=status.rqmname, conname=status.conname, technique=status.technique,
            batchsz=status.batchsz)  # fmt: skip
    partner.say(tx, now, "receiving", qmgr=receiver.rqmname, technique=receiver.technique)
    end.save(tx)
    partner.save(tx)
    return True


def running(work: Work, end: End, terms: Terms, peer_qmgr: str, conname: str, partner_system: str) -> None:
    """The sending end's status once its partner took it: RUNNING with the terms agreed
    (saved and announced by the caller)."""
    status = end.status
    terms.started(status, peer_qmgr, conname, partner_system, work.now)
    xmitq = str(end.record.attrs.get("XMITQ", ""))
    queue = work.tx.get_object(end.system.name, end.platform.local_type, xmitq)
    status.compsize = int_value(queue.attrs.get("COMPSIZE") if queue is not None else 0, 0)
    status.retries = 0
    status.reason = ""
    status.waiting = False


def xmitq_problem(work: Work, end: End, xmitq: str) -> int:
    """The reason code that keeps a sender from its transmission queue; 0 when none."""
    tx = work.tx
    queue = tx.get_object(end.system.name, end.platform.local_type, xmitq)
    if queue is None or queue.attrs.get("USAGE") != "XMITQ":
        return UNKNOWN_OBJECT_NAME
    if queue.attrs.get("GET", "ENABLED") == "DISABLED":
        return GET_INHIBITED
    for other in tx.objects(end.system.name, end.platform.channel_type):
        if other.name == end.name or other.attrs.get("CHLTYPE") not in SENDING:
            continue
        theirs = ChannelStatus.load(other.status)
        if theirs.state in (RUNNING, BINDING) and theirs.xmitq == xmitq:
            return MQRC_OBJECT_IN_USE
    return 0


def get_inhibited(work: Work, end: End) -> bool:
    """Whether the sender's transmission queue is GET-DISABLED: a batch in doubt cannot be
    removed from it then, and stays in doubt."""
    xmitq = end.status.xmitq or str(end.record.attrs.get("XMITQ", ""))
    queue = work.tx.get_object(end.system.name, end.platform.local_type, xmitq)
    return queue is not None and queue.attrs.get("GET", "ENABLED") == "DISABLED"


def retry_schedule(end: End) -> tuple[int, float, int, float]:
    """SHORTRTY, SHORTTMR, LONGRTY, LONGTMR of a channel (MQ's defaults when absent)."""
    attrs = end.record.attrs
    values = {key: int_value(attrs.get(key), default) for key, default in RETRY_DEFAULTS.items()}
    return (values["SHORTRTY"], max(MIN_RETRY_SECONDS, float(values["SHORTTMR"])), values["LONGRTY"],
            max(MIN_RETRY_SECONDS, float(values["LONGTMR"])))  # fmt: skip


def retries_left(end: End) -> tuple[int, int]:
    """(short, long) retries left: DISPLAY CHSTATUS SHORTRTS and LONGRTS."""
    short, _, long_, _ = retry_schedule(end)
    done = end.status.retries
    return max(0, short - done), max(0, long_ - max(0, done - short))


def retry(work: Work, end: End, cause: str, **fields: Any) -> None:
    """The channel cannot run now: RETRYING, next attempt after the retry interval
    (SHORTTMR for SHORTRTY tries, then LONGTMR for LONGRTY tries; then STOPPED). The
    console hears of it when the channel starts retrying or the cause changes."""
    tx, now = work.tx, work.now
    status = end.status
    was = status.state
    partner = _receiver_of(work, end) if was == RUNNING else None
    if partner is not None:
        _release(work, end, partner)
    status.retries += 1
    short, short_seconds, long_, long_seconds = retry_schedule(end)
    fields.setdefault("qmgr", status.rqmname)
    fields.setdefault("conname", status.conname or str(end.record.attrs.get("CONNAME", "")))
    if status.retries > short + long_:
        status.state = STOPPED
        status.reason = cause
        end.save(tx)
        end.say(tx, now, "exhausted", retries=short + long_)
        return
    interval = short_seconds if status.retries <= short else long_seconds
    status.retry_at = now + interval
    status.state = RETRYING
    if was != RETRYING or status.reason != cause:
        end.say(tx, now, cause, seconds=int(interval), **fields)
    status.reason = cause
    end.save(tx)


# -- a batch ----------------------------------------------------------------------------

# The batch's row ids first (no message data read), then each message as it is sent:
# its data is read right before it is put, as a get reads it.
BATCH_SQL = (
    "SELECT id, max(original_length, stored_length) FROM messages "
    "WHERE id > ? AND id < ? AND (expiry IS NULL OR expiry > ?) ORDER BY id LIMIT ?"
)
MESSAGE_SQL = (
    "SELECT priority, msgid, correlid, persistent, expiry, original_length, codec, header, payload, checksum "
    "FROM messages WHERE id = ?"
)
AHEAD_SQL = "SELECT original_length, codec, payload FROM messages WHERE id = ?"


def next_luwid(end: End) -> str:
    """The logical unit of work id of the sender's next batch (counts it)."""
    end.status.luw += 1
    return f"{int(end.record.created) & 0xFFFFFFFF:08X}{end.status.luw & 0xFFFFFFFF:08X}"


def record_in_doubt(end: End, luwid: str, row_ids: list[int], sent: Totals, last_technique: str) -> InDoubt:
    """The batch the sender holds in doubt until its receiver confirms it."""
    status = end.status
    seq = next_seq(status.seq, len(row_ids))
    status.indoubt = InDoubt(
        luwid=luwid, first=next_seq(status.seq), last=seq, rows=row_ids, count=sent.msgs,
        before=sent.before, wire=sent.wire, compressed=sent.compressed, comp_before=sent.comp_before,
        comp_us=sent.comp_us, stored=sent.stored, inflated=sent.inflated, last_technique=last_technique,
    )  # fmt: skip
    status.saved = True
    return status.indoubt


def _send(
    work: Work, end: End, partner: End, removal: Iterator[None] | None = None, confirmed: set[int] | None = None
) -> bool:
    """Transaction 1 of a batch: up to BATCHSZ messages read from the transmission queue
    (they stay there, in flight), sent, received and put; the receiver records the
    batch, the sender holds it in doubt. False when there was nothing to send. With
    `removal`, the confirmed batch's messages (row ids `confirmed`) are still on the
    queue: they are not sent again, and one is removed before each message is put."""
    tx, clock = work.tx, work.clock
    status = end.status
    problem = xmitq_problem(work, end, status.xmitq)
    if problem:
        raise BatchFailed("xmitq", queue=status.xmitq, reason=problem, rcname=rcname(problem))
    qkey = runs.queue_key(tx.conn, end.system.name, status.xmitq)
    if qkey is None:
        return False
    low, high = runs.span(qkey)
    batchsz = max(1, status.batchsz)
    confirmed = confirmed or set()
    found = tx.conn.execute(BATCH_SQL, (low, high, clock.timestamp(), batchsz + len(confirmed))).fetchall()
    chosen = [row for row in found if row[0] not in confirmed][:batchsz]
    row_ids = [int(row[0]) for row in chosen]
    if not row_ids:
        return False
    batch = _Batch(work, end, Receiving.of(tx, partner), removal)
    read = tx.conn.cursor()
    frozen = clock.frozen_at is not None
    key = _sent_key(work, end, "")
    started_before = _LOOKAHEAD.pop(key, [])
    # The sender's compression and the receiver's inflation of the next chunk run beside
    # the store work of this one; chunks grow from FIRST_CHUNK so that the first
    # deliveries wait little. Chunks this batch's predecessor started while it committed
    # (`_look_ahead`) are taken as they are when their messages are still the same.
    carrier = offload.Carrier(frozen, sum(int(row[1]) for row in chosen))
    keep = False
    try:
        ahead: deque[tuple[list[_Message], offload.Pending]] = deque()
        position = 0
        for early in started_before:
            rows = row_ids[position : position + len(early.rows)]
            if rows != early.rows or early.frozen != frozen:
                break
            chunk = [_read(work, batch.receiving, read, row_id) for row_id in rows]
            jobs = _jobs(end, chunk)
            ahead.append((chunk, early.pending if jobs == early.jobs else carrier.start(jobs)))
            position += len(rows)
            while len(ahead) > AHEAD_CHUNKS:
                batch.deliver(*ahead.popleft())
        chunk = []
        chunk_bytes = 0
        limit = FIRST_CHUNK if not position else CHUNK_MESSAGES
        for row_id in row_ids[position:]:
            message = _read(work, batch.receiving, read, row_id)
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
        started_next = _look_ahead(work, end, carrier, read, {*confirmed, *row_ids}, (low, high), batchsz)
        if started_next:
            _LOOKAHEAD[key] = started_next
            keep = True
    finally:
        carrier.close(keep)
    sent = batch.sent
    luwid = next_luwid(end)
    indoubt = record_in_doubt(end, luwid, row_ids, sent, batch.last_technique)
    mark_in_flight(tx, end, row_ids)
    batch.receiving.finish(work, luwid, indoubt.last, batch.last_technique)
    partner.save(tx)
    end.save(tx)
    _SENT_HERE.add(_sent_key(work, end, luwid))
    return True


# Chunks of messages whose wire work (offload.py) runs ahead of their delivery: up to
# CHUNK_MESSAGES messages, ended once they reach half a helper slot of bytes (so that a
# message up to half a slot long still fits), AHEAD_CHUNKS of them under way while one
# is delivered; and up to LOOKAHEAD_CHUNKS chunks of the next batch started in the
# helper before this batch commits.
FIRST_CHUNK = 4
CHUNK_MESSAGES = 32
AHEAD_CHUNKS = 3
LOOKAHEAD_CHUNKS = 3


@dataclass
class _Early:
    """A chunk of a channel's next batch whose wire work started before the batch that
    read it committed: used when the next batch starts with the same messages, carried
    the same way (`offload.carry` is a pure function of the job)."""

    rows: list[int]
    jobs: list[offload.Job]
    pending: offload.Pending
    frozen: bool


# Per channel (_sent_key with no LUWID): the chunks its next batch may take. An entry
# lives from the end of one batch to the start of the next (or the channel's end).
_LOOKAHEAD: dict[tuple[str, str, str, str], list[_Early]] = {}


def _look_ahead(
    work: Work, end: End, carrier: offload.Carrier, read: Any, skipped: set[int], span: tuple[int, int], batchsz: int
) -> list[_Early]:  # fmt: skip
    """The wire work of the first messages of the channel's next batch, started in the
    helper that carried this batch, so that it runs while this batch commits (the store
    work of a batch and its commit leave the helper idle otherwise). Only reads: the
    messages are read again, and the results taken only if every job is the same, when
    the next batch starts. A message is taken as deliverable (inflated) here; one that
    is not is carried again."""
    if carrier.helper is None:
        return []
    wanted = min(batchsz, LOOKAHEAD_CHUNKS * CHUNK_MESSAGES)
    low, high = span
    found = work.tx.conn.execute(BATCH_SQL, (low, high, work.clock.timestamp(), wanted + len(skipped))).fetchall()
    rows = [int(row[0]) for row in found if row[0] not in skipped][:wanted]
    started: list[_Early] = []
    status = end.status
    chunk: list[int] = []
    jobs: list[offload.Job] = []
    chunk_bytes = 0
    for position, row_id in enumerate(rows):
        fetched = read.execute(AHEAD_SQL, (row_id,)).fetchall()
        if not fetched:
            break
        length, codec, payload = int(fetched[0][0]), str(fetched[0][1]), bytes(fetched[0][2])
        technique = technique_for(end.system, status.technique, codec)
        job = offload.Job(payload, codec, length, technique, status.compsize, True)
        if job.idle:
            break  # nothing to carry: nothing gained
        chunk.append(row_id)
        jobs.append(job)
        chunk_bytes += job.footprint
        if len(chunk) >= CHUNK_MESSAGES or chunk_bytes >= offload.SLOT_BYTES // 2 or position == len(rows) - 1:
            pending = carrier.start_ahead(jobs)
            if pending is None:
                break
            started.append(_Early(chunk, jobs, pending, carrier.frozen))
            chunk, jobs, chunk_bytes = [], [], 0
    return started


@dataclass
class _Message:
    """One message of a batch as read from the transmission queue, with what its
    receiver decided before anything was inflated."""

    row_id: int
    options: PutOptions
    length: int
    codec: str  # as stored on the transmission queue
    payload: bytes  # as stored
    delivery: Delivery

    @property
    def inflate(self) -> bool:
        return self.delivery.inflate


def message_options(row: tuple[Any, ...], now: float) -> PutOptions:
    """The descriptor of a message read with MESSAGE_SQL (expiry as seconds left)."""
    priority, msgid, correlid, persistent, expiry = row[:5]
    return PutOptions(
        persistent=bool(persistent),
        priority=int(priority),
        msgid=bytes(msgid),
        correlid=bytes(correlid),
        expiry=None if expiry is None else max(0.0, float(expiry) - now),
    )


def verified(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A message row read with MESSAGE_SQL whose payload matches its checksum, as a get
    checks it: a damaged message fails the batch (it stays on the transmission queue, and
    the channel retries, then stops), so that it is never sent on as if it were whole."""
    payload, crc = row[8], row[9]
    if crc is not None and (type(payload) is not bytes or crc32(payload) != crc):
        raise BatchFailed(
            "batch", detail=f"message {id_text(bytes(row[1]))} is damaged: its payload does not match its checksum"
        )
    return row


def _read(work: Work, receiving: Receiving, read: Any, row_id: int) -> _Message:
    """One message of the batch, read right before it is prepared."""
    # fetchall, not fetchone: the statement ends, so the writes that follow need not
    # keep a reading cursor's place in the table.
    (row,) = read.execute(MESSAGE_SQL, (row_id,)).fetchall()
    return _prepare(work, receiving, row_id, verified(row))


def _prepare(work: Work, receiving: Receiving, row_id: int, row: tuple[Any, ...]) -> _Message:
    """The receiving side's checks of one message, on its declared length: its
    destination (opened once per batch), and whether it may be inflated at all."""
    length, codec, header_text, payload = row[5:9]
    options = message_options(row, work.clock.timestamp())
    delivery = receiving.prepare(work, int(length), str(header_text or ""))
    return _Message(int(row_id), options, int(length), str(codec), bytes(payload), delivery)


def _jobs(end: End, chunk: list[_Message]) -> list[offload.Job]:
    status = end.status
    jobs = []
    for message in chunk:
        technique = technique_for(end.system, status.technique, message.codec)
        jobs.append(offload.Job(message.payload, message.codec, message.length, technique, status.compsize,
                                message.inflate))  # fmt: skip
    return jobs


def count_sent(sent: Totals, length: int, done: wire.Carried | wire.Sent, wire_length: int) -> None:
    """The sending side's counts of one message."""
    sent.msgs += 1
    sent.before += length
    sent.wire += wire_length
    sent.largest = max(sent.largest, length)
    if done.codec:
        sent.compressed += 1
        sent.comp_before += length
        sent.comp_wire += wire_length
        sent.stored += 0 if done.compressed_now else 1
    if done.inflated:
        sent.inflated += 1


class _Batch:
    """The delivery of one batch's messages, in order, and what both ends count."""

    def __init__(self, work: Work, end: End, receiving: Receiving, removal: Iterator[None] | None) -> None:
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
        count_sent(self.sent, message.length, done, done.wire_length)
        if done.codec and done.compressed_now:
            self.sent.comp_us += done.send_us
        self.last_technique = done.codec or wire.NONE
        if self.removal is not None:
            next(self.removal, None)
        self.receiving.receive(self.work, message.delivery, message.options, message.length, done.codec,
                               done.wire_length, done.original, done.receive_us)  # fmt: skip
        _test_crash("send")


def technique_for(system: SystemRecord, negotiated: str, stored_codec: str) -> str:
    """The technique one message is sent with: the negotiated one. A z/TPF channel
    compresses only with the zEDC accelerator (seed 000), so on an older CPU it sends a
    message uncompressed, unless it is stored compressed in the zlib format and can go
    as it is; z/OS compresses in software when it has no accelerator."""
    if negotiated == wire.NONE or system.platform == "zos" or system.has_accelerator:
        return negotiated
    if stored_codec in wire.ZLIB_STORED and negotiated in wire.ZLIB_TECHNIQUES:
        return negotiated
    return wire.NONE


# -- confirm, in-doubt ----------------------------------------------------------------------


def settle(
    work: Work, end: End, commit: bool, deferred: list[Iterator[None]] | None = None, later: bool = False
) -> bool:
    """Ends a sender's batch in doubt: commit removes its messages from the transmission
    queue and moves the sequence number on; backout leaves them to be sent again.
    With `deferred`, the removal is appended there for the caller to run (in the same
    transaction). With `later`, the messages stay on the queue, listed in the channel's
    status (`removal`) until `remove_confirmed` takes them off in a transaction of its
    own (the TCP sender does it while it sends the next batch; a channel that ends
    before does it at its next start). Returns `commit`."""
    status = end.status
    indoubt = status.indoubt
    assert indoubt is not None
    tx = work.tx
    if commit:
        if later:
            status.removal = [*status.removal, *indoubt.rows]
        else:
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
    mark_in_flight(tx, end, status.removal)
    return commit


def remove_confirmed(work: Work, end: End, rows: list[int] | None = None) -> None:
    """Takes confirmed messages (`rows`, or all the channel's status lists) off the
    transmission queue and out of the status's `removal` list."""
    status = end.status
    taken = list(status.removal) if rows is None else [row for row in rows if row in set(status.removal)]
    for _ in _removal(work, end, taken):
        pass
    gone = set(taken)
    status.removal = [row for row in status.removal if row not in gone]
    in_flight = [*status.removal, *(status.indoubt.rows if status.indoubt is not None else [])]
    mark_in_flight(work.tx, end, in_flight)


def _removal(work: Work, end: End, rows: list[int]) -> Iterator[None]:
    """Takes the messages of a confirmed batch off the transmission queue, by row id,
    one per step, with the queue's own remove (its figures and statistics move as for a
    get of the message as stored; the data the channel sent is not read again, and a
    message the sender had to inflate counts in the channel's Inflated To Send)."""
    xmitq = end.status.xmitq or str(end.record.attrs.get("XMITQ", ""))
    try:
        handle: QueueHandle = work.open(end.system.name, xmitq, end.system.platform, "get")
    except MQError:
        return  # the queue is gone, and its messages with it
    for row_id in sorted(rows):
        # Gone meanwhile (CLEAR, an application's get): nothing of the channel's to remove.
        handle.remove(work.tx, row_id)
        yield


def mark_in_flight(tx: Transaction, end: End, rows: list[int]) -> None:
    """Messages of a batch in flight stay in memory: the z/TPF sweeper leaves them."""
    if end.system.platform == "ztpf":
        from mqtool.engine.ztpf.sweeper import set_inflight

        set_inflight(tx, end.system.name, end.status.xmitq, rows)


def announce_resolution(work: Work, end: End, qmgr: str, indoubt: InDoubt, committed: bool) -> None:
    """A batch left in doubt (by a process that ended, or a channel that stopped) was
    resolved with the partner."""
    end.say(work.tx, work.now, "resolved", first=indoubt.first, last=indoubt.last, count=indoubt.count,
            qmgr=qmgr, action="COMMITTED" if committed else "BACKED OUT")  # fmt: skip


def _sent_key(work: Work, end: End, luwid: str) -> tuple[str, str, str, str]:
    return (str(work.store.path), end.system.name, end.name, luwid)


def header_of(row: tuple[Any, ...]) -> dict[str, Any]:
    """The transmission header of a message read with MESSAGE_SQL."""
    text = row[7]
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


_CRASH_AT = os.environ.get(CRASH_VARIABLE, "")


def _test_crash(point: str) -> None:
    """Tests only: kill this process at a point of the protocol (`send`: inside the
    first transaction, before it commits; `confirm`: after the first transaction
    committed, before the second), to prove nothing is lost or duplicated. The variable
    is read when the process starts."""
    if point == _CRASH_AT:
        os.kill(os.getpid(), signal.SIGKILL)
