"""``ctxviz serve``: the options, the host warning, and the real thing — the server started on a free
local port and the page opened in headless Chromium, checked through the DevTools protocol: the
terminal's canvas must be drawn (many lit pixels in many colours) and a screenshot taken."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shlex
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

from ctxviz.cli import main
from ctxviz.cli.serve_commands import is_loopback, offline_page, play_command

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


def test_each_tab_runs_this_python_with_the_same_options() -> None:
    command = play_command("my scenario.yaml", "chars4", True)
    assert shlex.split(command) == [sys.executable, "-m", "ctxviz", "--tokenizer", "chars4", "play",
                                    "--allow-outside", "my scenario.yaml"]  # fmt: skip


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


async def _render_in_chromium(url: str, profile: Path, screenshot: Path) -> dict[str, int]:
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

                async def call(method: str, **params: Any) -> dict[str, Any]:
                    nonlocal calls
                    calls += 1
                    await ws.send_json({"id": calls, "method": method, "params": params})
                    while True:
                        message = await ws.receive_json()
                        if message.get("id") == calls:
                            return dict(message.get("result", {}))

                await call("Page.enable")
                await call("Page.navigate", url=url)
                drawn = {"lit": 0, "colours": 0}
                for _ in range(120):  # the app process starts when the page connects: up to a minute
                    result = await call("Runtime.evaluate", expression=_CANVAS_PROBE, returnByValue=True)
                    drawn = json.loads(result["result"]["value"])
                    if drawn["lit"] >= MIN_LIT and drawn["colours"] >= MIN_COLOURS:
                        break
                    await asyncio.sleep(0.5)
                await asyncio.sleep(0.5)  # let the first frame finish before the picture
                shot = await call("Page.captureScreenshot", format="png")
                screenshot.write_bytes(base64.b64decode(shot["data"]))
                return drawn
    finally:
        os.killpg(chrome.pid, signal.SIGTERM)
        try:
            chrome.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(chrome.pid, signal.SIGKILL)
            chrome.wait()


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)")
def test_serve_renders_the_app_in_headless_chromium(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "ctxviz", "serve", "--port", str(port)],
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
            drawn = asyncio.run(_render_in_chromium(f"http://127.0.0.1:{port}/", Path(profile), tmp_path / "page.png"))
        server_said = (tmp_path / "serve.log").read_text(errors="replace")[-2000:]
        assert drawn["lit"] >= MIN_LIT and drawn["colours"] >= MIN_COLOURS, (drawn, server_said)
        assert (tmp_path / "page.png").read_bytes().startswith(b"\x89PNG")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
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
