"""From a real Claude Code session to a scenario (``ctxviz import``) and the engine's score against the
session's measured calls (``ctxviz fidelity``)."""

from __future__ import annotations

from ctxviz.importer.fidelity import FidelityReport, fidelity
from ctxviz.importer.imported import ImportResult, MeasuredCall, session_to_scenario
from ctxviz.kinds import AgentName

# The agent whose sessions ``ctxviz import`` turns into scenarios (another agent's are replayed as recorded).
IMPORTED_AGENT = AgentName.CLAUDE_CODE

__all__ = ["IMPORTED_AGENT", "FidelityReport", "ImportResult", "MeasuredCall", "fidelity", "session_to_scenario"]
