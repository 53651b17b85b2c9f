"""`mqtool run` for automation: a folder of command files in name order, --verify-first,
and golden checks of one's own scripts with --expect / --update."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MQ


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    config = tmp_path / "config"
    config.mkdir()
    (config / "20-queues.mqsc").write_text("ZMQSC DEFINE QL-B\n", encoding="utf-8")
    (config / "10-first.mqsc").write_text("ZMQSC DEFINE QL-A\n", encoding="utf-8")
    (config / "notes.txt").write_text("ZMQSC DEFINE QL-NOT.RUN\n", encoding="utf-8")
    (config / "sub.mqsc").mkdir()  # a folder named like a file is not a file
    return config


def test_a_folder_runs_its_mqsc_files_in_name_order(mq: MQ, folder: Path) -> None:
    result = mq("run", "-e", str(folder))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"Starting MQSC for {folder / '10-first.mqsc'} on system TPF1.",
        "",
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0001I 10.41.22 DEFINE QL-A COMPLETED+",
        "",
        "One MQSC command read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
        "",
        f"Starting MQSC for {folder / '20-queues.mqsc'} on system TPF1.",
        "",
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0001I 10.41.22 DEFINE QL-B COMPLETED+",
        "",
        "One MQSC command read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    assert "NOT.RUN" not in mq.cmd("ZMQSC DIS QL-*")


def test_verify_first_runs_nothing_when_one_file_has_a_syntax_error(mq: MQ, folder: Path) -> None:
    (folder / "30-bad.mqsc").write_text("ZMQSC DEFINE QL-C\nZMQSC DEFINE QL-D MAXDEPTH-X\n", encoding="utf-8")
    result = mq("run", "--verify-first", str(folder))
    assert result.exit_code == 20
    assert result.stdout.splitlines() == [
        f"Verifying {folder / '30-bad.mqsc'}:",
        "",
        "     1 : ZMQSC DEFINE QL-C",
        "     2 : ZMQSC DEFINE QL-D MAXDEPTH-X",
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0014E 10.41.22 VALUE X NOT VALID FOR MAXDEPTH - ALLOWED 0-999999999+",
        "",
        "2 MQSC commands read.",
        "One command has a syntax error.",
        "All valid MQSC commands were processed.",
        "",
    ]
    assert result.stderr == "mqtool: error: 1 syntax error(s); --verify-first ran no file\n"
    assert "QUEUE A" not in mq.cmd("ZMQSC DIS QL-*")


def test_verify_first_then_runs_every_file(mq: MQ, folder: Path) -> None:
    result = mq("run", "--verify-first", "-e", str(folder))
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Starting MQSC for {folder / '10-first.mqsc'}")
    assert "QUEUE B" in mq.cmd("ZMQSC DIS QL-*")


def test_an_unreadable_file_in_the_list_runs_nothing(mq: MQ, folder: Path) -> None:
    result = mq("run", str(folder), str(folder / "missing.mqsc"))
    assert result.exit_code == 20
    assert result.stderr == f"mqtool: error: cannot read {folder / 'missing.mqsc'}: No such file or directory\n"


SCRIPT = "ZMQSC DEFINE QL-PAYQ MAXDEPTH-10\nZMQSC DISPLAY QL-PAYQ\n"


def test_expect_update_then_match(mq: MQ, tmp_path: Path) -> None:
    script = tmp_path / "scenario.mqsc"
    script.write_text(SCRIPT, encoding="utf-8")
    expected = tmp_path / "scenario.out"
    first = mq("run", str(script), "--expect", str(expected), "--update")
    assert (first.exit_code, first.output) == (0, f"Updated {expected}.\n")
    text = expected.read_text(encoding="utf-8")
    assert text.startswith(f"Starting MQSC for {script} on system TPF1.\n")
    assert "MAXDEPTH 10\n" in text and text.endswith("All valid MQSC commands were processed.\n")
    # The pattern mqtool-run(1) documents: a fresh --state and a frozen clock each time.
    fresh = MQ(tmp_path / "fresh")
    second = fresh("run", str(script), "--expect", str(expected))
    assert (second.exit_code, second.output) == (0, f"Transcript matches {expected}.\n")


def test_expect_prints_a_unified_diff_and_exits_1(mq: MQ, tmp_path: Path) -> None:
    script = tmp_path / "scenario.mqsc"
    script.write_text(SCRIPT, encoding="utf-8")
    expected = tmp_path / "scenario.out"
    assert mq("run", str(script), "--expect", str(expected), "--update").exit_code == 0
    expected.write_text(expected.read_text(encoding="utf-8").replace("MAXDEPTH 10", "MAXDEPTH 20"), encoding="utf-8")
    result = MQ(tmp_path / "again")("run", str(script), "--expect", str(expected))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[:2] == [f"--- {expected}", "+++ transcript"]
    assert "-MAXDEPTH 20" in lines and "+MAXDEPTH 10" in lines
    assert lines[2].startswith("@@ ")


def test_expect_json_transcripts(mq: MQ, tmp_path: Path) -> None:
    script = tmp_path / "scenario.mqsc"
    script.write_text(SCRIPT, encoding="utf-8")
    expected = tmp_path / "scenario.json"
    assert mq("run", "--format", "json", str(script), "--expect", str(expected), "--update").exit_code == 0
    assert expected.read_text(encoding="utf-8").startswith('{\n  "files": [\n')
    again = MQ(tmp_path / "again")("run", "--format", "json", str(script), "--expect", str(expected))
    assert again.exit_code == 0, again.output


def test_expect_errors(mq: MQ, tmp_path: Path) -> None:
    script = tmp_path / "scenario.mqsc"
    script.write_text(SCRIPT, encoding="utf-8")
    missing = tmp_path / "nothing.out"
    result = mq("run", str(script), "--expect", str(missing))
    assert result.exit_code == 2
    # (mqtool.cli.main prints these as one `mqtool: error:` line; CliRunner shows click's form)
    assert result.stderr == f"Error: cannot read {missing}: No such file or directory; --update writes it\n"
    result = mq("run", str(script), "--update")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: --update needs --expect FILE.out")


def test_help_documents_the_options(mq: MQ) -> None:
    text = mq("run", "--help").output
    for option in ("--verify-first", "--expect", "--update", "--format"):
        assert option in text
