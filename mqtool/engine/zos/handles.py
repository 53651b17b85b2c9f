"""The queue handles open on z/OS queues, with the processes that hold them
(`open_handles`): DISPLAY QSTATUS counts those of live processes as IPPROCS and
OPPROCS, and the queue statistics their highs and lows. The counting is the message
core's (engine/core/opens.py), which triggering uses too."""

from __future__ import annotations

from mqtool.engine.core.opens import live_handles

__all__ = ["live_handles"]
