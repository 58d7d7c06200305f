"""``ctxviz statusline``: one line for Claude Code's status bar, printed after every assistant message.

It must be fast and must never break the bar. So this module imports only the standard library; when
the cache header says nothing was appended since the last run, the line comes from it alone, and only
when there is something new does the reader get imported (``ctxviz.live.cache``). Any problem prints
a short fallback line and exits 0; ``--debug`` tells why on stderr.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxviz.cache_file import CACHE_FORMAT, MAX_CACHE_BYTES, cache_file, unpack_cache
from ctxviz.regular_file import read_regular
from ctxviz.short_forms import humanize
from ctxviz.transcripts.safe import safe_text

if TYPE_CHECKING:
    from ctxviz.transcripts.protocol import Reader

DEFAULT_FORMAT = "{bar} {used}/{window} {percent} · {to_compact} · {biggest}"
FIELDS = ("bar", "used", "window", "percent", "left", "to_compact", "biggest", "item", "item_tokens", "model",
          "calls", "session", "used_tokens", "window_tokens")  # fmt: skip
FALLBACK = "ctxviz: context unknown"
NO_CALL_YET = "ctxviz: no API call yet"
BAR_CELLS = 5
SEPARATOR = " · "
_COLOURS = {"ok": "\x1b[32m", "warning": "\x1b[33m", "over": "\x1b[31m"}
_RESET = "\x1b[0m"
USAGE = """Usage: ctxviz statusline [--format TEXT] [--no-color] [--debug]

  One line for Claude Code's statusLine: reads the JSON Claude Code passes on
  stdin, prints the context of the session's last API call (the figure
  `ctxviz context` gives), what is left before auto-compaction, and the
  largest item in the window.

Options:
{fields}
                 Parts between " · " whose fields are empty are left out.
                 Default:
                 "{default}"
  --no-color     No colours (also when NO_COLOR is set).
  --debug        On a problem, say on stderr why the fallback line was
                 printed.
"""


def usage() -> str:
    """``--help``'s text within 79 columns: the list of fields is wrapped, not written on one line."""
    import textwrap

    fields = textwrap.fill(f"Fields in braces: {', '.join(FIELDS)}.", width=79, initial_indent="  --format TEXT  ",
                           subsequent_indent=" " * 17, break_on_hyphens=False)  # fmt: skip
    return USAGE.format(fields=fields, default=DEFAULT_FORMAT)


class StatuslineError(Exception):
    """Why the fallback line is printed (told under --debug)."""


def _payload(text: bytes) -> tuple[Path, int | None]:
    if not text.strip():
        raise StatuslineError("nothing on stdin (Claude Code passes the session as JSON)")
    try:
        payload = json.loads(text)
    except ValueError as error:
        raise StatuslineError(f"stdin is not JSON: {error}") from None
    if not isinstance(payload, dict):
        raise StatuslineError("stdin is JSON but not an object")
    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        raise StatuslineError("no transcript_path in the JSON on stdin")
    window = None
    context_window = payload.get("context_window")
    if isinstance(context_window, dict):
        size = context_window.get("context_window_size")
        if isinstance(size, int) and not isinstance(size, bool) and size > 0:
            window = size
    return Path(transcript).expanduser().absolute(), window


def _cached_header(cache: Path, transcript: Path, window: int | None) -> tuple[dict[str, Any] | None, bool]:
    """The cache header of this file by this version (None when there is none) and whether it is current:
    same file, same size, nothing appended, same window."""
    try:
        unpacked = unpack_cache(read_regular(cache, MAX_CACHE_BYTES))
        stat = os.stat(transcript)
    except OSError:
        return None, False
    if unpacked is None or not _well_formed(unpacked[0].get("figures")):
        return None, False
    header = unpacked[0]
    from ctxviz import __version__

    if not (header.get("format") == CACHE_FORMAT and header.get("version") == __version__
            and header.get("path") == str(transcript)):  # fmt: skip
        return None, False
    current = (
        header.get("identity") == [stat.st_dev, stat.st_ino]
        and header.get("offset") == stat.st_size
        and header.get("window_asked") == window
    )
    return header, current


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def _well_formed(figures: object) -> bool:
    """Whether a cache's figures are of the shape and range written (a cache file is input like any
    other: a tampered one is rebuilt from the transcript, never shown). ``calls`` is None for a session
    read from its last compaction."""
    if figures is None:
        return True
    if not isinstance(figures, dict):
        return False
    biggest = figures.get("biggest")
    return (
        all(_count(figures.get(key)) for key in ("used", "warning", "blocking"))
        and (figures.get("calls") is None or _count(figures.get("calls")))
        and _count(figures.get("window")) and figures["window"] > 0
        and (figures.get("autocompact") is None or _count(figures.get("autocompact")))
        and isinstance(figures.get("model"), str)
        and (biggest is None or isinstance(biggest, list) and len(biggest) == 2 and isinstance(biggest[0], str)
             and _count(biggest[1]))
    )  # fmt: skip


def _not_followed_by_appends(transcript: Path, previous: dict[str, Any] | None) -> Reader | None:
    """The reader of another agent's session (a Codex rollout, a pi session), whose figures are read
    through its reader rather than the appends follower's cache. The registry, whose import would cost
    a statusline run more than the rest, is asked once a file: the cache's header says which agent's it
    is after that (none: the appends follower's), and a file whose first bytes name a ``sessionId``
    (every Claude Code session does early) is the appends follower's without asking."""
    if previous is not None and not previous.get("agent"):
        return None
    try:
        if previous is None and b'"sessionId"' in read_regular(transcript, 64 * 1024):
            return None
    except OSError:
        return None
    from ctxviz.errors import InputError
    from ctxviz.transcripts.registry import reader_for, reader_named

    try:
        reader = reader_named(str(previous["agent"])) if previous is not None else reader_for(transcript)
    except InputError:  # an agent no reader has: a header not of ours
        reader = reader_for(transcript)
    return reader if reader is not None and not reader.follows_by_appends else None


def figures_for(transcript: Path, window: int | None, problems: list[str], count_calls: bool = False) -> dict[str, Any]:
    """The cache header with the figures to print. ``count_calls``: the template shows the number of calls,
    which a session read from its last compaction does not know (it is then read whole, once)."""
    if not transcript.is_file():
        raise StatuslineError(f"{transcript}: no such transcript")
    cache = cache_file(transcript)
    previous, current = _cached_header(cache, transcript, window)
    header = previous if current else None
    figures = header.get("figures") if header is not None else None
    if header is None or (count_calls and isinstance(figures, dict) and figures.get("calls") is None):
        if (reader := _not_followed_by_appends(transcript, previous)) is not None:
            from ctxviz.live.other_agents import refresh_other

            return refresh_other(cache, reader, transcript, window, problems, count_calls=count_calls)
        from ctxviz.live.cache import refresh

        try:
            header = refresh(cache, transcript, window, problems, count_calls=count_calls)
        except FileNotFoundError as error:
            raise StatuslineError(str(error)) from None
    return header


def _level(figures: dict[str, Any]) -> str:
    used = figures["used"]
    limit = figures["autocompact"] if figures["autocompact"] is not None else figures["blocking"]
    if used >= limit:
        return "over"
    return "warning" if used >= figures["warning"] else "ok"


def fields_of(header: dict[str, Any], colour: bool) -> dict[str, str]:
    figures = header["figures"]
    used, window = figures["used"], figures["window"]
    filled = min(BAR_CELLS, max(0, round(used / window * BAR_CELLS))) if window else 0
    bar = "▰" * filled + "▱" * (BAR_CELLS - filled)
    percent = f"{used / window * 100:.0f}%" if window else "?"
    if colour:
        tint = _COLOURS[_level(figures)]
        bar, percent = f"{tint}{bar}{_RESET}", f"{tint}{percent}{_RESET}"
    limit = figures["autocompact"]
    left = max(0, limit - used) if limit is not None else None
    if left is None:
        to_compact = "auto-compact off"
    else:
        to_compact = f"{humanize(left)} to compact" if left > 0 else "compacting next"
    biggest = figures["biggest"]
    return {
        "bar": bar,
        "used": humanize(used),
        "window": humanize(window),
        "percent": percent,
        "left": humanize(left) if left is not None else "",
        "to_compact": to_compact,
        "biggest": f"biggest: {safe_text(biggest[0])} {humanize(biggest[1])}" if biggest else "",
        "item": safe_text(biggest[0]) if biggest else "",
        "item_tokens": humanize(biggest[1]) if biggest else "",
        "model": safe_text(figures["model"]),
        "calls": str(figures["calls"]),
        "session": safe_text(str(header.get("session") or "")),
        "used_tokens": str(used),  # exact, for scripts
        "window_tokens": str(window),
    }


def render(template: str, fields: dict[str, str]) -> str:
    """``template`` filled in; a part between separators whose fields are all empty is left out."""
    parts = []
    for part in template.split(SEPARATOR):
        try:
            text = part.format_map(fields)
        except KeyError as error:
            raise StatuslineError(
                f"--format: {{{error.args[0]}}} is not a field (fields: {', '.join(FIELDS)})"
            ) from None
        except (IndexError, ValueError) as error:
            raise StatuslineError(f"--format: {error}") from None
        if text.strip() or not part.strip():
            parts.append(text)
    return SEPARATOR.join(parts).replace("\n", " ")


def _shows_calls(template: str) -> bool:
    # not string.Formatter: importing it imports re, which a warm run does without
    return any(part.startswith(("calls}", "calls:", "calls!")) for part in template.split("{"))


def statusline(stdin: bytes, template: str, colour: bool, problems: list[str]) -> str:
    transcript, window = _payload(stdin)
    header = figures_for(transcript, window, problems, count_calls=_shows_calls(template))
    if header.get("figures") is None:  # a new session, or a file with no Claude Code call in it
        problems.append(f"{transcript}: no API call with usage recorded in it yet")
        return NO_CALL_YET
    return render(template, fields_of(header, colour))


def run(args: list[str]) -> int:
    """The whole command: options, stdin, one line on stdout, exit 0 whatever happens."""
    template, debug, colour = DEFAULT_FORMAT, False, not os.environ.get("NO_COLOR")
    rest, unknown = list(args), []
    while rest:
        arg = rest.pop(0)
        if arg == "--debug":
            debug = True
        elif arg == "--no-color":
            colour = False
        elif arg == "--format" and rest:
            template = rest.pop(0)
        elif arg.startswith("--format="):
            template = arg.removeprefix("--format=")
        elif arg in ("-h", "--help"):
            sys.stdout.write(usage())
            return 0
        else:
            unknown.append(f"unknown option {arg!r} (see --help)")
    problems: list[str] = []
    try:
        if unknown:
            raise StatuslineError(unknown[0])
        stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
        line = statusline(stdin, template, colour, problems)
    except StatuslineError as error:
        line = FALLBACK
        problems.append(str(error))
    except Exception as error:  # a status bar must not break, whatever went wrong
        line = FALLBACK
        problems.append(f"{type(error).__name__}: {error}")
    sys.stdout.write(line + "\n")
    if debug:
        for problem in problems:
            print(f"ctxviz statusline: {problem}", file=sys.stderr)
    return 0
