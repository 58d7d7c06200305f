"""opencode sessions: the SQLite database opencode.db, or the older JSON tree."""
