"""The audit (``ctxviz audit --tui``): the findings, most saved first, and what carried most. ⏎ on a
finding opens the compare screen with its two replays: the session as recorded and its what-if."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Label

from ctxviz.report.audit_findings import Finding
from ctxviz.report.compare_runs import Comparison
from ctxviz.tui.screens.compare_screen import CompareScreen
from ctxviz.tui.widgets.key_bar import KeyBar

ITEMS_SHOWN = 30


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "—"


class AuditScreen(Screen[None]):
    DEFAULT_CSS = """
    AuditScreen #audit-head { padding: 0 1; width: 100%; }
    AuditScreen .audit-heading { padding: 1 1 0 1; text-style: bold; }
    AuditScreen #audit-findings { height: auto; max-height: 10; }
    AuditScreen #audit-items { height: 1fr; }
    """
    AUTO_FOCUS = "#audit-findings"
    BINDINGS = [
        Binding("enter", "open_finding", "Compare", key_display="⏎", priority=True),
        Binding("tab", "focus_next", "Findings/items", show=False),
    ]

    def __init__(
        self,
        document: dict[str, Any],
        findings: Sequence[Finding] | None,
        open_comparison: Callable[[Finding], Comparison],
    ) -> None:
        super().__init__()
        self.document = document
        self.findings = tuple(findings or ())
        self.open_comparison = open_comparison
        self.title = f"audit · {document['session']}"

    def compose(self) -> ComposeResult:
        d = self.document
        sent = d["input_tokens"]
        how = "measured" if d["measured"] else "replayed"
        yield Label(
            Text.assemble(
                f"{d['agent']} · {d['model']} · {d['calls']:,} calls sent ",
                (f"{sent:,}", "bold"),
                f" input tokens ({how}); each item costs its tokens × the calls it stayed",
            ),  # fmt: skip
            id="audit-head",
        )
        findings: DataTable[Any] = DataTable(id="audit-findings", cursor_type="row")
        findings.add_columns("finding", "saved (replayed)", "compactions", "replay with")
        for finding in self.findings:
            saved = finding.input_tokens_saved
            findings.add_row(
                finding.kind,
                Text(f"{saved:,} ({_share(saved, sent)})", style="green" if saved > 0 else "red"),
                f"{finding.compactions_saved:+d}",
                Text(" ".join(finding.what_if)),
            )
        yield Label(Text("Findings (⏎ opens both replays side by side)" if self.findings else
                         f"No findings: {d['not_replayed']}"), classes="audit-heading")  # fmt: skip
        yield findings
        yield Label(f"What carried most ({len(d['items']):,} items)", classes="audit-heading")
        items: DataTable[Any] = DataTable(id="audit-items", cursor_type="row")
        items.add_columns("item", "kind", "tokens", "calls", "carried", "share")
        for item in d["items"][:ITEMS_SHOWN]:
            calls = f"{item['first_call']}–{item['last_call']}" if item["calls"] > 1 else str(item["first_call"])
            items.add_row(Text(item["label"][:50]), item["kind"], f"{item['tokens']:,}", calls, f"{item['carried']:,}",
                          _share(item["carried"], sent))  # fmt: skip
        yield items
        yield KeyBar()

    def action_open_finding(self) -> None:
        table = self.query_one("#audit-findings", DataTable)
        if not self.findings or not table.has_focus:
            return
        finding = self.findings[table.cursor_row]
        self.app.push_screen(CompareScreen(self.open_comparison(finding), is_child=True))
