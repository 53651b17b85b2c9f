"""Distinguished names as IBM MQ matches them for SSLPEER (on channels and in CHLAUTH
SSLPEERMAP records) and SSLCERTI.

A peer-name pattern is `TYPE=value` elements separated by commas or semicolons, with
IBM's rules ("IBM MQ rules for SSLPEER values"):

- attribute types in upper case, IBM's names: SERIALNUMBER, MAIL, E, UID (or USERID),
  CN, T, OU, DC, O, STREET, L, ST (or SP, S), PC, C, UNSTRUCTUREDNAME,
  UNSTRUCTUREDADDRESS, DNQ; no space between the type and `=`;
- blanks around separators are ignored; a value may be in double quotes (then commas,
  semicolons and asterisks in it are plain characters, and `""` is one quote); outside
  quotes a backslash takes the next character as it is;
- values match whatever their case;
- `*` at the start or the end of a value (or both) is a wildcard for any characters; a
  value of `*` alone matches any value; an asterisk elsewhere is refused (inferred: IBM
  documents prefix and suffix wildcards only);
- the order of the elements does not matter, except that OU (and DC) may repeat and
  then match the certificate's first OUs (DCs) in order: `OU=IBM,OU=MQ` needs the first
  OU to be IBM and the second MQ;
- an attribute the pattern does not name is not checked; one it names must be there.

A certificate's name (`of_certificate`) is IBM's form of it: SERIALNUMBER first (the
certificate's serial number as colon-separated hex), then the subject's attributes from
the most specific (CN) to the least (C), as DISPLAY CHSTATUS SSLPEER shows it.
Everything here is bounded: MAX_TEXT characters and MAX_ATTRIBUTES elements.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_TEXT = 1024  # IBM: SSLPEER in CHLAUTH records (channels on z/OS: 256, the keyword table says)
MAX_ATTRIBUTES = 64  # elements in one pattern or name (mqtool's bound)
TYPES = (
    "SERIALNUMBER", "MAIL", "E", "UID", "CN", "T", "OU", "DC", "O", "STREET", "L", "ST", "PC", "C",
    "UNSTRUCTUREDNAME", "UNSTRUCTUREDADDRESS", "DNQ",
)  # fmt: skip
SYNONYMS = {"USERID": "UID", "SP": "ST", "S": "ST"}
REPEATABLE = ("OU", "DC")


class DNError(ValueError):
    """A pattern or name that does not follow the rules; `attribute` names the element
    at fault (CSQX640E shows it), `reason` says what is wrong."""

    def __init__(self, reason: str, attribute: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.attribute = attribute


@dataclass(frozen=True)
class Name:
    """A distinguished name: (type, value) pairs in display order (most specific first)."""

    attributes: tuple[tuple[str, str], ...]

    def values(self, kind: str) -> list[str]:
        return [value for name, value in self.attributes if name == kind]

    def text(self) -> str:
        """IBM's display form: TYPE=value joined by commas, special characters escaped."""
        return ",".join(f"{kind}={_escape(value)}" for kind, value in self.attributes)

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class Element:
    kind: str
    value: str  # folded to upper case, without its wildcards
    prefix: bool = False  # `*` before the value: it may start with anything
    suffix: bool = False  # `*` after the value: it may end with anything

    def matches(self, value: str) -> bool:
        candidate = value.upper()
        if self.prefix and self.suffix:
            return self.value in candidate
        if self.prefix:
            return candidate.endswith(self.value)
        if self.suffix:
            return candidate.startswith(self.value)
        return candidate == self.value


@dataclass(frozen=True)
class Pattern:
    """A parsed SSLPEER or SSLCERTI value."""

    elements: tuple[Element, ...]
    text: str

    def matches(self, name: Name) -> bool:
        """Whether a certificate's name passes the pattern."""
        for kind in {element.kind for element in self.elements}:
            wanted = [element for element in self.elements if element.kind == kind]
            have = name.values(kind)
            if len(have) < len(wanted):
                return False
            # OU and DC in order against the name's first ones; other types once each.
            if not all(element.matches(value) for element, value in zip(wanted, have, strict=False)):
                return False
        return True

    def specificity(self) -> tuple[int, int]:
        """How specific the pattern is (more elements, then fewer wildcards, win): CHLAUTH
        prefers the most specific SSLPEERMAP record."""
        wild = sum(int(e.prefix) + int(e.suffix) for e in self.elements)
        fixed = sum(len(e.value) for e in self.elements)
        return (len(self.elements), fixed - 1000 * wild)


def _escape(value: str) -> str:
    out = []
    for index, char in enumerate(value):
        if char in ',;+"\\<>=' or (char in " #" and index == 0) or (char == " " and index == len(value) - 1):
            out.append("\\")
        out.append(char)
    return "".join(out)


def _split(text: str) -> list[tuple[str, str, bool]]:
    """(type, raw value, quoted) per element; raw values keep their unescaped asterisks
    as '\\x00' markers so that escaped ones stay plain."""
    if len(text) > MAX_TEXT:
        raise DNError(f"longer than {MAX_TEXT} characters")
    elements: list[tuple[str, str, bool]] = []
    pos, size = 0, len(text)
    while True:
        while pos < size and text[pos] == " ":
            pos += 1
        if pos >= size:
            if elements:
                raise DNError("ends with a separator")
            raise DNError("no attribute")
        equals = text.find("=", pos)
        if equals < 0:
            raise DNError(f"'{text[pos : pos + 32]}' is not TYPE=value", text[pos : pos + 32])
        kind = text[pos:equals]
        if kind != kind.rstrip() or not kind:
            raise DNError("a blank before '='", kind.strip())
        if len(elements) >= MAX_ATTRIBUTES:
            raise DNError(f"more than {MAX_ATTRIBUTES} attributes")
        pos = equals + 1
        while pos < size and text[pos] == " ":
            pos += 1
        value: list[str] = []
        quoted = pos < size and text[pos] == '"'
        if quoted:
            pos += 1
            while True:
                if pos >= size:
                    raise DNError("a quoted value is not closed", kind)
                if text[pos] == '"':
                    if pos + 1 < size and text[pos + 1] == '"':
                        value.append('"')
                        pos += 2
                        continue
                    pos += 1
                    break
                value.append(text[pos])
                pos += 1
            while pos < size and text[pos] == " ":
                pos += 1
            if pos < size and text[pos] not in ",;":
                raise DNError("text after a quoted value", kind)
        else:
            while pos < size and text[pos] not in ",;":
                char = text[pos]
                if char == "\\":
                    if pos + 1 >= size:
                        raise DNError("a backslash at the end", kind)
                    value.append(text[pos + 1])
                    pos += 2
                    continue
                value.append("\x00" if char == "*" else char)
                pos += 1
            while value and value[-1] == " ":
                value.pop()
        elements.append((kind, "".join(value), quoted))
        if pos >= size:
            return elements
        pos += 1  # the separator


def _kind(kind: str) -> str:
    if kind != kind.upper():
        raise DNError(f"attribute type {kind} must be in upper case", kind)
    kind = SYNONYMS.get(kind, kind)
    if kind not in TYPES:
        raise DNError(f"{kind} is not an attribute type IBM MQ matches", kind)
    return kind


def parse_pattern(text: str) -> Pattern:
    """An SSLPEER or SSLCERTI value; DNError when it breaks the rules."""
    elements = []
    seen: set[str] = set()
    for raw_kind, raw, quoted in _split(text):
        kind = _kind(raw_kind)
        if kind in seen and kind not in REPEATABLE:
            raise DNError(f"{kind} appears more than once", kind)
        seen.add(kind)
        prefix = not quoted and raw.startswith("\x00")
        suffix = not quoted and len(raw) > int(prefix) and raw.endswith("\x00")
        body = raw[int(prefix) : len(raw) - int(suffix)] if not quoted else raw
        if "\x00" in body:
            raise DNError(f"a wildcard * inside the value of {kind}: only at its start or end", kind)
        if not body and not prefix:
            raise DNError(f"{kind} has no value", kind)
        elements.append(Element(kind, body.replace("\x00", "*").upper(), prefix, suffix))
    return Pattern(tuple(elements), text)


def parse_name(text: str) -> Name:
    """A distinguished name written as text (RUNCHECK's SSLPEER, a DN shown by mqtool):
    the same syntax as a pattern, without wildcards."""
    attributes = []
    for raw_kind, raw, _quoted in _split(text):
        kind = _kind(raw_kind)
        attributes.append((kind, raw.replace("\x00", "*")))
    return Name(tuple(attributes))


def of_certificate(subject: tuple[tuple[str, str], ...], serial: str = "") -> Name:
    """IBM's form of a certificate's subject (x509.Certificate.subject, in encoding
    order): SERIALNUMBER first when given, then the attributes from CN down to C."""
    attributes = [("SERIALNUMBER", serial)] if serial else []
    attributes += [(kind, value) for kind, value in reversed(subject)]
    return Name(tuple(attributes))


def matches(pattern: str, name: Name) -> bool:
    """Whether `name` passes the SSLPEER value `pattern`; DNError when the pattern is invalid."""
    return parse_pattern(pattern).matches(name)
