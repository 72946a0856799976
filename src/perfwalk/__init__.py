"""perfwalk: walk a git history, measure every checkout, find the commit that changed it."""

__version__ = "0.1.0"
