"""The README's picture of the status line in place: the line ``ctxviz statusline`` prints for a
transcript, drawn under a prompt box the way Claude Code shows a status line, exported as SVG.

    python -m ctxviz.live.preview TRANSCRIPT OUT.svg
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

WIDTH = 100


def statusline_svg(line: str, *, title: str = "ctxviz statusline in Claude Code") -> str:
    """An SVG of ``line`` (ANSI colours kept) below an empty prompt box."""
    console = Console(record=True, width=WIDTH, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    prompt = Panel(Text("> ", style="bold"), border_style="grey50", padding=(0, 1))
    console.print(Group(prompt, Text.from_ansi(line)))
    return console.export_svg(title=title)


def _line(transcript: Path) -> str:
    from ctxviz.live.statusline import run

    payload = json.dumps({"session_id": transcript.stem, "transcript_path": str(transcript.absolute())})
    stdin, stdout = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.TextIOWrapper(io.BytesIO(payload.encode())), io.StringIO()
    try:
        run([])
        return sys.stdout.getvalue().strip()
    finally:
        sys.stdin, sys.stdout = stdin, stdout


def main(args: list[str]) -> None:
    transcript, out = Path(args[0]), Path(args[1])
    os.environ.pop("NO_COLOR", None)
    out.write_text(statusline_svg(_line(transcript)), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
