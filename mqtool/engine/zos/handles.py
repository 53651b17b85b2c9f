"""The queue handles open on z/OS queues, with the processes that hold them
(`open_handles`): DISPLAY QSTATUS counts those of live processes as IPPROCS and
OPPROCS, and the queue statistics their highs and lows."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqtool.state import Transaction


def live_handles(tx: Transaction, system: str, queue: str) -> tuple[int, int]:
    """(IPPROCS, OPPROCS): handles open for input and for output on a local queue, held
    by processes that are alive."""
    inputs = outputs = 0
    for pid, is_input, is_output in tx.conn.execute(
        "SELECT pid, input, output FROM open_handles WHERE system = ? AND queue = ?", (system, queue)
    ):
        if alive(int(pid)):
            inputs += int(is_input)
            outputs += int(is_output)
    return inputs, outputs


def alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
