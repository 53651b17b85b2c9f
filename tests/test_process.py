"""Whole-process tests: `python -m mqtool` as a user runs it. Exit codes of `run`,
standard input through a pipe, and errors that are one line on stderr, never a
traceback (tool errors, internal errors, a closed pipe, Ctrl-C)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import drop_creation_notice

FROZEN = "2021-03-09T15:41:22Z"
INTERNAL = "; please report it with the command that caused it"

pytestmark = pytest.mark.slow


def env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    clean["MQTOOL_CLOCK"] = FROZEN
    return clean


def mqtool(state: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "mqtool", "--state", str(state), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env(),
        timeout=60,
    )
    result.stderr = drop_creation_notice(result.stderr)
    return result


def assert_one_error_line(result: subprocess.CompletedProcess[str], start: str = "mqtool: error: ") -> str:
    assert "Traceback" not in result.stderr
    lines = drop_creation_notice(result.stderr).splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(start), lines[0]
    return lines[0]


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


def test_run_exit_0_when_all_processed(state: Path, tmp_path: Path) -> None:
    script = tmp_path / "ok.mqsc"
    script.write_text("ZMQSC DEF QL-A\n.echo fine\n", encoding="utf-8")
    result = mqtool(state, "run", str(script))
    assert result.returncode == 0, result
    assert result.stderr == ""
    assert result.stdout.endswith("All valid MQSC commands were processed.\n")


def test_run_exit_10_when_some_failed(state: Path, tmp_path: Path) -> None:
    script = tmp_path / "some.mqsc"
    script.write_text("ZMQSC DEF QL-A\nZMQSC DEF QL-A\nHELLO\n", encoding="utf-8")
    result = mqtool(state, "run", "-e", str(script))
    assert result.returncode == 10, result
    assert result.stderr == ""
    assert result.stdout.splitlines()[-3:] == [
        "3 MQSC commands read.",
        "One command has a syntax error.",
        "One valid MQSC command could not be processed.",
    ]


def test_run_exit_20_when_the_file_cannot_be_run(state: Path, tmp_path: Path) -> None:
    result = mqtool(state, "run", str(tmp_path / "missing.mqsc"))
    assert result.returncode == 20
    assert result.stdout == ""
    line = assert_one_error_line(result)
    assert line == f"mqtool: error: cannot read {tmp_path / 'missing.mqsc'}: No such file or directory"
    binary = tmp_path / "binary.mqsc"
    binary.write_bytes(b"ZMQSC DEF QL-A\n\xff\xfe\x00\n")
    result = mqtool(state, "run", str(binary))
    assert result.returncode == 20
    assert assert_one_error_line(result) == f"mqtool: error: cannot read {binary}: not UTF-8 text"


def test_run_reads_a_pipe(state: Path) -> None:
    result = mqtool(state, "run", "-", stdin="ZMQSC DEF +\n  QL-PIPED\n.echo end\n")
    assert result.returncode == 0, result
    assert result.stdout.splitlines()[:5] == [
        "Starting MQSC for - on system TPF1.",
        "",
        "     1 : ZMQSC DEF +",
        "       :   QL-PIPED",
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
    ]


def test_cmd_reads_a_pipe(state: Path) -> None:
    result = mqtool(state, "cmd", "-", stdin="ZMQSC DEF QL-PIPED\nZMQSC DEF QL-PIPED\n")
    assert result.returncode == 10
    assert result.stdout.splitlines() == [
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0001I 10.41.22 DEFINE QL-PIPED COMPLETED+",
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0017E 10.41.22 QL-PIPED ALREADY EXISTS+",
    ]
    assert result.stderr == ""


def test_usage_error_is_one_line(state: Path) -> None:
    result = mqtool(state, "--frob")
    assert result.returncode == 2
    assert result.stdout == ""
    assert assert_one_error_line(result) == "mqtool: error: No such option '--frob'. (see 'mqtool --help')"


def test_state_directory_that_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory\n", encoding="utf-8")
    result = mqtool(blocker, "cmd", "ZMQSC DIS QMGR")
    assert result.returncode == 2
    line = assert_one_error_line(result)
    assert str(blocker) in line
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"


def test_internal_error_is_one_line_naming_the_state(state: Path) -> None:
    """A bug inside a command reaches the edge as one line, exit 70, no traceback."""
    program = (
        "import sys\n"
        "import mqtool.session\n"
        "def broken(self, text, check_only=False):\n"
        "    raise ZeroDivisionError('simulated fault')\n"
        "mqtool.session.Session.execute = broken\n"
        "from mqtool.cli.main import main\n"
        "main(sys.argv[1:])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program, "--state", str(state), "cmd", "ZMQSC DIS QMGR"],
        capture_output=True,
        text=True,
        env=env(),
        timeout=60,
    )
    assert result.returncode == 70
    assert result.stdout == ""
    line = assert_one_error_line(result, "mqtool: internal error: ")
    assert line == f"mqtool: internal error: ZeroDivisionError: simulated fault (state directory {state}){INTERNAL}"


def test_internal_error_in_process(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import mqtool.session
    from mqtool.cli.main import main

    def broken(self: object, text: str, check_only: bool = False) -> None:
        raise KeyError("lost")

    monkeypatch.setattr(mqtool.session.Session, "execute", broken)
    with pytest.raises(SystemExit) as leaving:
        main(["--state", str(state), "--clock", FROZEN, "cmd", "ZMQSC DIS QMGR"])
    assert leaving.value.code == 70
    captured = capsys.readouterr()
    err = drop_creation_notice(captured.err)
    assert err == f"mqtool: internal error: KeyError: 'lost' (state directory {state}){INTERNAL}\n"


def test_closed_pipe_is_quiet(state: Path, tmp_path: Path) -> None:
    """`mqtool run big.mqsc | head -1`: the reader goes away; no traceback, no noise."""
    script = tmp_path / "big.mqsc"
    script.write_text("".join(f".echo line {i} {'x' * 60}\n" for i in range(5000)), encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "mqtool", "--state", str(state), "run", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b"Starting MQSC")
    process.stdout.close()
    err = drop_creation_notice(process.stderr.read().decode())
    process.wait(timeout=60)
    assert err == "", err
    # The output is far larger than a pipe holds: EPIPE, and 128 + SIGPIPE as a shell
    # reports a filter that a closed pipe stopped (not 1, put and get's refusal).
    assert process.returncode == 141


def test_interrupt_is_one_line(state: Path, tmp_path: Path) -> None:
    """Ctrl-C in the middle of a long run: one line, exit 130."""
    script = tmp_path / "long.mqsc"
    script.write_text("".join(f"ZMQSC DEF QL-INT.Q{i:05d}\n" for i in range(50000)), encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "mqtool", "--state", str(state), "run", "-e", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
        # A test run started in the background of a script inherits SIGINT ignored, and
        # so would mqtool: Ctrl-C is what this test sends, so it gets its default back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None and process.stderr is not None
    while b"MQSC0001I" not in process.stdout.readline():
        pass
    process.send_signal(signal.SIGINT)
    process.stdout.read()
    err = drop_creation_notice(process.stderr.read().decode())
    process.wait(timeout=60)
    assert process.returncode == 130
    # One message line; the newline before it ends the ^C that a terminal echoes.
    assert err == "\nmqtool: error: interrupted\n"


# A program that runs mqtool's main on its arguments and goes on (to look at sys.modules).
RUN_MAIN = "import sys\nfrom mqtool.cli.main import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"


def test_cmd_loads_neither_rich_nor_prompt_toolkit(state: Path) -> None:
    """DESIGN.md: lazy imports at the edge, so `mqtool cmd` starts fast."""
    program = (
        RUN_MAIN + "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'prompt_toolkit'})\n"
        "print('heavy:', heavy, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program, "--state", str(state), "cmd", "ZMQSC DISPLAY QL-*", "-CSQ1 DIS QMGR"],
        capture_output=True,
        text=True,
        env=env(),
        timeout=60,
    )
    assert result.stderr.splitlines()[-1] == "heavy: []", result.stderr
