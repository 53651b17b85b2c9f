"""The keyword tables of each dialect (commands/<dialect>/keywords.yaml) and validation against them.

The parser, the validator, shell completion, `.help`, export and the man pages all read
these tables; adding a keyword is one table row plus its behaviour.
"""

from __future__ import annotations

import functools
import marshal
import os
import re
import sys
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, ValuesView
from pathlib import Path
from typing import Any

from mqtool.record import Frozen, Record, set_field

DIALECTS = ("ztpf_mq", "ztpf_http", "zos", "ztpf_mqid")
# MQSC DISPLAY ... WHERE(keyword operator value): a keyword of type `filter` takes these.
FILTER_OPERATORS = ("LT", "GT", "EQ", "NE", "LE", "GE", "LK", "NL", "CT", "EX", "CTG", "EXG")

_NAME_PATTERNS = {
    # z/TPF and MQ object names: A-Z a-z 0-9 . / _ %
    "mq": r"^[A-Za-z0-9./_%]+$",
    # an HTTP server name: letters and digits (z/TPF server names)
    "server": r"^[A-Za-z0-9]+$",
    # a z/OS subsystem id: a letter then letters/digits
    "ssid": r"^[A-Za-z][A-Za-z0-9]*$",
    # a z/OS trace type (STAT, G, ...) or * for all
    "trace": r"^([A-Za-z]+|\*)$",
    # topic strings and subscription names: any printable text (no control characters)
    "any": r"^[^\x00-\x1f\x7f]+$",
    # a CHLAUTH profile: a channel name with * anywhere (issue 17)
    "chlauth": r"^[A-Za-z0-9./_%*]+$",
    # bread-last: a number given as an object's value (DEFINE MAXSMSGS(5000)); a z/OS data
    # set name (DEFINE LOG(CSQ1.LOGCOPY1.DS04)): qualifiers of 1-8 characters, the first
    # a letter or # @ $, the others also digits and -, separated by dots
    "digits": r"^[0-9]+$",
    "dsname": r"^[A-Za-z#@$][A-Za-z0-9#@$-]{0,7}(\.[A-Za-z#@$][A-Za-z0-9#@$-]{0,7})*$",
}


class _Patterns(dict[str, "re.Pattern[str]"]):
    """The name patterns by rule, each compiled when first used (compiling all of them
    cost every command's start-up more than half a millisecond)."""

    def __missing__(self, key: str) -> re.Pattern[str]:
        pattern = self[key] = re.compile(_NAME_PATTERNS[key])
        return pattern

    def __contains__(self, key: object) -> bool:
        return key in _NAME_PATTERNS


NAME_CHARS = _Patterns()


class NameRule(Frozen, frozen=True):
    """How an object's names are formed."""

    __slots__ = _FIELDS = ("max", "chars", "reserved", "generic")
    max: int
    chars: str
    reserved: tuple[str, ...]
    generic: bool  # a trailing * is accepted by DISPLAY

    def __init__(self, max: int, chars: str = "mq", reserved: tuple[str, ...] = (), generic: bool = True) -> None:
        set_field(self, "max", max)
        set_field(self, "chars", chars)
        set_field(self, "reserved", reserved)
        set_field(self, "generic", generic)


class KeywordSpec(Frozen, frozen=True):
    """One keyword of one object type."""

    __slots__ = _FIELDS = (
        "name",
        "type",
        "help",
        "abbrev",
        "values",
        "value_abbrev",
        "words",
        "min",
        "max",
        "default",
        "verbs",
        "alterable",
        "alter_same",
        "required",
        "only_for",
        "negation",
        "display",
        "max_items",
        "ranges",
        "shown_only",
    )
    name: str
    type: str  # int, enum, list, names, name, text, conname, flag, switch, filter
    help: str
    abbrev: tuple[str, ...]
    values: tuple[str, ...]  # enum/list values, canonical spelling
    value_abbrev: dict[str, str]  # alias -> canonical value
    words: tuple[str, ...]  # words accepted by an int keyword (OFF, NOLIMIT)
    min: int | None
    max: int | None
    default: Any
    verbs: tuple[str, ...]
    alterable: bool
    alter_same: bool  # not alterable, but ALTER takes it with the object's own value (ZMQSC CHLTYPE)
    required: bool  # required at DEFINE
    only_for: dict[str, tuple[str, ...]]  # attr -> allowed values
    negation: str | None  # NOREPLACE for REPLACE
    display: bool  # shown by DISPLAY / export
    max_items: int | None
    ranges: bool  # a list that takes inclusive ranges: CLASS(01:03) is CLASS(1,2,3)
    shown_only: bool  # stored and shown; the engine gives it no behaviour (the man page says so)

    def __init__(
        self,
        name: str,
        type: str,
        help: str = "",
        abbrev: tuple[str, ...] = (),
        values: tuple[str, ...] = (),
        value_abbrev: dict[str, str] | None = None,
        words: tuple[str, ...] = (),
        min: int | None = None,
        max: int | None = None,
        default: Any = None,
        verbs: tuple[str, ...] = ("DEFINE", "ALTER"),
        alterable: bool = True,
        alter_same: bool = False,
        required: bool = False,
        only_for: dict[str, tuple[str, ...]] | None = None,
        negation: str | None = None,
        display: bool = True,
        max_items: int | None = None,
        ranges: bool = False,
        shown_only: bool = False,
    ) -> None:
        set_field(self, "name", name)
        set_field(self, "type", type)
        set_field(self, "help", help)
        set_field(self, "abbrev", abbrev)
        set_field(self, "values", values)
        set_field(self, "value_abbrev", {} if value_abbrev is None else value_abbrev)
        set_field(self, "words", words)
        set_field(self, "min", min)
        set_field(self, "max", max)
        set_field(self, "default", default)
        set_field(self, "verbs", verbs)
        set_field(self, "alterable", alterable)
        set_field(self, "alter_same", alter_same)
        set_field(self, "required", required)
        set_field(self, "only_for", {} if only_for is None else only_for)
        set_field(self, "negation", negation)
        set_field(self, "display", display)
        set_field(self, "max_items", max_items)
        set_field(self, "ranges", ranges)
        set_field(self, "shown_only", shown_only)

    def describe_values(self) -> str:
        """The allowed values, as an error message and the man page say them."""
        if self.type == "minsec":
            return f"{self.min}-{self.max} minutes, or minutes and seconds mm:ss"
        if self.type == "int":
            span = f"{self.min}-{self.max}"
            return " or ".join([*self.words, span]) if self.words else span
        if self.type == "list" and not self.values:
            return f"up to {self.max_items} values of up to {self.max} characters"
        if self.type in ("enum", "list"):
            return ", ".join(self.values)
        if self.type in ("name", "text", "conname"):
            return f"up to {self.max} characters" if self.max is not None else "text"
        if self.type == "names":
            return f"up to {self.max_items} names of up to {self.max} characters"
        if self.type == "filter":
            return "attribute operator value, operators " + " ".join(FILTER_OPERATORS)
        return "no value"

    def describe_default(self) -> str:
        """The default as a command writes it: a list joined by commas (COMPMSG's [NONE]
        is NONE), a `=QMGR.X` reference as is; "" when there is none."""
        if self.default is None:
            return ""
        if isinstance(self.default, (list, tuple)):
            return ",".join(str(item) for item in self.default)
        return str(self.default)


class ObjectSpec(Frozen, frozen=True):
    """One object type of a dialect, with its keyword rows by canonical name."""

    __slots__ = _FIELDS = ("name", "help", "aliases", "name_rule", "keywords", "full", "nameless")
    name: str
    help: str
    aliases: tuple[str, ...]
    name_rule: NameRule | None
    keywords: dict[str, KeywordSpec]
    full: str  # the full word printed in responses (QLOCAL for QL)
    nameless: bool  # QMGR on z/OS, LOG, ARCHIVE: no name in parentheses

    def __init__(
        self,
        name: str,
        help: str,
        aliases: tuple[str, ...] = (),
        name_rule: NameRule | None = None,
        keywords: dict[str, KeywordSpec] | None = None,
        full: str = "",
        nameless: bool = False,
    ) -> None:
        set_field(self, "name", name)
        set_field(self, "help", help)
        set_field(self, "aliases", aliases)
        set_field(self, "name_rule", name_rule)
        set_field(self, "keywords", {} if keywords is None else keywords)
        set_field(self, "full", full)
        set_field(self, "nameless", nameless)


class _Objects(dict[str, ObjectSpec]):
    """A table's object types by name, in table order, each made when first looked up:
    a command uses one or two of the z/OS table's 47, whose 850 keyword rows take
    milliseconds to make. Whatever asks for all of them (values, items, comparison)
    makes them all, in table order; names (iteration, `in`, len) need none made. A
    made ObjectSpec is an ordinary one, its `keywords` a plain dict (no lazy attribute
    on the paths that read keywords for every command)."""

    def __init__(self, rows: dict[str, Any], make: Callable[[str, dict[str, Any]], ObjectSpec]) -> None:
        super().__init__()
        self._rows = rows  # name -> its YAML row, in table order
        self._make = make
        self._whole = False

    def __missing__(self, name: str) -> ObjectSpec:
        made = self._make(name, self._rows[name])  # KeyError for a name the table lacks
        dict.__setitem__(self, name, made)
        return made

    def _all(self) -> None:
        if not self._whole:
            made = {name: dict.get(self, name) or self._make(name, row) for name, row in self._rows.items()}
            dict.clear(self)
            dict.update(self, made)  # table order, whatever order they were looked up in
            self._whole = True

    def __contains__(self, name: object) -> bool:
        return name in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def keys(self) -> KeysView[str]:  # type: ignore[override]
        return self._rows.keys()

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self._rows else default

    def values(self) -> ValuesView[ObjectSpec]:  # type: ignore[override]
        self._all()
        return dict.values(self)

    def items(self) -> ItemsView[str, ObjectSpec]:  # type: ignore[override]
        self._all()
        return dict.items(self)

    def __eq__(self, other: object) -> bool:
        self._all()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        self._all()
        return dict.__repr__(self)


class VerbSpec(Frozen, frozen=True):
    """One verb of a dialect, and the handler module that runs it."""

    __slots__ = _FIELDS = (
        "name",
        "help",
        "module",
        "abbrev",
        "objects",
        "writes",
        "select",
        "keywords",
        "object_optional",
    )
    name: str
    help: str
    module: str
    abbrev: tuple[str, ...]
    objects: tuple[str, ...]
    writes: bool
    select: bool  # MQSC DISPLAY: a keyword without a value selects that attribute; ALL selects all
    # Keywords the verb takes whatever its object's own rows say (MOVE QLOCAL's TYPE and
    # QSGDISP mean other things than the queue's attributes of the same names).
    keywords: dict[str, KeywordSpec]
    object_optional: bool  # the verb may be given without an object (ZMQSC DBREBUILD)

    def __init__(
        self,
        name: str,
        help: str,
        module: str,
        abbrev: tuple[str, ...] = (),
        objects: tuple[str, ...] = (),
        writes: bool = True,
        select: bool = False,
        keywords: dict[str, KeywordSpec] | None = None,
        object_optional: bool = False,
    ) -> None:
        set_field(self, "name", name)
        set_field(self, "help", help)
        set_field(self, "module", module)
        set_field(self, "abbrev", abbrev)
        set_field(self, "objects", objects)
        set_field(self, "writes", writes)
        set_field(self, "select", select)
        set_field(self, "keywords", {} if keywords is None else keywords)
        set_field(self, "object_optional", object_optional)


class ValidationError(Record):
    """A neutral description of what is wrong; each dialect turns it into its own message."""

    _FIELDS = ("kind", "keyword", "value", "allowed", "detail", "suggestion")
    kind: str  # unknown_verb, unknown_object, unknown_keyword, bad_value, missing, duplicate,
    #            bad_name, not_alterable, not_for_verb, missing_name
    keyword: str
    value: str
    allowed: str
    detail: str
    suggestion: str  # an unknown verb, object or keyword: the closest the table knows

    def __init__(
        self,
        kind: str,
        keyword: str = "",
        value: str = "",
        allowed: str = "",
        detail: str = "",
        suggestion: str = "",
    ) -> None:
        self.kind = kind
        self.keyword = keyword
        self.value = value
        self.allowed = allowed
        self.detail = detail
        self.suggestion = suggestion


class Table(Record):
    """One dialect's command language."""

    _FIELDS = ("dialect", "command", "verbs", "objects", "raw")
    dialect: str
    command: str
    verbs: dict[str, VerbSpec]
    objects: dict[str, ObjectSpec]
    raw: dict[str, Any]

    def __init__(
        self,
        dialect: str,
        command: str,
        verbs: dict[str, VerbSpec],
        objects: dict[str, ObjectSpec],
        raw: dict[str, Any],
    ) -> None:
        self.dialect = dialect
        self.command = command
        self.verbs = verbs
        self.objects = objects
        self.raw = raw
        self._verb_index: dict[str, str] = {}
        self._object_index: dict[str, str] = {}
        for verb in verbs.values():
            for word in (verb.name, *verb.abbrev):
                self._verb_index[word] = verb.name
        if isinstance(objects, _Objects):  # the names and aliases, none of them made
            aliases = ((name, _tuple(row.get("aliases"))) for name, row in objects._rows.items())
        else:
            aliases = ((obj.name, obj.aliases) for obj in objects.values())
        for name, more in aliases:
            for word in (name, *more):
                self._object_index[word] = name

    def verb(self, word: str) -> VerbSpec | None:
        name = self._verb_index.get(word.upper())
        return None if name is None else self.verbs[name]

    def object(self, word: str) -> ObjectSpec | None:
        name = self._object_index.get(word.upper())
        return None if name is None else self.objects[name]

    def keyword(self, obj: ObjectSpec, word: str, verb: VerbSpec | None = None) -> KeywordSpec | None:
        """The keyword row a word names for an object (and verb: the verb's own rows
        come first)."""
        upper = word.upper()
        for rows in (verb.keywords if verb is not None else {}, obj.keywords):
            spec = rows.get(upper)
            if spec is not None:
                return spec
            for candidate in rows.values():
                if upper in candidate.abbrev or (candidate.negation and upper == candidate.negation):
                    return candidate
        return None

    def defaults(self, obj: str) -> dict[str, Any]:
        return {
            k.name: k.default
            for k in self.objects[obj].keywords.values()
            if k.type != "flag" and k.default is not None and not _is_reference(k.default)
        }


def keyword_rows(obj: ObjectSpec, verb: VerbSpec) -> dict[str, KeywordSpec]:
    """The keyword rows of an object as a verb sees them (the verb's own rows first)."""
    return obj.keywords if not verb.keywords else {**obj.keywords, **verb.keywords}


def _is_reference(value: Any) -> bool:
    """A default such as `=QMGR.COMPSIZE` is taken from another object at DEFINE."""
    return isinstance(value, str) and value.startswith("=")


def _tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value)
    return (str(value),)


def _flag(value: Any, default: bool) -> bool:
    """A YAML true/false (kept as words by our loader) as a bool."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).lower() in ("true", "yes", "on", "1")


def _keyword(name: str, row: dict[str, Any]) -> KeywordSpec:
    value_abbrev = {str(k): str(v) for k, v in (row.get("value_abbrev") or {}).items()}
    only_for = {str(k): _tuple(v) for k, v in (row.get("only_for") or {}).items()}
    return KeywordSpec(
        name=name,
        type=str(row.get("type", "text")),
        help=str(row.get("help", "")),
        abbrev=_tuple(row.get("abbrev")),
        values=_tuple(row.get("values")),
        value_abbrev=value_abbrev,
        words=_tuple(row.get("words")),
        min=row.get("min"),
        max=row.get("max"),
        default=row.get("default"),
        verbs=_tuple(row.get("verbs", ["DEFINE", "ALTER"])),
        alterable=_flag(row.get("alterable"), True),
        alter_same=_flag(row.get("alter_same"), False),
        required=_flag(row.get("required"), False),
        only_for=only_for,
        negation=row.get("negation"),
        display=_flag(row.get("display"), True),
        max_items=row.get("max_items"),
        ranges=_flag(row.get("ranges"), False),
        shown_only=_flag(row.get("shown_only"), False),
    )


def _keywords(rows: dict[str, Any] | None) -> dict[str, KeywordSpec]:
    """The keyword rows of an object or verb, from its `keywords` mapping in the YAML."""
    return {name: _keyword(name, spec or {}) for name, spec in (rows or {}).items()}


def _yaml_load(text: str) -> Any:
    from mqtool import yamldoc

    return yamldoc.load(text)


_CACHE_FORMAT = 2  # bump when what the cache holds changes


def _read_raw(resource: Any) -> Any:
    """The parsed YAML of a table file. Importing PyYAML and parsing cost more than the
    rest of a command's start-up, so the result is kept beside the file in __pycache__/
    (as Python keeps bytecode, and not when it does not) and used while the YAML text is
    unchanged."""
    text = resource.read_text(encoding="utf-8")
    cache = _cache_path(resource)
    if cache is not None:
        try:
            stored = marshal.loads(cache.read_bytes())
            if stored[0] == _CACHE_FORMAT and stored[1] == text:
                return stored[2]
        except (OSError, EOFError, ValueError, TypeError, IndexError, KeyError):
            pass  # missing, stale or unreadable: parse again
    raw = _yaml_load(text)
    if cache is not None and not sys.dont_write_bytecode:
        try:
            data = marshal.dumps((_CACHE_FORMAT, text, raw))
            cache.parent.mkdir(exist_ok=True)
            partial = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
            partial.write_bytes(data)
            os.replace(partial, cache)  # atomic: a concurrent reader sees old or new
        except (OSError, ValueError):
            pass  # a read-only install, or a value marshal cannot hold: no cache
    return raw


def _cache_path(resource: Any) -> Path | None:
    tag = sys.implementation.cache_tag
    if not isinstance(resource, Path) or tag is None:
        return None  # inside a zip file, or no bytecode caching on this Python
    return resource.parent / "__pycache__" / f"{resource.name}.{tag}.marshal"


def _table_file(dialect: str) -> Any:
    """The keywords.yaml of a dialect: a Path beside the installed package (importing
    importlib.resources and its readers would cost a command more than reading the
    table does), or importlib.resources' file of it when installed in a zip file."""
    import mqtool.commands

    path = Path(mqtool.commands.__file__).parent / dialect / "keywords.yaml"
    if path.is_file():
        return path
    from importlib import resources

    return resources.files("mqtool.commands").joinpath(dialect, "keywords.yaml")


@functools.cache
def load(dialect: str) -> Table:
    """The table of one dialect, read once per process."""
    if dialect not in DIALECTS:
        raise KeyError(dialect)
    raw = _read_raw(_table_file(dialect))
    names = {
        key: NameRule(
            max=int(rule["max"]),
            chars=str(rule.get("chars", "mq")),
            reserved=_tuple(rule.get("reserved")),
            generic=_flag(rule.get("generic"), True),
        )
        for key, rule in (raw.get("names") or {}).items()
    }
    verbs = {
        name: VerbSpec(
            name=name,
            help=str(row.get("help", "")),
            module=str(row.get("module", name.lower())),
            abbrev=_tuple(row.get("abbrev")),
            objects=_tuple(row.get("objects")),
            writes=_flag(row.get("writes"), True),
            select=_flag(row.get("select"), False),
            keywords=_keywords(row.get("keywords")),
            object_optional=_flag(row.get("object_optional"), False),
        )
        for name, row in raw["verbs"].items()
    }

    def make(name: str, row: dict[str, Any]) -> ObjectSpec:
        rule = row.get("name")
        return ObjectSpec(
            name=name,
            help=str(row.get("help", "")),
            aliases=_tuple(row.get("aliases")),
            name_rule=names[rule] if rule else None,
            keywords=_keywords(row.get("keywords")),
            full=str(row.get("full", name)),
            nameless=_flag(row.get("nameless"), False),
        )

    objects = _Objects(raw["objects"], make)
    return Table(dialect=dialect, command=str(raw.get("command", "")), verbs=verbs, objects=objects, raw=raw)


def suggest(word: str, candidates: Iterable[str]) -> str:
    """The candidate that a misspelt word was meant to be (DISPLY: DISPLAY, STRAT:
    START), or "" when none is close enough or several are equally close (QX: QA, QL or
    QR?). Close is one typing slip (a letter missing, extra, wrong, or two swapped) for
    words of up to five letters, two for longer ones. Compared in upper case."""
    upper = word.upper()
    pool = sorted({candidate.upper() for candidate in candidates if candidate})
    if not upper or upper in pool:
        return ""
    limit = 1 if len(upper) <= 5 else 2
    scored = [(distance, candidate) for candidate in pool if (distance := _slips(upper, candidate, limit)) <= limit]
    if not scored:
        return ""
    best = min(distance for distance, _ in scored)
    found = [candidate for distance, candidate in scored if distance == best]
    return found[0] if len(found) == 1 else ""


def _slips(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (insertions, deletions, substitutions and swaps
    of two neighbours); anything above `limit` is reported as limit + 1."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], before[j - 2] + 1)
        before, previous = previous, row
    return min(previous[len(b)], limit + 1)


# -- value checking ---------------------------------------------------------------


def check_name(rule: NameRule, name: str, generic_ok: bool) -> str | None:
    """Returns a reason when `name` breaks the rule, else None."""
    body = name[:-1] if generic_ok and rule.generic and name.endswith("*") else name
    if not name or (not body and not name.endswith("*")):
        return "a name is required"
    if len(name) > rule.max:
        return f"longer than {rule.max} characters"
    if body and not NAME_CHARS[rule.chars].match(body):
        allowed = {
            "mq": "A-Z a-z 0-9 . / _ %",
            "chlauth": "A-Z a-z 0-9 . / _ % *",
            "any": "printable characters",
            "digits": "digits",
            "dsname": "a data set name's (qualifiers of 1-8 of A-Z 0-9 # @ $ -, not starting with a digit or -)",
        }
        return "contains characters other than " + allowed.get(rule.chars, "letters and digits")
    if name.upper() in rule.reserved:
        return f"{name} is reserved"
    return None


_RANGE = r"^([0-9]{1,3}):([0-9]{1,3})$"  # compiled by re on first use (re keeps it)


def _ranges(items: list[str]) -> list[str] | ValidationError:
    """The items of a list with each inclusive range `a:b` spelt out (IBM: "(1:5) means
    (1,2,3,4,5)"; TRACE commands only)."""
    out: list[str] = []
    for item in items:
        if ":" not in item:
            out.append(item)
            continue
        match = re.match(_RANGE, item)
        if match is None or int(match.group(1)) > int(match.group(2)):
            return ValidationError("bad_value", "", item, "a range low:high of numbers")
        out += [str(number) for number in range(int(match.group(1)), int(match.group(2)) + 1)]
    return out


def convert(spec: KeywordSpec, raw: str | list[str] | None) -> tuple[Any, ValidationError | None]:
    """Converts the text of one keyword's value to its typed value."""
    if spec.type in ("flag", "switch"):
        # a switch (TRIGGER/NOTRIGGER) is a stored attribute, YES or NO (its negation)
        if raw is not None and raw != "":
            return None, ValidationError("bad_value", spec.name, str(raw), "no value")
        return ("YES" if spec.type == "switch" else True), None
    if raw is None:
        return None, ValidationError("bad_value", spec.name, "", spec.describe_values())
    items = raw if isinstance(raw, list) else [raw]
    if spec.type == "filter":
        # The words as typed (unquoted ones upper-cased); the DISPLAY handler reads them.
        return list(items), None
    if spec.type == "names":
        return _names(spec, items)
    if spec.type == "list" and not spec.values:
        # A list of free values (CHLAUTH USERLIST, ADDRLIST): kept as typed, each at
        # most `max` characters, at most `max_items` of them.
        listed = [item.strip() for item in items if item.strip()]
        for item in listed:
            if spec.max is not None and len(item) > spec.max:
                return None, ValidationError("bad_value", spec.name, item, f"values of up to {spec.max} characters")
        if spec.max_items is not None and len(listed) > spec.max_items:
            return None, ValidationError("bad_value", spec.name, ",".join(items), f"at most {spec.max_items} values")
        return listed, None
    if spec.type == "list":
        out: list[str] = []
        if spec.ranges:
            spread = _ranges(items)
            if isinstance(spread, ValidationError):
                spread.keyword = spec.name
                return None, spread
            items = spread
        for item in items:
            value = spec.value_abbrev.get(item.upper(), item.upper())
            if value not in spec.values:
                return None, ValidationError("bad_value", spec.name, item, spec.describe_values())
            if value in out:
                return None, ValidationError("bad_value", spec.name, item, "each value once")
            out.append(value)
        if spec.max_items is not None and len(out) > spec.max_items:
            return None, ValidationError("bad_value", spec.name, ",".join(items), f"at most {spec.max_items} values")
        return out, None
    if len(items) != 1:
        return None, ValidationError("bad_value", spec.name, ",".join(items), spec.describe_values())
    text = items[0]
    if spec.type == "int":
        if text.upper() in spec.words:
            # a word of digits (TREELIFE's 0 beside 60-604000) is a number like the others
            return (int(text) if text.isdigit() else text.upper()), None
        if not re.fullmatch(r"[0-9]{1,12}", text):  # ASCII digits only: \d would take ٣ as 3
            return None, ValidationError("bad_value", spec.name, text, spec.describe_values())
        number = int(text)
        if (spec.min is not None and number < spec.min) or (spec.max is not None and number > spec.max):
            return None, ValidationError("bad_value", spec.name, text, spec.describe_values())
        return number, None
    if spec.type == "minsec":
        return _minutes_seconds(spec, text)
    if spec.type == "enum":
        value = spec.value_abbrev.get(text.upper(), text.upper())
        if value not in spec.values:
            return None, ValidationError("bad_value", spec.name, text, spec.describe_values())
        return value, None
    if spec.type == "name":
        rule = NameRule(max=spec.max or 48)
        if text.strip() == "":
            # MQSC writes "none" as a blank name: STREAMQ(' ')
            return "", None
        reason = check_name(rule, text, generic_ok=False)
        if reason:
            return None, ValidationError("bad_value", spec.name, text, spec.describe_values(), reason)
        return text, None
    if spec.type == "conname":
        # Read when the channel starts (mqtool/engine/channels/conname.py), as IBM does:
        # a definition may hold a template such as '<host>(1414)'. Only the length and
        # IBM's one DEFINE-time rule (MQRCCF_CONN_NAME_ERROR: no blank at the start).
        if text.strip() == "":
            return "", None  # CONNAME(' '): none
        if len(text) > (spec.max or 256):
            return None, ValidationError("bad_value", spec.name, text, spec.describe_values())
        if text[0].isspace():
            return None, ValidationError("bad_value", spec.name, text, "a connection name that starts with no blank")
        return text, None
    # text
    if spec.max is not None and len(text) > spec.max:
        return None, ValidationError("bad_value", spec.name, text, spec.describe_values())
    return text, None


def _names(spec: KeywordSpec, items: list[str]) -> tuple[Any, ValidationError | None]:
    """A list of object names (NAMELIST NAMES): each a valid MQ name, at most
    `max_items`; NAMES() or NAMES(' ') is the empty list."""
    rule = NameRule(max=spec.max or 48)
    names: list[str] = []
    for item in items:
        if item.strip() == "":
            continue
        reason = check_name(rule, item, generic_ok=False)
        if reason:
            return None, ValidationError("bad_value", spec.name, item, spec.describe_values(), reason)
        names.append(item)
    if spec.max_items is not None and len(names) > spec.max_items:
        return None, ValidationError("bad_value", spec.name, f"{len(names)} names", f"at most {spec.max_items} names")
    return names, None


def _minutes_seconds(spec: KeywordSpec, text: str) -> tuple[Any, ValidationError | None]:
    """A time in minutes (an int, min..max) or in minutes and seconds, mm:ss (kept as
    the text "MM:SS"; more than no time, at most max minutes)."""
    match = re.fullmatch(r"([0-9]{1,4})(?::([0-5][0-9]))?", text)
    if match is not None:
        minutes = int(match.group(1))
        if match.group(2) is None:
            if (spec.min is None or minutes >= spec.min) and (spec.max is None or minutes <= spec.max):
                return minutes, None
        else:
            total = minutes * 60 + int(match.group(2))
            if total > 0 and (spec.max is None or total <= spec.max * 60):
                return f"{minutes:02d}:{match.group(2)}", None
    return None, ValidationError("bad_value", spec.name, text, spec.describe_values())
