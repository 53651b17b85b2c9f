"""`mqtool serve` in its own process for the tests that drive the REST API stand-in as
users run it (`mqtool rest init`, then `mqtool serve` on 127.0.0.1 and a port the
system chooses), and pymqrest, a real client from the package registry, installed
into a folder of the test session."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PASSWORDS = {"admin": "admin pass:1", "app": "app-pass-2"}
# Output of pip that means the registry could not be reached (the only reason to skip).
# The pymqrest the tests were written against: tests/test_rest_pymqrest.py classifies
# each of its 177 methods, so a new release is taken on purpose, not by chance.
PYMQREST = "pymqrest==1.2.2"
OFFLINE = (
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Connection refused",
    "timed out",
)


@dataclass
class Served:
    state_dir: Path
    port: int
    process: subprocess.Popen[bytes]
    scheme: str = "http"
    ca: Path | None = None  # the CA file of an https listener

    @property
    def base(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/ibmmq/rest/v2"


def mqtool(state_dir: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mqtool", "--state", str(state_dir), *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )


def serve(tmp_path: Path, *tls: str, ca: Path | None = None) -> Iterator[Served]:
    """`mqtool rest init` (users admin, MQWebAdmin, and app, MQWebUser with every
    command; `tls` options: https), then `mqtool serve` in its own process, stopped
    with SIGTERM at the end."""
    state_dir = tmp_path / "state"
    written = mqtool(
        state_dir,
        "rest",
        "init",
        "--port",
        "0",
        "--user",
        "admin:MQWebAdmin",
        "--user",
        "app:MQWebUser",
        "--grant",
        "app",
        *tls,
        input="".join(f"{password}\n" for password in PASSWORDS.values()),
    )
    assert written.returncode == 0, written.stderr
    process = subprocess.Popen(
        [sys.executable, "-m", "mqtool", "--state", str(state_dir), "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        port = wait_for_listener(state_dir, process)
        yield Served(state_dir, port, process, "https" if tls else "http", ca)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def wait_for_listener(state_dir: Path, process: subprocess.Popen[bytes]) -> int:
    """The port of the serving process, once its status file names it (generous bound)."""
    deadline = time.monotonic() + 60
    status = state_dir / "rest.status.json"
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        try:
            found = json.loads(status.read_text())
        except (OSError, ValueError):
            found = None
        if found is not None and found["pid"] == process.pid:
            return int(found["port"])
        time.sleep(0.05)
    raise AssertionError("mqtool serve did not open the REST listener within 60 s")


def install_pymqrest(target: Path) -> None:
    """pymqrest and what it needs (requests) from the package registry into `target`
    (it declares Python >= 3.12 but imports on 3.11); the test is skipped, saying why,
    only when the registry cannot be reached."""
    install = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--ignore-requires-python",
        "--target",
        str(target),
        PYMQREST,
    ]
    result = subprocess.run(install, capture_output=True, text=True, timeout=600, env={**os.environ})
    if result.returncode != 0:
        output = result.stdout + result.stderr
        if any(sign in output for sign in OFFLINE):
            pytest.skip(f"the package registry cannot be reached to install pymqrest: {output.strip()[-300:]}")
        raise AssertionError(f"pip could not install pymqrest:\n{output}")
