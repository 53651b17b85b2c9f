"""Shared fixtures: a fresh state directory, a frozen clock, and CLI runners."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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
        from mqtool.cli import main_group

        base = ["--state", str(self.state_dir)]
        if clock:
            base += ["--clock", clock]
        return self.runner.invoke(main_group, [*base, *args], input=input, catch_exceptions=False)

    def cmd(self, *commands: str) -> str:
        result = self(["cmd", *commands][0], *commands)
        return result.output
