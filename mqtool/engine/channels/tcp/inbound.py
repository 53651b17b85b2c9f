"""One connection that came in through a listener, after its HELLO: the channel it
names is looked up on the listener's system, the connection refused (with the reason,
on both consoles) or answered, TLS made when the channels have a CipherSpec, then the
agent runs: a receiver (RCVR, RQSTR) takes a sender's batches; a server (SVR) sends to
the requester that connected; a sender (SDR) asked by a requester calls it back."""

from __future__ import annotations

import itertools
import logging
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

from mqtool.engine.channels import mca
from mqtool.engine.channels.ends import End, qmgr_name, say
from mqtool.engine.channels.receiving import check
from mqtool.engine.channels.status import BINDING, RUNNING
from mqtool.engine.channels.tcp import access, handshake, sessions
from mqtool.engine.channels.tcp import listener as listening
from mqtool.engine.channels.tcp.agents import (
    CONTROL_SECONDS,
    Failure,
    Place,
    Receiver,
    Sender,
    ended,
    failure_of,
    refused_detail,
)
from mqtool.engine.channels.tcp.link import Link, LinkError
from mqtool.engine.channels.tcp.tls import (
    LINGER_SECONDS,
    SERVER,
    Plan,
    TLSStop,
    plan,
    presence,
    report,
    secure,
    sslciph_of,
)
from mqtool.engine.timers import schedule
from mqtool.state import Store, Transaction

if TYPE_CHECKING:
    from mqtool.engine.channels.tcp.context import Context

logger = logging.getLogger(__name__)
_SESSIONS = itertools.count(1)


class Inbound(threading.Thread):
    """Runs one inbound connection (see the module docstring)."""

    def __init__(
        self, context: Context, key: tuple[str, str], sock: socket.socket, peer: str,
        hello: tuple[str, str, str, bool], leftover: bytes,
    ) -> None:  # fmt: skip
        super().__init__(name=f"mqtool-inbound-{hello[0]}", daemon=True)
        self.context = context
        self.key = key  # the listener it came through: (system, address)
        self.system = key[0]
        self.peer = peer
        self.channel, self.qmgr, self.role, self.tls = hello
        self.link = Link(sock, peer)
        self.link.take(leftover)
        self.stopping = threading.Event()
        self.reason = ""

    def abort(self, reason: str) -> None:
        """Ends the session now (STOP CHANNEL of this end, STOP CHINIT, the loop ends, or
        a new connection of the same queue manager takes the channel over)."""
        self.reason = reason
        self.stopping.set()
        self.link.abort()

    def run(self) -> None:
        context = self.context
        owner = context.owner("inbound")
        session = f"tcp:{owner['token']}:in{next(_SESSIONS)}"
        try:
            store = Store.open(context.state_dir)
        except Exception as exc:  # the connection is refused: the sender retries
            logger.warning("inbound %s: %s", self.channel, exc)
            self.link.close()
            return
        place = Place(store, context.clock, self.system, self.channel, owner, session)
        sessions.register(self.system, self.channel, session, self.abort)
        try:
            self._session(place)
        except Failure as failure:
            if failure.cause not in ("refused", "gone"):
                self._note(place, failure)
        except LinkError as error:
            if not self.stopping.is_set():
                self._note(place, failure_of(error))
        except Exception as exc:  # one connection's failure is never the listener's
            logger.warning("inbound %s: %s: %s", self.channel, type(exc).__name__, exc)
        finally:
            sessions.forget(self.system, self.channel, session)
            try:
                ended(place, self.reason or "ended")
            except Exception as exc:
                logger.warning("inbound %s: %s", self.channel, exc)
            self.link.close()
            store.close()
            context.session_ended(self)

    def _session(self, place: Place) -> None:
        link = self.link
        refusal, made = self._look_up(place)
        if refusal is None:
            role = "receive" if self.role == "send" else "send"
            handshake.answer(link, "HELLO-OK", role=role, tls=made is not None)
            if made is not None:
                self._secure(place, made)
            refusal = self._admit(place)
            if refusal is None and self.role == "request":
                refusal = self._requested(place)
            if refusal is not None:  # in place of the INIT or its answer
                link.send_control("REFUSE", cause=refusal[0], fields=refusal[1])
        else:
            handshake.answer(link, "REFUSE", cause=refusal[0], fields=refusal[1])
        if refusal is not None:
            self._refused(place, *refusal)
            link.linger(LINGER_SECONDS)
            raise Failure("refused")
        self.context.count(self.key, "channels")
        if self.role == "send":
            receiver = Receiver(place, link, self.peer, self.stopping)
            init = link.read_control(time.monotonic() + CONTROL_SECONDS)
            if init["op"] != "INIT":
                raise Failure("protocol", detail=f"{init['op']} where INIT was due")
            receiver.bind(init)
            receiver.run()
            return
        sender = Sender(place, link, self.peer, self.stopping)
        sender.bind()
        sender.run()

    def _refused(self, place: Place, cause: str, fields: dict[str, Any], own: TLSStop | None) -> None:
        """The console and the listener's counts hear of a refused channel (a blocked one's
        CSQX message was written when it was decided; a requester called back is none)."""
        if cause == "callback":
            return
        if cause == "blocked":
            self.context.count(self.key, "blocked")
            return
        with place.store.transaction() as tx:
            system = tx.get_system(place.system)
            if system is not None and own is not None:
                report(tx, system, self.channel, place.clock.timestamp(), own.failure, self.peer)
            elif system is not None:
                say(tx, system, self.channel, place.clock.timestamp(), "refused_in", address=self.peer,
                    detail=refused_detail(cause, fields))  # fmt: skip
        self.context.count(self.key, "refused")

    def _secure(self, place: Place, made: Plan) -> None:
        """TLS (tls.py), bounded by the listener's first-exchange time; a failure is
        reported here and ends the connection."""
        try:
            secure(self.link, made, time.monotonic() + listening.HELLO_SECONDS)
        except TLSStop as stop:
            with place.store.transaction() as tx:
                system = tx.get_system(place.system)
                if system is not None:
                    report(tx, system, self.channel, place.clock.timestamp(), stop.failure, self.peer)
            self.context.count(self.key, "refused")
            raise Failure("refused") from None

    def _admit(self, place: Place) -> tuple[str, dict[str, Any], None] | None:
        """CHLAUTH (access.py): a refusal when the channel is blocked; else the user id it
        runs as goes to its status (with the session's TLS fields)."""
        with place.store.transaction() as tx:
            end = place.load(tx)
            if end is None:
                return ("remote_undefined", {"conname": self.peer}, None)
            host = self.peer.rsplit("(", 1)[0]
            admission = access.decide(tx, end, host, self.peer, self.qmgr, self.link.tls)
            access.say(tx, end.system, place.clock.timestamp(), admission)
            if not admission.allowed:
                return ("blocked", {"conname": self.peer, "qmgr": qmgr_name(tx, end.system)}, None)
        found = self.link.security
        found["mcauser"] = admission.mcauser
        if found.get("sslciph"):
            found["sslcertu"] = admission.certificate_user
        return None

    def _look_up(self, place: Place) -> tuple[tuple[str, dict[str, Any], TLSStop | None] | None, Plan | None]:
        """(a refusal: its cause, the fields the initiating end hears, this end's TLS
        failure when TLS is why; the TLS plan when the channel has a CipherSpec): the
        channel the HELLO names on this system, and whether it may start. Nothing is
        written: the channel is not touched before TLS and CHLAUTH let it in."""
        with place.store.transaction(write=False) as tx:
            system = tx.get_system(place.system)
            if system is None:
                return ("partner_stopped", {}, None), None
            fields: dict[str, Any] = {"conname": self.peer, "qmgr": qmgr_name(tx, system)}
            initiator = "SDR" if self.role == "send" else "RQSTR"
            found = check(tx, system, self.channel, initiator, fields)
            if not isinstance(found, End):
                return (found[0], found[1], None), None
            end = found
            mismatch = presence(bool(sslciph_of(end)), self.tls)
            if mismatch is not None:
                own, theirs = mismatch
                return ("tls", fields | {"id": theirs.msg_id, "reason": theirs.reason}, TLSStop(own)), None
            if not self.tls:
                return None, None
            try:
                return None, plan(tx, end, place.store.path.parent, SERVER)
            except TLSStop as stop:
                reason = f"the listening end cannot make TLS: {stop.failure.reason}"
                return ("tls", fields | {"id": "CSQX638E", "reason": reason}, stop), None

    def _requested(self, place: Place) -> tuple[str, dict[str, Any], None] | None:
        """A requester came in: a server answers it (this session runs the server); a
        sender is started to call it back."""
        with place.store.transaction() as tx:
            end = place.load(tx)
            if end is None:
                return ("remote_undefined", {"conname": self.peer}, None)
            fields: dict[str, Any] = {"conname": self.peer, "qmgr": qmgr_name(tx, end.system)}
            found = self._request_for(tx, end, place, fields)
            return (found[0], found[1], None) if found is not None else None

    def _request_for(
        self, tx: Transaction, end: End, place: Place, fields: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:  # fmt: skip
        from mqtool.engine.http.records import Owner, owner_alive

        status = end.status
        if status.state in (RUNNING, BINDING) and owner_alive(Owner.from_dict(status.owner)):
            return "remote_busy", fields | {"other": status.rqmname or "another requester"}
        now = place.clock.timestamp()
        if end.chltype == "SDR":
            if status.state not in (RUNNING, BINDING):
                status.state = BINDING
                status.retries = 0
                status.owner = None
                end.save(tx)
                schedule(tx, end.system.name, mca.CHANNEL_TIMER, now)
            return "callback", fields
        status.state = BINDING
        status.owner = place.owner
        status.requester = ""
        end.save(tx)
        return None

    def _note(self, place: Place, failure: Failure) -> None:
        """A session that ended on a failure: the receiving console hears why, once."""
        self.context.count(self.key, "refused" if failure.cause == "tls" else "lost")
        with place.store.transaction() as tx:
            system = tx.get_system(place.system)
            if system is None:
                return
            detail = refused_detail(failure.cause, failure.fields)
            say(tx, system, self.channel, place.clock.timestamp(), "refused_in", address=self.peer,
                detail=f"{failure.cause}: {detail}")  # fmt: skip
