"""A channel's run-time status and statistics, kept in its object's status in the store
(so every process sees them): the state, what was negotiated at start, the sequence
numbers and the in-doubt batch of the protocol, and the counts the displays show.

The keys named like z/OS DISPLAY CHSTATUS keywords in lower case (`msgs`, `bytssent`,
`compmsg` ...) are written for commands/zos/display.py; the rest are the engine's own.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

INACTIVE = "INACTIVE"
BINDING = "BINDING"
RUNNING = "RUNNING"
RETRYING = "RETRYING"
STOPPED = "STOPPED"
ACTIVE_STATES = (BINDING, RUNNING, RETRYING)
SEQWRAP = 999_999_999  # sequence numbers wrap after this, as MQ's SEQWRAP default


def next_seq(seq: int, count: int = 1) -> int:
    """The sequence number `count` messages after `seq` (1 follows SEQWRAP)."""
    return (seq + count - 1) % SEQWRAP + 1


@dataclass
class InDoubt:
    """A batch committed by the receiver (or about to be) that the sender has not yet
    removed from its transmission queue."""

    luwid: str
    first: int  # sequence numbers of its first and last message
    last: int
    rows: list[int]  # the transmission queue's row ids of the messages sent
    count: int  # messages sent (dead-lettered ones included)
    before: int  # bytes of the messages before compression
    wire: int  # bytes on the wire
    compressed: int  # messages compressed on the wire
    comp_before: int  # bytes before compression of those
    comp_us: int  # microseconds the sender spent compressing and inflating
    stored: int  # messages sent as stored (compressed on the queue)
    inflated: int  # messages inflated before sending
    last_technique: str


@dataclass
class Totals:
    """Counts since the channel started (one end's view)."""

    msgs: int = 0
    batches: int = 0
    before: int = 0  # bytes before compression
    wire: int = 0  # bytes of message data on the wire
    compressed: int = 0  # messages that went compressed
    comp_before: int = 0
    comp_wire: int = 0
    comp_us: int = 0  # microseconds compressing (sender) or decompressing (receiver)
    stored: int = 0  # sender: messages sent as stored on the queue
    inflated: int = 0  # sender: messages inflated before sending
    hardware: int = 0  # receiver: decompressions with the accelerator
    software: int = 0  # receiver: decompressions in software
    dead: int = 0  # receiver: messages put to the dead-letter queue
    frames: int = 0  # TCP: bytes of frames sent (sender) or received (receiver), control included
    socket: int = 0  # TCP: bytes on the socket, after TLS when it runs
    largest: int = 0  # the longest message (its original length)

    def add(self, other: Totals) -> None:
        for item in fields(self):
            mine, theirs = getattr(self, item.name), getattr(other, item.name)
            setattr(self, item.name, max(mine, theirs) if item.name == "largest" else mine + theirs)


@dataclass
class ChannelStatus:
    """The status of one end of a channel (see the module docstring)."""

    state: str = INACTIVE
    partner: str = ""  # the partner system
    rqmname: str = ""  # the partner's queue manager
    conname: str = ""
    xmitq: str = ""
    technique: str = "NONE"  # negotiated at start
    last_technique: str = "NONE"  # of the last message
    batchsz: int = 0  # negotiated: the smaller of both ends
    maxmsgl: int = 0  # negotiated: the smaller of both ends
    compsize: int = 0  # the transmission queue's COMPSIZE when the channel started
    seq: int = 0  # sequence number of the last message committed
    reset: bool = False  # RESET SEQNUM given: the partner is told at the next start
    luw: int = 0  # batches numbered so far (the LUWIDs)
    luwid: str = ""  # the last batch committed
    indoubt: InDoubt | None = None
    started: float = 0.0
    last_message: float = 0.0
    retries: int = 0
    retry_at: float = 0.0
    reason: str = ""  # why the channel is retrying or stopped by the engine
    restart: bool = False  # z/OS: start again when the channel initiator starts
    bound: str = ""  # receiver: the system of the sender bound to it (TCP: "tcp:" and its session)
    saved: bool = False  # a batch was ever committed: DISPLAY CHSTATUS SAVED shows it
    hbint: int = 0  # negotiated: the larger of both ends
    transport: str = ""  # "" in the store, TCP over the network
    sslciph: str = ""  # the CipherSpec in use (TCP with TLS)
    sslpeer: str = ""  # the partner certificate's distinguished name
    sslcerti: str = ""  # ... and its issuer's
    sslcertu: str = ""  # the user id its certificate maps to
    mcauser: str = ""  # the user id the channel runs under (CHLAUTH, MCAUSER)
    owner: dict[str, Any] | None = None  # TCP: the serving loop that runs this end
    requester: str = ""  # a server started by a requester of the store: the requester's system
    removal: list[int] = field(default_factory=list)  # confirmed rows still on the transmission queue (TCP)
    waiting: bool = False  # a TCP sender was told on the console that it waits for a serving loop
    total: Totals = field(default_factory=Totals)
    batch: Totals = field(default_factory=Totals)  # the last batch

    @classmethod
    def load(cls, status: dict[str, Any]) -> ChannelStatus:
        """The status kept in an object's status dict (unknown keys are ignored)."""
        data = dict(status.get("channel") or {})
        known = {item.name for item in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        if isinstance(values.get("indoubt"), dict):
            values["indoubt"] = InDoubt(**values["indoubt"])
        for key in ("total", "batch"):
            if isinstance(values.get(key), dict):
                values[key] = Totals(**values[key])
        return cls(**values)

    def store(self, status: dict[str, Any], chltype: str) -> None:
        """Writes the status into an object's status dict, with the DISPLAY CHSTATUS
        keys (`state` and the keywords in lower case)."""
        status["channel"] = asdict(self)
        status["state"] = self.state
        sender = chltype in ("SDR", "SVR")
        total, batch = self.total, self.batch
        status["conname"] = self.conname
        status["substate"] = ""
        status["stopreq"] = "NO"
        status["msgs"] = total.msgs
        status["batches"] = total.batches
        sent = total.frames or total.wire
        status["bytssent"] = sent if sender else 0
        status["bytsrcvd"] = 0 if sender else sent
        status["compmsg"] = [self.technique, self.last_technique]
        status["comprate"] = [rate(batch.before, batch.wire), rate(total.before, total.wire)]
        status["comptime"] = [
            per_message(batch.comp_us, batch.compressed),
            per_message(total.comp_us, total.compressed),
        ]
        status["curshcnv"] = 0
        status["maxshcnv"] = 0
        status["sslciph"] = self.sslciph
        status["sslpeer"] = self.sslpeer
        status["sslcerti"] = self.sslcerti
        status["sslcertu"] = self.sslcertu
        status["sslrkeys"] = 0  # no secret key resets (security/tls.py)
        status["sslkeyda"] = status["sslkeyti"] = ""
        if self.mcauser:
            status["mcauser"] = self.mcauser


def rate(before: int, after: int, nearest: bool = True) -> int:
    """Percent size reduction, 100 x (1 - after / before): to the nearest percent (z/OS
    COMPRATE) or rounded down (the z/TPF displays); 0 when nothing was sent."""
    if before <= 0:
        return 0
    saved = 100 * (before - after)
    return max(0, (2 * saved + before) // (2 * before) if nearest else saved // before)


def per_message(micros: int, count: int) -> int:
    """Mean microseconds per message; 0 when there was none."""
    return micros // count if count else 0
