"""Every example of the README works as pasted, in a new store (issue 16, item 6).

The README's code blocks run in order as one shell script, in a fresh folder that has
the checkout's `mqtool/` folder (the paths the README names, as in a clone) and a
fresh store (MQTOOL_STATE), with `mqtool` this checkout's. Three things differ from a
person pasting them, each said where it is done: `pip install` is the environment this
test runs in already, `python -m pytest` is this suite itself (it is not run again),
and the REST stand-in's port 9443 becomes one the system chooses, so that the test
never needs a fixed port. The Python block runs with pymqrest from the package
registry, against the `mqtool serve` the block before it started."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mqtool.state import Store

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
PASSWORD = "PASSWORD"  # the admin password the README's curl and pymqrest lines use


def blocks() -> list[tuple[str, str]]:
    """(language, text) of each code block of the README, in order."""
    return [(match.group(1), match.group(2)) for match in BLOCK.finditer(README.read_text(encoding="utf-8"))]


def shell_lines(text: str) -> list[str]:
    """The commands of a shell block: continued lines (a trailing backslash) joined."""
    commands: list[str] = []
    pending = ""
    for line in text.splitlines():
        pending += line
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip():
            commands.append(pending)
        pending = ""
    return commands


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def script(work: Path, port: int) -> tuple[str, list[str]]:
    """The README's blocks as one bash script, and what each line of it is (for the
    failure message)."""
    lines = [
        "set -euo pipefail",
        # every program started in the background ends with the script
        "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
    ]
    shown: list[str] = []
    for number, (language, text) in enumerate(blocks()):
        if language == "python":
            source = work / f"block{number}.py"
            source.write_text(text.replace("9443", str(port)), encoding="utf-8")
            lines.append(f'"$PYTHON" {shlex.quote(str(source))}')
            shown.append(f"python block {number}")
            continue
        if language not in ("sh", "bash", ""):
            continue
        for command in shell_lines(text):
            if command.startswith("pip install "):
                # the environment this test runs in is that install
                command = command.split("&&", 1)[1].strip() if "&&" in command else ""
            if command.startswith("python -m pytest"):
                continue  # the suite this test is part of
            if not command:
                continue
            command = command.replace("9443", str(port))
            if command.startswith("mqtool rest init"):
                # passwords: one line per user from standard input, as the README says
                command = f"printf '%s\\n' {PASSWORD} app-password | {command}"
            lines.append(command)
            shown.append(command)
            if command.startswith("printf") and "--tls-cert" in command:
                # the running serve takes the new configuration at its next poll, as the
                # README says; a person's next line comes after it: wait until https answers
                lines.append(
                    f"for i in $(seq 600); do curl -sk -o /dev/null https://127.0.0.1:{port}/ && break; sleep 0.1; done"
                )
            if command.rstrip().endswith("&") and " serve" in command:
                # a person pastes the next line a moment later: wait until the server answers
                lines.append(
                    f"for i in $(seq 600); do curl -s -o /dev/null http://127.0.0.1:{port}/ && break; sleep 0.1; done"
                )
    return "\n".join(lines) + "\n", shown


@pytest.mark.slow
def test_every_readme_example_works_as_pasted_in_a_new_store(
    tmp_path: Path,
    curl: str,
    pymqrest: Any,
) -> None:
    work = tmp_path / "clone"
    work.mkdir()
    (work / "mqtool").symlink_to(ROOT / "mqtool", target_is_directory=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "mqtool"
    launcher.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m mqtool "$@"\n', encoding="utf-8")
    launcher.chmod(0o755)
    (tmp_path / "tmp").mkdir()
    port = free_port()
    text, shown = script(work, port)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MQTOOL_", "PYTHON"))}
    env |= {
        "PATH": f"{bin_dir}{os.pathsep}{Path(curl).parent}{os.pathsep}{env.get('PATH', '')}",
        "MQTOOL_STATE": str(tmp_path / "state"),
        "TMPDIR": str(tmp_path / "tmp"),
        "PYTHON": sys.executable,
        "PYTHONPATH": str(Path(pymqrest.__file__).parent.parent),
    }
    result = subprocess.run(
        ["bash", "-c", text], cwd=work, env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, f"{shown}\n--- stdout\n{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-4000:]}"
    assert "Traceback" not in result.stderr
    out = result.stdout
    # what each block says it does
    assert "MQSC0002I" in out and "QUEUE PAYQ" in out  # the tour's first command
    assert "All valid MQSC commands were processed." in out  # mqtool run tour.mqsc
    assert (work / "config.mqsc").read_text(encoding="utf-8").startswith("* Written by mqtool")
    assert (work / "lab" / "mqtool.db").exists()  # the complex applied to ./lab
    assert "MQT0600I Estimated 6 messages" in out  # the shipped sample payloads
    assert "MQSC0330I" in out and "CSQM293I" in out  # START CHL accepted, QSTATUS shown
    decoder = json.JSONDecoder()
    documents = [decoder.raw_decode(line)[0] for line in out.splitlines() if line.startswith('{"commandResponse"')]
    assert documents and all(document["overallCompletionCode"] == 0 for document in documents)
    # the curl line's answer: the queues of CSQ1, ORDERS.IN among them
    listed = [item.get("parameters", {}).get("queue") for document in documents for item in document["commandResponse"]]
    assert "ORDERS.IN" in listed
    # the Python block defined ORDERS through pymqrest and the REST stand-in
    store = Store.open(tmp_path / "state")
    try:
        with store.transaction(write=False) as tx:
            orders = tx.get_object("CSQ1", "QLOCAL", "ORDERS")
    finally:
        store.close()
    assert orders is not None and orders.attrs["MAXDEPTH"] == 500
