"""`mqtool export` on a par with dmpmqcfg: --format 1line and json, -t/--type and
-n/--name filters (generic names), and a header naming the command that wrote it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import MQ
from tests.test_export import tool

SETUP = [
    "ZMQSC DEFINE QL-MY.DLQ",
    "ZMQSC ALTER QMGR DEADQ-MY.DLQ DESCR-'Main'",
    "ZMQSC DEFINE QL-PAY.IN MAXDEPTH-5000",
    "ZMQSC DEFINE QL-PAY.XMIT USAGE-XMITQ",
    "ZMQSC DEFINE QA-PAY.ALIAS TARGQ-PAY.IN",
    "ZMQSC DEFINE CHL-PAY.OUT CHLTYPE-SDR CONNAME-'h(1414)' XMITQ-PAY.XMIT",
    "-CSQ1 DEFINE QLOCAL(PAY.Q) MAXDEPTH(10)",
    "-CSQ1 DEFINE STGCLASS(SMALL) PSID(2)",
]


@pytest.fixture
def configured(mq: MQ) -> MQ:
    result = mq("cmd", *SETUP)
    assert result.exit_code == 0, result.output
    return mq


def out(mq: MQ, *args: str) -> str:
    result = mq("export", *args)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_one_line_per_object(configured: MQ) -> None:
    assert out(configured, "--format", "1line").splitlines() == [
        "* Written by mqtool 0.1.0 (mqtool export --format 1line --system TPF1): one object per line.",
        "* Systems: TPF1 (the current system) only. Not in this file: CSQ1; mqtool export --all writes the whole "
        "complex.",
        "* System TPF1: z/TPF, CPU z15.",
        # the DEADQ that commands write last (the queue must exist) joins its object's line
        "ZMQSC ALTER QMGR DESCR-'Main' DEADQ-MY.DLQ",
        "ZMQSC DEFINE QL-MY.DLQ COMPSIZE-0 MAXMSGL-4194304",
        "ZMQSC DEFINE QL-PAY.IN COMPSIZE-0 MAXDEPTH-5000 MAXMSGL-4194304",
        "ZMQSC DEFINE QL-PAY.XMIT COMPSIZE-0 USAGE-XMITQ MAXMSGL-4194304",
        "ZMQSC DEFINE QA-PAY.ALIAS TARGQ-PAY.IN",
        "ZMQSC DEFINE CHL-PAY.OUT CHLTYPE-SDR CONNAME-'h(1414)' XMITQ-PAY.XMIT BATCHSZ-50 MAXMSGL-4194304",
    ]


def test_type_and_name_filters_in_every_format(configured: MQ) -> None:
    lines = out(configured, "--format", "1line", "--all", "-t", "queue", "-n", "PAY*").splitlines()
    assert [line for line in lines if not line.startswith(("*", "."))] == [
        "ZMQSC DEFINE QL-PAY.IN COMPSIZE-0 MAXDEPTH-5000 MAXMSGL-4194304",
        "ZMQSC DEFINE QL-PAY.XMIT COMPSIZE-0 USAGE-XMITQ MAXMSGL-4194304",
        "ZMQSC DEFINE QA-PAY.ALIAS TARGQ-PAY.IN",
        "-CSQ1 DEFINE QLOCAL(PAY.Q) MAXDEPTH(10) REPLACE",
    ]
    assert lines[0] == (
        "* Written by mqtool 0.1.0 (mqtool export --format 1line --all -t QUEUE -n 'PAY*'): one object per line."
    )
    commands = out(configured, "-t", "CHL", "-t", "QA").splitlines()
    assert [line for line in commands if not line.startswith("*")] == [
        "ZMQSC DEFINE QA-PAY.ALIAS TARGQ-PAY.IN",
        "ZMQSC DEFINE CHL-PAY.OUT CHLTYPE-SDR CONNAME-'h(1414)' XMITQ-PAY.XMIT BATCHSZ-50 MAXMSGL-4194304",
    ]
    document = yaml.safe_load(out(configured, "--format", "yaml", "--all", "-t", "STGCLASS", "-n", "S*"))
    assert document["systems"]["CSQ1"]["objects"] == {
        "STGCLASS": {"SMALL": {"PSID": 2}, "SYSTEM": {"DESCR": "System queues"}, "SYSTEMST": {}}
    }
    assert document["systems"]["TPF1"]["objects"] == {}
    exact = yaml.safe_load(out(configured, "--format", "yaml", "-n", "PAY.IN"))
    assert exact["systems"]["TPF1"]["objects"] == {"QL": {"PAY.IN": {"COMPSIZE": 0, "MAXDEPTH": 5000,
                                                                      "MAXMSGL": 4194304}}}  # fmt: skip


def test_json_is_the_yaml_document_with_its_command(configured: MQ) -> None:
    document = json.loads(out(configured, "--format", "json", "--all"))
    assert document.pop("generated") == "mqtool export --format json --all"
    assert document == yaml.safe_load(out(configured, "--format", "yaml", "--all"))


def test_yaml_header_names_the_command(configured: MQ) -> None:
    head = out(configured, "--format", "yaml", "--system", "csq1", "-a").splitlines()[0]
    assert head == (
        "# mqtool complex: systems with their settings and definitions (mqtool export --format yaml --system CSQ1 -a)."
    )


@pytest.mark.parametrize("output_format", ["commands", "1line", "yaml", "json"])
def test_byte_stable_with_a_frozen_clock(configured: MQ, output_format: str) -> None:
    first = out(configured, "--format", output_format, "--all")
    assert out(configured, "--format", output_format, "--all") == first
    assert configured("export", "--format", output_format, "--all", clock="2030-01-01T00:00:00Z").output == first


def test_unknown_type_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = tool(tmp_path / "state", capsys, "export", "-t", "CHSTATUS")
    assert (code, stdout) == (2, "")
    assert err == (
        "mqtool: error: -t CHSTATUS: not an object type of the systems exported; types: QMGR, QUEUE, CHANNEL, "
        "ALL, or a dialect's object type such as QL, QLOCAL, STGCLASS\n"
    )
