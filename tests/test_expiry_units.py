"""`mqtool put --expiry` and `.put expiry=` read expiry the same way: a bare number is
tenths of a second (MQ's MQMD.Expiry), a value with a unit is a duration."""

from __future__ import annotations

import pytest

from mqtool.clock import ClockError
from mqtool.workload import parse_expiry


@pytest.mark.parametrize(("text", "seconds"), [("300", 30.0), ("1", 0.1), ("30s", 30.0), ("5m", 300.0), (" 20 ", 2.0)])
def test_parse_expiry(text: str, seconds: float) -> None:
    assert parse_expiry(text) == pytest.approx(seconds)


def test_parse_expiry_rejects_words() -> None:
    with pytest.raises(ClockError):
        parse_expiry("soon")


def test_directive_and_cli_agree(mq) -> None:  # type: ignore[no-untyped-def]
    assert mq("cmd", "ZMQSC DEFINE QL-EXPQ").exit_code == 0
    # 20 tenths = 2 seconds through both doors; after 3 seconds both messages are gone.
    assert mq("cmd", ".put EXPQ data='a' expiry=20").exit_code == 0
    assert mq("put", "EXPQ", "--data", "b", "--expiry", "20").exit_code == 0
    browse = mq("cmd", ".get EXPQ count=all browse=yes")
    assert browse.output.count("MQT0110I") == 2, browse.output
    assert mq("cmd", ".advance 3s", ".get EXPQ count=all").output.count("MQT0110I") == 0
