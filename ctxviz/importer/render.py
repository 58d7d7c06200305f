"""The imported scenario as a document (for validation and the engine) and as commented YAML text."""

from __future__ import annotations

import json
import re
from typing import Any

from ctxviz.importer.draft import Draft, EventDraft
from ctxviz.importer.rules import builtin_subagent_types, read_line_number_tokens
from ctxviz.importer.session import Compaction
from ctxviz.kinds import AgentName, EventKind
from ctxviz.short_forms import undated
from ctxviz.transcripts.protocol import counted

MILLION_WINDOW = 1_000_000
SMALL_WINDOW = 200_000


def event_document(event: EventDraft) -> dict[str, Any]:
    document = _event_body(event)
    if event.cleared:
        document["cleared"] = event.cleared
    if event.count_gap:
        document["count_gap"] = event.count_gap
    if not event.call_follows:
        document["call_follows"] = False
    return document


def _event_body(event: EventDraft) -> dict[str, Any]:
    kind, fields, sizes = event.kind, event.fields, event.sizes
    if kind == EventKind.PARALLEL:
        return {"parallel": [event_document(e) for e in event.inner]}
    if kind == EventKind.REPLY:
        return {"reply": sizes["reply"]}
    if kind == EventKind.READ:
        return {"read": fields["path"]}
    if kind == EventKind.SKILL:
        return {"skill": fields["name"]}
    if kind == EventKind.PLAN:
        return {"plan": sizes["plan"]}
    if kind == EventKind.COMPACT:
        return {"compact": {"summary": sizes["summary"]}}
    return {kind: {**fields, **sizes}}


def scenario_document(draft: Draft, name: str, startup: dict[str, int]) -> dict[str, Any]:
    session = draft.session
    document: dict[str, Any] = {
        "name": name,
        "summary": f"Imported from a Claude Code session: {counted(len(session.calls), 'API call', 'API calls')}",
        "agent": AgentName.CLAUDE_CODE.value,
        "model": undated(session.model or "claude-sonnet-4-6"),
    }
    if max(session.calls, default=0) > SMALL_WINDOW:
        document["window"] = MILLION_WINDOW  # the session went past 200k: it ran with the 1M window
    auto_summaries = [
        s for s, (_, trigger, _) in zip(draft.summaries, draft.compactions, strict=True) if trigger == "auto"
    ]
    profile: dict[str, Any] = {}
    if session.version:
        profile["version"] = session.version  # the rules of the version that wrote the session
    if auto_summaries:
        profile["summary_tokens"] = auto_summaries[0]
    if len(auto_summaries) > 1:
        profile["summary_tokens_each"] = auto_summaries  # each automatic compaction its own recorded summary
    known = [[event, list(back), list(not_back)] for event, back, not_back in draft.known_restores if back or not_back]
    if known:
        profile["restore_known"] = known  # what the session's later edits show of its compactions' re-read files
    if any(isinstance(i, Compaction) and i.restores_recorded for segment in session.segments for i in segment.items):
        profile["restores_recorded"] = True  # what came back after a compaction is among the events
    line_numbers = read_line_number_tokens(AgentName.CLAUDE_CODE)
    if line_numbers and draft.files:
        profile["restore_line_number_tokens"] = line_numbers  # the files' sizes are Reads, line numbers included
    if profile:
        document["profile"] = profile
    setup: dict[str, Any] = dict(startup)
    if draft.skills:
        setup["skills"] = [{"name": n, "body": t} for n, t in draft.skills.items()]
    custom = _custom_agents(draft, document["agent"])
    if custom:
        # the user's own agents: their descriptions went out with the tool definitions, in the fitted start-up
        setup["agents"] = [{"name": name, "description": 0} for name in custom]
    document["setup"] = setup
    document["files"] = {
        path: {"tokens": tokens, "lines": draft.file_lines[path]} if path in draft.file_lines else tokens
        for path, tokens in draft.files.items()
    }
    document["events"] = [event_document(e) for e in draft.events]
    return document


def _custom_agents(draft: Draft, agent: str) -> list[str]:
    builtin = set(builtin_subagent_types(agent))
    used = (e.fields["type"] for top in draft.events for e in top.flat() if e.kind == EventKind.SUBAGENT)
    return list(dict.fromkeys(t for t in used if t not in builtin))


_PLAIN_KEY = re.compile(r"^[A-Za-z_~][\w./~-]*$")
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"})


def _key(key: str) -> str:
    return key if _PLAIN_KEY.match(key) and key.lower() not in _YAML_WORDS else _scalar(key)


# What YAML does not allow in a document even inside quotes (its printable set, YAML 1.1 §5.1); JSON
# escapes only what is below 0x20. A lone surrogate cannot be written at all: it becomes U+FFFD.
_NOT_YAML = re.compile("[\x7f-\x84\x86-\x9f\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = json.dumps(_SURROGATE.sub("\ufffd", str(value)), ensure_ascii=False)
    return _NOT_YAML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)  # a valid YAML double-quoted scalar


def _lines(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return [pad + "{}"]
        out = []
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                out.append(f"{pad}{_key(key)}:")
                out.extend(_lines(item, indent + 2))
            else:
                out.append(f"{pad}{_key(key)}: {_inline(item)}")
        return out
    if isinstance(value, list):
        if not value:
            return [pad + "[]"]
        out = []
        for item in value:
            nested = _lines(item, indent + 2)
            out.append(f"{pad}- {nested[0].lstrip()}")
            out.extend(nested[1:])
        return out
    return [pad + _scalar(value)]


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return _scalar(value)


def _event_comment(event: EventDraft, call_of_segment: dict[int, int]) -> str:
    call = call_of_segment.get(event.segment)
    where = f"before call {call}" if call is not None else "after the last call"
    how = "measured" if event.measured else "estimated from text (chars/4)"
    extra = f"; {event.comment}" if event.comment else ""
    return f"{where}, {how}{extra}"


def scenario_yaml(document: dict[str, Any], draft: Draft, header: list[str]) -> str:
    """The document as YAML with comments: how the start-up was calibrated, and for each event the
    call it precedes and whether its size is measured or estimated."""
    out = [f"# {line}" if line else "#" for line in header]
    for key, value in document.items():
        if key != "events":
            out.extend(_lines({key: value}, 0))
    out.append("events:" if draft.events else "events: []")
    # calls numbered from 1, as `ctxviz context --at N` and `ctxviz fidelity` number them
    call_of_segment = {k: k + 1 for k, seg in enumerate(draft.session.segments) if seg.used is not None}
    compactions = {segment: (trigger, pre) for segment, trigger, pre in draft.compactions}
    announced: set[int] = set()
    for event, rendered in zip(draft.events, document["events"], strict=True):
        segment = event.segment
        if segment in compactions and segment not in announced and event.kind == EventKind.COMPACT:
            announced.add(segment)
        out.append(f"  # {_event_comment(event, call_of_segment)}")
        out.extend(_lines([rendered], 2))
        if event.kind != EventKind.COMPACT and segment in compactions and segment not in announced:
            trigger, pre = compactions[segment]
            last_before = max(
                (n for n, e in enumerate(draft.events) if e.segment == segment and e.measured), default=None
            )
            if last_before is not None and draft.events[last_before] is event and trigger == "auto":
                announced.add(segment)
                pre_text = f" at {pre:,} tokens" if pre is not None else ""
                out.append(f"  # the session compacted automatically here{pre_text}: left to the engine's rules")
    return "\n".join(out) + "\n"
