"""The ``ctxviz`` program's process, for commands that print one large result and end (``run --json``).

Such a command builds a heap of a million small objects that holds no reference cycles. Two costs
then buy nothing: the cyclic collector's passes over that heap each time it is re-enabled between
phases, and the interpreter's teardown freeing it object by object after the output is written
(about 0.1 s at 10,000 events). A command body asks for neither with ``one_shot()``; only the real
program (``run_program``) acts on it, so a command invoked in-process — by tests through click's
runner, or by the TUI — keeps the collector and a normal exit."""

from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    import click


_state = {"program": False, "one_shot": False}


def run_program(main: click.Command) -> NoReturn:
    """Run the command line; after a one-shot command, flush and leave without the teardown."""
    _state["program"] = True
    try:
        main()
    except SystemExit as leaving:
        code = leaving.code
        if not _state["one_shot"] or not (code is None or isinstance(code, int)):
            raise
        leave(code or 0)
    raise SystemExit(0)  # click's standalone mode always exits; this keeps the promise if it ever returns


def leave(code: int) -> NoReturn:
    """Flush the output and end the process now, without the interpreter's teardown."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        raise SystemExit(code) from None  # a closed pipe: let the interpreter report it as it always has
    os._exit(code)


def one_shot_process() -> None:
    """For a command answered without click (``ctxviz.main``): it is the program, and one-shot."""
    _state["program"] = True
    one_shot()


def ends_with_the_command() -> None:
    """For a command that may leave a thread reading when it ends (``watch``: a read of a large file
    cannot be interrupted): as the program, the process ends with the command, not with the thread."""
    if _state["program"]:
        _state["one_shot"] = True


def one_shot() -> None:
    """Called at the start of a command that prints its result and ends: when it runs as the program,
    the collector stays off for the rest of the process and the process ends without a teardown."""
    if _state["program"]:
        _state["one_shot"] = True
        gc.disable()
