"""The update methods of a grok-build event log: detection tells the log by them, parsing reports and skips
an update of any other method."""

from __future__ import annotations

GROK_UPDATE_METHODS = frozenset({"session/update", "_x.ai/session/update"})  # the ACP method, and x.ai's own
