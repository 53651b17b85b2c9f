"""What a newcomer meets first at the command line: bounded input, hints that name the
next step, help printed as help, confirmations, where the store is, closed pipes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mqtool.parse.lines import MAX_COMMAND
from tests.conftest import drop_creation_notice, drop_creation_notice_bytes

TOO_LONG = f"MQT0012E Command is longer than {MAX_COMMAND} characters with its continuation lines; it was not run"


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The real entry point, which turns every error into one line, in process."""
    from mqtool.cli.main import main

    with pytest.raises(SystemExit) as leaving:
        main(argv)
    captured = capsys.readouterr()
    return int(leaving.value.code or 0), captured.out, captured.err


# -- bounded command lines -------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_run_dev_zero_is_a_clear_error(mq: Any) -> None:
    result = mq("run", "/dev/zero")
    assert result.exit_code == 20
    assert result.stdout == ""
    assert result.stderr == (
        f"mqtool: error: cannot read /dev/zero: line 1 is longer than {MAX_COMMAND} characters, "
        "the longest command mqtool reads\n"
    )


def test_cmd_and_shell_stdin_stop_at_an_endless_line(mq: Any) -> None:
    text = "ZMQSC DIS QMGR\n" + "X" * (MAX_COMMAND + 10)
    for argv in (["cmd", "-"], ["shell"], ["run", "-"]):
        result = mq(*argv, input=text)
        assert result.exit_code == 20, argv
        assert result.stderr.endswith(
            f"line 2 is longer than {MAX_COMMAND} characters, the longest command mqtool reads\n"
        )


def test_a_too_long_command_is_refused_and_the_run_goes_on(mq: Any, tmp_path: Path) -> None:
    script = tmp_path / "long.mqsc"
    chunk = "X" * 20000
    script.write_text(f"ZMQSC DEF QL-A DESCR-'{chunk}+\n{chunk}'\nZMQSC DEF QL-B\n", encoding="utf-8")
    result = mq("run", str(script))
    assert result.exit_code == 10
    lines = result.stdout.splitlines()
    assert TOO_LONG in lines
    assert "One command has a syntax error." in lines
    assert "MQSC0001I 10.41.22 DEFINE QL-B COMPLETED+" in lines
    result = mq("cmd", "ZMQSC DIS QL-" + "A" * MAX_COMMAND)
    assert (result.exit_code, result.stdout) == (10, TOO_LONG + "\n")


# -- numbers are ASCII digits ----------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ZMQSC ALTER QL-X MAXDEPTH-٣", "MQSC0014E 10.41.22 VALUE ٣ NOT VALID FOR MAXDEPTH - ALLOWED 0-999999999+"),
        ("ZMQSC DEF QL-Y MAXDEPTH-３", "MQSC0014E 10.41.22 VALUE ３ NOT VALID FOR MAXDEPTH - ALLOWED 0-999999999+"),
        (
            "-CSQ1 DEFINE QLOCAL(Y) MAXDEPTH(٣)",
            "CSQ9030E -CSQ1 CSQ9SCND 'MAXDEPTH' value '٣' is invalid, allowed: 0-999999999",
        ),
        ("-CSQ1 DISPLAY USAGE PSID(٣)", "CSQ9030E -CSQ1 CSQ9SCND 'PSID' value '٣' is invalid, allowed: * or 0-99"),
        (
            ".advance ٣s",
            "MQT0003E Directive .advance: not a duration: '٣s'; give a number with a unit, ms, s, m, h or d, "
            "in one word (5s, 2m, 1h, 250ms; a bare number is seconds)",
        ),
    ],
)
def test_numbers_in_commands_are_ascii_digits_only(mq: Any, command: str, expected: str) -> None:
    mq("cmd", "ZMQSC DEF QL-X")
    result = mq("cmd", command)
    assert result.exit_code == 10
    assert expected in result.stdout.splitlines()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--swbpool", "٣"], "--swbpool: '٣' is not valid: a whole number 1-100000000"),
        (["--offset", "+٠١:00"], "--offset: not a UTC offset: '+٠١:00' (example: -05:00)"),
        (["--listener", "127.0.0.1(١٤١٤)"], "--listener: '127.0.0.1(١٤١٤)' has no port 0-65535 in its parentheses"),
    ],
)
def test_system_settings_are_ascii_digits_only(
    state_dir: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run_main(["--state", str(state_dir), "system", "alter", "TPF1", *argv], capsys)
    assert code == 2
    assert drop_creation_notice(err).startswith(f"mqtool: error: {message}")
    code, _, err = run_main(["--state", str(state_dir), "system", "alter", "CSQ1", "--log", "OUTBUFF=٤٠٠"], capsys)
    assert (code, err) == (2, "mqtool: error: --log: OUTBUFF=٤٠٠ is not valid: a whole number 40-4000\n")


# -- the current z/OS system (SPEC section 3) --------------------------------------------


def test_set_log_typed_on_tpf1_goes_to_the_only_zos_system(mq: Any) -> None:
    result = mq("cmd", "SET LOG ZHYLINK(YES)", "DIS LOG")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "CSQ9022I -CSQ1 CSQJC001 ' SET LOG' NORMAL COMPLETION" in lines
    assert "ZHYLINK      NO                        YES" in lines


# -- the STAT display as the seed shows it ---------------------------------------------


def test_stat_sizes_are_stored_sizes_and_the_table_keeps_its_tabs(mq: Any) -> None:
    import sqlite3

    from mqtool.engine.ztpf.stats import readable_size
    from mqtool.state.store import DB_NAME

    result = mq(
        "cmd",
        "ZMQSC DEFINE QL-PAYQ COMPSIZE-1000",
        ".put PAYQ count=20 size=32000 pattern=xml persistent=yes",
        ".put PAYQ count=3 size=2000 pattern=text persistent=no",
    )
    assert result.exit_code == 0, result.output
    conn = sqlite3.connect(mq.state_dir / DB_NAME)
    try:
        stored = dict(
            conn.execute(
                "SELECT persistent, sum(stored_length) FROM messages WHERE queue = 'PAYQ' GROUP BY persistent"
            ).fetchall()
        )
    finally:
        conn.close()
    assert stored[1] < 20 * 32000 // 2  # compressed: the original size would be 625 kilobytes
    lines = mq("cmd", "ZMQSC DISPLAY QL-PAYQ STAT").stdout.splitlines()
    assert f"Persistent Msgs    - 20 ({readable_size(stored[1])})" in lines
    assert f"NonPersist Msgs   - 3 ({readable_size(stored[0])})" in lines
    # The seed's bytes: tabs between the columns of the Count Rate RateHigh rows.
    assert "\tCount\tRate\tRateHigh" in lines
    assert "Get\t- 0\t0\t0" in lines
    assert "Swept Search\t- 0\t0\t0" in lines


def test_clock_frozen_at_the_seeds_tod_shows_it_exactly(mq: Any) -> None:
    result = mq(
        "cmd",
        ".httpconf SEEDTOD PORT-0",
        "ZHTPS START SERVER-SEEDTOD",
        "ZHTPS STATS S-SEEDTOD",
        clock="D962CAAA5BAAD838",
    )
    assert result.exit_code == 0, result.output
    assert "LAST STATS RESET TOD - D962CAAA5BAAD838 (2021-03-09 10:41:22)" in result.stdout.splitlines()
    assert "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01" in result.stdout.splitlines()


# -- the console is upper case, help text has no Python in it ----------------------------


def test_no_keywords_is_said_in_the_consoles_capitals(mq: Any) -> None:
    result = mq("cmd", "ZMQSC START QMGR FOO")
    assert "MQSC0013E 10.41.22 KEYWORD FOO NOT VALID FOR QMGR - VALID KEYWORDS ARE NONE+" in result.stdout.splitlines()


def test_help_shows_list_defaults_as_a_command_writes_them(mq: Any) -> None:
    from mqtool import tables

    lines = mq("cmd", ".help ZMQSC DEFINE").stdout.splitlines()
    compmsg = next(line for line in lines if line.strip().startswith("COMPMSG"))
    assert "[NONE]:" in compmsg
    dialects = (("ZMQSC", "ztpf_mq"), ("ZHTPS", "ztpf_http"), ("MQSC", "zos"))
    topics = [f".help {word} {verb}" for word, dialect in dialects for verb in tables.load(dialect).verbs]
    text = mq("cmd", *topics).stdout
    assert "['" not in text and "[[" not in text


# -- errors that name the next step ------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "ZMQSC DEFINE QLOCAL(PAYQ)",
            [
                "MQSC0027E 10.41.22 QLOCAL(PAYQ) NOT IN KEYWORD-VALUE FORM",
                "MQSC0041E 10.41.22 ZMQSC WRITES QLOCAL(PAYQ) AS QL-PAYQ - FOR Z/OS ENTER DEFINE QLOCAL(PAYQ)+",
            ],
        ),
        (
            "ZMQSC DEFINE QL-A MAXDEPTH(5)",
            [
                "MQSC0027E 10.41.22 MAXDEPTH(5) NOT IN KEYWORD-VALUE FORM",
                "MQSC0041E 10.41.22 ZMQSC WRITES MAXDEPTH(5) AS MAXDEPTH-5+",
            ],
        ),
        ("-CSQ9 DIS QMGR", ["MQT0013E Unknown command prefix '-CSQ9': the CPFs of the complex are -CSQ1"]),
        ("DISPLY QLOCAL(X)", ["MQT0014E Unknown command 'DISPLY': did you mean DISPLAY?"]),
        ("ZMQCS DIS QMGR", ["MQT0014E Unknown command 'ZMQCS': did you mean ZMQSC?"]),
        ("HELLO", ["MQT0001E Unknown command 'HELLO': not ZMQSC, ZMQID, ZHTPS, a CPF or an MQSC verb"]),
        ("ZMQSC DISPLY QL-X", ["MQSC0040E 10.41.22 DISPLY NOT RECOGNIZED - DID YOU MEAN DISPLAY+"]),
        ("ZMQSC DEFINE CHLL-X", ["MQSC0040E 10.41.22 CHLL NOT RECOGNIZED - DID YOU MEAN CHL+"]),
        ("ZMQSC DEFINE QL-X MAXDPTH-3", ["MQSC0040E 10.41.22 MAXDPTH NOT RECOGNIZED - DID YOU MEAN MAXDEPTH+"]),
        (
            "-CSQ1 DISPLY QLOCAL(X)",
            [
                "CSQ9001E -CSQ1 CSQ9SCND 'DISPLY' is invalid",
                "MQT0015I -CSQ1 CSQ9SCND Did you mean 'DISPLAY'?",
                "CSQ9023E -CSQ1 CSQ9SCND ' DISPLY QLOCAL' ABNORMAL COMPLETION",
            ],
        ),
        ("-CSQ1 DIS QLOCL(X)", ["MQT0015I -CSQ1 CSQ9SCND Did you mean 'QLOCAL'?"]),
        ("-CSQ1 DEFINE QLOCAL(X) MAXDPTH(3)", ["MQT0015I -CSQ1 CSQ9SCND Did you mean 'MAXDEPTH'?"]),
        ("ZHTPS STRAT SERVER-X", ["MQT0016I 10.41.22 STRAT NOT RECOGNIZED - DID YOU MEAN START+"]),
        ("ZHTPS START SERVRE-X", ["MQT0016I 10.41.22 SERVRE NOT RECOGNIZED - DID YOU MEAN SERVER+"]),
    ],
)
def test_errors_name_the_next_step(mq: Any, command: str, expected: list[str]) -> None:
    result = mq("cmd", command)
    assert result.exit_code == 10
    lines = result.stdout.splitlines()
    start = lines.index(expected[0])
    assert lines[start : start + len(expected)] == expected


def test_no_suggestion_for_a_known_word_in_the_wrong_place_or_a_guess(mq: Any) -> None:
    text = mq("cmd", "ZMQSC CLEAR QA-A", "ZMQSC DEFINE QX-A", "-CSQ1 DIS QX(A)").stdout
    assert "DID YOU MEAN" not in text and "Did you mean" not in text


def test_suggest_is_one_slip_and_unambiguous() -> None:
    from mqtool.tables import suggest

    assert suggest("STRAT", ["START", "STATS", "STOP"]) == "START"  # two letters swapped
    assert suggest("DEFNE", ["DEFINE", "DEF"]) == "DEFINE"
    assert suggest("QX", ["QL", "QA", "QR"]) == ""  # which one?
    assert suggest("DIS", ["DEL", "DISPLAY"]) == ""
    assert suggest("MAXDEPHT", ["MAXDEPTH", "MAXMSGL"]) == "MAXDEPTH"
    assert suggest("DISPLAY", ["DISPLAY"]) == ""  # nothing to correct


# -- a newcomer's first commands ---------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "quoted"),
    [
        (["ZMQSC", "DIS", "QMGR"], "'ZMQSC DIS QMGR'"),
        (["-CSQ1", "DIS", "QMGR"], "'-CSQ1 DIS QMGR'"),
        (["DIS", "QLOCAL('a", "b')"], "\"DIS QLOCAL('a b')\""),
        (["ZHTPS", "DISPLAY", "ALL"], "'ZHTPS DISPLAY ALL'"),
    ],
)
def test_cmd_with_an_unquoted_command_prints_one_hint(
    state_dir: Path, capsys: pytest.CaptureFixture[str], argv: list[str], quoted: str
) -> None:
    code, out, err = run_main(["--state", str(state_dir), "cmd", *argv], capsys)
    assert (code, out) == (2, "")
    assert err == f"mqtool: error: each argument is one whole command: quote it, e.g. mqtool cmd {quoted}\n"
    assert not state_dir.exists()  # nothing ran


def test_cmd_with_several_quoted_commands_is_no_mistake(mq: Any) -> None:
    assert mq("cmd", "ZMQSC DIS QMGR", "-CSQ1 DIS QMGR").exit_code == 0
    assert mq("cmd", ".echo a", "END").stdout == "a\n"
    assert mq("cmd", "-", "DIS QMGR QMNAME", input=".echo from stdin\n").stdout.startswith("from stdin\nCSQM201I")


@pytest.mark.parametrize("argv", [[], ["system"], ["http"]])
def test_a_group_without_a_command_prints_its_help_as_help(
    state_dir: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = run_main(argv, capsys)
    assert (code, err) == (0, "")
    assert out.startswith(f"Usage: mqtool {' '.join(argv)}".rstrip() + " [OPTIONS] COMMAND [ARGS]...\n")
    assert not out.rstrip().endswith("--help')")  # no hint glued to the last line


def test_help_ends_with_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.delenv("MQTOOL_STATE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    _, out, _ = run_main(["--help"], capsys)
    assert out.rstrip().splitlines()[-1] == f"Store: {tmp_path / 'data' / 'mqtool' / 'mqtool.db'}"
    _, out, _ = run_main(["--state", str(tmp_path / "lab"), "--help"], capsys)
    assert out.rstrip().splitlines()[-1] == f"Store: {tmp_path / 'lab' / 'mqtool.db'}"
    monkeypatch.setenv("MQTOOL_STATE", str(tmp_path / "env"))
    _, out, _ = run_main(["--help"], capsys)
    assert out.rstrip().splitlines()[-1] == f"Store: {tmp_path / 'env' / 'mqtool.db'}"


def test_creating_the_default_store_says_where_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    monkeypatch.delenv("MQTOOL_STATE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = tmp_path / "data" / "mqtool" / "mqtool.db"
    code, out, err = run_main(["cmd", ".echo hello"], capsys)
    assert (code, out) == (0, "hello\n")
    assert err == (
        f"mqtool: created the store {store} with the default complex (TPF1, CSQ1); "
        "--state DIR or MQTOOL_STATE chooses another\n"
    )
    assert run_main(["cmd", ".echo again"], capsys) == (0, "again\n", "")  # it exists now


def test_a_new_store_in_a_named_directory_is_told_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # mqtool --state ./lba (a typo for ./lab) makes a new complex: it says so, on standard
    # error, so that standard output (a transcript) stays the same wherever it runs.
    lab = tmp_path / "lba"
    assert run_main(["--state", str(lab), "cmd", ".echo lab"], capsys) == (
        0,
        "lab\n",
        f"mqtool: created a new store {lab / 'mqtool.db'} with the default complex (TPF1, CSQ1): none was there\n",
    )
    assert run_main(["--state", str(lab), "cmd", ".echo again"], capsys) == (0, "again\n", "")
    # an existing empty directory (mktemp -d) gets its store and the line alike
    (tmp_path / "empty").mkdir()
    _, _, err = run_main(["--state", str(tmp_path / "empty"), "cmd", ".echo x"], capsys)
    assert err.startswith("mqtool: created a new store ")
    # a command that opens no store creates none and says nothing
    assert run_main(["--state", str(tmp_path / "none"), "cmd", "--help"], capsys)[2] == ""
    assert not (tmp_path / "none").exists()


# -- the list commands: one table style, table|json|csv --------------------------------


@pytest.mark.parametrize("argv", [["system", "list"], ["http", "list"], ["console"]])
def test_list_commands_share_their_formats(mq: Any, argv: list[str]) -> None:
    import csv
    import io
    import json

    mq("cmd", "ZMQSC DEFINE QL-Q1 MAXDEPTH-4 QDEPTHHI-50", ".httpconf WEB1 PORT-8081")
    mq("put", "Q1", "--data", "a", "--data", "b", "-q")
    records = json.loads(mq(*argv, "--format", "json").stdout)
    assert isinstance(records, list) and records and all(isinstance(r, dict) for r in records)
    rows = list(csv.reader(io.StringIO(mq(*argv, "--format", "CSV").stdout)))
    assert len(rows) == len(records) + 1 and all(name in records[0] for name in rows[0])
    table = mq(*argv).stdout.splitlines()  # plain columns off a terminal: headings, then rows
    assert table[0] == table[0].upper() and len(table) >= len(records) + 1 and "\x1b[" not in "".join(table)
    result = mq(*argv, "--format", "xml")
    assert result.exit_code == 2 and "'xml' is not one of 'table', 'json', 'csv'" in result.output


# -- a closed pipe -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["cmd", "ZMQSC DIS QMGR"],
        ["run", "-"],
        ["shell"],
        ["system", "list"],
        ["console"],
        ["--help"],
        [],
        ["system", "list", "--help"],
    ],
)
def test_a_closed_pipe_ends_any_command_quietly_with_141(tmp_path: Path, argv: list[str]) -> None:
    import os
    import subprocess
    import sys

    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: EPIPE every time
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    env["MQTOOL_STATE"] = str(tmp_path / "state")  # bare `mqtool` is no option at all
    try:
        result = subprocess.run(
            [sys.executable, "-m", "mqtool", *argv],
            input=b"ZMQSC DIS QMGR\n.echo more\n",
            stdout=write,
            stderr=subprocess.PIPE,
            env=env,
            timeout=60,
        )
    finally:
        os.close(write)
    assert (result.returncode, drop_creation_notice_bytes(result.stderr)) == (141, b"")
