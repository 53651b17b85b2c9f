"""Lexer for mqtool directives: `.name arg ... key=value key='quoted value'`."""

from __future__ import annotations

import re

from mqtool.parse.command import Directive, LexError

_NAME = re.compile(r"^\.([A-Za-z][A-Za-z0-9_-]*)")
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)=(.*)$", re.DOTALL)


def _split(text: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    quoted = False
    started = False
    word_start = 0
    i = 0
    while i < len(text):
        char = text[i]
        if not started:
            word_start = i
        if quoted:
            if char == "'":
                if i + 1 < len(text) and text[i + 1] == "'":
                    current.append("'")
                    i += 2
                    continue
                quoted = False
            else:
                current.append(char)
        elif char == "'":
            quoted = True
            started = True
        elif char in " \t":
            if started:
                words.append("".join(current))
            current, started = [], False
        else:
            current.append(char)
            started = True
        i += 1
    if quoted:
        raise LexError("quote", text[word_start:].rstrip(), "unbalanced apostrophes")
    if started:
        words.append("".join(current))
    return words


def lex(text: str) -> Directive:
    match = _NAME.match(text.strip())
    if not match:
        raise LexError("token", text.split()[0] if text.split() else ".", "not a directive name")
    body = text.strip()[match.end() :]
    if body and body[0] not in " \t":
        raise LexError("token", text.split()[0], "not a directive name")
    directive = Directive(text=text, name=match.group(1).lower())
    for word in _split(body):
        key = _KEY.match(word)
        if key:
            name = key.group(1).lower()
            if name in directive.options:
                raise LexError("repeat", name, "given twice")
            directive.options[name] = key.group(2)
        else:
            directive.args.append(word)
    return directive
