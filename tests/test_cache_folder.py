"""One rule for where ctxviz's caches live, shared by the sessions index and the statusline: the
folder platformdirs gives, worked out without importing it on Linux."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from ctxviz.cache_folder import user_cache_folder
from ctxviz.live import statusline
from ctxviz.transcripts import index


@pytest.mark.parametrize("xdg", [None, "", "   ", "/somewhere/cache", "relative/cache", " /leading-space"])
def test_the_folder_is_platformdirs_own_and_both_caches_use_it(
    xdg: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    folder = Path(platformdirs.user_cache_dir("ctxviz", appauthor=False))
    assert user_cache_folder() == folder
    assert statusline.cache_dir() == folder / "statusline"
    assert index.cache_folder([]) == folder


def test_the_rule_imports_nothing_heavy() -> None:
    code = "import sys; import ctxviz.cache_folder as c; c.user_cache_folder(); print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    if sys.platform.startswith("linux"):
        assert "platformdirs" not in loaded and "tempfile" not in loaded and "shutil" not in loaded
