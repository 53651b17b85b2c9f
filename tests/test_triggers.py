"""Triggering on z/OS (engine/core/triggers.py, mqtm.py): the MQTM bytes field by field,
the MQTMC2, the conditions the golden transcripts do not show, and the trigger
monitor (mqtool/cli/trigger.py): its syncpoint, a whole process running a Python
script as APPLICID, and kill -9."""

from __future__ import annotations

import json
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_engine_queue import Engine
from test_engine_reliability import mqtool, run

from mqtool.engine.core import mqtm
from mqtool.engine.core.message import PutOptions
from mqtool.engine.core.opens import live_handles

SETUP = (
    "DEFINE PROCESS(P1) APPLICID('/opt/app/run') APPLTYPE(UNIX) ENVRDATA('env data') USERDATA('user data')",
    "DEFINE QLOCAL(INITQ)",
    "DEFINE QLOCAL(APP) TRIGGER TRIGTYPE(EVERY) PROCESS(P1) INITQ(INITQ) TRIGDATA('trigger data')",
)


class Zos(Engine):
    def __init__(self, state_dir: Path) -> None:
        super().__init__(state_dir, "CSQ1")

    def monitor(self) -> Any:
        """A handle holding the initiation queue open for input, as a trigger monitor does."""
        handle = self.handle("INITQ")
        with self.store.transaction() as tx:
            handle.open(tx, "get")
        return handle

    def depth(self, queue: str) -> int:
        with self.store.transaction(write=False) as tx:
            row = tx.conn.execute("SELECT depth FROM queue_figures WHERE system = 'CSQ1' AND queue = ?", (queue,))
            return int(row.fetchone()[0])

    def stored(self, queue: str) -> list[tuple[bytes, str, int, int]]:
        """(payload, header, persistent, priority) of each message on a queue, from the store."""
        with self.store.transaction(write=False) as tx:
            rows = tx.conn.execute(
                "SELECT payload, header, persistent, priority FROM messages WHERE system = 'CSQ1' AND queue = ? "
                "ORDER BY id",
                (queue,),
            ).fetchall()
        return [(bytes(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]


@pytest.fixture
def zos(tmp_path: Path) -> Zos:
    engine = Zos(tmp_path / "state")
    engine.cmd(*SETUP)
    return engine


def test_the_mqtm_bytes_field_by_field(zos: Zos) -> None:
    zos.monitor()
    zos.put("APP", b"work", persistent=True, priority=5)
    [(payload, header, persistent, priority)] = zos.stored("INITQ")
    assert json.loads(header) == {"ccsid": 500, "encoding": 785, "format": "MQTRIG  "}
    assert persistent == 0 and priority == 0  # non-persistent, the initiation queue's DEFPRTY
    assert len(payload) == 684

    def text(start: int, length: int) -> str:
        return payload[start : start + length].decode("cp500")

    assert text(0, 4) == "TM  "  # StrucId, EBCDIC
    assert struct.unpack(">i", payload[4:8]) == (1,)  # Version, big-endian MQLONG
    assert text(8, 48) == "APP".ljust(48)  # QName
    assert text(56, 48) == "P1".ljust(48)  # ProcessName
    assert text(104, 64) == "trigger data".ljust(64)  # TriggerData
    assert struct.unpack(">i", payload[168:172]) == (6,)  # ApplType: MQAT_UNIX
    assert text(172, 256) == "/opt/app/run".ljust(256)  # ApplId
    assert text(428, 128) == "env data".ljust(128)  # EnvData
    assert text(556, 128) == "user data".ljust(128)  # UserData
    assert mqtm.unpack(payload) == mqtm.TriggerMessage(
        "APP", "P1", "trigger data", 6, "/opt/app/run", "env data", "user data"
    )


def test_the_character_form_is_mqtmc2() -> None:
    message = mqtm.TriggerMessage("APP", "P1", "td", 65536, "prog", "env", "user")
    chars = mqtm.character_form(message, "CSQ1")
    assert len(chars) == mqtm.MQTMC2_LENGTH == 732
    assert chars[:8] == "TMC    2"
    assert chars[8:56].rstrip() == "APP" and chars[56:104].rstrip() == "P1" and chars[104:168].rstrip() == "td"
    assert chars[168:172] == "6553"  # ApplType as characters, cut to its four
    assert chars[172:428].rstrip() == "prog" and chars[428:556].rstrip() == "env"
    assert chars[556:684].rstrip() == "user" and chars[684:732].rstrip() == "CSQ1"


@pytest.mark.parametrize(
    "change",
    [
        "ALTER QLOCAL(APP) NOTRIGGER",
        "ALTER QLOCAL(APP) TRIGTYPE(NONE)",
        "ALTER QLOCAL(APP) INITQ(' ')",
        "ALTER QLOCAL(APP) INITQ(APP)",
        "ALTER QLOCAL(INITQ) USAGE(XMITQ)",
        "ALTER QLOCAL(INITQ) GET(DISABLED)",
        "ALTER QLOCAL(APP) PROCESS(' ')",
        "DELETE PROCESS(P1)",
        "ALTER QLOCAL(APP) TRIGMPRI(1)",
    ],
)
def test_no_trigger_message_when_a_condition_fails(zos: Zos, change: str) -> None:
    zos.monitor()
    zos.cmd(change)
    zos.put("APP", b"work")
    assert zos.depth("INITQ") == 0


def test_no_trigger_message_without_a_monitor_and_none_for_every_when_one_opens(zos: Zos) -> None:
    zos.put("APP", b"work")
    assert zos.depth("INITQ") == 0
    zos.monitor()
    assert zos.depth("INITQ") == 0  # EVERY is about each message put, not the depth


def test_a_transmission_queue_triggers_without_a_process(zos: Zos) -> None:
    zos.cmd("DEFINE QLOCAL(XQ) USAGE(XMITQ) TRIGGER TRIGTYPE(FIRST) INITQ(INITQ) TRIGDATA('TO.QM2')")
    zos.monitor()
    zos.put("XQ", b"for the channel")
    [(payload, *_)] = zos.stored("INITQ")
    found = mqtm.unpack(payload)
    assert (found.qname, found.process, found.trigger_data, found.appl_id) == ("XQ", "", "TO.QM2", "")


def test_a_trigger_message_is_in_the_unit_of_work_of_its_message(zos: Zos) -> None:
    zos.monitor()
    handle = zos.handle("APP")
    with pytest.raises(RuntimeError), zos.store.transaction() as tx:
        handle.open(tx)
        handle.put(tx, b"backed out", PutOptions())
        in_unit = tx.conn.execute("SELECT count(*) FROM messages WHERE system = 'CSQ1' AND queue = 'INITQ'")
        assert in_unit.fetchone()[0] == 1  # in the transaction, next to its message
        raise RuntimeError("the unit of work backs out")
    assert zos.depth("INITQ") == 0 and zos.depth("APP") == 0


def test_depth_turns_trigger_off_in_the_same_unit_of_work(zos: Zos) -> None:
    zos.cmd("ALTER QLOCAL(APP) TRIGTYPE(DEPTH) TRIGDPTH(2)")
    zos.monitor()
    zos.put("APP", b"one", b"two", b"three")
    assert zos.depth("INITQ") == 1
    display = "\n".join(zos.cmd("DISPLAY QLOCAL(APP) TRIGGER"))
    assert "NOTRIGGER" in display


def test_trigger_attributes_exported_and_applied(zos: Zos, tmp_path: Path) -> None:
    from mqtool.commands.zos.export import commands

    with zos.store.transaction(write=False) as tx:
        system = tx.get_system("CSQ1")
        assert system is not None
        lines = commands(tx, system)
    assert (
        "-CSQ1 DEFINE QLOCAL(APP) TRIGGER TRIGTYPE(EVERY) TRIGDATA('trigger data') PROCESS(P1) INITQ(INITQ) REPLACE"
        in lines
    )
    assert any(line.startswith("-CSQ1 DEFINE PROCESS(P1) APPLICID('/opt/app/run')") for line in lines)


def test_json_shows_switches_as_yes_and_no_and_names_as_arrays(zos: Zos) -> None:
    from mqtool.render.json import command_json

    zos.cmd("DEFINE NAMELIST(NL1) NAMES(A,'b.c') NLTYPE(QUEUE)")
    body = command_json(zos.session, "DISPLAY QLOCAL(APP) TRIGGER TRIGTYPE")
    assert body["commandResponse"][0]["parameters"]["trigger"] == "yes"
    body = command_json(zos.session, "DISPLAY NAMELIST(NL1) ALL")
    parameters = body["commandResponse"][0]["parameters"]
    assert parameters["names"] == ["A", "b.c"] and parameters["namcount"] == 2 and parameters["nltype"] == "QUEUE"
    body = command_json(zos.session, "DISPLAY PROCESS(P1) ALL")
    assert body["commandResponse"][0]["parameters"]["applicid"] == "/opt/app/run"


def test_rest_command_building_takes_trigger_yes_no_and_lower_case_names() -> None:
    from mqtool.rest.build import build

    def text(parameters: dict[str, object], qualifier: str = "qlocal", verb: str = "alter") -> str:
        document = {"type": "runCommandJSON", "command": verb, "qualifier": qualifier, "name": "APP"}
        return build({**document, "parameters": parameters}, "zos").command.text

    assert text({"trigger": "no"}) == "ALTER QLOCAL(APP) NOTRIGGER"
    assert text({"trigger": "yes"}) == "ALTER QLOCAL(APP) TRIGGER"
    assert text({"names": ["A", "b.c"]}, "namelist", "define") == "DEFINE NAMELIST(APP) NAMES(A,'b.c')"


# -- the trigger monitor ---------------------------------------------------------------


def _script(tmp_path: Path) -> tuple[Path, Path]:
    """A Python program that records its arguments, and the file it writes them to."""
    out = tmp_path / "started.jsonl"
    script = tmp_path / "app.py"
    script.write_text(
        "import json, os, sys, time\n"
        f"with open({str(out)!r}, 'a') as f:\n"
        "    f.write(json.dumps({'argv': sys.argv[1:], 'state': os.environ.get('MQTOOL_STATE'), "
        "'system': os.environ.get('MQTOOL_SYSTEM')}) + '\\n')\n"
        "time.sleep(float(os.environ.get('APP_SLEEP', '0')))\n",
        encoding="utf-8",
    )
    return script, out


def _define(state: Path, script: Path, trigtype: str = "EVERY") -> None:
    applicid = f"{sys.executable} {script}"
    result = run(
        state,
        "--system",
        "CSQ1",
        "cmd",
        f"DEFINE PROCESS(P1) APPLICID('{applicid}') APPLTYPE(UNIX) ENVRDATA('--mode fast') USERDATA('ud')",
        "DEFINE QLOCAL(INITQ)",
        f"DEFINE QLOCAL(APP) TRIGGER TRIGTYPE({trigtype}) PROCESS(P1) INITQ(INITQ) TRIGDATA('td')",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _wait_for(condition: Any, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _depth(state: Path, queue: str) -> int:
    from mqtool.state import Store

    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            row = tx.conn.execute("SELECT depth FROM queue_figures WHERE system = 'CSQ1' AND queue = ?", (queue,))
            return int(row.fetchone()[0])
    finally:
        store.close()


def _inputs(state: Path, queue: str) -> int:
    from mqtool.state import Store

    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            return live_handles(tx, "CSQ1", queue)[0]
    finally:
        store.close()


@pytest.mark.slow
def test_the_monitor_runs_the_applicid_with_the_mqtmc2(tmp_path: Path) -> None:
    state = tmp_path / "state"
    script, out = _script(tmp_path)
    _define(state, script)
    monitor = mqtool(
        state,
        "trigger-monitor",
        "INITQ",
        "--system",
        "CSQ1",
        "--count",
        "1",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for(lambda: _inputs(state, "INITQ") == 1, "the monitor to open INITQ")
        assert run(state, "put", "APP", "--system", "CSQ1", "--data", "work").returncode == 0
        stdout, stderr = monitor.communicate(timeout=120)
    finally:
        if monitor.poll() is None:
            monitor.kill()
    assert monitor.returncode == 0, stderr
    lines = stdout.decode().splitlines()
    assert lines[0].startswith("MQT0770I Trigger monitor started on INITQ of CSQ1")
    assert lines[1].startswith(f"MQT0771I Started {sys.executable} {script} for queue APP (process P1, pid ")
    assert lines[2] == f"MQT0772I Program {sys.executable} {script} for queue APP ended with exit status 0"
    assert lines[3] == "MQT0776I Trigger monitor on INITQ ended: 1 trigger message handled"
    [started] = [json.loads(line) for line in out.read_text().splitlines()]
    assert started["state"] == str(state) and started["system"] == "CSQ1"
    tmc2, *rest = started["argv"]
    assert rest == ["--mode", "fast"]  # ENVRDATA's words follow the MQTMC2
    assert len(tmc2) == 732 and tmc2[:8] == "TMC    2"
    assert tmc2[8:56].rstrip() == "APP" and tmc2[56:104].rstrip() == "P1" and tmc2[104:168].rstrip() == "td"
    assert tmc2[168:172] == "0006" and tmc2[172:428].rstrip() == f"{sys.executable} {script}"
    assert tmc2[428:556].rstrip() == "--mode fast" and tmc2[556:684].rstrip() == "ud"
    assert tmc2[684:].rstrip() == "CSQ1"
    assert _depth(state, "INITQ") == 0


@pytest.mark.slow
def test_kill_9_after_the_start_does_not_start_the_program_again(tmp_path: Path, monkeypatch: Any) -> None:
    state = tmp_path / "state"
    script, out = _script(tmp_path)
    _define(state, script)
    monkeypatch.setenv("APP_SLEEP", "30")  # the program outlives the monitor
    monitor = mqtool(state, "trigger-monitor", "INITQ", "--system", "CSQ1", stdout=subprocess.DEVNULL)
    try:
        _wait_for(lambda: _inputs(state, "INITQ") == 1, "the monitor to open INITQ")
        assert run(state, "put", "APP", "--system", "CSQ1", "--data", "work").returncode == 0
        _wait_for(lambda: out.exists() and out.read_text().count("\n") == 1, "the program to start")
        monitor.send_signal(signal.SIGKILL)
        monitor.wait(timeout=60)
    finally:
        if monitor.poll() is None:
            monitor.kill()
    # The get committed once the program started: nothing is left to start again.
    assert _depth(state, "INITQ") == 0
    assert _inputs(state, "INITQ") == 0  # a dead process's handle is not counted
    again = run(state, "put", "APP", "--system", "CSQ1", "--data", "after the kill")
    assert again.returncode == 0 and _depth(state, "INITQ") == 0  # no monitor: no trigger message


def test_a_monitor_killed_before_the_start_leaves_the_trigger_message(tmp_path: Path, monkeypatch: Any) -> None:
    """The get of a trigger message commits only after its program started: a monitor
    that dies in between (here: the start is interrupted) leaves the message."""
    from mqtool.cli import trigger

    zos = Zos(tmp_path / "state")
    zos.cmd(*SETUP)
    handle = zos.monitor()
    zos.put("APP", b"work")
    assert zos.depth("INITQ") == 1

    def killed(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt  # the process dies between the get and the start

    monkeypatch.setattr(trigger.subprocess, "Popen", killed)
    with pytest.raises(KeyboardInterrupt):
        trigger._next(zos.session, handle, "CSQ1", False, {}, [])
    assert zos.depth("INITQ") == 1


def test_a_program_that_cannot_start_goes_to_the_dead_letter_queue(tmp_path: Path, capsys: Any) -> None:
    from mqtool.cli import trigger

    zos = Zos(tmp_path / "state")
    zos.cmd(*SETUP, "ALTER PROCESS(P1) APPLICID('/no/such/program')")
    handle = zos.monitor()
    zos.put("APP", b"work")
    running: list[Any] = []
    assert trigger._next(zos.session, handle, "CSQ1", False, {}, running) is True
    assert running == [] and zos.depth("INITQ") == 0
    [(payload, *_)] = zos.stored("SYSTEM.DEAD.QUEUE")
    assert payload[:4] == b"DLH " and struct.unpack(">i", payload[8:12]) == (265,)  # MQFB_APPL_CANNOT_BE_STARTED
    assert mqtm.unpack(payload[172:]).qname == "APP"
    assert "MQT0773E Cannot start /no/such/program for queue APP" in capsys.readouterr().err


def test_the_monitor_refuses_a_queue_it_cannot_open(mq: Any) -> None:
    result = mq("trigger-monitor", "NO.SUCH.Q", "--system", "CSQ1")
    assert result.exit_code == 1
    assert result.output.startswith("MQT0777E Trigger monitor cannot open NO.SUCH.Q of CSQ1: MQRC 2085")
    result = mq("trigger-monitor", "ANY", "--system", "TPF1")
    assert result.exit_code == 2 and "z/OS queue managers only" in result.output


def test_the_command_line_needs_no_shell() -> None:
    from mqtool.cli.trigger import _command

    assert _command("prog 'two words' x", "TMC", "-a 'b c'", False) == ["prog", "two words", "x", "TMC", "-a", "b c"]
    assert _command("prog $HOME;rm", "T'MC", "", True) == ["/bin/sh", "-c", "prog $HOME;rm 'T'\"'\"'MC'"]
    with pytest.raises(ValueError):
        _command("   ", "TMC", "", False)
    with pytest.raises(ValueError):
        _command("prog 'unbalanced", "TMC", "", False)


# -- dynamic queues -------------------------------------------------------------------


def test_a_temporary_dynamic_queue_of_a_dead_process_is_removed(tmp_path: Path) -> None:
    zos = Zos(tmp_path / "state")
    zos.cmd("DEFINE QMODEL(TMP.MODEL) DEFTYPE(TEMPDYN)")
    with zos.store.transaction() as tx:
        tx.conn.execute(
            "INSERT INTO objects (system, type, name, attrs, status, created, altered) VALUES "
            "('CSQ1', 'QLOCAL', 'CSQ.ORPHAN', '{\"DEFTYPE\":\"TEMPDYN\",\"STGCLASS\":\"DEFAULT\"}', "
            "'{\"owner\":999999999}', 0, 0)"
        )
    handle = zos.handle("TMP.MODEL")
    handle.dynamic_name = "CSQ.*"
    with zos.store.transaction() as tx:
        handle.open(tx, "get")
        assert tx.get_object("CSQ1", "QLOCAL", "CSQ.ORPHAN") is None
        assert handle.created is not None and tx.get_object("CSQ1", "QLOCAL", handle.created.name) is not None
        handle.close(tx)
        assert tx.get_object("CSQ1", "QLOCAL", handle.created.name) is None


def test_the_rest_messaging_api_opens_no_model_queue(zos: Zos) -> None:
    from mqtool.engine.core.reasons import MQError

    zos.cmd("DEFINE QMODEL(M) DEFTYPE(PERMDYN)")
    handle = zos.handle("M")  # as the REST stand-in opens it: no DynamicQName
    with pytest.raises(MQError) as raised, zos.store.transaction() as tx:
        handle.open(tx)
    assert raised.value.reason == 2085


def test_process_namelist_buffpool_and_triggers_apply_and_round_trip(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mqtool.cli.main import main_group

    def cli(state: Path, *args: str) -> Any:
        return CliRunner().invoke(main_group, ["--state", str(state), "--clock", "2021-03-09T15:41:22Z", *args])

    first, second, document = tmp_path / "one", tmp_path / "two", tmp_path / "complex.yaml"
    setup = (
        "DEFINE BUFFPOOL(7) BUFFERS(3000) LOCATION(ABOVE)",
        "DEFINE PSID(07) BUFFPOOL(7)",
        *SETUP,
        "DEFINE NAMELIST(NL) NAMES(APP,'lower.q') NLTYPE(QUEUE)",
    )
    assert "ABNORMAL" not in cli(first, "--system", "CSQ1", "cmd", *setup).output
    assert cli(first, "export", "--system", "CSQ1", "--format", "yaml", "-o", str(document)).exit_code == 0
    applied = cli(second, "apply", str(document))
    assert applied.exit_code == 0, applied.output
    again = cli(second, "apply", str(document))
    assert again.exit_code == 0 and "Nothing to change" in again.output
    for display in ("DIS QLOCAL(APP) ALL", "DIS PROCESS(*) ALL", "DIS NAMELIST(*) ALL", "DIS USAGE"):
        assert cli(second, "cmd", f"-CSQ1 {display}").output == cli(first, "cmd", f"-CSQ1 {display}").output


def test_put_and_get_open_a_model_queue_as_mqopen_does(mq: Any) -> None:
    mq.cmd("-CSQ1 DEFINE QMODEL(ARCH.MODEL) DEFTYPE(PERMDYN)", "-CSQ1 DEFINE QMODEL(TMP.MODEL)")
    put = mq("put", "ARCH.MODEL", "--system", "CSQ1", "--dynamic-name", "ARCH.*", "--data", "kept", "-q")
    assert put.exit_code == 0, put.output
    assert (
        "(QMODEL(ARCH.MODEL) opened dynamic queue ARCH.D962CAA972C8" in put.output and "DEFTYPE(PERMDYN)" in put.output
    )
    shown = mq.cmd("-CSQ1 DISPLAY QLOCAL(ARCH.*) DEFTYPE CURDEPTH")
    assert "DEFTYPE(PERMDYN)" in shown and "CURDEPTH(1)" in shown
    persistent = mq("put", "TMP.MODEL", "--system", "CSQ1", "--data", "x", "--persistent", "-q")
    assert persistent.exit_code == 1 and "MQRC 2048 (MQRC_PERSISTENT_NOT_ALLOWED)" in persistent.output
    assert "CSQM297I" in mq.cmd("-CSQ1 DISPLAY QLOCAL(CSQ.*)")  # the temporary queue went at close
    got = mq("get", "TMP.MODEL", "--system", "CSQ1")
    assert got.exit_code == 1 and "MQT0778I Opened TMP.MODEL for input (QMODEL(TMP.MODEL) opened dynamic" in got.output
    bad = mq("put", "ARCH.MODEL", "--system", "CSQ1", "--dynamic-name", "A*B", "--data", "x")
    assert bad.exit_code == 2 and "--dynamic-name A*B" in bad.output
