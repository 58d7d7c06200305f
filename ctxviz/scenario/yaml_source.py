"""Safe, bounded YAML: plain data, and the line and column of any value when an error needs it.

The data is built straight from the parser's events, in one pass (``_Composer``): no tree of nodes is
kept, every value is counted as it arrives, and an alias gives its anchor's value counted again, so a
file of too many values, or an alias bomb, is refused at the budget having built only what came before.
Positions are worked out from a node tree composed again only when something must be reported, so a
valid 100,000-event scenario never pays for them.
"""

from __future__ import annotations

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
    """A parsed document: its data, and the positions of its values (worked out from ``text`` on first
    use: only a document with a problem to report needs them)."""

    data: Any
    text: str | None
    _positions: Positions | None = field(default=None, repr=False)
    duplicates: list[Problem] = field(default_factory=list)  # keys given twice in one mapping

    def locate(self, path: Path_) -> tuple[int, int]:
        """The 1-based (line, column) of ``path``, or of its nearest ancestor that has one."""
        if self._positions is None:
            self._positions = _positions(_node_tree(self.text))
        for end in range(len(path), -1, -1):
            if path[:end] in self._positions:
                return self._positions[path[:end]]
        return (1, 1)


def parse_yaml(text: str, limits: YamlLimits = YamlLimits()) -> Document:
    if len(text.encode("utf-8", errors="replace")) > limits.max_bytes:
        raise YamlError(1, 1, f"file is larger than {limits.max_bytes:,} bytes; a scenario is refused above that")
    loader = _BaseLoader(text)
    try:
        built = _Composer(loader, limits).document()
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
    finally:
        loader.dispose()
    if built is None:
        return Document(None, None)
    return Document(built[0], text, duplicates=built[1])


def _tab_at(text: str, line: int, column: int) -> bool:
    lines = text.splitlines()
    if not 0 <= line < len(lines):
        return False
    # libyaml reports the token after the tab, or the tab itself, depending on where it sits
    return "\t" in lines[line][max(0, column - 1) : column + 1] or lines[line][: column + 1].strip(" ") == "\t"


# what PyYAML's scalar constructors raise for a value their tag cannot hold
_CONSTRUCTOR_ERRORS = (ValueError, TypeError, OverflowError, yaml.YAMLError)
_MERGE_TAG = "tag:yaml.org,2002:merge"  # a "<<" key: the mappings it names are merged in
_VALUE_TAG = "tag:yaml.org,2002:value"  # a "=" key: a string, as PyYAML reads one


class _Collection:
    """A mapping or list being built, with what its items need: the key waiting for its value, the
    first line of each key (to say where a duplicate was first given), the mappings merged in."""

    __slots__ = ("anchor", "first_lines", "items", "key", "key_mark", "mark", "merges", "start")

    def __init__(self, items: dict[str, Any] | list[Any], mark: Any, anchor: str | None, start: int) -> None:
        self.items, self.mark, self.anchor, self.start = items, mark, anchor, start
        self.key: str | None = None
        self.key_mark: Any = None
        self.first_lines: dict[str, int] = {}
        self.merges: list[dict[str, Any]] = []


class _Composer:
    """The document's data built straight from the parser's events, in one pass: no tree of nodes is
    kept (for a 100,000-event scenario that tree was most of the memory), and every value is counted
    as it arrives, so a file of too many values is refused when the cap is passed, having built no
    more than the values before it. An alias gives the value its anchor built, counted again for each
    use (a "billion laughs" file is refused at the budget without expanding anything)."""

    def __init__(self, loader: yaml.SafeLoader, limits: YamlLimits) -> None:
        self.loader, self.limits = loader, limits
        self.next_event: Callable[[], Any] = loader.get_event
        self.resolve: Callable[[type[yaml.Node], str, tuple[bool, bool]], str] = loader.resolve
        self.constructors: dict[Any, Callable[[yaml.SafeLoader, yaml.Node], Any]] = loader.yaml_constructors
        self.values = 0  # every value so far, those reached again through an alias too
        self.repeated = 0  # values reached again through an alias
        self.anchors: dict[str, tuple[Any, int, Any]] = {}  # name: (value, its count of values, where)
        self.open_anchors: dict[str, Any] = {}  # anchors of collections still being built: where
        self.plain_tags: dict[str, str] = {}  # a plain scalar's tag depends on its text only
        self.duplicates: list[Problem] = []

    def refuse(self, mark: Any, message: str, *, over_budget: bool = False) -> YamlError | yaml.MarkedYAMLError:
        """The refusal at ``mark``. A syntax error further on is reported first (parse_yaml locates it),
        as when the whole tree was composed before any value was built; but past a budget nothing more
        is read (the point of a budget)."""
        try:
            while not over_budget and self.next_event() is not None:
                pass
        except yaml.MarkedYAMLError as error:
            return error
        return YamlError(mark.line + 1, mark.column + 1, message)

    def document(self) -> tuple[Any, list[Problem]] | None:
        """The data and its duplicate keys; None for an empty document."""
        get = self.next_event
        get()  # the stream's start
        start = get()
        if isinstance(start, yaml.StreamEndEvent):
            return None
        data = self.value(get)
        get()  # the document's end
        after = get()
        if not isinstance(after, yaml.StreamEndEvent):
            raise yaml.composer.ComposerError(
                "expected a single document in the stream", start.start_mark, "but found another document",
                after.start_mark,
            )  # fmt: skip
        return data, self.duplicates

    def value(self, get: Callable[[], Any]) -> Any:
        """The next value, read event by event; collections are built on a stack, not by recursion."""
        stack: list[_Collection] = []
        limits = self.limits
        max_values, max_depth = limits.max_nodes, limits.max_depth
        values = self.values
        plain_tags, resolve = self.plain_tags, self.resolve
        # hoisted: this loop runs once per event (600,000 times for a 100,000-event scenario)
        scalar_event, alias_event, mapping_start = yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingStartEvent
        ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
        str_tag, scalar_node = _STR_TAG, yaml.ScalarNode
        while True:
            event = get()
            kind = event.__class__
            merge = False
            if kind is scalar_event and event.anchor is None:  # most values: a plain or quoted string, a number
                values += 1
                if values > max_values:
                    raise self.refuse(event.start_mark, f"more than {max_values:,} values; refused", over_budget=True)
                if len(stack) > max_depth:
                    raise self.refuse(event.start_mark, f"nested deeper than {max_depth} levels")
                tag, built = event.tag, event.value
                if tag is None and event.implicit[0]:
                    tag = plain_tags.get(built)
                    if tag is None:
                        tag = plain_tags[built] = resolve(scalar_node, built, event.implicit)
                if tag is not None and tag is not str_tag and tag != str_tag:
                    built, merge = self.scalar(event, stack)
                mark = event.start_mark
            elif kind in ends:
                done = stack.pop()
                built = self.merged(done) if done.merges else done.items
                if done.anchor is not None:
                    del self.open_anchors[done.anchor]
                    self.anchors[done.anchor] = (built, values - done.start, done.mark)
                mark = done.mark
            elif kind is alias_event:
                name = event.anchor
                if name in self.open_anchors:
                    raise self.refuse(event.start_mark, f"an alias (*{name}) inside the value it names; refused")
                if name not in self.anchors:
                    raise yaml.composer.ComposerError(None, None, f"found undefined alias {name!r}", event.start_mark)
                built, count, _ = self.anchors[name]
                self.repeated += count
                if self.repeated > limits.max_alias_expansion:
                    message = f"more than {limits.max_alias_expansion:,} values repeated through aliases; refused"
                    raise self.refuse(event.start_mark, message, over_budget=True)
                values += count
                if values > max_values:
                    raise self.refuse(event.start_mark, f"more than {max_values:,} values; refused", over_budget=True)
                mark = event.start_mark
            else:  # a collection's start, or a value with an anchor
                mark = event.start_mark
                values += 1
                if values > max_values:
                    raise self.refuse(mark, f"more than {max_values:,} values; refused", over_budget=True)
                if len(stack) > max_depth:
                    raise self.refuse(mark, f"nested deeper than {max_depth} levels")
                anchor = event.anchor
                if anchor is not None and (anchor in self.anchors or anchor in self.open_anchors):
                    first = self.anchors[anchor][2] if anchor in self.anchors else self.open_anchors[anchor]
                    raise yaml.composer.ComposerError(
                        f"found duplicate anchor {anchor!r}; first occurrence", first, "second occurrence", mark
                    )
                if kind is scalar_event:
                    built, merge = self.scalar(event, stack)
                    self.anchors[anchor] = (built, 1, mark)
                else:
                    if stack and stack[-1].key is None and stack[-1].items.__class__ is dict:
                        raise self.refuse(mark, "a key must be a scalar")
                    if anchor is not None:
                        self.open_anchors[anchor] = mark
                    stack.append(_Collection({} if kind is mapping_start else [], mark, anchor, values - 1))
                    continue
            if not stack:
                self.values = values
                return built
            top = stack[-1]
            items = top.items
            if items.__class__ is list:
                items.append(built)
            elif top.key is None and built.__class__ is str and not merge:  # the usual key
                top.key, top.key_mark = built, mark
            elif (name := top.key) is not None and top.key_mark is not None and name not in items:  # the usual value
                top.first_lines[name] = top.key_mark.line + 1
                items[name] = built  # type: ignore[call-overload]
                top.key = None
            else:
                self.place(top, built, mark, merge)

    def place(self, into: _Collection, built: Any, mark: Any, merge: bool) -> None:
        """``built`` (a value that starts at ``mark``) as the next item, key or value of ``into``."""
        items = into.items
        assert isinstance(items, dict)  # a list's items are appended where they are read
        if into.key is None:  # a key
            if isinstance(built, list | dict):  # through an alias: only a scalar can be a key
                raise self.refuse(mark, "a key must be a scalar")
            into.key, into.key_mark = ("<<" if merge else built if isinstance(built, str) else str(built)), mark
            if merge:
                into.key_mark = None  # marks a merge key's value
            return
        name, key_mark = into.key, into.key_mark
        into.key = None
        if key_mark is None:  # the value of "<<": the mapping, or mappings, merged in
            merged = built if isinstance(built, list) else [built]
            if not merged or not all(isinstance(m, dict) for m in merged):
                raise self.refuse(mark, "a merge key (<<) takes a mapping or a list of mappings")
            into.merges.extend(merged)
            return
        if name in items:
            # YAML loaders keep the last value silently; a scenario author meant one of them
            first = into.first_lines[name]
            where = (key_mark.line + 1, key_mark.column + 1)
            self.duplicates.append((where, f"duplicate key {name!r} (first given on line {first})"))
        else:
            into.first_lines[name] = key_mark.line + 1
        items[name] = built

    @staticmethod
    def merged(done: _Collection) -> dict[str, Any]:
        """A mapping with merge keys: the merged mappings' entries (of a key in several, the first one's),
        then its own, which win."""
        result: dict[str, Any] = {}
        for mapping in done.merges:
            for name, value in mapping.items():
                result.setdefault(name, value)
        result.update(done.items)
        return result

    def scalar(self, event: Any, stack: list[_Collection]) -> tuple[Any, bool]:
        """A scalar's value, and whether it is a merge key ("<<") (``stack``: the collections it is in)."""
        tag, text = event.tag, event.value
        if tag is None or tag == "!":
            if not event.implicit[0]:  # quoted
                return text, False
            tag = self.plain_tags.get(text)
            if tag is None:
                tag = self.plain_tags[text] = self.resolve(yaml.ScalarNode, text, event.implicit)
        if tag == _STR_TAG:
            return text, False
        if tag == _INT_TAG and text.isdigit() and text.isascii() and (text[0] != "0" or text == "0"):
            # a plain decimal (most numbers: reply: 700) is what int() reads; PyYAML's constructor would
            # first look for a sign, "_", a base prefix, a leading 0 (octal) and "1:30" (base 60)
            return int(text), False
        if tag in (_MERGE_TAG, _VALUE_TAG) and stack and stack[-1].key is None and isinstance(stack[-1].items, dict):
            return text, tag == _MERGE_TAG  # as a key; elsewhere, a tag no scenario value has
        if tag.rsplit(":", 1)[-1] not in _SCALAR_TAGS:
            raise self.refuse(event.start_mark, f"unsupported YAML tag {tag}")
        node = yaml.ScalarNode(tag, text, event.start_mark, event.end_mark, event.style)
        try:
            return self.constructors[tag](self.loader, node), False
        except _CONSTRUCTOR_ERRORS as error:  # 2001-13-45, !!binary "@@@": a located message, not a traceback
            reason = getattr(error, "problem", None) or error
            raise self.refuse(event.start_mark, f"not a valid {tag.rsplit(':', 1)[-1]}: {text!r} ({reason})") from None


def _node_tree(text: str | None) -> yaml.Node | None:
    """The document's nodes, for the positions of its values (None when it has none)."""
    if text is None:
        return None
    loader = _BaseLoader(text)
    try:
        return loader.get_single_node()
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()


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
