"""The layering the project keeps (the README's Development section): no package imports one above it; the
engine, the scenario model, the timeline and the profiles import no Textual and no Rich; ``ctxviz --help``
never imports Textual. Each import check runs in a fresh interpreter."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# ctxviz's packages from the bottom up: each may import those before it (and the modules beside them at the
# top of ctxviz/), never one after it.
LAYERS = ("scenario", "profiles", "engine", "transcripts", "importer", "report", "tui", "live", "cli")
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


def upward_imports(package_root: Path) -> list[str]:
    """Every import, at any depth of a module (typing-only ones too), of a package above the importer's."""
    found = []
    for file in sorted(package_root.rglob("*.py")):
        parts = file.relative_to(package_root.parent).with_suffix("").parts
        if len(parts) < 3 or parts[1] not in LAYERS:
            continue
        above = LAYERS[LAYERS.index(parts[1]) + 1 :]
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                target = name.split(".")
                if target[0] == "ctxviz" and len(target) > 1 and target[1] in above:
                    found.append(f"{file.relative_to(package_root.parent)}:{node.lineno}: {name}")
    return found


def test_no_package_imports_one_above_it() -> None:
    assert upward_imports(ROOT / "ctxviz") == []


def test_the_check_finds_an_import_from_above(tmp_path: Path) -> None:
    module = tmp_path / "ctxviz" / "profiles" / "policy.py"
    module.parent.mkdir(parents=True)
    module.write_text("def f():\n    from ctxviz.cli.main import run\n\nimport ctxviz.scenario.model\n")
    assert upward_imports(tmp_path / "ctxviz") == ["ctxviz/profiles/policy.py:2: ctxviz.cli.main"]
