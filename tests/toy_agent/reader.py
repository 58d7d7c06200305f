"""The toy agent's sessions: ``$TOY_HOME`` (default ``~/.toy``), one JSONL file a session. Its first
record names the session and its folder; then each prompt's text and each API call's measured size:

    {"toy": "session", "id": "t-1", "cwd": "/home/me/app"}
    {"toy": "prompt", "text": "Add a test for the parser"}
    {"toy": "call", "used": 9000}

This is the whole of what a new agent's reader needs: recognise a file, find the sessions, summarise one
and read its timeline. The rest of the protocol has defaults (one file a session, watched as one file)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ctxviz.kinds import BlockKind
from ctxviz.timeline import Source, Thresholds, Timeline
from ctxviz.transcripts.assemble import Call, Item, assemble
from ctxviz.transcripts.jsonl import first_records, records
from ctxviz.transcripts.protocol import Reader, Reading, Reads, SessionRef, SessionSummary
from ctxviz.transcripts.rows import RowDetails, nothing_measured, summary_row
from ctxviz.transcripts.walk import files_under

WINDOW = 100_000  # the toy model's window, and it compacts at 90% of it
AUTOCOMPACT = 90_000


class ToyReader(Reader):
    name = "toy"
    folders = "TOY_HOME or ~/.toy"

    def detect(self, path: Path) -> bool:
        found = first_records(path, 1)
        return bool(found) and found[0].get("toy") == "session"

    def roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        root = Path(env["TOY_HOME"]) if env.get("TOY_HOME") else home / ".toy"
        return [root] if root.is_dir() else []

    def discover(self, roots: list[Path], unread: list[str] | None = None) -> list[SessionRef]:
        found = (f for root in roots for f in files_under(root, lambda name: name.endswith(".jsonl"), unread=unread))
        return [SessionRef(self.name, file, file.stem, size, mtime) for file, size, mtime in found]

    def read(self, ref: SessionRef) -> Reading:
        problems: list[str] = []
        lines = [record for _, record in records(ref.path, problems)]
        head = lines[0] if lines else {}
        events: list[Item | Call] = []
        for record in lines[1:]:
            if record.get("toy") == "prompt":
                text = str(record.get("text", ""))
                events.append(Item(BlockKind.PROMPT, text[:40], len(text) // 4))
            elif record.get("toy") == "call" and isinstance(record.get("used"), int):
                events.append(Call(record["used"]))
        if not any(isinstance(event, Call) for event in events):
            raise nothing_measured(ref.path, self.name, "no call records its size")
        steps, blocks = assemble(events, "system prompt and tools: not recorded")
        source = Source("transcript", str(head.get("id") or ref.path.stem), str(ref.path), head.get("cwd"))
        timeline = Timeline(source=source, agent=self.name, model="toy-1", window=WINDOW,
                            thresholds=Thresholds.from_trigger(AUTOCOMPACT, WINDOW), steps=steps, blocks=blocks,
                            tokenizer="chars4")  # fmt: skip
        return Reading(timeline, tuple(problems))

    def summarise(self, ref: SessionRef, reads: Reads) -> SessionSummary:
        reads.path(ref.path)  # the row holds while this file is unchanged
        reading = self.read(ref)
        timeline = reading.timeline
        details = RowDetails(timeline.source.summary or "", None, None, ["toy-1"], problems=reading.problems)
        return summary_row(ref, timeline, details)
