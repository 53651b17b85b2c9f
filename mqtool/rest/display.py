"""runCommandJSON bodies of z/OS displays written straight from the handler's Response:
one pass from each block's (keyword, value) lines to the bytes of the body, with no
dictionaries of parameters built and then walked again by json.dumps. The bytes are
the ones `json_reply(200, response_json(...))` writes (json.dumps with compact
separators, ASCII escapes): tests/test_rest_display.py compares them for every display.

Only the common answer is written here: a successful response whose objects are plain
z/OS display blocks (CSQM201I). Anything else (a failure, a z/TPF display, a nested
block of DISPLAY CONN, a block naming one parameter twice) gets None, and the caller
renders it through mqtool.render.json as before.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _string
from typing import Any

from mqtool import tables
from mqtool.render.json import FIGURES, OBJECT_RUNS, ONE_OBJECT, STATUS_NAMES, json_value, parameter_name
from mqtool.response import Response

# The other messages render.json makes objects of (z/TPF displays and figures).
_OTHER_OBJECTS = frozenset((*OBJECT_RUNS, *FIGURES))
_HEAD = b'{"commandResponse":['
_ITEM = '{"completionCode":0,"reasonCode":0,"parameters":{'
_TAIL = b'],"overallCompletionCode":0,"overallReasonCode":0}'
# Per keyword table and object type: each (keyword, value) line written before (a
# value of text or none), as its `"name":value` text and its parameter name; at most
# _LINES_KEPT lines per object type and _TYPES_KEPT object types (then emptied).
_WRITTEN: dict[str, dict[tuple[str, Any], tuple[str, str]]] = {}
_WRITTEN_TABLE: list[tables.Table] = []
_LINES_KEPT = 4096
# Only values up to this many characters are kept (a list of 256 names is not).
_VALUE_KEPT = 256
_TYPES_KEPT = 256


def display_body(response: Response) -> bytes | None:
    """The runCommandJSON body of a successful z/OS display, or None (see the module
    docstring)."""
    if not response.ok:
        return None
    blocks = []
    for message in response.messages:
        if message.id in ONE_OBJECT:
            if message.fields.get("nested"):
                return None
            blocks.append(message)
        elif message.id in _OTHER_OBJECTS:
            return None
    if not blocks:
        return None
    table = tables.load("zos")
    items = []
    for message in blocks:
        item = _block(table, message)
        if item is None:
            return None
        items.append(item)
    return _HEAD + ",".join(items).encode("ascii") + _TAIL


def _block(table: tables.Table, message: Any) -> str | None:
    """One display block as its commandResponse item (the text of render.json's
    _zos_parameters dictionary as json.dumps writes it); None when two lines give the
    same parameter (the dictionary would keep one of them)."""
    wanted = str(message.fields.get("objtype", ""))
    if wanted == "QUEUE":
        # DISPLAY QUEUE: each queue has the attributes of its own type.
        wanted = next((str(v) for k, v in message.attrs if k == "TYPE"), wanted)
    written = _written(table, wanted)
    parts = []
    names = []
    for line in message.attrs:
        found = written.get(line) if line[1] is None or type(line[1]) is str else None
        if found is None:
            found = _line(table, wanted, *line)
            if line[1] is None or (type(line[1]) is str and len(line[1]) <= _VALUE_KEPT):
                if len(written) >= _LINES_KEPT:
                    written.clear()
                written[line] = found
        part, name = found
        if part:
            parts.append(part)
            names.append(name)
    if len(set(names)) != len(names):
        return None
    return _ITEM + ",".join(parts) + "}}"


def _written(table: tables.Table, wanted: str) -> dict[tuple[str, Any], tuple[str, str]]:
    """The lines of blocks of object type `wanted` written before (a display's lines
    come again and again: the same keywords, mostly the same values)."""
    if not _WRITTEN_TABLE or _WRITTEN_TABLE[0] is not table:  # another table: start again
        _WRITTEN.clear()
        _WRITTEN_TABLE[:] = [table]
    written = _WRITTEN.get(wanted)
    if written is None:
        if len(_WRITTEN) >= _TYPES_KEPT:
            _WRITTEN.clear()
        written = _WRITTEN[wanted] = {}
    return written


def _line(table: tables.Table, wanted: str, key: str, value: Any) -> tuple[str, str]:
    """One line of a block of object type `wanted` as `"name":value` and its parameter
    name, typed as render.json._zos_parameters types it; ("", "") for a line it leaves out."""
    spec = table.object(wanted)
    if value is None:
        # A switch shown as its word (TRIGGER, NOTRIGGER): "yes" or "no"; other bare
        # words (CURRENT) are left out.
        switch = table.keyword(spec, key) if spec is not None else None
        if switch is None or switch.type != "switch":
            return "", ""
        name = parameter_name(switch.name)
        return f'{_string(name)}:"{"yes" if key == switch.name else "no"}"', name
    keyword = spec.keywords.get(key) if spec is not None else None
    name = parameter_name(STATUS_NAMES.get(wanted, {}).get(key, key))
    prefix = _string(name) + ":"
    if not isinstance(value, str):
        return prefix + json.dumps(json_value(value), separators=(",", ":")), name
    kind = None if keyword is None else keyword.type
    text = value.strip()
    if kind == "int" and text.isdigit():
        return prefix + str(int(text)), name
    if kind in ("list", "names"):
        return prefix + "[" + ",".join(_string(item.strip()) for item in text.split(",") if item.strip()) + "]", name
    return prefix + _string(text), name
