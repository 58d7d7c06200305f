"""The ``ctxviz`` program. Two commands are answered here, before the command-line framework is even
imported: ``ctxviz statusline``, which Claude Code runs after every assistant message, and
``ctxviz sessions --json`` with no other option, the listing tools poll (served from the summary index
when nothing changed, it is mostly start-up). Both print what the full command line prints; everything
else goes to ``ctxviz.cli``."""

from __future__ import annotations

import sys
from typing import NoReturn


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["statusline"]:
        from ctxviz.live.statusline import run

        sys.exit(run(args[1:]))
    if args == ["sessions", "--json"]:
        _sessions_json()
    from ctxviz.cli import main as cli
    from ctxviz.process import run_program

    run_program(cli)


def _sessions_json() -> NoReturn:
    """``ctxviz sessions --json``: the same bytes, exit code and messages as through click."""
    from ctxviz.errors import InputError
    from ctxviz.process import leave, one_shot_process
    from ctxviz.report.sessions import list_sessions, say

    one_shot_process()
    try:
        list_sessions(as_json=True)
    except InputError as error:
        say(error.message)
        leave(1)
    except KeyboardInterrupt:
        say("Aborted!")  # as click says it
        leave(1)
    leave(0)
