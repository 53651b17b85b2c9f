"""`mqtool smf qstat` and `mqtool smf log` against the MQSMF extracts of seed 002 (IBM MQ
for z/OS 9.4 performance report): tests/golden/zos_smf_seed.mqsc runs the scenarios,
the reports are compared byte for byte with tests/golden/zos_smf_seed.qstat.txt and
.log.txt (`pytest --update-golden` rewrites them; read the diff), and the figures the
seed quotes are checked line by line against the seed's values."""

from __future__ import annotations

import pytest

from tests.test_golden import GOLDEN, check_golden, run_golden

SCRIPT = GOLDEN / "zos_smf_seed.mqsc"
REPORTS = {"qstat.txt": ["smf", "qstat"], "log.txt": ["smf", "log"]}
END = "2024-06-12T12:31:20Z"  # after the script's last interval (12:30:17 to 12:31:17)

# The seed's QSTAT block for LQ1001 (MVAA,VTS1,2024/06/12,12:20:16): the lines whose
# figures the extract shows.
SEED_QSTAT = {
    "Queue Name": "LQ1001",
    "Disposition": "Private",
    "Pageset ID": "1",
    "Bufferpool ID": "1",
    "Current Depth": "60",
    "Open Output Count": "1",
    "QTIME Short": "0",
    "QTIME Long": "0",
    "Last Put Time": "2024/06/12,12:20:15.625491",
    "Last Get Time": "0",
    "Uncommitted Changes": "No",
    "Oldest Message Age": "59",
    "Highest Depth": "60",
    "Lowest Depth": "59",
    "Total Puts": "1",
    "MQPUTs": "1",
    "Persistent MQPUTs": "0",
    "Non-Persistent MQPUTs": "1",
    "MQPUT1s": "0",
    "Non-Persistent MQPUT1s": "0",
    "MQPUT Bytes": "1024",
    "Non-Persistent MQPUT Bytes": "1024",
    "Persistent MQPUT Bytes": "0",
    "Non-Persistent MQPUT1 Bytes": "0",
    "Persistent MQPUT1 Bytes": "0",
    "Fast Puts": "0",
}
# The seed's LOG extract (a 60-second interval of 4 MB persistent messages, one active
# log copy, zHyperLink): the counters a scenario of four messages gives as the seed has them.
SEED_LOG = {
    "Total number of copy1 new logs used during interval:": "14",
    "Total number of copy2 new logs used during interval:": "0",
    "Total number of new logs used which are zHyperWrite capable:": "0",
    "Total number of new logs used which are zHyperWrite enabled:": "14",
    "Total number of new logs used which are zHyperLink capable:": "14",
    "Total number of new logs used which are zHyperLink enabled:": "14",
    "Total number of new logs used which are encrypted:": "0",
    "Total number of read requests:": "0",
}
SEED_COUNTERS = {
    "Write_Wait": 0,
    "Read_Stor": 0,
    "Read_Active": 0,
    "Read_Archive": 0,
    "TVC": 0,
    "ALR": 0,
    "ALW": 0,
    "CIs_Offload": 0,
    "Read_delayed": 0,
    "Tape_Lookahead": 0,
    "Lookahead_Mount": 0,
    "Write_Serl": 0,
    "Buff_Pagein": 0,
    "Copy1_Used": 14,
    "Copy2_Used": 0,
    "Logs_ZHWC": 0,
    "Logs_ZHWE": 14,
    "Logs_encr": 0,
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    from click.testing import CliRunner

    from mqtool.cli.main import main_group

    state = tmp_path_factory.mktemp("seed") / "state"
    with pytest.MonkeyPatch.context() as monkeypatch:
        _output, code = run_golden(SCRIPT, state, monkeypatch)
    assert code == 0
    found = {}
    for suffix, args in REPORTS.items():
        result = CliRunner().invoke(
            main_group, ["--state", str(state), "--clock", END, *args, "--system", "VTS1"], catch_exceptions=False
        )
        assert result.exit_code == 0, result.output
        found[suffix] = result.output
    return found


def _blocks(text: str) -> list[list[str]]:
    return [block.splitlines() for block in text.strip("\n").split("\n\n")]


def _fields(block: list[str]) -> dict[str, str]:
    fields = {}
    for line in block[2:]:
        label, _, value = line.partition("..")
        fields[label] = value.lstrip(".")
    return fields


def test_reports_match_the_golden_files(reports: dict[str, str], request: pytest.FixtureRequest) -> None:
    for suffix, text in reports.items():
        check_golden(GOLDEN / f"zos_smf_seed.{suffix}", text, request)


def test_the_qstat_block_has_the_seeds_figures(reports: dict[str, str]) -> None:
    first = _blocks(reports["qstat.txt"])[0]
    # MQSMF's header names the SMF system id (MVAA in the seed); mqtool's is the system's name.
    assert first[0] == "VTS1,VTS1,2024/06/12,12:20:16,VRM:940,"
    assert first[1] == "From 2024/06/12,12:20:15 to 2024/06/12,12:20:16, duration 1 seconds."
    fields = _fields(first)
    assert {label: fields[label] for label in SEED_QSTAT} == SEED_QSTAT


def test_the_record_written_when_the_trace_stops_ends_then(reports: dict[str, str]) -> None:
    blocks = _blocks(reports["qstat.txt"])
    assert [block[1] for block in blocks] == [
        "From 2024/06/12,12:20:15 to 2024/06/12,12:20:16, duration 1 seconds.",
        "From 2024/06/12,12:20:16 to 2024/06/12,12:20:17, duration 1 seconds.",
        "From 2024/06/12,12:20:17 to 2024/06/12,12:20:17, duration 1 seconds.",
    ]
    second, last = _fields(blocks[1]), _fields(blocks[2])
    assert (second["Current Depth"], second["MQPUTs"], second["Open Output Count"]) == ("61", "1", "1")
    assert (last["MQPUTs"], last["Open Output Count"], last["MQCLOSEs"]) == ("0", "0", "1")


def test_the_log_report_has_the_seeds_counters(reports: dict[str, str]) -> None:
    blocks = _blocks(reports["log.txt"])
    assert len(blocks) == 1
    block = blocks[0]
    assert block[1] == "From 2024/06/12,12:30:17 to 2024/06/12,12:31:17, duration 60 seconds."
    for label, value in SEED_LOG.items():
        line = next(line for line in block if line.strip().startswith(label))
        assert line.split()[-1] == value, label
    counters = {}
    for line in block:
        if "," in line and not line.strip().startswith(("Log ", "From", "VTS1", "_")):
            for pair in line.split(","):
                words = pair.split()
                if len(words) == 2 and words[1].isdigit():
                    counters[words[0]] = int(words[1])
    assert {name: counters[name] for name in SEED_COUNTERS} == SEED_COUNTERS
    # Each 4 MB message waits for buffers; 4 puts and 4 gets are the write requests.
    assert (counters["WTB"], counters["Write_Reqs"], counters["BSDS_Reqs"]) == (4, 8, 14)
    # One active log copy: MQSMF's Log 1 lines only.
    assert not [line for line in block if line.strip().startswith("Log 2")]
    assert " Log 1, 1 page         4,            4,           0,           0,        1" in block
    assert " Log 1,>1 page         4,         4100,           0,           0,     1025" in block


def test_the_zhyperlink_section_adds_up_as_the_seeds(reports: dict[str, str]) -> None:
    """The seed's rows: sync + async = write requests, column by column; the averages
    are of the writes at a switch per new log ((1 + 26) / 14 = 1.9, 2604 / 14 = 186.0)."""
    block = _blocks(reports["log.txt"])[0]
    start = block.index(" zHyperLink write stats")
    rows = {}
    for line in block[start + 2 : start + 6]:
        rows[line[:16].strip()] = [int(value) for value in line[16:].replace(",", " ").split()]
    sync, asynchronous = rows["Sync writes"], rows["Async writes"]
    assert [s + a for s, a in zip(sync, asynchronous, strict=True)] == rows["Write requests"] == [4, 4, 4104]
    assert rows["...switch"] == [0, 4, 4100]
    assert block[start + 6] == " Average async writes per log switch: 0.3"
    assert block[start + 7] == " Average async pages written per log switch: 292.9"
