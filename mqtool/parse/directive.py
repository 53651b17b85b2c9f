"""Lexer for mqtool directives: `.name arg ... key=value key='quoted value'`."""

from __future__ import annotations

import re

from mqtool.parse.command import Directive, LexError
from mqtool.parse.quoting import split_quoted

_NAME = re.compile(r"^\.([A-Za-z][A-Za-z0-9_-]*)")
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)=(.*)$", re.DOTALL)


def lex(text: str) -> Directive:
    match = _NAME.match(text.strip())
    if not match:
        raise LexError("token", text.split()[0] if text.split() else ".", "not a directive name")
    body = text.strip()[match.end() :]
    if body and body[0] not in " \t":
        raise LexError("token", text.split()[0], "not a directive name")
    directive = Directive(text=text, name=match.group(1).lower())
    for word, _ in split_quoted(body):
        key = _KEY.match(word)
        if key:
            name = key.group(1).lower()
            if name in directive.options:
                raise LexError("repeat", name, "given twice")
            directive.options[name] = key.group(2)
        else:
            directive.args.append(word)
    return directive
