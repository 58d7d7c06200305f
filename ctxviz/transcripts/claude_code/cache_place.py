"""Where a cache may not be written: inside the folder a Claude Code transcript lives in, or any agent's
folder on this machine, whatever XDG_CACHE_HOME says."""

from __future__ import annotations

from pathlib import Path


def among_agent_folders(folder: Path, transcript: Path) -> bool:
    """Whether a cache ``folder`` is inside ``transcript``'s Claude Code config folder (in its layout,
    ``<root>/projects/<project>/<session>.jsonl``; else the transcript's own folder) or any agent's
    folder on this machine: ctxviz writes nothing there, whatever XDG_CACHE_HOME says."""
    import os

    from ctxviz.transcripts.registry import agent_folders

    transcripts = transcript.parents[2] if transcript.parent.parent.name == "projects" else transcript.parent
    folders = (transcripts, *agent_folders(os.environ, Path(os.environ.get("HOME") or Path.home())))
    return any(_inside(folder, root) for root in folders)


def _inside(folder: Path, transcripts: Path) -> bool:
    """Whether ``folder`` is in ``transcripts`` (nothing is ever written among a user's transcripts,
    whatever XDG_CACHE_HOME says)."""
    try:
        return folder.resolve().is_relative_to(transcripts.resolve())
    except (OSError, RuntimeError):
        return True
