"""SUSPEND QMGR LOG and RESUME QMGR LOG, the engine side: the suspension is one entry of
the queue manager's status (`log_suspended`: the RBA the log stopped at), so it survives
the process that made it and is read with the QMGR record the engine reads anyway.

On z/OS an update waits until RESUME QMGR LOG. mqtool refuses it instead (a waiting
command would hang an operator's shell or a script): a put, a get that removes a
message, a command that changes a definition (commands/zos/__init__.py) answer at once,
change nothing, and say why; browses and displays go on. A channel waits (it sends no
batch while either end is suspended) and runs on after RESUME (mqtool-zos(7))."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqtool.engine.core.reasons import Q_MGR_NOT_AVAILABLE, MQError

if TYPE_CHECKING:
    from mqtool.state import ObjectRecord

KEY = "log_suspended"  # in the QMGR record's status: the RBA of the suspension
# The reason an update gets while the log is suspended: the queue manager is not
# available for updates now and will be again (an MQ client retries it; REST's 503).
REASON = Q_MGR_NOT_AVAILABLE


def suspended_at(manager: ObjectRecord | None) -> int | None:
    """The RBA the log was suspended at, None when it is not suspended."""
    if manager is None:
        return None
    rba = manager.status.get(KEY)
    return None if rba is None else int(rba)


def suspend(manager: ObjectRecord, rba: int) -> None:
    manager.status[KEY] = rba


def resume(manager: ObjectRecord) -> None:
    manager.status.pop(KEY, None)


def refusal(qmgr: str, what: str) -> MQError:
    """The MQError of an update refused while the log of `qmgr` is suspended."""
    return MQError(REASON, f"{what} refused: log update activity of {qmgr} is suspended (SUSPEND QMGR LOG) "
                           "until RESUME QMGR LOG")  # fmt: skip


def waits(*managers: Any) -> bool:
    """Whether a channel between these queue managers waits (one of them is suspended)."""
    return any(m is not None and KEY in m.status for m in managers)
