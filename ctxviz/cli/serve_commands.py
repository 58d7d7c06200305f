"""``ctxviz serve``: the TUI as a web page (textual-serve), for a teacher in front of a class.

Each browser tab that connects starts its own ``ctxviz play`` process on the server's machine (the
server itself is in ``one_user_server``). The server listens on 127.0.0.1 unless the user names another
host, and then says what that exposes."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import click

from ctxviz.cli.common import fail, tokenizer_name

DEFAULT_HOST, DEFAULT_PORT, DEFAULT_MAX_TABS = "127.0.0.1", 8000, 8


# textual-serve's page asks Google Fonts for its font: a request to the internet from every browser
# that opens the page. ctxviz serves the same page without it (the terminal falls back to a local
# monospace font), derived at run time from the installed template rather than a copy of it.
_WEB_FONT = re.compile(r"<link\s+rel=\"stylesheet\"\s+href=\"https://fonts\.googleapis\.com[^\"]*\"\s*/>\s*")


def offline_page(template: str) -> str:
    return _WEB_FONT.sub("", template)


def play_argv(path: str | None, tokenizer: str, allow_outside: bool) -> list[str]:
    """What each browser tab runs: this same Python, so the same installed ctxviz. ``-P`` keeps the
    current folder off the module path, where a clone's ``ctxviz/`` folder would be imported instead
    (``-I`` would too, but also drop a ``pip install --user`` ctxviz)."""
    words = [sys.executable, "-P", "-m", "ctxviz", "--tokenizer", tokenizer, "play"]
    if allow_outside:
        words.append("--allow-outside")
    if path is not None:
        words.append(path)
    return words


@click.command(short_help="Serve the TUI as a web page (to this machine only, by default).")
@click.argument("path", required=False)
@click.option(
    "--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True, help="The port to listen on."
)
@click.option(
    "--host",
    metavar="ADDRESS",
    default=DEFAULT_HOST,
    show_default=True,
    help="Listen on this address (others: a warning).",
)
@click.option(
    "--max-tabs",
    type=click.IntRange(1, 64),
    default=DEFAULT_MAX_TABS,
    show_default=True,
    help="Tabs open at once (each runs its own app process).",
)
@click.option("--allow-outside", is_flag=True, help="Let a scenario's file: sizes read outside its folder.")
@click.pass_context
def serve(ctx: click.Context, path: str | None, port: int, host: str, max_tabs: int, allow_outside: bool) -> None:
    """Serve the TUI as a web page (default scenario unless PATH is given); open the printed address.

    Whoever reaches the port can use the app, which reads files on this machine (your sessions among
    them): by default only this machine can."""
    from ctxviz.errors import InputError
    from ctxviz.sources import open_timeline
    from ctxviz.transcripts.safe import safe_text

    tokenizer = tokenizer_name(ctx)
    try:  # a bad scenario is reported here, once, not in every browser tab
        timeline = open_timeline(path, tokenizer=tokenizer, allow_outside=allow_outside)
    except InputError as error:
        fail(error.message)
    import textual_serve

    from ctxviz.cli.one_user_server import OneUserServer, is_loopback

    if not is_loopback(host):
        click.echo(
            f"ctxviz: warning: listening on {host}, not only this machine: anyone who can reach port {port} "
            "can open the app (which reads files here, e.g. your sessions through o). Use it on a network you trust.",
            err=True,
        )
    package = Path(textual_serve.__file__).parent
    title = f"ctxviz · {safe_text(timeline.source.name)}"  # a session's id is the file's text
    with tempfile.TemporaryDirectory(prefix="ctxviz-serve-") as pages:
        page = (package / "templates" / "app_index.html").read_text(encoding="utf-8")
        (Path(pages) / "app_index.html").write_text(offline_page(page), encoding="utf-8")
        server = OneUserServer(
            play_argv(path, tokenizer, allow_outside),
            max_tabs=max_tabs,
            host=host,
            port=port,
            title=title,
            statics_path=package / "static",
            templates_path=pages,
        )
        try:
            server.serve()
        except OSError as error:  # the port is taken, or the address is not this machine's
            fail(f"ctxviz serve: cannot listen on {host}:{port}: {error.strerror or error}")


COMMANDS: list[click.Command] = [serve]
