"""Sizes in a scenario: ``1800``, ``"4.2k"``, ``{tokens: N}``, ``{chars: N}``, ``{lines: N}``,
``{text: "…"}`` or ``{file: path}``. Every form becomes a ``Measure`` that knows tokens, chars, lines and
bytes, each either given, counted from text, or converted (4 chars a token, ≈10 tokens a line).

Counting text and reading ``file:`` need a token counter and a file reader; the loader passes both in
the validation context, so this module itself does no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo, WithJsonSchema

from ctxviz.scenario.measure import TOKENS_PER_LINE, Measure
from ctxviz.tokens import CHARS_PER_TOKEN, MAX_CALL_TOKENS, TokenCounter

_SHORTHAND = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")
_MULTIPLIER = {"": 1, "k": 1_000, "m": 1_000_000}
SIZE_KEYS = ("tokens", "chars", "lines", "text", "file")
MAX_LINES = MAX_CALL_TOKENS // TOKENS_PER_LINE

ReadFile = Callable[[str], str]  # scenario-relative path → text; raises ValueError with a reason


def parse_tokens(value: object) -> int:
    """``1800``, ``"1,800"``, ``"4.2k"``, ``"1m"`` → tokens. Raises ValueError for anything else."""
    if isinstance(value, bool):
        raise ValueError("expected a size such as 1800, 4.2k or {tokens: N}, got a boolean")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"expected a size such as 1800, 4.2k or {{tokens: N}}, got {value!r}")
        number = math.ceil(value)
    elif isinstance(value, str) and (match := _SHORTHAND.match(value.replace(",", "").replace("_", ""))):
        number = math.ceil(float(match.group(1)) * _MULTIPLIER[match.group(2).lower()])
    else:
        raise ValueError(f"expected a size such as 1800, 4.2k or {{tokens: N}}, got {value!r}")
    if number < 0:
        raise ValueError(f"a size cannot be negative (got {value!r})")
    return _within(number, value, MAX_CALL_TOKENS)


def _within(number: int, value: object, limit: int) -> int:
    """A size larger than any context window holds is refused: replaying it would cost memory and time
    in proportion, for nothing a window could show."""
    if number > limit:
        raise ValueError(f"{value!r} is larger than any context window; the most is {limit:,}")
    return number


def _count(value: object, limit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected a whole number, got {value!r}")
    if value < 0:
        raise ValueError(f"a size cannot be negative (got {value})")
    return _within(value, value, limit)


def to_measure(value: Any, info: ValidationInfo) -> Measure:
    if (
        value.__class__ is int and 0 <= value <= MAX_CALL_TOKENS
    ):  # the usual form (``reply: 700``), as parse_tokens takes it
        return Measure.of_tokens(value)
    if isinstance(value, Measure):
        return value
    if not isinstance(value, dict):
        return Measure.of_tokens(parse_tokens(value))
    keys = [k for k in value if k in SIZE_KEYS]
    unknown = [k for k in value if k not in SIZE_KEYS]
    if set(keys) in ({"tokens", "lines"}, {"chars", "lines"}) and not unknown:
        # a file whose line count is not ~10 tokens a line (long lines, minified code)
        base = to_measure({k: v for k, v in value.items() if k != "lines"}, info)
        return Measure(base.tokens, base.chars, _count(value["lines"], MAX_LINES), base.bytes)
    if unknown or len(keys) != 1:
        raise ValueError(
            f"a size mapping takes one of {', '.join(SIZE_KEYS)} (tokens or chars may add lines)"
            + (f"; unknown key {unknown[0]!r}" if unknown else "")
        )
    key, raw = keys[0], value[keys[0]]
    if key == "tokens":
        return Measure.of_tokens(parse_tokens(raw))
    if key == "chars":
        return Measure.of_chars(_count(raw, MAX_CALL_TOKENS * CHARS_PER_TOKEN))
    if key == "lines":
        return Measure.of_lines(_count(raw, MAX_LINES))
    context = info.context or {}
    counter: TokenCounter | None = context.get("counter")
    if counter is None:
        raise ValueError(f"{{{key}: …}} sizes need a token counter (load the scenario through the loader)")
    if key == "text":
        if not isinstance(raw, str):
            raise ValueError(f"expected text, got {raw!r}")
        return Measure.of_text(raw, counter)
    read_file: ReadFile | None = context.get("read_file")
    if not isinstance(raw, str) or read_file is None:
        raise ValueError(f"expected a path relative to the scenario, got {raw!r}")
    return Measure.of_text(read_file(raw), counter)


_SIZE_SCHEMA = {
    "description": "A size: tokens as 1800 or '4.2k', or one of {tokens}, {chars}, {lines}, {text}, {file}.",
    "anyOf": [
        {"type": "integer", "minimum": 0},
        {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*[kKmM]?\s*$"},
        {
            "type": "object",
            "properties": {"tokens": {}, "lines": {"type": "integer"}},
            "required": ["tokens"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"chars": {"type": "integer"}, "lines": {"type": "integer"}},
            "required": ["chars"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"lines": {"type": "integer"}},
            "required": ["lines"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"file": {"type": "string"}},
            "required": ["file"],
            "additionalProperties": False,
        },
    ],
}

Size = Annotated[Measure, BeforeValidator(to_measure), WithJsonSchema(_SIZE_SCHEMA)]
