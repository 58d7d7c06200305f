"""Safe, bounded YAML: plain data, and the line and column of any value when an error needs it.

PyYAML's composer keeps an alias as a reference to the one node it names, so composing is cheap; the
danger (a "billion laughs" alias bomb) is in *expanding* the graph into Python objects. We expand it
ourselves and stop at a budget, so a hostile file is refused in milliseconds. Positions are worked
out from the same node tree only when something must be reported, so a valid 10,000-event scenario
does not pay for them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

# libyaml's parser when PyYAML was built with it: composing is 6× faster than the pure-Python one
_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_STR_TAG: str = _BaseLoader.DEFAULT_SCALAR_TAG  # "tag:yaml.org,2002:str"
_MAP_TAG: str = _BaseLoader.DEFAULT_MAPPING_TAG
_SEQ_TAG: str = _BaseLoader.DEFAULT_SEQUENCE_TAG
_INT_TAG = "tag:yaml.org,2002:int"


class _Loader(_BaseLoader):  # type: ignore[valid-type,misc]
    """The composer asks ``resolve`` for the tag of every untagged node (50,000 calls for a 10,000-event
    scenario), and PyYAML's answer for a plain scalar tries a list of regular expressions each time. That
    answer depends only on the node's kind and, for a plain scalar, its text: so a quoted scalar is a str
    and a collection has its default tag straight away, and a plain scalar's tag is worked out once per
    text. The same tags by the same YAML 1.1 rules; composing takes 12 ms less (of 70)."""

    def __init__(self, stream: str, values: int = sys.maxsize) -> None:
        super().__init__(stream)
        self._plain_tags: dict[str, str] = {}
        # every untagged value is resolved as it is composed: counting here stops a file of too many
        # values after ``values`` of them, not after its whole tree is built
        self._values_left = values
        self.counts_values = not self.yaml_path_resolvers
        if self.yaml_path_resolvers:  # PyYAML's path resolvers see more than kind and text: ask it
            self.resolve = super().resolve  # type: ignore[method-assign]

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: tuple[bool, bool]) -> str:
        self._values_left -= 1
        if self._values_left < 0:
            raise _TooManyValues
        if kind is yaml.ScalarNode:
            if not implicit[0]:  # quoted, or tagged "!"
                return _STR_TAG
            tag = self._plain_tags.get(value)
            if tag is None:
                tag = self._plain_tags[value] = str(super().resolve(kind, value, implicit))
            return tag
        if kind is yaml.MappingNode:
            return _MAP_TAG
        if kind is yaml.SequenceNode:
            return _SEQ_TAG
        return str(super().resolve(kind, value, implicit))


class _TooManyValues(Exception):
    """Raised while composing; ``parse_yaml`` then locates the value over the cap."""


Path_ = tuple[str | int, ...]
Positions = dict[Path_, tuple[int, int]]
Problem = tuple[tuple[int, int], str]  # (line, column), message
_SCALAR_TAGS = ("str", "int", "float", "bool", "null", "timestamp", "binary")


@dataclass(frozen=True)
class YamlLimits:
    max_bytes: int = 16_000_000  # a 100,000-event scenario is about 3.5 MB
    max_depth: int = 64
    max_nodes: int = 1_000_000
    max_alias_expansion: int = 10_000  # values reached again through an alias


class YamlError(ValueError):
    """``syntax``: a YAML syntax error at ``line`` (the rest of the file can still be checked without it)."""

    def __init__(self, line: int, column: int, message: str, *, syntax: bool = False) -> None:
        super().__init__(message)
        self.line, self.column, self.message, self.syntax = line, column, message, syntax


# PyYAML's words for the usual mistakes, and what they mean for someone writing a scenario
_PLAIN: tuple[tuple[str, str], ...] = (
    ("expected '-' indicator", "this line is indented differently from the list items above it"),
    ("expected '<document start>'", "this line is not indented under a key, and is not a key itself"),
    (
        "mapping values are not allowed",
        "a ':' where none may be: indent the line under its key, or quote text that has ': ' in it",
    ),
    ("could not find expected ':'", "a key without its ':', or a line that belongs indented under the one above"),
    ("did not find expected key", "this line is indented differently from the keys above it"),
    ("did not find expected node content", "a value is missing, or a bracket or quote is not closed"),
    ("found unexpected end of stream", "the file ends inside a quote or a bracket: close it"),
    ("did not find expected ',' or ']'", "a list in brackets [ ] is not closed, or lacks a ','"),
    ("did not find expected ',' or '}'", "a mapping in braces { } is not closed, or lacks a ','"),
    ("found character '\\t'", "a tab character: YAML indents with spaces only"),
    ("found undefined alias", "an alias (*name) with no anchor (&name) before it"),
    ("found duplicate anchor", "the same anchor (&name) twice"),
)


def plain_words(problem: str) -> str:
    """A YAML syntax problem in words a scenario's author knows (PyYAML's own when none fits)."""
    return next((plain for words, plain in _PLAIN if words in problem), f"not valid YAML: {problem}")


@dataclass
class Document:
    """A parsed document: its data, and the positions of its values (computed on first use)."""

    data: Any
    root: yaml.Node | None
    _positions: Positions | None = field(default=None, repr=False)
    duplicates: list[Problem] = field(default_factory=list)  # keys given twice in one mapping

    def locate(self, path: Path_) -> tuple[int, int]:
        """The 1-based (line, column) of ``path``, or of its nearest ancestor that has one."""
        if self._positions is None:
            self._positions = _positions(self.root)
        for end in range(len(path), -1, -1):
            if path[:end] in self._positions:
                return self._positions[path[:end]]
        return (1, 1)


def parse_yaml(text: str, limits: YamlLimits = YamlLimits()) -> Document:
    if len(text.encode("utf-8", errors="replace")) > limits.max_bytes:
        raise YamlError(1, 1, f"file is larger than {limits.max_bytes:,} bytes; a scenario is refused above that")
    loader = _Loader(text, limits.max_nodes)
    # a value takes at least a character, so only a longer text can hold too many; a tagged value ("!")
    # is never resolved, so it is not counted while composing: count them all from the events first
    if len(text) > limits.max_nodes and ("!" in text or not loader.counts_values):
        _refuse_too_many_values(text, limits)
    try:
        root = loader.get_single_node()
    except _TooManyValues:
        _refuse_too_many_values(text, limits)  # raises, with the place of the value over the cap
        raise YamlError(1, 1, f"more than {limits.max_nodes:,} values; refused") from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        if error.context_mark is not None and mark is not None and mark.index >= len(text.rstrip()):
            mark = error.context_mark  # at the file's end: where the quote or bracket left open starts
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        if mark is not None and _tab_at(text, mark.line, mark.column):
            message = "a tab character: YAML indents with spaces only; replace it with spaces"
            raise YamlError(line, column, message, syntax=True) from None
        raise YamlError(line, column, plain_words(str(error.problem or error)), syntax=mark is not None) from None
    except yaml.YAMLError as error:
        raise YamlError(1, 1, f"not valid YAML: {error}") from None
    if root is None:
        return Document(None, None)
    duplicates: list[Problem] = []
    # without an anchor (an "&") there can be no alias, so every node is reached once: the quick walk
    data = _build_tree(loader, root, limits) if "&" not in text else _UNBUILT
    if data is _UNBUILT:
        data = _build(loader, root, limits, duplicates)
    return Document(data, root, duplicates=duplicates)


_VALUE_EVENTS = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent, yaml.AliasEvent)


def _refuse_too_many_values(text: str, limits: YamlLimits) -> None:
    """Count the values from the parser's events, one at a time, before anything is composed: the
    composed tree of a 15 MB file of small values takes over 1 GB before ``_build`` could count it."""
    parser = _BaseLoader(text)
    values = 0
    try:
        while (event := parser.get_event()) is not None:  # type: ignore[no-untyped-call]
            if isinstance(event, _VALUE_EVENTS):
                values += 1
                if values > limits.max_nodes:
                    line, column = (
                        (event.start_mark.line + 1, event.start_mark.column + 1) if event.start_mark else (1, 1)
                    )
                    raise YamlError(line, column, f"more than {limits.max_nodes:,} values; refused")
    except yaml.YAMLError:
        return  # a syntax error: composing reports it, located
    finally:
        parser.dispose()


def _tab_at(text: str, line: int, column: int) -> bool:
    lines = text.splitlines()
    if not 0 <= line < len(lines):
        return False
    # libyaml reports the token after the tab, or the tab itself, depending on where it sits
    return "\t" in lines[line][max(0, column - 1) : column + 1] or lines[line][: column + 1].strip(" ") == "\t"


# what PyYAML's scalar constructors raise for a value their tag cannot hold
_CONSTRUCTOR_ERRORS = (ValueError, TypeError, OverflowError, yaml.YAMLError)
_FLATTENED_TAGS = ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value")  # keys flatten_mapping rewrites


def _build(loader: yaml.SafeLoader, root: yaml.Node, limits: YamlLimits, duplicates: list[Problem]) -> Any:
    nodes_left, aliased_left = limits.max_nodes, limits.max_alias_expansion
    built: set[int] = set()
    constructors: dict[Any, Callable[[yaml.SafeLoader, yaml.Node], Any]] = loader.yaml_constructors
    scalar, mapping = yaml.ScalarNode, yaml.MappingNode

    def refuse(node: yaml.Node, message: str) -> YamlError:
        return YamlError(node.start_mark.line + 1, node.start_mark.column + 1, message)

    # Called once per value (500,000 times for a 100,000-event scenario): plain strings, most values,
    # skip PyYAML's constructor, and merge keys are flattened only where a mapping has one.
    def build(node: yaml.Node, depth: int, aliased: bool) -> Any:
        nonlocal nodes_left, aliased_left
        ident = id(node)
        if ident in built:
            aliased = True
        else:
            built.add(ident)
        nodes_left -= 1
        if aliased:
            aliased_left -= 1
            if aliased_left < 0:
                raise refuse(node, f"more than {limits.max_alias_expansion:,} values repeated through aliases; refused")
        if nodes_left < 0:
            raise refuse(node, f"more than {limits.max_nodes:,} values; refused")
        if depth > limits.max_depth:
            raise refuse(node, f"nested deeper than {limits.max_depth} levels")
        kind = node.__class__
        if kind is scalar:
            tag = node.tag
            if tag == _STR_TAG:
                return node.value
            if tag.rsplit(":", 1)[-1] not in _SCALAR_TAGS:
                raise refuse(node, f"unsupported YAML tag {tag}")
            return construct(node, tag)
        if isinstance(node, mapping):
            if any(key_node.tag in _FLATTENED_TAGS for key_node, _ in node.value):
                loader.flatten_mapping(node)  # YAML merge keys (<<)
            result: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = build(key_node, depth + 1, aliased)
                if isinstance(key, list | dict):
                    raise refuse(key_node, "a key must be a scalar")
                name = key if isinstance(key, str) else str(key)
                if name in result and not aliased:
                    # YAML loaders keep the last value silently; a scenario author meant one of them
                    duplicates.append(_duplicate(node, key_node, name))
                result[name] = build(value_node, depth + 1, aliased)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [build(item, depth + 1, aliased) for item in node.value]
        if node.tag.rsplit(":", 1)[-1] not in _SCALAR_TAGS:
            raise refuse(node, f"unsupported YAML tag {node.tag}")
        return construct(node, node.tag)

    def construct(node: yaml.Node, tag: str) -> Any:
        try:
            return constructors[tag](loader, node)
        except _CONSTRUCTOR_ERRORS as error:  # 2001-13-45, !!binary "@@@": a located message, not a traceback
            what = tag.rsplit(":", 1)[-1]
            reason = getattr(error, "problem", None) or error
            raise refuse(node, f"not a valid {what}: {node.value!r} ({reason})") from None

    return build(root, 0, False)


_UNBUILT = object()


class _Unusual(Exception):
    """Raised by the quick walk at anything it leaves to the full one."""


def _build_tree(loader: yaml.SafeLoader, root: yaml.Node, limits: YamlLimits) -> Any:
    """``_build`` for a document whose nodes are each reached once (no aliases): the same data, with no
    bookkeeping of nodes already built, and with the checks made once per mapping or list rather than
    once per value. Anything unusual (a value over a budget, a duplicate or merge key, a tag it does
    not know, a key that is not a scalar) returns ``_UNBUILT`` so that ``_build`` reports it exactly
    where it always did. Half the time of ``_build`` for a 10,000-event scenario (26 ms against 49)."""
    constructors: dict[Any, Callable[[yaml.SafeLoader, yaml.Node], Any]] = loader.yaml_constructors
    scalar, mapping, sequence = yaml.ScalarNode, yaml.MappingNode, yaml.SequenceNode
    max_depth = limits.max_depth
    nodes_left = limits.max_nodes - 1  # the root; each collection counts its items when it is entered

    def scalar_value(node: yaml.Node) -> Any:
        tag = node.tag
        if tag == _INT_TAG:
            text = node.value
            # a plain decimal (most numbers: reply: 700) is what int() reads; PyYAML's constructor would
            # first look for a sign, "_", a base prefix, a leading 0 (octal) and "1:30" (base 60)
            if text.isdigit() and text.isascii() and (text[0] != "0" or text == "0"):
                return int(text)
        if tag.rsplit(":", 1)[-1] not in _SCALAR_TAGS:
            raise _Unusual
        try:
            return constructors[tag](loader, node)
        except _CONSTRUCTOR_ERRORS:
            raise _Unusual from None  # _build says where and why

    def build(node: yaml.Node, depth: int) -> Any:  # a mapping or a list at ``depth``, its items at depth + 1
        nonlocal nodes_left
        items = node.value
        kind = node.__class__
        if items and depth >= max_depth:
            raise _Unusual
        depth += 1
        if kind is mapping:
            nodes_left -= 2 * len(items)
            if nodes_left < 0:
                raise _Unusual
            result: dict[str, Any] = {}
            for key_node, value_node in items:
                if key_node.__class__ is not scalar:
                    raise _Unusual
                if key_node.tag == _STR_TAG:
                    key = key_node.value
                else:
                    key = scalar_value(key_node)
                    key = key if isinstance(key, str) else str(key)
                if key in result:
                    raise _Unusual
                if value_node.__class__ is not scalar:
                    result[key] = build(value_node, depth)
                elif value_node.tag == _STR_TAG:
                    result[key] = value_node.value
                else:
                    result[key] = scalar_value(value_node)
            return result
        if kind is sequence:
            nodes_left -= len(items)
            if nodes_left < 0:
                raise _Unusual
            return [
                (item.value if item.tag == _STR_TAG else scalar_value(item))
                if item.__class__ is scalar
                else build(item, depth)
                for item in items
            ]
        raise _Unusual

    if nodes_left < 0 or max_depth < 0 or root.__class__ is not mapping:
        return _UNBUILT
    try:
        return build(root, 0)
    except _Unusual:
        return _UNBUILT


def _duplicate(mapping: yaml.MappingNode, key_node: yaml.Node, name: str) -> Problem:
    first = next((k for k, _ in mapping.value if isinstance(k, yaml.ScalarNode) and k.value == name), key_node)
    where = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
    return where, f"duplicate key {name!r} (first given on line {first.start_mark.line + 1})"


def _positions(root: yaml.Node | None) -> Positions:
    """Where each value starts; for a mapping entry, where its key starts (what an editor jumps to)."""
    positions: Positions = {}
    seen: set[int] = set()

    def walk(node: yaml.Node, path: Path_) -> None:
        positions.setdefault(path, (node.start_mark.line + 1, node.start_mark.column + 1))
        if id(node) in seen:  # an alias: its positions are those of the node it names
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    key = (*path, key_node.value)
                    positions[key] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                    walk(value_node, key)
        elif isinstance(node, yaml.SequenceNode):
            for n, item in enumerate(node.value):
                walk(item, (*path, n))

    if root is not None:
        walk(root, ())
    return positions
