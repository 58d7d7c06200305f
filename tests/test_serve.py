"""``ctxviz serve``: the options, the host warning; the server for one user (in process, with a stand-in
app that speaks textual-serve's protocol: Origin and Host refused, tabs and terminal size capped, every
app process ended with its connection, a failed start shown in the page); and the real thing — the
server started from a folder holding a ``ctxviz/`` folder, the page opened in headless Chromium,
checked through the DevTools protocol: the app's first screen reaches the page and its canvas is drawn
(many lit pixels in many colours), and a screenshot is taken."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ctxviz.cli import main, one_user_server
from ctxviz.cli.one_user_server import OneUserServer, clamp_size, is_loopback, split_host
from ctxviz.cli.serve_commands import offline_page, play_argv

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
# What the page's canvas must show once the app has drawn: an empty terminal has no lit pixels, and
# text with a coloured bar and legend has hundreds of colours (anti-aliasing included).
MIN_LIT, MIN_COLOURS = 10_000, 50
APP_DRAWN = b"/context"  # in the main screen's footer at any width: the app itself drew, not the splash or an error
_CANVAS_PROBE = """(() => {
  const canvas = document.querySelector('.xterm-text-layer');
  if (!canvas) return JSON.stringify({lit: 0, colours: 0});
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const seen = new Set(); let lit = 0;
  for (let i = 0; i < pixels.length; i += 4 * 7) {
    if (pixels[i + 3] > 0) { lit++; seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]); }
  }
  return JSON.stringify({lit, colours: seen.size});
})()"""


def test_loopback_hosts() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4") and not is_loopback("example.org")


def test_each_tab_runs_this_python_with_the_same_options_and_not_the_current_folder() -> None:
    assert play_argv("my scenario.yaml", "chars4", True) == [
        sys.executable, "-P", "-m", "ctxviz", "--tokenizer", "chars4", "play", "--allow-outside", "my scenario.yaml"
    ]  # fmt: skip


def test_another_host_is_warned_about_and_a_bad_scenario_fails_before_serving(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    served: list[tuple[str, int]] = []
    from textual_serve import server

    monkeypatch.setattr(server.Server, "serve", lambda self, debug=False: served.append((self.host, self.port)))
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "8123"])
    assert result.exit_code == 0 and served == [("0.0.0.0", 8123)]
    assert "warning: listening on 0.0.0.0" in result.stderr
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 0 and served[-1] == ("127.0.0.1", 8000) and "warning" not in result.stderr
    result = CliRunner().invoke(main, ["serve", "no-such-scenario"])
    assert result.exit_code == 1 and len(served) == 2


def test_the_page_title_from_the_file_is_inert(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    titles: list[str] = []
    from textual_serve import server

    monkeypatch.setattr(server.Server, "serve", lambda self, debug=False: titles.append(self.title))
    scenario = tmp_path / "s.yaml"
    scenario.write_text('name: "Mine\\e]0;owned\\a\\u202e"\nsetup: {system_prompt: 100}\nevents: []\n')
    result = CliRunner().invoke(main, ["serve", str(scenario)])
    assert result.exit_code == 0, result.output
    assert titles == ["ctxviz · Mine\ufffd]0;owned\ufffd\ufffd"]


def test_the_page_asks_nothing_of_the_internet() -> None:
    import textual_serve

    template = (Path(textual_serve.__file__).parent / "templates" / "app_index.html").read_text(encoding="utf-8")
    page = offline_page(template)
    assert "fonts.googleapis.com" in template and "https://" not in page
    assert "xterm.css" in page and "textual.js" in page


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_port(port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"ctxviz serve did not listen on port {port} within {seconds:.0f} s")


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """End a process started in its own group, and what it started: politely, then for good."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


async def _render_in_chromium(url: str, profile: Path, screenshot: Path) -> tuple[dict[str, int], bytes]:
    """What the page's canvas shows once drawn (or after a minute), and every byte the app sent it."""
    import aiohttp  # textual-serve's own dependency

    assert CHROMIUM is not None
    chrome = subprocess.Popen(
        [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0",
         "--window-size=1280,800", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its helpers (renderer, crashpad) end with it, not after the profile is gone
    )  # fmt: skip
    try:
        active = profile / "DevToolsActivePort"
        for _ in range(300):
            if active.exists() and active.read_text().strip():
                break
            await asyncio.sleep(0.1)
        devtools = active.read_text().split()[0]
        async with aiohttp.ClientSession() as http:
            pages = await (await http.get(f"http://127.0.0.1:{devtools}/json/list")).json()
            page = next(p["webSocketDebuggerUrl"] for p in pages if p["type"] == "page")
            async with http.ws_connect(page, max_msg_size=0) as ws:
                calls = 0
                app_bytes = bytearray()  # the terminal output the page received, from the DevTools events

                async def call(method: str, **params: Any) -> dict[str, Any]:
                    nonlocal calls
                    calls += 1
                    await ws.send_json({"id": calls, "method": method, "params": params})
                    while True:
                        message = await ws.receive_json()
                        if message.get("method") == "Network.webSocketFrameReceived":
                            frame = message["params"]["response"]
                            if frame["opcode"] == 2:  # binary: the terminal's bytes, in base64
                                app_bytes.extend(base64.b64decode(frame["payloadData"]))
                        if message.get("id") == calls:
                            return dict(message.get("result", {}))

                await call("Page.enable")
                await call("Network.enable")
                await call("Page.navigate", url=url)
                drawn = {"lit": 0, "colours": 0}
                for _ in range(120):  # the app process starts when the page connects: up to a minute
                    result = await call("Runtime.evaluate", expression=_CANVAS_PROBE, returnByValue=True)
                    drawn = json.loads(result["result"]["value"])
                    if drawn["lit"] >= MIN_LIT and drawn["colours"] >= MIN_COLOURS and APP_DRAWN in app_bytes:
                        break
                    await asyncio.sleep(0.5)
                await asyncio.sleep(0.5)  # let the first frame finish before the picture
                shot = await call("Page.captureScreenshot", format="png")
                screenshot.write_bytes(base64.b64decode(shot["data"]))
                return drawn, bytes(app_bytes)
    finally:
        _stop_group(chrome)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)")
def test_serve_started_in_a_clone_renders_the_app_in_headless_chromium(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    clone = tmp_path / "clone"  # a folder holding a ctxviz/ folder, which a tab must not import
    (clone / "ctxviz").mkdir(parents=True)
    (clone / "ctxviz" / "__init__.py").write_text("raise ImportError('the ctxviz folder here was imported')\n")
    entry_point = Path(sys.executable).with_name("ctxviz")  # as the README starts it
    program = [str(entry_point)] if entry_point.exists() else [sys.executable, "-P", "-m", "ctxviz"]
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [*program, "serve", "--port", str(port)],
        cwd=clone,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,  # its own process group: the app processes it starts end with it
    )
    try:
        _wait_for_port(port, 60)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
            assert "googleapis" not in response.read().decode()
        # a helper process may still flush into the profile while it is removed: not the test's concern
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
            page = f"http://127.0.0.1:{port}/"
            drawn, app_bytes = asyncio.run(_render_in_chromium(page, Path(profile), tmp_path / "page.png"))
        server_said = (tmp_path / "serve.log").read_text(errors="replace")[-2000:]
        assert APP_DRAWN in app_bytes and b"could not start" not in app_bytes, (app_bytes[-2000:], server_said)
        assert drawn["lit"] >= MIN_LIT and drawn["colours"] >= MIN_COLOURS, (drawn, server_said)
        assert (tmp_path / "page.png").read_bytes().startswith(b"\x89PNG")
    finally:
        _stop_group(server)
        log.close()


def test_a_taken_port_is_a_clear_error_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "ctxviz", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "Traceback" not in result.stderr


# A stand-in for a tab's app: it speaks textual-serve's protocol (the prelude line, then packets of a
# kind byte, a 4-byte length and the payload), says the terminal size it was started at, and either
# quits when asked or, stubborn, ignores both the quit message and SIGTERM.
_STAND_IN = """
import os, signal, sys, time
out = sys.stdout.buffer
said = ("ready %sx%s" % (os.environ["COLUMNS"], os.environ["ROWS"])).encode()
out.write(b"__GANGLION__\\n" + b"D" + len(said).to_bytes(4, "big") + said)
out.flush()
if sys.argv[1] == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(600)
while b'"quit"' not in sys.stdin.buffer.read1(4096):
    pass
"""


def _stand_in(behaviour: str) -> list[str]:
    return [sys.executable, "-c", _STAND_IN, behaviour]


class _Serving:
    """A one-user server on a free local port, in this process, until the block ends."""

    def __init__(self, argv: list[str], max_tabs: int = 8) -> None:
        import textual_serve

        self.port = _free_port()
        package = Path(textual_serve.__file__).parent
        self.server = OneUserServer(
            argv, max_tabs=max_tabs, host="127.0.0.1", port=self.port, title="t",
            statics_path=package / "static", templates_path=package / "templates",
        )  # fmt: skip
        self.here = f"127.0.0.1:{self.port}"

    async def __aenter__(self) -> _Serving:
        from aiohttp.test_utils import TestServer

        self.test_server = TestServer(await self.server._make_app(), host="127.0.0.1", port=self.port)
        await self.test_server.start_server()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.test_server.close()

    async def open_tab(self, query: str = "", origin: str | None = None, host: str | None = None) -> RawTab:
        return await _open_tab(self.port, query, origin, host)


async def _open_tab(port: int, query: str = "", origin: str | None = None, host: str | None = None) -> RawTab:
    """A websocket opened by hand, so that leaving can be as abrupt as a tab being killed; by default
    as the served page opens it."""
    here = f"127.0.0.1:{port}"
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    headers = {
        "Host": host or here,
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
        "Sec-WebSocket-Version": "13",
    }
    headers["Origin"] = f"http://{here}" if origin is None else origin
    if not headers["Origin"]:
        del headers["Origin"]
    request = f"GET /ws{query} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    writer.write(request.encode())
    status = (await asyncio.wait_for(reader.readline(), 10)).decode()
    return RawTab(int(status.split()[1]), reader, writer)


class RawTab:
    def __init__(self, status: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.status, self.reader, self.writer, self.received = status, reader, writer, b""

    async def wait_for(self, text: bytes, seconds: float = 30) -> bytes:
        """Everything received (headers and frames, unmasked from a server) once ``text`` is among it."""
        async with asyncio.timeout(seconds):
            while text not in self.received:
                chunk = await self.reader.read(65536)
                assert chunk, f"connection closed before {text!r}: {self.received[-500:]!r}"
                self.received += chunk
        return self.received

    def drop(self) -> None:
        """Leave as a killed tab does: no closing handshake, the socket just goes."""
        self.writer.transport.abort()


def _gone(pid: int) -> bool:
    """Ended: no such process, or (Linux) a zombie that an orphan's new parent has not reaped yet."""
    if not Path("/proc").is_dir():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


async def _until_gone(pids: list[int], seconds: float) -> None:
    async with asyncio.timeout(seconds):
        while not all(_gone(pid) for pid in pids):
            await asyncio.sleep(0.05)


def test_host_headers_are_read_as_browsers_send_them() -> None:
    assert split_host("127.0.0.1:8000") == ("127.0.0.1", 8000) and split_host("LocalHost:80") == ("localhost", 80)
    assert split_host("[::1]:8000") == ("::1", 8000) and split_host("example.org") == ("example.org", 80)
    assert split_host("example.org:x") == ("example.org", None)
    server = OneUserServer(["true"], max_tabs=1, host="127.0.0.1", port=8000)
    assert server.host_is_ours("127.0.0.1:8000") and server.host_is_ours("localhost:8000")
    assert server.host_is_ours("[::1]:8000")
    assert OneUserServer(["true"], max_tabs=1, host="::1", port=8000).public_url == "http://[::1]:8000"
    assert not server.host_is_ours("127.0.0.1:8001") and not server.host_is_ours("attacker.example:8000")
    assert not server.host_is_ours(None) and not server.host_is_ours("192.168.1.4:8000")
    assert OneUserServer(["true"], max_tabs=1, host="127.0.0.2", port=8000).host_is_ours("127.0.0.2:8000")
    everywhere = OneUserServer(["true"], max_tabs=1, host="0.0.0.0", port=8000)
    assert everywhere.host_is_ours("192.168.1.4:8000") and everywhere.host_is_ours("localhost:8000")
    assert not everywhere.host_is_ours("attacker.example:8000")  # a rebound name is not this machine's


def test_terminal_sizes_are_capped_and_only_whole_numbers_count() -> None:
    assert clamp_size(5000, 2000) == (400, 150) and clamp_size(-3, 0) == (1, 1) and clamp_size(120, 40) == (120, 40)
    assert clamp_size("80", 24) is None and clamp_size(80.5, 24) is None and clamp_size(True, 24) is None


def test_only_the_page_it_served_may_open_a_tab() -> None:
    async def scenario() -> None:
        async with _Serving(_stand_in("quits")) as serving:
            rebound = f"attacker.example:{serving.port}"  # DNS rebinding: another name for this address
            for refused in (
                await serving.open_tab(origin="http://attacker.example"),  # another web page
                await serving.open_tab(origin=""),  # no page at all
                await serving.open_tab(origin=f"http://{rebound}", host=rebound),
            ):
                assert refused.status == 403
                refused.drop()
            assert not serving.server.tabs
            import aiohttp

            async with aiohttp.ClientSession() as http:  # the page names the address it was asked by
                page = await (await http.get(f"http://localhost:{serving.port}/")).text()
                assert f'data-session-websocket-url="ws://localhost:{serving.port}/ws"' in page
                elsewhere = await http.get(f"http://{serving.here}/", headers={"Host": rebound})
                assert elsewhere.status == 403
            tab = await serving.open_tab()
            assert tab.status == 101
            await tab.wait_for(b"ready 80x24")
            tab.drop()

    asyncio.run(scenario())


def test_the_terminal_size_asked_for_is_capped() -> None:
    async def scenario() -> None:
        async with _Serving(_stand_in("quits")) as serving:
            tab = await serving.open_tab("?width=5000&height=2000")
            await tab.wait_for(b"ready 400x150")
            tab.drop()

    asyncio.run(scenario())


def test_tabs_past_the_cap_get_a_message_and_no_process() -> None:
    async def scenario() -> None:
        async with _Serving(_stand_in("quits"), max_tabs=2) as serving:
            first, second = await serving.open_tab(), await serving.open_tab()
            await first.wait_for(b"ready")
            await second.wait_for(b"ready")
            third = await serving.open_tab()
            await third.wait_for(b"Close one, then reload this page.")
            assert len(serving.server.tabs) == 2
            for tab in (first, second, third):
                tab.drop()

    asyncio.run(scenario())


def test_every_app_process_ends_with_its_connection_even_one_that_ignores_quit_and_sigterm(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(one_user_server, "QUIT_GRACE_SECONDS", 0.5)
    monkeypatch.setattr(one_user_server, "KILL_WAIT_SECONDS", 0.5)

    async def scenario() -> None:
        async with _Serving(_stand_in("stubborn")) as serving:
            tabs = [await serving.open_tab() for _ in range(3)]
            for tab in tabs:
                await tab.wait_for(b"ready")
            pids = [tab.pid for tab in serving.server.tabs]
            assert len(pids) == 3 and all(pid is not None for pid in pids)
            for tab in tabs:
                tab.drop()
            await _until_gone([pid for pid in pids if pid is not None], 10)
            async with asyncio.timeout(5):
                while serving.server.tabs:
                    await asyncio.sleep(0.05)

    asyncio.run(scenario())


def test_the_real_app_ends_with_its_connection(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # the app's environment is this one's: nothing of the user's
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "none"))

    async def scenario() -> None:
        async with _Serving(play_argv(None, "chars4", False)) as serving:
            tab = await serving.open_tab("?width=100&height=30")
            await tab.wait_for(APP_DRAWN, 60)
            (pid,) = [tab.pid for tab in serving.server.tabs]
            assert pid is not None
            tab.drop()
            await _until_gone([pid], 15)

    asyncio.run(scenario())


def test_an_app_that_fails_to_start_says_why_and_what_to_do_in_the_page() -> None:
    failing = [
        sys.executable,
        "-c",
        "import sys; sys.exit('ModuleNotFoundError: No module named ctxviz\\x1b]52;c;x\\x07')",
    ]

    async def scenario() -> None:
        async with _Serving(failing) as serving:
            tab = await serving.open_tab()
            said = await tab.wait_for(b"reload this page.")
            assert b"ctxviz could not start in this tab." in said
            assert b"No module named ctxviz" in said and b"What to do" in said
            assert b"\x1b]52" not in said  # what the app said is shown inert
            tab.drop()

    asyncio.run(scenario())


def test_stopping_the_server_ends_every_app_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(one_user_server, "QUIT_GRACE_SECONDS", 0.5)
    monkeypatch.setattr(one_user_server, "KILL_WAIT_SECONDS", 0.5)

    async def scenario() -> None:
        serving = _Serving(_stand_in("stubborn"))
        async with asyncio.timeout(10), serving:  # a killed app's tab is closed: the shutdown waits for none
            tab = await serving.open_tab()
            await tab.wait_for(b"ready")
            pids = [tab.pid for tab in serving.server.tabs if tab.pid is not None]
            assert len(pids) == 1
        await _until_gone(pids, 5)  # the tab was still connected: the server's shutdown ended its app
        tab.drop()

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "ending",
    [signal.SIGHUP, pytest.param(signal.SIGKILL, marks=pytest.mark.skipif(sys.platform != "linux", reason="Linux"))],
    ids=["terminal-closed", "killed"],
)
def test_the_apps_end_with_the_server_however_it_ends(tmp_path: Path, ending: signal.Signals) -> None:
    """SIGHUP, as a closed terminal sends to serve alone (each app has its own process group), lets it
    end its apps; SIGKILL leaves it no time to, and the apps end by themselves (Linux)."""
    port = _free_port()
    env = {**os.environ, "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    server = subprocess.Popen(
        [sys.executable, "-m", "ctxviz", "--tokenizer", "chars4", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )

    apps: list[int] = []

    async def scenario() -> None:
        tab = await _open_tab(port)
        await tab.wait_for(APP_DRAWN, 60)
        apps.extend(int(pid) for pid in Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split())
        assert len(apps) == 1
        server.send_signal(ending)
        await _until_gone(apps, 15)
        tab.drop()

    try:
        _wait_for_port(port, 60)
        asyncio.run(scenario())
        assert server.wait(timeout=15) == (0 if ending == signal.SIGHUP else -signal.SIGKILL)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        for app in apps:  # left running when the test fails: not to outlive it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(app, signal.SIGKILL)
