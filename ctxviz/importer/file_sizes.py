"""Each file's and skill's natural size in a drafted session, before calibration: a file at its smallest
whole Read (a restore after a compaction is not overstated), an edited file at its size before the edit,
a written one at what was written, a file read only in part scaled to its whole, and what each Write or
Edit left the file at (so a compaction re-reads it as it was then)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ctxviz.importer.rules import read_tokens_of_file
from ctxviz.kinds import AgentName, EventKind

if TYPE_CHECKING:
    from ctxviz.importer.draft import EventDraft


def settle_sizes(
    events: Sequence[EventDraft],
    compactions: Sequence[tuple[int, str, int | None]],
    originals: Mapping[str, int],
    files: dict[str, int],
    file_lines: dict[str, int],
    skills: dict[str, int],
) -> None:
    """Natural sizes before calibration: each event's target in its first free field; files and
    skills at the size their content added."""
    for event in (e for top in events for e in top.flat()):
        if event.kind == EventKind.READ and "unchanged" not in (event.comment or ""):
            # the smallest full read: a file that grew adds to a reply at its later reads (a size can
            # be added there, never taken away), and a restore after compaction is not overstated
            path = event.fields["path"]
            files[path] = min(files.get(path, event.target), event.target)
            if event.lines:
                file_lines[event.fields["path"]] = event.lines
        elif event.kind == EventKind.EDIT:
            path = event.fields["path"]
            files.setdefault(path, originals.get(path, event.target))
        elif event.kind == EventKind.WRITE:
            files.setdefault(event.fields["path"], event.target)
        elif event.kind == EventKind.SKILL:
            name = event.fields["name"]
            skills[name] = min(skills.get(name, event.target), event.target)
    _follow_files(events, compactions)
    for event in (e for top in events for e in top.flat()):
        if event.kind == EventKind.READ and event.fields["path"] not in files:
            files[event.fields["path"]] = event.target  # only stubs seen: the stub's size
        elif "reads" in event.fields and event.fields["reads"] not in files:
            _whole_from_part(event, files, file_lines)


def _follow_files(events: Sequence[EventDraft], compactions: Sequence[tuple[int, str, int | None]]) -> None:
    """Each Write and Edit says what the file became, as a Read of it would send it: its text's chars at
    the tokens a char of a whole Read of the file — the next one, if it comes before any compaction
    and before the file changes again (then the replay's read is the measured one), else the last one
    before, else the profile's density. A compaction then re-reads the file as it was at that time."""
    flat = [e for top in events for e in top.flat()]
    compacted = sorted(segment for segment, _, _ in compactions)
    reads: dict[str, list[tuple[int, EventDraft]]] = {}
    for n, event in enumerate(flat):
        chars = event.file_after[0] if event.file_after else 0
        if event.kind == EventKind.READ and event.measured and chars and "unchanged" not in (event.comment or ""):
            reads.setdefault(event.fields["path"], []).append((n, event))
    changes = [(n, e) for n, e in enumerate(flat) if e.kind in (EventKind.EDIT, EventKind.WRITE) and e.file_after]
    for k, (n, event) in enumerate(changes):
        path, (chars, lines) = event.fields["path"], event.file_after or (0, 0)
        again = next((m for m, later in changes[k + 1 :] if later.fields["path"] == path), len(flat))
        known = reads.get(path, [])
        after = next(
            (r for m, r in known if n < m < again and not any(event.segment <= c <= r.segment for c in compacted)),
            None,
        )
        before = next((r for m, r in reversed(known) if m < n), None)
        read = after or before
        if read is not None and read.file_after:
            tokens: int | None = round(chars * read.target / read.file_after[0])
        else:
            tokens = read_tokens_of_file(AgentName.CLAUDE_CODE, chars)
        if tokens is not None:
            event.fields["file_after"] = {"tokens": max(1, tokens), "lines": lines}


def _whole_from_part(event: EventDraft, files: dict[str, int], file_lines: dict[str, int]) -> None:
    """A file only read in part: its whole size is the part's, per line, times the lines the Read said
    the file has (what a compaction re-reads, if the file is among the latest)."""
    path, part, total = event.fields["reads"], event.lines, event.total_lines
    if part and total and part < total:
        files[path] = max(1, event.sizes["output"] * total // part)
        file_lines[path] = total
    elif part:
        files[path] = max(1, event.sizes["output"])
        file_lines[path] = part
