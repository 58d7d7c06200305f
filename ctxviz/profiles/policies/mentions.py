"""@-mention policies: what an agent sends for ``@path`` in a prompt, beyond the prompt's own text."""

from __future__ import annotations

from dataclasses import dataclass

from ctxviz.kinds import BlockKind
from ctxviz.profiles.base import Session
from ctxviz.scenario.mentions import Mention
from ctxviz.timeline import Category


def directory_entries(files: list[str], folder: str) -> int:
    """Entries an ``ls`` of ``folder`` shows: its files and its subfolders, from the scenario's files."""
    entries = {path[len(folder) :].split("/", 1)[0] for path in files if path.startswith(folder)}
    return len(entries)


@dataclass(frozen=True, slots=True)
class ReadThroughTool:
    """The file is read as if by the read tool (its limits apply; a range reads those lines) and added with
    the prompt; a directory becomes a listing of at most ``listing_max_entries`` entries (Claude Code: a
    fake ``ls`` call). The read triggers rules and nested instruction files like any read."""

    listing_call: int  # the fake tool call around the listing
    listing_max_entries: int
    tokens_per_entry: int

    def mention(self, session: Session, mention: Mention) -> None:
        if mention.is_directory:
            entries = directory_entries(list(session.files), mention.path)
            shown = min(entries, self.listing_max_entries)
            tokens = self.listing_call + shown * self.tokens_per_entry
            session.add(Category.MESSAGES, BlockKind.TOOL_OUTPUT, f"@{mention.path} (listing)", tokens, "brief")
            cut = f" (first {shown:,} of {entries:,})" if shown < entries else ""
            session.note(f"@{mention.path} in the prompt: listed like ls, {shown:,} entries{cut}, {tokens:,} tokens")
            return
        session.note(f"{mention} in the prompt: read as if by the Read tool, added with the prompt")
        session.read(mention.path, label=str(mention), mention=True, lines=mention.lines)


@dataclass(frozen=True, slots=True)
class PathOnly:
    """The mention inserts the path into the prompt and nothing else (Codex, pi's editor): the model reads
    the file later if it wants to."""

    def mention(self, session: Session, mention: Mention) -> None:
        session.note(f"{mention} in the prompt: the path only; nothing is read")
