"""Completion for the operator shell: what may come next in the line being typed, read
from the dialects' keyword tables, the directive registry and a snapshot of the store."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mqtool import tables
from mqtool.parse.lines import continuation

if TYPE_CHECKING:
    from prompt_toolkit.completion import CompleteEvent, Completion
    from prompt_toolkit.document import Document

    from mqtool.state import Store

# Which dialect tables describe the objects of a platform's systems.
PLATFORM_DIALECTS: dict[str, tuple[str, ...]] = {"ztpf": ("ztpf_mq", "ztpf_http", "ztpf_mqid"), "zos": ("zos",)}
# The MQSC dialect has no command word of its own; `.help` calls it MQSC.
MQSC_HELP_WORD = "MQSC"
# The word that selects every attribute on a selecting verb (MQSC DISPLAY), as validate reads it.
SELECT_ALL = "ALL"


@dataclass(frozen=True)
class SystemView:
    name: str
    platform: str
    cpf: str = ""


@dataclass(frozen=True)
class StoreView:
    """What completion knows about the store: taken after each command in a read
    transaction of its own, so that completing never touches the store."""

    current: str | None = None
    systems: tuple[SystemView, ...] = ()
    names: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)  # (system, type) -> names
    zos: str | None = None  # where an MQSC verb without a CPF goes (Session.current_zos)

    def system(self, name: str | None) -> SystemView | None:
        for system in self.systems:
            if system.name == name:
                return system
        return None

    def current_system(self) -> SystemView | None:
        return self.system(self.current) or (self.systems[0] if self.systems else None)

    def mqsc_system(self) -> SystemView | None:
        """The z/OS system of an MQSC command without a CPF: the session's choice, else
        the current system when it is z/OS."""
        if self.zos is not None:
            return self.system(self.zos)
        current = self.current_system()
        return current if current is not None and current.platform == "zos" else None

    def by_cpf(self, word: str) -> SystemView | None:
        upper = word.upper()
        for system in self.systems:
            if system.platform == "zos" and system.cpf and system.cpf.upper() == upper:
                return system
        return None

    def object_names(self, system: SystemView | None, types: Iterable[str]) -> list[str]:
        if system is None:
            return []
        found: set[str] = set()
        for type_ in types:
            found.update(self.names.get((system.name, type_), ()))
        return sorted(found)


def snapshot(store: Store, current: str | None, zos: str | None = None) -> StoreView:
    """Reads the systems and every object name in one read transaction."""
    with store.transaction(write=False) as tx:
        systems = tx.systems()
        rows = tx.conn.execute("SELECT system, type, name FROM objects ORDER BY system, type, name").fetchall()
    names: dict[tuple[str, str], list[str]] = {}
    for system, type_, name in rows:
        names.setdefault((system, type_), []).append(name)
    return StoreView(
        current=current,
        zos=zos,
        systems=tuple(SystemView(s.name, s.platform, str(s.attrs.get("cpf") or "")) for s in systems),
        names={key: tuple(value) for key, value in names.items()},
    )


@dataclass(frozen=True)
class Candidate:
    """One completion: `text` replaces the last `-start` characters before the cursor."""

    text: str
    start: int
    display: str = ""
    meta: str = ""


def _table(dialect: str) -> tables.Table | None:
    """A dialect's table, or None while that dialect has none yet."""
    try:
        return tables.load(dialect)
    except (OSError, KeyError):
        return None


def _dialect_tables() -> list[tables.Table]:
    return [table for table in (_table(d) for d in tables.DIALECTS) if table is not None]


def _store_types(table: tables.Table, obj: str) -> list[str]:
    """The types of the store records an object's names come from: the table's `store`
    list (QUEUE -> QLOCAL, QALIAS ...; CHSTATUS -> CHANNEL), else the object itself."""
    row = table.raw.get("objects", {}).get(obj) or {}
    return [str(type_) for type_ in row.get("store") or [obj]]


def _rule_types(platform: str, rule: str) -> list[str]:
    """Store types of a platform's objects whose names follow a name rule (queue, server)."""
    found: list[str] = []
    for dialect in PLATFORM_DIALECTS.get(platform, ()):
        table = _table(dialect)
        if table is None:
            continue
        for name, row in table.raw.get("objects", {}).items():
            if (row or {}).get("name") == rule:
                found += [type_ for type_ in _store_types(table, name) if type_ not in found]
    return found


# -- the line being typed ---------------------------------------------------------


def logical_line(text: str) -> str:
    """The command being typed: the physical lines joined by the MQSC continuation rules
    (`+` joins from the first non-blank character, `-` from column 1)."""
    return _logical(text)[0]


def _logical(text: str) -> tuple[str, int]:
    """The logical line, and how many of its last characters are on the cursor's line."""
    joined = ""
    mode: str | None = None
    physical = text.split("\n")
    for index, line in enumerate(physical):
        last = index == len(physical) - 1
        if not last and (line.startswith("*") or not line.strip()):
            continue
        piece = line.lstrip(" \t") if mode == "+" else line
        if last:
            return joined + piece, len(piece)
        mode = continuation(piece)
        if mode is None:
            joined = ""  # a finished command: the one being typed starts on a later line
        else:
            joined += piece.rstrip(" ")[:-1]
    return joined, 0


@dataclass
class _Scan:
    words: list[str]  # finished words
    current: str  # the word under the cursor ("" after a blank)
    quoted: bool  # the cursor is inside an open quote


def _scan(line: str) -> _Scan:
    """Splits at blanks outside quotes and parentheses."""
    words: list[str] = []
    start: int | None = None
    quoted = False
    depth = 0
    for index, char in enumerate(line):
        if quoted:
            quoted = char != "'"
            continue
        if char in " \t" and depth == 0:
            if start is not None:
                words.append(line[start:index])
                start = None
            continue
        if start is None:
            start = index
        if char == "'":
            quoted = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
    return _Scan(words, line[start:] if start is not None else "", quoted)


def _matches(word: str, prefix: str) -> bool:
    return word.upper().startswith(prefix.upper())


def _name_text(name: str) -> str:
    """An object name as it must be typed: quoted when unquoted typing would change it."""
    if name == name.upper() and not any(char in " ,()'\t" for char in name):
        return name
    return "'" + name.replace("'", "''") + "'"


def _words(candidates: Iterable[tuple[str, str, str]], prefix: str) -> list[Candidate]:
    """(text, word matched against the prefix, meta) -> candidates replacing the prefix."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for text, word, meta in candidates:
        if text not in seen and _matches(word, prefix):
            seen.add(text)
            out.append(Candidate(text, -len(prefix), text.strip(), meta))
    return out


def _with_aliases(
    entries: Iterable[tuple[str, tuple[str, ...], str, str]],
    prefix: str,
) -> list[Candidate]:
    """(canonical word, aliases, suffix, meta): the canonical word when it matches,
    an alias only when its canonical word does not (`MQP` for QMGR)."""
    rows: list[tuple[str, str, str]] = []
    for word, aliases, suffix, meta in entries:
        if _matches(word, prefix):
            rows.append((word + suffix, word, meta))
            continue
        for alias in aliases:
            if _matches(alias, prefix):
                rows.append((alias + suffix, alias, f"= {word}: {meta}" if meta else f"= {word}"))
                break
    return _words(rows, prefix)


# -- completion -------------------------------------------------------------------


def complete(text_before_cursor: str, view: StoreView) -> list[Candidate]:
    """Everything that may replace the word under the cursor."""
    line, on_cursor_line = _logical(text_before_cursor)
    out = []
    for candidate in _complete(line, view):
        # A word begun on a previous physical line: only its part on this line is replaced.
        cut = -candidate.start - on_cursor_line
        if cut > 0:
            candidate = Candidate(candidate.text[cut:], -on_cursor_line, candidate.display, candidate.meta)
        out.append(candidate)
    return out


def _complete(line: str, view: StoreView) -> list[Candidate]:
    scan = _scan(line)
    if scan.quoted:
        return []
    if not scan.words:
        return _first_words(scan.current, view)
    first = scan.words[0]
    if first.startswith("."):
        return _directive(scan, view)
    for table in _dialect_tables():
        if table.command and table.dialect != "zos" and _is_command_word(table, first):
            system = view.current_system()
            target = system if system is not None and system.platform == "ztpf" else None
            return _ztpf(table, scan.words[1:], scan.current, target, view)
    zos = _table("zos")
    if zos is None:
        return []
    cpf_system = view.by_cpf(first)
    if cpf_system is not None:
        return _mqsc(zos, scan.words[1:], scan.current, cpf_system, view)
    return _mqsc(zos, scan.words, scan.current, view.mqsc_system(), view)


def _is_command_word(table: tables.Table, word: str) -> bool:
    from mqtool.session import ZTPF_HTTP_WORDS

    upper = word.upper()
    return upper == table.command or (table.command in ZTPF_HTTP_WORDS and upper in ZTPF_HTTP_WORDS)


def _first_words(prefix: str, view: StoreView) -> list[Candidate]:
    from mqtool.directives import DIRECTIVES
    from mqtool.session import LEAVE_WORDS

    rows: list[tuple[str, str, str]] = []
    if prefix.startswith(".") or not prefix:
        rows += [(f".{name} ", "." + name, spec.help) for name, spec in sorted(DIRECTIVES.items())]
    for table in _dialect_tables():
        if table.command:
            rows.append((table.command + " ", table.command, f"{table.command} VERB ... ({table.dialect})"))
    for system in view.systems:
        if system.platform == "zos" and system.cpf:
            rows.append((system.cpf + " ", system.cpf, f"MQSC for {system.name}"))
    out = _words(rows, prefix)
    zos = _table("zos")
    if zos is not None:
        out += _verbs(zos, prefix, "MQSC: ")
    out += _words(((word, word, "leave the shell") for word in LEAVE_WORDS), prefix)
    return out


def _verbs(table: tables.Table, prefix: str, meta_prefix: str = "") -> list[Candidate]:
    return _with_aliases(((v.name, v.abbrev, " ", meta_prefix + v.help) for v in table.verbs.values()), prefix)


def _verb_and_object(
    table: tables.Table, words: list[str], separator: str
) -> tuple[tables.VerbSpec | None, tables.ObjectSpec | None]:
    verb = table.verb(words[0]) if words else None
    obj = None
    if len(words) > 1:
        obj = table.object(words[1].split(separator, 1)[0])
    return verb, obj


def _takes_name(table: tables.Table, obj: tables.ObjectSpec, verb: tables.VerbSpec) -> bool:
    """False when the object is typed bare after this verb (QMGR, LOG)."""
    if obj.nameless or obj.name_rule is None:
        return False
    optional = (table.raw.get("objects", {}).get(obj.name) or {}).get("name_optional") or ()
    return verb.name not in optional


def _object_words(table: tables.Table, verb: tables.VerbSpec, prefix: str, opener: str) -> list[Candidate]:
    entries = []
    for name in verb.objects:
        obj = table.objects.get(name)
        if obj is None:
            continue
        suffix = opener if _takes_name(table, obj, verb) else " "
        entries.append((obj.name, obj.aliases, suffix, obj.help))
    return _with_aliases(entries, prefix)


def _keyword_words(
    table: tables.Table,
    verb: tables.VerbSpec,
    obj: tables.ObjectSpec,
    used_words: list[str],
    prefix: str,
    opener: str,
) -> list[Candidate]:
    used = set()
    for word in used_words:
        spec = table.keyword(obj, word.split(opener, 1)[0], verb)
        if spec is not None:
            used.add(spec.name)
    entries: list[tuple[str, tuple[str, ...], str, str]] = []
    for spec in tables.keyword_rows(obj, verb).values():
        if verb.name not in spec.verbs or spec.name in used:
            continue
        if spec.type == "flag":
            entries.append((spec.name, spec.abbrev, " ", spec.help))
            if spec.negation:
                entries.append((spec.negation, (), " ", f"not {spec.name}"))
        else:
            entries.append((spec.name, spec.abbrev, opener, spec.help))
    if verb.select:
        # MQSC DISPLAY: a bare attribute name selects it, ALL selects all (mqtool.validate).
        if SELECT_ALL not in [word.upper() for word in used_words]:
            entries.append((SELECT_ALL, (), " ", "every attribute"))
        for spec in obj.keywords.values():
            if spec.display and spec.type != "flag" and spec.name not in used:
                entries.append((spec.name, spec.abbrev, " ", f"show {spec.name}: {spec.help}"))
    return _with_aliases(entries, prefix)


def _values(
    table: tables.Table,
    spec: tables.KeywordSpec,
    prefix: str,
    system: SystemView | None,
    view: StoreView,
) -> list[Candidate]:
    rows: list[tuple[str, str, str]] = []
    if spec.type in ("enum", "list"):
        rows += [(value, value, spec.help) for value in spec.values]
    elif spec.type == "int":
        rows += [(word, word, spec.describe_values()) for word in spec.words]
    elif spec.type == "name" and spec.name.endswith("Q") and system is not None:
        # Keywords that name a queue (TARGQ, XMITQ, DEADQ, STREAMQ) end in Q.
        for name in view.object_names(system, _rule_types(system.platform, "queue")):
            rows.append((_name_text(name), name, "queue"))
    return _words(rows, prefix)


def _object_names(
    table: tables.Table, obj: tables.ObjectSpec, prefix: str, system: SystemView | None, view: StoreView
) -> list[Candidate]:
    names = view.object_names(system, _store_types(table, obj.name))
    return _words(((_name_text(name), name, obj.full or obj.name) for name in names), prefix)


def _list_item(value: str, separators: str) -> str:
    """The item being typed in a list value (after the last separator)."""
    cut = max(value.rfind(char) for char in separators)
    return value[cut + 1 :]


def _ztpf(
    table: tables.Table, words: list[str], current: str, system: SystemView | None, view: StoreView
) -> list[Candidate]:
    """`ZMQSC VERB OBJ-name KEYWORD-value ...`; `words` follow the command word."""
    if not words:
        return _verbs(table, current)
    verb, obj = _verb_and_object(table, [*words, current], "-")
    if verb is None:
        return []
    if len(words) == 1:
        if "-" in current:
            obj_word, _, name_prefix = current.partition("-")
            found = table.object(obj_word)
            return [] if found is None else _object_names(table, found, name_prefix, system, view)
        return _object_words(table, verb, current, "-")
    if obj is None:
        return []
    if "-" in current:
        keyword, _, value = current.partition("-")
        spec = table.keyword(obj, keyword)
        return [] if spec is None else _values(table, spec, _list_item(value, ","), system, view)
    return _keyword_words(table, verb, obj, words[2:], current, "-")


def _mqsc(
    table: tables.Table, words: list[str], current: str, system: SystemView | None, view: StoreView
) -> list[Candidate]:
    """`VERB OBJTYPE(name) KEYWORD(value) ...`; `words` follow the CPF, if any."""
    if not words:
        return _verbs(table, current)
    verb, obj = _verb_and_object(table, [*words, current], "(")
    if verb is None:
        return []
    if len(words) == 1:
        if "(" in current:
            obj_word, _, name_prefix = current.partition("(")
            found = table.object(obj_word)
            return [] if found is None else _object_names(table, found, _list_item(name_prefix, ", "), system, view)
        return _object_words(table, verb, current, "(")
    if obj is None:
        return []
    if "(" in current:
        keyword, _, value = current.partition("(")
        spec = table.keyword(obj, keyword, verb)
        return [] if spec is None else _values(table, spec, _list_item(value, ", "), system, view)
    return _keyword_words(table, verb, obj, words[2:], current, "(")


# -- directives -------------------------------------------------------------------

# What a placeholder of a directive's usage line (`.put QUEUE ...`) is completed from.
_PLACEHOLDER_RULES = {"QUEUE": "queue", "SERVER": "server"}
_PLACEHOLDER_SYSTEM = "SYSTEM"
_PLACEHOLDER_HELP = "TOPIC"
# `.system NAME`: a NAME that is a system's (elsewhere NAME is no system: `.httpconf NAME`).
_DIRECTIVE_PLACEHOLDERS = {("system", "NAME"): _PLACEHOLDER_SYSTEM}


def _placeholders(usage: str) -> list[str]:
    """The positional arguments of a usage line: `.put QUEUE [count=N]` -> [QUEUE]."""
    out = []
    for word in usage.split()[1:]:
        bare = word.strip("[]")
        if bare and "=" not in bare and bare != "...":
            out.append(bare.rstrip("."))
    return out


def _directive(scan: _Scan, view: StoreView) -> list[Candidate]:
    from mqtool.directives import DIRECTIVES

    name = scan.words[0][1:].lower()
    spec = DIRECTIVES.get(name)
    if spec is None or "=" in scan.current:
        return []
    args = [word for word in scan.words[1:] if "=" not in word]
    given = {word.split("=", 1)[0].lower() for word in scan.words[1:] if "=" in word}
    placeholders = _placeholders(spec.usage)
    out: list[Candidate] = []
    if placeholders and (len(args) < len(placeholders) or placeholders[-1] == _PLACEHOLDER_HELP):
        placeholder = placeholders[min(len(args), len(placeholders) - 1)]
        placeholder = _DIRECTIVE_PLACEHOLDERS.get((name, placeholder), placeholder)
        out += _placeholder(placeholder, args, scan.current, view)
    options = [(f"{option}=", option, f"option of .{name}") for option in spec.options if option not in given]
    out += _words(options, scan.current)
    return out


def _placeholder(placeholder: str, args: list[str], prefix: str, view: StoreView) -> list[Candidate]:
    system = view.current_system()
    if placeholder.islower():  # a literal word: `.console [all]`
        return _words([(placeholder + " ", placeholder, "")], prefix)
    if placeholder == _PLACEHOLDER_SYSTEM:
        rows = [(s.name, s.name, {"ztpf": "z/TPF", "zos": "z/OS"}.get(s.platform, s.platform)) for s in view.systems]
        return _words(rows, prefix)
    if placeholder in _PLACEHOLDER_RULES and system is not None:
        types = _rule_types(system.platform, _PLACEHOLDER_RULES[placeholder])
        return _words(((_name_text(n), n, placeholder.lower()) for n in view.object_names(system, types)), prefix)
    if placeholder == _PLACEHOLDER_HELP:
        return _help_topic(args, prefix)
    return []


def _help_topic(args: list[str], prefix: str) -> list[Candidate]:
    """`.help`, `.help ZMQSC`, `.help ZMQSC DEFINE`, `.help MQSC DEFINE QLOCAL`."""
    from mqtool.directives import DIRECTIVES

    by_word = {(table.command or MQSC_HELP_WORD): table for table in _dialect_tables()}
    if not args:
        rows = [(word, word, f"the {table.dialect} dialect") for word, table in by_word.items()]
        rows += [(name, name, f".{name}: {spec.help}") for name, spec in sorted(DIRECTIVES.items())]
        return _words(rows, prefix)
    table = by_word.get(args[0].upper())
    if table is None:
        return []
    if len(args) == 1:
        return _verbs(table, prefix)
    verb = table.verb(args[1])
    if len(args) == 2 and verb is not None:
        return _with_aliases(
            (
                (table.objects[o].name, table.objects[o].aliases, " ", table.objects[o].help)
                for o in verb.objects
                if o in table.objects
            ),
            prefix,
        )
    return []


# -- the prompt_toolkit side ----------------------------------------------------------


def make_completer(view: Callable[[], StoreView]) -> Any:
    """A prompt_toolkit Completer over `complete`; a failure completes nothing rather
    than reaching the user as a traceback."""
    from prompt_toolkit.completion import Completer, Completion

    class ShellCompleter(Completer):
        def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
            try:
                found = complete(document.text_before_cursor, view())
            except Exception:
                return
            for candidate in found:
                yield Completion(
                    candidate.text,
                    start_position=candidate.start,
                    display=candidate.display or candidate.text,
                    display_meta=candidate.meta,
                )

    return ShellCompleter()
