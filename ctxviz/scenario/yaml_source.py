"""Safe, bounded YAML: plain data plus the line and column of every value, for located error messages.

PyYAML's composer keeps an alias as a reference to the one node it names, so composing is cheap; the
danger (a "billion laughs" alias bomb) is in *expanding* the graph into Python objects. We expand it
ourselves and stop at a node budget, so a hostile file is refused in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

# libyaml's parser when PyYAML was built with it: composing is 6× faster than the pure-Python one
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Path_ = tuple[str | int, ...]
Positions = dict[Path_, tuple[int, int]]


@dataclass(frozen=True)
class YamlLimits:
    max_bytes: int = 2_000_000
    max_depth: int = 64
    max_nodes: int = 1_000_000
    max_alias_expansion: int = 10_000  # values reached again through an alias


class YamlError(ValueError):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line, self.column, self.message = line, column, message


def parse_yaml(text: str, limits: YamlLimits = YamlLimits()) -> tuple[Any, Positions]:
    """The document as dicts/lists/scalars, and ``{path: (line, column)}`` (1-based) for every value."""
    if len(text.encode("utf-8", errors="replace")) > limits.max_bytes:
        raise YamlError(1, 1, f"file is larger than {limits.max_bytes:,} bytes; a scenario is refused above that")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise YamlError(line, column, f"not valid YAML: {error.problem or error}") from None
    except yaml.YAMLError as error:
        raise YamlError(1, 1, f"not valid YAML: {error}") from None
    finally:
        loader.dispose()
    if node is None:
        return None, {}
    positions: Positions = {}
    budget = {"nodes": limits.max_nodes, "aliased": limits.max_alias_expansion}
    built: set[int] = set()

    def build(node: yaml.Node, path: Path_, depth: int, aliased: bool = False) -> Any:
        aliased = aliased or id(node) in built
        built.add(id(node))
        budget["nodes"] -= 1
        budget["aliased"] -= aliased
        if budget["nodes"] < 0 or budget["aliased"] < 0:
            what = "values" if budget["nodes"] < 0 else "values repeated through aliases"
            limit = limits.max_nodes if budget["nodes"] < 0 else limits.max_alias_expansion
            raise YamlError(
                node.start_mark.line + 1, node.start_mark.column + 1, f"more than {limit:,} {what}; refused"
            )
        if depth > limits.max_depth:
            raise YamlError(
                node.start_mark.line + 1, node.start_mark.column + 1, f"nested deeper than {limits.max_depth} levels"
            )
        positions.setdefault(path, (node.start_mark.line + 1, node.start_mark.column + 1))
        if isinstance(node, yaml.MappingNode):
            loader.flatten_mapping(node)  # YAML merge keys (<<)
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                key = build(key_node, (*path, "<key>"), depth + 1, aliased)
                if not isinstance(key, str | int | float | bool) and key is not None:
                    mark = key_node.start_mark
                    raise YamlError(mark.line + 1, mark.column + 1, "a key must be a scalar")
                key = str(key) if not isinstance(key, str) else key
                positions[(*path, key)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                result[key] = build(value_node, (*path, key), depth + 1, aliased)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [build(item, (*path, n), depth + 1, aliased) for n, item in enumerate(node.value)]
        return loader.construct_object(node)

    data = build(node, (), 0)
    positions.pop(("<key>",), None)
    return data, positions


def locate(positions: Positions, path: Path_) -> tuple[int, int]:
    """The position of ``path``, or of its nearest ancestor that has one."""
    for end in range(len(path), -1, -1):
        if path[:end] in positions:
            return positions[path[:end]]
    return (1, 1)
