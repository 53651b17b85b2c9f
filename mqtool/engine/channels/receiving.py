"""The receiving side of the channel agent, whichever transport brought the batch: the
checks a receiver makes when a sender binds (its queue manager, its channel initiator,
its channel of that name and type), the terms both ends agree (compression technique,
batch size, largest message, heartbeat interval), and the delivery of each message of a
batch: to the queue its transmission header names, or to the dead-letter queue behind a
dead-letter header, never inflated beyond its declared length (the inflation guard).

The in-store transport (mca.py) calls these inside the sender's own transaction; the
TCP transport (tcp/session.py) in the receiving store's transaction, which commits when
the batch's end arrives."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mqtool.engine.channels import deadletter, wire
from mqtool.engine.channels.ends import (
    MQRC_UNKNOWN_REMOTE_Q_MGR,
    RECEIVING,
    SENDING,
    BatchFailed,
    End,
    Work,
    int_value,
    rcname,
)
from mqtool.engine.channels.partner import chinit_active, deadq, platform_of, queue_manager, started
from mqtool.engine.channels.status import RUNNING, STOPPED, Totals
from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.message import PutOptions
from mqtool.engine.core.reasons import MSG_TOO_BIG_FOR_CHANNEL, UNKNOWN_OBJECT_NAME, MQError
from mqtool.state import SystemRecord, Transaction

DEFAULT_HBINT = 300  # MQ's HBINT default, seconds


@dataclass(frozen=True)
class Terms:
    """What both ends of a channel agree when it starts."""

    technique: str  # COMPMSG: the first of the sender's list the receiver accepts
    batchsz: int  # the smaller of both BATCHSZ
    maxmsgl: int  # the smaller of both MAXMSGL
    hbint: int  # the larger of both HBINT (IBM's rule)

    def started(self, status: Any, peer_qmgr: str, conname: str, partner: str, now: float) -> None:
        """One end's status as the channel starts on these terms (both ends the same):
        RUNNING, its partner, the terms agreed, and new totals."""
        status.state = RUNNING
        status.partner = partner
        status.rqmname = peer_qmgr
        status.conname = conname
        status.technique = self.technique
        status.last_technique = "NONE"
        status.batchsz = self.batchsz
        status.maxmsgl = self.maxmsgl
        status.hbint = self.hbint
        status.started = now
        status.total = Totals()
        status.batch = Totals()


def negotiate(sender: dict[str, Any], sender_maxmsgl: int, receiver: End, receiver_maxmsgl: int) -> Terms:
    """The terms of a sender (its attributes: COMPMSG, BATCHSZ, HBINT) and a receiver."""
    attrs = receiver.record.attrs
    offered, accepted = sender.get("COMPMSG") or ["NONE"], attrs.get("COMPMSG") or ["NONE"]
    return Terms(
        technique=wire.negotiate(offered, accepted, receiver.system.platform),
        batchsz=min(int_value(sender.get("BATCHSZ"), 50), int_value(attrs.get("BATCHSZ"), 50)),
        maxmsgl=min(sender_maxmsgl, receiver_maxmsgl),
        hbint=max(int_value(sender.get("HBINT"), DEFAULT_HBINT), int_value(attrs.get("HBINT"), DEFAULT_HBINT)),
    )


def check(
    tx: Transaction, system: SystemRecord, name: str, sender_type: str, fields: dict[str, Any]
) -> End | tuple[str, dict[str, Any]]:  # fmt: skip
    """The other end of channel `name` on `system` for an initiating end of
    `sender_type` (SDR, SVR or RQSTR), or why it cannot run: a retry cause and its
    fields (the initiator's console message says it)."""
    manager = queue_manager(tx, system)
    if not started(manager):
        return "partner_stopped", fields
    if not chinit_active(system, manager):
        return "partner_chinit", fields
    record = tx.get_object(system.name, platform_of(system).channel_type, name)
    if record is None:
        return "remote_undefined", fields
    partner = End.of(system, record)
    # A sender or server talks to a receiver or requester; a requester to a server (or
    # a sender, which calls it back).
    allowed = RECEIVING if sender_type in SENDING else ("SVR", "SDR") if sender_type == "RQSTR" else ()
    if partner.chltype not in allowed:
        return "remote_type", fields | {"chltype": partner.chltype}
    if partner.status.state == STOPPED:
        return "remote_stopped", fields
    return partner


def bind(partner: End, terms: Terms, peer_qmgr: str, conname: str, session: str, now: float) -> None:
    """The receiver's status when a sender binds it (saved and announced by the caller)."""
    partner.status.bound = session
    terms.started(partner.status, peer_qmgr, conname, session, now)


@dataclass
class Delivery:
    """Where one message of a batch goes, decided on its declared length before
    anything of it is inflated."""

    destination: str
    rqmname: str
    handle: QueueHandle | None
    reason: int  # why it cannot be delivered (0: it can, as far as the length says)
    inflate: bool  # may be inflated: for its destination, or for the dead-letter queue


@dataclass
class Receiving:
    """The receiving end's side of one batch: the destination queues it opened and what
    it counted."""

    partner: End
    qmgr: str
    deadq: str
    handles: dict[str, QueueHandle | MQError] = field(default_factory=dict)
    headers: dict[str, dict[str, Any]] = field(default_factory=dict)  # transmission header text -> fields
    totals: Totals = field(default_factory=Totals)
    dead: dict[tuple[str, int], int] = field(default_factory=dict)  # (queue, reason) -> messages

    @classmethod
    def of(cls, tx: Transaction, partner: End) -> Receiving:
        manager = queue_manager(tx, partner.system)
        assert manager is not None
        return cls(partner, manager.name, deadq(partner.system, manager))

    def prepare(self, work: Work, length: int, header_text: str) -> Delivery:
        """The checks of one message, on its declared length: its destination (opened
        once per batch), and whether it may be inflated at all."""
        header = self.headers.get(header_text)
        if header is None:
            # The messages of a batch mostly share their transmission header: read once.
            try:
                parsed = json.loads(header_text) if header_text else {}
            except ValueError:
                parsed = {}
            header = self.headers[header_text] = parsed if isinstance(parsed, dict) else {}
        partner = self.partner
        destination = str(header.get("rname") or "")
        rqmname = str(header.get("rqmname") or self.qmgr)
        reason = 0
        handle: QueueHandle | None = None
        if rqmname != self.qmgr:
            reason = MQRC_UNKNOWN_REMOTE_Q_MGR
        elif not destination:
            reason = UNKNOWN_OBJECT_NAME
        else:
            opened = self.handles.get(destination)
            if opened is None:
                try:
                    opened = work.open(partner.system.name, destination, partner.system.platform, "put")
                except MQError as error:
                    opened = error
                self.handles[destination] = opened
            if isinstance(opened, MQError):
                reason = opened.reason
            else:
                handle = opened
                resolved = handle.resolved
                assert resolved is not None
                limit = min(resolved.maxmsgl, resolved.qmgr_maxmsgl, partner.status.maxmsgl or length)
                if length > limit:
                    reason = MSG_TOO_BIG_FOR_CHANNEL
        inflate = reason == 0 or length + deadletter.LENGTH <= self.deadq_limit(work)
        return Delivery(destination, rqmname, handle, reason, inflate)

    def receive(
        self, work: Work, delivery: Delivery, options: PutOptions, length: int, codec: str, wire_length: int,
        original: bytes | None, receive_us: int,
    ) -> None:  # fmt: skip
        """One message: counted, then put, or to the dead-letter queue. `original` is
        None when the message was not to be inflated (too long for anywhere)."""
        totals = self.totals
        totals.msgs += 1
        totals.before += length
        totals.wire += wire_length
        totals.largest = max(totals.largest, length)
        if codec and original is not None:
            totals.compressed += 1
            totals.comp_before += length
            totals.comp_wire += wire_length
            totals.comp_us += receive_us
            if hardware(self.partner.system, codec):
                totals.hardware += 1
            else:
                totals.software += 1
        data = original if original is not None else b""
        reason = delivery.reason
        if delivery.handle is not None and reason == 0:
            try:
                delivery.handle.put(work.tx, data, options)
                return
            except MQError as error:
                reason = error.reason
        self.dead_letter(work, delivery.destination or "(blank)", delivery.rqmname, reason, data, length, options)
        totals.dead += 1

    def finish(self, work: Work, luwid: str, seq: int, last_technique: str, batches: int = 1) -> None:
        """The end of the batch on the receiving side: its sequence number and LUWID
        recorded (a sender in doubt asks for them), its counts, the dead-letter queue's
        console messages. The caller saves the partner (`partner.save`)."""
        partner = self.partner
        receiver = partner.status
        receiver.seq = seq
        receiver.luwid = luwid
        receiver.last_technique = last_technique
        receiver.last_message = work.now
        receiver.saved = True
        totals = self.totals
        totals.batches = batches
        receiver.batch = totals
        receiver.total.add(totals)
        for (queue, reason), count in sorted(self.dead.items()):
            partner.say(work.tx, work.now, "dead_letter", queue=queue, deadq=self.deadq, reason=reason,
                        rcname=rcname(reason), count=count, qmgr=self.qmgr)  # fmt: skip

    def deadq_limit(self, work: Work) -> int:
        """The largest message the partner's dead-letter queue takes (0: there is none)."""
        handle = self.deadq_handle(work)
        if isinstance(handle, MQError):
            return 0
        resolved = handle.resolved
        assert resolved is not None
        return min(resolved.maxmsgl, resolved.qmgr_maxmsgl)

    def deadq_handle(self, work: Work) -> QueueHandle | MQError:
        key = "\0deadq"
        handle = self.handles.get(key)
        if handle is None:
            if not self.deadq:
                handle = MQError(UNKNOWN_OBJECT_NAME, "no DEADQ")
            else:
                system = self.partner.system
                try:
                    handle = work.open(system.name, self.deadq, system.platform, "put")
                except MQError as error:
                    handle = error
            self.handles[key] = handle
        return handle

    def dead_letter(
        self, work: Work, queue: str, qmgr: str, reason: int, original: bytes, length: int, options: PutOptions
    ) -> None:  # fmt: skip
        """Puts an undeliverable message to the dead-letter queue behind a dead-letter
        header; a dead-letter queue that is missing or refuses fails the batch."""
        handle = self.deadq_handle(work)
        failure = {"queue": queue, "deadq": self.deadq or "(none)", "qmgr": self.qmgr}
        if isinstance(handle, MQError):
            raise BatchFailed("deadq", reason=handle.reason, rcname=rcname(handle.reason), **failure)
        if len(original) != length:
            # Too long even for the dead-letter queue: it was never inflated.
            raise BatchFailed("deadq", reason=MSG_TOO_BIG_FOR_CHANNEL, rcname=rcname(MSG_TOO_BIG_FOR_CHANNEL),
                              **failure)  # fmt: skip
        name = self.partner.name
        header = deadletter.build(deadletter.DeadLetterHeader(reason, queue, qmgr, name, work.clock.timestamp()))
        try:
            handle.put(work.tx, header + original, options)
        except MQError as error:
            raise BatchFailed("deadq", reason=error.reason, rcname=rcname(error.reason), **failure) from None
        key = (queue, reason)
        self.dead[key] = self.dead.get(key, 0) + 1


def hardware(system: SystemRecord, codec: str) -> bool:
    """Whether a receiver inflates with the accelerator: z/TPF for every zlib technique
    (z15 or later), z/OS for ZLIBFAST only (IBM: only ZLIBFAST can use zEDC)."""
    if not system.has_accelerator or codec == "RLE":
        return False
    return system.platform != "zos" or codec == "ZLIBFAST"
