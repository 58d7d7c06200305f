"""The readers are pure parsing: importing them (and the registry that holds them) brings in no
Textual, no Rich and no engine. Runs in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READER_MODULES = (
    "ctxviz.transcripts.registry",
    "ctxviz.transcripts.every_agent",
    "ctxviz.transcripts.opencode_db",
    "ctxviz.transcripts.latest",
)


def test_readers_import_no_faces_and_no_engine() -> None:
    probe = (
        f"import importlib, sys\nfor name in {READER_MODULES!r}: importlib.import_module(name)\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')"
        " or m.startswith('ctxviz.engine'))))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
