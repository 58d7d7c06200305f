"""Renderings of a Timeline: JSON, and Rich renderables for the terminal."""
