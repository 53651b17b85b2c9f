"""Start-up (issue 19): what `mqtool cmd` imports before its first command runs. A
display that finds no timer due loads neither the engine's platforms (their models and
timers register on first use), nor the channels, CHLAUTH or publish/subscribe modules of
the z/OS displays, nor importlib.resources. Speed itself is measured in
benchmarks/bench_startup.py; this checks the imports, which do not depend on timing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mqtool.engine import platforms, timers
from tests.test_process import RUN_MAIN

FROZEN = "2021-03-09T15:41:22Z"
# Modules a display with no timer due has no use for.
NOT_NEEDED = (
    "importlib.resources",
    "mqtool.engine.platforms",
    "mqtool.engine.core.handle",
    "mqtool.engine.ztpf.platform",
    "mqtool.engine.ztpf.monitor",
    "mqtool.engine.zos.platform",
    "mqtool.engine.zos.log",
    "mqtool.engine.channels.mca",
    "mqtool.engine.channels.ends",
    "mqtool.commands.zos.chlauth",
    "mqtool.commands.zos.pubsub",
    "concurrent.futures",
    "subprocess",
    # issue 19, second round: the records of a command are not dataclasses (mqtool/record.py),
    # a store at this version opens without zlib-ng, a made complex needs no mqtool.complex
    "dataclasses",
    "zlib_ng",
    "mqtool.complex",
)

PROGRAM = RUN_MAIN + f"print('loaded:', sorted(set(sys.modules) & set({NOT_NEEDED!r})), file=sys.stderr)\n"


def _env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    clean["MQTOOL_CLOCK"] = FROZEN  # the timers of the new store are not due at this instant
    return clean


def _cmd(state: Path, line: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, "--state", str(state), "cmd", line],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )


def test_a_display_with_no_timer_due_loads_no_engine_platform(tmp_path: Path) -> None:
    state = tmp_path / "state"
    made = subprocess.run(
        [sys.executable, "-m", "mqtool", "--state", str(state), "cmd", "ZMQSC DEFINE QL-A", "-CSQ1 DEFINE QLOCAL(A)"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    for line, shown in (("ZMQSC DISPLAY QL-*", "QUEUE A"), ("DISPLAY QLOCAL(*)", "QUEUE(A)")):
        result = _cmd(state, line)
        assert shown in result.stdout, result.stdout + result.stderr
        assert result.stderr.splitlines()[-1] == "loaded: []", (line, result.stderr)


def test_the_z_tpf_monitor_runs_without_loading_the_channel_agents(tmp_path: Path) -> None:
    """The MQ monitor falls due every 5 seconds, so an operator's next command usually
    runs it: the platforms load (their models and observers), the services do not."""
    state = tmp_path / "state"
    made = subprocess.run(
        [sys.executable, "-m", "mqtool", "--state", str(state), "cmd", "ZMQSC DEFINE QL-A"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    program = PROGRAM.replace(
        "print('loaded:'",
        "print('ran:', sorted(set(sys.modules) & {'mqtool.engine.ztpf.monitor', 'mqtool.engine.channels.mca'}), "
        "file=sys.stderr)\nprint('loaded:'",
    )
    later = {**_env(), "MQTOOL_CLOCK": "2021-03-09T15:41:52Z"}  # 30 seconds on: the monitor is due
    result = subprocess.run(
        [sys.executable, "-c", program, "--state", str(state), "cmd", "ZMQSC DISPLAY QL-A"],
        capture_output=True,
        text=True,
        env=later,
        timeout=60,
    )
    assert "QUEUE A" in result.stdout, result.stdout + result.stderr
    assert "ran: ['mqtool.engine.ztpf.monitor']" in result.stderr.splitlines(), result.stderr


def test_the_platforms_register_their_models_and_timers_on_first_use() -> None:
    platforms.load()
    assert {"ztpf", "zos"} <= {name for name in ("ztpf", "zos") if platforms.model(name) is not None}
    assert {"ztpf-mq-monitor", "ztpf-mq-checkpoint"} <= set(timers.TIMERS)


def test_the_display_knows_the_publish_subscribe_objects_without_importing_them() -> None:
    from mqtool.commands.zos import display, pubsub

    assert display.PUBSUB_OBJECTS == pubsub.OBJECTS
