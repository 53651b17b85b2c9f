"""`mqtool shell`: the interactive operator shell (prompt_toolkit) on a terminal, and the
same commands read from standard input without a prompt, like `mqtool run -`, otherwise."""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

import click

from mqtool.cli.complete import StoreView, make_completer, snapshot
from mqtool.cli.main import App
from mqtool.cli.runner import EXIT_NOT_RUN, execute_source, run_lines, unreadable
from mqtool.parse.lines import LineTooLong, assemble, continuation, read_lines

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import History
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.output import Output

    from mqtool.cli.loop import ConsoleEntry, EngineLoop
    from mqtool.clock import Clock
    from mqtool.session import Session

HISTORY_FILE = "history"  # in the state directory, shared by every shell on that store
NO_SYSTEM_PROMPT = "mqtool"
BANNER = "mqtool shell on {system}: .help lists directives and dialects; END leaves."

# A message id opening a console line: CSMP0097I, MQSC0011E, CSQ9022I, MQT0004I.
_MESSAGE_ID = re.compile(r"^([A-Z][A-Z0-9]{2,4}[0-9]{3,4}([A-Z]))(?=\s|$)")
_BOLD, _RED, _YELLOW, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[33m", "\x1b[0m"
# IBM severity letters: E error, S severe, W warning, A action needed.
_SEVERITY_COLOUR = {"E": _RED, "S": _RED, "W": _YELLOW, "A": _YELLOW}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("system", required=False)
@click.pass_obj
def shell_command(app: App, system: str | None) -> None:
    """The interactive operator shell, on SYSTEM or the current system. Type ZMQSC,
    ZHTPS and MQSC commands and directives as on the console; Tab completes verbs,
    objects, keywords, values and object names; Ctrl-R searches the history; a line
    ending in + or - continues on the next one; END, EXIT, QUIT or Ctrl-D leaves.
    While it is open, timers fire and started HTTP servers answer, and unsolicited
    console messages appear above the prompt.

    When standard input is not a terminal, the commands are read from it without a
    prompt and reported exactly like `mqtool run -` (exit status 0, 10 or 20).

    \b
    Examples:
      mqtool shell
      mqtool shell CSQ1
      mqtool --clock 2021-03-09T15:41:22Z shell < setup.mqsc
    """
    session = app.session(system)
    if sys.stdin is None or not sys.stdin.isatty():
        sys.exit(run_batch(session, sys.stdin))
    shell = OperatorShell(session, app.state_dir, realtime=lambda shell: start_realtime(app, shell))
    sys.exit(shell.run())


# -- batch: standard input is not a terminal -------------------------------------------


def _stdin_lines(stream: TextIO | None) -> Iterator[str]:
    """Lines as they arrive, so a pipe fed by another program sees each response at once;
    a line longer than any command raises LineTooLong."""
    if stream is None:
        return
    yield from read_lines(stream)


def run_batch(session: Session, stream: TextIO | None, emit: Callable[[str], None] = click.echo) -> int:
    """The report of `mqtool run -`: the same header, numbered echo, responses and summary."""
    current = session.current_system()
    emit(f"Starting MQSC for - on system {current.name if current else '(none)'}.")
    emit("")
    try:
        summary = run_lines(session, _stdin_lines(stream), emit)
    except (UnicodeDecodeError, LineTooLong) as exc:
        click.echo(f"mqtool: error: cannot read -: {unreadable(exc)}", err=True)
        return EXIT_NOT_RUN
    emit("")
    for line in summary.lines():
        emit(line)
    return summary.exit_code


# -- the real-time loop ----------------------------------------------------------------


class RealTimeLoop(Protocol):
    def stop(self) -> None: ...


RealTime = Callable[["OperatorShell"], RealTimeLoop]


def start_realtime(app: App, shell: OperatorShell) -> EngineLoop:
    """Starts the real-time loop of `mqtool serve` in the background, on its own store
    connection and the shell's clock; its console messages go to `shell.console_entry`,
    its failures to `shell.loop_error`."""
    from mqtool.cli.loop import EngineLoop, default_services

    loop = EngineLoop(app.state_dir, app.clock, on_entry=shell.console_entry, on_error=shell.loop_error)
    for service in default_services(loop):
        loop.add_service(service)
    loop.start()
    return loop


# -- colour ----------------------------------------------------------------------------


def colour_wanted(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def colourize(line: str) -> str:
    """Highlights a line's message id; error and warning lines take their severity colour."""
    match = _MESSAGE_ID.match(line)
    if match is None:
        return line
    ident, severity = match.groups()
    colour = _SEVERITY_COLOUR.get(severity, "")
    rest = line[match.end() :]
    if colour:
        return f"{_BOLD}{colour}{ident}{_RESET}{colour}{rest}{_RESET}"
    return f"{_BOLD}{ident}{_RESET}{rest}"


# -- history ---------------------------------------------------------------------------


def make_history(path: Path, clock: Clock, warn: Callable[[str], None]) -> History:
    """The history file, in prompt_toolkit's FileHistory format (`+line`, `# time`), with
    the time from the mqtool clock. A file that cannot be read or written costs the
    history, never the shell: one warning, then the history is kept in memory only."""
    from prompt_toolkit.history import History

    class ShellHistory(History):
        def __init__(self) -> None:
            super().__init__()
            self.path = path
            self.writable = True

        def load_history_strings(self) -> Iterable[str]:
            try:
                raw = self.path.read_bytes()
            except FileNotFoundError:
                return []
            except OSError as exc:
                self._broken(f"cannot read {self.path}: {exc.strerror}")
                return []
            strings: list[str] = []
            lines: list[str] = []
            for line in raw.decode("utf-8", errors="replace").split("\n"):
                if line.startswith("+"):
                    lines.append(line[1:])
                elif lines:
                    strings.append("\n".join(lines))
                    lines = []
            if lines:
                strings.append("\n".join(lines))
            return list(reversed(strings))  # newest first, as History expects

        def store_string(self, string: str) -> None:
            if not self.writable:
                return
            entry = f"\n# {clock.now():%Y-%m-%d %H:%M:%S}\n" + "".join(f"+{line}\n" for line in string.split("\n"))
            try:
                with self.path.open("ab") as file:
                    file.write(entry.encode("utf-8"))
            except OSError as exc:
                self._broken(f"cannot write {self.path}: {exc.strerror}")

        def _broken(self, reason: str) -> None:
            if self.writable:
                self.writable = False
                warn(f"mqtool: warning: {reason}; this shell keeps its history in memory only")

    return ShellHistory()


# -- the interactive shell -------------------------------------------------------------


def internal_error_line(exc: BaseException, state_dir: Path) -> str:
    """The one-line report of an unexpected failure (the wording of `mqtool.cli.main`)."""
    return (
        f"mqtool: internal error: {type(exc).__name__}: {exc} (state directory {state_dir}); "
        "please report it with the command that caused it"
    )


class OperatorShell:
    """The prompt loop: reads a (possibly continued) line, runs it through the session,
    prints the response; console messages of the real-time loop appear above the prompt."""

    def __init__(
        self,
        session: Session,
        state_dir: Path,
        *,
        input: Input | None = None,
        output: Output | None = None,
        colour: bool | None = None,
        realtime: RealTime | None = None,
    ) -> None:
        self.session = session
        session.emit = lambda line: self.write([line])  # `.get` prints each line before its get commits
        self.state_dir = Path(state_dir)
        self.realtime = realtime
        # On a real terminal the prompt owns the screen: stdout is patched so that
        # responses and console messages print above it. Tests pass their own input/output.
        self.on_terminal = input is None and output is None
        if output is None and self.on_terminal and not _isatty(sys.stdout) and _isatty(sys.stderr):
            # `mqtool shell | tee log`: draw the prompt on the terminal, responses go to the pipe.
            from prompt_toolkit.output import create_output

            output = create_output(stdout=sys.stderr)
            self.on_terminal = False
        self.colour = colour_wanted(sys.stdout) if colour is None else colour
        self._lock = threading.RLock()  # one response or console message at a time
        # While the prompt is up (on a terminal), where output goes so that it appears
        # above the prompt; None between prompts, when output is written at once.
        self._above_prompt: TextIO | None = None
        self._loop_errors: set[str] = set()
        self.loop: RealTimeLoop | None = None
        self.prompt_name = NO_SYSTEM_PROMPT
        self.view = StoreView()
        self.refresh()
        self.prompt_session = self._build(input, output)

    # -- prompt_toolkit ----------------------------------------------------------------
    def _build(self, input: Input | None, output: Output | None) -> PromptSession[str]:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
        from prompt_toolkit.filters import Condition

        @Condition
        def continues() -> bool:
            # Enter accepts the input unless its last line ends with a continuation mark.
            from prompt_toolkit.application import get_app

            text = get_app().current_buffer.document.text
            return continuation(text.rsplit("\n", 1)[-1]) is not None

        return PromptSession(
            key_bindings=paste_bindings(),
            message=self.message,
            prompt_continuation=self.continuation_prompt,
            multiline=continues,
            history=make_history(self.state_dir / HISTORY_FILE, self.session.clock, self.warn),
            auto_suggest=AutoSuggestFromHistory(),
            completer=make_completer(lambda: self.view),
            complete_while_typing=True,
            search_ignore_case=True,
            input=input,
            output=output,
        )

    def message(self) -> str:
        return f"{self.prompt_name}> "

    def continuation_prompt(self, width: int, line_number: int, wrap_count: int) -> str:
        """Continued lines carry the `:` of the runmqsc echo under the prompt's `>`."""
        return " " * width if wrap_count else " " * max(0, width - 2) + ": "

    # -- output ------------------------------------------------------------------------
    def write(self, lines: Iterable[str], system: str = "") -> None:
        """Prints lines; `system` precedes the first (a console message of another system)."""
        shown = [colourize(line) if self.colour else line for line in lines]
        if system and shown:
            shown[0] = f"{system} {shown[0]}"
        with self._lock:
            out = self._above_prompt or sys.stdout
            out.write("".join(line + "\n" for line in shown))
            out.flush()

    def warn(self, text: str) -> None:
        with self._lock:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def console_entry(self, entry: ConsoleEntry) -> None:
        """An unsolicited console message from the real-time loop (its thread). A message
        of another system than the prompt's is preceded by that system's name, as
        `mqtool serve` and `mqtool console` show every message."""
        self.write(entry.text.split("\n"), "" if entry.system == self.prompt_name else entry.system)

    def loop_error(self, text: str) -> None:
        """A failed iteration of the real-time loop: told once per distinct failure, as
        the loop retries several times a second."""
        with self._lock:
            if text in self._loop_errors:
                return
            self._loop_errors.add(text)
        self.warn(f"mqtool: warning: real-time loop: {text}")

    # -- the loop ----------------------------------------------------------------------
    def run(self) -> int:
        """Reads and runs commands until END, EXIT, QUIT or end of input; returns 0."""
        from mqtool.engine.zos import connections

        self.loop = self.realtime(self) if self.realtime is not None else None
        store = self.session.store
        # The shell is a connection to each z/OS queue manager (DISPLAY CONN shows it).
        connected = connections.connect_everywhere(store, self.session.clock.timestamp(), "mqtool shell")
        try:
            if self.on_terminal:
                self.write([BANNER.format(system=self.prompt_name)])
            while self.read_one():
                pass
        finally:
            if self.loop is not None:
                self.loop.stop()
            connections.disconnect_everywhere(store, connected)
        return 0

    def prompt(self) -> str:
        """Reads one entry. On a terminal, output that arrives meanwhile (console
        messages of the real-time loop) is printed above the prompt through
        prompt_toolkit's stdout proxy, which writes from a thread of its own; it is in
        place only while the prompt is up, and closed (its output written) before the
        entry runs. So a response is on the screen before the next prompt: lines typed
        ahead are echoed after the response to the line before them, not before it."""
        if not self.on_terminal:
            return self.prompt_session.prompt()
        from prompt_toolkit.patch_stdout import patch_stdout

        with self._lock:
            patched = patch_stdout(raw=True)
            self._above_prompt = patched.__enter__()
        try:
            return self.prompt_session.prompt()
        finally:
            with self._lock:  # no write can reach the proxy once it is closing
                self._above_prompt = None
                patched.__exit__(None, None, None)

    def read_one(self) -> bool:
        """One prompt: False when the shell is to be left."""
        try:
            text = self.prompt()
        except KeyboardInterrupt:  # Ctrl-C cancels the line being typed
            return True
        except EOFError:  # Ctrl-D on an empty line, or the end of the input
            return False
        try:
            return self.execute_text(text)
        except KeyboardInterrupt:  # Ctrl-C while a command runs: back to the prompt
            self.warn("mqtool: interrupted")
            self.refresh()
            return True

    def execute_text(self, text: str) -> bool:
        """Runs what was entered (continued lines joined by the MQSC file rules); False
        when it asks to leave."""
        from mqtool.state import StoreError

        keep_going = True
        for source in assemble(text.split("\n")):
            try:
                outcome = execute_source(self.session, source)
            except StoreError as exc:
                self.warn(f"mqtool: error: {exc}")
                continue
            except Exception as exc:  # one command's failure must not end the shell
                self.warn(internal_error_line(exc, self.state_dir))
                continue
            if outcome.leave:
                keep_going = False
                break
            self.write(outcome.lines)
        if keep_going:
            self.refresh()
        return keep_going

    def refresh(self) -> None:
        """The prompt's system name and the completion data, after each command."""
        try:
            current = self.session.current_system()
            self.prompt_name = current.name if current is not None else NO_SYSTEM_PROMPT
            zos = self.session.current_zos()
            self.view = snapshot(
                self.session.store, current.name if current is not None else None, zos.name if zos else None
            )
        except Exception as exc:  # stale completion is better than a dead shell
            self.warn(internal_error_line(exc, self.state_dir))


def paste_bindings() -> KeyBindings:
    """A pasted block (bracketed paste) that ends with a newline is entered, as if Enter
    followed it: prompt_toolkit inserts the newline and the prompt would wait on an
    empty continuation line. When the block's last line is continued (+ or -), a new
    continuation line is where the command goes on, so the prompt waits there."""
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.keys import Keys

    bindings = KeyBindings()

    @bindings.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        data = event.data.replace("\r\n", "\n").replace("\r", "\n")
        buffer = event.current_buffer
        if not data.endswith("\n"):
            buffer.insert_text(data)
            return
        buffer.insert_text(data[:-1])
        if continuation(buffer.document.text.rsplit("\n", 1)[-1]) is not None:
            buffer.insert_text("\n")
        else:
            buffer.validate_and_handle()

    return bindings


def _isatty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False
