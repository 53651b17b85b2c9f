"""The `mqtool` command line: a click group whose subcommands load lazily, so that
`mqtool cmd` starts without rich or prompt_toolkit. Tool errors are one line starting
`mqtool: error:`; no traceback reaches the user."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from mqtool import __version__, application
from mqtool.clock import Clock, ClockError
from mqtool.record import Record

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

# name -> "module:attribute" of the click command; imported only when used.
SUBCOMMANDS: dict[str, str] = {
    "cmd": "mqtool.cli.commands:cmd",
    "run": "mqtool.cli.commands:run",
    "init": "mqtool.cli.commands:init",
    "system": "mqtool.cli.system:system",
    "export": "mqtool.cli.export:export",
    "apply": "mqtool.cli.apply:apply",
    "shell": "mqtool.cli.shell:shell_command",
    "put": "mqtool.cli.engine:put",
    "get": "mqtool.cli.engine:get",
    "serve": "mqtool.cli.engine:serve",
    "console": "mqtool.cli.engine:console",
    "http": "mqtool.cli.http:http",
    "rest": "mqtool.cli.rest:rest",
    "estimate": "mqtool.cli.estimate:estimate",
    "smf": "mqtool.cli.smf:smf",
    "trigger-monitor": "mqtool.cli.trigger:trigger_monitor",
    "keyring": "mqtool.cli.keyring:keyring",
}
# One-line help shown by `mqtool --help` without importing the subcommand.
SHORT_HELP: dict[str, str] = {
    "cmd": "Run commands given as arguments (- reads standard input).",
    "run": "Run command files like runmqsc: numbered echo, responses, summary.",
    "init": "Create the default complex (TPF1 with TPFQM, and CSQ1).",
    "system": "Add, alter, remove and list the systems of the complex.",
    "export": "Write a system's configuration as commands or YAML.",
    "apply": "Make the store match a YAML document: plan, then DEFINE/ALTER/DELETE.",
    "shell": "The interactive operator shell.",
    "put": "Put messages to a queue (files, data, stdin lines, generated payloads).",
    "get": "Get or browse messages from a queue (to stdout or --out DIR).",
    "serve": "Run the systems in real time: timers, channels, HTTP servers.",
    "console": "Show the unsolicited console messages (--follow to keep watching).",
    "http": "Write z/TPF HTTP server configuration files; list the servers.",
    "rest": "Configure the MQ REST API stand-in (mqweb) that mqtool serve runs; show it.",
    "estimate": "Capacity planning: what compression would save on your own payloads.",
    "smf": "Show z/OS statistics records (queues, log manager, publish/subscribe) as text, CSV or JSON; purge them.",
    "trigger-monitor": "Run the programs trigger messages name (z/OS initiation queue): it starts commands.",
    "keyring": "Create key rings of PEM files for TLS channels; add certificates and trusted CAs; list them.",
}


_STATE_IN_USE: list[str] = []  # named by the internal-error line


class ToolError(click.ClickException):
    """An error of the tool itself: printed as one `mqtool: error:` line."""

    exit_code = 2


def fail(message: str) -> NoReturn:
    raise ToolError(message)


def find_system(systems: list[Any], wanted: str) -> Any:
    """The system named `wanted` (any case), or a one-line tool error naming the systems."""
    for system in systems:
        if system.name.upper() == wanted.strip().upper():
            return system
    fail(f"no system named {wanted}; systems: {', '.join(s.name for s in systems) or 'none'}")


def platform_system(app: App, wanted: str | None, platform: str, refusal: str) -> Any:
    """The system of `platform` named (by a subcommand's option or mqtool's --system),
    else the current one when it is of that platform, else the first of it. `refusal`
    is the error for a system of another platform (`{name}` is its name)."""
    from mqtool.complex import PLATFORM_NAMES

    session = app.session()
    systems = session.systems()
    name = wanted or app.system
    if name is not None:
        system = find_system(systems, name)
        if system.platform != platform:
            fail(refusal.format(name=system.name))
        return system
    current = session.current_system(systems)
    if current is not None and current.platform == platform:
        return current
    for system in systems:
        if system.platform == platform:
            return system
    fail(f"the complex has no {PLATFORM_NAMES[platform]} system (mqtool system add NAME --platform {platform})")


def default_state_dir() -> Path:
    """The user data directory (XDG on Linux, Application Support on macOS, APPDATA on Windows)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "mqtool"


class App(Record):
    """`ctx.obj`: the options of the group, the clock, and the store opened on first use
    (a written-out record, not a dataclass: mqtool/record.py says why)."""

    _FIELDS = ("state_dir", "system", "clock", "state_defaulted", "_store", "_closers", "_warned")

    def __init__(self, state_dir: Path, system: str | None, clock: Clock, state_defaulted: bool = False) -> None:
        self.state_dir = state_dir
        self.system = system
        self.clock = clock
        self.state_defaulted = state_defaulted  # neither --state nor MQTOOL_STATE chose the directory
        self._store: Any = None
        self._closers: list[Callable[[], None]] = []
        self._warned: set[str] = set()  # the message ids warn_once has said

    @property
    def store(self) -> Any:
        if self._store is None:
            from mqtool.state import Store, StoreError
            from mqtool.state.store import DB_NAME

            path = self.state_dir / DB_NAME
            new = not path.exists()
            try:
                self._store = Store.open(self.state_dir)
                if not _has_complex(self._store):
                    from mqtool.complex import ensure_complex

                    ensure_complex(self._store, self.clock.timestamp())
            except StoreError as exc:
                fail(str(exc))
            if new and self._store.created:
                # Say once, on standard error, where a new store went: the default location
                # for a newcomer, and a directory named with --state or MQTOOL_STATE too (a
                # typo such as ./lba would otherwise make a new complex without a word).
                click.echo(new_store_notice(path, self.state_defaulted), err=True)
        return self._store

    def session(self, system: str | None = None) -> Any:
        from mqtool.session import Session

        session = Session(self.store, self.clock, system or self.system)
        session.notify = self.warn_once
        wanted = system or self.system
        if wanted is not None:
            session.current = find_system(session.systems(), wanted).name
        self._closers.append(session.close)
        return session

    def warn_once(self, line: str) -> None:
        """A warning line on standard error, once per process (timers deferred on a
        full disk: every session of the command would say the same)."""
        msg_id = line.split()[0]
        if msg_id not in self._warned:
            self._warned.add(msg_id)
            click.echo(line, err=True)

    def close(self) -> None:
        """The command ends: its sessions close (the subscriptions they hold end), then the store."""
        for closer in self._closers:
            closer()
        self._closers.clear()
        if self._store is not None:
            self._store.close()


def _has_complex(store: Any) -> bool:
    """Whether the store's default complex has been made (mqtool.complex.ensure_complex
    and `mqtool init` mark the store `initialised`): asked here, so that a command on a
    store that has it does not import mqtool.complex (its settings and patterns)."""
    with store.transaction(write=False) as tx:
        return tx.get_meta("initialised") is not None


def new_store_notice(path: Path, defaulted: bool) -> str:
    """The line on standard error when a command creates a store (mqtool(1), FILES)."""
    if defaulted:
        return (
            f"mqtool: created the store {path.absolute()} with the default complex (TPF1, CSQ1); "
            "--state DIR or MQTOOL_STATE chooses another"
        )
    return f"mqtool: created a new store {path.absolute()} with the default complex (TPF1, CSQ1): none was there"


class ClosedPipe(Exception):
    """Standard output's reader went away (`mqtool run f | head -1`). Not an OSError, so
    that click does not turn it into exit status 1 on its way to `main`."""


# The status of a program that a closed pipe stops (128 + SIGPIPE), as a shell reports
# `cat big | head -1`; none of mqtool's own statuses.
EXIT_CLOSED_PIPE = 141


class LazyGroup(click.Group):
    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:  # --help prints here
            return super().make_context(*args, **kwargs)
        except BrokenPipeError as exc:
            raise ClosedPipe() from exc

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise ClosedPipe() from exc

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, SHORT_HELP.get(name, "")) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Where the store is, here and now (the man page says where it is in general).
        from mqtool.state.store import DB_NAME

        named = ctx.params.get("state_dir") or os.environ.get("MQTOOL_STATE")
        folder = Path(named) if named else default_state_dir()
        formatter.write_paragraph()
        formatter.write(f"Store: {(folder / DB_NAME).absolute()}\n")  # whole, never wrapped


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.option(
    "--state",
    "state_dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="MQTOOL_STATE",
    is_eager=True,  # read before --help, whose last line names the store
    help="State directory (env MQTOOL_STATE; default: the user data directory, ~/.local/share/mqtool on "
    "Linux). The store is DIR/mqtool.db; --help ends with its path.",
)
@click.option("--system", envvar="MQTOOL_SYSTEM", help="Current system (env MQTOOL_SYSTEM).")
@click.option(
    "--clock",
    "clock_setting",
    envvar="MQTOOL_CLOCK",
    metavar="ISO-TIME|TOD",
    help="Freeze the clock at this instant, e.g. 2021-03-09T15:41:22Z, or at a TOD value of 16 hex "
    "digits, e.g. D962CAAA5BAAD838 (env MQTOOL_CLOCK).",
)
@click.version_option(__version__, prog_name="mqtool")
@click.pass_context
def main_group(ctx: click.Context, state_dir: Path | None, system: str | None, clock_setting: str | None) -> None:
    """Operator commands of z/TPF MQ (ZMQSC), the z/TPF HTTP server (ZHTPS) and IBM MQ
    for z/OS (MQSC) over a local persistent store, with a real engine behind them.

    \b
    Examples:
      mqtool shell
      mqtool cmd 'ZMQSC DISPLAY QL-*'
      mqtool run setup.mqsc
    """
    try:
        clock = Clock.from_setting(clock_setting)
    except ClockError as exc:
        fail(f"--clock: {exc}")
    app = App(state_dir or default_state_dir(), system, clock, state_defaulted=state_dir is None)
    _STATE_IN_USE[:] = [str(app.state_dir)]
    if ctx.invoked_subcommand:
        application.NAME[0] = f"mqtool {ctx.invoked_subcommand}"  # what DISPLAY CONN shows as APPLTAG
    ctx.obj = app
    ctx.call_on_close(app.close)


# SQLite result codes that describe the state file or its surroundings, not a bug in mqtool.
_DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_UNUSABLE = ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_CANTOPEN")


def store_problem(exc: BaseException, state: str) -> str | None:
    """The one-line description of a damaged, locked or unwritable store met in the
    middle of a command (opening it is checked earlier); None for anything else."""
    from mqtool.state.store import DB_NAME, StoreError

    if isinstance(exc, StoreError):
        return str(exc)
    import sqlite3

    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    name = str(getattr(exc, "sqlite_errorname", ""))
    path = Path(state) / DB_NAME
    # Extended codes carry a suffix: SQLITE_CORRUPT_INDEX, SQLITE_IOERR_FSYNC ...
    if name.startswith(_DAMAGED):
        return f"the state file {path} is damaged ({exc}); move it away or use another --state directory"
    if name.startswith(_UNUSABLE) or name == "SQLITE_PERM":
        return f"the state file {path} cannot be used ({exc})"
    return None


# click 8.2 raises this for a group given no arguments (8.1 printed the help itself).
_NO_ARGS_IS_HELP: type[click.UsageError] | None = getattr(click.exceptions, "NoArgsIsHelpError", None)


def _closed_pipe() -> NoReturn:
    """Quietly: no message, and nothing left for the interpreter to flush at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    sys.exit(EXIT_CLOSED_PIPE)


def main(argv: list[str] | None = None) -> None:
    """Entry point: runs the group and turns every failure into one line."""
    try:
        code = main_group.main(args=argv, prog_name="mqtool", standalone_mode=False)
        sys.stdout.flush()  # a reader that went away shows here at the latest
        sys.exit(code if isinstance(code, int) else 0)
    except click.exceptions.Exit as exc:
        sys.stdout.flush()
        sys.exit(exc.exit_code)
    except click.Abort as exc:
        # click turns Ctrl-C into Abort (after ending the ^C line on stderr).
        if isinstance(exc.__cause__, KeyboardInterrupt):
            click.echo("mqtool: error: interrupted", err=True)
            sys.exit(130)
        click.echo("mqtool: error: aborted", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        if _NO_ARGS_IS_HELP is not None and isinstance(exc, _NO_ARGS_IS_HELP) and exc.ctx is not None:
            # Bare `mqtool` (or `mqtool system`): the help, as help, not as an error.
            try:
                click.echo(exc.ctx.get_help())
                sys.stdout.flush()
            except BrokenPipeError:
                _closed_pipe()
            sys.exit(0)
        message = exc.format_message()
        hint = ""
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            hint = f" (see '{exc.ctx.command_path} --help')"
        click.echo(f"mqtool: error: {message}{hint}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("mqtool: error: interrupted", err=True)
        sys.exit(130)
    except (BrokenPipeError, ClosedPipe):
        _closed_pipe()
    except Exception as exc:  # the edge: one line, never a traceback
        state = _STATE_IN_USE[0] if _STATE_IN_USE else str(default_state_dir())
        problem = store_problem(exc, state)
        if problem is not None:
            click.echo(f"mqtool: error: {problem}", err=True)
            sys.exit(ToolError.exit_code)
        click.echo(
            f"mqtool: internal error: {type(exc).__name__}: {exc} (state directory {state}); "
            "please report it with the command that caused it",
            err=True,
        )
        sys.exit(70)
