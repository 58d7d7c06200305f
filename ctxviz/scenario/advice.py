"""Plain-words advice for scenario errors: the keys allowed at a place, "did you mean …?", and what a
pydantic type error means in YAML terms. Only used when something is wrong, so it may be slow-ish (it
walks the JSON schema, built once)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from ctxviz.errors import did_you_mean as did_you_mean  # re-exported: advice's vocabulary
from ctxviz.scenario.yaml_source import Path_

# What pydantic's type errors mean, said without its class names ("instance of EditSpec").
_EXPECTED: dict[str, str] = {
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "tuple_type": "a list",
    "string_type": "text",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
}


@cache
def _schema() -> dict[str, Any]:
    from ctxviz.scenario.model import Scenario

    return Scenario.model_json_schema()


def _resolve(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``node`` and, through $ref/anyOf/oneOf, every object schema it may stand for."""
    if "$ref" in node:
        yield from _resolve(_schema()["$defs"][node["$ref"].rsplit("/", 1)[1]])
        return
    branches = node.get("anyOf") or node.get("oneOf")
    if branches:
        for branch in branches:
            yield from _resolve(branch)
        return
    yield node


def _children(node: dict[str, Any], part: str | int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for option in _resolve(node):
        if isinstance(part, int):
            if isinstance(option.get("items"), dict):
                found.append(option["items"])
        elif part in option.get("properties", {}):
            found.append(option["properties"][part])
        elif isinstance(option.get("additionalProperties"), dict):
            found.append(option["additionalProperties"])
    return found


def _options(loc: Path_) -> list[dict[str, Any]]:
    """Every schema the value at ``loc`` may match."""
    nodes = [_schema()]
    for part in loc:
        nodes = [child for node in nodes for child in _children(node, part)]
    return [option for node in nodes for option in _resolve(node)]


def allowed_keys(parent: Path_) -> list[str]:
    """The keys a mapping at ``parent`` may have, in the schema's order (empty when unknown)."""
    keys: dict[str, None] = {}
    for option in _options(parent):
        keys.update(dict.fromkeys(option.get("properties", {})))
    return list(keys)


def unknown_key(loc: Path_) -> str:
    key = str(loc[-1])
    allowed = allowed_keys(loc[:-1])
    hint = did_you_mean(key, allowed)
    if hint:
        return f"unknown key {key!r}{hint}"
    if allowed:
        return f"unknown key {key!r}; allowed here: {', '.join(allowed)}"
    return f"unknown key {key!r}; see `ctxviz schema` for the keys allowed here"


def unknown_event(value: Any, kinds: Sequence[str]) -> str:
    """A mapping that names no event kind: say which kind its key is closest to."""
    listed = ", ".join(kinds)
    if isinstance(value, dict) and value:
        for key in value:
            hint = did_you_mean(str(key), kinds)
            if hint:
                return f"unknown event {str(key)!r}{hint}"
        keys = ", ".join(repr(str(k)) for k in value)
        return f"no event kind among the keys {keys}; an event is a mapping with one of: {listed}"
    return f"expected an event: a mapping with one of the keys {listed}"


def wrong_type(kind: str, loc: Path_, shown: str) -> str | None:
    """A type error in plain words, or None when pydantic's own message is already plain."""
    expected = _EXPECTED.get(kind)
    if expected is None:
        return None
    if expected == "a mapping":
        keys = allowed_keys(loc)
        expected = f"a mapping with the keys {', '.join(keys)}" if keys else "a mapping (see `ctxviz schema`)"
        if any(option.get("type") == "string" for option in _options(loc)):
            expected = f"text or {expected}"
    return f"expected {expected}, got {shown}"
