"""`mqtool system add|alter|remove|list`: every subcommand, and every error as one
`mqtool: error:` line that changes nothing."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import TYPE_CHECKING, Any

import pytest

from mqtool import complex as complex_module
from tests.conftest import drop_creation_notice

if TYPE_CHECKING:
    from conftest import MQ


def systems(mq: MQ) -> dict[str, dict[str, Any]]:
    result = mq("system", "list", "--format", "json")
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.output)}


def ok(mq: MQ, *args: str) -> str:
    result = mq(*args)
    assert result.exit_code == 0, result.output
    return result.output


def test_default_complex(mq: MQ) -> None:
    rows = systems(mq)
    assert list(rows) == ["TPF1", "CSQ1"]
    assert rows["TPF1"]["qmgr"] == "TPFQM" and rows["TPF1"]["current"] is True
    assert rows["TPF1"]["objects"] == 3  # the queue manager and its two system queues
    assert rows["CSQ1"]["cpf"] == "-CSQ1" and rows["CSQ1"]["accelerator"] is True


def test_add_ztpf_with_every_setting(mq: MQ) -> None:
    output = ok(
        mq,
        "system",
        "add",
        "tpf2",
        "--platform",
        "ztpf",
        "--cpu",
        "Z16",
        "--processor",
        "c",
        "--subsystem",
        "wp",
        "--subsystem-user",
        "ab1",
        "--istream",
        "2",
        "--offset",
        "+0100",
        "--swbsize",
        "4096",
        "--swbpool",
        "5000",
        "--sweephi",
        "70",
        "--sweeplo",
        "30",
        "--listener",
        "127.0.0.1(1416)",
        "--qmgr",
        "tpfqm2",
    )
    assert output == "Added system TPF2 (z/TPF, z16, queue manager TPFQM2).\n"
    settings = systems(mq)["TPF2"]["settings"]
    assert settings == {
        "cpu": "z16",
        "istream": 2,
        "listener": "127.0.0.1(1416)",
        "offset": "+01:00",
        "processor": "C",
        "ssu": "AB1",
        "subsystem": "WP",
        "swbpool": 5000,
        "swbsize": 4096,
        "sweephi": 70,
        "sweeplo": 30,
    }
    display = ok(mq, "--system", "TPF2", "cmd", "ZMQSC DIS QMGR")
    assert display.splitlines()[0] == "CSMP0097I 16.41.22 CPU-C SS-WP   SSU-AB1  IS-02"
    assert "QMGR TPFQM2" in display


def test_add_ztpf_without_a_queue_manager(mq: MQ) -> None:
    assert ok(mq, "system", "add", "LAB", "--platform", "ztpf") == "Added system LAB (z/TPF, z15, no queue manager).\n"
    result = mq("--system", "LAB", "cmd", "ZMQSC DEFINE QL-A")
    assert result.exit_code == 10
    assert "MQSC0010E 10.41.22 QUEUE MANAGER NOT DEFINED - ENTER ZMQSC DEFINE QMGR-name FIRST+" in result.output
    assert systems(mq)["LAB"]["objects"] == 0


def test_add_zos_with_log_and_archive(mq: MQ, monkeypatch: pytest.MonkeyPatch) -> None:
    # The archive keys are whatever the z/OS defaults hold at run time.
    archive = dict(complex_module.ZOS_DEFAULTS["archive"]) | {"ARCRETN": 9999, "ARCWTOR": "YES", "UNIT": "TAPE"}
    archive["MQTOOLX"] = 5
    monkeypatch.setitem(complex_module.ZOS_DEFAULTS, "archive", archive)
    output = ok(
        mq,
        "system",
        "add",
        "CSQ2",
        "--platform",
        "zos",
        "--cpu",
        "z17",
        "--statime",
        "5",
        "--log",
        "zhylink=yes",
        "--log",
        "OUTBUFF=400",
        "--archive",
        "ARCRETN=30",
        "--archive",
        "ARCWTOR=no",
        "--archive",
        "mqtoolx=7",
        "--archive",
        "unit=disk",
        "--listener",
        "localhost(1420)",
    )
    assert output == "Added system CSQ2 (z/OS, z17, CPF -CSQ2).\n"
    settings = systems(mq)["CSQ2"]["settings"]
    assert settings["cpf"] == "-CSQ2" and settings["statime"] == 5
    assert settings["log"]["ZHYLINK"] == "YES" and settings["log"]["OUTBUFF"] == 400
    assert settings["log"]["TWOACTV"] == "YES"  # defaults kept
    assert settings["archive"]["ARCRETN"] == 30
    assert settings["archive"]["ARCWTOR"] == "NO"
    assert settings["archive"]["MQTOOLX"] == 7  # a key the z/OS table does not know: typed by its default
    assert settings["archive"]["UNIT"] == "DISK"  # upper case, as an unquoted MQSC value


def test_add_zos_with_a_cpf(mq: MQ) -> None:
    ok(mq, "system", "add", "CSQ3", "--platform", "zos", "--cpf", "+csq3")
    assert systems(mq)["CSQ3"]["cpf"] == "+CSQ3"


def test_alter_cpu_rehearses_a_fallback(mq: MQ) -> None:
    output = ok(mq, "system", "alter", "tpf1", "--cpu", "z14")
    assert output == "Altered system TPF1: cpu z15 -> z14. zEDC accelerator: no (software fallback).\n"
    assert systems(mq)["TPF1"]["accelerator"] is False
    output = ok(mq, "system", "alter", "TPF1", "--cpu", "z15")
    assert output.endswith("zEDC accelerator: yes.\n")


def test_alter_settings_and_log(mq: MQ) -> None:
    output = ok(mq, "system", "alter", "TPF1", "--swbpool", "5000", "--sweephi", "70", "--sweeplo", "30")
    assert output == "Altered system TPF1: swbpool 33000 -> 5000; sweephi 80 -> 70; sweeplo 40 -> 30.\n"
    ok(mq, "system", "alter", "CSQ1", "--log", "ZHYWRITE=YES", "--statime", "0", "--listener", "127.0.0.1(1414)")
    settings = systems(mq)["CSQ1"]["settings"]
    assert settings["log"]["ZHYWRITE"] == "YES" and settings["statime"] == 0
    assert settings["log"]["OUTBUFF"] == 4000
    ok(mq, "system", "alter", "CSQ1", "--listener", "")
    assert systems(mq)["CSQ1"]["listener"] == ""


def test_alter_qmgr_defines_it_once(mq: MQ) -> None:
    ok(mq, "system", "add", "LAB", "--platform", "ztpf")
    assert ok(mq, "system", "alter", "LAB", "--qmgr", "LABQM") == "Altered system LAB: queue manager LABQM defined.\n"
    assert systems(mq)["LAB"]["objects"] == 3
    output = ok(mq, "system", "alter", "LAB", "--qmgr", "LABQM")
    assert output == "Altered system LAB: queue manager LABQM (already defined).\n"


def test_remove_takes_objects_and_messages(mq: MQ) -> None:
    ok(mq, "system", "add", "LAB", "--platform", "ztpf", "--qmgr", "QM")
    ok(mq, "--system", "LAB", "cmd", "ZMQSC DEF QL-A")
    from mqtool.state import Store
    from mqtool.state import messages as runs

    store = Store.open(mq.state_dir)
    with store.transaction() as tx:
        tx.conn.execute(
            "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, "
            "original_length, stored_length, payload) VALUES (?, 'LAB', 'A', 0, x'01', x'00', 1, 0, 1, 1, x'41')",
            (runs.next_id(tx.conn, "LAB", "A", 0),),
        )
        tx.set_meta("current_system", "LAB")
    store.close()
    assert ok(mq, "system", "remove", "lab", "--yes") == "Removed system LAB with 4 objects and 1 message.\n"
    rows = systems(mq)
    assert "LAB" not in rows
    assert rows["TPF1"]["current"] is True  # the first remaining system became current
    store = Store.open(mq.state_dir)
    with store.transaction(write=False) as tx:
        assert tx.conn.execute("SELECT count(*) FROM objects WHERE system = 'LAB'").fetchone()[0] == 0
        assert tx.conn.execute("SELECT count(*) FROM messages WHERE system = 'LAB'").fetchone()[0] == 0
    store.close()


def test_list_table_csv_and_json(mq: MQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    ok(mq, "system", "alter", "CSQ1", "--listener", "127.0.0.1(1414)")
    zos_objects = systems(mq)["CSQ1"]["objects"]  # the z/OS built-in objects
    table = ok(mq, "system", "list")
    assert table.splitlines() == [
        "   NAME  TYPE   CPU  ZEDC  QMGR   CPF    LISTENER         OBJECTS  MSGS",
        "*  TPF1  z/TPF  z15  yes   TPFQM  -      -                      3     0",
        f"   CSQ1  z/OS   z15  yes   CSQ1   -CSQ1  127.0.0.1(1414)  {zos_objects:>7}     0",
        f"Store: {(mq.state_dir / 'mqtool.db').absolute()}",
    ]
    assert "\x1b[" not in table
    rows = list(csv.reader(io.StringIO(ok(mq, "system", "list", "--format", "csv"))))
    assert rows[0] == [
        "name",
        "platform",
        "current",
        "cpu",
        "accelerator",
        "qmgr",
        "cpf",
        "offset",
        "listener",
        "objects",
        "messages",
    ]
    assert rows[1] == ["TPF1", "ztpf", "yes", "z15", "yes", "TPFQM", "", "-05:00", "", "3", "0"]
    first = ok(mq, "system", "list", "--format", "JSON")
    assert first == ok(mq, "system", "list", "--format", "json")  # deterministic
    assert json.loads(first)[1]["settings"]["log"]["COMPLOG"] == "NONE"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("no_color", ["1", ""])
def test_table_on_a_terminal_honours_no_color(mq: MQ, monkeypatch: pytest.MonkeyPatch, no_color: str) -> None:
    from mqtool.cli.system import COLUMNS, TABLE
    from mqtool.listing import emit

    monkeypatch.setenv("NO_COLOR", no_color)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    screen = Terminal()
    records = json.loads(ok(mq, "system", "list", "--format", "json"))
    emit(records, "table", TABLE, COLUMNS, stream=screen)
    text = screen.getvalue()
    assert "TPFQM" in text and "─" in text  # the rule under the headings
    plain = re.sub("\x1b\\[[0-9;]*m", "", text)
    assert max(len(line) for line in plain.splitlines()) <= 80
    assert "…" not in plain
    cyan = re.search("\x1b\\[[0-9;]*36m", text) is not None
    assert cyan is (not no_color)  # cyan headings only with colour


def test_help_texts_have_examples(mq: MQ) -> None:
    for command in ("add", "alter", "remove", "list"):
        output = ok(mq, "system", command, "--help")
        assert "Examples:" in output and f"mqtool system {command}" in output
    assert "Examples:" in ok(mq, "system", "--help")


ERRORS: list[tuple[tuple[str, ...], str]] = [
    (("add", "TPF2"), "--platform is required: ztpf or zos"),
    (("add", "TPF2", "--platform", "vm"), "'vm' is not one of 'ztpf', 'zos'"),
    (("add", "tpf1", "--platform", "ztpf"), "a system named TPF1 already exists"),
    (("add", "9TPF", "--platform", "ztpf"), "'9TPF' is not a valid z/TPF system name"),
    (("add", "TOOLONGNAME", "--platform", "ztpf"), "is not a valid z/TPF system name"),
    (("add", "CSQ12", "--platform", "zos"), "is not a valid z/OS system name: a subsystem id"),
    (("add", "T2", "--platform", "ztpf", "--cpu", "z12"), "--cpu: 'z12' is not valid: z13, z14, z15, z16, z17"),
    (("add", "T2", "--platform", "ztpf", "--processor", "AB"), "--processor: 'AB' is not valid: 1 letter or digit"),
    (("add", "T2", "--platform", "ztpf", "--processor", "$"), "--processor: '$' is not valid"),
    (("add", "T2", "--platform", "ztpf", "--subsystem", "ABCDE"), "--subsystem: 'ABCDE' is not valid: 1-4"),
    (("add", "T2", "--platform", "ztpf", "--ssu", "1AB"), "--ssu: '1AB' is not valid"),
    (("add", "T2", "--platform", "ztpf", "--istream", "0"), "--istream: '0' is not valid: 1-99"),
    (("add", "T2", "--platform", "ztpf", "--istream", "100"), "--istream: '100' is not valid: 1-99"),
    (("add", "T2", "--platform", "ztpf", "--istream", "two"), "--istream: 'two' is not valid: a whole number 1-99"),
    (("add", "T2", "--platform", "ztpf", "--offset", "EST"), "--offset: not a UTC offset: 'EST'"),
    (("add", "T2", "--platform", "ztpf", "--offset", "+25:00"), "--offset: not a UTC offset"),
    (("add", "T2", "--platform", "ztpf", "--swbsize", "127"), "--swbsize: '127' is not valid: 128-65536"),
    (("add", "T2", "--platform", "ztpf", "--swbsize", "65537"), "--swbsize: '65537' is not valid: 128-65536"),
    (("add", "T2", "--platform", "ztpf", "--swbpool", "0"), "--swbpool: '0' is not valid: 1-100000000"),
    (("add", "T2", "--platform", "ztpf", "--sweephi", "101"), "--sweephi: '101' is not valid: 1-100"),
    (("add", "T2", "--platform", "ztpf", "--sweeplo", "-1"), "--sweeplo: '-1' is not valid: a whole number 0-99"),
    (("add", "T2", "--platform", "ztpf", "--sweeplo", "80"), "sweeplo 80 must be below sweephi 80"),
    (
        ("add", "T2", "--platform", "ztpf", "--listener", "a b(1414)"),
        "--listener: 'a b' is not a host name or IP address",
    ),
    (
        ("add", "T2", "--platform", "ztpf", "--listener", "h(x)"),
        "--listener: 'h(x)' has no port 0-65535 in its parentheses",
    ),
    (("add", "T2", "--platform", "ztpf", "--listener", "h(1),h(1)"), "'h(1),h(1)' names an address twice"),
    (
        ("add", "T2", "--platform", "ztpf", "--listener", "h(65536)"),
        "--listener: 'h(65536)' has no port 0-65535 in its parentheses",
    ),
    (("add", "T2", "--platform", "ztpf", "--qmgr", "ALL"), "--qmgr: 'ALL' is not a queue manager name"),
    (("add", "T2", "--platform", "ztpf", "--qmgr", "A B"), "--qmgr: 'A B' is not a queue manager name"),
    (("add", "T2", "--platform", "ztpf", "--cpf", "-T2"), "--cpf: applies to z/OS systems only, not to z/TPF"),
    (("add", "T2", "--platform", "ztpf", "--statime", "5"), "--statime: applies to z/OS systems only"),
    (("add", "T2", "--platform", "ztpf", "--log", "OUTBUFF=400"), "--log: applies to z/OS systems only"),
    (("add", "T2", "--platform", "ztpf", "--archive", "X=1"), "--archive: applies to z/OS systems only"),
    (("add", "C2", "--platform", "zos", "--swbsize", "4096"), "--swbsize: applies to z/TPF systems only, not to z/OS"),
    (("add", "C2", "--platform", "zos", "--qmgr", "Q"), "--qmgr: applies to z/TPF systems only"),
    (("add", "C2", "--platform", "zos", "--cpf", ".C2"), "--cpf: '.C2' is not a command prefix"),
    (("add", "C2", "--platform", "zos", "--cpf", "*C2"), "--cpf: '*C2' is not a command prefix"),
    (("add", "C2", "--platform", "zos", "--cpf", "-C2345678"), "--cpf: '-C2345678' is not a command prefix"),
    (("add", "C2", "--platform", "zos", "--cpf", "-C 2"), "--cpf: '-C 2' is not a command prefix"),
    (("add", "C2", "--platform", "zos", "--cpf", "-CSQ"), "cpf -CSQ clashes with -CSQ1 of system CSQ1"),
    (("add", "C2", "--platform", "zos", "--cpf", "-CSQ12"), "cpf -CSQ12 clashes with -CSQ1 of system CSQ1"),
    (("add", "C2", "--platform", "zos", "--cpf", "-csq1"), "cpf -CSQ1 clashes with -CSQ1"),
    (("add", "C2", "--platform", "zos", "--statime", "1441"), "--statime: '1441' is not valid: 0-1440"),
    (("add", "C2", "--platform", "zos", "--log", "OUTBUFF"), "--log: 'OUTBUFF' is not KEY=VALUE"),
    (("add", "C2", "--platform", "zos", "--log", "=5"), "--log: '=5' is not KEY=VALUE"),
    (("add", "C2", "--platform", "zos", "--log", "NOSUCH=1"), "--log: unknown log parameter NOSUCH; parameters:"),
    (("add", "C2", "--platform", "zos", "--log", "OUTBUFF=39"), "--log: OUTBUFF=39 is not valid: 40-4000"),
    (("add", "C2", "--platform", "zos", "--log", "OUTBUFF=4001"), "--log: OUTBUFF=4001 is not valid: 40-4000"),
    (("add", "C2", "--platform", "zos", "--log", "INBUFF=x"), "--log: INBUFF=x is not valid: a whole number 28-60"),
    (("add", "C2", "--platform", "zos", "--log", "TWOACTV=maybe"), "--log: TWOACTV=maybe is not valid: YES, NO"),
    (("add", "C2", "--platform", "zos", "--log", "COMPLOG=ZIP"), "--log: COMPLOG=ZIP is not valid: NONE, RLE, ANY"),
    (("add", "C2", "--platform", "zos", "--log", "MAXARCH=20", "--log", "maxarch=30"), "--log: MAXARCH given twice"),
    (("add", "C2", "--platform", "zos", "--archive", "NOSUCHKEY=1"), "--archive: unknown archive parameter NOSUCHKEY"),
    (("add", "C2", "--platform", "zos", "--listener", "127.0.0.1(1416)", "--cpf", "+C2"), ""),
    (("alter", "NOPE", "--cpu", "z14"), "no system named NOPE; systems: TPF1, CSQ1"),
    (("alter", "TPF1"), "nothing to alter: give at least one setting"),
    (("alter", "TPF1", "--cpu", "z18"), "--cpu: 'z18' is not valid: z13"),
    (("alter", "TPF1", "--qmgr", "OTHER"), "system TPF1 already has queue manager TPFQM"),
    (("alter", "TPF1", "--sweephi", "40"), "sweeplo 40 must be below sweephi 40"),
    (("alter", "TPF1", "--cpf", "-T"), "--cpf: applies to z/OS systems only"),
    (("alter", "CSQ1", "--processor", "A"), "--processor: applies to z/TPF systems only"),
    (("alter", "CSQ1", "--log", "MAXRTU=100"), "--log: MAXRTU=100 is not valid: 1-99"),
    (("remove", "NOPE"), "no system named NOPE"),
    (("remove", "CSQ1"), "system remove CSQ1 would delete it with 32 objects and 0 messages: give --yes to confirm"),
    (("list", "--format", "xml"), "'xml' is not one of 'table', 'json', 'csv'"),
]


def tool(mq: MQ, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Runs the real entry point (which turns every failure into one line)."""
    from mqtool.cli.main import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["--state", str(mq.state_dir), "--clock", "2021-03-09T15:41:22Z", *args])
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, drop_creation_notice(captured.err)


@pytest.mark.parametrize(("args", "message"), ERRORS, ids=[" ".join(e[0]) for e in ERRORS])
def test_errors_are_one_line_and_change_nothing(
    mq: MQ, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    ok(mq, "system", "alter", "TPF1", "--listener", "127.0.0.1(1416)")
    before = ok(mq, "system", "list", "--format", "json")
    code, out, err = tool(mq, capsys, "system", *args)
    if not message:
        # A listener used twice: that system's address is taken.
        message = "listener 127.0.0.1(1416) is already a listener of system TPF1"
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("mqtool: error: "), err
    assert message in err
    assert ok(mq, "system", "list", "--format", "json") == before


def test_remove_refuses_the_last_system(mq: MQ, capsys: pytest.CaptureFixture[str]) -> None:
    ok(mq, "system", "remove", "CSQ1", "--yes")
    code, out, err = tool(mq, capsys, "system", "remove", "TPF1", "--yes")
    assert (code, out) == (2, "")
    assert err == "mqtool: error: TPF1 is the last system of the complex and cannot be removed\n"
    assert list(systems(mq)) == ["TPF1"]


@pytest.mark.parametrize(("answer", "code", "removed"), [("y\n", 0, True), ("n\n", 1, False), ("\n", 1, False)])
def test_remove_asks_on_a_terminal(
    mq: MQ, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], answer: str, code: int, removed: bool
) -> None:
    import io

    from mqtool.cli import system as cli_system

    monkeypatch.setattr(cli_system, "_interactive", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO(answer))
    result, out, err = tool(mq, capsys, "system", "remove", "CSQ1")
    assert result == code
    assert err.startswith("Remove system CSQ1 with 32 objects and 0 messages? [y/N]: ")
    if removed:
        assert out == "Removed system CSQ1 with 32 objects and 0 messages.\n"
    else:
        # (A terminal echoes the answer and its newline; this input is not echoed.)
        assert out == "" and err.endswith("[y/N]: mqtool: system CSQ1 not removed\n")
    assert ("CSQ1" in systems(mq)) is not removed


def test_alter_prints_only_what_changed(mq: MQ) -> None:
    output = ok(mq, "system", "alter", "CSQ1", "--log", "ZHYLINK=YES")
    assert output == "Altered system CSQ1: log ZHYLINK NO -> YES.\n"
    output = ok(
        mq, "system", "alter", "CSQ1", "--log", "ZHYLINK=YES", "--log", "OUTBUFF=400", "--archive", "ARCWRTC=1,2"
    )
    assert output == "Altered system CSQ1: log OUTBUFF 4000 -> 400; archive ARCWRTC 1,3,4 -> 1,2.\n"
    assert ok(mq, "system", "alter", "CSQ1", "--statime", "1") == "Altered system CSQ1: nothing changed.\n"


def test_listeners_may_share_port_0_but_not_overlap(mq: MQ, capsys: pytest.CaptureFixture[str]) -> None:
    """PORT 0 gets its own port on each system; * covers every host of its port."""
    ok(mq, "system", "alter", "TPF1", "--listener", "127.0.0.1(0),*(1500)")
    ok(mq, "system", "alter", "CSQ1", "--listener", "127.0.0.1(0)")
    code, _, err = tool(mq, capsys, "system", "alter", "CSQ1", "--listener", "10.0.0.1(1500)")
    assert code == 2 and "listener 10.0.0.1(1500) is already a listener of system TPF1" in err
