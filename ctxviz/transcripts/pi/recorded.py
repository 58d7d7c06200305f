"""A pi session as ``fidelity`` replays it: each answered call's usage, what pi could count between calls
(its own chars / 4 estimate of each message), and each compaction with ``tokensBefore`` and what it kept
(the entries from the first kept one on, and the summary), on the session's current branch."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxviz.kinds import AgentName
from ctxviz.recorded import RecordedCall, RecordedCompaction, RecordedSession
from ctxviz.tokens import estimate
from ctxviz.transcripts.jsonl import count, part_texts, text_size
from ctxviz.transcripts.model_windows import profile_window
from ctxviz.transcripts.pi.session import Parsed, current_branch, entry_key, first_kept, usage_size
from ctxviz.transcripts.protocol import MODEL_NOT_RECORDED


def _tokens(entry: Mapping[str, Any]) -> int:
    """What pi's own estimate gives an entry (chars / 4 of its text, a tool call's name and arguments)."""
    kind = entry.get("type")
    if kind == "compaction" or kind == "branch_summary":
        return estimate(len(str(entry.get("summary") or "")))
    if kind == "custom_message":
        return estimate(text_size(entry.get("content")))
    message = entry.get("message") if kind == "message" else None
    if not isinstance(message, dict):
        return 0
    content = message.get("content")
    if message.get("role") == "bashExecution":
        return estimate(len(str(message.get("command") or "")) + text_size(message.get("output")))
    if message.get("role") != "assistant":
        return estimate(len(part_texts(content)) if isinstance(content, list) else text_size(content))
    chars = 0
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and part.get("type") == "toolCall":
            chars += len(str(part.get("name") or "")) + len(json.dumps(part.get("arguments")))
        elif isinstance(part, dict):
            chars += len(str(part.get("text") or part.get("thinking") or ""))
    return estimate(chars)


def recorded_session(state: Parsed, path: Path) -> RecordedSession:
    """Pure: a parsed pi session → what ``fidelity`` replays. A compaction's ``kept`` is what pi counted
    for the entries it kept (measured calls' usage between them, its estimate after the last) plus its
    summary: all known when it compacted."""
    branch, _ = current_branch(state.entries)
    order = [entry_key(number, entry) for number, entry in branch]
    used: list[int] = []
    output: list[int] = []
    added: list[int] = []
    after_compaction: dict[int, int] = {}
    compactions: list[RecordedCompaction] = []
    before_first = 0
    model = MODEL_NOT_RECORDED
    # pi's count of the context just before each entry (the last call's total plus its estimate since):
    # what a compaction keeps is measured as the count now less the count where the kept part starts
    running: list[int] = []
    for position, (_, entry) in enumerate(branch):
        running.append(used[-1] + output[-1] + added[-1] if used else before_first)
        message = entry.get("message") if entry.get("type") == "message" else None
        size = usage_size(message.get("usage")) if isinstance(message, dict) else None
        if isinstance(message, dict) and message.get("role") == "assistant" and size is not None:
            used.append(size)
            output.append(count(message["usage"].get("output")) or 0)
            added.append(0)
            model = str(message.get("model") or model)
            continue
        if entry.get("type") == "compaction" and used:
            first = first_kept(entry)
            kept_tokens = running[position] - running[order.index(first)] if first in order else 0
            pre = entry.get("tokensBefore")
            compactions.append(RecordedCompaction(len(used), pre if isinstance(pre, int) else None, None,
                                                  max(0, kept_tokens) + _tokens(entry), None))  # fmt: skip
            after_compaction[len(used) - 1] = 0
            continue
        tokens = _tokens(entry)
        if not used:
            before_first += tokens
            continue
        added[-1] += tokens
        if len(used) - 1 in after_compaction:
            after_compaction[len(used) - 1] += tokens
    window, _ = profile_window(AgentName.PI, model)
    sizes = zip(used, output, added, strict=True)
    calls = tuple(RecordedCall(u, o, a, after_compaction.get(n, 0)) for n, (u, o, a) in enumerate(sizes))
    version = state.header.get("version")
    return RecordedSession(AgentName.PI, str(state.header.get("id") or path.stem),
                           str(version) if version is not None else None, model, window, calls,
                           tuple(compactions), max(0, used[0] - before_first) if used else 0,
                           tuple(state.problems))  # fmt: skip


def read_recorded(path: Path) -> RecordedSession:
    """The session at ``path`` for ``fidelity`` (``InputError`` when unreadable or no call is recorded)."""
    from ctxviz.transcripts.jsonl import records
    from ctxviz.transcripts.pi.session import parse
    from ctxviz.transcripts.rows import nothing_measured

    problems: list[str] = []
    state = parse(records(path, problems), str(path))
    state.problems[:0] = problems
    session = recorded_session(state, path)
    if not session.calls:
        raise nothing_measured(path, AgentName.PI, "no assistant message carries usage")
    return session
