"""mqtool's channel wire format (tcp/frames.py) and its page, mqtool-wire(7): every
frame round-trips, every malformed one is a FrameError (never another exception), and
the page documents the constants the code uses."""

from __future__ import annotations

import re
import socket
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.engine.channels.tcp import agents, frames, handshake, listener
from mqtool.engine.channels.tcp.link import Link, LinkError

PAGE = Path(__file__).resolve().parents[1] / "man" / "mqtool-wire.7"


def test_the_preamble_names_mqtool_and_its_version() -> None:
    data = frames.preamble()
    assert data[:4] == b"MQTL" and len(data) == 8
    assert frames.read_preamble(data) == frames.VERSION
    assert frames.read_preamble(frames.preamble(7)) == 7
    with pytest.raises(frames.FrameError) as refused:
        frames.read_preamble(b"TSH \x00\x00\x00\x00")  # what an IBM MQ queue manager sends
    assert refused.value.kind == "magic"


def test_a_length_over_the_bound_is_refused_before_the_body() -> None:
    with pytest.raises(frames.FrameError) as refused:
        frames.read_header(b"\xff\xff\xff\xffC", frames.MAX_CONTROL)
    assert refused.value.kind == "length" and "4294967294 bytes" in refused.value.detail
    with pytest.raises(frames.FrameError):
        frames.read_header(b"\x00\x00\x00\x00C", frames.MAX_CONTROL)
    with pytest.raises(frames.FrameError) as unknown:
        frames.read_header(b"\x00\x00\x00\x02Z", frames.MAX_CONTROL)
    assert unknown.value.kind == "type"


def test_control_and_message_frames_round_trip() -> None:
    data = frames.control("EOB", luwid="00000001", first=1, last=5, count=5)
    kind, size = frames.read_header(data[:5], frames.MAX_CONTROL)
    assert kind == frames.CONTROL and size == len(data) - 5
    assert frames.parse_control(data[5:]) == {"op": "EOB", "luwid": "00000001", "first": 1, "last": 5, "count": 5}
    item = frames.WireMessage(11, "", {"msgid": "00ff", "priority": 5}, b"hello world")
    data = frames.message(item)
    kind, size = frames.read_header(data[:5], 1024)
    assert kind == frames.MESSAGE
    assert frames.parse_message(data[5:], 1024) == item


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b"\x00\x00", "shorter than its header"),
        (frames.MESSAGE_HEAD.pack(10, 9, 2) + b"{}" + b"x" * 10, "codec 9"),
        (frames.MESSAGE_HEAD.pack(2000, 0, 2) + b"{}" + b"x" * 2000, "more than the channel's MAXMSGL 1000"),
        (frames.MESSAGE_HEAD.pack(10, 0, 500) + b"{}", "a descriptor longer than its frame"),
        (frames.MESSAGE_HEAD.pack(10, 0, 2) + b"[]" + b"x" * 10, "not an object"),
        (frames.MESSAGE_HEAD.pack(10, 0, 2) + b"{}" + b"x" * 9, "9 bytes of data declared as 10"),
    ],
)
def test_a_message_frame_that_does_not_hold_together_is_refused(body: bytes, detail: str) -> None:
    with pytest.raises(frames.FrameError) as refused:
        frames.parse_message(body, 1000)
    assert detail in refused.value.detail


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_garbage_is_a_frame_error_and_nothing_else(data: bytes) -> None:
    for parse in (lambda: frames.parse_message(data, 4096), lambda: frames.parse_control(data)):
        try:
            parse()
        except frames.FrameError:
            pass
    if len(data) >= 5:
        try:
            frames.read_header(data[:5], 4096)
        except frames.FrameError:
            pass


def test_the_page_documents_the_format() -> None:
    text = PAGE.read_text(encoding="utf-8")
    plain = re.sub(r"\\[-e]", "-", text).replace("\\(bu", "")
    assert '"MQTL"' in plain and "version         unsigned 16 bits, big-endian: 1" in plain
    assert "never to a real IBM MQ queue manager" in plain
    ops = ("HELLO", "HELLO-OK", "REFUSE", "TLS", "INIT", "ACCEPT", "EOB", "CONFIRM", "ERROR", "HB", "HBACK", "CLOSE")
    for op in (*ops, "DISCARD"):
        assert f".B {op}" in plain or f".BR {op}" in plain, op
    for codec in frames.CODECS[1:]:
        assert codec in plain
    assert f"{frames.MAX_CONTROL // 1024} KiB for a control frame" in plain
    assert f"{handshake.HELLO_MAX} bytes of HELLO" in plain
    assert f"at most {listener.MAX_PENDING} connections wait" in plain
    assert f"at most {agents.PREFETCH_BYTES // 2**20} MiB of frames read ahead" in plain
    assert f"{int(listener.HELLO_SECONDS)} seconds" in plain


def test_a_receiver_reads_ahead_within_its_bound_and_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The read-ahead of a running receiver (agents.Prefetch) holds at most its budget of
    frames besides the one being read, hands them over in order, and passes the link's
    end on when its turn comes."""
    monkeypatch.setattr(agents, "PREFETCH_BYTES", 3 * 2**20)
    ours, theirs = socket.socketpair()
    payloads = [bytes([index]) * 2**20 for index in range(12)]
    sent = [frames.message(frames.WireMessage(len(data), "", {"n": n}, data)) for n, data in enumerate(payloads)]
    writer = threading.Thread(target=lambda: [theirs.sendall(frame) for frame in sent], daemon=True)
    writer.start()
    link = Link(ours, "test")
    ahead = agents.Prefetch(link, 2**21, 2**21)
    try:
        deadline = time.monotonic() + 30
        while ahead._held < agents.PREFETCH_BYTES and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # it has read all it may: it waits for room
        assert agents.PREFETCH_BYTES <= ahead._held <= agents.PREFETCH_BYTES + len(sent[0])
        for index, data in enumerate(payloads):
            kind, item = ahead.next(time.monotonic() + 30)
            assert kind == frames.MESSAGE and item.descriptor == {"n": index} and item.data == data
        writer.join(30)
        theirs.close()
        with pytest.raises(LinkError) as ended:
            ahead.next(time.monotonic() + 30)
        assert ended.value.kind == "closed"
    finally:
        ahead.stop()
        link.close()
