"""Opening a transcript file with its subagents: the I/O edge around the pure reader."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ctxviz.errors import FOLDER_GIVEN, InputError
from ctxviz.timeline import Timeline
from ctxviz.transcripts.claude_code.discover import COMPACTION_PREFIX, compaction_files, subagent_files
from ctxviz.transcripts.claude_code.parse import WARMUP_PROMPT, Entry, Parsed, parse_lines, prompt_key
from ctxviz.transcripts.claude_code.timeline import main_entries, timeline_of
from ctxviz.transcripts.lines import numbered_lines
from ctxviz.transcripts.packed import session_stem


@dataclass(frozen=True, slots=True)
class Reading:
    """A transcript's timeline and every damaged or unknown line met on the way (located)."""

    timeline: Timeline
    problems: tuple[str, ...]


def parse_file(path: Path) -> Parsed:
    problems: list[str] = []
    parsed = parse_lines(numbered_lines(path, problems), str(path))
    if problems:
        return Parsed(parsed.entries, tuple(problems) + parsed.problems, parsed.unknown_types,
                      parsed.session, parsed.cwd, parsed.task_prompts, parsed.lines)  # fmt: skip
    return parsed


def _nothing_read(path: Path, parsed: Parsed) -> InputError:
    if parsed.lines == 0:
        return InputError(f"{path}: empty file, nothing to read")
    if not parsed.entries and parsed.unknown_types:
        named = sorted(k for k in parsed.unknown_types if k != "None")[:4]
        kinds = f"record types: {', '.join(named)}" if named else "its records have no type"
        return InputError(f"{path}: not a Claude Code transcript ({kinds})")
    if not parsed.entries:
        lines = f"{parsed.lines:,} line{'s' if parsed.lines > 1 else ''}"
        first = f"; first: {parsed.problems[0]}" if parsed.problems else ""
        return InputError(
            f"{path}: no readable Claude Code records in {lines} (expected one JSON object a line){first}"
        )
    if parsed.unmeasured_calls:
        return InputError(f"{path}: {parsed.unmeasured_calls:,} API calls, none with its usage recorded")
    return InputError(f"{path}: no API calls recorded in this transcript yet")


def sidechain_children(parsed: Parsed, path: Path) -> dict[str, Timeline]:
    """Older layout: subagents' records inside the main file, each chain found by its root's prompt."""
    side = [e for e in parsed.entries if e.sidechain and e.uuid]
    if not side or not any(not e.sidechain and e.conversational for e in parsed.entries):
        return {}
    parent = {e.uuid: e.parent for e in side}
    roots: dict[str, str] = {}

    def root_of(uuid: str) -> str:
        trail: list[str] = []
        while uuid not in roots and parent.get(uuid) in parent and len(trail) < len(parent):
            trail.append(uuid)
            uuid = parent[uuid]  # type: ignore[assignment]
        found = roots.get(uuid, uuid)
        for step in trail:
            roots[step] = found
        roots[uuid] = found
        return found

    groups: dict[str, list[Entry]] = {}
    for entry in side:
        groups.setdefault(root_of(entry.uuid or ""), []).append(entry)
    keys = {uuid: entry.prompt_key for entry in side if (uuid := entry.uuid) in groups and entry.prompt_key}
    by_prompt = {key: tool for tool, key in parsed.task_prompts.items()}
    children: dict[str, Timeline] = {}
    for root, group in groups.items():
        key = keys.get(root)
        if key is None or key == prompt_key(WARMUP_PROMPT) or key not in by_prompt:
            continue
        if not any(e.used is not None for e in group):
            continue
        name = f"sidechain {root[:8]}"
        children[f"task:{by_prompt[key]}"] = timeline_of(group, name=name, path=str(path))
    return children


def child_timeline(path: Path) -> Timeline | None:
    """A subagent file's own timeline; a damaged or empty one is left out, not fatal."""
    try:
        parsed = parse_file(path)
    except InputError:
        return None
    entries = main_entries(parsed)
    if not any(e.used is not None for e in entries):
        return None
    return timeline_of(
        entries, name=session_stem(path), path=str(path), compaction_call=path.name.startswith(COMPACTION_PREFIX)
    )


def reading_notices(skipped: int, unmeasured_calls: int) -> list[str]:
    """What a reading says before its figures: the lines it skipped, the calls it could not measure."""
    notices = []
    if skipped:
        notices.append(f"{skipped} damaged or unknown lines skipped")
    if unmeasured_calls:
        notices.append(f"{unmeasured_calls:,} API calls carry no usage (damaged or missing): not shown as "
                       "calls; what they added is counted at the next measured call")  # fmt: skip
    return notices


def read_transcript(path: Path) -> Reading:
    """The timeline of one session file with its subagents. Raises ``InputError`` only when nothing at
    all could be read."""
    return _read(Path(path))


def _read(path: Path) -> Reading:
    if path.is_dir():
        raise InputError(f"{path}: {FOLDER_GIVEN} .jsonl file")
    parsed = parse_file(path)
    entries = main_entries(parsed)
    if not any(e.used is not None for e in entries):
        raise _nothing_read(path, parsed)
    children: dict[str, Timeline] = sidechain_children(parsed, path)
    for agent_id, file in subagent_files(path, parsed.session):
        if (child := child_timeline(file)) is not None:
            children[agent_id] = child
    compactions = [c for file in compaction_files(path, parsed.session) if (c := child_timeline(file)) is not None]
    notices = reading_notices(len(parsed.problems), parsed.unmeasured_calls)
    name, summary, problems = parsed.session or session_stem(path), parsed.cwd, parsed.problems
    del parsed  # its records are let go one by one as the timeline is built
    timeline = timeline_of(
        entries,
        name=name,
        path=str(path),
        summary=summary,
        children=children,
        compaction_children=compactions,
        notices=notices,
        compaction_call=path.name.startswith(COMPACTION_PREFIX),
        consume=True,
    )
    return Reading(timeline, problems)
