"""`mqtool put`, `mqtool get` and `mqtool console` in process: exact output, exit codes,
payload sources and the z14 fallback through `mqtool system alter`."""

from __future__ import annotations

import json
from pathlib import Path

from mqtool.engine.payload import generate
from tests.conftest import MQ


def ack(number: int, queue: str, handle: int, count: int, length: int, stored: int | None = None, z: str = "") -> str:
    msgid = f"54504620545046514D20202020202020{handle:08X}{count:08X}"
    return (
        f"MQT0102I Message {number} put to {queue}: MSGID {msgid}, {length} bytes, "
        f"stored {length if stored is None else stored}{z}"
    )


def test_put_data_and_get_exact_output(mq: MQ) -> None:
    assert mq("cmd", "ZMQSC DEFINE QL-Q1").exit_code == 0
    result = mq("put", "q1", "--data", "hello", "--data", "world", "--persistent")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        ack(1, "Q1", 1, 1, 5),
        ack(2, "Q1", 1, 2, 5),
        "MQT0101I Put 2 messages to Q1: 10 bytes, stored 10; 0 compressed, 2 persistent",
    ]
    result = mq("get", "Q1", "--count", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout == "hello\nworld\n"
    assert result.stderr == "MQT0111I Got 2 messages from Q1\n"


def test_put_lines_from_stdin_and_whole(mq: MQ) -> None:
    mq("cmd", "ZMQSC DEFINE QL-Q1")
    result = mq("put", "Q1", "-q", input="one\r\ntwo\n\nthree")
    assert result.exit_code == 0, result.output
    assert result.stdout == "MQT0101I Put 4 messages to Q1: 11 bytes, stored 11; 0 compressed, 0 persistent\n"
    result = mq("put", "Q1", "--whole", "-q", input="a\nb\n")
    assert "Put 1 message to Q1: 4 bytes" in result.stdout
    result = mq("get", "Q1", "--all", "-q")
    assert result.exit_code == 0
    assert result.stdout == "one\ntwo\n\nthree\na\nb\n\n"


def test_put_generated_and_files(mq: MQ, tmp_path: Path) -> None:
    mq("cmd", "ZMQSC DEFINE QL-Q1 COMPSIZE-4000")
    result = mq("put", "Q1", "--pattern", "xml", "--size", "5000", "--count", "2", "--seed", "3", "-q")
    assert result.exit_code == 0, result.output
    assert "Put 2 messages to Q1: 10000 bytes" in result.stdout and "2 compressed" in result.stdout
    order = tmp_path / "order.xml"
    order.write_bytes(generate("json", 300))
    result = mq("put", "Q1", "--file", str(order), "--count", "2", "--priority", "3", "-q")
    assert "Put 2 messages to Q1: 600 bytes, stored 600; 0 compressed" in result.stdout
    out = tmp_path / "got"
    result = mq("get", "Q1", "--all", "--out", str(out))
    assert result.exit_code == 0 and result.stderr == "MQT0111I Got 4 messages from Q1\n"
    files = sorted(out.iterdir())
    contents = sorted(path.read_bytes() for path in files)
    expected = sorted([generate("xml", 5000, 3, 0), generate("xml", 5000, 3, 1)] + [generate("json", 300)] * 2)
    assert contents == expected
    assert all(path.name.endswith(".msg") and len(path.name) == 52 for path in files)


def test_get_exit_status_and_reasons(mq: MQ) -> None:
    mq("cmd", "ZMQSC DEFINE QL-Q1", "ZMQSC DEFINE QL-OFF PUT-DISABLED")
    result = mq("get", "Q1")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "MQT0111I Got 0 messages from Q1",
        "MQT0120E Get from Q1 failed: MQRC 2033 (MQRC_NO_MSG_AVAILABLE)",
    ]
    result = mq("get", "Q1", "--all")
    assert result.exit_code == 0 and result.stderr == "MQT0111I Got 0 messages from Q1\n"
    result = mq("put", "OFF", "--data", "x")
    assert result.exit_code == 1
    assert result.stderr == ("MQT0120E Put to OFF failed: MQRC 2051 (MQRC_PUT_INHIBITED): PUT-DISABLED on OFF\n")
    result = mq("put", "NOPE", "--data", "x")
    assert result.exit_code == 1 and "MQRC 2085 (MQRC_UNKNOWN_OBJECT_NAME)" in result.stderr


def test_get_count_all_is_what_the_get_directive_takes(mq: MQ) -> None:
    mq("cmd", "ZMQSC DEFINE QL-Q1")
    mq("put", "Q1", "--data", "a", "--data", "b", "--data", "c", "-q")
    assert mq("cmd", ".get Q1 count=all browse=yes").output.count("MQT0110I Browsed Q1") == 3
    result = mq("get", "Q1", "--browse", "--count", "all")
    assert (result.exit_code, result.stdout) == (0, "a\nb\nc\n")
    result = mq("get", "Q1", "--count", "ALL", "-q")
    assert (result.exit_code, result.stdout) == (0, "a\nb\nc\n")
    result = mq("get", "Q1", "--count", "all")  # an empty queue: with all, however many
    assert (result.exit_code, result.stderr) == (0, "MQT0111I Got 0 messages from Q1\n")
    for bad in ("0", "none", "-1", "9" * 40):
        refused = mq("get", "Q1", "--count", bad)
        assert refused.exit_code == 2 and ", or all" in refused.stderr


def test_bad_options_are_one_line_tool_errors(mq: MQ, tmp_path: Path) -> None:
    mq("cmd", "ZMQSC DEFINE QL-Q1")
    cases = [
        (["put", "Q1", "--data", "x", "--pattern", "xml"], "give a generated payload"),
        (["put", "Q1", "--count", "3"], "--count needs --pattern/--size, --file or --data"),
        (["put", "Q1", "--file", str(tmp_path / "missing")], "cannot read"),
        (["put", "Q1", "--data", "x", "--msgid", "X" * 30], "--msgid: 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' is longer"),
        (["put", "Q1", "--data", "x", "--expiry", "soon"], "--expiry: not a duration"),
        (["get", "Q1", "--count", "2", "--all"], "give --count or --all, not both"),
        (["put", "Q1", "--data", "x", "--whole"], "--whole applies to standard input only"),
    ]
    for args, text in cases:
        result = mq(*args)
        assert result.exit_code == 2, (args, result.output)
        # In process click says `Error:`; the entry point turns it into `mqtool: error:`.
        assert result.stderr.startswith("Error: ") and text in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1
    assert mq("get", "Q1", "--all", "-q").stdout == ""


def test_put_and_get_drive_a_zos_queue_manager_too(mq: MQ) -> None:
    result = mq("--system", "CSQ1", "put", "Q1", "--data", "x")
    assert result.exit_code == 1
    assert result.stderr == (
        "MQT0120E Put to Q1 failed: MQRC 2085 (MQRC_UNKNOWN_OBJECT_NAME): no queue named Q1\n"
        "MQT0153I Queue Q1 is not defined on CSQ1; define it first: mqtool cmd '-CSQ1 DEFINE QLOCAL(Q1)'\n"
    )
    mq("cmd", "-CSQ1 DEFINE QLOCAL(Q1)")
    assert mq("--system", "CSQ1", "put", "Q1", "--data", "x", "-q").exit_code == 0
    assert mq("--system", "CSQ1", "get", "Q1").stdout == "x\n"


def test_msgid_selection_and_browse(mq: MQ) -> None:
    mq("cmd", "ZMQSC DEFINE QL-Q1")
    mq("put", "Q1", "--data", "first", "--correlid", "C1")
    mq("put", "Q1", "--data", "second", "--msgid", "M2", "--correlid", "C2")
    assert mq("get", "Q1", "--browse", "--all").stdout == "first\nsecond\n"
    assert mq("get", "Q1", "--correlid", "C2", "--browse").stdout == "second\n"
    assert mq("get", "Q1", "--msgid", "4D32" + "00" * 22).stdout == "second\n"
    assert mq("get", "Q1", "--all").stdout == "first\n"


def test_z14_fallback_through_system_alter(mq: MQ) -> None:
    mq("cmd", "ZMQSC DEFINE QL-Q1 COMPSIZE-1000")
    payload = generate("xml", 3000)
    (mq.state_dir.parent / "p.xml").write_bytes(payload)
    result = mq("put", "Q1", "--file", str(mq.state_dir.parent / "p.xml"), "--count", "2", "-q")
    assert "2 compressed" in result.stdout
    assert mq("system", "alter", "TPF1", "--cpu", "z14").exit_code == 0
    out = mq.state_dir.parent / "out"
    result = mq("get", "Q1", "--all", "--out", str(out))
    assert result.exit_code == 0
    assert [path.read_bytes() for path in out.iterdir()] == [payload, payload]
    result = mq("put", "Q1", "--file", str(mq.state_dir.parent / "p.xml"), "-q")
    assert "0 compressed" in result.stdout  # no accelerator: COMPSIZE is ignored
    stat = mq("cmd", "ZMQSC DISPLAY QL-Q1 STAT").stdout
    assert "Compressed Msgs   - 2" in stat and "Decompressed Msgs - 2" in stat


def test_console_command_formats(mq: MQ) -> None:
    mq("cmd", "ZMQSC DEFINE QL-Q1 MAXDEPTH-4 QDEPTHHI-50")
    mq("put", "Q1", "--data", "a", "--data", "b", "-q")
    result = mq("console")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "LOCAL TIME           SYSTEM  MESSAGE",
        "2021-03-09 10:41:22  TPF1    MQSC0204W 10.41.22 QL-Q1 DEPTH 2 REACHED QDEPTHHI 50% OF MAXDEPTH 4",
    ]
    assert mq("console", "--format", "text").stdout == result.stdout  # the older name of table
    records = json.loads(mq("console", "--format", "json").stdout)
    assert records == [
        {
            "id": 1,
            "system": "TPF1",
            "time": "2021-03-09T15:41:22Z",
            "local": "2021-03-09 10:41:22",
            "text": "MQSC0204W 10.41.22 QL-Q1 DEPTH 2 REACHED QDEPTHHI 50% OF MAXDEPTH 4",
        }
    ]
    assert mq("console", "--system", "CSQ1").stdout == "LOCAL TIME  SYSTEM  MESSAGE\n"
    assert mq("console", "--system", "NOPE").exit_code == 2


def test_help_of_each_engine_command(mq: MQ) -> None:
    for name in ("put", "get", "serve", "console"):
        result = mq(name, "--help")
        assert result.exit_code == 0 and "Examples:" in result.stdout
