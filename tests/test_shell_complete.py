"""Shell completion: every dialect and every position, through the prompt_toolkit
completer with Document objects; expectations are read from the same tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from mqtool import tables
from mqtool.cli import complete as shell_complete
from mqtool.cli.complete import StoreView, SystemView, complete, logical_line, make_completer, snapshot
from mqtool.directives import DIRECTIVES
from mqtool.session import LEAVE_WORDS

TPF1 = SystemView("TPF1", "ztpf")
CSQ1 = SystemView("CSQ1", "zos", "-CSQ1")
CSQ2 = SystemView("CSQ2", "zos", "-CSQ2")
VIEW = StoreView(
    current="TPF1",
    systems=(TPF1, CSQ1, CSQ2),
    names={
        ("TPF1", "QL"): ("DEAD.LETTER.QUEUE", "PAYQ", "PAYQ2", "XMITQ1", "mixed.Case"),
        ("TPF1", "QA"): ("PAYALIAS",),
        ("TPF1", "CHL"): ("TO.CSQ1",),
        ("TPF1", "QMGR"): ("TPFQM",),
        ("CSQ1", "QLOCAL"): ("ORDERS", "ORDERS.BACKUP"),
        ("CSQ2", "QLOCAL"): ("OTHER",),
    },
)
ZTPF = tables.load("ztpf_mq")
ZOS = tables.load("zos")


def command_words() -> list[str]:
    """The command words of the dialects that have a table (ZMQSC, ZHTPS)."""
    found = []
    for dialect in tables.DIALECTS:
        try:
            table = tables.load(dialect)
        except OSError:
            continue
        if table.command:
            found.append(table.command + " ")
    return found


def keyword_texts(obj: tables.ObjectSpec, verb: str, opener: str) -> list[str]:
    """What the tables say may follow: `KEYWORD-`/`KEYWORD(` for values, a flag and its negation bare."""
    out: list[str] = []
    for spec in obj.keywords.values():
        if verb not in spec.verbs:
            continue
        if spec.type == "flag":
            out += [spec.name + " "] + ([spec.negation + " "] if spec.negation else [])
        else:
            out.append(spec.name + opener)
    return out


def texts(text: str, view: StoreView = VIEW) -> list[str]:
    """The inserted texts offered for `text` with the cursor at its end, via the completer."""
    completer = make_completer(lambda: view)
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]


def starts(text: str, view: StoreView = VIEW) -> set[int]:
    completer = make_completer(lambda: view)
    return {c.start_position for c in completer.get_completions(Document(text), CompleteEvent())}


# -- first word -------------------------------------------------------------------


def test_first_word_offers_dialects_cpfs_verbs_directives_and_leave_words() -> None:
    offered = texts("")
    assert set(command_words()) <= set(offered)
    assert "ZMQSC " in offered
    assert {"-CSQ1 ", "-CSQ2 "} <= set(offered)
    assert {verb + " " for verb in ZOS.verbs} <= set(offered)
    assert {f".{name} " for name in DIRECTIVES} <= set(offered)
    assert set(LEAVE_WORDS) <= set(offered)


def test_first_word_prefixes() -> None:
    assert texts("Z") == command_words()
    assert texts("zm") == ["ZMQSC ", "ZMQID "]  # case-insensitive
    assert texts("-CSQ") == ["-CSQ1 ", "-CSQ2 "]
    assert texts(".") == [f".{name} " for name in sorted(DIRECTIVES)]
    assert texts(".sy") == [".system "]
    assert starts(".sy") == {-3}
    assert texts("QU") == ["QUIT"]


def test_only_existing_cpfs_are_offered() -> None:
    view = StoreView(current="TPF1", systems=(TPF1,))
    assert not [text for text in texts("", view) if text.startswith("-")]


# -- z/TPF: ZMQSC VERB OBJ-name KEYWORD-value --------------------------------------


def test_ztpf_verbs_come_from_the_table() -> None:
    assert texts("ZMQSC ") == [verb + " " for verb in ZTPF.verbs]
    assert texts("ZMQSC DI") == ["DISPLAY "]
    assert starts("ZMQSC DI") == {-2}


def test_ztpf_objects_of_the_verb_with_their_dash() -> None:
    offered = texts("ZMQSC DEFINE ")
    define = ZTPF.verbs["DEFINE"]
    assert offered == [name + "-" for name in define.objects]
    assert texts("ZMQSC CLEAR ") == [name + "-" for name in ZTPF.verbs["CLEAR"].objects]
    # QMGR takes no name on DISPLAY (name_optional in the table): offered bare.
    assert "QMGR " in texts("ZMQSC DIS ")
    assert texts("ZMQSC DEF Q") == ["QMGR-", "QL-", "QA-", "QR-"]
    # MQP is the old name of QMGR: offered only because QMGR does not match.
    assert texts("ZMQSC DIS MQ") == ["MQP "]


def test_ztpf_names_from_the_store_after_the_dash() -> None:
    assert texts("ZMQSC DIS QL-") == ["DEAD.LETTER.QUEUE", "PAYQ", "PAYQ2", "XMITQ1", "'mixed.Case'"]
    assert texts("ZMQSC DIS QL-PA") == ["PAYQ", "PAYQ2"]
    assert starts("ZMQSC DIS QL-PA") == {-2}
    assert texts("zmqsc alt ql-pay") == ["PAYQ", "PAYQ2"]
    assert texts("ZMQSC DEL QA-") == ["PAYALIAS"]
    assert texts("ZMQSC DIS CHL-T") == ["TO.CSQ1"]
    assert texts("ZMQSC DIS XX-") == []


def test_ztpf_names_only_when_the_current_system_is_ztpf() -> None:
    on_zos = StoreView(current="CSQ1", systems=VIEW.systems, names=VIEW.names)
    assert texts("ZMQSC DIS QL-", on_zos) == []


def test_ztpf_keywords_for_the_verb_and_object() -> None:
    expected = keyword_texts(ZTPF.objects["QL"], "DEFINE", "-")
    assert texts("ZMQSC DEF QL-NEWQ ") == expected
    assert "COMPSIZE-" in expected and "PURGE " not in expected
    assert texts("ZMQSC DELETE QL-PAYQ ") == ["PURGE "]
    assert texts("ZMQSC DEF QL-NEWQ COMP") == ["COMPSIZE-"]
    assert starts("ZMQSC DEF QL-NEWQ COMP") == {-4}


def test_ztpf_keywords_already_given_are_not_offered_again() -> None:
    offered = texts("ZMQSC DEF QL-NEWQ COMPSIZE-100 PUT-DISABLED ")
    assert "COMPSIZE-" not in offered and "PUT-" not in offered and "GET-" in offered


def test_ztpf_values_of_enum_list_and_queue_name_keywords() -> None:
    assert texts("ZMQSC DEF QL-NEWQ PUT-") == list(ZTPF.objects["QL"].keywords["PUT"].values)
    assert texts("ZMQSC DEF QL-NEWQ PUT-D") == ["DISABLED"]
    assert starts("ZMQSC DEF QL-NEWQ PUT-D") == {-1}
    assert texts("ZMQSC DEF QL-NEWQ USAGE-X") == ["XMITQ"]
    # A list value: the item after the last comma.
    assert texts("ZMQSC DEF CHL-C1 COMPMSG-ZLIBFAST,ZLIBH") == ["ZLIBHIGH"]
    assert starts("ZMQSC DEF CHL-C1 COMPMSG-ZLIBFAST,ZLIBH") == {-5}
    # A keyword naming a queue: the queues of the system.
    assert texts("ZMQSC DEF QA-A1 TARGQ-PAY") == ["PAYALIAS", "PAYQ", "PAYQ2"]
    assert texts("ZMQSC DEF CHL-C1 CHLTYPE-SDR XMITQ-X") == ["XMITQ1"]
    # Free text and numbers have nothing to offer.
    assert texts("ZMQSC DEF QL-NEWQ DESCR-") == []
    assert texts("ZMQSC DEF QL-NEWQ MAXDEPTH-") == []


def test_ztpf_nothing_inside_an_open_quote() -> None:
    assert texts("ZMQSC DEF QL-NEWQ DESCR-'a b") == []


def test_ztpf_continued_lines_are_one_command() -> None:
    # `+` continues from the first non-blank character, `-` from column 1.
    assert texts("ZMQSC DEF QL-NEWQ +\n    COMP") == ["COMPSIZE-"]
    assert texts("ZMQSC DEF QL-NEWQ PUT-+\nD") == ["DISABLED"]
    # A word split by `-`: only its part on the cursor's line is replaced.
    assert texts("ZMQSC DEF QL-NEWQ CO-\nMP") == ["MPSIZE-"]
    assert starts("ZMQSC DEF QL-NEWQ CO-\nMP") == {-2}
    assert texts("ZMQSC DEF QL-NEWQ PUT-+\n   ") == list(ZTPF.objects["QL"].keywords["PUT"].values)
    assert texts("ZMQSC DEF -\nQL-NEWQ COMPS") == ["COMPSIZE-"]
    assert texts("ZMQSC DIS +\n* a comment line\nQL-PA") == ["PAYQ", "PAYQ2"]


def test_logical_line() -> None:
    assert logical_line("A +\n   B") == "A B"
    assert logical_line("A-\nB") == "AB"
    assert logical_line("A-\n B") == "A B"
    assert logical_line("DONE\nNEXT") == "NEXT"
    assert logical_line("") == ""


# -- z/TPF HTTP server: ZHTPS VERB SERVER-name --------------------------------------

HTTP = tables.load("ztpf_http")
HTTP_VIEW = StoreView(current="TPF1", systems=(TPF1, CSQ1), names={("TPF1", "HTTPSERVER"): ("WEB1", "WEB2")})


def test_zhtps_verbs_objects_names_and_flags() -> None:
    assert texts("ZHTPS ", HTTP_VIEW) == [verb + " " for verb in HTTP.verbs]
    assert texts("ZHTTPS ", HTTP_VIEW) == texts("ZHTPS ", HTTP_VIEW)  # the other spelling
    display = [name + (" " if HTTP.objects[name].nameless else "-") for name in HTTP.verbs["DISPLAY"].objects]
    assert texts("ZHTPS DIS ", HTTP_VIEW) == display
    assert "SERVER-" in display
    # Server names come from the records the table names (store: HTTPSERVER).
    assert texts("ZHTPS STOP SERVER-", HTTP_VIEW) == ["WEB1", "WEB2"]
    assert texts("ZHTPS STOP S-WEB2", HTTP_VIEW) == ["WEB2"]
    assert texts("ZHTPS STATS SERVER-WEB1 ", HTTP_VIEW) == ["RESET "]
    assert texts("ZHTPS START SERVER-WEB1 ", HTTP_VIEW) == []


def test_directive_server_argument(monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool.directives import DirectiveSpec

    monkeypatch.setitem(DIRECTIVES, "http", DirectiveSpec("m:f", ".http SERVER PATH [http=1.0]", "get", ("http",)))
    assert texts(".http W", HTTP_VIEW) == ["WEB1", "WEB2"]
    assert texts(".http WEB1 ", HTTP_VIEW) == ["http="]


# -- MQSC: [CPF] VERB OBJTYPE(name) KEYWORD(value) -----------------------------------


def test_mqsc_verbs_after_a_cpf() -> None:
    assert texts("-CSQ1 ") == [verb + " " for verb in ZOS.verbs]
    assert texts("-csq1 DI") == ["DISPLAY "]


def test_mqsc_objects_with_a_parenthesis_or_bare_when_nameless() -> None:
    expected = []
    for name in ZOS.verbs["DISPLAY"].objects:
        obj = ZOS.objects[name]
        optional = "DISPLAY" in (ZOS.raw["objects"][name].get("name_optional") or ())  # DISPLAY TRACE
        expected.append(name + (" " if obj.nameless or optional else "("))
    assert texts("-CSQ1 DISPLAY ") == expected
    assert "QLOCAL(" in expected
    # QL is the abbreviation of QLOCAL: offered as QLOCAL, which it starts.
    assert texts("-CSQ1 DEF QL") == ["QLOCAL("]


def test_mqsc_names_of_the_system_the_cpf_names() -> None:
    assert texts("-CSQ1 DIS QLOCAL(") == ["ORDERS", "ORDERS.BACKUP"]
    assert texts("-CSQ1 DIS QLOCAL(ORDERS.") == ["ORDERS.BACKUP"]
    assert starts("-CSQ1 DIS QLOCAL(ORDERS.") == {-7}
    assert texts("-CSQ2 DIS QLOCAL(") == ["OTHER"]
    assert texts("-CSQ1 DIS QL(O") == ["ORDERS", "ORDERS.BACKUP"]


def test_mqsc_without_cpf_uses_the_current_system_when_it_is_zos() -> None:
    on_zos = StoreView(current="CSQ2", systems=VIEW.systems, names=VIEW.names)
    assert texts("DIS QLOCAL(", on_zos) == ["OTHER"]
    # On a z/TPF system an MQSC verb needs a CPF: no z/OS names to offer.
    assert texts("DIS QLOCAL(") == []
    assert texts("DIS ") == texts("-CSQ1 DIS ")


def test_mqsc_keywords() -> None:
    expected = keyword_texts(ZOS.objects["QLOCAL"], "DEFINE", "(")
    assert texts("-CSQ1 DEFINE QLOCAL(NEW) ") == expected
    assert "DESCR(" in expected
    assert texts("-CSQ1 DEFINE QLOCAL(NEW) DESCR('a b') ") == [e for e in expected if e != "DESCR("]
    assert texts("-CSQ1 DEFINE QLOCAL(NEW) DES") == ["DESCR("]


def test_mqsc_names_come_from_the_store_types_of_the_object() -> None:
    # QUEUE covers every queue type, CHSTATUS the channels (the table's `store` lists).
    view = StoreView(
        current="CSQ1",
        systems=(CSQ1,),
        names={("CSQ1", "QLOCAL"): ("ORDERS",), ("CSQ1", "QALIAS"): ("ALIASQ",), ("CSQ1", "CHANNEL"): ("TO.TPF",)},
    )
    store = {name: (ZOS.raw["objects"][name] or {}).get("store") or [name] for name in ZOS.objects}
    expected = sorted(n for (_, type_), names in view.names.items() if type_ in store["QUEUE"] for n in names)
    assert texts("DIS QUEUE(", view) == expected == ["ALIASQ", "ORDERS"]
    assert texts("DIS CHSTATUS(", view) == ["TO.TPF"]
    assert texts("DIS QLOCAL(", view) == ["ORDERS"]


def test_mqsc_display_selects_attributes_by_bare_name() -> None:
    display = ZOS.verbs["DISPLAY"]
    assert display.select
    offered = texts("-CSQ1 DIS QLOCAL(*) ")
    selectable = [s.name + " " for s in ZOS.objects["QLOCAL"].keywords.values() if s.display and s.type != "flag"]
    assert "ALL " in offered and set(selectable) <= set(offered)
    after = texts("-CSQ1 DIS QLOCAL(*) ALL MAXDEPTH ")
    assert "ALL " not in after and "MAXDEPTH " not in after and "DESCR " in after
    # Verbs that do not select take no bare attribute names.
    assert "ALL " not in texts("-CSQ1 ALTER QLOCAL(ORDERS) ")


def _synthetic_zos() -> tables.Table:
    """A z/OS table with value keywords, so that value completion is tested whatever the
    real table holds today."""
    strmqos = tables.KeywordSpec("STRMQOS", "enum", "quality of service", values=("BESTEF", "MUSTDUP"))
    streamq = tables.KeywordSpec("STREAMQ", "name", "the stream queue", max=48)
    flags = tables.KeywordSpec("REPLACE", "flag", "replace", negation="NOREPLACE", verbs=("DEFINE",))
    log = tables.KeywordSpec("ZHYLINK", "enum", "zHyperLink", values=("NO", "YES"), verbs=("SET",))
    qlocal = tables.ObjectSpec(
        "QLOCAL",
        "a local queue",
        aliases=("QL",),
        name_rule=tables.NameRule(48),
        keywords={"STRMQOS": strmqos, "STREAMQ": streamq, "REPLACE": flags},
        full="QLOCAL",
    )
    logobj = tables.ObjectSpec("LOG", "the log", keywords={"ZHYLINK": log}, nameless=True)
    verbs = {
        "DEFINE": tables.VerbSpec("DEFINE", "define", "define", ("DEF",), ("QLOCAL",)),
        "ALTER": tables.VerbSpec("ALTER", "alter", "alter", ("ALT",), ("QLOCAL",)),
        "SET": tables.VerbSpec("SET", "set", "set", (), ("LOG",)),
    }
    raw = {"objects": {"QLOCAL": {"name": "queue"}, "LOG": {"nameless": True}}}
    return tables.Table("zos", "", verbs, {"QLOCAL": qlocal, "LOG": logobj}, raw)


def test_mqsc_values(monkeypatch: pytest.MonkeyPatch) -> None:
    synthetic = _synthetic_zos()
    real = tables.load
    monkeypatch.setattr(tables, "load", lambda dialect: synthetic if dialect == "zos" else real(dialect))
    assert texts("-CSQ1 ALTER QLOCAL(ORDERS) STRMQOS(") == ["BESTEF", "MUSTDUP"]
    assert texts("-CSQ1 ALTER QLOCAL(ORDERS) STRMQOS(m") == ["MUSTDUP"]
    assert texts("-CSQ1 ALTER QLOCAL(ORDERS) STREAMQ(ORDERS.") == ["ORDERS.BACKUP"]
    assert texts("-CSQ1 DEF QLOCAL(NEW) ") == ["STRMQOS(", "STREAMQ(", "REPLACE ", "NOREPLACE "]
    assert texts("-CSQ1 SET ") == ["LOG "]
    assert texts("-CSQ1 SET LOG ZHYLINK(Y") == ["YES"]
    assert texts("SET LOG ZHY") == ["ZHYLINK("]
    assert "SET " in texts("")


# -- directives -------------------------------------------------------------------


def test_directive_system_names() -> None:
    assert texts(".system ") == ["TPF1", "CSQ1", "CSQ2"]
    assert texts(".system c") == ["CSQ1", "CSQ2"]
    assert texts(".system CSQ1 ") == []  # one argument only


def test_directive_help_topics() -> None:
    offered = texts(".help ")
    assert {"ZMQSC", "MQSC"} <= set(offered)
    assert set(DIRECTIVES) <= set(offered)
    assert texts(".help ZMQSC ") == [verb + " " for verb in ZTPF.verbs]
    assert texts(".help MQSC DEF ") == [name + " " for name in ZOS.verbs["DEFINE"].objects]
    assert texts(".help zmqsc def Q") == ["QMGR ", "QL ", "QA ", "QR "]


def test_directive_queue_argument_and_options(monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool.directives import DirectiveSpec

    spec = DirectiveSpec("mqtool.directives:do_echo", ".put QUEUE [count=N] [size=N]", "put", ("count", "size"))
    monkeypatch.setitem(DIRECTIVES, "put", spec)
    assert texts(".put PAY") == ["PAYALIAS", "PAYQ", "PAYQ2"]
    assert texts(".put PAYQ ") == ["count=", "size="]
    assert texts(".put PAYQ count=5 ") == ["size="]
    assert texts(".put PAYQ count=") == []
    assert texts(".nosuch ") == []


def test_directive_literal_words_and_names_that_are_no_systems(monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool.directives import DirectiveSpec

    monkeypatch.setitem(DIRECTIVES, "console", DirectiveSpec("m:f", ".console [all]", "show the console"))
    monkeypatch.setitem(DIRECTIVES, "httpconf", DirectiveSpec("m:f", ".httpconf NAME 'KEYWORD-value' ...", "conf"))
    assert texts(".console ") == ["all "]
    assert texts(".console all ") == []
    assert texts(".httpconf ") == []  # NAME is a system's only for .system


# -- the store snapshot -----------------------------------------------------------


def test_snapshot_reads_systems_and_names(tmp_path: Path) -> None:
    from mqtool.clock import Clock
    from mqtool.complex import ensure_complex
    from mqtool.session import Session
    from mqtool.state import ObjectRecord, Store

    store = Store.open(tmp_path)
    clock = Clock.from_setting("2021-03-09T15:41:22Z")
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock)
    assert session.execute("ZMQSC DEF QL-PAYQ").status == "ok"
    with store.transaction() as tx:
        tx.put_object(ObjectRecord("CSQ1", "QLOCAL", "ORDERS", {}, {}, 0.0, 0.0))
    view = snapshot(store, "TPF1")
    store.close()
    assert [(s.name, s.platform, s.cpf) for s in view.systems] == [("TPF1", "ztpf", ""), ("CSQ1", "zos", "-CSQ1")]
    assert texts("ZMQSC DIS QL-PA", view) == ["PAYQ"]
    # CSQ1 also has its built-in queues (SYSTEM.DEAD.QUEUE ...); ask for the one added here.
    assert texts("-CSQ1 DIS QLOCAL(OR", view) == ["ORDERS"]


def test_a_failing_completion_offers_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str, view: StoreView) -> list[shell_complete.Candidate]:
        raise RuntimeError("boom")

    monkeypatch.setattr(shell_complete, "complete", broken)
    assert texts("ZMQSC ") == []


def test_missing_dialect_table_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    real = tables.load

    def load(dialect: str) -> tables.Table:
        if dialect == "ztpf_http":
            raise FileNotFoundError(dialect)
        return real(dialect)

    monkeypatch.setattr(tables, "load", load)
    assert "ZMQSC " in texts("")
    assert complete("ZHTPS ", VIEW) == []


def test_mqsc_without_cpf_follows_the_sessions_zos_system() -> None:
    # SPEC section 3: on z/TPF, the z/OS system the session chose (used last, or the only one).
    chosen = StoreView(current="TPF1", systems=VIEW.systems, names=VIEW.names, zos="CSQ2")
    assert texts("DIS QLOCAL(", chosen) == ["OTHER"]


def test_zmqid_and_the_new_zmqsc_verbs_complete_from_their_tables() -> None:
    assert texts("ZMQID ") == ["DEFINE ", "ALTER ", "DELETE ", "DISPLAY "]
    assert texts("ZMQID DEFINE CH-X ") == [
        "CONNECTION-",
        "TRPTYPE-",
        "MODE-",
        "TPNAME-",
        "QMNAME-",
        "DESCR-",
        "MAXMSGL-",
    ]
    assert texts("ZMQID DEFINE CH-X TRPTYPE-") == ["TCP", "APPC"]
    assert texts("ZMQSC MIGRATE ") == ["BEGIN ", "COMMIT ", "FALLBACK "]
    assert texts("ZMQSC MOVEMSGS Q-PAY ") == ["CPU-", "FORCE "]
