"""Whether a change to the readers kept their output: every session's ``context --json`` (last call and
call 1), ``sessions --json --root`` over them, and ``statusline`` with a cold cache then a warm one,
written into a folder, one file per command and session, so that two checkouts can be compared:

    python benchmarks/same_output.py --out /tmp/after
    python benchmarks/same_output.py --out /tmp/before --source ../other-checkout
    diff -r /tmp/before /tmp/after && echo identical

Sessions: every Claude Code, Codex and pi file in tests/fixtures, and the reference corpus's when
``--corpus DIR`` names it (its ``.jsonl.gz`` files are decompressed into a temporary folder: ctxviz reads
uncompressed files only). ``--source`` runs another checkout's ``ctxviz`` package with this Python.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
STATUSLINE_FORMAT = "{used_tokens} {window_tokens} {left} {item} {item_tokens} {model} {session}"


def sessions(corpus: Path | None, folder: Path) -> list[Path]:
    found = sorted(FIXTURES.glob("claude-code/*/*.jsonl")) + sorted(FIXTURES.glob("other-agents/codex/*.jsonl"))
    found += sorted(FIXTURES.glob("other-agents/pi/*.jsonl"))
    if corpus is not None:
        for packed in sorted(corpus.rglob("*.jsonl.gz")):
            name = "-".join(packed.relative_to(corpus).parts).removesuffix(".gz")
            plain = folder / name
            with gzip.open(packed) as source, plain.open("wb") as target:
                shutil.copyfileobj(source, target)
            found.append(plain)
    return found


def run(command: list[str], env: dict[str, str], stdin: bytes = b"") -> bytes:
    # from the checkout's own folder: ``python -m`` puts the current folder first on the path
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, cwd=env["PYTHONPATH"])
    return done.stdout + b"\n--- exit %d\n" % done.returncode + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="the folder the outputs are written into")
    parser.add_argument("--corpus", type=Path, help="a folder of .jsonl.gz sessions to read as well")
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout whose ctxviz runs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ctxviz-same-") as temporary:
        folder = Path(temporary)
        files = sessions(args.corpus, folder)
        env = dict(os.environ, PYTHONPATH=str(args.source.resolve()), NO_COLOR="1", COLUMNS="100")
        ctxviz = [sys.executable, "-m", "ctxviz"]
        for n, path in enumerate(files):
            name = f"{n:03d}-{path.stem[:40]}"
            (args.out / f"{name}.context").write_bytes(run([*ctxviz, "context", str(path), "--json"], env))
            (args.out / f"{name}.context-at-1").write_bytes(run([*ctxviz, "context", str(path), "--at", "1",
                                                                 "--json"], env))  # fmt: skip
            if "claude-code" in str(path.relative_to(FIXTURES) if path.is_relative_to(FIXTURES) else path):
                payload = json.dumps({"transcript_path": str(path), "session_id": "s"}).encode()
                cache = folder / f"cache-{n}"
                line_env = dict(env, XDG_CACHE_HOME=str(cache))
                cold = run([*ctxviz, "statusline", "--format", STATUSLINE_FORMAT], line_env, payload)
                warm = run([*ctxviz, "statusline", "--format", STATUSLINE_FORMAT], line_env, payload)
                calls = run([*ctxviz, "statusline", "--format", "{calls}"], line_env, payload)
                (args.out / f"{name}.statusline").write_bytes(cold + b"\n--- warm\n" + warm + b"\n--- calls\n" + calls)
        roots = sorted({p.parent for p in files})
        listing = [*ctxviz, "sessions", "--json", "--no-cache", *(a for r in roots for a in ("--root", str(r)))]
        text = run(listing, dict(env, XDG_CACHE_HOME=str(folder / "cache-sessions")))
        (args.out / "sessions").write_bytes(text.replace(str(folder).encode(), b"<corpus>"))
    for output in args.out.iterdir():  # the temporary folder's name differs between runs
        output.write_bytes(output.read_bytes().replace(str(folder).encode(), b"<corpus>"))
    print(f"{len(files)} sessions, outputs in {args.out}")


if __name__ == "__main__":
    main()
