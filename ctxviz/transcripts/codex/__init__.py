"""Codex rollouts: one JSONL file per session (a subagent's too) under $CODEX_HOME/sessions/."""
