"""The web server behind ``ctxviz serve``: textual-serve's, made safe to run for one person.

textual-serve answers any web page: its websocket takes any Origin and any Host, starts one app
process per connection with no cap, at whatever terminal size the URL asks, and waits without end for
an app that does not quit. Here a websocket is accepted only from the page this server served (its
Origin is this server, and the Host is the address it listens on, which also stops DNS rebinding), the
tabs and the terminal size are capped, each app process is ended with its connection (asked to quit,
then killed), and an app that fails to start says why in the page rather than only in the server's
terminal."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ipaddress
import json
import logging
import os
import shlex
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import aiohttp_jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from ctxviz.transcripts.safe import safe_text

log = logging.getLogger("ctxviz.serve")

MAX_COLUMNS, MAX_ROWS = 400, 150
"""A 4K screen at the page's font holds about 400 × 110 cells; asked for 5000 × 2000, an app took 240 MB."""
QUIT_GRACE_SECONDS = 5.0  # an app asked to quit gets this long before it is killed
KILL_WAIT_SECONDS = 5.0
STDERR_KEPT = 64 * 1024  # the end of a failed app's error output, shown in its page
PRELUDE = b"__GANGLION__\n"  # what Textual's web driver writes first (textual-serve waits for it)
PRELUDE_LINES = 10  # textual-serve's own bound on lines before it
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def clamp_size(width: object, height: object) -> tuple[int, int] | None:
    """A terminal size within the caps, or None when either side is not a whole number."""
    if type(width) is not int or type(height) is not int:  # bool, float, str, None: not a size
        return None
    return max(1, min(width, MAX_COLUMNS)), max(1, min(height, MAX_ROWS))


def split_host(host_header: str) -> tuple[str, int | None]:
    """``name[:port]`` or ``[v6]:port`` as (lower-case name, port); a missing port is HTTP's 80, one
    that is not a number None."""
    host_header = host_header.strip().lower()
    if host_header.startswith("["):
        name, _, rest = host_header[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, port_text = host_header.partition(":") if host_header.count(":") == 1 else (host_header, "", "")
    return name, int(port_text) if port_text.isdigit() else (None if port_text else 80)


def names_for(listen_host: str) -> Callable[[str], bool]:
    """Which names in a Host header reach the address the server listens on."""
    listen_host = listen_host.lower()
    if is_loopback(listen_host):
        return lambda name: name in LOOPBACK_NAMES or name == listen_host.strip("[]")
    if listen_host in WILDCARDS:  # every address of this machine: its IPs (any literal) and its names
        machine = {socket.gethostname().lower(), socket.getfqdn().lower()} | LOOPBACK_NAMES

        def this_machine(name: str) -> bool:
            try:
                ipaddress.ip_address(name)
            except ValueError:
                return name in machine
            return True

        return this_machine
    return lambda name: name == listen_host.strip("[]")


def terminal_text(text: str) -> bytes:
    """Lines for the page's terminal: inert (nothing in them acts on it) and with the CR it needs."""
    return "".join(safe_text(line) + "\r\n" for line in text.splitlines()).encode("utf-8")


def safe_lines(text: str) -> str:
    """Lines for the server's own terminal, as inert."""
    return "\n".join(safe_text(line) for line in text.splitlines())


class Tab(AppService):
    """One browser tab's app process: started without a shell, ended with its connection, its start-up
    failure written into the tab."""

    def __init__(self, argv: Sequence[str], **services: Any) -> None:
        super().__init__(shlex.join(argv), **services)
        self.argv = list(argv)
        self.failed_to_start = False
        self._stopping = False

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
            start_new_session=True,  # its own group, so whatever it starts is ended with it
            preexec_fn=_end_with_this_process,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def set_terminal_size(self, width: int, height: int) -> None:
        size = clamp_size(width, height)
        if size is not None:
            await super().set_terminal_size(*size)

    async def run(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None and process.stderr is not None
        error_output = bytearray()
        stderr_task = asyncio.create_task(_keep_tail(process.stderr, error_output))
        try:
            if await _saw_prelude(process.stdout):
                await self._relay(process.stdout)
            else:
                self.failed_to_start = True
                await _end(process)
                await stderr_task
                await self._report_failure(process, error_output.decode("utf-8", "replace"))
        except (asyncio.IncompleteReadError, ConnectionResetError):
            pass  # the app's output ended: it quit, or was ended
        finally:
            stderr_task.cancel()
            await asyncio.gather(stderr_task, return_exceptions=True)
        if not self.failed_to_start:  # the app is gone, however it ended: so is its tab (the page says so)
            if error_output:
                log.error("the app said on leaving:\n%s", safe_lines(error_output.decode("utf-8", "replace")))
            with contextlib.suppress(ConnectionError):
                await self.remote_close()

    async def _relay(self, stdout: asyncio.StreamReader) -> None:
        """textual-serve's packets: data for the terminal, meta (exit, open a URL, a download), packed."""
        handlers = {b"D": self.on_data, b"M": self.on_meta, b"P": self.on_packed}
        while True:
            kind = await stdout.readexactly(1)
            size = int.from_bytes(await stdout.readexactly(4), "big")
            payload = await stdout.readexactly(size)
            handler = handlers.get(kind)
            if handler is not None:
                await handler(payload)

    async def _report_failure(self, process: asyncio.subprocess.Process, error_output: str) -> None:
        said = error_output.strip().splitlines()[-20:] or [f"(it said nothing; exit status {process.returncode})"]
        text = "\n".join(
            [
                "ctxviz could not start in this tab.",
                "",
                *said,
                "",
                "What to do: run this in a terminal on the serving machine, which shows the same error:",
                f"  {shlex.join(self.argv)}",
                "If ctxviz is not installed for that Python, install it (pip install ctxviz, or pip install . in a",
                "clone), restart ctxviz serve, then reload this page.",
            ]
        )
        log.error("a tab's app failed to start:\n%s", safe_lines(text))
        with contextlib.suppress(ConnectionError):  # the tab is already gone
            await self.remote_write_bytes(b"\x1b[1;31m" + terminal_text(text) + b"\x1b[0m")

    async def stop(self) -> None:
        """Ask the app to quit; kill it (and its group) if it has not within the grace time."""
        if self._stopping or self._process is None:
            return
        self._stopping = True
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        if self._process.returncode is None:
            await self.send_meta({"type": "quit"})
            try:
                await asyncio.wait_for(self._process.wait(), QUIT_GRACE_SECONDS)
            except TimeoutError:
                await _end(self._process)
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None


def _parent_death_signal() -> Callable[[], None] | None:
    """Linux: a function, run in a new app process before it starts, that has it sent SIGTERM when
    this server ends however it ends (killed, crashed), when no shutdown can end the apps. Resolved
    here, so that the new process only makes one system call."""
    if not sys.platform.startswith("linux"):
        return None
    prctl, set_parent_death_signal = ctypes.CDLL(None, use_errno=True).prctl, 1  # PR_SET_PDEATHSIG

    def end_with_this_process() -> None:
        prctl(set_parent_death_signal, signal.SIGTERM)

    return end_with_this_process


_end_with_this_process = _parent_death_signal()


async def _saw_prelude(stdout: asyncio.StreamReader) -> bool:
    for _ in range(PRELUDE_LINES):
        try:
            line = await stdout.readline()
        except ValueError:  # a line past the stream's limit: not Textual's prelude
            return False
        if not line:
            return False
        if line == PRELUDE:
            return True
    return False


async def _keep_tail(stream: asyncio.StreamReader, kept: bytearray) -> None:
    while chunk := await stream.read(4096):
        kept += chunk
        del kept[:-STDERR_KEPT]


async def _end(process: asyncio.subprocess.Process) -> None:
    """The process and its group ended: terminated, then killed if it lingers; always waited for."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            await asyncio.wait_for(process.wait(), KILL_WAIT_SECONDS)
        except TimeoutError:
            continue


class OneUserServer(Server):
    """textual-serve's server with its websocket guarded: see the module's docstring."""

    def __init__(self, argv: Sequence[str], *, max_tabs: int, **options: Any) -> None:
        super().__init__(shlex.join(argv), **options)
        self.argv = list(argv)
        self.max_tabs = max_tabs
        self.tabs: set[Tab] = set()
        self._reaches_here = names_for(self.host)
        if ":" in self.host:  # an IPv6 address, bracketed in the address printed at start
            self.public_url = f"http://[{self.host.strip('[]')}]:{self.port}"

    def host_is_ours(self, host_header: str | None) -> bool:
        if not host_header:
            return False
        name, port = split_host(host_header)
        return port == self.port and self._reaches_here(name)

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._only_our_host)
        return app

    @web.middleware
    async def _only_our_host(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not self.host_is_ours(request.headers.get("Host")):
            refusal = f"ctxviz serve answers only at the address it listens on (port {self.port}).\n"
            raise web.HTTPForbidden(text=refusal)
        return await handler(request)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, its addresses built from the Host it was asked by (checked above), so it also
        works when listening on every address (0.0.0.0), where textual-serve's would name 0.0.0.0."""
        here = f"http://{request.host}"
        router = request.app.router
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"ws://{request.host}{router['websocket'].url_for()}",
            "config": {"static": {"url": f"{here}{router['static'].url_for(filename='/')}".rstrip("/") + "/"}},
            "application": {"name": self.title},
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        origin = request.headers.get("Origin", "").lower()
        if origin != f"http://{request.host}".lower():  # a page from elsewhere, or no page at all
            raise web.HTTPForbidden(text="ctxviz serve accepts a connection only from the page it served.\n")
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        if sum(not tab.failed_to_start for tab in self.tabs) >= self.max_tabs:
            message = (
                f"ctxviz serve runs at most {self.max_tabs} tabs at once (--max-tabs), and that many are open.\n"
                "Close one, then reload this page."
            )
            await websocket.send_bytes(terminal_text(message))
            await _drain(websocket)
            return websocket
        width, height = clamp_size(
            to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24)
        ) or (80, 24)
        tab = Tab(
            self.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
            debug=self.debug,
        )
        self.tabs.add(tab)
        try:
            await tab.start(width, height)
            await self._relay_browser(websocket, tab)
        finally:
            await tab.stop()
            self.tabs.discard(tab)
        return websocket

    async def _relay_browser(self, websocket: web.WebSocketResponse, tab: Tab) -> None:
        """The browser's messages to the app; one that is not what textual.js sends is ignored."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT or tab.failed_to_start:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await tab.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await tab.set_terminal_size(data.get("width"), data.get("height"))  # type: ignore[arg-type]
            elif kind == "ping" and isinstance(data, str):
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await tab.blur()
            elif kind == "focus":
                await tab.focus()

    async def on_startup(self, app: web.Application) -> None:
        await super().on_startup(app)
        # Closing the terminal sends SIGHUP, which would end the server without its shutdown: the
        # apps, each in its own process group, would be left running. It leaves as Ctrl+C does.
        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self.request_exit)

    async def on_shutdown(self, app: web.Application) -> None:
        await asyncio.gather(*(tab.stop() for tab in list(self.tabs)), return_exceptions=True)


async def _drain(websocket: web.WebSocketResponse) -> None:
    """Hold a tab that only shows a message open until the browser leaves (a closed one hides it)."""
    async for _ in websocket:
        pass
