"""Shared fixtures: a fresh state directory, a frozen clock, and CLI runners."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

FROZEN = "2021-03-09T15:41:22Z"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/*.out from the current output (read the diff before committing)",
    )


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def mq(state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MQ]:
    """Runs `mqtool` in process on a fresh store with the clock frozen at FROZEN."""
    for name in ("MQTOOL_STATE", "MQTOOL_SYSTEM", "MQTOOL_CLOCK", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    yield MQ(state_dir)


class MQ:
    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, clock: str | None = FROZEN) -> Result:
        from mqtool.cli.main import main_group

        base = ["--state", str(self.state_dir)]
        if clock:
            base += ["--clock", clock]
        result = self.runner.invoke(main_group, [*base, *args], input=input, catch_exceptions=False)
        return without_creation_notice(result)

    def cmd(self, *commands: str) -> str:
        result = self(["cmd", *commands][0], *commands)
        return result.output


# The line mqtool writes on standard error when a command creates a new store in a
# directory the user named (mqtool.cli.main.new_store_notice; test_cli_newcomer.py
# checks it). The first command of every test on a fresh state directory prints it.
CREATION_NOTICE = re.compile(
    r"mqtool: created a new store [^\n]*mqtool\.db with the default complex \(TPF1, CSQ1\): none was there\n"
)


def query(state: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The rows of one read of the store in `state` (opened and closed around it)."""
    from mqtool.state import Store

    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            return [tuple(row) for row in tx.conn.execute(sql, params)]
    finally:
        store.close()


def drop_creation_notice(text: str) -> str:
    """`text` (a command's standard error, or its whole output) without the notice of a
    new store, so that a test compares what the command itself says."""
    return CREATION_NOTICE.sub("", text, count=1)


def drop_creation_notice_bytes(data: bytes) -> bytes:
    return drop_creation_notice(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def without_creation_notice(result: Result) -> Result:
    """A CliRunner result without the notice of a new store (drop_creation_notice)."""
    result.stderr_bytes = drop_creation_notice_bytes(result.stderr_bytes)
    result.output_bytes = drop_creation_notice_bytes(result.output_bytes)
    return result


def system_tool(program: str, package: str) -> str:
    """The path of a program that tests drive (curl, tmux, groff), installed from the
    distribution's packages when missing and we are root; the test is skipped, saying
    why, only when that install cannot happen."""
    found = shutil.which(program)
    if found:
        return found
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip(f"{program} is not installed and cannot be installed here (needs root and apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", package]
    try:
        if subprocess.run(install, env=env, capture_output=True, timeout=600).returncode != 0:
            subprocess.run(["apt-get", "update"], env=env, capture_output=True, timeout=600, check=True)
            subprocess.run(install, env=env, capture_output=True, timeout=600, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"{program} is not installed and apt-get could not install {package}: {exc}")
    found = shutil.which(program)
    if not found:
        pytest.skip(f"{program} is not installed and apt-get did not provide it")
    return found


@pytest.fixture(scope="session")
def curl() -> str:
    return system_tool("curl", "curl")


@pytest.fixture(scope="session")
def tmux() -> str:
    return system_tool("tmux", "tmux")


@pytest.fixture(scope="session")
def groff() -> str:
    return system_tool("groff", "groff-base")


@pytest.fixture(scope="session")
def pymqrest_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of the test session holding pymqrest and requests from the package
    registry (tests/served.py), for this process and for child processes."""
    from tests.served import install_pymqrest

    target = tmp_path_factory.mktemp("pymqrest")
    install_pymqrest(target)
    return target


@pytest.fixture(scope="session")
def pymqrest(pymqrest_path: Path) -> Any:
    """The pymqrest module, imported from pymqrest_path."""
    import sys

    sys.path.insert(0, str(pymqrest_path))
    try:
        import pymqrest as module
    finally:
        sys.path.remove(str(pymqrest_path))
    return module
