"""Packaging: `commands/` and `state/` install as `mqtool.commands` and `mqtool.state`
(nothing else at the top level), their data files are found through importlib.resources,
and both a real wheel and an editable install work in fresh virtual environments, run
from another directory."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import site
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from conftest import system_tool

ROOT = Path(__file__).resolve().parents[1]
# Where each top-level folder of the tree goes in the installed package.
MAPPING = {"mqtool": "mqtool", "commands": "mqtool/commands", "state": "mqtool/state"}


def source_packages() -> set[str]:
    """Every package of the source tree, by its installed name."""
    names = set()
    for folder, installed in MAPPING.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            names.add(".".join([*installed.split("/"), *relative.parts]))
    return names


def test_subpackages_import_under_mqtool() -> None:
    import mqtool.commands
    import mqtool.commands.ztpf_mq
    import mqtool.state
    import mqtool.state.store
    from mqtool.state import Store

    assert mqtool.commands.__name__ == "mqtool.commands"
    assert mqtool.commands.ztpf_mq.__name__ == "mqtool.commands.ztpf_mq"
    assert mqtool.state.store.Store is Store


def test_resources_are_found() -> None:
    commands = resources.files("mqtool.commands")
    for dialect in ("ztpf_mq", "ztpf_http", "zos"):
        assert commands.joinpath(dialect, "keywords.yaml").is_file(), dialect
    migrations = resources.files("mqtool.state").joinpath("migrations")
    assert migrations.joinpath("0001_initial.sql").is_file()
    assert resources.files("mqtool.state").joinpath("README.md").is_file()


def test_setup_cfg_lists_every_package() -> None:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    listed = {line.strip() for line in config["options"]["packages"].splitlines() if line.strip()}
    missing = source_packages() - listed
    assert not missing, f"packages missing from setup.cfg [options] packages: {sorted(missing)}"
    mapping = {
        key.strip(): value.strip()
        for key, _, value in (line.partition("=") for line in config["options"]["package_dir"].splitlines())
        if key.strip()
    }
    assert mapping == {"mqtool": "mqtool", "mqtool.commands": "commands", "mqtool.state": "state"}


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MQTOOL_", "PYTHON"))}
    env["MQTOOL_CLOCK"] = "2021-03-09T15:41:22Z"
    return env


def test_no_top_level_commands_or_state(tmp_path: Path) -> None:
    probe = "import importlib.util as u; print(u.find_spec('commands'), u.find_spec('state'))"
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, env=_clean_env(), timeout=60
    )
    assert result.stdout == "None None\n", result


# -- real installs into fresh virtual environments -------------------------------------


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the source tree (building in place would leave build/ and egg-info in
    the work tree) and an unrelated directory to run from."""
    base = tmp_path_factory.mktemp("install")
    shutil.copytree(
        ROOT,
        base / "src",
        ignore=shutil.ignore_patterns(
            ".git", "__pycache__", "*.egg-info", "build", "dist", ".hypothesis", ".*_cache", ".tox", "tests", ".venv"
        ),
    )
    (base / "elsewhere").mkdir()
    yield base


# What an installed mqtool leaves in a site-packages directory: the nested environments
# must not see the outer one's copy (or its editable finder) instead of their own.
_OWN = ("mqtool", "mqtool-", "mqtool.", "__editable__.mqtool", "__editable___mqtool")


def _outer_site_dirs() -> list[Path]:
    """The site-packages directories of the environment running the tests, as this
    interpreter uses them (a virtual environment's own, and its base's only when it was
    made with --system-site-packages)."""
    candidates = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    on_path = {Path(entry).resolve() for entry in sys.path if entry}
    return [Path(entry) for entry in dict.fromkeys(candidates) if Path(entry).resolve() in on_path]


def _venv(path: Path) -> Path:
    """A fresh virtual environment without system site packages that sees the packages
    of the environment running the tests (pip, setuptools, wheel, click, PyYAML ...:
    what `pip install -e '.[test]'` put there) through a .pth file, but not mqtool
    itself. The base interpreter's own site-packages may lack them, or hold older
    ones (a setuptools without bdist_wheel), so it is not used. Nothing is downloaded."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    python = path / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        env=_clean_env(),
        timeout=60,
    ).stdout.strip()
    # A directory of links to each outer site directory's entries less mqtool's: plain
    # path lines in a .pth (its .pth files are not run, so no outer editable finder).
    lines = []
    for number, outer in enumerate(_outer_site_dirs()):
        mirror = path.parent / f"{path.name}-outer-{number}"
        mirror.mkdir()
        for entry in outer.iterdir():
            if entry.name.startswith(_OWN) or entry.suffix == ".pth":
                continue
            (mirror / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        lines.append(str(mirror))
    Path(purelib, "_outer_environment.pth").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return python


def _pip(python: Path, command: str, *args: str) -> None:
    """Runs pip of the nested environment offline (--no-index: nothing is fetched)."""
    result = subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", "-q", command, "--no-index", *args],
        capture_output=True,
        text=True,
        env=_clean_env(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr


IMPORTS = (
    "import mqtool, mqtool.commands, mqtool.state, mqtool.commands.ztpf_mq, mqtool.state.store\n"
    "from importlib import resources\n"
    "from importlib.util import find_spec\n"
    "assert resources.files('mqtool.commands').joinpath('ztpf_mq', 'keywords.yaml').is_file()\n"
    "assert resources.files('mqtool.state').joinpath('migrations', '0001_initial.sql').is_file()\n"
    "assert find_spec('commands') is None and find_spec('state') is None\n"
    "print(mqtool.__file__)\n"
    "print(mqtool.commands.__file__)\n"
    "print(mqtool.state.store.__file__)\n"
)


def _check_installed(python: Path, work: Path, expected_root: Path) -> None:
    elsewhere = work / "elsewhere"
    result = subprocess.run(
        [str(python), "-c", IMPORTS], cwd=elsewhere, capture_output=True, text=True, env=_clean_env(), timeout=60
    )
    assert result.returncode == 0, result.stderr
    for line in result.stdout.splitlines():
        assert Path(line).is_relative_to(expected_root), f"{line} is not from {expected_root}"
    script = python.parent / "mqtool"
    result = subprocess.run(
        [str(script), "--state", str(work / f"state-{python.parent.parent.name}"), "cmd", "ZMQSC DIS QMGR"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=_clean_env(),
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0002I 10.41.22 START OF QMGR DISPLAY",
    ]


@pytest.mark.slow
def test_wheel_build_and_install(work: Path) -> None:
    python = _venv(work / "wheel-venv")
    _pip(python, "wheel", "--no-deps", "--no-build-isolation", "-w", str(work / "dist"), str(work / "src"))
    (wheel,) = (work / "dist").glob("mqtool-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    # Every module and data file of the tree is in the wheel, under its installed name.
    for folder, installed in MAPPING.items():
        for path in (work / "src" / folder).rglob("*"):
            if path.suffix in (".py", ".yaml", ".sql") and "__pycache__" not in path.parts:
                name = f"{installed}/{path.relative_to(work / 'src' / folder).as_posix()}"
                assert name in names, f"{name} is missing from the wheel"
    # The examples the README runs: the tour and the sample payloads of mqtool estimate.
    for path in (work / "src" / "mqtool" / "examples").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            name = f"mqtool/{path.relative_to(work / 'src' / 'mqtool').as_posix()}"
            assert name in names, f"{name} is missing from the wheel"
    assert not any(name.startswith(("commands/", "state/", "tests/")) for name in names)
    # Every man page, for PREFIX/share/man/man1 and man7.
    for page in (work / "src" / "man").glob("*.[17]"):
        assert f"mqtool-0.1.0.data/data/share/man/man{page.suffix[1:]}/{page.name}" in names, page.name
    _pip(python, "install", "--no-deps", "--no-build-isolation", str(wheel))
    site = next((work / "wheel-venv" / "lib").glob("python3*/site-packages"))
    _check_installed(python, work, site)
    _check_man(work / "wheel-venv", work)


def _check_man(prefix: Path, work: Path) -> None:
    """`man mqtool` finds the installed pages: man-db looks in PREFIX/share/man for each
    PREFIX/bin on PATH, so an activated environment needs no MANPATH."""
    for page in (work / "src" / "man").glob("*.[17]"):
        installed = prefix / "share" / "man" / f"man{page.suffix[1:]}" / page.name
        assert installed.read_bytes() == page.read_bytes(), installed
    man = system_tool("man", "man-db")
    env = {k: v for k, v in _clean_env().items() if k != "MANPATH"}
    env["PATH"] = f"{prefix / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    for args, page in ((["mqtool"], "man1/mqtool.1"), (["7", "mqtool-ztpf"], "man7/mqtool-ztpf.7")):
        found = subprocess.run([man, "-w", *args], capture_output=True, text=True, env=env, timeout=60)
        assert found.returncode == 0, found.stderr
        assert Path(found.stdout.strip()) == prefix / "share" / "man" / page


@pytest.mark.slow
def test_editable_install(work: Path) -> None:
    python = _venv(work / "editable-venv")
    _pip(python, "install", "--no-deps", "--no-build-isolation", "-e", str(work / "src"))
    _check_installed(python, work, work / "src")


# -- the README's commands and CI ---------------------------------------------------------


def _readme_commands() -> list[str]:
    """The command lines of the README's "Start in two commands" code blocks."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Start in two commands", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_ci_runs_the_readme_commands_verbatim_in_a_fresh_venv() -> None:
    commands = _readme_commands()
    assert len(commands) == 2, commands
    assert commands[1].endswith("python -m pytest"), commands
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    start = script.index("# --- the README's commands, verbatim ---") + 1
    assert [line for line in script[start:] if line.strip()] == commands
    before = "\n".join(script[:start])
    # A new virtual environment that sees no site packages, activated before the commands.
    assert re.search(r'-m venv "\$work/venv"\n', before), before
    assert "--system-site-packages" not in before
    assert '. "$work/venv/bin/activate"' in before
    assert os.access(ROOT / ".ci" / "run", os.X_OK)
    assert subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")], timeout=60).returncode == 0
