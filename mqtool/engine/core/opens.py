"""The queue handles open on local queues, with the processes that hold them
(`open_handles`, written by a platform's ledger when a handle opens): how many are open
for input and for output in processes that are alive. DISPLAY QSTATUS shows them as
IPPROCS and OPPROCS; triggering asks whether a queue is open for input."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqtool.processes import alive

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


def open_for_input(tx: Transaction, system: str, queue: str) -> bool:
    """Whether a live process holds the local queue open for input (IPPROCS > 0)."""
    for (pid,) in tx.conn.execute(
        "SELECT pid FROM open_handles WHERE system = ? AND queue = ? AND input = 1", (system, queue)
    ):
        if alive(int(pid)):
            return True
    return False

    return True
