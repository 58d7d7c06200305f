"""Claude Code's transcripts: JSONL under ~/.claude/projects/<project>/, one file per session, subagents beside it."""
