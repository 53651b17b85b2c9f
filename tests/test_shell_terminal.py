"""A smoke test of `mqtool shell` on a real terminal, driven through tmux (skipped when
tmux is not installed; the pipe-input tests in test_shell.py cover the behaviour)."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import FROZEN

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tmux")]
WAIT_SECONDS = 30.0


class Terminal:
    """One tmux session on a private server, running a command in a 100x30 window."""

    def __init__(self, socket: Path, command: str) -> None:
        self.socket = str(socket)
        self._tmux("new-session", "-d", "-s", "shell", "-x", "100", "-y", "30", command)

    def _tmux(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, timeout=30)
        return result.stdout

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "shell", "-l", text)

    def key(self, name: str) -> None:
        self._tmux("send-keys", "-t", "shell", name)

    def screen(self, escapes: bool = False) -> str:
        return self._tmux("capture-pane", "-t", "shell", "-p", "-J", *(["-e"] if escapes else []))

    def wait_for(
        self, condition: Callable[[str], bool], what: str, escapes: bool = False, seconds: float = WAIT_SECONDS
    ) -> str:
        """Polls the screen until `condition` holds (a bound, not a timing assertion)."""
        deadline = time.monotonic() + seconds
        while True:
            screen = self.screen(escapes)
            if condition(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {seconds}s for {what}; the screen:\n{screen}")
            time.sleep(0.05)

    def press_until(self, key: str, condition: Callable[[str], bool], what: str, seconds: float = WAIT_SECONDS) -> str:
        """Presses `key` until `condition` holds, for a key that the application may
        drop when it comes at the wrong moment; each press gets a bounded wait."""
        deadline = time.monotonic() + seconds
        while True:
            self.key(key)
            try:
                return self.wait_for(condition, what, seconds=min(2.0, max(0.1, deadline - time.monotonic())))
            except AssertionError:
                if time.monotonic() > deadline:
                    raise

    def close(self) -> None:
        self._tmux("kill-server")


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Callable[..., Terminal]]:
    opened: list[Terminal] = []

    def open_shell(*args: str, env: dict[str, str] | None = None) -> Terminal:
        settings = {"TERM": "xterm-256color", **(env or {})}
        unset = [f"-u{name}" for name in ("MQTOOL_STATE", "MQTOOL_SYSTEM", "MQTOOL_CLOCK", "NO_COLOR")]
        command = ["env", *unset, *(f"{k}={v}" for k, v in settings.items()), sys.executable, "-m", "mqtool", *args]
        line = shlex.join(command) + "; echo EXITED $?; sleep 600"
        term = Terminal(tmp_path / f"tmux-{len(opened)}", line)
        opened.append(term)
        return term

    yield open_shell
    for term in opened:
        term.close()


def test_a_session_on_a_terminal(terminal: Callable[..., Terminal], tmp_path: Path) -> None:
    state = tmp_path / "state"
    term = terminal("--state", str(state), "--clock", FROZEN, "shell")
    term.wait_for(lambda s: "TPF1>" in s, "the prompt")
    term.type("ZMQSC DEF QL-PAYQ +")
    term.key("Enter")
    term.wait_for(lambda s: "\n    :" in s, "the continuation prompt")
    term.type("COMPSIZE-200")
    term.key("Enter")
    screen = term.wait_for(lambda s: "DEFINE QL-PAYQ COMPLETED+" in s, "the response")
    # The response is coloured on a terminal: the id in bold.
    coloured = term.screen(escapes=True)
    assert "\x1b[1mMQSC0001I" in coloured
    # Completion of a name from the store with Tab.
    term.type("ZMQSC DIS QL-PA")
    term.wait_for(lambda s: "PAYQ" in s.split("ZMQSC DIS QL-PA")[-1], "the completion menu")
    # A Tab that comes while the completion of the last letter typed still runs is
    # dropped by prompt_toolkit (one completion at a time; seen under load): press
    # Tab until the name is completed.
    term.press_until("Tab", lambda s: "ZMQSC DIS QL-PAYQ" in s, "the completed name")
    term.key("Enter")
    term.wait_for(lambda s: "COMPSIZE 200" in s, "the display")
    term.type(".system CSQ1")
    term.key("Enter")
    term.wait_for(lambda s: s.rstrip().endswith("CSQ1>"), "the new prompt")
    term.type("END")
    term.key("Enter")
    screen = term.wait_for(lambda s: "EXITED" in s, "the shell to leave")
    assert "EXITED 0" in screen
    assert "Traceback" not in screen
    history = (state / "history").read_text(encoding="utf-8")
    assert "+ZMQSC DEF QL-PAYQ +\n+COMPSIZE-200\n" in history


def test_no_colour_with_no_color(terminal: Callable[..., Terminal], tmp_path: Path) -> None:
    term = terminal("--state", str(tmp_path / "state"), "--clock", FROZEN, "shell", env={"NO_COLOR": "1"})
    term.wait_for(lambda s: "TPF1>" in s, "the prompt")
    term.type(".nosuch")
    term.key("Enter")
    term.wait_for(lambda s: "MQT0002E" in s, "the response")
    assert "\x1b[1mMQT0002E" not in term.screen(escapes=True)
    term.key("C-d")
    assert "EXITED 0" in term.wait_for(lambda s: "EXITED" in s, "the shell to leave")


def _record_console(state: Path, text: str) -> None:
    """Another process records a console message of TPF1 in the store."""
    code = (
        "import sys; from pathlib import Path; from mqtool.state import Store\n"
        "store = Store.open(Path(sys.argv[1]))\n"
        "with store.transaction() as tx:\n"
        "    tx.console('TPF1', 0.0, sys.argv[2])\n"
        "store.close()\n"
    )
    subprocess.run([sys.executable, "-c", code, str(state), text], check=True, timeout=60)


def test_console_messages_appear_above_the_prompt(terminal: Callable[..., Terminal], tmp_path: Path) -> None:
    state = tmp_path / "state"
    term = terminal("--state", str(state), "--clock", FROZEN, "shell")
    term.wait_for(lambda s: "TPF1>" in s, "the prompt")
    term.type("ZMQSC DIS QM")  # a line being typed when the message arrives
    term.wait_for(lambda s: "ZMQSC DIS QM" in s, "the typed text")
    # The loop reports messages recorded after its first look at the console: record
    # until one shows (each attempt is a new message; the bound is WAIT_SECONDS).
    deadline = time.monotonic() + WAIT_SECONDS
    attempt = 0
    while True:
        attempt += 1
        _record_console(state, f"MQSC0201I 10.41.22 UNSOLICITED MESSAGE {attempt}")
        try:
            # the message and the prompt redrawn below it with the typed text (a screen
            # captured while the prompt is being redrawn has the message alone)
            screen = term.wait_for(
                lambda s: "UNSOLICITED MESSAGE" in s and "\nTPF1> ZMQSC DIS QM" in "\n" + s,
                "the console message above the prompt",
                seconds=3.0,
            )
            break
        except AssertionError:
            if time.monotonic() > deadline:
                raise
    lines = [line for line in screen.splitlines() if line.strip()]
    message = next(i for i, line in enumerate(lines) if "UNSOLICITED MESSAGE" in line)
    prompt = max(i for i, line in enumerate(lines) if line.startswith("TPF1>"))
    assert message < prompt, screen  # above the prompt
    assert lines[prompt].startswith("TPF1> ZMQSC DIS QM"), screen  # the typed text is kept
    term.key("Escape")  # close the completion menu, then finish the line
    term.type("GR")
    term.key("Enter")
    term.wait_for(lambda s: "QMGR TPFQM" in s or "MQSC0002I" in s, "the display")
    # a key that comes while the shell still redraws may be dropped: press it again
    assert "EXITED 0" in term.press_until("C-d", lambda s: "EXITED" in s, "the shell to leave")


def test_lines_typed_ahead_are_answered_in_order(terminal: Callable[..., Terminal], tmp_path: Path) -> None:
    term = terminal("--state", str(tmp_path / "state"), "--clock", FROZEN, "shell")
    term.wait_for(lambda s: "TPF1>" in s, "the prompt")
    # Three lines at once, before the shell has read the first.
    term.type(".echo ONE\r.echo TWO\r.echo THREE\r")
    screen = term.wait_for(lambda s: "THREE\n" in s.replace(" \n", "\n") and s.count("TPF1>") >= 4, "the answers")
    lines = [line.rstrip() for line in screen.splitlines() if line.strip()]
    start = lines.index("TPF1> .echo ONE")
    assert lines[start : start + 7] == [
        "TPF1> .echo ONE",
        "ONE",
        "TPF1> .echo TWO",
        "TWO",
        "TPF1> .echo THREE",
        "THREE",
        "TPF1>",
    ], screen
    term.key("C-d")
    assert "EXITED 0" in term.wait_for(lambda s: "EXITED" in s, "the shell to leave")


def test_a_pasted_block_runs_without_an_empty_continuation_line(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    term = terminal("--state", str(tmp_path / "state"), "--clock", FROZEN, "shell")
    term.wait_for(lambda s: "TPF1>" in s, "the prompt")
    # tmux pastes with bracketed paste (-p) when the application asked for it, as the shell does.
    term._tmux("set-buffer", "ZMQSC DEF QL-PASTED +\n  COMPSIZE-200\n")
    term._tmux("paste-buffer", "-p", "-t", "shell")
    # Entered as pasted: the response, then a new prompt (no empty continuation line
    # waiting for an Enter).
    screen = term.wait_for(
        lambda s: "DEFINE QL-PASTED COMPLETED+" in s and s.rstrip().endswith("TPF1>"), "the response and a prompt"
    )
    lines = [line.rstrip() for line in screen.splitlines() if line.strip()]
    assert lines[-3:] == [
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0001I 10.41.22 DEFINE QL-PASTED COMPLETED+",
        "TPF1>",
    ], screen
    term.key("C-d")
    assert "EXITED 0" in term.wait_for(lambda s: "EXITED" in s, "the shell to leave")
