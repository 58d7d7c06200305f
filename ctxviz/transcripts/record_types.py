"""The record types that identify two agents' JSONL files, shared by detection (each reader module tells
its agent's files by them) and parsing (a record of another type is reported and skipped)."""

from __future__ import annotations

CODEX_TOP_TYPES = frozenset({"session_meta", "turn_context", "response_item", "compacted", "event_msg"})
GROK_UPDATE_METHODS = frozenset({"session/update", "_x.ai/session/update"})  # the ACP method, and x.ai's own
