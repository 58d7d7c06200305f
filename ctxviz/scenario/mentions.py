"""``@`` mentions written in a prompt, as structured values. Agent-neutral: which agent sends what for a
mention is its profile's mention policy. Pure (no pydantic), so profiles may import it."""

from __future__ import annotations

import re
from dataclasses import dataclass

# @path, @path:10-20 (grok-build, gemini-cli), @path#12-18 (opencode), @path#L12-18 (Claude Code), @dir/
_MENTION = re.compile(r"(?<!\S)@([^\s,;:!?#]+)(?:(?::|#L?)(\d+)(?:-(\d+))?)?")


@dataclass(frozen=True, slots=True)
class Mention:
    """One ``@`` mention: a path (a directory ends with ``/``) and an optional 1-based inclusive line range."""

    path: str
    start: int | None = None
    end: int | None = None  # None with a start: that one line

    @property
    def is_directory(self) -> bool:
        return self.path.endswith("/")

    @property
    def lines(self) -> tuple[int, int] | None:
        """The range as (first, last), or None for the whole file."""
        if self.start is None:
            return None
        return (self.start, self.end if self.end is not None and self.end >= self.start else self.start)

    def __str__(self) -> str:
        lines = self.lines
        return "@" + self.path + (f":{lines[0]}-{lines[1]}" if lines else "")


def parse_mentions(text: str) -> tuple[Mention, ...]:
    """The mentions in ``text``, in order, each once."""
    found = (
        Mention(path, int(start) if start else None, int(end) if end else None)
        for path, start, end in _MENTION.findall(text)
    )
    return tuple(dict.fromkeys(found))
