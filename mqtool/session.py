"""A session: runs one command line after another against the store, in the right
dialect, on the right system, each as one transaction; returns the rendered lines."""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any

from mqtool import messages, tables
from mqtool.clock import Clock, parse_offset
from mqtool.parse.command import Command, LexError
from mqtool.record import Record
from mqtool.render import render
from mqtool.response import FAILED, OK, SYNTAX, Response
from mqtool.state import Store, StoreError, SystemRecord, Transaction
from mqtool.validate import Request, validate

LEAVE_WORDS = ("END", "EXIT", "QUIT")
_MQSC_VERB_END = re.compile(r"[\s,(=']")
ZTPF_HTTP_WORDS = ("ZHTPS", "ZHTTPS")
# The line after an unknown verb, object or keyword that names the closest one the
# table knows, in each dialect's manner (upper case on the z/TPF consoles).
HINTS = {"ztpf_mq": "MQSC0040E", "ztpf_http": "MQT0016I", "zos": "MQT0015I", "ztpf_mqid": "MQID0043E"}
ZTPF_MQID_WORD = "ZMQID"  # the z/TPF MQI channel directory (commands/ztpf_mqid)


class Outcome(Record):
    """What one line did: the lines to print, and how it counts in a run summary. (The
    records of this module are written out, not dataclasses: mqtool/record.py.)"""

    _FIELDS = ("lines", "status", "leave", "system", "response")

    def __init__(
        self,
        lines: list[str] | None = None,
        status: str = OK,
        leave: bool = False,
        system: str = "",
        response: Response | None = None,
    ) -> None:
        self.lines = [] if lines is None else lines
        self.status = status
        self.leave = leave
        self.system = system
        self.response = response  # the handler's values, for other renderers (JSON)


class Context(Record):
    """What a handler may use: the open transaction, the clock, its system and table."""

    _FIELDS = ("session", "tx", "system", "table", "clock")

    def __init__(
        self, session: Session, tx: Transaction, system: SystemRecord, table: tables.Table, clock: Clock
    ) -> None:
        self.session = session
        self.tx = tx
        self.system = system
        self.table = table
        self.clock = clock

    @property
    def now(self) -> float:
        return self.clock.timestamp()

    def console(self, text: str) -> None:
        """An unsolicited console message, stored with the transaction."""
        self.tx.console(self.system.name, self.now, text)


def display_offset(system: SystemRecord) -> timedelta:
    text = str(system.attrs.get("offset", "+00:00"))
    offset = _OFFSETS.get(text)
    if offset is None:
        offset = parse_offset(text)
        if len(_OFFSETS) < 64:  # read once per setting (a few per complex), not per command
            _OFFSETS[text] = offset
    return offset


_OFFSETS: dict[str, timedelta] = {}


class Session:
    """Holds the current system; executes lines. Used by `cmd`, `run`, the shell and goldens."""

    def __init__(self, store: Store, clock: Clock, system: str | None = None) -> None:
        self.store = store
        self.clock = clock
        self.current = system
        self.last_zos: str | None = None  # the z/OS system this session used last (SPEC section 3)
        self.state: dict[str, Any] = {}  # per-session engine state (open handles, warnings given)
        # Where a directive may print lines of its response before its transaction commits
        # (`.get` under syncpoint, the summary of an interrupted `.put`); the caller that
        # prints the responses sets it. None: responses are returned whole.
        self.emit: Callable[[str], None] | None = None
        # Every command goes to the current system and no other (a CPF of another system or
        # an MQSC verb on a z/TPF system is refused): the REST API's queue manager in the URL.
        self.pinned = False
        # The session is the command server's (the REST API's MQSC commands): DISPLAY
        # CMDSERV shows it RUNNING, and STOP CMDSERV stops what passes them on.
        self.via_command_server = False
        # What the last command read, kept while Store.generation() says nothing changed.
        self._systems: list[SystemRecord] = []
        self._systems_generation: tuple[int, int] | None = None
        self._quiet_until = -math.inf  # no timer falls due before this instant ...
        self._quiet_generation: tuple[int, int] | None = None  # ... unless the timers changed
        # Timers that fell due but could not run (the store's disk is full): why, once
        # known. The caller that prints (the CLI: standard error) sets `notify` to be told
        # once (MQT0712W); the command itself goes on, so a reading command works.
        self.deferred: str | None = None
        self.notify: Callable[[str], None] | None = None
        # The generation at which the last tick found no timer due before _quiet_until,
        # nobody holding a subscription, and the systems read (None: not known). While
        # the store stays at it, a command need not look before it starts: its own
        # transaction confirms it (_confirm) and, if the store moved, starts it again
        # the whole way (_Stale). A command's first read of the store is then its BEGIN.
        self._settled: tuple[int, int] | None = None
        self._confirm: tuple[int, int] | None = None  # the generation the running command assumes

    def close(self) -> None:
        """The session ends: the subscriptions it holds (`.subscribe`) are closed, so the
        non-durable ones end with it (mqtool/subscribing.py)."""
        if self.state.get("subscriptions"):
            _module("mqtool.subscribing").close_all(self)

    # -- systems ----------------------------------------------------------------
    def systems(self, generation: tuple[int, int] | None = None) -> list[SystemRecord]:
        """The systems of the complex, read again only when the systems table may have
        changed. The records are shared between calls: read them, do not change them.
        `generation`: the store's generation when the caller has just read it."""
        if generation is None:
            generation = self.store.generation()
        if generation != self._systems_generation:
            with self.store.transaction(write=False) as tx:
                self._systems = tx.systems()
            self._systems_generation = generation
        return list(self._systems)

    def current_system(self, systems: list[SystemRecord] | None = None) -> SystemRecord | None:
        systems = self.systems() if systems is None else systems
        if self.current is None:
            with self.store.transaction(write=False) as tx:
                self.current = tx.get_meta("current_system")
        for system in systems:
            if system.name == self.current:
                return system
        return systems[0] if systems else None

    def current_zos(self, systems: list[SystemRecord] | None = None) -> SystemRecord | None:
        """Where an MQSC verb without a CPF goes (SPEC section 3): the current system when
        it is z/OS; otherwise the z/OS system this session used last; otherwise the only
        z/OS system of the complex; otherwise None (refused, naming the CPFs)."""
        systems = self.systems() if systems is None else systems
        current = self.current_system(systems)
        if current is not None and current.platform == "zos":
            return current
        zos = [system for system in systems if system.platform == "zos"]
        for system in zos:
            if system.name == self.last_zos:
                return system
        return zos[0] if len(zos) == 1 else None

    # -- one line -----------------------------------------------------------------
    def execute(self, text: str, check_only: bool = False) -> Outcome:
        line = text.strip()
        if not line:
            return Outcome()
        if line.upper() in LEAVE_WORDS:
            return Outcome(leave=True)
        settled = self._settled
        if settled is not None and not check_only and line[0] != "." and self._still(settled):
            # Nothing to tick while the store stays at `settled`: the command runs on what
            # was read then, and its transaction checks the store did not move (_run); a
            # command that ends without one checks afterwards. Either way, when it moved,
            # nothing was written and the command runs again after the tick.
            self._confirm = settled
            try:
                outcome = self._line(line, check_only, list(self._systems))
                if self._confirm is None or self.store.generation() == settled:
                    return outcome
            except _Stale:
                pass
            finally:
                self._confirm = None
        # The generation the tick read (or left), so that systems() need not read it again.
        generation = None if check_only else self._tick()[1]
        systems = self.systems(generation)
        if generation is not None:
            from mqtool.engine import tick

            quiet = generation == self._quiet_generation and tick.nobody_subscribed(self.store, generation)
            self._settled = generation if quiet else None
        return self._line(line, check_only, systems)

    def _still(self, settled: tuple[int, int]) -> bool:
        """Whether, as far as this process knows without asking the store, a tick now
        would find what it found at `settled`: no timer due yet, the systems read then,
        and no change by this connection to the timers or systems since."""
        return (
            self.clock.timestamp() < self._quiet_until
            and settled == self._quiet_generation == self._systems_generation
            and settled[1] == self.store.own_changes
        )

    def _line(self, line: str, check_only: bool, systems: list[SystemRecord]) -> Outcome:
        """One line after the tick, on the systems of the complex."""
        current = self.current_system(systems)
        if current is not None and current.platform == "zos":
            self.last_zos = current.name  # used while current (even if switched away next)
        first = line.split()[0]
        upper = first.upper()
        if first.startswith("."):
            # Directives are handlers too, looked up by name like the dialects' verbs.
            response = _module("mqtool.directives").run(self, line, current, check_only)
            return Outcome() if response is None else self._finish(response, None)
        if upper == "ZMQSC":
            return self._dialect("ztpf_mq", line, current, systems, check_only)
        if upper in ZTPF_HTTP_WORDS:
            return self._dialect("ztpf_http", line, current, systems, check_only)
        if upper == ZTPF_MQID_WORD:
            return self._dialect("ztpf_mqid", line, current, systems, check_only)
        cpf_system, rest = _match_cpf(line, systems)
        if cpf_system is not None and not (self.pinned and cpf_system is not current):
            return self._dialect("zos", rest, cpf_system, systems, check_only, cpf=True)
        # An MQSC verb ends at a blank, a comma (IBM: commas separate like blanks) or a value.
        verb = _MQSC_VERB_END.split(line.lstrip(", \t").upper(), maxsplit=1)[0]
        if tables.load("zos").verb(verb) is not None or _module("mqtool.commands.zos").recognised(verb):
            # None of the rules settles it: the current system makes the refusal (MQT0011E).
            target = current if self.pinned else (self.current_zos(systems) or current)
            return self._dialect("zos", line, target, systems, check_only)
        return self._unknown(first, systems)

    def _unknown(self, word: str, systems: list[SystemRecord]) -> Outcome:
        """A first word that names no dialect: a prefix that is no CPF lists the CPFs;
        a misspelt dialect word or MQSC verb names the one meant."""
        from mqtool.complex import CPF_FIRST

        cpfs = [str(system.attrs.get("cpf")) for system in systems if system.platform == "zos"]
        if word[0] in CPF_FIRST and cpfs:
            return self.refuse("MQT0013E", word=word, cpfs=", ".join(cpfs))
        verbs = tables.load("zos").verbs.values()
        known = [
            "ZMQSC",
            ZTPF_MQID_WORD,
            *ZTPF_HTTP_WORDS,
            *LEAVE_WORDS,
            *(w for verb in verbs for w in (verb.name, *verb.abbrev)),
        ]
        suggestion = tables.suggest(word, known)
        if suggestion:
            return self.refuse("MQT0014E", word=word, suggestion=suggestion)
        return self.refuse("MQT0001E", word=word)

    def refuse(self, msg_id: str, **fields: Any) -> Outcome:
        """A line refused before it reaches a dialect: one tool message, a syntax error."""
        response = Response(status=SYNTAX)
        response.add(msg_id, **fields)
        return self._finish(response, self.current_system())

    def tick(self) -> int:
        """Catches up on timers due since the last command (SPEC section 8); returns how
        many timer runs happened. Costs no query while the earliest timer is still in
        the future and nothing (this session, another process) has changed the timers
        since the last look (nor while nobody holds a subscription: the clean-up after
        subscribers that ended comes first, engine/tick.py)."""
        return self._tick()[0]

    def _tick(self) -> tuple[int, tuple[int, int] | None]:
        """tick(), and the store's generation as it leaves it (None: not read)."""
        from mqtool.engine import tick

        now = self.clock.timestamp()
        try:
            if now < self._quiet_until:
                generation = self.store.generation()
                if generation == self._quiet_generation:
                    reaped = tick.reap_subscribers(self.store, generation)
                    return 0, (None if reaped else generation)
            runs = tick.tick(self.store, self.clock, now)
        except StoreError as exc:
            if not exc.full:
                raise
            self._defer(str(exc))
            return 0, None
        self.deferred = None  # caught up: a disk that fills again is said again
        generation = self.store.generation()
        with self.store.transaction(write=False) as tx:
            due = tx.conn.execute("SELECT min(due) FROM timers").fetchone()[0]
        self._quiet_generation = generation
        self._quiet_until = math.inf if due is None else float(due)
        return runs, generation

    def next_timer_due(self) -> float | None:
        """When the earliest timer of the store falls due (math.inf: there is none), as
        the last tick found it, while nothing has changed the timers since; None when
        that is not known (ask the store)."""
        if self._quiet_generation is None or self.store.generation() != self._quiet_generation:
            return None
        return self._quiet_until

    def _defer(self, reason: str) -> None:
        """The timers due could not run for want of disk: said once, then left due (they
        run at the first tick that can write)."""
        if self.deferred is not None:
            return
        self.deferred = reason
        with self.store.transaction(write=False) as tx:
            due = tx.conn.execute("SELECT min(due) FROM timers").fetchone()[0]
        since = "now" if due is None else f"{datetime.fromtimestamp(float(due), UTC):%Y-%m-%dT%H:%M:%S}Z"
        if self.notify is not None:
            self.notify(messages.line("MQT0712W", since=since, reason=reason))

    def _dialect(
        self,
        dialect: str,
        text: str,
        target: SystemRecord | None,
        systems: list[SystemRecord],
        check_only: bool,
        cpf: bool = False,
    ) -> Outcome:
        package = _module(f"mqtool.commands.{dialect}")
        platform = "zos" if dialect == "zos" else "ztpf"
        if target is None or target.platform != platform:
            response = package.wrong_system(target, systems, text)
            return self._finish(response, target)
        if platform == "zos":
            self.last_zos = target.name
        try:
            command = package.lex(text)
        except LexError as error:
            return self._finish(package.lex_error(error, text), target)
        if cpf:
            command.cpf = target.attrs.get("cpf")
        return self._run(dialect, package, command, target, check_only)

    def execute_command(self, command: Command, lines: bool = True) -> Outcome:
        """Runs a command that was built, not typed (the REST API's runCommandJSON builds
        it from a JSON document), on the current system, as one transaction: nothing of
        it is lexed, so no value it holds is ever read as command syntax. Without
        `lines`, the outcome carries the response only (its console lines are not
        rendered: runCommandJSON answers with the response's values)."""
        systems = self.systems(self._tick()[1])
        target = self.current_system(systems)
        package = _module(f"mqtool.commands.{command.dialect}")
        platform = "zos" if command.dialect == "zos" else "ztpf"
        if target is None or target.platform != platform:
            return self._finish(package.wrong_system(target, systems, command.text), target, lines)
        if platform == "zos":
            self.last_zos = target.name
        return self._run(command.dialect, package, command, target, check_only=False, lines=lines)

    def _run(
        self,
        dialect: str,
        package: ModuleType,
        command: Command,
        target: SystemRecord,
        check_only: bool,
        lines: bool = True,
    ) -> Outcome:
        """Validates a lexed (or built) command against its table and runs its handler
        (`lines`: see execute_command)."""
        table = tables.load(dialect)
        checked = validate(table, command)
        if not isinstance(checked, Request):
            response = package.validation_error(checked, command, table)
            if checked.suggestion:
                response.add(HINTS[dialect], word=checked.keyword, suggestion=checked.suggestion)
            return self._finish(response, target, lines)
        if check_only:
            return Outcome(status=OK, system=target.name)
        handler = _module(f"mqtool.commands.{dialect}.{checked.verb.module}")
        before = getattr(handler, "before_transaction", None)
        if before is not None:
            if self._confirm is not None:
                raise _Stale  # not run before the store is known to be where it was
            # Work that must not hold the store's lock (ZHTPS STATS waits for the
            # serving process to store its counts, which needs the lock).
            before(self, target, checked)
        with self.store.transaction(write=checked.verb.writes) as tx:
            system = None
            if self._confirm is not None:
                # The command started without a tick (execute): in its own transaction,
                # the store must still be at the generation it assumed; then the systems
                # read at that generation are what the store holds now.
                if self.store.generation() != self._confirm:
                    raise _Stale
                self._confirm = None
                system = target.own_copy()
            if system is None:
                system = tx.get_system(target.name) or target
            context = Context(self, tx, system, table, self.clock)
            response = handler.handle(context, checked)
            if not response.ok:
                tx.fail()
        # Printed only now: the transaction has committed (or rolled back on failure).
        return self._finish(response, system, lines)

    def outcome(self, response: Response, system: SystemRecord | None) -> Outcome:
        """A response made outside a handler (the REST API's answer to a command its user
        may not issue), rendered as the responses of handlers are."""
        return self._finish(response, system)

    def _finish(self, response: Response, system: SystemRecord | None, lines: bool = True) -> Outcome:
        rendered: list[str] = []
        if lines:
            offset = display_offset(system) if system is not None else timedelta(0)
            rendered = render(response, system, self.clock.local(offset))
        return Outcome(lines=rendered, status=response.status, system=system.name if system else "", response=response)


class _Stale(Exception):
    """The store moved while a command ran without a tick first (Session.execute): its
    transaction rolls back, nothing written, and the command starts again."""


_MODULES: dict[str, ModuleType] = {}


def _module(name: str) -> ModuleType:
    """A dialect package or verb module, imported on first use (and looked up once)."""
    module = _MODULES.get(name)
    if module is None:
        module = _MODULES[name] = importlib.import_module(name)
    return module


def _match_cpf(line: str, systems: list[SystemRecord]) -> tuple[SystemRecord | None, str]:
    """The z/OS system whose command prefix starts the line (glued to the verb or not)."""
    best: tuple[SystemRecord | None, str] = (None, line)
    best_len = 0
    upper = line.upper()
    for system in systems:
        cpf = str(system.attrs.get("cpf", "")).upper()
        if system.platform == "zos" and cpf and upper.startswith(cpf) and len(cpf) > best_len:
            best, best_len = (system, line[len(cpf) :].lstrip()), len(cpf)
    return best


__all__ = ["FAILED", "OK", "SYNTAX", "Context", "Outcome", "Session"]
