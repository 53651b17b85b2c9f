"""One initiating channel over TCP, run by a serving loop in a thread of its own: a
sender, a server with a CONNAME, or a requester, whose CONNAME no system of its store
listens at. The thread connects (each address of the CONNAME in turn), makes the first
exchange, runs the agent, and on any failure sends the channel to RETRYING with MQ's
retry schedule (SHORTRTY/SHORTTMR, then LONGRTY/LONGTMR) and tries again when its time
comes, until the channel is stopped or the loop ends."""

from __future__ import annotations

import itertools
import logging
import threading
import time
from typing import TYPE_CHECKING

from mqtool.engine.channels import conname, mca
from mqtool.engine.channels.ends import SENDING, BatchFailed, qmgr_name
from mqtool.engine.channels.status import ACTIVE_STATES, INACTIVE, RETRYING, STOPPED, next_seq
from mqtool.engine.channels.tcp import handshake
from mqtool.engine.channels.tcp.agents import Failure, Place, Receiver, Sender, ended, failure_of
from mqtool.engine.channels.tcp.link import Link, LinkError, connect
from mqtool.engine.channels.tcp.tls import CLIENT, Plan, TLSStop, partner_failure, plan, report, secure, sslciph_of
from mqtool.state import Store, StoreError

if TYPE_CHECKING:
    from mqtool.engine.channels.ends import End
    from mqtool.engine.channels.tcp.context import Context
    from mqtool.state import Transaction

logger = logging.getLogger(__name__)
CONNECT_SECONDS = 20.0
_SESSIONS = itertools.count(1)


class Outbound(threading.Thread):
    """Runs one initiating channel (see the module docstring)."""

    def __init__(self, context: Context, system: str, channel: str) -> None:
        super().__init__(name=f"mqtool-channel-{system}-{channel}", daemon=True)
        self.context = context
        self.system = system
        self.channel = channel
        self.stopping = threading.Event()
        self.link: Link | None = None

    def stop(self) -> None:
        """Ends the channel at its next batch boundary (STOP CHANNEL's quiesce)."""
        self.stopping.set()

    def abort(self) -> None:
        """Ends it now (the loop ends): the connection is cut; a batch in doubt is
        resolved at the next start."""
        self.stopping.set()
        link = self.link
        if link is not None:
            link.abort()

    def run(self) -> None:
        context = self.context
        try:
            store = Store.open(context.state_dir)
        except StoreError as exc:
            logger.warning("channel %s: %s", self.channel, exc)
            return
        owner = context.owner("outbound")
        place = Place(store, context.clock, self.system, self.channel, owner,
                      f"tcp:{owner['token']}:out{next(_SESSIONS)}")  # fmt: skip
        try:
            while not self.stopping.is_set():
                wait = self._due(place)
                if wait is None:
                    return
                if wait > 0:
                    self.stopping.wait(min(wait, 1.0))
                    continue
                if self._attempt(place) == "done":
                    return
        except Exception as exc:  # the store failed under the thread: the loop starts another
            logger.warning("channel %s: %s: %s", self.channel, type(exc).__name__, exc)
        finally:
            store.close()

    def _due(self, place: Place) -> float | None:
        """Seconds until the next attempt; None when this thread has nothing more to do
        (the channel stopped, was deleted, or another loop owns it)."""
        with place.store.transaction(write=False) as tx:
            end = place.load(tx)
            if end is None or end.status.state not in ACTIVE_STATES:
                return None
            if (end.status.owner or {}).get("token") != place.owner["token"]:
                return None
            if end.status.state == RETRYING:
                return max(0.0, end.status.retry_at - place.clock.timestamp())
            return 0.0

    def _attempt(self, place: Place) -> str:
        """One connection: "again" after a failure (the channel retries), "done" when the
        thread ends (stopped, DISCINT, a requester called back)."""
        made: Plan | None = None
        unusable: TLSStop | None = None
        with place.store.transaction(write=False) as tx:
            end = place.load(tx)
            if end is None:
                return "done"
            attrs = end.record.attrs
            chltype = end.chltype
            qmgr = qmgr_name(tx, end.system)
            targets = str(attrs.get("CONNAME", ""))
            hbint = int(attrs.get("HBINT", 300) or 0)
            try:
                if sslciph_of(end):
                    made = plan(tx, end, place.store.path.parent, CLIENT)
            except TLSStop as stop:
                unusable = stop
        if unusable is not None:  # the key ring, label or CipherSpec: nothing goes on the wire
            return self._stopped(place, unusable, targets)
        link: Link | None = None
        used = targets
        try:
            link, used = self._connect(targets)
            self.link = link
            role = "send" if chltype in SENDING else "request"
            handshake.hello(link, self.channel, qmgr, role, made is not None)
            if made is not None:
                secure(link, made, time.monotonic() + CONNECT_SECONDS)
            if role == "send":
                sender = Sender(place, link, used, self.stopping)
                sender.bind()
                outcome = sender.run()
            else:
                receiver = Receiver(place, link, used, self.stopping)
                init = link.read_control(time.monotonic() + CONNECT_SECONDS)
                if init["op"] == "REFUSE":  # after TLS: blocked, or the server busy, or a call back
                    raise Failure(str(init.get("cause", "protocol")), **dict(init.get("fields") or {}))
                if init["op"] != "INIT":
                    raise Failure("protocol", detail=f"{init['op']} where INIT was due")
                receiver.bind(init)
                outcome = receiver.run()
                ended(place, "closed")
            place_done(place, outcome)
            return "done"
        except TLSStop as stop:
            return self._stopped(place, stop, used)
        except Failure as failure:
            if failure.cause == "tls" and "id" in failure.fields:  # the listening end refused it for TLS
                refused = TLSStop(partner_failure(failure.fields.get("id"), failure.fields.get("reason"), False))
                return self._stopped(place, refused, used)
            return self._failed(place, failure, hbint)
        except LinkError as error:
            if self.stopping.is_set():
                return "done"
            return self._failed(place, failure_of(error, hbint), hbint)
        except BatchFailed as failed:
            return self._failed(place, Failure(failed.cause, **failed.fields), hbint)
        finally:
            self.link = None
            if link is not None:
                link.close()

    def _connect(self, targets: str) -> tuple[Link, str]:
        """A connection to the first address of the CONNAME that answers."""
        try:
            addresses = conname.parse_list(targets)
        except conname.ConnameError as exc:
            raise Failure("connect", conname=targets, reason=str(exc)) from None
        if not addresses:
            raise Failure("connect", conname=targets or "(blank)", reason="no CONNAME")
        reasons = []
        for address in addresses:
            try:
                sock = connect(address.host, address.port, CONNECT_SECONDS)
            except OSError as exc:
                reasons.append(f"{address}: {exc.strerror or exc}")
                continue
            return Link(sock, str(address)), str(address)
        raise Failure("connect", conname=targets, reason="; ".join(reasons))

    def _stopped(self, place: Place, stop: TLSStop, conname: str) -> str:
        """A TLS failure (tls.py): the channel STOPS with IBM's message; no retry."""
        with place.store.transaction() as tx:
            end = held(place, tx)
            if end is None:
                return "done"
            status = end.status
            status.state = STOPPED
            status.reason = "tls"
            status.owner = None
            status.bound = ""
            report(tx, end.system, end.name, place.clock.timestamp(), stop.failure, conname)
            end.save(tx)
        return "done"

    def _failed(self, place: Place, failure: Failure, hbint: int) -> str:
        """The channel after a failed connection or session: RETRYING (mca.retry), or
        STOPPED on a sequence number error, or INACTIVE for a requester called back."""
        if failure.cause == "gone":
            return "done"
        with place.store.transaction() as tx:
            end = held(place, tx)
            if end is None:
                return "done"
            work = place.work(tx)
            status = end.status
            status.bound = ""
            fields = dict(failure.fields)
            if failure.cause == "sequence":
                status.state = STOPPED
                status.reason = "sequence"
                status.owner = None
                sent = fields.get("sent", next_seq(status.seq))
                end.say(tx, work.now, "sequence", sent=sent, expected=fields.get("expected", "?"))
                end.save(tx)
                return "done"
            if failure.cause == "callback":
                status.state = INACTIVE
                status.owner = None
                end.say(tx, work.now, "callback", qmgr=fields.get("qmgr", status.rqmname),
                        conname=fields.get("conname", end.record.attrs.get("CONNAME", "")))  # fmt: skip
                end.save(tx)
                return "done"
            if failure.cause == "version":
                fields.setdefault("theirs", "?")
                fields.setdefault("ours", "?")
            fields.setdefault("detail", "")
            fields.setdefault("reason", "")
            fields.setdefault("wait", 0)
            mca.retry(work, end, failure.cause if failure.cause in _CAUSES else "protocol", **fields)
            work.close_all()
        return "again"


def held(place: Place, tx: Transaction) -> End | None:
    """The channel when this thread still runs it (active, and owned by its loop)."""
    end = place.load(tx)
    if end is None or end.status.state not in ACTIVE_STATES:
        return None
    if (end.status.owner or {}).get("token") != place.owner["token"]:
        return None
    return end


def place_done(place: Place, outcome: str) -> None:
    """The session ended normally: a receiving requester whose server closed is
    INACTIVE; a sender stopped or disconnected already says so."""
    if outcome == "closed":
        return
    with place.store.transaction() as tx:
        end = place.load(tx)
        if end is None:
            return
        if (end.status.owner or {}).get("token") == place.owner["token"]:
            end.status.owner = None
            end.save(tx)


# The retry causes a failure may have (ends.MESSAGES); others are protocol errors.
_CAUSES = {
    "connect", "lost", "timeout", "peer", "version", "protocol", "tls", "batch", "deadq", "xmitq", "own_stopped",
    "partner_stopped", "partner_chinit", "remote_undefined", "remote_stopped", "remote_busy", "remote_type",
    "remote_ended", "blocked",
}  # fmt: skip
