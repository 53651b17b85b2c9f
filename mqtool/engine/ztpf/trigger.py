"""z/TPF MQ triggering (TPF 4.1: TRIGTYPE and PROCESS of a local queue, the user exit
CUIR): a message that arrives on an empty queue with TRIGTYPE-FIRST activates the
queue's PROCESS program, or CUIR when it has none, with the message's MQMD and the
trigger message (MQTM). z/TPF has no initiation queue and no trigger monitor: the queue
manager activates the program itself. mqtool runs no z/TPF programs: the activation is
the console message MQSC0431I, written in the transaction of the put, so it exists
exactly when the message that caused it was committed.

The condition is the platform's own (FIRST: depth 0 to 1, the queue GET-ENABLED); the
MQTM layout and the trigger conditions of IBM MQ (EVERY, DEPTH, TRIGMPRI, initiation
queues) are the engine core's (engine/core, z/OS), which z/TPF does not use.
"""

from __future__ import annotations

from typing import Any

from mqtool.engine.console import console
from mqtool.state import SystemRecord, Transaction

USER_EXIT = "CUIR"  # the TPF MQSeries queue trigger user exit


def first_trigger(attrs: dict[str, Any]) -> str:
    """The program a first message activates on a local queue with these attributes:
    its PROCESS (CUIR when blank) for TRIGTYPE-FIRST on a GET-ENABLED queue, else ""."""
    if attrs.get("TRIGTYPE", "NONE") != "FIRST" or attrs.get("GET", "ENABLED") == "DISABLED":
        return ""
    return str(attrs.get("PROCESS") or USER_EXIT)


def activate(tx: Transaction, system: SystemRecord, queue: str, program: str, when: float) -> None:
    """The trigger event of `queue`: `program` is activated (the console says so)."""
    console(tx, system, when, "MQSC0431I", queue=queue, program=program)
