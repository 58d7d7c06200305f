"""``ctxviz audit`` on a terminal: the ``ctxviz.audit/1`` document as Rich tables."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ctxviz.report.audit import CarriedCost
from ctxviz.transcripts.protocol import counted


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "—"


def audit_renderable(document: dict[str, Any], top: int) -> Group:
    sent = document["input_tokens"]
    measured = "measured by the API" if document["measured"] else "replayed"
    head = Text.assemble(
        (f"{document['session']}", "bold"),
        f" ({document['agent']}, {document['model']}): {counted(document['calls'], 'call', 'calls')} sent ",
        (f"{sent:,}", "bold"),
        f" input tokens ({measured}).",
    )
    parts: list[Any] = [head]
    if document["unaccounted"]:
        missing = document["unaccounted"]
        parts.append(Text(f"{missing:,} of them ({_share(missing, sent)}) are in no item: the window's items do "
                          "not add up to what the calls sent.", style="yellow"))  # fmt: skip
    categories = Table("category", "carried", "share", title="Carried, by category", title_justify="left")
    for name, tokens in document["categories"].items():
        categories.add_row(name, f"{tokens:,}", _share(tokens, sent))
    parts.append(categories)
    title = f"What carried most (tokens × calls; {len(document['items']):,} items)"
    rows = [
        (Text(item["label"]), item["kind"], f"{item['tokens']:,}",
         f"{item['first_call']}–{item['last_call']}" if item["calls"] > 1 else f"{item['first_call']}",
         f"{item['carried']:,}", _share(item["carried"], sent))
        for item in document["items"][:top]
    ]  # fmt: skip
    items = Table(title=title, title_justify="left")
    for n, name in enumerate(("item", "kind", "tokens", "calls", "carried", "share")):
        widest = max((len(str(row[n])) for row in rows), default=0)
        if n < 2:  # the label and kind give way; the figures never do
            items.add_column(name, no_wrap=True, overflow="ellipsis", max_width=(22, 12)[n])
        else:
            items.add_column(name, no_wrap=True, justify="right", min_width=max(widest, len(name)))
    for row in rows:
        items.add_row(*row)
    parts.append(items)
    if document["findings"] is None:
        parts.append(Text(f"No findings: {document['not_replayed']}", style="yellow"))
    else:
        parts += _findings(document, sent)
    cost = document["cost"]
    if cost["known"]:
        parts.append(Text(f"Input at {cost['model']}'s prices: ~${cost['input_dollars']:,.2f} ({cost['note']}; "
                          f"prices: {cost['prices']})."))  # fmt: skip
    else:
        parts.append(Text(f"Cost: no price known for {cost['model']} (prices: {cost['prices']})."))
    return Group(*parts)


def _compacts(calls: list[int], last: int) -> str:
    """When a replay compacts, by the first call that sends each compaction's window."""
    before = [f"call {call:,}" for call in calls if call <= last]
    if not before:
        return "does not compact"
    return "compacts before " + ", ".join(before) + (" and after the last call" if len(before) < len(calls) else "")


def _outcome(finding: dict[str, Any], sent: int, calls: int) -> Text:
    """What the what-if's replay changes, said plainly: a saving, nothing, or more sent (and why, when its
    compactions moved)."""
    saved, compactions = finding["input_tokens_saved"], finding["compactions_saved"]
    if saved > 0:
        text = Text.assemble("Saves ", (f"{saved:,}", "bold green"), f" input tokens ({_share(saved, sent)})")
    elif saved == 0:
        text = Text("Saves no input tokens: both replays send the same")
    else:
        text = Text.assemble("Saves no input tokens: the what-if sends ", (f"{-saved:,}", "bold red"),
                             f" more ({_share(-saved, sent)})")  # fmt: skip
    if compactions:
        fewer = f", {compactions} compaction(s) fewer"
        text.append(fewer if compactions > 0 else f", {-compactions} more compaction(s)")
    recorded, what_if = finding["compaction_calls"]["as_recorded"], finding["compaction_calls"]["what_if"]
    if saved <= 0 and recorded != what_if:
        text.append(f"; the what-if {_compacts(what_if, calls)}, the as-recorded replay {_compacts(recorded, calls)}")
    return text


def _findings(document: dict[str, Any], sent: int) -> list[Any]:
    """The findings that save input tokens, most first, then those whose replay sends as much or more."""
    saving = [f for f in document["findings"] if f["input_tokens_saved"] > 0]
    not_saving = [f for f in document["findings"] if f["input_tokens_saved"] <= 0]
    target = document["file"] or document["session"]
    parts: list[Any] = []
    for heading, group in (
        ("Findings, by input tokens saved (as recorded and what-if, both replayed):", saving),
        ("Replayed, and they would not have sent fewer input tokens:", not_saving),
    ):
        if not group:
            continue
        parts.append(Text(heading, style="bold"))
        for n, finding in enumerate(group, 1):
            line = Text.assemble(f"{n}. ", (finding["kind"], "bold"), f": {finding['title']}. ")
            line.append_text(_outcome(finding, sent, document["calls"]))
            line.append(f". Replay it: ctxviz compare {target} {' '.join(finding['what_if'])}")
            parts.append(line)
            if finding["items"]:
                parts.append(
                    Text("   " + "; ".join(finding["items"][:5]), style="dim", no_wrap=True, overflow="ellipsis")
                )
    return parts


def carried_renderable(cost: CarriedCost, count: int) -> Table:
    """The items that carried most over the calls so far: what ``ctxviz context`` adds below the window."""
    calls = counted(cost.calls, "call", "calls")
    title = f"Carried most so far (tokens × calls; {calls} sent {cost.input_tokens:,}; ctxviz audit)"
    table = Table(title=title, title_justify="left", box=None, padding=(0, 1))
    table.add_column("carried", justify="right", no_wrap=True, min_width=9)
    table.add_column("share", justify="right", no_wrap=True, min_width=5)
    table.add_column("calls", justify="right", no_wrap=True, min_width=7)
    table.add_column("item", no_wrap=True, overflow="ellipsis", max_width=48)
    for item in cost.items[:count]:
        calls = f"{item.first_call}–{item.last_call}" if item.calls > 1 else str(item.first_call)
        table.add_row(f"{item.carried:,}", _share(item.carried, cost.input_tokens), calls, Text(item.label))
    return table
