"""Turning responses into console text, in each dialect's framing. Renderers never
touch the store."""

from __future__ import annotations

from datetime import datetime

from mqtool import messages
from mqtool.response import NO_CSECT, Message, Response
from mqtool.state.records import SystemRecord


def _value(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def _message_lines(message: Message, prefix: str) -> list[str]:
    """The catalogue text of a message: the first line carries the prefix (id, time or
    CPF), continuation lines of the template stand alone."""
    lines: list[str] = []
    if message.id:
        text = messages.text(message.id, message.fields)
        first, *rest = text.split("\n")
        lines.append(f"{prefix}{first}" if first else prefix.rstrip())
        lines.extend(rest)
    return lines


def render_ztpf(response: Response, system: SystemRecord, local: datetime) -> list[str]:
    attrs = system.attrs
    stamp = f"{local.hour:02d}.{local.minute:02d}.{local.second:02d}"  # %H.%M.%S, without strftime
    header = (
        f"CSMP0097I {stamp} CPU-{attrs.get('processor', 'B')} SS-{attrs.get('subsystem', 'BSS'):<4} "
        f"SSU-{attrs.get('ssu', 'HPN'):<4} IS-{int(attrs.get('istream', 1)):02d}"
    )
    out = [header]
    for message in response.messages:
        out.extend(_message_lines(message, f"{message.id} {stamp} "))
        for key, value in message.attrs:
            out.append(f"{key} {_value(value)}".rstrip())
        out.extend(message.lines)
    if response.display:
        out.append("END OF DISPLAY+")
    elif len(out) > 1:
        out[-1] += "+"
    return out


def render_zos(response: Response, system: SystemRecord) -> list[str]:
    cpf = system.attrs.get("cpf", "-" + system.name)
    out: list[str] = []
    for message in response.messages:
        csect = message.csect or response.csect
        prefix = f"{message.id} {cpf} " if csect == NO_CSECT else f"{message.id} {cpf} {csect} "
        out.extend(_message_lines(message, prefix))
        for key, value in message.attrs:
            out.append(key if value is None else f"{key}({_value(value)})")
        out.extend(message.lines)
    if response.verb_words:
        if response.ok:
            out.append(f"CSQ9022I {cpf} {response.csect} ' {response.verb_words}' NORMAL COMPLETION")
        else:
            out.append(f"CSQ9023E {cpf} {response.csect} ' {response.verb_words}' ABNORMAL COMPLETION")
    return out


def render_plain(response: Response) -> list[str]:
    out: list[str] = []
    for message in response.messages:
        out.extend(_message_lines(message, f"{message.id} " if message.id != messages.ECHO else ""))
        for key, value in message.attrs:
            out.append(f"{key} {_value(value)}".rstrip())
        out.extend(message.lines)
    return out


def render(response: Response, system: SystemRecord | None, local: datetime) -> list[str]:
    if response.framing == "ztpf" and system is not None:
        return render_ztpf(response, system, local)
    if response.framing == "zos" and system is not None:
        return render_zos(response, system)
    return render_plain(response)
