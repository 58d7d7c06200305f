"""ctxviz: see what fills a coding agent's context window."""

__version__ = "0.1.0"
