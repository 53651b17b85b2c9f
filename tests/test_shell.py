"""The operator shell driven through prompt_toolkit with a pipe for input and a dummy
output (no terminal needed), its batch form on a pipe, and its lazy imports."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import FROZEN, MQ
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput, Output
from prompt_toolkit.output.vt100 import Vt100_Output

from mqtool.cli import shell as shell_module
from mqtool.cli.main import App
from mqtool.cli.shell import HISTORY_FILE, OperatorShell, colour_wanted, colourize, internal_error_line
from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.state import Store
from tests.conftest import drop_creation_notice, drop_creation_notice_bytes

ENTER = "\r"
CTRL_C = "\x03"
CTRL_D = "\x04"
CTRL_R = "\x12"


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[App]:
    for name in ("MQTOOL_STATE", "MQTOOL_SYSTEM", "MQTOOL_CLOCK", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    clock = Clock.from_setting(FROZEN)
    # The store made beforehand, as the default complex (so the shell's first command
    # does not print the notice of a new store: its tests compare what the shell says).
    store = Store.open(tmp_path / "shell-state")
    ensure_complex(store, clock.timestamp())
    store.close()
    application = App(tmp_path / "shell-state", None, clock)
    yield application
    application.close()


def drive(
    app: App,
    keys: str,
    system: str | None = None,
    output: Output | None = None,
    realtime: shell_module.RealTime | None = None,
) -> OperatorShell:
    """Types `keys` into a shell, then ends the input; returns the shell after it left."""
    session = app.session(system)
    with create_pipe_input() as pipe:
        shell = OperatorShell(
            session, app.state_dir, input=pipe, output=output or DummyOutput(), colour=False, realtime=realtime
        )
        pipe.send_text(keys)
        pipe.close()  # whatever the keys do, the input ends after them
        assert shell.run() == 0
    return shell


def history_entries(app: App) -> list[str]:
    text = (app.state_dir / HISTORY_FILE).read_text(encoding="utf-8")
    return ["\n".join(line[1:] for line in block.split("\n") if line.startswith("+")) for block in text.split("\n\n")]


# -- commands and responses -------------------------------------------------------------


def test_responses_are_those_of_mqtool_cmd(app: App, mq: MQ, capsys: pytest.CaptureFixture[str]) -> None:
    commands = [
        "ZMQSC DEF QL-PAYQ COMPSIZE-16000",
        "ZMQSC DIS QL-PAYQ",
        "ZMQSC DEFINE QL-PAYQ",  # fails: already defined
        "ZMQSC FROB QL-PAYQ",  # syntax error
        ".echo done",
    ]
    expected = mq("cmd", *commands).output
    capsys.readouterr()
    drive(app, "".join(command + ENTER for command in commands))
    captured = capsys.readouterr()
    assert captured.out == expected
    assert "MQSC0001I" in captured.out and "done\n" in captured.out
    assert captured.err == ""


def test_history_file_holds_each_entry(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, "ZMQSC DIS QMGR" + ENTER + ".echo one" + ENTER)
    assert history_entries(app)[-2:] == ["ZMQSC DIS QMGR", ".echo one"]
    stamps = [line for line in (app.state_dir / HISTORY_FILE).read_text().split("\n") if line.startswith("#")]
    assert stamps == ["# 2021-03-09 15:41:22"] * 2  # the mqtool clock, frozen here


def test_history_survives_the_shell_and_is_searched_with_ctrl_r(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, "ZMQSC DEF QL-PAYQ" + ENTER + "ZMQSC DIS QL-PAYQ" + ENTER + ".echo other" + ENTER)
    capsys.readouterr()
    # A new shell: Ctrl-R finds the older entry by a fragment; Enter ends the search,
    # Enter again runs the line found.
    drive(app, CTRL_R + "dis ql" + ENTER + ENTER)
    out = capsys.readouterr().out
    assert "QUEUE PAYQ" in out and "END OF DISPLAY+" in out
    assert history_entries(app)[-1] == "ZMQSC DIS QL-PAYQ"


def test_auto_suggestion_comes_from_the_history(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.document import Document

    shell = drive(app, "ZMQSC DIS QL-DEAD.LETTER.QUEUE" + ENTER)
    suggest = shell.prompt_session.auto_suggest
    assert suggest is not None
    buffer = Buffer(history=shell.prompt_session.history)
    suggestion = suggest.get_suggestion(buffer, Document("ZMQSC DIS QL-D"))
    assert suggestion is not None and suggestion.text == "EAD.LETTER.QUEUE"


def test_plus_continues_from_the_first_non_blank(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, "ZMQSC DEF QL-PAYQ +" + ENTER + "      COMPSIZE-300" + ENTER + "ZMQSC DIS QL-PAYQ" + ENTER)
    out = capsys.readouterr().out
    assert "MQSC0001I 10.41.22 DEFINE QL-PAYQ COMPLETED+" in out
    assert "COMPSIZE 300\n" in out
    # One history entry for the two physical lines.
    assert "ZMQSC DEF QL-PAYQ +\n      COMPSIZE-300" in history_entries(app)


def test_minus_continues_from_column_one(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, "ZMQSC DEF QL-PAYQ COMP-" + ENTER + "SIZE-400" + ENTER + "ZMQSC DIS QL-PAYQ" + ENTER)
    out = capsys.readouterr().out
    assert "COMPSIZE 400\n" in out
    assert "ZMQSC DEF QL-PAYQ COMP-\nSIZE-400" in history_entries(app)


def test_semicolon_ends_a_command_and_comments_do_nothing(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, "* a comment" + ENTER + ".echo a +" + ENTER + "b; ignored" + ENTER)
    assert capsys.readouterr().out == "a b\n"


def test_prompt_names_the_current_system_and_follows_system(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=24, columns=100), term="xterm")
    shell = drive(app, ".system CSQ1" + ENTER + ".system tpf1" + ENTER + ".system CSQ1" + ENTER, output=output)
    assert shell.message() == "CSQ1> "
    drawn = [match.group(1) for match in re.finditer(r"(TPF1|CSQ1)>", screen.getvalue())]
    shown = [name for index, name in enumerate(drawn) if index == 0 or drawn[index - 1] != name]
    assert shown == ["TPF1", "CSQ1", "TPF1", "CSQ1"]  # redraws of one prompt folded
    assert capsys.readouterr().out.count("MQT0004I") == 3


def test_shell_system_argument(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    shell = drive(app, ".echo x" + ENTER, system="csq1")
    assert shell.message() == "CSQ1> "


def test_continuation_prompt_lines_up_under_the_prompt(app: App) -> None:
    shell = drive(app, "")
    assert shell.continuation_prompt(6, 1, 0) == "    : "
    assert shell.continuation_prompt(6, 1, 1) == "      "


@pytest.mark.parametrize("word", ["END", "EXIT", "QUIT", "end", "  Quit  "])
def test_leave_words_leave(app: App, capsys: pytest.CaptureFixture[str], word: str) -> None:
    drive(app, ".echo before" + ENTER + word + ENTER + ".echo after" + ENTER)
    assert capsys.readouterr().out == "before\n"


def test_ctrl_d_leaves(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, ".echo before" + ENTER + CTRL_D + ".echo after" + ENTER)
    assert capsys.readouterr().out == "before\n"


def test_end_of_input_leaves_and_drops_an_unfinished_line(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, ".echo before" + ENTER + ".echo never entered")
    assert capsys.readouterr().out == "before\n"


def test_ctrl_c_cancels_the_line_being_typed(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, "ZMQSC DEF QL-CANCELLED" + CTRL_C + "ZMQSC DIS QL-CANCELLED" + ENTER)
    out = capsys.readouterr().out
    assert "MQSC0018E 10.41.22 QL-CANCELLED NOT FOUND+" in out
    assert "DEFINE" not in out


def test_ctrl_c_in_a_continued_line_cancels_all_of_it(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, ".echo a +" + ENTER + "b" + CTRL_C + ".echo c" + ENTER)
    assert capsys.readouterr().out == "c\n"


def test_directives_and_help_go_through_the_session(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    from mqtool.directives import help_lines

    drive(app, ".help" + ENTER + ".help ZMQSC DEFINE" + ENTER + ".nosuch" + ENTER)
    out = capsys.readouterr().out
    expected = help_lines([]) + help_lines(["ZMQSC", "DEFINE"])
    assert out.startswith("\n".join(expected) + "\n")
    assert "MQT0002E" in out


def test_ctrl_c_while_a_command_runs_returns_to_the_prompt(
    app: App, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mqtool.session import Session

    real = Session.execute

    def execute(self: Session, text: str, check_only: bool = False) -> object:
        if "LONG" in text:
            raise KeyboardInterrupt  # as SIGINT would, in the middle of the command
        return real(self, text, check_only)

    monkeypatch.setattr(Session, "execute", execute)
    drive(app, ".echo LONG" + ENTER + ".echo next" + ENTER)
    captured = capsys.readouterr()
    assert captured.out == "next\n"
    assert captured.err == "mqtool: interrupted\n"


def test_an_internal_error_is_one_line_and_the_shell_goes_on(
    app: App, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mqtool.session import Session

    real = Session.execute

    def execute(self: Session, text: str, check_only: bool = False) -> object:
        if "BOOM" in text:
            raise ZeroDivisionError("division by zero")
        return real(self, text, check_only)

    monkeypatch.setattr(Session, "execute", execute)
    drive(app, ".echo BOOM" + ENTER + ".echo still here" + ENTER)
    captured = capsys.readouterr()
    assert captured.out == "still here\n"
    assert captured.err == internal_error_line(ZeroDivisionError("division by zero"), app.state_dir) + "\n"
    assert captured.err.startswith("mqtool: internal error: ZeroDivisionError: division by zero (state directory ")
    assert "Traceback" not in captured.err


def test_a_store_error_is_one_line_and_the_shell_goes_on(
    app: App, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mqtool.session import Session
    from mqtool.state import StoreError

    real = Session.execute

    def execute(self: Session, text: str, check_only: bool = False) -> object:
        if "LOCKED" in text:
            raise StoreError("cannot lock the state file x: database is locked")
        return real(self, text, check_only)

    monkeypatch.setattr(Session, "execute", execute)
    drive(app, ".echo LOCKED" + ENTER + ".echo next" + ENTER)
    captured = capsys.readouterr()
    assert captured.out == "next\n"
    assert captured.err == "mqtool: error: cannot lock the state file x: database is locked\n"


def test_internal_error_wording_matches_the_cli_edge(tmp_path: Path) -> None:
    """The shell's report is the line `mqtool.cli.main` prints for an unexpected failure."""
    code = (
        "import sys; from mqtool.cli import main as cli\n"
        "def broken(*a, **k):\n    raise ZeroDivisionError('division by zero')\n"
        "cli.App.session = broken\n"
        f"cli.main(['--state', {str(tmp_path)!r}, 'cmd', 'x'])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 70
    assert result.stderr == internal_error_line(ZeroDivisionError("division by zero"), tmp_path) + "\n"


def test_unwritable_history_costs_only_the_history(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    app.store  # noqa: B018  (creates the state directory)
    (app.state_dir / HISTORY_FILE).mkdir()  # a directory where the file should be
    drive(app, ".echo one" + ENTER + ".echo two" + ENTER)
    captured = capsys.readouterr()
    assert captured.out == "one\ntwo\n"
    warnings = captured.err.splitlines()
    assert len(warnings) == 1
    assert warnings[0].startswith("mqtool: warning: cannot ")
    assert warnings[0].endswith("this shell keeps its history in memory only")


def test_damaged_history_lines_are_read_as_text(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    app.store  # noqa: B018
    (app.state_dir / HISTORY_FILE).write_bytes(b"\n# x\n+.echo \xff\xfe\n\n# y\n+.echo fine\n")
    shell = drive(app, "")
    assert list(shell.prompt_session.history.get_strings()) == [".echo \ufffd\ufffd", ".echo fine"]
    assert capsys.readouterr().err == ""


def test_completion_data_is_refreshed_after_each_command(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    shell = drive(app, "ZMQSC DEF QL-FRESHQ" + ENTER)
    assert "FRESHQ" in shell.view.names[("TPF1", "QL")]
    assert shell.view.current == "TPF1"


# -- the real-time loop ----------------------------------------------------------------


def _wait(condition: Callable[[], bool], seconds: float = 30.0) -> bool:
    """Polls `condition` up to a bound (the bound is no timing assertion)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_console_messages_of_another_connection_are_printed(
    app: App, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shell runs the engine loop; a console message that another connection (as
    another process would) records while the prompt waits is printed at once."""
    from mqtool.cli.loop import EngineLoop
    from mqtool.state import Store

    shown: list[str] = []
    real_entry = OperatorShell.console_entry

    def console_entry(self: OperatorShell, entry: object) -> None:
        real_entry(self, entry)  # type: ignore[arg-type]
        shown.append(entry.text)  # type: ignore[attr-defined]

    monkeypatch.setattr(OperatorShell, "console_entry", console_entry)
    session = app.session()
    with create_pipe_input() as pipe:
        shell = OperatorShell(
            session,
            app.state_dir,
            input=pipe,
            output=DummyOutput(),
            colour=False,
            realtime=lambda shell: shell_module.start_realtime(app, shell),
        )

        def other_process() -> None:
            try:
                # Once the loop has taken its first look at the console, write to it.
                if not _wait(lambda: isinstance(shell.loop, EngineLoop) and shell.loop.iterations > 0):
                    return
                store = Store.open(app.state_dir)
                with store.transaction() as tx:
                    tx.console("TPF1", app.clock.timestamp(), "MQSC0201I 10.41.22 A MESSAGE OF THE CURRENT SYSTEM")
                    tx.console("CSQ1", app.clock.timestamp(), "CSQM587E -CSQ1 A MESSAGE OF ANOTHER SYSTEM")
                store.close()
                _wait(lambda: len(shown) >= 2)
            finally:
                pipe.send_text(".echo bye" + ENTER)
                pipe.close()

        producer = threading.Thread(target=other_process)
        producer.start()
        assert shell.run() == 0
        producer.join()
    out = capsys.readouterr().out
    assert out == (
        "MQSC0201I 10.41.22 A MESSAGE OF THE CURRENT SYSTEM\nCSQ1 CSQM587E -CSQ1 A MESSAGE OF ANOTHER SYSTEM\nbye\n"
    )
    assert isinstance(shell.loop, EngineLoop) and not shell.loop.running  # stopped on leaving


def test_timers_fire_while_the_shell_waits(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    """The loop ticks on its own connection: a timer due now runs without a command."""
    from mqtool.cli.loop import EngineLoop
    from mqtool.engine import platforms, timers

    ran: list[str] = []
    platforms.load()  # the engine's own timers first, as the loop's first tick would

    @timers.timer("test-shell-timer")
    def note(session: object, tx: object, system: object, due: float) -> None:
        ran.append(getattr(system, "name", ""))
        return None

    try:
        session = app.session()
        with create_pipe_input() as pipe:
            shell = OperatorShell(
                session,
                app.state_dir,
                input=pipe,
                output=DummyOutput(),
                colour=False,
                realtime=lambda shell: shell_module.start_realtime(app, shell),
            )

            def schedule_then_leave() -> None:
                try:
                    if _wait(lambda: isinstance(shell.loop, EngineLoop) and shell.loop.iterations > 0):
                        from mqtool.state import Store

                        store = Store.open(app.state_dir)
                        with store.transaction() as tx:
                            timers.schedule(tx, "TPF1", "test-shell-timer", app.clock.timestamp())
                        store.close()
                        _wait(lambda: bool(ran))
                finally:
                    pipe.close()

            helper = threading.Thread(target=schedule_then_leave)
            helper.start()
            shell.run()
            helper.join()
    finally:
        timers.TIMERS.pop("test-shell-timer", None)
    assert ran == ["TPF1"]


def test_loop_failures_are_told_once(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    shell = drive(app, "")
    shell.loop_error("tick: OperationalError: database is locked")
    shell.loop_error("tick: OperationalError: database is locked")
    shell.loop_error("poll: OSError: address in use")
    assert capsys.readouterr().err == (
        "mqtool: warning: real-time loop: tick: OperationalError: database is locked\n"
        "mqtool: warning: real-time loop: poll: OSError: address in use\n"
    )


# -- colour -----------------------------------------------------------------------------


def test_colourize() -> None:
    assert colourize("MQSC0011E 10.41.22 VERB FOO NOT RECOGNIZED") == (
        "\x1b[1m\x1b[31mMQSC0011E\x1b[0m\x1b[31m 10.41.22 VERB FOO NOT RECOGNIZED\x1b[0m"
    )
    assert colourize("MQT0004I Current system is CSQ1 (z/OS)") == (
        "\x1b[1mMQT0004I\x1b[0m Current system is CSQ1 (z/OS)"
    )
    assert colourize("CSQM587W -CSQ1 warning").startswith("\x1b[1m\x1b[33mCSQM587W")
    assert colourize("QUEUE PAYQ") == "QUEUE PAYQ"
    assert colourize("END OF DISPLAY+") == "END OF DISPLAY+"
    assert colourize("MQSC0011EX no id") == "MQSC0011EX no id"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert colour_wanted(_Tty()) is True
    assert colour_wanted(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert colour_wanted(_Tty()) is False
    monkeypatch.setenv("NO_COLOR", "")  # an empty NO_COLOR does not count (no-color.org)
    assert colour_wanted(_Tty()) is True


def test_the_shell_colours_when_asked(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    session = app.session()
    with create_pipe_input() as pipe:
        shell = OperatorShell(session, app.state_dir, input=pipe, output=DummyOutput(), colour=True)
        pipe.send_text(".nosuch" + ENTER)
        pipe.close()
        shell.run()
    assert capsys.readouterr().out == colourize("MQT0002E Unknown directive .nosuch; .help lists them") + "\n"


def test_console_message_of_another_system_keeps_its_name_plain(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    from mqtool.cli.loop import ConsoleEntry

    session = app.session()
    with create_pipe_input() as pipe:
        shell = OperatorShell(session, app.state_dir, input=pipe, output=DummyOutput(), colour=True)
        shell.console_entry(ConsoleEntry(1, "CSQ1", 0.0, "CSQM587E -CSQ1 FULL"))
        shell.console_entry(ConsoleEntry(2, "TPF1", 0.0, "MQSC0201I 10.41.22 SWEPT"))
    assert capsys.readouterr().out == (
        "CSQ1 " + colourize("CSQM587E -CSQ1 FULL") + "\n" + colourize("MQSC0201I 10.41.22 SWEPT") + "\n"
    )


def test_no_colour_when_output_is_not_a_terminal(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    session = app.session()
    with create_pipe_input() as pipe:
        shell = OperatorShell(session, app.state_dir, input=pipe, output=DummyOutput())
        assert shell.colour is False  # capsys's stdout is no terminal
        pipe.close()
        shell.run()


# -- batch: standard input is not a terminal ----------------------------------------------

SCRIPT = """\
* set up a queue
ZMQSC DEF QL-PAYQ +
      COMPSIZE-16000
ZMQSC DIS QL-PAYQ
.echo between
ZMQSC DEF QL-PAYQ
"""
CLEAN_SCRIPT = "ZMQSC DEF QL-PAYQ\nZMQSC DIS QL-PAYQ\n"


def test_batch_in_process_is_run_dash(mq: MQ, tmp_path: Path) -> None:
    shell = mq("shell", input=SCRIPT)
    other = MQ(tmp_path / "other")
    run = other("run", "-", input=SCRIPT)
    assert shell.output == run.output
    assert shell.exit_code == run.exit_code == 10
    assert shell.output.startswith("Starting MQSC for - on system TPF1.\n\n     1 : ZMQSC DEF QL-PAYQ +\n")


def test_batch_input_that_is_not_utf8_is_exit_20(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    from mqtool.cli.shell import run_batch

    class Undecodable(io.StringIO):
        """A first line, then bytes that are not UTF-8."""

        def readline(self, size: int | None = -1) -> str:
            line = super().readline(size)
            if not line:
                raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
            return line

    assert run_batch(app.session(), Undecodable(".echo read\n")) == 20
    captured = capsys.readouterr()
    assert captured.out == "Starting MQSC for - on system TPF1.\n\n     1 : .echo read\nread\n"
    assert captured.err == "mqtool: error: cannot read -: not UTF-8 text\n"


def _mqtool(state: Path, *args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_") and k != "NO_COLOR"}
    command = [sys.executable, "-m", "mqtool", "--state", str(state), "--clock", FROZEN, *args]
    result = subprocess.run(command, input=stdin, capture_output=True, env=env, timeout=120)
    result.stderr = drop_creation_notice_bytes(result.stderr)
    return result


@pytest.mark.slow
@pytest.mark.parametrize(("script", "code"), [(CLEAN_SCRIPT, 0), (SCRIPT, 10)])
def test_batch_process_is_byte_for_byte_run_dash(tmp_path: Path, script: str, code: int) -> None:
    shell = _mqtool(tmp_path / "a", "shell", stdin=script.encode())
    run = _mqtool(tmp_path / "b", "run", "-", stdin=script.encode())
    assert shell.stdout == run.stdout
    assert shell.stderr == run.stderr == b""
    assert shell.returncode == run.returncode == code
    assert b"\x1b" not in shell.stdout  # no colour on a pipe
    assert not (tmp_path / "a" / HISTORY_FILE).exists()  # batch input is not history


@pytest.mark.slow
def test_batch_process_on_a_named_system(tmp_path: Path) -> None:
    shell = _mqtool(tmp_path / "a", "shell", "CSQ1", stdin=b".echo hi\n")
    run = _mqtool(tmp_path / "b", "--system", "CSQ1", "run", "-", stdin=b".echo hi\n")
    assert shell.stdout == run.stdout
    assert shell.stdout.startswith(b"Starting MQSC for - on system CSQ1.\n")
    assert shell.returncode == run.returncode == 0


@pytest.mark.slow
def test_batch_process_answers_each_command_as_it_arrives(tmp_path: Path) -> None:
    """A program feeding the shell through a pipe reads each response before it sends
    the next command (the report is streamed, not held until end of input)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    command = [sys.executable, "-m", "mqtool", "--state", str(tmp_path / "a"), "--clock", FROZEN, "shell"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b".echo first\n")
        process.stdin.flush()
        seen: list[bytes] = []
        reader = threading.Thread(target=lambda: seen.extend(iter(process.stdout.readline, b"first\n")))
        reader.start()
        reader.join(60)
        arrived = not reader.is_alive()
        process.stdin.write(b"END\n")
        process.stdin.close()
        rest = process.stdout.read()
        assert process.wait(60) == 0
    assert arrived, seen
    assert seen == [b"Starting MQSC for - on system TPF1.\n", b"\n", b"     1 : .echo first\n"]
    summary = b"One MQSC command read.\nNo commands have a syntax error.\nAll valid MQSC commands were processed.\n"
    assert rest == b"     2 : END\n\n" + summary


@pytest.mark.slow
def test_batch_process_unknown_system_is_a_tool_error(tmp_path: Path) -> None:
    result = _mqtool(tmp_path / "a", "shell", "NOSUCH", stdin=b"")
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr == b"mqtool: error: no system named NOSUCH; systems: TPF1, CSQ1\n"


@pytest.mark.slow
def test_batch_process_stops_at_end(tmp_path: Path) -> None:
    result = _mqtool(tmp_path / "a", "shell", stdin=b".echo one\nEND\n.echo two\n")
    assert b"one\n" in result.stdout and b"two" not in result.stdout
    assert result.returncode == 0


# -- lazy imports ---------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_and_cmd_do_not_import_prompt_toolkit(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "import mqtool.cli.main\n"
        "assert 'prompt_toolkit' not in sys.modules, 'import mqtool.cli.main'\n"
        "try:\n"
        f"    mqtool.cli.main.main(['--state', {str(tmp_path)!r}, 'cmd', 'ZMQSC DIS QMGR', '.help'])\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('prompt_toolkit', 'mqtool'))\n"
        "assert not [m for m in loaded if m.startswith('prompt_toolkit') or m.startswith('mqtool.cli.shell')], loaded\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("ok\n")


@pytest.mark.slow
def test_batch_shell_does_not_import_prompt_toolkit(tmp_path: Path) -> None:
    code = (
        "import sys, atexit\n"
        "atexit.register(lambda: sys.stderr.write(str(any(m.startswith('prompt_toolkit') for m in sys.modules))))\n"
        "import mqtool.cli.main\n"
        f"mqtool.cli.main.main(['--state', {str(tmp_path)!r}, 'shell'])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0
    assert result.stdout.startswith("Starting MQSC for - on system TPF1.")
    assert drop_creation_notice(result.stderr) == "False"


def test_completion_follows_the_zos_system_the_session_used_last(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    from mqtool.cli.system import system as system_group

    CliRunner().invoke(system_group, ["add", "CSQ2", "--platform", "zos"], obj=app, catch_exceptions=False)
    shell = drive(app, "")
    assert shell.view.mqsc_system() is None  # TPF1 current, two z/OS systems, none used yet
    shell = drive(app, "-CSQ2 DIS QMGR QMNAME" + ENTER)
    chosen = shell.view.mqsc_system()
    assert chosen is not None and chosen.name == "CSQ2"


# -- pasted blocks and type-ahead ---------------------------------------------------------

PASTE, PASTED = "\x1b[200~", "\x1b[201~"  # bracketed paste, as a terminal sends it


def test_a_pasted_block_ending_in_a_newline_is_entered(app: App, capsys: pytest.CaptureFixture[str]) -> None:
    drive(app, PASTE + "ZMQSC DEF QL-PASTED +\r\n   COMPSIZE-200\r\n" + PASTED)
    out = capsys.readouterr().out
    assert "MQSC0001I 10.41.22 DEFINE QL-PASTED COMPLETED+" in out
    assert history_entries(app)[-1] == "ZMQSC DEF QL-PASTED +\n   COMPSIZE-200"  # no empty line after it


def test_a_pasted_block_that_continues_waits_on_a_continuation_line(
    app: App, capsys: pytest.CaptureFixture[str]
) -> None:
    drive(app, PASTE + "ZMQSC DEF QL-GOES.ON +\n" + PASTED + "COMPSIZE-300" + ENTER)
    assert "MQSC0001I 10.41.22 DEFINE QL-GOES.ON COMPLETED+" in capsys.readouterr().out
    assert history_entries(app)[-1] == "ZMQSC DEF QL-GOES.ON +\nCOMPSIZE-300"
    # Without a final newline a paste is only typed: Enter still enters it.
    drive(app, PASTE + ".echo typed" + PASTED + ENTER)
    assert capsys.readouterr().out == "typed\n"


def test_a_response_is_on_the_screen_before_the_next_prompt(
    app: App, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines typed ahead: each response is written before the next prompt echoes the
    next line. prompt_toolkit's stdout proxy writes from a thread; a slow one (a busy
    terminal) must not hold a response back past the next prompt."""
    import prompt_toolkit.patch_stdout as patching

    written = patching.StdoutProxy._write_and_flush

    def slowly(proxy: Any, loop: Any, text: str) -> None:
        time.sleep(0.3)
        written(proxy, loop, text)

    monkeypatch.setattr(patching.StdoutProxy, "_write_and_flush", slowly)
    entries = iter([".echo first", ".echo second"])
    on_screen: list[str] = []

    def typed_ahead() -> str:
        on_screen.append(capsys.readouterr().out)
        try:
            return next(entries)
        except StopIteration:
            raise EOFError from None

    with create_pipe_input() as pipe:
        shell = OperatorShell(app.session(), app.state_dir, input=pipe, output=DummyOutput(), colour=False)
        shell.on_terminal = True  # the prompt patches stdout as on a terminal
        monkeypatch.setattr(shell.prompt_session, "prompt", typed_ahead)
        assert shell.run() == 0
    assert on_screen[1:] == ["first\n", "second\n"]
