"""The topic tree as data and pure functions: topic strings and their levels, the two
wildcard schemes of subscriptions (WSCHEMA(TOPIC): `#` any number of whole levels,
`+` exactly one; WSCHEMA(CHAR): `*` any characters, `?` one), the WILDCARD(BLOCK) rule
of topic objects, how TOPICOBJ and TOPICSTR combine, and the ASPARENT inheritance of
topic attributes along the tree, ending at SYSTEM.BASE.TOPIC.

Nothing here touches the store: callers pass the topic objects they read (a mapping of
topic string to the object's attributes)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

SEPARATOR = "/"
MULTI = "#"  # WSCHEMA(TOPIC): any number of levels, zero included
SINGLE = "+"  # WSCHEMA(TOPIC): exactly one level
MAX_LENGTH = 10240  # MQ_TOPIC_STR_LENGTH
BASE_TOPIC = "SYSTEM.BASE.TOPIC"
DEFAULT_TOPIC = "SYSTEM.DEFAULT.TOPIC"
DEFAULT_SUB = "SYSTEM.DEFAULT.SUB"
ASPARENT = "ASPARENT"

# SYSTEM.BASE.TOPIC as IBM ships it: the values every ASPARENT ends at.
BASE_ATTRS: dict[str, Any] = {
    "TOPICSTR": "",
    "DESCR": "Base topic for resolving attributes",
    "CLUSTER": "",
    "CLROUTE": "DIRECT",
    "DURSUB": "YES",
    "PUB": "ENABLED",
    "SUB": "ENABLED",
    "DEFPSIST": "NO",
    "DEFPRTY": 0,
    "DEFPRESP": "SYNC",
    "PMSGDLV": "ALLDUR",
    "NPMSGDLV": "ALLAVAIL",
    "PUBSCOPE": "ALL",
    "SUBSCOPE": "ALL",
    "PROXYSUB": "FIRSTUSE",
    "WILDCARD": "PASSTHRU",
    "MDURMDL": "SYSTEM.DURABLE.MODEL.QUEUE",
    "MNDURMDL": "SYSTEM.NDURABLE.MODEL.QUEUE",
    "USEDLQ": "YES",
    "CUSTOM": "",
    "CAPEXPRY": "NOLIMIT",
}
# Attributes a topic node takes from its nearest topic object when that says ASPARENT
# (or blank, for the two model queue names and the cluster).
INHERITED = (
    "CLUSTER",
    "CLROUTE",
    "DURSUB",
    "PUB",
    "SUB",
    "DEFPSIST",
    "DEFPRTY",
    "DEFPRESP",
    "PMSGDLV",
    "NPMSGDLV",
    "PUBSCOPE",
    "SUBSCOPE",
    "MDURMDL",
    "MNDURMDL",
    "USEDLQ",
    "CAPEXPRY",
)
_BLANK_MEANS_PARENT = ("MDURMDL", "MNDURMDL", "CLUSTER")


class TopicError(ValueError):
    """A topic string that cannot be used (MQRC 2425 MQRC_TOPIC_STRING_ERROR)."""


def levels(topic: str) -> list[str]:
    """The levels of a topic string: `a/b` has two, `/a` has two (the first empty)."""
    return topic.split(SEPARATOR)


def check_topic(topic: str, publishing: bool) -> None:
    """TopicError when a topic string cannot be published to or subscribed with: too long,
    a control character, or (publishing) a wildcard level (`#` or `+` alone in a level)."""
    if len(topic) > MAX_LENGTH:
        raise TopicError(f"the topic string is longer than {MAX_LENGTH} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in topic):
        raise TopicError("the topic string contains a control character")
    if publishing and any(level in (MULTI, SINGLE) for level in levels(topic)):
        raise TopicError(f"a publication's topic string has no wildcards: {topic!r}")


def combine(object_topic: str, topic: str) -> str:
    """The full topic string of TOPICOBJ and TOPICSTR together, as MQSUB and MQOPEN make
    it: the object's string, a `/`, then the given one; either alone when the other is
    blank."""
    if not object_topic:
        return topic
    if not topic:
        return object_topic
    return f"{object_topic}{SEPARATOR}{topic}"


def is_wildcard(topic: str, schema: str = "TOPIC") -> bool:
    """Whether a subscription's topic string has a wildcard in its scheme."""
    if schema == "CHAR":
        return "*" in topic or "?" in topic
    return any(level in (MULTI, SINGLE) for level in levels(topic))


def first_wildcard_level(topic: str, schema: str = "TOPIC") -> int | None:
    """The index of the first level of a subscription's topic string that holds a
    wildcard, None for none."""
    for index, level in enumerate(levels(topic)):
        if schema == "CHAR":
            if "*" in level or "?" in level:
                return index
        elif level in (MULTI, SINGLE):
            return index
    return None


def _match_levels(pattern: list[str], topic: list[str]) -> bool:
    """WSCHEMA(TOPIC) matching, level by level, without recursion blow-up: `#` matches
    any run of levels (zero included), `+` one level, anything else itself."""
    # Dynamic programming over (pattern index, topic index): at most len*len states.
    reach = {0}
    for part in pattern:
        following: set[int] = set()
        if part == MULTI:
            low = min(reach)
            following = set(range(low, len(topic) + 1))
        else:
            for at in reach:
                if at < len(topic) and (part == SINGLE or part == topic[at]):
                    following.add(at + 1)
        if not following:
            return False
        reach = following
    return len(topic) in reach


def _match_chars(pattern: str, topic: str) -> bool:
    """WSCHEMA(CHAR): `*` any characters (across levels), `?` one character; `%` escapes
    the next character, as IBM's character scheme has it."""
    tokens: list[tuple[str, str]] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "%" and index + 1 < len(pattern):
            tokens.append(("lit", pattern[index + 1]))
            index += 2
            continue
        tokens.append(("any" if char == "*" else "one" if char == "?" else "lit", char))
        index += 1
    reach = {0}
    for kind, char in tokens:
        following: set[int] = set()
        if kind == "any":
            following = set(range(min(reach), len(topic) + 1))
        else:
            for at in reach:
                if at < len(topic) and (kind == "one" or topic[at] == char):
                    following.add(at + 1)
        if not following:
            return False
        reach = following
    return len(topic) in reach


def matches(pattern: str, topic: str, schema: str = "TOPIC") -> bool:
    """Whether a subscription's topic string (in its wildcard scheme) matches a
    publication's topic string."""
    if schema == "CHAR":
        return _match_chars(pattern, topic)
    return _match_levels(levels(pattern), levels(topic))


def blocked(pattern: str, topic: str, schema: str, blockers: Iterable[str]) -> bool:
    """WILDCARD(BLOCK): a wildcard subscription does not receive a publication on or
    below a blocking topic object's string when its first wildcard stands at or above
    that topic's last level (it is less specific than the blocking topic)."""
    first = first_wildcard_level(pattern, schema)
    if first is None:
        return False
    topic_levels = levels(topic)
    for blocker in blockers:
        blocker_levels = levels(blocker)
        if topic_levels[: len(blocker_levels)] == blocker_levels and first < len(blocker_levels):
            return True
    return False


@dataclass(frozen=True)
class Node:
    """A topic node's resolved attributes and the topic object that administers it."""

    topic: str
    admin: str  # the name of the topic object whose TOPICSTR is exactly this node, or ""
    attrs: dict[str, Any]
    blockers: tuple[str, ...]  # topic strings of WILDCARD(BLOCK) objects at or above the node


def ancestors(topic: str) -> list[str]:
    """The node and the nodes above it, nearest first: `a/b/c`, `a/b`, `a`."""
    parts = levels(topic)
    return [SEPARATOR.join(parts[:length]) for length in range(len(parts), 0, -1)]


def resolve(topic: str, objects: Mapping[str, tuple[str, Mapping[str, Any]]]) -> Node:
    """The attributes of topic node `topic`: each ASPARENT (or blank model queue name)
    taken from the nearest topic object above it, ending at SYSTEM.BASE.TOPIC (IBM's
    shipped values when it is missing). `objects`: topic string -> (object name,
    attributes) of the queue manager's topic objects, SYSTEM.BASE.TOPIC under ""."""
    chain = [objects[node] for node in ancestors(topic) if node and node in objects]
    base = objects.get("")
    base_attrs = dict(BASE_ATTRS) | (dict(base[1]) if base is not None else {})
    values: dict[str, Any] = {}
    for keyword in INHERITED:
        chosen: Any = None
        for _name, attrs in chain:
            value = attrs.get(keyword, ASPARENT)
            if value == ASPARENT or (keyword in _BLANK_MEANS_PARENT and value in ("", None)):
                continue
            chosen = value
            break
        if chosen is None:
            chosen = base_attrs.get(keyword, BASE_ATTRS.get(keyword))
            if chosen == ASPARENT:  # SYSTEM.BASE.TOPIC cannot say ASPARENT; IBM's value then
                chosen = BASE_ATTRS.get(keyword)
        values[keyword] = chosen
    admin = objects[topic][0] if topic and topic in objects else (base[0] if base is not None and not topic else "")
    blockers = tuple(
        node for node in ancestors(topic) if node in objects and objects[node][1].get("WILDCARD") == "BLOCK"
    )
    return Node(topic, admin, values, blockers)
