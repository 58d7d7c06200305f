"""What a reader that turns its log into events has made of it so far (shared by those readers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxviz.transcripts.assemble import Event


@dataclass
class ParsedEvents:
    """Where the log is (problems are located by it), the problems met, the events in order, and the
    session's id once read."""

    where: str
    problems: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    session: str | None = None
