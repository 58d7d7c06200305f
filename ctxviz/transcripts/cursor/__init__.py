"""Cursor's agent transcripts: the conversation without token usage."""
