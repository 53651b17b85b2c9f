"""The keyword tables: every dialect's YAML is consistent (verb modules exist, words are
unambiguous, defaults pass their own checks, help is written), and the value checks
and validation behave as the dialects' error messages expect."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from mqtool import tables
from mqtool.parse.command import Command, Param
from mqtool.tables import KeywordSpec, NameRule, ValidationError, check_name, convert
from mqtool.validate import Request, validate

TYPES = {"int", "enum", "list", "name", "text", "conname", "flag", "filter"}


@pytest.fixture(params=tables.DIALECTS)
def table(request: pytest.FixtureRequest) -> tables.Table:
    return tables.load(request.param)


def test_every_dialect_has_a_table() -> None:
    for dialect in tables.DIALECTS:
        assert resources.files("mqtool.commands").joinpath(dialect, "keywords.yaml").is_file(), dialect


def test_tables_are_read_once() -> None:
    assert tables.load("ztpf_mq") is tables.load("ztpf_mq")


def test_unknown_dialect() -> None:
    with pytest.raises(KeyError):
        tables.load("nosuch")


def test_yes_and_no_stay_words() -> None:
    # YAML 1.1 would turn YES/NO/ON/OFF into booleans; in MQ they are values.
    assert tables._yaml_load("a: YES\nb: [NO, ON, OFF]\nc: true\n") == {
        "a": "YES",
        "b": ["NO", "ON", "OFF"],
        "c": "true",
    }


def test_every_verb_has_its_module(table: tables.Table) -> None:
    package = resources.files("mqtool.commands").joinpath(table.dialect)
    for verb in table.verbs.values():
        assert package.joinpath(f"{verb.module}.py").is_file(), f"{table.dialect}: no module {verb.module}.py"


def test_verbs_and_objects_are_unambiguous(table: tables.Table) -> None:
    words: dict[str, str] = {}
    for verb in table.verbs.values():
        for word in (verb.name, *verb.abbrev):
            assert words.setdefault(word, verb.name) == verb.name, f"{word} names two verbs"
        assert verb.objects, f"{verb.name} has no objects"
        for obj in verb.objects:
            assert obj in table.objects, f"{verb.name} names unknown object {obj}"
    words = {}
    for obj in table.objects.values():
        for word in (obj.name, *obj.aliases):
            assert words.setdefault(word, obj.name) == obj.name, f"{word} names two objects"


def test_help_is_written(table: tables.Table) -> None:
    for verb in table.verbs.values():
        assert verb.help.strip(), f"{table.dialect} verb {verb.name} has no help"
    for obj in table.objects.values():
        assert obj.help.strip(), f"{table.dialect} object {obj.name} has no help"
        for spec in obj.keywords.values():
            assert spec.help.strip(), f"{table.dialect} {obj.name} {spec.name} has no help"


def test_keywords_are_well_formed(table: tables.Table) -> None:
    for obj in table.objects.values():
        words: dict[str, str] = {}
        for spec in obj.keywords.values():
            where = f"{table.dialect} {obj.name} {spec.name}"
            assert spec.type in TYPES, where
            assert spec.name == spec.name.upper(), where
            for word in (spec.name, *spec.abbrev, *([spec.negation] if spec.negation else [])):
                assert words.setdefault(word, spec.name) == spec.name, f"{where}: {word} is ambiguous"
            for verb in spec.verbs:
                assert verb in table.verbs, f"{where}: unknown verb {verb}"
            if spec.type == "list" and not spec.values:  # free values (CHLAUTH USERLIST): bounded
                assert spec.max is not None and spec.max_items is not None, f"{where}: unbounded list"
            elif spec.type in ("enum", "list"):
                assert spec.values, f"{where}: no values"
                for alias, value in spec.value_abbrev.items():
                    assert value in spec.values, f"{where}: {alias} -> {value} is not a value"
            if spec.type == "int" and spec.verbs:  # a settable number has its range
                assert spec.min is not None and spec.max is not None and spec.min <= spec.max, where
            if spec.required:
                assert spec.default is None, f"{where}: required and defaulted"


def test_defaults_pass_their_own_checks(table: tables.Table) -> None:
    for obj in table.objects.values():
        for spec in obj.keywords.values():
            default = spec.default
            if default is None or spec.type == "flag":
                continue
            where = f"{table.dialect} {obj.name} {spec.name} default {default!r}"
            if isinstance(default, str) and default.startswith("="):
                source, _, keyword = default[1:].partition(".")
                assert source in table.objects and keyword in table.objects[source].keywords, where
                continue
            if spec.type == "text" or (spec.type in ("name", "conname") and default == ""):
                assert spec.max is None or len(str(default)) <= spec.max, where
                continue
            raw = [str(v) for v in default] if isinstance(default, list) else str(default)
            value, error = convert(spec, raw)
            assert error is None, f"{where}: {error}"
            assert value == default, where


def test_name_rules(table: tables.Table) -> None:
    for obj in table.objects.values():
        if obj.name_rule is not None:
            assert obj.name_rule.chars in tables.NAME_CHARS
            assert 1 <= obj.name_rule.max <= 48


# -- value checks ----------------------------------------------------------------------


def spec(**fields: Any) -> KeywordSpec:
    return KeywordSpec(name=fields.pop("name", "KW"), **fields)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("0", 0), ("16000", 16000), ("104857600", 104857600), ("off", "OFF")],
)
def test_convert_int(raw: str, expected: Any) -> None:
    assert convert(spec(type="int", min=0, max=104857600, words=("OFF",)), raw) == (expected, None)


@pytest.mark.parametrize("raw", ["-1", "104857601", "1e3", "", "12abc", "1" * 13, None])
def test_convert_int_refused(raw: str | None) -> None:
    value, error = convert(spec(type="int", min=0, max=104857600), raw)
    assert value is None and error is not None
    assert (error.kind, error.keyword, error.allowed) == ("bad_value", "KW", "0-104857600")


def test_convert_enum_with_abbreviation() -> None:
    enum = spec(type="enum", values=("ENABLED", "DISABLED"), value_abbrev={"DIS": "DISABLED"})
    assert convert(enum, "disabled") == ("DISABLED", None)
    assert convert(enum, "DIS") == ("DISABLED", None)
    assert convert(enum, "MAYBE")[1] == ValidationError("bad_value", "KW", "MAYBE", "ENABLED, DISABLED")


def test_convert_list() -> None:
    values = spec(type="list", values=("NONE", "ZLIBFAST", "ZLIBHIGH"), max_items=2)
    assert convert(values, ["zlibfast", "ZLIBHIGH"]) == (["ZLIBFAST", "ZLIBHIGH"], None)
    assert convert(values, "NONE") == (["NONE"], None)
    assert convert(values, ["ZLIBFAST", "ZLIBFAST"])[1] == ValidationError(
        "bad_value", "KW", "ZLIBFAST", "each value once"
    )
    assert convert(values, ["NONE", "ZLIBFAST", "ZLIBHIGH"])[1] == ValidationError(
        "bad_value", "KW", "NONE,ZLIBFAST,ZLIBHIGH", "at most 2 values"
    )


def test_convert_flag_text_name_conname() -> None:
    assert convert(spec(type="flag"), None) == (True, None)
    assert convert(spec(type="flag"), "X")[1] == ValidationError("bad_value", "KW", "X", "no value")
    assert convert(spec(type="text", max=5), "abcde") == ("abcde", None)
    assert convert(spec(type="text", max=5), "abcdef")[1] is not None
    assert convert(spec(type="text", max=5), ["a", "b"])[1] is not None
    assert convert(spec(type="name", max=48), "PAY.Q") == ("PAY.Q", None)
    assert convert(spec(type="name", max=48), "") == ("", None)
    assert convert(spec(type="name", max=48), "BAD NAME")[1] is not None
    assert convert(spec(type="conname"), "127.0.0.1(1415)") == ("127.0.0.1(1415)", None)
    assert convert(spec(type="conname"), "host.example.com") == ("host.example.com", None)
    assert convert(spec(type="conname"), "host(99999999)")[1] is not None


@pytest.mark.parametrize(
    ("name", "generic", "reason"),
    [
        ("PAY.Q_1/%", False, None),
        ("PAY*", True, None),
        ("*", True, None),
        ("PAY*", False, "contains characters other than A-Z a-z 0-9 . / _ %"),
        ("", False, "a name is required"),
        ("A" * 49, False, "longer than 48 characters"),
        ("all", False, "all is reserved"),
        ("BAD-NAME", False, "contains characters other than A-Z a-z 0-9 . / _ %"),
    ],
)
def test_check_name(name: str, generic: bool, reason: str | None) -> None:
    assert check_name(NameRule(max=48, reserved=("ALL",)), name, generic_ok=generic) == reason


# -- validation against the z/TPF MQ table ------------------------------------------


def ztpf(verb: str, obj: str | None, name: str | None, *params: tuple[str, Any]) -> Request | ValidationError:
    command = Command(text="", dialect="ztpf_mq", verb=verb, object=obj, name=name)
    command.params = [Param(keyword, value) for keyword, value in params]
    return validate(tables.load("ztpf_mq"), command)


def test_validate_types_the_values() -> None:
    request = ztpf("DEF", "QL", "PAYQ", ("COMPSIZE", "16000"), ("PUT", "DIS"))
    assert isinstance(request, Request)
    assert (request.verb.name, request.object and request.object.name, request.name) == ("DEFINE", "QL", "PAYQ")
    assert request.params == {"COMPSIZE": 16000, "PUT": "DISABLED"}
    assert request.order == ["COMPSIZE", "PUT"]


@pytest.mark.parametrize(
    ("args", "kind", "keyword"),
    [
        (("FROB", "QL", "A"), "unknown_verb", "FROB"),
        (("DEF", "QX", "A"), "unknown_object", "QX"),
        (("DEF", None, None), "unknown_object", ""),
        (("START", "QL", "A"), "unknown_object", "QL"),
        (("DEF", "QL", None), "missing_name", "QL"),
        (("DEF", "QL", "BAD NAME"), "bad_name", "QL"),
        (("DEF", "QL", "A", ("NOPE", "1")), "unknown_keyword", "NOPE"),
        (("DEF", "QL", "A", ("COMPSIZE", "1"), ("COMPSIZE", "2")), "duplicate", "COMPSIZE"),
        (("DEF", "QL", "A", ("COMPSIZE", "-1")), "bad_value", "COMPSIZE"),
        (("DEF", "QL", "A", ("PURGE", None)), "not_for_verb", "PURGE"),
        (("ALTER", "QL", "A", ("COMMON", "YES")), "not_alterable", "COMMON"),
        (("DEF", "QA", "ALIAS"), "missing", "TARGQ"),
    ],
)
def test_validation_errors(args: tuple[Any, ...], kind: str, keyword: str) -> None:
    error = ztpf(*args)
    assert isinstance(error, ValidationError), error
    assert (error.kind, error.keyword) == (kind, keyword)


def test_generic_names_only_for_display() -> None:
    assert isinstance(ztpf("DIS", "QL", "PAY*"), Request)
    error = ztpf("DEL", "QL", "PAY*")
    assert isinstance(error, ValidationError) and error.kind == "bad_name"


def test_optional_name_of_the_queue_manager() -> None:
    assert isinstance(ztpf("DIS", "QMGR", None), Request)
    error = ztpf("DEF", "QMGR", None)
    assert isinstance(error, ValidationError) and error.kind == "missing_name"


# -- the parsed-table cache ------------------------------------------------------------


@pytest.fixture
def table_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "keywords.yaml"
    path.write_text("verbs: {DEFINE: {help: define, objects: [QL]}}\nflag: YES\n", encoding="utf-8")
    return path


def _cache_of(path: Path) -> Path:
    cache = tables._cache_path(path)
    assert cache is not None
    return cache


def test_cache_is_written_and_used(table_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = tables._read_raw(table_file)
    assert first == {"verbs": {"DEFINE": {"help": "define", "objects": ["QL"]}}, "flag": "YES"}
    assert _cache_of(table_file).is_file()
    assert _cache_of(table_file).parent.name == "__pycache__"

    def no_parsing(text: str) -> Any:
        raise AssertionError("parsed although the cache is fresh")

    monkeypatch.setattr(tables, "_yaml_load", no_parsing)
    assert tables._read_raw(table_file) == first


def test_cache_follows_the_yaml_text(table_file: Path) -> None:
    tables._read_raw(table_file)
    table_file.write_text("flag: NO\n", encoding="utf-8")
    assert tables._read_raw(table_file) == {"flag": "NO"}
    assert tables._read_raw(table_file) == {"flag": "NO"}


def test_damaged_cache_is_ignored_and_rewritten(table_file: Path) -> None:
    tables._read_raw(table_file)
    _cache_of(table_file).write_bytes(b"\x00garbage")
    assert tables._read_raw(table_file)["flag"] == "YES"
    assert _cache_of(table_file).read_bytes() != b"\x00garbage"


def test_no_cache_when_python_writes_no_bytecode(table_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert tables._read_raw(table_file)["flag"] == "YES"
    assert not _cache_of(table_file).exists()


def test_values_marshal_cannot_hold_are_not_cached(table_file: Path) -> None:
    table_file.write_text("when: 2021-03-09\n", encoding="utf-8")  # YAML reads a date
    assert str(tables._read_raw(table_file)["when"]) == "2021-03-09"
    assert not _cache_of(table_file).exists()


def test_unwritable_folder_means_no_cache(table_file: Path) -> None:
    (table_file.parent / "__pycache__").write_text("a file where the folder would go", encoding="utf-8")
    assert tables._read_raw(table_file)["flag"] == "YES"
