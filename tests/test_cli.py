"""The command line in process: `cmd`, `run`, `init`, the global options, and the
one-line `mqtool: error:` reports, with exact output and exit codes."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from mqtool import __version__
from mqtool.cli.runner import Summary
from mqtool.state.store import DB_NAME
from tests.conftest import drop_creation_notice

HEADER = "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01"
UNKNOWN = "MQT0001E Unknown command 'HELLO': not ZMQSC, ZMQID, ZHTPS, a CPF or an MQSC verb"


def defined(name: str) -> list[str]:
    return [HEADER, f"MQSC0001I 10.41.22 DEFINE QL-{name} COMPLETED+"]


def exists(name: str) -> list[str]:
    return [HEADER, f"MQSC0017E 10.41.22 QL-{name} ALREADY EXISTS+"]


def dump(state: Path) -> list[str]:
    """The whole store as SQL text, to prove that something changed nothing."""
    conn = sqlite3.connect(state / DB_NAME)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The real entry point, which turns every error into one line, in process."""
    from mqtool.cli.main import main

    with pytest.raises(SystemExit) as leaving:
        main(argv)
    captured = capsys.readouterr()
    return int(leaving.value.code or 0), captured.out, drop_creation_notice(captured.err)


# -- cmd -----------------------------------------------------------------------------


def test_cmd_runs_several_commands(mq: Any) -> None:
    result = mq("cmd", "ZMQSC DEF QL-PAYQ", ".echo between", "ZMQSC DEF QL-PAYQ2")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [*defined("PAYQ"), "between", *defined("PAYQ2")]
    assert result.stderr == ""


def test_cmd_exit_10_when_a_command_fails(mq: Any) -> None:
    result = mq("cmd", "ZMQSC DEF QL-PAYQ", "ZMQSC DEF QL-PAYQ", "HELLO")
    assert result.exit_code == 10
    assert result.stdout.splitlines() == [*defined("PAYQ"), *exists("PAYQ"), UNKNOWN]


def test_cmd_reads_standard_input_with_the_file_rules(mq: Any) -> None:
    text = "* a comment\nZMQSC DEF +\n   QL-FROM.STDIN\n\n.echo done; ignored\n"
    result = mq("cmd", ".echo first", "-", ".echo last", input=text)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["first", *defined("FROM.STDIN"), "done", "last"]


def test_cmd_argument_is_one_whole_command(mq: Any) -> None:
    # A trailing - is part of the command typed, not a continuation: DESCR- sets it empty.
    result = mq("cmd", "ZMQSC DEF QL-A DESCR-x", "ZMQSC ALT QL-A DESCR-", "ZMQSC DIS QL-A")
    assert result.exit_code == 0, result.output
    assert "DESCR x" not in result.stdout.splitlines()
    assert "DESCR" in result.stdout.splitlines()


def test_cmd_needs_a_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_main(["--state", str(tmp_path), "cmd"], capsys)
    assert (code, out) == (2, "")
    assert err == "mqtool: error: Missing argument 'COMMANDS...'. (see 'mqtool cmd --help')\n"


def test_cmd_end_stops(mq: Any) -> None:
    result = mq("cmd", "-", input=".echo one\nEND\n.echo two\n")
    assert result.exit_code == 0
    assert result.stdout == "one\n"


# -- run -----------------------------------------------------------------------------

SCRIPT = """\
* Set up the payment queues.
ZMQSC DEFINE +
      QL-PAYQ +
      MAXDEPTH-10
ZMQSC DEF QL-PAY-
Q2

ZMQSC DEF QL-PAYQ
HELLO
.echo done
"""

SCRIPT_REPORT = [
    "Starting MQSC for setup.mqsc on system TPF1.",
    "",
    "     1 : ZMQSC DEFINE +",
    "       :       QL-PAYQ +",
    "       :       MAXDEPTH-10",
    *defined("PAYQ"),
    "     2 : ZMQSC DEF QL-PAY-",
    "       : Q2",
    *defined("PAYQ2"),
    "     3 : ZMQSC DEF QL-PAYQ",
    *exists("PAYQ"),
    "     4 : HELLO",
    UNKNOWN,
    "     5 : .echo done",
    "done",
    "",
    "5 MQSC commands read.",
    "One command has a syntax error.",
    "One valid MQSC command could not be processed.",
]


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "setup.mqsc"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def test_run_numbered_echo_with_continuation_gutter(mq: Any, script: Path) -> None:
    result = mq("run", "setup.mqsc")
    assert result.exit_code == 10
    assert result.stdout.splitlines() == SCRIPT_REPORT
    assert result.stderr == ""


def test_run_without_echo(mq: Any, script: Path) -> None:
    result = mq("run", "-e", "setup.mqsc")
    assert result.exit_code == 10
    assert result.stdout.splitlines() == [line for line in SCRIPT_REPORT if " : " not in line[:9]]


def test_run_all_processed_exit_0(mq: Any, tmp_path: Path) -> None:
    path = tmp_path / "ok.mqsc"
    path.write_text("ZMQSC DEF QL-A\nZMQSC DEF QL-B\n", encoding="utf-8")
    result = mq("run", "-e", str(path))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-3:] == [
        "2 MQSC commands read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]


def test_run_verify_checks_syntax_and_changes_nothing(mq: Any, tmp_path: Path) -> None:
    assert mq("cmd", "ZMQSC DEF QL-PAYQ").exit_code == 0
    before = dump(mq.state_dir)
    path = tmp_path / "check.mqsc"
    path.write_text(
        "ZMQSC DEF QL-NEW\nZMQSC DEF QL-PAYQ\nZMQSC FROB QL-X\n.advance 1h\n.system CSQ1\nDEFINE QLOCAL(Q1)\n",
        encoding="utf-8",
    )
    result = mq("run", "-v", str(path))
    assert result.stdout.splitlines() == [
        f"Starting MQSC for {path} on system TPF1.",
        "",
        "     1 : ZMQSC DEF QL-NEW",
        "     2 : ZMQSC DEF QL-PAYQ",  # exists: found only by running it
        "     3 : ZMQSC FROB QL-X",
        HEADER,
        "MQSC0011E 10.41.22 VERB FROB NOT RECOGNIZED - VALID VERBS ARE "
        + ", ".join(__import__("mqtool.tables").tables.load("ztpf_mq").verbs)
        + "+",
        "     4 : .advance 1h",
        "     5 : .system CSQ1",
        "MQT0004I Current system is CSQ1 (z/OS)",
        "     6 : DEFINE QLOCAL(Q1)",  # checked against CSQ1, the system it would run on
        "",
        "6 MQSC commands read.",
        "One command has a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    assert result.exit_code == 10
    assert dump(mq.state_dir) == before


def test_run_stop_on_error(mq: Any, script: Path, tmp_path: Path) -> None:
    second = tmp_path / "second.mqsc"
    second.write_text(".echo never\n", encoding="utf-8")
    result = mq("run", "--stop-on-error", "setup.mqsc", "second.mqsc")
    assert result.exit_code == 10
    assert result.stdout.splitlines() == [
        *SCRIPT_REPORT[: SCRIPT_REPORT.index("     4 : HELLO")],
        "",
        "3 MQSC commands read.",
        "No commands have a syntax error.",
        "One valid MQSC command could not be processed.",
    ]


def test_run_several_files_share_the_session(mq: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("one.mqsc").write_text(".system CSQ1\n", encoding="utf-8")
    Path("two.mqsc").write_text("", encoding="utf-8")
    Path("three.mqsc").write_text(".echo a\n.echo b\n", encoding="utf-8")
    result = mq("run", "one.mqsc", "two.mqsc", "three.mqsc")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Starting MQSC for one.mqsc on system TPF1.",
        "",
        "     1 : .system CSQ1",
        "MQT0004I Current system is CSQ1 (z/OS)",
        "",
        "One MQSC command read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
        "",
        "Starting MQSC for two.mqsc on system CSQ1.",
        "",
        "",
        "No MQSC commands read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
        "",
        "Starting MQSC for three.mqsc on system CSQ1.",
        "",
        "     1 : .echo a",
        "a",
        "     2 : .echo b",
        "b",
        "",
        "2 MQSC commands read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]


def test_run_reads_standard_input(mq: Any) -> None:
    result = mq("run", "-e", "-", input="ZMQSC DEF QL-A\n")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "Starting MQSC for - on system TPF1.",
        "",
        *defined("A"),
        "",
        "One MQSC command read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]


def test_run_many_failures_wording(mq: Any) -> None:
    result = mq("run", "-e", "-", input="HELLO\nHELLO\nZMQSC DEF QL-A\nZMQSC DEF QL-A\nZMQSC DEF QL-A\n")
    assert result.exit_code == 10
    assert result.stdout.splitlines()[-3:] == [
        "5 MQSC commands read.",
        "2 commands have a syntax error.",
        "2 valid MQSC commands could not be processed.",
    ]


@pytest.mark.parametrize(
    ("read", "syntax", "failed", "expected"),
    [
        (
            0,
            0,
            0,
            ["No MQSC commands read.", "No commands have a syntax error.", "All valid MQSC commands were processed."],
        ),
        (
            1,
            1,
            0,
            ["One MQSC command read.", "One command has a syntax error.", "All valid MQSC commands were processed."],
        ),
        (
            12,
            3,
            1,
            [
                "12 MQSC commands read.",
                "3 commands have a syntax error.",
                "One valid MQSC command could not be processed.",
            ],
        ),
    ],
)
def test_summary_wording(read: int, syntax: int, failed: int, expected: list[str]) -> None:
    summary = Summary(read, syntax, failed)
    assert summary.lines() == expected
    assert summary.exit_code == (0 if syntax == failed == 0 else 10)


def test_run_unreadable_file_exit_20(mq: Any, tmp_path: Path) -> None:
    before_exists = (mq.state_dir / DB_NAME).exists()
    result = mq("run", str(tmp_path / "missing.mqsc"))
    assert result.exit_code == 20
    assert result.stdout == ""
    assert result.stderr == f"mqtool: error: cannot read {tmp_path / 'missing.mqsc'}: No such file or directory\n"
    assert (mq.state_dir / DB_NAME).exists() == before_exists  # nothing opened


def test_run_directory_without_command_files_exit_20(mq: Any, tmp_path: Path) -> None:
    # A folder runs its *.mqsc files (tests/test_run_automation.py); one without any cannot be run.
    result = mq("run", str(tmp_path))
    assert result.exit_code == 20
    assert result.stderr == f"mqtool: error: {tmp_path} holds no *.mqsc files\n"


def test_run_non_utf8_file_exit_20_and_nothing_runs(mq: Any, tmp_path: Path) -> None:
    good = tmp_path / "good.mqsc"
    good.write_text("ZMQSC DEF QL-A\n", encoding="utf-8")
    bad = tmp_path / "latin1.mqsc"
    bad.write_bytes("ZMQSC ALT QL-A DESCR-'Caf\u00e9'\n".encode("latin-1"))
    result = mq("run", str(good), str(bad))
    assert result.exit_code == 20
    assert result.stdout == ""  # every file is read before any command runs
    assert result.stderr == f"mqtool: error: cannot read {bad}: not UTF-8 text\n"
    assert "QL-A" not in mq("cmd", "ZMQSC DIS QL-A").stdout.replace("QL-A NOT FOUND", "")


def test_cmd_non_utf8_stdin_exit_20(mq: Any) -> None:
    result = mq("cmd", "-", input=b"ZMQSC DEF QL-A DESCR-'Caf\xe9'\n")  # type: ignore[arg-type]
    assert result.exit_code == 20
    assert result.stdout == ""
    assert result.stderr == "mqtool: error: cannot read -: not UTF-8 text\n"


def test_run_needs_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_main(["--state", str(tmp_path), "run"], capsys)
    assert (code, out) == (2, "")
    assert err == "mqtool: error: Missing argument 'FILES...'. (see 'mqtool run --help')\n"


# -- init ----------------------------------------------------------------------------


def test_init_creates_the_default_complex(mq: Any) -> None:
    result = mq("init")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"Created the default complex in {mq.state_dir}: TPF1 (z/TPF, z15, TPFQM) and CSQ1 (z/OS, -CSQ1).\n"
    )
    systems = sqlite3.connect(mq.state_dir / DB_NAME).execute("SELECT name, platform FROM systems ORDER BY position")
    assert systems.fetchall() == [("TPF1", "ztpf"), ("CSQ1", "zos")]


def test_init_refuses_an_existing_store(mq: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert mq("cmd", "ZMQSC DEF QL-KEEP").exit_code == 0
    before = dump(mq.state_dir)
    code, out, err = run_main(["--state", str(mq.state_dir), "init"], capsys)
    assert (code, out) == (2, "")
    assert err == f"mqtool: error: {mq.state_dir / DB_NAME} already holds a complex; use --force to replace it\n"
    assert dump(mq.state_dir) == before


def test_init_force_replaces_the_store(mq: Any) -> None:
    assert mq("cmd", "ZMQSC DEF QL-GONE").exit_code == 0
    result = mq("init", "--force")
    assert result.exit_code == 0, result.output
    assert mq("cmd", "ZMQSC DEF QL-GONE").stdout.splitlines() == defined("GONE")


# -- the group -----------------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["--version"], capsys) == (0, f"mqtool, version {__version__}\n", "")


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_lists_every_subcommand(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    from mqtool.cli.main import SHORT_HELP, SUBCOMMANDS

    code, out, err = run_main([flag], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("Usage: mqtool [OPTIONS] COMMAND [ARGS]...\n")
    for option in ("--state DIRECTORY", "--system TEXT", "--clock ISO-TIME", "--version", "-h, --help"):
        assert option in out
    for name in SUBCOMMANDS:
        assert SHORT_HELP.get(name), f"{name} has no short help"
        assert f"  {name} " in out


@pytest.mark.parametrize("name", ["cmd", "run", "init"])
def test_subcommand_help_has_an_example(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main([name, "-h"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith(f"Usage: mqtool {name} ")
    assert "Examples:" in out and "  mqtool " in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bogus"], "No such option '--bogus'. (see 'mqtool --help')"),
        (["frob"], "No such command 'frob'. (see 'mqtool --help')"),
        (["run", "-x", "f.mqsc"], "No such option '-x'. (see 'mqtool run --help')"),
        (["--state"], "Option '--state' requires an argument."),
    ],
)
def test_usage_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(argv, capsys)
    assert (code, out) == (2, "")
    assert err == f"mqtool: error: {message}\n"


def test_unknown_system(mq: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["--state", str(mq.state_dir), "--system", "NOPE", "cmd", "ZMQSC DIS QMGR"], capsys)
    assert (code, out) == (2, "")
    assert err == "mqtool: error: no system named NOPE; systems: TPF1, CSQ1\n"


def test_system_option_and_environment(mq: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    result = mq("--system", "csq1", "cmd", ".echo x", "DIS BOGUS(X)")
    assert result.stdout.splitlines()[1] == "CSQ9001E -CSQ1 CSQ9SCND 'BOGUS' is invalid"
    monkeypatch.setenv("MQTOOL_SYSTEM", "CSQ1")
    result = mq("cmd", "DIS BOGUS(X)")
    assert result.stdout.splitlines()[0] == "CSQ9001E -CSQ1 CSQ9SCND 'BOGUS' is invalid"


def test_state_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mq: Any) -> None:
    from click.testing import CliRunner

    from mqtool.cli.main import main_group

    state = tmp_path / "from-env"
    monkeypatch.setenv("MQTOOL_STATE", str(state))
    result = CliRunner().invoke(main_group, ["--clock", "2021-03-09T15:41:22Z", "cmd", "ZMQSC DEF QL-ENV"])
    assert result.exit_code == 0, result.output
    assert (state / DB_NAME).exists()


def test_state_directory_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    code, out, err = run_main(["--state", str(blocker / "state"), "cmd", "ZMQSC DIS QMGR"], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith(f"mqtool: error: cannot create the state directory {blocker / 'state'}: ")
    assert err.count("\n") == 1
