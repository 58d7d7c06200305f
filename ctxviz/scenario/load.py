"""Load a scenario file: the one place that reads scenario files. Every problem is reported at once as
``file:line:col: path.to.field: what was wrong, what was expected``; nothing raises but ``InputError``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ctxviz.allocation import without_cycle_collection
from ctxviz.errors import InputError
from ctxviz.profiles import DEFAULT_AGENT, get_profile
from ctxviz.scenario import advice
from ctxviz.scenario.check import problems
from ctxviz.scenario.event_model import EVENT_KINDS
from ctxviz.scenario.model import Scenario
from ctxviz.scenario.sizes import ReadFile
from ctxviz.scenario.yaml_source import Document, Path_, YamlError, YamlLimits, parse_yaml
from ctxviz.tokens import TokenCounter

LIMITS = YamlLimits()
MAX_REFERENCED_FILE_BYTES = 5_000_000


def load_scenario(
    path: Path, *, counter: TokenCounter, allow_outside: bool = False, limits: YamlLimits = LIMITS
) -> Scenario:
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > limits.max_bytes:
            raise InputError(f"{path}: {size:,} bytes is larger than the {limits.max_bytes:,} a scenario may be")
        text = path.read_bytes().decode("utf-8")
    except InputError:
        raise
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        # a bare word that names no file was probably meant as a built-in scenario's name
        named = isinstance(error, FileNotFoundError) and len(path.parts) == 1 and not path.suffix
        hint = "; not a built-in scenario's name either (`ctxviz scenarios` lists them)" if named else ""
        raise InputError(f"{path}: cannot read the scenario: {error.strerror or error}{hint}") from None
    return parse_scenario(
        text, str(path), counter=counter, base=path.parent, allow_outside=allow_outside, limits=limits
    )


def parse_scenario(
    text: str,
    filename: str,
    *,
    counter: TokenCounter,
    base: Path | None = None,
    allow_outside: bool = False,
    limits: YamlLimits = LIMITS,
) -> Scenario:
    with without_cycle_collection():
        return _parse(text, filename, counter=counter, base=base, allow_outside=allow_outside, limits=limits)


def _parse(
    text: str, filename: str, *, counter: TokenCounter, base: Path | None, allow_outside: bool, limits: YamlLimits
) -> Scenario:
    document, syntax = _parse_around_syntax_errors(text, filename, limits)
    data = document.data
    if not isinstance(data, dict):
        if syntax:
            raise InputError(_report(filename, document, [], syntax, checked=False))
        raise InputError(f"{filename}:1:1: expected a mapping with at least `name:` and `events:`")
    context = {"counter": counter, "read_file": _file_reader(base, allow_outside)}
    found = problems(data)
    try:
        scenario = Scenario.model_validate(data, context=context)
    except ValidationError as error:
        found = _pydantic_problems(error) + found
    else:
        if not found:
            found = _window_problems(scenario)
    if syntax:  # a value emptied by leaving its line out is not a problem of its own
        blanked = {e.line for e in syntax}
        found = [(loc, why) for loc, why in found if not _emptied(data, loc, document.locate(loc)[0], blanked)]
    if found or document.duplicates or syntax:
        raise InputError(_report(filename, document, found, syntax))
    return scenario


_MAX_SYNTAX_ERRORS = 10


def _emptied(data: Any, loc: Path_, line: int, blanked: set[int]) -> bool:
    """Whether the value at ``loc`` (a key on ``line``) is empty because the line after it was left out."""
    value = data
    for part in loc:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return False
    return value is None and line + 1 in blanked


def _parse_around_syntax_errors(text: str, filename: str, limits: YamlLimits) -> tuple[Document, list[YamlError]]:
    """The document, and its syntax errors: a line with one is left out (blanked, so every other line
    keeps its number) and the rest parsed again, so the file's other problems are still found."""
    lines = text.split("\n")
    found: list[YamlError] = []
    while True:
        try:
            return parse_yaml("\n".join(lines), limits), found
        except YamlError as error:
            index = error.line - 1
            repeat = any(e.line == error.line for e in found)
            shown = YamlError(error.line, error.column, _shown(error, text), syntax=error.syntax)
            if not error.syntax or repeat or not 0 <= index < len(lines) or len(found) >= _MAX_SYNTAX_ERRORS:
                if found:
                    return Document(None, None), [*found, shown] if error.syntax and not repeat else found
                raise InputError(f"{filename}:{error.line}:{error.column}: {shown.message}") from None
            found.append(shown)
            lines[index] = ""


def _window_problems(scenario: Scenario) -> list[tuple[Path_, str]]:
    """A window too small for the profile's reserves would put the thresholds at or below zero."""
    profile = get_profile(scenario.agent or DEFAULT_AGENT).with_overrides(scenario.profile)
    spec = profile.model_window(scenario.model, scenario.window)
    limits = profile.thresholds.thresholds(spec.window, spec.max_output, scenario.autocompact, scenario.autocompact_pct)
    floor = limits.blocking if limits.autocompact is None else min(limits.blocking, limits.autocompact)
    if floor > 0:
        return []
    cap = scenario.autocompact
    if not isinstance(cap, bool) and cap < spec.window and limits.autocompact is not None:
        needed = cap - limits.autocompact + 1
        return [
            (
                ("autocompact",),
                f"{cap:,} is too small: {profile.name} keeps {needed - 1:,} tokens in reserve "
                f"below it, so auto-compaction would start at {limits.autocompact:,}; the smallest is {needed:,}",
            )
        ]
    needed = spec.window - floor + 1
    where: Path_ = ("window",) if scenario.window else ("model",)
    return [
        (
            where,
            f"a {spec.window:,}-token window is smaller than the {needed - 1:,} tokens {profile.name} "
            f"keeps in reserve; the smallest window it can run is {needed:,}",
        )
    ]


def _file_reader(base: Path | None, allow_outside: bool) -> ReadFile:
    def read(relative: str) -> str:
        if base is None:
            raise ValueError("{file: …} sizes need the scenario to be a file on disk")
        root = base.resolve()
        target = (root / Path(relative).expanduser()).resolve()
        if not allow_outside and not target.is_relative_to(root):
            raise ValueError(f"{relative!r} is outside the scenario's folder {root}; pass --allow-outside to permit it")
        try:
            if target.stat().st_size > MAX_REFERENCED_FILE_BYTES:
                raise ValueError(f"{relative!r} is larger than {MAX_REFERENCED_FILE_BYTES:,} bytes")
            return target.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{relative!r} is not UTF-8 text") from None
        except OSError as error:
            raise ValueError(f"cannot read {relative!r}: {error.strerror or error}") from None

    return read


def _pydantic_problems(error: ValidationError) -> list[tuple[Path_, str]]:
    found: list[tuple[Path_, str]] = []
    for item in error.errors(include_url=False):
        loc = _clean_loc(item["loc"])
        kind = item["type"]
        if kind == "extra_forbidden":
            message = advice.unknown_key(loc)
        elif kind == "missing":
            message = f"missing required key {loc[-1]!r}"
        elif kind == "event_kind":
            message = advice.unknown_event(item.get("input"), EVENT_KINDS)
        elif "input" in item and (plain := advice.wrong_type(kind, loc, _short(item["input"]))):
            message = plain
        else:
            message = item["msg"].removeprefix("Value error, ")
            if kind != "value_error" and "input" in item:
                message += f" (got {_short(item['input'])})"
        found.append((loc, message))
    return found


def _clean_loc(loc: tuple[Any, ...]) -> Path_:
    """Drop pydantic's tagged-union and validator segments so the path reads like the YAML."""
    cleaned: list[str | int] = []
    previous: Any = None
    for part in loc:
        tag = isinstance(part, str) and part in EVENT_KINDS and isinstance(previous, int)
        previous = part
        if tag:
            continue  # the union's tag, followed by the same key
        if isinstance(part, str) and (
            part.startswith(("function-", "tagged-union", "json-or-python")) or part in ("size", "int", "bool", "str")
        ):
            continue
        cleaned.append(part)
    return tuple(cleaned)


def _short(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _shown(error: YamlError, text: str) -> str:
    """A syntax error's message with its line under it and a caret at the column."""
    lines = text.split("\n")
    if not error.syntax or not 0 < error.line <= len(lines):
        return error.message
    number = f"{error.line} | "
    return f"{error.message}\n    {number}{lines[error.line - 1]}\n    {' ' * len(number)}{' ' * (error.column - 1)}^"


def _report(
    filename: str,
    document: Document,
    found: list[tuple[Path_, str]],
    syntax: list[YamlError] | None = None,
    *,
    checked: bool = True,
) -> str:
    located = [(document.locate(loc), f"{_dotted(loc)}: {message}") for loc, message in found]
    located += document.duplicates
    if syntax:
        located += [((e.line, e.column), e.message) for e in syntax]
        skipped = ", ".join(str(e.line) for e in syntax)
        note = f"(the rest of the file was checked without line{'s' * (len(syntax) > 1)} {skipped})"
    lines = [f"{filename}:{line}:{column}: {message}" for (line, column), message in sorted(located)]
    count = len(lines)
    lines.append(f"{count} error{'s' if count != 1 else ''} in {filename}" + (f" {note}" if syntax and checked else ""))
    return "\n".join(lines)


def _dotted(loc: Path_) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "." in part or "/" in part or " " in part:
            out += f"[{part!r}]"
        else:
            out += f".{part}" if out else part
    return out or "(top level)"
