"""The REST API on the z/TPF HTTP server's machinery: a connection class that routes
each request (`/ibmmq/rest/v1|v2|v3/...`), authenticates it (HTTP Basic against the
users of rest.yaml), checks IBM's CSRF header and the user's mqweb roles, and hands the
work to the one store thread of `RestApi`. Reading, the head and body bounds, 413, 505,
time-outs, connection bounds and writing are the HTTP server's own.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import concurrent.futures
import hmac
import secrets
import socket
import sqlite3
import ssl
from collections.abc import Awaitable, Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl

import h11

from mqtool.clock import Clock
from mqtool.engine.http.config import ServerOptions
from mqtool.engine.http.server import HEAD_LIMIT, HttpServer, _Connection, _request_segments, _Stalled
from mqtool.engine.http.stats import HttpStats
from mqtool.rest.publish import publish, topic_route
from mqtool.state import StoreError

from .api import Got, RestApi
from .config import RestConfig, RestUser, check_password
from .logins import MAX_DELAY, Throttle, delay_after, dummy_hash
from .reader import NeedsWriter, ReadingApi
from .reply import CSRF_HEADER, MAX_WAIT_MS, Reply, RestError, error_reply
from .wire import PlainRequest, head_end, plain_request, response_head

T = TypeVar("T")

VERSIONS = {"v1": 1, "v2": 2, "v3": 3}
# Verified credentials kept (as HMACs) so that a keep-alive client does not pay the
# password hash on every request; more than this many distinct ones empties the cache.
_CACHE_LIMIT = 1024
# Polling an empty queue for a get with wait: first pause, doubling up to the last.
_WAIT_FIRST, _WAIT_MAX = 0.01, 0.2
# Request bodies up to this size have their read-only answers cached (AnswerCache).
_CACHED_BODY = 4096
_REALM = [("WWW-Authenticate", 'Basic realm="mqtool"')]
_CSRF = CSRF_HEADER.encode()
# The stream reader's buffer of an https connection (the HTTP server's plain one reads 64 KiB).
_READ_LIMIT = 64 * 1024
# What the lean reader reads at a time (the HTTP server reads as much).
_READ_SIZE = 64 * 1024


class Authenticator:
    """HTTP Basic authentication against the users of the configuration."""

    def __init__(self, users: tuple[RestUser, ...]) -> None:
        self._users = {user.name: user for user in users}
        self._key = secrets.token_bytes(32)
        self._known: dict[bytes, str] = {}
        self._dummy = dummy_hash(users[0].password if users else None)

    def _digest(self, header: str) -> bytes:
        return hmac.digest(self._key, header.encode("latin-1", "replace"), "sha256")  # one call into OpenSSL

    def known(self, header: str | None) -> RestUser | None:
        """The user of credentials verified before (no hashing: fast, on the event loop)."""
        if header is None:
            return None
        name = self._known.get(self._digest(header))
        return None if name is None else self._users.get(name)

    def verify(self, header: str | None) -> RestUser | None:
        """The user whose name and password the Authorization header carries (scrypt:
        run it off the event loop), remembered when they match. A name that is no user's
        is checked against a dummy hash of the same cost, and every comparison is
        constant-time, so the answer takes as long for an unknown user as for a wrong
        password."""
        if header is None:
            return None
        scheme, _, token = header.strip().partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            return None
        name, colon, password = decoded.partition(":")
        user = self._users.get(name)
        matched = check_password(self._dummy if user is None else user.password, password)
        if user is None or not colon or not matched:
            return None
        if len(self._known) >= _CACHE_LIMIT:
            self._known.clear()
        self._known[self._digest(header)] = user.name
        return user


class AnswerCache:
    """Answers of commands that change nothing (DISPLAY), kept on the event loop so that
    a client polling a display (monitors do) costs no store thread work while nothing
    changes: an answer is given again only while no connection has committed anything
    to the store since it was made (the store's generation as the reader's connection
    sees it: SQLite's data_version, which counts the store thread's commits and other
    processes' alike) and the clock is before its `valid_until` (the end of its second,
    or the next timer due). A generation of None (not known) keeps nothing."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._answers: dict[tuple[str, bytes], tuple[Hashable, float, Reply]] = {}

    def get(self, key: tuple[str, bytes], generation: Hashable | None) -> Reply | None:
        """The answer kept for `key` while the store is at `generation` (just read)."""
        found = self._answers.get(key)
        if found is None:
            return None
        kept_at, valid_until, reply = found
        if generation is None or generation != kept_at or self._clock.timestamp() >= valid_until:
            del self._answers[key]
            return None
        return reply

    def put(self, key: tuple[str, bytes], reply: Reply, generation: Hashable | None) -> None:
        """Keeps a read-only command's answer made after the store was at `generation`
        (read before the command ran). The answer shows that generation or a later one,
        so it is never given for a store that changed after it was made: a commit after
        it (another process's, or the command's own timers') makes get() drop it.
        Reading the generation again here would cost a query per command and spare
        nothing."""
        if reply.valid_until is None or len(key[1]) > _CACHED_BODY or generation is None:
            return
        if len(self._answers) >= _CACHE_LIMIT:
            self._answers.clear()
        self._answers[key] = (generation, reply.valid_until, reply)


class RestContext:
    """What every connection of one REST listener shares: the configuration, the
    authenticator, and the store thread with its RestApi."""

    def __init__(self, state_dir: Path, clock: Clock, config: RestConfig) -> None:
        self.config = config
        self.auth = Authenticator(config.users)
        self.api = RestApi(state_dir, clock, config.host)
        # Short reading commands answered on the event loop (reader.py); not before the
        # store thread has opened (and made, when missing) the store.
        self.reader = ReadingApi(self.api)
        self._reader_ready = False
        self.answers = AnswerCache(clock)
        self.throttle = Throttle()
        # How a throttled attempt waits (tests put a recorder here): on the event loop,
        # so that only the waiting request waits.
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self._store_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="mqtool-rest-store")

    async def call(self, func: Callable[..., T], *args: Any) -> T:
        """Runs `func` in the store thread (one at a time: the store is one connection)."""
        return await asyncio.get_running_loop().run_in_executor(self._store_thread, func, *args)

    async def mqsc(self, qmgr: str, body: bytes, user: RestUser) -> Reply:
        """RestApi.mqsc: the answer mqsc_now gives, else the store thread's."""
        reply, generation = self._now(qmgr, body, user)
        if reply is None:
            reply = await self.call(self.api.mqsc, qmgr, body, user)
            self._reader_ready = True
            if len(body) <= _CACHED_BODY:
                self.answers.put((qmgr, body), reply, generation)
        return reply

    def mqsc_now(self, qmgr: str, body: bytes, user: RestUser) -> Reply | None:
        """RestApi.mqsc's answer at once: one kept in the answer cache while the store
        has not changed, else reader.ReadingApi's when it may answer; None when only the
        store thread may (mqsc). The store's generation is read once, before anything
        runs: for the cache, and as the reader's first look at the store."""
        return self._now(qmgr, body, user)[0]

    def _now(self, qmgr: str, body: bytes, user: RestUser) -> tuple[Reply | None, tuple[int, int] | None]:
        generation = self.generation()
        if generation is None:
            return None, None
        kept = len(body) <= _CACHED_BODY
        reply = self.answers.get((qmgr, body), generation) if kept else None
        if reply is None:
            try:
                reply = self.reader.mqsc(qmgr, body, user, generation)
            except NeedsWriter:
                return None, generation
            if kept:
                self.answers.put((qmgr, body), reply, generation)
        return reply, generation

    def generation(self) -> tuple[int, int] | None:
        """The store's generation as the reader's connection sees it; None before the
        reader is ready (the store thread has not opened the store yet) or when the
        store cannot be read."""
        if not self._reader_ready:
            return None
        try:
            return self.reader.generation()
        except (StoreError, sqlite3.Error):
            return None

    async def close(self) -> None:
        """Closes the reader's connection (on the event loop, whose thread opened it),
        then the store and its thread."""
        self.reader.close()
        await asyncio.to_thread(self._close_store)

    def _close_store(self) -> None:
        self._store_thread.submit(self.api.close).result()
        self._store_thread.shutdown(wait=True)


class RestConnection(_Connection):
    """One connection of the REST listener (see the module docstring)."""

    keeps_body = True
    _address: str | None = None
    # Bytes the lean reader (wire.py) has read and not yet used (pipelined requests).
    _pending = b""
    # Whether the request being answered was read by the lean reader (its response is
    # then written without h11), and whether that response closes the connection.
    _plain = False
    _plain_close = False
    _plain_sent = False
    # Whether the task waits for the first bytes of a request, holding none (then bytes
    # that come are offered to answer_now first); how many requests answer_now has
    # answered, and when (the event loop's time) it last did.
    idle = False
    _answered_now = 0
    _last_now = 0.0
    # After a wait that timed out while answer_now answered requests: the deadline of
    # the next wait (the listener's timeout after the last of them).
    _resume_at: float | None = None

    @property
    def body_limit(self) -> int:  # type: ignore[override]
        return self.rest.config.maxbody

    # ------------------------------------------------------------ lean reading
    async def _exchange(self) -> bool:
        """Reads and answers one request: a plain one (wire.py) without h11, any other
        with every byte read so far handed to h11, as the HTTP server reads requests.
        The same bounds hold: the head within HEAD_LIMIT, the body within body_limit,
        the whole request within the listener's timeout (a request handed to h11 after
        its head was read gets the timeout again from there)."""
        protocol = self.protocol
        if protocol.their_state is not h11.IDLE or protocol.our_state is not h11.IDLE or protocol.trailing_data[0]:
            return await super()._exchange()  # h11 is reading this connection's requests
        buffer = self._pending
        self._pending = b""
        request: PlainRequest | None = None
        ended = False
        answered = self._answered_now
        deadline, self._resume_at = self._resume_at or self.loop.time() + self.options.timeout, None
        try:
            async with asyncio.timeout_at(deadline) as timer:
                end = head_end(buffer)
                while end == 0 and len(buffer) < HEAD_LIMIT:
                    self.idle = not buffer
                    try:
                        data = await self.reader.read(min(_READ_SIZE, HEAD_LIMIT - len(buffer)))
                    finally:
                        self.idle = False
                    if self._answered_now != answered:
                        # answer_now answered requests meanwhile: this one's time runs from the last of them
                        answered = self._answered_now
                        timer.reschedule(self._last_now + self.options.timeout)
                    if not data:
                        ended = True
                        break
                    buffer += data
                    end = head_end(buffer)
                if 0 < end <= HEAD_LIMIT:
                    parsed = plain_request(buffer[:end], self.body_limit)
                    if parsed is not None:
                        request, length = parsed
                        while len(buffer) < end + length:
                            data = await self.reader.read(_READ_SIZE)
                            if not data:
                                ended, request = True, None
                                break
                            buffer += data
        except TimeoutError:
            if not buffer and self._answered_now != answered:
                # Not idle: answer_now answered requests while the task waited.
                self._resume_at = self._last_now + self.options.timeout
                return True
            self.stats.timed_out_connection()
            if buffer:
                self._plain = True
                await self._send_final(408)
            return False
        if request is None:
            if ended and not buffer:
                return False  # closed between requests
            # Not plain: h11 reads it from what came so far, then from the socket.
            self._plain = False
            if buffer:
                protocol.receive_data(bytes(buffer))
            if ended:
                self.peer_closed = True
                protocol.receive_data(b"")
            return await super()._exchange()
        self.body = bytes(buffer[end : end + length])
        self._pending = buffer[end + length :]
        return await self._answer_plain(request)

    def answer_now(self, data: bytes) -> bytes:
        """Answers, as the bytes arrive (in the transport's data_received, while the task
        is idle), the complete plain requests at the start of `data` whose answer needs
        nothing waited for: an mqsc POST with known credentials that the answer cache or
        the reader answers (RestContext.mqsc_now), or that is refused before it runs.
        Returns the bytes from the first request it leaves to the task, which then reads
        and answers them as it reads any request (so answers go out in order). It stops
        while the transport holds unsent bytes: a client that does not read gets at most
        one answer this way, then meets the task's write time-out."""
        transport = self.writer.transport
        answered = 0
        try:
            while data and not transport.is_closing() and not transport.get_write_buffer_size():
                end = head_end(data)
                parsed = plain_request(data[:end], self.body_limit) if 0 < end <= HEAD_LIMIT else None
                if parsed is None or len(data) < end + parsed[1]:
                    break
                request, length = parsed
                reply = self._reply_now(request, data[end : end + length])
                if reply is None:
                    break
                head = response_head(reply.status, [*reply.headers, ("Content-Length", str(len(reply.body)))])
                transport.write(head + reply.body)
                # Answered: never offered to the task again, whatever follows fails.
                data = data[end + length :]
                answered += 1
                if self.served:
                    self.stats.reused_request()
                self.served += 1
        except Exception:
            pass  # the task answers the request again, and reports what fails there
        if answered:
            self._answered_now += answered
            self._last_now = self.loop.time()
        return data

    def _reply_now(self, request: PlainRequest, body: bytes) -> Reply | None:
        """_answer's reply when it needs nothing waited for (see answer_now); None otherwise."""
        rest = self.rest
        try:
            asked = _Asked(request)
            if asked.kind != "mqsc":
                return None
            user = rest.auth.known(asked.header)
            if user is None:
                return None  # no credentials, or new ones: the task checks them
            rest.throttle.succeeded(self.address)
            reply = rest.mqsc_now(asked.names[0], body, asked.allowed(user))
        except RestError as error:
            reply = error.reply()
        if reply is not None and any(name.lower() == "connection" for name, _ in reply.headers):
            return None
        return reply

    async def _answer_plain(self, request: PlainRequest) -> bool:
        """Answers a request the lean reader read, as _exchange answers one h11 read."""
        self._plain, self._plain_close, self._plain_sent = True, False, False
        self.head_request = False
        if self.served:
            self.stats.reused_request()
        self.served += 1
        try:
            await self._respond(request, False)  # type: ignore[arg-type]
        except (OSError, _Stalled, asyncio.CancelledError):
            raise
        except Exception as exc:  # answered 500, then counted
            self.server._internal_error(exc)
            if not self._plain_sent:
                await self._send_final(500)
            return False
        if self._plain_close:
            await self._linger()
            return False
        return True

    async def _send_response(
        self,
        status: int,
        headers: list[tuple[str, str]],
        body: bytes,
        *,
        keep_10: bool = False,
        end: bool = True,
        cached: bool = False,
    ) -> bool:
        if not self._plain:
            return await super()._send_response(status, headers, body, keep_10=keep_10, end=end, cached=cached)
        # Every REST response carries its Content-Length: h11 would send this head as it is.
        head = response_head(status, headers)
        self._plain_sent = True
        self._plain_close = any(name.lower() == "connection" and value.lower() == "close" for name, value in headers)
        await self._write([head, body] if status not in (204, 304) else [head])
        return False

    @property
    def rest(self) -> RestContext:
        assert isinstance(self.server, RestServer)
        return self.server.rest

    async def _respond(self, request: h11.Request, keep_10: bool) -> bool:
        got: Got | None = None
        try:
            reply = await self._answer(request)
            if isinstance(reply, Got):
                got, reply = reply, reply.reply
        except RestError as error:
            reply = error.reply()
        headers = [*reply.headers, ("Content-Length", str(len(reply.body)))]
        try:
            return await self._send_response(reply.status, headers, reply.body, keep_10=keep_10)
        except BaseException:
            if got is not None:
                # The client did not take the message: it goes back where it was.
                await asyncio.shield(self.rest.call(self.rest.api.restore, got))
            raise

    async def _send_simple(
        self,
        status: int,
        *,
        close: bool = False,
        keep_10: bool = False,
        extra: list[tuple[str, str]] | None = None,
    ) -> bool:
        """The HTTP server's own refusals, as IBM's error JSON where REST has one."""
        if status == 413:
            reply = error_reply(413, "MQT0365E", limit=self.rest.config.maxbody)
        elif status == 500:
            reply = error_reply(500, "MQWB0000E", exception="(internal error)")
        else:
            return await super()._send_simple(status, close=close, keep_10=keep_10, extra=extra)
        headers = [*reply.headers, ("Content-Length", str(len(reply.body))), *(extra or [])]
        if close:
            headers.append(("Connection", "close"))
        return await self._send_response(status, headers, reply.body, keep_10=keep_10)

    # ------------------------------------------------------------------ routing
    async def _answer(self, request: h11.Request) -> Reply | Got:
        rest = self.rest
        asked = _Asked(request)
        user = rest.auth.known(asked.header)
        if user is None and asked.header is not None:
            user = await self._login(asked.header)
        elif user is not None:
            rest.throttle.succeeded(self.address)
        user = asked.allowed(user)
        method, kind, names, version = asked.method, asked.kind, asked.names, asked.version
        if kind == "qmgr":
            return await rest.call(rest.api.qmgr, names[0] if names else None)
        if kind == "mqsc":
            return await rest.mqsc(names[0], self.body, user)
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in request.headers}
        if kind == "topic":
            if not user.has("MQWebUser"):
                raise RestError(403, "MQWB0103E", action="publish to", target=names[1])
            return await rest.call(publish, rest.api, names[0], names[1], version, headers, self.body)
        qmgr, queue = names
        if not user.has("MQWebUser"):
            action = {"POST": "put to", "DELETE": "get from", "GET": "browse from"}[method]
            raise RestError(403, "MQWB0103E", action=action, target=queue)
        if method == "POST":
            return await rest.call(rest.api.put, qmgr, queue, version, headers, self.body, user.name)
        query = dict(parse_qsl(asked.query.decode("latin-1"), keep_blank_values=True))
        wait = _wait(query.get("wait", "0")) if method == "DELETE" else 0
        return await self._get(qmgr, queue, version, query, method == "GET", wait, user.name)

    @property
    def address(self) -> str:
        """The client's IP address (the key of login throttling)."""
        if self._address is None:
            peer = self.writer.get_extra_info("peername")
            self._address = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        return self._address

    async def _login(self, header: str) -> RestUser | None:
        """Verifies new credentials after the wait the client address has earned by
        failing before (rest.throttle); counts the outcome and says it on the console."""
        rest = self.rest
        address = self.address
        wait = rest.throttle.wait(address)
        if wait > 0:
            await rest.sleep(wait)
        user = await asyncio.to_thread(rest.auth.verify, header)
        if user is not None:
            rest.throttle.succeeded(address)
            return user
        failures = rest.throttle.failed(address)
        msg_id = rest.throttle.report(failures)
        if msg_id is not None:
            fields: dict[str, Any] = {"address": address, "count": failures}
            if msg_id == "MQT0355W":
                fields.update(delay=f"{delay_after(failures):g}", cap=f"{MAX_DELAY:g}")
            else:
                fields["user"] = _named_user(header)
            await rest.call(rest.api.console, msg_id, fields)
        return None

    async def _get(
        self, qmgr: str, queue: str, version: int, query: dict[str, str], browse: bool, wait_ms: int, user: str
    ) -> Reply | Got:
        """A get (or browse); with `wait`, the queue is tried again, each try a short
        transaction in the store thread, until a message comes or the time is up."""
        rest = self.rest
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_ms / 1000
        pause = _WAIT_FIRST
        while True:
            got = await rest.call(rest.api.get, qmgr, queue, version, query, browse, user)
            if got is not None:
                return got
            remaining = deadline - loop.time()
            if remaining <= 0:
                return Reply(204)
            await asyncio.sleep(min(pause, remaining))
            pause = min(pause * 2, _WAIT_MAX)


class _Asked:
    """What routing reads of a request: its method, path (RestError 404 for one that is
    no resource), query, the resource's API version, methods and kind, the names in
    the path, and the headers that decide (Authorization, the CSRF header, Content-Type)."""

    __slots__ = ("content_type", "csrf", "header", "kind", "method", "methods", "names", "path", "query", "version")

    def __init__(self, request: h11.Request | PlainRequest) -> None:
        self.method = request.method.decode("ascii", "replace").upper()
        self.path, _, self.query = request.target.partition(b"?")
        self.version, self.methods, self.kind, self.names = _resolve(self.path)
        self.header, self.csrf, self.content_type = _wanted_headers(request)

    def allowed(self, user: RestUser | None) -> RestUser:
        """`user` (the one the credentials name) when the request may go on; RestError
        401 without a user, 405 for a method the resource does not take, 403 without
        the CSRF header (all but GET) or, for the mqsc resource, without a role that
        runs commands; 415 for an mqsc body that is not JSON."""
        if user is None:
            raise RestError(401, "MQWB0104E", headers=_REALM, uri=self.path.decode("latin-1"))
        if self.method not in self.methods:
            raise RestError(
                405,
                "MQT0363E",
                headers=[("Allow", ", ".join(self.methods))],
                method=self.method,
                path=self.path.decode("latin-1"),
                allowed=", ".join(self.methods),
            )
        if self.method != "GET" and not self.csrf:
            raise RestError(403, "MQWB0100E", header=CSRF_HEADER)
        if self.kind == "mqsc":
            if not user.has("MQWebAdmin", "MQWebAdminRO", "MQWebUser"):
                raise RestError(403, "MQWB0103E", action="run commands on", target=self.names[0])
            media = self.content_type.partition(";")[0].strip().lower()
            if media != "application/json":
                raise RestError(415, "MQWB0306E")
        return user


def _named_user(header: str) -> str:
    """The user name an Authorization header gives, printable and short, for the console
    (never the password)."""
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return f"({scheme[:16]!r} credentials)"
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return "(undecodable credentials)"
    name = decoded.partition(":")[0]
    shown = "".join(char if char.isprintable() and not char.isspace() else "?" for char in name[:64])
    return shown or "(empty)"


def _wanted_headers(request: h11.Request | PlainRequest) -> tuple[str | None, bool, str]:
    """What routing reads of the headers, in one pass over them: the Authorization
    header (repeated ones joined, as the HTTP server's _header gives them; None without
    it), whether the CSRF header is there, and the last Content-Type ("" without it, as
    a dict of the headers gives it)."""
    authorization: list[bytes] = []
    csrf = False
    content_type = b""
    for key, value in request.headers:
        if key == b"authorization":
            authorization.append(value)
        elif key == _CSRF:
            csrf = True
        elif key == b"content-type":
            content_type = value
    # Repeated list headers are one comma-separated list (RFC 9110 5.3).
    header = ", ".join(value.decode("latin-1") for value in authorization) if authorization else None
    return header, csrf, content_type.decode("latin-1")


_Resolved = tuple[int, tuple[str, ...], str, list[str]]
# Request paths resolved before (clients send the same few again and again), so that
# a request does not pay the percent-decoding and checks of every segment; emptied
# when it holds _CACHE_LIMIT paths. Paths that are refused are not kept.
_RESOLVED: dict[bytes, _Resolved] = {}


def _resolve(path: bytes) -> _Resolved:
    """(API version, allowed methods, kind, names) of a request path; RestError 404."""
    found = _RESOLVED.get(path)
    if found is not None:
        return found
    segments = _request_segments(path)
    if segments is None or len(segments) < 4 or segments[:2] != ["ibmmq", "rest"] or segments[2] not in VERSIONS:
        raise RestError(404, "MQWB0116E")
    allowed, kind, names = _route(segments[3:])
    found = (VERSIONS[segments[2]], allowed, kind, names)
    if len(_RESOLVED) >= _CACHE_LIMIT:
        _RESOLVED.clear()
    _RESOLVED[path] = found
    return found


def _route(route: list[str]) -> tuple[tuple[str, ...], str, list[str]]:
    """(allowed methods, kind, names) of a path after /ibmmq/rest/vN; RestError 404."""
    if route == ["admin", "qmgr"]:
        return ("GET",), "qmgr", []
    if len(route) == 3 and route[:2] == ["admin", "qmgr"]:
        return ("GET",), "qmgr", [route[2]]
    if len(route) == 5 and route[:3] == ["admin", "action", "qmgr"] and route[4] == "mqsc":
        return ("POST",), "mqsc", [route[3]]
    if len(route) == 6 and route[:2] == ["messaging", "qmgr"] and route[3] == "queue" and route[5] == "message":
        return ("POST", "DELETE", "GET"), "message", [route[2], route[4]]
    topic = topic_route(route)  # publish on a topic string (rest/publish.py)
    if topic is not None:
        return ("POST",), "topic", list(topic)
    raise RestError(404, "MQWB0116E")


def _wait(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 10 or int(text) > MAX_WAIT_MS:
        raise RestError(400, "MQT0362E", field="wait query parameter", problem="must be milliseconds, 0 or more")
    return int(text)


class RestServer(HttpServer):
    """The HTTP server of the REST listener (not yet started: `await start()`); with an
    ssl context it answers https: the TLS handshake of each connection runs in that
    connection's own task, bounded by the listener's timeout, so one that never
    completes holds only its own connection (counted against maxconn) until then."""

    def __init__(self, state_dir: Path, clock: Clock, config: RestConfig, tls: ssl.SSLContext | None = None) -> None:
        options = config.options(state_dir)
        super().__init__(lambda: options, lambda: False, HttpStats(), clock.perf, connection=RestConnection)
        self.rest = RestContext(state_dir, clock, config)
        self.tls = tls
        #: TLS handshakes that failed or timed out (a plain-HTTP request on the https
        #: port is one): the connection was closed without an answer.
        self.failed_handshakes = 0

    async def _serve(self, conn: socket.socket, options: ServerOptions) -> None:
        loop = asyncio.get_running_loop()
        try:
            reader = asyncio.StreamReader(limit=_READ_LIMIT, loop=loop)
            protocol = _AnsweringProtocol(reader, loop=loop)
            if self.tls is None:
                transport, _ = await loop.connect_accepted_socket(lambda: protocol, sock=conn)
            else:
                transport, _ = await loop.connect_accepted_socket(
                    lambda: protocol, sock=conn, ssl=self.tls, ssl_handshake_timeout=options.timeout
                )
            writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        except BaseException as exc:
            conn.close()
            self._connection_ended()
            if not isinstance(exc, Exception):
                raise
            if self.tls is not None:
                self.failed_handshakes += 1
            if not isinstance(exc, (OSError, TimeoutError)):
                self._internal_error(exc)
            return
        connection = self._connection(self, reader, writer, options)
        assert isinstance(connection, RestConnection)
        protocol.connection = connection
        await connection.run()


class _AnsweringProtocol(asyncio.StreamReaderProtocol):
    """The stream protocol of a REST connection: bytes that come while its task is idle
    are offered to RestConnection.answer_now first (no task switch, no timer, for the
    requests it answers at once); the rest goes to the task's stream reader."""

    connection: RestConnection | None = None

    def data_received(self, data: bytes) -> None:
        connection = self.connection
        if connection is not None and connection.idle:
            data = connection.answer_now(data)
            if not data:
                return
        super().data_received(data)
