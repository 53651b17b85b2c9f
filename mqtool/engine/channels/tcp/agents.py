"""The channel agent's two sides over a TCP link: `Sender` (an SDR, or an SVR) binds
its partner and moves the batches of its transmission queue; `Receiver` (an RCVR, or an
RQSTR) takes them and puts each message. Which end connected does not matter: a
requester connects and receives, a server answering it sends.

A batch over TCP, with the sender's and the receiver's stores in two processes:

1. the sender streams up to BATCHSZ messages (read from its transmission queue,
   compressed as negotiated, then framed: compression before encryption); the receiver
   puts each as it arrives, in a transaction of its store that stays open until the
   batch's end (reading ahead up to PREFETCH_BYTES of frames while it puts and commits);
2. the sender records the batch in doubt (its rows, its LUWID) and commits;
3. it sends the batch's end; the receiver puts the messages (or dead-letters them),
   records the LUWID and the last sequence number, commits, and confirms;
4. the sender settles the batch (in the transaction that records the next batch in
   doubt), and its remover takes the messages off the transmission queue.

A failure before 2 leaves nothing; between 2 and 3 the receiver has not the LUWID and
the batch is backed out at the next start; after 3 the receiver has it and the batch is
committed at the next start (the receiver's LUWID answers the sender's INIT). So no
message is lost or duplicated, whichever process dies where, as in the store (mca.py).
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mqtool.clock import Clock
from mqtool.engine import codecs
from mqtool.engine.channels import mca, wire
from mqtool.engine.channels.ends import BatchFailed, End, Work, maxmsgl, qmgr_name, rcname, say
from mqtool.engine.channels.partner import chinit_active, platform_of, queue_manager
from mqtool.engine.channels.receiving import Receiving, Terms, check, negotiate
from mqtool.engine.channels.receiving import bind as bind_receiver
from mqtool.engine.channels.status import (
    ACTIVE_STATES,
    INACTIVE,
    RUNNING,
    STOPPED,
    ChannelStatus,
    InDoubt,
    Totals,
    next_seq,
)
from mqtool.engine.channels.tcp import frames
from mqtool.engine.channels.tcp.link import Link, LinkError
from mqtool.engine.core.message import PutOptions
from mqtool.engine.zos import logsuspend
from mqtool.state import Store
from mqtool.state import messages as runs

if TYPE_CHECKING:
    from mqtool.state import Transaction

IDLE_BOUND = 600.0  # seconds a receiver waits for anything when HBINT is 0 (mqtool's choice)
CONTROL_SECONDS = 30.0  # the first exchange, a heartbeat's answer
POLL = 0.25  # seconds between looks at an idle transmission queue
BATCH_SECONDS = 30.0  # while a batch is open at the receiver, the longest wait for its next frame
PREFETCH_BYTES = 16 * 1024 * 1024  # frames a running receiver reads ahead of its puts
PREFETCH_SLICE = 0.25  # seconds: how soon the read-ahead thread sees that it is to stop
KILL_VARIABLE = "MQTOOL_TEST_CHANNEL_KILL_AT"  # tests only: kill this process at its Nth protocol point


def receive_bound(hbint: int) -> float:
    """How long an end waits for its partner: IBM's rule for heartbeats, twice HBINT
    below 60 seconds, HBINT plus 60 from there; IDLE_BOUND without heartbeats."""
    if hbint <= 0:
        return IDLE_BOUND
    return float(2 * hbint if hbint < 60 else hbint + 60)


class Failure(Exception):
    """The channel cannot go on: a cause of mca.ends.MESSAGES and its message's fields."""

    def __init__(self, cause: str, **fields: Any) -> None:
        super().__init__(cause, fields)
        self.cause = cause
        self.fields = fields


def failure_of(error: LinkError, hbint: int = 0) -> Failure:
    """The retry cause of a broken link."""
    if error.kind == "timeout":
        return Failure("timeout", wait=int(receive_bound(hbint)))
    if error.kind == "peer":
        return Failure("peer", detail=error.detail)
    if error.kind == "frame":
        return Failure("protocol", detail=error.detail)
    if error.kind == "tls":
        return Failure("tls", detail=error.detail)
    return Failure("lost", detail=error.detail)


@dataclass
class Place:
    """Where an agent runs: its store (its own connection), the clock, the system and
    channel of that store, and who runs it (the serving loop's token and this
    connection's session id)."""

    store: Store
    clock: Clock
    system: str
    channel: str
    owner: dict[str, Any]
    session: str

    def load(self, tx: Transaction) -> End | None:
        system = tx.get_system(self.system)
        if system is None:
            return None
        record = tx.get_object(system.name, platform_of(system).channel_type, self.channel)
        return End.of(system, record) if record is not None else None

    def work(self, tx: Transaction) -> Work:
        return Work(self.store, self.clock, tx, self.clock.timestamp())


_POINTS = [0]
_KILL_AT = int(os.environ.get(KILL_VARIABLE, "0") or 0)


def protocol_point() -> None:
    """Tests only: counts this process's protocol points (each message streamed or taken,
    each commit and each answer of a batch) and kills the process with SIGKILL at the
    one MQTOOL_TEST_CHANNEL_KILL_AT names, so a test can stop a process at a random point
    of a batch and prove nothing is lost or duplicated."""
    if _KILL_AT:
        _POINTS[0] += 1
        if _POINTS[0] == _KILL_AT:
            os.kill(os.getpid(), signal.SIGKILL)


def session_security(status: ChannelStatus, link: Link) -> None:
    """What the channel's status shows of its session's security: SSLCIPH, SSLPEER,
    SSLCERTI, SSLCERTU of its TLS session (blank without TLS), MCAUSER as CHLAUTH
    decided (an inbound channel; access.py)."""
    found = link.security
    status.sslciph = str(found.get("sslciph", ""))
    status.sslpeer = str(found.get("sslpeer", ""))
    status.sslcerti = str(found.get("sslcerti", ""))
    status.sslcertu = str(found.get("sslcertu", ""))
    status.mcauser = str(found.get("mcauser", ""))


def descriptor(options: PutOptions, header: str) -> dict[str, Any]:
    return {
        "msgid": (options.msgid or b"").hex(),
        "correlid": options.correlid.hex(),
        "persistent": options.persistent,
        "priority": options.priority,
        "expiry": options.expiry,
        "header": header,
    }


def options_of(found: dict[str, Any]) -> PutOptions:
    """The put options a received descriptor asks for; Failure (protocol) when it does
    not hold together."""
    try:
        expiry = found.get("expiry")
        return PutOptions(
            persistent=bool(found["persistent"]),
            priority=max(0, min(9, int(found["priority"]))),
            msgid=bytes.fromhex(str(found["msgid"]))[:24],
            correlid=bytes.fromhex(str(found["correlid"]))[:24],
            expiry=None if expiry is None else max(0.0, float(expiry)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise Failure("protocol", detail=f"a message descriptor that does not hold together ({exc})") from None


# -- the sending side ------------------------------------------------------------------------


class Sender:
    """The sending agent of one channel over one link (see the module docstring)."""

    def __init__(self, place: Place, link: Link, conname: str, stopping: threading.Event) -> None:
        self.place = place
        self.link = link
        self.conname = conname  # how this end names its partner (the CONNAME used, or the peer's address)
        self.stopping = stopping
        self.hbint = 0
        self.terms: Terms | None = None
        self.last_sent = time.monotonic()
        self.counted = (0, 0)  # link counters already added to the channel's totals
        self.remover = Remover(place)

    # -- start ------------------------------------------------------------------------
    def bind(self) -> None:
        """INIT and its answer: RUNNING, or Failure (a refusal, STOPPED for a sequence
        number error)."""
        place, link = self.place, self.link
        with place.store.transaction() as tx:
            end = self._mine(tx)
            manager = queue_manager(tx, end.system)
            if not chinit_active(end.system, manager):
                raise Failure("own_stopped", qmgr=manager.name if manager else end.system.name)
            xmitq = str(end.record.attrs.get("XMITQ", ""))
            work = place.work(tx)
            problem = mca.xmitq_problem(work, end, xmitq)
            if problem:
                raise Failure("xmitq", queue=xmitq, reason=problem, rcname=rcname(problem))
            status, attrs = end.status, end.record.attrs
            indoubt = status.indoubt
            offer = {
                "channel": end.name, "chltype": end.chltype, "qmgr": qmgr_name(tx, end.system),
                "platform": end.system.platform, "compmsg": list(attrs.get("COMPMSG") or ["NONE"]),
                "batchsz": attrs.get("BATCHSZ", 50), "hbint": attrs.get("HBINT", 300),
                "maxmsgl": maxmsgl(tx, end), "seq": status.seq, "reset": status.reset,
                "indoubt": None if indoubt is None else {"luwid": indoubt.luwid, "last": indoubt.last},
            }  # fmt: skip
        link.send_control("INIT", **offer)
        answer = link.read_control(time.monotonic() + CONTROL_SECONDS)
        protocol_point()
        if answer["op"] == "REFUSE":
            raise Failure(str(answer.get("cause", "protocol")), **dict(answer.get("fields") or {}))
        if answer["op"] != "ACCEPT":
            raise Failure("protocol", detail=f"{answer['op']} where ACCEPT or REFUSE was due")
        try:
            terms = Terms(str(answer["technique"]), int(answer["batchsz"]), int(answer["maxmsgl"]),
                          int(answer["hbint"]))  # fmt: skip
            peer_qmgr, luwid = str(answer["qmgr"]), str(answer.get("luwid") or "")
        except (KeyError, TypeError, ValueError):
            raise Failure("protocol", detail="an ACCEPT that does not hold together") from None
        with place.store.transaction() as tx:
            end = self._mine(tx)
            work = place.work(tx)
            if end.status.removal:
                mca.remove_confirmed(work, end)  # confirmed before the last connection ended
            indoubt = end.status.indoubt
            if indoubt is not None:
                committed = mca.settle(work, end, luwid == indoubt.luwid)
                mca.announce_resolution(work, end, peer_qmgr, indoubt, committed)
            end.status.reset = False
            end.status.xmitq = str(end.record.attrs.get("XMITQ", ""))
            mca.running(work, end, terms, peer_qmgr, self.conname, "")
            self._transport(end)
            end.say(tx, work.now, "started", qmgr=peer_qmgr, conname=self.conname, technique=terms.technique,
                    batchsz=terms.batchsz)  # fmt: skip
            end.save(tx)
            work.close_all()
        self.terms, self.hbint = terms, terms.hbint

    def _transport(self, end: End) -> None:
        status = end.status
        status.transport = "TCP"
        status.owner = self.place.owner
        status.bound = self.place.session
        session_security(status, self.link)

    def _mine(self, tx: Transaction) -> End:
        end = self.place.load(tx)
        if end is None:
            raise Failure("gone")
        owner = end.status.owner or {}
        if owner.get("token") != self.place.owner.get("token"):
            raise Failure("gone")
        return end

    # -- batches ----------------------------------------------------------------------
    def run(self) -> str:
        """Moves batches until the channel is stopped (returns "stopped"), its DISCINT
        passes ("discint"), or Failure / LinkError.

        Two batches are under way at a time, as MQ pipelines them: while the receiver
        commits batch N (its end was sent), this end reads and sends the messages of
        batch N+1, and the remover takes batch N-1 off the transmission queue. Batch
        N+1's end goes only once N is confirmed and N+1 is recorded in doubt (one
        transaction does both), so the receiver never commits a batch this end could
        not resolve."""
        pending: _Streamed | None = None  # its end sent, its confirmation due
        try:
            while True:
                following = None if self.stopping.is_set() else self._stream(pending)
                if pending is not None:
                    self._confirmed(pending)
                if pending is not None or following is not None:
                    following = self._commit(pending, following)
                    pending = None
                if following is not None:
                    self._send_end(following)
                    pending = following
                    continue
                if self.stopping.is_set():
                    self._close("stopped")
                    return "stopped"
                self.remover.wait()
                if self._idle():
                    return "discint"
        finally:
            self.remover.close()

    def _idle(self) -> bool:
        """Nothing to send: a heartbeat when one is due; True when DISCINT passed."""
        place = self.place
        with place.store.transaction(write=False) as tx:
            end = self._mine(tx)
            deadline = mca.disconnect_at(end)
        now = place.clock.timestamp()
        if deadline is not None and now >= deadline:
            self._close("discint")
            with place.store.transaction() as tx:
                end = self._mine(tx)
                end.status.state = INACTIVE
                end.status.owner = None
                end.save(tx)
                end.say(tx, now, "discint", seconds=int(end.record.attrs.get("DISCINT", mca.DISCINT_DEFAULT)))
            return True
        if self.hbint and time.monotonic() - self.last_sent >= self.hbint:
            self.link.send_control("HB")
            self.last_sent = time.monotonic()
            answer = self.link.read_control(time.monotonic() + receive_bound(self.hbint))
            if answer["op"] != "HBACK":
                raise Failure("protocol", detail=f"{answer['op']} where a heartbeat's answer was due")
        self.stopping.wait(POLL)
        return False

    def _close(self, reason: str) -> None:
        try:
            self.link.send_control("CLOSE", reason=reason)
        except LinkError:
            pass

    def _stream(self, pending: _Streamed | None) -> _Streamed | None:
        """Step 1 of a batch: up to BATCHSZ messages read (not those of the batch still
        under way, nor those confirmed and not yet removed), compressed as negotiated and
        sent; None when there is nothing to send."""
        place, link = self.place, self.link
        assert self.terms is not None
        terms = self.terms
        with place.store.transaction(write=False) as tx:
            end = self._mine(tx)
            if end.status.state != RUNNING:
                raise Failure("gone")
            if logsuspend.waits(queue_manager(tx, end.system)):
                return None  # SUSPEND QMGR LOG: the channel waits, running, for RESUME QMGR LOG
            qkey = runs.queue_key(tx.conn, end.system.name, end.status.xmitq)
            if qkey is None:
                return None
            low, high = runs.span(qkey)
            now = place.clock.timestamp()
            skipped = set(end.status.removal) | set(pending.rows if pending is not None else ())
            wanted = max(1, terms.batchsz)
            found = tx.conn.execute(mca.BATCH_SQL, (low, high, now, wanted + len(skipped))).fetchall()
            chosen = [int(row_id) for row_id, _size in found if row_id not in skipped][:wanted]
            if not chosen:
                return None
            batch = _Streamed(end.status.last_technique)
            read = tx.conn.cursor()
            for row_id in chosen:
                fetched = read.execute(mca.MESSAGE_SQL, (row_id,)).fetchall()
                if not fetched:
                    continue  # got meanwhile by an application
                row = mca.verified(fetched[0])
                length, codec, header, payload = int(row[5]), str(row[6]), str(row[7] or ""), bytes(row[8])
                technique = mca.technique_for(end.system, terms.technique, codec)
                started = time.perf_counter()
                try:
                    out = wire.send(payload, codec, length, technique, end.status.compsize)
                except codecs.CodecError as exc:
                    detail = f"message on {end.status.xmitq} does not inflate: {exc}"
                    raise BatchFailed("batch", detail=detail) from None
                spent = 0 if place.clock.frozen_at is not None else int((time.perf_counter() - started) * 1e6)
                options = mca.message_options(row, now)
                link.send(frames.message(frames.WireMessage(length, out.codec, descriptor(options, header), out.data)))
                mca.count_sent(batch.sent, length, out, len(out.data))
                if out.codec and out.compressed_now:
                    batch.sent.comp_us += spent
                batch.last_technique = out.codec or wire.NONE
                batch.rows.append(row_id)
                protocol_point()
        return batch if batch.rows else None

    def _commit(self, confirmed: _Streamed | None, following: _Streamed | None) -> _Streamed | None:
        """Steps 4 and 2 in one transaction: the batch the receiver confirmed settled (its
        rows listed for the remover, which takes them off after the commit), and the
        batch just streamed recorded in doubt. Returns that batch, or None when an
        application got one of its messages meanwhile: the receiver is told to drop it
        (DISCARD) and it is read again. The remover has finished the batch before, so
        the two never wait on the store's write lock."""
        place = self.place
        self.remover.wait()
        discard = False
        with place.store.transaction() as tx:
            end = self._mine(tx)
            if confirmed is not None:
                mca.settle(place.work(tx), end, True, later=True)
                self._count(end)
            elif end.status.state != RUNNING:
                raise Failure("gone")
            if following is not None and not _still_there(tx, following.rows):
                discard, following = True, None
            if following is not None:
                following.luwid = mca.next_luwid(end)
                following.indoubt = mca.record_in_doubt(end, following.luwid, following.rows, following.sent,
                                                        following.last_technique)  # fmt: skip
                mca.mark_in_flight(tx, end, [*end.status.removal, *following.rows])
            end.save(tx)
        protocol_point()
        if confirmed is not None:
            self.remover.take(confirmed.rows)
        if discard:
            self.link.send_control("DISCARD")
        return following

    def _send_end(self, batch: _Streamed) -> None:
        """Step 3: the batch's end, once it is recorded in doubt."""
        indoubt = batch.indoubt
        assert indoubt is not None
        self.link.send_control("EOB", luwid=batch.luwid, first=indoubt.first, last=indoubt.last, count=len(batch.rows))
        self.last_sent = time.monotonic()

    def _confirmed(self, batch: _Streamed) -> None:
        """The receiver's answer to a batch's end: CONFIRM (settled by `_commit`), or
        ERROR: the receiver rolled it back (and the batch streamed after it, not yet
        ended), and it is sent again after the retry."""
        place = self.place
        answer = self.link.read_control(time.monotonic() + receive_bound(self.hbint))
        protocol_point()
        if answer["op"] == "ERROR":
            with place.store.transaction() as tx:
                end = self._mine(tx)
                mca.settle(place.work(tx), end, False)
                end.save(tx)
            raise Failure(str(answer.get("cause", "batch")), **dict(answer.get("fields") or {}))
        if answer["op"] != "CONFIRM" or answer.get("luwid") != batch.luwid:
            due = f"CONFIRM {batch.luwid}"
            raise Failure("protocol", detail=f"{answer['op']} {answer.get('luwid', '')} where {due} was due")

    def _count(self, end: End) -> None:
        self.counted = count_link(end, (self.link.frames_sent, self.link.socket_sent), self.counted)
        end.status.total.largest = max(end.status.total.largest, end.status.batch.largest)


@dataclass
class _Streamed:
    """A batch whose messages were sent: their rows and what the sender counted."""

    last_technique: str
    rows: list[int] = field(default_factory=list)
    sent: Totals = field(default_factory=Totals)
    luwid: str = ""
    indoubt: InDoubt | None = None


def _still_there(tx: Transaction, rows: list[int]) -> bool:
    """Whether every message of a batch read is still on the transmission queue."""
    marks = ",".join("?" * len(rows))
    (count,) = tx.conn.execute(f"SELECT count(*) FROM messages WHERE id IN ({marks})", rows).fetchone()
    return int(count) == len(rows)


class Remover:
    """Takes confirmed batches off the sender's transmission queue in a thread with its
    own connection to the store, while the sender reads and sends the next batch. The
    rows are in the channel's status (`removal`) from the moment the batch is
    confirmed, so a process that ends before they are gone removes them at its next
    start."""

    def __init__(self, place: Place) -> None:
        self.place = place
        self._jobs: queue.Queue[list[int] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def take(self, rows: list[int]) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise Failure("batch", detail=f"removing a confirmed batch failed: {error}")
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mqtool-remover", daemon=True)
            self._thread.start()
        self._jobs.put(rows)

    def wait(self) -> None:
        """Until every batch handed over is removed."""
        if self._thread is not None:
            self._jobs.join()

    def close(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join(60)
            self._thread = None

    def _run(self) -> None:
        place = self.place
        store = Store.open(place.store.path.parent)
        try:
            while True:
                rows = self._jobs.get()
                try:
                    if rows is None:
                        return
                    work_store = replace(place, store=store)
                    with store.transaction() as tx:
                        end = work_store.load(tx)
                        if end is not None:
                            work = work_store.work(tx)
                            mca.remove_confirmed(work, end, rows)
                            end.save(tx)
                            work.close_all()
                except Exception as exc:  # the next batch reports it; the rows stay listed
                    self.error = exc
                finally:
                    self._jobs.task_done()
        finally:
            store.close()


# -- the receiving side ----------------------------------------------------------------------


class Receiver:
    """The receiving agent of one channel over one link (see the module docstring)."""

    def __init__(self, place: Place, link: Link, address: str, stopping: threading.Event) -> None:
        self.place = place
        self.link = link
        self.address = address  # the partner's address (or the CONNAME this end connected to)
        self.stopping = stopping
        self.terms: Terms | None = None
        self.peer_qmgr = ""
        self.counted = (0, 0)
        self.prefetch: Prefetch | None = None

    def bind(self, init: dict[str, Any]) -> None:
        """Answers an INIT: ACCEPT (the channel runs), or REFUSE and Failure."""
        place = self.place
        now = place.clock.timestamp()
        try:
            sender_type = str(init["chltype"])
            peer_qmgr = str(init["qmgr"])
            offered_seq = int(init["seq"])
            reset = bool(init.get("reset"))
            indoubt = init.get("indoubt") or None
            sender = {"COMPMSG": list(init["compmsg"]), "BATCHSZ": int(init["batchsz"]), "HBINT": int(init["hbint"])}
            sender_maxmsgl = int(init["maxmsgl"])
        except (KeyError, TypeError, ValueError):
            raise Failure("protocol", detail="an INIT that does not hold together") from None
        refusal: tuple[str, dict[str, Any]] | None = None
        with place.store.transaction() as tx:
            system = tx.get_system(place.system)
            if system is None:
                raise Failure("gone")
            fields: dict[str, Any] = {"conname": self.address, "qmgr": qmgr_name(tx, system)}
            found = check(tx, system, place.channel, sender_type, fields)
            if not isinstance(found, End):
                refusal = found
            else:
                end = found
                refusal = self._busy(end, peer_qmgr, fields)
            if refusal is None:
                committed = isinstance(indoubt, dict) and indoubt.get("luwid") == end.status.luwid
                sender_seq = int(indoubt["last"]) if committed and isinstance(indoubt, dict) else offered_seq
                if reset:
                    end.status.seq = sender_seq
                elif end.status.seq != sender_seq:
                    refusal = ("sequence", {"sent": next_seq(sender_seq), "expected": next_seq(end.status.seq)})
            if refusal is None:
                terms = negotiate(sender, sender_maxmsgl, end, maxmsgl(tx, end))
                # As z/OS shows a receiver's partner: its IP address.
                bind_receiver(end, terms, peer_qmgr, self.address.rsplit("(", 1)[0], place.session, now)
                status = end.status
                status.transport = "TCP"
                status.owner = place.owner
                session_security(status, self.link)
                end.say(tx, now, "receiving", qmgr=peer_qmgr, technique=terms.technique)
                end.save(tx)
                answer = {
                    "qmgr": qmgr_name(tx, system), "platform": system.platform, "technique": terms.technique,
                    "batchsz": terms.batchsz, "maxmsgl": terms.maxmsgl, "hbint": terms.hbint,
                    "luwid": end.status.luwid, "seq": end.status.seq,
                }  # fmt: skip
                self.terms, self.peer_qmgr = terms, peer_qmgr
            else:
                cause, found_fields = refusal
                say(tx, system, place.channel, now, "refused_in", address=self.address,
                    detail=refused_detail(cause, found_fields))  # fmt: skip
        if refusal is not None:
            cause, found_fields = refusal
            self.link.send_control("REFUSE", cause=cause, fields=found_fields)
            raise Failure("refused", refusal=cause)
        self.link.send_control("ACCEPT", **answer)

    def _busy(self, end: End, peer_qmgr: str, fields: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """Another sender holds this receiver: a live session of another queue manager,
        or one of the store's own systems. A session of the same queue manager whose
        process ended, or that this loop runs, is taken over (MQ's ADOPTMCA)."""
        status = end.status
        if status.state != RUNNING or not status.bound or status.bound == self.place.session:
            return None
        from mqtool.engine.http.records import Owner, owner_alive

        if not status.bound.startswith("tcp:"):
            return "remote_busy", fields | {"other": status.bound}
        owner = Owner.from_dict(status.owner)
        if not owner_alive(owner) or status.rqmname == peer_qmgr:
            from mqtool.engine.channels.tcp.sessions import adopt

            adopt(self.place.system, self.place.channel, status.bound)
            return None
        return "remote_busy", fields | {"other": status.rqmname}

    def run(self) -> str:
        """Takes batches until the sender closes ("closed") or Failure / LinkError.
        A batch's messages are put as they arrive, in one transaction of this store that
        commits when the batch's end comes (so the receiver's store work runs beside the
        sender's); while a batch is open every frame must come within BATCH_SECONDS, so a
        stalled sender holds the store's write lock that long at most."""
        assert self.terms is not None
        limit = self.terms.maxmsgl + frames.MESSAGE_OVERHEAD
        batch: _Open | None = None
        ahead = Prefetch(self.link, limit, self.terms.maxmsgl)
        self.prefetch = ahead
        try:
            while True:
                wait = receive_bound(self.terms.hbint)
                if batch is not None:
                    wait = min(wait, BATCH_SECONDS)
                try:
                    kind, body = ahead.next(time.monotonic() + wait)
                except LinkError as exc:
                    if exc.kind == "timeout":
                        raise Failure("timeout", wait=int(wait)) from None
                    raise
                if isinstance(body, frames.FrameError):
                    raise Failure("protocol", detail=body.detail)
                if kind == frames.MESSAGE:
                    if batch is None:
                        batch = self._open()
                    if batch.count >= max(1, self.terms.batchsz):
                        raise Failure("protocol", detail=f"more than BATCHSZ {self.terms.batchsz} messages in a batch")
                    batch.count += 1
                    if batch.failed is None:
                        try:
                            batch.last_technique = self._deliver(batch.work, batch.receiving, body, self.terms)
                        except BatchFailed as failed:
                            # The dead-letter queue refuses: rolled back now; the rest of the
                            # batch is read and dropped, and its end answered with ERROR.
                            batch.failed = failed
                            batch.abandon()
                    protocol_point()
                    continue
                control = body
                op = control["op"]
                if op == "HB" and batch is None:
                    self.link.send_control("HBACK")
                elif op == "CLOSE" and batch is None:
                    return "closed"
                elif op == "DISCARD":
                    if batch is not None and batch.failed is None:
                        batch.abandon()  # rolled back: the sender reads the batch again
                    batch = None
                elif op == "EOB":
                    self._commit(control, batch)
                    batch = None
                else:
                    raise Failure("protocol", detail=f"{op} where a message or a batch's end was due")
        finally:
            ahead.stop()
            if batch is not None:
                batch.abandon()

    def _open(self) -> _Open:
        """The transaction of a batch, begun at its first message."""
        place = self.place
        stack = ExitStack()
        try:
            tx = stack.enter_context(place.store.transaction())
            end = place.load(tx)
            if end is None or end.status.bound != place.session or end.status.state != RUNNING:
                raise Failure("remote_ended")
            work = place.work(tx)
            return _Open(stack, tx, end, work, Receiving.of(tx, end), end.status.last_technique)
        except BaseException:
            stack.__exit__(*sys.exc_info())
            raise

    def _commit(self, control: dict[str, Any], batch: _Open | None) -> None:
        """Step 3 of a batch: its end checked, the batch recorded and committed; then
        CONFIRM, or ERROR when it cannot be."""
        try:
            luwid, first, last = str(control["luwid"]), int(control["first"]), int(control["last"])
            declared = int(control["count"])
        except (KeyError, TypeError, ValueError):
            raise Failure("protocol", detail="a batch's end that does not hold together") from None
        count = batch.count if batch is not None else 0
        if declared != count or batch is None:
            raise Failure("protocol", detail=f"a batch's end for {declared} messages after {count}")
        if batch.failed is not None:
            failed = batch.failed
            self.link.send_control("ERROR", cause=failed.cause, fields=failed.fields)
            raise Failure(failed.cause, **failed.fields)
        end, work = batch.end, batch.work
        if first != next_seq(end.status.seq) or last != next_seq(end.status.seq, count):
            raise Failure("protocol", detail=f"sequence numbers {first}-{last} after {end.status.seq}")
        batch.receiving.finish(work, luwid, last, batch.last_technique)
        self._count(end)
        end.save(batch.tx)
        work.close_all()
        batch.closed = True
        batch.stack.close()  # the commit
        protocol_point()
        self.link.send_control("CONFIRM", luwid=luwid, seq=last)
        protocol_point()

    def _deliver(self, work: Work, receiving: Receiving, item: frames.WireMessage, terms: Terms) -> str:
        options = options_of(item.descriptor)
        delivery = receiving.prepare(work, item.length, str(item.descriptor.get("header") or ""))
        original: bytes | None = None
        spent = 0
        if delivery.inflate or not item.codec:
            started = time.perf_counter()
            try:
                original = wire.receive(item.data, item.codec, item.length)
            except codecs.CodecError as exc:
                # Corrupt data or an inflation bomb: the batch is refused whole.
                raise Failure("protocol", detail=f"message data received does not inflate: {exc}") from None
            if work.clock.frozen_at is None:
                spent = int((time.perf_counter() - started) * 1e6)
        receiving.receive(work, delivery, options, item.length, item.codec, len(item.data), original, spent)
        return item.codec or wire.NONE

    def _count(self, end: End) -> None:
        # Frames as taken (the read-ahead may hold the next batch's); socket bytes as read.
        taken = self.prefetch.taken if self.prefetch is not None else self.link.frames_received
        self.counted = count_link(end, (taken, self.link.socket_received), self.counted)


class Prefetch:
    """The frames of a running receiver, read (and parsed) in a thread of its own while
    the receiver puts messages and commits batches, so that the store's work and the
    socket's overlap: up to PREFETCH_BYTES of frames ahead (and the one being read), each
    read bounded as the link bounds it. `next` hands them over in order, with the
    receiver's own deadline; a link failure comes out of `next` when its turn comes."""

    def __init__(self, link: Link, limit: int, maxmsgl: int) -> None:
        self.link = link
        self.limit = limit
        self.maxmsgl = maxmsgl
        self.taken = link.frames_received  # bytes of frames handed over
        self._items: deque[tuple[bytes, Any, int]] = deque()
        self._held = 0
        self._stopping = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="mqtool-receive-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        link = self.link
        while True:
            with self._cond:
                while self._held >= PREFETCH_BYTES and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    return
            try:
                kind, body = link.read_frame(self.limit, time.monotonic() + PREFETCH_SLICE)
            except LinkError as exc:
                if exc.kind == "timeout":
                    continue  # nothing consumed: the frame is read whole at a later try
                self._push(b"", exc, 0)
                return
            except BaseException as exc:  # handed to the receiver's thread, which ends the channel
                self._push(b"", exc, 0)
                return
            value: Any
            try:
                if kind == frames.MESSAGE:
                    value = frames.parse_message(body, self.maxmsgl)
                else:
                    value = frames.parse_control(body)
            except frames.FrameError as exc:
                value = exc
            self._push(kind, value, frames.HEADER.size + len(body))

    def _push(self, kind: bytes, value: Any, size: int) -> None:
        with self._cond:
            self._items.append((kind, value, size))
            self._held += size
            self._cond.notify_all()

    def next(self, deadline: float) -> tuple[bytes, Any]:
        """The next frame: (MESSAGE, WireMessage) or (CONTROL, its fields), or a
        FrameError as the value of a frame that does not hold together; LinkError
        (timeout) when none came by the deadline, or the link's own failure."""
        with self._cond:
            while not self._items:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LinkError("timeout", "no frame came")
                self._cond.wait(left)
            kind, value, size = self._items.popleft()
            self._held -= size
            self.taken += size
            self._cond.notify_all()
        if not kind:
            raise value
        return kind, value

    def stop(self) -> None:
        """Ends the thread (within PREFETCH_SLICE), before the link is closed."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(PREFETCH_SLICE + 5)


def count_link(end: End, now: tuple[int, int], counted: tuple[int, int]) -> tuple[int, int]:
    """The link's bytes (frames, socket) since the last batch, in the channel's last
    batch and totals; returns the counts now, for the next batch."""
    status = end.status
    status.batch.frames, status.batch.socket = now[0] - counted[0], now[1] - counted[1]
    status.total.frames += status.batch.frames
    status.total.socket += status.batch.socket
    return now


@dataclass
class _Open:
    """A batch being received: its transaction (committed when the stack closes
    normally, rolled back by `abandon`), the channel end and what was put."""

    stack: ExitStack
    tx: Transaction
    end: End
    work: Work
    receiving: Receiving
    last_technique: str
    count: int = 0
    failed: BatchFailed | None = None  # the batch cannot complete: its end is answered with ERROR
    closed: bool = False

    def abandon(self) -> None:
        """Rolls the batch back (it failed, or the connection ended before its end came)."""
        if self.closed:
            return
        self.closed = True
        self.work.rolled_back()
        self.stack.__exit__(Failure, Failure("abandoned"), None)


def refused_detail(cause: str, fields: dict[str, Any]) -> str:
    """Why an inbound channel was refused, in words, for the receiving console."""
    words = {
        "partner_stopped": "the queue manager is stopped",
        "partner_chinit": "the channel initiator is not active",
        "remote_undefined": "no channel of that name is defined",
        "remote_stopped": "the channel is stopped",
        "remote_busy": f"the channel is in use by {fields.get('other', 'another sender')}",
        "remote_type": f"the channel is CHLTYPE({fields.get('chltype', '?')})",
        "sequence": f"message sequence error, sent={fields.get('sent')} expected={fields.get('expected')}",
    }
    return words.get(cause, str(fields.get("detail") or cause))


def ended(place: Place, reason: str, say: bool = True) -> None:
    """This session's end of the channel is no longer running: INACTIVE (unless an
    operator stopped it), its console told."""
    with place.store.transaction() as tx:
        end = place.load(tx)
        if end is None or end.status.bound != place.session:
            return
        status = end.status
        status.bound = ""
        status.owner = None
        if status.state in ACTIVE_STATES:
            status.state = INACTIVE
            if say:
                end.say(tx, place.clock.timestamp(), "ended", qmgr=status.rqmname or reason)
        elif status.state != STOPPED:
            status.state = INACTIVE
        end.save(tx)
