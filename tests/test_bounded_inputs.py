"""Every input path is bounded (issue 16, item 3): hostile numbers (more than 4,300
digits, negative, fractions, NaN, infinity, empty, non-ASCII digits such as ٣) in every
numeric option of every subcommand, in the keyword values and WHERE filters of the
three dialects, in the directives, in YAML and JSON documents, the HTTP server's
NAME.conf and rest.yaml; and hostile files (folders, FIFOs, devices, symbolic link
loops, unreadable, too large) where a file is read. Each is refused with a clear
message, never exit 70 or a traceback, and a refusal changes nothing in the store."""

from __future__ import annotations

import errno
import os
import re
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from mqtool import inputs, tables, yamldoc
from mqtool.cli.main import main_group
from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.http.config import ConfigError, load_options
from mqtool.messages import CATALOGUE
from mqtool.response import OK, SYNTAX
from mqtool.session import Session
from mqtool.state import Store
from tests.conftest import FROZEN

HUGE = "9" * 5000
HOSTILE = [HUGE, "-" + HUGE, "1" + "0" * 4400, "-1", "1.5", "0.5", "nan", "NaN", "inf", "-inf", "1e999", "",
           " ", "\u0663", "\u0661\u0660", "１２", "0x10", "1_000", "+5", "5 5", "٣s"]  # fmt: skip
# Text that looks like a number, and anything at all.
NUMERISH = st.one_of(
    st.sampled_from(HOSTILE),
    st.from_regex(r"\A[-+]?[0-9]{0,60}(\.[0-9]{0,60})?([eE][-+]?[0-9]{1,4})?\Z"),
    st.text(max_size=20),
)
QUICK = settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
_PLAIN = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*(ms|s|m|h|d|/s|KB|MB)?\s*", re.ASCII | re.IGNORECASE)


def _costly(value: str, above: float = 16) -> bool:
    """A good number that would make the command do a lot (put millions of messages,
    start a pool of workers, move the clock by years): the tests give hostile values."""
    match = _PLAIN.fullmatch(value)
    return match is not None and float(match.group(1)) > above


def _snapshot(state: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table of the store (nothing when there is none yet)."""
    path = state / "mqtool.db"
    if not path.exists():
        return {}
    conn = sqlite3.connect(path)
    try:
        names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr) for name in names}
    finally:
        conn.close()


def _no_escape(result: Result, args: list[str]) -> None:
    """Exit 70 or an exception that is no exit is an escape; so is a traceback."""
    shown = [arg[:30] for arg in args]
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{shown}: {type(result.exception).__name__}: {str(result.exception)[:200]}")
    assert result.exit_code != 70, (shown, result.output[-300:])
    assert "Traceback" not in result.output and "internal error" not in result.output, (shown, result.output[-300:])


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store for the module: a z/TPF queue and a z/OS queue, each holding a message."""
    state = tmp_path_factory.mktemp("bounded") / "state"
    runner = CliRunner()
    base = ["--state", str(state), "--clock", FROZEN]
    for args in (
        ["cmd", "ZMQSC DEFINE QL-Q", "-CSQ1 DEFINE QLOCAL(Q)"],
        ["put", "Q", "--data", "x"],
        ["--system", "CSQ1", "put", "Q", "--data", "x"],
    ):
        assert runner.invoke(main_group, [*base, *args]).exit_code == 0
    return state


def invoke(state: Path, args: list[str], input: str | None = None) -> Result:
    for name in ("MQTOOL_STATE", "MQTOOL_SYSTEM", "MQTOOL_CLOCK"):
        os.environ.pop(name, None)
    runner = CliRunner()
    return runner.invoke(main_group, ["--state", str(state), "--clock", FROZEN, *args], input=input)


# -- every numeric option of every subcommand ------------------------------------------------

# (the command before the option, the option, what follows it). Each option is given
# hostile values; the command around it would succeed with a good one.
NUMERIC_OPTIONS: list[tuple[list[str], str, list[str]]] = [
    (["put", "Q"], "--count", ["--data", "x", "-q"]),
    (["put", "Q"], "--seed", ["--count", "0"]),
    (["put", "Q"], "--priority", ["--data", "x", "-q"]),
    (["put", "Q"], "--size", ["--count", "0"]),
    (["put", "Q"], "--expiry", ["--data", "x", "-q"]),
    (["get", "Q", "--browse"], "--count", []),
    (["get", "Q", "--browse"], "--wait", []),
    (["console"], "--last", []),
    (["estimate", "--pattern", "text", "--count", "1"], "--size", ["--report", "ratios"]),
    (["estimate", "--pattern", "text", "--size", "100"], "--count", ["--report", "ratios"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--seed", ["--report", "ratios"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--classes", ["--report", "ratios"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--compsize", ["--report", "ztpf"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--xmitq-compsize", ["--report", "channel"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--swbsize", ["--report", "ztpf"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--swbpool", ["--report", "ztpf"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--sweephi", ["--report", "ztpf"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--sweeplo", ["--report", "ztpf"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--rate", ["--report", "sweeper"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--outage", ["--report", "sweeper"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--compsizehw", ["--report", "http"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--compsizesw", ["--report", "http"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--pages", ["--report", "zos"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--jobs", ["--report", "ratios"]),
    (["estimate", "--pattern", "text", "--count", "1"], "--split", ["--report", "ratios"]),
    (["system", "add", "TPFX", "--platform", "ztpf"], "--istream", []),
    (["system", "add", "TPFX", "--platform", "ztpf"], "--swbsize", []),
    (["system", "add", "TPFX", "--platform", "ztpf"], "--swbpool", []),
    (["system", "add", "TPFX", "--platform", "ztpf"], "--sweephi", []),
    (["system", "add", "TPFX", "--platform", "ztpf"], "--sweeplo", []),
    (["system", "add", "TPFX", "--platform", "ztpf"], "--offset", []),
    (["system", "add", "CSQX", "--platform", "zos"], "--statime", []),
    (["system", "alter", "TPF1"], "--istream", []),
    (["system", "alter", "TPF1"], "--swbpool", []),
    (["system", "alter", "CSQ1"], "--statime", []),
    (["system", "alter", "CSQ1"], "--log", []),
    (["system", "alter", "CSQ1"], "--archive", []),
    (["system", "alter", "CSQ1"], "--listener", []),
    (["http", "init", "WEBX", "--force"], "--port", []),
    (["http", "init", "WEBX", "--force", "--port", "0"], "--compsizehw", []),
    (["http", "init", "WEBX", "--force", "--port", "0"], "--compsizesw", []),
    (["rest", "init", "--force", "--user", "u:MQWebAdmin"], "--port", []),
    (["rest", "init", "--force", "--user", "u:MQWebAdmin", "--port", "0"], "--maxconn", []),
    (["rest", "init", "--force", "--user", "u:MQWebAdmin", "--port", "0"], "--timeout", []),
    (["rest", "init", "--force", "--user", "u:MQWebAdmin", "--port", "0"], "--maxbody", []),
]
# KEY=VALUE options take their number after the key; --listener inside HOST(PORT).
WRAP = {"--log": "OUTBUFF={}", "--archive": "ARCRETN={}", "--listener": "127.0.0.1({})"}


# Options whose good values can cost minutes (threshold of what the test lets through).
COSTLY = {("put", "--count"): 16, ("estimate", "--size"): 4096, ("estimate", "--count"): 16,
          ("estimate", "--rate"): 100, ("estimate", "--outage"): 100, ("estimate", "--jobs"): 1}  # fmt: skip


def _id(entry: tuple[list[str], str, list[str]]) -> str:
    return f"{entry[0][0]} {entry[1]}"


@pytest.mark.parametrize("entry", NUMERIC_OPTIONS, ids=[_id(e) for e in NUMERIC_OPTIONS])
@QUICK
@given(value=NUMERISH)
@example(value=HUGE)
@example(value="-1")
@example(value="1.5")
@example(value="nan")
@example(value="")
@example(value="\u0663")
@example(value="3")  # good, and more than the one message a get --count finds
def test_numeric_options_refuse_hostile_values(store_dir: Path, entry: Any, value: str) -> None:
    head, option, tail = entry
    threshold = COSTLY.get((head[0], option))
    assume(threshold is None or not _costly(value, threshold))
    args = [*head, option, WRAP.get(option, "{}").format(value), *tail]
    # Each example on its own copy of the module's store: a good value changes it (put
    # --count adds messages, system alter its settings), and the next example or test
    # must not meet what this one did.
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder) / "state"
        shutil.copytree(store_dir, work)
        before = _snapshot(work)
        result = invoke(work, args, input="secret\n")
        _no_escape(result, args)
        if result.exit_code != 0 and "MQT0120E" not in result.output:
            # (MQT0120E: a good value the queue cannot satisfy, get --count 3 of 1 message: 2033)
            assert "mqtool: error:" in result.output or "Error:" in result.output or "Invalid value" in result.output
            assert _snapshot(work) == before, args


@pytest.mark.parametrize("value", [v for v in HOSTILE if v not in ("1.5", "0.5")] + ["0.01", "5.01"])
def test_serve_refuses_a_hostile_interval(store_dir: Path, value: str) -> None:
    # Only values that must be refused: a good one would serve until interrupted.
    result = invoke(store_dir, ["serve", "--interval", value])
    _no_escape(result, ["serve", value])
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["put", "Q", "--data", "x", "--count", HUGE], "is out of range (0-999999999)"),
        (["put", "Q", "--data", "x", "--count", "\u0663"], "is not a number (digits 0-9)"),
        (["put", "Q", "--data", "x", "--expiry", HUGE], "is out of range (0-2147483647) tenths of a second"),
        (["put", "Q", "--data", "x", "--expiry", "99999999d"], "is longer than the longest expiry"),
        (["put", "Q", "--size", HUGE], "is too large"),
        (["get", "Q", "--browse", "--wait", "nan"], "is not a number"),
        (["get", "Q", "--browse", "--wait", "inf"], "is not a number"),
        (["get", "Q", "--browse", "--wait", "9999999"], "is out of range (0-2147483.647s)"),
        (["estimate", "--pattern", "text", "--rate", HUGE + "/s"], "--rate: at most 1,000,000 messages a second"),
        (["estimate", "--pattern", "text", "--outage", "400d"], "--outage: at most a year"),
        (["rest", "init", "--port", "0", "--timeout", "nan"], "is not a number"),
    ],
)
def test_the_refusals_say_what_is_accepted(store_dir: Path, args: list[str], fragment: str) -> None:
    result = invoke(store_dir, args)
    _no_escape(result, args)
    assert result.exit_code == 2, result.output
    assert fragment in result.output


def test_whole_and_decimal_take_ascii_digits_only() -> None:
    assert inputs.whole(" 0042 ", 0, 100) == 42
    assert inputs.decimal(".5", 0, 1) == 0.5
    for text in HOSTILE:
        with pytest.raises(inputs.InputError):
            inputs.whole(text, 0, 10**12)
        if text not in ("1.5", "0.5"):
            with pytest.raises(inputs.InputError):
                inputs.decimal(text, 0, 10**12)


# -- command lines: keyword values and WHERE ---------------------------------------------------


@pytest.fixture(scope="module")
def session(store_dir: Path) -> Iterator[Session]:
    store = Store.open(store_dir)
    clock = Clock.from_setting(FROZEN)
    ensure_complex(store, clock.timestamp())
    yield Session(store, clock)
    store.close()


def _check(session: Session, line: str) -> None:
    """The session answers with catalogue ids and, when it refuses, changes nothing."""
    session.tick()
    before = _snapshot(session.store.path.parent)
    outcome = session.execute(line)
    assert all("Traceback" not in text for text in outcome.lines)
    if outcome.status != OK:
        ids = [text.split()[0] for text in outcome.lines if text.split()]
        assert any(word in CATALOGUE for word in ids), (line[:80], outcome.lines)
        # A .put or .get that ran and then failed (no more messages) did real work.
        if outcome.status == SYNTAX or not line.startswith((".put", ".get")):
            assert _snapshot(session.store.path.parent) == before, line[:80]
    session.current = None


def _int_keywords() -> list[tuple[str, str, str, str]]:
    """(dialect, verb, object, keyword) of every numeric keyword of the tables."""
    found = []
    for dialect in tables.DIALECTS:
        table = tables.load(dialect)
        for verb in table.verbs.values():
            for name in verb.objects:
                for spec in table.objects[name].keywords.values():
                    if spec.type == "int" and verb.name in spec.verbs:
                        found.append((dialect, verb.name, name, spec.name))
    return found


INT_KEYWORDS = _int_keywords()


def _line(dialect: str, verb: str, obj: str, keyword: str, value: str) -> str:
    table = tables.load(dialect)
    if dialect == "zos":
        head = f"-CSQ1 {verb} {obj}" + ("" if table.objects[obj].nameless else "(Q)")
        quoted = "'" + value.replace("'", "''") + "'"
        return f"{head} {keyword}({quoted if ' ' in value or not value else value})"
    return f"{table.command} {verb} {obj}-Q {keyword}-{value}"


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(INT_KEYWORDS), NUMERISH)
@example(("zos", "ALTER", "QLOCAL", "MAXDEPTH"), HUGE)
@example(("ztpf_mq", "ALTER", "QL", "MAXDEPTH"), HUGE)
@example(("zos", "ALTER", "QMGR", "EXPRYINT"), "\u0663")
def test_numeric_keyword_values(session: Session, keyword: tuple[str, str, str, str], value: str) -> None:
    _check(session, _line(*keyword, value).replace("\n", " "))


WHERE_KEYWORDS = ["CURDEPTH", "MAXDEPTH", "DEFPRTY", "MAXMSGL", "IPPROCS", "MSGAGE"]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(WHERE_KEYWORDS), st.sampled_from(["GT", "EQ", "LE", "NE"]), NUMERISH)
@example("CURDEPTH", "GT", HUGE)
@example("CURDEPTH", "GT", "'" + HUGE + "'")
@example("CURDEPTH", "EQ", "\u0663")
def test_where_filters(session: Session, keyword: str, operator: str, value: str) -> None:
    shown = value if value.strip() and "'" not in value and " " not in value else "'" + value.replace("'", "''") + "'"
    for display in ("DIS QLOCAL(*)", "DIS QSTATUS(*)"):
        _check(session, f"-CSQ1 {display} WHERE({keyword} {operator} {shown})".replace("\n", " "))


def test_a_where_number_is_bounded_and_ascii(session: Session) -> None:
    outcome = session.execute(f"-CSQ1 DIS QLOCAL(*) WHERE(CURDEPTH GT {HUGE})")
    assert outcome.status != OK
    assert "allowed: a number 0-2147483647 for CURDEPTH" in " ".join(outcome.lines)
    assert f"'{HUGE[:40]}... (5,000 characters)'" in " ".join(outcome.lines)
    outcome = session.execute("-CSQ1 DIS QLOCAL(*) WHERE(CURDEPTH GT \u0663)")
    assert outcome.status != OK


# -- directives ---------------------------------------------------------------------------------

DIRECTIVES = [
    ".put Q count={}", ".put Q size={}", ".put Q seed={}", ".put Q priority={}", ".put Q expiry={}",
    ".put Q count=2 every={}", ".put Q data=x expiry={}", ".get Q count={} browse=yes", ".advance {}",
    ".advance {}s", ".advance {}d", ".console {}", ".http WEB1 / http={}", ".system {}", ".help {}",
]  # fmt: skip


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(DIRECTIVES), NUMERISH)
@example(".put Q count={}", HUGE)
@example(".put Q count=3 every={}", "999999999999d")
@example(".get Q count={} browse=yes", "'" + HUGE + "'")
@example(".put Q expiry={}", HUGE)
def test_directives_refuse_hostile_numbers(session: Session, template: str, value: str) -> None:
    # Good counts and durations would put millions of messages or move the clock by years.
    assume(not (template.startswith((".advance", ".put Q count={}", ".put Q count=2")) and _costly(value, 1)))
    _check(session, template.format(value).replace("\n", " "))


def test_a_paced_put_past_the_year_9998_is_refused(session: Session) -> None:
    session.execute("ZMQSC DEFINE QL-PACED")
    outcome = session.execute(".put PACED count=3 every=1d")
    assert outcome.status == OK, outcome.lines
    outcome = session.execute(".put PACED count=999999999 every=1d")
    assert outcome.status != OK
    assert "would move the frozen clock past the year 9998" in " ".join(outcome.lines)
    outcome = session.execute(".put PACED count=3 every=2d")
    assert "every=2d is longer than a day" in " ".join(outcome.lines)


# -- documents: YAML and JSON (apply), NAME.conf, rest.yaml -------------------------------------

DOCUMENTS = [
    "[" * 5000 + "]" * 5000,
    '{"a":' * 3000 + "1" + "}" * 3000,
    "\n".join(" " * i + "- " for i in range(200)) + "1",
    '{"version": 1, "systems": [{"name": "TPF1", "platform": "ztpf", "maxdepth": ' + HUGE + "}]}",
    '{"version": 1, "systems": [{"name": "TPF1", "x": 1' + "0" * 5000 + ".5}]}",
    '{"version": 1e999, "systems": []}',
    "a: &a [1, 2]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
    "f: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
    "a: &a [*a]",
    "\x00\x01\x02binary",
]


@pytest.mark.parametrize("text", DOCUMENTS, ids=range(len(DOCUMENTS)))
@pytest.mark.parametrize("pure", [False, True])
def test_documents_are_refused_with_their_place(
    store_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, pure: bool
) -> None:
    if pure:
        monkeypatch.setattr(yamldoc, "_has_libyaml", lambda: False)
    path = tmp_path / "document.json"
    path.write_text(text, encoding="utf-8")
    before = _snapshot(store_dir)
    result = invoke(store_dir, ["apply", str(path)])
    _no_escape(result, ["apply", text[:20]])
    assert result.exit_code == 2
    assert f"mqtool: error: {path}:" in result.output
    assert _snapshot(store_dir) == before


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)))
def test_apply_reads_any_bytes_without_escaping(
    store_dir: Path, tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("doc") / "document.yaml"
    path.write_bytes(data)
    result = invoke(store_dir, ["apply", "--dry-run", str(path)])
    _no_escape(result, ["apply", repr(data[:20])])


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["PORT", "MAXCONN", "TIMEOUT", "COMPSIZEHW", "COMPSIZESW", "IP", "COMP"]), NUMERISH)
def test_http_configuration_values(tmp_path_factory: pytest.TempPathFactory, keyword: str, value: str) -> None:
    path = tmp_path_factory.mktemp("conf") / "WEB1.conf"
    lines = "PORT-0\n" if keyword != "PORT" else ""
    path.write_text(f"{lines}{keyword}-{value}\n".replace("\r", " "), encoding="utf-8")
    try:
        load_options(path, "WEB1")
    except ConfigError as exc:
        assert str(exc).startswith(f"{path}:")
        assert len(str(exc)) < 400  # a huge value is cut, not repeated


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(["port", "maxconn", "timeout", "maxbody", "host"]),
    st.one_of(NUMERISH, st.sampled_from([HUGE, "[" * 200 + "]" * 200, "*x", "&a [*a]"])),
)
@example("port", "[" * 5000 + "]" * 5000)
def test_rest_yaml_values(tmp_path_factory: pytest.TempPathFactory, key: str, value: str) -> None:
    from mqtool.rest import config as rest_config

    state = tmp_path_factory.mktemp("rest")
    text = f"port: 0\nusers: []\n{key}: {value}\n" if key != "port" else f"users: []\nport: {value}\n"
    (state / "rest.yaml").write_text(text, encoding="utf-8")
    try:
        rest_config.load(state)
    except rest_config.ConfigError as exc:
        assert "rest.yaml" in str(exc)


# -- files: put --file, .put file=, estimate, apply, NAME.conf, rest.yaml ------------------------


@pytest.fixture
def hostile_files(tmp_path: Path) -> dict[str, Path]:
    """A folder, a FIFO, a device, a symbolic link loop, a missing file and a sparse file
    larger than any message (200 MB that take no disk)."""
    made = {"folder": tmp_path / "folder", "missing": tmp_path / "missing", "loop": tmp_path / "loop1"}
    made["folder"].mkdir()
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    if hasattr(os, "mkfifo"):
        made["fifo"] = tmp_path / "fifo"
        os.mkfifo(made["fifo"])
    if Path("/dev/zero").exists():
        made["device"] = Path("/dev/zero")
    made["huge"] = tmp_path / "huge.bin"
    with open(made["huge"], "wb") as handle:
        handle.truncate(200 * 1024 * 1024)
    return made


REASONS = {
    "folder": "a folder, not a regular file",
    "missing": "No such file or directory",
    "loop": "Too many levels of symbolic links",
    "fifo": "a FIFO (named pipe), not a regular file",
    "device": "a device, not a regular file",
    "huge": "bytes is more than",
}


def test_read_file_refuses_what_is_no_regular_file(hostile_files: dict[str, Path]) -> None:
    for kind, path in hostile_files.items():
        with pytest.raises(inputs.InputError) as refused:
            inputs.read_file(path, inputs.MAX_MESSAGE)
        assert REASONS[kind] in str(refused.value), kind


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root reads any file: a refused open is simulated."""
    path = tmp_path / "secret"
    path.write_bytes(b"x")

    def refuse(*args: Any, **kwargs: Any) -> int:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(inputs.os, "open", refuse)
    with pytest.raises(inputs.InputError, match="Permission denied"):
        inputs.read_file(path, 10)
    with pytest.raises(inputs.InputError, match="Permission denied"):
        inputs.file_size(path)


def test_a_file_that_grows_past_its_bound_is_cut_and_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "growing"
    path.write_bytes(b"x" * 10)
    real_fstat = os.fstat

    def smaller(descriptor: int) -> os.stat_result:
        found = real_fstat(descriptor)
        return os.stat_result((found.st_mode, *found[1:6], 1, *found[7:]))  # says 1 byte

    monkeypatch.setattr(inputs.os, "fstat", smaller)
    with pytest.raises(inputs.InputError, match="more than 5 bytes"):
        inputs.read_file(path, 5)


@pytest.mark.parametrize("kind", list(REASONS))
def test_hostile_files_everywhere(
    store_dir: Path, session: Session, hostile_files: dict[str, Path], tmp_path: Path, kind: str
) -> None:
    path = hostile_files.get(kind)
    if path is None:
        pytest.skip(f"no {kind} on this system")
    before = _snapshot(store_dir)
    if kind == "huge":  # a regular file: put refuses it by MAXMSGL before reading it
        result = invoke(store_dir, ["put", "Q", "--file", str(path)])
        assert result.exit_code == 1 and "MQRC 2030" in result.output, result.output
        assert "MQRC 2030" in " ".join(session.execute(f".put Q file='{path}'").lines)
    for args in (["put", "Q", "--file", str(path)], ["apply", str(path)]):
        if kind == "huge" and args[0] == "put":
            continue
        result = invoke(store_dir, args)
        _no_escape(result, args)
        assert result.exit_code == 2, (args, result.output)
        # (click prints a tool error as "Error:" in process; mqtool's main as "mqtool: error:")
        line = [text for text in result.output.splitlines() if text.startswith(("mqtool: error:", "Error:"))]
        assert len(line) == 1 and f"cannot read {path}: " in line[0] and REASONS[kind] in line[0], result.output
    result = invoke(store_dir, ["estimate", str(path), "--report", "ratios"])
    _no_escape(result, ["estimate", kind])
    if kind != "folder":  # an empty folder has nothing to read, and nothing wrong
        assert result.exit_code == 1 and "MQT0601E" in result.output, result.output
    if kind != "huge":
        outcome = session.execute(f".put Q file='{path}'")
        assert outcome.status != OK and "MQT0003E" in outcome.lines[0] and f"cannot read {path}" in outcome.lines[0]
    assert _snapshot(store_dir) == before
    # NAME.conf and rest.yaml that are such files: refused with the reason.
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "WEB1.conf").symlink_to(path)
    if kind != "missing":
        with pytest.raises(ConfigError, match="cannot read the file"):
            load_options(conf / "WEB1.conf", "WEB1")
        from mqtool.rest import config as rest_config

        (conf / "rest.yaml").symlink_to(path)
        with pytest.raises(rest_config.ConfigError, match="cannot read the file"):
            rest_config.load(conf)


def test_apply_from_standard_input_is_bounded(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool.apply import document

    monkeypatch.setattr(document, "MAX_DOCUMENT", 1000)
    result = invoke(store_dir, ["apply", "-"], input="version: 1\n" + "#" * 2000)
    _no_escape(result, ["apply", "-"])
    assert result.exit_code == 2
    assert "cannot read -: more than 1,000 bytes" in result.output


def test_a_command_file_is_bounded(store_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool.parse import lines

    monkeypatch.setattr(lines, "MAX_INPUT", 100)
    monkeypatch.setattr(lines.read_all, "__defaults__", (100,))
    script = tmp_path / "big.mqsc"
    script.write_text("ZMQSC DIS QMGR\n" * 20, encoding="utf-8")
    result = invoke(store_dir, ["run", str(script)])
    _no_escape(result, ["run"])
    assert result.exit_code == 20
    assert "more than 100 characters of commands" in result.output


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_put_from_a_fifo_does_not_wait(store_dir: Path, tmp_path: Path) -> None:
    """A FIFO nobody writes to would block an open for ever: it is refused at once."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = invoke(store_dir, ["put", "Q", "--file", str(fifo)])
    assert result.exit_code == 2
    assert "a FIFO (named pipe), not a regular file" in result.output


@pytest.mark.parametrize("whole", [False, True])
def test_standard_input_longer_than_maxmsgl_is_refused_unread(store_dir: Path, whole: bool) -> None:
    """A line (or, with --whole, all of standard input) longer than the queue's MAXMSGL
    is refused with MQRC 2030 after reading MAXMSGL + 1 bytes of it, not all of it."""
    invoke(store_dir, ["cmd", "ZMQSC DEFINE QL-SMALL MAXMSGL-100"])
    # A short line goes (standard input was taken for a 1 KB generated message before).
    assert invoke(store_dir, ["put", "SMALL", "-q"], input="hi\n").exit_code == 0
    before = _snapshot(store_dir)
    result = invoke(store_dir, ["put", "SMALL", "-q", *(["--whole"] if whole else [])], input="x" * 5000 + "\n")
    _no_escape(result, ["put", "stdin"])
    assert result.exit_code == 1 and "MQRC 2030" in result.output, result.output
    read = int(re.search(r"\): (\d+) bytes", result.output).group(1))  # type: ignore[union-attr]
    assert 100 < read <= 103  # what was read: MAXMSGL and a line end at the most
    after = _snapshot(store_dir)
    assert after["messages"] == before["messages"]
