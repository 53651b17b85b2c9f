"""How the benchmarks start mqtool as a whole process: as a user would, with the
environment's PYTHON* and MQTOOL_* variables removed (so Python writes and uses bytecode
and mqtool its parsed-table cache, and no test setting leaks in)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def user_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("MQTOOL_", "PYTHON"))}


def init_store(state: Path) -> None:
    """A new store in `state` (`mqtool init`), not timed."""
    subprocess.run([sys.executable, "-m", "mqtool", "--state", str(state), "init"], env=user_env(), check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
