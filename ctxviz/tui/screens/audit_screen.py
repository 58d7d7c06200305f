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
_FINDINGS = "Findings (⏎ opens both replays side by side)"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "—"


def _input_tokens(saved: int, sent: int) -> Text:
    """What a finding's replay changes in input tokens, worded as ``ctxviz audit`` words it: a what-if that
    costs more "sends N more", never a negative saving."""
    if saved > 0:
        return Text(f"saves {saved:,} ({_share(saved, sent)})", style="green")
    if saved == 0:
        return Text("sends the same")
    return Text(f"sends {-saved:,} more ({_share(-saved, sent)})", style="red")


def _compactions(saved: int) -> str:
    if saved == 0:
        return "as many"
    return f"{saved:,} fewer" if saved > 0 else f"{-saved:,} more"


def _cut(text: str, width: int) -> Text:
    """``text`` in ``width`` cells; a path keeps its end (the file's name), anything else its start."""
    if len(text) <= width:
        return Text(text)
    if "/" in text and " " not in text:
        return Text("…" + text[len(text) - width + 1 :])
    return Text(text[: max(width - 1, 0)] + "…")


def _fill(table: DataTable[Any], columns: Sequence[str], rows: list[list[str | Text]], *, free: int,
          width: int, numbers: frozenset[int] = frozenset()) -> None:  # fmt: skip
    """``rows`` into ``table``, column ``free`` cut with … to the width the others leave (each column has
    a cell's padding on both sides; the vertical scrollbar takes two); the ``numbers`` columns to the right,
    so that their digits line up."""
    widths = [max([len(columns[c]), *(len(row[c]) for row in rows)]) for c in range(len(columns))]
    widths[free] = max(width - sum(w + 2 for c, w in enumerate(widths) if c != free) - 2 - 2, len(columns[free]), 8)
    table.clear(columns=True)
    for c, (column, column_width) in enumerate(zip(columns, widths, strict=True)):
        table.add_column(Text(column, justify="right") if c in numbers else column, width=column_width)
    for row in rows:
        cell = row[free]
        row[free] = _cut(cell if isinstance(cell, str) else cell.plain, widths[free])
        table.add_row(*(Text(str(cell), justify="right") if c in numbers else cell for c, cell in enumerate(row)))


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
        Binding("escape", "back", "Back"),
    ]

    def __init__(
        self,
        document: dict[str, Any],
        findings: Sequence[Finding] | None,
        open_comparison: Callable[[Finding], Comparison],
        *,
        is_child: bool = False,
    ) -> None:
        super().__init__()
        self.is_child = is_child  # opened over the timeline (``a``), not as the first screen
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
        yield Label(Text(_FINDINGS if self.findings else f"No findings: {d['not_replayed']}"),
                    classes="audit-heading", id="findings-heading")  # fmt: skip
        yield DataTable(id="audit-findings", cursor_type="row")
        yield Label(f"What carried most ({len(d['items']):,} items)", classes="audit-heading")
        yield DataTable(id="audit-items", cursor_type="row")
        yield KeyBar()

    def on_mount(self) -> None:
        self._fill()

    def on_resize(self) -> None:
        self._fill()

    def _fill(self) -> None:
        """Both tables, their one free-text column cut with … to what the screen's width leaves it."""
        sent = self.document["input_tokens"]
        findings: list[list[str | Text]] = [
            [
                finding.kind,
                _input_tokens(finding.input_tokens_saved, sent),
                _compactions(finding.compactions_saved),
                " ".join(finding.what_if),
            ]
            for finding in self.findings
        ]
        columns = ["finding", "input tokens (replayed)", "compactions", "replay with"]
        # a narrow screen cut the one column to act on ("--set stale_reads…"): a compactions column that says
        # "as many" in every row goes first, said once in the heading
        same = bool(findings) and all(row[2] == _compactions(0) for row in findings)
        fixed = sum(max(len(columns[c]), *(len(row[c]) for row in findings)) + 2 for c in range(3)) if findings else 0
        widest = max((len(row[3]) for row in findings), default=0)
        drop = same and fixed + widest + 2 + 4 > self.size.width
        if drop:
            columns.pop(2)
            findings = [row[:2] + row[3:] for row in findings]
        if self.findings:
            heading = f"{_FINDINGS[:-1]}; compactions: as many in each)" if drop else _FINDINGS
            self.query_one("#findings-heading", Label).update(heading)
        _fill(self.query_one("#audit-findings", DataTable), columns, findings, free=len(columns) - 1,
              width=self.size.width)  # fmt: skip
        items: list[list[str | Text]] = []
        for item in self.document["items"][:ITEMS_SHOWN]:
            calls = f"{item['first_call']}–{item['last_call']}" if item["calls"] > 1 else str(item["first_call"])
            items.append([item["label"], item["kind"], f"{item['tokens']:,}", calls, f"{item['carried']:,}",
                          _share(item["carried"], sent)])  # fmt: skip
        _fill(self.query_one("#audit-items", DataTable), ("item", "kind", "tokens", "calls", "carried", "share"),
              items, free=0, width=self.size.width, numbers=frozenset({2, 3, 4, 5}))  # fmt: skip

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return self.is_child
        return True

    def action_back(self) -> None:
        self.dismiss()

    def action_open_finding(self) -> None:
        table = self.query_one("#audit-findings", DataTable)
        if not self.findings or not table.has_focus:
            return
        finding = self.findings[table.cursor_row]
        self.app.push_screen(CompareScreen(self.open_comparison(finding), is_child=True))
