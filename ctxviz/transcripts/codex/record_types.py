"""The top-level record types of a Codex rollout: detection tells a rollout by them, parsing reports and
skips a record of any other type."""

from __future__ import annotations

CODEX_TOP_TYPES = frozenset({"session_meta", "turn_context", "response_item", "compacted", "event_msg"})
