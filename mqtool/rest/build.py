"""runCommandJSON's document as the parsed command (`mqtool.parse.command.Command`) the
lexers produce, built field by field and never written out as command text and read
again: a JSON value is one value of its keyword, whatever characters it holds (a blank,
a parenthesis, a quote, `USAGE-XMITQ`), so no value can become syntax. What cannot be
one value (an object, a list where one value is wanted, a control character, a value
longer than its keyword takes) is refused with RestError before anything runs.

- MQSC (z/OS): `{"command": "define", "qualifier": "qlocal", "name": "Q1",
  "parameters": {"descr": "x"}}` is the Command of `DEFINE QLOCAL(Q1) DESCR('x')`;
- z/TPF: the same document for a z/TPF queue manager is the Command of
  `ZMQSC DEFINE QL-Q1 DESCR-'x'` (mqtool's extension); the qualifier SERVER makes a
  ZHTPS command, the qualifier MQID a ZMQID command on an MQI channel directory entry.

`Command.text` is the command as an operator would type it, quoted so that it reads
back the same: it is shown in replies that echo the command, never parsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mqtool import tables
from mqtool.parse.command import Command, LexError, Param

from .reply import RestError

#: A keyword of the body (an attribute name) and a command or qualifier word.
KEYWORD = re.compile(r"[A-Za-z][A-Za-z0-9]{0,15}")
WORD = re.compile(r"[A-Za-z]{1,16}")
#: The longest name a body may give (MQ names are at most 48 characters).
MAX_NAME = 48
#: The longest value of a keyword the table gives no length for (a WHERE filter, a
#: keyword the table does not know and will refuse), and the most items of a list.
MAX_VALUE = 1024
MAX_ITEMS = 256
#: The MQSC commands IBM's REST API documents as not supported in a JSON formatted
#: command ("POST - JSON formatted command", IBM MQ 9.1.3 to 9.4): their replies are
#: lines of text, not objects. runCommand takes them.
JSON_UNSUPPORTED = frozenset(
    f"DISPLAY {obj}" for obj in ("ARCHIVE", "CHINIT", "GROUP", "LOG", "SECURITY", "SYSTEM", "THREAD", "TRACE", "USAGE")
)
_YES, _NO = ("yes", "true"), ("no", "false")
#: z/TPF qualifiers that are another command than ZMQSC: a server (ZHTPS), an entry of the
#: MQI channel directory (ZMQID); and the first word of each dialect's command.
ZTPF_QUALIFIERS = {"SERVER": "ztpf_http", "MQID": "ztpf_mqid"}
COMMAND_WORDS = {"ztpf_mq": "ZMQSC", "ztpf_http": "ZHTPS", "ztpf_mqid": "ZMQID"}


@dataclass
class Built:
    """A runCommandJSON document ready to run: its command, and the refusal (a response
    body) to answer instead when the document asks for something the command cannot
    take (a WHERE filter on anything but an MQSC DISPLAY)."""

    command: Command
    dialect: str
    refusal: str | None = None  # the command text a WHERE filter was given for


def field(document: dict[str, Any], name: str, kind: type, required: bool = False) -> Any:
    """A field of the body of the JSON type wanted; RestError 400 (MQT0362E) otherwise."""
    value = document.get(name)
    if value is None:
        if required:
            raise RestError(400, "MQT0362E", field=name, problem="is missing")
        return None
    if isinstance(value, bool) or not isinstance(value, kind):
        names: dict[type, str] = {str: "a string", dict: "an object", list: "an array"}
        raise RestError(400, "MQT0362E", field=name, problem=f"must be {names[kind]}")
    return value


def words(document: dict[str, Any]) -> tuple[str, str, str | None]:
    """The command, qualifier and name of a runCommandJSON body: a verb and an object
    type are one word of letters each; a name has up to 48 printable characters."""
    found = []
    for field_name in ("command", "qualifier"):
        word = field(document, field_name, str, required=True).strip()
        if not WORD.fullmatch(word):
            raise RestError(400, "MQT0362E", field=field_name, problem=f"{word[:40]!r} is not one word of letters")
        found.append(word.upper())
    name = field(document, "name", str)
    if name is not None and (len(name) > MAX_NAME or not name.isprintable()):
        raise RestError(400, "MQT0362E", field="name", problem=f"must be up to {MAX_NAME} printable characters")
    return found[0], found[1], name or None


def build(document: dict[str, Any], platform: str) -> Built:
    """The Command of a runCommandJSON body for a queue manager of `platform` (zos or
    ztpf); RestError 400 for what cannot be one command."""
    verb, qualifier, name = words(document)
    parameters = field(document, "parameters", dict) or {}
    wanted = field(document, "responseParameters", list)
    where = field(document, "where", str)
    if platform == "zos":
        dialect = "zos"
    else:
        dialect = ZTPF_QUALIFIERS.get(qualifier, "ztpf_mq")
        if dialect == "ztpf_mqid":
            qualifier = "CHANNEL"  # an entry of the MQI channel directory: ZMQID VERB CHannel-name
        if where is not None:
            raise RestError(400, "MQT0362E", field="where", problem="applies to MQSC (z/OS) DISPLAY commands only")
    table = tables.load(dialect)
    obj = table.object(qualifier)
    if dialect == "zos":
        _json_supported(table, verb, qualifier)
    command = Command(text="", dialect=dialect, verb=verb, object=qualifier, name=name, name_quoted=name is not None)
    if dialect == "zos" and name is not None:
        command.object_value = [name]
    for key, value in parameters.items():
        if not isinstance(key, str) or not KEYWORD.fullmatch(key):
            raise RestError(
                400, "MQT0362E", field="parameters", problem=f"has a key {str(key)[:40]!r} that is no attribute name"
            )
        if dialect == "zos" and key.upper() == "WHERE":
            if not isinstance(value, str):
                raise RestError(400, "MQT0362E", field="parameters.where", problem="must be a string")
            where = value
            continue
        spec = table.keyword(obj, key) if obj is not None else None
        command.params.append(_param(key.upper(), value, spec))
    spec_verb = table.verb(verb)
    display = spec_verb is not None and spec_verb.name == "DISPLAY"
    if wanted is not None:
        if len(wanted) > MAX_ITEMS or not all(isinstance(item, str) and KEYWORD.fullmatch(item) for item in wanted):
            raise RestError(400, "MQT0362E", field="responseParameters", problem="must be an array of attribute names")
        if display and dialect == "zos":
            chosen = ["ALL"] if any(item.lower() == "all" for item in wanted) else [item.upper() for item in wanted]
            command.params.extend(Param(item, None) for item in chosen)
    refusal = None
    if where is not None and where.strip():
        if not display:
            refusal = text_of(command)
        else:
            command.params.append(Param("WHERE", *_filter(where)))
    command.text = text_of(command)
    return Built(command, dialect, refusal)


def _json_supported(table: tables.Table, verb: str, qualifier: str) -> None:
    """RestError 400 (MQT0369E) for a command IBM's runCommandJSON does not take."""
    known_verb, known_object = table.verb(verb), table.object(qualifier)
    words = f"{known_verb.name if known_verb else verb} {known_object.full if known_object else qualifier}"
    if words in JSON_UNSUPPORTED:
        raise RestError(400, "MQT0369E", command=words)


def _param(keyword: str, value: Any, spec: tables.KeywordSpec | None) -> Param:
    """One parameter as one value of its keyword (see the module docstring)."""
    flag = spec is not None and spec.type in ("flag", "switch")  # a switch: TRIGGER/NOTRIGGER
    if value is None or value is True or (flag and isinstance(value, str) and value.lower() in ("", *_YES)):
        return Param(keyword, None)
    if value is False or (flag and isinstance(value, str) and value.lower() in _NO):
        negation = spec.negation if spec is not None and spec.negation else f"NO{keyword}"
        return Param(negation, None)
    if isinstance(value, list):
        if spec is not None and spec.type not in ("list", "names", "filter"):
            raise _refused(keyword, "takes one value, not an array")
        if len(value) > MAX_ITEMS:
            raise _refused(keyword, f"has more than {MAX_ITEMS} items")
        return Param(keyword, [_one(keyword, item, spec) for item in value], True)
    return Param(keyword, _one(keyword, value, spec), True)


def _one(keyword: str, value: Any, spec: tables.KeywordSpec | None) -> str:
    """One value as text: a string as it is, a whole number in digits."""
    if isinstance(value, (bool, dict, list)) or value is None:
        kind = (
            "an object" if isinstance(value, dict) else "an array" if isinstance(value, list) else "true, false or null"
        )
        raise _refused(keyword, f"holds {kind} where one value is wanted")
    if isinstance(value, float):
        if not value.is_integer():
            raise _refused(keyword, f"{value!r} is not a whole number")
        value = int(value)
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        raise _refused(keyword, "is not a string or a number")
    if not value.isprintable():
        raise _refused(keyword, "holds a control character")
    sized = spec is not None and spec.type in ("text", "name", "names", "conname") and spec.max
    limit = spec.max if sized and spec is not None and spec.max else MAX_VALUE
    if len(value) > limit:
        raise _refused(keyword, f"is longer than the {limit} characters it takes")
    return value


def _refused(keyword: str, problem: str) -> RestError:
    return RestError(400, "MQT0366E", keyword=keyword, problem=problem)


def _filter(where: str) -> tuple[str | list[str], bool]:
    """A runCommandJSON `where` as the lexer gives WHERE(...)'s value: the words of the
    filter, unquoted ones in upper case. The filter is an expression (keyword, operator,
    value), so it is split into its words; they stay the value of WHERE."""
    from mqtool.parse import mqsc

    if len(where) > MAX_VALUE or not where.isprintable():
        raise RestError(400, "MQT0362E", field="where", problem=f"must be up to {MAX_VALUE} printable characters")
    try:
        items = mqsc.split_items(where)
    except LexError:
        raise RestError(400, "MQT0362E", field="where", problem="has unbalanced apostrophes or parentheses") from None
    values = [value if quoted else value.upper() for value, quoted in items]
    quoted = any(quoted for _, quoted in items)
    return (values[0] if len(values) == 1 else values), quoted


# --------------------------------------------------------------------- the text
def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_PLAIN = re.compile(r"[A-Z0-9./_%*]+")


def _shown(value: str, quoted: bool) -> str:
    return quote(value) if quoted and not _PLAIN.fullmatch(value) else value


def text_of(command: Command) -> str:
    """The command as typed in its dialect, every value quoted where it needs it."""
    zos = command.dialect == "zos"
    out = []
    if not zos:
        out.append(COMMAND_WORDS.get(command.dialect, "ZMQSC"))
    out.append(command.verb)
    if command.object:
        if command.name is None:
            out.append(command.object)
        elif zos:
            out.append(f"{command.object}({_shown(command.name, True)})")
        else:
            out.append(f"{command.object}-{_shown(command.name, True)}")
    for param in command.params:
        if param.value is None:
            out.append(param.keyword)
            continue
        items = param.value if isinstance(param.value, list) else [param.value]
        value = ",".join(_shown(item, param.quoted) for item in items)
        if param.keyword == "WHERE" and isinstance(param.value, list):
            value = " ".join(_shown(item, False) for item in items)
        out.append(f"{param.keyword}({value})" if zos else f"{param.keyword}-{value}")
    return " ".join(out)
