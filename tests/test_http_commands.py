"""ZHTPS commands, the `.http`/`.httpconf` directives and `mqtool http` without a
serving loop: validation, errors with file and line, the records in the store,
displays with a frozen clock, and requests served in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import MQ, drop_creation_notice

from mqtool.engine.http.records import HTTPSERVER, STARTED, ServerStatus, conf_path
from mqtool.state import Store

CONF = "PORT-8081\nCOMP-gzip,deflate\nCOMPSIZEHW-20000\nCOMPSIZESW-0\n"


def write_conf(mq: MQ, name: str, text: str, system: str = "TPF1") -> Path:
    mq("cmd", "ZHTPS DISPLAY ALL")  # the default complex exists from now on
    path = conf_path(mq.state_dir, system, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def status(mq: MQ, name: str, system: str = "TPF1") -> ServerStatus | None:
    store = Store.open(mq.state_dir)
    try:
        with store.transaction(write=False) as tx:
            record = tx.get_object(system, HTTPSERVER, name)
        return None if record is None else ServerStatus.of(record)
    finally:
        store.close()


def body(output: str) -> list[str]:
    """The response lines without the CSMP0097I header."""
    return [line for line in output.splitlines() if not line.startswith("CSMP0097I")]


# ------------------------------------------------------------------ START
def test_start_records_the_options_and_resets_the_statistics(mq: MQ) -> None:
    write_conf(mq, "HTTP81PORT", CONF)
    result = mq("cmd", "ZHTPS START SERVER-HTTP81PORT")
    assert result.exit_code == 0, result.output
    assert body(result.output) == [
        "HTTPS0001I 10.41.22 HTTP SERVER HTTP81PORT STARTED - PORT 8081",
        "HTTPS0006I 10.41.22 NO MQTOOL SERVE OR SHELL IS RUNNING - HTTP81PORT LISTENS WHILE ONE RUNS+",
    ]
    found = status(mq, "HTTP81PORT")
    assert found is not None
    assert (found.state, found.start_generation, found.options_generation, found.reset_generation) == (
        STARTED,
        1,
        1,
        1,
    )
    assert found.reset_tod == 0xD962CAA972C80000  # 2021-03-09 15:41:22 UTC, the frozen clock
    assert found.owner is None


@pytest.mark.parametrize("spelling", ["ZHTTPS", "zhttps", "ZHTPS"])
def test_both_spellings_answer_as_zhtps(mq: MQ, spelling: str) -> None:
    write_conf(mq, "WEB1", "PORT-8081\n")
    out = mq("cmd", f"{spelling} STOP S-WEB1").output
    assert "HTTPS0103E 10.41.22 HTTP SERVER WEB1 IS NOT STARTED - ENTER ZHTPS START SERVER-WEB1+" in out
    out = mq("cmd", f"{spelling} START").output
    assert "HTTPS0205E 10.41.22 SERVER NAME REQUIRED - ENTER ZHTPS START SERVER-name OR S-name+" in out


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "/etc/tpf_httpserver/WEB1.conf:1: end of file without a PORT line (PORT is required, 0-65535)"),
        ("PORT-80\nHOST-x\n", "/etc/tpf_httpserver/WEB1.conf:2: unknown keyword HOST (known: PORT, IP, DOCROOT,"),
        ("PORT-80\nCOMP-br\n", "/etc/tpf_httpserver/WEB1.conf:2: COMP-br: 'br' is not a coding"),
        ("# c\n\nPORT-99999\n", "/etc/tpf_httpserver/WEB1.conf:3: PORT-99999: must be a whole number from 0 to 65535"),
        ("PORT-80\nPORT-81\n", "/etc/tpf_httpserver/WEB1.conf:2: duplicate keyword PORT (first given on line 1)"),
        ("PORT 80\n", "/etc/tpf_httpserver/WEB1.conf:1: expected KEYWORD-value, found 'PORT 80'"),
        (b"PORT-80\nCOMP-\xff\n", "/etc/tpf_httpserver/WEB1.conf:2: not UTF-8 (byte 0xFF at column 6)"),
    ],
)
def test_start_with_a_bad_file_reports_file_and_line(mq: MQ, text: str | bytes, error: str) -> None:
    path = write_conf(mq, "WEB1", "")
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    result = mq("cmd", "ZHTPS START S-WEB1")
    assert result.exit_code == 10
    line = body(result.output)[0]
    assert line.startswith(f"HTTPS0101E 10.41.22 HTTP SERVER WEB1 NOT STARTED - {error}")
    assert status(mq, "WEB1") is None  # nothing changed


def test_start_errors(mq: MQ) -> None:
    write_conf(mq, "WEB1", "PORT-8081\n")
    write_conf(mq, "WEB2", "PORT-8081\nIP-0.0.0.0\n")
    write_conf(mq, "WEB3", "PORT-0\n")
    write_conf(mq, "WEB4", "PORT-0\n")
    assert "HTTPS0104E 10.41.22 HTTP SERVER NOPE NOT FOUND - NO /etc/tpf_httpserver/NOPE.conf+" in (
        mq("cmd", "ZHTPS START S-NOPE").output
    )
    assert "HTTPS0001I" in mq("cmd", "ZHTPS START S-WEB1").output
    assert "HTTPS0102E 10.41.22 HTTP SERVER WEB1 ALREADY STARTED+" in mq("cmd", "ZHTPS START S-WEB1").output
    clash = mq("cmd", "ZHTPS START S-WEB2").output  # 0.0.0.0 includes 127.0.0.1
    assert (
        "HTTPS0107E 10.41.22 HTTP SERVER WEB2 NOT STARTED - 0.0.0.0 PORT 8081 IS USED BY HTTP SERVER WEB1 OF TPF1+"
        in (clash)
    )
    # PORT-0 never clashes: each gets its own port from the system
    assert "HTTPS0001I" in mq("cmd", "ZHTPS START S-WEB3").output
    assert "HTTPS0001I" in mq("cmd", "ZHTPS START S-WEB4").output


def test_port_clash_across_systems(mq: MQ) -> None:
    mq("system", "add", "TPF2", "--platform", "ztpf")
    write_conf(mq, "WEB1", "PORT-9000\n")
    write_conf(mq, "WEBX", "PORT-9000\n", system="TPF2")
    assert "HTTPS0001I" in mq("cmd", "ZHTPS START S-WEB1").output
    out = mq("--system", "TPF2", "cmd", "ZHTPS START S-WEBX").output
    assert "IS USED BY HTTP SERVER WEB1 OF TPF1" in out
    mq("cmd", "ZHTPS STOP S-WEB1")
    assert "HTTPS0001I" in mq("--system", "TPF2", "cmd", "ZHTPS START S-WEBX").output


# ----------------------------------------------------------- STOP, REFRESH
def test_stop_and_refresh(mq: MQ) -> None:
    path = write_conf(mq, "WEB1", "PORT-8081\n")
    assert "HTTPS0103E" in mq("cmd", "ZHTPS REFRESH S-WEB1").output
    mq("cmd", "ZHTPS START S-WEB1")
    path.write_text("PORT-8081\nCOMP-gzip\nCOMPSIZESW-100\n", encoding="utf-8")
    out = mq("cmd", "ZHTPS REFRESH S-WEB1").output
    assert "HTTPS0003I 10.41.22 HTTP SERVER WEB1 REFRESHED - NEW OPTIONS APPLY TO NEW CONNECTIONS" in out
    assert "HTTPS0007W" not in out
    found = status(mq, "WEB1")
    assert found is not None and found.options_generation == 2 and found.start_generation == 1
    path.write_text("PORT-8082\n", encoding="utf-8")
    out = mq("cmd", "ZHTPS REFRESH S-WEB1").output
    assert "HTTPS0007W 10.41.22 WEB1 KEEPS ITS LISTENER - NEW IP 127.0.0.1 PORT 8082 TAKE EFFECT AT THE NEXT" in out
    path.write_text("PORT-8082\nMAXCONN-0\n", encoding="utf-8")
    out = mq("cmd", "ZHTPS REFRESH S-WEB1").output
    assert (
        "HTTPS0105E 10.41.22 HTTP SERVER WEB1 NOT REFRESHED - /etc/tpf_httpserver/WEB1.conf:2: MAXCONN-0: "
        "must be a whole number from 1 to 65535+"
    ) in out
    assert "PORT 8082" in mq("cmd", "ZHTPS DISPLAY S-WEB1").output  # the last good refresh is in force
    assert "HTTPS0002I 10.41.22 HTTP SERVER WEB1 STOPPED+" in mq("cmd", "ZHTPS STOP S-WEB1").output
    assert "HTTPS0103E" in mq("cmd", "ZHTPS STOP S-WEB1").output
    found = status(mq, "WEB1")
    assert found is not None and found.state == "STOPPED"


def test_refresh_port_clash(mq: MQ) -> None:
    write_conf(mq, "WEB1", "PORT-8081\n")
    path = write_conf(mq, "WEB2", "PORT-8082\n")
    mq("cmd", "ZHTPS START S-WEB1", "ZHTPS START S-WEB2")
    path.write_text("PORT-8081\n", encoding="utf-8")
    out = mq("cmd", "ZHTPS REFRESH S-WEB2").output
    assert "HTTPS0108E 10.41.22 HTTP SERVER WEB2 NOT REFRESHED - 127.0.0.1 PORT 8081 IS USED BY HTTP SERVER WEB1" in out


# ----------------------------------------------------------------- DISPLAY
def test_display_shows_file_options_when_stopped_and_options_in_force_when_started(mq: MQ) -> None:
    path = write_conf(mq, "HTTP81PORT", CONF)
    out = mq("cmd", "ZHTPS DISPLAY SERVER-HTTP81PORT").output
    assert body(out) == [
        "HTTPS0004I 10.41.22 START OF HTTP SERVER DISPLAY",
        "SERVER HTTP81PORT",
        "STATE STOPPED",
        "LISTENING NO",
        "FILE /etc/tpf_httpserver/HTTP81PORT.conf",
        "PORT 8081",
        "IP 127.0.0.1",
        "DOCROOT /etc/tpf_httpserver/www/HTTP81PORT",
        "MAXCONN 100",
        "TIMEOUT 30",
        "COMP gzip,deflate",
        "COMPSIZEHW 20000",
        "COMPSIZESW 0",
        "ACCELERATOR YES (Z15)",
        "STARTED NONE",
        "LAST REFRESH NONE",
        "END OF DISPLAY+",
    ]
    mq("cmd", "ZHTPS START S-HTTP81PORT")
    path.write_text("PORT-9999\n", encoding="utf-8")  # not in force until REFRESH
    out = mq("cmd", "ZHTPS DIS S-HTTP81PORT").output
    assert "STATE STARTED" in out and "PORT 8081" in out and "COMP gzip,deflate" in out
    assert "STARTED 2021-03-09 10:41:22" in out and "LAST REFRESH 2021-03-09 10:41:22" in out
    mq("--clock", "2021-03-09T16:00:00Z", "cmd", "ZHTPS REFRESH S-HTTP81PORT")
    out = mq("cmd", "ZHTPS DIS S-HTTP81PORT").output
    assert "PORT 9999" in out and "COMP NONE" in out
    assert "STARTED 2021-03-09 10:41:22" in out and "LAST REFRESH 2021-03-09 11:00:00" in out


def test_display_all_generic_and_errors(mq: MQ) -> None:
    assert body(mq("cmd", "ZHTPS DISPLAY ALL").output) == [
        "HTTPS0005I 10.41.22 NO HTTP SERVERS MATCHING * ON TPF1",
        "END OF DISPLAY+",
    ]
    write_conf(mq, "WEB1", "PORT-1\n")
    write_conf(mq, "WEB2", "PORT-2\nBOGUS-1\n")
    write_conf(mq, "API1", "PORT-3\n")
    (conf_path(mq.state_dir, "TPF1", "x").parent / "not-a-name.conf").write_text("PORT-4\n")
    servers = [line for line in mq("cmd", "ZHTPS DISPLAY ALL").output.splitlines() if line.startswith("SERVER ")]
    assert servers == ["SERVER API1", "SERVER WEB1", "SERVER WEB2"]
    out = mq("cmd", "ZHTPS DIS S-WEB*").output
    assert "SERVER API1" not in out and "SERVER WEB1" in out
    assert "ERROR /etc/tpf_httpserver/WEB2.conf:2: unknown keyword BOGUS" in out
    assert "HTTPS0005I 10.41.22 NO HTTP SERVERS MATCHING X* ON TPF1" in mq("cmd", "ZHTPS DIS S-X*").output
    assert "HTTPS0104E" in mq("cmd", "ZHTPS DIS S-NOPE").output
    assert "HTTPS0208E 10.41.22 ALL-X NOT IN KEYWORD-VALUE FORM+" in mq("cmd", "ZHTPS DIS ALL-X").output


def test_display_of_a_started_server_whose_file_was_removed(mq: MQ) -> None:
    path = write_conf(mq, "WEB1", "PORT-8081\n")
    mq("cmd", "ZHTPS START S-WEB1")
    path.unlink()
    out = mq("cmd", "ZHTPS DIS ALL").output
    assert "SERVER WEB1" in out and "STATE STARTED" in out and "PORT 8081" in out
    mq("cmd", "ZHTPS STOP S-WEB1")
    assert "ERROR the file does not exist" in mq("cmd", "ZHTPS DIS S-WEB1").output


# ------------------------------------------------------------------- STATS
def test_stats_errors_and_layout(mq: MQ) -> None:
    write_conf(mq, "WEB1", "PORT-8081\n")
    assert "HTTPS0104E" in mq("cmd", "ZHTPS STATS S-NOPE").output
    assert "HTTPS0106E 10.41.22 HTTP SERVER WEB1 HAS NO STATISTICS - IT WAS NEVER STARTED+" in (
        mq("cmd", "ZHTPS STATS S-WEB1").output
    )
    mq("cmd", "ZHTPS START S-WEB1")
    assert body(mq("cmd", "ZHTPS STATS S-WEB1").output) == [
        "HTTPS0011I 10.41.22 HTTP SERVER STATISTICS FOR WEB1",
        "ACTIVE - 0 HWMARK - 0",
        "REFUSED - 0 REUSED - 0",
        "TIMED OUT - 0 URL ERRORS - 0",
        "AVG COMPRESSION RATIO - 0.000",
        "AVG TIME TO COMPRESS - 0.000 MILS",
        "AVG SIZE (BEFORE COMPRESSION) - 0",
        "HARDWARE COMPRESSION COUNT - 0",
        "SOFTWARE COMPRESSION COUNT - 0",
        "NO COMPRESSION COUNT - 0",
        "LAST STATS RESET TOD - D962CAA972C80000 (2021-03-09 10:41:22)",
        "END OF DISPLAY+",
    ]


def test_stats_reset_shows_then_clears(mq: MQ) -> None:
    write_conf(mq, "WEB1", "PORT-8081\nCOMP-gzip\nCOMPSIZESW-1\n")
    out = mq("cmd", "ZHTPS START S-WEB1", ".http WEB1 /sample/5000 accept-encoding=gzip", ".http WEB1 /x").output
    assert "Content-Encoding: gzip" in out and "404 Not Found" in out
    out = mq("--clock", "2021-03-09T15:45:00.5Z", "cmd", "ZHTPS STATS S-WEB1 RESET").output
    lines = body(out)
    assert "SOFTWARE COMPRESSION COUNT - 1" in lines and "NO COMPRESSION COUNT - 1" in lines
    assert lines[-3:] == [
        "LAST STATS RESET TOD - D962CAA972C80000 (2021-03-09 10:41:22)",
        "HTTPS0012I 10.45.00 STATISTICS FOR WEB1 RESET",
        "END OF DISPLAY+",
    ]
    lines = body(mq("cmd", "ZHTPS STATS S-WEB1").output)
    assert "SOFTWARE COMPRESSION COUNT - 0" in lines and "TIMED OUT - 0 URL ERRORS - 0" in lines
    assert lines[-2] == "LAST STATS RESET TOD - D962CB79D3820000 (2021-03-09 10:45:00)"
    found = status(mq, "WEB1")
    assert found is not None and found.reset_generation == 2


# ------------------------------------------------------------------ syntax
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "ZHTPS",
            "HTTPS0201E 10.41.22 VERB (NONE) NOT RECOGNIZED - VALID VERBS ARE START, STOP, REFRESH, DISPLAY, STATS+",
        ),
        ("ZHTPS BEGIN S-WEB1", "HTTPS0201E 10.41.22 VERB BEGIN NOT RECOGNIZED"),
        ("ZHTPS START QL-WEB1", "HTTPS0202E 10.41.22 QL NOT VALID FOR START - SPECIFY SERVER-name OR S-name+"),
        ("ZHTPS STATS ALL", "HTTPS0202E 10.41.22 ALL NOT VALID FOR STATS - SPECIFY SERVER-name OR S-name+"),
        ("ZHTPS DISPLAY", "HTTPS0205E 10.41.22 SERVER NAME REQUIRED - ENTER ZHTPS DISPLAY SERVER-name, S-name OR ALL+"),
        ("ZHTPS STOP S-", "HTTPS0205E"),
        (
            "ZHTPS START S-WEB1 RESET",
            "HTTPS0203E 10.41.22 KEYWORD RESET NOT VALID FOR START - VALID KEYWORDS ARE NONE+",
        ),
        ("ZHTPS STATS S-WEB1 FULL", "HTTPS0203E 10.41.22 KEYWORD FULL NOT VALID FOR STATS - VALID KEYWORDS ARE RESET+"),
        ("ZHTPS STATS S-WEB1 RESET RESET", "HTTPS0204E 10.41.22 KEYWORD RESET SPECIFIED MORE THAN ONCE+"),
        ("ZHTPS STATS S-WEB1 RESET-YES", "HTTPS0209E 10.41.22 KEYWORD RESET TAKES NO VALUE+"),
        ("ZHTPS START S-WEB_1", "HTTPS0206E 10.41.22 NAME WEB_1 NOT VALID FOR SERVER - CONTAINS CHARACTERS OTHER"),
        ("ZHTPS START S-ABCDEFGHIJK", "HTTPS0206E 10.41.22 NAME ABCDEFGHIJK NOT VALID FOR SERVER - LONGER THAN 10"),
        ("ZHTPS START S-ALL", "HTTPS0206E 10.41.22 NAME ALL NOT VALID FOR SERVER - ALL IS RESERVED+"),
        ("ZHTPS START S-WEB*", "HTTPS0206E"),  # generic names only for DISPLAY
        ("ZHTPS START S-'WEB1", "HTTPS0207E 10.41.22 UNBALANCED APOSTROPHES IN S-'WEB1+"),
        ("ZHTPS START S-WEB1,WEB2", "HTTPS0208E 10.41.22 S-WEB1,WEB2 NOT IN KEYWORD-VALUE FORM+"),
    ],
)
def test_syntax_errors_change_nothing(mq: MQ, command: str, expected: str) -> None:
    write_conf(mq, "WEB1", "PORT-8081\n")
    result = mq("cmd", command)
    assert result.exit_code == 10
    assert expected in result.output
    assert "Traceback" not in result.output
    assert status(mq, "WEB1") is None


def test_zhtps_needs_a_ztpf_system(mq: MQ) -> None:
    out = mq("--system", "CSQ1", "cmd", "ZHTPS DISPLAY ALL").output
    assert out.strip() == "HTTPS0210E SYSTEM CSQ1 IS A Z/OS SYSTEM - ZHTPS NEEDS A Z/TPF SYSTEM (.SYSTEM NAME)"


def test_a_second_ztpf_system_has_its_own_servers(mq: MQ) -> None:
    mq("system", "add", "TPF2", "--platform", "ztpf")
    write_conf(mq, "WEB1", "PORT-0\n", system="TPF2")
    assert "HTTPS0104E" in mq("cmd", "ZHTPS START S-WEB1").output  # TPF1 has no WEB1
    out = mq("cmd", ".system TPF2", "ZHTPS START S-WEB1", ".http WEB1 /sample/3").output
    assert "HTTPS0001I" in out and "200 OK" in out
    assert conf_path(mq.state_dir, "TPF2", "x").parent.is_dir()


# -------------------------------------------------------------- directives
def test_http_directive_in_process(mq: MQ) -> None:
    write_conf(mq, "WEB1", "PORT-8081\nCOMP-deflate,gzip\nCOMPSIZESW-1000\n")
    www = conf_path(mq.state_dir, "TPF1", "WEB1").parent / "www" / "WEB1"
    www.mkdir(parents=True)
    (www / "index.html").write_text("<p>hi</p>\n")
    out = mq(
        "cmd",
        "ZHTPS START S-WEB1",
        ".http WEB1 /sample/3000 accept-encoding='gzip, deflate'",
        ".http web1 / accept-encoding=gzip",
        ".http WEB1 /sample/3000 accept-encoding=gzip http=1.0",
        ".http WEB1 /sample/3000 accept-encoding='' method=head",
        ".http WEB1 /../WEB1.conf",
        ".http WEB1 /sample/3000 method=DELETE",
        "ZHTPS STATS S-WEB1",
    ).output
    lines = [line for line in out.splitlines() if line.startswith("MQT0201I")]
    assert lines[0].startswith("MQT0201I WEB1 GET /sample/3000 HTTP/1.1: 200 OK, Content-Encoding: deflate, ")
    assert lines[0].endswith(", 3000 bytes decoded")
    assert (
        lines[1] == "MQT0201I WEB1 GET / HTTP/1.1: 200 OK, Content-Encoding: none, Content-Length: 10, 10 bytes decoded"
    )
    assert "HTTP/1.0: 200 OK, Content-Encoding: none, Content-Length: 3000, 3000 bytes decoded" in lines[2]
    assert lines[3].endswith(
        "HEAD /sample/3000 HTTP/1.1: 200 OK, Content-Encoding: none, Content-Length: 3000, 0 bytes decoded"
    )
    assert "404 Not Found" in lines[4]
    assert "405 Method Not Allowed" in lines[5]
    assert "SOFTWARE COMPRESSION COUNT - 1" in out
    assert "NO COMPRESSION COUNT - 5" in out
    assert "TIMED OUT - 0 URL ERRORS - 1" in out
    assert "ACTIVE - 0 HWMARK - 1" in out  # one connection at a time, all closed


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (".http", "MQT0003E Directive .http: usage: .http SERVER PATH"),
        (".http WEB1", "MQT0003E Directive .http: usage:"),
        (".http WEB1 sample/1", "MQT0003E Directive .http: path 'sample/1' must start with /"),
        (".http WEB1 '/a b'", "must start with / and hold no blanks"),
        (".http WEB1 /x http=2", "MQT0003E Directive .http: http=2: use 1.0 or 1.1"),
        (".http WEB1 /x method='GE T'", "is not an HTTP token"),
        (
            ".http WEB1 /x te=gzip",
            "MQT0003E Directive .http: unknown option te (options: accept-encoding, http, method)",
        ),
        (".http WEB_1 /x", "WEB_1 is not a server name"),
        (".http WEB2 /x", "MQT0202E HTTP server WEB2 of TPF1 is not started; ZHTPS START SERVER-WEB2 starts it"),
        (".http WEB1 /x", "MQT0202E HTTP server WEB1 of TPF1 is not started"),
    ],
)
def test_http_directive_errors(mq: MQ, line: str, expected: str) -> None:
    write_conf(mq, "WEB1", "PORT-8081\n")
    result = mq("cmd", line)
    assert result.exit_code == 10
    assert expected in result.output


def test_http_directive_on_zos(mq: MQ) -> None:
    out = mq("cmd", ".system CSQ1", ".http WEB1 /x").output
    assert "MQT0205E .http needs a z/TPF system; the current system CSQ1 is z/OS" in out


def test_httpconf_directive(mq: MQ) -> None:
    out = mq(
        "cmd",
        ".httpconf web1 PORT-0 'COMP-gzip, deflate' '# a comment' COMPSIZESW-10",
        "ZHTPS START S-WEB1",
        ".http WEB1 /sample/100 accept-encoding=gzip",
    ).output
    assert "MQT0206I Wrote /etc/tpf_httpserver/WEB1.conf of TPF1 (4 lines)" in out
    assert "Content-Encoding: gzip" in out
    path = conf_path(mq.state_dir, "TPF1", "WEB1")
    assert path.read_text() == "PORT-0\nCOMP-gzip, deflate\n# a comment\nCOMPSIZESW-10\n"
    assert (path.parent / "www" / "WEB1").is_dir()
    assert "MQT0003E Directive .httpconf: usage:" in mq("cmd", ".httpconf WEB1").output
    assert "is not a server name" in mq("cmd", ".httpconf W-1 PORT-1").output
    out = mq("cmd", ".httpconf BAD PORT-x", "ZHTPS START S-BAD").output
    assert "HTTPS0101E 10.41.22 HTTP SERVER BAD NOT STARTED - /etc/tpf_httpserver/BAD.conf:1: PORT-X" not in out
    assert "/etc/tpf_httpserver/BAD.conf:1: PORT-x: must be a whole number" in out


def test_one_bad_file_never_breaks_the_others(mq: MQ) -> None:
    # issue 8: a value of 4,300+ digits made START, DISPLAY ALL, http list and
    # .httpconf exit 70 for every server of the system.
    huge = "9" * 5000
    out = mq("cmd", f".httpconf BIG PORT-0 MAXCONN-{huge}", ".httpconf GOOD PORT-8081").output
    assert "MQT0206I Wrote /etc/tpf_httpserver/BIG.conf of TPF1 (2 lines)" in out
    result = mq("cmd", "ZHTPS START S-BIG", "ZHTPS START S-GOOD")
    assert result.exit_code != 70 and "Traceback" not in result.output
    assert "HTTPS0101E 10.41.22 HTTP SERVER BIG NOT STARTED - /etc/tpf_httpserver/BIG.conf:2: MAXCONN-9999" in (
        result.output
    )
    assert "must be a whole number from 1 to 65535" in result.output
    assert "HTTPS0001I 10.41.22 HTTP SERVER GOOD STARTED - PORT 8081" in result.output
    result = mq("cmd", "ZHTPS DISPLAY ALL")
    assert result.exit_code == 0, result.output
    assert "SERVER BIG" in result.output and "ERROR /etc/tpf_httpserver/BIG.conf:2: MAXCONN-" in result.output
    assert "SERVER GOOD" in result.output and "PORT 8081" in result.output
    listed = mq("http", "list")
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert lines[1].split()[:5] == ["TPF1", "BIG", "STOPPED", "NO", "ERROR"]
    assert lines[2].split()[:5] == ["TPF1", "GOOD", "STARTED", "NO", "8081"]
    # the table names the error too, below the rows
    assert any(line.startswith("TPF1 BIG: /etc/tpf_httpserver/BIG.conf:2: MAXCONN-") for line in lines[3:])
    rows = json.loads(mq("http", "list", "--format", "json").output)
    assert "from 1 to 65535" in rows[0]["error"] and rows[1]["error"] == ""


def test_non_ascii_digits_are_refused(mq: MQ) -> None:
    out = mq("cmd", ".httpconf WEB1 PORT-0 MAXCONN-\u0663", "ZHTPS START S-WEB1").output
    assert "HTTPS0101E" in out and "MAXCONN-\u0663: must be a whole number from 1 to 65535" in out


# --------------------------------------------------------------- mqtool http
def test_http_init_writes_a_file_that_starts(mq: MQ) -> None:
    result = mq("http", "init", "http81port", "--port", "8081", "--comp", "deflate, gzip", "--compsizehw", "20000")
    assert result.exit_code == 0, result.output
    path = conf_path(mq.state_dir, "TPF1", "HTTP81PORT")
    text = path.read_text()
    assert "\nPORT-8081\n" in text and "\nCOMP-deflate,gzip\n" in text and "\nCOMPSIZEHW-20000\n" in text
    assert text.startswith("# z/TPF HTTP server HTTP81PORT")
    assert (path.parent / "www" / "HTTP81PORT").is_dir()
    assert "HTTPS0001I" in mq("cmd", "ZHTPS START S-HTTP81PORT").output
    again = mq("http", "init", "HTTP81PORT", "--port", "8082")
    assert again.exit_code != 0 and "exists; use --force to replace it" in again.output
    assert mq("http", "init", "HTTP81PORT", "--port", "8082", "--force").exit_code == 0
    assert "\nPORT-8082\n" in path.read_text()


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["WEB_1", "--port", "80"], "mqtool: error: WEB_1 is not a server name"),
        (["WEB1", "--port", "70000"], "mqtool: error: PORT-70000: must be a whole number from 0 to 65535"),
        (["WEB1", "--port", "80", "--comp", "br"], "mqtool: error: COMP-br: 'br' is not a coding"),
        (["WEB1", "--port", "80", "--compsizehw", "-1"], "mqtool: error: COMPSIZEHW--1"),
        (["WEB1", "--port", "\u0668\u0660"], "mqtool: error: PORT-\u0668\u0660: must be a whole number"),
        (["WEB1", "--port", "9" * 5000], "mqtool: error: PORT-9999"),
        (["WEB1", "--port", "80", "--compsizesw", "1\u0663"], "mqtool: error: COMPSIZESW-1\u0663"),
        (["WEB1", "--port", "80", "--system", "CSQ1"], "mqtool: error: system CSQ1 is z/OS"),
        (["WEB1", "--port", "80", "--system", "NOPE"], "mqtool: error: no system named NOPE"),
    ],
)
def test_http_init_errors(mq: MQ, args: list[str], error: str, capsys: pytest.CaptureFixture[str]) -> None:
    from mqtool.cli.main import main

    with pytest.raises(SystemExit) as exited:
        main(["--state", str(mq.state_dir), "http", "init", *args])
    assert exited.value.code == 2
    err = drop_creation_notice(capsys.readouterr().err)
    assert err.startswith(error) and err.count("\n") == 1, err
    assert not conf_path(mq.state_dir, "TPF1", "WEB1").exists()


def test_http_list(mq: MQ) -> None:
    assert "No HTTP servers" in mq("http", "list").output
    mq("http", "init", "WEB1", "--port", "8081", "--comp", "gzip")
    write_conf(mq, "WEB2", "PORT-x\n")
    mq("cmd", "ZHTPS START S-WEB1")
    out = mq("http", "list").output.splitlines()
    assert out[0].split() == ["SYSTEM", "SERVER", "STATE", "LISTENING", "PORT", "COMP", "FILE"]
    assert out[1].split() == ["TPF1", "WEB1", "STARTED", "NO", "8081", "gzip", "/etc/tpf_httpserver/WEB1.conf"]
    assert out[2].split() == ["TPF1", "WEB2", "STOPPED", "NO", "ERROR", "/etc/tpf_httpserver/WEB2.conf"]
    rows = json.loads(mq("http", "list", "--format", "json").output)
    assert rows[0]["server"] == "WEB1" and rows[0]["listening"] is None and rows[0]["port"] == 8081
    assert rows[1]["error"].startswith("/etc/tpf_httpserver/WEB2.conf:1: PORT-x")
