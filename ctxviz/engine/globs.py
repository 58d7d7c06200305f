"""Path globs as ``.claude/rules`` ``paths:`` use them: ``**`` spans directories, ``*`` does not, braces
expand, and a pattern without a slash matches the file name in any directory (gitignore-style)."""

from __future__ import annotations

import re
from functools import lru_cache


def _expand_braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [p for option in match.group(1).split(",") for p in _expand_braces(head + option + tail)]


def _to_regex(pattern: str) -> str:
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return out


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> re.Pattern[str]:
    parts = []
    for option in _expand_braces(pattern.removeprefix("./")):
        anchored = "/" in option.rstrip("/")
        body = _to_regex(option.removeprefix("/"))
        parts.append(body if anchored else f"(?:.*/)?{body}")
    return re.compile("^(?:" + "|".join(parts) + ")$")


def matches(pattern: str, path: str) -> bool:
    return compile_glob(pattern).match(path.removeprefix("./")) is not None
