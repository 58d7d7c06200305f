"""The TUI opened on an audit (``ctxviz audit --tui``): the audit screen is the first screen."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual.screen import Screen

from ctxviz.report.audit_findings import Finding
from ctxviz.report.compare_runs import Comparison
from ctxviz.timeline import Timeline
from ctxviz.tui.app import DARK, CtxvizApp
from ctxviz.tui.screens.audit_screen import AuditScreen


class AuditApp(CtxvizApp):
    def __init__(
        self,
        timeline: Timeline,
        document: dict[str, Any],
        findings: Sequence[Finding] | None,
        open_comparison: Callable[[Finding], Comparison],
        *,
        theme: str = DARK,
    ) -> None:
        super().__init__(timeline, theme=theme)
        self.document, self.findings, self.open_comparison = document, findings, open_comparison
        self.title = f"ctxviz · audit · {document['session']}"

    def get_default_screen(self) -> Screen[None]:
        return AuditScreen(self.document, self.findings, self.open_comparison)
