"""grok-build sessions: a folder per session holding its event log and chat history."""
