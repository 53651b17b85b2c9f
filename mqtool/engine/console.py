"""Unsolicited console messages of the engine (sweeper, QDEPTHHI, SWB shortage, page set
expansion, CSQM587E ...): a catalogue id and its fields, stored as the console line of
the system's platform, for `mqtool console`, `mqtool serve`, the shell and `.console`:
`MSGID hh.mm.ss text` on z/TPF (the system's local time), `MSGID -CPF CSECT text` on
z/OS (as the MVS console shows MQ messages)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mqtool import messages
from mqtool.clock import parse_offset
from mqtool.state import SystemRecord, Transaction


def console(tx: Transaction, system: SystemRecord, when: float, msg_id: str, csect: str = "", **fields: Any) -> str:
    """Records the message in the console table; returns the line stored."""
    text = messages.text(msg_id, fields)
    if system.platform == "zos":
        cpf = str(system.attrs.get("cpf", "-" + system.name))
        line = f"{msg_id} {cpf} {csect} {text}" if csect else f"{msg_id} {cpf} {text}"
    else:
        offset = parse_offset(str(system.attrs.get("offset", "+00:00")))
        local = datetime.fromtimestamp(when, UTC) + offset
        line = f"{msg_id} {local:%H.%M.%S} {text}"
    tx.console(system.name, when, line)
    return line
