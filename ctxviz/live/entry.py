"""The ``ctxviz`` program. ``ctxviz statusline`` runs after every assistant message in Claude Code, so
it is answered here, before the command-line framework is even imported; everything else goes to
``ctxviz.cli``."""

from __future__ import annotations

import sys


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["statusline"]:
        from ctxviz.live.statusline import run

        sys.exit(run(args[1:]))
    from ctxviz.cli import main as cli
    from ctxviz.process import run_program

    run_program(cli)
