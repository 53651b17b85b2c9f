"""The Zowe CLI with IBM's MQ plug-in against `mqtool serve`: `zowe mq run mqsc QMGR CMD`
over https with Zowe's defaults (protocol https, certificates verified) and the CA given
to Node.js by NODE_EXTRA_CA_CERTS, refused without it, accepted with
--reject-unauthorized false (no verification), and over http.

The Zowe CLI and the plug-in come from the npm registry with npm, installed once into
the pytest cache folder (.pytest_cache/d/zowe) and reused by later runs while the
versions asked for stay the same (with the cache off, into a folder of the session).
The test is skipped only when npm itself is not on the machine; a failed install is a
failure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.served import PASSWORDS, Served, serve
from tests.test_rest_process import serve_https

pytestmark = pytest.mark.slow

ZOWE_CLI = "@zowe/cli@8"
ZOWE_MQ = "@zowe/mq-for-zowe-cli@4"
INSTALL_SECONDS = 900  # a bound on each npm step (a cold npm cache downloads about 70 MB)


@dataclass(frozen=True)
class Zowe:
    binary: Path
    home: Path  # ZOWE_CLI_HOME: where its settings and the installed plug-in live

    def run(
        self, served: Served, command: str, *options: str, ca: Path | None = None, password: str = PASSWORDS["admin"]
    ) -> subprocess.CompletedProcess[str]:
        """`zowe mq run mqsc CSQ1 COMMAND` against the listener, as admin."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ZOWE_", "NODE_EXTRA_CA_CERTS"))}
        env["ZOWE_CLI_HOME"] = str(self.home)
        if ca is not None:
            env["NODE_EXTRA_CA_CERTS"] = str(ca)
        args = [str(self.binary), "mq", "run", "mqsc", "CSQ1", command, "--host", "127.0.0.1", "--port",
                str(served.port), "--user", "admin", "--password", password, *options]  # fmt: skip
        return subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)


def _npm_step(args: list[str], env: dict[str, str], what: str) -> None:
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=INSTALL_SECONDS)
    assert result.returncode == 0, f"{what} failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"


@pytest.fixture(scope="session")
def zowe(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Zowe:
    """The Zowe CLI and its MQ plug-in, installed with npm into the pytest cache folder
    once (the folder says which versions it holds); into a folder of the session when
    the cache is off (-p no:cacheprovider)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed on this machine: the Zowe CLI and its MQ plug-in install with npm")
    cache = getattr(request.config, "cache", None)
    folder = Path(cache.mkdir("zowe")) if cache is not None else tmp_path_factory.mktemp("zowe")
    marker = folder / "installed.json"
    wanted = {"cli": ZOWE_CLI, "plugin": ZOWE_MQ}
    binary = folder / "cli" / "node_modules" / ".bin" / "zowe"
    home = folder / "home"
    try:
        installed = json.loads(marker.read_text())
    except (OSError, ValueError):
        installed = None
    if installed != wanted or not binary.exists():
        started = time.monotonic()
        for stale in (folder / "cli", home, marker):
            if stale.is_dir():
                shutil.rmtree(stale)
            else:
                stale.unlink(missing_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ZOWE_")} | {"ZOWE_CLI_HOME": str(home)}
        _npm_step([npm, "install", "--prefix", str(folder / "cli"), "--no-audit", "--no-fund", "--loglevel=error",
                   ZOWE_CLI], env, f"npm install {ZOWE_CLI}")  # fmt: skip
        _npm_step([str(binary), "plugins", "install", ZOWE_MQ], env, f"zowe plugins install {ZOWE_MQ}")
        marker.write_text(json.dumps(wanted))
        print(f"installed {ZOWE_CLI} and {ZOWE_MQ} into {folder} in {time.monotonic() - started:.0f} s")
    return Zowe(binary, home)


@pytest.fixture
def served_http(tmp_path: Path) -> Iterator[Served]:
    yield from serve(tmp_path)


@pytest.fixture
def served_https(tmp_path: Path) -> Iterator[Served]:
    """An https listener whose certificate a CA made here (trustme) signed."""
    yield from serve_https(tmp_path)


def test_zowe_over_https_with_its_defaults_and_the_ca(served_https: Served, zowe: Zowe) -> None:
    """Zowe's defaults are https with certificates verified: given the CA through
    NODE_EXTRA_CA_CERTS it runs commands, a change included."""
    assert served_https.ca is not None
    defined = zowe.run(served_https, "DEFINE QLOCAL(ZOWE.Q) DESCR('made by zowe')", ca=served_https.ca)
    assert defined.returncode == 0, defined.stdout + defined.stderr
    assert "CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION" in defined.stdout
    shown = zowe.run(served_https, "DISPLAY QLOCAL(ZOWE.Q) DESCR", ca=served_https.ca)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "QUEUE(ZOWE.Q)" in shown.stdout and "made by zowe" in shown.stdout


def test_zowe_over_https_refuses_an_unknown_ca_unless_told_not_to_verify(served_https: Served, zowe: Zowe) -> None:
    """Without the CA, Zowe's certificate check refuses the listener; with
    --reject-unauthorized false (no verification) it connects anyway."""
    refused = zowe.run(served_https, "DISPLAY QMGR")
    assert refused.returncode != 0
    assert "unable to verify the first certificate" in refused.stderr
    assert "Allow Unauth Cert: false" in refused.stderr  # Zowe's default: --reject-unauthorized true
    unverified = zowe.run(served_https, "DISPLAY QMGR", "--reject-unauthorized", "false")
    assert unverified.returncode == 0, unverified.stdout + unverified.stderr
    assert "QMNAME(CSQ1)" in unverified.stdout


def test_zowe_over_http(served_http: Served, zowe: Zowe) -> None:
    shown = zowe.run(served_http, "DISPLAY QLOCAL(SYSTEM.DEAD.QUEUE)", "--protocol", "http")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "QUEUE(SYSTEM.DEAD.QUEUE)" in shown.stdout
    wrong = zowe.run(served_http, "DISPLAY QMGR", "--protocol", "http", password="not the password")
    assert wrong.returncode != 0 and "QMNAME" not in wrong.stdout
    assert "MQWB0104E" in wrong.stderr and "401" in wrong.stderr
