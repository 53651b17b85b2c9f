"""Gets under syncpoint and where their messages go: delivered before the removal
commits (and after it with --no-syncpoint), `--out DIR` exactly once (a message
delivered again keeps its one file; messages sharing a message id each get theirs),
binary payloads kept off a terminal, and the put/get options of issue 8 (`--system`
after the subcommand, `--size` with units, MAXMSGL checked before a payload is made or
read, the DEFINE hint after MQRC 2085, the summary of an interrupted put)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool import workload
from mqtool.cli import engine as cli_engine
from mqtool.cli.delivery import FolderSink, is_text
from mqtool.cli.runner import run_lines
from mqtool.engine.core import streams as queue_module
from mqtool.engine.core.message import Message, format_id
from mqtool.engine.core.streams import get_stream
from mqtool.state import Store
from tests.conftest import FROZEN, MQ
from tests.test_engine_queue import Engine


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = Engine(tmp_path / "state")
    made.cmd("ZMQSC DEFINE QL-Q1")
    yield made
    made.store.close()


def depth_seen_elsewhere(engine: Engine) -> int:
    """The depth of Q1 as another process sees it (committed changes only)."""
    other = Store.open(engine.store.path.parent)
    try:
        with other.transaction(write=False) as tx:
            return int(tx.conn.execute("SELECT depth FROM queue_figures WHERE queue = 'Q1'").fetchone()[0])
    finally:
        other.close()


@pytest.mark.parametrize("persistent", [True, False])
def test_a_message_is_delivered_before_its_removal_commits(
    engine: Engine, persistent: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A batch also ends after HOLD_SECONDS of delivery: not here, however slow the machine.
    monkeypatch.setattr(queue_module, "HOLD_SECONDS", 3600.0)
    engine.put("Q1", b"a", b"b", b"c", persistent=persistent)
    seen: list[tuple[bytes, int]] = []
    flushed: list[int] = []

    def deliver(message: Message) -> None:
        seen.append((message.payload, depth_seen_elsewhere(engine)))

    result = get_stream(engine.handle("Q1"), deliver, None, flush=lambda: flushed.append(len(seen)))
    assert result.count == 3
    if persistent:  # one commit each: the others see it go after its delivery
        assert seen == [(b"a", 3), (b"b", 2), (b"c", 1)] and flushed == [1, 2, 3]
    else:  # one batch, flushed once, then committed
        assert seen == [(b"a", 3), (b"b", 3), (b"c", 3)] and flushed == [3]
    assert depth_seen_elsewhere(engine) == 0


def test_without_syncpoint_the_removal_commits_first(engine: Engine) -> None:
    engine.put("Q1", b"a", b"b", persistent=True)
    seen: list[int] = []
    get_stream(
        engine.handle("Q1"),
        lambda m: seen.append(depth_seen_elsewhere(engine)),
        None,
        syncpoint=False,
    )
    assert seen == [1, 0]


def test_a_failed_delivery_keeps_the_message_and_what_came_before_is_got(engine: Engine) -> None:
    engine.put("Q1", *[f"m{n}".encode() for n in range(5)])
    delivered: list[bytes] = []

    def deliver(message: Message) -> None:
        if message.payload == b"m3":
            raise OSError(28, "No space left on device")
        delivered.append(message.payload)

    with pytest.raises(OSError):
        get_stream(engine.handle("Q1"), deliver, None)
    assert delivered == [b"m0", b"m1", b"m2"]
    got: list[bytes] = []
    get_stream(engine.handle("Q1"), lambda m: got.append(m.payload), None)
    assert got == [b"m3", b"m4"]
    with engine.store.transaction(write=False) as tx:
        gets, opens, closes = tx.conn.execute(
            "SELECT t_gets, opens, closes FROM queue_stats WHERE queue = 'Q1'"
        ).fetchone()
    assert (gets, opens, closes) == (5, 3, 3)


def test_a_message_delivered_again_after_a_kill_keeps_its_one_file(engine: Engine, tmp_path: Path) -> None:
    """The kill comes after the file is written and before the get commits: the next get
    delivers the same message again, into the same file."""
    ids = [result.msgid for result in engine.put("Q1", b"first", b"second", persistent=True)]
    folder = tmp_path / "got"
    folder.mkdir()
    sink = FolderSink(folder, engine.store.path)

    class Killed(BaseException):
        pass

    def deliver_then_die(message: Message) -> None:
        sink.deliver(message)
        raise Killed  # as if the process ended here: nothing after the write ran

    with pytest.raises(Killed):
        get_stream(engine.handle("Q1"), deliver_then_die, 1, flush=sink.flush, committed=sink.committed)
    first = f"{format_id(ids[0])}.msg"
    marker, name = sorted(os.listdir(folder))  # the marker (a hidden name) is the same file
    assert name == first and marker.startswith(f".{format_id(ids[0])}.") and marker.endswith(".got")
    assert (folder / marker).stat().st_ino == (folder / first).stat().st_ino
    inode = (folder / first).stat().st_ino
    result = get_stream(engine.handle("Q1"), sink.deliver, None, flush=sink.flush, committed=sink.committed)
    assert result.count == 2
    assert sorted(os.listdir(folder)) == sorted([first, f"{format_id(ids[1])}.msg"])  # markers gone
    assert (folder / first).read_bytes() == b"first" and (folder / first).stat().st_ino == inode


def test_messages_sharing_a_message_id_each_get_a_file(mq: MQ, tmp_path: Path) -> None:
    assert mq("cmd", "ZMQSC DEFINE QL-Q1").exit_code == 0
    mq("put", "Q1", "--data", "one", "--data", "two", "--data", "one", "--msgid", "ORDER42", "-q")
    out = tmp_path / "got"
    result = mq("get", "Q1", "--all", "--out", str(out))
    assert result.exit_code == 0 and result.stderr == "MQT0111I Got 3 messages from Q1\n"
    name = format_id(b"ORDER42".ljust(24, b"\0"))
    assert {path.name: path.read_bytes() for path in out.iterdir()} == {
        f"{name}.msg": b"one",
        f"{name}.1.msg": b"two",
        f"{name}.2.msg": b"one",
    }


# -- standard output on a terminal ------------------------------------------------------


class Terminal:
    def isatty(self) -> bool:
        return True


BINARY = bytes(range(256))


def test_binary_payloads_are_not_written_to_a_terminal(mq: MQ, monkeypatch: pytest.MonkeyPatch) -> None:
    assert mq("cmd", "ZMQSC DEFINE QL-Q1").exit_code == 0
    data = Path(mq.state_dir).parent / "binary"
    data.write_bytes(BINARY)
    for source in (["--data", "text first"], ["--file", str(data)], ["--file", str(data)], ["--data", "text after"]):
        assert mq("put", "Q1", *source, "-q").exit_code == 0
    monkeypatch.setattr(cli_engine, "_stdout", Terminal)
    msgid = "54504620545046514D2020202020202000000002"  # the second put's handle
    browse = mq("get", "Q1", "--browse", "--count", "2")
    assert browse.exit_code == 0 and browse.stdout == "text first\n"
    assert browse.stderr.splitlines() == [
        f"MQT0151I Message 2 of Q1: MSGID {msgid}00000001, 256 bytes of binary data, not shown on the terminal "
        "(redirect standard output, or use --out DIR or --raw)",
        "MQT0111I Browsed 2 messages from Q1",
    ]
    got = mq("get", "Q1", "--all")
    assert got.exit_code == 1 and got.stdout == "text first\n"
    assert got.stderr.splitlines() == [
        "MQT0111I Got 1 message from Q1",
        f"MQT0150E Message 2 of Q1: MSGID {msgid}00000001, 256 bytes of binary data, not written to the terminal; "
        "it stays on the queue (redirect standard output, or use --out DIR or --raw)",
    ]
    raw = mq("get", "Q1", "--raw")
    assert raw.exit_code == 0 and raw.stdout_bytes == BINARY + b"\n"
    monkeypatch.undo()
    assert mq("get", "Q1", "--all").stdout_bytes == BINARY + b"\ntext after\n"  # redirected: written


def test_what_counts_as_text() -> None:
    assert is_text(b"order 42\tpaid\r\n") and is_text("caf\u00e9".encode()) and is_text(b"")
    assert not is_text(b"\x1b[2J") and not is_text(b"\xff\xfe") and not is_text(b"a\0b")


# -- put and get options ---------------------------------------------------------------


def test_system_after_the_subcommand(mq: MQ) -> None:
    assert mq("cmd", "ZMQSC DEFINE QL-Q1").exit_code == 0
    assert mq("put", "Q1", "--system", "tpf1", "--data", "x", "-q").exit_code == 0
    assert mq("get", "Q1", "--system", "TPF1").stdout == "x\n"
    result = mq("get", "Q1", "--system", "CSQ1")  # CSQ1 has no Q1: its own refusal
    assert result.exit_code == 1 and "MQRC 2085 (MQRC_UNKNOWN_OBJECT_NAME)" in result.stderr
    result = mq("put", "Q1", "--system", "NOPE", "--data", "x")
    assert result.exit_code == 2 and "no system named NOPE; systems: TPF1, CSQ1" in result.stderr


def test_size_takes_units(mq: MQ) -> None:
    assert mq("cmd", "ZMQSC DEFINE QL-Q1").exit_code == 0
    result = mq("put", "Q1", "--size", "4KB", "--count", "2", "-q")
    assert result.stdout == "MQT0101I Put 2 messages to Q1: 8192 bytes, stored 8192; 0 compressed, 0 persistent\n"
    result = mq("put", "Q1", "--size", "4 parsecs")
    assert result.exit_code == 2 and "unknown unit 'parsecs'" in result.stderr
    lines = mq("cmd", ".put Q1 size=1KiB count=2", ".put Q1 size=lots").stdout.splitlines()
    assert lines == [
        "MQT0101I Put 2 messages to Q1: 2048 bytes, stored 2048; 0 compressed, 0 persistent",
        "MQT0003E Directive .put: size=lots: not a size: 'lots' (a number of bytes, or with a unit: 32KB, 4MB, 1MiB)",
    ]


def test_lengths_are_checked_before_a_payload_is_made_or_read(
    mq: MQ, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert mq("cmd", "ZMQSC DEFINE QL-Q1 MAXMSGL-1000", "ZMQSC DEFINE QL-BIG MAXMSGL-4194304").exit_code == 0

    def never(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("a payload was made or read")

    monkeypatch.setattr(workload.payload_module, "generate", never)
    monkeypatch.setattr(workload, "read_file", never)
    result = mq("put", "Q1", "--size", "99999999999")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "MQT0120E Put to Q1 failed: MQRC 2030 (MQRC_MSG_TOO_BIG_FOR_Q): 99999999999 bytes, MAXMSGL of Q1 is 1000\n"
    )
    huge = tmp_path / "huge.bin"
    with open(huge, "wb") as handle:
        handle.truncate(50 * 1024**3)  # sparse: reading it would take 50 GB
    result = mq("put", "BIG", "--file", str(huge))
    assert result.exit_code == 1
    assert result.stderr == (
        "MQT0120E Put to BIG failed: MQRC 2030 (MQRC_MSG_TOO_BIG_FOR_Q): 53687091200 bytes, MAXMSGL of BIG is 4194304\n"
    )
    lines = mq("cmd", ".put Q1 size=2KB").stdout.splitlines()
    assert lines == ["MQT0120E Put to Q1 failed: MQRC 2030 (MQRC_MSG_TOO_BIG_FOR_Q): 2048 bytes, MAXMSGL of Q1 is 1000"]
    monkeypatch.undo()
    result = mq("put", "Q1", "--whole", input="x" * 5000)
    assert result.exit_code == 1 and "MQRC 2030" in result.stderr and "5000 bytes" not in result.stderr
    assert mq("get", "Q1", "--all", "-q").stdout == ""


def test_an_unknown_queue_suggests_its_define(mq: MQ) -> None:
    for args, action in ((["put", "TPFQ", "--data", "x"], "Put to"), (["get", "TPFQ"], "Get from")):
        result = mq(*args)
        assert result.exit_code == 1
        assert result.stderr.splitlines()[-2:] == [
            f"MQT0120E {action} TPFQ failed: MQRC 2085 (MQRC_UNKNOWN_OBJECT_NAME): no queue named TPFQ",
            "MQT0153I Queue TPFQ is not defined on TPF1; define it first: mqtool cmd 'ZMQSC DEFINE QL-TPFQ'",
        ]


def interrupt_after(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    """Payload generation raises KeyboardInterrupt (Ctrl-C) after `count` payloads."""
    real = workload.PayloadSpec.payloads

    def payloads(self: workload.PayloadSpec) -> Iterator[bytes]:
        for number, payload in enumerate(real(self)):
            if number == count:
                raise KeyboardInterrupt
            yield payload

    monkeypatch.setattr(workload.PayloadSpec, "payloads", payloads)


def test_an_interrupted_put_says_what_was_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mqtool.cli.main import main

    state = tmp_path / "state"
    base = ["--state", str(state), "--clock", FROZEN]
    with pytest.raises(SystemExit):
        main([*base, "cmd", "ZMQSC DEFINE QL-Q1"])
    interrupt_after(monkeypatch, 2500)
    with pytest.raises(SystemExit) as leaving:
        main([*base, "put", "Q1", "--count", "100000", "--size", "100", "--non-persistent", "-q"])
    assert leaving.value.code == 130
    captured = capsys.readouterr()
    # Batches of 1000 commit; the one in progress when Ctrl-C came did not.
    assert captured.out.endswith(
        "MQT0152W Put 2000 of 100000 messages to Q1: 200000 bytes, stored 200000; 0 compressed, "
        "0 persistent; interrupted\n"
    )
    assert captured.err.endswith("mqtool: error: interrupted\n")
    monkeypatch.undo()
    with pytest.raises(SystemExit):
        main([*base, "cmd", "ZMQSC DISPLAY QL-Q1 STAT"])
    display = capsys.readouterr().out.splitlines()
    assert "Current Depth      - 2000" in display
    assert "Num of MQOPEN     - 1" in display and "Num of MQCLOSE    - 1" in display


def test_an_interrupted_put_directive_says_what_was_committed(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    interrupt_after(monkeypatch, 1500)
    printed: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        run_lines(engine.session, [".put Q1 count=5000 size=10", ".echo not reached"], printed.append)
    assert printed == [
        "     1 : .put Q1 count=5000 size=10",
        "MQT0152W Put 1000 of 5000 messages to Q1: 10000 bytes, stored 10000; 0 compressed, 0 persistent; interrupted",
    ]


def test_get_directive_prints_each_message_before_its_get_commits(engine: Engine) -> None:
    engine.put("Q1", b"alpha", b"beta", persistent=True)
    printed: list[tuple[str, int]] = []
    run_lines(
        engine.session,
        [".get Q1 count=all"],
        lambda line: printed.append((line, depth_seen_elsewhere(engine))),
    )
    msgid = "54504620545046514D2020202020202000000001"
    assert printed == [
        ("     1 : .get Q1 count=all", 2),
        (f"MQT0110I Got Q1 message 1: MSGID {msgid}00000001, 5 bytes, persistent, priority 0, data 'alpha'", 2),
        (f"MQT0110I Got Q1 message 2: MSGID {msgid}00000002, 4 bytes, persistent, priority 0, data 'beta'", 1),
        ("MQT0112I No more messages on Q1: MQRC 2033 (MQRC_NO_MSG_AVAILABLE)", 0),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["put", "get"])
def test_the_help_examples_work_in_a_new_store(tmp_path: Path, command: str) -> None:
    """The Examples block of `mqtool put --help` and `mqtool get --help`, then those of
    the man page's own EXAMPLES section, pasted into a shell in an empty folder with a
    new store, in order: every line succeeds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    env["MQTOOL_STATE"] = str(tmp_path / "state")
    mqtool = f"{shlex.quote(sys.executable)} -m mqtool"
    text = subprocess.run(
        [sys.executable, "-m", "mqtool", command, "--help"], capture_output=True, text=True, env=env, check=True
    ).stdout
    examples = [line.strip() for line in text.split("Examples:\n", 1)[1].split("\n\n")[0].splitlines()]
    assert len(examples) >= 4
    extra = (Path(__file__).parents[1] / "man" / "extra" / f"mqtool-{command}.1.troff").read_text(encoding="utf-8")
    if ".SH EXAMPLES" in extra:
        block = extra.split(".SH EXAMPLES", 1)[1].split(".SH ", 1)[0].split(".nf\n", 1)[1].split(".fi", 1)[0]
        examples += [line.replace("\\-", "-").replace("\\(aq", "'") for line in block.splitlines()]
    for line in examples:
        done = subprocess.run(
            ["bash", "-c", f'mqtool() {{ {mqtool} "$@"; }}\nset -o pipefail\n{line}'],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 0, (line, done.stdout, done.stderr)
