"""Golden transcripts: tests/golden/NAME.mqsc runs with a frozen clock on a fresh store
through `mqtool run`, and its report must equal NAME.out byte for byte.

`pytest --update-golden` rewrites the .out files; read the diff before committing.
A first line `* clock: ISO-TIME` sets another frozen instant; `* system: NAME` another
starting system; `* setup: ARGS` lines (in the leading comment block) run
`mqtool ARGS` on the store first, e.g. `* setup: system add CSQ2 --platform zos --cpu z13`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mqtool.cli.main import main_group
from tests.conftest import drop_creation_notice

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(GOLDEN.glob("*.mqsc"))
DEFAULT_CLOCK = "2021-03-09T15:41:22Z"


def _settings(script: Path) -> dict[str, str]:
    settings = {"clock": DEFAULT_CLOCK}
    for line in script.read_text(encoding="utf-8").splitlines():
        if not line.startswith("*"):
            break
        key, _, value = line[1:].strip().partition(":")
        if key.strip() in ("clock", "system") and value.strip():
            settings[key.strip()] = value.strip()
    return settings


def _setup(script: Path) -> list[list[str]]:
    """The `* setup: ARGS` lines of the leading comment block, as argument lists."""
    import shlex

    found = []
    for line in script.read_text(encoding="utf-8").splitlines():
        if not line.startswith("*"):
            break
        key, _, value = line[1:].strip().partition(":")
        if key.strip() == "setup" and value.strip():
            found.append(shlex.split(value))
    return found


def run_golden(script: Path, state: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, int]:
    for name in ("MQTOOL_STATE", "MQTOOL_SYSTEM", "MQTOOL_CLOCK"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(script.parent)
    settings = _settings(script)
    args = ["--state", str(state), "--clock", settings["clock"]]
    for setup in _setup(script):
        prepared = CliRunner().invoke(main_group, [*args, *setup], catch_exceptions=False)
        assert prepared.exit_code == 0, f"setup {setup}: {prepared.output}"
    if "system" in settings:
        args += ["--system", settings["system"]]
    result = CliRunner().invoke(main_group, [*args, "run", script.name], catch_exceptions=False)
    return drop_creation_notice(result.output), result.exit_code


def check_golden(path: Path, text: str, request: pytest.FixtureRequest) -> None:
    """`text` is the golden file's, byte for byte (`pytest --update-golden` writes it)."""
    if request.config.getoption("--update-golden"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no {path.name}: run pytest --update-golden and read the result"
    assert text == path.read_text(encoding="utf-8"), path.name


@pytest.mark.parametrize("script", CASES, ids=[c.stem for c in CASES])
def test_golden(script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    output, code = run_golden(script, tmp_path / "state", monkeypatch)
    check_golden(script.with_suffix(".out"), output, request)
    # The exit status is part of the contract: 0 when all processed, 10 otherwise.
    assert code in (0, 10)


@pytest.mark.parametrize("script", CASES[:3], ids=[c.stem for c in CASES[:3]])
def test_golden_repeats(script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Twice in a row on fresh stores: byte for byte the same."""
    first, _ = run_golden(script, tmp_path / "one", monkeypatch)
    second, _ = run_golden(script, tmp_path / "two", monkeypatch)
    assert first == second
