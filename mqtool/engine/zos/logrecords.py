"""What a persistent operation writes to a z/OS queue manager's log: one record per put
(the stored message plus a header), per destructive get (a header), and per streamed
copy (a put record of the copy). With COMPLOG(RLE) (or ANY, which on a workstation has
no zEDC to choose) the record's data is run-length encoded with the RLE codec, and the
encoded form is written when it is smaller.

The header sizes are mqtool's (IBM documents that log records carry the message data
and control information, not their exact size): PUT_HEADER and GET_RECORD below,
documented in mqtool-zos(7)."""

from __future__ import annotations

from dataclasses import dataclass

from mqtool.engine import codecs

PUT_HEADER = 384  # bytes of control information in a put record
GET_RECORD = 256  # bytes of a destructive get's record
COMPRESSING = ("RLE", "ANY")  # COMPLOG values that compress log records


@dataclass(frozen=True)
class LogRecord:
    """One log record: its size before compression and as written."""

    original: int  # header + data as the record would be without compression
    written: int  # header + data as written (RLE encoded when that was smaller)

    @property
    def compressed(self) -> bool:
        return self.written < self.original


def put_record(data: bytes, complog: str) -> LogRecord:
    """The log record of a persistent put (or streamed copy) of `data` (as stored)."""
    if str(complog).upper() in COMPRESSING and data:
        return put_record_encoded(len(data), len(codecs.compress("RLE", data)), complog)
    return put_record_encoded(len(data), len(data), complog)


def get_record() -> LogRecord:
    """The log record of a destructive get of a persistent message."""
    return LogRecord(GET_RECORD, GET_RECORD)


def put_record_encoded(length: int, encoded_length: int, complog: str) -> LogRecord:
    """put_record for a caller that has RLE-encoded the data already (mqtool estimate
    runs the RLE codec once per message for several figures): the same record put_record
    writes for `length` bytes whose RLE form is `encoded_length` bytes."""
    original = PUT_HEADER + length
    if str(complog).upper() in COMPRESSING and length and encoded_length < length:
        return LogRecord(original, PUT_HEADER + encoded_length)
    return LogRecord(original, original)
