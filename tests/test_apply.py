"""`mqtool apply`: plans from a complex document (DEFINE, ALTER of what differs, DELETE
with --prune), in dependency order, run command by command; round trips through
export for both platforms; and every kind of bad document refused with its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import MQ
from tests.test_export import ZTPF_SETUP
from tests.test_zos_export import SETUP as ZOS_SETUP
from tests.test_zos_objects import put_rows

HEADER = "kind: mqtool-complex\nversion: 1\nsystems:\n"


def write(tmp_path: Path, text: str, name: str = "complex.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def everything(mq: MQ) -> str:
    """The whole complex as export writes it: what must not change, or must match."""
    result = mq("export", "--format", "yaml", "--all")
    assert result.exit_code == 0, result.output
    return result.output


SMALL = (
    HEADER
    + """\
  TPF1:
    platform: ztpf
    objects:
      QL:
        PAY.XMIT: {USAGE: XMITQ}
        PAY.IN: {MAXDEPTH: 100}
      QA:
        PAY.ALIAS: {TARGQ: PAY.IN}
      CHL:
        PAY.OUT: {CHLTYPE: SDR, CONNAME: 'h(1414)', XMITQ: PAY.XMIT}
"""
)


def test_plan_and_outcomes(mq: MQ, tmp_path: Path) -> None:
    path = write(tmp_path, SMALL)
    result = mq("apply", str(path))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"Plan for {path}: 4 to create, 0 to update, 0 to delete, 0 unchanged.",
        ".system TPF1",
        "ZMQSC DEFINE QL-PAY.IN COMPSIZE-0 MAXDEPTH-100 MAXMSGL-4194304",
        "ZMQSC DEFINE QL-PAY.XMIT COMPSIZE-0 USAGE-XMITQ MAXMSGL-4194304",
        "ZMQSC DEFINE QA-PAY.ALIAS TARGQ-PAY.IN",
        "ZMQSC DEFINE CHL-PAY.OUT CHLTYPE-SDR CONNAME-'h(1414)' XMITQ-PAY.XMIT BATCHSZ-50 MAXMSGL-4194304",
        "",
        "CREATED   TPF1 QL PAY.IN",
        "CREATED   TPF1 QL PAY.XMIT",
        "CREATED   TPF1 QA PAY.ALIAS",
        "CREATED   TPF1 CHL PAY.OUT",
        f"Applied {path}: 4 created, 0 updated, 0 deleted, 0 unchanged.",
    ]
    again = mq("apply", str(path))
    assert again.exit_code == 0
    assert again.output.splitlines() == [
        f"Plan for {path}: 0 to create, 0 to update, 0 to delete, 4 unchanged.",
        "",
        "UNCHANGED TPF1 QL PAY.IN",
        "UNCHANGED TPF1 QL PAY.XMIT",
        "UNCHANGED TPF1 QA PAY.ALIAS",
        "UNCHANGED TPF1 CHL PAY.OUT",
        f"Nothing to change: {path} matches (0 created, 0 updated, 0 deleted, 4 unchanged).",
    ]


def test_alter_only_what_differs(mq: MQ, tmp_path: Path) -> None:
    mq.cmd("ZMQSC DEFINE QL-PAY.IN MAXDEPTH-5 DESCR-'old' SWEEP-NO")
    path = write(tmp_path, HEADER + "  TPF1:\n    platform: ztpf\n    objects:\n      QL:\n"
                 "        PAY.IN: {MAXDEPTH: 100, DESCR: new}\n")  # fmt: skip
    lines = mq("apply", str(path)).output.splitlines()
    # SWEEP is left out: it takes its default again, as the document says
    assert "ZMQSC ALTER QL-PAY.IN MAXDEPTH-100 SWEEP-YES DESCR-'new'" in lines
    assert "UPDATED   TPF1 QL PAY.IN: MAXDEPTH, SWEEP, DESCR" in lines
    assert "MAXDEPTH 100" in mq.cmd("ZMQSC DIS QL-PAY.IN")


def test_prune_deletes_in_reverse_dependency_order(mq: MQ, tmp_path: Path) -> None:
    assert mq("apply", str(write(tmp_path, SMALL))).exit_code == 0
    path = write(
        tmp_path, HEADER + "  TPF1:\n    platform: ztpf\n    objects:\n      QL:\n        PAY.IN: {MAXDEPTH: 100}\n"
    )
    kept = mq("apply", str(path))
    assert kept.output.splitlines()[0] == (
        f"Plan for {path}: 0 to create, 0 to update, 0 to delete, 1 unchanged; 3 not in the document left alone "
        "(--prune deletes them)."
    )
    dry = mq("apply", str(path), "--prune", "--dry-run")
    assert dry.exit_code == 0
    assert dry.output.splitlines()[1:5] == [
        ".system TPF1",
        "ZMQSC DELETE CHL-PAY.OUT",
        "ZMQSC DELETE QA-PAY.ALIAS",
        "ZMQSC DELETE QL-PAY.XMIT",
    ]
    assert dry.output.splitlines()[-1].startswith(f"Dry run of {path}: nothing was changed")
    assert "QUEUE PAY.XMIT" in mq.cmd("ZMQSC DIS QL-*")
    done = mq("apply", str(path), "--prune")
    assert done.exit_code == 0, done.output
    assert [line for line in done.output.splitlines() if line.startswith("DELETED")] == [
        "DELETED   TPF1 CHL PAY.OUT",
        "DELETED   TPF1 QA PAY.ALIAS",
        "DELETED   TPF1 QL PAY.XMIT",
    ]
    # The queue manager and its system queues go only with the system.
    assert "QUEUE DEAD.LETTER.QUEUE" in mq.cmd("ZMQSC DIS QL-*")


def test_a_queue_holding_messages_needs_purge(mq: MQ, tmp_path: Path, state_dir: Path) -> None:
    mq.cmd("-CSQ1 DEFINE QLOCAL(FULL)")
    put_rows(state_dir, "FULL", [10])
    document = yaml.safe_load(everything(mq))
    del document["systems"]["CSQ1"]["objects"]["QLOCAL"]["FULL"]
    path = write(tmp_path, yaml.safe_dump(document))
    before = everything(mq)
    refused = mq("apply", str(path), "--prune")
    assert refused.exit_code == 2
    assert refused.stderr == (
        f"Error: {path}: QLOCAL FULL of CSQ1 holds 1 message, and the plan deletes it; --purge deletes it with its "
        "messages; nothing was changed\n"
    )
    assert everything(mq) == before
    done = mq("apply", str(path), "--prune", "--purge")
    assert done.exit_code == 0, done.output
    assert "-CSQ1 DELETE QLOCAL(FULL) PURGE" in done.output.splitlines()


def test_dependency_order_on_zos(mq: MQ, tmp_path: Path) -> None:
    text = (
        HEADER
        + """\
  CSQ1:
    platform: zos
    objects:
      QALIAS:
        A.ALIAS: {TARGET: Z.TARGET}
      QLOCAL:
        Z.TARGET: {STREAMQ: B.COPY, STGCLASS: NEW}
        B.COPY: {}
        XQ: {USAGE: XMITQ}
      STGCLASS:
        NEW: {PSID: 7}
      PSID:
        '7': {}
      QREMOTE:
        R: {RNAME: X, RQMNAME: QM2, XMITQ: XQ}
"""
    )
    result = mq("apply", str(write(tmp_path, text)))
    assert result.exit_code == 0, result.output
    plan = [line for line in result.output.splitlines() if line.startswith("-CSQ1")]
    assert plan == [
        "-CSQ1 DEFINE PSID(07)",
        "-CSQ1 DEFINE STGCLASS(NEW) PSID(7)",
        "-CSQ1 DEFINE QLOCAL(B.COPY)",
        "-CSQ1 DEFINE QLOCAL(XQ) USAGE(XMITQ)",
        "-CSQ1 DEFINE QLOCAL(Z.TARGET) STGCLASS(NEW) STREAMQ(B.COPY)",
        "-CSQ1 DEFINE QREMOTE(R) RNAME(X) RQMNAME(QM2) XMITQ(XQ)",
        "-CSQ1 DEFINE QALIAS(A.ALIAS) TARGET(Z.TARGET)",
    ]


def test_a_dependency_cycle_is_an_error_at_its_place(mq: MQ, tmp_path: Path) -> None:
    text = (
        HEADER
        + """\
  CSQ1:
    platform: zos
    objects:
      QLOCAL:
        SOURCE: {STREAMQ: LOOP.ALIAS}
      QALIAS:
        LOOP.ALIAS: {TARGET: SOURCE}
"""
    )
    path = write(tmp_path, text)
    before = everything(mq)
    result = mq("apply", str(path))
    assert result.exit_code == 2
    assert result.stderr == (
        f"mqtool: error: {path}:8:9: dependency cycle: QLOCAL SOURCE -> QALIAS LOOP.ALIAS [TARGET(SOURCE)] -> "
        "QLOCAL SOURCE [STREAMQ(LOOP.ALIAS)]; break it with a second document or command\n"
    )
    assert everything(mq) == before


@pytest.mark.parametrize(
    ("text", "errors"),
    [
        ("kind: mqtool-complex\nversion: [1\n", ["3:1: not valid YAML: while parsing a flow sequence ..."]),
        ("kind: mqtool-complex\n\tversion: 1\n", ["2:1: not valid YAML: ..."]),
        ("", ["1:1: the document is empty"]),
        ("- a list\n", ["1:1: the document: ['a list'] is not a mapping"]),
        ("kind: other\nversion: 1\nsystems: {}\n", ["1:7: kind: must be 'mqtool-complex', not 'other'"]),
        ("kind: mqtool-complex\nsystems: {}\n", ["1:1: 'version' is required here"]),
        (HEADER + "  TPF1:\n    platform: ztpf\n    objects:\n      QL:\n        Q1: {MAXDEPTH: -1, BOGUS: 2}\n",
         ["8:24: MAXDEPTH: -1 is out of range (at least 0)",
          "8:28: unknown QL attribute 'BOGUS'; QL attributes: COMMON, COMPSIZE, DEFPSIST, DESCR, GET, MAXDEPTH, "
          "MAXMSGL, PROCESS, PUT, QDEPTHHI, SWEEP, TRIGTYPE, USAGE"]),
        (HEADER + "  TPF1:\n    platform: ztpf\n    objects:\n      QL:\n        Q1: {}\n        Q1: {}\n",
         ["9:9: 'Q1' is given twice"]),
        (HEADER + "  TPF1:\n    platform: ztpf\n    settings: {cpu: z99, sweeplo: 90}\n",
         ["6:21: cpu: 'z99' is not one of z13, z14, z15, z16, z17"]),
        (HEADER + "  TPF1:\n    platform: ztpf\n    settings: {sweeplo: 90}\n",
         ["6:15: sweeplo 90 must be below sweephi 80"]),
        (HEADER + "  TPF1:\n    platform: zos\n", ["5:15: system TPF1 is ztpf, not zos"]),
        (HEADER + "  tpf1:\n    platform: ztpf\n", ["4:3: 'tpf1' is not a valid system name"]),
        (HEADER + "  TPF1:\n    platform: ztpf\n    objects:\n      QA:\n        A1: {TARGQ: NOWHERE}\n",
         ["8:21: QA A1: TARGQ names queue NOWHERE, which the plan leaves undefined"]),
        (HEADER + "  TPF1:\n    platform: ztpf\n    objects:\n      CHL:\n        C1: {BATCHSZ: 5}\n",
         ["8:9: CHL C1: CHLTYPE is required to define it"]),
        (HEADER + "  CSQ1:\n    platform: zos\n    objects:\n      CHANNEL:\n        C1: {}\n",
         ["8:9: CHANNEL C1: CHLTYPE is required to define it"]),
        (HEADER + "  BARE:\n    platform: ztpf\n    objects:\n      QL:\n        Q1: {}\n",
         ["8:9: QL Q1: system BARE has no queue manager; the document gives none (objects.QMGR)"]),
        (HEADER + "  TPF1:\n    platform: ztpf\n    objects:\n      QL:\n        DEAD.LETTER.QUEUE: {COMMON: 'YES'}\n",
         ["8:9: QL DEAD.LETTER.QUEUE: COMMON cannot be altered, so it must be deleted and defined again; --prune "
          "allows that"]),
    ],
)  # fmt: skip
def test_bad_documents_change_nothing(mq: MQ, tmp_path: Path, text: str, errors: list[str]) -> None:
    path = write(tmp_path, text)
    before = everything(mq)
    result = mq("apply", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    shown = result.stderr.splitlines()
    assert len(shown) == len(errors), result.stderr
    for line, error in zip(shown, errors, strict=True):
        # YAML's own wording (libyaml or pure Python) is not ours to pin: its place is.
        if error.endswith("..."):
            assert line.startswith(f"mqtool: error: {path}:{error[:-3]}"), line
        else:
            assert line == f"mqtool: error: {path}:{error}"
    assert everything(mq) == before


def test_unreadable_file(mq: MQ, tmp_path: Path) -> None:
    result = mq("apply", str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2
    assert result.stderr == f"Error: cannot read {tmp_path / 'missing.yaml'}: No such file or directory\n"


def test_a_failing_command_stops_the_run(mq: MQ, tmp_path: Path) -> None:
    """A rule the plan cannot see (XMITQ must be a transmission queue) fails at its
    command: exit 10, the commands before it stay applied."""
    text = (
        HEADER
        + """\
  TPF1:
    platform: ztpf
    objects:
      QL:
        NOT.XMIT: {}
      QR:
        R: {RNAME: X, RQMNAME: Y, XMITQ: NOT.XMIT}
"""
    )
    result = mq("apply", str(write(tmp_path, text)))
    assert result.exit_code == 10
    lines = result.output.splitlines()
    assert lines[-4:] == [
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0031E 10.41.22 QUEUE NOT.XMIT IS NOT A TRANSMISSION QUEUE (USAGE-XMITQ)+",
        "FAILED    TPF1 QR R: ZMQSC DEFINE QR-R RNAME-X RQMNAME-Y XMITQ-NOT.XMIT",
        "Stopped at command 2 of 2; the 1 before it are applied, the rest was not run.",
    ]
    assert "CREATED   TPF1 QL NOT.XMIT" in lines


def test_json_report(mq: MQ, tmp_path: Path) -> None:
    result = mq("apply", str(write(tmp_path, SMALL)), "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["status"] == "applied" and report["dryRun"] is False
    assert report["summary"] == {"created": 4, "updated": 0, "deleted": 0, "unchanged": 0}
    assert report["plan"][0] == {
        "system": "TPF1",
        "command": "ZMQSC DEFINE QL-PAY.IN COMPSIZE-0 MAXDEPTH-100 MAXMSGL-4194304",
    }
    assert report["objects"][0] == {"system": "TPF1", "type": "QL", "name": "PAY.IN", "outcome": "CREATED"}
    assert report["leftAlone"] == 0


def test_systems_and_settings(mq: MQ, tmp_path: Path) -> None:
    text = (
        HEADER
        + """\
  LAB:
    platform: ztpf
    settings: {cpu: z14, qmgr: LABQM, offset: '+01:00'}
    objects:
      QMGR:
        LABQM: {DESCR: lab}
      QL:
        LAB.Q: {}
  CSQ2:
    platform: zos
    settings: {cpf: '+CSQ2', log: {OUTBUFF: 400}}
  TPF1:
    platform: ztpf
    settings: {swbpool: 5000}
"""
    )
    result = mq("apply", str(write(tmp_path, text)))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if line.startswith("* ")] == [
        "* mqtool system add LAB --platform ztpf --cpu z14 --offset +01:00 --qmgr LABQM",
        "* mqtool system add CSQ2 --platform zos --cpf +CSQ2 --log OUTBUFF=400",
        "* mqtool system alter TPF1 --swbpool 5000",
    ]
    assert lines[2:5] == [
        ".system LAB",
        "ZMQSC ALTER QMGR DESCR-'lab'",
        "ZMQSC DEFINE QL-LAB.Q COMPSIZE-0 MAXMSGL-4194304",
    ]
    assert "UPDATED   system TPF1: swbpool" in lines and "CREATED   system LAB" in lines
    listing = json.loads(mq("system", "list", "--format", "json").output)
    by_name = {row["name"]: row for row in listing}
    assert by_name["LAB"]["qmgr"] == "LABQM" and by_name["LAB"]["cpu"] == "z14"
    assert by_name["CSQ2"]["cpf"] == "+CSQ2" and by_name["CSQ2"]["settings"]["log"]["OUTBUFF"] == 400
    assert by_name["TPF1"]["settings"]["swbpool"] == 5000
    assert "DESCR lab" in mq("--system", "LAB", "cmd", "ZMQSC DIS QMGR").output
    assert mq("apply", str(tmp_path / "complex.yaml")).output.splitlines()[-1].startswith("Nothing to change")


def test_standard_input(mq: MQ) -> None:
    result = mq("apply", "-", input=SMALL)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "Applied -: 4 created, 0 updated, 0 deleted, 0 unchanged."


def round_trip(source: MQ, target: MQ, tmp_path: Path, *args: str) -> None:
    exported = everything(source)
    path = write(tmp_path, exported, "exported.yaml")
    first = target("apply", str(path), *args)
    assert first.exit_code == 0, first.output
    assert everything(target) == exported
    second = target("apply", str(path), *args)
    assert second.exit_code == 0
    assert second.output.splitlines()[-1].startswith("Nothing to change:")
    assert " 0 to create, 0 to update, 0 to delete" in second.output.splitlines()[0]


def test_round_trip_ztpf(mq: MQ, tmp_path: Path) -> None:
    assert mq("cmd", *ZTPF_SETUP).exit_code == 0
    assert mq("system", "alter", "TPF1", "--cpu", "z14", "--swbpool", "5000").exit_code == 0
    assert mq("system", "add", "LAB", "--platform", "ztpf", "--qmgr", "LABQM", "--offset", "+01:00").exit_code == 0
    assert mq("--system", "LAB", "cmd", "ZMQSC DEFINE QL-LAB.Q DESCR-'lab'").exit_code == 0
    round_trip(mq, MQ(tmp_path / "target"), tmp_path)


def test_round_trip_zos(mq: MQ, tmp_path: Path) -> None:
    assert mq("--system", "CSQ1", "cmd", *ZOS_SETUP).exit_code == 0
    assert mq("system", "add", "CSQ2", "--platform", "zos", "--log", "OUTBUFF=400").exit_code == 0
    # The built-in objects the setup deleted (or changed the type of) go only with --prune.
    round_trip(mq, MQ(tmp_path / "target"), tmp_path, "--prune")


def test_the_published_schema_is_current_and_valid() -> None:
    import jsonschema

    from mqtool.apply.schema import build_schema, load_schema, render, schema_text

    assert schema_text() == render(), "run python -m mqtool.apply.schema and commit the schema"
    jsonschema.Draft202012Validator.check_schema(load_schema())
    assert load_schema() == build_schema()


def test_progress_bar_on_a_terminal(mq: MQ, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal a long plan shows a rich progress bar; the report is the same."""
    import mqtool.cli.apply as cli_apply

    monkeypatch.setattr(cli_apply, "PROGRESS_FROM", 1)
    seen: list[Any] = []

    import rich.progress

    real = rich.progress.Progress

    def recording(*args: Any, **kwargs: Any) -> Any:
        progress = real(*args, **kwargs)
        seen.append(progress)
        return progress

    monkeypatch.setattr(rich.progress, "Progress", recording)
    monkeypatch.setattr(cli_apply, "_terminal", lambda: True)
    result = mq("apply", str(write(tmp_path, SMALL)))
    assert result.exit_code == 0
    assert seen and seen[0].tasks[0].completed == 4
