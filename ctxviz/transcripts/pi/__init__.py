"""pi sessions: one JSONL tree of entries per session, every branch included."""
