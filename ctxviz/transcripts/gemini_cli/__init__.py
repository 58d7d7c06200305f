"""gemini-cli chats: a JSONL update log per session (older builds: one JSON document)."""
