"""Channel authentication records in the complex document: `mqtool export --format
yaml|json` writes a z/OS system's records as its `chlauth` list when they are not just
the back-stop records of a new queue manager, and `mqtool apply` makes the queue manager
have the list's records (set with ACTION(REPLACE); those it does not list removed with
--prune only, as objects are)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.conftest import MQ

HEADER = "kind: mqtool-complex\nversion: 1\nsystems:\n"
RECORDS = [
    "-CSQ1 SET CHLAUTH('APP.*') TYPE(ADDRESSMAP) ADDRESS('10.0.0.*') USERSRC(NOACCESS) DESCR('no app')",
    "-CSQ1 SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('9.9.9.9','8.8.*')",
    "-CSQ1 SET CHLAUTH('SYSTEM.*') TYPE(ADDRESSMAP) ADDRESS('*') ACTION(REMOVE)",
]


def exported(mq: MQ, *options: str) -> dict:
    result = mq("export", "--format", "yaml", "--all", *options)
    assert result.exit_code == 0, result.output
    return yaml.safe_load(result.output)


def shown(mq: MQ) -> str:
    return mq.cmd("-CSQ1 DISPLAY CHLAUTH(*) ALL")


def test_a_new_queue_manager_needs_no_list(mq: MQ) -> None:
    assert "chlauth" not in exported(mq)["systems"]["CSQ1"]
    # with every attribute, the back-stop records are written too
    listed = exported(mq, "--all-attributes")["systems"]["CSQ1"]["chlauth"]
    assert {(r["CHLAUTH"], r["TYPE"]) for r in listed} == {
        ("*", "BLOCKUSER"),
        ("SYSTEM.*", "ADDRESSMAP"),
        ("SYSTEM.ADMIN.SVRCONN", "ADDRESSMAP"),
    }


def test_export_then_apply_gives_the_same_records(mq: MQ, tmp_path: Path, state_dir: Path) -> None:
    mq.cmd(*RECORDS)
    document = exported(mq)
    records = document["systems"]["CSQ1"]["chlauth"]
    assert {"CHLAUTH": "*", "TYPE": "BLOCKADDR", "ADDRLIST": ["9.9.9.9", "8.8.*"]} in records
    assert {
        "CHLAUTH": "APP.*",
        "TYPE": "ADDRESSMAP",
        "ADDRESS": "10.0.0.*",
        "USERSRC": "NOACCESS",
        "DESCR": "no app",
    } in records
    assert not any(r["CHLAUTH"] == "SYSTEM.*" for r in records)
    path = tmp_path / "complex.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    other = MQ(tmp_path / "other")
    first = other("apply", str(path))
    assert first.exit_code == 0, first.output
    lines = first.output.splitlines()
    assert (
        "-CSQ1 SET CHLAUTH('APP.*') TYPE(ADDRESSMAP) ADDRESS('10.0.0.*') USERSRC(NOACCESS) DESCR('no app') "
        "ACTION(REPLACE)"
    ) in lines
    assert "CREATED   CSQ1 CHLAUTH * TYPE(BLOCKADDR)" in lines
    assert "UNCHANGED CSQ1 CHLAUTH * TYPE(BLOCKUSER)" in lines
    # the back-stop record the document leaves out stays without --prune ...
    assert "1 not in the document left alone (--prune deletes them)" in lines[0]
    assert "CHLAUTH(SYSTEM.*)" in shown(other)
    # ... and goes with it, after which the two queue managers have the same records
    pruned = other("apply", "--prune", str(path))
    assert pruned.exit_code == 0, pruned.output
    assert "-CSQ1 SET CHLAUTH('SYSTEM.*') TYPE(ADDRESSMAP) ADDRESS('*') ACTION(REMOVE)" in pruned.output
    assert "DELETED   CSQ1 CHLAUTH SYSTEM.* TYPE(ADDRESSMAP)" in pruned.output
    assert _records(shown(other)) == _records(shown(mq))
    again = other("apply", "--prune", str(path))
    assert again.output.splitlines()[-1].startswith("Nothing to change")


def _records(display: str) -> list[str]:
    """The DISPLAY CHLAUTH lines without the dates and times of change."""
    return [line for line in display.splitlines() if not line.startswith(("ALTDATE", "ALTTIME"))]


def test_a_changed_record_is_replaced(mq: MQ, tmp_path: Path) -> None:
    mq.cmd(RECORDS[0])
    document = exported(mq)
    for record in document["systems"]["CSQ1"]["chlauth"]:
        if record["CHLAUTH"] == "APP.*":
            record["USERSRC"] = "MAP"
            record["MCAUSER"] = "APPUSER"
    path = tmp_path / "complex.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = mq("apply", str(path))
    assert result.exit_code == 0, result.output
    assert "UPDATED   CSQ1 CHLAUTH APP.* TYPE(ADDRESSMAP)" in result.output
    assert "MCAUSER(APPUSER)" in shown(mq)


def test_bad_records_are_refused_with_their_place_and_change_nothing(mq: MQ, tmp_path: Path) -> None:
    mq.cmd(RECORDS[0])
    before = shown(mq)
    cases = {
        "    chlauth:\n    - {CHLAUTH: 'A.*', TYPE: NOSUCH}\n": "TYPE",
        "    chlauth:\n    - {CHLAUTH: '*', TYPE: BLOCKUSER, ADDRESS: '1.2.3.4', USERLIST: [X]}\n": "ADDRESS",
        "    chlauth:\n    - {TYPE: BLOCKUSER, USERLIST: [X]}\n": "CHLAUTH",
        "    chlauth:\n    - {CHLAUTH: '*', TYPE: BLOCKUSER, USERLIST: X}\n": "USERLIST",
        "    chlauth:\n    - {CHLAUTH: '*', TYPE: BLOCKUSER, USERLIST: [X]}\n"
        "    - {CHLAUTH: '*', TYPE: BLOCKUSER, USERLIST: [Y]}\n": "the same record",
    }
    for number, (text, said) in enumerate(cases.items()):
        path = tmp_path / f"bad{number}.yaml"
        path.write_text(HEADER + "  CSQ1:\n    platform: zos\n" + text, encoding="utf-8")
        result = mq("apply", str(path))
        assert result.exit_code != 0, text
        assert f"{path}:" in result.output and said in result.output, result.output
        assert "Traceback" not in result.output
        assert shown(mq) == before


def test_a_ztpf_system_has_no_list(mq: MQ, tmp_path: Path) -> None:
    path = tmp_path / "tpf.yaml"
    path.write_text(HEADER + "  TPF1:\n    platform: ztpf\n    chlauth: []\n", encoding="utf-8")
    result = mq("apply", str(path))
    assert result.exit_code != 0
    assert "chlauth" in result.output
