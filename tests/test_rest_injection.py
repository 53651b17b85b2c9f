"""runCommandJSON builds the parsed command from the JSON document, so a value is one
value whatever it holds (issue 16, item 2): a property test over both dialects, the
injections the issue found, and the values that cannot be one value (IBM's error JSON,
nothing changed). In process: RestApi answers without sockets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.clock import Clock
from mqtool.rest.api import RestApi
from mqtool.rest.config import RestUser
from mqtool.rest.reply import RestError
from tests.conftest import FROZEN

ADMIN = RestUser("admin", ("MQWebAdmin",), "unused")
# The queue each dialect's documents change: (queue manager, system, stored type, name).
TARGETS = {"zos": ("CSQ1", "CSQ1", "QLOCAL", "INJ.Q"), "ztpf": ("TPFQM", "TPF1", "QL", "INJ.Q")}
QUALIFIER = {"zos": "qlocal", "ztpf": "ql"}
# Attributes of several kinds (text, number, keyword, name) in each dialect.
KEYWORDS = {
    "zos": ["DESCR", "MAXDEPTH", "USAGE", "DEFPSIST", "GET", "STREAMQ", "CUSTOM"],
    "ztpf": ["DESCR", "MAXDEPTH", "USAGE", "COMMON", "PUT", "COMPSIZE", "DEFPSIST"],
}
# Pieces of command syntax of both dialects, to glue to values.
SYNTAX = [
    " USAGE-XMITQ",
    " USAGE(XMITQ)",
    ") USAGE(XMITQ",
    "') USAGE(XMITQ) DESCR('",
    " COMMON-YES",
    " PUT-DISABLED",
    " PUT(DISABLED)",
    "' PUT-DISABLED '",
    ",XMITQ",
    "-XMITQ",
    "''",
    " ; DELETE QLOCAL(INJ.Q)",
    " + ",
]


@pytest.fixture
def api(state_dir: Path) -> Iterator[RestApi]:
    rest = RestApi(state_dir, Clock.from_setting(FROZEN))
    try:
        for platform, (qmgr, _system, _type, name) in TARGETS.items():
            answer = run(rest, qmgr, {"command": "define", "qualifier": QUALIFIER[platform], "name": name})
            assert answer["overallCompletionCode"] == 0, answer
        yield rest
    finally:
        rest.close()


def run(api: RestApi, qmgr: str, document: dict[str, Any], user: RestUser = ADMIN) -> dict[str, Any]:
    """The answer to a runCommandJSON document: the response JSON, or IBM's error JSON."""
    body = json.dumps({"type": "runCommandJSON", **document}).encode()
    try:
        return dict(json.loads(api.mqsc(qmgr, body, user).body))
    except RestError as error:
        assert error.status == 400, error.reply().body
        return dict(json.loads(error.reply().body))


def attributes(api: RestApi, platform: str) -> dict[str, Any]:
    _qmgr, system, kind, name = TARGETS[platform]
    with api.session.store.transaction(write=False) as tx:
        record = tx.get_object(system, kind, name)
    assert record is not None
    return dict(record.attrs)


def queue_names(api: RestApi) -> list[tuple[str, str, str]]:
    with api.session.store.transaction(write=False) as tx:
        rows = tx.conn.execute("SELECT system, type, name FROM objects ORDER BY system, type, name").fetchall()
    return [tuple(row) for row in rows]


values = st.one_of(
    st.text(max_size=70),
    st.builds(
        lambda a, b, c: a + b + c,
        st.sampled_from(["", "5", "x", "'", "(", ")"]),
        st.sampled_from(SYNTAX),
        st.text(max_size=8),
    ),
    st.sampled_from(["xmitq", "XMITQ", "yes", "no", "", " ", "5", "0", "999999999", "1e3"]),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.lists(st.sampled_from(["XMITQ", "A B", "5", "'"]), max_size=3),
)


def test_whatever_a_value_holds_it_changes_its_attribute_only_or_nothing(api: RestApi) -> None:
    """The property of issue 16: an ALTER with one parameter changes exactly the
    attribute it names (the whole object compared before and after), or it is refused
    (IBM's error JSON, or the command's failure) and changes nothing. A text attribute
    holds the string exactly as given."""

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(platform=st.sampled_from(sorted(TARGETS)), index=st.integers(0, 6), value=values)
    def check(platform: str, index: int, value: Any) -> None:
        keyword = KEYWORDS[platform][index]
        qmgr, _system, _type, name = TARGETS[platform]
        before = attributes(api, platform)
        objects = queue_names(api)
        document = {"command": "alter", "qualifier": QUALIFIER[platform], "name": name}
        answer = run(api, qmgr, {**document, "parameters": {keyword.lower(): value}})
        after = attributes(api, platform)
        assert queue_names(api) == objects  # nothing defined or deleted beside it
        if "error" in answer or answer["overallCompletionCode"] != 0:
            assert after == before, answer
            return
        changed = {key for key in set(before) | set(after) if before.get(key) != after.get(key)}
        assert changed <= {keyword}, (value, answer, changed)
        if keyword == "DESCR":
            assert after["DESCR"] == (value if isinstance(value, str) else str(value))

    check()


@pytest.mark.parametrize(
    ("platform", "parameters"),
    [
        ("ztpf", {"maxdepth": "5 USAGE-XMITQ"}),
        ("ztpf", {"maxdepth": "5 COMMON-YES"}),
        ("ztpf", {"maxdepth": "5 PUT-DISABLED"}),
        ("ztpf", {"descr": "x USAGE-XMITQ"}),
        ("zos", {"maxdepth": "5) USAGE(XMITQ"}),
        ("zos", {"descr": "x') USAGE(XMITQ) DESCR('y"}),
        ("zos", {"maxdepth": "5", "descr": "') PUT(DISABLED"}),
    ],
)
def test_the_injections_of_the_issue_make_no_transmission_queue(
    api: RestApi, platform: str, parameters: dict[str, Any]
) -> None:
    """The issue's own examples: a new queue never becomes a transmission queue, common or
    put-disabled through a value; a text value is stored as given."""
    qmgr = TARGETS[platform][0]
    document = {"command": "define", "qualifier": QUALIFIER[platform], "name": "NEW.Q", "parameters": parameters}
    answer = run(api, qmgr, document)
    _qmgr, system, kind, _name = TARGETS[platform]
    with api.session.store.transaction(write=False) as tx:
        record = tx.get_object(system, kind, "NEW.Q")
    if answer["overallCompletionCode"] != 0:
        assert record is None
        return
    assert record is not None
    assert record.attrs["USAGE"] == "NORMAL" and record.attrs["PUT"] == "ENABLED"
    assert record.attrs.get("COMMON", "NO") == "NO"
    if "descr" in parameters:
        assert record.attrs["DESCR"] == parameters["descr"]


@pytest.mark.parametrize(
    ("parameters", "problem"),
    [
        ({"descr": {"x": 1}}, "DESCR holds an object where one value is wanted"),
        ({"maxdepth": [5, 6]}, "MAXDEPTH takes one value, not an array"),
        ({"descr": ["a", "b"]}, "DESCR takes one value, not an array"),
        ({"descr": "line\nDEFINE QLOCAL(X)"}, "DESCR holds a control character"),
        ({"descr": "tab\there"}, "DESCR holds a control character"),
        ({"descr": "x" * 65}, "DESCR is longer than the 64 characters it takes"),
        ({"maxdepth": 5.5}, "MAXDEPTH 5.5 is not a whole number"),
        ({"maxdepth": [[1]]}, "MAXDEPTH takes one value, not an array"),
        ({"descr": "x" * 5000}, "is longer than"),
    ],
)
@pytest.mark.parametrize("platform", sorted(TARGETS))
def test_what_cannot_be_one_value_is_refused_with_the_error_json(
    api: RestApi, platform: str, parameters: dict[str, Any], problem: str
) -> None:
    before = attributes(api, platform)
    qmgr, _system, _type, name = TARGETS[platform]
    answer = run(
        api, qmgr, {"command": "alter", "qualifier": QUALIFIER[platform], "name": name, "parameters": parameters}
    )
    (item,) = answer["error"]
    assert item["msgId"] == "MQT0366E" and problem in item["message"], item
    assert attributes(api, platform) == before


def test_a_where_filter_is_one_filter(api: RestApi) -> None:
    """runCommandJSON's where is the filter of WHERE(...), never more of the command."""
    run(api, "CSQ1", {"command": "alter", "qualifier": "qlocal", "name": "INJ.Q", "parameters": {"descr": "a b) X"}})
    found = run(
        api,
        "CSQ1",
        {
            "command": "display",
            "qualifier": "qlocal",
            "name": "*",
            "where": "descr eq 'a b) X'",
            "responseParameters": ["descr"],
        },
    )
    assert [item["parameters"]["queue"] for item in found["commandResponse"]] == ["INJ.Q"]
    escaped = run(
        api,
        "CSQ1",
        {"command": "display", "qualifier": "qlocal", "name": "*", "where": "curdepth gt 0) DESCR(X"},
    )
    assert escaped["error"][0]["msgId"] == "MQT0362E"  # a parenthesis cannot close WHERE(...) early
    unbalanced = run(api, "CSQ1", {"command": "display", "qualifier": "qlocal", "name": "*", "where": "descr eq 'x"})
    assert unbalanced["error"][0]["msgId"] == "MQT0362E"
    refused = run(api, "CSQ1", {"command": "delete", "qualifier": "qlocal", "name": "INJ.Q", "where": "curdepth gt 0"})
    assert refused["commandResponse"][0]["message"][0].startswith("MQT0301E")
    assert attributes(api, "zos")["DESCR"] == "a b) X"


def test_names_and_flags_as_one_value(api: RestApi) -> None:
    """A name with syntax in it is refused as a name; a flag takes yes/no, true/false."""
    answer = run(api, "CSQ1", {"command": "define", "qualifier": "qlocal", "name": "A) USAGE(XMITQ"})
    assert answer["overallCompletionCode"] == 2 and "CSQ9030E" in answer["commandResponse"][0]["message"][0]
    answer = run(api, "TPFQM", {"command": "define", "qualifier": "ql", "name": "A USAGE-XMITQ"})
    assert answer["overallCompletionCode"] == 2
    for replace in ("yes", True, ""):
        document = {"command": "define", "qualifier": "qlocal", "name": "INJ.Q", "parameters": {"replace": replace}}
        assert run(api, "CSQ1", document)["overallCompletionCode"] == 0
    for replace in ("no", False):
        document = {"command": "define", "qualifier": "qlocal", "name": "INJ.Q", "parameters": {"replace": replace}}
        assert run(api, "CSQ1", document)["commandResponse"][0]["reasonCode"] == 4001  # NOREPLACE: it exists
