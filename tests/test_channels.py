"""The channel engine in process: the wire functions, the guards (inflation bomb, corrupt
data, MAXMSGL), dead-letter headers, the two-transaction protocol when a process dies
between or inside its commits (resynchronisation, RESOLVE, RESET), the sweeper and a
batch in flight, ALTER of a running channel, status figures, and the seed's table."""

from __future__ import annotations

import re
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from zlib_ng.zlib_ng import crc32

from mqtool.clock import Clock
from mqtool.complex import bootstrap_system, defaults, ensure_complex
from mqtool.engine import codecs
from mqtool.engine.channels import corpus, deadletter, mca, wire
from mqtool.engine.channels.status import ChannelStatus, rate
from mqtool.engine.payload import generate
from mqtool.session import Session
from mqtool.state import Store, SystemRecord
from mqtool.state import messages as runs

FROZEN = "2021-03-09T15:41:22Z"
ROOT = Path(__file__).resolve().parent.parent


class Crash(BaseException):
    """Stands for the process dying: nothing after it runs, nothing uncommitted stays."""


class Complex:
    """TPF1 (listener 1414), TPF2 with queue manager TPFQM2 (1415) and CSQ1 (1416) on a
    fresh store with a frozen clock, driven in process."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.clock = Clock.from_setting(FROZEN)
        self.store = Store.open(state_dir)
        now = self.clock.timestamp()
        ensure_complex(self.store, now)
        with self.store.transaction() as tx:
            for name, listener in (("TPF1", "127.0.0.1(1414)"), ("CSQ1", "127.0.0.1(1416)")):
                record = tx.get_system(name)
                assert record is not None
                record.attrs["listener"] = listener
                tx.put_system(record)
            tpf2 = SystemRecord("TPF2", "ztpf", defaults("ztpf") | {"qmgr": "TPFQM2", "listener": "127.0.0.1(1415)"})
            tx.put_system(tpf2)
            bootstrap_system(tx, tpf2, now)
        self.session = Session(self.store, self.clock, "TPF1")

    def cmd(self, *lines: str, ok: bool = True) -> list[str]:
        out: list[str] = []
        for line in lines:
            outcome = self.session.execute(line)
            if ok:
                assert outcome.status == "ok", outcome.lines
            out.extend(outcome.lines)
        return out

    def channel(self, compmsg: str = "ZLIBFAST", xmitq_compsize: int = 0, receiver: str = "ANY") -> None:
        """Channel C from TPF1 to TPF2: QR-DEST.R on TPF1 goes to QL-DEST on TPF2."""
        self.cmd(
            ".system TPF2",
            "ZMQSC DEFINE QL-DEST",
            f"ZMQSC DEFINE CHL-C CHLTYPE-RCVR COMPMSG-{receiver}",
            ".system TPF1",
            f"ZMQSC DEFINE QL-XQ USAGE-XMITQ COMPSIZE-{xmitq_compsize}",
            "ZMQSC DEFINE QR-DEST.R RNAME-DEST RQMNAME-TPFQM2 XMITQ-XQ",
            f"ZMQSC DEFINE CHL-C CHLTYPE-SDR CONNAME-'127.0.0.1(1415)' XMITQ-XQ COMPMSG-{compmsg}",
        )

    def listen(self, system: str, listener: str) -> None:
        """Moves a system's listener (as mqtool system alter --listener does)."""
        with self.store.transaction() as tx:
            record = tx.get_system(system)
            assert record is not None
            record.attrs["listener"] = listener
            tx.put_system(record)

    def depth(self, system: str, queue: str) -> int:
        with self.store.transaction(write=False) as tx:
            return runs.depth(tx.conn, system, queue)

    def status(self, system: str, channel: str = "C", type_: str = "CHL") -> ChannelStatus:
        with self.store.transaction(write=False) as tx:
            record = tx.get_object(system, type_, channel)
            assert record is not None
            return ChannelStatus.load(record.status)

    def payloads(self, system: str, queue: str) -> list[bytes]:
        with self.store.transaction(write=False) as tx:
            qkey = runs.queue_key(tx.conn, system, queue)
            assert qkey is not None
            rows = tx.conn.execute(
                "SELECT codec, payload, original_length FROM messages WHERE id > ? AND id < ? ORDER BY id",
                runs.span(qkey),
            ).fetchall()
        return [codecs.decompress(c, p, max_length=n) if c else bytes(p) for c, p, n in rows]

    def console(self) -> list[str]:
        with self.store.transaction(write=False) as tx:
            return [text for _, _, _, text in tx.console_since(None)]

    def set_payload(self, queue: str, index: int, payload: bytes, damaged: bool = False) -> None:
        """Replaces the stored bytes of a message on a TPF1 queue: with their own checksum
        (bytes the engine could have written: a bomb, data that does not inflate), or,
        `damaged`, keeping the old checksum (as damage on disk would)."""
        with self.store.transaction() as tx:
            qkey = runs.queue_key(tx.conn, "TPF1", queue)
            assert qkey is not None
            ids = [r[0] for r in tx.conn.execute("SELECT id FROM messages WHERE id > ? AND id < ? ORDER BY id",
                                                 runs.span(qkey))]  # fmt: skip
            tx.conn.execute(
                "UPDATE messages SET payload = ?, stored_length = ? WHERE id = ?", (payload, len(payload), ids[index])
            )
            if not damaged:
                tx.conn.execute("UPDATE messages SET checksum = ? WHERE id = ?", (crc32(payload), ids[index]))


@pytest.fixture
def plex(tmp_path: Path) -> Iterator[Complex]:
    mca._SENT_HERE.clear()
    mca._LOOKAHEAD.clear()
    complex_ = Complex(tmp_path / "state")
    yield complex_
    complex_.store.close()


@pytest.fixture
def crash_at(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Makes the protocol's test hook raise Crash at a point ("send" or "confirm")."""

    def arm(point: str) -> None:
        def hook(where: str) -> None:
            if where == point:
                raise Crash(where)

        monkeypatch.setattr(mca, "_test_crash", hook)

    return arm


def restart(plex: Complex, monkeypatch: pytest.MonkeyPatch) -> None:
    """What another process sees: nothing of this one's memory, the store as committed."""
    monkeypatch.setattr(mca, "_test_crash", lambda where: None)
    mca._SENT_HERE.clear()
    mca._LOOKAHEAD.clear()
    plex.session = Session(plex.store, plex.clock, "TPF1")


# -- the wire --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sender", "receiver", "platform", "chosen"),
    [
        (["ZLIBFAST", "ZLIBHIGH"], "NONE", "ztpf", "NONE"),
        (["ZLIBFAST", "ZLIBHIGH"], "ZLIBHIGH", "ztpf", "ZLIBHIGH"),
        (["ZLIBHIGH", "ZLIBFAST"], "ANY", "ztpf", "ZLIBHIGH"),
        (["RLE", "ZLIBFAST"], "ANY", "ztpf", "ZLIBFAST"),
        (["RLE", "ZLIBFAST"], ["ANY"], "zos", "RLE"),
        (["ZLIBFAST", "ZLIBHIGH"], ["ZLIBHIGH", "RLE"], "zos", "ZLIBHIGH"),
        (["NONE"], "ANY", "ztpf", "NONE"),
    ],
)
def test_negotiation_takes_the_first_of_the_senders_list_the_receiver_accepts(
    sender: list[str], receiver: Any, platform: str, chosen: str
) -> None:
    assert wire.negotiate(sender, receiver, platform) == chosen


def test_send_compresses_passes_stored_data_on_or_inflates_it() -> None:
    data = generate("xml", 20000, 0, 0)
    stored = codecs.compress("QUEUE", data)
    as_stored = wire.send(stored, "QUEUE", len(data), "ZLIBFAST", 16000)
    assert (as_stored.data, as_stored.codec, as_stored.compressed_now) == (stored, "ZLIBFAST", False)
    inflated = wire.send(stored, "QUEUE", len(data), "NONE", 16000)
    assert (inflated.data, inflated.codec, inflated.inflated) == (data, "", True)
    small = wire.send(data[:100], "", 100, "ZLIBFAST", 16000)
    assert (small.data, small.codec) == (data[:100], "")
    packed = wire.send(data, "", len(data), "ZLIBHIGH", 0)
    assert packed.codec == "ZLIBHIGH" and wire.receive(packed.data, packed.codec, len(data)) == data


def test_receive_never_inflates_past_the_declared_length() -> None:
    bomb = zlib.compress(bytes(50 * 1024 * 1024), 9)
    tracemalloc.start()
    try:
        with pytest.raises(codecs.CodecLimitError):
            wire.receive(bomb, "ZLIBFAST", 20000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * 1024 * 1024


# -- dead letters ------------------------------------------------------------------------------


def test_dead_letter_header_round_trip() -> None:
    header = deadletter.DeadLetterHeader(2218, "SMALL", "TPFQM2", "TO.TPF2", 1615304482.25)
    raw = deadletter.build(header)
    assert len(raw) == deadletter.LENGTH == 172 and raw.startswith(b"DLH \x00\x00\x00\x01\x00\x00\x08\xaa")
    assert deadletter.parse(raw + b"payload") == header
    assert deadletter.parse(b"not a header") is None


def test_a_message_too_long_for_its_destination_goes_to_the_dead_letter_queue_with_2218(plex: Complex) -> None:
    plex.channel()
    plex.cmd(".system TPF2", "ZMQSC ALTER QL-DEST MAXMSGL-10000", ".system TPF1")
    big, fits = generate("xml", 16000, 0, 0), generate("xml", 9000, 0, 1)
    plex.cmd(".put DEST.R data='x'")  # 1 byte: delivered
    plex.session.execute(".put DEST.R size=16000 pattern=xml")
    plex.session.execute(".put DEST.R size=9000 pattern=xml seed=0")
    plex.cmd("ZMQSC START CHL-C", ".advance 1s")
    assert plex.depth("TPF1", "XQ") == 0
    assert plex.depth("TPF2", "DEST") == 2
    (dead,) = plex.payloads("TPF2", "DEAD.LETTER.QUEUE")
    header = deadletter.parse(dead)
    assert header is not None
    assert (header.reason, header.dest_queue, header.dest_qmgr, header.put_appl) == (2218, "DEST", "TPFQM2", "C")
    assert dead[deadletter.LENGTH :] == big
    assert fits not in plex.payloads("TPF2", "DEAD.LETTER.QUEUE")
    assert any("MQRC 2218 (MQRC_MSG_TOO_BIG_FOR_CHANNEL)" in line for line in plex.console())


# -- guards: bombs and corrupt data ---------------------------------------------------------------


def _compressed_on_the_xmitq(plex: Complex, count: int = 3) -> None:
    """`count` 20000-byte messages stored compressed (queue compression) on TPF1's XQ."""
    plex.channel(compmsg="ZLIBFAST", xmitq_compsize=16000)
    plex.cmd(f".put DEST.R count={count} size=20000 pattern=xml")
    with plex.store.transaction(write=False) as tx:
        codecs_used = [
            r[0] for r in tx.conn.execute("SELECT codec FROM messages WHERE queue = 'XQ' AND system = 'TPF1'")
        ]
    assert codecs_used == ["QUEUE"] * count


def test_an_inflation_bomb_is_stopped_at_its_declared_length_and_backs_the_batch_out(plex: Complex) -> None:
    _compressed_on_the_xmitq(plex)
    plex.set_payload("XQ", 1, zlib.compress(bytes(60 * 1024 * 1024), 9))
    plex.cmd("ZMQSC START CHL-C")
    tracemalloc.start()
    try:
        plex.cmd(".advance 1s")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024  # 60 MB declared as 20000 bytes is never inflated
    assert plex.status("TPF1").state == "RETRYING"
    assert (plex.depth("TPF1", "XQ"), plex.depth("TPF2", "DEST")) == (3, 0)
    (line,) = [text for text in plex.console() if "MQSC0319E" in text]
    assert re.search(r"CHL-C BATCH BACKED OUT - message data received does not inflate: .*20000 bytes", line)


@pytest.mark.parametrize("compmsg", ["ZLIBFAST", "NONE"])
def test_corrupt_compressed_data_backs_the_batch_out_and_the_channel_retries(plex: Complex, compmsg: str) -> None:
    _compressed_on_the_xmitq(plex)
    good = plex.payloads("TPF1", "XQ")
    plex.set_payload("XQ", 2, b"\x78\x9c this is not deflate data")
    plex.cmd(f"ZMQSC ALTER CHL-C COMPMSG-{compmsg}", "ZMQSC START CHL-C", ".advance 1s")
    status = plex.status("TPF1")
    assert (status.state, status.seq, status.indoubt) == ("RETRYING", 0, None)
    assert (plex.depth("TPF1", "XQ"), plex.depth("TPF2", "DEST")) == (3, 0)
    assert plex.status("TPF2").seq == 0
    assert [t for t in plex.console() if "MQSC0319E" in t]
    # Without the damaged message the next attempt delivers the others, once each.
    with plex.store.transaction() as tx:
        qkey = runs.queue_key(tx.conn, "TPF1", "XQ")
        assert qkey is not None
        last = max(r[0] for r in tx.conn.execute("SELECT id FROM messages WHERE id > ? AND id < ?", runs.span(qkey)))
        tx.conn.execute("DELETE FROM messages WHERE id = ?", (last,))
    plex.cmd(".advance 61s")
    assert plex.payloads("TPF2", "DEST") == good[:2]
    assert plex.status("TPF1").state == "RUNNING"


@pytest.mark.parametrize("compmsg", ["ZLIBFAST", "NONE"])
def test_a_damaged_message_is_not_sent_on_as_if_it_were_whole(plex: Complex, compmsg: str) -> None:
    """A message whose stored bytes no longer match their checksum fails the batch, as a
    get refuses it (2195): the receiver never stores the damaged bytes under a fresh
    checksum; the message stays on the transmission queue."""
    plex.channel(compmsg=compmsg)
    plex.cmd(".put DEST.R count=3 size=2000 pattern=xml")
    good = plex.payloads("TPF1", "XQ")
    damaged = bytearray(good[1])
    damaged[100] ^= 0x01  # one flipped bit; the stored checksum stays the original's
    plex.set_payload("XQ", 1, bytes(damaged), damaged=True)
    plex.cmd("ZMQSC START CHL-C", ".advance 1s")
    assert plex.status("TPF1").state == "RETRYING"
    assert (plex.depth("TPF1", "XQ"), plex.depth("TPF2", "DEST")) == (3, 0)
    (line,) = [t for t in plex.console() if "MQSC0319E" in t]
    assert "is damaged: its payload does not match its checksum" in line


# -- the protocol: a process that dies between or inside the two commits ----------------------------


def _killed_during_a_batch(
    plex: Complex, crash_at: Callable[[str], None], point: str, count: int, *before: str
) -> list[bytes]:
    """Channel C running with `count` messages to move (after the commands `before`),
    and the process "killed" at `point` of the first batch; returns the messages as
    they were sent."""
    plex.channel()
    plex.cmd(*before, f".put DEST.R count={count} size=2000 pattern=xml persistent=yes", "ZMQSC START CHL-C",
             "ZMQSC DIS CHL-C")  # fmt: skip
    sent = plex.payloads("TPF1", "XQ")
    crash_at(point)
    with pytest.raises(Crash):
        plex.cmd(".advance 1s")
    return sent


def test_a_crash_between_the_commits_is_resolved_by_the_receivers_record(
    plex: Complex, crash_at: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _killed_during_a_batch(plex, crash_at, "confirm", 7)
    # Committed by the receiver, still on the sender's queue, in doubt.
    status = plex.status("TPF1")
    assert status.indoubt is not None and (status.indoubt.first, status.indoubt.last, status.seq) == (1, 7, 0)
    assert (plex.depth("TPF1", "XQ"), plex.depth("TPF2", "DEST"), plex.status("TPF2").seq) == (7, 7, 7)
    with plex.store.transaction(write=False) as tx:
        xq = tx.get_object("TPF1", "QL", "XQ")
        assert xq is not None and len(xq.status["inflight"]) == 7
    restart(plex, monkeypatch)
    plex.cmd("ZMQSC DISPLAY QL-XQ")
    assert (plex.depth("TPF1", "XQ"), plex.payloads("TPF2", "DEST")) == (0, sent)
    assert plex.status("TPF1").seq == 7 and plex.status("TPF1").indoubt is None
    assert any("CHL-C IN-DOUBT BATCH SEQNUM 1-7 (7 MESSAGES) COMMITTED WITH TPFQM2" in t for t in plex.console())
    with plex.store.transaction(write=False) as tx:
        xq = tx.get_object("TPF1", "QL", "XQ")
        assert xq is not None and "inflight" not in xq.status


def test_a_crash_inside_the_first_commit_sends_the_batch_again(
    plex: Complex, crash_at: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _killed_during_a_batch(plex, crash_at, "send", 5)
    assert (plex.depth("TPF1", "XQ"), plex.depth("TPF2", "DEST")) == (5, 0)
    assert plex.status("TPF1").indoubt is None
    restart(plex, monkeypatch)
    plex.cmd(".advance 1s")
    assert (plex.depth("TPF1", "XQ"), plex.payloads("TPF2", "DEST")) == (0, sent)
    assert (plex.status("TPF1").seq, plex.status("TPF2").seq) == (5, 5)


def _zos_channel_in_doubt(plex: Complex, crash_at: Callable[[str], None], monkeypatch: pytest.MonkeyPatch) -> None:
    """CSQ1 sender Z to TPF2, a batch of 4 committed by TPF2 and in doubt at CSQ1, TPF2
    no longer reachable (its listener moved), the channel stopped."""
    plex.cmd(
        ".system TPF2",
        "ZMQSC DEFINE QL-DEST",
        "ZMQSC DEFINE CHL-Z CHLTYPE-RCVR",
        "-CSQ1 DEFINE QLOCAL(XQ) USAGE(XMITQ)",
        "-CSQ1 DEFINE QREMOTE(DEST.R) RNAME(DEST) RQMNAME(TPFQM2) XMITQ(XQ)",
        "-CSQ1 DEFINE CHANNEL(Z) CHLTYPE(SDR) CONNAME('127.0.0.1(1415)') XMITQ(XQ)",
        ".system CSQ1",
        ".put DEST.R count=4 size=1000 pattern=xml",
        "START CHANNEL(Z)",
        "DIS CHS(Z)",
    )
    crash_at("confirm")
    with pytest.raises(Crash):
        plex.cmd(".advance 1s")
    restart(plex, monkeypatch)
    plex.listen("TPF2", "127.0.0.1(1499)")
    plex.session.current = "CSQ1"
    plex.cmd(".advance 1s", "STOP CHANNEL(Z)")
    assert plex.status("CSQ1", "Z", "CHANNEL").indoubt is not None


def test_resolve_commit_removes_an_in_doubt_batch_the_partner_cannot_confirm(
    plex: Complex, crash_at: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    _zos_channel_in_doubt(plex, crash_at, monkeypatch)
    out = plex.cmd("DIS CHS(Z) SAVED")
    assert "INDOUBT(YES)" in out and "CURMSGS(4)" in out and "CURSEQNO(4)" in out and "LSTSEQNO(0)" in out
    assert plex.cmd("START CHANNEL(Z)", "RESOLVE CHANNEL(Z) ACTION(COMMIT)", ok=False)[-2:] == [
        "CSQX514E -CSQ1 CSQXCRPS Channel Z is active",
        "CSQ9023E -CSQ1 CSQXCRPS ' RESOLVE CHANNEL' ABNORMAL COMPLETION",
    ]
    assert plex.cmd("STOP CHANNEL(Z)", "ALTER QLOCAL(XQ) GET(DISABLED)", "RESOLVE CHANNEL(Z) ACTION(COMMIT)", ok=False)[
        -2:
    ] == [
        "MQT0524E -CSQ1 CSQXCRPS Channel Z: transmission queue XQ is GET(DISABLED), the batch in doubt stays",
        "CSQ9023E -CSQ1 CSQXCRPS ' RESOLVE CHANNEL' ABNORMAL COMPLETION",
    ]
    assert plex.depth("CSQ1", "XQ") == 4
    out = plex.cmd("ALTER QLOCAL(XQ) GET(ENABLED)", "RESOLVE CHANNEL(Z) ACTION(COMMIT)")
    assert out[-3:] == [
        "CSQM134I -CSQ1 CSQXCRPS RESOLVE CHANNEL(Z) COMMAND ACCEPTED",
        "MQT0522I -CSQ1 Channel Z in-doubt batch of 4 messages committed",
        "CSQ9022I -CSQ1 CSQXCRPS ' RESOLVE CHANNEL' NORMAL COMPLETION",
    ]
    assert (plex.depth("CSQ1", "XQ"), plex.depth("TPF2", "DEST")) == (0, 4)
    assert plex.status("CSQ1", "Z", "CHANNEL").seq == 4
    assert "MQT0521E -CSQ1 CSQXCRPS Channel Z is not in doubt" in plex.cmd(
        "RESOLVE CHANNEL(Z) ACTION(BACKOUT)", ok=False
    )
    # Reachable again, the channel runs on from sequence number 4 at both ends.
    plex.listen("TPF2", "127.0.0.1(1415)")
    plex.cmd(".put DEST.R data='after'", "START CHANNEL(Z)", ".advance 1s")
    assert plex.depth("TPF2", "DEST") == 5 and plex.status("TPF2", "Z").seq == 5


def test_resolve_backout_sends_the_batch_again_and_the_sequence_numbers_say_so(
    plex: Complex, crash_at: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    _zos_channel_in_doubt(plex, crash_at, monkeypatch)
    plex.cmd("RESOLVE CHANNEL(Z) ACTION(BACKOUT)")
    assert (plex.depth("CSQ1", "XQ"), plex.status("CSQ1", "Z", "CHANNEL").seq) == (4, 0)
    plex.listen("TPF2", "127.0.0.1(1415)")
    # The receiver has the batch (sequence number 4): the sender, at 0, is stopped.
    plex.cmd("START CHANNEL(Z)", ".advance 1s")
    assert plex.status("CSQ1", "Z", "CHANNEL").state == "STOPPED"
    assert any("CSQX526E -CSQ1 CSQXRCTL Message sequence error for channel Z, sent=1 expected=5" in t
               for t in plex.console())  # fmt: skip
    # The operator chose to send the batch again: RESET, and it arrives a second time.
    plex.cmd("RESET CHANNEL(Z) SEQNUM(4)", "START CHANNEL(Z)", ".advance 1s")
    assert (plex.depth("CSQ1", "XQ"), plex.depth("TPF2", "DEST")) == (0, 8)
    assert plex.status("TPF2", "Z").seq == 8


# -- the sweeper and a batch in flight -------------------------------------------------------------


def test_the_sweeper_leaves_a_batch_in_flight_in_memory(
    plex: Complex, crash_at: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mqtool.engine.ztpf.sweeper import sweep

    _killed_during_a_batch(plex, crash_at, "confirm", 10, "ZMQSC ALTER CHL-C BATCHSZ-3")
    restart(plex, monkeypatch)
    with plex.store.transaction() as tx:
        system = tx.get_system("TPF1")
        assert system is not None
        system.attrs |= {"swbpool": 40, "sweephi": 50, "sweeplo": 1}
        xq = tx.get_object("TPF1", "QL", "XQ")
        assert xq is not None
        inflight = set(xq.status["inflight"])
        outcome = sweep(tx, system, plex.clock.timestamp())
        qkey = runs.queue_key(tx.conn, "TPF1", "XQ")
        assert qkey is not None
        mark = tx.conn.execute("SELECT sweep_mark FROM messages WHERE id = ?", (runs.head_id(qkey),)).fetchone()[0]
        swept = {
            row_id
            for row_id, flag in tx.conn.execute(
                "SELECT id, swept FROM messages WHERE id > ? AND id < ?", runs.span(qkey)
            )
            if flag or runs.seq_of(row_id) <= mark
        }
        tx.fail()
    assert len(inflight) == 3 and outcome.messages == 7 and outcome.aborted
    assert swept and not swept & inflight


# -- status, displays, ALTER ----------------------------------------------------------------------


def test_alter_of_a_running_channel_takes_effect_at_its_next_start(plex: Complex) -> None:
    plex.channel(compmsg="ZLIBFAST")
    plex.cmd("ZMQSC START CHL-C", "ZMQSC ALTER CHL-C COMPMSG-ZLIBHIGH BATCHSZ-2", ".put DEST.R count=3 size=5000",
             ".advance 1s")  # fmt: skip
    status = plex.status("TPF1")
    assert (status.technique, status.batchsz, status.total.batches) == ("ZLIBFAST", 50, 1)
    plex.cmd("ZMQSC STOP CHL-C", "ZMQSC START CHL-C", ".put DEST.R count=3 size=5000", ".advance 1s")
    status = plex.status("TPF1")
    assert (status.technique, status.batchsz, status.total.batches) == ("ZLIBHIGH", 2, 2)


def test_channel_status_is_seen_by_another_process(plex: Complex, state_dir: Path, mq: Any) -> None:
    plex.channel()
    plex.cmd(".put DEST.R count=2 size=5000", "ZMQSC START CHL-C", ".advance 1s")
    result = mq("--state", str(plex.state_dir), "cmd", "ZMQSC DISPLAY CHL-C STAT")
    assert "Messages           - 2 (2)" in result.output and "Status             - RUNNING" in result.output


def test_numbers_above_999999999_display_as_999999999(plex: Complex) -> None:
    plex.cmd(".system CSQ1", "ALTER QMGR MONCHL(LOW)", "DEFINE QLOCAL(XQ) USAGE(XMITQ)",
             "DEFINE CHANNEL(Z) CHLTYPE(SDR) CONNAME('127.0.0.1(1415)') XMITQ(XQ)")  # fmt: skip
    with plex.store.transaction() as tx:
        record = tx.get_object("CSQ1", "CHANNEL", "Z")
        assert record is not None
        status = ChannelStatus(state="RUNNING", seq=1_234_567_890)
        status.total.msgs = 5_000_000_000
        status.total.wire = 7_000_000_000
        status.total.batches = 1_000_000_000
        status.store(record.status, "SDR")
        tx.put_status(record)
    out = plex.cmd("DIS CHS(Z) MSGS BYTSSENT BATCHES LSTSEQNO")
    assert [line for line in out if line.startswith(("MSGS", "BYTSSENT", "BATCHES", "LSTSEQNO"))] == [
        "LSTSEQNO(999999999)",
        "MSGS(999999999)",
        "BYTSSENT(999999999)",
        "BATCHES(999999999)",
    ]


# -- the seed's table -------------------------------------------------------------------------------


def test_the_seed_table_in_the_man_page_is_what_the_engine_measures() -> None:
    page = (ROOT / "man" / "mqtool-ztpf.7").read_text(encoding="utf-8")
    for line in corpus.lines(corpus.table()):
        assert line.replace("-", "\\-") in page, line


def test_a_zlibhigh_channel_reports_the_tables_ratio(plex: Complex) -> None:
    expected = corpus.row(70000, 143)
    plex.channel(compmsg="ZLIBHIGH")
    plex.cmd(".system TPF2", "ZMQSC ALTER CHL-C BATCHSZ-143", ".system TPF1", "ZMQSC ALTER CHL-C BATCHSZ-143",
             ".put DEST.R count=143 size=70000 pattern=xml seed=0",
             "ZMQSC START CHL-C", "ZMQSC DIS CHL-C", ".advance 1s")  # fmt: skip
    status = plex.status("TPF1")
    assert (status.batch.msgs, status.batch.before, status.batch.wire) == (143, expected.before, expected.wire)
    assert rate(status.batch.before, status.batch.wire, nearest=False) == expected.ratio
