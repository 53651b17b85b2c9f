"""Property tests: no text makes a lexer or the session raise. Every lexer returns a
command or a LexError; `Session.execute` on a real store returns an Outcome whose
errors carry catalogue message ids and change nothing in the store."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool import tables
from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.messages import CATALOGUE
from mqtool.parse import directive, mqsc, ztpf
from mqtool.parse.command import Command, Directive, LexError
from mqtool.parse.lines import SourceCommand, assemble
from mqtool.response import OK
from mqtool.session import Outcome, Session
from mqtool.state import Store

ID_AT_START = re.compile(r"^([A-Z]{3,5}[0-9]{3,4}[IEWA])\b")

# Characters that matter to the lexers, mixed into otherwise arbitrary text.
SYNTAX_CHARS = list("ZMQSCHTPDEFILRAQ-'(),.;+*= \t\n\rabcxyz0189_%/\\é\x00\u2028")
any_text = st.one_of(st.text(max_size=60), st.text(alphabet=st.sampled_from(SYNTAX_CHARS), max_size=60))
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(any_text)
def test_ztpf_lexer_returns_a_command_or_a_lex_error(text: str) -> None:
    for dialect in ("ztpf_mq", "ztpf_http"):
        try:
            command = ztpf.lex(text, dialect)
        except LexError as error:
            assert error.kind in ("quote", "paren", "empty", "token", "repeat")
            continue
        assert isinstance(command, Command)
        assert command.verb == command.verb.upper()


@FUZZ
@given(any_text)
def test_mqsc_lexer_returns_a_command_or_a_lex_error(text: str) -> None:
    try:
        command = mqsc.lex(text)
    except LexError as error:
        assert error.kind in ("quote", "paren", "empty", "token", "repeat")
        return
    assert isinstance(command, Command)
    assert command.verb == command.verb.upper()


@FUZZ
@given(any_text)
def test_directive_lexer_returns_a_directive_or_a_lex_error(text: str) -> None:
    try:
        result = directive.lex(text)
    except LexError as error:
        assert error.kind in ("quote", "paren", "empty", "token", "repeat")
        return
    assert isinstance(result, Directive)
    assert result.name == result.name.lower()


@FUZZ
@given(st.lists(any_text, max_size=10))
def test_assemble_returns_source_commands(lines: list[str]) -> None:
    for command in assemble(lines):
        assert isinstance(command, SourceCommand)


# -- the whole path on a real store ------------------------------------------------

PREFIXES = [
    "",
    "ZMQSC ",
    "zmqsc ",
    "ZHTPS ",
    "ZHTTPS ",
    "-CSQ1 ",
    "-CSQ1",
    "DEFINE ",
    "DIS ",
    "ALTER QLOCAL(",
    "SET LOG ",
    ".",
    ".system ",
    ".advance ",
    ".help ",
    ".echo ",
    "ZMQSC DEF QL-",
    "ZMQSC ALT QMGR ",
    "ZMQSC DIS QL-",
    "ZHTPS DIS S-",
]


def _word(words: list[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(words) if words else st.just("X")


def _value(spec: tables.KeywordSpec) -> st.SearchStrategy[str]:
    choices: list[st.SearchStrategy[str]] = [
        st.sampled_from(["", "0", "1", "YES", "NO", "ALL", "*", "'quoted value'", "'it''s'", "A,B", "99999999999"]),
        st.text(alphabet=st.sampled_from(list("ABCXYZ019.*'(),- ")), max_size=12),
    ]
    if spec.values:
        choices.append(st.sampled_from(list(spec.values)))
    if spec.min is not None or spec.max is not None:
        low, high = spec.min or 0, spec.max or 10
        choices.append(st.sampled_from([str(low), str(high), str(max(low - 1, 0)), str(high + 1)]))
        choices.append(st.integers(min_value=low, max_value=high).map(str))
    return st.one_of(choices)


@st.composite
def table_commands(draw: st.DrawFn) -> str:
    """A command built from a dialect's own words, so that it reaches the handlers."""
    dialect = draw(st.sampled_from([d for d in tables.DIALECTS if _table(d) is not None]))
    table = _table(dialect)
    assert table is not None
    verb = table.verbs[draw(st.sampled_from(sorted(table.verbs)))]
    verb_word = draw(st.sampled_from([verb.name, *verb.abbrev]))
    obj = table.objects[draw(st.sampled_from(list(verb.objects) or sorted(table.objects)))]
    obj_word = draw(st.sampled_from([obj.name, *obj.aliases]))
    name = draw(st.sampled_from(["A", "PAYQ", "TPFQM", "CSQ1", "DEAD.LETTER.QUEUE", "Q*", "*", "'lower'", "TO.B", ""]))
    specs = list(obj.keywords.values())
    chosen = draw(st.lists(st.sampled_from(specs), max_size=4)) if specs else []
    params = []
    for spec in chosen:
        keyword = draw(st.sampled_from([spec.name, *spec.abbrev]))
        params.append((keyword, None if spec.type == "flag" else draw(_value(spec))))
    if dialect == "zos":
        cpf = draw(st.sampled_from(["", "-CSQ1 ", "-CSQ1"]))
        head = f"{cpf}{verb_word} {obj_word}" + ("" if obj.nameless else f"({name})")
        return " ".join([head, *(k if v is None else f"{k}({v})" for k, v in params)])
    head = f"{table.command} {verb_word} {obj_word}" + ("" if obj.name in ("QMGR",) and not name else f"-{name}")
    return " ".join([head, *(k if v is None else f"{k}-{v}" for k, v in params)])


def _table(dialect: str) -> tables.Table | None:
    try:
        return tables.load(dialect)
    except FileNotFoundError:  # a dialect whose table is not written yet
        return None


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """One store for the whole module: hypothesis runs many examples against it."""
    state = tmp_path_factory.mktemp("fuzz-state")
    store = Store.open(Path(state))
    clock = Clock.from_setting("2021-03-09T15:41:22Z")
    ensure_complex(store, clock.timestamp())
    yield Session(store, clock)
    store.close()


def _snapshot(store: Store) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, to prove that a failed command changed nothing."""
    conn: sqlite3.Connection = store.conn
    names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr) for name in names}


def _check(session: Session, line: str) -> Outcome:
    session.tick()  # timers due now run first, so the snapshot is taken after them
    session.current_system()
    current = session.current
    before = _snapshot(session.store)
    outcome = session.execute(line)
    assert isinstance(outcome, Outcome)
    assert all(isinstance(text, str) and "\n" not in text for text in outcome.lines)
    ids = [match.group(1) for text in outcome.lines if (match := ID_AT_START.match(text))]
    if outcome.status != OK:
        assert ids, f"{line!r} failed without a message id: {outcome.lines}"
        assert all(msg_id in CATALOGUE for msg_id in ids), outcome.lines
        assert _snapshot(session.store) == before, f"{line!r} failed but changed the store"
        assert session.current == current
    elif not line.strip().lower().startswith(".echo"):
        unknown = [msg_id for msg_id in ids if msg_id not in CATALOGUE]
        assert not unknown, f"{line!r} printed ids missing from the catalogue: {unknown}"
    return outcome


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(PREFIXES), any_text)
def test_session_never_raises_on_arbitrary_text(session: Session, prefix: str, text: str) -> None:
    # One physical line, as the runner would pass it.
    line = (prefix + text).replace("\n", " ").replace("\r", " ")
    _check(session, line)
    session.current = None  # .system may have switched; start from the stored current system


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(table_commands())
def test_session_never_raises_on_commands_built_from_the_tables(session: Session, line: str) -> None:
    _check(session, line)
    session.current = None


def test_session_outcome_of_an_unknown_first_word(session: Session) -> None:
    outcome = _check(session, "HELLO world")
    assert outcome.lines == ["MQT0001E Unknown command 'HELLO': not ZMQSC, ZMQID, ZHTPS, a CPF or an MQSC verb"]
