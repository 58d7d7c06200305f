"""The layering the project keeps (the README's Development section): the engine, the scenario model, the
timeline and the profiles import no Textual and no Rich; ``ctxviz --help`` never imports Textual. Each
check runs in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PURE_PACKAGES = ("ctxviz.engine", "ctxviz.scenario", "ctxviz.profiles")
PURE_MODULES = ("ctxviz.timeline",)

_PROBE = """
import importlib, pkgutil, sys
names = []
for package in {packages!r}:
    module = importlib.import_module(package)
    names.append(package)
    for info in pkgutil.walk_packages(module.__path__, package + "."):
        importlib.import_module(info.name)
        names.append(info.name)
for name in {modules!r}:
    importlib.import_module(name)
    names.append(name)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
print(len(names))
print(",".join(heavy))
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_pure_layers_import_no_textual_or_rich() -> None:
    result = run("-c", _PROBE.format(packages=PURE_PACKAGES, modules=PURE_MODULES))
    assert result.returncode == 0, result.stderr
    count, heavy = result.stdout.splitlines()
    # every submodule of the engine, scenario and profiles packages was imported
    assert int(count) >= 1 + 7 + 1 + 5 + 1 + 3 + 1
    assert heavy == "", f"imported: {heavy}"


def test_cli_help_does_not_import_textual() -> None:
    result = run("-X", "importtime", "-m", "ctxviz", "--help")
    assert result.returncode == 0, result.stderr
    assert "Usage" in result.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if "|" in line]
    assert imported, "no -X importtime output"
    assert not [m for m in imported if m.split(".")[0] == "textual"]


def test_cli_module_does_not_import_textual() -> None:
    result = run("-c", "import sys, ctxviz.cli; print(sorted(m for m in sys.modules if m.startswith('textual')))")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
