"""The records every command makes, written out instead of made by @dataclass (issue
19, start-up; mqtool/record.py): they keep what the dataclasses gave. Equal when of the
same class with equal fields, shown as `Name(field=value, ...)`, changeable ones
unhashable, defaults of lists and dicts never shared between records, read-only ones
read-only, hashable, copied and pickled whole."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from mqtool.cli.main import App
from mqtool.cli.runner import Summary
from mqtool.clock import Clock
from mqtool.engine.ztpf.figures import SwbSettings
from mqtool.parse.command import Command, Directive, LexError, Param
from mqtool.parse.lines import SourceCommand
from mqtool.response import Message, Response
from mqtool.session import Outcome
from mqtool.state.records import ObjectRecord, SystemRecord


def test_changeable_records_compare_show_and_keep_their_own_defaults() -> None:
    one, two = Message("MQT0001E"), Message("MQT0001E")
    assert one == two and one is not two and one.fields is not two.fields and one.attrs is not two.attrs
    one.fields["word"] = "X"
    assert one != two and two.fields == {}
    assert repr(Message("A", csect="CSQM")) == "Message(id='A', fields={}, attrs=[], lines=[], csect='CSQM')"
    response = Response()
    response.add("MQT0009E", word="x")
    assert response.messages == [Message("MQT0009E", {"word": "x"})] and Response().messages == []
    assert Command("t", "zos", "DISPLAY").params is not Command("t", "zos", "DISPLAY").params
    assert Command("t", "zos", "DEF", "QL", params=[Param("MAXDEPTH", "5")]) == Command(
        text="t", dialect="zos", verb="DEF", object="QL", params=[Param("MAXDEPTH", "5", False)]
    )
    assert Directive(".echo x", "echo").args == [] and Outcome().lines == [] and Outcome() != Summary()
    assert SourceCommand("X", 1) == SourceCommand("X", 1, [], False)
    assert SystemRecord("TPF1", "ztpf") == SystemRecord("TPF1", "ztpf", {}, 0)
    assert repr(SystemRecord("TPF1", "ztpf")) == "SystemRecord(name='TPF1', platform='ztpf', attrs={}, position=0)"
    assert ObjectRecord("S", "QL", "Q").status is not ObjectRecord("S", "QL", "Q").status
    assert Summary(read=1) == Summary(1, 0, 0) and Summary().exit_code == 0
    assert Clock() == Clock() and Clock().frozen_at is None
    app = App(Path("x"), None, Clock())
    assert app._closers == [] and app._warned == set() and app._store is None
    for record in (Message("A"), Response(), Outcome(), SystemRecord("A", "zos"), Summary()):
        with pytest.raises(TypeError):
            hash(record)


def test_a_lex_error_is_an_exception_and_a_record() -> None:
    error = LexError("quote", "'ab")
    assert isinstance(error, Exception) and str(error) == "quote: 'ab" and error == LexError("quote", "'ab", "")
    with pytest.raises(LexError) as caught:
        raise error
    assert caught.value.kind == "quote"


def test_read_only_settings_stay_read_only_and_copy_whole() -> None:
    settings = SwbSettings(1024, 33000, 85, 70)
    with pytest.raises(AttributeError):
        settings.pool = 1
    assert hash(settings) == hash(SwbSettings(1024, 33000, 85, 70)) and settings.high == 33000 * 85 // 100
    assert pickle.loads(pickle.dumps(settings)) == settings == copy.deepcopy(settings)
    assert repr(settings) == "SwbSettings(swbsize=1024, pool=33000, sweephi=85, sweeplo=70)"
