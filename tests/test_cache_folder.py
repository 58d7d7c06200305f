"""One rule for where ctxviz's caches live, shared by the sessions index and the statusline: the
folder platformdirs gives, worked out without importing it on Linux."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from ctxviz import cache_file
from ctxviz.cache_folder import user_cache_folder, write_atomically
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
    assert cache_file.cache_dir() == folder / "statusline"
    assert index.cache_folder([]) == folder


def test_the_rule_imports_nothing_heavy() -> None:
    code = "import sys; import ctxviz.cache_folder as c; c.user_cache_folder(); print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    if sys.platform.startswith("linux"):
        assert "platformdirs" not in loaded and "tempfile" not in loaded and "shutil" not in loaded


def test_a_cache_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "deeper" / "cache.bin"
    write_atomically(target, b"first")
    write_atomically(target, b"second")
    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["cache.bin"]  # no temporary left behind


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    target = tmp_path / "cache.bin"
    write_atomically(target, b"old")

    def refused(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(OSError, match="No space"):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["cache.bin"]
