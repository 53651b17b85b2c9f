"""Unsolicited z/TPF console messages of the engine (sweeper, QDEPTHHI, SWB shortage):
a catalogue id and its fields, stored as the console line `MSGID hh.mm.ss text` in the
system's local time, for `mqtool console`, `mqtool serve`, the shell and `.console`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mqtool import messages
from mqtool.clock import parse_offset
from mqtool.state import SystemRecord, Transaction


def console(tx: Transaction, system: SystemRecord, when: float, msg_id: str, **fields: Any) -> str:
    """Records the message in the console table; returns the line stored."""
    offset = parse_offset(str(system.attrs.get("offset", "+00:00")))
    local = datetime.fromtimestamp(when, UTC) + offset
    line = f"{msg_id} {local:%H.%M.%S} {messages.text(msg_id, fields)}"
    tx.console(system.name, when, line)
    return line
