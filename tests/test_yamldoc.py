"""The one YAML reader (mqtool/yamldoc.py): the order of merged keys is mqtool's own,
the same with the C and the pure-Python loader and whatever PyYAML release reads it,
and aliases cannot blow a small document up."""

from __future__ import annotations

import importlib.util
import resource
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import yaml

from mqtool import tables, yamldoc

MERGED = """\
a: &a {X: a1, Y: a2, Z: a3}
b: &b {W: b1, Y: b2, V: b3}
both:
  <<: [*a, *b]
  Z: own
  U: own
nested:
  <<: *a
"""


@pytest.mark.parametrize("pure", [False, True])
def test_merged_keys_in_the_defined_order(pure: bool) -> None:
    loaded = yamldoc.load(MERGED, pure=pure)
    # the first mapping's keys, then the second's new ones, then the mapping's own;
    # the first mapping wins, and an own key replaces a merged value in place
    assert list(loaded["both"].items()) == [
        ("X", "a1"),
        ("Y", "a2"),
        ("Z", "own"),
        ("W", "b1"),
        ("V", "b3"),
        ("U", "own"),
    ]
    assert list(loaded["nested"]) == ["X", "Y", "Z"]


def test_the_pure_loader_is_really_pure() -> None:
    assert yamldoc.loader_class(pure=True).__mro__[1] is yaml.SafeLoader
    if getattr(yaml, "CSafeLoader", None) is not None:
        assert yamldoc.loader_class().__mro__[1] is yaml.CSafeLoader


@pytest.mark.parametrize("dialect", tables.DIALECTS)
def test_keyword_tables_are_the_same_with_either_loader(dialect: str) -> None:
    text = resources.files("mqtool.commands").joinpath(dialect, "keywords.yaml").read_text(encoding="utf-8")
    fast, pure = yamldoc.load(text), yamldoc.load(text, pure=True)
    assert fast == pure
    # equal dicts may still differ in order: compare every mapping's key order
    assert _orders(fast) == _orders(pure)


def _orders(value: object) -> object:
    if isinstance(value, dict):
        return [(key, _orders(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_orders(item) for item in value]
    return value


def test_queue_keywords_follow_the_local_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    """DISPLAY QUEUE merges the local, alias and remote keywords: the local queue's come
    first, in its own order, then what the alias and the remote queue add."""
    zos = tables.load("zos")
    local = list(zos.objects["QLOCAL"].keywords)
    queue = list(zos.objects["QUEUE"].keywords)
    assert queue[: len(local)] == local
    assert queue.index("TARGET") < queue.index("RNAME")


def test_generated_man_pages_do_not_depend_on_the_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    """The man pages written with the pure-Python loader are the ones in man/ (written
    with whatever loader the machine has)."""
    man = Path(__file__).resolve().parents[1] / "man"
    spec = importlib.util.spec_from_file_location("mqtool_man_generate_pure", man / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    monkeypatch.setattr(tables, "_read_raw", lambda res: yamldoc.load(res.read_text(encoding="utf-8"), pure=True))
    tables.load.cache_clear()
    try:
        pages = generate.expected()
    finally:
        tables.load.cache_clear()
    for name, text in pages.items():
        assert (man / name).read_text(encoding="utf-8") == text, name


# -- aliases ---------------------------------------------------------------------------

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


def test_an_alias_bomb_is_refused_at_once() -> None:
    assert len(BOMB) < 500
    with pytest.raises(yamldoc.AliasBudgetError, match="expand to"):
        yamldoc.load(BOMB)


@pytest.mark.parametrize("text", ["a: &a [1, *a]\n", "a: &a {b: *a}\n", "&a [[[*a]]]\n"])
def test_an_alias_inside_what_it_names_is_refused(text: str) -> None:
    with pytest.raises(yamldoc.AliasBudgetError, match="refers to a node that contains it"):
        yamldoc.load(text)


def test_reasonable_aliases_are_taken() -> None:
    queues = "".join(f"  Q{i}: {{<<: *defaults, DESCR: q{i}}}\n" for i in range(2000))
    text = "defaults: &defaults {MAXDEPTH: 5000, DEFPSIST: 'YES', MAXMSGL: 100, CUSTOM: x}\nqueues:\n" + queues
    loaded = yamldoc.load(text)
    assert loaded["queues"]["Q1999"] == {
        "MAXDEPTH": 5000,
        "DEFPSIST": "YES",
        "MAXMSGL": 100,
        "CUSTOM": "x",
        "DESCR": "q1999",
    }


def test_a_huge_number_is_refused_with_its_place() -> None:
    with pytest.raises(yaml.YAMLError, match="a number of more than"):
        yamldoc.load("a:\n  b: " + "9" * 5000 + "\n")


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (512 * 2**20, 512 * 2**20))


@pytest.mark.slow
@pytest.mark.parametrize(
    "text, problem",
    [
        ("kind: mqtool-complex\nversion: 1\n" + BOMB, "not accepted: its aliases expand to"),
        ("kind: mqtool-complex\nversion: 1\nsystems: &s {TPF1: {platform: ztpf, objects: *s}}\n", "contains it"),
        ("kind: mqtool-complex\nversion: " + "1" * 5000 + "\n", "a number of more than 100 characters"),
    ],
    ids=["bomb", "self", "number"],
)
def test_apply_refuses_such_documents_in_a_small_process(tmp_path: Path, text: str, problem: str) -> None:
    """In a process limited to 512 MB of address space: the bomb used to take gigabytes,
    the self-reference a RecursionError (exit 70), the number a ValueError (exit 70)."""
    document = tmp_path / "bomb.yaml"
    document.write_text(text, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mqtool", "--state", str(tmp_path / "s"), "apply", str(document)],
        capture_output=True,
        text=True,
        preexec_fn=_limited,
        timeout=300,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"mqtool: error: {document}:"), result.stderr
    assert problem in result.stderr
    assert "Traceback" not in result.stderr
