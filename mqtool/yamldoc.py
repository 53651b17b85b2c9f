"""The one YAML reader of mqtool (keyword tables, `apply` documents, rest.yaml): MQ's
words stay words, merge keys (`<<`) give the same keys in the same order whatever PyYAML
release or loader (C or pure Python) reads them, and aliases are bounded.

Why our own merge: PyYAML 6.0.4 changed the order in which `<<: [*a, *b]` lays out the
merged keys (6.0.3 put the last mapping's keys first), and that order is the order of
keywords in `.help`, completion, man pages and displays. Here it is defined:

- the mappings named by `<<` contribute their keys in the order they are listed, each
  key where it first appears; a key of an earlier mapping wins over a later one;
- then the mapping's own keys, in document order; a key of its own replaces a merged
  value in place (it keeps the merged key's position).

Aliases: a document may use anchors and aliases, but what they expand to is bounded
(`ALIAS_BUDGET`), and an alias inside the node it names is refused: a few hundred bytes
of nested aliases would otherwise expand to gigabytes.
"""

from __future__ import annotations

import functools
from typing import Any

# How many nodes aliases may add to a document beyond the nodes written out:
# ALIAS_FACTOR times the nodes written, plus ALIAS_ALLOWANCE.
ALIAS_FACTOR = 10
ALIAS_ALLOWANCE = 10_000
# Levels of nesting (mappings and sequences inside each other) a document may have.
MAX_DEPTH = 64
# An integer scalar longer than this is refused (Python's int() refuses 4,300 digits).
MAX_NUMBER_CHARS = 100

MERGE_TAG = "tag:yaml.org,2002:merge"


class AliasBudgetError(Exception):
    """The document's aliases expand too far, or an alias names a node that holds it."""

    def __init__(self, text: str, line: int = 1, column: int = 1) -> None:
        super().__init__(text)
        self.text = text
        self.line = line
        self.column = column


def loader_class(pure: bool = False) -> Any:
    """The loader (C-accelerated when libyaml is there, unless `pure`)."""
    return _loader_class(pure or not _has_libyaml())


def _has_libyaml() -> bool:
    import yaml

    return getattr(yaml, "CSafeLoader", None) is not None


@functools.cache
def _loader_class(pure: bool) -> Any:
    import yaml
    from yaml.composer import ComposerError
    from yaml.constructor import ConstructorError

    base = yaml.SafeLoader if pure else yaml.CSafeLoader

    class WordLoader(base):  # type: ignore[misc, valid-type]
        """A safe loader that keeps YES/NO/ON/OFF as words (MQ values, not booleans)
        and merges keys in mqtool's own defined order."""

        def flatten_mapping(self, node: Any) -> None:
            node.value = merged_pairs(node, ConstructorError)

        def compose_node(self, parent: Any, index: Any) -> Any:
            # The pure-Python composer recurses once per level: bounded here before
            # Python's recursion limit (libyaml stops at 1,000 levels by itself).
            self.mqtool_depth = getattr(self, "mqtool_depth", 0) + 1
            try:
                if self.mqtool_depth > MAX_DEPTH:
                    mark = self.peek_event().start_mark
                    raise ComposerError(None, None, f"more than {MAX_DEPTH} levels of nesting", mark)
                return super().compose_node(parent, index)
            finally:
                self.mqtool_depth -= 1

        def construct_yaml_int(self, node: Any) -> Any:
            text = str(node.value)
            if len(text) > MAX_NUMBER_CHARS:
                raise ConstructorError(
                    None, None, f"a number of more than {MAX_NUMBER_CHARS} characters", node.start_mark
                )
            return super().construct_yaml_int(node)

    WordLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    WordLoader.add_constructor("tag:yaml.org,2002:int", WordLoader.construct_yaml_int)
    return WordLoader


def merged_pairs(node: Any, error: type[Exception]) -> list[tuple[Any, Any]]:
    """The (key node, value node) pairs of a mapping node with its merge keys resolved
    in mqtool's order (module docstring). Keys are compared by their scalar text."""
    import yaml

    merged: dict[Any, tuple[Any, Any]] = {}
    own: list[tuple[Any, Any]] = []
    for key_node, value_node in node.value:
        if key_node.tag != MERGE_TAG:
            if key_node.tag == "tag:yaml.org,2002:value":
                key_node.tag = "tag:yaml.org,2002:str"
            own.append((key_node, value_node))
            continue
        sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                raise error(
                    "while constructing a mapping",
                    node.start_mark,
                    f"expected a mapping or list of mappings for merging, but found {source.id}",
                    source.start_mark,
                )
            for pair in merged_pairs(source, error):
                merged.setdefault(_identity(pair[0]), pair)
    if not merged:
        return own
    for pair in own:
        merged[_identity(pair[0])] = pair  # replaces in place, or appends
    return list(merged.values())


def _identity(key_node: Any) -> Any:
    import yaml

    if isinstance(key_node, yaml.ScalarNode):
        return (key_node.tag, key_node.value)
    return ("node", id(key_node))


def check_aliases(root: Any) -> None:
    """Refuses a composed document whose aliases expand beyond the budget, that holds
    an alias inside the node it names, or that nests deeper than MAX_DEPTH levels
    (aliases followed: the constructor recurses once per level). Linear in the nodes written: the expanded size of
    each node is counted once (aliases share nodes)."""
    import yaml

    written: set[int] = set()
    expanded: dict[int, int] = {}
    open_nodes: set[int] = set()
    height: dict[int, int] = {}  # levels from a node down to its deepest scalar, aliases followed
    # An explicit stack (no recursion): ("enter", node) then ("leave", node).
    stack: list[tuple[bool, Any]] = [(True, root)]
    while stack:
        entering, node = stack.pop()
        key = id(node)
        if entering:
            if key in expanded:
                continue
            if key in open_nodes:
                mark = node.start_mark
                raise AliasBudgetError("an alias refers to a node that contains it", mark.line + 1, mark.column + 1)
            written.add(key)
            open_nodes.add(key)
            stack.append((False, node))
            for child in _children(node, yaml):
                if id(child) in open_nodes:
                    mark = child.start_mark
                    raise AliasBudgetError("an alias refers to a node that contains it", mark.line + 1, mark.column + 1)
                if id(child) not in expanded:
                    stack.append((True, child))
        else:
            open_nodes.discard(key)
            children = _children(node, yaml)
            expanded[key] = 1 + sum(expanded[id(child)] for child in children)
            height[key] = 1 + max((height[id(child)] for child in children), default=0)
            if height[key] > MAX_DEPTH:
                mark = node.start_mark
                raise AliasBudgetError(f"more than {MAX_DEPTH} levels of nesting", mark.line + 1, mark.column + 1)
    budget = ALIAS_FACTOR * len(written) + ALIAS_ALLOWANCE
    if expanded[id(root)] > len(written) + budget:
        raise AliasBudgetError(
            f"its aliases expand to {expanded[id(root)]:,} nodes from {len(written):,} written "
            f"(at most {len(written) + budget:,}): write the repeated parts out, or use fewer aliases"
        )


def _children(node: Any, yaml: Any) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def compose(text: str, pure: bool = False) -> tuple[Any, Any]:
    """(loader, root node) of a one-document text, aliases checked; the caller disposes
    of the loader. Raises yaml.YAMLError or AliasBudgetError."""
    loader = loader_class(pure)(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            check_aliases(node)
    except BaseException:
        loader.dispose()
        raise
    return loader, node


def load(text: str, pure: bool = False) -> Any:
    """Plain values of a one-document text (None when it is empty)."""
    loader, node = compose(text, pure)
    try:
        return None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()
