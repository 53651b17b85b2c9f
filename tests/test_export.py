"""`mqtool export`: replaying the commands format recreates the configuration (z/TPF and
z/OS), the YAML format describes the complex deterministically, and errors are one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from mqtool.cli.main import main_group
from mqtool.commands.ztpf_mq.export import quote
from tests.conftest import drop_creation_notice

FROZEN = "2021-03-09T15:41:22Z"

ZTPF_SETUP = [
    # The queue manager: lower MAXMSGL (its system queues first), other defaults changed.
    "ZMQSC ALTER QL-DEAD.LETTER.QUEUE MAXMSGL-2000000 DESCR-'Dead letters; keep (30 days)'",
    "ZMQSC ALTER QL-SPECIAL.RECOVERY.QUEUE MAXMSGL-3000000",
    "ZMQSC ALTER QMGR MAXMSGL-3000000 BATCHSZ-80 CCSID-500 DESCR-'It''s the TPF queue manager'",
    "ZMQSC DEFINE QL-BEFORE.COMPSIZE",
    "ZMQSC ALTER QMGR COMPSIZE-16000",
    "ZMQSC DEFINE QL-PAY.IN MAXDEPTH-5000 QDEPTHHI-80 DEFPSIST-YES PUT-DISABLED GET-DISABLED SWEEP-NO "
    "DESCR-'payments, in -'",
    "ZMQSC DEFINE QL-PAY.SHARED COMMON-YES COMPSIZE-0 MAXMSGL-100 DESCR-'ends with +'",
    "ZMQSC DEFINE QL-TO.CSQ1 USAGE-XMITQ COMPSIZE-10000",
    "ZMQSC DEFINE QL-'lower.case%q' DESCR-'a;b'",
    "ZMQSC DEFINE QL-MY.DLQ",
    "ZMQSC DEFINE QR-PAY.REMOTE RNAME-'Payments' RQMNAME-CSQ1 XMITQ-TO.CSQ1 DEFPSIST-YES",
    "ZMQSC DEFINE QR-PAY.DEFAULT RNAME-PAYMENTS RQMNAME-CSQ1",
    "ZMQSC DEFINE QA-ALIAS.LOCAL TARGQ-PAY.IN GET-DISABLED",
    "ZMQSC DEFINE QA-ALIAS.REMOTE TARGQ-PAY.REMOTE DEFPSIST-YES DESCR-'to CSQ1'",
    "ZMQSC DEFINE CHL-TPF1.TO.CSQ1 CHLTYPE-SDR CONNAME-'127.0.0.1(1414)' XMITQ-TO.CSQ1 COMPMSG-ZLIBHIGH,ZLIBFAST",
    "ZMQSC DEFINE CHL-CSQ1.TO.TPF1 CHLTYPE-RCVR COMPMSG-ANY BATCHSZ-20",
    "ZMQSC DEFINE CHL-CLIENTS CHLTYPE-SVRCONN COMPMSG-ZLIBFAST MAXMSGL-1000 DESCR-'Clients'",
    "ZMQSC ALTER QMGR DEADQ-MY.DLQ",
]
DISPLAYS = ["ZMQSC DIS QMGR", "ZMQSC DIS QL-*", "ZMQSC DIS QA-*", "ZMQSC DIS QR-*", "ZMQSC DIS CHL-*"]


def invoke(state: Path, *args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(
        main_group, ["--state", str(state), "--clock", FROZEN, *args], input=input, catch_exceptions=False
    )


def ok(state: Path, *args: str) -> str:
    result = invoke(state, *args)
    assert result.exit_code == 0, result.output
    return str(result.stdout)


def objects(state: Path, system: str) -> list[tuple[str, str, dict[str, Any]]]:
    from mqtool.state import Store

    store = Store.open(state)
    with store.transaction(write=False) as tx:
        found = [(r.type, r.name, r.attrs) for r in tx.objects(system)]
    store.close()
    return found


def displays(state: Path, system: str) -> str:
    return ok(state, "--system", system, "cmd", *DISPLAYS)


def replay(state: Path, text: str, *args: str) -> str:
    script = state.parent / f"replay-{state.name}.mqsc"
    script.write_text(text, encoding="utf-8")
    result = invoke(state, *args, "run", str(script))
    assert result.exit_code == 0, result.output
    assert "All valid MQSC commands were processed." in result.output
    return str(result.output)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    state = tmp_path / "source"
    ok(state, "cmd", *ZTPF_SETUP)
    return state


def test_ztpf_commands_replay_into_a_new_store(source: Path, tmp_path: Path) -> None:
    text = ok(source, "export")
    target = tmp_path / "target"
    replay(target, text)
    assert objects(target, "TPF1") == objects(source, "TPF1")
    assert displays(target, "TPF1") == displays(source, "TPF1")


def test_ztpf_commands_replay_into_a_new_system(source: Path) -> None:
    text = ok(source, "export")
    ok(source, "system", "add", "LAB", "--platform", "ztpf", "--qmgr", "TPFQM")
    replay(source, text, "--system", "LAB")
    assert objects(source, "LAB") == objects(source, "TPF1")


def test_ztpf_all_attributes_replay_the_same(source: Path, tmp_path: Path) -> None:
    text = ok(source, "export", "-a")
    assert "COMMON-NO" in text and "SWEEP-YES" in text
    target = tmp_path / "target"
    replay(target, text)
    assert objects(target, "TPF1") == objects(source, "TPF1")


def test_ztpf_commands_text(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ok(
        state,
        "cmd",
        "ZMQSC ALTER QMGR COMPSIZE-16000 DESCR-'Main'",
        "ZMQSC DEF QL-XQ USAGE-XMITQ",
        "ZMQSC DEF QL-'low' DESCR-'it''s (here), -'",
        "ZMQSC DEF QA-A TARGQ-'low'",
        "ZMQSC DEF CHL-OUT CHLTYPE-SDR CONNAME-'host(1414)' XMITQ-XQ COMPMSG-ZLIBFAST,ZLIBHIGH",
    )
    ok(state, "system", "alter", "TPF1", "--cpu", "z14", "--listener", "127.0.0.1(1415)")
    assert ok(state, "export").splitlines() == [
        "* Written by mqtool 0.1.0 (mqtool export --format commands --system TPF1); replay with mqtool run FILE.",
        "* Systems: TPF1 (the current system) only. Not in this file: CSQ1; mqtool export --all writes the whole "
        "complex.",
        "*",
        "* System TPF1: z/TPF, CPU z14.",
        "* Its settings and queue manager, when the system does not exist yet:",
        "*   mqtool system add TPF1 --platform ztpf --cpu z14 --listener '127.0.0.1(1415)' --qmgr TPFQM",
        "* Replay into a z/TPF system whose queue manager has no other definitions yet.",
        "ZMQSC ALTER QMGR COMPSIZE-16000 DESCR-'Main'",
        "ZMQSC DEFINE QL-XQ COMPSIZE-16000 USAGE-XMITQ MAXMSGL-4194304",
        "ZMQSC DEFINE QL-'low' COMPSIZE-16000 MAXMSGL-4194304 DESCR-'it''s (here), -'",
        "ZMQSC DEFINE QA-A TARGQ-'low'",
        "ZMQSC DEFINE CHL-OUT CHLTYPE-SDR CONNAME-'host(1414)' XMITQ-XQ BATCHSZ-50 COMPMSG-ZLIBFAST,ZLIBHIGH "
        "MAXMSGL-4194304",
    ]


def test_ztpf_system_without_a_queue_manager(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ok(state, "system", "add", "BARE", "--platform", "ztpf")
    text = ok(state, "export", "--system", "bare")
    assert text.splitlines()[-1] == "* The system has no queue manager, so it has no definitions."


ZOS_SETUP = [
    "-CSQ1 DEFINE QLOCAL(ORDERS) MAXDEPTH(5000) DESCR('Orders, (in)')",
    "-CSQ1 DEFINE QLOCAL(TO.TPF1) USAGE(XMITQ)",
    "-CSQ1 DEFINE CHANNEL(CSQ1.TO.TPF1) CHLTYPE(SDR) CONNAME('127.0.0.1(1415)') XMITQ(TO.TPF1) COMPMSG(ZLIBFAST)",
    "-CSQ1 ALTER QMGR DESCR('z/OS queue manager')",
]


def test_zos_commands_replay_into_a_new_store(tmp_path: Path) -> None:
    source = tmp_path / "source"
    ok(source, "cmd", *ZOS_SETUP)
    text = ok(source, "export", "--system", "CSQ1")
    assert "-CSQ1 DEFINE QLOCAL(ORDERS)" in text
    target = tmp_path / "target"
    replay(target, text)
    assert objects(target, "CSQ1") == objects(source, "CSQ1")


def test_zos_all_attributes_says_what_it_writes(tmp_path: Path) -> None:
    text = ok(tmp_path / "state", "export", "--system", "CSQ1", "-a")
    # The z/OS export takes all_attributes: every attribute, of built-in objects too.
    assert any(line.startswith("-CSQ1 ALTER QMGR DESCR('') DEADQ(SYSTEM.DEAD.QUEUE)") for line in text.splitlines())


def test_all_systems_replay_into_a_new_store(source: Path, tmp_path: Path) -> None:
    ok(source, "cmd", *ZOS_SETUP)
    text = ok(source, "export", "--all")
    assert ".system TPF1" in text.splitlines() and ".system CSQ1" in text.splitlines()
    target = tmp_path / "target"
    replay(target, text)
    for system in ("TPF1", "CSQ1"):
        assert objects(target, system) == objects(source, system)


def test_export_is_deterministic_and_has_no_time_stamp(source: Path) -> None:
    first = ok(source, "export", "--all")
    later = invoke(source, "export", "--all").output
    assert first == later
    result = CliRunner().invoke(
        main_group, ["--state", str(source), "--clock", "2030-01-01T00:00:00Z", "export", "--all"]
    )
    assert result.output == first


def test_yaml_describes_systems_and_objects(source: Path) -> None:
    text = ok(source, "export", "--format", "yaml", "--all")
    assert text.startswith("# mqtool complex:")
    document = yaml.safe_load(text)
    assert document["kind"] == "mqtool-complex" and document["version"] == 1
    tpf = document["systems"]["TPF1"]
    assert tpf["platform"] == "ztpf"
    assert tpf["settings"]["qmgr"] == "TPFQM" and tpf["settings"]["swbsize"] == 1024
    assert tpf["settings"]["offset"] == "-05:00"
    assert tpf["objects"]["QMGR"]["TPFQM"] == {
        "BATCHSZ": 80,
        "CCSID": 500,
        "COMPSIZE": 16000,
        "DEADQ": "MY.DLQ",
        "DESCR": "It's the TPF queue manager",
        "MAXMSGL": 3000000,
    }
    # inherited attributes are always written; others only when not the default
    assert tpf["objects"]["QL"]["BEFORE.COMPSIZE"] == {"COMPSIZE": 0, "MAXMSGL": 3000000}
    assert tpf["objects"]["QL"]["lower.case%q"]["DESCR"] == "a;b"
    assert tpf["objects"]["CHL"]["TPF1.TO.CSQ1"]["COMPMSG"] == ["ZLIBHIGH", "ZLIBFAST"]
    assert tpf["objects"]["QR"]["PAY.DEFAULT"] == {"RNAME": "PAYMENTS", "RQMNAME": "CSQ1"}
    zos = document["systems"]["CSQ1"]
    assert zos["platform"] == "zos" and zos["settings"]["cpf"] == "-CSQ1"
    assert zos["settings"]["log"]["OUTBUFF"] == 4000
    assert "QMGR" in zos["objects"]
    # sorted keys, so the text is stable
    assert list(document) == sorted(document)
    assert list(tpf["objects"]["QL"]) == sorted(tpf["objects"]["QL"])


def test_yaml_all_attributes(source: Path) -> None:
    document = yaml.safe_load(ok(source, "export", "--format", "yaml", "-a"))
    queue = document["systems"]["TPF1"]["objects"]["QL"]["BEFORE.COMPSIZE"]
    assert set(queue) == {
        "COMPSIZE",
        "COMMON",
        "USAGE",
        "MAXDEPTH",
        "MAXMSGL",
        "PUT",
        "GET",
        "DEFPSIST",
        "QDEPTHHI",
        "SWEEP",
        "DESCR",
        "TRIGTYPE",
        "PROCESS",
    }
    assert queue["COMMON"] == "NO"  # a string, not a YAML boolean


def test_yaml_to_a_file(source: Path, tmp_path: Path) -> None:
    path = tmp_path / "complex.yaml"
    assert ok(source, "export", "--format", "yaml", "-o", str(path)) == ""
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["systems"].keys() == {"TPF1"}


def test_current_system_is_the_default_and_the_export_says_so(source: Path) -> None:
    named = invoke(source, "--system", "CSQ1", "export")
    assert "* System CSQ1: z/OS" in named.stdout and "Not in this file: TPF1" in named.stdout
    assert named.stderr == ""  # the user chose the system
    implicit = invoke(source, "export")
    assert "* System TPF1: z/TPF" in implicit.stdout
    assert "* Systems: TPF1 (the current system) only. Not in this file: CSQ1;" in implicit.stdout
    assert implicit.stderr == (
        "mqtool: exported TPF1 (the current system) only; the complex also has CSQ1 (mqtool export --all "
        "writes every system)\n"
    )
    whole = invoke(source, "export", "--format", "yaml", "--all")
    assert whole.stderr == "" and "Not in this file" not in whole.stdout
    assert "# Systems: TPF1 (the current system) only." in invoke(source, "export", "--format", "yaml").stdout


def tool(state: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from mqtool.cli.main import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["--state", str(state), "--clock", FROZEN, *args])
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, drop_creation_notice(captured.err)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("export", "--all", "--system", "TPF1"), "mqtool: error: --all and --system exclude each other\n"),
        (("export", "--system", "NOPE"), "mqtool: error: no system named NOPE; systems: TPF1, CSQ1\n"),
        (("export", "--format", "xml"), "mqtool: error: Invalid value for '--format': 'xml' is not one of"),
        (("export", "-o", "/nonexistent/dir/out.mqsc"), "mqtool: error: cannot write /nonexistent/dir/out.mqsc"),
    ],
)
def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str) -> None:
    code, out, err = tool(tmp_path / "state", capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err


def test_zos_export_missing_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mqtool.commands.zos.export", None)
    code, out, err = tool(tmp_path / "state", capsys, "export", "--system", "CSQ1")
    assert (code, out) == (2, "")
    assert err == (
        "mqtool: error: system CSQ1: this mqtool cannot write z/OS definitions as commands yet "
        "(mqtool.commands.zos.export is missing); use --format yaml\n"
    )


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("PAY.IN", "PAY.IN"),
        ("A/B_C%D", "A/B_C%D"),
        ("lower", "'lower'"),
        ("TWO WORDS", "'TWO WORDS'"),
        ("HOST(1414)", "'HOST(1414)'"),
        ("A,B", "'A,B'"),
        ("IT'S", "'IT''S'"),
        ("ENDS-", "'ENDS-'"),
        ("ENDS+", "'ENDS+'"),
        ("A;B", "'A;B'"),
        ("", "''"),
    ],
)
def test_quote(value: str, written: str) -> None:
    assert quote(value) == written


def test_help_has_examples(tmp_path: Path) -> None:
    text = ok(tmp_path / "state", "export", "--help")
    assert "Examples:" in text and "mqtool export --format yaml --all" in text
    assert json.dumps(text)  # printable
