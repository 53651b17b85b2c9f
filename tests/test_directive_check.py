"""`mqtool run -v` reads directive arguments with the same reader as the run, so a
script that the check passes does not fail on an argument when it runs, and the other
way round; `.advance` says which units it takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MQ

UNITS = "a number with a unit, ms, s, m, h or d, in one word (5s, 2m, 1h, 250ms; a bare number is seconds)"
BAD = {
    ".advance soon": f"MQT0003E Directive .advance: not a duration: 'soon'; give {UNITS}",
    ".advance 5 minutes": f"MQT0003E Directive .advance: usage: .advance DURATION, {UNITS} (not '5 minutes')",
    ".put Q1 count=abc": "MQT0003E Directive .put: count=abc is not a number (digits 0-9)",
    ".put Q1 count=\u0663": "MQT0003E Directive .put: count=\u0663 is not a number (digits 0-9)",
    ".put Q1 size=big": "MQT0003E Directive .put: size=big: not a size: 'big' (a number of bytes, or with a unit: "
    "32KB, 4MB, 1MiB)",
    ".put Q1 priority=10": "MQT0003E Directive .put: priority=10 is out of range (0-9)",
    ".put Q1 expiry=later": "MQT0003E Directive .put: expiry=later: not a duration: 'later' (examples: 5s, 2m, 1h)",
    ".put Q1 every=often": "MQT0003E Directive .put: every=often: not a duration: 'often' (examples: 5s, 2m, 1h)",
    ".put Q1 pattern=csv": "MQT0003E Directive .put: pattern 'csv' unknown; patterns: xml, json, text, random",
    ".put Q1 persistent=maybe": "MQT0003E Directive .put: persistent=maybe must be yes or no",
    ".put Q1 msgid=" + "X" * 30: "MQT0003E Directive .put: '" + "X" * 30 + "' is longer than 24 bytes "
    "(give 48 hex digits or up to 24 characters)",
    ".put": "MQT0003E Directive .put: usage: .put QUEUE|topic=STRING [count=N] [size=N] [pattern=xml] ... (.help .put)",
    ".get Q1 count=0": "MQT0003E Directive .get: count=0 is out of range (1-999999999)",
    ".get Q1 browse=perhaps": "MQT0003E Directive .get: browse=perhaps must be yes or no",
    ".get Q1 syncpoint=sometimes": "MQT0003E Directive .get: syncpoint=sometimes must be yes or no",
    ".get": "MQT0003E Directive .get: usage: .get QUEUE|topic=STRING [count=N|all] [browse=yes] [syncpoint=no]",
    ".get Q1 topic=a": "MQT0003E Directive .get: usage: .get QUEUE|topic=STRING [count=N|all] [browse=yes] "
    "[syncpoint=no]",
    ".subscribe": "MQT0003E Directive .subscribe: usage: .subscribe topic=STRING [name=NAME] [durable=yes] [new=yes] "
    "[selector='...']",
    ".subscribe topic=a durable=yes": "MQT0003E Directive .subscribe: durable=yes needs name=NAME (a durable "
    "subscription is found again by its name)",
    ".subscribe topic=a new=often": "MQT0003E Directive .subscribe: new=often must be yes or no",
    ".unsubscribe": "MQT0003E Directive .unsubscribe: usage: .unsubscribe topic=STRING|name=NAME [remove=yes]",
    ".unsubscribe topic=a name=b": "MQT0003E Directive .unsubscribe: usage: .unsubscribe topic=STRING|name=NAME "
    "[remove=yes]",
    ".console everything": "MQT0003E Directive .console: usage: .console [all]",
}


@pytest.mark.parametrize("line", sorted(BAD))
def test_the_check_refuses_what_the_run_refuses(mq: MQ, tmp_path: Path, line: str) -> None:
    assert mq("cmd", "ZMQSC DEFINE QL-Q1").exit_code == 0
    script = tmp_path / "script.mqsc"
    script.write_text(f"{line}\n", encoding="utf-8")
    for verify in (["-v"], []):
        result = mq("run", *verify, str(script))
        assert result.exit_code == 10, (verify, result.output)
        lines = result.stdout.splitlines()
        assert lines[3] == BAD[line], verify
        assert "One command has a syntax error." in lines
    assert mq("get", "Q1", "--all", "-q").stdout == ""  # nothing was put


def test_the_check_passes_what_the_run_runs(mq: MQ, tmp_path: Path) -> None:
    assert mq("cmd", "ZMQSC DEFINE QL-Q1").exit_code == 0
    script = tmp_path / "script.mqsc"
    script.write_text(
        ".advance 1h\n.advance 250ms\n.advance 5\n.put Q1 count=2 size=1KB priority=9 expiry=300 every=1s\n"
        ".get Q1 count=all syncpoint=no\n.get Q1 count=1 browse=no\n.console all\n",
        encoding="utf-8",
    )
    checked = mq("run", "-v", str(script))
    assert checked.exit_code == 0, checked.output
    ran = mq("run", str(script))
    assert "No commands have a syntax error." in ran.stdout
    assert ran.exit_code == 10  # the last .get finds the queue empty: a run-time failure, not an argument
