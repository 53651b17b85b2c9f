"""The keyword tables' records (issue 19, start-up): written out rather than made by
@dataclass, they keep what the dataclasses gave (read-only specs, comparison field by
field, a readable repr), and an object type's keyword rows, made on first use, are
those its YAML rows say."""

from __future__ import annotations

import copy
import pickle

import pytest

from mqtool import tables
from mqtool.tables import KeywordSpec, NameRule, ObjectSpec, Table, ValidationError, VerbSpec


@pytest.mark.parametrize("dialect", tables.DIALECTS)
def test_object_types_made_on_first_use_are_those_the_yaml_rows_say(dialect: str) -> None:
    table = tables.load(dialect)
    rows = table.raw["objects"]
    assert list(table.objects) == list(rows) and len(table.objects) == len(rows)
    last = list(rows)[-1]
    first = table.objects[last]  # looked up before the others: made alone
    assert table.objects[last] is first and last in table.objects and "NO.SUCH" not in table.objects
    assert table.objects.get("NO.SUCH") is None and table.objects.get(last) is first
    with pytest.raises(KeyError):
        table.objects["NO.SUCH"]
    for name, row in rows.items():
        obj = table.objects[name]
        assert obj.keywords == {kw: tables._keyword(kw, spec or {}) for kw, spec in (row.get("keywords") or {}).items()}
        assert obj.aliases == tables._tuple(row.get("aliases")), (dialect, name)
        for word in (name, *obj.aliases):
            assert table.object(word.lower()) is obj
    # Walking them all gives them in table order, each made once.
    assert [obj.name for obj in table.objects.values()] == list(rows)
    assert [name for name, _ in table.objects.items()] == list(rows) and table.objects[last] is first


def test_the_specs_are_read_only() -> None:
    spec = tables.load("zos").objects["QLOCAL"].keywords["MAXDEPTH"]
    with pytest.raises(AttributeError):
        spec.max = 1
    obj = tables.load("ztpf_mq").objects["QL"]
    verb = tables.load("ztpf_mq").verbs["DEFINE"]
    for record, field in ((obj, "name"), (verb, "writes"), (NameRule(48), "max")):
        with pytest.raises(AttributeError):
            setattr(record, field, None)
        with pytest.raises(AttributeError):
            delattr(record, field)


def test_records_compare_and_show_field_by_field() -> None:
    one = KeywordSpec("STRMQOS", "enum", "quality of service", values=("BESTEF", "MUSTDUP"))
    same = KeywordSpec(name="STRMQOS", type="enum", help="quality of service", values=("BESTEF", "MUSTDUP"))
    assert one == same and one != KeywordSpec("STRMQOS", "enum")
    assert one.value_abbrev == {} and one.only_for == {} and one.verbs == ("DEFINE", "ALTER")
    assert KeywordSpec("A", "int").value_abbrev is not KeywordSpec("B", "int").value_abbrev
    assert repr(NameRule(48)) == "NameRule(max=48, chars='mq', reserved=(), generic=True)"
    assert hash(NameRule(48)) == hash(NameRule(48)) and NameRule(48) != NameRule(8)
    assert one != ("STRMQOS",) and NameRule(48) != ValidationError("bad_value")
    obj = ObjectSpec("LOG", "the log", keywords={"X": one}, nameless=True)
    assert obj == ObjectSpec("LOG", "the log", keywords={"X": same}, nameless=True)
    assert "keywords={'X': KeywordSpec(name='STRMQOS'" in repr(obj)
    assert VerbSpec("SET", "set", "set", (), ("LOG",)).keywords == {}


def test_a_validation_error_can_be_changed_and_a_table_indexes_its_words() -> None:
    error = ValidationError("bad_value", value="x")
    error.keyword = "CLASS"
    assert error == ValidationError("bad_value", "CLASS", "x")
    verb = VerbSpec("DEFINE", "define", "define", ("DEF",), ("QLOCAL",))
    obj = ObjectSpec("QLOCAL", "a local queue", aliases=("QL",))
    table = Table("zos", "", {"DEFINE": verb}, {"QLOCAL": obj}, {})
    assert table.verb("def") is verb and table.object("ql") is obj and table.verb("X") is None


def test_read_only_records_copy_and_pickle_whole() -> None:
    table = tables.load("zos")
    qlocal = table.objects["QLOCAL"]
    records: list[object] = [qlocal, table.verbs["DISPLAY"], qlocal.name_rule, qlocal.keywords["MAXDEPTH"]]
    for record in records:
        assert pickle.loads(pickle.dumps(record)) == record
        assert copy.copy(record) == record and copy.deepcopy(record) == record
