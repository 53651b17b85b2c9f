"""Seeded, reproducible message payloads (XML, JSON, text, random) of an exact size.

`generate(pattern, size, seed, index)` is message number `index` of the stream
(pattern, seed): the same bytes on every run, platform and Python version (all
randomness is SHAKE-256 from hashlib; nothing uses hash() or the `random` module).

- xml / json: batches of business records (orders, payments, bookings) behind a
  header with a message id, timestamp and SHA-256 digest, closed by a remark whose
  length makes the size exact. From `min_document_size` (xml: 110 bytes plus the
  digits of the index, json: 64 plus them; under 200 for any index below 10**80)
  every message is a well-formed document; below that it is the start of one.
- text: English-like prose starting at a sentence.
- random: incompressible bytes.

Size reduction with zlib level 6 (stdlib), mean of 20 messages, seed 0; the seed
deck's "various size XML files" measured 53% at 3000 bytes and 78% at 200000:

    bytes    2048  3000  5000  12000  32768  70000  200000
    xml       49%   52%   59%    68%    74%    77%     79%
    json      47%   52%   58%    65%    71%    74%     75%
    text      65%   69%   75%    82%    86%    88%     89%
    random    -1%    0%    0%     0%     0%     0%      0%

Speed (2 KB messages, 100,000 indices, one core of the development machine):
xml and json 3.5 us per message (about 280,000 messages/s), text 0.4 us, random
0.6 us. The first message of a new seed costs about 50 ms: that call builds the
512 KiB corpora which every later message is a window of.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["PATTERNS", "PatternError", "Piece", "generate", "generate_pieces", "min_document_size"]

PATTERNS: tuple[str, ...] = ("xml", "json", "text", "random")
#: A piece of a generated message (see generate_pieces).
Piece = bytes | memoryview

# Each corpus is built once per (pattern, seed) and messages are windows cut out of
# it, which is what makes a 2 KB message cost microseconds. 512 KiB is larger than
# the deflate window many times over (so a window never "sees" its own repeat) and
# small enough to build in a few tens of milliseconds.
_CORPUS_BYTES = 512 * 1024
# Below this a structured message has no room for its envelope: it is a prefix cut.
_SMALL_DOCUMENT = 1024


class PatternError(ValueError):
    """An unknown payload pattern or a negative size."""


# --------------------------------------------------------------------------- draws
class _Draws:
    """Pseudo-random integers from SHAKE-256 in counter mode.

    `random.Random` only promises a stable `random()` across Python versions, and a
    golden transcript must not change when Python is upgraded, so the stream comes
    from hashlib and is unpacked little-endian (identical on s390x and x86).
    """

    _BLOCK_WORDS = 4096

    def __init__(self, label: str, seed: int) -> None:
        self._key = f"mqtool.payload:{label}:{seed}".encode()
        self._block = 0
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def _refill(self) -> None:
        raw = hashlib.shake_256(self._key + b":%d" % self._block).digest(self._BLOCK_WORDS * 4)
        self._words = struct.unpack(f"<{self._BLOCK_WORDS}I", raw)
        self._block += 1
        self._pos = 0

    def below(self, n: int) -> int:
        if self._pos >= len(self._words):
            self._refill()
        word = self._words[self._pos]
        self._pos += 1
        return word % n

    def pick(self, items: Sequence[str]) -> str:
        return items[self.below(len(items))]

    def digits(self, n: int) -> str:
        return "".join(str(self.below(10)) for _ in range(n))

    def hex(self, n: int) -> str:
        return "".join("0123456789ABCDEF"[self.below(16)] for _ in range(n))

    def letters(self, n: int) -> str:
        return "".join(chr(65 + self.below(26)) for _ in range(n))

    def date(self) -> str:
        return f"2024-{1 + self.below(12):02d}-{1 + self.below(28):02d}"

    def timestamp(self) -> str:
        hms = f"{self.below(24):02d}:{self.below(60):02d}:{self.below(60):02d}"
        return f"{self.date()}T{hms}Z"

    def amount(self, low: int, high: int) -> str:
        return f"{low + self.below(high - low)}.{self.below(100):02d}"


def _bytes_stream(label: str, seed: int, n: int) -> bytes:
    return hashlib.shake_256(f"mqtool.payload:{label}:{seed}".encode()).digest(n)


# ----------------------------------------------------------------- vocabulary
# Small, fixed vocabularies: the repetition real business documents have comes
# from names, cities and catalogue items recurring, not from identical records.
# fmt: off
_FIRST = (
    "Maria", "Jan", "Aisha", "Tomasz", "Elena", "Kenji", "Olivia", "Rahul", "Sofia",
    "Lucas", "Ingrid", "Mateo", "Chloe", "Dmitri", "Fatima", "Liam", "Hannah", "Yusuf",
    "Grace", "Pablo", "Nora", "Emil", "Zara", "Oscar", "Leila", "Felix", "Amara",
    "Victor", "Ines", "Hugo", "Priya", "Anton", "Clara", "Diego", "Freya", "Samuel",
    "Mei", "Karl", "Rosa", "Omar",
)
_LAST = (
    "Jensen", "Kowalski", "Okafor", "Rossi", "Tanaka", "Schmidt", "Fernandes", "Novak",
    "Lindqvist", "Moreau", "Dubois", "Patel", "Haddad", "Murphy", "Costa", "Nguyen",
    "Bauer", "Silva", "Kaur", "Andersen", "Romero", "Fischer", "Ivanova", "Brennan",
    "Suzuki", "Larsen", "Mendes", "Hoffmann", "Ortega", "Walsh", "Kim", "Berg",
    "Castillo", "Horvat", "Wagner", "Reyes", "Nilsen", "Popescu", "Sato", "Keller",
)
_STREETS = (
    "Harbour Road", "Mill Lane", "King Street", "Station Avenue", "Church Walk",
    "Market Square", "Canal Street", "Park Terrace", "Bridge Road", "Orchard Close",
    "Victoria Parade", "Elm Grove", "High Street", "Quay Side", "Linden Allee",
    "Rue des Fleurs", "Via Roma", "Calle Mayor", "Hauptstrasse", "Dock Road",
)
_CITIES = (
    ("Leeds", "GB"), ("Bristol", "GB"), ("Hamburg", "DE"), ("Munich", "DE"),
    ("Lyon", "FR"), ("Nantes", "FR"), ("Milan", "IT"), ("Porto", "PT"),
    ("Valencia", "ES"), ("Utrecht", "NL"), ("Gothenburg", "SE"), ("Aarhus", "DK"),
    ("Krakow", "PL"), ("Brno", "CZ"), ("Cork", "IE"), ("Graz", "AT"), ("Chicago", "US"),
    ("Denver", "US"), ("Toronto", "CA"), ("Osaka", "JP"),
)
_CURRENCIES = ("EUR", "EUR", "EUR", "GBP", "USD", "USD", "SEK", "CHF")
_PRODUCTS = (
    ("HW", "Stainless steel hinge, 75 mm"),
    ("HW", "Brass cabinet handle, satin finish"),
    ("HW", "Zinc-plated wood screws, box of 200"),
    ("EL", "LED panel light, 600 x 600, 4000 K"),
    ("EL", "Twin switched socket, white"),
    ("EL", "Copper cable 2.5 mm, 50 m reel"),
    ("OF", "Recycled copy paper A4, 5 reams"),
    ("OF", "Gel pen, blue, pack of 12"),
    ("OF", "Lever arch file, black"),
    ("IT", "USB-C docking station, dual display"),
    ("IT", "Wireless keyboard, UK layout"),
    ("IT", "27 inch monitor, height adjustable"),
    ("SF", "Safety gloves, cut level C, size 9"),
    ("SF", "Hi-vis vest, orange, XL"),
    ("SF", "First aid kit, workplace, 20 person"),
    ("PK", "Double wall carton, 450 x 350 x 300"),
    ("PK", "Stretch film, 500 mm x 300 m"),
    ("PK", "Packing tape, brown, 48 mm"),
    ("CL", "Floor cleaner concentrate, 5 l"),
    ("CL", "Microfibre cloths, pack of 10"),
)
_ORDER_STATUS = ("CONFIRMED", "CONFIRMED", "SHIPPED", "PENDING", "INVOICED")
_PAY_METHODS = ("SEPA", "SEPA", "SWIFT", "CARD", "ACH")
_AIRPORTS = (
    "LHR", "JFK", "CDG", "FRA", "AMS", "MAD", "FCO", "ORD", "YYZ", "NRT", "DUB", "CPH",
    "ARN", "VIE", "ZRH", "LIS",
)
_CARRIERS = ("XA", "QK", "TZ", "MV", "RB")
_CABINS = ("Y", "Y", "Y", "W", "J")
_REMITTANCE = (
    "Settlement of invoice, thank you", "Monthly service charge",
    "Partial payment as agreed", "Deposit for framework order",
    "Refund of overpaid freight", "Quarterly maintenance fee",
)

# English-like prose for the text pattern and for filler inside documents. No
# quotes, backslashes, '<' or '&', so it drops into XML and JSON unescaped.
_TEXT_SUBJECTS = (
    "the operator", "the night shift", "our team", "the queue manager", "the customer",
    "the auditor", "every department", "the supplier", "the system",
    "the project board", "each region", "the sweeper",
)
_TEXT_VERBS = (
    "reviewed", "approved", "delayed", "moved", "checked", "reported", "scheduled",
    "confirmed", "reduced", "restarted", "measured", "replaced", "archived", "printed",
    "repaired", "compared",
)
_TEXT_OBJECTS = (
    "the monthly figures", "the spare parts order", "a new storage plan",
    "the channel settings", "the delivery schedule", "all open invoices",
    "the backup tapes", "the test results", "two old printers", "the weekly report",
    "the compression ratio", "the network links", "the training material",
    "a short summary", "the warehouse stock", "every pending request",
)
_TEXT_TAILS = (
    "before noon", "after the outage", "on Tuesday", "in the second quarter",
    "without any delay", "for the new site", "as planned", "once more",
    "by the end of the week", "at the last minute", "with great care",
    "during the night", "in good time", "ahead of the audit",
)
_TEXT_OPENERS = (
    "However,", "In the meantime,", "As expected,", "Later that day,",
    "For this reason,", "Meanwhile,", "After a long discussion,", "Once again,",
    "In short,", "Surprisingly,",
)
_TEXT_ASIDES = (
    "which took longer than expected", "although nobody had asked for it",
    "so that the figures would match", "because the old one had failed",
    "while the rest of the staff were away", "as the manual recommends",
)
# fmt: on


def _sentence(draw: _Draws) -> str:
    words = [
        draw.pick(_TEXT_SUBJECTS),
        draw.pick(_TEXT_VERBS),
        draw.pick(_TEXT_OBJECTS),
    ]
    if draw.below(3):
        words.append(draw.pick(_TEXT_TAILS))
    if draw.below(4) == 0:
        words.append(f"and logged {1 + draw.below(400)} items")
    text = " ".join(words)
    if draw.below(4) == 0:
        text += ", " + draw.pick(_TEXT_ASIDES)
    if draw.below(3) == 0:
        text = draw.pick(_TEXT_OPENERS) + " " + text
    return text[0].upper() + text[1:] + "."


# ------------------------------------------------------------------- records
# A record is built once as a small tree and written either as XML or as JSON, so
# both patterns carry the same business content.


class _Num(str):
    """A leaf value that JSON writes as a number rather than a string."""


_Node = tuple[str, dict[str, str], "str | list[_Node]"]


def _leaf(tag: str, value: str, **attrs: str) -> _Node:
    return (tag, attrs, value)


@dataclass(frozen=True)
class _Party:
    name: str
    email: str
    street: str
    city: str
    postcode: str
    country: str
    phone: str


def _party(draw: _Draws) -> _Party:
    first, last = draw.pick(_FIRST), draw.pick(_LAST)
    city, country = _CITIES[draw.below(len(_CITIES))]
    return _Party(
        name=f"{first} {last}",
        email=f"{first.lower()}.{last.lower()}@{draw.pick(_LAST).lower()}.example",
        street=f"{1 + draw.below(480)} {draw.pick(_STREETS)}",
        city=city,
        postcode=f"{draw.letters(2)}{draw.digits(3)} {draw.digits(1)}{draw.letters(2)}",
        country=country,
        phone=f"+{1 + draw.below(98)} {draw.digits(3)} {draw.digits(3)} {draw.digits(4)}",
    )


def _address(p: _Party) -> _Node:
    return (
        "Address",
        {},
        [
            _leaf("Street", p.street),
            _leaf("City", p.city),
            _leaf("PostCode", p.postcode),
            _leaf("Country", p.country),
        ],
    )


def _iban(draw: _Draws, country: str) -> str:
    return f"{country}{draw.digits(2)}{draw.letters(4)}{draw.digits(14)}"


def _note(draw: _Draws) -> list[_Node]:
    # Half the records carry a free-text remark, as operators' systems often do.
    return [_leaf("Note", _sentence(draw))] if draw.below(2) else []


def _order(draw: _Draws) -> _Node:
    cust = _party(draw)
    currency = draw.pick(_CURRENCIES)
    order_id, status = f"ORD-{draw.digits(8)}", draw.pick(_ORDER_STATUS)
    lines: list[_Node] = []
    total = 0.0
    for no in range(1, 2 + draw.below(4)):
        family, description = _PRODUCTS[draw.below(len(_PRODUCTS))]
        quantity = 1 + draw.below(48)
        price = draw.amount(1, 250)
        amount = float(price) * quantity
        total += amount
        lines.append(
            (
                "Line",
                {"no": str(no)},
                [
                    _leaf("Sku", f"{family}-{draw.digits(5)}"),
                    _leaf("Gtin", draw.digits(13)),
                    _leaf("Description", description),
                    _leaf("Quantity", _Num(quantity)),
                    _leaf("UnitPrice", _Num(price), currency=currency),
                    _leaf("Amount", _Num(f"{amount:.2f}"), currency=currency),
                ],
            )
        )
    customer: _Node = (
        "Customer",
        {"id": f"C{draw.digits(7)}"},
        [
            _leaf("Name", cust.name),
            _leaf("Email", cust.email),
            _leaf("Phone", cust.phone),
            _leaf("VatId", f"{cust.country}{draw.digits(10)}"),
            _address(cust),
        ],
    )
    return (
        "Order",
        {"id": order_id, "status": status},
        [
            _leaf("OrderDate", draw.timestamp()),
            _leaf("ExternalRef", draw.hex(16)),
            customer,
            ("Lines", {}, lines),
            _leaf("Total", _Num(f"{total:.2f}"), currency=currency),
            *_note(draw),
        ],
    )


def _payment(draw: _Draws) -> _Node:
    debtor, creditor = _party(draw), _party(draw)
    attrs = {"id": f"PAY-{draw.digits(10)}", "method": draw.pick(_PAY_METHODS)}
    return (
        "Payment",
        attrs,
        [
            _leaf("ValueDate", draw.date()),
            (
                "Debtor",
                {},
                [
                    _leaf("Name", debtor.name),
                    _leaf("IBAN", _iban(draw, debtor.country)),
                    _leaf("BIC", f"{draw.letters(6)}{draw.digits(2)}"),
                ],
            ),
            (
                "Creditor",
                {},
                [
                    _leaf("Name", creditor.name),
                    _leaf("IBAN", _iban(draw, creditor.country)),
                    _leaf("Phone", creditor.phone),
                    _leaf("VatId", f"{creditor.country}{draw.digits(10)}"),
                    _address(creditor),
                ],
            ),
            _leaf("Amount", _Num(draw.amount(10, 25000)), currency=draw.pick(_CURRENCIES)),
            _leaf("Reference", f"INV-{draw.digits(7)}"),
            _leaf("EndToEndId", draw.hex(20)),
            _leaf("RemittanceInfo", draw.pick(_REMITTANCE)),
            *_note(draw),
        ],
    )


def _booking(draw: _Draws) -> _Node:
    attrs = {"locator": draw.letters(6), "channel": "WEB" if draw.below(3) else "AGENT"}
    created, contact = draw.timestamp(), _party(draw).phone
    passengers: list[_Node] = [
        (
            "Passenger",
            {"type": "ADT" if draw.below(5) else "CHD"},
            [
                _leaf("Name", f"{draw.pick(_FIRST)} {draw.pick(_LAST)}"),
                _leaf("Ticket", draw.digits(13)),
            ],
        )
        for _ in range(1 + draw.below(3))
    ]
    segments: list[_Node] = [
        (
            "Segment",
            {},
            [
                _leaf("Carrier", draw.pick(_CARRIERS)),
                _leaf("Flight", _Num(100 + draw.below(9800))),
                _leaf("From", draw.pick(_AIRPORTS)),
                _leaf("To", draw.pick(_AIRPORTS)),
                _leaf("Departure", draw.timestamp()),
                _leaf("Cabin", draw.pick(_CABINS)),
            ],
        )
        for _ in range(1 + draw.below(3))
    ]
    return (
        "Booking",
        attrs,
        [
            _leaf("Created", created),
            _leaf("Contact", contact),
            ("Passengers", {}, passengers),
            ("Itinerary", {}, segments),
            _leaf("Fare", _Num(draw.amount(40, 3000)), currency=draw.pick(_CURRENCIES)),
            *_note(draw),
        ],
    )


_RECORDS: tuple[Callable[[_Draws], _Node], ...] = (_order, _payment, _booking)
# Containers whose children are a repeated element: arrays in JSON.
_JSON_ARRAYS = frozenset({"Lines", "Passengers", "Itinerary"})


def _to_xml(node: _Node, out: list[str]) -> None:
    # Machine-written XML: one element per line, no indentation (what a queue
    # usually carries; pretty-printing would only add compressible blanks).
    tag, attrs, content = node
    opening = tag + "".join(f' {k}="{v}"' for k, v in attrs.items())
    if isinstance(content, str):
        out.append(f"<{opening}>{content}</{tag}>\n")
    else:
        out.append(f"<{opening}>\n")
        for child in content:
            _to_xml(child, out)
        out.append(f"</{tag}>\n")


def _json_key(tag: str) -> str:
    return tag.lower() if tag.isupper() else tag[0].lower() + tag[1:]


def _json_value(value: str) -> str:
    return value if isinstance(value, _Num) else f'"{value}"'


def _to_json(node: _Node) -> str:
    """The value of a node: attributes become members, a list of one tag an array."""
    tag, attrs, content = node
    members = [f'"{k}":"{v}"' for k, v in attrs.items()]
    if isinstance(content, str):
        if not members:
            return _json_value(content)
        members.append(f'"value":{_json_value(content)}')
    elif tag in _JSON_ARRAYS:
        return "[" + ",".join(_to_json(child) for child in content) + "]"
    else:
        members.extend(f'"{_json_key(child[0])}":{_to_json(child)}' for child in content)
    return "{" + ",".join(members) + "}"


def _xml_record(draw: _Draws) -> str:
    out: list[str] = []
    _to_xml(_RECORDS[draw.below(len(_RECORDS))](draw), out)
    return "".join(out)


def _json_record(draw: _Draws) -> str:
    tag, attrs, content = _RECORDS[draw.below(len(_RECORDS))](draw)
    body = _to_json((tag, {"type": tag.lower(), **attrs}, content))
    return body + ",\n"


# -------------------------------------------------------------------- corpora
@dataclass(frozen=True)
class _Corpus:
    """A byte stream twice over, so any rotation is one slice, plus cut points."""

    data: bytes  # the corpus followed by itself
    size: int  # length of one copy
    cuts: tuple[int, ...]  # record (or sentence) starts within `data`, ascending
    first: int  # where message 0 starts, as an index into cuts (< number per copy)
    stride: int  # coprime with the number of cuts per copy: index -> distinct start


def _corpus_from(pieces: list[str], draw: _Draws) -> _Corpus:
    one = "".join(pieces).encode("ascii")
    starts: list[int] = []
    offset = 0
    for piece in pieces:
        starts.append(offset)
        offset += len(piece)
    count = len(starts)
    stride = 7919 + draw.below(count)
    while math.gcd(stride, count) != 1:
        stride += 1
    cuts = tuple(starts) + tuple(s + len(one) for s in starts) + (2 * len(one),)
    return _Corpus(one + one, len(one), cuts, draw.below(count), stride)


@lru_cache(maxsize=32)
def _records(pattern: str, seed: int) -> _Corpus:
    draw = _Draws(pattern, seed)
    make = _xml_record if pattern == "xml" else _json_record
    pieces: list[str] = []
    total = 0
    while total < _CORPUS_BYTES:
        piece = make(draw)
        pieces.append(piece)
        total += len(piece)
    return _corpus_from(pieces, draw)


@lru_cache(maxsize=32)
def _text(seed: int) -> _Corpus:
    draw = _Draws("text", seed)
    pieces: list[str] = []
    total = 0
    while total < _CORPUS_BYTES:
        # Paragraphs of a few sentences; each sentence is a possible message start.
        count = 3 + draw.below(5)
        for n in range(count):
            piece = _sentence(draw) + ("\n\n" if n == count - 1 else " ")
            pieces.append(piece)
            total += len(piece)
    return _corpus_from(pieces, draw)


@dataclass(frozen=True)
class _Noise:
    """Per-seed random material for message envelopes and the random pattern."""

    raw: bytes  # random bytes, doubled so any rotation is one slice
    b64: str  # base64 text for digests
    stamps: tuple[str, ...]  # creation timestamps, formatted once


@lru_cache(maxsize=32)
def _noise(seed: int) -> _Noise:
    raw = _bytes_stream("random", seed, _CORPUS_BYTES)
    b64 = base64.b64encode(_bytes_stream("b64", seed, 48 * 1024)).decode()
    draw = _Draws("stamps", seed)
    return _Noise(raw + raw, b64, tuple(draw.timestamp() for _ in range(4096)))


def _mix(seed: int, index: int) -> int:
    """A 64-bit hash of (seed, index) for per-message offsets; no Python hash()."""
    x = (seed * 0x9E3779B97F4A7C15 + index * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & ((1 << 64) - 1)
    x ^= x >> 31
    x = (x * 0xD6E8FEB86659FD93) & ((1 << 64) - 1)
    return x ^ (x >> 32)


# ------------------------------------------------------------------- messages
def _window(corpus: _Corpus, index: int, budget: int) -> list[Piece]:
    """Whole records from the index's own start record, at most `budget` bytes, as
    slices of the corpus: one per whole copy of it and one for the rest."""
    per_copy = (len(corpus.cuts) - 1) // 2
    k = (corpus.first + index * corpus.stride) % per_copy
    start = corpus.cuts[k]
    copies, rest = divmod(budget, corpus.size)
    # The last cut at or before start + rest keeps every record whole.
    j = bisect.bisect_right(corpus.cuts, start + rest) - 1
    if not copies:
        return [corpus.data[start : corpus.cuts[j]]]
    # Views, not copies: a 16 MiB document is 32 views of one 512 KiB corpus.
    view = memoryview(corpus.data)
    pieces: list[Piece] = [view[start : start + corpus.size]] * copies
    return [*pieces, view[start : corpus.cuts[j]]]


def _filler(seed: int, index: int, n: int) -> bytes:
    """n bytes of prose on one line, from a sentence start, for a closing remark."""
    if n <= 0:
        return b""
    corpus = _text(seed)
    if n > corpus.size:
        # Only reachable for sizes just above a whole number of record corpora.
        text = (corpus.data[: corpus.size] * (n // corpus.size + 1))[:n]
    else:
        per_copy = (len(corpus.cuts) - 1) // 2
        start = corpus.cuts[_mix(seed, index) % per_copy]
        text = corpus.data[start : start + n]
    # Paragraph breaks would be raw newlines inside a JSON string.
    return text.replace(b"\n", b" ")


@dataclass(frozen=True)
class _Frame:
    """What surrounds the records of one message in one document format."""

    head: str  # str.format fields: seq, message_id, created, digest
    short_head: str  # for messages too small for the header block: seq only
    open_tail: bytes
    close_tail: bytes


_XML_FRAME = _Frame(
    head=(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Batch xmlns="urn:mqtool:batch:1" seq="{seq}">\n'
        "<Header>\n<MessageId>{message_id}</MessageId>\n<Created>{created}</Created>\n"
        '<Digest algorithm="sha-256">{digest}</Digest>\n</Header>\n'
    ),
    short_head='<?xml version="1.0" encoding="UTF-8"?>\n<Batch xmlns="urn:mqtool:batch:1" seq="{seq}">\n',
    open_tail=b"<Remarks>",
    close_tail=b"</Remarks>\n</Batch>\n",
)
_JSON_FRAME = _Frame(
    head=(
        '{{"batch":{{"seq":{seq},"messageId":"{message_id}","created":"{created}",'
        '"digest":{{"algorithm":"sha-256","value":"{digest}"}}}},"records":[\n'
    ),
    short_head='{{"batch":{{"seq":{seq}}},"records":[\n',
    open_tail=b'{"type":"trailer","remarks":"',
    close_tail=b'"}]}\n',
)


def _document(pattern: str, frame: _Frame, size: int, seed: int, index: int) -> list[Piece]:
    """Header, whole records, then a remark whose length makes the size exact."""
    if size >= _SMALL_DOCUMENT:
        noise = _noise(seed)
        h = _mix(seed, index)
        at = h % _CORPUS_BYTES
        digest_at = (h >> 20) % (len(noise.b64) - 43)
        head = frame.head.format(
            seq=index,
            message_id=noise.raw[at : at + 12].hex().upper(),
            created=noise.stamps[(h >> 40) % len(noise.stamps)],
            # A SHA-256 digest is 32 bytes: 43 base64 characters and one pad.
            digest=noise.b64[digest_at : digest_at + 43] + "=",
        ).encode()
    else:
        head = frame.short_head.format(seq=index).encode()
        if size < len(head) + len(frame.open_tail) + len(frame.close_tail):
            # Too small to be well formed: the start of a regular document.
            return [b"".join(_document(pattern, frame, _SMALL_DOCUMENT, seed, index))[:size]]
    budget = size - len(head) - len(frame.open_tail) - len(frame.close_tail)
    records = _window(_records(pattern, seed), index, budget)
    remark = _filler(seed, index, budget - sum(len(piece) for piece in records))
    return [head, *records, frame.open_tail, remark, frame.close_tail]


def _xml(size: int, seed: int, index: int) -> list[Piece]:
    return _document("xml", _XML_FRAME, size, seed, index)


def _json(size: int, seed: int, index: int) -> list[Piece]:
    return _document("json", _JSON_FRAME, size, seed, index)


def _plain_text(size: int, seed: int, index: int) -> list[Piece]:
    corpus = _text(seed)
    per_copy = (len(corpus.cuts) - 1) // 2
    start = corpus.cuts[(corpus.first + index * corpus.stride) % per_copy]
    if size <= corpus.size:
        return [corpus.data[start : start + size]]
    copies, rest = divmod(size, corpus.size)
    view = memoryview(corpus.data)
    pieces: list[Piece] = [view[start : start + corpus.size]] * copies
    return [*pieces, view[start : start + rest]]


def _random(size: int, seed: int, index: int) -> list[Piece]:
    if size > _CORPUS_BYTES // 2:
        # Large random messages get their own stream so that no message repeats
        # itself (a long-window compressor would otherwise find the repeat).
        return [hashlib.shake_256(b"mqtool.payload:random-large:%d:%d" % (seed, index)).digest(size)]
    start = _mix(seed, index) % _CORPUS_BYTES
    return [_noise(seed).raw[start : start + size]]


_FRAMES = {"xml": _XML_FRAME, "json": _JSON_FRAME}


def min_document_size(pattern: str, index: int = 0) -> int:
    """The smallest size at which message `index` is a whole document (0 for text, random).

    110 bytes plus the digits of the index for xml, 64 plus them for json: below
    that a message is the first `size` bytes of a document.
    """
    frame = _FRAMES.get(pattern)
    if frame is None:
        if pattern in PATTERNS:
            return 0
        raise PatternError(f"unknown payload pattern {pattern!r}; expected one of {', '.join(PATTERNS)}")
    return len(frame.short_head.format(seq=index)) + len(frame.open_tail) + len(frame.close_tail)


_GENERATORS: dict[str, Callable[[int, int, int], list[Piece]]] = {
    "xml": _xml,
    "json": _json,
    "text": _plain_text,
    "random": _random,
}


def generate(pattern: str, size: int, seed: int = 0, index: int = 0) -> bytes:
    """Message number `index` of the stream (pattern, seed): exactly `size` bytes."""
    pieces = generate_pieces(pattern, size, seed, index)
    if len(pieces) == 1 and isinstance(pieces[0], bytes):
        return pieces[0]
    return b"".join(pieces)


def generate_pieces(pattern: str, size: int, seed: int = 0, index: int = 0) -> list[Piece]:
    """`generate()` in pieces whose concatenation is the message, for streaming it.

    The bulk of a large xml, json or text message is views of the generator's
    shared corpora (512 KiB each), so a 16 MiB document costs no memory of its
    own; a large random message is one piece of its full size.
    """
    try:
        make = _GENERATORS[pattern]
    except (KeyError, TypeError):
        raise PatternError(f"unknown payload pattern {pattern!r}; expected one of {', '.join(PATTERNS)}") from None
    if size < 0:
        raise PatternError(f"payload size must be 0 or more, not {size}")
    if size == 0:
        return [b""]
    return make(size, seed, index)
